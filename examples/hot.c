/* SPDX-License-Identifier: MIT */
/* A program to profile (README.md, the tour): two loops, one slower than the other. */
#include <stdio.h>

__attribute__((noinline)) static double harmonic(long n)
{
	double s = 0;
	for (long i = 1; i <= n; i++)
		s += 1.0 / (double)i;
	return s;
}

__attribute__((noinline)) static long mix(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s ^= i * 7 + (s >> 3);
	return s;
}

int main(void)
{
	printf("%f %ld\n", harmonic(300000000), mix(300000000));
	return 0;
}
