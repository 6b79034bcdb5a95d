#!/bin/bash
# Metric values of large magnitude (issue 25): a formula such as B0 * 1e300 (cycles times 1e300)
# prints in a readable form everywhere: from 1e15 on (more integer digits than a double's 15
# significant ones) text, HTML and diff write 15 significant digits in exponent form, as CSV
# and JSON do (%.15g), instead of 300 digits; below 1e15 the metric's decimals as before.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/t/metrics"
cp ../../data/metrics/z16.tsv "$tmp/t/metrics/"
printf 'HUGE\tx\t2\t-\t2025-01-01\tB0 * 1e300\tcycles times 1e300\n' >> "$tmp/t/metrics/z16.tsv"
printf 'EDGE\tx\t2\t-\t2025-01-01\tB0 * 1e12\tcycles times 1e12: 1e15 exactly\n' >> "$tmp/t/metrics/z16.tsv"
printf 'BELOW\tx\t2\t-\t2025-01-01\tB0 * 1e11 - 0.5\tjust below 1e15\n' >> "$tmp/t/metrics/z16.tsv"
printf 'NEG\tx\t1\t-\t2025-01-01\t-B0 * 1.2345678901234567e290\tnegative\n' >> "$tmp/t/metrics/z16.tsv"
{
	echo "system,pool,machine,cpsp,interval_start,interval_seconds,B0,B1"
	echo "S,GCP,z16,5200,2025-03-04T00:00:00Z,900,1000,500"
} > "$tmp/in.csv"
r() { "$MFSTAT" report -q --tables "$tmp/t" --metrics CPI,HUGE,EDGE,BELOW,NEG --by system "$@" "$tmp/in.csv"; }
r | sed -n '3,6p'
r -f csv
r -f json | grep -o '"metrics":{[^}]*}'
r -f html | grep -o '<td>[-0-9.e+]*</td>' | tail -5
"$MFSTAT" diff -q --tables "$tmp/t" --metrics HUGE,EDGE,BELOW,NEG --by system "$tmp/in.csv" "$tmp/in.csv" | sed -n '/^metric/,/^$/p'
