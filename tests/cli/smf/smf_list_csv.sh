#!/bin/bash
# -f csv: one row per record, 113, 70.1 and 99.14 alike.
GENSMF=${GENSMF:-$(dirname "$MFSTAT")/gensmf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GENSMF" -q --systems 1 --cpus 2 --ziip 1 --intervals 2 --rmf --topology -o "$tmp/d.smf" || exit 9
cd "$tmp" && "$MFSTAT" smf list -f csv d.smf
cd - >/dev/null && "$MFSTAT" smf list -f csv ../data/small-s2.vbs
