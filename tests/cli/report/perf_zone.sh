#!/bin/bash
# perf stat's '# started on' line (perf stat -o) is the local time of the machine that ran perf:
# it is read in this machine's zone ($TZ, as the C library reads it) or in --perf-tz, and a
# warning names the zone and the start in UTC; it is never taken as UTC without a word.
# generic-x-interval-dst.txt started on Sun Mar 30 01:59:30 2025, the day Europe/Berlin went to
# summer time (02:00 CET became 03:00 CEST, at 01:00Z); its intervals last 60.000412345 s.
# The interval starts in UTC, by hand:
#   Europe/Berlin     01:59:30 CET, +01:00  = 2025-03-30T00:59:30Z, then + 60.000412 s
#                     = 01:00:30.000412Z (03:00:30 CEST on Berlin's clocks), + 120.000825 s
#                     = 01:01:30.000825Z
#   America/New_York  01:59:30 EDT, -04:00 (summer time since March 9) = 05:59:30Z
#   --perf-tz +05:30  01:59:30 - 5:30 = 2025-03-29T20:29:30Z (it wins over $TZ)
#   UTC               01:59:30Z
# A run without -I starts at the line too (generic-x-duration.txt: Mon Nov 23 19:38:27 2026,
# CET in Berlin, +01:00 = 18:38:27Z).
f=../data/perf/generic-x-interval-dst.txt
TZ=Europe/Berlin "$MFSTAT" report -f csv --by interval "$f" | cut -d, -f5,8,9,12
TZ=:Europe/Berlin "$MFSTAT" report -f csv --by interval --tz Europe/Berlin "$f" | cut -d, -f5
TZ=America/New_York "$MFSTAT" report -f csv --by interval "$f" | cut -d, -f5
TZ=Europe/Berlin "$MFSTAT" report -f csv --by interval --perf-tz +05:30 "$f" | cut -d, -f5
"$MFSTAT" report -f csv --by interval "$f" | cut -d, -f5
TZ=Europe/Berlin "$MFSTAT" export ../data/perf/generic-x-duration.txt
# A $TZ that names no zone: a perf file with the line is refused (exit 2), a CSV file is read.
TZ=Mars/Olympus "$MFSTAT" report "$f"
echo "exit $?"
TZ=Mars/Olympus "$MFSTAT" report -f csv --by "" ../data/generic.csv | cut -d, -f9,12
echo "exit $?"
"$MFSTAT" report --perf-tz smf "$f"
echo "exit $?"
"$MFSTAT" export --perf-tz Mars/Olympus "$f"
echo "exit $?"
"$MFSTAT" diff --perf-tz +25:00 "$f" "$f"
echo "exit $?"
