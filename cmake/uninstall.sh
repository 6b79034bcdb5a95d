#!/bin/sh
# SPDX-License-Identifier: MIT
# uninstall.sh MANIFEST [RECORD]: undoes an installation.  MANIFEST is the install_manifest.txt
# that `cmake --install` writes into the build directory; RECORD (default: MANIFEST's directory's
# install_record.txt) is what cmake/install.sh wrote beside it: the prefix installed to and the
# directories the installation created.  It removes the files MANIFEST lists, only those under
# the prefix (a line outside it, or with a .. component, is refused and kept, exit 1), says what
# it removed, then the directories the installation created when they are empty (deepest
# first; a directory holding anything else stays), then the manifest and the record.  Without
# a record (an installation by plain `cmake --install`), the prefix is where bin/mfstat went and
# no directory is removed.  Without a manifest there is nothing to uninstall (exit 0).  `make
# uninstall` and tests/install.sh use it.
set -u
manifest=$1
record=${2:-$(dirname -- "$manifest")/install_record.txt}
if [ ! -f "$manifest" ]; then
  echo "Nothing to uninstall: no $manifest (make install writes it)."
  exit 0
fi
prefix=""
if [ -f "$record" ]; then
  prefix=$(sed -n '1s/^prefix //p' "$record")
else
  prefix=$(sed -n 's|/bin/mfstat$||p' "$manifest" | head -n 1)
  record=""
fi
case $prefix in
/*) ;;
*)
  echo "uninstall.sh: cannot tell the prefix of the installation from ${record:-$manifest}; nothing removed" >&2
  exit 1
  ;;
esac
[ "$prefix" = / ] && under=/ || under=$prefix/
removed=0
missing=0
failed=0
refused=0
while IFS= read -r f || [ -n "$f" ]; do
  [ -n "$f" ] || continue
  case $f in
  "$under"*) ;;
  *)
    echo "uninstall.sh: $f is not under the prefix $prefix: left alone" >&2
    refused=$((refused + 1))
    continue
    ;;
  esac
  case /$f/ in
  */../* | */./*)
    echo "uninstall.sh: $f has a . or .. component: left alone" >&2
    refused=$((refused + 1))
    continue
    ;;
  esac
  if [ -e "$f" ] || [ -L "$f" ]; then
    if rm -f -- "$f"; then
      echo "removed $f"
      removed=$((removed + 1))
    else
      failed=$((failed + 1))
    fi
  else
    echo "already gone: $f"
    missing=$((missing + 1))
  fi
done < "$manifest"
dirs=0
if [ -n "$record" ]; then
  # Deepest first, so a created parent is empty once its created children are gone.
  sed -n 's/^dir //p' "$record" | awk '{ print length($0) "\t" $0 }' | sort -rn | cut -f2- |
    while IFS= read -r d; do
      case $d/ in
      "$under"* | "$prefix"/) ;;
      *)
        # A parent of the prefix that the installation created, or nothing of ours.
        case $prefix/ in
        "$d"/*) ;;
        *) continue ;;
        esac
        ;;
      esac
      if [ -d "$d" ] && [ ! -L "$d" ] && rmdir -- "$d" 2>/dev/null; then
        echo "removed directory $d"
      fi
    done > "$manifest.dirs"
  cat "$manifest.dirs"
  dirs=$(wc -l < "$manifest.dirs")
  rm -f -- "$manifest.dirs"
fi
echo "Uninstalled: $removed files removed ($missing already gone) of those $manifest lists; $dirs empty directories it had created removed."
if [ "$failed" -gt 0 ] || [ "$refused" -gt 0 ]; then
  echo "uninstall.sh: $failed files could not be removed, $refused refused; $manifest is kept" >&2
  exit 1
fi
rm -f -- "$manifest"
[ -n "$record" ] && rm -f -- "$record"
exit 0
