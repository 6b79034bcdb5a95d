#!/bin/bash
# tables-broken/metrics/z16.tsv: "+ *" in the L3P formula; file, line, column and caret (tabs kept).
"$MFSTAT" report --tables ../data/tables-broken ../data/generic.csv
