/* SPDX-License-Identifier: MIT */
/*
 * Nanoseconds per value of the writers' number formatting (src/lib/base/strbuf.c) against
 * the C library doing the same, on deterministic values of the kinds a report prints.
 * bench/numfmt.sh builds and runs it; each figure is the best of RUNS passes.
 *
 *   numfmt [VALUES] [RUNS]      (1,000,000 values, 5 runs)
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mfstat/base/strbuf.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile size_t sink;

static int libc_g15(double v, char *b)
{
	return snprintf(b, 40, "%.15g", v);
}

static int libc_g15s(double v, char *b)
{
	return snprintf(b, 40, "%+.15g", v);
}

/* export's loop before mf_fmt_roundtrip */
static int libc_roundtrip(double v, char *b)
{
	int prec, n = 0;
	for (prec = 15; prec <= 17; prec++) {
		n = snprintf(b, 40, "%.*g", prec, v);
		if (strtod(b, NULL) == v)
			break;
	}
	return n;
}

static int fast_u64(double v, char *b)
{
	return (int)mf_fmt_u64((uint64_t)v, b);
}

static int libc_u64(double v, char *b)
{
	return snprintf(b, 40, "%" PRIu64, (uint64_t)v);
}

/* Best ns per value of f over vals. */
static double ns_per(int (*f)(double, char *), const double *vals, size_t n, int runs)
{
	double best = INFINITY;
	char b[64];
	int r;
	for (r = 0; r < runs; r++) {
		double t0 = now(), t;
		size_t i, len = 0;
		for (i = 0; i < n; i++)
			len += (size_t)f(vals[i], b);
		t = (now() - t0) / (double)n * 1e9;
		sink += len;
		if (t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000, i;
	int runs = argc > 2 ? atoi(argv[2]) : 5, k;
	uint64_t x = 88172645463325252ULL;
	static const char *const kinds[] = {"counter sums (integers)", "metrics (ratios)", "percentages",
					    "tiny and huge (1e-30..1e30)"};
	double *vals[4];
	for (k = 0; k < 4; k++) {
		vals[k] = malloc(n * sizeof(double));
		if (!vals[k])
			return 1;
	}
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		vals[0][i] = (double)(x >> (14 + x % 30));                    /* up to 2^50 */
		vals[1][i] = (double)(x >> 40) / (double)((x & 0xfffff) + 1); /* CPI-like */
		vals[2][i] = (double)(x % 1000000007) / 1000000007.0 * 100;
		vals[3][i] = ldexp((double)(x >> 11), (int)(x % 200) - 152);
	}
	printf("%-28s %10s %10s %10s %10s %10s %10s\n", "values (ns per value)", "g15", "snprintf", "+g15", "snprintf",
	       "roundtrip", "snprintf");
	printf("%-28s %10s %10s %10s %10s %10s %10s\n", "", "", "%.15g", "", "%+.15g", "", "+strtod");
	for (k = 0; k < 4; k++)
		printf("%-28s %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f\n", kinds[k],
		       ns_per(mf_fmt_g15, vals[k], n, runs), ns_per(libc_g15, vals[k], n, runs),
		       ns_per(mf_fmt_g15_signed, vals[k], n, runs), ns_per(libc_g15s, vals[k], n, runs),
		       ns_per(mf_fmt_roundtrip, vals[k], n, runs), ns_per(libc_roundtrip, vals[k], n, runs));
	printf("%-28s %10.1f %10.1f  (mf_fmt_u64 vs %%\" PRIu64)\n", "counter sums as uint64_t",
	       ns_per(fast_u64, vals[0], n, runs), ns_per(libc_u64, vals[0], n, runs));
	for (k = 0; k < 4; k++)
		free(vals[k]);
	return 0;
}
