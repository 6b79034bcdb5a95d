#!/bin/bash
# The same short row with CRLF endings: same column, no carriage return in the quoted line.
sed 's/$/\r/' ../data/err-short-row.csv | "$MFSTAT" report -
