#!/bin/bash
# --by "" sums every row into one group (8 engines); LSPR comes from the GCP rows only.
"$MFSTAT" report --by "" -f json ../data/z16-two-pools.csv
