#!/bin/bash
# The daily profile of one system over the week, JSON: one group per hour of the day (2-hour
# intervals: 12 groups), each over 7 days; --from and --to as dates (midnight in --tz UTC) keep
# Tuesday to Thursday, the rest counted in left_out.
"$MFSTAT" report --by hour-of-day --system sysb --from 2025-04-08 --to 2025-04-11 -f json ../data/week-2sys.csv.gz |
	grep -o '"period":{[^}]*}\|"hour-of-day":"[0-9]*","interval_start":null,"period_start":"[^"]*","period_end":"[^"]*","interval_seconds":[0-9.]*\|"rows":.*"left_out":{[^}]*}'
