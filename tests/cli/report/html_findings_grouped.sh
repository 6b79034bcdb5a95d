#!/bin/bash
# -f html findings (issue 30): the same finding about many series is one line with their count
# and first names, not one line each: 20 systems with a GCP and a zIIP pool give one line for the
# 20 zIIP pools without an LSPR class and one for the 20 GCP pools of one class; a finding about
# a single series keeps its numbers.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
GENCSV=${GENCSV:-$(dirname "$MFSTAT")/gencsv}
"$GENCSV" --systems 20 --lpars 1 --cpus 2 --ziip 1 --interval-seconds 3600 --intervals 4 >"$tmp/20.csv" || exit 9
"$GENCSV" --systems 1 --lpars 1 --cpus 2 --ziip 1 --interval-seconds 3600 --intervals 4 >"$tmp/1.csv" || exit 9
for f in 20 1; do
	"$MFSTAT" report -q -f html --by system,pool -o "$tmp/p.html" "$tmp/$f.csv"
	echo "systems $f: exit $?, $(sed -n '/<ul class="findings">/,/<\/ul>/p' "$tmp/p.html" | grep -c '<li') findings"
	sed -n '/<ul class="findings">/,/<\/ul>/p' "$tmp/p.html" | sed -n 's/.*<li[^>]*>\(.*\)<\/li>.*/\1/p' |
		sed 's/<[^>]*>//g' | grep -v '^The highest RNI'
done
