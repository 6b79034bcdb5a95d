#!/bin/bash
# smf list of a dump with SMF 70.1 (RMF CPU activity) and 99.14 (topology) records (gensmf
# --rmf --topology --lpars 2): the 99.14 records first (one per system, at --start, 2 CPUs
# each), then per interval the 113 records and the 70.1 records of that RMF interval, one per
# system, with its own LPAR (LPSYSA number 1, LPSYSB 2), the machine serial, its CPUs, the 4
# LPARs of the machine (LPSYSA, LPSYSB, LPX1, LPX2) and their 2 + 2 + 3 + 2 = 9 logical
# processors.
GENSMF=${GENSMF:-$(dirname "$MFSTAT")/gensmf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GENSMF" -q --systems 2 --cpus 2 --ziip 1 --intervals 2 --rmf --topology --lpars 2 --other-ratio 0 -o "$tmp/d.smf" || exit 9
cd "$tmp" && "$MFSTAT" smf list d.smf
echo "exit $?"
