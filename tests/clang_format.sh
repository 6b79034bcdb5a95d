#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks that the C sources are formatted as .clang-format says (clang-format 14,
# Debian 12's, which the file was tuned for: other versions format some
# constructs differently, so they skip rather than fail).
# tests/progs/ is left out: unit_symbolize checks line numbers in those programs.
# Usage: clang_format.sh SOURCE_DIR   (fix with: clang-format -i FILE...)
set -u
src=${1:?usage: clang_format.sh SOURCE_DIR}
cf=$(command -v clang-format-14 || command -v clang-format) || {
	echo "clang_format: skipped: clang-format is not installed (Debian: apt-get install clang-format)"
	exit 77
}
major=$("$cf" --version | sed -n 's/.*version \([0-9][0-9]*\)\..*/\1/p')
if [ "$major" != 14 ]; then
	echo "clang_format: skipped: $cf is version ${major:-unknown}; .clang-format is checked with version 14"
	exit 77
fi
cd "$src" || exit 2
files=$(find src include tools tests/unit tests/fuzz -name '*.[ch]' ! -path 'tests/fuzz/corpus/*' | sort)
bad=0
for f in $files; do
	if ! "$cf" --dry-run --Werror "$f" >/dev/null 2>&1; then
		echo "clang_format: $f is not formatted as .clang-format says; first differences:" >&2
		"$cf" "$f" | diff "$f" - | head -8 >&2
		bad=$((bad + 1))
	fi
done
if [ "$bad" -gt 0 ]; then
	echo "clang_format: $bad file(s) to format: clang-format -i FILE (version 14)" >&2
	exit 1
fi
echo "clang_format: $(echo "$files" | wc -l) files formatted as .clang-format says"
