#!/bin/bash
# CRLF line endings (made here so that no checkout can normalise them away).
sed 's/$/\r/' ../data/z10.csv | "$MFSTAT" report -f csv -
