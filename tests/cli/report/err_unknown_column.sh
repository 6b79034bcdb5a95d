#!/bin/bash
"$MFSTAT" report ../data/err-unknown-column.csv
