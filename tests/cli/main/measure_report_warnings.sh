# measure report's warnings (a stored run's own, and what the header says of it: no hardware
# counters, multiplexed counts) are said once on standard error as "mfstat: warning: ..."; the
# report carries them (its header's Warning: lines, JSON's "warnings") only when written to
# -o FILE or as JSON; -q silences standard error's, not the file's.  The fuzz corpus's valid.mfdb.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run=../fuzz/corpus/mfdb/valid.mfdb
"$MFSTAT" measure report "$run" >"$tmp/out" 2>"$tmp/err"
echo "-- to standard output: exit $?; Warning: lines in the report: $(grep -c '^Warning:' "$tmp/out"); standard error:"
cat "$tmp/err"
"$MFSTAT" measure report -q "$run" >"$tmp/out" 2>"$tmp/err"
echo "-- -q: exit $?; Warning: lines in the report: $(grep -c '^Warning:' "$tmp/out"); standard error: $(wc -c <"$tmp/err") bytes"
"$MFSTAT" measure report -o "$tmp/r.txt" "$run" 2>"$tmp/err"
echo "-- -o r.txt: exit $?; standard error: $(grep -c '^mfstat: warning:' "$tmp/err") warnings; the file's:"
grep '^Warning:' "$tmp/r.txt"
"$MFSTAT" measure report -q -o "$tmp/q.txt" "$run" 2>"$tmp/err"
echo "-- -q -o q.txt: exit $?; standard error: $(wc -c <"$tmp/err") bytes; Warning: lines in the file: $(grep -c '^Warning:' "$tmp/q.txt")"
"$MFSTAT" measure report -f json "$run" 2>"$tmp/err" | grep -o '"warnings":\[[^]]*\]'
echo "-- -f json to standard output: standard error: $(grep -c '^mfstat: warning:' "$tmp/err") warnings"
