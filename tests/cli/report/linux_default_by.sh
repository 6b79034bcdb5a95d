#!/bin/bash
# Linux input (perf stat, lshwc) names no system, LPAR or pool: the default --by leaves those
# columns out of the text report when they are empty in every group (issue 30); --by given,
# and the CSV, keep them.
p=../data/perf/generic-interval-units.txt
"$MFSTAT" report -q --perf-tz UTC --metrics CPI,L1MP $p | sed "/^warning:/d"
echo "exit ${PIPESTATUS[0]}"
"$MFSTAT" report --metrics CPI ../data/lshwc/lshwc_man_ex3_basic_delta_short.csv | grep -m1 machine
"$MFSTAT" report -q --perf-tz UTC --by system,lpar,pool,interval --metrics CPI $p | grep -m1 machine
"$MFSTAT" report -q --perf-tz UTC -f csv --metrics CPI $p | head -1
# SMF keeps its columns.
"$MFSTAT" report --metrics CPI ../data/small-s1.smf | grep -m1 machine
