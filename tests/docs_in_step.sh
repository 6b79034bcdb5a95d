#!/bin/bash
# SPDX-License-Identifier: MIT
# Keeps --help, man/mfstat.1, README.md and completion/mfstat.bash in step: every long
# option that `mfstat CMD --help` lists must appear in the man page's part for CMD and in the
# README, every option that part of the man page names must be in CMD's --help, and the bash
# completion must offer the options of each command's option table and no others.
set -u
MFSTAT=$1
root=$(cd "$(dirname "$0")/.." && pwd)
man=$root/man/mfstat.1
readme=$root/README.md
fail=0
for cmd in report diff export counters metrics machines smf stat serve measure; do
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
# The man page's own part of each command: its SYNOPSIS entries and its section under OPTIONS
# (".SS counters, metrics" serves both, ".SS smf list" is smf's), as plain text.
man_part() {
  local cmd=$1 tag=$1
  [ "$cmd" = smf ] && tag="smf list"
  awk -v cmd="$cmd" -v tag="$tag" '
    /^\.SH / { sec = $0; in_opts = 0; start = 1; keep = 0; next }
    sec == ".SH SYNOPSIS" {
      if ($0 == ".br") { keep = 0; start = 1; next }
      if (start) { keep = ($0 == ".B mfstat " cmd || index($0, ".B mfstat " cmd " ") == 1); start = 0 }
      if (keep) print; next }
    sec == ".SH OPTIONS" && /^\.SS / {
      in_opts = 0; n = split(substr($0, 5), names, ", ")
      for (i = 1; i <= n; i++) if (names[i] == tag) in_opts = 1
      next }
    in_opts { print }' "$man" | sed 's/\\-/-/g'
}
# Both directions per command: every long option of `mfstat CMD --help` is in the command's
# part of the man page, and every long option that part names is in `mfstat CMD --help`.
for cmd in report diff export counters metrics machines smf stat serve measure; do
  part=$(man_part "$cmd")
  [ -n "$part" ] || { echo "FAIL: man/mfstat.1 has no OPTIONS section for $cmd"; fail=1; continue; }
  help=$("$MFSTAT" "$cmd" --help)
  for o in $(grep -oE -- '--[a-z][a-z-]+' <<< "$help" | sort -u); do
    grep -q -- "$o\([^a-z-]\|$\)" <<< "$part" ||
      { echo "FAIL: $cmd $o is in --help but not in the $cmd part of man/mfstat.1"; fail=1; }
  done
  for o in $(grep -oE -- '--[a-z][a-z-]+' <<< "$part" | sort -u); do
    grep -q -- "$o\([^a-z-]\|$\)" <<< "$help" ||
      { echo "FAIL: man/mfstat.1 documents $cmd $o, mfstat $cmd --help does not"; fail=1; }
  done
done
# The bash completion offers each command's options: every option that --help lists in its
# option table (a line starting with it), and nothing --help does not name (--help aside).
completion=$root/completion/mfstat.bash
for cmd in report diff export counters metrics machines smf stat serve measure; do
  offered=$(grep -oE "^ *local opts_$cmd='[^']*'" "$completion" | grep -oE -- '--[a-z][a-z-]+' | sort -u)
  [ -n "$offered" ] || { echo "FAIL: completion/mfstat.bash has no opts_$cmd"; fail=1; continue; }
  help=$("$MFSTAT" "$cmd" --help)
  for o in $(grep -oE -- '^ +(-[A-Za-z], )?--[a-z][a-z-]+' <<< "$help" | grep -oE -- '--[a-z-]+' | sort -u); do
    grep -qx -- "$o" <<< "$offered" ||
      { echo "FAIL: completion/mfstat.bash does not offer $cmd $o (in --help)"; fail=1; }
  done
  for o in $offered; do
    [ "$o" = --help ] && continue
    grep -q -- "$o\([^a-z-]\|$\)" <<< "$help" ||
      { echo "FAIL: completion/mfstat.bash offers $cmd $o, mfstat $cmd --help does not name it"; fail=1; }
  done
done
# The db verbs (mfstat db VERB --help): the same three ways, their man part ".SS db VERB",
# their completion opts_db_VERB.
for verb in import info rollup prune sql; do
  help=$("$MFSTAT" db "$verb" --help)
  part=$(awk -v tag="db $verb" '/^\.SH / { sec = $0; keep = 0; next }
    sec == ".SH OPTIONS" && /^\.SS / { keep = (substr($0, 5) == tag); next }
    keep { print }' "$man" | sed 's/\\-/-/g')
  [ -n "$part" ] || { echo "FAIL: man/mfstat.1 has no OPTIONS section for db $verb"; fail=1; }
  offered=$(grep -oE "^ *local opts_db_$verb='[^']*'" "$completion" | grep -oE -- '--[a-z][a-z-]+' | sort -u)
  for o in $(grep -oE -- '--[a-z][a-z-]+' <<< "$help" | sort -u); do
    grep -q -- "$o\([^a-z-]\|$\)" <<< "$part" || { echo "FAIL: db $verb $o is in --help but not in man/mfstat.1"; fail=1; }
    [ "$o" = --help ] || grep -q -- "$o" "$readme" || { echo "FAIL: db $verb $o is in --help but not in README.md"; fail=1; }
    grep -qx -- "$o" <<< "$offered" || { echo "FAIL: completion/mfstat.bash does not offer db $verb $o"; fail=1; }
  done
  for o in $(grep -oE -- '--[a-z][a-z-]+' <<< "$part" | sort -u) $offered; do
    grep -q -- "$o\([^a-z-]\|$\)" <<< "$help" || { echo "FAIL: db $verb $o is documented but not in its --help"; fail=1; }
  done
done
# The main help names every command the man page has.
for c in report diff export counters metrics machines smf stat serve measure db; do
  "$MFSTAT" --help | grep -q "^  $c " || { echo "FAIL: mfstat --help lacks $c"; fail=1; }
  grep -q "^\.B mfstat $c" "$man" || { echo "FAIL: man lacks $c"; fail=1; }
done
[ $fail = 0 ] && echo "help, man page and README agree"
exit $fail
