#!/bin/bash
# --tz Europe/Berlin (the system time zone database) over the end of summer time on 2025-10-26:
# that local day has 25 hours (90000 s), the days around it 24; times carry the offset of
# their instant (+02:00 before 01:00Z, +01:00 after). Also the hour-of-day profile.
if [ ! -e /usr/share/zoneinfo/Europe/Berlin ]; then
	echo "skipped: no /usr/share/zoneinfo/Europe/Berlin (install tzdata)" >&2
fi
"$MFSTAT" report --tz Europe/Berlin --by day -f csv ../data/dst-oct2025.csv.gz | cut -d, -f5-9
"$MFSTAT" report --tz Europe/Berlin --by hour-of-day -f csv --from 2025-10-26 --to 2025-10-27 ../data/dst-oct2025.csv.gz |
	cut -d, -f5,7,9 | sed -n '1,5p'
# The HTML charts' time ticks stay on local midnight and noon on both sides of the change:
# 13 hours lie between 00:00 and 12:00 on 2025-10-26 (so more space), 12 on the days around it.
"$MFSTAT" report --tz Europe/Berlin --by system -f html ../data/dst-oct2025.csv.gz |
	grep -o '<text x="[0-9.]*" y="199">10-2[67] [0-9:]*</text>' | sed -n '1,3p'
