#!/bin/bash
# SPDX-License-Identifier: MIT
# mfstat stat on a recorded Linux on Z system: a sysfs/procfs tree of a z16 LPAR made from the
# facts in the reference notes (cpum_cf PMU, its events, /proc/service_levels, /proc/sysinfo)
# and recorded counts, replayed through the system seam (MFSTAT_SYSROOT).  Checks the counting
# path end to end: the counters read, the raw CSV it writes, and the metrics of that CSV.
set -u
MFSTAT=$1
DATA=$2 # the project's data/ directory
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
root=$tmp/z16
ev=$root/sys/bus/event_source/devices/cpum_cf/events
mkdir -p "$ev" "$root/proc/sys/kernel"
echo 10 > "$root/sys/bus/event_source/devices/cpum_cf/type"
awk -F'\t' '/^[0-9]/ { printf "event=0x%04x\n", $1 > ("'"$ev"'/" $3) }' "$DATA/counters/z16.tsv"
printf 'CPU-MF: Counter facility: version=3.7 authorization=002f\nCPU-MF: Sampling facility: min_rate=18228 max_rate=170650536 cpu_speed=5200\n' > "$root/proc/service_levels"
printf 'Manufacturer:         IBM\nType:                 3931\n' > "$root/proc/sysinfo"
echo 0 > "$root/proc/sys/kernel/perf_event_paranoid"
# counts: B0 3e9 cycles, B1 1e9 instructions (CPI 3), B2+B4 2e7 misses (L1MP 2), P33 4e8.
printf '0\t3000000000\n1\t1000000000\n2\t5000000\n3\t90000000\n4\t15000000\n5\t80000000\n33\t400000000\n143\t600000000\n145\t16000000\n' > "$root/counts.tsv"

export MFSTAT_SYSROOT=$root
# The text report goes to standard error (as perf stat's), the raw counters to -o FILE.
if ! "$MFSTAT" stat -q -f csv -o "$tmp/raw.csv" -- true > "$tmp/out" 2> "$tmp/text"; then
	echo "FAIL: stat on the recorded z16: $(cat "$tmp/text")"; fail=1
fi
grep -q '^3931,5200,' "$tmp/raw.csv" || { echo "FAIL: raw CSV lacks machine and speed"; cat "$tmp/raw.csv"; fail=1; }
head -1 "$tmp/raw.csv" | grep -q ',B0,B1,B2,B3,B4,B5,P32,P33,' || { echo "FAIL: raw CSV header"; head -1 "$tmp/raw.csv"; fail=1; }
unset MFSTAT_SYSROOT
"$MFSTAT" report -f json --by "" "$tmp/raw.csv" > "$tmp/json" || fail=1
grep -q '"machine":"z16"' "$tmp/json" || { echo "FAIL: family"; fail=1; }
grep -q '"CPI":3,' "$tmp/json" || { echo "FAIL: CPI is not 3"; cat "$tmp/json"; fail=1; }
grep -q '"L1MP":2,' "$tmp/json" || { echo "FAIL: L1MP is not 2"; fail=1; }
grep -q '"PRBSTATE":40,' "$tmp/json" || { echo "FAIL: PRBSTATE is not 40"; fail=1; }
grep -q '"FINITE_CPI":0.6,' "$tmp/json" || { echo "FAIL: FINITE_CPI is not 0.6"; fail=1; }
grep -q '"EFF_GHZ":5.2,' "$tmp/json" || { echo "FAIL: EFF_GHZ is not 5.2"; fail=1; }
grep -q 'CPI' "$tmp/text" && grep -q 'z16' "$tmp/text" || { echo "FAIL: text report"; fail=1; }
[ ! -s "$tmp/out" ] || { echo "FAIL: the report went to standard output: $(cat "$tmp/out")"; fail=1; }

# System-wide on the two CPUs the tree lists online: the counts are summed over them.
mkdir -p "$root/sys/devices/system/cpu"
echo 0-1 > "$root/sys/devices/system/cpu/online"
MFSTAT_SYSROOT=$root "$MFSTAT" stat -q -a --duration 0.01 -f csv -o "$tmp/all.csv" > /dev/null 2>&1 || { echo "FAIL: -a"; fail=1; }
grep -q '^3931,5200,[0-9.]*,6000000000,2000000000,' "$tmp/all.csv" || { echo "FAIL: -a did not sum 2 CPUs"; cat "$tmp/all.csv"; fail=1; }
MFSTAT_SYSROOT=$root "$MFSTAT" stat -q -C 1 --duration 0.01 -f csv -o "$tmp/one.csv" > /dev/null 2>&1 || { echo "FAIL: -C 1"; fail=1; }
grep -q '^3931,5200,[0-9.]*,3000000000,1000000000,' "$tmp/one.csv" || { echo "FAIL: -C 1 counted more than one CPU"; fail=1; }

# -I: one group per interval; the recorded counts all fall into the first interval.
MFSTAT_SYSROOT=$root "$MFSTAT" stat -q -I 40 -f csv -- sleep 0.2 2> "$tmp/iv.csv" || { echo "FAIL: -I"; fail=1; }
rows=$(($(wc -l < "$tmp/iv.csv") - 1))
[ "$rows" -ge 3 ] || { echo "FAIL: -I gave $rows intervals"; cat "$tmp/iv.csv"; fail=1; }
sed -n 2p "$tmp/iv.csv" | grep -q ',z16,1,1,3,40,2,' || { echo "FAIL: -I first interval"; sed -n 2p "$tmp/iv.csv"; fail=1; }

# The command's exit status is mfstat's, after the report (128+N for a signal N), as perf stat
# does: a failing build under mfstat stat fails too.
MFSTAT_SYSROOT=$root "$MFSTAT" stat -q -f json -o - -- sh -c 'exit 5' > "$tmp/j5"; st=$?
[ $st = 5 ] || { echo "FAIL: exit $st, expected the command's 5"; fail=1; }
grep -q '"CPI":3,' "$tmp/j5" || { echo "FAIL: no report for a failing command"; fail=1; }
MFSTAT_SYSROOT=$root "$MFSTAT" stat -f csv -o "$tmp/raw9.csv" -- sh -c 'kill -KILL $$' > /dev/null 2> "$tmp/err"; st=$?
[ $st = 137 ] || { echo "FAIL: SIGKILL: exit $st, expected 137"; fail=1; }
grep -q 'killed by signal 9' "$tmp/err" || { echo "FAIL: signal not named: $(cat "$tmp/err")"; fail=1; }
grep -q '^3931,5200,' "$tmp/raw9.csv" || { echo "FAIL: no raw CSV for a killed command"; fail=1; }
MFSTAT_SYSROOT=$root "$MFSTAT" stat -q -- true > /dev/null 2>&1; st=$?
[ $st = 0 ] || { echo "FAIL: exit $st for a command that succeeded"; fail=1; }
MFSTAT_SYSROOT=$root "$MFSTAT" stat -q -o /nonexistent/dir/out.txt -- sh -c 'exit 5' 2> /dev/null; st=$?
[ $st = 1 ] || { echo "FAIL: a report that cannot be written is exit 1 whatever the command did, not $st"; fail=1; }
# ^C at the terminal (SIGINT to the process group) ends the command, not mfstat, which reports
# and exits 130.  setsid makes a group of mfstat and the command alone; skipped where this shell
# started with SIGINT ignored (the command would then ignore it too).
if (( (0x$(awk '/^SigIgn/ { print $2 }' /proc/$$/status) & 2) == 0 )) && command -v setsid > /dev/null; then
	MFSTAT_SYSROOT=$root setsid "$MFSTAT" stat -q -f json -o - -- sh -c 'kill -INT 0; sleep 2' > "$tmp/jint"; st=$?
	[ $st = 130 ] || { echo "FAIL: SIGINT: exit $st, expected 130"; fail=1; }
	grep -q '"CPI":3,' "$tmp/jint" || { echo "FAIL: no report after SIGINT: $(cat "$tmp/jint")"; fail=1; }
else
	echo "note: SIGINT ignored here or no setsid: the ^C check is skipped"
fi

# --fallback on a recorded machine without cpum_cf: the generic events are replayed by config
# (the seam ignores the type: cycles 0, instructions and task-clock 1, cache-misses and
# context-switches 3), reported as family linux_perf by the normal writers, -o and -I honoured.
fb=$tmp/x86
mkdir -p "$fb/proc/sys/kernel"
echo 0 > "$fb/proc/sys/kernel/perf_event_paranoid"
printf '0\t3000000000\n1\t1000000000\n3\t20000000\n' > "$fb/counts.tsv"
MFSTAT_SYSROOT=$fb "$MFSTAT" stat --fallback -f json -o "$tmp/fb.json" -- true > "$tmp/fbout" 2> "$tmp/err" || { echo "FAIL: fallback: $(cat "$tmp/err")"; fail=1; }
[ ! -s "$tmp/fbout" ] || { echo "FAIL: fallback -o FILE wrote to standard output"; fail=1; }
grep -q '"machine":"linux_perf"' "$tmp/fb.json" || { echo "FAIL: fallback family: $(cat "$tmp/fb.json")"; fail=1; }
grep -q '"CPI":3,' "$tmp/fb.json" || { echo "FAIL: fallback CPI is not 3: $(cat "$tmp/fb.json")"; fail=1; }
grep -q '"CACHE_MP":2,' "$tmp/fb.json" || { echo "FAIL: fallback cache misses per 100 instr"; fail=1; }
grep -q '"GHZ":3,' "$tmp/fb.json" || { echo "FAIL: fallback GHZ is not 3"; fail=1; }
grep -q '"TASK_MS":1000,' "$tmp/fb.json" || { echo "FAIL: fallback TASK_MS is not 1000"; fail=1; }
grep -q 'no cpum_cf PMU' "$tmp/fb.json" || { echo "FAIL: fallback reason not in the JSON warnings"; fail=1; }
MFSTAT_SYSROOT=$fb "$MFSTAT" stat -q --fallback -f csv -I 40 -- sleep 0.2 2> "$tmp/fbiv.csv" || { echo "FAIL: fallback -I"; fail=1; }
[ "$(grep -c ',linux_perf,' "$tmp/fbiv.csv")" -ge 3 ] || { echo "FAIL: fallback -I intervals: $(cat "$tmp/fbiv.csv")"; fail=1; }
sed -n 2p "$tmp/fbiv.csv" | grep -q ',linux_perf,1,1,3,3,2,' || { echo "FAIL: fallback -I first interval: $(sed -n 2p "$tmp/fbiv.csv")"; fail=1; }
MFSTAT_SYSROOT=$fb "$MFSTAT" stat -q --fallback -o - -- sh -c 'exit 4' > "$tmp/fbtext"; st=$?
[ $st = 4 ] || { echo "FAIL: fallback exit $st, expected the command's 4"; fail=1; }
grep -q '^linux_perf ' "$tmp/fbtext" || { echo "FAIL: fallback text report: $(cat "$tmp/fbtext")"; fail=1; }

# --machine names an IBM Z family: linux_perf (or any named family) is a usage error, not run.
MFSTAT_SYSROOT=$root "$MFSTAT" stat --machine linux_perf -- touch "$tmp/ran0" 2> "$tmp/err"; st=$?
[ $st = 2 ] && grep -q 'not an IBM Z family' "$tmp/err" && [ ! -e "$tmp/ran0" ] || { echo "FAIL: --machine linux_perf: exit $st $(cat "$tmp/err")"; fail=1; }

# The basic set not authorized: exit 3, the reason named, the command not run.
printf 'CPU-MF: Counter facility: version=3.7 authorization=0001\n' > "$root/proc/service_levels"
MFSTAT_SYSROOT=$root "$MFSTAT" stat -- touch "$tmp/ran" 2> "$tmp/err"
st=$?
[ $st = 3 ] || { echo "FAIL: unauthorized: exit $st"; fail=1; }
grep -q 'basic counter set is not authorized' "$tmp/err" || { echo "FAIL: reason: $(cat "$tmp/err")"; fail=1; }
[ ! -e "$tmp/ran" ] || { echo "FAIL: the command ran"; fail=1; }

# The extended set not authorized: counting goes on, and the missing metrics are named.
printf 'CPU-MF: Counter facility: version=3.7 authorization=000e\n' > "$root/proc/service_levels"
MFSTAT_SYSROOT=$root "$MFSTAT" stat -f json -o - -- true > "$tmp/json2" 2> "$tmp/err"
grep -q 'extended counter set is not authorized' "$tmp/err" || { echo "FAIL: extended reason: $(cat "$tmp/err")"; fail=1; }
grep -q '"RNI":null' "$tmp/json2" || { echo "FAIL: RNI should be null"; fail=1; }
grep -q '"LPARCPU":null' "$tmp/json2" && { echo "FAIL: LPARCPU should use the nominal speed"; fail=1; }
# ... and the warnings say so, not that LPARCPU is not available.
grep -q 'LPARCPU and AIU times are not available' "$tmp/err" && { echo "FAIL: contradicting warnings: $(cat "$tmp/err")"; fail=1; }
grep -q 'used the nominal speed of machine type 3931 (5200 MHz)' "$tmp/err" || { echo "FAIL: nominal speed not said: $(cat "$tmp/err")"; fail=1; }

# No machine type: asks for --machine; --machine z16 works.
printf 'Manufacturer: IBM\n' > "$root/proc/sysinfo"
MFSTAT_SYSROOT=$root "$MFSTAT" stat -- true 2> "$tmp/err"; st=$?
[ $st = 3 ] && grep -q 'give --machine' "$tmp/err" || { echo "FAIL: no type: exit $st $(cat "$tmp/err")"; fail=1; }
MFSTAT_SYSROOT=$root "$MFSTAT" stat -q --machine z16 -f json -o - -- true > "$tmp/json3" || { echo "FAIL: --machine z16"; fail=1; }
grep -q '"CPI":3,' "$tmp/json3" || { echo "FAIL: CPI with --machine"; fail=1; }
# A counts.tsv that is no table (a device without end, a line without end): an error, not a
# read forever.
cp "$root/counts.tsv" "$tmp/counts.keep"
ln -sf /dev/zero "$root/counts.tsv"
timeout 20 env MFSTAT_SYSROOT=$root "$MFSTAT" stat -q --machine z16 -- true > /dev/null 2> "$tmp/err"; st=$?
[ $st = 1 ] && grep -q 'counts.tsv: error: not a regular file' "$tmp/err" || { echo "FAIL: counts.tsv is /dev/zero: exit $st $(head -c 300 "$tmp/err")"; fail=1; }
rm -f "$root/counts.tsv"
{ cat "$tmp/counts.keep"; head -c 1000 /dev/zero | tr '\0' 7; } > "$root/counts.tsv"
timeout 20 env MFSTAT_SYSROOT=$root "$MFSTAT" stat -q --machine z16 -- true > /dev/null 2> "$tmp/err"; st=$?
[ $st = 1 ] && grep -q 'counts.tsv:10: error: line longer than 254 bytes' "$tmp/err" || { echo "FAIL: counts.tsv long line: exit $st $(head -c 300 "$tmp/err")"; fail=1; }
cp "$tmp/counts.keep" "$root/counts.tsv"
[ $fail = 0 ] && echo "stat on a recorded z16: ok"
exit $fail
