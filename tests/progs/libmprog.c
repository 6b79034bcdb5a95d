/* SPDX-License-Identifier: MIT */
/*
 * libmprog.so for the symbolizer tests: lib_spin() with an always-inlined
 * helper (so some of its addresses lie in a DW_TAG_inlined_subroutine), and
 * aliases of lib_spin of every binding, so the alias rule (global, weak,
 * local, then name; caliper-measure.md §3) has something to choose from:
 * lib_spin must win over lib_spin_alias (name), aaa_weak_spin (weak) and
 * aa_local_spin (local), although those sort first by name.  asm_outer is
 * hand-written code with a second sized symbol, asm_inner, nested at its end,
 * as assembly sometimes has: addresses there belong to asm_inner.
 * lib_old_impl is also exported as the old version lib_old@MPROG_0
 * (libmprog.map), a name .symtab keeps with its version attached.
 */
#include "libmprog.h"

static inline __attribute__((always_inline)) unsigned long mix_step(unsigned long x, unsigned long i)
{
	x ^= x >> 29; /* MARK:inline_xor */
	return x * 0xbf58476d1ce4e5b9UL + i; /* MARK:inline_mul */
}

unsigned long lib_spin(unsigned long n)
{
	unsigned long i, x = 0x9e3779b97f4a7c15UL;
	for (i = 0; i < n; i++) /* MARK:lib_for */
		x = mix_step(x, i); /* MARK:lib_call */
	return x;
}

unsigned long lib_spin_alias(unsigned long n) __attribute__((alias("lib_spin")));
unsigned long aaa_weak_spin(unsigned long n) __attribute__((weak, alias("lib_spin")));
static unsigned long aa_local_spin(unsigned long n) __attribute__((alias("lib_spin"), used));

unsigned long lib_old_impl(unsigned long n)
{
	return n * 3 + 1;
}
__asm__(".symver lib_old_impl, lib_old@MPROG_0");

unsigned long lib_other(unsigned long n)
{
	unsigned long i, x = 1;
	for (i = 0; i < n; i++) /* MARK:other_for */
		x = x * 31 + i;
	return x;
}

/* 16 bytes of asm_outer alone, then 16 of asm_inner inside it (never called). */
__asm__(".text\n"
	".p2align 4\n"
	".globl asm_outer\n"
	".type asm_outer, STT_FUNC\n"
	"asm_outer:\n"
	".rept 16\n nop\n .endr\n"
	".globl asm_inner\n"
	".type asm_inner, STT_FUNC\n"
	"asm_inner:\n"
	".rept 15\n nop\n .endr\n"
	"ret\n"
	".size asm_inner, . - asm_inner\n"
	".size asm_outer, . - asm_outer\n");
