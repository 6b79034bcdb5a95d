#!/bin/bash
"$MFSTAT" report ../data/err-short-row.csv
