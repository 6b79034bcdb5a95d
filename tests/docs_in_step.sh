#!/bin/bash
# SPDX-License-Identifier: MIT
# Keeps --help, man/mfstat.1, the manual (README.md and docs/) and completion/mfstat.bash in
# step: every long option that `mfstat CMD --help` lists must appear in the man page's part for
# CMD and in README.md or a page of docs/, every option that part of the man page names must be
# in CMD's --help, and the bash completion must offer the options of each command's option table
# and no others. And the manual's shape: README.md under 250 lines, each docs/guide page opening
# with the question it answers, every relative link of README.md and docs/ leading to a file
# that exists (and a #anchor into a .md file to one of its headings).
set -u
MFSTAT=$1
root=$(cd "$(dirname "$0")/.." && pwd)
man=$root/man/mfstat.1
readme=$root/README.md
# The manual: the front page and every page under docs/.
manual=("$readme")
while IFS= read -r -d '' f; do manual+=("$f"); done < <(find "$root/docs" -name '*.md' -print0 | sort -z)
in_manual() { grep -q -- "$1" "${manual[@]}"; }
fail=0
for cmd in report diff export counters metrics machines smf stat serve measure; do
  opts=$("$MFSTAT" "$cmd" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
  [ -n "$opts" ] || { echo "FAIL: $cmd --help lists no options"; fail=1; }
  for o in $opts; do
    esc=${o//-/\\\\-}
    if ! grep -q -- "$esc" "$man"; then echo "FAIL: $cmd $o is in --help but not in man/mfstat.1"; fail=1; fi
    if [ "$o" != --help ] && ! in_manual "$o"; then
      echo "FAIL: $cmd $o is in --help but neither in README.md nor in docs/"; fail=1
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
    [ "$o" = --help ] || in_manual "$o" || { echo "FAIL: db $verb $o is in --help but neither in README.md nor in docs/"; fail=1; }
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

# The front page stays a front page.
n=$(wc -l < "$readme")
[ "$n" -lt 250 ] || { echo "FAIL: README.md has $n lines (the front page must stay under 250: move text to docs/)"; fail=1; }

# Each guide page opens with the question it answers: its first paragraph after the title
# (a '> ' quote or plain text) ends with '?'.
for f in "$root"/docs/guide/*.md; do
  first=$(awk 'NR == 1 && /^# / { next } /^[ \t]*$/ { if (p != "") exit; next } { p = p " " $0 }
    END { sub(/[ \t]+$/, "", p); print p }' "$f")
  case $first in
  *\?) ;;
  *) echo "FAIL: ${f#$root/}: the first paragraph is not a question (ends with '?'): ${first:0:100}"; fail=1 ;;
  esac
done

# Headings of a Markdown file as GitHub makes their anchors: lower case, punctuation but '-'
# and '_' dropped, spaces to '-'; a repeated one gets -1, -2, ... (code blocks are not headings).
anchors() {
  awk '/^```/ { code = !code; next } !code && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
    sed -E 's/.*/\L&/; s/[^a-z0-9 _-]//g; s/ /-/g' |
    awk '{ n = seen[$0]++; print (n ? $0 "-" n : $0) }'
}
# Every relative link of the manual leads somewhere: [text](path), [text](path#anchor),
# [text](#anchor), images too; links in code blocks and inline code are not links.
for f in "${manual[@]}"; do
  dir=$(dirname "$f")
  links=$(awk '/^```/ { code = !code; next } !code { gsub(/`[^`]*`/, ""); print }' "$f" |
    grep -oE '\]\([^) ]+\)' | sed -E 's/^\]\(//; s/\)$//')
  for l in $links; do
    case $l in http://* | https://* | mailto:*) continue ;; esac
    path=${l%%#*}
    anchor=
    [ "$path" != "$l" ] && anchor=${l#*#}
    target=$f
    [ -n "$path" ] && target=$dir/$path
    if [ ! -e "$target" ]; then
      echo "FAIL: ${f#$root/}: link '$l': no such file ${target#$root/}"; fail=1; continue
    fi
    if [ -n "$anchor" ] && [ "${target%.md}" != "$target" ] && ! anchors "$target" | grep -qxF -- "$anchor"; then
      echo "FAIL: ${f#$root/}: link '$l': ${target#$root/} has no heading with the anchor #$anchor"; fail=1
    fi
  done
done
[ $fail = 0 ] && echo "help, man page and the manual (README.md, docs/) agree"
exit $fail
