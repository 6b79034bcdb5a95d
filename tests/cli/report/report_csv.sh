#!/bin/bash
"$MFSTAT" report -f csv ../data/z16-two-pools.csv
