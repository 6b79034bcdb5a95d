#!/bin/bash
# A truncated dump: an error with the byte offset (exit 1); with --skip-bad-records the rest of
# the file is counted as unreadable and the report of what was read is written.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
head -c 5000 ../data/small-s1.smf > "$tmp/cut.smf"
cd "$tmp" || exit 99
"$MFSTAT" report -f csv --by system cut.smf
echo "exit $?"
"$MFSTAT" report -f csv --by system --skip-bad-records cut.smf
echo "exit $?"
"$MFSTAT" smf list cut.smf
echo "exit $?"
