/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_ERROR_H
#define MFSTAT_ERROR_H

#include <stdarg.h>
#include <stddef.h>

/* Library return codes: 0 is success, every failure is a small negative number. */
enum {
	MF_OK = 0,
	MF_EINVAL = -1,      /* invalid argument (a caller bug or a bad option value) */
	MF_ENOMEM = -2,      /* out of memory */
	MF_EFORMAT = -3,     /* malformed input data */
	MF_ENOCOUNTER = -4,  /* a counter that does not exist on the family */
	MF_EIO = -5,         /* a read or write failed */
	MF_ENOMACHINE = -6,  /* an unknown machine family or type */
	MF_ETABLE = -7,      /* a knowledge-base table is broken */
	MF_EUSAGE = -8,      /* the request cannot be served as asked (e.g. format not detected) */
	MF_EOF = -9,         /* end of input (not an error for readers) */
	MF_ENODATA = -10,    /* the input holds none of the data asked for (e.g. no SMF type 113 record) */
	MF_ELIMIT = -11,     /* a configured limit was reached (e.g. --max-groups) */
	MF_ENOEXEC = -12,    /* the program to count or measure cannot be run (not found, not executable) */
	MF_ENOTCOUNTED = -13 /* nothing could be counted or sampled: no event could be opened here */
};

/* Returns a static English description of an MF_E* code. */
const char *mf_strerror(int code);

/*
 * A diagnostic about user input.  Text inputs fill line and col (1-based) and
 * the text of the offending line; binary inputs fill offset (and record).
 * Unknown positions are 0 (line, col) or -1 (offset).
 */
struct mf_error {
	int code;
	char file[256];
	long line;
	long col;
	long long offset;
	long record;
	char msg[512];
	char text[256]; /* the source line, for the caret display; may be empty */
	long caret;     /* 1-based caret position in text when it differs from col, else 0 */
};

/* Resets e to "no error". */
void mf_error_clear(struct mf_error *e);

/* Fills e (which may be NULL) and returns code. */
int mf_error_set(struct mf_error *e, int code, const char *file, long line, long col, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/*
 * Fills e (which may be NULL) for an allocation that failed, in the one form of every
 * out-of-memory message: "out of memory while WHAT" (WHAT formatted from fmt: what was being
 * allocated, "reading the rows of the file", "loading metrics/z16.tsv"), with the file and line
 * where known.  Returns MF_ENOMEM.
 */
int mf_error_nomem(struct mf_error *e, const char *file, long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Copies up to one line of source text (stopping at a newline) for the caret. */
void mf_error_set_text(struct mf_error *e, const char *line, size_t len);

/*
 * Sets the source text of the line [ls, le) for a fault at byte at: the whole
 * line, or for a long line 100 bytes either side of the fault with the caret
 * moved to match.
 */
void mf_error_set_text_at(struct mf_error *e, const char *ls, const char *le, const char *at);

/*
 * Fills e (which may be NULL) for a fault at byte at of the source line
 * [ls, le), line number line of file: the column of at, the message, and the
 * line's text with the caret (mf_error_set_text_at).  Returns code.  The one
 * way text readers report a place in a row.
 */
int mf_error_vset_at(struct mf_error *e, int code, const char *file, long line, const char *ls, const char *le,
		     const char *at, const char *fmt, va_list ap);

/*
 * Formats e as "FILE:LINE:COL: error: MESSAGE" followed, when the source text
 * is known, by the line and a caret under column COL.  Returns the length
 * written (truncated to n - 1), like snprintf.
 */
int mf_error_format(const struct mf_error *e, char *buf, size_t n);

#endif
