#!/bin/bash
# z10 keys: L15P, L2LP, L2RP (no L2P/L3P/L4LP/L4RP), PTE_PCT, no TLB_MISS_RATE; RMF pool 1 = GCP.
"$MFSTAT" report ../data/z10.csv
"$MFSTAT" report -f json ../data/z10.csv
