#!/bin/bash
# A name that is no metric of any family is a usage error (exit 2) decided before reading,
# naming the nearest metrics: one or two edits away, else the names that contain it.
z15=../data/day-3sys-z15.csv.gz
for m in CPX cpi,rnii L4P aiu tlb1 xyzzy LSRP CPI,cpi; do
	echo "\$ mfstat report --metrics $m"
	"$MFSTAT" report --metrics "$m" $z15 2>&1
	echo "exit $?"
done
echo "\$ mfstat report --sort lparcpux"
"$MFSTAT" report --sort lparcpux $z15 2>&1
echo "exit $?"
echo "\$ mfstat report --sort lspr"
"$MFSTAT" report --sort lspr $z15 2>&1
echo "exit $?"
echo "\$ mfstat report --sort L1MP,RNI"
"$MFSTAT" report --sort L1MP,RNI $z15 2>&1
echo "exit $?"
