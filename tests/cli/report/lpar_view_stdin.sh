#!/bin/bash
# Standard input is read once (no first pass): a 70.1 record joins only the samples read after
# it. gensmf writes each RMF interval's 70.1 records after that interval's 113 records, so from
# `cat dump | report -` no sample joins: no RMF columns, and the warnings say why (samples
# outside every RMF interval, standard input read in one pass). The same records with the 70.1
# and 99.14 records first (split as in lpar_view_two_files, then `cat rmf his`) join all, as
# the file does.
GENSMF=${GENSMF:-$(dirname "$MFSTAT")/gensmf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GENSMF" -q --systems 2 --cpus 4 --ziip 1 --intervals 4 --rmf --topology -o "$tmp/d.smf" || exit 9
cd "$tmp" || exit 9
echo "== file"
"$MFSTAT" report -f csv --by lpar,polarity --metrics LPARCPU,RMF_LPARCPU d.smf
echo "== stdin"
cat d.smf | "$MFSTAT" report -f csv --by lpar,polarity --metrics LPARCPU,RMF_LPARCPU -
echo "exit $?"
byte() { od -An -tu1 -j "$1" -N1 d.smf | tr -d ' '; }
size=$(stat -c %s d.smf)
off=0
: >rmf.smf
: >his.smf
while [ "$off" -lt "$size" ]; do
	len=$(($(byte "$off") * 256 + $(byte $((off + 1)))))
	[ "$len" -ge 4 ] || { echo "bad RDW at $off"; exit 9; }
	type=$(byte $((off + 5)))
	sub=0
	[ "$len" -ge 24 ] && sub=$(($(byte $((off + 22))) * 256 + $(byte $((off + 23)))))
	if { [ "$type" = 70 ] && [ "$sub" = 1 ]; } || { [ "$type" = 99 ] && [ "$sub" = 14 ]; }; then
		tail -c +$((off + 1)) d.smf | head -c "$len" >>rmf.smf
	else
		tail -c +$((off + 1)) d.smf | head -c "$len" >>his.smf
	fi
	off=$((off + len))
done
echo "== stdin, RMF records first"
cat rmf.smf his.smf | "$MFSTAT" report -f csv --by lpar,polarity --metrics LPARCPU,RMF_LPARCPU -
echo "exit $?"
