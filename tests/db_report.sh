#!/bin/sh
# SPDX-License-Identifier: MIT
# mfstat report --db (issue 27, item 4) over databases written by hand from docs/db.md, not by
# mfstat's importer, so that a mistake the importer and the reader would share shows:
#  1. tests/data/db/two-families.sql holds the samples of tests/data/db/z16.csv (two systems,
#     pools, CPUs and intervals; E270 absent in one row: NULL) and tests/data/db/z10.csv (a
#     second family, with polarity, weight, RMF busy and a local offset).  report --db must
#     give report's output over the two CSV files byte for byte, standard error and exit status
#     too, at several --by, selections (pushed into SQL or not), --tz, -f text, csv, json and
#     html; only the footer lines that count or name the inputs differ.
#  2. An SMF dump (gensmf --rmf --topology): its type 70.1 and 99.14 records stored in
#     smf_record as they are in the dump (offsets from `mfstat smf list`), its samples from
#     gensmf's --csv (turned into INSERTs by awk below): the LPAR table of report -f text is the
#     dump's.
#  3. Errors: a missing file, a newer schema, no samples, not SQLite, --db with input files.
# export --db is checked against export over the same CSV files, byte for byte.
# Usage: db_report.sh MFSTAT GENSMF SRCDIR
set -u
MFSTAT=$1
GENSMF=$2
SRC=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
export TZ=UTC LC_ALL=C
command -v sqlite3 >/dev/null || { echo "no sqlite3 shell"; exit 77; }

db=$tmp/two.db
sqlite3 "$db" <"$SRC/data/db/schema-1.sql" || exit 9
sqlite3 "$db" <"$SRC/tests/data/db/two-families.sql" || exit 9

# footer lines that count or name the inputs: "N rows read from 2 files" (text), the inputs of
# json, "N rows from 2 files" (html)
strip() {
	grep -v -e '^[0-9][0-9]* rows read from [0-9]* files*,' -e '^{"file":' -e '^<p>[0-9][0-9]* rows from ' "$1"
}

same() {
	cd "$SRC" || exit 9
	"$MFSTAT" report "$@" tests/data/db/z16.csv tests/data/db/z10.csv >"$tmp/a" 2>"$tmp/ae"
	ra=$?
	"$MFSTAT" report "$@" --db "$db" >"$tmp/b" 2>"$tmp/be"
	rb=$?
	cd - >/dev/null || exit 9
	strip "$tmp/a" >"$tmp/as"
	strip "$tmp/b" >"$tmp/bs"
	if [ "$ra" != "$rb" ] || ! cmp -s "$tmp/as" "$tmp/bs" || ! cmp -s "$tmp/ae" "$tmp/be"; then
		echo "FAIL: report $* : exit $ra over the CSV, $rb over --db"
		diff "$tmp/as" "$tmp/bs" | head -20
		diff "$tmp/ae" "$tmp/be" | head -10
		fail=1
	elif [ "$(wc -l <"$tmp/a")" -lt 2 ] && [ "$ra" = 0 ]; then
		echo "FAIL: report $* : too short to compare"
		fail=1
	else
		echo "ok: report $* (exit $ra, $(wc -l <"$tmp/a") lines)"
	fi
}

for f in text csv json; do
	same -f "$f"
	same -f "$f" --by system
	same -f "$f" --by system,pool
	same -f "$f" --by system,hour
	same -f "$f" --by lpar
	same -f "$f" --by cpu
	same -f "$f" --from 2025-03-04T10:01:00Z --to 2025-03-05
	same -f "$f" --system sysb,OLD10
	same -f "$f" --system SYSA --from 2025-01-01 --pool ziip
	same -f "$f" --hours 10-11 --weekdays Tue
	same -f "$f" --tz Europe/Berlin --by system,day
	same -f "$f" --tz smf --by system,month
	same -f "$f" --tz smf --from 2025-01-10 --to 2025-03-04
	same -f "$f" --sort CPI --top 1 --by system,pool
	same -f "$f" --metrics CPI,RNI,LSPR,RMF_LPARCPU --by system,lpar,pool,polarity,lpar_weight
done
same -f html --by system,pool
same --system NONE
same --from 2030-01-01
same -v --by system

# export --db: the CSV of export over the inputs, byte for byte (no footer), and its messages
xsame() {
	cd "$SRC" || exit 9
	"$MFSTAT" export "$@" tests/data/db/z16.csv tests/data/db/z10.csv >"$tmp/a" 2>"$tmp/ae"
	ra=$?
	"$MFSTAT" export "$@" --db "$db" >"$tmp/b" 2>"$tmp/be"
	rb=$?
	cd - >/dev/null || exit 9
	if [ "$ra" != "$rb" ] || ! cmp -s "$tmp/a" "$tmp/b" || ! cmp -s "$tmp/ae" "$tmp/be"; then
		echo "FAIL: export $* : exit $ra over the CSV, $rb over --db"
		diff "$tmp/a" "$tmp/b" | head -20
		diff "$tmp/ae" "$tmp/be" | head -10
		fail=1
	else
		echo "ok: export $* (exit $ra, $(wc -l <"$tmp/a") lines)"
	fi
}
xsame
xsame --by system,day --tz smf
xsame --by system,pool,interval --system SYSA --from 2025-03-04T10:01:00Z

# diff --db: two periods of the database, as diff compares them in the inputs (the footer aside)
dsame() {
	cd "$SRC" || exit 9
	"$MFSTAT" diff "$@" tests/data/db/z16.csv,tests/data/db/z10.csv >"$tmp/a" 2>"$tmp/ae"
	ra=$?
	"$MFSTAT" diff "$@" --db "$db" >"$tmp/b" 2>"$tmp/be"
	rb=$?
	cd - >/dev/null || exit 9
	grep -v -e '^before: [0-9]* rows read from ' -e '^after: [0-9]* rows read from ' "$tmp/a" >"$tmp/as"
	grep -v -e '^before: [0-9]* rows read from ' -e '^after: [0-9]* rows read from ' "$tmp/b" >"$tmp/bs"
	if [ "$ra" != "$rb" ] || ! cmp -s "$tmp/as" "$tmp/bs" || ! cmp -s "$tmp/ae" "$tmp/be"; then
		echo "FAIL: diff $* : exit $ra over the CSV, $rb over --db"
		diff "$tmp/as" "$tmp/bs" | head -20
		diff "$tmp/ae" "$tmp/be" | head -10
		fail=1
	else
		echo "ok: diff $* (exit $ra, $(wc -l <"$tmp/a") lines)"
	fi
}
for f in text csv json; do
	dsame -f $f --by system,pool --before 2025-03-04T10:00:00Z/2025-03-04T10:01:00Z --after 2025-03-04T10:01:00Z/2025-03-04T10:02:00Z
done
dsame --system SYSB --before 2025-01-01/2025-03-04T10:01:00Z --after 2025-03-04T10:01:00Z/2025-03-05

# The selection pushed into SQL still counts what it leaves out: in the json's left_out.
cd "$SRC" || exit 9
"$MFSTAT" report -f json --system SYSA --from 2025-03-04T10:01:00Z --db "$db" | grep -o '"left_out":{[^}]*}'
cd - >/dev/null || exit 9

# ---- 2. SMF: the LPAR view from smf_record ----
"$GENSMF" -q --systems 2 --cpus 3 --ziip 1 --intervals 2 --rmf --topology -o "$tmp/d.smf" --csv "$tmp/d.csv" ||
	exit 9
sdb=$tmp/smf.db
sqlite3 "$sdb" <"$SRC/data/db/schema-1.sql" || exit 9
{
	echo "BEGIN; PRAGMA user_version = 1;"
	echo "INSERT INTO meta (key, value) VALUES ('schema', '1'), ('created', '2026-11-26T18:00:00Z'), ('created_by', 'hand'), ('kb', 'embedded');"
	echo "INSERT INTO file (id, name, size, sha256, format, imported_unix, imported, samples_new, samples_known, skipped) VALUES (1, 'd.smf', $(wc -c <"$tmp/d.smf"), '$(sha256sum <"$tmp/d.smf" | cut -c1-64)', 'smf', 1795716000, '2026-11-26T18:00:00Z', $(($(wc -l <"$tmp/d.csv") - 1)), 0, 0);"
	# the LPAR view's records: offset, system and time from mfstat smf list, the bytes from the dump
	n=0
	"$MFSTAT" smf list "$tmp/d.smf" | awk '$2 == "70.1" || $2 == "99.14" { print $1, $2, $3, $8 }' |
		while read -r off sub sys when; do
			n=$((n + 1))
			o=$(printf '%d' "$off")
			len=$(od -An -tu1 -j "$o" -N2 "$tmp/d.smf" | awk '{ print $1 * 256 + $2 }')
			tail -c +$((o + 1)) "$tmp/d.smf" | head -c "$len" >"$tmp/r$n"
			echo "INSERT INTO smf_record (type, subtype, system, time_us, sha256, file, \"offset\", record) VALUES (${sub%.*}, ${sub#*.}, '$sys', CAST(strftime('%s', '$when') AS INTEGER) * 1000000, '$(sha256sum <"$tmp/r$n" | cut -c1-64)', 1, $o, readfile('$tmp/r$n'));"
		done
	# the samples: gensmf's expected CSV, one INSERT a row (columns by header name)
	awk -F, '
	NR == 1 {
		for (i = 1; i <= NF; i++) {
			col[$i] = i
			if ($i ~ /^[BPCEM][0-9]+$/) { nc++; cn[nc] = $i; ci[nc] = i }
		}
		printf "CREATE TABLE \"counters_z16\" (id INTEGER PRIMARY KEY"
		for (k = 1; k <= nc; k++) printf ", \"%s\" INTEGER", cn[k]
		print ");"
		next
	}
	{
		id = NR - 1
		t = "CAST(strftime(\x27%s\x27, \x27" $col["interval_start"] "\x27) AS INTEGER)"
		printf "INSERT INTO sample (id, system, lpar, key_lpar, pool, cpu, start_us, seconds, key_start_s, key_len_s, anon, family, machine, cpsp_mhz, cpsp_nominal, user_only, utc_offset_s, lpar_joined, file, line) VALUES (%d, \x27%s\x27, \x27\x27, \x27\x27, \x27%s\x27, %d, %s * 1000000, %s, %s, %d, 0, \x27z16\x27, %d, %s, 0, 0, %d, 0, 1, NULL);\n",
			id, $col["system"], $col["pool"], $col["cpu"], t, $col["interval_seconds"], t,
			$col["interval_seconds"] + 0.5, $col["machine"], $col["cpsp"], $col["utc_offset_minutes"] * 60
		printf "INSERT INTO \"counters_z16\" (id"
		for (k = 1; k <= nc; k++) printf ", \"%s\"", cn[k]
		printf ") VALUES (%d", id
		for (k = 1; k <= nc; k++) printf ", %s", ($ci[k] == "" ? "NULL" : $ci[k])
		print ");"
	}' "$tmp/d.csv"
	echo "COMMIT;"
} >"$tmp/smf.sql"
sqlite3 "$sdb" <"$tmp/smf.sql" || exit 9
echo "smf_record rows: $(sqlite3 "$sdb" 'SELECT type || "." || subtype, count(*) FROM smf_record GROUP BY 1' | tr '\n' ' ')"
# the LPAR table: from its heading to the blank line after it
lpars() { sed -n '/^LPARs of the machines/,/^$/p' "$1"; }
"$MFSTAT" report "$tmp/d.smf" >"$tmp/dump.txt" 2>&1
"$MFSTAT" report --db "$sdb" >"$tmp/db.txt" 2>"$tmp/db.err"
echo "report --db over the SMF database: exit $?"
lpars "$tmp/dump.txt" >"$tmp/l1"
lpars "$tmp/db.txt" >"$tmp/l2"
if [ "$(wc -l <"$tmp/l1")" -ge 5 ] && cmp -s "$tmp/l1" "$tmp/l2"; then
	echo "ok: the LPAR table of the database is the dump's ($(wc -l <"$tmp/l1") lines)"
else
	echo "FAIL: LPAR tables differ"
	diff "$tmp/l1" "$tmp/l2"
	cat "$tmp/db.err"
	fail=1
fi
# The counters are the dump's: the metrics but the LPAR-view ones (the CSV samples carry no
# joined LPAR fields) are the same.
m=CPI,L1MP,RNI,LPARCPU,LSPR
"$MFSTAT" report -f csv --by system,pool,interval --metrics $m "$tmp/d.smf" >"$tmp/c1" 2>/dev/null
"$MFSTAT" report -f csv --by system,pool,interval --metrics $m --db "$sdb" >"$tmp/c2" 2>/dev/null
if cmp -s "$tmp/c1" "$tmp/c2"; then
	echo "ok: the metrics of the SMF database are the dump's"
else
	echo "FAIL: the metrics differ"
	diff "$tmp/c1" "$tmp/c2"
	fail=1
fi

# ---- 3. Errors: each names the file, exit status 1 (2 for a usage error) ----
err() {
	want=$1
	shift
	"$MFSTAT" report "$@" >/dev/null 2>"$tmp/e"
	rc=$?
	echo "report $*: exit $rc: $(head -1 "$tmp/e" | sed "s|$tmp/||g")"
	[ "$rc" = "$want" ] || fail=1
}
cd "$tmp" || exit 9
sqlite3 empty.db <"$SRC/data/db/schema-1.sql"
sqlite3 empty.db "PRAGMA user_version = 1; INSERT INTO meta (key, value) VALUES ('schema', '1');"
cp empty.db newer.db
sqlite3 newer.db "PRAGMA user_version = 2"
echo "not a database" >text.db
err 1 --db missing.db
err 1 --db newer.db
err 1 --db empty.db
err 1 --db text.db
err 2 --db two.db d.csv
err 2 --db two.db --input csv
err 2 --db two.db -o two.db
cd - >/dev/null || exit 9

[ "$fail" = 0 ] && echo "PASS" || echo "FAILED"
exit "$fail"
