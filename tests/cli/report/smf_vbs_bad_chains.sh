#!/bin/bash
# --skip-bad-records on VBS: a record that lost its first segment, and one that lost its last
# (the next record's first segment breaks its chain).  Each is one bad record with its own
# number, reported once; the records after them keep their numbers; the footer and the
# summary give the same count, also with a truncated end (the rest of the file unreadable).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
head -c 17000 ../data/small-s2.vbs > "$tmp/bad.vbs"
cd "$tmp" || exit 99
# Segment descriptors at 2376 (code 1, the first of record 4) and 4804 (code 2, the last of record 5).
printf '\003' | dd of=bad.vbs bs=1 seek=$((2376 + 2)) conv=notrunc status=none
printf '\003' | dd of=bad.vbs bs=1 seek=$((4804 + 2)) conv=notrunc status=none
"$MFSTAT" report --by system --skip-bad-records bad.vbs
echo "exit $?"
"$MFSTAT" smf list --skip-bad-records bad.vbs
echo "exit $?"
