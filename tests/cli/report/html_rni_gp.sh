#!/bin/bash
# -f html: the "highest RNI" finding names the general-purpose (GCP) pool with the highest RNI,
# the planner's question (LSPR classes are for GCPs); when a pool the class leaves out (here a
# zIIP) is higher, a second clause names it; without any GCP pool (only zIIPs selected, or no pool
# key) it names the highest of all.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
GENCSV=${GENCSV:-$(dirname "$MFSTAT")/gencsv}
"$GENCSV" --systems 20 --lpars 1 --cpus 2 --ziip 1 --interval-seconds 3600 --intervals 4 >"$tmp/20.csv" || exit 9
rni() {
	"$MFSTAT" report -q -f html -o "$tmp/p.html" "$@" "$tmp/20.csv"
	echo "$*: exit $?"
	sed -n 's/.*<li>\(The highest RNI.*\)<\/li>.*/\1/p' "$tmp/p.html" | sed 's/<[^>]*>//g'
}
rni --by system,pool
rni --by system,pool --pool ZIIP
rni --by system
