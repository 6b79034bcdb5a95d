#!/bin/bash
# SPDX-License-Identifier: MIT
# Metrics from a generated SMF dump equal those from the same counters given as CSV
# (tools/gensmf.c writes both), for every family, both subtypes, both framings, spanned
# records, jitter, lost intervals, 4-byte counters, mixed families and compression; zCBPs and
# lost MT-diagnostic data; both subtypes in one dump (reported once, from subtype 1).
set -u
MFSTAT=$1
GENSMF=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
check() { # check NAME GENSMF-OPTIONS...
	local name=$1
	shift
	"$GENSMF" -q "$@" -o "$tmp/d.smf" --csv "$tmp/d.csv" || { echo "FAIL $name: gensmf"; fail=1; return; }
	for by in "system,lpar,pool,interval" "system,pool,cpu" ""; do
		"$MFSTAT" report -q -f csv --by "$by" "$tmp/d.csv" -o "$tmp/want" || { echo "FAIL $name: csv"; fail=1; return; }
		for f in "$tmp/d.smf" "$tmp/d.smf.gz" "$tmp/d.smf.zst"; do
			case $f in
			*.gz) gzip -c "$tmp/d.smf" > "$f" ;;
			*.zst) zstd -q -f -c "$tmp/d.smf" > "$f" ;;
			esac
			if ! "$MFSTAT" report -q -f csv --by "$by" "$f" -o "$tmp/got" 2>"$tmp/err"; then
				echo "FAIL $name ($f, --by '$by'): $(head -3 "$tmp/err")"; fail=1; return
			fi
			if ! cmp -s "$tmp/got" "$tmp/want"; then
				echo "FAIL $name ($f, --by '$by'): the SMF report differs from the CSV report"
				diff "$tmp/got" "$tmp/want" | head -4; fail=1; return
			fi
			n=$((n + 1))
		done
	done
}
for fam in z10 z196 zec12 z13 z14 z15 z16 z17; do
	check "$fam-s1-rdw" --family "$fam" --systems 2 --cpus 3 --ziip 1 --intervals 4 --subtype 1
	check "$fam-s2-vbs" --family "$fam" --systems 2 --cpus 3 --ziip 1 --intervals 4 --subtype 2 --framing vbs \
		--block-size 700 --jitter-ms 300 --lost 5
done
check both-subtypes --systems 2 --cpus 2 --intervals 4 --subtype both --framing vbs --block-size 64
check zcbp-mt-lost --families z13,z17 --systems 2 --cpus 4 --ziip 1 --zcbp 1 --intervals 3 --subtype both \
	--mt-lost 3 --lost 7 --framing vbs --block-size 900
check mixed-scds --families z13,z16,z17 --systems 3 --cpus 2 --intervals 3 --scds --jitter-ms 450 --other-ratio 9
echo "$n comparisons"
exit $fail
