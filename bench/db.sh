#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Benchmark of the performance database (issue 27; not a test).  Generates with tools/gensmf.c a
# year of SMF dumps, one a month (default: 20 systems x 16 CPUs, 4 of them zIIPs, 15-minute
# intervals: 11.2 million distinct samples; no SMF 70.1 records: gensmf puts every LPAR of the
# machine in each, and twenty systems make one longer than an SMF record can be), then in one
# run:
#   - mfstat db import of the twelve dumps: MB/s of SMF and samples/s, against mfstat report's
#     reading rate of the same dumps (--by system,month);
#   - the database's size per level (sqlite's dbstat), against the same data exported by
#     mfstat export and compressed with zstd -3;
#   - mfstat report --db --by system,month over the year: from the samples (--level sample), from
#     the month roll-ups (--level month), and as a year-old database answers it after `db prune`
#     with the default spans (the samples of the last 35 days left: the month roll-ups, chosen by
#     itself); the prime shift by hour of day from the hour roll-ups after the prune; against
#     mfstat report over the dumps and DuckDB (bench/duckdb.mjs, MFSTAT_BENCH_GROUP=system,month)
#     over the exported CSV (compressed: zstd, which DuckDB reads as it is).
# Goals (issue 27): import at least half of report's reading rate; the yearly monthly report
# under 1 s; the database at most 1.5x the zstd-compressed exports.
#
# Usage: bench/db.sh   (MONTHS=12 SYSTEMS=20 CPUS=16 ZIIP=4 YEAR=2025 RUNS=3 MFSTAT=... DIR=...)
#   DIR=path keeps the generated dumps there between runs (default: a temporary folder, removed).
#   Quick check of the script: MONTHS=1 SYSTEMS=2 CPUS=4 RUNS=1 bench/db.sh
# Needs about 30 GB free at the default size (dumps 24 GB, database, export), zstd, sqlite3,
# GNU time; node and npm for DuckDB (skipped, with the reason, without them).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
months=${MONTHS:-12} systems=${SYSTEMS:-20} cpus=${CPUS:-16} ziip=${ZIIP:-4} year=${YEAR:-2025}
runs=${RUNS:-3}
mfstat=${MFSTAT:-$root/build/mfstat}
export MFSTAT_BENCH_CACHE=${MFSTAT_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mfstat-bench}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mfstat-dbbench.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
dir=${DIR:-$tmp/dumps}
mkdir -p "$dir"

die() { echo "db.sh: $*" >&2; exit 1; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }
best() { # best OUTVAR command...: the best wall time of $runs runs
	local b='' t0 var=$1
	shift
	for ((i = 0; i < runs; i++)); do
		t0=$(now)
		"$@" >/dev/null
		b=$(min "$(secs "$t0" "$(now)")" "$b")
	done
	printf -v "$var" '%s' "$b"
}
rss() { /usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null && awk '{ printf "%.0f", $1 / 1024 }' "$tmp/rss"; }

command -v sqlite3 >/dev/null || die "sqlite3 is needed for the sizes"
command -v zstd >/dev/null || die "zstd is needed for the compressed export"
cc -O2 -std=c17 -Wall -Wextra -o "$tmp/gensmf" "$root/tools/gensmf.c" || die "cannot build gensmf"
if [[ -z ${MFSTAT:-} ]]; then
	[[ -f $root/build/CMakeCache.txt ]] || cmake -S "$root" -B "$root/build" >/dev/null
	cmake --build "$root/build" --target mfstat_cli >/dev/null || die "cmake --build failed"
fi

# ---------------------------------------------------------------- a year of dumps, one a month
dumps=()
total_days=0
for ((m = 1; m <= months; m++)); do
	f=$(printf '%s/%d-%02d.smf' "$dir" "$year" "$m")
	days=$(date -u -d "$(printf '%d-%02d-01' "$year" "$m") +1 month -1 day" +%-d)
	total_days=$((total_days + days))
	if [[ ! -s $f ]]; then
		"$tmp/gensmf" --systems "$systems" --cpus "$cpus" --ziip "$ziip" --intervals $((days * 96)) \
			--start "$(printf '%d-%02d-01T00:00:00Z' "$year" "$m")" --seed "$m" --other-ratio 0.2 \
			--framing rdw -q -o "$f" || die "gensmf failed for $f"
	fi
	dumps+=("$f")
done
bytes=$(cat "${dumps[@]}" | wc -c)
samples=$((systems * cpus * total_days * 96))
echo "dumps:    ${#dumps[@]} files, $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e9 }') GB, $samples samples ($systems systems x $cpus CPUs, 15-minute intervals)"

# ---------------------------------------------------------------- import, against report's reading
cat "${dumps[@]}" >/dev/null # warm the page cache as far as it goes
db=$tmp/year.db
t0=$(now)
/usr/bin/time -f %M -o "$tmp/rss.import" "$mfstat" db import -q "$db" "${dumps[@]}" >/dev/null || die "db import failed"
t_imp=$(secs "$t0" "$(now)")
r_imp=$(awk '{ printf "%.0f", $1 / 1024 }' "$tmp/rss.import")
best t_rep "$mfstat" report -q -f csv --by system,month "${dumps[@]}" -o /dev/null
r_rep=$(rss "$mfstat" report -q -f csv --by system,month "${dumps[@]}" -o /dev/null)

# ---------------------------------------------------------------- sizes: the levels and the export
db_bytes=$(stat -c %s "$db")
sqlite3 "$db" "SELECT CASE WHEN name LIKE 'counters\_%' ESCAPE '\\' OR name LIKE 'sample%' OR name = 'smf_record' OR name LIKE 'smf\_record%' ESCAPE '\\' THEN 'sample' WHEN name LIKE 'rollup%' THEN 'roll-ups (hour, day, month)' ELSE 'other' END AS level, sum(pgsize) FROM dbstat GROUP BY level ORDER BY level" >"$tmp/levels"
sqlite3 "$db" "SELECT level, count(*) FROM rollup GROUP BY level ORDER BY level" >"$tmp/rollups"
# One export a dump, written compressed (zstd level 3, as zstd -3): a year's CSV is some 16 GB
# uncompressed, and exported at once its 11 million rows (the finest grain: a group each) would
# be held in memory, over 20 GB.
for f in "${dumps[@]}"; do
	"$mfstat" export -q "$f" -o "$tmp/export-$(basename "$f" .smf).csv.zst" || die "export of $f failed"
done
zst_bytes=$(cat "$tmp"/export-*.csv.zst | wc -c)

# ---------------------------------------------------------------- the monthly report of the year
runs_all=$runs
runs=1 # a year of samples through the pipeline: once is enough
best t_db "$mfstat" report -q -f csv --db "$db" --level sample --by system,month -o /dev/null
runs=$runs_all
r_db=$(rss "$mfstat" report -q -f csv --db "$db" --level sample --by system,month -o /dev/null)
best t_dbm "$mfstat" report -q -f csv --db "$db" --level month --by system,month -o /dev/null
"$mfstat" db prune -q --vacuum "$db" >/dev/null || die "db prune failed"
best t_auto "$mfstat" report -q -f csv --db "$db" --by system,month -o /dev/null
r_auto=$(rss "$mfstat" report -q -f csv --db "$db" --by system,month -o /dev/null)
best t_prime "$mfstat" report -q -f csv --db "$db" --by system,hour-of-day --hours 8-17 --weekdays Mon-Fri -o /dev/null
pruned_bytes=$(stat -c %s "$db")
duck="skipped: node or @duckdb/node-api in $MFSTAT_BENCH_CACHE not available (bench/csv.sh installs it)"
if command -v node >/dev/null && [[ -d $MFSTAT_BENCH_CACHE/node_modules/@duckdb/node-api ]]; then
	for th in 1 "$(nproc)"; do
		out=$(MFSTAT_BENCH_GROUP=system,month node "$root/bench/duckdb.mjs" "$tmp/export-*.csv.zst" "$th" "$runs" typed /dev/null 2>&1) &&
			d=$(awk '/^best/ { print $2 }' <<<"$out") || d="failed: $(head -n 1 <<<"$out")"
		duck_t[$th]=$d
	done
	duck="1 thread ${duck_t[1]} s, $(nproc) threads ${duck_t[$(nproc)]} s (query only, on the exported CSV, zstd)"
fi

awk -v b="$bytes" -v s="$samples" -v ti="$t_imp" -v tr="$t_rep" -v ri="$r_imp" -v rr="$r_rep" 'BEGIN {
	printf "import:   %.1f s, %.0f MB/s of SMF, %.0f samples/s, peak RSS %s MB\n", ti, b / 1e6 / ti, s / ti, ri
	printf "report:   %.1f s over the dumps (--by system,month), %.0f MB/s, peak RSS %s MB: import at %.2f of its rate (goal 0.5)\n", tr, b / 1e6 / tr, rr, tr / ti
}'
echo "database: $(awk -v d="$db_bytes" 'BEGIN { printf "%.2f GB", d / 1e9 }'); by level:"
awk -F'|' '{ printf "            %-28s %8.1f MB\n", $1, $2 / 1e6 }' "$tmp/levels"
awk -F'|' '{ printf "            %-28s %8d rows\n", $1, $2 }' "$tmp/rollups"
awk -v d="$db_bytes" -v z="$zst_bytes" -v p="$pruned_bytes" 'BEGIN {
	printf "export:   %.2f GB CSV with zstd -3: the database is %.2fx that (goal 1.5); after db prune %.2f GB\n", z / 1e9, d / z, p / 1e9
}'
echo "monthly:  report --db --by system,month of the year: samples $t_db s (peak RSS $r_db MB), month roll-ups $t_dbm s;"
echo "          after db prune (chosen by itself) $t_auto s (goal 1 s, peak RSS $r_auto MB); report over the dumps $t_rep s; DuckDB $duck"
echo "prime:    report --db --by system,hour-of-day --hours 8-17 --weekdays Mon-Fri after the prune (hour roll-ups): $t_prime s"
echo "load:     $(uptime | sed 's/.*load average/load average/')"
echo "machine:  $(nproc) cpus, $(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(uname -sr), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
