/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "mfstat/base/strtab.h"

struct mf_strtab {
	struct mf_arena arena;
	const char **str; /* by id; str[0] unused */
	uint32_t *hlen;
	size_t n, cap;
	uint32_t *slots; /* open addressing: id or 0 */
	size_t nslots;
};

static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;
	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

struct mf_strtab *mf_strtab_new(void)
{
	struct mf_strtab *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	mf_arena_init(&t->arena);
	t->n = 1;
	return t;
}

void mf_strtab_free(struct mf_strtab *t)
{
	if (!t)
		return;
	mf_arena_free(&t->arena);
	free(t->str);
	free(t->hlen);
	free(t->slots);
	free(t);
}

static int rehash(struct mf_strtab *t, size_t nslots)
{
	uint32_t *s = calloc(nslots, sizeof(*s));
	size_t i;
	if (!s)
		return -1;
	for (i = 1; i < t->n; i++) {
		size_t j = hash(t->str[i], t->hlen[i]) & (nslots - 1);
		while (s[j])
			j = (j + 1) & (nslots - 1);
		s[j] = (uint32_t)i;
	}
	free(t->slots);
	t->slots = s;
	t->nslots = nslots;
	return 0;
}

uint32_t mf_strtab_intern(struct mf_strtab *t, const char *s, size_t len)
{
	size_t j;
	char *copy;

	if (len == 0)
		return 0;
	if (t->nslots == 0 && rehash(t, 64))
		return 0;
	for (j = hash(s, len) & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		uint32_t id = t->slots[j];
		if (t->hlen[id] == len && memcmp(t->str[id], s, len) == 0)
			return id;
	}
	if (t->n >= t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		const char **ns = realloc(t->str, cap * sizeof(*ns));
		uint32_t *nl;
		if (!ns)
			return 0;
		t->str = ns;
		nl = realloc(t->hlen, cap * sizeof(*nl));
		if (!nl)
			return 0;
		t->hlen = nl;
		t->cap = cap;
	}
	copy = mf_arena_strndup(&t->arena, s, len);
	if (!copy)
		return 0;
	t->str[t->n] = copy;
	t->hlen[t->n] = (uint32_t)len;
	t->slots[j] = (uint32_t)t->n;
	t->n++;
	if (t->n * 2 > t->nslots && rehash(t, t->nslots * 2)) {
		/* The table still works, only slower; the next insert retries. */
	}
	return (uint32_t)(t->n - 1);
}

const char *mf_strtab_get(const struct mf_strtab *t, uint32_t id)
{
	return id && id < t->n ? t->str[id] : NULL;
}

int mf_strtab_cmp_names(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return a ? 1 : -1;
	return strcmp(a, b);
}
