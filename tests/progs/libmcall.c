/* SPDX-License-Identifier: MIT */
/*
 * libmcall.so for the call-chain tests (tests/measure_callgraph.sh): a library
 * routine that is not a leaf (it calls back into the program), built with
 * frame pointers, so the kernel's frame-pointer walk goes through it to its
 * callers.  A leaf would have no frame at -O2 even with
 * -fno-omit-frame-pointer and would hide its immediate caller.
 */
#include "libmcall.h"

unsigned long mcall_apply(unsigned long n, unsigned long (*fn)(unsigned long x, unsigned long i), unsigned long seed)
{
	unsigned long i, x = seed;
	for (i = 0; i < n; i++)
		x = fn(x, i);
	return x;
}
