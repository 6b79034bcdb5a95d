#!/bin/bash
# --by file (each input on its own, in the order given), month, and hour (CSV).
"$MFSTAT" report --by file --metrics LPARCPU,CPI -f csv ../data/week-2sys.csv.gz ../data/dst-oct2025.csv.gz | cut -d, -f5-9,13-
echo "== --by month"
"$MFSTAT" report --by month --metrics LPARCPU,CPI ../data/week-2sys.csv.gz ../data/dst-oct2025.csv.gz
echo "== --by system,hour, the first day's first hours in +05:30"
"$MFSTAT" report --by system,hour --tz +05:30 --system SYSB --to 2025-04-07T04:00:00Z --metrics LPARCPU -f csv ../data/week-2sys.csv.gz | cut -d, -f1,5-9,13
