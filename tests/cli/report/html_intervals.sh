#!/bin/bash
# --html-intervals none|peaks|all: how many interval rows the page's tables hold (a week of two-hour
# intervals, 84 per series, 4 series), the notes that say so, and a bad value (exit 2).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for w in "" none peaks all; do
	"$MFSTAT" report -q -f html --by system,pool ${w:+--html-intervals $w} -o "$tmp/p.html" ../data/week-2sys.csv.gz
	echo "${w:-default}: exit $?, interval rows $(grep -cE '<tr( class="short")?><td class="id">2025-' "$tmp/p.html"), charts $(grep -c '<figure>' "$tmp/p.html")"
	grep -oE '<p class="note">[0-9]+ intervals not listed[^<]*|The table shows [^<]*' "$tmp/p.html" | sort | uniq -c
done
# By interval the page is the same as by series: the rows come from the same intervals.
"$MFSTAT" report -q -f html --by system,pool,interval --html-intervals all -o "$tmp/q.html" ../data/week-2sys.csv.gz
echo "by interval: exit $?, interval rows $(grep -cE '<tr( class="short")?><td class="id">2025-' "$tmp/q.html")"
"$MFSTAT" report -f html --html-intervals some ../data/week-2sys.csv.gz
echo "exit $?"
# Other formats ignore it.
"$MFSTAT" report -f csv --html-intervals none ../data/z16-two-pools.csv | wc -l
