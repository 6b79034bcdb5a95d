#!/bin/bash
# A header and no data rows: not an error, a warning.
"$MFSTAT" report ../data/header-only.csv
"$MFSTAT" report -f json ../data/header-only.csv
