#!/bin/bash
# mfstat export: the demo CSV summed per system, pool and interval; --by file refused; the
# default export (one row per sample, zstd) reported per system and pool, which equals the report
# of the CSV itself.
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
"$MFSTAT" export --by system,pool,interval ../../examples/z16-demo.csv -o - | cut -d, -f1-12
"$MFSTAT" export --by file ../../examples/z16-demo.csv
echo "exit $?"
"$MFSTAT" export ../../examples/z16-demo.csv -o "$t/demo.csv.zst"
zstd -dc "$t/demo.csv.zst" | head -3 | cut -d, -f1-10
"$MFSTAT" report --by system,pool --metrics CPI,L1MP,RNI,LPARCPU,LSPR "$t/demo.csv.zst" | sed '$d' >"$t/got"
"$MFSTAT" report --by system,pool --metrics CPI,L1MP,RNI,LPARCPU,LSPR ../../examples/z16-demo.csv | sed '$d' >"$t/want"
cat "$t/got"
cmp "$t/got" "$t/want" && echo "the report of the export equals the report of the CSV"
