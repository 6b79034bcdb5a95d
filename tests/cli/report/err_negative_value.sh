#!/bin/bash
"$MFSTAT" report ../data/err-negative.csv
