#!/bin/bash
# SPDX-License-Identifier: MIT
# install.sh CMAKE BUILD_DIR SOURCE_DIR: `cmake --install` into a temporary prefix, then the
# installed program (--help, a report from another directory, the same as the build's), its man
# pages (man -l at 80 columns without a warning on stderr; `man mfstat-report` through
# MANPATH), the bash completion (bash -n, completing `mfstat rep` and `--by system,po`),
# README, the docs/ pages, the examples and mfstat-gensmf; then cmake/uninstall.sh with the
# install manifest must leave no file in the prefix.
# It installs the component "mfstat" (everything), so its manifest is
# BUILD_DIR/install_manifest_mfstat.txt and that of a real `make install` is left alone.
set -u
CMAKE=$1
build=$(cd "$2" && pwd)
src=$(cd "$3" && pwd)
tmp=$(mktemp -d)
manifest=$build/install_manifest_mfstat.txt
prefix=$tmp/prefix
fail=0
bad() { echo "FAIL: $*"; fail=1; }

record=$build/install_record_mfstat.txt
trap 'rm -rf "$tmp"; rm -f "$manifest" "$record"' EXIT
# The prefix's parent exists and holds another program's directory: the installation creates
# prefix/... but not prefix/share/man, which was there before (and must stay after uninstall).
mkdir -p "$prefix/share/man/man5"
touch "$prefix/share/man/man5/other.5"
sh "$src/cmake/install.sh" "$CMAKE" "$build" "$prefix" "$record" mfstat > "$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; echo "FAIL: cmake/install.sh"; exit 1; }
rm "$prefix/share/man/man5/other.5"
rmdir "$prefix/share/man/man5"
[ -s "$manifest" ] || { echo "FAIL: no $manifest"; exit 1; }

commands="report diff export counters metrics machines smf stat serve measure"
expected="bin/mfstat bin/mfstat-gensmf share/man/man1/mfstat.1 share/bash-completion/completions/mfstat share/doc/mfstat/README.md"
for c in $commands; do expected="$expected share/man/man1/mfstat-$c.1"; done
# The manual's pages (docs/, as share/doc/mfstat/docs) and the examples.
for f in $(cd "$src/docs" && find . -type f | sed 's|^\./||' | sort); do expected="$expected share/doc/mfstat/docs/$f"; done
for f in README.md z16-demo.csv hot.c; do expected="$expected share/doc/mfstat/examples/$f"; done
for f in $expected; do
  [ -f "$prefix/$f" ] || bad "$f not installed"
  grep -qx "$prefix/$f" "$manifest" || bad "$f not in the install manifest"
done
[ -x "$prefix/bin/mfstat" ] || bad "bin/mfstat is not executable"
[ -x "$prefix/bin/mfstat-gensmf" ] || bad "bin/mfstat-gensmf is not executable"
for d in bin share/man/man1 share/bash-completion share/bash-completion/completions share/doc share/doc/mfstat \
  share/doc/mfstat/docs share/doc/mfstat/docs/guide share/doc/mfstat/docs/reference share/doc/mfstat/examples; do
  grep -qx "dir $prefix/$d" "$record" || bad "$record does not list $d as created"
done
for d in share share/man; do
  grep -qx "dir $prefix/$d" "$record" && bad "$record lists $d, which existed before, as created"
done
n_installed=$(find "$prefix" -type f | wc -l)
n_expected=$(echo $expected | wc -w)
[ "$n_installed" = "$n_expected" ] || { bad "$n_installed files installed, $n_expected expected:"; find "$prefix" -type f; }

# The installed program, run from elsewhere (no source or build tree at hand).
cd /
"$prefix/bin/mfstat" --help > "$tmp/help" 2>&1 || bad "mfstat --help exits $?"
grep -q '^Usage: mfstat' "$tmp/help" || bad "mfstat --help: no usage line"
"$prefix/bin/mfstat" report "$src/tests/data/small-s1.smf" > "$tmp/report" 2> "$tmp/report.err" ||
  { bad "mfstat report small-s1.smf exits $?"; cat "$tmp/report.err"; }
[ -s "$tmp/report" ] || bad "mfstat report small-s1.smf printed nothing"
"$build/mfstat" report "$src/tests/data/small-s1.smf" > "$tmp/report.build" 2>/dev/null
cmp -s "$tmp/report" "$tmp/report.build" || bad "the installed mfstat reports differently from $build/mfstat"

# Man pages: each renders at 80 columns with nothing on stderr; the subcommand pages are real
# pages (man -l works on them, not only through MANPATH).
if command -v man > /dev/null; then
  man1=$prefix/share/man/man1
  for p in mfstat $(for c in $commands; do echo "mfstat-$c"; done); do
    MANWIDTH=80 man -l "$man1/$p.1" > "$tmp/man.out" 2> "$tmp/man.err" || bad "man -l $p.1 exits $?"
    [ -s "$tmp/man.err" ] && { bad "man -l $p.1 warns:"; cat "$tmp/man.err"; }
    grep -q '^NAME' "$tmp/man.out" || bad "man -l $p.1: no NAME section"
  done
  MANWIDTH=80 man -l "$man1/mfstat-report.1" 2>/dev/null | grep -q -- '--by LIST' ||
    bad "man -l mfstat-report.1 does not show the report options"
  MANWIDTH=80 man -l "$man1/mfstat-smf.1" 2>/dev/null | grep -q -- '--skip-bad-records' ||
    bad "man -l mfstat-smf.1 does not show the smf list options"
  for p in mfstat mfstat-report mfstat-measure; do
    found=$(MANPATH=$prefix/share/man man -w "$p" 2>/dev/null)
    [ "$found" = "$man1/$p.1" ] || bad "MANPATH=PREFIX/share/man man -w $p gives '$found'"
  done
else
  echo "man is not installed: the man page checks are skipped (apt-get install man-db groff-base)"
fi

# Bash completion: valid syntax, and the completion function called as bash would.
comp=$prefix/share/bash-completion/completions/mfstat
bash -n "$comp" || bad "bash -n $comp"
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
           COMPREPLY=(); _mfstat; printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$comp" "$@"
}
got=$(complete_words mfstat rep)
[ "$got" = report ] || bad "mfstat rep<TAB> gives '$got', not report"
got=$(complete_words mfstat report --by system,po | tr '\n' ' ')
[ "$got" = "system,polarity system,pool " ] || bad "mfstat report --by system,po<TAB> gives '$got'"
got=$(complete_words mfstat report --machine z1 | tr '\n' ' ')
[ "$got" = "z10 z13 z14 z15 z16 z17 z196 " ] || bad "mfstat report --machine z1<TAB> gives '$got'"
got=$(complete_words mfstat measure p | tr '\n' ' ')
[ "$got" = "probe profile " ] || bad "mfstat measure p<TAB> gives '$got'"

# Uninstall through the manifest: no file may remain, the directories the installation created
# are gone, those that were there before (share, share/man) stay.
sh "$src/cmake/uninstall.sh" "$manifest" "$record" > "$tmp/uninstall.log" 2>&1 ||
  { cat "$tmp/uninstall.log"; bad "uninstall.sh exits $?"; }
left=$(find "$prefix" ! -type d)
[ -z "$left" ] || bad "files left after uninstall: $left"
left=$(cd "$prefix" && find . -mindepth 1 -type d | sort | tr '\n' ' ')
[ "$left" = "./share ./share/man " ] || bad "directories after uninstall: '$left', not ./share ./share/man"
[ -e "$manifest" ] && bad "uninstall.sh left the manifest"
[ -e "$record" ] && bad "uninstall.sh left the record"
sh "$src/cmake/uninstall.sh" "$manifest" | grep -q '^Nothing to uninstall' ||
  bad "uninstall.sh without a manifest does not say there is nothing to uninstall"

# A manifest naming a file outside the prefix (edited, or another installation's) removes
# nothing there: the line is refused, exit 1, and the manifest is kept.
mkdir -p "$tmp/elsewhere" "$prefix/bin"
touch "$tmp/elsewhere/precious" "$prefix/bin/mfstat"
printf '%s\n' "$prefix/bin/mfstat" "$tmp/elsewhere/precious" "$prefix/bin/../../elsewhere/precious" > "$manifest"
printf 'prefix %s\n' "$prefix" > "$record"
sh "$src/cmake/uninstall.sh" "$manifest" "$record" > "$tmp/uninstall.log" 2>&1 &&
  bad "uninstall.sh of a manifest naming files outside the prefix exits 0"
[ -e "$tmp/elsewhere/precious" ] || bad "uninstall.sh removed a file outside the prefix"
[ -e "$prefix/bin/mfstat" ] && bad "uninstall.sh did not remove the file under the prefix"
grep -q "elsewhere/precious is not under the prefix $prefix" "$tmp/uninstall.log" ||
  { cat "$tmp/uninstall.log"; bad "uninstall.sh does not name the refused line"; }
[ -e "$manifest" ] || bad "uninstall.sh removed the manifest after refusing a line"
rm -f "$manifest" "$record"

# make install builds only what it installs (the programs and the man pages), never the tests.
if command -v make > /dev/null; then
  line=$(make -s -n -C "$src" install PREFIX="$tmp/p2" 2>/dev/null | grep -- '--build' | head -n 1)
  case $line in
  *"--target mfstat_cli man_subpages gensmf"*) ;;
  *) bad "make install builds more than it installs: '$line'" ;;
  esac
fi

[ $fail = 0 ] && echo "install, man pages, completion and uninstall work"
exit $fail
