# A run without samples says why and which -s would sample it: on standard error (a report to
# standard output does not repeat it; one to -o FILE does, in its header) and in its JSON
# warnings, from a stored run whose records were not decoded (the fuzz corpus's swapped.mfdb:
# task-clock counted 123 ms, yet no sample), and for a live run of `true` at one sample per
# second of task-clock (too brief: the rate suggested is a tenth of its CPU time, at least 10us;
# numbers masked), on stderr too when the report goes to a file.  The live part needs software
# sampling (task-clock), which every Linux with perf_event_open allows at perf_event_paranoid
# <= 2; where it is refused the run is exit 3 and this says so.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$MFSTAT" measure report ../fuzz/corpus/mfdb/swapped.mfdb 2>&1 >/dev/null | grep 'no samples'
"$MFSTAT" measure report -f json ../fuzz/corpus/mfdb/swapped.mfdb 2>/dev/null | grep -o '"no samples[^"]*"'
cd "$tmp" || exit 1
"$MFSTAT" measure profile -q -s 1s -o r.txt -- true; st=$?
if [ $st = 3 ]; then
	echo "live run: sampling refused here (exit 3): not checked"
else
	echo "live run: exit $st"
	grep 'no samples' r.txt | sed -E 's/[0-9]+\.[0-9]+ ms/N ms/; s/-s [0-9]+(ns|us|ms|s)$/-s N/'
	"$MFSTAT" measure profile -s 1s -o r2.txt -- true 2>&1 | grep 'warning: no samples' |
		sed -E 's/[0-9]+\.[0-9]+ ms/N ms/; s/-s [0-9]+(ns|us|ms|s)$/-s N/'
fi
