#!/bin/bash
# A dump without type 70.1 or 99.14 records: the report is as before the LPAR view (no
# RMF_LPARCPU or LPARCPU_DIFF columns, no LPAR view line in the summary) and no warning; the
# new --by keys give empty groups (polarity, weight, drawer and chip unknown).
GENSMF=${GENSMF:-$(dirname "$MFSTAT")/gensmf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GENSMF" -q --systems 2 --cpus 2 --ziip 1 --intervals 2 -o "$tmp/d.smf" || exit 9
cd "$tmp" && "$MFSTAT" report --by system,pool d.smf
echo "exit $?"
"$MFSTAT" report -f csv --by system,polarity,lpar_weight,drawer,chip --metrics LPARCPU d.smf
echo "exit $?"
