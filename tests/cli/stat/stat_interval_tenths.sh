#!/bin/bash
# stat -I 100 says its intervals are 0.1 s long, never "0 s" (issue 30, item 3), wherever the
# length is printed: the text report's period line and each interval's interval_seconds
# (rounded to a tenth here: the times are real, so a last, shorter interval may say 0.05 to 0.10 s).
. stat/z16tree.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
z16_tree "$tmp/z16"
export MFSTAT_SYSROOT=$tmp/z16
"$MFSTAT" stat -q -I 100 -o - -- sleep 0.3 >"$tmp/t"
echo "exit $?"
echo "period line says intervals of 0.N s: $(grep -Ec '^period .*, intervals of 0\.[0-9]+( to 0\.[0-9]+)? s$' "$tmp/t")"
echo "says 0 s: $(grep -c 'intervals of 0 s\| 0 s' "$tmp/t")"
"$MFSTAT" stat -q -I 100 -f json -o - -- sleep 0.25 | grep -o '"interval_seconds":[0-9.]*' | head -2 |
	awk -F: '{ printf "interval_seconds %.1f\n", $2 }'
"$MFSTAT" stat -q -a -I 100 --duration 0.3 -o - | grep -Ec '^period .*, intervals of 0\.[0-9]+( to 0\.[0-9]+)? s$' | sed 's/^/-a: period line says intervals of 0.N s: /'
