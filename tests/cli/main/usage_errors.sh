#!/bin/bash
# Usage errors alike in every command: the option as typed (a letter of a cluster, with the long
# option meant), the nearest option or command, ambiguous abbreviations, "Try 'mfstat CMD --help'."
# after each, exit 2 everywhere; an unknown machine is a usage error too.
run() {
	echo "\$ mfstat $*"
	"$MFSTAT" "$@" 2>&1
	echo "exit $?"
}
run report -by system ../data/small-s1.smf
run report --formt csv ../data/small-s1.smf
run report --f csv ../data/small-s1.smf
run report -o
run repot ../data/small-s1.smf
run help repot
run diff --tz
run counters --machine
run counters --machine z18
run metrics --mashine z16
run machines z18
run smf list --sumary ../data/small-s1.smf
run smf lsit
run stat --duratin 3 -- true
run measure --ratee 3 -- true
