# stat -a without --duration counts until SIGINT (^C), then reports and exits 130 as perf stat -a
# does; -I reports every interval until then; --duration is ended early by SIGINT too.  On a
# recorded z16 with two online CPUs (MFSTAT_SYSROOT: counts replayed, summed over the CPUs, so
# CPI is 3); mfstat runs in the background, is sent SIGINT once it catches it (SigCgt in
# /proc/PID/status: it is counting then), and must end within 10 seconds.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/z16
ev=$root/sys/bus/event_source/devices/cpum_cf/events
mkdir -p "$ev" "$root/proc/sys/kernel" "$root/sys/devices/system/cpu"
echo 10 > "$root/sys/bus/event_source/devices/cpum_cf/type"
awk -F'\t' '/^[0-9]/ { printf "event=0x%04x\n", $1 > ("'"$ev"'/" $3) }' ../../data/counters/z16.tsv
printf 'CPU-MF: Counter facility: version=3.7 authorization=002f\nCPU-MF: Sampling facility: min_rate=18228 max_rate=170650536 cpu_speed=5200\n' > "$root/proc/service_levels"
printf 'Manufacturer:         IBM\nType:                 3931\n' > "$root/proc/sysinfo"
echo 0 > "$root/proc/sys/kernel/perf_event_paranoid"
echo 0-1 > "$root/sys/devices/system/cpu/online"
printf '0\t3000000000\n1\t1000000000\n2\t5000000\n4\t15000000\n' > "$root/counts.tsv"
export MFSTAT_SYSROOT=$root

# Runs mfstat stat ARGS in the background, sends SIGINT after it catches it and SLEEP more seconds.
interrupt() {
	local pause=$1 pid i
	shift
	"$MFSTAT" stat "$@" > "$tmp/out" 2> "$tmp/err" &
	pid=$!
	for i in $(seq 200); do
		(( 0x$(awk '/^SigCgt/ { print $2 }' /proc/$pid/status 2> /dev/null || echo 0) & 2 )) && break
		sleep 0.05
	done
	case $pause in
	rows:*) # until the output holds that many lines (intervals written), at most 10 s: not a race under load
		for i in $(seq 200); do
			[ "$(cat "$tmp/out" "$tmp/err" | wc -l)" -ge "${pause#rows:}" ] && break
			sleep 0.05
		done ;;
	*) sleep "$pause" ;;
	esac
	kill -INT $pid
	for i in $(seq 100); do
		kill -0 $pid 2> /dev/null || break
		sleep 0.1
	done
	if kill -0 $pid 2> /dev/null; then
		kill -KILL $pid
		echo "did not end within 10 s of SIGINT"
	fi
	wait $pid
	echo "exit $?"
}

echo "-- stat -a -f json, SIGINT after 0.2 s:"
interrupt 0.2 -q -a -f json -o -
grep -o '"CPI":[0-9.]*,' "$tmp/out"
awk -F'"interval_seconds":' 'NF > 1 { split($2, a, ","); print (a[1] >= 0.2 && a[1] < 10) ? "counted for the time until SIGINT" : "counted " a[1] " s" }' "$tmp/out" | head -1
echo "-- stat -a -I 100 -f csv, SIGINT after 3 intervals:"
interrupt rows:4 -q -a -I 100 -f csv
rows=$(($(wc -l < "$tmp/err") - 1)) # the report on standard error, as perf stat's
[ "$rows" -ge 3 ] && echo "at least 3 intervals" || echo "only $rows intervals"
echo "-- stat -a --duration 60 -o raw.csv, SIGINT after 0.1 s (CSV from the name):"
interrupt 0.1 -a --duration 60 -o "$tmp/raw.csv"
grep -c '^3931,5200,[0-9.]*,6000000000,2000000000,' "$tmp/raw.csv"
grep -c 'warning\|error' "$tmp/err"
echo "-- a command's run is not changed: ^C goes to the command"
"$MFSTAT" stat -q -f json -o - -- sh -c 'exit 0' | grep -o '"CPI":[0-9.]*,'; echo "exit ${PIPESTATUS[0]}"
