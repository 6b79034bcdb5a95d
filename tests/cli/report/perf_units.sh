#!/bin/bash
# perf stat as perf prints it by default: software events with unit columns (msec task-clock,
# ns duration_time, K/sec comments) are left out and counted, never a reason to refuse the file;
# a command holding , ; | and a tab does not make it look like -x output; DFLT_CCERROR is z15's.
# A real output of this machine (no CPU-MF counters, cycles <not supported>) gets a clear error.
"$MFSTAT" report -f csv --machine z16 ../data/perf/z16-default-units.txt | cut -d, -f8,9,27
"$MFSTAT" report -f csv ../data/perf/generic-x-interval-padded.txt | cut -d, -f5,8,9,10,12
"$MFSTAT" report -f csv --by "" ../data/perf/z15-dflt-ccerror.txt | cut -d, -f9,18
"$MFSTAT" report ../data/perf/vm-default.txt
echo "exit $?"
"$MFSTAT" report --input perf ../data/perf/vm-x-interval.txt
echo "exit $?"
