#!/bin/bash
# A row with more fields than the header: the count and the caret name the first extra field.
"$MFSTAT" report ../data/err-long-row.csv
