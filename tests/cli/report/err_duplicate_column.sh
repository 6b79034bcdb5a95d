#!/bin/bash
"$MFSTAT" report ../data/err-duplicate-column.csv
