#!/bin/bash
# E270 (NNPA_HOLD_LOCK) exists on z16 (row 2) but not on z13 (row 3, type 2964).
"$MFSTAT" report ../data/err-counter-not-on-family.csv
