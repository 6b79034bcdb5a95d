#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Benchmark of mfstat's CSV path (not a test): generates a large synthetic z16 counter CSV with
# bench/gencsv.c and compares `mfstat report -f csv FILE -o /dev/null` with `cat FILE` (the
# floor: reading the same bytes from the page cache). Best of 3 runs each; peak RSS of mfstat for
# the large file and for a smaller one, to show that memory does not grow with the row count.
#
# Usage: bench/csv.sh            (ROWS=1000000 SMALL_ROWS=200000 RUNS=3 in the environment
#                                 change the sizes; TMPDIR chooses where the files go)
# Needs: cc, cmake (only if build/mfstat must be built), about 1.2 GB free in TMPDIR.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rows=${ROWS:-1000000}
small_rows=${SMALL_ROWS:-200000}
runs=${RUNS:-3}
mfstat=$root/build/mfstat

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mfstat-bench.XXXXXX")
cleanup() { rm -rf -- "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

die() { echo "csv.sh: $*" >&2; exit 1; }
now() { date +%s.%N; }

# ---------------------------------------------------------------- build
cc -O2 -std=c17 -Wall -Wextra -o "$tmp/gencsv" "$root/bench/gencsv.c" || die "cannot build gencsv"

if [[ ! -f $root/build/CMakeCache.txt ]]; then
	cmake -S "$root" -B "$root/build" >/dev/null || die "cmake configure failed"
fi
cmake --build "$root/build" >/dev/null || die "cmake --build failed"
[[ -x $mfstat ]] || die "no $mfstat after the build"

# ---------------------------------------------------------------- data
# Shape (environment): SYSTEMS x LPARS x CPUS per LPAR, ZIIP of them zIIPs; by default 2 x 2 x 24
# (4 zIIPs) = 96 rows and 8 groups (GCP and zIIP per LPAR) per 900 s interval.  SYSTEMS=4 LPARS=2
# CPUS=8 ZIIP=2 is the group-heavy worst case (4 rows per group).
systems=${SYSTEMS:-2} lpars=${LPARS:-2} cpus=${CPUS:-24} ziip=${ZIIP:-4}
per_interval=$((systems * lpars * cpus))
groups_per_interval=$((systems * lpars * (ziip > 0 ? 2 : 1)))
gen() {
	"$tmp/gencsv" --systems "$systems" --lpars "$lpars" --cpus "$cpus" --ziip "$ziip" --rows "$1" --seed 1 >"$2"
}
big=$tmp/z16-big.csv
small=$tmp/z16-small.csv
gen "$rows" "$big"
gen "$small_rows" "$small"
size=$(stat -c %s "$big")

# ---------------------------------------------------------------- peak RSS support
rss_mode=none
if /usr/bin/time -f %M -o "$tmp/t" true 2>/dev/null; then
	rss_mode=f
elif command time -v true 2>"$tmp/t" >/dev/null && grep -q 'Maximum resident' "$tmp/t"; then
	rss_mode=v
fi

# run_mfstat FILE [OPTION...]: runs mfstat once; sets $elapsed (seconds) and $rss_kb (or empty)
run_mfstat() {
	local t0 t1 st=0 f=$1
	shift
	rss_kb=
	t0=$(now)
	case $rss_mode in
	f) /usr/bin/time -f %M -o "$tmp/rss" "$mfstat" report -f csv "$@" "$f" -o /dev/null 2>"$tmp/err" || st=$? ;;
	v) command time -v "$mfstat" report -f csv "$@" "$f" -o /dev/null 2>"$tmp/err" || st=$? ;;
	*) "$mfstat" report -f csv "$@" "$f" -o /dev/null 2>"$tmp/err" || st=$? ;;
	esac
	t1=$(now)
	if ((st != 0)); then
		echo "csv.sh: mfstat failed (exit $st): mfstat report -f csv $* $f -o /dev/null" >&2
		grep -v -e '^	' -e 'Command exited with non-zero' "$tmp/err" | head -20 >&2
		exit 1
	fi
	elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
	case $rss_mode in
	f) rss_kb=$(tail -n 1 "$tmp/rss") ;;
	v) rss_kb=$(awk -F': *' '/Maximum resident set size/ { print $2 }' "$tmp/err") ;;
	esac
}

min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }
max() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a > b) ? a : b }'; }

# ---------------------------------------------------------------- measure
cat "$big" >/dev/null # warm the page cache
best_cat=
for ((i = 0; i < runs; i++)); do
	t0=$(now)
	cat "$big" >/dev/null
	t1=$(now)
	best_cat=$(min "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')" "$best_cat")
done

best_mf='' rss_big=''
for ((i = 0; i < runs; i++)); do
	run_mfstat "$big"
	best_mf=$(min "$elapsed" "$best_mf")
	[[ -n $rss_kb ]] && rss_big=$(max "$rss_kb" "$rss_big")
done

run_mfstat "$small"
rss_small=$rss_kb

# The default grouping (system,lpar,pool,interval) has one group per interval, so its memory
# may follow the number of intervals; with --by system,lpar,pool the group count is fixed
# (SYSTEMS x LPARS x pools), which isolates any per-row growth.
run_mfstat "$big" --by system,lpar,pool
rss_big_fixed=$rss_kb
run_mfstat "$small" --by system,lpar,pool
rss_small_fixed=$rss_kb

# ---------------------------------------------------------------- report
cpu_model=$(awk -F': *' '/^(model name|cpu model|Model Name)/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
if [[ -z $cpu_model ]]; then # s390x: "processor 0: version = ..., machine = 3931"
	cpu_model=$(awk -F'machine = ' '/^processor 0/ { print "IBM Z machine " $2; exit }' /proc/cpuinfo 2>/dev/null || true)
fi
[[ -n $cpu_model ]] || cpu_model=$(uname -m)

awk -v size="$size" -v rows="$rows" -v tc="$best_cat" -v tm="$best_mf" \
	-v rb="$rss_big" -v rs="$rss_small" -v rbf="$rss_big_fixed" -v rsf="$rss_small_fixed" \
	-v srows="$small_rows" -v runs="$runs" \
	-v gpi="$groups_per_interval" -v shape="${systems}x${lpars}x${cpus} (${ziip} zIIP)" \
	-v groups="$((groups_per_interval * ((rows + per_interval - 1) / per_interval)))" \
	-v sgroups="$((groups_per_interval * ((small_rows + per_interval - 1) / per_interval)))" '
function mb(kb) { return kb == "" ? "n/a" : sprintf("%.1f MB", kb / 1024) }
BEGIN {
	printf "file:              %.1f MB (10^6 bytes), %d rows, z16, 98 counter columns, shape %s\n", size / 1e6, rows, shape
	printf "cat:               %.3f s  %8.1f MB/s   (best of %d)\n", tc, size / 1e6 / tc, runs
	printf "mfstat report:     %.3f s  %8.1f MB/s  %.0f rows/s   (best of %d, -f csv -o /dev/null)\n", \
		tm, size / 1e6 / tm, rows / tm, runs
	printf "time mfstat/cat:   %.1fx\n", tm / tc
	printf "peak RSS mfstat:   %s for %d rows (%d groups), %s for %d rows (%d groups)\n", \
		mb(rb), rows, groups, mb(rs), srows, sgroups
	printf "  --by system,lpar,pool (%d groups): %s for %d rows, %s for %d rows\n", gpi, mb(rbf), rows, mb(rsf), srows
}'
[[ $rss_mode == none ]] && echo "                   (peak RSS not measured: no GNU time in /usr/bin/time or \`command time\`)"
echo "machine:           $(nproc) cpus, $cpu_model, $(uname -sr)"
echo "mfstat:            $("$mfstat" --version 2>/dev/null | head -n 1), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
