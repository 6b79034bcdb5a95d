#!/bin/bash
# E300 exists on no family, so the header is rejected before any z13 row is read.
"$MFSTAT" report ../data/err-e300-z13.csv
