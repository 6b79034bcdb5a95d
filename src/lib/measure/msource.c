/* SPDX-License-Identifier: MIT */
/*
 * The source cache of the measure reports (msource.h): each source file read
 * once (at most 64 MiB), split into lines, for the statement text of the
 * Function Details.
 */
#include "msource.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One source file: its bytes and the offsets of its lines. */
struct mf_srcfile {
	char *path;
	char *data; /* NULL: unreadable */
	size_t nlines;
	size_t *start; /* nlines + 1 offsets */
	size_t len;
};

#define SRC_MAX_BYTES (64u << 20)

static void src_read(struct mf_srcfile *f)
{
	FILE *fp = fopen(f->path, "rb");
	size_t cap = 0, i, k;
	char *d = NULL;

	if (!fp)
		return;
	for (;;) {
		size_t got;
		if (f->len == cap) {
			char *nd;
			if (cap >= SRC_MAX_BYTES)
				goto fail;
			cap = cap ? cap * 2 : 65536;
			if (!(nd = realloc(d, cap)))
				goto fail;
			d = nd;
		}
		got = fread(d + f->len, 1, cap - f->len, fp);
		f->len += got;
		if (got == 0)
			break;
	}
	if (ferror(fp))
		goto fail;
	fclose(fp);
	for (i = 0, f->nlines = 1; i < f->len; i++)
		if (d[i] == '\n')
			f->nlines++;
	if (!(f->start = malloc((f->nlines + 1) * sizeof(*f->start)))) {
		free(d);
		f->len = f->nlines = 0;
		return;
	}
	f->start[0] = 0;
	for (i = 0, k = 1; i < f->len; i++)
		if (d[i] == '\n')
			f->start[k++] = i + 1;
	f->start[k] = f->len + 1;
	f->data = d;
	return;
fail:
	fclose(fp);
	free(d);
	f->len = 0;
}

/* The file's entry, read on first use (NULL only on ENOMEM). */
static struct mf_srcfile *src_get(struct mf_srccache *c, const char *path)
{
	size_t i;
	struct mf_srcfile *f;
	for (i = 0; i < c->n; i++)
		if (strcmp(c->f[i].path, path) == 0)
			return &c->f[i];
	if (c->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 8;
		struct mf_srcfile *nf = realloc(c->f, nc * sizeof(*nf));
		if (!nf)
			return NULL;
		c->f = nf;
		c->cap = nc;
	}
	f = &c->f[c->n];
	memset(f, 0, sizeof(*f));
	if (!(f->path = strdup(path)))
		return NULL;
	c->n++;
	src_read(f);
	return f;
}

bool mf_srccache_text(struct mf_srccache *c, const char *path, uint32_t line, char *out, size_t n)
{
	struct mf_srcfile *f;
	const char *p, *e;
	size_t k = 0;

	out[0] = '\0';
	if (!path || !line || !(f = src_get(c, path)) || !f->data || line > f->nlines)
		return false;
	p = f->data + f->start[line - 1];
	e = f->data + f->start[line] - 1; /* the newline (or the end) */
	if (e > f->data + f->len)
		e = f->data + f->len;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	for (; p < e && k + 1 < n && k < 160; p++)
		out[k++] = (unsigned char)*p < 0x20 || *p == 0x7f ? ' ' : *p;
	/* Do not end inside a UTF-8 sequence when cut short. */
	if (p < e)
		while (k > 0 && ((unsigned char)out[k - 1] & 0xc0) == 0x80)
			k--;
	if (p < e && k > 0 && ((unsigned char)out[k - 1] & 0xc0) == 0xc0)
		k--;
	while (k > 0 && out[k - 1] == ' ')
		k--;
	out[k] = '\0';
	return true;
}

void mf_srccache_free(struct mf_srccache *c)
{
	size_t i;
	for (i = 0; i < c->n; i++) {
		free(c->f[i].path);
		free(c->f[i].data);
		free(c->f[i].start);
	}
	free(c->f);
	memset(c, 0, sizeof(*c));
}
