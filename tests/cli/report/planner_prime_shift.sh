#!/bin/bash
# The prime shift of each system: Monday to Friday, intervals starting from 8:00 to before 17:00
# in +02:00 (2-hour intervals: 8, 10, 12, 14 and 16 local), the general-purpose pool only. The
# footer counts what the selection left out by reason.
"$MFSTAT" report --by system --tz +02:00 --hours 8-17 --weekdays Mon-Fri --pool GCP ../data/week-2sys.csv.gz
