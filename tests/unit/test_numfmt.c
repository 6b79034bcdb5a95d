/* SPDX-License-Identifier: MIT */
/*
 * The writers' number formatting (base/strbuf.h) against the C library: mf_fmt_g15 and
 * mf_fmt_g15_signed must print what printf's %.15g and %+.15g print, and mf_fmt_roundtrip
 * the shortest of %.15g..%.17g that strtod reads back (export), for every double: millions of
 * deterministic pseudo-random values of all magnitudes, integers, exact halfway cases (where
 * rounding half up or to the wrong digit shows), powers of ten and their neighbours, powers of
 * two (whose gap below is half), subnormals, -0, inf and nan.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mfstat/base/strbuf.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double from_bits(uint64_t b)
{
	double v;
	memcpy(&v, &b, sizeof(v));
	return v;
}

/* What export wrote before mf_fmt_roundtrip: the first of %.15g..%.17g that reads back. */
static void roundtrip_ref(double v, char *b, size_t n)
{
	int prec;
	for (prec = 15; prec <= 17; prec++) {
		snprintf(b, n, "%.*g", prec, v);
		if (strtod(b, NULL) == v)
			break;
	}
}

static unsigned long long checked;

/* One value in the three formats, against the C library; a mismatch fails the test. */
static void check(double v)
{
	char a[64], b[64];
	int n;
	n = mf_fmt_g15(v, a);
	snprintf(b, sizeof(b), "%.15g", v);
	if (strcmp(a, b) != 0 || n != (int)strlen(b))
		fail_msg("%%.15g of %a: got %s, printf says %s", v, a, b);
	n = mf_fmt_g15_signed(v, a);
	snprintf(b, sizeof(b), "%+.15g", v);
	if (strcmp(a, b) != 0 || n != (int)strlen(b))
		fail_msg("%%+.15g of %a: got %s, printf says %s", v, a, b);
	if (!isnan(v)) {
		n = mf_fmt_roundtrip(v, a);
		roundtrip_ref(v, b, sizeof(b));
		if (strcmp(a, b) != 0 || n != (int)strlen(b))
			fail_msg("round trip of %a: got %s, snprintf and strtod say %s", v, a, b);
	}
	checked++;
}

/* v and the doubles either side of it. */
static void check3(double v)
{
	check(v);
	check(nextafter(v, INFINITY));
	check(nextafter(v, -INFINITY));
}

static void fixed_values(void **state)
{
	static const double fixed[] = {0.0,
				       -0.0,
				       1,
				       -1,
				       0.5,
				       0.1,
				       0.3,
				       2.5,
				       100,
				       1e15,
				       1e14,
				       999999999999999.5,
				       123456789012345.5,
				       1e-4,
				       1e-5,
				       1e-8,
				       1e-9,
				       0.000123456789012345,
				       1e21,
				       1e22,
				       1e300,
				       1e-300,
				       5e-324,
				       2.2250738585072014e-308,
				       2.2250738585072009e-308,
				       1.7976931348623157e308,
				       4.1,
				       1.03115,
				       33.3333333333333333,
				       2.0 / 3,
				       1e16 + 2,
				       9007199254740993.0,
				       9007199254740992.0,
				       0.75,
				       0.6,
				       6.0,
				       3.0,
				       18446744073709551616.0,
				       18446744073709549568.0,
				       12.3456789012345e10,
				       8.5,
				       0.05,
				       0.0000999999999999999,
				       999999999999999.4,
				       99999999999999.99,
				       9.999999999999995,
				       0.30000000000000004,
				       INFINITY,
				       -INFINITY,
				       NAN,
				       -NAN};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		check(fixed[i]);
		check(-fixed[i]);
	}
}

/* Powers of ten and of two over the whole range, and their neighbours. */
static void powers(void **state)
{
	char s[16];
	int j;
	(void)state;
	for (j = -325; j <= 309; j++) {
		snprintf(s, sizeof(s), "1e%d", j);
		check3(strtod(s, NULL));
		check3(-strtod(s, NULL));
	}
	for (j = -1074; j <= 1023; j++)
		check3(ldexp(1, j));
}

/*
 * Exact ties at the 15th digit: 16 significant digits ending in 5, exactly a double.  Integers
 * t * 10 + 5 (below 2^53) and t * 100 + 50 (even, below 2^54), and N / 2^k with N odd and
 * N * 5^k of 16 digits (its decimal expansion: N * 5^k * 10^-k), k = 1..22.  Returns how many
 * had an even 15th digit, where rounding half up instead of to even prints another number.
 */
static void ties(void **state)
{
	unsigned long long even = 0, n = 0;
	int i, k;
	(void)state;
	for (i = 0; i < 200000; i++) {
		uint64_t t = 100000000000000ULL + next() % 800000000000000ULL; /* 15 digits */
		double v = (double)(t * 10 + 5);
		check(v);
		check(-v);
		even += !(t & 1);
		n++;
		if (t < 180000000000000ULL) {
			check((double)(t * 100 + 50));
			even += !(t & 1);
			n++;
		}
	}
	for (k = 1; k <= 22; k++) {
		double p5 = pow(5, k), lo = ceil(1e15 / p5), hi = floor((1e16 - 1) / p5);
		for (i = 0; i < 20000; i++) {
			uint64_t span = (uint64_t)(hi - lo) + 1, N = (uint64_t)lo + next() % span;
			double v;
			char b[64];
			N |= 1;
			if ((double)N > hi)
				continue;
			v = ldexp((double)N, -k);
			/* a 16-digit tie: %.16g is exact, ends in 5, and %.40g says nothing more */
			snprintf(b, sizeof(b), "%.40e", v);
			if (strspn(b + 17, "0") != strlen(b + 17) - 4 || b[16] != '5')
				fail_msg("%a is not a tie: %s", v, b);
			check(v);
			check(-v);
			even += !((b[15] - '0') & 1);
			n++;
		}
	}
	/* The halfway cases are there and a round-half-up formatter would print a third of them
	 * wrong (those with an even 15th digit): the comparison above would have failed. */
	print_message("%llu exact ties, %llu with an even 15th digit\n", n, even);
	assert_true(n > 500000);
	assert_true(even > n / 3);
}

/* Millions of pseudo-random doubles of every kind. */
static void random_values(void **state)
{
	long i;
	(void)state;
	for (i = 0; i < 3000000; i++) {
		uint64_t x = next();
		double v;
		switch (i % 8) {
		case 0: v = from_bits(x); break; /* any bit pattern, nan and inf too */
		case 1: /* subnormals */ v = from_bits(x & 0x800fffffffffffffULL); break;
		case 2: /* integers of every size below 2^64 */ v = (double)(x >> (x % 64)); break;
		case 3: /* counter sums: integers below 2^53 */ v = (double)(x >> (11 + x % 40)); break;
		case 4: /* ratios of counters, the common case */
			v = (double)(x >> 20) / (double)((x & 0xfffff) + 1);
			break;
		case 5: /* few digits */ v = (double)(x % 100000000) / 1000.0 + 0.0005; break;
		case 6: /* every magnitude from 1e-30 to 1e30 */
			v = ldexp((double)(x >> 11), (int)(x % 200) - 152);
			break;
		default: /* percentages */ v = (double)(x % 1000000007) / 1000000007.0 * 100; break;
		}
		if (x & (1ULL << 62))
			v = -v;
		check(v);
	}
	print_message("%llu values checked\n", checked);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fixed_values),
		cmocka_unit_test(powers),
		cmocka_unit_test(ties),
		cmocka_unit_test(random_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
