#!/bin/bash
# SPDX-License-Identifier: MIT
# report --db over the roll-up levels (docs/db.md, "Which level answers"): at every level that
# can answer a question, the report from the hour, day or month roll-ups equals the one from the
# samples byte for byte (csv); a level that cannot answer is refused with the option that needs
# a finer one (exit 2); once `db prune` has aged the samples out, the report picks the coarsest
# roll-up that holds the period, says so, and still equals the report before the prune.
set -u
MFSTAT=$1
GENSMF=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3 shell"; exit 77; }
bad() { echo "FAIL $*"; fail=1; }

# Six weeks across a month end, two systems of four engines (one zIIP), with the LPAR view.
"$GENSMF" --systems 2 --cpus 4 --ziip 1 --intervals 4032 --start 2025-01-20T00:00:00Z --rmf --topology \
	-o "$tmp/d.smf" >/dev/null 2>&1 || { echo "FAIL gensmf"; exit 1; }
"$MFSTAT" db import -q "$tmp/m.db" "$tmp/d.smf" >/dev/null 2>&1 || { echo "FAIL import"; exit 1; }
db=$tmp/m.db

# same LEVEL OPTION...: the LEVEL roll-ups give the samples' report.
same() {
	local level=$1
	shift
	n=$((n + 1))
	"$MFSTAT" report -q --db "$db" --level sample "$@" -f csv >"$tmp/s.csv" 2>"$tmp/s.err" || { bad "sample $*: exit $?"; cat "$tmp/s.err"; return; }
	"$MFSTAT" report -q --db "$db" --level "$level" "$@" -f csv >"$tmp/r.csv" 2>"$tmp/r.err" || { bad "$level $*: exit $?"; cat "$tmp/r.err"; return; }
	[ "$(wc -l <"$tmp/s.csv")" -gt 1 ] || { bad "sample $*: no rows"; return; }
	cmp -s "$tmp/s.csv" "$tmp/r.csv" || { bad "$level $*: differs from the samples"; diff "$tmp/s.csv" "$tmp/r.csv" | head -4 | cut -c1-200; }
}
same month --by system,lpar,pool,month
same month --by pool
same month --by ''
same month --by system,month --system SYSB --pool ziip
same month --by system,month --from 2025-02-01 --metrics CPI,RNI,LSPR
same day --by system,lpar,pool,day
same day --by system,week --weekdays Mon-Fri
same day --by system,month --tz UTC
same day --by system --from 2025-02-03T00:00:00Z --to 2025-02-10
same hour --by system,hour --sort CPI --top 3
same hour --by system,pool,hour-of-day
same hour --by system,month --hours 8-17 --weekdays Mon-Fri
same hour --by system,day --from 2025-02-10 --to 2025-02-20T12:00:00Z
same hour --by system,day --tz Europe/Berlin
same hour --by system,weekday --tz +05:00

# Summer time: two dumps of the same systems, on UTC+1 to the change of 2025-03-30 01:00Z, then on
# UTC+2. Their day of the change and their March are each two roll-up rows, one per offset.
"$GENSMF" --systems 2 --cpus 2 --ziip 1 --intervals 104 --start 2025-03-28T23:00:00Z --utc-offset 60 \
	-o "$tmp/cet.smf" >/dev/null 2>&1 && "$GENSMF" --systems 2 --cpus 2 --ziip 1 --intervals 192 \
	--start 2025-03-30T01:00:00Z --utc-offset 120 --seed 2 -o "$tmp/cest.smf" >/dev/null 2>&1 &&
	"$MFSTAT" db import -q "$tmp/dst.db" "$tmp/cet.smf" "$tmp/cest.smf" >/dev/null 2>&1 || { echo "FAIL dst import"; exit 1; }
db_all=$db
db=$tmp/dst.db
same month --by system,pool,month
same month --by system,month --tz Europe/Berlin
same day --by system,day
same day --by system,day --tz Europe/Berlin
same hour --by system,hour --tz Europe/Berlin
same hour --by system,hour --tz UTC
db=$db_all

# refused LEVEL 'MESSAGE PART' OPTION...: exit 2 naming why.
refused() {
	local level=$1 want=$2
	shift 2
	n=$((n + 1))
	"$MFSTAT" report -q --db "$db" --level "$level" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc = 2 ] || { bad "$level $*: exit $rc, not 2"; return; }
	grep -qF -- "$want" "$tmp/err" || { bad "$level $*: no '$want' in:"; cat "$tmp/err"; }
}
refused hour 'the hour level cannot answer: --by interval needs the samples'
refused hour '--by cpu needs the samples' --by system,cpu
refused day '--by hour needs the hour level or a finer one' --by system,hour
refused month '--hours needs the hour level or a finer one' --by system --hours 8-17
refused month '--by week needs the day level' --by system,week
refused day '--from 2025-02-10T12:00:00Z falls inside one of its days' --by system --from 2025-02-10T12:00:00Z
refused month 'its months are cut on the clock the records were written in, not in --tz Europe/Berlin' --by system,month --tz Europe/Berlin
refused hour "its hours are cut on the clock the records were written in, not in --tz +05:30" --by system,day --tz +05:30
db=$tmp/dst.db # a local day is not a UTC day
refused day 'its days are cut on the clock the records were written in, not in --tz UTC' --by system,day --tz UTC
db=$db_all
n=$((n + 1))
"$MFSTAT" report -q d.smf --level hour >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q -- '--level is the level of a database read with --db' "$tmp/err" || bad "--level without --db"
n=$((n + 1))
"$MFSTAT" report -q --db "$db" --level week >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q -- "--level must be auto, sample, hour, day or month, not 'week'" "$tmp/err" || bad "--level week"

# After a prune that keeps 10 days of samples: the report picks the coarsest level that
# answers, says which, and gives what the samples gave before the prune.
cp "$db" "$tmp/p.db"
"$MFSTAT" db prune -q "$tmp/p.db" --keep sample=10d >/dev/null 2>&1 || bad "prune"
# auto LEVEL OPTION...: the pruned database's report read from LEVEL equals the full one's.
auto() {
	local level=$1
	shift
	n=$((n + 1))
	"$MFSTAT" report --db "$db" "$@" -f csv >"$tmp/full.csv" 2>/dev/null
	"$MFSTAT" report --db "$tmp/p.db" "$@" -f csv >"$tmp/pruned.csv" 2>"$tmp/err" || { bad "auto $*: exit $?"; cat "$tmp/err"; return; }
	grep -q "read from the $level roll-ups, as the samples before .* were pruned" "$tmp/err" || { bad "auto $*: not read from the $level roll-ups:"; cat "$tmp/err"; }
	cmp -s "$tmp/full.csv" "$tmp/pruned.csv" || { bad "auto $*: differs from the report before the prune"; diff "$tmp/full.csv" "$tmp/pruned.csv" | head -4 | cut -c1-200; }
}
auto month --by system,month
auto month --by pool
auto day --by system,day
auto day --by system,weekday
auto hour --by system,hour-of-day --hours 8-17
# The samples alone answer --by interval: the part of the period they no longer hold is said.
n=$((n + 1))
"$MFSTAT" report --db "$tmp/p.db" --by system,interval -f csv >/dev/null 2>"$tmp/err" || bad "interval after prune: exit $?"
grep -q 'the sample level holds nothing before .* (mfstat db prune): the report covers the period from then on; the month roll-ups cannot answer: --by interval needs the samples' "$tmp/err" || { bad "interval after prune:"; cat "$tmp/err"; }
# A period the samples still hold is read from them, with no warning.
n=$((n + 1))
"$MFSTAT" report --db "$tmp/p.db" --by system,day --from 2025-02-25 -f csv >"$tmp/a.csv" 2>"$tmp/err" || bad "recent: exit $?"
[ ! -s "$tmp/err" ] || { bad "recent: a warning"; cat "$tmp/err"; }
"$MFSTAT" report --db "$db" --by system,day --from 2025-02-25 -f csv 2>/dev/null | cmp -s - "$tmp/a.csv" || bad "recent: differs"
# diff --db compares two months from the roll-ups.
n=$((n + 1))
"$MFSTAT" diff -q --db "$tmp/p.db" --before 2025-01-20/2025-02-01 --after 2025-02-01/2025-03-01 -f csv >"$tmp/dp.csv" 2>/dev/null || bad "diff --db pruned: exit $?"
"$MFSTAT" diff -q --db "$db" --before 2025-01-20/2025-02-01 --after 2025-02-01/2025-03-01 -f csv 2>/dev/null | cmp -s - "$tmp/dp.csv" || bad "diff --db pruned differs"

echo "$n checks"
exit $fail
