#!/bin/bash
# Weekdays (Monday first) and the ISO week, text.
"$MFSTAT" report --by weekday ../data/week-2sys.csv.gz | cut -c1-100
echo "== --by system,week"
"$MFSTAT" report --by system,week ../data/week-2sys.csv.gz | cut -c1-100
