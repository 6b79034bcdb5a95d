#!/bin/bash
# SPDX-License-Identifier: MIT
# -j N reads a large plain CSV file in parts at once; the report must be the one of reading it
# whole (-j 1), byte for byte and with the same exit status and messages: every output format,
# several groupings, a selection, duplicates inside the file and across files, a bad row (the
# file is then read again whole, so the error is the same), and every other input format.
# Usage: jobs_identical.sh MFSTAT GENCSV GENSMF DATADIR
set -u
M=$1 GENCSV=$2 GENSMF=$3 DATA=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
# 12 MB: cut into parts (a part is at least 4 MiB).
"$GENCSV" --systems 2 --lpars 2 --cpus 8 --ziip 2 --rows 60000 --seed 3 >big.csv || exit 1
"$GENCSV" --systems 3 --lpars 1 --cpus 6 --ziip 1 --rows 60000 --seed 4 >other.csv || exit 1
[ "$(stat -c %s big.csv)" -gt 9000000 ] || { echo "FAIL: big.csv is too small to be cut"; exit 1; }
# A copy with a duplicate row near the end (the same sample twice: dropped and counted once).
{ cat big.csv; sed -n 2p big.csv; } >dup.csv
# A row of big.csv's second half with other counters: a conflict whose message names big.csv's line.
{ sed -n 1p big.csv; sed -n '50000p' big.csv | awk -F, -v OFS=, '{ $NF = $NF "1"; print }'; } >conflict.csv
# A copy with a bad row in the second half.
{ cat big.csv; echo "SYSA,PROD1,GCP,0,2099-01-01T00:00:00Z,900,x,1,2"; } >bad.csv
same() { # NAME ARGS...: mfstat ARGS with -j 1 and -j 2 give the same stdout, stderr and status
	local name=$1
	shift
	"$M" "$@" -j 1 >o1 2>e1
	echo $? >>o1
	"$M" "$@" -j 2 >o2 2>e2
	echo $? >>o2
	if ! cmp -s o1 o2 || ! cmp -s e1 e2; then
		echo "FAIL: $name: -j 2 differs from -j 1"
		diff o1 o2 | head -5
		diff e1 e2 | head -5
		fail=1
	fi
}
for f in text csv json html; do
	same "report -f $f" report -f "$f" big.csv
done
same "--by system,pool" report -f csv --by system,pool big.csv
same "--by cpu,interval" report -f csv --by cpu,interval big.csv
same "--by \"\"" report -f csv --by "" big.csv
same "--by system,day --tz" report -f csv --by system,day --tz Europe/Berlin big.csv
same "selection" report -f csv --system SYSA --hours 8-17 big.csv
same "two files" report -f csv big.csv other.csv
same "a file twice" report -f csv big.csv big.csv
same "a duplicate row" report -f csv dup.csv
same "a conflict with an earlier file" report -f csv big.csv conflict.csv
same "a bad row" report -f csv bad.csv
same "a bad row skipped" report -f csv --skip-bad-rows bad.csv
same "--max-groups" report -f csv --by cpu,interval --max-groups 1000 big.csv
same "diff" diff -f csv big.csv other.csv
# SMF dumps read at once, one per thread: alike with their footers, warnings and duplicates;
# with the LPAR view (type 70 records) they are read one after the other.
"$GENSMF" -q --systems 2 --cpus 4 --ziip 1 --intervals 8 --rmf -o d.smf || exit 1
"$GENSMF" -q --systems 2 --cpus 4 --ziip 1 --intervals 8 --seed 2 -o e.smf || exit 1
"$GENSMF" -q --systems 3 --cpus 2 --ziip 0 --intervals 8 --subtype 2 --framing vbs --seed 3 -o f.smf || exit 1
"$GENSMF" -q --systems 1 --cpus 2 --ziip 0 --intervals 4 --start 2025-05-01T00:00:00Z -o g.smf || exit 1
head -c 30000 g.smf >cut.smf
same "smf" report -f csv d.smf
same "smf dumps" report e.smf f.smf g.smf
same "smf dumps, csv" report -f csv --by system,pool,cpu e.smf f.smf g.smf
same "a dump twice" report e.smf g.smf e.smf
same "a cut dump" report e.smf cut.smf g.smf
same "a cut dump skipped" report --skip-bad-records e.smf cut.smf g.smf
same "dumps with the LPAR view" report --by lpar d.smf e.smf
same "smf export" export e.smf f.smf g.smf
# One dump alone: one thread reads its records, others decode them; every record, error and count
# comes in the order of decoding in line.
"$GENSMF" -q --systems 3 --cpus 4 --ziip 1 --intervals 300 --subtype both --lost 7 --mt-lost 5 --seed 5 -o h.smf || exit 1
"$GENSMF" -q --systems 2 --cpus 3 --ziip 1 --intervals 200 --subtype 2 --framing vbs --seed 6 -o v.smf || exit 1
head -c 400000 h.smf >hcut.smf
# Records 500 and 900 of type 113 with a subtype no one knows (bytes 22-23 of the record): bad
# records in the middle, each an error, or skipped and counted.
cp h.smf hbad.smf
for n in 500 900; do
	off=$("$M" smf list -f csv h.smf | awk -F, -v n="$n" '$3 == 113 && ++k == n { print $2 }')
	[ -n "$off" ] || { echo "FAIL: no type 113 record $n in h.smf"; exit 1; }
	printf '\0\7' | dd of=hbad.smf bs=1 seek=$((off + 22)) conv=notrunc status=none
done
gzip -1 -c h.smf >h.smf.gz
# A VBS dump whose 300th type 113 record starts with a middle segment (SDW flags 3): a broken
# chain found while deblocking, after which the reading goes on.
off=$("$M" smf list -f csv v.smf | awk -F, '$3 == 113 && ++k == 300 { print $2 }')
[ -n "$off" ] || { echo "FAIL: no type 113 record 300 in v.smf"; exit 1; }
cp v.smf vbad.smf
printf '\3' | dd of=vbad.smf bs=1 seek=$((off + 2)) conv=notrunc status=none
same "one dump" report -f csv h.smf
same "one dump, by cpu" report -f csv --by system,cpu,interval h.smf
same "one VBS dump, subtype 2" report -f csv v.smf
same "one cut dump" report -f csv hcut.smf
same "one cut dump skipped" report -f csv --skip-bad-records hcut.smf
same "one dump with bad records" report -f csv hbad.smf
same "one dump with bad records skipped" report -f csv --skip-bad-records hbad.smf
same "one dump, gzip" report -f csv h.smf.gz
same "one VBS dump with a broken chain" report -f csv vbad.smf
same "one VBS dump with a broken chain skipped" report -f csv --skip-bad-records vbad.smf
same "one dump with the LPAR view" report -f csv --by lpar d.smf
# Compressed files: with -j a thread decompresses ahead of the parsing; the bytes, and an error
# of the compressed data after them, are those of decompressing in line.
zstd -q -1 -c big.csv >big.csv.zst || exit 1
gzip -1 -c big.csv >big.csv.gz || exit 1
head -c 2500000 big.csv.zst >cut.csv.zst
{ head -c 2000000 big.csv.gz; head -c 4000 /dev/zero; tail -c +2004001 big.csv.gz; } >bad.csv.gz
same "zstd" report -f csv big.csv.zst
same "gzip" report -f csv big.csv.gz
same "zstd cut short" report -f csv cut.csv.zst
same "gzip corrupt" report -f csv bad.csv.gz
same "gzip corrupt, rows skipped" report -f csv --skip-bad-rows bad.csv.gz
same "zstd and plain" report -f csv big.csv.zst other.csv
# Every other format: -j is one thread there.
for f in "$DATA"/lshwc/*.csv "$DATA"/perf/*.csv; do
	[ -f "$f" ] && same "$(basename "$f")" report -f csv "$f"
done
# -j takes 1 to 256.
"$M" report -j 0 big.csv >/dev/null 2>&1
[ $? = 2 ] || { echo "FAIL: -j 0 is not a usage error"; fail=1; }
[ $fail = 0 ] && echo "-j 2 gives the report of -j 1"
exit $fail
