#!/bin/bash
# SPDX-License-Identifier: MIT
# readme_tour.sh MFSTAT GENSMF SOURCE_DIR: README.md's tour shows what the commands print now.
# Each ```console block right after a line `<!-- tour -->` is a run: its `$ ` lines are the
# commands, the lines after each its output (standard output and error). They are run in order,
# in an empty directory holding a link to examples/, with MFSTAT as mfstat and GENSMF as
# mfstat-gensmf, and the block must read exactly so. Blocks without the mark (timings, a
# machine's own figures) are not checked. MFSTAT_UPDATE=1 rewrites the marked blocks instead.
set -u
MFSTAT=$(realpath "$1")
GENSMF=$(realpath "$2")
src=$(cd "$3" && pwd)
readme=$src/README.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

mkdir -p "$tmp/bin" "$tmp/work" "$tmp/blocks"
ln -s "$MFSTAT" "$tmp/bin/mfstat"
ln -s "$GENSMF" "$tmp/bin/mfstat-gensmf"
ln -s "$src/examples" "$tmp/work/examples"
export PATH=$tmp/bin:/usr/bin:/bin

# The marked blocks' bodies, one file each (N.body), in README order.
awk -v dir="$tmp/blocks" '
  /^<!-- tour -->$/ { mark = 1; next }
  mark && /^```console$/ { n++; body = 1; mark = 0; printf "" > (dir "/" n ".body"); next }
  { mark = 0 }
  body && /^```$/ { body = 0; next }
  body { print > (dir "/" n ".body") }' "$readme"
n=$(find "$tmp/blocks" -name '*.body' | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL: README.md has no block marked <!-- tour -->"; exit 1; }

for i in $(seq 1 "$n"); do
  body=$tmp/blocks/$i.body
  grep -q '^\$ ' "$body" || { echo "FAIL: README.md tour block $i has no '\$ ' command"; fail=1; continue; }
  # The block as the commands print it now: each '$ ' line, then its output.
  # A command that fails is named (and never written into the README by MFSTAT_UPDATE).
  grep '^\$ ' "$body" | while IFS= read -r line; do
    printf '%s\n' "$line"
    (cd "$tmp/work" && bash -c "${line#\$ }" < /dev/null 2>&1) ||
      echo "$line: exit $?" >> "$tmp/failed"
  done > "$tmp/blocks/$i.now"
  if [ -s "$tmp/failed" ]; then
    echo "FAIL: README.md tour block $i: a command failed:"; cat "$tmp/failed"
    rm -f "$tmp/failed"; fail=1; continue
  fi
  if ! cmp -s "$body" "$tmp/blocks/$i.now"; then
    if [ "${MFSTAT_UPDATE:-}" = 1 ]; then
      echo "README.md tour block $i rewritten ($(head -n 1 "$body"))"
    else
      echo "FAIL: README.md tour block $i ($(head -n 1 "$body")) is not what the commands print now:"
      diff -u "$body" "$tmp/blocks/$i.now" | head -n 40
      fail=1
    fi
  fi
done

if [ "${MFSTAT_UPDATE:-}" = 1 ]; then
  [ $fail = 0 ] || { echo "README.md left as it is"; exit 1; }
  awk -v dir="$tmp/blocks" '
    /^<!-- tour -->$/ { print; mark = 1; next }
    mark && /^```console$/ { n++; print; while ((getline l < (dir "/" n ".now")) > 0) print l; skip = 1; mark = 0; next }
    { mark = 0 }
    skip && /^```$/ { skip = 0; print; next }
    skip { next }
    { print }' "$readme" > "$tmp/README.md" && cat "$tmp/README.md" > "$readme"
  exit 0
fi
[ $fail = 0 ] && echo "the $n marked blocks of README.md's tour are what the commands print"
exit $fail
