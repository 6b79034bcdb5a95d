#!/bin/bash
# stat writes its report to standard error, as perf stat and mfstat measure do (issue 30, item 3),
# so the command's standard output stays its own: with a command and system-wide (-a) alike;
# -o - writes it to standard output, -o FILE to FILE.  Its warnings are said once on stderr
# (the extended set not authorized: authorization 000e), not again in the text report there;
# -q leaves the report alone on stderr.
. stat/z16tree.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
z16_tree "$tmp/z16" 000e
export MFSTAT_SYSROOT=$tmp/z16
show() { echo "stdout: $(tr '\n' '|' <"$tmp/out")"; echo "stderr: CPI lines $(grep -c CPI "$tmp/err"), warnings $(grep -c 'warning' "$tmp/err")"; }
echo "--- -- COMMAND:"
"$MFSTAT" stat -- echo hello >"$tmp/out" 2>"$tmp/err"; echo "exit $?"
show
echo "--- -q -- COMMAND:"
"$MFSTAT" stat -q -- echo hello >"$tmp/out" 2>"$tmp/err"; echo "exit $?"
show
echo "--- -a --duration 0.01:"
"$MFSTAT" stat -q -a --duration 0.01 >"$tmp/out" 2>"$tmp/err"; echo "exit $?"
show
echo "--- -o - -- COMMAND:"
"$MFSTAT" stat -q -o - -- echo hello >"$tmp/out" 2>"$tmp/err"; echo "exit $?"
echo "stdout: hello $(grep -c '^hello$' "$tmp/out"), CPI lines $(grep -c CPI "$tmp/out"); stderr bytes $(wc -c <"$tmp/err")"
echo "--- -o FILE -- COMMAND:"
"$MFSTAT" stat -o "$tmp/r.txt" -- echo hello >"$tmp/out" 2>"$tmp/err"; echo "exit $?"
show
echo "the file: CPI lines $(grep -c CPI "$tmp/r.txt"), warnings in its footer $(grep -c '^warning' "$tmp/r.txt")"
echo "--- -f csv -o FILE -- COMMAND (the text report on stderr):"
"$MFSTAT" stat -q -f csv -o "$tmp/raw.csv" -- echo hello >"$tmp/out" 2>"$tmp/err"; echo "exit $?"
show
echo "--- -f json -- COMMAND:"
"$MFSTAT" stat -q -f json -- echo hello >"$tmp/out" 2>"$tmp/err"; echo "exit $?"
echo "stdout: $(tr '\n' '|' <"$tmp/out")"; echo "stderr: JSON warnings $(grep -o '"warnings":\[[^]]*\]' "$tmp/err" | grep -o 'not authorized' | wc -l)"
