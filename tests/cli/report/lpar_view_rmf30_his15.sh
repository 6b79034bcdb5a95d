#!/bin/bash
# HIS intervals of 900 s, RMF intervals of 1800 s: each 113 sample gets half the RMF dispatch
# time of its CPU (the overlap), so per system and pool RMF_LPARCPU still equals LPARCPU; one
# warning per system names both lengths (900 s and 1800 s), with the sample count (8 intervals
# x 4 CPUs = 32) and the first sample.
GENSMF=${GENSMF:-$(dirname "$MFSTAT")/gensmf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GENSMF" -q --systems 2 --cpus 4 --ziip 1 --intervals 8 --rmf --rmf-interval-seconds 1800 -o "$tmp/d.smf" || exit 9
cd "$tmp" && "$MFSTAT" report -f csv --by system,pool --metrics LPARCPU,RMF_LPARCPU,LPARCPU_DIFF d.smf
echo "exit $?"
