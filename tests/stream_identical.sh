#!/bin/bash
# SPDX-License-Identifier: MIT
# report -f csv streams a CSV file in time order (issue 26 item 3): the groups of closed
# intervals leave memory as finished rows, in sorted runs spilled to an unlinked temporary
# file beyond MFSTAT_STREAM_MEM, merged at the end.  The report must be the one of the whole
# path (MFSTAT_STREAM=0), byte for byte, with the same messages and exit status: ordered and
# unordered files (the latter, and one out of order only at its end, read again whole),
# duplicates, a conflict, overlapping intervals, several systems and pools, a CPU missing in
# one interval (cpus_expected and its note), a counter missing in one row, --max-groups, a
# zone, several groupings, --metrics and every metric; each with a spill forced by a tiny limit.  Memory is bounded by
# counting (MFSTAT_TEST_STREAM: the most groups and identities held at once), never by time;
# a run killed with SIGKILL while its temporary file is open leaves nothing behind.
# Usage: stream_identical.sh MFSTAT GENCSV GENSMF
set -u
M=$1 GENCSV=$2 GENSMF=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
mkdir spill
export TMPDIR="$tmp/spill"

# 3 systems x 2 LPARs x 4 CPUs (one zIIP), 40 intervals: in time order as written.
"$GENCSV" --systems 3 --lpars 2 --cpus 4 --ziip 1 --intervals 40 --seed 5 >ord.csv || exit 1
head -1 ord.csv >head.csv
tail -n +2 ord.csv >body.csv
n=$(wc -l <body.csv)
# Rows sorted by interval start (column 7; ISO times sort as text), stably.
tosort() { sort -t, -k7,7 -s; }
# Duplicates: rows 10 and 500 again, in their intervals.
{ cat head.csv; { cat body.csv; sed -n '10p;500p' body.csv; } | tosort; } >dup.csv
# A conflict: row 300 again with other counters.
{ cat head.csv; { cat body.csv; sed -n 300p body.csv | awk -F, -v OFS=, '{ $NF = $NF "7"; print }'; } | tosort; } >conflict.csv
# An overlap: row 200 again, its interval started 5 minutes later (the same CPU's time twice).
{ cat head.csv; { cat body.csv; sed -n 200p body.csv | awk -F, -v OFS=, '{ split($7, t, /[T:Z]/); m = t[3] + 5; $7 = sprintf("%sT%s:%02d:00Z", t[1], t[2], m); print }'; } | tosort; } >overlap.csv
# A CPU missing in one interval (row 333 left out): fewer CPUs, cpus_expected and its note.
{ cat head.csv; sed '333d' body.csv; } >missing.csv
# A counter missing in one row (its last column empty): present in only some rows.
{ cat head.csv; awk -F, -v OFS=, 'NR == 77 { $NF = "" } { print }' body.csv; } >partial.csv
# Out of order: the rows reversed; and in order but for the last row.
{ cat head.csv; tac body.csv; } >rev.csv
{ cat head.csv; cat body.csv; sed -n 5p body.csv; } >late.csv
# The finest grain: one group per sample, ordered and not.
"$GENCSV" --systems 3 --series 300 --days 2 --seed 9 --ordered >fine-ord.csv || exit 1
"$GENCSV" --systems 3 --series 300 --days 2 --seed 9 >fine.csv || exit 1

# NAME ENV... -- ARGS...: MFSTAT_STREAM=0 and streaming (with ENV) give the same stdout, stderr, status.
same() {
	local name=$1
	shift
	local env=()
	while [ "$1" != -- ]; do
		env+=("$1")
		shift
	done
	shift
	MFSTAT_STREAM=0 "$M" report -j 1 -f csv "$@" >o1 2>e1
	echo $? >>o1
	env "${env[@]}" "$M" report -j 1 -f csv "$@" >o2 2>e2
	echo $? >>o2
	# -j 2 streams too (read by one thread, the metrics of a batch by two), or reads in parts.
	env "${env[@]}" "$M" report -j 2 -f csv "$@" >o3 2>e3
	echo $? >>o3
	if ! cmp -s o1 o2 || ! cmp -s e1 e2 || ! cmp -s o1 o3 || ! cmp -s e1 e3; then
		echo "FAIL: $name: the streamed report differs"
		diff o1 o2 | head -5
		diff e1 e2 | head -5
		fail=1
	fi
}
# NAME PATTERN ENV... -- ARGS...: the test seam's line matches PATTERN (streamed, or not).
seam() {
	local name=$1 pat=$2
	shift 2
	local env=()
	while [ "$1" != -- ]; do
		env+=("$1")
		shift
	done
	shift
	env MFSTAT_TEST_STREAM=1 "${env[@]}" "$M" report -f csv "$@" -o /dev/null 2>seam.err
	if ! grep -Eq "$pat" seam.err; then
		echo "FAIL: $name: want /$pat/, got: $(grep 'mfstat: \(streamed\|not streamed\)' seam.err)"
		fail=1
	fi
}

M4="--metrics CPI,LPARCPU,L1MP,LSPR"
tiny=(MFSTAT_STREAM_MEM=1 MFSTAT_STREAM_BATCH=1)
for f in ord dup conflict overlap missing partial rev late fine-ord fine; do
	for by in "" "--by system,pool,interval" "--by system,lpar,pool,cpu,interval" "--by system,interval"; do
		# shellcheck disable=SC2086
		same "$f $by" -- $M4 $by $f.csv
		# shellcheck disable=SC2086
		same "$f $by (spilled)" "${tiny[@]}" -- $M4 $by $f.csv
	done
	# Every metric (no --metrics): the columns are known only at the end (families, sparse ones).
	same "$f all metrics" -- $f.csv
	same "$f all metrics (spilled)" "${tiny[@]}" -- --by system,lpar,pool,cpu,interval $f.csv
done
# Each row's own zone offset (utc_offset_minutes), the default zone and --tz smf.
awk -F, -v OFS=, 'NR == 1 { print $0, "utc_offset_minutes"; next } { print $0, (NR % 3 ? 60 : 120) }' ord.csv >tz.csv
same "offsets" "${tiny[@]}" -- $M4 tz.csv
same "offsets smf" "${tiny[@]}" -- $M4 --tz smf tz.csv
same "zone" "${tiny[@]}" -- $M4 --tz Europe/Berlin missing.csv
same "max-groups" "${tiny[@]}" -- $M4 --by system,lpar,pool,cpu,interval --max-groups 500 ord.csv
same "max-groups exact" "${tiny[@]}" -- $M4 --by system,lpar,pool,cpu,interval --max-groups "$n" ord.csv
same "selection" "${tiny[@]}" -- $M4 --lpar PROD1 missing.csv
same "all four" "${tiny[@]}" -- --metrics CPI,PRBSTATE,L1MP,L2P fine-ord.csv
# No temporary file can be made: the rows stay in memory, the report is the same.
same "no TMPDIR" "${tiny[@]}" TMPDIR="$tmp/none" -- $M4 dup.csv

# Streamed where it applies (with the default -j too), with a spill when forced; read whole where it does not.
seam "ordered" '^mfstat: streamed 480 rows' -- $M4 ord.csv
seam "spill" '^mfstat: streamed 480 rows, .*, ([2-9]|[1-9][0-9]+) runs spilled' "${tiny[@]}" -- $M4 ord.csv
seam "duplicates" '^mfstat: streamed 480 rows' "${tiny[@]}" -- $M4 dup.csv
seam "reversed" '^mfstat: not streamed' -- $M4 rev.csv
seam "late" '^mfstat: not streamed' -- $M4 late.csv
seam "no --metrics" '^mfstat: streamed 480 rows' -- ord.csv
seam "-f csv only" '^mfstat: not streamed' -- ord.csv -f json
# A CSV input only: an SMF dump (read once, its samples held for the LPAR view) takes the whole path.
"$GENSMF" --systems 1 --cpus 4 --intervals 6 -o dump.smf >/dev/null 2>&1 || exit 1
seam "SMF input" '^mfstat: not streamed' -- dump.smf
seam "--by pool" '^mfstat: not streamed' -- $M4 --by pool,interval ord.csv
seam "-j 2" '^mfstat: streamed 480 rows' -- -j 2 $M4 ord.csv
# -j 2 decides by the rows a group once MFSTAT_STREAM_DECIDE_ROWS rows are read: the finest grain
# streams, a coarser grouping is read again in parts (faster, its groups few); the same report.
seam "-j 2 finest" '^mfstat: streamed' MFSTAT_STREAM_DECIDE_ROWS=100 -- -j 2 $M4 fine-ord.csv
seam "-j 2 coarse" '^mfstat: not streamed' MFSTAT_STREAM_DECIDE_ROWS=100 -- -j 2 $M4 ord.csv
seam "-j 1 coarse" '^mfstat: streamed 480 rows' MFSTAT_STREAM_DECIDE_ROWS=100 -- -j 1 $M4 ord.csv
same "-j 2 coarse, decided" MFSTAT_STREAM_DECIDE_ROWS=100 -- $M4 ord.csv
same "-j 2 finest, decided" MFSTAT_STREAM_DECIDE_ROWS=100 -- $M4 fine-ord.csv

# Memory bounded by the open intervals: at most a batch and one interval's groups held (24 a
# interval here with cpu in --by, 960 in all), and one start's identities in the duplicate table.
"$GENCSV" --systems 3 --lpars 2 --cpus 4 --ziip 1 --intervals 400 --seed 6 >many.csv || exit 1
MFSTAT_TEST_STREAM=1 MFSTAT_STREAM_BATCH=50 "$M" report -j 1 -f csv $M4 --by system,lpar,pool,cpu,interval many.csv \
	-o /dev/null 2>seam.err
line=$(grep '^mfstat: streamed' seam.err)
rows=$(echo "$line" | awk '{ print $3 }')
groups=$(echo "$line" | awk '{ print $7 }')
ids=$(echo "$line" | awk '{ print $10 }')
if [ "$rows" != 9600 ] || [ "$groups" -gt 74 ] || [ "$ids" -gt 24 ]; then
	echo "FAIL: memory not bounded by the open intervals: $line (want 9600 rows, at most 74 groups, 24 identities)"
	fail=1
fi

# SIGKILL while the temporary file is open: nothing is left in TMPDIR.
"$GENCSV" --systems 3 --series 3000 --days 60 --seed 7 --ordered >big.csv || exit 1
MFSTAT_STREAM_MEM=1 MFSTAT_STREAM_BATCH=1 "$M" report -j 1 -f csv $M4 big.csv -o /dev/null 2>/dev/null &
pid=$!
seen=0
for _ in $(seq 1 6000); do # up to 60 s: a hang guard, not a time asserted
	if ls -l /proc/$pid/fd 2>/dev/null | grep -q "$TMPDIR/mfstat-stream-.*(deleted)"; then
		seen=1
		break
	fi
	kill -0 $pid 2>/dev/null || break
	sleep 0.01
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
[ $seen = 1 ] || { echo "FAIL: no temporary file (unlinked) was seen open while the run spilled"; fail=1; }
if [ -n "$(ls -A "$TMPDIR")" ]; then
	echo "FAIL: files left in TMPDIR after SIGKILL: $(ls -A "$TMPDIR")"
	fail=1
fi
[ $fail = 0 ] && echo "ok: streamed reports identical to the whole path's, memory bounded, nothing left behind"
exit $fail
