#!/bin/bash
# Input that is not counters says what it is: report output (CSV, JSON, HTML) and diff output fed
# back in, a CSV separated by ';'; --by lpar on SMF dumps without type 70 records warns.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$MFSTAT" report -o "$tmp/r.csv" ../data/small-s1.smf
"$MFSTAT" report -o "$tmp/r.json" ../data/small-s1.smf
"$MFSTAT" report -o "$tmp/r.html" ../data/small-s1.smf
"$MFSTAT" diff -f csv -o "$tmp/d.csv" ../data/small-s1.smf ../data/small-s1.smf
cd "$tmp" || exit 9
for f in r.csv r.json r.html d.csv; do
	"$MFSTAT" report "$f" 2>&1
	echo "$f: exit $?"
done
printf 'system;interval_start;interval_seconds;cpsp;B0;B1\nSYSA;2025-01-01T00:00:00Z;900;5200;5;6\n' >semi.csv
"$MFSTAT" report semi.csv 2>&1
echo "semi.csv: exit $?"
cd - >/dev/null || exit 9
"$MFSTAT" report -q --by lpar ../data/small-s1.smf >/dev/null
echo "-q: exit $?"
"$MFSTAT" report --by lpar ../data/small-s1.smf 2>&1 >/dev/null
echo "--by lpar: exit $?"
