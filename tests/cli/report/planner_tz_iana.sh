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
