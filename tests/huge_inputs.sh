#!/bin/bash
# SPDX-License-Identifier: MIT
# Inputs past the readers' limits, made on the fly in a scratch directory: each run is held to a
# time limit and (outside sanitizer builds, whose shadow memory needs a huge address space) a
# memory limit, so an endless loop or an unbounded allocation fails the test instead of the machine.
#   - a CSV row longer than 64 MiB and an lshwc CSV line longer than 16 MiB with --skip-bad-rows:
#     one error, counted once, the rest of the file read with the right line numbers
#   - lshwc JSON: memory near the size of the input (not tens of times it), a measurement larger
#     than 1 MiB and a document larger than 256 MiB (zstd bombs of a few KB) refused with a message
#   - perf stat output larger than 256 MiB: an error naming the size limit
#   - an lshwc JSON document of 256 MiB of small measurements (a zstd file of 22 KB, 5.5 million
#     measurements): read in seconds (it took a minute, jansson building each measurement's tree
#     twice); the work is counted, not timed: fewer than one malloc call per 4 measurements
set -u
MFSTAT=$1
COUNT_ALLOCS=${3:-}
tmp=$(mktemp -d "${2:-/tmp}/huge.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "$0")/limited.sh"

# A CSV: a row, a row of 65 MiB, a good row, a bad row.
{
	printf 'cpu,machine,B0,B1\n0,z16,10,5\n0,z16,'
	head -c $((65 << 20)) /dev/zero | tr '\0' 7
	printf '\n0,z16,30,5\n0,z16,x,1\n'
} > "$tmp/long.csv"
run 600000 60 report --skip-bad-rows -f csv --by "" "$tmp/long.csv"; st=$?
[ $st = 0 ] || { echo "FAIL: CSV long row, --skip-bad-rows: exit $st"; head -c 500 "$tmp/err"; fail=1; }
grep -q 'long.csv:3: skipped: a row longer than 64 MiB' "$tmp/err" || { echo "FAIL: CSV long row message"; head -c 500 "$tmp/err"; fail=1; }
grep -q 'long.csv:5:7: skipped: B0: not a number' "$tmp/err" || { echo "FAIL: CSV line numbers after the long row"; head -c 500 "$tmp/err"; fail=1; }
grep -q '2 bad rows skipped' "$tmp/err" || { echo "FAIL: CSV skip count"; head -c 500 "$tmp/err"; fail=1; }
grep -q ',z16,1,1,4,' "$tmp/out" || { echo "FAIL: CSV rows around the long row (CPI 4 over 2 rows)"; cat "$tmp/out"; fail=1; }
run 600000 60 report -f csv --by "" "$tmp/long.csv"; st=$?
[ $st = 1 ] && grep -q 'long.csv:3: error: a row longer than 64 MiB' "$tmp/err" || { echo "FAIL: CSV long row without skipping: exit $st"; head -c 500 "$tmp/err"; fail=1; }
rm -f "$tmp/long.csv"

# lshwc CSV: cumulative Total rows around a line of 17 MiB.
{
	printf 'Date,Time,CPU,CPU_CYCLES(0),INSTRUCTIONS(1)\n2021-04-01,11:50:32,Total,100,50\n2021-04-01,11:51:'
	head -c $((17 << 20)) /dev/zero | tr '\0' 7
	printf '\n2021-04-01,11:52:32,Total,400,150\n2021-04-01,11:53:32,Total,x,1\n'
} > "$tmp/long-lshwc.csv"
run 400000 60 report --input lshwc --skip-bad-rows -f csv --by "" "$tmp/long-lshwc.csv"; st=$?
[ $st = 0 ] || { echo "FAIL: lshwc long line, --skip-bad-rows: exit $st"; head -c 500 "$tmp/err"; fail=1; }
grep -q 'long-lshwc.csv:3: skipped: a line longer than 16 MiB' "$tmp/err" || { echo "FAIL: lshwc long line message"; head -c 500 "$tmp/err"; fail=1; }
grep -q 'long-lshwc.csv:5:[0-9]*: skipped' "$tmp/err" || { echo "FAIL: lshwc line numbers after the long line"; head -c 500 "$tmp/err"; fail=1; }
grep -q '2 bad rows skipped' "$tmp/err" || { echo "FAIL: lshwc skip count"; head -c 500 "$tmp/err"; fail=1; }
# The first read (100, 50) is the base of the third line's (400, 150): CPI 300 / 100 over 120 s.
grep -q ',120,generic,1,1,3,' "$tmp/out" || { echo "FAIL: lshwc rows around the long line"; cat "$tmp/out"; fail=1; }
rm -f "$tmp/long-lshwc.csv"

# lshwc JSON of 15 MB (26,000 measurements): held with about its size, not 10 times it.
awk 'BEGIN {
	printf "{\"meta\":{\"host\":\"h\"},\"lshwc\":{\"measurements\":[\n"
	for (i = 0; i < 26000; i++) {
		printf "%s{\"date_time\":\"2025-06-16 19:24:06+0200\",\"time_epoch\":%d,\"cpu\":\"total\",\"counters\":[", i ? ",\n" : "", 1750094646 + i
		printf "{\"name\":\"CPU_CYCLES\",\"id\":0,\"value\":%d},{\"name\":\"INSTRUCTIONS\",\"id\":1,\"value\":%d},", (i + 1) * 4000, (i + 1) * 2000
		printf "{\"name\":\"L1I_DIR_WRITES\",\"id\":2,\"value\":%d},{\"name\":\"L1I_PENALTY_CYCLES\",\"id\":3,\"value\":%d},", (i + 1) * 10, (i + 1) * 100
		printf "{\"name\":\"L1D_DIR_WRITES\",\"id\":4,\"value\":%d},{\"name\":\"L1D_PENALTY_CYCLES\",\"id\":5,\"value\":%d},", (i + 1) * 20, (i + 1) * 300
		printf "{\"name\":\"PROBLEM_STATE_CPU_CYCLES\",\"id\":32,\"value\":%d},{\"name\":\"PROBLEM_STATE_INSTRUCTIONS\",\"id\":33,\"value\":%d}]}", (i + 1) * 1000, (i + 1) * 500
	}
	printf "]}}\n"
}' > "$tmp/big.json"
run 150000 60 report -f csv --by "" "$tmp/big.json"; st=$?
# 25,999 intervals of 1 s after the first read, which is their base.
[ $st = 0 ] && grep -q '^,,,,,2025-06-16T17:24:06Z,2025-06-17T00:37:25Z,25999,generic,1,1,2,25,1.5$' "$tmp/out" || { echo "FAIL: lshwc JSON of 15 MB in 150 MB: exit $st"; head -c 500 "$tmp/err"; cat "$tmp/out"; fail=1; }
rm -f "$tmp/big.json"

# A measurement holding 10 million numbers: 20 MB, a few KB compressed; jansson would build 500 MB.
{
	printf '{"lshwc":{"measurements":[{"cpu":"total","counters":[{"id":0,"value":1}]},\n{"cpu":"total","x":['
	head -c 20000000 /dev/zero | tr '\0' '0' | sed 's/00/0,/g'
	printf '0],"counters":[]}]}}\n'
} | zstd -q -3 > "$tmp/bomb1.json.zst"
run 400000 60 report "$tmp/bomb1.json.zst"; st=$?
[ $st = 1 ] && grep -q 'bomb1.json.zst:2:1: error: JSON: a measurement larger than 1 MiB (the limit)' "$tmp/err" || { echo "FAIL: JSON measurement over 1 MiB: exit $st"; head -c 500 "$tmp/err"; fail=1; }

# A document larger than 256 MiB (blanks after a measurement).
{
	printf '{"lshwc":{"measurements":[{"cpu":"total","counters":[{"id":0,"value":1}]}'
	head -c $((260 << 20)) /dev/zero | tr '\0' ' '
	printf ']}}\n'
} | zstd -q -1 > "$tmp/bomb2.json.zst"
run 800000 60 report "$tmp/bomb2.json.zst"; st=$?
[ $st = 1 ] && grep -q 'bomb2.json.zst: error: JSON input larger than 256 MiB (the limit)' "$tmp/err" || { echo "FAIL: JSON over 256 MiB: exit $st"; head -c 500 "$tmp/err"; fail=1; }

# perf stat output larger than 256 MiB (a header, then lines of a counter): named as a size, not
# as "a line longer than" (issue 25).
{
	printf '# started on Tue Jun 17 10:00:00 2025\n\n Performance counter stats for '"'"'system wide'"'"':\n\n'
	yes '         1,000      CPU_CYCLES' | head -c $((257 << 20))
} | zstd -q -1 > "$tmp/big-perf.txt.zst"
run 800000 60 report "$tmp/big-perf.txt.zst"; st=$?
[ $st = 1 ] && grep -q 'big-perf.txt.zst: error: perf stat output larger than 256 MiB (the limit)$' "$tmp/err" || { echo "FAIL: perf stat over 256 MiB: exit $st"; head -c 500 "$tmp/err"; fail=1; }

# lshwc JSON of small measurements (issue 25): the work per measurement is counted, as malloc
# calls (LD_PRELOAD count_allocs; not under ASan, which has its own malloc): 20,000 measurements
# made 1.5 million before, now a few hundred for the whole run.
meas() { # meas N: N small delta measurements, one lshwc JSON document
	awk -v n="$1" 'BEGIN { printf "{\"lshwc\":{\"measurements\":["
		for (i = 0; i < n; i++) printf "%s{\"cpu\":\"delta\",\"counters\":[{\"id\":0,\"value\":1}]}", i ? "," : ""
		printf "]}}\n" }'
}
if [ -n "$COUNT_ALLOCS" ] && [ $asan = 0 ]; then
	meas 20000 > "$tmp/small-meas.json"
	COUNT_ALLOCS_OUT="$tmp/allocs" LD_PRELOAD="$COUNT_ALLOCS" run 400000 60 report -q "$tmp/small-meas.json"; st=$?
	allocs=$(sort -n "$tmp/allocs" 2>/dev/null | tail -1) # timeout's line, then mfstat's
	allocs=${allocs:-none}
	[ $st = 0 ] && grep -q '^20000 rows read' "$tmp/out" || { echo "FAIL: lshwc JSON of 20,000 measurements: exit $st"; head -c 500 "$tmp/err"; fail=1; }
	[ "$allocs" != none ] && [ "$allocs" -lt 5000 ] || { echo "FAIL: lshwc JSON of 20,000 measurements: $allocs malloc calls (want fewer than 5000)"; fail=1; }
fi
# The bomb itself: 256 MiB of them, under the hang guard and the memory limit.
meas 5570561 | zstd -q -19 > "$tmp/bomb3.json.zst"
run 800000 120 report -q "$tmp/bomb3.json.zst"; st=$?
[ $st = 0 ] && grep -q '^5570561 rows read from 1 file, 1 group' "$tmp/out" || { echo "FAIL: lshwc JSON bomb of 5.5 million measurements: exit $st"; head -c 500 "$tmp/err"; fail=1; }

[ $fail = 0 ] && echo "huge inputs: ok"
exit $fail
