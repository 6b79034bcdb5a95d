#!/bin/sh
# --metrics keeps only the counter sums its metrics read (issue 26, item 2a): each column it
# shows, and the notes, are those of the report with every metric, for z15, zEC12 and z16
# groups of one row and of many (--by system,pool), read by one thread and by two (a 9 MB
# file in parts whose groups are merged).
GENCSV=${GENCSV:-$(dirname "$MFSTAT")/gencsv}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gzip -dc ../data/day-3sys-z15.csv.gz >"$tmp/z15.csv" || exit 9
"$GENCSV" --systems 2 --lpars 2 --cpus 4 --rows 10000 >"$tmp/big.csv" || exit 9
set -- "$tmp/z15.csv" ../data/zec12-negative.csv ../data/z16-two-pools.csv "$tmp/big.csv"
# The columns of $1 (a CSV report) named in the header of $2, in $2's order.
project() {
	awk -F, 'NR == FNR { if (FNR == 1) for (i = 1; i <= NF; i++) want[i] = $i; n = NF; next }
		FNR == 1 { for (i = 1; i <= NF; i++) at[$i] = i }
		{ line = ""; for (i = 1; i <= n; i++) line = line (i > 1 ? "," : "") $(at[want[i]]); print line }' "$2" "$1"
}
for by in system,lpar,pool,interval system,pool; do
	for j in 1 2; do
		"$MFSTAT" report -q -j "$j" --by "$by" -f csv "$@" >"$tmp/all.csv" 2>"$tmp/all.err"
		echo "all metrics, --by $by -j $j: exit $?, $(wc -l <"$tmp/all.csv") lines"
		for m in CPI,PRBSTATE,L1MP,L2P LSPR,RNI,LPARCPU L2P,MEMP; do
			"$MFSTAT" report -q -j "$j" --by "$by" -f csv --metrics "$m" "$@" >"$tmp/some.csv" 2>"$tmp/some.err"
			rc=$?
			project "$tmp/all.csv" "$tmp/some.csv" >"$tmp/want.csv"
			if cmp -s "$tmp/want.csv" "$tmp/some.csv" && cmp -s "$tmp/all.err" "$tmp/some.err"; then
				echo "  --metrics $m: exit $rc, the same columns and notes"
			else
				echo "  --metrics $m: exit $rc, DIFFERENT"
				diff "$tmp/want.csv" "$tmp/some.csv" | head -5
				diff "$tmp/all.err" "$tmp/some.err" | head -5
			fi
		done
	done
done
