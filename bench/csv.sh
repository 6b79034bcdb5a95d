#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Benchmark of mfstat's CSV path (not a test).  For each data shape it generates a large synthetic
# z16 counter CSV with bench/gencsv.c and a zstd copy of it, then times on the same files, in the
# same run, warm cache, best of RUNS:
#   cat FILE >/dev/null                                  the floor: the bytes from the page cache
#   mfstat report -f csv -j 1 FILE -o /dev/null          one thread
#   mfstat report -f csv -j N FILE -o /dev/null          N threads (N = JOBS, default the online CPUs)
#   DuckDB, SET threads=1 and SET threads=N              bench/duckdb.mjs: read_csv, GROUP BY system,
#                                                        lpar, pool, interval_start, SUM of every
#                                                        counter, mfstat's z16 formulas, COPY TO;
#                                                        once with read_csv detecting the types (its
#                                                        sniffer costs about 0.5 s), once with them given
#   zstd -dc FILE.zst >/dev/null, mfstat report -j N on FILE.zst   (a thread decompresses, another parses)
# The runs of the tools alternate (run 1 of each, then run 2 of each, ...) so that other work on
# the machine hits them alike.  Prints a table per shape with MB/s and the ratio to cat, the
# ratios -jN/-j1, -jN/DuckDB N and -j1/DuckDB 1 (against the faster of DuckDB's two forms), and
# mfstat's peak RSS and bytes per group.
#
# DuckDB is @duckdb/node-api from the npm registry, installed by this script with npm into
# MFSTAT_BENCH_CACHE (default ~/.cache/mfstat-bench); if node, npm, the install or the import
# fails, it prints "DuckDB: skipped (reason)" and goes on.  DUCKDB=0 skips it.
#
# Usage: bench/csv.sh
# Environment:
#   ROWS=1000000 SMALL_ROWS=200000   data rows of the large file and of the small one (the small
#                                    one only measures how memory grows with the groups)
#   RUNS=3  JOBS=$(nproc)  TMPDIR   runs per tool, mfstat's -j N and DuckDB's threads, file place
#   SHAPES="2x2x24x4 4x2x8x2 finest finest-ordered"
#                                    SYSTEMSxLPARSxCPUSxZIIP per shape.  The first: 96 rows and 8
#                                    groups (GCP and zIIP per LPAR) per 900 s interval, 875 MB and
#                                    83,336 groups at 1,000,000 rows; the second, group-heavy:
#                                    64 rows and 16 groups per interval, 877 MB and 250,000 groups.
#                                    SYSTEMS= LPARS= CPUS= ZIIP= choose one shape instead.
#                                    finest: one group per sample (gencsv --series): FINE_ROWS
#                                    distinct samples of FINE_SERIES series (each its own system,
#                                    LPAR and pool with one cpu) on FINE_SYSTEMS systems, random
#                                    900 s intervals of FINE_DAYS days, rows not in time order;
#                                    916 MB and 1,050,000 groups at the defaults.  finest-ordered:
#                                    the same rows sorted by interval start.  On these two the
#                                    tools are cat; mfstat -j 1 and -j N with --metrics
#                                    CPI,PRBSTATE,L1MP,L2P, with all metrics (the default) and
#                                    -j N --by system,pool (40 groups, the coarse grain on the same
#                                    bytes); DuckDB 1 and N threads with the column types given,
#                                    the sums of every counter and the same four formulas
#                                    (bench/duckdb.mjs ... typed /dev/null CPI,PRBSTATE,L1MP,L2P;
#                                    DuckDB's optimizer drops the sums no formula reads: EXPLAIN
#                                    shows 9 of the 98 left) and with all metrics; no .zst.  Peak
#                                    RSS of each tool is printed.
#   FINE_ROWS=1050000 (ROWS when ROWS is set) FINE_SMALL_ROWS=210000 (SMALL_ROWS when set)
#   FINE_SERIES=50000 FINE_SYSTEMS=20 FINE_DAYS=21
#   DUCKDB_PACKAGE=@duckdb/node-api@1.5.6-r.1   the npm package installed
# Quick check of the script: ROWS=20000 SMALL_ROWS=5000 RUNS=1 bench/csv.sh
# Needs: cc, cmake (if build/mfstat must be built), zstd, GNU time for memory, node and npm for
# DuckDB; about 2.5 GB free in TMPDIR at the default size (one shape's files at a time).  At the
# default sizes a run with the finest shapes takes about 20 minutes on 2 idle CPUs.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rows=${ROWS:-1000000}
small_rows=${SMALL_ROWS:-200000}
runs=${RUNS:-3}
jobs=${JOBS:-$(nproc)}
if [[ -n ${SYSTEMS:-}${LPARS:-}${CPUS:-}${ZIIP:-} ]]; then
	shapes=${SHAPES:-${SYSTEMS:-2}x${LPARS:-2}x${CPUS:-24}x${ZIIP:-4}}
else
	shapes=${SHAPES:-2x2x24x4 4x2x8x2 finest finest-ordered}
fi
fine_rows=${FINE_ROWS:-${ROWS:-1050000}}
fine_small_rows=${FINE_SMALL_ROWS:-${SMALL_ROWS:-210000}}
fine_series=${FINE_SERIES:-50000}
fine_systems=${FINE_SYSTEMS:-20}
fine_days=${FINE_DAYS:-21}
fine_metrics=CPI,PRBSTATE,L1MP,L2P
duck_pkg=${DUCKDB_PACKAGE:-@duckdb/node-api@1.5.6-r.1}
export MFSTAT_BENCH_CACHE=${MFSTAT_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mfstat-bench}
mfstat=$root/build/mfstat

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mfstat-bench.XXXXXX")
cleanup() { rm -rf -- "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

die() { echo "csv.sh: $*" >&2; exit 1; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }
max() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a > b) ? a : b }'; }

# ---------------------------------------------------------------- build
cc -O2 -std=c17 -Wall -Wextra -o "$tmp/gencsv" "$root/bench/gencsv.c" || die "cannot build gencsv"
if [[ ! -f $root/build/CMakeCache.txt ]]; then
	cmake -S "$root" -B "$root/build" >/dev/null || die "cmake configure failed"
fi
cmake --build "$root/build" --target mfstat_cli >/dev/null || die "cmake --build failed"
[[ -x $mfstat ]] || die "no $mfstat after the build"
command -v zstd >/dev/null || die "zstd is needed for the compressed runs"

have_time=0
/usr/bin/time -f %M -o "$tmp/t" true 2>/dev/null && have_time=1

# ---------------------------------------------------------------- DuckDB
# duck_ok=1 when bench/duckdb.mjs ran a query on a small file; else duck_why says why not.
duck_ok=0 duck_why=
setup_duckdb() {
	[[ ${DUCKDB:-1} != 0 ]] || { duck_why="DUCKDB=0"; return; }
	command -v node >/dev/null || { duck_why="no node"; return; }
	local want=${duck_pkg##*@} have=
	have=$(node -p "require('$MFSTAT_BENCH_CACHE/node_modules/@duckdb/node-api/package.json').version" 2>/dev/null || true)
	if [[ $have != "$want" ]]; then
		command -v npm >/dev/null || { duck_why="no npm"; return; }
		mkdir -p "$MFSTAT_BENCH_CACHE"
		[[ -f $MFSTAT_BENCH_CACHE/package.json ]] || echo '{"private": true}' >"$MFSTAT_BENCH_CACHE/package.json"
		echo "installing $duck_pkg with npm into $MFSTAT_BENCH_CACHE" >&2
		if ! npm install --prefix "$MFSTAT_BENCH_CACHE" --no-audit --no-fund --loglevel=error "$duck_pkg" >"$tmp/npm.log" 2>&1; then
			duck_why="npm install $duck_pkg failed: $(grep -m1 -i 'err' "$tmp/npm.log" || tail -n 1 "$tmp/npm.log")"
			return
		fi
	fi
	"$tmp/gencsv" --systems 1 --lpars 1 --cpus 4 --ziip 1 --intervals 2 >"$tmp/tiny.csv"
	if ! node "$root/bench/duckdb.mjs" "$tmp/tiny.csv" 1 1 >/dev/null 2>"$tmp/duck.err"; then
		duck_why="bench/duckdb.mjs failed: $(grep -m1 -i 'error' "$tmp/duck.err" || head -n 1 "$tmp/duck.err")"
		return
	fi
	duck_ok=1
}
setup_duckdb
if ((duck_ok)); then
	duck_version=$(node -p "require('$MFSTAT_BENCH_CACHE/node_modules/@duckdb/node-api/package.json').version")
else
	echo "DuckDB: skipped ($duck_why)"
fi

# ---------------------------------------------------------------- timing
# timed NAME command...: runs the command once with stdout to /dev/null; keeps the best time in
# best[NAME] and the peak RSS (KB) in rss[NAME].  A command that prints "best SECONDS" (DuckDB,
# whose time is the query alone, without node's start) reports its own time.
declare -A best rss
timed() {
	local name=$1 t0 t1 st=0 t
	shift
	t0=$(now)
	if ((have_time)); then
		/usr/bin/time -f %M -o "$tmp/rss" "$@" >"$tmp/out" 2>"$tmp/err" || st=$?
	else
		"$@" >"$tmp/out" 2>"$tmp/err" || st=$?
	fi
	t1=$(now)
	if ((st != 0)); then
		echo "csv.sh: failed (exit $st): $*" >&2
		grep -v 'Command exited with non-zero' "$tmp/err" | head -20 >&2
		exit 1
	fi
	t=$(secs "$t0" "$t1")
	grep -q '^best ' "$tmp/out" && t=$(awk '/^best / { print $2 }' "$tmp/out")
	best[$name]=$(min "$t" "${best[$name]:-}")
	((have_time)) && rss[$name]=$(max "$(tail -n 1 "$tmp/rss")" "${rss[$name]:-}")
	return 0
}
rss_of() { # peak RSS in KB of one run of the command (stdout to /dev/null), empty without GNU time
	((have_time)) || return 0
	/usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null 2>"$tmp/err" || die "failed: $*"
	tail -n 1 "$tmp/rss"
}

cpu_model=$(awk -F': *' '/^(model name|cpu model|Model Name)/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
if [[ -z $cpu_model ]]; then # s390x: "processor 0: version = ..., machine = 3931"
	cpu_model=$(awk -F'machine = ' '/^processor 0/ { print "IBM Z machine " $2; exit }' /proc/cpuinfo 2>/dev/null || true)
fi
[[ -n $cpu_model ]] || cpu_model=$(uname -m)
echo "machine: $(nproc) online cpus, $cpu_model, $(uname -sr); load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo "mfstat:  $("$mfstat" --version 2>/dev/null | head -n 1); $(date -u +%Y-%m-%dT%H:%M:%SZ)"
((duck_ok)) && echo "DuckDB:  @duckdb/node-api $duck_version (node $(node --version)), query time without node's start"
echo "runs:    best of $runs, the tools alternating; ROWS=$rows SMALL_ROWS=$small_rows JOBS=$jobs"
echo "         FINE_ROWS=$fine_rows FINE_SMALL_ROWS=$fine_small_rows FINE_SERIES=$fine_series FINE_SYSTEMS=$fine_systems FINE_DAYS=$fine_days"

# ---------------------------------------------------------------- the finest grain
# finest [--ordered]: one group per sample; the four-metric report, all metrics, the coarse grain
finest() {
	local ordered=${1:-} big=$tmp/z16-fine.csv small=$tmp/z16-fine-small.csv
	gen() {
		"$tmp/gencsv" --systems "$fine_systems" --series "$fine_series" --days "$fine_days" --rows "$1" \
			--seed 1 $ordered >"$2"
	}
	gen "$fine_rows" "$big"
	gen "$fine_small_rows" "$small"
	local size groups sgroups
	size=$(stat -c %s "$big")
	"$mfstat" report -q -f csv -j 1 --metrics $fine_metrics "$big" -o "$tmp/r1.csv"
	"$mfstat" report -q -f csv -j "$jobs" --metrics $fine_metrics "$big" -o "$tmp/rN.csv"
	cmp -s "$tmp/r1.csv" "$tmp/rN.csv" || die "finest$ordered: -j $jobs and -j 1 reports differ"
	groups=$(($(wc -l <"$tmp/r1.csv") - 1))
	"$mfstat" report -q -f csv -j 1 --metrics $fine_metrics "$small" -o "$tmp/r1.csv"
	sgroups=$(($(wc -l <"$tmp/r1.csv") - 1))
	rm -f "$tmp/r1.csv" "$tmp/rN.csv"

	best=() rss=()
	cat "$big" >/dev/null
	for ((i = 0; i < runs; i++)); do
		timed cat cat "$big"
		timed mf1m "$mfstat" report -q -f csv -j 1 --metrics $fine_metrics "$big" -o /dev/null
		timed mfNm "$mfstat" report -q -f csv -j "$jobs" --metrics $fine_metrics "$big" -o /dev/null
		timed mf1 "$mfstat" report -q -f csv -j 1 "$big" -o /dev/null
		timed mfN "$mfstat" report -q -f csv -j "$jobs" "$big" -o /dev/null
		timed mfNc "$mfstat" report -q -f csv -j "$jobs" --by system,pool --metrics $fine_metrics "$big" -o /dev/null
		if ((duck_ok)); then
			timed duck1 node "$root/bench/duckdb.mjs" "$big" 1 1 typed /dev/null $fine_metrics
			timed duckN node "$root/bench/duckdb.mjs" "$big" "$jobs" 1 typed /dev/null $fine_metrics
			timed duck1a node "$root/bench/duckdb.mjs" "$big" 1 1 typed
			timed duckNa node "$root/bench/duckdb.mjs" "$big" "$jobs" 1 typed
		fi
	done
	local rss_small
	rss_small=$(rss_of "$mfstat" report -q -f csv -j 1 --metrics $fine_metrics "$small" -o /dev/null)

	echo
	awk -v shape="finest${ordered:+ (--ordered: rows in time order)}" -v rows="$fine_rows" -v size="$size" \
		-v groups="$groups" -v sgroups="$sgroups" -v srows="$fine_small_rows" -v n="$jobs" -v duck="$duck_ok" \
		-v series="$fine_series" -v systems="$fine_systems" -v days="$fine_days" -v m="$fine_metrics" \
		-v tc="${best[cat]}" -v t1m="${best[mf1m]}" -v tnm="${best[mfNm]}" -v t1="${best[mf1]}" -v tn="${best[mfN]}" \
		-v tnc="${best[mfNc]}" -v d1="${best[duck1]:-}" -v dn="${best[duckN]:-}" \
		-v d1a="${best[duck1a]:-}" -v dna="${best[duckNa]:-}" -v rd1a="${rss[duck1a]:-}" -v rdna="${rss[duckNa]:-}" \
		-v r1m="${rss[mf1m]:-}" -v rnm="${rss[mfNm]:-}" -v r1="${rss[mf1]:-}" -v rn="${rss[mfN]:-}" \
		-v rnc="${rss[mfNc]:-}" -v rd1="${rss[duck1]:-}" -v rdn="${rss[duckN]:-}" -v rs="$rss_small" '
	function mb(kb) { return kb == "" ? "n/a" : sprintf("%.1f MB", kb / 1024) }
	function row(tool, th, t, r) {
		printf "| %-70s | %7s | %7.3f | %8.1f | %8.2f | %10s |\n", tool, th, t, size / 1e6 / t, t / tc, mb(r)
	}
	BEGIN {
		printf "shape %s: %d distinct samples of %d series on %d systems over %d days, %.1f MB CSV, %d groups\n", \
			shape, rows, series, systems, days, size / 1e6, groups
		printf "| %-70s | %7s | %7s | %8s | %8s | %10s |\n", "tool", "threads", "seconds", "MB/s", "x cat", "peak RSS"
		printf "|%s|%s|%s|%s|%s|%s|\n", "------------------------------------------------------------------------", "---------", "---------", "----------", "----------", "------------"
		row("cat FILE", 1, tc, "")
		row("mfstat report -f csv --metrics " m, 1, t1m, r1m)
		row("mfstat report -f csv --metrics " m, n, tnm, rnm)
		row("mfstat report -f csv (all metrics)", 1, t1, r1)
		row("mfstat report -f csv (all metrics)", n, tn, rn)
		row("mfstat report -f csv --by system,pool --metrics " m, n, tnc, rnc)
		if (duck) {
			row("DuckDB, the same sums and " m, 1, d1, rd1)
			row("DuckDB, the same sums and " m, n, dn, rdn)
			row("DuckDB, all metrics and the LSPR class", 1, d1a, rd1a)
			row("DuckDB, all metrics and the LSPR class", n, dna, rdna)
		}
		printf "mfstat -j %d over -j 1 (%s): %.2fx\n", n, m, t1m / tnm
		if (duck) {
			printf "mfstat -j 1 over DuckDB 1 thread: %.2fx   (goal: at least 1.5x)\n", d1 / t1m
			printf "mfstat -j %d over DuckDB %d threads: %.2fx   (goal: at least 1.5x)\n", n, n, dn / tnm
			printf "all metrics: mfstat -j 1 over DuckDB 1 thread %.2fx, -j %d over DuckDB %d threads %.2fx\n", d1a / t1, n, n, dna / tn
			if (r1m != "" && rd1 != "")
				printf "peak RSS mfstat -j 1 / DuckDB 1 thread: %.2f, -j %d / DuckDB %d threads: %.2f   (goal: at most 1)\n", \
					r1m / rd1, n, n, rnm / rdn
		}
		printf "per group at -j 1 (%s): %.2f us, %.0f bytes of peak RSS; the finest over the coarse grain per byte: %.1fx (-j %d)\n", \
			m, t1m * 1e6 / groups, r1m * 1024 / groups, tnm / tnc, n
		if (r1m != "" && groups > sgroups)
			printf "  %d samples (%d groups): %s, so %.0f bytes per added group\n", \
				srows, sgroups, mb(rs), (r1m - rs) * 1024 / (groups - sgroups)
	}'
	rm -f "$big" "$small"
}

# ---------------------------------------------------------------- shapes
for shape in $shapes; do
	case $shape in
	finest) finest; continue ;;
	finest-ordered) finest --ordered; continue ;;
	esac
	IFS=x read -r systems lpars cpus ziip <<<"$shape"
	[[ -n $ziip ]] || die "shape '$shape' is not SYSTEMSxLPARSxCPUSxZIIP"
	big=$tmp/z16-big.csv small=$tmp/z16-small.csv
	gen() { "$tmp/gencsv" --systems "$systems" --lpars "$lpars" --cpus "$cpus" --ziip "$ziip" --rows "$1" --seed 1 >"$2"; }
	gen "$rows" "$big"
	gen "$small_rows" "$small"
	zstd -q -f -3 -T0 -o "$big.zst" "$big"
	size=$(stat -c %s "$big") zsize=$(stat -c %s "$big.zst")

	# groups, and -j N against -j 1 byte for byte (not timed)
	"$mfstat" report -q -f csv -j 1 "$big" -o "$tmp/r1.csv"
	"$mfstat" report -q -f csv -j "$jobs" "$big" -o "$tmp/rN.csv"
	cmp -s "$tmp/r1.csv" "$tmp/rN.csv" || die "shape $shape: -j $jobs and -j 1 reports differ"
	groups=$(($(wc -l <"$tmp/r1.csv") - 1))
	"$mfstat" report -q -f csv -j 1 "$small" -o "$tmp/r1.csv"
	sgroups=$(($(wc -l <"$tmp/r1.csv") - 1))
	rm -f "$tmp/r1.csv" "$tmp/rN.csv"

	best=() rss=()
	cat "$big" "$big.zst" >/dev/null # warm the page cache
	for ((i = 0; i < runs; i++)); do
		timed cat cat "$big"
		timed mf1 "$mfstat" report -q -f csv -j 1 "$big" -o /dev/null
		timed mfN "$mfstat" report -q -f csv -j "$jobs" "$big" -o /dev/null
		if ((duck_ok)); then
			timed duck1 node "$root/bench/duckdb.mjs" "$big" 1 1 auto
			timed duckN node "$root/bench/duckdb.mjs" "$big" "$jobs" 1 auto
			timed duck1t node "$root/bench/duckdb.mjs" "$big" 1 1 typed
			timed duckNt node "$root/bench/duckdb.mjs" "$big" "$jobs" 1 typed
		fi
		timed zcat zstd -dc "$big.zst"
		timed mfz "$mfstat" report -q -f csv -j "$jobs" "$big.zst" -o /dev/null
	done
	rss_small=$(rss_of "$mfstat" report -q -f csv -j 1 "$small" -o /dev/null)
	rss_fixed=$(rss_of "$mfstat" report -q -f csv -j 1 --by system,lpar,pool "$big" -o /dev/null)

	echo
	awk -v shape="$systems x $lpars x $cpus ($ziip zIIP)" -v rows="$rows" -v size="$size" -v zsize="$zsize" \
		-v groups="$groups" -v gpi="$((systems * lpars * (ziip > 0 ? 2 : 1)))" -v sgroups="$sgroups" -v srows="$small_rows" -v n="$jobs" -v duck="$duck_ok" \
		-v tc="${best[cat]}" -v t1="${best[mf1]}" -v tn="${best[mfN]}" -v d1="${best[duck1]:-}" -v dn="${best[duckN]:-}" -v d1t="${best[duck1t]:-}" -v dnt="${best[duckNt]:-}" \
		-v tzc="${best[zcat]}" -v tzm="${best[mfz]}" \
		-v r1="${rss[mf1]:-}" -v rn="${rss[mfN]:-}" -v rz="${rss[mfz]:-}" -v rd1="${rss[duck1]:-}" -v rdn="${rss[duckN]:-}" \
		-v rs="$rss_small" -v rf="$rss_fixed" '
	function row(tool, th, t, base, bname) {
		printf "| %-38s | %7s | %7.3f | %8.1f | %8.2f |%s\n", tool, th, t, size / 1e6 / t, t / tc, \
			base == "" ? "" : sprintf(" %.2fx %s", t / base, bname)
	}
	function mb(kb) { return kb == "" ? "n/a" : sprintf("%.1f MB", kb / 1024) }
	BEGIN {
		printf "shape %s: %d rows, %.1f MB CSV (.zst %.1f MB), %d groups (%d per interval)\n", \
			shape, rows, size / 1e6, zsize / 1e6, groups, gpi
		printf "| %-38s | %7s | %7s | %8s | %8s |\n", "tool", "threads", "seconds", "MB/s", "x cat"
		printf "|%s|%s|%s|%s|%s|\n", "----------------------------------------", "---------", "---------", "----------", "----------"
		row("cat FILE", 1, tc)
		row("mfstat report -f csv -j 1", 1, t1)
		row("mfstat report -f csv -j " n, n, tn)
		if (duck) {
			row("DuckDB, read_csv detecting types", 1, d1)
			row("DuckDB, read_csv detecting types", n, dn)
			row("DuckDB, read_csv with the column types", 1, d1t)
			row("DuckDB, read_csv with the column types", n, dnt)
		}
		row("zstd -dc FILE.zst", 1, tzc)
		row("mfstat report -f csv FILE.zst", n " (-j " n ")", tzm, tzc, "zstd -dc")
		printf "mfstat -j %d over -j 1:          %.2fx   (goal: at least 1.7x)\n", n, t1 / tn
		if (duck) {
			# against the faster of the two DuckDB forms
			dbn = dnt < dn ? dnt : dn; db1 = d1t < d1 ? d1t : d1
			printf "mfstat -j %d over DuckDB %d thr.: %.2fx   (goal: at least 1.5x; the faster DuckDB form)\n", n, n, dbn / tn
			printf "mfstat -j 1 over DuckDB 1 thr.: %.2fx   (the faster DuckDB form)\n", db1 / t1
		}
		if (r1 != "") {
			printf "peak RSS mfstat: -j 1 %s, -j %d %s (%.0f and %.0f bytes per group); .zst %s\n", \
				mb(r1), n, mb(rn), r1 * 1024 / groups, rn * 1024 / groups, mb(rz)
			printf "  %d rows (%d groups): %s, so %.0f bytes per added group; --by system,lpar,pool: %s\n", \
				srows, sgroups, mb(rs), (groups > sgroups ? (r1 - rs) * 1024 / (groups - sgroups) : 0), mb(rf)
			if (duck) printf "peak RSS DuckDB (node): 1 thread %s, %d threads %s\n", mb(rd1), n, mb(rdn)
		}
	}'
	rm -f "$big" "$big.zst" "$small"
done
