#!/bin/bash
# Samples read twice: the same dump given twice (plain and gzip) or overlapping CSV files
# count once ("N duplicate samples dropped"); a second copy with other counters is a data
# error naming both places; --skip-bad-rows keeps the first copy.
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
gzip -c ../data/small-s1.smf >"$t/small-s1.smf.gz"
echo "== one dump"
"$MFSTAT" report -q --by system -f csv ../data/small-s1.smf | cut -d, -f1,8,10,12,20
echo "== the same dump twice, plain and gzip: the same LPARCPU"
"$MFSTAT" report --by system -f csv ../data/small-s1.smf "$t/small-s1.smf.gz" 2>"$t/err" | cut -d, -f1,8,10,12,20
echo "exit ${PIPESTATUS[0]}"
cat "$t/err"
head='system,cpu,machine,cpsp,interval_start,interval_seconds,B0,B1'
{ echo "$head"
  echo "S,0,z16,1000,2025-01-01T00:00:00Z,900,450000000000,1"
  echo "S,0,z16,1000,2025-01-01T00:15:00Z,900,450000000000,1"
  echo "S,0,z16,1000,2025-01-01T00:30:00Z,900,450000000000,1"; } >"$t/day1.csv"
{ echo "$head"
  echo "S,0,z16,1000,2025-01-01T00:30:00Z,900,450000000000,1"
  echo "S,0,z16,1000,2025-01-01T00:45:00Z,900,450000000000,1"; } >"$t/day2.csv"
echo "== two files overlapping by one interval: 4 intervals, 50 %"
"$MFSTAT" report --by system -f json "$t/day1.csv" "$t/day2.csv" 2>&1 | grep -o '"interval_seconds":[0-9]*\|"LPARCPU":[0-9][0-9.]*\|"rows":[0-9]*\|"warnings":.*'
{ echo "$head"
  echo "S,0,z16,1000,2025-01-01T00:30:00Z,900,450000000001,1"; } >"$t/other.csv"
echo "== a second copy with other counters: an error naming both places"
"$MFSTAT" report "$t/day1.csv" "$t/other.csv" 2>&1 | sed "s|$t|DIR|g"
echo "exit ${PIPESTATUS[0]}"
echo "== --skip-bad-rows keeps the first copy and counts the second"
"$MFSTAT" report --skip-bad-rows --by system -f csv "$t/day1.csv" "$t/other.csv" 2>&1 | sed "s|$t|DIR|g" | tail -n 6
echo "exit ${PIPESTATUS[0]}"
echo "== samples without a system name are never taken for copies (two perf runs)"
{ echo "cpu,machine,cpsp,interval_start,interval_seconds,B0,B1"
  echo "0,z16,1000,2025-01-01T00:00:00Z,900,450000000000,1"; } >"$t/nosys.csv"
"$MFSTAT" report -q --by "" -f csv "$t/nosys.csv" "$t/nosys.csv" | cut -d, -f8,10,20
