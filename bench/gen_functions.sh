#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes a C file of N small functions (default 3000) to standard output: a
# compiler workload for bench/measure.sh compiler (gcc -O2 -c takes about 9 s
# on the 2-CPU development VM), whose profile spreads over thousands of
# addresses of a large stripped program (cc1).
#   bench/gen_functions.sh [N] >FILE.c
set -eu
awk -v n="${1:-3000}" 'BEGIN {
	print "#include <stddef.h>"
	for (i = 0; i < n; i++) {
		printf "int f%d(const int *a, size_t n, int k)\n{\n\tint s = %d;\n", i, i
		printf "\tfor (size_t j = 0; j < n; j++)\n\t\ts += a[j] * (k + %d) ^ (s >> %d);\n", i, i % 7 + 1
		printf "\treturn s;\n}\n"
	}
}'
