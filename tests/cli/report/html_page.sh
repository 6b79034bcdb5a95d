#!/bin/bash
# -f html: the structure of the page (headings, sections, charts, tables, findings) for a small
# z16 file with two systems and two pools; the page names no URL and has no script.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$MFSTAT" report -f html -o "$tmp/p.html" ../data/z16-two-pools.csv
echo "exit $?"
grep -oE '<(h1|h2|section|svg|table|figure|li|details)[ >]' "$tmp/p.html" | sort | uniq -c
sed -n 's/.*<li[^>]*>\(.*\)<\/li>.*/\1/p' "$tmp/p.html" | sed 's/<[^>]*>//g'
grep -c '<script' "$tmp/p.html"
grep -oE 'https?://[^" ]*' "$tmp/p.html" | sort -u
