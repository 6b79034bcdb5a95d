#!/bin/bash
# 4 bad rows, 3 reasons (two non-numbers in B0, a negative B2, a short row).
"$MFSTAT" report --skip-bad-rows ../data/bad-rows.csv
