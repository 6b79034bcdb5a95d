#!/bin/bash
# stat --fallback -f prom without CPU-MF: perf's generic events as mfstat_perf_* counters,
# mfstat_up{set="perf"}, and with --derived the linux_perf metrics in base units (TASK_MS as
# mfstat_task_seconds).  Times that depend on the clock are shown as their presence only.
. stat/z16tree.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
x86_tree "$tmp/x86"
MFSTAT_SYSROOT=$tmp/x86 "$MFSTAT" stat -q --fallback --derived -f prom -o - -- true | grep -v '^# HELP' |
	sed -E 's/^(mfstat_(elapsed_seconds|cpus_utilized)) [0-9.e+-]+$/\1 (a number)/'
echo "exit ${PIPESTATUS[0]}"
