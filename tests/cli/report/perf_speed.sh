#!/bin/bash
# perf stat and lshwc output carry no CPU speed: --machine TYPE gives the type's nominal speed
# (said), --cpu-mhz N the real one, for report, export and diff; without either LPARCPU and
# EFF_GHZ are not available.  By hand, the first interval of generic-x-interval-dst.txt
# (312000000000 cycles in 60.000412345 s): at 5200 MHz (type 3931)
# 312000000000 / (5200e6 * 60.000412345) * 100 = 99.9993127630563 % of an engine; the whole run
# at --cpu-mhz 5000: (312 + 234 + 104)e9 / (5000e6 * 180.001237035) * 100 = 72.2217258844296.
f=../data/perf/generic-x-interval-dst.txt
"$MFSTAT" report -f csv --by interval --machine 3931 "$f" | cut -d, -f8,9,20,25
"$MFSTAT" report -f csv --by "" --machine z16 --cpu-mhz 5000 "$f" | cut -d, -f8,9,20,25
"$MFSTAT" report -f csv --by "" --machine z16 "$f" | cut -d, -f8,9,20,25
"$MFSTAT" export --machine z16 --cpu-mhz 5000 "$f"
"$MFSTAT" diff --machine 3931 --cpu-mhz 5000 --metrics LPARCPU,EFF_GHZ "$f" "$f" | sed -n '/^metric/,/^$/p'
# lshwc: the same; a CSV file's own cpsp is kept, the rows that differ counted.
"$MFSTAT" report -f csv --by "" --machine z16 --cpu-mhz 5000 ../data/lshwc/lshwc_man_ex3_basic_delta_short.csv | cut -d, -f8,9,20,25
"$MFSTAT" report -f csv --by "" --cpu-mhz 5000 ../data/z16-two-pools.csv | cut -d, -f9,25
# N must be a number of MHz from 1 to 100000: exit 2 naming the value.
for v in abc 0 -5 5e3 0x10 nan 100001 ""; do
	"$MFSTAT" report --cpu-mhz "$v" "$f"
	echo "exit $?"
done
"$MFSTAT" export --cpu-mhz 0.5 "$f"
echo "exit $?"
"$MFSTAT" diff --cpu-mhz fast "$f" "$f"
echo "exit $?"
