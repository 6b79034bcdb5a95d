#!/bin/bash
# SPDX-License-Identifier: MIT
# stat --fallback -a on Intel: DRAM traffic from the memory controllers (intel_uncore metrics).
# First on a recorded tree with two uncore_imc PMUs (through MFSTAT_SYSROOT), then, where this
# machine has them, for real (else that part skips with the reason).
set -u
MFSTAT=$1
MODE=${2:-recorded} # recorded | real
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
if [ "$MODE" = real ]; then
	if [ ! -e /sys/bus/event_source/devices/uncore_imc_0 ]; then
		echo "SKIP: this machine has no uncore_imc PMU (a virtual machine, or not Intel)"
		exit 77
	fi
	"$MFSTAT" stat --fallback -a --duration 0.5 -f json -o - > "$tmp/real" 2> "$tmp/err" || { echo "FAIL: real: $(cat "$tmp/err")"; exit 1; }
	grep -q '"intel_uncore"' "$tmp/real" || { echo "FAIL: real: no memory section"; exit 1; }
	echo "real memory controllers: ok"
	exit 0
fi
root=$tmp/intel
for i in 0 1; do
	d=$root/sys/bus/event_source/devices/uncore_imc_$i
	mkdir -p "$d/events" "$d/format"
	echo $((20 + i)) > "$d/type"
	echo 0 > "$d/cpumask"
	echo 'event=0x04,umask=0x03' > "$d/events/cas_count_read"
	echo 'event=0x04,umask=0x0c' > "$d/events/cas_count_write"
	echo 'config:0-7' > "$d/format/event"
	echo 'config:8-15' > "$d/format/umask"
done
mkdir -p "$root/proc/sys/kernel" "$root/sys/devices/system/cpu"
echo 0 > "$root/proc/sys/kernel/perf_event_paranoid"
echo 0-1 > "$root/sys/devices/system/cpu/online"
# config 0x0304 = 772 (reads), 0x0c04 = 3076 (writes): per controller 1e9 reads, 5e8 writes.
printf '772\t1000000000\n3076\t500000000\n' > "$root/counts.tsv"
MFSTAT_SYSROOT=$root "$MFSTAT" stat --fallback -a --duration 0.2 -f json -o - > "$tmp/json" 2> "$tmp/err" || { echo "FAIL: exit $?: $(cat "$tmp/err")"; fail=1; }
# Two families in one report: linux_perf (the generic events) and intel_uncore, one group each.
grep -q '"machine":"linux_perf"' "$tmp/json" || { echo "FAIL: no linux_perf group: $(cat "$tmp/json")"; fail=1; }
grep -q '"machine":"intel_uncore","cpus":1,"cpus_expected":1,"metrics":{"DRAM_GBS":[0-9]' "$tmp/json" || { echo "FAIL: no DRAM_GBS: $(cat "$tmp/json")"; fail=1; }
# A family without the first report key (CPI) still gets valid JSON: no '{,'.
! grep -q '{,' "$tmp/json" || { echo "FAIL: invalid JSON: $(cat "$tmp/json")"; fail=1; }
grep -q '"DRAM_UTIL":null' "$tmp/json" || { echo "FAIL: DRAM_UTIL without --mem-peak should be null"; fail=1; }
# Reads are 2e9 of 3e9 CAS commands over both controllers.
grep -q '"DRAM_READ_PCT":66.6666666666667' "$tmp/json" || { echo "FAIL: DRAM_READ_PCT: $(cat "$tmp/json")"; fail=1; }
# 64 bytes x 3e9 CAS commands = 192 GB over the run: DRAM_GBS * interval_seconds.
awk -v RS='[{},]' -F: '$1 == "\"interval_seconds\"" { s = $2 } $1 == "\"DRAM_GBS\"" { g = $2 }
	END { if (g * s < 191.999 || g * s > 192.001) { print "FAIL: DRAM_GBS x seconds = " g * s; exit 1 } }' "$tmp/json" || fail=1
MFSTAT_SYSROOT=$root "$MFSTAT" stat --fallback -a --duration 0.2 --mem-peak 25.6 -f json -o - > "$tmp/json2" 2>/dev/null
grep -q '"DRAM_UTIL":[0-9]' "$tmp/json2" || { echo "FAIL: DRAM_UTIL with --mem-peak: $(cat "$tmp/json2")"; fail=1; }
# -I: both families per interval; the recorded counts all fall into the first one.
MFSTAT_SYSROOT=$root "$MFSTAT" stat -q --fallback -a --duration 0.2 -I 50 -f csv 2> "$tmp/iv.csv" || { echo "FAIL: -I"; fail=1; }
[ "$(grep -c ',intel_uncore,' "$tmp/iv.csv")" -ge 3 ] && [ "$(grep -c ',linux_perf,' "$tmp/iv.csv")" -ge 3 ] ||
	{ echo "FAIL: -I intervals: $(cat "$tmp/iv.csv")"; fail=1; }
# -f csv -o FILE: the raw counts of both families in one counter CSV, which report reads back.
MFSTAT_SYSROOT=$root "$MFSTAT" stat -q --fallback -a --duration 0.2 -f csv -o "$tmp/raw.csv" > /dev/null 2>&1 || { echo "FAIL: -o"; fail=1; }
grep -q '^intel_uncore,,[0-9.]*,,,,,,,,,,2000000000,1000000000$' "$tmp/raw.csv" && grep -q '^linux_perf,,' "$tmp/raw.csv" ||
	{ echo "FAIL: raw CSV: $(cat "$tmp/raw.csv")"; fail=1; }
"$MFSTAT" report -q -f json "$tmp/raw.csv" | grep -q '"DRAM_READ_PCT":66.6666666666667' || { echo "FAIL: raw CSV read back"; fail=1; }
[ $fail = 0 ] && echo "recorded Intel memory controllers: ok"
exit $fail
