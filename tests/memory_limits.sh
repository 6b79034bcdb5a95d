#!/bin/bash
# SPDX-License-Identifier: MIT
# Memory limits (README, Reliability), each run under `ulimit -v` and a `timeout` that guards
# against a hang (not a bound on the time):
#   - report -j 2 --max-groups 1 on a 37 MB CSV, each row a group of its own: every reading
#     thread stops at the limit, with the message and exit status of -j 1 (the parts once read
#     their whole share first, a group a row: about 1 GB and seconds before failing)
#   - report -j 2 -f html --by system --max-groups 100 on 10 MB of it: the groups by interval
#     beyond the limit are dropped with a warning, as with -j 1 (they were an error)
#   - --version, metrics, machines and a report of the bundled example in 32 MiB of address space
#     (a 64 MiB heap padding for every command made them fail with a bare "mfstat: ")
#   - an allocation failure names what it was allocating: "out of memory while ...", exit 1
# Sanitizer builds (whose shadow memory needs terabytes of address space) run without the memory
# limit, and skip what only a memory limit shows.
set -u
MFSTAT=$1
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${2:-/tmp}/memlimits.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "$0")/limited.sh"

# 720,000 rows of 51 bytes, a minute apart: every row is an interval, so a group of its own.
awk 'BEGIN {
	print "system,cpu,machine,cpsp,interval_start,interval_seconds,B0,B1"
	for (y = 2001; n < 720000; y++)
		for (mo = 1; mo <= 12 && n < 720000; mo++)
			for (d = 1; d <= 28 && n < 720000; d++)
				for (h = 0; h < 24 && n < 720000; h++)
					for (mi = 0; mi < 60 && n < 720000; mi++) {
						printf "SYSA,0,3931,5200,%d-%02d-%02dT%02d:%02d:00Z,60,%d,%d\n", y, mo, d, h, mi, 1000000 + n, 500000 + n
						n++
					}
}' > "$tmp/rows.csv"
want='rows.csv:3: more than 1 groups (--max-groups)'
for j in 1 2; do
	(cd "$tmp" && run 400000 120 report -j $j --max-groups 1 rows.csv); st=$?
	[ $st = 1 ] && grep -q "^mfstat: error: $want" "$tmp/err" ||
		{ echo "FAIL: report -j $j --max-groups 1 in 400 MB: exit $st"; head -c 500 "$tmp/err"; fail=1; }
	cp "$tmp/err" "$tmp/err.$j"
done
cmp -s "$tmp/err.1" "$tmp/err.2" || { echo "FAIL: -j 2 --max-groups says otherwise than -j 1"; diff "$tmp/err.1" "$tmp/err.2"; fail=1; }
head -n 200001 "$tmp/rows.csv" > "$tmp/rows10.csv"
for j in 1 2; do
	(cd "$tmp" && run 400000 120 report -j $j -f html --by system --max-groups 100 rows10.csv); st=$?
	[ $st = 0 ] && grep -q "^mfstat: warning: more than 100 groups by interval (--max-groups)" "$tmp/err" ||
		{ echo "FAIL: report -j $j -f html --max-groups 100: exit $st"; head -c 500 "$tmp/err"; fail=1; }
	mv "$tmp/out" "$tmp/out.$j"
done
cmp -s "$tmp/out.1" "$tmp/out.2" || { echo "FAIL: -j 2 -f html --max-groups 100 differs from -j 1"; fail=1; }
rm -f "$tmp/rows10.csv" "$tmp/out.1" "$tmp/out.2"

# Small commands in 32 MiB: they succeed and say what they say without a limit.
for args in "--version" "metrics" "machines" "report $src/examples/z16-demo.csv"; do
	# shellcheck disable=SC2086 # the words of args are the arguments
	run 32768 60 $args; st=$?
	if [ $st != 0 ] || [ ! -s "$tmp/out" ] || [ -s "$tmp/err" ]; then
		echo "FAIL: mfstat $args in 32 MiB: exit $st"
		head -c 500 "$tmp/err"
		fail=1
	fi
done

# An allocation failure names what it was allocating: 720,000 groups do not fit in 64 MiB.
if [ $asan = 1 ]; then
	echo "skipped: out of memory under ulimit -v (a sanitizer build cannot run under a memory limit)"
else
	(cd "$tmp" && run 65536 120 report -j 1 rows.csv); st=$?
	[ $st = 1 ] && grep -Eq '^mfstat: error: out of memory while [a-z].*rows\.csv' "$tmp/err" &&
		! grep -Eq '^mfstat: (error: )?(out of memory)?$' "$tmp/err" ||
		{ echo "FAIL: report in 64 MiB: exit $st, not a named out of memory"; head -c 500 "$tmp/err"; fail=1; }
fi
rm -f "$tmp/rows.csv"

[ $fail = 0 ] && echo "memory limits: all ok"
exit $fail
