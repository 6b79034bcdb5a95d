#!/bin/bash
# A metric of some family but of none of the data read is a data error (exit 1: it depends on
# the data), naming the families that define it, never an empty column with exit 0; one that
# only some families read lack is a warning, and their groups' cells stay empty.
z15=../data/day-3sys-z15.csv.gz
z16=../data/z16-quoted.csv
run() {
	local a line="\$ mfstat report"
	for a in "$@"; do line+=" ${a:-''}"; done
	echo "$line"
	"$MFSTAT" report "$@" 2>&1
	echo "exit $?"
}
run --by system --metrics CPI,w_aiu_cpu $z15
run --by system --metrics CPI,L15P $z15 $z16
run --by "" --metrics CPI,W_AIU_CPU $z15 $z16
run --by system --sort W_AIU_CPU $z15
run --metrics CPI,RNI,LSPR ../data/generic.csv
run --metrics CPI,LSPR --machine z15 ../data/generic.csv
