#!/bin/bash
# SPDX-License-Identifier: MIT
# CSV on a terminal (issue 25, item 7): every CSV writer (report -f csv, export, diff -f csv,
# smf list -f csv, measure report -f csv) writes to a terminal no control byte from a name (an
# OSC title sequence ESC ] 0 ; pwned BEL, ESC [31m, a DEL, bytes that are not UTF-8): they
# are shown as \x1b, \x07, \xff, as the text report shows them.  The same CSV written to a file
# keeps the bytes (the export reads back as the same samples).  The terminal is a real pty:
# script(1) from util-linux (Debian's bsdutils).
set -u
MFSTAT=$(realpath "$1")
DATA=$2
PROG=${3:+$(realpath "$3")}
command -v script >/dev/null || { echo "SKIP: no script(1) to give mfstat a terminal"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
osc=$'\e]0;pwned\a'
{
	echo "system,lpar,pool,machine,cpsp,interval_start,interval_seconds,B0,B1,B2,B4"
	printf '%s,=LP1,GCP,z16,5200,2025-03-04T00:00:00Z,900,1000,500,5,5\n' "$osc"
	printf 'A\377B,\e[31mred\x7f,GCP,z16,5200,2025-03-04T00:00:00Z,900,1000,500,5,5\n'
} > "$tmp/in.csv"

# Control bytes other than the pty's own CR and LF.
ctl() { LC_ALL=C grep -c $'[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]' "$1"; }

# on_tty NAME COMMAND...: runs COMMAND with its standard output on a pty, into $tmp/NAME.
on_tty() {
	local name=$1 cmd="" a
	shift
	for a in "$@"; do cmd+=" $(printf '%q' "$a")"; done
	# script(1) runs the command with $SHELL; printf %q quotes for bash ($'...'), which dash
	# (root's shell in a container, or an unset SHELL) would read as a literal '$'.
	SHELL=/bin/bash script -qec "$cmd" /dev/null < /dev/null > "$tmp/$name" 2>&1
}

# check NAME WANT...: no control byte in $tmp/NAME, and each WANT (a fixed string) in it.
check() {
	local name=$1 w
	shift
	if [ "$(ctl "$tmp/$name")" != 0 ]; then
		echo "FAIL $name: control bytes reach the terminal:"; LC_ALL=C cat -v "$tmp/$name" | head -5; fail=1
	fi
	for w in "$@"; do
		grep -qF -- "$w" "$tmp/$name" || { echo "FAIL $name: no '$w' in:"; LC_ALL=C cat -v "$tmp/$name" | head -5; fail=1; }
	done
}

on_tty report "$MFSTAT" report -q -f csv "$tmp/in.csv"
check report '\x1b]0;pwned\x07' "'=LP1" 'A\xffB' '\x1b[31mred\x7f'
on_tty export "$MFSTAT" export -q "$tmp/in.csv"
check export '\x1b]0;pwned\x07' "'=LP1" "'A\xffB" '\x1b[31mred\x7f'
on_tty diff "$MFSTAT" diff -q -f csv --by system,lpar "$tmp/in.csv" "$tmp/in.csv"
check diff '\x1b]0;pwned\x07' "'=LP1" 'A\xffB'
cp "$DATA/small-s1.smf" "$tmp/$osc.smf"
on_tty smf "$MFSTAT" smf list -f csv "$tmp/$osc.smf"
check smf '\x1b]0;pwned\x07.smf'

# A file keeps the data: the control bytes are there, and the export reads back the same.
"$MFSTAT" export -q "$tmp/in.csv" -o "$tmp/e.csv" || { echo "FAIL: export to a file"; fail=1; }
grep -qF "$osc" "$tmp/e.csv" || { echo "FAIL: the exported file lost the name's bytes"; fail=1; }
"$MFSTAT" report -q -f csv "$tmp/in.csv" > "$tmp/r.csv"
grep -qF "$osc" "$tmp/r.csv" || { echo "FAIL: report -f csv to a file lost the name's bytes"; fail=1; }
"$MFSTAT" report -q "$tmp/in.csv" | head -6 > "$tmp/want"
"$MFSTAT" report -q "$tmp/e.csv" | head -6 > "$tmp/got"
cmp -s "$tmp/want" "$tmp/got" || { echo "FAIL: the export reads back differently"; diff "$tmp/want" "$tmp/got"; fail=1; }

# measure: a program whose name holds the OSC sequence, profiled with software events.
if [ -n "$PROG" ]; then
	cp "$PROG" "$tmp/p$osc"
	if (cd "$tmp" && timeout 120 "$MFSTAT" measure profile -q -o "$tmp/m.txt" -- "./p$osc" 1 >/dev/null 2>"$tmp/m.err"); then
		on_tty measure "$MFSTAT" measure report -f csv "$tmp/.mfstat/latest-profile"
		check measure 'p\x1b]0;pwned\x07'
	else
		echo "measure profile cannot run here ($(head -1 "$tmp/m.err")): its case not checked"
	fi
fi
[ $fail = 0 ] && echo "no CSV writer passes a control byte to a terminal; files keep the bytes"
exit $fail
