#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs one golden CLI test: tests/cli/CMD/NAME.sh (one folder per command:
# main, report, kb, smf; NAME is unique across them) is run with MFSTAT set to
# the binary, from tests/cli/, under LC_ALL=C TZ=UTC.  Its stdout must equal
# NAME.stdout.exact, its exit status NAME.exit, and its stderr NAME.stderr.exact
# when that file exists, all beside NAME.sh.  With MFSTAT_UPDATE=1 the
# expectations are rewritten.
# Usage: run.sh MFSTAT NAME   (or CMD/NAME)
set -u
MFSTAT=$(realpath "$1")
cli=$(cd "$(dirname "$0")" && pwd)
case $2 in
*/*) name=$2 ;;
*)
  found=$(cd "$cli" && ls -- */"$2.sh" 2>/dev/null)
  if [ "$(printf '%s\n' "$found" | grep -c .)" != 1 ]; then
    echo "run.sh: no single tests/cli/*/$2.sh (found: ${found:-none})" >&2
    exit 2
  fi
  name=${found%.sh} ;;
esac
dir=$cli/${name%/*}
name=${name##*/}
export MFSTAT LC_ALL=C TZ=UTC NO_COLOR=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$cli"
bash "$dir/$name.sh" >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/exit"
if [ "${MFSTAT_UPDATE:-0}" = 1 ]; then
  cp "$tmp/out" "$dir/$name.stdout.exact"
  cp "$tmp/exit" "$dir/$name.exit"
  if [ -s "$tmp/err" ] || [ -f "$dir/$name.stderr.exact" ]; then cp "$tmp/err" "$dir/$name.stderr.exact"; fi
  echo "updated $name"
  exit 0
fi
ok=0
if ! diff -u "$dir/$name.stdout.exact" "$tmp/out"; then echo "FAIL: $name: stdout differs"; ok=1; fi
if ! diff -u "$dir/$name.exit" "$tmp/exit"; then echo "FAIL: $name: exit status differs"; cat "$tmp/err"; ok=1; fi
if [ -f "$dir/$name.stderr.exact" ] && ! diff -u "$dir/$name.stderr.exact" "$tmp/err"; then
  echo "FAIL: $name: stderr differs"; ok=1
fi
exit $ok
