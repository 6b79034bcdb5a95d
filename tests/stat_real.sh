#!/bin/bash
# SPDX-License-Identifier: MIT
# mfstat stat on this machine, for real.  Without a cpum_cf PMU (anything but Linux on Z): exit 3
# with the reason and the command not run; --fallback runs it and counts software events.
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
"$MFSTAT" stat --fallback -f json -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; touch '"$tmp/ran2" > "$tmp/json" 2> "$tmp/err"
st=$?
[ $st = 0 ] || { echo "FAIL: --fallback exit $st: $(cat "$tmp/err")"; fail=1; }
[ -e "$tmp/ran2" ] || { echo "FAIL: --fallback did not run the command"; fail=1; }
grep -qE '"task-clock":[1-9][0-9]*' "$tmp/json" || { echo "FAIL: no task-clock count: $(cat "$tmp/json")"; fail=1; }
grep -qE '"page-faults":[1-9][0-9]*' "$tmp/json" || { echo "FAIL: no page faults counted"; fail=1; }
if grep -q '"cycles":null' "$tmp/json"; then
	echo "note: no hardware PMU here (cycles not countable): CPI is null, as the report says"
	grep -q '"CPI":null' "$tmp/json" || { echo "FAIL: CPI should be null"; fail=1; }
else
	grep -qE '"CPI":[0-9]' "$tmp/json" || { echo "FAIL: CPI missing with a hardware PMU"; fail=1; }
fi
[ $fail = 0 ] && echo "stat on this machine: ok"
exit $fail
