#!/bin/bash
# Zone offsets with seconds (issue 25): Africa/Monrovia kept -00:44:30 from 1919 to 1972-01-07
# (then GMT).  Times in it print with the seconds of the offset, -00:44:30, in the text, CSV and
# JSON periods and interval starts, the --by hour key and perf's start-time warning; 12:00Z is
# 11:15:30 there.  From 1972 the zone is +00:00.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
{
	echo "system,cpu,pool,machine,cpsp,interval_start,interval_seconds,B0,B1"
	echo "S,0,GCP,z16,5200,1971-06-01T12:00:00Z,900,1000,500"
	echo "S,0,GCP,z16,5200,1972-06-01T12:00:00Z,900,1000,500"
} > "$tmp/lmt.csv"
"$MFSTAT" report --tz Africa/Monrovia "$tmp/lmt.csv" | head -1
"$MFSTAT" report --tz Africa/Monrovia -f csv --by system,interval "$tmp/lmt.csv" | cut -d, -f1,5-7
"$MFSTAT" report --tz Africa/Monrovia --by system,hour "$tmp/lmt.csv" | sed -n '6,7p' | cut -c1-40
"$MFSTAT" report --tz Africa/Monrovia -f json --by system,interval "$tmp/lmt.csv" | grep -o '"period":{[^}]*}'
sed 's/# started on .*/# started on Tue Jun  1 12:00:00 1971/' ../data/perf/generic-x-duration.txt > "$tmp/p1971.txt"
"$MFSTAT" report -f csv --perf-tz Africa/Monrovia --tz Africa/Monrovia "$tmp/p1971.txt" 2>&1 >/dev/null | head -1 |
	sed 's|^mfstat: warning: [^:]*:|mfstat: warning: p1971.txt:|'
