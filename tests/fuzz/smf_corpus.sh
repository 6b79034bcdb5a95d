#!/bin/bash
# SPDX-License-Identifier: MIT
# Rewrites the seeds of the SMF fuzz corpus (tests/fuzz/corpus/smf) with tools/gensmf.c, which is
# deterministic: both subtypes, both framings, zCBPs, lost MT-diagnostic data, truncations and
# bit flips in the header, the data sections and the counter-set sections.
#   tests/fuzz/smf_corpus.sh build/gensmf
set -eu
GENSMF=$1
dir=$(dirname "$0")/corpus/smf
rm -f "$dir"/*.smf
common=(-q --family z13 --cpus 2 --ziip 1 --intervals 2 --other-ratio 0.02)
"$GENSMF" "${common[@]}" -o "$dir/rdw.smf"
"$GENSMF" "${common[@]}" --framing vbs --block-size 600 -o "$dir/vbs600.smf"
"$GENSMF" -q --family z16 --cpus 1 --ziip 0 --intervals 2 --subtype 2 --other-ratio 0 -o "$dir/sub2.smf"
"$GENSMF" -q --family z16 --cpus 2 --ziip 0 --zcbp 1 --intervals 2 --subtype both --mt-lost 2 \
	--other-ratio 0 -o "$dir/both.smf"
size=$(stat -c %s "$dir/rdw.smf")
head -c $((size / 2)) "$dir/rdw.smf" > "$dir/rdw-trunc.smf"
size=$(stat -c %s "$dir/vbs600.smf")
head -c $((size - 77)) "$dir/vbs600.smf" > "$dir/vbs-trunc.smf"
# flip FILE NAME OFFSET: one byte XOR 0x5A
flip() {
	cp "$dir/$1" "$dir/$2"
	local b
	b=$(od -An -tu1 -j "$3" -N1 "$dir/$1" | tr -d ' ')
	printf "$(printf '\\%03o' $((b ^ 0x5A)))" | dd of="$dir/$2" bs=1 seek="$3" conv=notrunc status=none
}
# The first type 113 record starts at 18 (after the 18-byte type 2 header).
flip rdw.smf flip0.smf $((18 + 22))             # subtype
flip rdw.smf flip1.smf $((18 + 44 + 3))         # SMF113DOF
flip rdw.smf flip2.smf $((18 + 112 + 18))       # CpuProcClass
flip rdw.smf flip3.smf $((18 + 112 + 78 + 1))   # CSType of the first counter set
flip rdw.smf flip4.smf $((18 + 112 + 78 + 11))  # CDON of the first counter set
flip sub2.smf flip5.smf $((18 + 112 + 84))      # CST of the first subtype 2 counter set
flip sub2.smf flip6.smf $((18 + 112 + 84 + 3))  # CSN of the first subtype 2 counter set
flip both.smf flip7.smf $((18 + 112 + 50))      # SMF113_1_Flags / SMF113_2_CF area
# The LPAR view: SMF 70.1 and 99.14 records beside the 113 ones (the join, fuzz_reader.h prescans).
"$GENSMF" -q --systems 1 --cpus 2 --ziip 1 --intervals 2 --rmf --topology --other-ratio 0 -o "$dir/rmf-topo.smf"
