#!/bin/bash
# A valid header, then a NUL byte inside a counter field of row 3.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'system,cpu,machine,B0,B1\nSYSQ,0,z16,250000000000,90000000000\nSYSQ,1,z16,2500\000\001\002,90000000000\n' > "$tmp/nul-row.csv"
cd "$tmp" || exit 99
"$MFSTAT" report nul-row.csv
