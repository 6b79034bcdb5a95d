#!/bin/bash
# SPDX-License-Identifier: MIT
# Keeps --help, man/mfstat.1 and README.md in step: every long option that
# `mfstat CMD --help` lists must appear in the man page and the README, and
# every option the man page documents must be accepted by the command.
set -u
MFSTAT=$1
root=$(cd "$(dirname "$0")/.." && pwd)
man=$root/man/mfstat.1
readme=$root/README.md
fail=0
for cmd in report diff counters metrics machines smf stat measure; do
  opts=$("$MFSTAT" "$cmd" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
  [ -n "$opts" ] || { echo "FAIL: $cmd --help lists no options"; fail=1; }
  for o in $opts; do
    esc=${o//-/\\\\-}
    if ! grep -q -- "$esc" "$man"; then echo "FAIL: $cmd $o is in --help but not in man/mfstat.1"; fail=1; fi
    if [ "$o" != --help ] && ! grep -q -- "$o" "$readme"; then
      echo "FAIL: $cmd $o is in --help but not in README.md"; fail=1
    fi
  done
done
# Options the man page documents for report must be accepted (exit 0 with --help after them is
# not a test of acceptance, so check --help text instead).
for o in $(sed -n '/^\.SS report/,/^\.SS counters/p' "$man" | grep -oE '\\\-\\\-[a-z\\-]+' | sed 's/\\//g' | sort -u); do
  if ! "$MFSTAT" report --help | grep -q -- "$o"; then echo "FAIL: man documents report $o, --help does not"; fail=1; fi
done
# The main help names every command the man page has.
for c in report diff counters metrics machines smf stat measure; do
  "$MFSTAT" --help | grep -q "^  $c " || { echo "FAIL: mfstat --help lacks $c"; fail=1; }
  grep -q "^\.B mfstat $c" "$man" || { echo "FAIL: man lacks $c"; fail=1; }
done
[ $fail = 0 ] && echo "help, man page and README agree"
exit $fail
