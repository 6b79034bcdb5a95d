#!/bin/bash
# -o never destroys an input, and output goes through a new file (unnamed where the file
# system allows, else a temporary one) put in place only when the report is complete; a
# replaced file keeps its mode.
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cp ../data/small-s1.smf "$t/week.smf"
sum=$(cksum <"$t/week.smf")
echo "== -o names the input (exit 2, input untouched)"
"$MFSTAT" report -o "$t/week.smf" "$t/week.smf" 2>&1 | sed "s|$t|DIR|g"
echo "exit ${PIPESTATUS[0]}"
[ "$(cksum <"$t/week.smf")" = "$sum" ] && echo "input intact"
echo "== the same file through another name (a hard link)"
ln "$t/week.smf" "$t/link.smf"
"$MFSTAT" report -f csv -o "$t/link.smf" ../data/z16-two-pools.csv "$t/week.smf" 2>&1 | sed "s|$t|DIR|g"
echo "exit ${PIPESTATUS[0]}"
[ "$(cksum <"$t/week.smf")" = "$sum" ] && echo "input intact"
echo "== a good run writes the file, with no temporary file left"
(umask 027; "$MFSTAT" report -f csv -o "$t/out.csv" ../data/z16-two-pools.csv; echo "exit $?")
head -1 "$t/out.csv" | cut -d, -f1-4
echo "mode $(stat -c %a "$t/out.csv") (0666 less the umask 027)"
ls -A "$t"
echo "== a failing run (bad input) leaves the old report intact"
cp "$t/out.csv" "$t/before.csv"
"$MFSTAT" report -f csv -o "$t/out.csv" ../data/z16-two-pools.csv ../data/err-not-number.csv 2>/dev/null
echo "exit $?"
cmp -s "$t/out.csv" "$t/before.csv" && echo "old report intact"
ls -A "$t"
echo "== a failing write leaves the old report intact and no temporary file"
# A file size limit of 1 KiB makes write() fail (EFBIG) partway through the page.
(ulimit -f 1; trap '' XFSZ; "$MFSTAT" report -f html -o "$t/out.csv" ../data/small-s1.smf 2>&1 | sed "s|$t|DIR|g"
 echo "exit ${PIPESTATUS[0]}")
cmp -s "$t/out.csv" "$t/before.csv" && echo "old report intact"
ls -A "$t"
echo "== a device is written in place, not replaced"
"$MFSTAT" report -o /dev/null ../data/z16-two-pools.csv
echo "exit $?"
ls -l /dev/null | cut -c1
echo "== a replaced report keeps its mode (0600 stays 0600), with and without O_TMPFILE"
chmod 600 "$t/out.csv"
"$MFSTAT" report -f csv -o "$t/out.csv" ../data/z16-two-pools.csv
echo "exit $? mode $(stat -c %a "$t/out.csv")"
chmod 604 "$t/out.csv"
MFSTAT_TEST_NO_TMPFILE=1 "$MFSTAT" report -f csv -o "$t/out.csv" ../data/z16-two-pools.csv
echo "exit $? mode $(stat -c %a "$t/out.csv")"
ls -A "$t"
echo "== /dev/stdout into a pipe is written in place (a link of /proc to a pipe)"
"$MFSTAT" report -f csv -o /dev/stdout ../data/z16-two-pools.csv | head -1 | cut -d, -f1-4
echo "exit ${PIPESTATUS[0]}"
