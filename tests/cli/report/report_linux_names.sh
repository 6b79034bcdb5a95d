#!/bin/bash
# Header with the z16 Linux counter names (CPU_CYCLES, INSTRUCTIONS, L1I_DIR_WRITES, ...).
"$MFSTAT" report -f json ../data/z16-linux-names.csv
