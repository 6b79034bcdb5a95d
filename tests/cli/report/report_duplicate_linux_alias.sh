#!/bin/bash
# CPU_CYCLES is the Linux name of B0: the same counter twice is an error (exit 1), never a sum.
"$MFSTAT" report -f json ../data/dup-linux-alias.csv
