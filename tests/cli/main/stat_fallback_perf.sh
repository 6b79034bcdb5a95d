# stat --fallback's text report ends with perf stat's lines: task-clock in msec (thousands
# grouped), the CPUs utilized, the seconds elapsed and, for a command, its user and sys seconds,
# in perf stat's layout; system-wide ('system wide') without user and sys.  Replayed counts
# (the seam takes config 1 for instructions and task-clock: 1,234,567,890 ns = 1,234.57 msec);
# the times are real, so their digits are masked.  Not with -I, -f json or in -f csv -o's file.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fb=$tmp/x86
mkdir -p "$fb/proc/sys/kernel" "$fb/sys/devices/system/cpu"
echo 0 > "$fb/proc/sys/kernel/perf_event_paranoid"
echo 0-1 > "$fb/sys/devices/system/cpu/online"
printf '0\t3000000000\n1\t1234567890\n3\t20000000\n' > "$fb/counts.tsv"
export MFSTAT_SYSROOT=$fb
mask() { sed -n '/Performance counter stats/,$p' | sed -E 's/# +[0-9.]+ CPUs/# N.NNN CPUs/; s/^ +[0-9]+\.[0-9]{9} seconds/       N.NNNNNNNNN seconds/'; }
"$MFSTAT" stat -q --fallback -o - -- sh -c 'exit 0' | mask
echo "--- -a --duration 0.05 (two CPUs):"
"$MFSTAT" stat -q --fallback -a --duration 0.05 -o - | mask
echo "--- -f json: $("$MFSTAT" stat -q --fallback -f json -o - -- true | grep -c 'Performance counter stats')"
echo "--- -I 100: $("$MFSTAT" stat -q --fallback -I 100 -o - -- sleep 0.15 | grep -c 'Performance counter stats')"
"$MFSTAT" stat -q --fallback -f csv -o "$tmp/raw.csv" -- true 2>&1 >/dev/null | grep -c 'seconds user'
echo "--- raw CSV: $(grep -c 'Performance' "$tmp/raw.csv")"
