#!/bin/bash
# RFC 4180 quotes in header and rows: "SYS,Q" holds a comma, "LP ""one""" a quote, "" is empty.
"$MFSTAT" report -f csv ../data/z16-quoted.csv
"$MFSTAT" report ../data/z16-quoted.csv
