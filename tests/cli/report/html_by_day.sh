#!/bin/bash
# -f html with a calendar key in --by (issue 30): --by system,pool,day gives a table with one row
# per series and day, the days labelled as the text report labels them, in the --tz zone (the
# last days of March 2025 in Berlin, summer time starting on the 30th), the metrics those of the
# text report; the charts still draw each series over its intervals.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
GENCSV=${GENCSV:-$(dirname "$MFSTAT")/gencsv}
"$GENCSV" --systems 2 --lpars 1 --cpus 2 --ziip 1 --interval-seconds 3600 --intervals 60 \
	--start 2025-03-29T00:00:00Z >"$tmp/d.csv" || exit 9
"$MFSTAT" report -q -f html --by system,pool,day --tz Europe/Berlin -o "$tmp/p.html" "$tmp/d.csv"
echo "exit $?"
grep -oE '<h2>[^<]*</h2>' "$tmp/p.html" | sed 's/<[^>]*>//g'
grep -o '<table class="calendar">.*' "$tmp/p.html" | sed 's/<\/t[dh]><t[dh][^>]*>/ | /g; s/<[^>]*>//g' | cut -d'|' -f1-6
sed -n '/<table class="calendar">/,/<\/table>/p' "$tmp/p.html" | grep -c '^<tr><td'
sed -n '/<table class="calendar">/,/<\/table>/p' "$tmp/p.html" | grep '^<tr><td' |
	sed 's/<\/t[dh]><t[dh][^>]*>/ | /g; s/<[^>]*>//g' | cut -d'|' -f1-6
echo "text report:"
"$MFSTAT" report -q --by system,pool,day --tz Europe/Berlin "$tmp/d.csv" | sed -n '3,17p' | cut -c1-80
echo "charts $(grep -c '<figure>' "$tmp/p.html")"
# An hour-of-day key gets its own table too.
"$MFSTAT" report -q -f html --by system,hour-of-day -o "$tmp/h.html" "$tmp/d.csv"
echo "hour-of-day: exit $?, $(grep -oE '<h2>By [^<]*</h2>' "$tmp/h.html" | sed 's/<[^>]*>//g'), rows $(sed -n '/<table class="calendar">/,/<\/table>/p' "$tmp/h.html" | grep -c '^<tr><td')"
