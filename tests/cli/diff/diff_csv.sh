#!/bin/bash
# CSV: one row per group and metric, the LSPR class as a row of its own; SYSC before only has
# empty after cells.
"$MFSTAT" diff -f csv --by system --metrics CPI,RNI,AIU_CPU,LSPR ../data/day-3sys-z15.csv.gz ../data/week-2sys.csv.gz
