#!/bin/bash
# report < FILE: standard input is read without '-' when it is not a terminal (issue 30).
"$MFSTAT" report --by system,pool --metrics CPI,L1MP < ../data/z16-two-pools.csv
echo "exit $?"
# The same as with '-'.
cmp <("$MFSTAT" report < ../data/generic.csv) <("$MFSTAT" report - < ../data/generic.csv) && echo "same as with -"
# A compressed SMF dump through a pipe.
gzip -c ../data/small-s1.smf | "$MFSTAT" report --by system -f csv
echo "exit $?"
