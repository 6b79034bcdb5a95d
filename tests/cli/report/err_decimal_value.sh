#!/bin/bash
"$MFSTAT" report ../data/err-decimal.csv
