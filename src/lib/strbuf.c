/* SPDX-License-Identifier: MIT */
#include "mfstat/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mf_strbuf_init(struct mf_strbuf *sb)
{
	memset(sb, 0, sizeof(*sb));
}

void mf_strbuf_free(struct mf_strbuf *sb)
{
	if (!sb)
		return;
	free(sb->buf);
	mf_strbuf_init(sb);
}

static int grow(struct mf_strbuf *sb, size_t extra)
{
	size_t need, cap;
	char *p;

	if (sb->failed)
		return -1;
	need = sb->len + extra + 1;
	if (need <= sb->cap)
		return 0;
	cap = sb->cap ? sb->cap : 256;
	while (cap < need)
		cap *= 2;
	p = realloc(sb->buf, cap);
	if (!p) {
		sb->failed = 1;
		return -1;
	}
	sb->buf = p;
	sb->cap = cap;
	return 0;
}

void mf_strbuf_add(struct mf_strbuf *sb, const char *s, size_t n)
{
	if (grow(sb, n))
		return;
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void mf_strbuf_puts(struct mf_strbuf *sb, const char *s)
{
	mf_strbuf_add(sb, s, strlen(s));
}

void mf_strbuf_putc(struct mf_strbuf *sb, char c)
{
	mf_strbuf_add(sb, &c, 1);
}

void mf_strbuf_pad(struct mf_strbuf *sb, char c, size_t n)
{
	if (grow(sb, n))
		return;
	memset(sb->buf + sb->len, c, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void mf_strbuf_printf(struct mf_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || grow(sb, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void mf_strbuf_num(struct mf_strbuf *sb, double v)
{
	char tmp[40];
	int n = snprintf(tmp, sizeof(tmp), "%.15g", v == 0 ? 0.0 : v); /* no "-0" */
	mf_strbuf_add(sb, tmp, (size_t)n);
}

const char *mf_strbuf_str(const struct mf_strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}
