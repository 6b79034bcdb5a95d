#!/bin/bash
# SPDX-License-Identifier: MIT
# mfstat db import (issue 27, docs/db.md): every input format of tests/data, examples/ and
# tools/gensmf.c imported, its samples and the sum of B0 per system in SQL equal to what
# `mfstat report` reads (rows) and `mfstat export --by system` sums; importing twice changes
# nothing (sqlite3 .dump before and after); overlapping dumps, and a dump plus its export, add
# only the new samples; a conflict names both places, exits 1 and keeps the files before it;
# what is not an mfstat database and a newer schema are refused; db info.
set -u
MFSTAT=$1
GENSMF=$2
DATA=$3
EXAMPLES=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3 shell"; exit 77; }

ok() { n=$((n + 1)); }
bad() { echo "FAIL $*"; fail=1; }
q() { sqlite3 -batch -noheader "$1" "$2"; }

# check NAME INPUT...: imported alone into a new database, its samples count the rows report
# reads and B0 per system sums as export --by system does.
check() {
	local name=$1 db="$tmp/$1.db"
	shift
	rm -f "$db"
	"$MFSTAT" db import -q "$db" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "$name: import exit $?"; head -3 "$tmp/err"; return; }
	local rows got
	rows=$("$MFSTAT" report -q "$@" 2>/dev/null | sed -n 's/^\([0-9][0-9]*\) rows\? read from.*/\1/p')
	got=$(q "$db" "SELECT COUNT(*) FROM sample")
	[ "$rows" = "$got" ] || { bad "$name: $got samples in the database, report read $rows rows"; return; }
	# B0 per system: SQL over every counters table that has B0, against export --by system.
	local fams sqlsum="" f
	fams=$(q "$db" "SELECT DISTINCT family FROM counter WHERE name = 'B0'")
	for f in $fams; do
		[ -n "$sqlsum" ] && sqlsum="$sqlsum UNION ALL "
		sqlsum="$sqlsum SELECT s.system AS system, c.B0 AS b0 FROM sample s JOIN \"counters_$f\" c ON c.id = s.id"
	done
	if [ -n "$sqlsum" ]; then
		q "$db" "SELECT system, SUM(b0) FROM ($sqlsum) WHERE b0 IS NOT NULL GROUP BY system ORDER BY system" |
			tr '|' ',' >"$tmp/sql.b0"
		"$MFSTAT" export -q --by system "$@" -o "$tmp/exp.csv" 2>/dev/null
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "B0") b = i; if ($i == "system") y = i } next }
			b && $b != "" { print (y ? $y : "") "," $b }' "$tmp/exp.csv" | sort >"$tmp/exp.b0"
		cmp -s "$tmp/sql.b0" "$tmp/exp.b0" || { bad "$name: B0 per system differs"; diff "$tmp/sql.b0" "$tmp/exp.b0" | head -4; return; }
		# The import rolled its samples up: at each level the samples and B0 per system of the
		# roll-ups are those of the dated samples.
		local lvl rollsum
		q "$db" "SELECT system, COUNT(*), SUM(b0) FROM ($(sed 's/c.B0 AS b0 FROM sample s/c.B0 AS b0, s.start_us AS st FROM sample s/g' <<<"$sqlsum")) WHERE st IS NOT NULL GROUP BY system ORDER BY system" >"$tmp/dated"
		for lvl in hour day month; do
			rollsum=""
			for f in $fams; do
				[ -n "$rollsum" ] && rollsum="$rollsum UNION ALL "
				rollsum="$rollsum SELECT r.system AS system, r.samples AS n, s.B0 AS b0 FROM rollup r JOIN \"rollup_$f\" s ON s.id = r.id WHERE r.level = '$lvl'"
			done
			q "$db" "SELECT system, SUM(n), SUM(b0) FROM ($rollsum) GROUP BY system ORDER BY system" >"$tmp/rolled"
			cmp -s "$tmp/dated" "$tmp/rolled" || { bad "$name: the $lvl roll-ups differ from the samples"; diff "$tmp/dated" "$tmp/rolled" | head -4; return; }
		done
		# The import made the views of each family it holds, and they read its samples.
		for f in $fams; do
			got=$(q "$db" "SELECT (SELECT COUNT(*) FROM \"metrics_${f}_sample\") = (SELECT COUNT(*) FROM sample WHERE family = '$f')" 2>&1)
			[ "$got" = 1 ] || { bad "$name: the view metrics_${f}_sample: $got"; return; }
		done
	fi
	# report --db over the database is report over the inputs: the same CSV, at several
	# groupings and selections (import, then report).
	local args sys1
	sys1=$(q "$db" "SELECT system FROM sample WHERE system <> '' ORDER BY id LIMIT 1")
	for args in "" "--by system" "--by system,pool" "--by system,lpar,hour" "--by lpar,pool,day --tz smf" \
		"--by system --metrics CPI,L1MP" ${sys1:+"--system $sys1 --by system,pool,cpu"} "--from 2025-03-04T01:00:00Z --by system"; do
		# shellcheck disable=SC2086
		"$MFSTAT" report -q -f csv $args "$@" >"$tmp/rep.a" 2>/dev/null
		local ra=$?
		# shellcheck disable=SC2086
		"$MFSTAT" report -q -f csv $args --db "$db" >"$tmp/rep.b" 2>/dev/null
		local rb=$?
		[ "$(wc -l <"$tmp/rep.a")" -ge 2 ] || [ $ra != 0 ] || { bad "$name: report $args: nothing to compare"; return; }
		[ $ra = $rb ] && cmp -s "$tmp/rep.a" "$tmp/rep.b" ||
			{ bad "$name: report $args: exit $ra over the inputs, $rb over --db"; diff "$tmp/rep.a" "$tmp/rep.b" | head -4; return; }
	done
	ok
}

gen() { # gen NAME GENSMF-OPTIONS...: $tmp/NAME.smf and $tmp/NAME.csv
	local name=$1
	shift
	"$GENSMF" -q "$@" -o "$tmp/$name.smf" --csv "$tmp/$name.csv" || bad "gensmf $name"
}

# ---- every format ----
gen mixed --families z10,z196,zec12,z13,z14,z15,z16,z17 --systems 2 --cpus 2 --ziip 1 --intervals 3
gen lpar --systems 2 --cpus 4 --ziip 1 --intervals 8 --rmf --topology --lpars 2
gen both --systems 2 --cpus 2 --intervals 6 --subtype both --framing vbs --block-size 64
check mixed "$tmp/mixed.smf"
check lpar "$tmp/lpar.smf"
check both "$tmp/both.smf"
check gencsv "$tmp/mixed.csv"
gzip -c "$tmp/lpar.smf" >"$tmp/lpar.smf.gz"
check gz "$tmp/lpar.smf.gz"
for f in "$DATA"/small-both.smf "$DATA"/local-minus5.smf "$DATA"/generic.csv "$DATA"/itanium2-bus.csv \
	"$DATA"/day-3sys-z15.csv.gz "$DATA"/perf/cpu-cycles-u.txt "$DATA"/perf/z13-l4rp.txt \
	"$DATA"/lshwc/*.csv "$DATA"/lshwc/*.json "$EXAMPLES"/z16-demo.csv; do
	check "$(basename "$f")" "$f"
done
check tlb-miss --machine z16 "$DATA"/perf/tlb-miss.txt
# the LPAR view's records kept once, byte for byte
k=$(q "$tmp/lpar.db" "SELECT COUNT(*) FROM smf_record")
want=$("$MFSTAT" smf list "$tmp/lpar.smf" 2>/dev/null | grep -cE '^0x[0-9a-f]+  (70\.1|99\.14) ')
[ "$k" = "$want" ] && [ "$k" -gt 0 ] && ok || bad "lpar: $k SMF 70.1/99.14 records kept, smf list shows $want"
j=$(q "$tmp/lpar.db" "SELECT COUNT(*) FROM sample WHERE lpar_joined = 1 AND lpar <> ''")
[ "$j" -gt 0 ] && ok || bad "lpar: no sample joined to the LPAR view"

# ---- twice: nothing changes ----
db=$tmp/twice.db
"$MFSTAT" db import -q "$db" "$tmp/lpar.smf" "$DATA/generic.csv" >/dev/null 2>&1
sqlite3 "$db" .dump >"$tmp/dump1"
"$MFSTAT" db import -q "$db" "$tmp/lpar.smf" "$DATA/generic.csv" >"$tmp/out" 2>&1 || bad "twice: exit $?"
sqlite3 "$db" .dump >"$tmp/dump2"
cmp -s "$tmp/dump1" "$tmp/dump2" && ok || bad "twice: the database changed"
grep -q "lpar.smf: already imported (as $tmp/lpar.smf on " "$tmp/out" && ok || { bad "twice: no 'already imported'"; cat "$tmp/out"; }
# the same bytes under another name: recognised by their hash
cp "$tmp/lpar.smf" "$tmp/copy.smf"
"$MFSTAT" db import -q "$db" "$tmp/copy.smf" >"$tmp/out" 2>&1
sqlite3 "$db" .dump >"$tmp/dump3"
cmp -s "$tmp/dump1" "$tmp/dump3" && grep -q "copy.smf: already imported (as $tmp/lpar.smf" "$tmp/out" && ok ||
	bad "copy: not recognised"

# ---- overlapping dumps, a dump and its export ----
gen a --systems 2 --cpus 2 --ziip 1 --intervals 6 --start 2025-03-04T00:00:00Z
gen c --systems 2 --cpus 2 --ziip 1 --intervals 6 --start 2025-03-04T06:00:00Z
cat "$tmp/a.smf" "$tmp/c.smf" >"$tmp/b.smf" # a dump that overlaps a.smf: all of it, then c's
db=$tmp/over.db
"$MFSTAT" db import "$db" "$tmp/a.smf" "$tmp/b.smf" >"$tmp/out" 2>&1 || bad "overlap: exit $?"
a=$(q "$db" "SELECT samples_new FROM file WHERE name = '$tmp/a.smf'")
b=$(q "$db" "SELECT samples_new || ',' || samples_known FROM file WHERE name = '$tmp/b.smf'")
total=$("$MFSTAT" report -q "$tmp/a.smf" "$tmp/c.smf" 2>/dev/null | sed -n 's/^\([0-9]*\) rows\? read from.*/\1/p')
held=$(q "$db" "SELECT COUNT(*) FROM sample")
[ "$held" = "$total" ] && [ "$b" = "$((total - a)),$a" ] && [ "$a" -gt 0 ] && ok ||
	bad "overlap: a $a, b new,known $b, held $held; report of a and c: $total rows"
"$MFSTAT" export -q "$tmp/a.smf" -o "$tmp/a.export.csv" 2>/dev/null
sqlite3 "$db" "SELECT COUNT(*), SUM(1) FROM sample" >"$tmp/before"
"$MFSTAT" db import "$db" "$tmp/a.export.csv" >"$tmp/out" 2>&1 || { bad "export: exit $?"; cat "$tmp/out"; }
sqlite3 "$db" "SELECT COUNT(*), SUM(1) FROM sample" >"$tmp/after"
grep -q "a.export.csv: 0 new samples, $a already held" "$tmp/out" && cmp -s "$tmp/before" "$tmp/after" && ok ||
	{ bad "export: the export of a.smf added samples"; cat "$tmp/out"; }
# A dump with its LPAR view (SMF 70.1): its export names the LPAR, which the dump's type 113
# records do not; a row with the LPAR and its weight is the dump's sample joined, the same one.
gen r --systems 2 --cpus 2 --ziip 1 --intervals 6 --rmf --start 2025-03-05T00:00:00Z
"$MFSTAT" export -q "$tmp/r.smf" -o "$tmp/r.export.csv" 2>/dev/null
grep -q ',LPSYSA,' "$tmp/r.export.csv" || bad "rmf export: no LPAR name in the export"
db=$tmp/rmf.db
"$MFSTAT" db import -q "$db" "$tmp/r.smf" >/dev/null 2>&1 || bad "rmf: exit $?"
r=$(q "$db" "SELECT COUNT(*) FROM sample")
"$MFSTAT" db import "$db" "$tmp/r.export.csv" >"$tmp/out" 2>&1 || { bad "rmf export: exit $?"; cat "$tmp/out"; }
grep -q "r.export.csv: 0 new samples, $r already held" "$tmp/out" && [ "$(q "$db" "SELECT COUNT(*) FROM sample")" = "$r" ] &&
	ok || { bad "rmf export: the export of a dump with its LPAR view added samples"; cat "$tmp/out"; }
# report, the same: the export's rows are the dump's copies, and its LPAR table the dump's.
"$MFSTAT" report -q -f csv --by system,lpar "$tmp/r.smf" -o "$tmp/r1.csv" 2>/dev/null
"$MFSTAT" report -q -f csv --by system,lpar "$tmp/r.smf" "$tmp/r.export.csv" -o "$tmp/r2.csv" 2>/dev/null
"$MFSTAT" report -q -f csv --by system,lpar "$tmp/r.export.csv" -o "$tmp/r3.csv" 2>/dev/null
cmp -s "$tmp/r1.csv" "$tmp/r2.csv" && cmp -s "$tmp/r1.csv" "$tmp/r3.csv" && ok ||
	{ bad "rmf export: report over the dump and its export differs from over the dump"; diff "$tmp/r1.csv" "$tmp/r2.csv" | head -5; diff "$tmp/r1.csv" "$tmp/r3.csv" | head -5; }

# ---- a conflict: both places named, exit 1, the files before kept ----
db=$tmp/conflict.db
head -1 "$tmp/a.csv" >"$tmp/c.csv"
sed -n 2p "$tmp/a.csv" | awk -F, 'BEGIN { OFS = "," } { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/ && length($i) > 6) { $i = $i "0"; break } print }' >>"$tmp/c.csv"
"$MFSTAT" db import "$db" "$DATA/generic.csv" "$tmp/a.csv" >/dev/null 2>&1
sqlite3 "$db" .dump >"$tmp/dump1"
"$MFSTAT" db import "$db" "$tmp/c.smf" "$tmp/c.csv" "$DATA/itanium2-bus.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
sqlite3 "$db" "SELECT name FROM file ORDER BY id" >"$tmp/files"
[ $rc = 1 ] && ok || bad "conflict: exit $rc, not 1"
grep -q "c.csv:2.*different counters.*$tmp/a.csv line 2" "$tmp/err" && ok || { bad "conflict: both places not named"; cat "$tmp/err"; }
printf '%s\n' "$DATA/generic.csv" "$tmp/a.csv" "$tmp/c.smf" | cmp -s - "$tmp/files" && ok || { bad "conflict: files held"; cat "$tmp/files"; }
grep -q "c.csv: not imported (rolled back)" "$tmp/out" && ok || { bad "conflict: no rolled-back line"; cat "$tmp/out"; }
[ "$(q "$db" "SELECT COUNT(*) FROM sample WHERE file NOT IN (SELECT id FROM file)")" = 0 ] && ok || bad "conflict: samples of the rolled-back file kept"

# ---- what is not an mfstat database; a newer schema ----
echo "not a database" >"$tmp/text.db"
"$MFSTAT" db import "$tmp/text.db" "$DATA/generic.csv" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q "text.db" "$tmp/err" && [ "$(cat "$tmp/text.db")" = "not a database" ] && ok ||
	{ bad "text.db: exit $rc"; cat "$tmp/err"; }
sqlite3 "$tmp/other.db" "CREATE TABLE t (x); INSERT INTO t VALUES (1);"
cp "$tmp/other.db" "$tmp/other.orig"
"$MFSTAT" db import "$tmp/other.db" "$DATA/generic.csv" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q "other.db" "$tmp/err" && cmp -s "$tmp/other.db" "$tmp/other.orig" && ok || { bad "other.db: exit $rc"; cat "$tmp/err"; }
cp "$tmp/lpar.db" "$tmp/newer.db"
sqlite3 "$tmp/newer.db" "PRAGMA user_version = 99"
"$MFSTAT" db import "$tmp/newer.db" "$DATA/generic.csv" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q "schema version 99 is newer" "$tmp/err" && ok || { bad "newer: exit $rc"; cat "$tmp/err"; }
"$MFSTAT" db info "$tmp/newer.db" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "schema version 99 is newer" "$tmp/err" && ok || bad "newer: db info"

# ---- a delta of 2^63 or more ----
printf 'system,interval_start,interval_seconds,machine,cpu,B0,B1\nS,2025-01-01T00:00:00Z,60,3931,0,9223372036854775808,1\n' >"$tmp/big.csv"
"$MFSTAT" db import "$tmp/big.db" "$tmp/big.csv" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q "big.csv:2.*B0.*2^63" "$tmp/err" && ok || { bad "2^63: exit $rc"; cat "$tmp/err"; }

# ---- db info ----
"$MFSTAT" db info "$tmp/over.db" >"$tmp/info" 2>&1 || bad "info: exit $?"
grep -q "^schema: 2$" "$tmp/info" && grep -q "^  SYSA: 0 LPARs, 2 pools, 2 CPUs, 24 samples, 2025-03-04T00:00:00Z to 2025-03-04T07:15:00Z, interval 900 s, 18 gaps$" "$tmp/info" && ok ||
	{ bad "info"; cat "$tmp/info"; }
# a gap: the second interval taken out
cp "$tmp/over.db" "$tmp/gap.db"
q "$tmp/gap.db" "DELETE FROM sample WHERE key_start_s = (SELECT MIN(key_start_s) + MIN(key_len_s) FROM sample)"
"$MFSTAT" db info "$tmp/gap.db" | grep -q "^  SYSA: .* 19 gaps$" && ok || { bad "info: the gap not counted"; "$MFSTAT" db info "$tmp/gap.db"; }

echo "$n checks, fail=$fail"
exit $fail
