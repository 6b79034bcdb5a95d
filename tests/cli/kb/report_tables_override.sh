#!/bin/bash
# tables-override/metrics/z16.tsv changes the RNI leading factor from 4.1 to 6.0
# (RNI x 6.0/4.1: SYSA 0.799 -> 1.170, which makes its LSPR class HIGH).
"$MFSTAT" metrics RNI --machine z16 --tables ../data/tables-override
"$MFSTAT" report --tables ../data/tables-override --by system ../data/z16-two-pools.csv
