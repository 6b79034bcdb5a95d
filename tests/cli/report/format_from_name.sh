#!/bin/bash
# -o FILE without -f: the format its name ends in (.html .htm .csv .json .txt); -f against the name: a warning.
data=$(cd ../data && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 9
for f in r.html r.HTM r.csv r.json r.txt r.out; do
	"$MFSTAT" report --by system -o "$f" "$data/small-s1.smf"
	echo "$f: exit $? $(head -c 15 "$f" | tr '\n' ' ')"
done
"$MFSTAT" report --by system -f csv -o x.json "$data/small-s1.smf" 2>&1
echo "x.json with -f csv: exit $? $(head -c 15 x.json)"
"$MFSTAT" diff -o d.json "$data/small-s1.smf" "$data/small-s1.smf"
echo "diff d.json: exit $? $(head -c 11 d.json)"
