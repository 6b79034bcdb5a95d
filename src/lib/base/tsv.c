/* SPDX-License-Identifier: MIT */
#include "tsv.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int split(struct mf_tsv *t, const char *s, const char *e, struct mf_error *err)
{
	size_t used = 0;

	t->nf = 0;
	for (;;) {
		const char *q = memchr(s, '\t', (size_t)(e - s));
		const char *fe = q ? q : e;
		size_t n = (size_t)(fe - s);
		if (t->nf == MF_TSV_MAXF) {
			mf_error_set(err, MF_ETABLE, t->name, t->line, (long)(s - t->line_start) + 1,
				     "too many fields (more than %d)", MF_TSV_MAXF);
			mf_error_set_text(err, t->line_start, (size_t)(e - t->line_start));
			return MF_ETABLE;
		}
		if (used + n + 1 > sizeof(t->buf)) {
			mf_error_set(err, MF_ETABLE, t->name, t->line, (long)(s - t->line_start) + 1, "line too long");
			return MF_ETABLE;
		}
		t->f[t->nf] = s;
		t->flen[t->nf] = n;
		t->fz[t->nf] = t->buf + used;
		memcpy(t->buf + used, s, n);
		t->buf[used + n] = '\0';
		used += n + 1;
		t->nf++;
		if (!q)
			break;
		s = q + 1;
	}
	return 0;
}

/* Advances to the next line that is not blank or a comment; returns 0 at end. */
static int next_line(struct mf_tsv *t, const char **ls, const char **le)
{
	while (mf_lines_next(&t->cur, ls, le)) {
		t->line = t->cur.line;
		t->line_start = t->cur.start;
		t->line_end = t->cur.nl;
		if (*le == *ls || **ls == '#')
			continue;
		return 1;
	}
	return 0;
}

int mf_tsv_open(struct mf_tsv *t, const char *name, const char *text, size_t len, const char *const *cols,
		struct mf_error *err)
{
	const char *s, *e;
	size_t i, ncols = 0;
	int rc;

	memset(t, 0, sizeof(*t));
	t->name = name;
	mf_lines_init(&t->cur, text, len);
	if (memchr(text, '\0', len))
		return mf_error_set(err, MF_ETABLE, name, 0, 0, "binary data (a NUL byte) in a table file");
	if (!next_line(t, &s, &e))
		return mf_error_set(err, MF_ETABLE, name, 0, 0, "no header line");
	rc = split(t, s, e, err);
	if (rc)
		return rc;
	while (cols[ncols])
		ncols++;
	for (i = 0; i < ncols || i < t->nf; i++) {
		if (i >= t->nf || i >= ncols || strcmp(t->fz[i], cols[i]) != 0) {
			char want[512];
			size_t k, used = 0;
			for (k = 0; k < ncols && used < sizeof(want); k++)
				used += (size_t)snprintf(want + used, sizeof(want) - used, "%s%s", k ? "<TAB>" : "",
							 cols[k]);
			return mf_tsv_fail(t, err, i < t->nf ? i : t->nf - 1, i < t->nf ? 0 : t->flen[t->nf - 1],
					   MF_ETABLE, "header must be: %s", want);
		}
	}
	return 0;
}

int mf_tsv_next(struct mf_tsv *t, struct mf_error *err)
{
	const char *s, *e;
	size_t want = 0;
	int rc;

	if (!next_line(t, &s, &e))
		return 0;
	/* The header fixed the column count. */
	rc = split(t, s, e, err);
	if (rc)
		return rc;
	(void)want;
	return 1;
}

int mf_tsv_fail(struct mf_tsv *t, struct mf_error *err, size_t i, size_t off, int code, const char *fmt, ...)
{
	va_list ap;
	long col = 1;

	if (i < t->nf)
		col = (long)(t->f[i] - t->line_start + (long)off) + 1;
	mf_error_set(err, code, t->name, t->line, col, "%s", "");
	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		mf_error_set_text(err, t->line_start, (size_t)(t->line_end - t->line_start));
	}
	return code;
}
