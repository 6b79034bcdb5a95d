#!/bin/bash
# report -f prom: each group's summed counters as counters labelled family, set and the --by keys
# (default system,lpar,pool: no time key), with --derived the metrics as gauges and the LSPR class.
"$MFSTAT" report -f prom ../data/z16-two-pools.csv | grep -E '^# (HELP|TYPE) mfstat_cpumf_cpu_cycles_total|^mfstat_cpumf_(cpu_cycles|instructions)_total'
echo "exit ${PIPESTATUS[0]}"
"$MFSTAT" report -f prom --derived --by system,cpu ../data/z16-two-pools.csv | grep -E '^mfstat_(cpi|l3p_ratio|lspr_info)|^# TYPE mfstat_(cpi|l3p_ratio|lspr_info) '
echo "exit ${PIPESTATUS[0]}"
# -o x.prom picks the format; OpenMetrics ends in # EOF.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$MFSTAT" report --by "" -o "$tmp/r.prom" ../data/z16-two-pools.csv
echo "exit $?"
grep -E '^mfstat_cpumf_cpu_cycles_total' "$tmp/r.prom"
"$MFSTAT" report --by "" -f openmetrics ../data/z16-two-pools.csv | tail -1
# A time key gives no Prometheus counter (one series per interval would restart it): refused.
"$MFSTAT" report -f prom --by system,interval ../data/z16-two-pools.csv
echo "exit $?"
"$MFSTAT" report --derived ../data/z16-two-pools.csv
echo "exit $?"
