#!/bin/bash
# SPDX-License-Identifier: MIT
# mfstat db import killed with SIGKILL at random points of an import of several files (docs/db.md
# "Transactions"), for several seeds: after each kill the database opens (db info), PRAGMA
# integrity_check is ok, and it holds exactly the files in `file`, each with exactly its samples
# (those of an import of that file alone); importing again then completes it.  The kill times
# are fractions of a first, uninterrupted import's time: nothing asserts a duration.
# The hang guard is the ctest TIMEOUT (MFSTAT_HANG_TIMEOUT).
set -u
MFSTAT=$1
GENSMF=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3 shell"; exit 77; }
q() { sqlite3 -batch -noheader "$1" "$2"; }

files=()
for i in 1 2 3 4; do
	"$GENSMF" -q --systems 2 --cpus 8 --ziip 2 --intervals 60 --rmf --topology \
		--start "2025-03-0${i}T00:00:00Z" -o "$tmp/d$i.smf" || { echo "FAIL gensmf"; exit 1; }
	files+=("$tmp/d$i.smf")
done
# Each file's samples, imported alone.
declare -A want
for f in "${files[@]}"; do
	"$MFSTAT" db import -q "$tmp/one.db" "$f" >/dev/null 2>&1 || { echo "FAIL import of $f alone"; exit 1; }
	want[$f]=$(q "$tmp/one.db" "SELECT samples_new FROM file WHERE name = '$f'")
	rm -f "$tmp/one.db"
done
t0=$(date +%s%N)
"$MFSTAT" db import -q "$tmp/full.db" "${files[@]}" >/dev/null 2>&1 || { echo "FAIL full import"; exit 1; }
t1=$(date +%s%N)
span=$(((t1 - t0) / 1000)) # microseconds
full=$(q "$tmp/full.db" "SELECT COUNT(*) || ',' || (SELECT SUM(c.B0) FROM counters_z16 c) FROM sample")

for seed in 1 2 3 4 5 6 7 8; do
	RANDOM=$seed
	db=$tmp/k$seed.db
	rm -f "$db" "$db-journal"
	for round in 1 2 3; do
		at=$((span * (RANDOM % 100) / 100))
		"$MFSTAT" db import -q "$db" "${files[@]}" >/dev/null 2>&1 &
		pid=$!
		sleep "$(printf '%d.%06d' $((at / 1000000)) $((at % 1000000)))"
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		[ -e "$db" ] || continue # killed before the file was made
		if ! "$MFSTAT" db info "$db" >/dev/null 2>"$tmp/err"; then
			# killed before the new file's schema was committed: an empty file, nothing imported
			if grep -q "error: an empty database" "$tmp/err" && [ "$(stat -c %s "$db")" = 0 ]; then
				n=$((n + 1))
				continue
			fi
			echo "FAIL seed $seed round $round: db info"; cat "$tmp/err"; fail=1; continue
		fi
		ic=$(q "$db" "PRAGMA integrity_check")
		[ "$ic" = ok ] || { echo "FAIL seed $seed round $round: integrity_check: $ic"; fail=1; }
		# every file held has exactly its samples, and no sample is of a file not held
		while IFS='|' read -r id name newn; do
			got=$(q "$db" "SELECT COUNT(*) FROM sample WHERE file = $id")
			if [ "$got" != "$newn" ] || [ "$newn" != "${want[$name]}" ]; then
				echo "FAIL seed $seed round $round: $name holds $got samples, says $newn, has ${want[$name]}"
				fail=1
			fi
		done < <(q "$db" "SELECT id, name, samples_new FROM file")
		orphans=$(q "$db" "SELECT COUNT(*) FROM sample WHERE file NOT IN (SELECT id FROM file)")
		[ "$orphans" = 0 ] || { echo "FAIL seed $seed: $orphans samples of no file"; fail=1; }
		n=$((n + 1))
	done
	"$MFSTAT" db import -q "$db" "${files[@]}" >/dev/null 2>&1 || { echo "FAIL seed $seed: import after the kills"; fail=1; }
	got=$(q "$db" "SELECT COUNT(*) || ',' || (SELECT SUM(c.B0) FROM counters_z16 c) FROM sample")
	[ "$got" = "$full" ] || { echo "FAIL seed $seed: after the kills $got, an import without $full"; fail=1; }
done
echo "$n kills checked, fail=$fail"
exit $fail
