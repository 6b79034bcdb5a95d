# SPDX-License-Identifier: MIT
# Sourced by the tests and benchmarks of the Linux on Z paths: recorded_z16 ROOT DATA [AUTH [CPUS]]
# makes below ROOT the sysfs and procfs files of a z16 LPAR as the reference notes give them (the
# cpum_cf PMU and one event file per counter of DATA/counters/z16.tsv, machine type 3931, 5200 MHz,
# counter facility 3.7 with authorization AUTH, default 002f, perf_event_paranoid 0, CPUS online,
# default 0-1).  The caller writes ROOT/counts.tsv ("config<TAB>value[<TAB>step]" lines) and
# points MFSTAT_SYSROOT at ROOT.
recorded_z16() {
	local root=$1 data=$2 auth=${3:-002f} cpus=${4:-0-1}
	local ev=$root/sys/bus/event_source/devices/cpum_cf/events
	mkdir -p "$ev" "$root/proc/sys/kernel" "$root/sys/devices/system/cpu"
	echo 10 > "$root/sys/bus/event_source/devices/cpum_cf/type"
	awk -F'\t' '/^[0-9]/ { printf "event=0x%04x\n", $1 > ("'"$ev"'/" $3) }' "$data/counters/z16.tsv"
	printf 'CPU-MF: Counter facility: version=3.7 authorization=%s\nCPU-MF: Sampling facility: min_rate=18228 max_rate=170650536 cpu_speed=5200\n' "$auth" > "$root/proc/service_levels"
	printf 'Manufacturer:         IBM\nType:                 3931\n' > "$root/proc/sysinfo"
	echo 0 > "$root/proc/sys/kernel/perf_event_paranoid"
	echo "$cpus" > "$root/sys/devices/system/cpu/online"
}
