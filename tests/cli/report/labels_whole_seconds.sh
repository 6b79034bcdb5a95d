#!/bin/bash
# Labels without noise (issue 24): text and HTML labels show whole seconds unless the data's
# intervals are shorter than a second; CSV and JSON keep every digit.  perf stat -I 1000 (each
# interval 1.001235 s, as perf's timer drifts), then -I 1 (1.235 ms), both from a '# started on'
# line; and the period end of a jittered SMF dump (tests/data/lpar-demo.smf).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
perf() { # perf SECONDS-PER-INTERVAL-IN-US
	printf '# started on Mon Mar  3 10:01:00 2025\n\n#           time             counts unit events\n'
	for i in 1 2 3; do
		t=$((i * $1))
		printf '%12d.%06d%19s      CPU_CYCLES\n%12d.%06d%19s      INSTRUCTIONS\n' $((t / 1000000)) $((t % 1000000)) \
			$(((i + 2) * 1000000)) $((t / 1000000)) $((t % 1000000)) 1000000
	done
}
perf 1001235 > "$tmp/i1000.txt"
perf 1235 > "$tmp/i1.txt"
for f in i1000 i1; do
	echo "== perf -I, $f"
	"$MFSTAT" report --tz UTC --by interval --machine z16 --metrics CPI "$tmp/$f.txt" | sed -n '1p;6,8p'
	"$MFSTAT" report --tz UTC --by interval --machine z16 --metrics CPI -f csv "$tmp/$f.txt" | cut -d, -f5-8 | sed -n 3p
	"$MFSTAT" report --tz UTC --by interval --machine z16 --metrics CPI -f json "$tmp/$f.txt" | grep -o '"period":{[^}]*}'
	"$MFSTAT" report --tz UTC --by interval --machine z16 --metrics CPI -f html "$tmp/$f.txt" |
		grep -o '[0-9]\{4\}-[0-9-]*T[0-9:.]*Z' | sort -u | head -4
done
