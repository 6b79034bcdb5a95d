#!/bin/bash
# --summary: per file the records by type and subtype, then per system its CPUs by pool, first and
# last interval, interval length; subtype 2 records by their write times; 70.1 as RMF intervals;
# and a line of where it ran: machine type and family (the knowledge base's machine map), its
# LPAR (type 70 subtype 1, else said missing) and the UTC offset of the records' local time
# (local-minus5.smf: -05:00).
GENSMF=${GENSMF:-$(dirname "$MFSTAT")/gensmf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GENSMF" -q --systems 2 --cpus 3 --ziip 1 --intervals 4 --rmf --topology -o "$tmp/d.smf" || exit 9
"$MFSTAT" smf list --summary ../data/small-s1.smf ../data/small-s2.vbs ../data/small-both.smf ../data/local-minus5.smf
cd "$tmp" && "$MFSTAT" smf list --summary d.smf
"$MFSTAT" smf list --summary -f csv d.smf 2>&1
echo "exit $?"
