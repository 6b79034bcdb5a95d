#!/bin/sh
# SPDX-License-Identifier: MIT
# uninstall.sh MANIFEST: removes exactly the files MANIFEST lists (the install_manifest.txt that
# `cmake --install` writes into the build directory), says what it removed, then the manifest
# itself.  Directories are left (they may hold other programs' files).  Without a manifest
# there is nothing to uninstall (exit 0).  `make uninstall` and tests/install.sh use it.
set -u
manifest=$1
if [ ! -f "$manifest" ]; then
  echo "Nothing to uninstall: no $manifest (make install writes it)."
  exit 0
fi
removed=0
missing=0
failed=0
while IFS= read -r f || [ -n "$f" ]; do
  [ -n "$f" ] || continue
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
echo "Uninstalled: $removed files removed ($missing already gone) of those $manifest lists."
if [ "$failed" -gt 0 ]; then
  echo "uninstall.sh: $failed files could not be removed; $manifest is kept" >&2
  exit 1
fi
rm -f -- "$manifest"
