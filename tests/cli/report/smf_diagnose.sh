#!/bin/bash
# What a new SMF user is told without --input smf: a dump without RDWs, one transferred in ASCII
# mode, archives and compressors mfstat does not read, a file shorter than its first record, a
# dump with no type 113 record, and one with the IFASMFDP header record but no trailer.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99
# FTP binary without "quote site rdw": a type 2 header record, then a type 113 header, no RDWs.
printf '\036\002\000\055\121\220\001\045\020\017\342\350\342\301' > nordw.smf
printf '\136\161\000\055\121\220\001\045\020\017\342\350\342\301\100\100\100\100\000\001' >> nordw.smf
# FTP in ASCII mode: the same bytes through an EBCDIC-to-ASCII table, X'0D0A' after each record.
printf '\036\002\000\005Q\220\001%%\020\017SYSA\r\n' > ascii.smf
printf '^\311\000\005Q\220\001%%\020\017SYSA    \000\001\000\000\000\030\r\n' >> ascii.smf
printf '^\311\000\005Q\220\001%%\020\017SYSB    \000\001\000\000\000\030\r\n' >> ascii.smf
# Archives and compressors by their magic bytes; a tar inside gzip is still a tar.
printf '\3757zXZ\000\000\004\346\326\264\106' > week.smf.xz
printf 'BZh91AY&SY\000\000\000\000' > week.smf.bz2
printf 'PK\003\004\024\000\000\000' > week.zip
{ head -c 257 /dev/zero; printf 'ustar\00000'; head -c 248 /dev/zero; } > week.tar
gzip -c week.tar > week.tar.gz
# The first 6 bytes of a dump: its first RDW says 18.
head -c 6 "$OLDPWD/../data/small-s1.smf" > short.smf
# RDWs kept but transferred in ASCII mode: X'0D0A' where the second RDW should be.
printf '\000\022\000\000\036\002\000\005Q\220\001%%\020\017SYSA\r\n\000\022\000\000' > ascii-rdw.smf
# No type 113: a type 2 header, two type 30 records, a type 3 trailer.
{
	printf '\000\022\000\000\036\002\000\055\121\220\001\045\020\017\342\350\342\301'
	printf '\000\030\000\000\136\036\000\055\121\220\001\045\020\017\342\350\342\301\321\305\342\362\000\004'
	printf '\000\030\000\000\136\036\000\055\121\220\001\045\020\017\342\350\342\301\321\305\342\362\000\005'
	printf '\000\022\000\000\036\003\000\055\121\220\001\045\020\017\342\350\342\301'
} > no113.smf
# The first records of a dump, cut at a record boundary: the header record but no trailer.
head -c 2770 "$OLDPWD/../data/small-s1.smf" > cut.smf
for f in nordw.smf ascii.smf week.smf.xz week.smf.bz2 week.zip week.tar week.tar.gz short.smf ascii-rdw.smf \
	no113.smf; do
	"$MFSTAT" report "$f"
	echo "exit $?"
done
"$MFSTAT" report - < week.smf.xz
echo "exit $?"
# --skip-bad-records skips bad records, not a whole dump without any type 113 record.
"$MFSTAT" report --skip-bad-records no113.smf
echo "exit $?"
"$MFSTAT" report --input smf nordw.smf
echo "exit $?"
"$MFSTAT" report -f csv --by system cut.smf
echo "exit $?"
