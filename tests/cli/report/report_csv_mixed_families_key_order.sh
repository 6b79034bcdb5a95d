#!/bin/bash
# z10 and z16 in one report: the metric columns keep the documented order
# (L15P L2LP L2RP before L2P L3P L4LP L4RP).
"$MFSTAT" report -f csv --by system ../data/z10.csv ../data/z16-quoted.csv
