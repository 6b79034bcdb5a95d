/* SPDX-License-Identifier: MIT */
/*
 * The text table engine of the measure reports (mtable.h): cells, rules,
 * stacked headings and widths from the content; numbers without the locale.
 */
#include "mtable.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers without the locale ---------------------------------------- */

void mf_fmt_fixed(char *buf, size_t n, double v, int dec)
{
	static const uint64_t p10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
	double scaled;
	uint64_t q;
	bool neg;

	if (isnan(v)) {
		snprintf(buf, n, "n/a");
		return;
	}
	if (dec < 0)
		dec = 0;
	if (dec > 6)
		dec = 6;
	neg = v < 0;
	scaled = fabs(v) * (double)p10[dec];
	if (!(scaled < 9.0e18)) {
		/* Beyond 64-bit integers: exponent form is honest enough and locale-free. */
		char g[40];
		mf_fmt_g15(v, g);
		snprintf(buf, n, "%s", g);
		return;
	}
	q = (uint64_t)llround(scaled);
	if (q == 0)
		neg = false; /* no "-0.00" */
	if (dec == 0)
		snprintf(buf, n, "%s%" PRIu64, neg ? "-" : "", q);
	else
		snprintf(buf, n, "%s%" PRIu64 ".%0*" PRIu64, neg ? "-" : "", q / p10[dec], dec, q % p10[dec]);
}

/* ---- text tables ----------------------------------------------------------- */

void mf_tt_col(struct mf_ttab *t, bool left, unsigned gap, const char *h0, const char *h1, const char *h2)
{
	if (t->nc >= TT_MAXC)
		return;
	t->head[t->nc][0] = h0;
	t->head[t->nc][1] = h1;
	t->head[t->nc][2] = h2;
	t->left[t->nc] = left;
	t->gap[t->nc] = gap;
	t->nc++;
}

void mf_tt_row(struct mf_ttab *t, int kind)
{
	if (t->nomem)
		return;
	if (t->nr == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 32;
		int *nk = realloc(t->kind, nc * sizeof(*nk));
		char **ncell;
		if (!nk) {
			t->nomem = true;
			return;
		}
		t->kind = nk;
		ncell = realloc(t->cell, nc * TT_MAXC * sizeof(*ncell));
		if (!ncell) {
			t->nomem = true;
			return;
		}
		t->cell = ncell;
		t->cap = nc;
	}
	t->kind[t->nr] = kind;
	memset(&t->cell[t->nr * TT_MAXC], 0, TT_MAXC * sizeof(*t->cell));
	t->nr++;
}

void mf_tt_set(struct mf_ttab *t, size_t c, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *s;
	if (t->nomem || !t->nr || c >= TT_MAXC)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(s = malloc((size_t)n + 1))) {
		t->nomem = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	free(t->cell[(t->nr - 1) * TT_MAXC + c]);
	t->cell[(t->nr - 1) * TT_MAXC + c] = s;
}

void mf_tt_free(struct mf_ttab *t)
{
	size_t i;
	for (i = 0; i < t->nr * TT_MAXC; i++)
		free(t->cell[i]);
	free(t->cell);
	free(t->kind);
}

/* One line of cells into ln, without trailing blanks. */
static void tt_line(struct mf_strbuf *ln, const struct mf_ttab *t, const size_t *w, const char *const *cells)
{
	size_t c;
	sb_reset(ln);
	for (c = 0; c < t->nc; c++) {
		const char *s = cells[c] ? cells[c] : "";
		size_t l = strlen(s);
		mf_strbuf_pad(ln, ' ', t->gap[c]);
		if (t->left[c]) {
			mf_strbuf_puts(ln, s);
			if (c + 1 < t->nc)
				mf_strbuf_pad(ln, ' ', w[c] - l);
		} else {
			mf_strbuf_pad(ln, ' ', w[c] - l);
			mf_strbuf_puts(ln, s);
		}
	}
	while (ln->len > 0 && ln->buf[ln->len - 1] == ' ')
		ln->buf[--ln->len] = '\0';
}

static void put_pattern(struct mf_strbuf *sb, char ch, size_t width)
{
	size_t i;
	for (i = 0; i + 2 <= width; i += 2) {
		mf_strbuf_putc(sb, ' ');
		mf_strbuf_putc(sb, ch);
	}
	mf_strbuf_putc(sb, '\n');
}

bool mf_tt_render(struct mf_strbuf *sb, const struct mf_ttab *t)
{
	size_t w[TT_MAXC] = {0}, c, r, h, width = 0;
	const char *cells[TT_MAXC];
	struct mf_strbuf ln;
	int pass;
	bool ok;

	for (c = 0; c < t->nc; c++)
		for (h = 0; h < 3; h++)
			if (t->head[c][h] && strlen(t->head[c][h]) > w[c])
				w[c] = strlen(t->head[c][h]);
	for (r = 0; r < t->nr; r++)
		for (c = 0; c < t->nc; c++)
			if (t->kind[r] == TT_CELLS && t->cell[r * TT_MAXC + c] &&
			    strlen(t->cell[r * TT_MAXC + c]) > w[c])
				w[c] = strlen(t->cell[r * TT_MAXC + c]);
	mf_strbuf_init(&ln);
	/* Pass 0 measures the widest line (the rules' length), pass 1 writes. */
	for (pass = 0; pass < 2; pass++) {
		if (pass)
			mf_strbuf_pad(sb, '-', width), mf_strbuf_putc(sb, '\n');
		for (h = 0; h < 3; h++) {
			bool any = false;
			for (c = 0; c < t->nc; c++) {
				cells[c] = t->head[c][h];
				any |= cells[c] != NULL;
			}
			if (!any)
				continue;
			tt_line(&ln, t, w, cells);
			if (ln.len > width)
				width = ln.len;
			if (pass)
				mf_strbuf_add(sb, mf_strbuf_str(&ln), ln.len), mf_strbuf_putc(sb, '\n');
		}
		if (pass)
			mf_strbuf_pad(sb, '-', width), mf_strbuf_putc(sb, '\n');
		for (r = 0; r < t->nr; r++) {
			char *const *rc = &t->cell[r * TT_MAXC];
			switch (t->kind[r]) {
			case TT_CELLS: tt_line(&ln, t, w, (const char *const *)rc); break;
			case TT_RAW:
				sb_reset(&ln);
				mf_strbuf_puts(&ln, rc[0] ? rc[0] : "");
				break;
			case TT_PCT:
				sb_reset(&ln);
				mf_strbuf_pad(&ln, ' ', t->gap[0] + w[0] - strlen(rc[0] ? rc[0] : ""));
				mf_strbuf_puts(&ln, rc[0] ? rc[0] : "");
				mf_strbuf_putc(&ln, ' ');
				mf_strbuf_puts(&ln, rc[1] ? rc[1] : "");
				break;
			default:
				if (pass)
					put_pattern(sb, t->kind[r] == TT_DASH ? '-' : '~', width);
				continue;
			}
			if (t->kind[r] == TT_CELLS && ln.len > width)
				width = ln.len;
			if (pass)
				mf_strbuf_add(sb, mf_strbuf_str(&ln), ln.len), mf_strbuf_putc(sb, '\n');
		}
		if (pass)
			mf_strbuf_pad(sb, '-', width), mf_strbuf_putc(sb, '\n');
	}
	ok = !ln.failed && !t->nomem;
	mf_strbuf_free(&ln);
	return ok;
}

void mf_tt_u64(struct mf_ttab *t, size_t c, bool ok, uint64_t v)
{
	if (ok)
		mf_tt_set(t, c, "%" PRIu64, v);
	else
		mf_tt_set(t, c, "n/a");
}

void mf_tt_fixed(struct mf_ttab *t, size_t c, double v, int dec)
{
	char b[48];
	mf_fmt_fixed(b, sizeof(b), v, dec);
	mf_tt_set(t, c, "%s", b);
}
