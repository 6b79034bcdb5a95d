#!/bin/bash
# SPDX-License-Identifier: MIT
# The roll-ups that mfstat db import writes (the hours' counter sums gathered in C as it writes
# the samples, src/lib/db/rollup.c mf_db_rollup_hours) equal those that mfstat db rollup
# recomputes by hand from the samples in SQL: every row of rollup and rollup_<family>, for
# inputs of two families, interval lengths that are not whole seconds (jitter), counters that
# only some samples have (partial), the local offset of SMF, a file alone in its hours, one
# sharing its hours with another file's samples, copies already held, and CPUs that change from
# hour to hour (a day's CPUs are the union of its hours' CPU sets, counted in C on import).
set -u
MFSTAT=$1
GENSMF=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3 shell"; exit 77; }
fail=0

gen() { "$GENSMF" -q --systems 3 --cpus 6 --ziip 2 --families z16,z15 --intervals 40 --jitter-ms 300 \
	--mt-lost 5 --rmf --topology "$@" || { echo "FAIL gensmf $*"; exit 1; }; }
gen --start 2025-03-01T00:00:00Z -o "$tmp/a.smf"
gen --start 2025-03-01T12:00:00Z -o "$tmp/b.smf"                    # hours of its own
gen --start 2025-03-01T00:07:30Z --interval-seconds 600 -o "$tmp/c.smf" # shares a.smf's hours
"$MFSTAT" export -q "$tmp/a.smf" -o "$tmp/a.csv" || { echo "FAIL export"; exit 1; }
# Even CPUs in even hours, odd CPUs in odd hours: each hour has half a pool's CPUs, the day all.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "cpu") c = i; if ($i == "interval_start") t = i }; print; next }
	{ h = substr($t, 12, 2) + 0; if (h % 2 == $c % 2) print }' "$tmp/a.csv" >"$tmp/vary.csv"

# Every roll-up row with its sums, by its key (db rollup by hand writes them anew: other ids).
rollups() {
	local f cols
	for f in $(sqlite3 -batch -noheader "$1" "SELECT DISTINCT family FROM rollup ORDER BY family"); do
		cols=$(sqlite3 -batch -noheader "$1" "SELECT group_concat('x.\"' || name || '\"', ', ') FROM pragma_table_info('rollup_$f') WHERE name <> 'id'")
		sqlite3 -batch -noheader "$1" "SELECT r.level, r.system, r.lpar, r.pool, r.family, r.machine, r.bucket_us, r.utc_offset_s, r.offset_known, r.bucket, r.samples, r.cpus, r.seconds, r.cpu_seconds, r.first_us, r.last_us, r.cpsp_min, r.cpsp_max, r.rmf_busy_s, r.rmf_samples, r.partial, $cols FROM rollup r JOIN \"rollup_$f\" x ON x.id = r.id WHERE r.family = '$f' ORDER BY r.level, r.system, r.lpar, r.pool, r.bucket_us, r.utc_offset_s, r.offset_known" || return 1
	done
}

check() { # check NAME INPUT...: import, then db rollup by hand: the same roll-ups
	local name=$1 db=$tmp/$1.db
	shift
	"$MFSTAT" db import -q "$db" "$@" >"$tmp/$name.out" 2>&1 || { echo "FAIL $name: import"; cat "$tmp/$name.out"; fail=1; return; }
	rollups "$db" >"$tmp/$name.imported" || { echo "FAIL $name: reading"; fail=1; return; }
	[[ $(wc -l <"$tmp/$name.imported") -gt 10 ]] || { echo "FAIL $name: no roll-ups"; fail=1; return; }
	"$MFSTAT" db rollup -q "$db" || { echo "FAIL $name: db rollup"; fail=1; return; }
	rollups "$db" >"$tmp/$name.byhand"
	if cmp -s "$tmp/$name.imported" "$tmp/$name.byhand"; then
		echo "ok $name ($(wc -l <"$tmp/$name.imported") rows)"
	else
		echo "FAIL $name: import's roll-ups differ from db rollup's"
		diff "$tmp/$name.imported" "$tmp/$name.byhand" | head -n 10
		fail=1
	fi
}

check alone "$tmp/a.smf"
check apart "$tmp/a.smf" "$tmp/b.smf"
check shared "$tmp/a.smf" "$tmp/c.smf" "$tmp/b.smf"
check copies "$tmp/a.smf" "$tmp/a.csv" "$tmp/c.smf"
check csv "$tmp/a.csv" "$tmp/b.smf"
check cpus_vary "$tmp/vary.csv"
check cpus_vary_after "$tmp/b.smf" "$tmp/vary.csv"
# The day's CPUs are the union of its hours': more than any one hour has.
if [[ $(sqlite3 -batch -noheader "$tmp/cpus_vary.db" "SELECT (SELECT max(cpus) FROM rollup WHERE level = 'day') > (SELECT max(cpus) FROM rollup WHERE level = 'hour')") != 1 ]]; then
	echo "FAIL cpus_vary: a day does not have more CPUs than its hours"
	fail=1
fi
exit $fail
