/* SPDX-License-Identifier: MIT */
/* mprog_lib [n]: calls lib_spin() of libmprog.so n times 10^6 iterations (default 1); exits 0. */
#include <stdio.h>
#include <stdlib.h>

#include "libmprog.h"

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
	unsigned long r = lib_spin(n * 1000000UL) ^ lib_other(n * 1000UL);
	/* Printed so the calls cannot be dropped. */
	printf("%lx\n", r);
	return 0;
}
