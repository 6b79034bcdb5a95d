#!/bin/bash
# What the text footer says reaches CSV and JSON too: JSON "inputs" (format, records by type,
# dropped by reason) and every drop reason in "warnings"; an interval short of CPUs (lost data)
# is marked in text ("1 of 2") and CSV (cpus_expected).
"$MFSTAT" report -q -f json ../data/small-s2.vbs | sed 1,4d
"$MFSTAT" report -q -f csv ../data/small-s2.vbs | cut -d, -f1,5,10,11
"$MFSTAT" report ../data/small-s2.vbs 2>&1 | grep -e 'of 2' -e 'warning' | cut -c1-90
