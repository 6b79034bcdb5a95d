#!/bin/bash
# Real perf stat outputs from IBM Z: L4RP matches perf's l4rp (0.02 on z13), TLB1_CYCLES_PER_MISS
# its tlb_miss (440.96), LOCAL_AIU_PCT 52.63 on z17; a family the events cannot name asks for --machine.
"$MFSTAT" report -f csv --by "" ../data/perf/z13-l4rp.txt | cut -d, -f9,18
"$MFSTAT" report -f csv --by "" --machine z16 ../data/perf/tlb-miss.txt | cut -d, -f9,27
"$MFSTAT" report -f json --by "" ../data/perf/z17-nnpa.txt | grep -o '"LOCAL_AIU_PCT":[0-9][0-9.]*'
"$MFSTAT" report ../data/perf/z16-l4rp.txt
echo "exit $?"
