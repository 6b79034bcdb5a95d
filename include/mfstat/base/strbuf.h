/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_STRBUF_H
#define MFSTAT_STRBUF_H

#include <stddef.h>

/* A growable byte buffer, always NUL-terminated once anything was added. */
struct mf_strbuf {
	char *buf;
	size_t len;
	size_t cap;
	int failed; /* set once an allocation failed; further appends are ignored */
};

void mf_strbuf_init(struct mf_strbuf *sb);
void mf_strbuf_free(struct mf_strbuf *sb);
/* Appending never fails loudly: on ENOMEM sb->failed is set and the text is dropped. */
void mf_strbuf_add(struct mf_strbuf *sb, const char *s, size_t n);
void mf_strbuf_puts(struct mf_strbuf *sb, const char *s);
void mf_strbuf_putc(struct mf_strbuf *sb, char c);
void mf_strbuf_printf(struct mf_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends n copies of c. */
void mf_strbuf_pad(struct mf_strbuf *sb, char c, size_t n);
/* Appends a double with %.15g, never through the locale; NaN is not expected here. */
void mf_strbuf_num(struct mf_strbuf *sb, double v);
/*
 * Formats a finite double exactly as printf("%.15g") does in the C locale
 * (round-half-even on exact ties), without printf: the report writers format
 * millions of numbers.  Writes at most 24 bytes plus NUL into buf and returns
 * the length.  Values outside the fast path go through snprintf.
 */
int mf_fmt_g15(double v, char *buf);

/*
 * Appends printf-formatted text to the fixed buffer buf of size bytes holding
 * *used bytes: what fits is kept (always NUL-terminated), *used never passes
 * size - 1.  For short messages in caller-sized buffers.
 */
void mf_buf_appendf(char *buf, size_t size, size_t *used, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Returns the contents (an empty string when nothing was added); borrowed. */
const char *mf_strbuf_str(const struct mf_strbuf *sb);

#endif
