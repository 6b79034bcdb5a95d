#!/bin/bash
# A UTF-8 byte order mark (EF BB BF, as a Windows editor saves a file) before perf stat output
# (issue 25): the file is recognised and read as without it, from a file and from standard
# input, in perf's plain and -x forms; canonical and lshwc CSV take it too.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bom() { printf '\357\273\277'; cat "$1"; }
for f in ../data/perf/generic-x-duration.txt ../data/perf/z16-default-units.txt ../data/perf/generic-interval-units.txt \
	../data/generic.csv ../data/lshwc/lshwc_man_ex1_basic_problem_total.csv; do
	bom "$f" > "$tmp/bom"
	"$MFSTAT" report -q --perf-tz UTC --machine z16 -f csv "$f" > "$tmp/want" 2>&1; w=$?
	"$MFSTAT" report -q --perf-tz UTC --machine z16 -f csv "$tmp/bom" > "$tmp/got" 2>&1; g=$?
	"$MFSTAT" report -q --perf-tz UTC --machine z16 -f csv - < "$tmp/bom" > "$tmp/got-stdin" 2>&1; s=$?
	if [ $w$g$s = 000 ] && cmp -s "$tmp/want" "$tmp/got" && cmp -s "$tmp/want" "$tmp/got-stdin"; then
		echo "${f##*/}: read alike with a byte order mark"
	else
		echo "${f##*/}: exit $w without, $g with a byte order mark, $s from standard input"
		head -3 "$tmp/got"
	fi
done
