#!/bin/bash
# Usage errors of the planner's options (exit 2), and a selection that leaves nothing (exit 1).
for args in "--tz Mars/Olympus" "--tz +15:00" "--from yesterday" "--to 2025-13-01" \
	"--from 2025-04-09 --to 2025-04-08" "--hours 8-8" "--hours 9-25" "--weekdays Funday" \
	"--pool GPU" "--by day,interval" "--by hour,weekday" "--system ,SYSA"; do
	# shellcheck disable=SC2086
	"$MFSTAT" report $args ../data/week-2sys.csv.gz >/dev/null
	echo "$args: exit $?"
done
"$MFSTAT" report --weekdays Sat --hours 9-10 ../data/week-2sys.csv.gz
echo "nothing left: exit $?"
"$MFSTAT" report --system SYSZ ../data/week-2sys.csv.gz
echo "no such system: exit $?"
