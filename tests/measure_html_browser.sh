#!/bin/bash
# SPDX-License-Identifier: MIT
# The HTML pages of mfstat measure in a real browser.  Headless Chromium renders:
#   profile.html  a live `measure profile -o profile.html` of mprog_hot_O2 (with -g where
#                 measure has it: a flame graph; else the bar chart of a run without chains)
#   flame.html    a hand-made profile with call chains (measure_html_page profile)
#   diff.html     the differential flame graph of two hand-made runs, 3:1 then 1:1 (mf_mdiff_html)
#   rundiff.html  the differential page of the two live run files (-d), with --negate
# Each screenshot must have the window's size and not be blank (much larger than a blank page's,
# rendered alongside), and the network log must show no request.  Grep checks: no external URL,
# nothing loaded (an inline script only, the zoom), a <title> on every frame, names escaped; and
# a click on a frame zooms to it.
# Skips where Chromium is not installed (.ci/run installs Debian's chromium).
set -u
MFSTAT=$1
PAGE=$2
PROGDIR=$3
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "SKIP: Chromium is not installed (Debian package chromium)"
	exit 77
fi
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && cp "$tmp"/*.png "$tmp"/*.html "$KEEP"/; rm -rf "$tmp"' EXIT
fail=0
cd "$tmp" || exit 1
g=
"$MFSTAT" measure --help 2>&1 | grep -q -- '--call-graph' && g=-g
"$MFSTAT" measure profile -q $g -d a.mfdb -o profile.html -- "$PROGDIR/mprog_hot_O2" 2 >/dev/null ||
	{ echo "FAIL: measure profile -o profile.html"; exit 1; }
"$MFSTAT" measure profile -q $g -d b.mfdb -o /dev/null -- "$PROGDIR/mprog_hot_O2" 1 >/dev/null ||
	{ echo "FAIL: measure profile -d b.mfdb"; exit 1; }
"$PAGE" profile flame.html || { echo "FAIL: measure_html_page profile"; exit 1; }
"$PAGE" diff diff.html || { echo "FAIL: measure_html_page diff"; exit 1; }
"$PAGE" diff rundiff.html --negate a.mfdb b.mfdb || { echo "FAIL: measure_html_page diff of the run files"; exit 1; }
printf '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>blank</title></head><body></body></html>\n' >blank.html

# What the pages must say (grep): titles, the escaped hostile name, the change of caller_a.
grep -q '<title>mfstat measure profile: mprog_hot_O2</title>' profile.html || { echo "FAIL: profile.html: no page title"; fail=1; }
grep -q '<title>hot_loop (mprog_hot_O2)' profile.html || { echo "FAIL: profile.html: no title for hot_loop"; fail=1; }
grep -q '<title>caller_a (prog): 450 samples, 80.79%</title>' flame.html || { echo "FAIL: flame.html: no title for caller_a"; fail=1; }
grep -q 'cmp&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;' flame.html || { echo "FAIL: flame.html: the name is not escaped"; fail=1; }
grep -q '<script>alert' flame.html diff.html && { echo "FAIL: a name's markup reached the page"; fail=1; }
grep -q '<title>caller_a (prog): 77.99% → 59.17% (-18.82 points)</title>' diff.html ||
	{ echo "FAIL: diff.html: no title with caller_a's change"; grep -o '<title>caller_a[^<]*' diff.html; fail=1; }
grep -q 'Stacks only in BEFORE' diff.html && grep -q '<code>prog;main;gone</code>' diff.html ||
	{ echo "FAIL: diff.html: the stack only in BEFORE is not listed"; fail=1; }
grep -q '<title>mfstat measure diff: mprog_hot_O2</title>' rundiff.html || { echo "FAIL: rundiff.html: no page title"; fail=1; }
for p in profile flame diff rundiff; do
	f=$p.html
	# Every frame or bar has its title (readable without script).
	ng=$(grep -c '^<g' "$f")
	nt=$(grep -c '^<g[^>]*><title>' "$f")
	[ "$ng" -gt 0 ] && [ "$ng" = "$nt" ] || { echo "FAIL: $f: $nt titles for $ng frames"; fail=1; }
	# Nothing that loads: no link, img, src attribute or url(); a script only inline.
	if grep -qiE '<link|<img|<iframe|<object|<embed|src=|url\(|@import' "$f"; then echo "FAIL: $f loads something"; fail=1; fi
	if grep -oiE '<script[^>]*>' "$f" | grep -qv '^<script>$'; then echo "FAIL: $f: a script that is not inline"; fail=1; fi
	if grep -oE 'https?://[^" ]*' "$f" | grep -v '^http://www.w3.org/2000/svg$' | grep -q .; then
		echo "FAIL: $f names a URL"; fail=1
	fi
done

shoot() { # page -> $1.png, network log $1.json
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync --disable-extensions \
		--user-data-dir="$tmp/profile-$1" --window-size=1200,1600 --hide-scrollbars \
		--log-net-log="$tmp/$1.json" --net-log-capture-mode=Everything \
		--screenshot="$tmp/$1.png" "file://$tmp/$1.html" >"$tmp/$1.log" 2>&1
}
shoot blank
blank=$(stat -c %s blank.png 2>/dev/null || echo 0)
[ "$blank" -gt 0 ] || { echo "FAIL: no screenshot of the blank page"; tail -5 blank.log; exit 1; }
for p in profile flame diff rundiff; do
	shoot $p
	if [ ! -s $p.png ]; then
		echo "FAIL: $p: no screenshot"; tail -5 $p.log; fail=1; continue
	fi
	# PNG IHDR: width and height, big-endian, at bytes 16..23.
	w=$(od -An -tu1 -j16 -N4 $p.png | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	h=$(od -An -tu1 -j20 -N4 $p.png | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	[ "$w" = 1200 ] && [ "$h" = 1600 ] || { echo "FAIL: $p: screenshot is ${w}x$h, not 1200x1600"; fail=1; }
	# A blank page compresses to a few kilobytes; charts and tables do not.
	size=$(stat -c %s $p.png)
	[ "$size" -gt 40000 ] && [ "$size" -gt $((blank * 5)) ] ||
		{ echo "FAIL: $p: the screenshot looks blank ($size bytes, a blank page $blank)"; fail=1; }
	# No network request from the page: every URL in the network log is the file itself, or one of
	# Chromium's own background services (update, time, accounts), which no flag fully silences.
	own='"url":"https?://([a-z0-9.-]*\.)?(google\.com|googleapis\.com|gstatic\.com|gvt1\.com)/'
	if [ -s $p.json ] && grep -oE '"url":"[a-z]+://[^"]*"' $p.json |
		grep -vE '"url":"(file|data|chrome|chrome-extension|about):' | grep -vE "$own" | grep -q .; then
		echo "FAIL: $p made network requests:"
		grep -oE '"url":"[a-z]+://[^"]*"' $p.json | grep -vE '"url":"(file|data|chrome|chrome-extension|about):' |
			grep -vE "$own" | sort -u | head -5
		fail=1
	fi
	grep -q "file://$tmp/$p.html" $p.json 2>/dev/null || [ ! -s $p.json ] ||
		{ echo "FAIL: $p: the network log does not show the page being loaded"; fail=1; }
	echo "$p: rendered ${w}x$h, $size bytes (blank $blank), no network request"
done
# The zoom: a click on caller_b (dispatched by a script added to a copy of the page) makes it
# fill the width and hides caller_a; the DOM after the script tells.
sed 's|</body></html>|<script>var g=[].slice.call(document.querySelectorAll("g.f")).filter(function(g){return g.getAttribute("data-n")=="caller_b"})[0];g.querySelector("rect").dispatchEvent(new MouseEvent("click",{bubbles:true}));</script></body></html>|' \
	flame.html >zoom.html
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
	--disable-component-update --disable-sync --disable-extensions --user-data-dir="$tmp/profile-zoom" \
	--dump-dom "file://$tmp/zoom.html" >zoom.dom 2>zoom.log
grep -q 'data-n="caller_b"><title>[^<]*</title><rect x="10.00" y="[0-9]*" width="1180.00"' zoom.dom &&
	grep -q 'data-n="caller_a" style="display: none;"' zoom.dom && echo "zoom: caller_b fills the width, caller_a hidden" ||
	{ echo "FAIL: a click on caller_b does not zoom to it"; grep 'data-n="caller_[ab]"' zoom.dom | head -3; fail=1; }
exit $fail
