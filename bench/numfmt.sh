#!/bin/sh
# SPDX-License-Identifier: MIT
# Nanoseconds per value of the writers' number formatting (mf_fmt_g15, mf_fmt_g15_signed,
# mf_fmt_roundtrip, mf_fmt_u64 in src/lib/base/strbuf.c) against snprintf (and strtod) doing
# the same, best of RUNS passes over VALUES values of each kind (README, Performance).
#
#   bench/numfmt.sh [VALUES]      (1000000; RUNS=5)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -std=c17 -D_POSIX_C_SOURCE=200809L -I"$root/include" -o "$tmp/numfmt" \
	"$root/bench/numfmt.c" "$root/src/lib/base/strbuf.c" -lm
"$tmp/numfmt" "${1:-1000000}" "${RUNS:-5}"
