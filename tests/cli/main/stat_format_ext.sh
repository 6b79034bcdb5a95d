# stat -o FILE without -f: the format from FILE's name (.json JSON, .csv the raw counter CSV,
# .txt text); an -f the name contradicts is a warning naming both; .html (no HTML here) is text,
# with a warning.  On a recorded z16 (MFSTAT_SYSROOT, the seam of tests/stat_recorded.sh).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/z16
ev=$root/sys/bus/event_source/devices/cpum_cf/events
mkdir -p "$ev" "$root/proc/sys/kernel"
echo 10 > "$root/sys/bus/event_source/devices/cpum_cf/type"
awk -F'\t' '/^[0-9]/ { printf "event=0x%04x\n", $1 > ("'"$ev"'/" $3) }' ../../data/counters/z16.tsv
printf 'CPU-MF: Counter facility: version=3.7 authorization=002f\nCPU-MF: Sampling facility: min_rate=18228 max_rate=170650536 cpu_speed=5200\n' > "$root/proc/service_levels"
printf 'Manufacturer:         IBM\nType:                 3931\n' > "$root/proc/sysinfo"
echo 0 > "$root/proc/sys/kernel/perf_event_paranoid"
printf '0\t3000000000\n1\t1000000000\n2\t5000000\n4\t15000000\n' > "$root/counts.tsv"
export MFSTAT_SYSROOT=$root
for f in r.json r.csv r.txt R.JSON; do
	"$MFSTAT" stat -q -o "$tmp/$f" -- true > "$tmp/out"
	echo "-o $f: exit $?, stdout $(wc -c < "$tmp/out") bytes, file starts: $(head -c 24 "$tmp/$f" | tr '\n' '|')"
done
echo "-- -f json -o c.csv:"
"$MFSTAT" stat -f json -o "$tmp/c.csv" -- true 2>&1 > /dev/null | grep 'whose name' | sed "s|$tmp/||"
echo "exit ${PIPESTATUS[0]}, file starts: $(head -c 10 "$tmp/c.csv")"
echo "-- -o r.html:"
"$MFSTAT" stat -o "$tmp/r.html" -- true 2>&1 > /dev/null | grep 'HTML' | sed "s|$tmp/||"
echo "file starts: $(head -c 24 "$tmp/r.html" | tr '\n' '|')"
echo "-- -f text -o r.txt (agrees): warnings about the name: $("$MFSTAT" stat -f text -o "$tmp/r.txt" -- true 2>&1 | grep -c 'whose name')"
