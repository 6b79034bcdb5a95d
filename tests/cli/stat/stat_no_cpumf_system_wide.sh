#!/bin/bash
# Without CPU-MF counters and without --fallback, stat says why and exits 3 (issue 30, item 3):
# with a command, that the command was not run; system-wide (-a, -C), never that, but that
# nothing was counted.  A recorded x86 machine (no cpum_cf PMU).
. stat/z16tree.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
x86_tree "$tmp/x86"
export MFSTAT_SYSROOT=$tmp/x86
"$MFSTAT" stat -- touch "$tmp/ran"; echo "exit $?"
"$MFSTAT" stat -a --duration 0.01; echo "exit $?"
"$MFSTAT" stat -C 0 --duration 0.01; echo "exit $?"
"$MFSTAT" stat -q -a --duration 0.01; echo "-q: exit $?"
ls "$tmp" | grep -c ran
