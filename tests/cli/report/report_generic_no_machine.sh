#!/bin/bash
# No machine column and no --machine: only CPI, PRBSTATE and L1MP.
"$MFSTAT" report ../data/generic.csv
"$MFSTAT" report -f json ../data/generic.csv
