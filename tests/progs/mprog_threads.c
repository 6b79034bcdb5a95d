/* SPDX-License-Identifier: MIT */
/*
 * Two threads, two hot functions, a 3:1 split of the work, for the test of
 * `measure --attribute` (issue 12 item 11): built at -O1, where functions
 * are not aligned to cache lines, so a cache line of work_a starts inside
 * the function before it (frame_dummy) and one of work_b inside work_a.
 * Caliper's rule (a cache line goes to the function owning its first byte)
 * then gives their time to the wrong functions; each sample's own address
 * (--attribute ip) gives 75 % to work_a and 25 % to work_b.
 *
 *   mprog_threads [units]   work_a runs 3 units of work in one thread while
 *                           work_b runs 1 unit in another (default 1 unit,
 *                           about 0.15 s of CPU on a 2 GHz core; fractions
 *                           allowed), then exits 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* gcc may clone a function to specialise it; clang has no such attribute (nor cloning). */
#ifdef __clang__
#define KEEP_WHOLE __attribute__((noinline))
#else
#define KEEP_WHOLE __attribute__((noinline, noclone))
#endif

/* Iterations of work_b per unit; work_a runs 3 times as many. */
#define B_ITERS 60000000UL

static volatile unsigned long sink_a, sink_b;

/*
 * The same dependent chain in both (one lea each, the same time per iteration), with different
 * constants so the two functions are not folded into one.  The loops are short and close to the
 * functions' starts, so at -O1 they lie in cache lines whose first byte belongs to the function
 * before.
 */
KEEP_WHOLE void work_a(unsigned long n);
KEEP_WHOLE void work_b(unsigned long n);

KEEP_WHOLE void work_a(unsigned long n)
{
	unsigned long x = sink_a;
	for (; n; n--) /* MARK:a_for */
		x = x * 5 + 3; /* MARK:a_body */
	sink_a = x;
}

KEEP_WHOLE void work_b(unsigned long n)
{
	unsigned long x = sink_b;
	for (; n; n--) /* MARK:b_for */
		x = x * 9 + 1; /* MARK:b_body */
	sink_b = x;
}

static void *run_b(void *arg)
{
	work_b(*(unsigned long *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	double units = 1.0;
	char *end;
	unsigned long n;
	pthread_t t;
	int rc;

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
	n = (unsigned long)(units * (double)B_ITERS);
	if ((rc = pthread_create(&t, NULL, run_b, &n)) != 0) {
		fprintf(stderr, "%s: cannot create a thread (error %d)\n", argv[0], rc);
		return 1;
	}
	work_a(3 * n);
	pthread_join(t, NULL);
	return 0;
}
