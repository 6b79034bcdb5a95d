#!/bin/bash
# metrics --events: the counters metrics need (through the metrics they name), with perf stat and
# lshwc command lines (perf writing a file, -o, for its '# started on' line; how report gets the
# CPU speed neither tool writes); LSPR means L1MP and RNI; errors are usage errors.
"$MFSTAT" metrics --events LPARCPU,CPI --machine z16
"$MFSTAT" metrics --events LSPR --machine z10
"$MFSTAT" metrics --events RMF_LPARCPU --machine z15
"$MFSTAT" metrics --events RNI 2>&1
echo "exit $?"
"$MFSTAT" metrics --events NOPE --machine z16 2>&1
echo "exit $?"
