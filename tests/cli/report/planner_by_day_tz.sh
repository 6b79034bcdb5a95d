#!/bin/bash
# A week of 2-hour intervals of two systems (gensmf), per system and day: in UTC, and cut in
# +02:00 (the first day starts at 02:00 local, an eighth day holds the last two hours); CSV
# with the day column, period_start and period_end in the zone.
"$MFSTAT" report --by system,day -f csv ../data/week-2sys.csv.gz | cut -d, -f1,5,7-9,11,13,21,25,33
echo "== --tz +02:00"
"$MFSTAT" report --by system,day --tz +02:00 -f csv ../data/week-2sys.csv.gz | cut -d, -f1,5,7-9,11,13,21,25,33
