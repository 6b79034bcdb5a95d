#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Benchmark of mfstat's SMF path (not a test): generates with tools/gensmf.c the dump of issue 26
# (item 7): 4 systems x 16 CPUs (4 zIIPs) x 610 intervals, 39,040 distinct type 113 samples among
# about 384,000 records, 626 MB RDW, 13 % of the bytes type 113 (--other-ratio 6.5), with the
# LPAR view's SMF 70.1 and 99.14 records (RMF=0: without them), which follow the samples they
# join.  Times `mfstat report -f csv DUMP -o /dev/null` (the finest grain, the default --by) with
# -j 1 and -j N (N = JOBS, default the online CPUs) and `--by system,pool`, against
# `cat DUMP >/dev/null` in the same run (warm cache), then the .zst form of the same dump against
# `zstd -dc`.  Each dump is read once (item 7).  Best of RUNS runs each; peak memory of mfstat
# from GNU time.
#
# Usage: bench/smf.sh   (INTERVALS=..., SYSTEMS=..., CPUS=..., OTHER=..., RMF=0|1, RUNS=3, JOBS=..., MFSTAT=...)
# Quick check of the script: INTERVALS=10 RUNS=1 bench/smf.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${RUNS:-3}
jobs=${JOBS:-$(nproc)}
systems=${SYSTEMS:-4} cpus=${CPUS:-16} ziip=${ZIIP:-4} intervals=${INTERVALS:-610} other=${OTHER:-6.5}
rmf=()
[[ ${RMF:-1} == 0 ]] || rmf=(--rmf --topology)
mfstat=${MFSTAT:-$root/build/mfstat} # MFSTAT=path: that binary (say a Release build), not built here
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mfstat-smfbench.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

die() { echo "smf.sh: $*" >&2; exit 1; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }

cc -O2 -std=c17 -Wall -Wextra -o "$tmp/gensmf" "$root/tools/gensmf.c" || die "cannot build gensmf"
if [[ -z ${MFSTAT:-} ]]; then
	[[ -f $root/build/CMakeCache.txt ]] || cmake -S "$root" -B "$root/build" >/dev/null
	cmake --build "$root/build" >/dev/null || die "cmake --build failed"
fi
command -v zstd >/dev/null || die "zstd is needed for the compressed run"

dump=$tmp/day.smf
"$tmp/gensmf" --systems "$systems" --cpus "$cpus" --ziip "$ziip" --intervals "$intervals" \
	--other-ratio "$other" "${rmf[@]}" --framing rdw -o "$dump" --csv "$tmp/expected.csv"
zstd -q -3 -T0 -o "$dump.zst" "$dump"
size=$(stat -c %s "$dump")
zsize=$(stat -c %s "$dump.zst")

time_cmd() { # time_cmd OUTVAR command...: best of $runs
	local best='' t0 t1 var=$1
	shift
	for ((i = 0; i < runs; i++)); do
		t0=$(now)
		"$@" >/dev/null
		t1=$(now)
		best=$(min "$(secs "$t0" "$t1")" "$best")
	done
	printf -v "$var" '%s' "$best"
}

rss() { # peak RSS in MB of one run of the command
	if /usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null 2>"$tmp/err"; then
		awk '{ printf "%.1f", $1 / 1024 }' "$tmp/rss"
	else
		echo "n/a"
	fi
}

cat "$dump" "$dump.zst" >/dev/null # warm the page cache
time_cmd t_cat cat "$dump"
time_cmd t_mf "$mfstat" report -q -f csv -j 1 "$dump" -o /dev/null
time_cmd t_mfn "$mfstat" report -q -f csv -j "$jobs" "$dump" -o /dev/null
time_cmd t_sp "$mfstat" report -q -f csv --by system,pool "$dump" -o /dev/null
time_cmd t_zcat zstd -dc "$dump.zst"
time_cmd t_zmf "$mfstat" report -q -f csv "$dump.zst" -o /dev/null
r_mf=$(rss "$mfstat" report -q -f csv -j 1 "$dump" -o /dev/null)
r_mfn=$(rss "$mfstat" report -q -f csv -j "$jobs" "$dump" -o /dev/null)
r_sp=$(rss "$mfstat" report -q -f csv --by system,pool "$dump" -o /dev/null)
r_zmf=$(rss "$mfstat" report -q -f csv "$dump.zst" -o /dev/null)
t113=$("$mfstat" report -f text "$dump" 2>/dev/null | awk '/records, [0-9]+ bytes/ { sub(/^.*: /, ""); r = $0 } /type 113:/ { print r ";" $0; exit }')

awk -v size="$size" -v zsize="$zsize" -v tc="$t_cat" -v tm="$t_mf" -v tmn="$t_mfn" -v n="$jobs" -v tzc="$t_zcat" -v tzm="$t_zmf" \
	-v rm="$r_mf" -v rmn="$r_mfn" -v tsp="$t_sp" -v rsp="$r_sp" -v rzm="$r_zmf" -v runs="$runs" -v view="$([[ ${#rmf[@]} -gt 0 ]] && echo ', with SMF 70.1 and 99.14 records after their samples')" -v shape="${systems} systems x ${cpus} CPUs (${ziip} zIIP), ${intervals} intervals" '
BEGIN {
	printf "dump:            %.1f MB RDW stream, %s%s; .zst %.1f MB\n", size / 1e6, shape, view, zsize / 1e6
	printf "cat:             %.3f s  %7.1f MB/s   (best of %d)\n", tc, size / 1e6 / tc, runs
	printf "mfstat report:   %.3f s  %7.1f MB/s   = %.2fx cat, peak RSS %s MB   (-j 1)\n", tm, size / 1e6 / tm, tm / tc, rm
	printf "mfstat report:   %.3f s  %7.1f MB/s   = %.2fx cat, peak RSS %s MB   (-j %d)\n", tmn, size / 1e6 / tmn, tmn / tc, rmn, n
	printf "--by system,pool: %.3f s %7.1f MB/s   = %.2fx cat, peak RSS %s MB\n", tsp, size / 1e6 / tsp, tsp / tc, rsp
	printf "zstd -dc:        %.3f s  %7.1f MB/s of dump\n", tzc, size / 1e6 / tzc
	printf "mfstat on .zst:  %.3f s  %7.1f MB/s   = %.2fx zstd -dc, peak RSS %s MB\n", tzm, size / 1e6 / tzm, tzm / tzc, rzm
}'
echo "records:         $t113"
echo "load:           $(uptime | sed 's/.*load average/load average/')"
echo "machine:         $(nproc) cpus, $(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(uname -sr), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
