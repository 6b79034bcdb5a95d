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
if ! "$MFSTAT" stat -q -f csv -o "$tmp/raw.csv" -- true > "$tmp/text" 2> "$tmp/err"; then
	echo "FAIL: stat on the recorded z16: $(cat "$tmp/err")"; fail=1
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

# System-wide on the two CPUs the tree lists online: the counts are summed over them.
mkdir -p "$root/sys/devices/system/cpu"
echo 0-1 > "$root/sys/devices/system/cpu/online"
MFSTAT_SYSROOT=$root "$MFSTAT" stat -q -a --duration 0.01 -f csv -o "$tmp/all.csv" > /dev/null || { echo "FAIL: -a"; fail=1; }
grep -q '^3931,5200,[0-9.]*,6000000000,2000000000,' "$tmp/all.csv" || { echo "FAIL: -a did not sum 2 CPUs"; cat "$tmp/all.csv"; fail=1; }
MFSTAT_SYSROOT=$root "$MFSTAT" stat -q -C 1 --duration 0.01 -f csv -o "$tmp/one.csv" > /dev/null || { echo "FAIL: -C 1"; fail=1; }
grep -q '^3931,5200,[0-9.]*,3000000000,1000000000,' "$tmp/one.csv" || { echo "FAIL: -C 1 counted more than one CPU"; fail=1; }

# -I: one group per interval; the recorded counts all fall into the first interval.
MFSTAT_SYSROOT=$root "$MFSTAT" stat -q -I 40 -f csv -- sleep 0.2 > "$tmp/iv.csv" || { echo "FAIL: -I"; fail=1; }
rows=$(($(wc -l < "$tmp/iv.csv") - 1))
[ "$rows" -ge 3 ] || { echo "FAIL: -I gave $rows intervals"; cat "$tmp/iv.csv"; fail=1; }
sed -n 2p "$tmp/iv.csv" | grep -q ',z16,1,1,3,40,2,' || { echo "FAIL: -I first interval"; sed -n 2p "$tmp/iv.csv"; fail=1; }

# The basic set not authorized: exit 3, the reason named, the command not run.
printf 'CPU-MF: Counter facility: version=3.7 authorization=0001\n' > "$root/proc/service_levels"
MFSTAT_SYSROOT=$root "$MFSTAT" stat -- touch "$tmp/ran" 2> "$tmp/err"
st=$?
[ $st = 3 ] || { echo "FAIL: unauthorized: exit $st"; fail=1; }
grep -q 'basic counter set is not authorized' "$tmp/err" || { echo "FAIL: reason: $(cat "$tmp/err")"; fail=1; }
[ ! -e "$tmp/ran" ] || { echo "FAIL: the command ran"; fail=1; }

# The extended set not authorized: counting goes on, and the missing metrics are named.
printf 'CPU-MF: Counter facility: version=3.7 authorization=000e\n' > "$root/proc/service_levels"
MFSTAT_SYSROOT=$root "$MFSTAT" stat -f json -- true > "$tmp/json2" 2> "$tmp/err"
grep -q 'extended counter set is not authorized' "$tmp/err" || { echo "FAIL: extended reason: $(cat "$tmp/err")"; fail=1; }
grep -q '"RNI":null' "$tmp/json2" || { echo "FAIL: RNI should be null"; fail=1; }
grep -q '"LPARCPU":null' "$tmp/json2" && { echo "FAIL: LPARCPU should use the nominal speed"; fail=1; }

# No machine type: asks for --machine; --machine z16 works.
printf 'Manufacturer: IBM\n' > "$root/proc/sysinfo"
MFSTAT_SYSROOT=$root "$MFSTAT" stat -- true 2> "$tmp/err"; st=$?
[ $st = 3 ] && grep -q 'give --machine' "$tmp/err" || { echo "FAIL: no type: exit $st $(cat "$tmp/err")"; fail=1; }
MFSTAT_SYSROOT=$root "$MFSTAT" stat -q --machine z16 -f json -- true > "$tmp/json3" || { echo "FAIL: --machine z16"; fail=1; }
grep -q '"CPI":3,' "$tmp/json3" || { echo "FAIL: CPI with --machine"; fail=1; }
[ $fail = 0 ] && echo "stat on a recorded z16: ok"
exit $fail
