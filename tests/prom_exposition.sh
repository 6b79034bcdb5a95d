#!/bin/bash
# SPDX-License-Identifier: MIT
# Every Prometheus exposition mfstat writes passes `promtool check metrics` (Prometheus's own
# parser and linter): stat on a recorded z16 LPAR (plain, --derived, a set not authorized),
# --fallback, report (plain, --derived, by CPU, one group).  And the textfile collector's file:
# while `stat -I 50 -o FILE.prom` rewrites it, a reader never sees it half-written and the
# cycle counter never goes down between reads.  Skips (77) without promtool.  The OpenMetrics
# form is checked for its # EOF only: promtool check metrics reads the text format alone.
set -u
MFSTAT=$(realpath "$1")
command -v promtool > /dev/null || { echo "SKIP: no promtool (Debian package prometheus)"; exit 77; }
cd "$(dirname "$0")/cli" || exit 1
. stat/z16tree.inc
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$tmp"' EXIT
fail=0
z16_tree "$tmp/z16"
z16_tree "$tmp/nocrypto" 0027
x86_tree "$tmp/x86"

# check NAME FILE: promtool accepts it, and it has samples.
check() {
	if ! promtool check metrics < "$2" > "$tmp/lint" 2>&1; then
		echo "FAIL: promtool check metrics refuses $1:"; cat "$tmp/lint"; fail=1
	elif ! grep -q '^mfstat_' "$2"; then
		echo "FAIL: $1 has no samples"; fail=1
	else
		echo "ok: $1 ($(grep -c '^mfstat_' "$2") samples)"
	fi
}
MFSTAT_SYSROOT=$tmp/z16 "$MFSTAT" stat -q -f prom -o "$tmp/stat.prom" -- true || { echo "FAIL: stat -f prom"; fail=1; }
check "stat" "$tmp/stat.prom"
MFSTAT_SYSROOT=$tmp/z16 "$MFSTAT" stat -q --derived -o "$tmp/statd.prom" -- true || { echo "FAIL: stat --derived"; fail=1; }
check "stat --derived" "$tmp/statd.prom"
MFSTAT_SYSROOT=$tmp/z16 "$MFSTAT" stat -q -a --duration 0.01 --derived -o "$tmp/stata.prom" || { echo "FAIL: stat -a"; fail=1; }
check "stat -a --derived" "$tmp/stata.prom"
MFSTAT_SYSROOT=$tmp/nocrypto "$MFSTAT" stat -q --derived -o "$tmp/nocrypto.prom" -- true || { echo "FAIL: stat, crypto not authorized"; fail=1; }
check "stat, crypto not authorized" "$tmp/nocrypto.prom"
MFSTAT_SYSROOT=$tmp/x86 "$MFSTAT" stat -q --fallback -o "$tmp/fb.prom" -- true || { echo "FAIL: stat --fallback"; fail=1; }
check "stat --fallback" "$tmp/fb.prom"
MFSTAT_SYSROOT=$tmp/x86 "$MFSTAT" stat -q --fallback --derived -o "$tmp/fbd.prom" -- true || { echo "FAIL: stat --fallback --derived"; fail=1; }
check "stat --fallback --derived" "$tmp/fbd.prom"
for by in default system,cpu ""; do
	args=(--by "$by")
	[ "$by" = default ] && args=()
	"$MFSTAT" report -q -f prom "${args[@]}" ../data/z16-two-pools.csv > "$tmp/r.prom" || { echo "FAIL: report --by $by"; fail=1; }
	check "report --by $by" "$tmp/r.prom"
	"$MFSTAT" report -q -f prom --derived "${args[@]}" ../data/z16-two-pools.csv > "$tmp/rd.prom" || { echo "FAIL: report --derived --by $by"; fail=1; }
	check "report --derived --by $by" "$tmp/rd.prom"
done
# Several families in one report (z10 and z16): each series once, told apart by the family label.
"$MFSTAT" report -q -f prom --derived --by "" ../data/z16-two-pools.csv ../data/z10.csv > "$tmp/r2.prom" || { echo "FAIL: report of two families"; fail=1; }
check "report of two families" "$tmp/r2.prom"
grep -q 'family="z10"' "$tmp/r2.prom" && grep -q 'family="z16"' "$tmp/r2.prom" || { echo "FAIL: two families not both there"; fail=1; }
MFSTAT_SYSROOT=$tmp/z16 "$MFSTAT" stat -q --derived -f openmetrics -o - -- true > "$tmp/om" || { echo "FAIL: stat -f openmetrics"; fail=1; }
[ "$(tail -1 "$tmp/om")" = "# EOF" ] || { echo "FAIL: OpenMetrics does not end in # EOF"; fail=1; }
# The checks can fail: a counter without _total is refused.
printf '# HELP x_bytes b\n# TYPE x_bytes counter\nx_bytes 1\n' > "$tmp/bad.prom"
promtool check metrics < "$tmp/bad.prom" > /dev/null 2>&1 && { echo "FAIL: promtool accepts a bad exposition: the checks above prove nothing"; fail=1; }

# -I: the file is replaced whole every 50 ms, counts cumulative.  Every read of the cycle counter
# advances by 1000 per CPU (counts.tsv's third column), so the value grows with every rewrite.
awk -F'\t' '{ print $1 "\t" $2 "\t1000" }' "$tmp/z16/counts.tsv" > "$tmp/c" && mv "$tmp/c" "$tmp/z16/counts.tsv"
mkdir "$tmp/textfile"
out=$tmp/textfile/mfstat.prom
MFSTAT_SYSROOT=$tmp/z16 "$MFSTAT" stat -q -a -I 50 --duration 3 -o "$out" &
pid=$!
last=mfstat_cpumf_mt_diag_cycles_two_thr_active_total
reads=0 torn=0 down=0 prev=0 distinct=0 lines= at=
re="^$last\\{set=\"mtdiag\"\\} [0-9]+\$"
cre='^mfstat_cpumf_cpu_cycles_total\{set="basic"\} ([0-9]+)$'
# Builtins only in the loop (mapfile, [[ =~ ]]): many reads while it runs.
while kill -0 "$pid" 2> /dev/null; do
	{ mapfile -t text < "$out"; } 2> /dev/null || continue
	((${#text[@]})) || continue
	reads=$((reads + 1))
	if [ -z "$lines" ]; then
		lines=${#text[@]}
		printf '%s\n' "${text[@]}" > "$tmp/first.prom"
		for ((i = 0; i < lines; i++)); do [[ ${text[i]} =~ $cre ]] && at=$i; done
		[ -n "$at" ] || { echo "FAIL: no cycle counter in the file"; fail=1; break; }
	fi
	# Whole: as many lines as every other copy, the machine first and the last sample last.
	if [ "${#text[@]}" != "$lines" ] || [[ ! ${text[-1]} =~ $re ]] || [[ ${text[0]} != "# HELP mfstat_machine_info "* ]]; then
		torn=$((torn + 1)); printf '%s\n' "${text[@]}" > "$tmp/torn.prom"
		continue
	fi
	if [[ ${text[at]} =~ $cre ]]; then
		cyc=${BASH_REMATCH[1]}
		((cyc < prev)) && down=$((down + 1))
		((cyc > prev)) && distinct=$((distinct + 1))
		prev=$cyc
	else
		down=$((down + 1))
	fi
done
wait "$pid"; st=$?
pid=
[ $st = 0 ] || { echo "FAIL: stat -I 50 -o FILE.prom exited $st"; fail=1; }
[ $torn = 0 ] || { echo "FAIL: $torn of $reads reads saw a half-written file:"; tail -3 "$tmp/torn.prom"; fail=1; }
[ $down = 0 ] || { echo "FAIL: the cycle counter went down (or vanished) $down times in $reads reads"; fail=1; }
# 3 s of 50 ms intervals: dozens of rewrites; a loaded machine still sees several.
[ $distinct -ge 5 ] || { echo "FAIL: only $distinct rewrites seen in $reads reads"; fail=1; }
check "stat -I (a copy read while it ran)" "$tmp/first.prom"
check "stat -I (the last)" "$out"
ls "$tmp/textfile" | grep -v '^mfstat.prom$' && { echo "FAIL: temporary files left beside it"; fail=1; }
echo "-I: $reads reads, $distinct rewrites seen, none torn, the cycle counter never went down"
[ $fail = 0 ] && echo "prom exposition: ok"
exit $fail
