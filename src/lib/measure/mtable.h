/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MTABLE_H
#define MFSTAT_MTABLE_H

/*
 * The text table engine of the measure reports (mtable.c): cells set row by
 * row, rendered with widths from the content between rules, and numbers
 * formatted without the locale.  Knows nothing of runs or aggregates.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/strbuf.h"

#define TT_MAXC 16

/* Kinds of rows. */
enum { TT_CELLS, TT_RAW, TT_DASH, TT_TILDE, TT_PCT };

/*
 * A text table: right-aligned number columns and left-aligned label columns,
 * stacked headings (up to three lines, top-aligned), widths from the content.
 * Besides rows of cells it holds verbatim rows, Caliper's "- - -" and "~ ~ ~"
 * rows, and detail headlines (a percentage in the first column, then text).
 * Zero-initialised it is empty; mf_tt_free frees it.
 */
struct mf_ttab {
	size_t nc;
	const char *head[TT_MAXC][3];
	bool left[TT_MAXC];
	unsigned gap[TT_MAXC];
	size_t nr, cap;
	int *kind;
	char **cell; /* nr * nc, owned */
	bool nomem;
};

/* v with dec decimals (round half away from zero on the scaled value), "n/a" for NAN. */
void mf_fmt_fixed(char *buf, size_t n, double v, int dec);

/* Adds a column: left-aligned or not, gap blanks before it, up to three heading lines (NULL: none). */
void mf_tt_col(struct mf_ttab *t, bool left, unsigned gap, const char *h0, const char *h1, const char *h2);
/* Adds a row of a kind (TT_*); its cells are set with mf_tt_set. */
void mf_tt_row(struct mf_ttab *t, int kind);
/* Sets cell c of the last row (printf style). */
void mf_tt_set(struct mf_ttab *t, size_t c, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Cell c of the last row: v, or "n/a" when not ok. */
void mf_tt_u64(struct mf_ttab *t, size_t c, bool ok, uint64_t v);
/* Cell c of the last row: v with dec decimals (mf_fmt_fixed). */
void mf_tt_fixed(struct mf_ttab *t, size_t c, double v, int dec);
/* Rule, headings, rule, rows, rule (§6).  Returns false on ENOMEM (here or while filling t). */
bool mf_tt_render(struct mf_strbuf *sb, const struct mf_ttab *t);
void mf_tt_free(struct mf_ttab *t);

/* Empties sb, keeping its buffer. */
static inline void sb_reset(struct mf_strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

#endif
