#!/bin/bash
# Names from the input are escaped: a system called <script>... shows as text, never as markup.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$MFSTAT" report -f html -o "$tmp/p.html" ../data/hostile.csv
echo "exit $?"
echo "script tags: $(grep -c '<script' "$tmp/p.html")"
grep -o '&lt;script&gt;alert(1)&lt;/script&gt;' "$tmp/p.html" | head -1
grep -o '&amp;&lt;&gt;&#39;&quot;' "$tmp/p.html" | head -1
