#!/bin/sh
# SPDX-License-Identifier: MIT
# The layers test must be able to fail: with a table in which report may not
# use input (as if report's calls and includes of input were planted upward
# reaches), layers.sh must fail and name both a call (nm) and an #include.
# Usage: layers_planted.sh SOURCE_DIR ARCHIVE_DIR
set -u
src=${1:?usage: layers_planted.sh SOURCE_DIR ARCHIVE_DIR}
lib=${2:?usage: layers_planted.sh SOURCE_DIR ARCHIVE_DIR}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
awk '$1 == "use" && $2 == "report" { $0 = "use report base kb" } { print }' "$src/tests/layers.txt" >"$tmp/table"
grep -qx 'use report base kb' "$tmp/table" || { echo "layers_planted: no 'use report' line to change" >&2; exit 1; }
if "$src/tests/layers.sh" "$src" "$lib" "$tmp/table" 2>"$tmp/err"; then
	echo "layers_planted: layers.sh passed a table that forbids report -> input" >&2
	exit 1
fi
ok=0
grep -q '^layers: libmfstat_report.a calls mf_[a-z_]*, defined in input' "$tmp/err" ||
	{ echo "layers_planted: no call of report into input named" >&2; ok=1; }
grep -q '^layers: src/lib/report/[a-z_]*\.c:[0-9]*: report includes mfstat/[a-z_/]*\.h of layer input' "$tmp/err" ||
	{ echo "layers_planted: no include of input by report named" >&2; ok=1; }
[ $ok = 0 ] || { cat "$tmp/err" >&2; exit 1; }
echo "layers_planted: layers.sh fails on report -> input: $(grep -c '^layers: ' "$tmp/err") reaches named"
