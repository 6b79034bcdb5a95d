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
	"$MFSTAT" stat --fallback -a --duration 0.5 -f json > "$tmp/real" 2> "$tmp/err" || { echo "FAIL: real: $(cat "$tmp/err")"; exit 1; }
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
MFSTAT_SYSROOT=$root "$MFSTAT" stat --fallback -a --duration 0.2 -f json > "$tmp/json" 2> "$tmp/err" || { echo "FAIL: exit $?: $(cat "$tmp/err")"; fail=1; }
grep -q '"intel_uncore":{"imcs":2,"DRAM_GBS":[0-9]' "$tmp/json" || { echo "FAIL: no DRAM_GBS: $(cat "$tmp/json")"; fail=1; }
grep -q '"DRAM_UTIL":null' "$tmp/json" || { echo "FAIL: DRAM_UTIL without --mem-peak should be null"; fail=1; }
# Reads are 2e9 of 3e9 CAS commands over both controllers.
grep -q '"DRAM_READ_PCT":66.6666666666667' "$tmp/json" || { echo "FAIL: DRAM_READ_PCT: $(cat "$tmp/json")"; fail=1; }
MFSTAT_SYSROOT=$root "$MFSTAT" stat --fallback -a --duration 0.2 --mem-peak 25.6 -f json > "$tmp/json2" 2>/dev/null
grep -q '"DRAM_UTIL":[0-9]' "$tmp/json2" || { echo "FAIL: DRAM_UTIL with --mem-peak: $(cat "$tmp/json2")"; fail=1; }
[ $fail = 0 ] && echo "recorded Intel memory controllers: ok"
exit $fail
