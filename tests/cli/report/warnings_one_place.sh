#!/bin/bash
# One place for warnings (issue 30, item 2): data on stdout, diagnostics on stderr.  Two inputs
# whose intervals overlap give two warnings (impossible busy, overlapping intervals).  A text
# report on stdout (here a pipe, no terminal) does not repeat them: they are on stderr once.
# With -o FILE they are in the file's footer and on stderr.  With -q they are nowhere on stderr,
# yet still in -o FILE's footer and in JSON's "warnings" (data).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/T10:00:00Z/T10:00:30Z/; s/T10:01:00Z/T10:01:30Z/' ../data/z16-two-pools.csv >"$tmp/shifted.csv"
in="../data/z16-two-pools.csv $tmp/shifted.csv"
cut() { sed -E "s/^(.*warning: [a-z ]*).*/\1.../"; }
echo "--- text to stdout:"
"$MFSTAT" report --by system,pool --metrics LPARCPU $in >"$tmp/out" 2>"$tmp/err"
echo "exit $?"
echo "warnings in stdout: $(grep -c 'warning' "$tmp/out")"
echo "stderr:"
cut <"$tmp/err"
echo "--- -o FILE:"
"$MFSTAT" report --by system,pool --metrics LPARCPU -o "$tmp/r.txt" $in >"$tmp/out" 2>"$tmp/err"
echo "exit $?, stdout bytes $(wc -c <"$tmp/out")"
echo "the file's footer:"
grep 'warning' "$tmp/r.txt" | cut
echo "stderr:"
cut <"$tmp/err"
echo "--- -q:"
"$MFSTAT" report -q --by system,pool --metrics LPARCPU $in >"$tmp/out" 2>"$tmp/err"
echo "exit $?, warnings in stdout $(grep -c 'warning' "$tmp/out"), stderr bytes $(wc -c <"$tmp/err")"
"$MFSTAT" report -q --by system,pool --metrics LPARCPU -o "$tmp/q.txt" $in 2>"$tmp/err"
echo "-q -o FILE: exit $?, stderr bytes $(wc -c <"$tmp/err"), warnings in the file $(grep -c '^warning' "$tmp/q.txt")"
"$MFSTAT" report -q -f json --by system,pool $in 2>"$tmp/err" >"$tmp/j"
echo "-q -f json: stderr bytes $(wc -c <"$tmp/err"), JSON warnings $(grep -o '"warnings":\[[^]]*\]' "$tmp/j" | grep -o '"[a-z][^"]*"' | grep -vc '^"warnings"$')"
