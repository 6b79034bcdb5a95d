#!/bin/bash
# gzip and zstd input is recognised by its magic bytes; a truncated file is an error, not a short report.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
gzip -c ../data/z16-two-pools.csv > "$tmp/a.csv.gz"
zstd -q -c ../data/z16-two-pools.csv > "$tmp/a.csv.zst"
"$MFSTAT" report -f csv --by system ../data/z16-two-pools.csv > "$tmp/plain"
"$MFSTAT" report -f csv --by system "$tmp/a.csv.gz" | cmp - "$tmp/plain" && echo "gzip: same report"
"$MFSTAT" report -f csv --by system "$tmp/a.csv.zst" | cmp - "$tmp/plain" && echo "zstd: same report"
cat "$tmp/a.csv.gz" | "$MFSTAT" report -f csv --by system - | cmp - "$tmp/plain" && echo "gzip on stdin: same report"
head -c 300 "$tmp/a.csv.gz" > "$tmp/t.gz"
"$MFSTAT" report "$tmp/t.gz" 2>&1 | sed "s|$tmp|TMP|"; echo "exit ${PIPESTATUS[0]}"
