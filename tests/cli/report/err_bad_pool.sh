#!/bin/bash
# zIIP is accepted (case-insensitive); CBP is not a pool.
"$MFSTAT" report ../data/err-bad-pool.csv
