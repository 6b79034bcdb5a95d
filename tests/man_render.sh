#!/bin/bash
# SPDX-License-Identifier: MIT
# man_render.sh PAGE...: each man page renders without a warning at 80 columns
# (groff -ww, and man -l with MANWIDTH=80 in a UTF-8 and in the C locale), no rendered
# line is wider than 80 columns, and no JSON key or other name_with_underscores of the page
# (the keys of its JSON example, "interval_start", "cpus_expected", "dispatch_seconds", metric
# names ...) is split by a hyphen at a line end.  Exit 77 (skipped) without man and groff.
set -u
if ! command -v man > /dev/null && ! command -v groff > /dev/null; then
  echo "neither man nor groff is installed (apt-get install man-db groff-base): skipped"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

pages=()
for a in "$@"; do
  if [ -d "$a" ]; then pages+=("$a"/*.1); else pages+=("$a"); fi
done

for page in "${pages[@]}"; do
  name=$(basename "$page")
  if command -v groff > /dev/null; then
    groff -man -Tutf8 -ww -z "$page" > "$tmp/err" 2>&1
    [ -s "$tmp/err" ] && { bad "groff -ww warns on $name:"; cat "$tmp/err"; }
  fi
  command -v man > /dev/null || { echo "man is not installed: only groff checks $name"; continue; }
  # The keys: every name with an underscore in the source, and the quoted keys of JSON examples.
  { grep -oE '[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)+' "$page"
    grep -oE '"[a-z][a-z_]*":' "$page" | tr -d '":'; } | sort -u > "$tmp/keys"
  for loc in C.UTF-8 C; do
    LC_ALL=$loc MANWIDTH=80 man -l "$page" > "$tmp/out" 2> "$tmp/err" || bad "man -l $name ($loc) exits $?"
    [ -s "$tmp/err" ] && { bad "man -l $name warns at 80 columns ($loc):"; cat "$tmp/err"; }
    # Width in columns (wc -L counts a multibyte character as one column).
    width=$(LC_ALL=C.UTF-8 wc -L < "$tmp/out")
    [ "$width" -le 80 ] || { bad "$name ($loc) has lines $width columns wide:"; LC_ALL=C.UTF-8 awk 'length > 80' "$tmp/out"; }
    # A line ending in a hyphen (U+2010 from hyphenation, or -): join its last word with the
    # first word of the next line; a key found in the join and in neither part was split.
    LC_ALL=C awk -v keysfile="$tmp/keys" '
      BEGIN { while ((getline k < keysfile) > 0) keys[k] = 1 }
      { line[NR] = $0 }
      END {
        for (i = 1; i < NR; i++) {
          l = line[i]
          if (l !~ /(-|\342\200\220)$/) continue
          sub(/(-|\342\200\220)$/, "", l)
          n = split(l, w, /[ \t]+/); a = w[n]
          split(line[i + 1], v, /[ \t]+/); b = (v[1] == "" ? v[2] : v[1])
          for (k in keys)
            if (index(a b, k) && !index(a, k) && !index(b, k))
              printf "%s split at line %d: %s|%s\n", k, i, a, b
        }
      }' "$tmp/out" > "$tmp/split"
    [ -s "$tmp/split" ] && { bad "$name ($loc) splits keys at a line end:"; cat "$tmp/split"; }
  done
done
[ $fail = 0 ] && echo "${#pages[@]} man pages render at 80 columns without warnings or split keys"
exit $fail
