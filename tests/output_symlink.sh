#!/bin/bash
# SPDX-License-Identifier: MIT
# -o and planted symbolic links: in a sticky directory everyone may write (like /tmp), a link
# owned by someone else is never written through, whatever it points at; a link of the user's
# own is (as before), and so is any link outside such directories. Every link on the way counts
# (issue 25): a chain of links whose second hop is someone else's, someone else's link to a
# directory (/tmp/their-link/out.csv), reached directly or through the user's own links, for -o
# of report and measure, measure -d and --csv DIR; at most 40 links in one path, as the kernel.
# Needs root to plant a link owned by another user (CI runs as root); skips otherwise.
#   output_symlink.sh MFSTAT VALID_MFDB
set -u
MFSTAT=$(realpath "$1")
VALID=$2
DATA=$(cd "$(dirname "$0")" && pwd)/data
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to plant a link owned by another user"; exit 77; }
other=$(id -u nobody 2>/dev/null) || { echo "SKIP: no user nobody"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
mkdir -m 1777 "$tmp/shared"
echo "precious" > "$tmp/victim"
ln -s "$tmp/victim" "$tmp/shared/report.txt"
chown -h nobody "$tmp/shared/report.txt"
"$MFSTAT" report -o "$tmp/shared/report.txt" "$DATA/generic.csv" 2> "$tmp/err"
rc=$?
[ $rc = 1 ] || { echo "FAIL: planted link: exit $rc, want 1"; fail=1; }
grep -q 'refusing to write through it' "$tmp/err" || { echo "FAIL: no message: $(cat "$tmp/err")"; fail=1; }
[ "$(cat "$tmp/victim")" = precious ] || { echo "FAIL: the victim file was overwritten"; fail=1; }
[ -L "$tmp/shared/report.txt" ] || { echo "FAIL: the planted link was replaced"; fail=1; }
# A dangling planted link: still refused (it would otherwise create its target).
ln -s "$tmp/created-by-link" "$tmp/shared/dangling.txt"
chown -h nobody "$tmp/shared/dangling.txt"
"$MFSTAT" report -o "$tmp/shared/dangling.txt" "$DATA/generic.csv" 2> /dev/null && { echo "FAIL: dangling planted link followed"; fail=1; }
[ -e "$tmp/created-by-link" ] && { echo "FAIL: the dangling link's target was created"; fail=1; }
# The user's own link in the same directory is followed, as a shell's > would.
echo old > "$tmp/mine"
ln -s "$tmp/mine" "$tmp/shared/mine.txt"
"$MFSTAT" report -o "$tmp/shared/mine.txt" "$DATA/generic.csv" || { echo "FAIL: own link refused"; fail=1; }
grep -q generic "$tmp/mine" || { echo "FAIL: own link's target not written"; fail=1; }
# Someone else's link outside a sticky shared directory is followed too.
echo old > "$tmp/theirs"
ln -s "$tmp/theirs" "$tmp/theirs.txt"
chown -h nobody "$tmp/theirs.txt"
"$MFSTAT" report -o "$tmp/theirs.txt" "$DATA/generic.csv" || { echo "FAIL: link in a private directory refused"; fail=1; }
grep -q generic "$tmp/theirs" || { echo "FAIL: link in a private directory not written through"; fail=1; }

# ---- every hop (issue 25) -----------------------------------------------------
sum() { cksum < "$1"; }
victim_sum=$(sum "$tmp/victim")
mkdir "$tmp/victimdir"
refused() { # refused WHAT RC ERRFILE: exit 1, the link named, the victims untouched
	[ "$2" = 1 ] || { echo "FAIL: $1: exit $2, want 1"; fail=1; }
	grep -q 'refusing to write through it' "$3" || { echo "FAIL: $1: no message: $(cat "$3")"; fail=1; }
	[ "$(sum "$tmp/victim")" = "$victim_sum" ] || { echo "FAIL: $1: the victim file was written"; fail=1; }
	[ -z "$(ls -A "$tmp/victimdir")" ] || { echo "FAIL: $1: written into the victim directory: $(ls -A "$tmp/victimdir")"; fail=1; }
}
# A chain: the user's own link, in a private directory, to a name in the shared directory that is
# someone else's link (to the victim).
ln -s "$tmp/victim" "$tmp/shared/x"
chown -h nobody "$tmp/shared/x"
ln -s "$tmp/shared/x" "$tmp/my.csv"
"$MFSTAT" report -o "$tmp/my.csv" "$DATA/generic.csv" 2> "$tmp/err"
refused "a chain (my.csv -> shared/x, someone else's)" $? "$tmp/err"
grep -q "$tmp/shared/x is a symbolic link" "$tmp/err" || { echo "FAIL: the chain: the hop refused is not named: $(cat "$tmp/err")"; fail=1; }
[ -L "$tmp/my.csv" ] || { echo "FAIL: the chain: my.csv was replaced"; fail=1; }
# The same with relative links: my.txt -> shared/rel -> ../victim.
ln -s ../victim "$tmp/shared/rel"
chown -h nobody "$tmp/shared/rel"
ln -s shared/rel "$tmp/my.txt"
(cd "$tmp" && "$MFSTAT" report -o my.txt "$DATA/generic.csv") 2> "$tmp/err"
refused "a relative chain (my.txt -> shared/rel -> ../victim)" $? "$tmp/err"
# Someone else's link to a directory, as a directory on the way.
ln -s "$tmp/victimdir" "$tmp/shared/dl"
chown -h nobody "$tmp/shared/dl"
"$MFSTAT" report -o "$tmp/shared/dl/out.csv" "$DATA/generic.csv" 2> "$tmp/err"
refused "someone else's directory link (shared/dl/out.csv)" $? "$tmp/err"
# ... reached through the user's own link to it, and with a .. after it.
ln -s shared/dl "$tmp/mydir"
"$MFSTAT" report -o "$tmp/mydir/out.csv" "$DATA/generic.csv" 2> "$tmp/err"
refused "a directory link through my own link (mydir -> shared/dl)" $? "$tmp/err"
"$MFSTAT" report -o "$tmp/shared/dl/../victim" "$DATA/generic.csv" 2> "$tmp/err"
refused "a directory link with .. after it" $? "$tmp/err"
# measure: -o and --csv DIR through the directory link, -d through the chain and the directory
# link: refused before anything is read or run (no perf events needed).
"$MFSTAT" measure report -o "$tmp/my.csv" "$VALID" > /dev/null 2> "$tmp/err"
refused "measure report -o through the chain" $? "$tmp/err"
"$MFSTAT" measure report --csv "$tmp/shared/dl/tables" "$VALID" > /dev/null 2> "$tmp/err"
refused "measure report --csv through the directory link" $? "$tmp/err"
"$MFSTAT" measure profile -o "$tmp/mydir/r.txt" -- sh -c "echo ran > $tmp/ran" 2> "$tmp/err"
refused "measure profile -o through the directory link" $? "$tmp/err"
"$MFSTAT" measure profile -d "$tmp/shared/dl/run.mfdb" -o /dev/null -- sh -c "echo ran > $tmp/ran" 2> "$tmp/err"
refused "measure profile -d through the directory link" $? "$tmp/err"
"$MFSTAT" measure profile --csv "$tmp/mydir" -o /dev/null -- sh -c "echo ran > $tmp/ran" 2> "$tmp/err"
refused "measure profile --csv through the directory link" $? "$tmp/err"
[ -e "$tmp/ran" ] && { echo "FAIL: measure ran the program although its output was refused"; fail=1; }
# The user's own links, chained, relative and absolute, through a directory link of the user's
# own in the shared directory: followed to the end, as the shell's > does.
mkdir "$tmp/mine.d"
echo old > "$tmp/mine.d/r.csv"
ln -s "$tmp/mine.d" "$tmp/shared/mydl"
ln -s ../shared/mydl/r.csv "$tmp/mine.d/hop2"
ln -s "$tmp/mine.d/hop2" "$tmp/hop1"
"$MFSTAT" report -o "$tmp/hop1" "$DATA/generic.csv" 2> "$tmp/err" || { echo "FAIL: a chain of own links refused: $(cat "$tmp/err")"; fail=1; }
grep -q generic "$tmp/mine.d/r.csv" || { echo "FAIL: a chain of own links: the file at its end not written"; fail=1; }
[ -L "$tmp/hop1" ] && [ -L "$tmp/mine.d/hop2" ] || { echo "FAIL: a chain of own links: a link was replaced"; fail=1; }
# 40 links in a path are followed, as the kernel does; the 41st is refused, and so is a loop.
echo old > "$tmp/end.csv"
prev="$tmp/end.csv"
for i in $(seq 1 41); do ln -s "$prev" "$tmp/l$i"; prev="$tmp/l$i"; done
"$MFSTAT" report -o "$tmp/l40" "$DATA/generic.csv" 2> "$tmp/err" || { echo "FAIL: 40 links refused: $(cat "$tmp/err")"; fail=1; }
grep -q generic "$tmp/end.csv" || { echo "FAIL: 40 links: the file not written"; fail=1; }
"$MFSTAT" report -o "$tmp/l41" "$DATA/generic.csv" 2> "$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q 'more than 40 symbolic links' "$tmp/err" || { echo "FAIL: 41 links: exit $rc: $(cat "$tmp/err")"; fail=1; }
ln -s loopb "$tmp/loopa"
ln -s loopa "$tmp/loopb"
"$MFSTAT" report -o "$tmp/loopa" "$DATA/generic.csv" 2> "$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q 'more than 40 symbolic links' "$tmp/err" || { echo "FAIL: a loop: exit $rc: $(cat "$tmp/err")"; fail=1; }
# Run as another user: its own link and the directory owner's (root's) are followed, a third
# user's is not.
chmod 755 "$tmp"
if command -v setpriv > /dev/null && setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$MFSTAT" --version > /dev/null 2>&1; then
	as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; }
	mkdir "$tmp/nb"
	chown nobody "$tmp/nb"
	ln -s "$tmp/nb/own.csv" "$tmp/shared/nb-own"
	chown -h nobody "$tmp/shared/nb-own"
	ln -s "$tmp/nb/root.csv" "$tmp/shared/nb-root"
	ln -s "$tmp/nb/third.csv" "$tmp/shared/nb-third"
	chown -h 54321 "$tmp/shared/nb-third"
	as_nobody "$MFSTAT" report -o "$tmp/shared/nb-own" "$DATA/generic.csv" 2> "$tmp/err" || { echo "FAIL: nobody's own link refused to nobody: $(cat "$tmp/err")"; fail=1; }
	as_nobody "$MFSTAT" report -o "$tmp/shared/nb-root" "$DATA/generic.csv" 2> "$tmp/err" || { echo "FAIL: the directory owner's link refused: $(cat "$tmp/err")"; fail=1; }
	as_nobody "$MFSTAT" report -o "$tmp/shared/nb-third" "$DATA/generic.csv" 2> "$tmp/err"
	rc=$?
	[ $rc = 1 ] && grep -q 'refusing to write through it' "$tmp/err" || { echo "FAIL: a third user's link followed by nobody: exit $rc"; fail=1; }
	[ -f "$tmp/nb/own.csv" ] && [ -f "$tmp/nb/root.csv" ] && [ ! -e "$tmp/nb/third.csv" ] ||
		{ echo "FAIL: as nobody: $(ls "$tmp/nb")"; fail=1; }
else
	echo "note: cannot run $MFSTAT as nobody (setpriv, or a build directory nobody may not enter): those cases skipped"
fi
[ $fail = 0 ] && echo "planted links in shared directories are never written through, at any hop"
exit $fail
