/* SPDX-License-Identifier: MIT */
/*
 * The CSV output of lshwc (see lshwc.c): the header's counter columns, then
 * one checked row at a time for the differencing core.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/text.h"
#include "lshwc_int.h"

/* An error at byte at of the line [ls, le), line number line. */
static int line_error(struct mf_reader *r, struct mf_error *err, int code, long line, const char *ls, const char *le,
		      const char *at, const char *fmt, ...) __attribute__((format(printf, 8, 9)));
static int line_error(struct mf_reader *r, struct mf_error *err, int code, long line, const char *ls, const char *le,
		      const char *at, const char *fmt, ...)
{
	va_list ap;
	int rc;
	va_start(ap, fmt);
	rc = mf_lshwc_verror(r, err, code, line, ls, le, at, fmt, ap);
	va_end(ap);
	return rc;
}

/* Reads the next line into [*ls, *le) (without its line end); 1, 0 at the end, or an error. */
static int next_line(struct mf_reader *r, struct lshwc *L, const char **ls, const char **le, struct mf_error *err)
{
	return mf_stream_line(&r->st, r->path, &L->lines, ls, le, err);
}

/*
 * Splits [ls, le) at commas into L->fp/L->fl (L->fat: where each starts in the
 * row); a field may be quoted (lshwc -q).  Returns the field count (maxf + 1
 * when there are more), -1 with *bad at a malformed quote, or -2 when out of
 * memory.
 */
static long split_line(struct lshwc *L, const char *ls, const char *le, size_t maxf, const char **bad)
{
	long nf;

	L->sp.max = maxf;
	nf = mf_csvsplit(&L->sp, ls, le);
	if (nf == -1)
		*bad = L->sp.bad;
	return nf;
}

int mf_lshwc_open_csv(struct mf_reader *r, struct lshwc *L, struct mf_error *err)
{
	static const char *const first[] = {"Date", "Time", "CPU"};
	const char *ls, *le, *bad = NULL;
	long nf;
	size_t i, j;
	int rc;

	L->fp = malloc((MAX_FIELDS + 1) * sizeof(*L->fp));
	L->fl = malloc((MAX_FIELDS + 1) * sizeof(*L->fl));
	L->fat = malloc((MAX_FIELDS + 1) * sizeof(*L->fat));
	if (!L->fp || !L->fl || !L->fat)
		return mf_lshwc_oom(r, err, "opening the lshwc reader");
	L->lines.max = MAX_LINE;
	L->lines.unit = "line";
	L->lines.what = "not lshwc output";
	L->sp.f = L->fp;
	L->sp.fl = L->fl;
	L->sp.at = L->fat;
	do {
		rc = next_line(r, L, &ls, &le, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return mf_error_set(err, MF_EFORMAT, r->path, 0, 0, "empty file: no header line");
	} while (ls == le);
	ls += mf_text_bom(ls, (size_t)(le - ls));
	L->hdr = malloc((size_t)(le - ls) + 1);
	if (!L->hdr)
		return mf_lshwc_oom(r, err, "reading the header");
	memcpy(L->hdr, ls, (size_t)(le - ls));
	L->hdrlen = (size_t)(le - ls);
	L->hdr_line = L->lines.line;
	L->hdr[L->hdrlen] = '\0';
	ls = L->hdr;
	le = L->hdr + L->hdrlen;
	if (memchr(ls, '\0', L->hdrlen))
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, (const char *)memchr(ls, '\0', L->hdrlen),
				  "binary data (a NUL byte) in the header: not lshwc output");
	nf = split_line(L, ls, le, MAX_FIELDS, &bad);
	if (nf == -2)
		return mf_lshwc_oom(r, err, "splitting the header");
	if (nf == -1)
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, bad, "header: malformed quotes");
	if ((size_t)nf > MAX_FIELDS)
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, ls, "header: more than %d counter columns",
				  MF_MAX_COUNTER);
	for (i = 0; i < 3; i++) {
		if (i >= (size_t)nf || L->fl[i] != strlen(first[i]) || strncasecmp(L->fp[i], first[i], L->fl[i]) != 0)
			return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, i < (size_t)nf ? L->fat[i] : le,
					  "not an lshwc header: it must start Date,Time,CPU");
	}
	if (nf == 3)
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, le,
				  "lshwc header without counter columns");
	L->ncols = (size_t)nf - 3;
	L->cols = calloc(L->ncols, sizeof(*L->cols));
	if (!L->cols)
		return mf_lshwc_oom(r, err, "reading the header's counter columns");
	for (i = 0; i < L->ncols; i++) {
		struct lcol *c = &L->cols[i];
		const char *f = L->fp[i + 3], *at = L->fat[i + 3];
		size_t fl = L->fl[i + 3];
		const char *lp = memchr(f, '(', fl);
		long num = -1;
		c->off = (long)(at - ls);
		c->label = strndup(f, fl);
		if (!c->label)
			return mf_lshwc_oom(r, err, "reading the header's counter names");
		if (lp && fl >= 4 && f[fl - 1] == ')') {
			/* NAME(n): the sysfs name and the counter number; Counter(n) is unnamed. */
			size_t nl = (size_t)(lp - f), dl = fl - nl - 2, k;
			bool ok = nl > 0 && dl > 0 && dl <= 3 && mf_lshwc_all_digits(lp + 1, dl);
			for (k = 0; k < nl && ok; k++)
				ok = isalnum((unsigned char)f[k]) || f[k] == '_';
			if (ok)
				num = strtol(lp + 1, NULL, 10);
			if (ok && num < MF_MAX_COUNTER && !(nl == 7 && memcmp(f, "Counter", 7) == 0)) {
				c->name = strndup(f, nl);
				if (!c->name)
					return mf_lshwc_oom(r, err, "reading the header's counter names");
			}
		} else if (fl >= 2 && fl <= 4 && (f[0] == 'U' || f[0] == 'u') && mf_lshwc_all_digits(f + 1, fl - 1)) {
			num = strtol(f + 1, NULL, 10); /* -s: an unnamed counter */
		} else if ((num = mf_short_counter_number(f, fl)) >= 0) {
			c->name = strndup(f, fl);
			if (!c->name)
				return mf_lshwc_oom(r, err, "reading the header's counter names");
			c->shortname = true;
		}
		if (num < 0 || num >= MF_MAX_COUNTER)
			return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, at,
					  "unknown column '%.*s' (lshwc counter columns are NAME(n), Counter(n), or "
					  "with "
					  "-s short names such as B0, E143, U300)",
					  (int)(fl > 60 ? 60 : fl), f);
		c->number = (unsigned)num;
		for (j = 0; j < i; j++)
			if (L->cols[j].number == c->number)
				return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, at,
						  "column %s repeats counter %u (column %zu, %s)", c->label, c->number,
						  j + 4, L->cols[j].label);
	}
	return mf_lshwc_choose_family(r, L, 0, -1, err);
}

/* Parses Date and Time fields into microseconds (the local time as written, taken as UTC). */
static int row_time(struct mf_reader *r, struct lshwc *L, struct mf_error *err, const char *ls, const char *le,
		    struct lrow *w)
{
	const char *d = L->fp[0], *t = L->fp[1];
	size_t dl = L->fl[0], tl = L->fl[1];
	char buf[32];
	int64_t us;

	if (dl + tl < sizeof(L->last_dt) && L->last_dt_len == dl + tl && memcmp(L->last_dt, d, dl) == 0 &&
	    memcmp(L->last_dt + dl, t, tl) == 0) {
		w->has_time = true;
		w->t_us = L->last_t;
		return 0;
	}
	if (dl != 10 || !mf_lshwc_all_digits(d, 4) || d[4] != '-' || !mf_lshwc_all_digits(d + 5, 2) || d[7] != '-' ||
	    !mf_lshwc_all_digits(d + 8, 2))
		goto bad_date;
	if (tl != 8 || !mf_lshwc_all_digits(t, 2) || t[2] != ':' || !mf_lshwc_all_digits(t + 3, 2) || t[5] != ':' ||
	    !mf_lshwc_all_digits(t + 6, 2))
		goto bad_time;
	snprintf(buf, sizeof(buf), "%.10sT00:00:00Z", d);
	if (mf_time_parse(buf, strlen(buf), &us))
		goto bad_date;
	snprintf(buf, sizeof(buf), "%.10sT%.8sZ", d, t);
	if (mf_time_parse(buf, strlen(buf), &us))
		goto bad_time;
	memcpy(L->last_dt, d, dl);
	memcpy(L->last_dt + dl, t, tl);
	L->last_dt_len = dl + tl;
	L->last_t = us;
	w->has_time = true;
	w->t_us = us;
	return 0;
bad_date:
	return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, L->fat[0], "bad date '%.*s' (expected YYYY-MM-DD)",
			  (int)(dl > 20 ? 20 : dl), d);
bad_time:
	return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, L->fat[1], "bad time '%.*s' (expected HH:MM:SS)",
			  (int)(tl > 20 ? 20 : tl), t);
}

/* Reads and checks the next CSV row into w; 1, 0 at the end, or an error (the row is skipped). */
int mf_lshwc_csv_row(struct mf_reader *r, struct lshwc *L, struct lrow *w, struct mf_error *err)
{
	const char *ls, *le, *bad = NULL, *f;
	size_t len, i, fl;
	uint64_t cpu;
	long nf;
	int rc;

	do {
		rc = next_line(r, L, &ls, &le, err);
		if (rc <= 0)
			return rc;
	} while (ls == le);
	len = (size_t)(le - ls);
	{
		char *nt = mf_lshwc_grow(w->text, &w->textcap, len + 1, 1);
		if (!nt)
			return mf_lshwc_oom(r, err, "reading a line");
		w->text = nt;
	}
	memcpy(w->text, ls, len);
	w->text[len] = '\0';
	w->textlen = len;
	w->line = L->lines.line;
	ls = w->text;
	le = ls + len;
	if (memchr(ls, '\0', len))
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, (const char *)memchr(ls, '\0', len),
				  "binary data (a NUL byte) in a row");
	nf = split_line(L, ls, le, L->ncols + 3, &bad);
	if (nf == -2)
		return mf_lshwc_oom(r, err, "splitting a line");
	if (nf == -1)
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, bad, "malformed quotes");
	if ((size_t)nf > L->ncols + 3) {
		size_t k;
		const char *extra = mf_text_extra_field(ls, le, L->ncols + 3, &k);
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, extra,
				  "row has more fields than the header (%zu, header has %zu)", k, L->ncols + 3);
	}
	if ((size_t)nf < L->ncols + 3)
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, le,
				  "row has fewer fields than the header (%ld, header has %zu): a truncated line", nf,
				  L->ncols + 3);
	rc = row_time(r, L, err, ls, le, w);
	if (rc)
		return rc;
	f = L->fp[2];
	fl = L->fl[2];
	if (fl == 5 && strncasecmp(f, "Total", 5) == 0) {
		w->kind = ROW_TOTAL;
		w->cpu = -1;
	} else if (fl == 5 && strncasecmp(f, "Delta", 5) == 0) {
		w->kind = ROW_DELTA;
		w->cpu = -1;
	} else if (fl >= 4 && fl <= 8 && strncasecmp(f, "CPU", 3) == 0 &&
		   mf_u64_parse(f + 3, fl - 3, &cpu, NULL) == 0 && cpu <= MAX_CPU) {
		w->kind = ROW_CPU;
		w->cpu = (int64_t)cpu;
	} else {
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, L->fat[2],
				  "bad CPU label '%.*s' (expected CPU<n> with n up to %d, Total or Delta)",
				  (int)(fl > 20 ? 20 : fl), f, MAX_CPU);
	}
	for (i = 0; i < L->ncols; i++) {
		const char *v = L->fp[i + 3];
		size_t vl = L->fl[i + 3];
		int prc = vl > MAX_VALUE ? -5 : mf_lshwc_parse_value(v, vl, &w->val[i]);
		if (prc)
			return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, L->fat[i + 3], "%s: %s '%.*s'",
					  L->cols[i].label, mf_lshwc_value_problem(prc), (int)(vl > 40 ? 40 : vl), v);
		w->has[i] = 1;
		w->foff[i] = (uint32_t)(L->fat[i + 3] - ls);
	}
	return 1;
}
