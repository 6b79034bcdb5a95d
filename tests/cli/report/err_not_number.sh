#!/bin/bash
"$MFSTAT" report ../data/err-not-number.csv
