/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_STRBUF_H
#define MFSTAT_STRBUF_H

#include <stddef.h>
#include <stdint.h>

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
 * Formats a double exactly as printf("%.15g") does in the C locale (round-half-even on exact
 * ties, "-0" for negative zero), without printf for the values the writers print (integers
 * below 2^64, the rest from 1e-8 to 1e15): the report writers format millions of numbers.
 * Writes at most 24 bytes plus NUL into buf and returns the length.  Other values (and inf,
 * nan) go through snprintf, so the result is printf's for every double.
 */
int mf_fmt_g15(double v, char *buf);
/* The same as printf("%+.15g"). */
int mf_fmt_g15_signed(double v, char *buf);
/*
 * The shortest of printf's %.15g, %.16g and %.17g that strtod reads back as v (the first of
 * the three that does; %.17g always does): what export writes.  The round trip is decided
 * in integer arithmetic (the decimal within half a gap of v), without strtod, on the fast
 * paths; otherwise by snprintf and strtod.  At most 24 bytes plus NUL.
 */
int mf_fmt_roundtrip(double v, char *buf);
/* Decimal integers without printf; buf holds 21 bytes (a sign and 20 digits) plus NUL. */
size_t mf_fmt_u64(uint64_t v, char *buf);
size_t mf_fmt_i64(int64_t v, char *buf);
void mf_strbuf_u64(struct mf_strbuf *sb, uint64_t v);
void mf_strbuf_i64(struct mf_strbuf *sb, int64_t v);

/*
 * Appends printf-formatted text to the fixed buffer buf of size bytes holding
 * *used bytes: what fits is kept (always NUL-terminated), *used never passes
 * size - 1.  For short messages in caller-sized buffers.
 */
void mf_buf_appendf(char *buf, size_t size, size_t *used, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Returns the contents (an empty string when nothing was added); borrowed. */
const char *mf_strbuf_str(const struct mf_strbuf *sb);

#endif
