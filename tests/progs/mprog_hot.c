/* SPDX-License-Identifier: MIT */
/*
 * A program with two functions of known CPU share, about 6:1, for the
 * symbolizer tests and the real profile test (caliper-measure.md §8):
 * hot_loop() runs six times the iterations of cold_loop(), each iteration
 * the same dependent multiply-add chain, each loop on its own source lines
 * (marked MARK:... so tests can find the line numbers).
 *
 *   mprog_hot [units]   runs units of work (default 1, about 0.5 s on a
 *                       2 GHz core; fractions allowed) and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>

/* gcc may clone a function to specialise it; clang has no such attribute (nor cloning). */
#ifdef __clang__
#define KEEP_WHOLE __attribute__((noinline))
#else
#define KEEP_WHOLE __attribute__((noinline, noclone))
#endif

/* Iterations of cold_loop per unit; hot_loop runs 6 times as many. */
#define COLD_ITERS 36000000UL

/* The results go here so the loops are not optimised away. */
static volatile unsigned long sink;

/*
 * The two loops differ in their constants only (same latency per iteration):
 * identical bodies could be folded into one function at -O2.
 */
KEEP_WHOLE void hot_loop(unsigned long n);
KEEP_WHOLE void cold_loop(unsigned long n);

KEEP_WHOLE void hot_loop(unsigned long n)
{
	unsigned long i, x = sink;
	for (i = 0; i < n; i++) /* MARK:hot_for */
		x = x * 6364136223846793005UL + 1442695040888963407UL; /* MARK:hot_body */
	sink = x;
}

KEEP_WHOLE void cold_loop(unsigned long n)
{
	unsigned long i, x = sink;
	for (i = 0; i < n; i++) /* MARK:cold_for */
		x = x * 2862933555777941757UL + 3037000493UL; /* MARK:cold_body */
	sink = x;
}

int main(int argc, char **argv)
{
	double units = 1.0;
	char *end;
	unsigned long n;

	if (argc > 2) {
		fprintf(stderr, "usage: %s [units]\n", argv[0]);
		return 2;
	}
	if (argc == 2) {
		units = strtod(argv[1], &end);
		if (end == argv[1] || *end != '\0' || !(units >= 0) || units > 1e6) {
			fprintf(stderr, "%s: units must be a number >= 0\n", argv[0]);
			return 2;
		}
	}
	n = (unsigned long)(units * (double)COLD_ITERS);
	hot_loop(6 * n);
	cold_loop(n);
	return 0;
}
