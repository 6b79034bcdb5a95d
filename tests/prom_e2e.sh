#!/bin/bash
# SPDX-License-Identifier: MIT
# The exporter and the recording rules in a real Prometheus (Debian's prometheus package): mfstat
# serve on a recorded z16 LPAR of 4 CPUs whose counts advance at every read (MFSTAT_SYSROOT,
# counts.tsv with a step per counter), scraped every second by a Prometheus with the rules of
# `mfstat metrics --prometheus-rules --machine z16`; the recorded CPI, RNI, L1MP and the LSPR
# class, per CPU and per instance, must equal what `mfstat report` computes from the same counter
# deltas (to a relative 1e-9).  Every counter advances by its step at each scrape, so the deltas
# of any window are a multiple of the steps and the metrics of the steps are the metrics of the
# window.  Skipped (77) with the reason where prometheus is not installed.
set -u
MFSTAT=$1
DATA=$2 # the project's data/ directory
command -v prometheus > /dev/null || { echo "skip: prometheus is not installed (apt-get install prometheus)"; exit 77; }
command -v curl > /dev/null || { echo "skip: curl is not installed"; exit 77; }
command -v jq > /dev/null || { echo "skip: jq is not installed"; exit 77; }
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
	wait 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail=0

# A free TCP port on the loopback (the kernel's choice), for serve and for Prometheus.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# The recorded z16: the cpum_cf PMU and its events, versions and authorization, machine type,
# 4 CPUs online; every counter starts at 0 and advances by its step at each read.
root=$tmp/z16
. "$(dirname "$0")/lib/z16tree.sh"
recorded_z16 "$root" "$DATA" 002f 0-3
# Steps: cycles and instructions for a CPI near 3.1, level-1 misses (B2 + B4) of 50,000 per
# step, and every other counter a distinct step from its number, so that each sourcing share
# and RNI come from many different counters.
awk -F'\t' '/^[0-9]/ {
	n = $1
	if (n == 0) s = 7777777; else if (n == 1) s = 2500003; else if (n == 2) s = 40001; else if (n == 4) s = 9999
	else s = (n * 7919) % 307 + 1
	printf "%d\t0\t%d\n", n, s
}' "$DATA/counters/z16.tsv" > "$root/counts.tsv"

# The counter deltas of one step as the canonical counter CSV, and report's metrics of them.
awk -F'\t' 'NR == FNR { if ($1 ~ /^[0-9]/) short[$1] = $2; next }
	{ hdr = hdr "," short[$1]; row = row "," $3 }
	END { print "machine,cpsp,interval_seconds" hdr; print "3931,5200,1" row }' \
	"$DATA/counters/z16.tsv" "$root/counts.tsv" > "$tmp/step.csv"
"$MFSTAT" report -q -f json --by "" "$tmp/step.csv" > "$tmp/expect.json" || { echo "FAIL: report of the steps"; exit 1; }
for m in CPI RNI L1MP; do
	v=$(jq -r ".groups[0].metrics.$m" "$tmp/expect.json")
	[ "$v" != null ] || { echo "FAIL: report gives no $m for the steps"; cat "$tmp/expect.json"; exit 1; }
	eval "expect_$m=$v"
done
expect_LSPR=$(jq -r '.groups[0].metrics.LSPR' "$tmp/expect.json")
echo "report of the steps: CPI $expect_CPI RNI $expect_RNI L1MP $expect_L1MP LSPR $expect_LSPR"

# The rules, with a window of 10 s (Prometheus scrapes and evaluates every second here).
"$MFSTAT" metrics --prometheus-rules --machine z16 --window 10s > "$tmp/rules.yml" || { echo "FAIL: rules"; exit 1; }
if command -v promtool > /dev/null; then
	promtool check rules "$tmp/rules.yml" > "$tmp/promtool.out" 2>&1 || { echo "FAIL: promtool check rules"; cat "$tmp/promtool.out"; fail=1; }
fi

sport=$(free_port)
MFSTAT_SYSROOT=$root "$MFSTAT" serve --listen "127.0.0.1:$sport" 2> "$tmp/serve.err" &
pids+=($!)
pport=$(free_port)
cat > "$tmp/prometheus.yml" << EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $tmp/rules.yml
scrape_configs:
  - job_name: mfstat
    static_configs:
      - targets: ['127.0.0.1:$sport']
EOF
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$pport" > "$tmp/prometheus.log" 2>&1 &
pids+=($!)
api=http://127.0.0.1:$pport/api/v1

# query EXPR: the result vector of an instant query, as JSON lines of labels and value.
query() {
	curl -s --max-time 5 --get "$api/query" --data-urlencode "query=$1" |
		jq -c '.data.result[]? | {m: .metric, v: .value[1]}'
}

# Waits (a guard against a hang, not a bound on time) for the per-CPU and the per-instance
# series of RNI: they need two scrapes in the window and the rules evaluated after them.
got=
for _ in $(seq 1 120); do
	if [ "$(query 'instance_cpu:mfstat_rni:rate10s' | wc -l)" = 4 ] && [ -n "$(query 'instance:mfstat_rni:rate10s')" ]; then
		got=1
		break
	fi
	sleep 0.5
done
if [ -z "$got" ]; then
	echo "FAIL: Prometheus recorded no RNI per CPU and per instance within a minute"
	echo "--- serve:"; cat "$tmp/serve.err"
	echo "--- prometheus:"; tail -20 "$tmp/prometheus.log"
	echo "--- targets:"; curl -s "$api/targets" | head -c 2000; echo
	exit 1
fi

# close NAME GOT WANT: GOT equals WANT to a relative 1e-9.
near() {
	awk -v g="$2" -v w="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; m = w < 0 ? -w : w; exit !(d <= 1e-9 * m) }' ||
		{ echo "FAIL: $1 is $2, mfstat report gives $3"; fail=1; }
}
for level in instance_cpu instance; do
	for m in CPI RNI L1MP; do
		lower=$(echo "$m" | tr 'A-Z' 'a-z')
		query "$level:mfstat_$lower:rate10s" > "$tmp/q"
		n=$(wc -l < "$tmp/q")
		want=$([ $level = instance ] && echo 1 || echo 4)
		[ "$n" = "$want" ] || { echo "FAIL: $level:mfstat_$lower:rate10s has $n series, not $want"; fail=1; }
		while read -r line; do
			near "$level:mfstat_$lower $(jq -r '.m | tostring' <<< "$line")" "$(jq -r .v <<< "$line")" "$(eval echo \$expect_$m)"
		done < "$tmp/q"
		echo "prometheus $level:mfstat_$lower:rate10s: $(jq -r .v "$tmp/q" | sort -u | tr '\n' ' ')"
	done
	query "$level:mfstat_lspr_info:rate10s" > "$tmp/q"
	classes=$(jq -r '.m.class' "$tmp/q" | sort -u)
	[ "$classes" = "$expect_LSPR" ] || { echo "FAIL: $level LSPR class '$classes', report says '$expect_LSPR'"; fail=1; }
done
# The raw series are there as the exporter named them, per CPU and counter set.
[ "$(query 'mfstat_cpumf_cpu_cycles_total' | wc -l)" = 4 ] || { echo "FAIL: not 4 cycle counters"; fail=1; }
[ "$(query 'mfstat_up{set="basic"} == 1' | wc -l)" = 1 ] || { echo "FAIL: mfstat_up of the basic set"; fail=1; }
[ $fail = 0 ] && echo "ok: Prometheus's recorded CPI, RNI, L1MP and LSPR class equal mfstat report's"
exit $fail
