/* SPDX-License-Identifier: MIT */
#include "mfstat/base/strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
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
 * Exact %.Pg (P = 15, 16, 17) without printf.  A finite double is m * 2^e with
 * m < 2^53.  Its decimal value rounded to P significant digits is q * 10^(x-P+1)
 * with 10^(P-1) <= q < 10^P, round-half-even on the exact remainder as glibc's
 * printf rounds.  Two fast paths cover what the writers print:
 *
 * - integers below 2^64 (counter sums are): their digits, rounded in 64-bit
 *   arithmetic when they have more than P;
 * - the rest from 1e-8 on (e < 0, k = P - 1 - x in [0, 22]): q is the integer
 *   part of m * 10^k / 2^-e, a 64 x 64 -> 128-bit product and a shift, the
 *   remainder the bits shifted out, so the rounding is exact.
 *
 * x comes from the binary exponent: for |v| in [2^E, 2^(E+1)), floor(log10 |v|)
 * is floor(E * log10 2) or one more, corrected when q has P + 1 digits.
 * Anything else (very large or small magnitudes, subnormals, inf, nan) goes
 * through snprintf.  tests/unit/test_numfmt.c compares millions of values with
 * snprintf.
 */
__extension__ typedef unsigned __int128 u128; /* GCC and Clang; 64-bit targets */

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

static const char dig2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Writes the decimal digits of n so that they end at end; returns where they start. */
static char *u64_digits(uint64_t n, char *end)
{
	while (n >= 100) {
		unsigned r = (unsigned)(n % 100);
		n /= 100;
		end -= 2;
		memcpy(end, dig2 + 2 * r, 2);
	}
	if (n >= 10) {
		end -= 2;
		memcpy(end, dig2 + 2 * n, 2);
	} else {
		*--end = (char)('0' + n);
	}
	return end;
}

size_t mf_fmt_u64(uint64_t v, char *buf)
{
	char tmp[24], *s = u64_digits(v, tmp + sizeof(tmp));
	size_t n = (size_t)(tmp + sizeof(tmp) - s);
	memcpy(buf, s, n);
	buf[n] = '\0';
	return n;
}

size_t mf_fmt_i64(int64_t v, char *buf)
{
	if (v < 0) {
		buf[0] = '-';
		return 1 + mf_fmt_u64((uint64_t)0 - (uint64_t)v, buf + 1);
	}
	return mf_fmt_u64((uint64_t)v, buf);
}

void mf_strbuf_u64(struct mf_strbuf *sb, uint64_t v)
{
	char tmp[24], *s = u64_digits(v, tmp + sizeof(tmp));
	mf_strbuf_add(sb, s, (size_t)(tmp + sizeof(tmp) - s));
}

void mf_strbuf_i64(struct mf_strbuf *sb, int64_t v)
{
	char tmp[24];
	mf_strbuf_add(sb, tmp, mf_fmt_i64(v, tmp));
}

/* %.Pg's layout of q (P digits, the first of weight 10^x) after the sign. */
static int layout(char *buf, int n, uint64_t q, int x, int P)
{
	char dig[24];
	int i, ndig = P;
	u64_digits(q, dig + P);
	while (ndig > 1 && dig[ndig - 1] == '0')
		ndig--;
	if (x < -4 || x >= P) {
		/* d.ddde+XX */
		buf[n++] = dig[0];
		if (ndig > 1) {
			buf[n++] = '.';
			memcpy(buf + n, dig + 1, (size_t)ndig - 1);
			n += ndig - 1;
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
			memcpy(buf + n, dig + x + 1, (size_t)(ndig - x - 1));
			n += ndig - x - 1;
		}
	} else {
		buf[n++] = '0';
		buf[n++] = '.';
		for (i = 0; i < -x - 1; i++)
			buf[n++] = '0';
		memcpy(buf + n, dig, (size_t)ndig);
		n += ndig;
	}
	buf[n] = '\0';
	return n;
}

/* Round half to even: q + 1 when the remainder r of the divisor d is above half, or half and q odd. */
#define ROUND_UP(q, r, d) ((r)*2 > (d) || ((r)*2 == (d) && ((q)&1)))

/*
 * The P digits of v = m * 2^e (m < 2^53; e > -1075) in *q and *x.  *rt (when not NULL) tells
 * whether they read back (strtod) as v: the decimal lies within half a gap of v, a tie going
 * to the even m.  Returns false outside the fast paths.
 */
static bool digits(uint64_t m, int e, int P, uint64_t *q, int *x, bool *rt)
{
	if (e >= 0 ? e <= 11 : e >= -52 && !(m & ((UINT64_C(1) << -e) - 1))) {
		/* An integer below 2^64. */
		uint64_t v = e >= 0 ? m << e : m >> -e, d, r;
		int nd = 1;
		while (nd < 20 && v >= p10[nd])
			nd++;
		if (nd <= P) {
			*q = v * p10[P - nd];
			*x = nd - 1;
			if (rt)
				*rt = true;
			return true;
		}
		if (rt)
			return false; /* over 10^P: shortest-round-trip takes the slow path */
		d = p10[nd - P];
		*q = v / d;
		r = v % d;
		*x = nd - 1;
		if (ROUND_UP(*q, r, d))
			++*q;
		if (*q == p10[P]) {
			*q = p10[P - 1];
			++*x;
		}
		return true;
	}
	if (e < 0 && e >= -127) {
		int E = e + 63 - __builtin_clzll(m); /* |v| in [2^E, 2^(E+1)) */
		int xx = (E * 78913) >> 18, tries;   /* floor(E log10 2), maybe one short */
		for (tries = 0; tries < 3; tries++) {
			int k = P - 1 - xx, s = -e;
			u128 num, r, half, qq;
			if (k < 0 || k > 22)
				return false;
			num = k <= 19 ? (u128)m * p10[k] : (u128)(m * p10[k - 19]) * p10[19];
			qq = num >> s;
			if (qq >= p10[P]) {
				xx++;
				continue;
			}
			if (qq < p10[P - 1]) {
				xx--;
				continue;
			}
			r = num & (((u128)1 << s) - 1);
			half = (u128)1 << (s - 1);
			if (r > half || (r == half && (qq & 1))) {
				qq++;
				r = ((u128)1 << s) - r; /* the distance from above */
				if (rt) {
					/* 2 err < 10^k, or a tie and m even */
					u128 two = r * 2, pk = k <= 19 ? (u128)p10[k] : (u128)p10[k - 19] * p10[19];
					*rt = two < pk || (two == pk && !(m & 1));
				}
			} else if (rt) {
				/* below v: the gap below a power of two is half */
				u128 two = r * ((m & (m - 1)) ? 2 : 4),
				     pk = k <= 19 ? (u128)p10[k] : (u128)p10[k - 19] * p10[19];
				*rt = two < pk || (two == pk && !(m & 1));
			}
			if (qq == p10[P]) {
				qq = p10[P - 1];
				xx++;
			}
			*q = (uint64_t)qq;
			*x = xx;
			return true;
		}
	}
	return false;
}

/* m, e and the sign of a finite nonzero normal double; false for 0, subnormals, inf and nan. */
static bool split(double v, uint64_t *m, int *e, int *neg)
{
	uint64_t bits;
	int be;
	memcpy(&bits, &v, sizeof(bits));
	*neg = (int)(bits >> 63);
	be = (int)((bits >> 52) & 0x7ff);
	if (be == 0 || be == 0x7ff)
		return false;
	*m = (bits & ((UINT64_C(1) << 52) - 1)) | UINT64_C(1) << 52;
	*e = be - 1075;
	return true;
}

static int fmt_g(double v, char *buf, bool plus)
{
	uint64_t m, q;
	int e, neg, x;
	if (split(v, &m, &e, &neg) && digits(m, e, 15, &q, &x, NULL)) {
		int n = 0;
		if (neg)
			buf[n++] = '-';
		else if (plus)
			buf[n++] = '+';
		return layout(buf, n, q, x, 15);
	}
	if (v == 0) { /* printf prints "-0" for negative zero */
		int n = 0;
		if (signbit(v))
			buf[n++] = '-';
		else if (plus)
			buf[n++] = '+';
		buf[n++] = '0';
		buf[n] = '\0';
		return n;
	}
	return snprintf(buf, 32, plus ? "%+.15g" : "%.15g", v);
}

int mf_fmt_g15(double v, char *buf)
{
	return fmt_g(v, buf, false);
}

int mf_fmt_g15_signed(double v, char *buf)
{
	return fmt_g(v, buf, true);
}

int mf_fmt_roundtrip(double v, char *buf)
{
	uint64_t m, q;
	int e, neg, P, x, n;
	if (split(v, &m, &e, &neg)) {
		for (P = 15; P <= 17; P++) {
			bool rt = false;
			if (!digits(m, e, P, &q, &x, &rt))
				break;
			if (rt) {
				buf[0] = '-';
				return layout(buf, neg, q, x, P);
			}
		}
	}
	for (P = 15; P <= 17; P++) {
		n = snprintf(buf, 32, "%.*g", P, v);
		if (strtod(buf, NULL) == v)
			break;
	}
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
