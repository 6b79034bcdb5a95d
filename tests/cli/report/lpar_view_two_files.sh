#!/bin/bash
# The type 70 records in one file, the type 113 records in another: one gensmf --rmf --topology
# dump is split record by record (RDW framing: the length in the first two bytes, the type at
# +5, the subtype at +22..23) into rmf.smf (the 70.1 and 99.14 records) and his.smf (the rest:
# the dump header and trailer, the 113 records and the filler, whose type 70 records are
# subtype 2). Then `report his.smf rmf.smf` joins the samples to RMF records that come in a
# later file (the first pass over every input), and gives the same metrics as the whole dump;
# the other order too. rmf.smf alone has no samples (an error).
GENSMF=${GENSMF:-$(dirname "$MFSTAT")/gensmf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GENSMF" -q --systems 2 --cpus 4 --ziip 1 --intervals 4 --rmf --topology -o "$tmp/d.smf" || exit 9
cd "$tmp" || exit 9
# byte OFFSET: the unsigned byte at OFFSET of d.smf
byte() { od -An -tu1 -j "$1" -N1 d.smf | tr -d ' '; }
size=$(stat -c %s d.smf)
off=0 nrmf=0 nhis=0
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
		nrmf=$((nrmf + 1))
	else
		tail -c +$((off + 1)) d.smf | head -c "$len" >>his.smf
		nhis=$((nhis + 1))
	fi
	off=$((off + len))
done
echo "split: $nrmf records into rmf.smf, $nhis into his.smf, $(($(stat -c %s rmf.smf) + $(stat -c %s his.smf))) of $size bytes"
m=LPARCPU,RMF_LPARCPU,LPARCPU_DIFF
by=system,lpar,pool,polarity,drawer,chip
echo "== the whole dump"
"$MFSTAT" report -q -f csv --by $by --metrics $m d.smf | tee whole.csv
# same NAME FILES...: the report of FILES against the whole dump's
same() {
	local name=$1 rc
	shift
	"$MFSTAT" report -q -f csv --by $by --metrics $m "$@" >split.csv
	rc=$?
	if cmp -s whole.csv split.csv; then
		echo "$name: exit $rc, the same as the whole dump"
	else
		echo "$name: exit $rc, differs:"
		cat split.csv
	fi
}
same "his.smf rmf.smf" his.smf rmf.smf
same "rmf.smf his.smf" rmf.smf his.smf
# Without rmf.smf: the samples have no LPAR view (no RMF columns, no lpar, no polarity).
echo "== his.smf alone"
"$MFSTAT" report -q -f csv --by system,lpar,pool,polarity --metrics LPARCPU his.smf
echo "exit $?"
# rmf.smf alone: no samples at all, an error.
echo "== rmf.smf alone"
"$MFSTAT" report rmf.smf
echo "exit $?"
