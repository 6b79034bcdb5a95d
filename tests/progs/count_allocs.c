/* SPDX-License-Identifier: MIT */
/*
 * LD_PRELOAD=libcount_allocs.so: counts the calls to malloc (mfstat's and its
 * libraries', jansson's included) and adds a line with the count to the file
 * named by $COUNT_ALLOCS_OUT when the program exits (one line per process:
 * timeout(1) running mfstat writes its own): a measure of work that does not
 * depend on the machine's speed or load (tests/huge_inputs.sh).  glibc only.
 */
#include <stdio.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t size);

static unsigned long calls;

void *malloc(size_t size)
{
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	return __libc_malloc(size);
}

__attribute__((destructor)) static void count_allocs_done(void)
{
	const char *out = getenv("COUNT_ALLOCS_OUT");
	FILE *f = out ? fopen(out, "a") : NULL;
	if (f) {
		fprintf(f, "%lu\n", __atomic_load_n(&calls, __ATOMIC_RELAXED));
		fclose(f);
	}
}
