#!/bin/bash
# Numbers of a diff that look right and are not (issue 24, item 9).  One z16 CPU: one minute
# before, three after with three times the counters, so every metric is the same on both sides.
# LPARCPU's two divisions round apart (by 1.4e-14): its change is 0, as the two values are
# written alike, in CSV and JSON as in text.  W_AIU_CPU is 0.004 before, shown as 0.00: no
# percent change from it (not +12400%).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head=system,cpu,pool,machine,cpsp,interval_start,interval_seconds,B0,B1,E269,E270
printf '%s\n' $head 'SYSA,0,GCP,3931,5200,2025-04-07T10:00:00Z,60,242913549927,100000000000,12480000,1560000000' \
	>"$tmp/before.csv"
{
	echo $head
	for m in 0 1 2; do
		echo "SYSA,0,GCP,3931,5200,2025-04-07T10:0$m:00Z,60,242913549927,100000000000,1560000000,1560000000"
	done
} >"$tmp/after.csv"
m=CPI,LPARCPU,W_AIU_CPU,C_AIU_CPU
"$MFSTAT" diff --metrics $m "$tmp/before.csv" "$tmp/after.csv"
"$MFSTAT" diff -f csv --metrics $m "$tmp/before.csv" "$tmp/after.csv" | cut -d, -f1-3,10-
"$MFSTAT" diff -f json --metrics $m "$tmp/before.csv" "$tmp/after.csv" | grep -o '"change":{[^]]*}},"lspr"'
