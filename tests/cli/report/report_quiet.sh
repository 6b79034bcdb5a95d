#!/bin/bash
# -q: no warnings on stderr (the report still lists them).
"$MFSTAT" report -q -f json ../data/zec12-negative.csv
