#!/bin/bash
# SPDX-License-Identifier: MIT
# -o and planted symbolic links: in a sticky directory everyone may write (like /tmp), a link
# owned by someone else is never written through, whatever it points at; a link of the user's
# own is (as before), and so is any link outside such directories. Needs root to plant a link
# owned by another user (CI runs as root); skips otherwise.
set -u
MFSTAT=$1
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
[ $fail = 0 ] && echo "planted links in shared directories are never written through"
exit $fail
