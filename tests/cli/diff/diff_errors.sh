#!/bin/bash
# Usage errors (exit 2): a bad --before range, a time key or file in --by, a missing second
# input, --before without --after, an unknown metric or format, -o naming an input; and a
# side that the selection leaves empty, or sides without a group in common (exit 1).
z15=../data/day-3sys-z15.csv.gz
week=../data/week-2sys.csv.gz
"$MFSTAT" diff --before 2025-04-10/2025-04-07 --after 2025-04-10/2025-04-14 $week
echo "TO before FROM: exit $?"
"$MFSTAT" diff --before 2025-04-07 --after 2025-04-10/2025-04-14 $week
echo "no TO: exit $?"
"$MFSTAT" diff --by system,interval $z15 $week
echo "time key: exit $?"
"$MFSTAT" diff --by system,day $z15 $week
echo "calendar key: exit $?"
"$MFSTAT" diff --by file $z15 $week
echo "file: exit $?"
"$MFSTAT" diff --by socket $z15 $week
echo "not a key: exit $?"
"$MFSTAT" diff $z15
echo "one input: exit $?"
"$MFSTAT" diff
echo "no input: exit $?"
"$MFSTAT" diff --before 2025-04-07/2025-04-10 $week
echo "--before alone: exit $?"
"$MFSTAT" diff --before 2025-04-07/2025-04-10 --after 2025-04-10/2025-04-14 $z15 $week
echo "two inputs with ranges: exit $?"
"$MFSTAT" diff --metrics CPI,NOPE $z15 $week
echo "unknown metric: exit $?"
"$MFSTAT" diff -f xml $z15 $week
echo "format: exit $?"
"$MFSTAT" diff -o $week $z15 $week
echo "-o names an input: exit $?"
"$MFSTAT" diff - -
echo "stdin twice: exit $?"
"$MFSTAT" diff --tz Mars/Olympus $z15 $week
echo "zone: exit $?"
"$MFSTAT" diff --system SYSC $z15 $week
echo "nothing after: exit $?"
# No group matches (the LPARs of one side are named, the other's not): a data error naming the
# keys of both sides, not "nothing moved".
"$MFSTAT" diff --by system,lpar ../data/small-s1.smf ../data/z16-two-pools.csv
echo "nothing matched: exit $?"
