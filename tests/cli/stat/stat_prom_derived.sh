#!/bin/bash
# stat --derived -f prom: the metrics as gauges (percent as ratios 0-1), n/a metrics absent, the
# LSPR class as an info series.  LPARCPU depends on the wall-clock time: only its presence.
. stat/z16tree.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
z16_tree "$tmp/z16"
MFSTAT_SYSROOT=$tmp/z16 "$MFSTAT" stat --derived -o "$tmp/m.prom" -- true
echo "exit $?"
sed -n '/^# HELP mfstat_cpi /,$p' "$tmp/m.prom" | sed 's/^\(mfstat_lparcpu_ratio\) [0-9.e+-]*$/\1 (a number)/'
# OpenMetrics: the same series, counters' families without _total, ending in # EOF.
MFSTAT_SYSROOT=$tmp/z16 "$MFSTAT" stat --derived -f openmetrics -o - -- true > "$tmp/m.om"
echo "exit $?"
grep -E '^# TYPE mfstat_(machine|cpumf_cpu_cycles|cpi|lspr) |^mfstat_cpumf_cpu_cycles_total|^mfstat_lspr' "$tmp/m.om"
tail -1 "$tmp/m.om"
