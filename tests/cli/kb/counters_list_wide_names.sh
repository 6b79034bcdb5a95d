#!/bin/bash
# The counter listing's columns are as wide as their longest name: linux_perf's short names
# (instructions, page_faults) are longer than IBM Z's (E270), and must not push the rows out of
# line with the heading; the --events table alike, which names no cpum_cf event or lshwc line
# for a family whose counters are not CPU-MF counters. A z16 listing keeps its widths.
"$MFSTAT" counters --machine linux_perf | cut -c1-60
"$MFSTAT" metrics --events CPI,FAULTS_PER_S --machine linux_perf
"$MFSTAT" counters --machine z16 | sed -n '3,5p' | cut -c1-60
