#!/bin/bash
# SPDX-License-Identifier: MIT
# Knowledge bases at scale (--tables): a chain of 20,000 metrics each using the
# next (ordered without recursion), a cycle through 20,000 metrics (named, with
# file and line), 100,000 metrics (MF_MAX_METRICS) loaded in linear time and
# reported (a column each) in every format, one more metric refused at its line, 50,000 topology rows, 65,536 machine types.  Each run has a time limit, and a memory
# limit unless the binary is built with AddressSanitizer (which reserves
# terabytes of address space).  The tables are generated in WORKDIR.
# Usage: tables_scale.sh MFSTAT WORKDIR DATA.CSV
set -u
MFSTAT=$1
WORK=$2
CSV=$3
LIMIT_S=${MFSTAT_SCALE_TIMEOUT:-30}
fail=0

rm -rf "$WORK"
mkdir -p "$WORK"

# gen DIR N MODE: metrics/generic.tsv with CPI and N metrics X0..X(N-1).
#   chain: CPI = X0 + 1, Xi = X(i+1) + 1, the last = B0 / B1: CPI = B0 / B1 + N
#   cycle: as chain, but the last uses X0 again
#   flat:  Xi = X(i-1) + B1, X0 = B0, CPI = X(N-1) / B1 - (N-1) = B0 / B1
gen() {
	mkdir -p "$1/metrics"
	awk -v n="$2" -v mode="$3" 'BEGIN {
		printf "name\tunit\tdigits\tflags\trevision\tformula\tdescription\n"
		if (mode == "flat")
			printf "CPI\tc\t3\t-\t2025-01\tX%d / B1 - %d\tcpi\n", n - 1, n - 1
		else
			printf "CPI\tc\t3\t-\t2025-01\tX0 + 1\tcpi\n"
		for (i = 0; i < n; i++) {
			if (mode == "flat")
				f = i ? sprintf("X%d + B1", i - 1) : "B0"
			else if (i + 1 < n)
				f = sprintf("X%d + 1", i + 1)
			else
				f = mode == "cycle" ? "X0 + 1" : "B0 / B1"
			printf "X%d\tx\t0\taux\t2025-01\t%s\tm\n", i, f
		}
	}' > "$1/metrics/generic.tsv"
}

run() { # run NAME WANT-EXIT MFSTAT-ARGS... (stdout in $WORK/NAME.out, stderr in $WORK/NAME.err)
	local name=$1 want=$2 rc
	shift 2
	(
		if ! grep -q __asan_init "$MFSTAT"; then
			ulimit -v 1048576
		fi
		exec timeout "$LIMIT_S" "$MFSTAT" "$@"
	) > "$WORK/$name.out" 2> "$WORK/$name.err"
	rc=$?
	if [ "$rc" = 124 ]; then
		echo "FAIL $name: still running after ${LIMIT_S} s"
		fail=1
		return 1
	fi
	if [ "$rc" != "$want" ]; then
		echo "FAIL $name: exit $rc, expected $want"
		head -c 600 "$WORK/$name.err"
		fail=1
		return 1
	fi
	return 0
}

expect() { # expect NAME FILE TEXT: FILE holds TEXT
	if ! grep -qF -- "$3" "$2"; then
		echo "FAIL $1: '$3' not in $(basename "$2"):"
		head -c 600 "$2"
		fail=1
	fi
}

# 20,000 metrics in a chain: CPI = 2.211 + 20,000.
gen "$WORK/chain" 20000 chain
if run chain 0 report --tables "$WORK/chain" "$CSV"; then
	expect chain "$WORK/chain.out" "20002.211"
fi

# A cycle through all 20,000: one positioned error naming the metrics of the cycle.
gen "$WORK/cycle" 20000 cycle
if run cycle 1 report --tables "$WORK/cycle" "$CSV"; then
	expect cycle "$WORK/cycle.err" "/metrics/generic.tsv:3:"
	expect cycle "$WORK/cycle.err" "metric X0 depends on itself: X0 -> X1 -> X2 -> "
	expect cycle "$WORK/cycle.err" "(20000 metrics in the cycle) -> X0"
fi

# 100,000 metrics, the limit (CPI and 99,999 more): loads, CPI is B0 / B1.
gen "$WORK/flat" 99999 flat
if run flat 0 report --tables "$WORK/flat" "$CSV"; then
	expect flat "$WORK/flat.out" "2.211"
fi
if run flat_metrics 0 metrics --tables "$WORK/flat" --machine generic; then
	expect flat_metrics "$WORK/flat_metrics.out" "generic: 100000 metrics"
fi

# 100,000 metrics all reported (generic's report "-"): a column each, every format, in about a
# second; a search of the family's report per column made it 208 s (the time limit, 60 s, is a
# guard against that, not a bound: unit_output counts the name lookups).
mkdir -p "$WORK/flatrep/metrics"
sed 's/\taux\t/\t-\t/' "$WORK/flat/metrics/generic.tsv" > "$WORK/flatrep/metrics/generic.tsv"
awk -F '\t' 'BEGIN { OFS = "\t" } $1 == "generic" { $10 = "-" } { print }' "$(dirname "$0")/../data/families.tsv" \
	> "$WORK/flatrep/families.tsv"
limit=$LIMIT_S
[ "$LIMIT_S" -lt 60 ] && LIMIT_S=60 # 1 s here, 5 s with AddressSanitizer; 170 s and more before
for f in text csv json html; do
	if run "flatrep_$f" 0 report -f "$f" --tables "$WORK/flatrep" "$CSV"; then
		expect "flatrep_$f" "$WORK/flatrep_$f.out" "X99998"
	fi
done
LIMIT_S=$limit
expect flatrep_csv "$WORK/flatrep_csv.out" ",2.21052631578"

# One more: refused at the line of metric 100,001.
gen "$WORK/over" 100000 flat
if run over 1 metrics --tables "$WORK/over"; then
	expect over "$WORK/over.err" "/metrics/generic.tsv:100002:1: error: more than 100000 metrics in one family"
fi

# 50,000 topology rows for one family (copied array per row: 60 s and 20 GB before).
mkdir -p "$WORK/topo"
awk 'BEGIN { print "family\titem\tvalue"; for (i = 0; i < 50000; i++) printf "z16\titem%d\tv\n", i }' \
	> "$WORK/topo/topology.tsv"
if run topo 0 machines --tables "$WORK/topo" z16; then
	expect topo "$WORK/topo.out" "item49999 v"
fi

# Every machine type 0..65535 (a linear duplicate check per row before).
mkdir -p "$WORK/mach"
awk 'BEGIN { print "type\tfamily\tmodel\tnominal_mhz"; for (i = 0; i < 65536; i++) printf "%d\tz16\tm\t5000\n", i }' \
	> "$WORK/mach/machines.tsv"
if run mach 0 machines --tables "$WORK/mach" 65535; then
	expect mach "$WORK/mach.out" "type 65535  m, nominal 5000 MHz"
fi

[ "$fail" = 0 ] && rm -rf "$WORK"
exit "$fail"
