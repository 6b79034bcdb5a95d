/* SPDX-License-Identifier: MIT */
/* Source text for the mfstat measure report tests (test_mreport.c): the line numbers matter. */
#include <stdio.h>

static volatile double sink;

/* hot: the loop most samples land in */
void hot(int n)
{
	double acc = 0;
	for (int i = 0; i < n; i++) {
		acc += i * 0.5;
		if (i % 7 == 0)
			acc -= 1.0;
	}
	sink = acc;
}
void cold(int n)
{
	for (int i = 0; i < n; i++)
		sink += i;
}

int main(void)
{
	hot(1000);
	cold(1000);
	return 0;
}
