#!/bin/bash
# --metrics takes names in any case, as --sort does, and names each column as the knowledge base
# spells it, in every format; LSPR is a column like the others, and a helper (L1M) asked for by
# name is reported too.  (Before: cpi,rni gave columns "cpi" and "rni" with no values, exit 0.)
z15=../data/day-3sys-z15.csv.gz
"$MFSTAT" report --by system --sort lparcpu --metrics cpi,Rni,l1m,lspr $z15
echo "exit $?"
echo "== csv"
"$MFSTAT" report --by system --metrics cpi,Rni,l1m,lspr -f csv $z15
echo "== json"
"$MFSTAT" report --by "" --metrics cpi,Rni,l1m,lspr -f json $z15 | grep -o '"metrics":{[^}]*}'
echo "== html: the table's columns and the glossary's names"
"$MFSTAT" report --by "" --metrics cpi,Rni,l1m,lspr -f html $z15 | grep -o '<th>[A-Za-z0-9_]*</th>' | sort | uniq -c
"$MFSTAT" report --by "" --metrics cpi,Rni,l1m,lspr -f html $z15 | grep -o '<dt>[^<]*</dt>'
