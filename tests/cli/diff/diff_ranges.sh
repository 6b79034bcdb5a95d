#!/bin/bash
# One input, two periods: Monday to Wednesday against Thursday to Sunday in +02:00 (a date
# alone is local midnight), the prime shift of the general-purpose pools, a few metrics.
"$MFSTAT" diff --tz +02:00 --before 2025-04-07/2025-04-10 --after 2025-04-10/2025-04-14 \
	--hours 8-17 --pool GCP --metrics CPI,L1MP,RNI,MEMP,LPARCPU ../data/week-2sys.csv.gz
