# report --db with a selection that leaves no sample says what the database holds (its period
# and systems, from its index), as report over the files does: the same message (exit 1), when
# the database leaves the samples out (--from, --system: in its SQL) and when report does
# (--hours on data with no local offset).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$MFSTAT" db import -q "$tmp/x.db" ../data/z16-two-pools.csv ../data/day-3sys-z15.csv.gz >/dev/null || echo "import failed"
for sel in "--from 2025-05-01" "--system SYSZ --tz +02:00" "--hours 3-4"; do
	echo "-- $sel"
	"$MFSTAT" report --db "$tmp/x.db" $sel 2>&1 >/dev/null; echo "exit $?"
	"$MFSTAT" report $sel ../data/z16-two-pools.csv ../data/day-3sys-z15.csv.gz 2>&1 >/dev/null; echo "exit $?"
done
