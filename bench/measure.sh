#!/bin/bash
# SPDX-License-Identifier: MIT
# Overhead of `mfstat measure profile` at its default rate: a fixed-work
# program (tests/progs/mprog_hot.c) timed alone and under measure, best of
# RUNS each, in the same run of this script.  Target: at most 5 % slower.
#   bench/measure.sh [UNITS]      (build first: make build)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
MFSTAT=$build/mfstat
PROG=$build/tests/mprog_hot_O2
UNITS=${1:-4}
RUNS=${RUNS:-3}
[ -x "$MFSTAT" ] && [ -x "$PROG" ] || { echo "build first: make build" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
best() { sort -g | head -1; }
alone=$(for i in $(seq "$RUNS"); do t0=$(now); "$PROG" "$UNITS"; t1=$(now); awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.6f\n", b-a}'; done | best)
measured=$(for i in $(seq "$RUNS"); do
  t0=$(now); "$MFSTAT" measure profile -q -d "$tmp/run$i.mfdb" -o /dev/null -- "$PROG" "$UNITS" 2>/dev/null; t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.6f\n", b-a}'; done | best)
mode=$("$MFSTAT" measure report "$tmp/run1.mfdb" | sed -n 's/^Mode: *//p' | head -1)
samples=$("$MFSTAT" measure report -f json "$tmp/run1.mfdb" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(f.get("samples") or 0 for f in d["functions"]))')
printf 'program alone:             %.3f s (best of %d)\n' "$alone" "$RUNS"
printf 'under measure profile:     %.3f s (best of %d, report included)\n' "$measured" "$RUNS"
printf 'overhead:                  %+.1f %%\n' "$(awk -v m="$measured" -v a="$alone" 'BEGIN{print (m/a-1)*100}')"
printf 'samples per run:           %s\n' "$samples"
printf 'mode:                      %s\n' "$mode"
