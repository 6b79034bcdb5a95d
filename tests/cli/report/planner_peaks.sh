#!/bin/bash
# Each system's three busiest intervals (--sort LPARCPU --top 3) with the columns a planner asks
# for (--metrics, one table), in text and CSV; the footer counts the intervals not shown.
"$MFSTAT" report --by system,interval --sort LPARCPU --top 3 --metrics LPARCPU,CPI,RNI,LSPR ../data/week-2sys.csv.gz
echo "== csv, the two busiest days of each system and pool"
"$MFSTAT" report --by system,pool,day --sort LPARCPU --top 2 --metrics LPARCPU,L1MP,RNI,LSPR -f csv ../data/week-2sys.csv.gz
echo "== errors"
"$MFSTAT" report --top 3 ../data/week-2sys.csv.gz; echo "exit $?"
"$MFSTAT" report --sort BUSY ../data/week-2sys.csv.gz; echo "exit $?"
"$MFSTAT" report --sort LPARCPU --top 0 ../data/week-2sys.csv.gz; echo "exit $?"
"$MFSTAT" report --metrics CPI,,RNI ../data/week-2sys.csv.gz; echo "exit $?"
"$MFSTAT" report --metrics CPI,RNII ../data/week-2sys.csv.gz; echo "exit $?"
