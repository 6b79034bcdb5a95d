#!/bin/bash
# SPDX-License-Identifier: MIT
# mfstat db prune that removes most of the samples makes the sample and counters tables anew
# with the rows kept (src/lib/db/prune.c, rebuild) instead of deleting row by row.  The result
# must be the database that row-by-row deletion gives: the same rows of every table (samples
# without a start kept), the same indexes (the identity index still refuses a copy), views that
# still run, the same report, and the same database after a later import.
set -u
MFSTAT=$1
GENSMF=$2
DATA=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3 shell"; exit 77; }
fail=0
q() { sqlite3 -batch -noheader "$@"; }

"$GENSMF" -q --systems 2 --cpus 4 --ziip 1 --families z16,z15 --intervals 384 --rmf \
	--start 2025-03-01T00:00:00Z -o "$tmp/a.smf" || { echo "FAIL gensmf"; exit 1; }
"$GENSMF" -q --systems 2 --cpus 4 --ziip 1 --families z16,z15 --intervals 96 --rmf \
	--start 2025-03-05T00:00:00Z -o "$tmp/b.smf" || { echo "FAIL gensmf"; exit 1; }
"$MFSTAT" db import -q "$tmp/x.db" "$tmp/a.smf" "$DATA/generic.csv" >/dev/null || { echo "FAIL import"; exit 1; }
cp "$tmp/x.db" "$tmp/ref.db"

# The prune (3 of the 4 days go: more than half, so the tables are made anew).
"$MFSTAT" db prune -q --keep sample=1d "$tmp/x.db" >/dev/null || { echo "FAIL prune"; exit 1; }
h=$(q "$tmp/x.db" "SELECT before_us FROM prune_log WHERE level = 'sample'")
[[ -n $h ]] || { echo "FAIL: no prune logged"; exit 1; }
# The reference: row by row, as SQL says it.
for t in $(q "$tmp/ref.db" "SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'counters\_%' ESCAPE '\\'"); do
	q "$tmp/ref.db" "DELETE FROM \"$t\" WHERE id IN (SELECT id FROM sample WHERE start_us < $h)"
done
q "$tmp/ref.db" "DELETE FROM sample WHERE start_us < $h; DELETE FROM smf_record WHERE time_us < $h"

rows() { # every row of the samples and counters tables, the indexes, and each view's row count
	local t v
	q "$1" "SELECT * FROM sample ORDER BY id"
	for t in $(q "$1" "SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'counters\_%' ESCAPE '\\' ORDER BY name"); do
		echo "table $t"
		q "$1" "SELECT * FROM \"$t\" ORDER BY id"
	done
	q "$1" "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE type = 'index' ORDER BY name"
	for v in $(q "$1" "SELECT name FROM sqlite_schema WHERE type = 'view' ORDER BY name"); do
		echo "view $v $(q "$1" "SELECT count(*) FROM \"$v\"" 2>&1)"
	done
}
compare() { # compare WHAT
	rows "$tmp/x.db" >"$tmp/x.rows"
	rows "$tmp/ref.db" >"$tmp/ref.rows"
	if cmp -s "$tmp/x.rows" "$tmp/ref.rows"; then
		echo "ok $1 ($(wc -l <"$tmp/x.rows") lines)"
	else
		echo "FAIL $1: the tables differ from row-by-row deletion"
		diff "$tmp/ref.rows" "$tmp/x.rows" | head -n 10
		fail=1
	fi
}
compare "after the prune"
[[ $(q "$tmp/x.db" "PRAGMA integrity_check") == ok ]] || { echo "FAIL: integrity_check"; fail=1; }
[[ $(q "$tmp/x.db" "SELECT count(*) FROM sample WHERE start_us IS NULL") -gt 0 ]] ||
	{ echo "FAIL: the samples without a start were pruned"; fail=1; }
grep -q "^view metrics_z16_hour [0-9]" "$tmp/x.rows" || { echo "FAIL: the views do not run"; fail=1; }

# The same report from both.
"$MFSTAT" report -q --db "$tmp/x.db" --level sample --by system,pool,day -f csv -o "$tmp/x.csv" &&
	"$MFSTAT" report -q --db "$tmp/ref.db" --level sample --by system,pool,day -f csv -o "$tmp/ref.csv" &&
	cmp -s "$tmp/x.csv" "$tmp/ref.csv" && echo "ok the same report" ||
	{ echo "FAIL: report --db differs"; fail=1; }

# A later import: new samples, and a copy of kept ones (its export) that the identity index finds.
"$MFSTAT" export -q --from 2025-03-04T06:00:00Z "$tmp/a.smf" -o "$tmp/kept.csv" || { echo "FAIL export"; fail=1; }
for d in x ref; do
	"$MFSTAT" db import -q "$tmp/$d.db" "$tmp/b.smf" "$tmp/kept.csv" >"$tmp/$d.import" 2>&1 ||
		{ echo "FAIL import into $d"; cat "$tmp/$d.import"; fail=1; }
done
grep -q "kept.csv: 0 new samples" "$tmp/x.import" || { echo "FAIL: the copy was not found held"; cat "$tmp/x.import"; fail=1; }
cmp -s "$tmp/x.import" "$tmp/ref.import" || { echo "FAIL: the imports after the prune differ"; fail=1; }
compare "after a later import"
exit $fail
