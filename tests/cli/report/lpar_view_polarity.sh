#!/bin/bash
# The LPAR view (SMF 70.1 and 99.14 joined to the 113 samples): 2 systems of 4 CPUs (3 GCPs,
# 1 zIIP), 8 intervals of 900 s, RMF intervals the same, one extra LPAR (LPX1) that writes no
# records. By the gensmf model (tools/README.md) GCP 0 is VH, 1 VM, 2 VL and the zIIP (CPU 3)
# VM; each system runs in LP+SID. RMF_LPARCPU equals LPARCPU (busy factor 1, aligned
# intervals): LPARCPU_DIFF 0.0 everywhere, and no warning. gensmf is beside mfstat in the build.
GENSMF=${GENSMF:-$(dirname "$MFSTAT")/gensmf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GENSMF" -q --systems 2 --cpus 4 --ziip 1 --intervals 8 --rmf --topology --lpars 1 -o "$tmp/d.smf" || exit 9
cd "$tmp" && "$MFSTAT" report --by system,lpar,pool,polarity d.smf
echo "exit $?"
"$MFSTAT" report -f csv --by system,lpar,pool,polarity --metrics LPARCPU,RMF_LPARCPU,LPARCPU_DIFF d.smf
