# measure -o FILE without -f: the format from FILE's name (.json, .csv the function table,
# .txt, .html the page); an -f the name contradicts is a warning naming both.
# On a stored run file (the fuzz corpus's valid.mfdb), through measure report.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run=../fuzz/corpus/mfdb/valid.mfdb
for f in r.json r.csv r.txt; do
	"$MFSTAT" measure report -q -o "$tmp/$f" "$run"
	echo "-o $f: exit $?, file starts: $(head -c 24 "$tmp/$f" | tr '\n' '|')"
done
echo "-- -f csv -o c.json:"
"$MFSTAT" measure report -f csv -o "$tmp/c.json" "$run" 2>&1 | grep 'whose name' | sed "s|$tmp/||"
echo "file starts: $(head -c 24 "$tmp/c.json")"
echo "-- -o r.html:"
"$MFSTAT" measure report -o "$tmp/r.html" "$run" 2>&1 | sed "s|$tmp/||"
echo "exit ${PIPESTATUS[0]}, file starts: $(head -c 15 "$tmp/r.html")"
