#!/bin/bash
# -f html: wide tables scroll inside the page instead of being cut (issue 30): every table sits in
# a <div class="wide"> whose CSS scrolls sideways, and so do the charts and the input summary.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$MFSTAT" report -q -f html --by system,pool,day --html-intervals all -o "$tmp/p.html" ../data/week-2sys.csv.gz
echo "exit $?"
echo "tables $(grep -o '<table' "$tmp/p.html" | wc -l), in a wide div $(grep -o '<div class="wide"><table' "$tmp/p.html" | wc -l)"
grep -oE '\.wide\{[^}]*\}|figure,pre\{[^}]*\}' "$tmp/p.html"
