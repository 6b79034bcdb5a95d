/* SPDX-License-Identifier: MIT */
#include "text.h"
#include "mfstat/base/distance.h"

#include <ctype.h>
#include <stdlib.h>

/* A row without quotes: the fields point into it. */
static long split_plain(struct mf_csvsplit *s, const char *p, const char *le)
{
	size_t nf = 0;

	for (;;) {
		const char *q = memchr(p, ',', (size_t)(le - p));
		if (nf == s->max)
			return (long)s->max + 1;
		s->f[nf] = p;
		if (s->at)
			s->at[nf] = p;
		if (!q) {
			s->fl[nf++] = (size_t)(le - p);
			break;
		}
		s->fl[nf++] = (size_t)(q - p);
		p = q + 1;
	}
	return (long)nf;
}

static long fail(struct mf_csvsplit *s, const char *at, const char *why)
{
	s->bad = at;
	s->why = why;
	return -1;
}

long mf_csvsplit(struct mf_csvsplit *s, const char *ls, const char *le)
{
	size_t nf = 0, need = (size_t)(le - ls) + 1;
	const char *p = ls;
	char *o;

	if (!memchr(ls, '"', (size_t)(le - ls)))
		return split_plain(s, ls, le);
	if (need > s->unq_cap) {
		char *nb = realloc(s->unq, need);
		if (!nb)
			return -2;
		s->unq = nb;
		s->unq_cap = need;
	}
	if (memchr(ls, '\0', (size_t)(le - ls)))
		return fail(s, memchr(ls, '\0', (size_t)(le - ls)), "binary data (a NUL byte) in a row");
	o = s->unq;
	for (;;) {
		const char *start = o;
		if (nf == s->max)
			return (long)s->max + 1;
		if (s->at)
			s->at[nf] = p < le && *p == '"' ? p + 1 : p;
		if (p < le && *p == '"') {
			const char *open = p++;
			for (;;) {
				if (p >= le)
					return fail(s, open, "quoted field not closed (a '\"' is missing)");
				if (*p == '"') {
					if (p + 1 < le && p[1] == '"') {
						*o++ = '"';
						p += 2;
						continue;
					}
					p++;
					break;
				}
				*o++ = *p++;
			}
			if (p < le && *p != ',')
				return fail(s, p, "text after a closing quote (write a quote inside a field as \"\")");
		} else {
			while (p < le && *p != ',') {
				if (*p == '"')
					return fail(s, p, "quote inside an unquoted field (quote the whole field)");
				*o++ = *p++;
			}
		}
		s->f[nf] = start;
		s->fl[nf++] = (size_t)(o - start);
		if (p >= le)
			break;
		p++; /* the comma */
	}
	return (long)nf;
}

void mf_csvsplit_free(struct mf_csvsplit *s)
{
	free(s->unq);
	s->unq = NULL;
	s->unq_cap = 0;
}

static int fold(int c, bool nocase)
{
	return nocase ? tolower(c) : c;
}

size_t mf_name_distance(const char *a, size_t n, const char *b, size_t m, bool nocase)
{
	size_t d[34][34], i, j;
	if (n > 32 || m > 32)
		return 9;
	for (i = 0; i <= n; i++)
		d[i][0] = i;
	for (j = 0; j <= m; j++)
		d[0][j] = j;
	for (i = 1; i <= n; i++)
		for (j = 1; j <= m; j++) {
			int x = fold((unsigned char)a[i - 1], nocase), y = fold((unsigned char)b[j - 1], nocase);
			size_t v = d[i - 1][j - 1] + (x != y);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && x == fold((unsigned char)b[j - 2], nocase) &&
			    fold((unsigned char)a[i - 2], nocase) == y && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[n][m] > 8 ? 9 : d[n][m];
}
