#!/bin/bash
# -f html: the page's <title> and <h1> name the systems and the period (issue 30): all systems up
# to four, else three "and N more"; the period's end without its date when on the same day; the
# zone as --tz gives it with its offsets (both when summer time starts inside the period), the
# records' own offsets for SMF; a count of systems when --by leaves them out; names escaped.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
GENCSV=${GENCSV:-$(dirname "$MFSTAT")/gencsv}
"$GENCSV" --systems 20 --lpars 1 --cpus 2 --ziip 1 --interval-seconds 3600 --intervals 4 >"$tmp/20.csv" || exit 9
"$GENCSV" --systems 2 --lpars 1 --cpus 2 --ziip 1 --interval-seconds 3600 --intervals 60 \
	--start 2025-03-29T00:00:00Z >"$tmp/dst.csv" || exit 9
page() {
	"$MFSTAT" report -q -f html -o "$tmp/p.html" "$@"
	echo "exit $?: $(grep -o '<title>.*</title>' "$tmp/p.html")"
	grep -o '<h1>.*</h1>' "$tmp/p.html"
}
page ../data/z16-two-pools.csv
page --tz +02:00 ../data/z16-two-pools.csv
page --by pool ../data/z16-two-pools.csv
page --by system,pool "$tmp/20.csv"
page --tz Europe/Berlin "$tmp/dst.csv"
page --tz smf ../data/local-minus5.smf
page ../data/hostile.csv
# perf stat without -I: no interval, no system: the title says no more than it knows.
page ../data/perf/z17-nnpa.txt
