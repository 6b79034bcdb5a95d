/* SPDX-License-Identifier: MIT */
#include "mfstat/base/strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
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
	int n = mf_fmt_g15(v == 0 ? 0.0 : v, tmp); /* no "-0" */
	mf_strbuf_add(sb, tmp, (size_t)n);
}

const char *mf_strbuf_str(const struct mf_strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

/*
 * Exact %.15g for the common range.  A finite double is m * 2^e with m < 2^53.
 * We want its decimal value rounded to 15 significant digits.  Choose the
 * power of ten k so that q = v * 10^k has 15 digits before the point; when
 * both m * 10^k (k >= 0) or m * 2^e ... fit in unsigned 128-bit arithmetic,
 * the quotient and remainder are exact, so the rounding is exactly printf's.
 * Anything else (very large or small magnitudes) falls back to snprintf.
 */
__extension__ typedef unsigned __int128 u128; /* GCC and Clang; 64-bit targets */

static int fmt_fallback(double v, char *buf)
{
	return snprintf(buf, 32, "%.15g", v);
}

int mf_fmt_g15(double v, char *buf)
{
	static const uint64_t p10[20] = {1ULL,
					 10ULL,
					 100ULL,
					 1000ULL,
					 10000ULL,
					 100000ULL,
					 1000000ULL,
					 10000000ULL,
					 100000000ULL,
					 1000000000ULL,
					 10000000000ULL,
					 100000000000ULL,
					 1000000000000ULL,
					 10000000000000ULL,
					 100000000000000ULL,
					 1000000000000000ULL,
					 10000000000000000ULL,
					 100000000000000000ULL,
					 1000000000000000000ULL,
					 10000000000000000000ULL};
	uint64_t bits, m;
	int e, neg, x, k, n = 0, i, ndig;
	u128 num, den, q, r;
	char dig[24];

	memcpy(&bits, &v, sizeof(bits));
	neg = (int)(bits >> 63);
	e = (int)((bits >> 52) & 0x7ff);
	m = bits & ((UINT64_C(1) << 52) - 1);
	if (e == 0x7ff)
		return fmt_fallback(v, buf);
	if (e == 0) {
		if (m == 0) {
			/* printf prints "-0" for negative zero. */
			if (neg)
				memcpy(buf, "-0", 3);
			else
				memcpy(buf, "0", 2);
			return neg ? 2 : 1;
		}
		return fmt_fallback(v, buf); /* subnormal */
	}
	m |= UINT64_C(1) << 52;
	e -= 1075; /* v = m * 2^e */
	/* Decimal exponent estimate: x = floor(log10(|v|)), corrected below. */
	x = (int)floor(log10(fabs(v)));
	/* q = |v| * 10^(14 - x) should be in [1e14, 1e15). */
	k = 14 - x;
	if (k > 19 || k < -19 || e > 40 || e < -120)
		return fmt_fallback(v, buf);
	for (;;) {
		if (k >= 0) {
			num = (u128)m * p10[k];
			if (e >= 0) {
				num <<= e;
				den = 1;
			} else {
				den = (u128)1 << -e;
			}
		} else {
			num = (u128)m;
			den = (u128)p10[-k];
			if (e >= 0)
				num <<= e;
			else
				den <<= -e;
		}
		q = num / den;
		r = num % den;
		if (q >= (u128)p10[15]) {
			k--, x++;
			if (k < -19)
				return fmt_fallback(v, buf);
			continue;
		}
		if (q < (u128)p10[14]) {
			k++, x--;
			if (k > 19)
				return fmt_fallback(v, buf);
			continue;
		}
		break;
	}
	/* Round half to even on the exact remainder. */
	if (r * 2 > den || (r * 2 == den && (q & 1)))
		q++;
	if (q == (u128)p10[15]) {
		q = p10[14];
		x++;
	}
	/* 15 digits; strip trailing zeros as %g does. */
	{
		uint64_t qq = (uint64_t)q;
		for (i = 14; i >= 0; i--) {
			dig[i] = (char)('0' + qq % 10);
			qq /= 10;
		}
	}
	ndig = 15;
	while (ndig > 1 && dig[ndig - 1] == '0')
		ndig--;
	if (neg)
		buf[n++] = '-';
	if (x < -4 || x >= 15) {
		/* d.ddde+XX */
		buf[n++] = dig[0];
		if (ndig > 1) {
			buf[n++] = '.';
			for (i = 1; i < ndig; i++)
				buf[n++] = dig[i];
		}
		buf[n++] = 'e';
		buf[n++] = x < 0 ? '-' : '+';
		if (x < 0)
			x = -x;
		if (x >= 100)
			buf[n++] = (char)('0' + x / 100);
		buf[n++] = (char)('0' + x / 10 % 10);
		buf[n++] = (char)('0' + x % 10);
	} else if (x >= 0) {
		for (i = 0; i <= x; i++)
			buf[n++] = i < ndig ? dig[i] : '0';
		if (ndig > x + 1) {
			buf[n++] = '.';
			for (i = x + 1; i < ndig; i++)
				buf[n++] = dig[i];
		}
	} else {
		buf[n++] = '0';
		buf[n++] = '.';
		for (i = 0; i < -x - 1; i++)
			buf[n++] = '0';
		for (i = 0; i < ndig; i++)
			buf[n++] = dig[i];
	}
	buf[n] = '\0';
	return n;
}

void mf_buf_appendf(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int k;
	if (!size || *used >= size - 1)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *used, size - *used, fmt, ap);
	va_end(ap);
	if (k < 0)
		return;
	*used = (size_t)k < size - *used ? *used + (size_t)k : size - 1;
}
