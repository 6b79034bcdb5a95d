#!/bin/bash
# --tz local: this machine's zone as the C library takes it, $TZ here (issue 30).
TZ=Europe/Berlin "$MFSTAT" report --tz local --by system,hour --metrics CPI ../data/z16-two-pools.csv
echo "exit $?"
# The same report as naming the zone.
cmp <(TZ=Europe/Berlin "$MFSTAT" report --tz local --by day ../data/week-2sys.csv.gz) \
    <("$MFSTAT" report --tz Europe/Berlin --by day ../data/week-2sys.csv.gz) && echo "local = Europe/Berlin"
# A POSIX TZ string, and any case.
TZ=JST-9 "$MFSTAT" report --tz LOCAL --by system,hour --metrics CPI ../data/z16-two-pools.csv | head -1
# A TZ that is nothing: an error naming it, as for perf stat's zone.
TZ=Nowhere/Land "$MFSTAT" report --tz local ../data/z16-two-pools.csv
echo "exit $?"
