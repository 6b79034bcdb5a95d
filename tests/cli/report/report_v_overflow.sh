#!/bin/bash
# -v says why a metric is n/a: an overflow beyond 1.8e308 is an overflow, a zero divisor a zero divisor.
"$MFSTAT" report -v --tables ../data/tables-overflow ../data/generic.csv
