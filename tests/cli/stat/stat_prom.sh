#!/bin/bash
# stat -f prom on a recorded z16 LPAR: machine info, mfstat_up of every set, every counter read
# as a counter summed over the CPUs counted (set label, no cpu label).
. stat/z16tree.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
z16_tree "$tmp/z16"
MFSTAT_SYSROOT=$tmp/z16 "$MFSTAT" stat -f prom -o - -- true
echo "exit $?"
# -a on the two CPUs online: summed over them.
MFSTAT_SYSROOT=$tmp/z16 "$MFSTAT" stat -a --duration 0.01 -f prom -o - | grep -E '^mfstat_cpumf_(cpu_cycles|instructions)_total'
