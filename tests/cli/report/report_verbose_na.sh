#!/bin/bash
# -v says on stderr why each n/a metric is not available.
"$MFSTAT" report -v -f csv ../data/z16-quoted.csv
