#!/bin/bash
# lshwc: the first cumulative read (counts since the counters were switched on, over a time no
# row gives) is the base of the next read, not an interval: no group has it, --by "" does not sum
# it (CPI 67948809 / 16347429 = 4.157, not 68074231 / 16386850 = 4.154), and it is counted and
# named in the footer, in the JSON inputs' "dropped" and its warnings; per CPU likewise.
"$MFSTAT" report --by "" ../data/lshwc/lshwc_man_ex1_basic_problem_total.csv
"$MFSTAT" report -f json --by "" ../data/lshwc/lshwc_man_ex1_basic_problem_total.csv | grep -o '"rows":[0-9]*\|"interval_seconds":[0-9a-z]*\|"CPI":[0-9][0-9.]*\|"warnings":\[[^]]*\]\|"dropped":{[^}]*}'
"$MFSTAT" report --by interval ../data/lshwc/lshwc_man_ex3_basic_delta_short.csv
"$MFSTAT" report -f csv --by cpu ../data/lshwc/lshwc_man_ex2_problem_allcpu.csv
"$MFSTAT" report -f json ../data/lshwc/lshwc_man_ex4_problem_cpu3.json | grep -o '"interval_start":"[^"]*"\|"dropped":{[^}]*}'
