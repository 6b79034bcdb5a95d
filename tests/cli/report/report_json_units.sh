#!/bin/bash
# -f json carries each metric's unit once (issue 30): a top-level "units" object maps every metric
# key of the groups to its unit from the knowledge base (null without one, such as LSPR), as the
# text header's unit line has them; the rows' "metrics" stay bare numbers.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$MFSTAT" report -f json ../data/z16-two-pools.csv >"$tmp/r.json"
echo "exit $?"
grep -o '"units":{[^}]*}' "$tmp/r.json" | tr ',' '\n'
echo "units objects: $(grep -o '"units"' "$tmp/r.json" | wc -l), unit keys in rows: $(grep '^{"system"' "$tmp/r.json" | grep -c unit)"
# Every metric key of a group has a unit entry.
grep -o '"metrics":{[^}]*}' "$tmp/r.json" | head -1 | grep -oE '"[A-Z0-9_]+":' | sort >"$tmp/m"
grep -o '"units":{[^}]*}' "$tmp/r.json" | grep -oE '"[A-Z0-9_]+":' | sort >"$tmp/u"
cmp -s "$tmp/m" "$tmp/u" && echo "every metric key has a unit entry"
# With --metrics, the columns asked for; a z10 page has z10's units.
"$MFSTAT" report -f json --metrics CPI,LPARCPU,LSPR ../data/z16-two-pools.csv | grep -o '"units":{[^}]*}'
"$MFSTAT" report -f json ../data/z10.csv | grep -o '"units":{[^}]*}' | cut -c1-120
# The text header's units, for comparison.
"$MFSTAT" report --metrics CPI,L1MP,RNI,LPARCPU ../data/z16-two-pools.csv | sed -n '3,4p'
