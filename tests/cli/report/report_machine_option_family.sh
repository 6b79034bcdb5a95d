#!/bin/bash
# The file has no machine column; --machine z16 lets the extended counters be read.
"$MFSTAT" report --machine z16 ../data/z16-nomachine.csv
