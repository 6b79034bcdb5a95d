#!/bin/bash
# Comma-separated lists of files, written with -o: the file given twice on the after side is
# read twice, its copies dropped with a warning naming the side.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$MFSTAT" diff --by system --metrics CPI,RNI -o "$tmp/d.txt" ../data/day-3sys-z15.csv.gz \
	../data/week-2sys.csv.gz,../data/week-2sys.csv.gz
echo "exit $?"
cat "$tmp/d.txt"
