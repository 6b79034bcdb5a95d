#!/bin/bash
# --lpar-change-at 2: SYSA runs in LPSYSA for RMF intervals 0 and 1, in LPMOVED from interval 2
# (2025-03-04T00:30:00Z) on. The samples split into the two LPARs (2 and 6 intervals) and one
# warning names the interval start and both names. SYSB stays in LPSYSB.
GENSMF=${GENSMF:-$(dirname "$MFSTAT")/gensmf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GENSMF" -q --systems 2 --cpus 2 --ziip 0 --intervals 8 --rmf --lpar-change-at 2 -o "$tmp/d.smf" || exit 9
cd "$tmp" && "$MFSTAT" report -f csv --by system,lpar --metrics LPARCPU,RMF_LPARCPU d.smf
echo "exit $?"
"$MFSTAT" report -q -f csv --by system,lpar,interval --metrics LPARCPU d.smf | grep ^SYSA | cut -d, -f1,2,5
