# A selection that leaves no sample says what the data covers, so the next try can aim: the
# reasons (before --from, other systems, ...), then its period in the report's zone (UTC; --tz
# ZONE; an SMF dump's own local offset) and its systems, sorted, at most six and "and N more".
# Exit 1 as before (a data error: nothing to report).
run() { "$MFSTAT" report "$@" >/dev/null 2>&1; echo "exit $?"; "$MFSTAT" report "$@" 2>&1 >/dev/null; }
run --from 2025-03-05 ../data/z16-two-pools.csv
run --system SYSZ --tz Europe/Berlin ../data/z16-two-pools.csv
run --hours 8-12 ../data/local-minus5.smf
run --pool ICF -j 2 ../data/z16-two-pools.csv ../data/day-3sys-z15.csv.gz
# Nine systems (SYS1..SYS9, renamed from the two of z16-two-pools.csv).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -F, 'NR == 1 { print; next } { for (i = 1; i <= 9; i++) { $1 = "SYS" i; print } }' OFS=, \
	../data/z16-two-pools.csv >"$tmp/nine.csv"
run --to 2025-03-01 "$tmp/nine.csv" | sed "s|$tmp/||"
