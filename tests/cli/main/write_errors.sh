#!/bin/bash
# Standard output that cannot be written (a full device, a closed descriptor) is exit 1 with
# "write error" for every command, never a silent 0; a closed standard output that nothing is
# written to (report -o FILE) is fine.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {
	"$MFSTAT" "$@" > /dev/full 2> "$tmp/err"
	echo "$* > /dev/full: exit $?: $(grep -o 'write error.*' "$tmp/err" | head -1)"
	"$MFSTAT" "$@" >&- 2> "$tmp/err"
	echo "$* >&-: exit $?: $(grep -o 'write error.*' "$tmp/err" | head -1)"
}
run --help
run --version
run report --help
run report ../data/generic.csv
run smf list ../data/small-s1.smf
run metrics
run counters --machine z16
run machines
run measure probe
run stat -q --fallback -o - -- true
"$MFSTAT" report -o "$tmp/r.txt" ../data/generic.csv >&-
echo "report -o FILE with stdout closed: exit $?"
