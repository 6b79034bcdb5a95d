#!/bin/bash
# -o FILE: nothing on stdout from mfstat itself, the report is in FILE.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$MFSTAT" report -f csv --by system -o "$tmp/out.csv" ../data/z16-two-pools.csv
rc=$?
echo "--- exit $rc, out.csv:"
cat "$tmp/out.csv"
exit $rc
