/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_ARENA_H
#define MFSTAT_ARENA_H

#include <stddef.h>

/* Bump allocator: many small allocations, all freed at once. Internal. */
struct mf_arena {
	struct mf_arena_block *head;
};

void mf_arena_init(struct mf_arena *a);
void mf_arena_free(struct mf_arena *a);
/* Zeroed memory aligned for any type, or NULL on ENOMEM. */
void *mf_arena_alloc(struct mf_arena *a, size_t n);
char *mf_arena_strndup(struct mf_arena *a, const char *s, size_t n);
char *mf_arena_strdup(struct mf_arena *a, const char *s);

#endif
