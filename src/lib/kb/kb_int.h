/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_KB_INT_H
#define MFSTAT_KB_INT_H

#include <stdbool.h>
#include <stddef.h>

/* What the loader (kb_load.c) and the queries (kb.c) share.  Internal. */

/*
 * A set of names for the loader's lookups, so that loading n metrics costs
 * O(n) and not O(n^2): open addressing, linear probing, the hash case-blind
 * so that one table serves exact and case-insensitive lookups.
 */
struct name_ent {
	const char *key; /* NULL = empty slot */
	size_t val;
};

struct name_hash {
	struct name_ent *e;
	size_t cap, n; /* cap is 0 or a power of two */
};

/*
 * The value of name s[0..len), or -1.  With nocase, of all names equal but for
 * case the one with the smallest value (the first defined).
 */
long mf_kb_name_find(const struct name_hash *h, const char *s, size_t len, bool nocase);
/* Adds key (borrowed, must outlive h); returns -1 when out of memory. */
int mf_kb_name_add(struct name_hash *h, const char *key, size_t val);
void mf_kb_name_hash_free(struct name_hash *h);

#endif
