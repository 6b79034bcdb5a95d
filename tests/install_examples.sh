#!/bin/bash
# SPDX-License-Identifier: MIT
# install_examples.sh CMAKE BUILD_DIR SOURCE_DIR: every example runs after installation.
# `cmake --install` into a temporary prefix, then, in an empty directory outside the source and
# build trees and with only the installed programs on PATH, every command of the installed man
# page's EXAMPLES section and every `$ ` command of README.md's tour (its ```console blocks),
# with /usr/share/doc/mfstat (the man page) and examples/ (the README) rewritten to the
# prefix's share/doc/mfstat: each must exit 0 (measure and stat: or 3, measurement impossible,
# where the machine has no perf events at all) and print something or write its -o/-d file.
# An example path under share/doc/mfstat that was not installed is a failure of its own.
# `mfstat serve` (runs until stopped) is only named. Also: mfstat-gensmf --help, and a dump it
# writes read by the installed mfstat. Installs the component "mfstat", whose manifest
# (install_manifest_mfstat.txt) it removes; the ctest RESOURCE_LOCK keeps it from the install
# test, which uses the same manifest.
set -u
CMAKE=$1
build=$(cd "$2" && pwd)
src=$(cd "$3" && pwd)
tmp=$(mktemp -d)
prefix=$tmp/prefix
work=$tmp/work
fail=0
bad() { echo "FAIL: $*"; fail=1; }
trap 'rm -rf "$tmp"; rm -f "$build/install_manifest_mfstat.txt"' EXIT

"$CMAKE" --install "$build" --prefix "$prefix" --component mfstat > "$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
doc=$prefix/share/doc/mfstat
mkdir -p "$work"
cd "$work" || exit 1
# Only what was installed (and the system's tools: cc, sed) is found.
export PATH=$prefix/bin:/usr/local/bin:/usr/bin:/bin
case $(command -v mfstat) in
"$prefix/bin/mfstat") ;;
*) bad "mfstat on PATH is '$(command -v mfstat)', not the installed one" ;;
esac

# mfstat-gensmf: its help, and a dump it writes, read by the installed mfstat.
mfstat-gensmf --help > "$tmp/gensmf.help" 2>&1 || bad "mfstat-gensmf --help exits $?"
grep -q '^Usage:' "$tmp/gensmf.help" || bad "mfstat-gensmf --help prints no usage line"
mfstat-gensmf -q --systems 1 --intervals 4 -o "$tmp/g.smf" || bad "mfstat-gensmf -o g.smf exits $?"
mfstat report --by system "$tmp/g.smf" > "$tmp/g.out" 2>&1 || { bad "mfstat report of mfstat-gensmf's dump exits $?"; cat "$tmp/g.out"; }
grep -q '^SYSA ' "$tmp/g.out" || { bad "the report of mfstat-gensmf's dump has no row of SYSA"; cat "$tmp/g.out"; }

# run WHERE COMMAND: one example, in the work directory.
n_run=0
run() {
  local where=$1 cmd=$2 status out f
  # Every path under the installed doc directory that the example names must be there.
  for f in $(grep -oE "$doc/[^ <>|;]+" <<< "$cmd"); do
    [ -e "$f" ] || bad "$where: $f is not installed (example: $cmd)"
  done
  case $cmd in
  "mfstat serve"*) echo "not run ($where): $cmd (serves until stopped)"; return ;;
  esac
  timeout 120 bash -c "$cmd" > "$tmp/out" 2> "$tmp/err"
  status=$?
  n_run=$((n_run + 1))
  case $status:$cmd in
  0:*) ;;
  3:"mfstat measure"* | 3:"mfstat stat"*)
    echo "$where: exit 3 (measurement impossible here): $cmd"; head -n 3 "$tmp/err" ;;
  *) bad "$where: exit $status: $cmd"; head -n 5 "$tmp/err"; return ;;
  esac
  # Something printed, or the file it was asked to write is there and not empty.
  [ -s "$tmp/out" ] || [ -s "$tmp/err" ] && return
  out=$(grep -oE -- '(^| )(-o|-d) [^ ]+' <<< "$cmd" | tail -n 1 | awk '{ print $2 }')
  [ -n "$out" ] && [ -s "$out" ] && return
  bad "$where: printed nothing and wrote no file: $cmd"
}

# The man page's EXAMPLES, as installed: .nf to .fi, '\-' as '-', '\e' at a line end continues.
man=$prefix/share/man/man1/mfstat.1
[ -f "$man" ] || { echo "FAIL: $man not installed"; exit 1; }
awk '/^\.SH EXAMPLES/ { on = 1; next } /^\.SH / { on = 0 } on && /^\.nf/ { nf = 1; next }
  on && /^\.fi/ { nf = 0 } on && nf' "$man" |
  sed 's/\\-/-/g' | awk '{ if (sub(/ *\\e$/, " ")) { line = line $0; next } sub(/^ +/, ""); print line $0; line = "" }' |
  sed 's/  */ /g' > "$tmp/man.examples"
[ -s "$tmp/man.examples" ] || bad "no EXAMPLES in the installed man page"
n_man=0
while IFS= read -r cmd; do
  cmd=${cmd//\/usr\/share\/doc\/mfstat/$doc}
  n_man=$((n_man + 1))
  run "man page" "$cmd"
done < "$tmp/man.examples"

# README.md's tour, as installed: the '$ ' lines of its console blocks, in order.
readme=$doc/README.md
[ -f "$readme" ] || { echo "FAIL: $readme not installed"; exit 1; }
awk '/^## / { tour = ($0 ~ /tour/) } tour && /^```console/ { c = 1; next } c && /^```/ { c = 0 }
  tour && c && /^\$ / { print substr($0, 3) }' "$readme" > "$tmp/readme.examples"
[ -s "$tmp/readme.examples" ] || bad "no commands in the tour of the installed README.md"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
n_readme=0
while IFS= read -r cmd; do
  cmd=$(sed -E "s#(^| )examples/#\\1$doc/examples/#g" <<< "$cmd")
  n_readme=$((n_readme + 1))
  run "README.md" "$cmd"
done < "$tmp/readme.examples"

echo "$n_man examples of the man page, $n_readme commands of the README tour, $n_run run with the installed programs"
[ $fail = 0 ] && echo "every example runs after installation"
exit $fail
