/* SPDX-License-Identifier: MIT */
/*
 * mprog_calls lib|qsort [units] [A:B]: caller_a and caller_b call the same
 * library routine, with A:B work (default 3:1), units (default 1) times a
 * base amount of about 0.1 s, in 4 rounds a unit; exits 0.  lib: mcall_apply() of libmcall.so
 * (frame pointers) with a callback; qsort: libc's qsort with a comparison
 * callback (libc has no frame pointers: for --call-graph dwarf).  The callers
 * use the routine's result after the call, so the calls are not tail calls
 * (a tail call leaves no frame of the caller in the chain).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libmcall.h"

#define QN 4096 /* elements sorted per qsort call */

static unsigned long step(unsigned long x, unsigned long i)
{
	x ^= x >> 31;
	return x * 0xbf58476d1ce4e5b9UL + i;
}

static int cmp_ul(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
	return x < y ? -1 : x > y;
}

static unsigned long arr[QN];

static unsigned long sort_rounds(unsigned long rounds, unsigned long seed)
{
	unsigned long r, i, x = seed, sum = 0;
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < QN; i++)
			arr[i] = x = step(x, i);
		qsort(arr, QN, sizeof(arr[0]), cmp_ul);
		sum += arr[r % QN];
	}
	return sum;
}

static int use_qsort;

__attribute__((noinline)) unsigned long caller_a(unsigned long work)
{
	unsigned long r = use_qsort ? sort_rounds(work, 1) : mcall_apply(work, step, 1);
	return r ^ (r >> 7); /* after the call: not a tail call */
}

__attribute__((noinline)) unsigned long caller_b(unsigned long work)
{
	unsigned long r = use_qsort ? sort_rounds(work, 2) : mcall_apply(work, step, 2);
	return r ^ (r >> 9);
}

int main(int argc, char **argv)
{
	unsigned long units = argc > 2 ? strtoul(argv[2], NULL, 10) : 1, a = 3, b = 1, base, r;
	if (argc < 2 || (strcmp(argv[1], "lib") && strcmp(argv[1], "qsort")) ||
	    (argc > 3 && sscanf(argv[3], "%lu:%lu", &a, &b) != 2)) {
		fprintf(stderr, "usage: mprog_calls lib|qsort [units] [A:B]\n");
		return 2;
	}
	use_qsort = strcmp(argv[1], "qsort") == 0;
	base = use_qsort ? 160 : 40000000UL; /* about 0.1 s of each per unit of the ratio */
	/* In rounds, so that neither caller has the start of the run (a sampling frequency settles first) alone. */
	r = 0;
	for (unsigned long k = 0; k < 4 * units; k++)
		r ^= caller_a(a * base / 16) ^ caller_b(b * base / 16);
	printf("%lx\n", r);
	return 0;
}
