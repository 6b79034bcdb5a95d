#!/bin/bash
# One SMF 70.1 record flagged broken (SMF70RAN = 1, product section +74, i.e. byte 175 of the
# record: one interval split over several records) in a dump of 2 RMF intervals: it is counted
# and warned about once (one record in one file), its interval's 2 samples are outside every
# RMF interval, the other interval joins. With RMF data for only part of the group's rows,
# RMF_LPARCPU of the whole-period group is empty; per interval, the second has it.
# report reads a file twice (the first pass of the LPAR view, then the samples): the record is
# still counted once.
GENSMF=${GENSMF:-$(dirname "$MFSTAT")/gensmf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GENSMF" -q --systems 1 --cpus 2 --ziip 0 --intervals 2 --rmf --other-ratio 0 -o "$tmp/d.smf" || exit 9
cd "$tmp" || exit 9
# The offset of the first 70.1 record, from smf list (hex).
off=$("$MFSTAT" smf list d.smf | awk '$2 == "70.1" { print $1; exit }')
off=$((off))
printf '\001' | dd of=d.smf bs=1 seek=$((off + 175)) conv=notrunc status=none
"$MFSTAT" report -f csv --by system --metrics LPARCPU,RMF_LPARCPU d.smf
echo "exit $?"
"$MFSTAT" report -q -f csv --by system,interval --metrics RMF_LPARCPU d.smf | cut -d, -f1,5,12
