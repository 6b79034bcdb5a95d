/* SPDX-License-Identifier: MIT */
#include "arena.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

struct mf_arena_block {
	struct mf_arena_block *next;
	size_t used, cap;
	alignas(max_align_t) unsigned char data[];
};

void mf_arena_init(struct mf_arena *a)
{
	a->head = NULL;
}

void mf_arena_free(struct mf_arena *a)
{
	struct mf_arena_block *b, *next;

	if (!a)
		return;
	for (b = a->head; b; b = next) {
		next = b->next;
		free(b);
	}
	a->head = NULL;
}

void *mf_arena_alloc(struct mf_arena *a, size_t n)
{
	const size_t align = alignof(max_align_t);
	struct mf_arena_block *b = a->head;
	size_t off;

	n = (n + align - 1) & ~(align - 1);
	if (n == 0)
		n = align;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 32768 ? n : 32768;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = a->head;
		a->head = b;
	}
	off = b->used;
	b->used += n;
	memset(b->data + off, 0, n);
	return b->data + off;
}

char *mf_arena_strndup(struct mf_arena *a, const char *s, size_t n)
{
	char *p = mf_arena_alloc(a, n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *mf_arena_strdup(struct mf_arena *a, const char *s)
{
	return mf_arena_strndup(a, s, strlen(s));
}
