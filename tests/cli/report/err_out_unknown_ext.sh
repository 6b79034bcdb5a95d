#!/bin/bash
# -o with an extension no format has is a usage error naming the formats, not silent text (issue 30).
d=$PWD/../data
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cd "$t" || exit 9
"$MFSTAT" report -o week.xlsx $d/generic.csv
echo "report exit $?"
"$MFSTAT" export -o week.xlsx $d/generic.csv
echo "export exit $?"
"$MFSTAT" stat -o week.xlsx -- true
echo "stat exit $?"
ls
# -f keeps the name as it is; a name without extension, or with a known one in any case, is fine.
"$MFSTAT" report -f csv -o week.xlsx $d/generic.csv && echo "-f csv -o week.xlsx: $(head -c 10 week.xlsx)"
"$MFSTAT" report -o week $d/generic.csv && echo "-o week: $(head -c 6 week)"
"$MFSTAT" report -o week.CSV $d/generic.csv && echo "-o week.CSV: $(head -c 10 week.CSV)"
"$MFSTAT" export -o w.csv.zst $d/generic.csv && echo "export -o w.csv.zst: ok"
