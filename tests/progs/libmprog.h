/* SPDX-License-Identifier: MIT */
/* libmprog.so: a shared library for the symbolizer tests (tests/progs/libmprog.c). */
#ifndef MPROG_LIBMPROG_H
#define MPROG_LIBMPROG_H

/* Spins n iterations of a hash step (inlined helper) and returns the hash. */
unsigned long lib_spin(unsigned long n);
/* The same function under other names: a global alias and a weak one. */
unsigned long lib_spin_alias(unsigned long n);
unsigned long aaa_weak_spin(unsigned long n);
/* Exported as lib_old@MPROG_0 too (a versioned name in .symtab). */
unsigned long lib_old_impl(unsigned long n);
/* A second function, so cache lines can straddle two functions. */
unsigned long lib_other(unsigned long n);

#endif
