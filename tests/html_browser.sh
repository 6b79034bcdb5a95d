#!/bin/bash
# SPDX-License-Identifier: MIT
# The HTML report in a real browser: headless Chromium renders the page made from a generated
# three-day SMF dump; the screenshot must have the window's size and not be blank, and the
# network log must show no request (the page is self-contained).  Skips where Chromium is not
# installed (.ci/run installs Debian's chromium).  MFSTAT_UPDATE_DOCS=1 copies the screenshot to
# docs/report.png for the README.
set -u
MFSTAT=$1
GENSMF=$2
root=$(cd "$(dirname "$0")/.." && pwd)
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "SKIP: Chromium is not installed (Debian package chromium)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$GENSMF" -q --systems 2 --cpus 4 --ziip 1 --intervals 288 --jitter-ms 200 -o "$tmp/days.smf"
"$MFSTAT" report -q -f html --by system,pool,interval -o "$tmp/page.html" "$tmp/days.smf" || { echo "FAIL: report"; exit 1; }
# Nothing that loads: no script, no link or src attribute, no URL but the SVG namespace.
if grep -qiE '<script|<link|<img|src=|url\(' "$tmp/page.html"; then echo "FAIL: the page loads something"; fail=1; fi
if grep -oE 'https?://[^" ]*' "$tmp/page.html" | grep -v '^http://www.w3.org/2000/svg$' | grep -q .; then
	echo "FAIL: the page names a URL"; fail=1
fi
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync --disable-extensions \
	--user-data-dir="$tmp/profile" --window-size=1200,2400 --hide-scrollbars \
	--log-net-log="$tmp/net.json" --net-log-capture-mode=Everything \
	--screenshot="$tmp/shot.png" "file://$tmp/page.html" > "$tmp/browser.log" 2>&1
if [ ! -s "$tmp/shot.png" ]; then
	echo "FAIL: no screenshot"; tail -5 "$tmp/browser.log"; exit 1
fi
# PNG IHDR: width and height, big-endian, at bytes 16..23.
w=$(od -An -tu1 -j16 -N4 "$tmp/shot.png" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
h=$(od -An -tu1 -j20 -N4 "$tmp/shot.png" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
[ "$w" = 1200 ] && [ "$h" = 2400 ] || { echo "FAIL: screenshot is ${w}x$h, not 1200x2400"; fail=1; }
# A blank page compresses to a few kilobytes; charts and tables do not.
size=$(stat -c %s "$tmp/shot.png")
[ "$size" -gt 40000 ] || { echo "FAIL: the screenshot looks blank ($size bytes)"; fail=1; }
# No network request from the page: every URL in the network log is the file itself, or one of
# Chromium's own background services (update, time, accounts), which no flag fully silences.
own='"url":"https?://([a-z0-9.-]*\.)?(google\.com|googleapis\.com|gstatic\.com|gvt1\.com)/'
if [ -s "$tmp/net.json" ] && grep -oE '"url":"[a-z]+://[^"]*"' "$tmp/net.json" |
	grep -vE '"url":"(file|data|chrome|chrome-extension|about):' | grep -vE "$own" | grep -q .; then
	echo "FAIL: the page made network requests:"
	grep -oE '"url":"[a-z]+://[^"]*"' "$tmp/net.json" | grep -vE '"url":"(file|data|chrome|chrome-extension|about):' |
		grep -vE "$own" | sort -u | head -5
	fail=1
fi
grep -q "file://$tmp/page.html" "$tmp/net.json" 2>/dev/null || [ ! -s "$tmp/net.json" ] ||
	{ echo "FAIL: the network log does not show the page being loaded"; fail=1; }
if [ "${MFSTAT_UPDATE_DOCS:-0}" = 1 ]; then
	mkdir -p "$root/docs" && cp "$tmp/shot.png" "$root/docs/report.png" && echo "wrote docs/report.png"
fi
[ $fail = 0 ] && echo "rendered ${w}x$h, $size bytes, no network request"
exit $fail
