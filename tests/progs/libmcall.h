/* SPDX-License-Identifier: MIT */
/* libmcall.so: a library routine taking a callback (tests/progs/libmcall.c). */
#ifndef MPROG_LIBMCALL_H
#define MPROG_LIBMCALL_H

/* x = fn(x, i) for i in [0, n), from seed; returns x. */
unsigned long mcall_apply(unsigned long n, unsigned long (*fn)(unsigned long x, unsigned long i), unsigned long seed);

#endif
