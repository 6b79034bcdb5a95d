#!/bin/bash
"$MFSTAT" report --skip-bad-rows -f json ../data/bad-rows.csv
