#!/bin/bash
# One self-contained page: the findings first, the two periods side by side, a table per group.
"$MFSTAT" diff -f html --by system --metrics CPI,L1MP,RNI,L3P,MEMP,LPARCPU ../data/day-3sys-z15.csv.gz ../data/week-2sys.csv.gz
