#!/bin/bash
# SPDX-License-Identifier: MIT
# mfstat stat on this machine, for real.  Without a cpum_cf PMU (anything but Linux on Z): exit 3
# with the reason and the command not run; --fallback runs it and counts Linux perf's generic
# events (family linux_perf), reported by the normal writers with -f, -o and -I, and passes the
# command's exit status through (128+N for a signal N).
set -u
MFSTAT=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
if [ -e /sys/bus/event_source/devices/cpum_cf ]; then
	echo "SKIP: this machine has CPU-MF counters; the no-counter path is tested on other machines"
	exit 77
fi
"$MFSTAT" stat -- touch "$tmp/ran" 2> "$tmp/err"
st=$?
[ $st = 3 ] || { echo "FAIL: exit $st, expected 3"; fail=1; }
grep -q 'no cpum_cf PMU' "$tmp/err" || { echo "FAIL: reason: $(cat "$tmp/err")"; fail=1; }
[ ! -e "$tmp/ran" ] || { echo "FAIL: the command ran"; fail=1; }
if [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 9)" -gt 2 ] && [ "$(id -u)" != 0 ]; then
	echo "SKIP (fallback part): perf_event_paranoid > 2 and not root: perf is closed to this user"
	[ $fail = 0 ] && exit 77
	exit $fail
fi
busy='i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'
"$MFSTAT" stat --fallback -f json -o - -- sh -c "$busy; touch $tmp/ran2" > "$tmp/json" 2> "$tmp/err"
st=$?
[ $st = 0 ] || { echo "FAIL: --fallback exit $st: $(cat "$tmp/err")"; fail=1; }
[ -e "$tmp/ran2" ] || { echo "FAIL: --fallback did not run the command"; fail=1; }
grep -q '^{"schema":1,"period":{.*},"groups":\[$' "$tmp/json" || { echo "FAIL: not the report JSON: $(head -c 300 "$tmp/json")"; fail=1; }
grep -q '"machine":"linux_perf"' "$tmp/json" || { echo "FAIL: family linux_perf: $(cat "$tmp/json")"; fail=1; }
grep -qE '"TASK_MS":[0-9.]*[1-9]' "$tmp/json" || { echo "FAIL: no task-clock: $(cat "$tmp/json")"; fail=1; }
grep -qE '"FAULTS":[1-9][0-9]*' "$tmp/json" || { echo "FAIL: no page faults counted"; fail=1; }
grep -qE '"CPUS_UTILIZED":0\.[0-9]|"CPUS_UTILIZED":1[,.}]' "$tmp/json" || { echo "FAIL: CPUS_UTILIZED"; fail=1; }
grep -q 'counted Linux perf.s generic events instead' "$tmp/json" || { echo "FAIL: the reason is not in the JSON warnings"; fail=1; }
if grep -q 'generic events not counted: cycles' "$tmp/json"; then
	echo "note: no hardware PMU here (cycles not countable): CPI is null, and the warnings say why"
	grep -q '"CPI":null' "$tmp/json" || { echo "FAIL: CPI should be null"; fail=1; }
else
	grep -qE '"CPI":[0-9]' "$tmp/json" || { echo "FAIL: CPI missing with a hardware PMU"; fail=1; }
fi

# -f csv -o FILE: FILE gets the raw counts as counter CSV, which report reads back; the text
# report goes to standard error (as perf stat's, and with CPU-MF counters), standard output stays
# the command's.
"$MFSTAT" stat -q --fallback -f csv -o "$tmp/rep.csv" -- true > "$tmp/stdout" 2> "$tmp/stderr" || { echo "FAIL: -o"; fail=1; }
grep -q '^linux_perf ' "$tmp/stderr" || { echo "FAIL: no text report with -f csv -o: $(cat "$tmp/stderr")"; fail=1; }
[ ! -s "$tmp/stdout" ] || { echo "FAIL: the report went to standard output: $(cat "$tmp/stdout")"; fail=1; }
head -1 "$tmp/rep.csv" | grep -q '^machine,cpsp,interval_seconds,.*task_clock' || { echo "FAIL: raw CSV header: $(head -1 "$tmp/rep.csv")"; fail=1; }
grep -q '^linux_perf,,' "$tmp/rep.csv" || { echo "FAIL: raw CSV row"; fail=1; }
grep -q '^TASK_MS' <("$MFSTAT" report -f csv "$tmp/rep.csv" | head -1 | tr , '\n') || { echo "FAIL: raw CSV not read back"; fail=1; }
"$MFSTAT" stat -q --fallback -f json -o "$tmp/rep.json" -- true > "$tmp/stdout" || { echo "FAIL: -o json"; fail=1; }
grep -q '"machine":"linux_perf"' "$tmp/rep.json" && [ ! -s "$tmp/stdout" ] || { echo "FAIL: -f json -o FILE (the report goes to FILE only)"; fail=1; }

# -I: one group per interval.
"$MFSTAT" stat -q --fallback -I 50 -f csv -- sh -c "$busy; sleep 0.2" 2> "$tmp/iv.csv" || { echo "FAIL: -I"; fail=1; }
rows=$(($(wc -l < "$tmp/iv.csv") - 1))
[ "$rows" -ge 3 ] || { echo "FAIL: --fallback -I gave $rows intervals"; cat "$tmp/iv.csv"; fail=1; }
[ "$(cut -d, -f5 "$tmp/iv.csv" | sed 1d | sort -u | wc -l)" = "$rows" ] || { echo "FAIL: interval starts not distinct"; fail=1; }

# The command's exit status passes through, after the report; a signal N gives 128+N.
"$MFSTAT" stat -q --fallback -f json -o - -- sh -c 'exit 7' > "$tmp/j7"; st=$?
[ $st = 7 ] || { echo "FAIL: exit status $st, expected the command's 7"; fail=1; }
grep -q '"machine":"linux_perf"' "$tmp/j7" || { echo "FAIL: no report for a failing command"; fail=1; }
"$MFSTAT" stat --fallback -- sh -c 'kill -TERM $$' > /dev/null 2> "$tmp/err"; st=$?
[ $st = 143 ] || { echo "FAIL: killed by SIGTERM: exit $st, expected 143"; fail=1; }
grep -q 'killed by signal 15' "$tmp/err" || { echo "FAIL: signal not named: $(cat "$tmp/err")"; fail=1; }
[ $fail = 0 ] && echo "stat on this machine: ok"
exit $fail
