#!/bin/bash
# --max-groups bounds memory: beyond N groups report stops with an error naming the file and the
# place, and suggesting a coarser --by; a coarser --by under the same cap works; 0 is no limit.
"$MFSTAT" report --max-groups 2 --by system,interval,cpu ../data/small-s1.smf
echo "exit $?"
"$MFSTAT" report --max-groups 2 --by interval,cpu ../data/z16-two-pools.csv
echo "exit $?"
"$MFSTAT" report --max-groups 2 --by system -f csv ../data/small-s1.smf | cut -d, -f1,10
echo "exit $?"
"$MFSTAT" report --max-groups 0 --by interval,cpu -f csv ../data/z16-two-pools.csv | wc -l
echo "exit $?"
"$MFSTAT" report --max-groups -1 ../data/z16-two-pools.csv
echo "exit $?"
