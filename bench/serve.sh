#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Benchmark of mfstat serve (not a test): the CPU a scrape costs.  mfstat serve runs on a recorded
# z16 tree of CPUS CPUs (MFSTAT_SYSROOT: every z16 counter of the cpum_cf PMU, counts that
# advance at every read), one curl fetches /metrics SCRAPES times in a row over one kept-alive
# connection (as Prometheus does), and the exporter's CPU time is read from the kernel before and
# after: utime+stime of /proc/PID/stat (clock ticks) and the sum of its threads' run time in
# /proc/PID/task/*/schedstat (nanoseconds).  Prints CPU ms per scrape (the goal: under 5 ms for
# 64 CPUs), wall ms per scrape, bytes and series per scrape.
#
# Beside it, when installed (Debian prometheus-node-exporter), node_exporter with only its perf
# collector (--collector.disable-defaults --collector.perf) on this machine's own CPUs, measured
# the same way: on a virtual machine without hardware counters it serves perf's software events
# only, so its series and CPUs differ; the table says how many.
#
# Usage: bench/serve.sh [MFSTAT]   (default: build-release-gcc/mfstat when built, else build/mfstat)
# Environment: CPUS=64 SCRAPES=500 NODE_EXPORTER=prometheus-node-exporter (empty: skipped)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
MFSTAT=${1:-}
if [ -z "$MFSTAT" ]; then
	if [ -x "$here/build-release-gcc/mfstat" ]; then MFSTAT=$here/build-release-gcc/mfstat; else MFSTAT=$here/build/mfstat; fi
fi
CPUS=${CPUS:-64}
SCRAPES=${SCRAPES:-500}
NODE_EXPORTER=${NODE_EXPORTER-prometheus-node-exporter}
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done; wait 2> /dev/null; rm -rf "$tmp"' EXIT

root=$tmp/z16
. "$here/tests/lib/z16tree.sh"
recorded_z16 "$root" "$here/data" 002f "0-$((CPUS - 1))"
# Every counter: a large count (as after hours of counting) and a step per read.
awk -F'\t' '/^[0-9]/ { printf "%d\t%d\t%d\n", $1, 123456789012 + $1 * 1000003, 1000 + $1 }' "$here/data/counters/z16.tsv" > "$root/counts.tsv"

# CPU nanoseconds of PID so far: its threads' schedstat run times; and its utime+stime in ticks.
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%d\n", s }'; }
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' /proc/"$1"/stat; }

# Measures the exporter PID at URL: prints "cpu_ms_per_scrape(schedstat) cpu_ms_per_scrape(stat) wall_ms bytes series".
measure() { # PID URL
	local pid=$1 url=$2 n0 t0 n1 t1 w0 w1 urls=() i
	curl -s "$url" > "$tmp/one" # warm: the first scrape opens nothing more, but pages in the code
	for ((i = 0; i < SCRAPES; i++)); do urls+=("$url"); done
	n0=$(cpu_ns "$pid"); t0=$(cpu_ticks "$pid"); w0=$(date +%s%N)
	curl -s "${urls[@]}" > /dev/null
	w1=$(date +%s%N); n1=$(cpu_ns "$pid"); t1=$(cpu_ticks "$pid")
	awk -v n="$SCRAPES" -v ns=$((n1 - n0)) -v tk=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" -v w=$((w1 - w0)) \
		-v b="$(wc -c < "$tmp/one")" -v s="$(grep -vc '^#' "$tmp/one")" \
		'BEGIN { printf "%.3f %.3f %.3f %d %d\n", ns / n / 1e6, tk * 1000 / hz / n, w / n / 1e6, b, s }'
}

wait_listen() { # LOG
	local i
	for i in $(seq 100); do
		sed -n 's/^serve: listening on \([0-9.]*:[0-9]*\).*/\1/p' "$1" | grep . && return 0
		sleep 0.05
	done
	return 1
}

printf '%-44s %12s %12s %10s %10s %8s\n' "exporter" "CPU ms/scr" "(stat) ms" "wall ms" "bytes" "series"
MFSTAT_SYSROOT=$root "$MFSTAT" serve --listen 127.0.0.1:0 2> "$tmp/serve.err" &
pid=$!; pids+=("$pid")
addr=$(wait_listen "$tmp/serve.err") || { echo "mfstat serve did not start: $(cat "$tmp/serve.err")"; exit 1; }
read -r a b c d e < <(measure "$pid" "http://$addr/metrics")
printf '%-44s %12s %12s %10s %10s %8s\n' "mfstat serve, recorded z16, $CPUS CPUs" "$a" "$b" "$c" "$d" "$e"
kill "$pid"; wait "$pid" || true

if [ -n "$NODE_EXPORTER" ] && command -v "$NODE_EXPORTER" > /dev/null; then
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	"$NODE_EXPORTER" --collector.disable-defaults --collector.perf --web.listen-address="127.0.0.1:$port" 2> "$tmp/ne.err" &
	pid=$!; pids+=("$pid")
	for i in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/metrics" && break; sleep 0.05; done
	read -r a b c d e < <(measure "$pid" "http://127.0.0.1:$port/metrics")
	printf '%-44s %12s %12s %10s %10s %8s\n' "node_exporter perf collector, $(nproc) real CPUs" "$a" "$b" "$c" "$d" "$e"
	kill "$pid"; wait "$pid" || true
else
	echo "node_exporter: skipped (${NODE_EXPORTER:-disabled} not installed)"
fi
echo "mfstat: $MFSTAT; $SCRAPES scrapes in a row over one connection; $(nproc) CPUs here"
