#!/bin/bash
# File names holding a comma (issue 25): after --, each argument is one file taken whole, and a
# second -- separates BEFORE's files from AFTER's; two files without it are BEFORE and AFTER;
# with --before/--after every file after -- is INPUT's.  Without --, a list whose parts do not
# exist while the whole name does is a usage error pointing to --.  -o -- is a file named --.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zcat ../data/day-3sys-z15.csv.gz > "$tmp/q1,2024.csv"
zcat ../data/week-2sys.csv.gz > "$tmp/q1,2025.csv"
cd "$tmp" || exit 99
d() { "$MFSTAT" diff -q --by system --metrics CPI,RNI "$@"; echo "exit $?"; }
d 'q1,2024.csv' 'q1,2025.csv'
d -- 'q1,2024.csv' 'q1,2025.csv' | tail -4
d -f csv -- 'q1,2024.csv' 'q1,2025.csv' -- 'q1,2025.csv' | head -2
d -- 'q1,2024.csv' -- 'q1,2025.csv' | tail -3
d --before 2025-03-31T00:00:00Z/2025-03-31T12:00:00Z --after 2025-03-31T12:00:00Z/2025-04-01 -- 'q1,2024.csv' | tail -3
d -- 'q1,2024.csv'
d -- 'q1,2024.csv' --
d --before 2025-03-04/2025-03-05 --after 2025-03-05/2025-03-06 -- 'q1,2024.csv' -- x
cp 'q1,2024.csv' old.csv
"$MFSTAT" diff -q -o -- old.csv old.csv; echo "exit $?"; ls -- --
