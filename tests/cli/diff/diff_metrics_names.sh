#!/bin/bash
# diff --metrics as report's: any case, the knowledge base's spelling; a name of no family is a
# usage error with the nearest names before reading; one of no family on either side a data error.
z15=../data/day-3sys-z15.csv.gz
z16=../data/z16-quoted.csv
run() {
	local a line="\$ mfstat diff"
	for a in "$@"; do line+=" ${a:-''}"; done
	echo "$line"
	"$MFSTAT" diff "$@" 2>&1
	echo "exit $?"
}
run --by "" --metrics cpi,l1mp,lspr -f csv $z15 $z15
run --by "" --metrics CPI,cpx $z15 $z16
run --by "" --metrics CPI,L15P $z15 $z16
run --by "" --metrics CPI,AIU_CPU -f csv $z15 $z16
