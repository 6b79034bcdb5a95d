# measure -o FILE without -f: an extension no format has (.xlsx) is a usage error naming the
# extensions and the formats of -f, said before measure's overwrite checks (an -o naming the
# run file read gets the format message, not the overwrite one) and before anything runs; -f
# keeps the name; a name without an extension stays text.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp ../fuzz/corpus/mfdb/valid.mfdb "$tmp/run.xlsx"
echo "-- measure report -o out.xlsx:"
"$MFSTAT" measure report -o "$tmp/out.xlsx" "$tmp/run.xlsx" 2>&1 | sed "s|$tmp/||g"
echo "exit ${PIPESTATUS[0]}, written: $(ls "$tmp" | tr '\n' ' ')"
echo "-- measure report -o run.xlsx (the input):"
"$MFSTAT" measure report -o "$tmp/run.xlsx" "$tmp/run.xlsx" 2>&1 | sed "s|$tmp/||g"
echo "exit ${PIPESTATUS[0]}"
echo "-- measure profile -o out.XLSX (nothing is run):"
"$MFSTAT" measure profile -o "$tmp/out.XLSX" -- /bin/sh -c 'echo ran >&2' 2>&1 | sed "s|$tmp/||g"
echo "exit ${PIPESTATUS[0]}"
echo "-- measure report -f csv -o out.xlsx:"
"$MFSTAT" measure report -q -f csv -o "$tmp/out.xlsx" "$tmp/run.xlsx"
echo "exit $?, file starts: $(head -c 24 "$tmp/out.xlsx")"
echo "-- measure report -o report (no extension):"
"$MFSTAT" measure report -q -o "$tmp/report" "$tmp/run.xlsx"
echo "exit $?, file starts: $(head -c 18 "$tmp/report")"
