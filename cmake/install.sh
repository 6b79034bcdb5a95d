#!/bin/sh
# SPDX-License-Identifier: MIT
# install.sh CMAKE BUILD PREFIX RECORD [COMPONENT]: `cmake --install BUILD --prefix PREFIX` (of
# COMPONENT only, when given), and RECORD beside cmake's install manifest says what
# uninstall.sh needs to undo it and nothing more:
#   prefix PATH   the absolute prefix installed to (uninstall.sh removes no path outside it)
#   dir PATH      a directory this installation created (removed by uninstall.sh when empty)
# The directories the installation needs are learnt by installing first into an empty
# staging directory; those missing under PREFIX before the real installation are its own.
# `make install` and tests/install.sh use it.
set -eu
cmake=$1
build=$2
prefix=$3
record=$4
component=${5:-}
# One spelling of the prefix, absolute, without . or .. or a trailing slash (as cmake writes
# the manifest's paths); the prefix itself and its parents count as created when missing.
prefix=$(realpath -m -- "$prefix")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
set -- "$cmake" --install "$build"
[ -n "$component" ] && set -- "$@" --component "$component"

# The directories the installation would create, relative to the prefix, parents first.
# cmake's manifest of the staging run would replace the real one: keep the real one aside.
for m in "$build"/install_manifest*.txt; do
  [ -f "$m" ] && cp -p "$m" "$stage/keep.$(basename "$m")"
done
"$@" --prefix "$stage/root" > "$stage/log" 2>&1 || { cat "$stage/log" >&2; exit 1; }
for m in "$build"/install_manifest*.txt; do
  rm -f "$m"
done
for m in "$stage"/keep.*; do
  [ -f "$m" ] && cp -p "$m" "$build/${m##*/keep.}"
done

tmp_record=$record.new
{
  echo "prefix $prefix"
  # Missing parents of the prefix (outermost first), the prefix, then what the files need.
  missing="" d=$prefix
  while [ "$d" != / ] && [ ! -d "$d" ]; do
    missing="$d
$missing"
    d=$(dirname -- "$d")
  done
  printf '%s' "$missing" | while IFS= read -r d; do echo "dir $d"; done
  # Installed again to the same prefix: what the first installation created is still its own.
  if [ -f "$record" ] && [ "$(sed -n '1s/^prefix //p' "$record")" = "$prefix" ]; then
    sed -n 's/^dir //p' "$record" | while IFS= read -r d; do
      [ -d "$d" ] && echo "dir $d"
    done
  fi
  (cd "$stage/root" && find . -mindepth 1 -type d | sed 's|^\./||' | sort) | while IFS= read -r d; do
    [ -d "$prefix/$d" ] || echo "dir $prefix/$d"
  done
} | awk '!seen[$0]++' > "$tmp_record"
"$@" --prefix "$prefix"
mv "$tmp_record" "$record"
