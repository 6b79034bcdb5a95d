#!/bin/bash
# SPDX-License-Identifier: MIT
# Overhead of `mfstat measure profile` at its default rate, in the same run of
# this script (build first: make build).
#
#   bench/measure.sh [UNITS]
#     A fixed-work program (tests/progs/mprog_hot.c) timed alone and under
#     measure, best of RUNS each.  Target: at most 5 % slower.
#
#   bench/measure.sh compiler [NFUNCS]
#     `gcc -O2 -c` of a generated file of NFUNCS (3000) small functions
#     (bench/gen_functions.sh), RUNS rounds, each timing in turn: the compiler
#     alone; under `mfstat measure profile` (report and run file included);
#     `perf record -e cpu-clock` at perf's default rate then `perf report`; the
#     same at measure's rate (-F 1000).  Targets: measure within 5 % of the
#     compiler alone plus 0.1 s, and at most half of perf record + report
#     (which no tool that runs the compiler can meet while perf adds less than
#     the compiler's own time, so the time each adds to the compiler is
#     compared too).
#
#   bench/measure.sh callgraph [NFUNCS]
#     The cost of call chains, on mprog_hot_O2 4 and on the compiler run
#     above: best of RUNS wall seconds of the work alone, under `measure
#     profile -g` (frame pointers) and `--call-graph dwarf` (report and run
#     file included), and of `perf record -g` and `perf record --call-graph
#     dwarf`, each followed by `perf report --children`, at measure's rate
#     (-F 1000).  Goal: measure's dwarf at most perf's dwarf.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
MFSTAT=${MFSTAT:-$build/mfstat}
RUNS=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
best() { sort -g | head -1; }
# Wall seconds of a command (its output discarded).
wall() {
	local t0 t1
	t0=$(now)
	"$@" >/dev/null 2>&1
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f\n", b-a}'
}

if [ "${1:-}" = callgraph ]; then
	NFUNCS=${2:-3000}
	CC=${CC:-gcc}
	PROG=$build/tests/mprog_hot_O2
	[ -x "$MFSTAT" ] && [ -x "$PROG" ] || { echo "build first: make build" >&2; exit 2; }
	have_perf=1
	if ! command -v perf >/dev/null || ! perf record -q -e cpu-clock -o "$tmp/probe.data" -- true >/dev/null 2>&1; then
		have_perf=0
		echo "perf record unavailable here: the perf columns are skipped" >&2
	fi
	"$root/bench/gen_functions.sh" "$NFUNCS" >"$tmp/funcs.c"
	# Best of RUNS wall seconds of "$@".
	bestof() { for i in $(seq "$RUNS"); do wall "$@"; done | best; }
	# perf record then perf report --children, one wall time.
	perf_both() {
		local data=$tmp/perf.data t0 t1
		t0=$(now)
		perf record -q -e cpu-clock -F 1000 -o "$data" "$@" >/dev/null 2>&1
		perf report -i "$data" --children --stdio >/dev/null 2>&1 || echo "perf report failed" >&2
		t1=$(now)
		awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f\n", b-a}'
	}
	perf_best() { for i in $(seq "$RUNS"); do perf_both "$@"; done | best; }
	printf '%-22s %8s %8s %8s %8s %8s %9s %8s\n' work alone 'm -g fp' 'm dwarf' 'perf fp' 'perf dw' 'm_dw/p_dw' samples
	for work in hot compiler; do
		if [ $work = hot ]; then cmd=("$PROG" 4); else cmd=("$CC" -O2 -c "$tmp/funcs.c" -o "$tmp/funcs.o"); fi
		alone=$(bestof "${cmd[@]}")
		mfp=$(bestof "$MFSTAT" measure profile -q -g -d "$tmp/fp.mfdb" --force -o /dev/null -- "${cmd[@]}")
		mdw=$(bestof "$MFSTAT" measure profile -q --call-graph dwarf -d "$tmp/dw.mfdb" --force -o /dev/null -- "${cmd[@]}")
		pfp=nan pdw=nan
		if [ $have_perf = 1 ]; then
			pfp=$(perf_best -g -- "${cmd[@]}")
			pdw=$(perf_best --call-graph dwarf -- "${cmd[@]}")
		fi
		n=$("$MFSTAT" measure report -f folded "$tmp/dw.mfdb" | awk '{s+=$NF} END{print s+0}')
		awk -v w="$work" -v a="$alone" -v f="$mfp" -v d="$mdw" -v pf="$pfp" -v pd="$pdw" -v n="$n" 'BEGIN{
			printf "%-22s %8.3f %8.3f %8.3f %8s %8s %9s %8d\n", w, a, f, d, pf, pd,
				(pd == "nan" ? "nan" : sprintf("%.2f", d/pd)), n}'
	done
	exit 0
fi

if [ "${1:-}" = compiler ]; then
	NFUNCS=${2:-3000}
	CC=${CC:-gcc}
	[ -x "$MFSTAT" ] || { echo "build first: make build" >&2; exit 2; }
	command -v "$CC" >/dev/null || { echo "no $CC" >&2; exit 2; }
	"$root/bench/gen_functions.sh" "$NFUNCS" >"$tmp/funcs.c"
	cc=("$CC" -O2 -c "$tmp/funcs.c" -o "$tmp/funcs.o")
	have_perf=1
	if ! command -v perf >/dev/null || ! perf record -q -e cpu-clock -o "$tmp/probe.data" -- true >/dev/null 2>&1; then
		have_perf=0
		echo "perf record unavailable here: the perf columns are skipped" >&2
	fi
	printf '%s -O2 -c on %d functions (%s lines), %d rounds\n' "$CC" "$NFUNCS" "$(wc -l <"$tmp/funcs.c")" "$RUNS"
	printf '%-6s %9s %9s %9s %9s %9s %9s %9s\n' round alone measure m/alone perf_rec perf_rep perf_1k m/perf
	: >"$tmp/rounds"
	for i in $(seq "$RUNS"); do
		alone=$(wall "${cc[@]}")
		meas=$(wall "$MFSTAT" measure profile -q -d "$tmp/run$i.mfdb" -o "$tmp/report$i.txt" -- "${cc[@]}")
		prec=nan prep=nan p1k=nan
		if [ $have_perf = 1 ]; then
			prec=$(wall perf record -q -e cpu-clock -o "$tmp/perf.data" -- "${cc[@]}")
			prep=$(wall perf report -i "$tmp/perf.data" --stdio)
			p1k=$(wall perf record -q -e cpu-clock -F 1000 -o "$tmp/perf1k.data" -- "${cc[@]}")
			p1k=$(awk -v a="$p1k" -v b="$(wall perf report -i "$tmp/perf1k.data" --stdio)" 'BEGIN{printf "%.3f", a+b}')
		fi
		echo "$alone $meas $prec $prep $p1k" >>"$tmp/rounds"
		awk -v r="$i" -v a="$alone" -v m="$meas" -v pr="$prec" -v pp="$prep" -v pk="$p1k" 'BEGIN{
			printf "%-6s %9.3f %9.3f %9.3f %9s %9s %9s %9s\n", r, a, m, m/a, pr, pp, pk,
				(pr == "nan" ? "nan" : sprintf("%.3f", m/(pr+pp)))}'
	done
	samples=$("$MFSTAT" measure report -f json "$tmp/run1.mfdb" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(f.get("samples") or 0 for f in d["functions"]))' 2>/dev/null || echo '?')
	echo "samples of measure's first run: $samples"
	# Per round: measure against the target 1.05 x alone + 0.1 s and against half of perf record + report.
	awk '{ a=$1; m=$2; lim=1.05*a+0.1; ok1 += (m <= lim); if ($3 != "nan") { p=$3+$4; ok2 += (m <= p/2) } n++;
		printf "round %d: measure - alone = %+.3f s (%+.1f %%), limit %.3f s: %s", n, m-a, (m/a-1)*100, lim, (m <= lim ? "met" : "MISSED");
		if ($3 != "nan") printf "; perf record + report %.3f s, ratio %.2f: %s; time added %.2f of perf'"'"'s", p, m/p, (m <= p/2 ? "met" : "MISSED"), (m-a)/(p-a);
		printf "\n" }
		END { printf "rounds within 1.05 x alone + 0.1 s: %d of %d\n", ok1, n }' "$tmp/rounds"
	exit 0
fi

PROG=$build/tests/mprog_hot_O2
UNITS=${1:-4}
[ -x "$MFSTAT" ] && [ -x "$PROG" ] || { echo "build first: make build" >&2; exit 2; }
alone=$(for i in $(seq "$RUNS"); do t0=$(now); "$PROG" "$UNITS"; t1=$(now); awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.6f\n", b-a}'; done | best)
measured=$(for i in $(seq "$RUNS"); do
  t0=$(now); "$MFSTAT" measure profile -q -d "$tmp/run$i.mfdb" -o /dev/null -- "$PROG" "$UNITS" 2>/dev/null; t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.6f\n", b-a}'; done | best)
mode=$("$MFSTAT" measure report "$tmp/run1.mfdb" | sed -n 's/^Mode: *//p' | head -1)
samples=$("$MFSTAT" measure report -f json "$tmp/run1.mfdb" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(f.get("samples") or 0 for f in d["functions"]))')
printf 'program alone:             %.3f s (best of %d)\n' "$alone" "$RUNS"
printf 'under measure profile:     %.3f s (best of %d, report included)\n' "$measured" "$RUNS"
printf 'overhead:                  %+.1f %%\n' "$(awk -v m="$measured" -v a="$alone" 'BEGIN{print (m/a-1)*100}')"
printf 'samples per run:           %s\n' "$samples"
printf 'mode:                      %s\n' "$mode"
