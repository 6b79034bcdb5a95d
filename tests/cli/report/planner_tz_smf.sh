#!/bin/bash
# --tz smf: the local offset each SMF record carries (header time against the TOD clock; here
# -05:00, written by gensmf --utc-offset -300): six hours from 20:00 local cut into two local
# days; without --tz the same (the records' own offsets are the default when every sample has
# one); the same dump in UTC (--tz UTC) for comparison; and a CSV, which carries no offsets: with
# --tz smf a warning, without --tz the report is in UTC and says so.
"$MFSTAT" report --tz smf --by system,day -f csv ../data/local-minus5.smf | cut -d, -f1,5-9
"$MFSTAT" report --tz smf --by system,interval ../data/local-minus5.smf | head -1
"$MFSTAT" report --by system,day -f csv ../data/local-minus5.smf | cut -d, -f1,5-9
"$MFSTAT" report --by system,interval ../data/local-minus5.smf | head -1
"$MFSTAT" report --tz UTC --by system,day -f csv ../data/local-minus5.smf | cut -d, -f1,5-9
"$MFSTAT" report --tz smf --by "" -f csv ../data/week-2sys.csv.gz | cut -d, -f6,7
"$MFSTAT" report --by "" -f csv ../data/week-2sys.csv.gz | cut -d, -f6,7
"$MFSTAT" report --by "" ../data/week-2sys.csv.gz | head -1
