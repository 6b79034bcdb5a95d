#!/bin/bash
# stat -f prom's usage and output errors, said before anything is counted or run.
. stat/z16tree.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
z16_tree "$tmp/z16"
export MFSTAT_SYSROOT=$tmp/z16
"$MFSTAT" stat -f prom -I 50 -- touch "$tmp/ran1"; echo "exit $?"
"$MFSTAT" stat --derived -f json -- touch "$tmp/ran2"; echo "exit $?"
"$MFSTAT" stat -f yaml -- touch "$tmp/ran3"; echo "exit $?"
mkdir "$tmp/dir"
"$MFSTAT" stat -o "$tmp/dir" -f prom -- touch "$tmp/ran4" 2>&1 | sed "s|$tmp|TMP|g"; echo "exit ${PIPESTATUS[0]}"
"$MFSTAT" stat -I 50 -o "$tmp/none/mfstat.prom" -- touch "$tmp/ran5" 2>&1 | sed "s|$tmp|TMP|g"; echo "exit ${PIPESTATUS[0]}"
ls "$tmp" | grep ran || echo "no command ran"
