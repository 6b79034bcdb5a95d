#!/bin/bash
# --by lpar,lpar_weight,drawer,chip on 6 CPUs (4 GCPs, 2 zIIPs) of 2 systems: GCP weight
# 100 x (i+1) + 200 (SYSA 300, SYSB 400), zIIP weight 100; from 99.14 chip = CPU address / 4,
# drawer = address / 8 (all in drawer 0; CPUs 0-3 on chip 0, 4-5 on chip 1). So the groups are:
# LPSYSA 300 0 0 (4 GCPs), LPSYSA 100 0 1 (2 zIIPs), LPSYSB 400 0 0, LPSYSB 100 0 1.
GENSMF=${GENSMF:-$(dirname "$MFSTAT")/gensmf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GENSMF" -q --systems 2 --cpus 6 --ziip 2 --intervals 4 --rmf --topology -o "$tmp/d.smf" || exit 9
cd "$tmp" && "$MFSTAT" report -f csv --by lpar,lpar_weight,drawer,chip --metrics LPARCPU,RMF_LPARCPU d.smf
echo "exit $?"
# And per CPU, with the polarity: CPUs 0-1 VH, 2 VM, 3 VL (GCPs); 4 VM, 5 VL (zIIPs).
"$MFSTAT" report -f csv --by system,cpu,polarity,lpar_weight,drawer,chip --metrics LPARCPU d.smf | grep -E '^(system|SYSA)'
