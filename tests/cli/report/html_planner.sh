#!/bin/bash
# -f html for a planner: with --by system,pool (no time key) every series is still drawn over its
# intervals (lines, not single dots); a summary table of every series side by side opens the page;
# axes give the year and the zone (--tz); LPARCPU has a line at the engine count; the interval
# tables keep the busiest intervals (by LPARCPU, in time order) and say so; a glossary closes it.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$MFSTAT" report -q -f html --by system,pool --tz +02:00 -o "$tmp/p.html" ../data/week-2sys.csv.gz
echo "exit $?"
p=$tmp/p.html
grep -oE '<(h1|h2|section|svg|table|figure|dl|dt)[ >]' "$p" | sort | uniq -c
echo "summary:"
sed -n '/<table class="summary">/,/<\/table>/p' "$p" | sed 's/<br>/ /g; s/<\/t[dh]><t[dh][^>]*>/ | /g; s/<[^>]*>//g'
echo "polylines $(grep -c '<polyline' "$p"), lone points $(grep -c '<circle' "$p")"
grep -oE '<p class="period">[^<]*' "$p" | sed 's/<[^>]*>//g'
grep -o '[0-9, -]*times in [^<]*' "$p" | sort | uniq -c
grep -oE '>[0-9]+ engines?</text>' "$p" | sed 's/<[^>]*>//g; s/>//' | sort | uniq -c
grep -oE '>20[0-9]{2}-[0-9]{2}-[0-9]{2}</text>' "$p" | sed 's/<[^>]*>//g; s/>//' | sort -u | head -3
grep -o 'The table shows [^<]*' "$p" | sort | uniq -c
echo "peak rows: $(grep -c '(peak)</td>' "$p")"
# The first table's interval rows are in time order.
sed -n '/<section>/,/<\/section>/p' "$p" | grep -oE '<tr><td class="id">2025-[^<]*' | sed 's/.*>//' | head -10 |
	sort -c && echo "first table in time order"
grep -oE '<dt>[^<]*</dt><dd>[^<]{0,60}' "$p" | sed 's/<[^>]*>/ /g; s/  */ /g' | head -4
grep -c '<script' "$p"
