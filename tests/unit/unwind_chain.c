/* SPDX-License-Identifier: MIT */
/*
 * A known call chain for unit_unwind, built twice (tests/CMakeLists.txt):
 * with frame pointers (UW(x) = uw_fp_x) and without (uw_nofp_x), at -O2 with
 * no sibling calls, so every function keeps its frame in the chain:
 * uw_*_top -> uw_*_mid -> uw_*_leaf, and the leaf either spins (sampled by a
 * timer) or calls the capture hook (raise: a snapshot at a known depth).
 */
#include <stdint.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define UW(x) CAT(CAT(uw_, UW_VARIANT), CAT(_, x))

void UW(top)(uint64_t spins, void (*hook)(void));

static volatile uint64_t sink;

__attribute__((noinline)) void UW(leaf)(uint64_t spins, void (*hook)(void))
{
	uint64_t x = sink;
	for (uint64_t i = 0; i < spins; i++)
		x += i ^ (x >> 3);
	sink = x;
	if (hook)
		hook();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void UW(mid)(uint64_t spins, void (*hook)(void))
{
	UW(leaf)(spins, hook);
	sink++;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void UW(top)(uint64_t spins, void (*hook)(void))
{
	UW(mid)(spins, hook);
	sink++;
	__asm__ volatile("" ::: "memory");
}
