#!/bin/bash
# --metrics computes only what the columns and the notes read (issue 26): the notes about
# metrics not shown stay.  REMOTE_L1M (nonneg, a subtraction) below zero, LPARCPU above its
# CPUs, and busy from the counters against RMF's (LPARCPU_DIFF), each with CPI alone shown.
GENSMF=${GENSMF:-$(dirname "$MFSTAT")/gensmf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$MFSTAT" report -f csv --metrics CPI ../data/zec12-negative.csv
echo "exit $?"
sed 's/T10:00:00Z/T10:00:30Z/; s/T10:01:00Z/T10:01:30Z/' ../data/z16-two-pools.csv >"$tmp/shifted.csv"
"$MFSTAT" report -f csv --by system,pool --metrics CPI ../data/z16-two-pools.csv "$tmp/shifted.csv"
echo "exit $?"
"$GENSMF" -q --systems 2 --cpus 4 --ziip 1 --intervals 8 --rmf --rmf-busy-factor 1.2 -o "$tmp/d.smf" || exit 9
cd "$tmp" && "$MFSTAT" report -f csv --by system,pool --metrics CPI d.smf
echo "exit $?"
