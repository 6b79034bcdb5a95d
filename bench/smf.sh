#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Benchmark of mfstat's SMF path (not a test): generates a ~600 MB RDW dump with tools/gensmf.c,
# about 10 % of it type 113, and times `mfstat report -f csv DUMP -o /dev/null` against
# `cat DUMP >/dev/null` in the same run (warm cache), then the .zst form of the same dump against
# `zstd -dc`, mfstat with -j 1 and with -j N (N = JOBS, default the online CPUs; an SMF dump is
# read by one thread today, so the two should match).  Best of RUNS runs each; peak memory of
# mfstat from GNU time.
#
# Usage: bench/smf.sh   (INTERVALS=..., SYSTEMS=..., CPUS=..., RUNS=3, JOBS=... in the environment)
# Quick check of the script: INTERVALS=10 RUNS=1 bench/smf.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${RUNS:-3}
jobs=${JOBS:-$(nproc)}
systems=${SYSTEMS:-8} cpus=${CPUS:-16} ziip=${ZIIP:-4} intervals=${INTERVALS:-220}
mfstat=$root/build/mfstat
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mfstat-smfbench.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

die() { echo "smf.sh: $*" >&2; exit 1; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }

cc -O2 -std=c17 -Wall -Wextra -o "$tmp/gensmf" "$root/tools/gensmf.c" || die "cannot build gensmf"
[[ -f $root/build/CMakeCache.txt ]] || cmake -S "$root" -B "$root/build" >/dev/null
cmake --build "$root/build" >/dev/null || die "cmake --build failed"
command -v zstd >/dev/null || die "zstd is needed for the compressed run"

dump=$tmp/day.smf
"$tmp/gensmf" --systems "$systems" --cpus "$cpus" --ziip "$ziip" --intervals "$intervals" \
	--other-ratio 9 --framing rdw -o "$dump" --csv "$tmp/expected.csv"
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
time_cmd t_zcat zstd -dc "$dump.zst"
time_cmd t_zmf "$mfstat" report -q -f csv "$dump.zst" -o /dev/null
r_mf=$(rss "$mfstat" report -q -f csv "$dump" -o /dev/null)
r_zmf=$(rss "$mfstat" report -q -f csv "$dump.zst" -o /dev/null)
t113=$("$mfstat" report -f text "$dump" 2>/dev/null | awk '/type 113:/ { print; exit }')

awk -v size="$size" -v zsize="$zsize" -v tc="$t_cat" -v tm="$t_mf" -v tmn="$t_mfn" -v n="$jobs" -v tzc="$t_zcat" -v tzm="$t_zmf" \
	-v rm="$r_mf" -v rzm="$r_zmf" -v runs="$runs" -v shape="${systems} systems x ${cpus} CPUs (${ziip} zIIP), ${intervals} intervals" '
BEGIN {
	printf "dump:            %.1f MB RDW stream, %s; .zst %.1f MB\n", size / 1e6, shape, zsize / 1e6
	printf "cat:             %.3f s  %7.1f MB/s   (best of %d)\n", tc, size / 1e6 / tc, runs
	printf "mfstat report:   %.3f s  %7.1f MB/s   = %.2fx cat, peak RSS %s MB   (-j 1)\n", tm, size / 1e6 / tm, tm / tc, rm
	printf "mfstat report:   %.3f s  %7.1f MB/s   = %.2fx cat   (-j %d)\n", tmn, size / 1e6 / tmn, tmn / tc, n
	printf "zstd -dc:        %.3f s  %7.1f MB/s of dump\n", tzc, size / 1e6 / tzc
	printf "mfstat on .zst:  %.3f s  %7.1f MB/s   = %.2fx zstd -dc, peak RSS %s MB\n", tzm, size / 1e6 / tzm, tzm / tzc, rzm
}'
echo "records:        $t113"
echo "machine:         $(nproc) cpus, $(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(uname -sr), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
