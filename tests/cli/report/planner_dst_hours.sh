#!/bin/bash
# The hour a clock repeats is two hours (issue 24): quarter-hour samples over the day summer
# time ends, hourly in Europe/Berlin (2025-10-26) and America/New_York (2025-11-02), and with
# --tz smf (and without --tz: the records' own offsets are the default) over a CSV whose
# utc_offset_minutes change from +120 to +60.  The expected hour keys, sums and CPI are
# computed here by GNU date and awk, not by mfstat's calendar: 25 rows a day, each of 3600 s,
# the repeated hour once at each offset.  Then what the day and --hours make of the same data.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# gen FIRST-EPOCH COUNT [OFFSET-SWITCH-EPOCH]: CSV rows every 900 s; with a switch epoch,
# utc_offset_minutes is 120 before it and 60 from it on.
gen() {
	local t0=$1 n=$2 sw=${3:-}
	if [ -n "$sw" ]; then
		echo "system,cpu,pool,machine,cpsp,interval_start,interval_seconds,utc_offset_minutes,B0,B1"
	else
		echo "system,cpu,pool,machine,cpsp,interval_start,interval_seconds,B0,B1"
	fi
	for ((i = 0; i < n; i++)); do
		t=$((t0 + 900 * i))
		ts=$(date -u -d "@$t" +%Y-%m-%dT%H:%M:%SZ)
		b0=$((1000000 + 7919 * i * i)) b1=$((400000 + 1009 * (i % 13)))
		if [ -n "$sw" ]; then
			off=120; [ "$t" -ge "$sw" ] && off=60
			echo "SYSA,0,GCP,z16,5200,$ts,900,$off,$b0,$b1"
		else
			echo "SYSA,0,GCP,z16,5200,$ts,900,$b0,$b1"
		fi
	done
}
# want ZONE|smf FILE: "hour,seconds,CPI" from the CSV by GNU date's local time.
want() {
	local zone=$1 f=$2
	tail -n +2 "$f" | while IFS=, read -r sys cpu pool m c ts secs rest; do
		t=$(date -u -d "$ts" +%s)
		if [ "$zone" = smf ]; then
			off=${rest%%,*} rest=${rest#*,}
			key="$(date -u -d "@$((t + off * 60))" +%Y-%m-%dT%H):00+0$((off / 60)):00"
		else
			key=$(TZ=$zone date -d "@$t" +%Y-%m-%dT%H:00%:z)
		fi
		echo "$t $key $secs ${rest//,/ }"
	done | sort -n | awk '{ if (!($2 in s)) k[n++] = $2; s[$2] += $3; b0[$2] += $4; b1[$2] += $5 }
		END { for (i = 0; i < n; i++) printf "%s,%d,%.9f\n", k[i], s[k[i]], b0[k[i]] / b1[k[i]] }'
}
# got ARGS...: mfstat's hour, interval_seconds and CPI columns, CPI to 9 decimals.
got() {
	"$MFSTAT" report --by hour -f csv --metrics CPI "$@" |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			{ printf "%s,%d,%.9f\n", $c["hour"], $c["interval_seconds"], $c["CPI"] }'
}
check() { # check NAME WANT-FILE GOT-FILE
	if cmp -s "$2" "$3"; then
		echo "$1: $(grep -c . "$3") hourly rows, as computed by hand"
	else
		echo "$1: differs from the hand computation"
		diff "$2" "$3"
	fi
}

# Europe/Berlin: 2025-10-25T22:00Z (00:00+02:00) to 2025-10-26T23:00Z (00:00+01:00 the next day).
gen "$(date -u -d 2025-10-25T22:00:00Z +%s)" 100 > "$tmp/berlin.csv"
want Europe/Berlin "$tmp/berlin.csv" > "$tmp/want"
got --tz Europe/Berlin "$tmp/berlin.csv" > "$tmp/got"
check Europe/Berlin "$tmp/want" "$tmp/got"
grep '^2025-10-26T0[123]' "$tmp/got"
"$MFSTAT" report --by hour --tz Europe/Berlin --metrics CPI "$tmp/berlin.csv" | sed -n '1p;6,9p'

# America/New_York: 2025-11-02T04:00Z (00:00-04:00) to 2025-11-03T05:00Z (00:00-05:00).
gen "$(date -u -d 2025-11-02T04:00:00Z +%s)" 100 > "$tmp/ny.csv"
want America/New_York "$tmp/ny.csv" > "$tmp/want"
got --tz America/New_York "$tmp/ny.csv" > "$tmp/got"
check America/New_York "$tmp/want" "$tmp/got"
grep '^2025-11-02T0[012]' "$tmp/got"

# The records' own offsets: +120 until 2025-10-26T01:00Z, +60 from then on.
gen "$(date -u -d 2025-10-25T22:00:00Z +%s)" 100 "$(date -u -d 2025-10-26T01:00:00Z +%s)" > "$tmp/smf.csv"
want smf "$tmp/smf.csv" > "$tmp/want"
got --tz smf "$tmp/smf.csv" > "$tmp/got"
check "--tz smf" "$tmp/want" "$tmp/got"
got "$tmp/smf.csv" > "$tmp/got"
check "no --tz" "$tmp/want" "$tmp/got"
grep '^2025-10-26T0[123]' "$tmp/got"

echo "== the day, in each record's local time: 25 hours, its end at +01:00"
"$MFSTAT" report --by day -f csv --metrics CPI "$tmp/smf.csv" | cut -d, -f5,7-9
"$MFSTAT" report --by day --metrics CPI "$tmp/smf.csv" | head -1
echo "== --hours 8-17 without --tz: local 08:00-17:00, 36 samples (by hand: 9 hours of 4)"
"$MFSTAT" report --by "" --hours 8-17 -f csv --metrics CPI "$tmp/smf.csv" | cut -d, -f6-8
"$MFSTAT" report --by "" --hours 8-17 -f json --metrics CPI "$tmp/smf.csv" | grep -o '"left_out":{[^}]*}'
echo "== --from 2025-10-26 --to 2025-10-27: the local day, 25 hours"
"$MFSTAT" report --by "" --from 2025-10-26 --to 2025-10-27 -f csv --metrics CPI "$tmp/smf.csv" | cut -d, -f6-8
echo "== -f html without --tz: the time axis ticks fall on the records' local hours across the change,"
echo "   where the Europe/Berlin page has them (quarter hours of the same day)"
ticks() { grep -o '<text x="[0-9.]*" y="199">[^<]*</text>' "$1" | sed 's/<text x="\([0-9.]*\)" y="199">\([^<]*\)<\/text>/\1 \2/' | sort -u; }
"$MFSTAT" report --by system -o "$tmp/smf.html" "$tmp/smf.csv"
"$MFSTAT" report --by system --tz Europe/Berlin -o "$tmp/berlin.html" "$tmp/berlin.csv"
ticks "$tmp/smf.html" > "$tmp/t1"
ticks "$tmp/berlin.html" > "$tmp/t2"
cmp -s "$tmp/t1" "$tmp/t2" && echo "the same $(grep -c . "$tmp/t1") ticks: $(cut -d' ' -f2- "$tmp/t1" | sort -u | tr '\n' ';')" || diff "$tmp/t1" "$tmp/t2"
