#!/bin/bash
# Two systems, each summed over 2 pools x 2 intervals x 2 CPUs; INTERVAL = 120 s (two 60 s intervals).
"$MFSTAT" report --by system ../data/z16-two-pools.csv
