#!/bin/bash
# Control characters and bytes that are not UTF-8 in names from the input (an ESC [31m colour
# code, ^A, DEL, a tab) reach neither the text report nor the terminal through stderr: they are
# shown as \xNN.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ctl() { LC_ALL=C grep -c $'[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]' "$1"; }
"$MFSTAT" report --by system ../data/hostile-names.csv > "$tmp/out" 2> "$tmp/err"
echo "text: exit $?, lines with control bytes: $(ctl "$tmp/out")"
grep -o '^ctl[^ ]*' "$tmp/out"
grep -o '^SUR[^ ]*\|^OVL[^ ]*' "$tmp/out"
# A bad pool holding an escape sequence: the error and its source line, escaped.
printf 'system,pool,machine,B0,B1\nS,\033]0;owned\007GCP,z16,1,1\n' > "$tmp/bad.csv"
"$MFSTAT" report "$tmp/bad.csv" > /dev/null 2> "$tmp/err"
echo "bad pool: exit $?, stderr lines with control bytes: $(ctl "$tmp/err")"
sed "s|$tmp/||" "$tmp/err" | head -2
