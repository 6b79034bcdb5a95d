#!/bin/sh
# SPDX-License-Identifier: MIT
# The roll-up reader fed bad data (docs/db.md, "Which level answers"): a database made by a normal
# `mfstat db import` (which rolls up), then altered with the sqlite3 shell, read with
# `report --db --level day` and `--level month`.  A roll-up row without its rollup_<family> row,
# a negative counter sum, an unknown pool, a row summing no (or -3) samples, a negative count of CPUs, an unknown machine type, a
# family without a table, a table of a family or a column that the knowledge base does not know:
# each is exit 1 with an error naming the database file and the row (level, id, bucket, system,
# LPAR, pool) or the table and column; never a crash, never a report.  The untouched database
# reads, its period line saying "from the day roll-ups".
# Usage: db_rollup_bad.sh MFSTAT GENSMF
set -u
MFSTAT=$1
GENSMF=$2
command -v sqlite3 >/dev/null 2>&1 || { echo "SKIP: no sqlite3 shell"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mfstat-db-bad.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# Nine days of hourly intervals of one system (two CPs, a zIIP), over a month end.
"$GENSMF" -q --systems 1 --cpus 2 --ziip 1 --intervals 200 --interval-seconds 3600 \
  --start 2025-02-25T00:00:00Z -o "$tmp/d.smf" || { echo "FAIL: gensmf"; exit 1; }
"$MFSTAT" db import -q "$tmp/base.db" "$tmp/d.smf" >/dev/null || { echo "FAIL: db import exit $?"; exit 1; }
for level in day month; do
  "$MFSTAT" report -q --db "$tmp/base.db" --level $level --by system,pool >"$tmp/out" 2>"$tmp/err" ||
    bad "$level: the untouched database: exit $?: $(cat "$tmp/err")"
  grep -q "^period .*, from the $level roll-ups\$" "$tmp/out" || bad "$level: no period line 'from the $level roll-ups': $(head -1 "$tmp/out")"
done

# case NAME LEVEL SQL WANT: SQL run on a copy of the database (with :ID: the first row of LEVEL),
# then report --db --level LEVEL: exit 1, no report, and an error holding the database's name and
# WANT (with :ROW: the row as the reader names it).
case_() {
  name=$1 level=$2 sql=$3 want=$4
  db=$tmp/$name-$level.db
  cp "$tmp/base.db" "$db"
  id=$(sqlite3 "$db" "SELECT min(id) FROM rollup WHERE level = '$level'")
  row=$(sqlite3 "$db" "SELECT 'the $level roll-up ' || id || ' (bucket ' || bucket || ', system ' || system ||
    ', LPAR ' || coalesce(nullif(lpar, ''), '(none)') || ', pool ' || pool || ')' FROM rollup WHERE id = $id")
  sqlite3 -bail "$db" "$(printf '%s' "$sql" | sed "s/:ID:/$id/g")" || { bad "$name $level: the SQL failed"; return; }
  want=$(printf '%s' "$want" | sed "s/:ROW:/$row/")
  "$MFSTAT" report -q --db "$db" --level "$level" --by system,pool >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc = 1 ] || bad "$name $level: exit $rc, want 1: $(cat "$tmp/err")"
  [ ! -s "$tmp/out" ] || bad "$name $level: a report was written: $(head -3 "$tmp/out")"
  grep -qF "$db" "$tmp/err" || bad "$name $level: the error does not name $db: $(cat "$tmp/err")"
  grep -qF "$want" "$tmp/err" || bad "$name $level: the error does not say '$want': $(cat "$tmp/err")"
  n=$((n + 1))
}
n=0
for level in day month; do
  case_ no-counters $level "DELETE FROM rollup_z16 WHERE id = :ID:" ":ROW:: no row in rollup_z16"
  case_ negative $level "UPDATE rollup_z16 SET B1 = -5 WHERE id = :ID:" ":ROW:: the sum of B1 is negative (-5)"
  case_ pool $level "UPDATE rollup SET pool = 'XYZ' WHERE id = :ID:" "pool XYZ): unknown pool 'XYZ'"
  case_ no-samples $level "UPDATE rollup SET samples = 0 WHERE id = :ID:" ":ROW:: it sums no samples"
  case_ minus-samples $level "UPDATE rollup SET samples = -3 WHERE id = :ID:" ":ROW:: it sums no samples (samples -3)"
  case_ cpus $level "UPDATE rollup SET cpus = -1 WHERE id = :ID:" ":ROW:: its count of CPUs is out of range (-1)"
  case_ machine $level "UPDATE rollup SET machine = 9999 WHERE id = :ID:" \
    ":ROW:: machine type 9999 is not in this knowledge base"
  case_ family $level "UPDATE rollup SET family = 'z99' WHERE id = :ID:" ":ROW:: its family 'z99' has no table rollup_z99"
  case_ family-table $level "CREATE TABLE rollup_z99 (id INTEGER PRIMARY KEY, B0 INTEGER)" \
    "the table rollup_z99 holds the counters of a family 'z99' that this knowledge base does not know"
  case_ column $level "ALTER TABLE rollup_z16 ADD COLUMN NOPE INTEGER" \
    "the column NOPE of the table rollup_z16 is not a counter of the family"
done
[ $fail = 0 ] && echo "$n altered databases: each refused with exit 1, naming the file and the row or table"
exit $fail
