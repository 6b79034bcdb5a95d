#!/bin/bash
# export keeps the CSV promise (issue 25): names with an OSC title sequence, bytes that are not
# UTF-8 (an encoded surrogate, an overlong NUL, a lone FF), a spreadsheet formula (= + - @) or a
# leading ' are written as valid UTF-8 with no cell a spreadsheet runs: a ' before a name that
# starts with ' = + - @ tab or CR or holds bytes that are not UTF-8, which are written \xNN (and
# a \ as \\).  The reader undoes exactly that: report of the export prints what report of the
# input prints (text up to the footer, and CSV).  Control bytes stay in a file (csv_terminal
# checks a terminal).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
{
	cat ../data/hostile-names.csv
	printf '\033]0;pwned\007,LP6,GCP,z16,5200,2025-03-04T00:00:00Z,900,1000,500,5,5\n'
	printf '=A\377B\\x41,'"'"'LP7,GCP,z16,5200,2025-03-04T00:00:00Z,900,1000,500,5,5\n'
	printf '\\\\,'"''"'=LP8,GCP,z16,5200,2025-03-04T00:00:00Z,900,1000,500,5,5\n'
} > "$tmp/in.csv"
. ./lib.sh # utf8_ok
"$MFSTAT" export -o "$tmp/e.csv" "$tmp/in.csv"; echo "export: exit $?, $(utf8_ok "$tmp/e.csv")"
cut -d, -f1-3 "$tmp/e.csv" | LC_ALL=C cat -v
for f in text csv; do
	"$MFSTAT" report -q -f $f "$tmp/in.csv" | sed '/rows\? read from/,$d' > "$tmp/want"
	"$MFSTAT" report -q -f $f "$tmp/e.csv" | sed '/rows\? read from/,$d' > "$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" && echo "$f: report of the export = report of the input" || diff "$tmp/want" "$tmp/got"
done
