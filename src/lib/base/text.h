/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_TEXT_H
#define MFSTAT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * What every text reader needs, written once: a cursor over the lines of a
 * buffer, the end of a CSV row in a buffer window (a quoted field may hold a
 * newline), the RFC 4180 field split (quoted fields, "" for a quote inside
 * one) and unsigned 64-bit decimals with an overflow check.  Internal.  The
 * per-row and per-field pieces are static inline: the CSV reader's hot path
 * calls them for every row.
 */

/* A cursor over the lines of text[0..len). */
struct mf_lines {
	const char *p, *end;
	long line;         /* number of the line last returned, from 1 */
	const char *start; /* its first byte */
	const char *nl;    /* its '\n', or end for a last line without one */
};

static inline void mf_lines_init(struct mf_lines *c, const char *text, size_t len)
{
	c->p = text;
	c->end = text + len;
	c->line = 0;
	c->start = c->nl = text;
}

/* The next line as [*ls, *le), without its "\n" or "\r\n"; 1, or 0 at the end. */
static inline int mf_lines_next(struct mf_lines *c, const char **ls, const char **le)
{
	const char *s = c->p, *nl, *e;

	if (s >= c->end)
		return 0;
	nl = memchr(s, '\n', (size_t)(c->end - s));
	e = nl ? nl : c->end;
	c->p = nl ? nl + 1 : c->end;
	c->line++;
	c->start = s;
	c->nl = e;
	if (e > s && e[-1] == '\r')
		e--;
	*ls = s;
	*le = e;
	return 1;
}

/*
 * The '\n' ending the line that starts at s in the window [s, end), or NULL
 * when the window ends first.  With quotes (CSV) a '\n' inside a quoted field
 * does not end it.  *lines is the number of newlines up to the one returned.
 */
static inline const char *mf_text_line_end(const char *s, const char *end, bool quotes, long *lines)
{
	const char *nl = memchr(s, '\n', (size_t)(end - s));
	const char *p;
	bool q = false;

	*lines = 1;
	if (!nl || !quotes || !memchr(s, '"', (size_t)(nl - s)))
		return nl;
	for (p = s; p < end; p++) {
		if (*p == '"')
			q = !q;
		else if (*p == '\n') {
			if (!q)
				return p;
			(*lines)++;
		}
	}
	return NULL;
}

/* The length of a UTF-8 byte order mark at s[0..n) (spreadsheet exports start with one): 3, or 0. */
static inline size_t mf_text_bom(const char *s, size_t n)
{
	return n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

/*
 * For a row with more fields than the header's nhdr: counts its commas into
 * *nfields (the fields, were no comma quoted) and returns where the first
 * extra field starts, or le when that count does not reach it.
 */
static inline const char *mf_text_extra_field(const char *ls, const char *le, size_t nhdr, size_t *nfields)
{
	const char *p, *extra = le;
	size_t k = 1;

	for (p = ls; p < le; p++)
		if (*p == ',' && ++k == nhdr + 1)
			extra = p + 1;
	*nfields = k;
	return extra;
}

/*
 * Parses s[0..n) as a decimal number: digits only, no sign or blanks.
 * Returns 0; -1 when it is empty or s[*bad] is not a digit; -2 when the value
 * does not fit in 64 bits (found before any non-digit).  bad may be NULL.
 */
static inline int mf_u64_parse(const char *s, size_t n, uint64_t *out, size_t *bad)
{
	uint64_t v = 0;
	size_t i;

	if (bad)
		*bad = 0;
	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';
		if (d > 9) {
			if (bad)
				*bad = i;
			return -1;
		}
		/* Up to 19 digits cannot overflow 64 bits. */
		if (i < 19)
			v = v * 10 + d;
		else if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, d, &v))
			return -2;
	}
	*out = v;
	return 0;
}

/*
 * The RFC 4180 split of one row: fields separated by ',', a field may be
 * quoted, and "" in a quoted field is one quote.  Without a quote in the row
 * the fields point into it; with one they point into unq, an unquoted copy,
 * and at (when the caller gives an array) says where each field's text starts
 * in the row.  f, fl and at are the caller's arrays of max entries.
 */
struct mf_csvsplit {
	const char **f;
	size_t *fl;
	const char **at; /* or NULL */
	size_t max;
	char *unq; /* owned: mf_csvsplit_free */
	size_t unq_cap;
	const char *bad; /* after -1: where the row is malformed */
	const char *why; /* and what is wrong there */
};

/*
 * Splits [ls, le).  Returns the field count, max + 1 when there are more, -1
 * for a malformed quote (or a NUL byte in a quoted row: the copy would hide
 * it) with bad and why set, or -2 when out of memory.
 */
long mf_csvsplit(struct mf_csvsplit *s, const char *ls, const char *le);
void mf_csvsplit_free(struct mf_csvsplit *s);

#endif
