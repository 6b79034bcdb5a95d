#!/bin/bash
# Impossible busy (issue 24, item 7): both systems again in a second input whose intervals start
# 30 s later, as one system read from two dumps with shifted intervals.  Grouped by system and
# pool, SYSA's two GCPs are 259.9 % busy, beyond the 200 % two CPUs can be; by interval every
# group looks possible, yet the intervals of each CPU overlap.  Both are warnings naming the
# system and two intervals, in text (the footer of -o FILE), in JSON and among the HTML findings.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/T10:00:00Z/T10:00:30Z/; s/T10:01:00Z/T10:01:30Z/' ../data/z16-two-pools.csv >"$tmp/shifted.csv"
in="../data/z16-two-pools.csv $tmp/shifted.csv"
"$MFSTAT" report -q --by system,pool --metrics LPARCPU,CPI -o "$tmp/by-pool" $in
st=$?
cat "$tmp/by-pool"
echo "exit $st"
"$MFSTAT" report -q --metrics LPARCPU -o "$tmp/by-interval" $in
echo "by interval: exit $?"
tail -n 2 "$tmp/by-interval"
"$MFSTAT" report -q -f json --by system,pool $in | grep -o '"warnings":\[[^]]*\]'
"$MFSTAT" report -q -f html --by system,pool $in | grep '<li class="warn">'
# Each input alone has nothing to say.
"$MFSTAT" report --by system,pool ../data/z16-two-pools.csv >/dev/null 2>"$tmp/err"
"$MFSTAT" report --by system,pool "$tmp/shifted.csv" >/dev/null 2>>"$tmp/err"
echo "alone: $(wc -l <"$tmp/err") warnings"
