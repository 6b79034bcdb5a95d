/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_TSV_H
#define MFSTAT_TSV_H

#include <stddef.h>

#include "mfstat/base/error.h"
#include "text.h"

/*
 * Reader for the knowledge-base text tables: '#' comment lines and blank lines
 * are ignored, the first other line is a header that must equal the expected
 * column names, fields are separated by exactly one TAB.  Internal.
 */
#define MF_TSV_MAXF 16

struct mf_tsv {
	const char *name; /* file name for diagnostics */
	struct mf_lines cur;
	long line;              /* the line of the current row: its number, */
	const char *line_start; /* its first byte */
	const char *line_end;   /* and its '\n' (or the end of the text) */
	size_t nf;
	const char *f[MF_TSV_MAXF];
	size_t flen[MF_TSV_MAXF];
	char *fz[MF_TSV_MAXF]; /* NUL-terminated copies, valid until the next row */
	char buf[8192];
};

/* Starts reading text[0..len) and checks the header against cols (NULL-terminated). */
int mf_tsv_open(struct mf_tsv *t, const char *name, const char *text, size_t len, const char *const *cols,
		struct mf_error *err);

/* Reads the next row: 1 = a row, 0 = end, <0 = error (filled). */
int mf_tsv_next(struct mf_tsv *t, struct mf_error *err);

/* Reports an error about field i of the current row (column of its start + off). */
int mf_tsv_fail(struct mf_tsv *t, struct mf_error *err, size_t i, size_t off, int code, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

#endif
