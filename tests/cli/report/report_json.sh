#!/bin/bash
"$MFSTAT" report -f json ../data/z16-two-pools.csv
