#!/bin/bash
# stat -a's cpus is the number of CPUs it counted (issue 30, item 3): the recorded z16 has two
# online, whose counts each group sums; -C 1 counts one; a command is one.  Text (to stdout with
# -o -) and JSON; with -I per interval too.
. stat/z16tree.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
z16_tree "$tmp/z16"
export MFSTAT_SYSROOT=$tmp/z16
"$MFSTAT" stat -q -a --duration 0.01 -o - | grep '^z16' | awk '{ print "-a text: machine " $1 ", cpus " $2 }' | head -1
echo "-a json: $("$MFSTAT" stat -q -a --duration 0.01 -f json -o - | grep -o '"cpus":[0-9]*' | head -1)"
echo "-C 1 json: $("$MFSTAT" stat -q -C 1 --duration 0.01 -f json -o - | grep -o '"cpus":[0-9]*' | head -1)"
echo "-C 0,1 json: $("$MFSTAT" stat -q -C 0,1 --duration 0.01 -f json -o - | grep -o '"cpus":[0-9]*' | head -1)"
echo "command json: $("$MFSTAT" stat -q -f json -o - -- true | grep -o '"cpus":[0-9]*' | head -1)"
echo "-a -I 40 json, cpus of each interval: $("$MFSTAT" stat -q -a -I 40 --duration 0.12 -f json -o - | grep -o '"cpus":[0-9]*' | sort -u | tr '\n' ' ')"
