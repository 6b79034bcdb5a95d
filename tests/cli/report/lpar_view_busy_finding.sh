#!/bin/bash
# --rmf-busy-factor 1.2: RMF's dispatch time is 1.2 x the busy time of the counters, so
# RMF_LPARCPU = 1.2 x LPARCPU and LPARCPU_DIFF = -0.2 x LPARCPU: beyond 5 points in every
# group whose LPARCPU is above 25 %: the busy finding names how many and the worst group.
GENSMF=${GENSMF:-$(dirname "$MFSTAT")/gensmf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GENSMF" -q --systems 2 --cpus 4 --ziip 1 --intervals 8 --rmf --rmf-busy-factor 1.2 -o "$tmp/d.smf" || exit 9
cd "$tmp" && "$MFSTAT" report -f csv --by system,pool --metrics LPARCPU,RMF_LPARCPU,LPARCPU_DIFF d.smf
echo "exit $?"
