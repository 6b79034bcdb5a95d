#!/bin/bash
"$MFSTAT" report --by cpu -f csv ../data/z16-two-pools.csv
