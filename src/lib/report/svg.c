/* SPDX-License-Identifier: MIT */
/*
 * Inline SVG charts.  Everything is computed in pixels of the outer <svg>;
 * coordinates are written as hundredths of a pixel with integer arithmetic
 * (no locale, no printf rounding differences), trailing zeros dropped.
 *
 * Layout, top to bottom: title, plot (y tick labels and the rotated unit on
 * its left), x tick labels, legend rows (centered).  Text widths are
 * estimated from the characters, for a generic sans-serif font.
 */
#include "mfstat/base/escape.h"
#include "mfstat/base/timefmt.h"
#include "mfstat/report/svg.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The golden tests compare bytes: no fused multiply-adds (GCC's ISO modes already don't). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define MAXT 16   /* room for tick values; at most 8 are used */
#define PAD 8.0   /* outer margin */
#define FONT 11.0 /* labels and legend */
#define TITLE_FONT 13.0
#define LEGEND_ROW 16.0
#define LEGEND_GAP 14.0 /* between legend items */
#define BAND_OPACITY "0.18"
#define TEXT_COLOR "#222"

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
				      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

/* ---- UTF-8, escaping, text width ---------------------------------------- */

/* One code point of s[0..n), n > 0: its length; *cp = U+FFFD for a byte that is not valid UTF-8. */
static size_t next_cp(const char *s, size_t n, uint32_t *cp)
{
	size_t len = mf_utf8_decode(s, n, cp);
	if (len)
		return len;
	*cp = 0xFFFD;
	return 1;
}

/* Estimated advance of one character, in em, for a generic sans-serif (DejaVu Sans is widest). */
static double char_em(uint32_t cp)
{
	if (cp >= '0' && cp <= '9')
		return 0.64;
	if (cp < 0x80) {
		if (strchr(" .,:;'|!il()[]{}/\\`", (int)cp))
			return 0.34;
		if (strchr("fjrtI", (int)cp))
			return 0.42;
		if (strchr("mwMW@%", (int)cp))
			return 0.95;
		if (cp >= 'A' && cp <= 'Z')
			return 0.72;
		return 0.62;
	}
	if (cp >= 0x2E80)
		return 1.0; /* CJK and the like */
	return 0.7;
}

static double text_width(const char *s, double font)
{
	size_t i = 0, n = strlen(s);
	double w = 0;
	while (i < n) {
		uint32_t cp;
		i += next_cp(s + i, n - i, &cp);
		w += char_em(cp);
	}
	return w * font;
}

/* Appends s escaped, shortened with an ellipsis to fit maxw pixels at the font size. */
static void put_text_fit(struct mf_strbuf *sb, const char *s, double maxw, double font)
{
	size_t i = 0, n = strlen(s);
	double w = 0, ell = 0.9 * font;

	if (text_width(s, font) <= maxw) {
		mf_escape_xml_n(sb, s, n);
		return;
	}
	while (i < n) {
		uint32_t cp;
		size_t len = next_cp(s + i, n - i, &cp);
		if (w + char_em(cp) * font + ell > maxw)
			break;
		w += char_em(cp) * font;
		i += len;
	}
	mf_escape_xml_n(sb, s, i);
	mf_strbuf_puts(sb, "\xE2\x80\xA6");
}

/* ---- numbers ------------------------------------------------------------ */

/* A coordinate in hundredths of a pixel (clamped far outside any sensible drawing). */
static long long to_h(double v)
{
	if (!isfinite(v))
		return 0;
	if (v > 1e9)
		v = 1e9;
	if (v < -1e9)
		v = -1e9;
	return llround(v * 100);
}

static void put_h(struct mf_strbuf *sb, long long h)
{
	char tmp[32];
	int n = (int)sizeof(tmp);
	unsigned long long u, ip;
	unsigned fp;

	u = h < 0 ? (unsigned long long)(-(h + 1)) + 1 : (unsigned long long)h;
	ip = u / 100;
	fp = (unsigned)(u % 100);
	if (fp) {
		if (fp % 10)
			tmp[--n] = (char)('0' + fp % 10);
		tmp[--n] = (char)('0' + fp / 10);
		tmp[--n] = '.';
	}
	do {
		tmp[--n] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	if (h < 0)
		tmp[--n] = '-';
	mf_strbuf_add(sb, tmp + n, sizeof(tmp) - (size_t)n);
}

/* Appends a coordinate rounded to 2 decimals, trailing zeros dropped. */
static void num(struct mf_strbuf *sb, double v)
{
	put_h(sb, to_h(v));
}

/* Appends ` name="v"`. */
static void attr(struct mf_strbuf *sb, const char *name, double v)
{
	mf_strbuf_putc(sb, ' ');
	mf_strbuf_puts(sb, name);
	mf_strbuf_puts(sb, "=\"");
	num(sb, v);
	mf_strbuf_putc(sb, '"');
}

static void attr_s(struct mf_strbuf *sb, const char *name, const char *v)
{
	mf_strbuf_putc(sb, ' ');
	mf_strbuf_puts(sb, name);
	mf_strbuf_puts(sb, "=\"");
	mf_escape_xml(sb, v);
	mf_strbuf_putc(sb, '"');
}

static double p10(int e)
{
	static const double t[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
				   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
	if (e >= 0 && e <= 22)
		return t[e];
	return pow(10, e);
}

/* Nice step mantissas, in tenths: 1, 2, 2.5, 5 (times 10^e). */
static const int mant[4] = {10, 20, 25, 50};

/* k * mant[mi] / 10 * 10^e, correctly rounded for the usual magnitudes. */
static double nice_val(double k, int mi, int e)
{
	double v = k * mant[mi];
	v = e - 1 >= 0 ? v * p10(e - 1) : v / p10(1 - e);
	return v == 0 ? 0.0 : v; /* never -0 */
}

static int floor_log10(double v)
{
	if (!(v > 0) || !isfinite(v))
		return 0;
	return (int)fmax(-400, floor(log10(v)));
}

size_t mf_svg_ticks(double lo, double hi, size_t max, double *ticks)
{
	double span, mag;
	int e, it, mi;

	if (max == 0 || !isfinite(lo) || !isfinite(hi))
		return 0;
	if (lo > hi) {
		double t = lo;
		lo = hi;
		hi = t;
	}
	if (max == 1) {
		ticks[0] = lo == 0 ? 0.0 : lo;
		return 1;
	}
	span = hi - lo;
	mag = fmax(fabs(lo), fabs(hi));
	if (!isfinite(span))
		return 0;
	if (span <= mag * 1e-12) { /* lo == hi, or too close for doubles */
		double v = lo;
		if (v == 0) {
			lo = 0, hi = 1;
		} else if (v > 0) {
			lo = 0, hi = isfinite(2 * v) ? 2 * v : v;
		} else {
			lo = isfinite(2 * v) ? 2 * v : v, hi = 0;
		}
		span = hi - lo;
	}
	/* Start one decade below the estimate, so log10's last bit never matters. */
	e = floor_log10(span / (double)(max - 1)) - 1;
	for (it = 0; it < 40; it++, e++) {
		for (mi = 0; mi < 4; mi++) {
			double s = nice_val(1, mi, e), kl, kh, cnt;
			size_t i;
			if (!(s > 0) || !isfinite(s))
				return 0;
			kl = floor(lo / s + 1e-9);
			kh = ceil(hi / s - 1e-9);
			cnt = kh - kl + 1;
			if (max == 2 && cnt == 3) {
				/* A range around 0 always has 3: keep the ends. */
				ticks[0] = nice_val(kl, mi, e);
				ticks[1] = nice_val(kh, mi, e);
				return 2;
			}
			if (cnt > (double)max)
				continue;
			for (i = 0; i < (size_t)cnt; i++)
				ticks[i] = nice_val(kl + (double)i, mi, e);
			return (size_t)cnt;
		}
	}
	return 0;
}

/* ---- axes --------------------------------------------------------------- */

struct axis {
	size_t n;
	double v[MAXT];
	char lab[MAXT][32];
	double maxw; /* widest label, px */
};

static void label_widths(struct axis *ax)
{
	size_t i;
	ax->maxw = 0;
	for (i = 0; i < ax->n; i++)
		ax->maxw = fmax(ax->maxw, text_width(ax->lab[i], FONT));
}

/* Number labels: %.15g, with k / M / G / T from 10000 on (0 stays "0"). */
static void label_nums(struct axis *ax)
{
	static const char sfx[] = "kMGT";
	double maxabs = 0, div = 1;
	size_t i;
	int k, s = -1;

	for (i = 0; i < ax->n; i++)
		maxabs = fmax(maxabs, fabs(ax->v[i]));
	if (maxabs >= 1e4) {
		for (k = 3; k >= 0; k--) {
			if (maxabs >= p10(3 * (k + 1))) {
				s = k;
				div = p10(3 * (k + 1));
				break;
			}
		}
	}
	for (i = 0; i < ax->n; i++) {
		double v = ax->v[i] / div;
		int len = mf_fmt_g15(v == 0 ? 0.0 : v, ax->lab[i]);
		if (s >= 0 && v != 0) {
			ax->lab[i][len++] = sfx[s];
			ax->lab[i][len] = '\0';
		}
	}
	label_widths(ax);
}

/*
 * Nice ticks inside [lo, hi]: the densest step with at most maxc ticks whose neighbours are
 * at least `room` pixels (plus the label width when `by_width`) apart over len pixels.
 */
static void inner_ticks(struct axis *ax, double lo, double hi, double len, size_t maxc, double room, int by_width)
{
	double span = hi - lo;
	int e = floor_log10(span / 8) - 1, it, mi;

	ax->n = 0;
	ax->maxw = 0;
	if (!(span > 0) || !isfinite(span))
		return;
	for (it = 0; it < 40; it++, e++) {
		for (mi = 0; mi < 4; mi++) {
			double s = nice_val(1, mi, e), kl, kh, cnt;
			size_t i;
			if (!(s > 0) || !isfinite(s)) {
				ax->n = 0;
				return;
			}
			kl = ceil(lo / s - 1e-9);
			kh = floor(hi / s + 1e-9);
			cnt = kh < kl ? 0 : kh - kl + 1;
			if (cnt > (double)maxc)
				continue;
			ax->n = (size_t)cnt;
			for (i = 0; i < ax->n; i++)
				ax->v[i] = nice_val(kl + (double)i, mi, e);
			label_nums(ax);
			if (ax->n >= 2 && s / span * len < room + (by_width ? ax->maxw : 0))
				continue;
			return;
		}
	}
}

struct utc {
	int64_t year;
	unsigned mon, day, hour, min, sec;
};

static void utc_of(double t, struct utc *u)
{
	int64_t s = (int64_t)floor(fmax(-1e15, fmin(1e15, t))), days = s / 86400, r = s % 86400;
	if (r < 0)
		r += 86400, days--;
	mf_civil_from_days(days, &u->year, &u->mon, &u->day);
	u->hour = (unsigned)(r / 3600);
	u->min = (unsigned)(r / 60 % 60);
	u->sec = (unsigned)(r % 60);
}

static void put2(char *p, unsigned v)
{
	p[0] = (char)('0' + v / 10 % 10);
	p[1] = (char)('0' + v % 10);
}

/* "HH:MM:SS" (steps below a minute), "MM-DD HH:MM" (below a day), "MM-DD" or "YYYY-MM-DD" (years differ, or year). */
static void label_times(struct axis *ax, double step, bool year)
{
	struct utc a, b;
	int years = 0;
	size_t i;

	if (ax->n) {
		utc_of(ax->v[0], &a);
		utc_of(ax->v[ax->n - 1], &b);
		years = a.year != b.year || year;
	}
	for (i = 0; i < ax->n; i++) {
		char *p = ax->lab[i];
		struct utc u;
		utc_of(ax->v[i], &u);
		if (step < 60) {
			put2(p, u.hour), p[2] = ':', put2(p + 3, u.min), p[5] = ':', put2(p + 6, u.sec);
			p[8] = '\0';
		} else if (step < 86400) {
			put2(p, u.mon), p[2] = '-', put2(p + 3, u.day), p[5] = ' ';
			put2(p + 6, u.hour), p[8] = ':', put2(p + 9, u.min);
			p[11] = '\0';
		} else if (!years || u.year < 0 || u.year > 9999) {
			put2(p, u.mon), p[2] = '-', put2(p + 3, u.day);
			p[5] = '\0';
		} else {
			put2(p, (unsigned)(u.year / 100)), put2(p + 2, (unsigned)(u.year % 100));
			p[4] = '-', put2(p + 5, u.mon), p[7] = '-', put2(p + 8, u.day);
			p[10] = '\0';
		}
	}
	label_widths(ax);
}

/* Time ticks inside [lo, hi] at multiples of a round UTC step (days start at 00:00 UTC). */
static void time_ticks(struct axis *ax, double lo, double hi, double len, bool year)
{
	static const double steps[] = {1,     2,     5,      10,     15,     30,      60,     120,
				       300,   600,   900,    1800,   3600,   7200,    10800,  21600,
				       43200, 86400, 172800, 345600, 604800, 1209600, 2419200};
	size_t nsteps = sizeof(steps) / sizeof(steps[0]), k;
	double span = hi - lo;
	int e = 1, mi = 0;

	ax->n = 0;
	ax->maxw = 0;
	if (!(span > 0) || !isfinite(span))
		return;
	for (k = 0; k < nsteps + 80; k++) {
		double s, kl, kh, cnt;
		size_t i;
		if (k < nsteps) {
			s = steps[k];
		} else { /* 50, 100, 200, 250, 500 ... days */
			s = nice_val(1, mi, e) * 86400;
			if (++mi == 4)
				mi = 0, e++;
			if (s < 50 * 86400)
				continue;
		}
		kl = ceil(lo / s - 1e-9);
		kh = floor(hi / s + 1e-9);
		cnt = kh < kl ? 0 : kh - kl + 1;
		if (cnt > 8)
			continue;
		ax->n = (size_t)cnt;
		for (i = 0; i < ax->n; i++)
			ax->v[i] = (kl + (double)i) * s;
		label_times(ax, s, year);
		if (ax->n >= 2 && s / span * len < ax->maxw + 12)
			continue;
		return;
	}
}

/* ---- data --------------------------------------------------------------- */

/* The chart's points after downsampling; y is series-major. */
struct pts {
	size_t m;
	double *x, *y;
	int *band;         /* NULL without bands */
	double *pos, *neg; /* stacking bases, bars only */
};

static void pts_free(struct pts *p)
{
	free(p->x);
	free(p->y);
	free(p->band);
	free(p->pos);
	free(p->neg);
}

static int band_of(const struct mf_svg_chart *c, size_t i)
{
	int b = c->band[i];
	return b >= 0 && (size_t)b < c->nbands ? b : -1;
}

static int pts_make(struct pts *p, const struct mf_svg_chart *c, int bands)
{
	size_t n = c->n, m = c->max_points ? c->max_points : 600, b, s, i;
	unsigned *count = NULL;

	memset(p, 0, sizeof(*p));
	if (m > n)
		m = n;
	p->m = m;
	if (c->nseries > SIZE_MAX / sizeof(double) / m)
		return -1;
	p->x = malloc(m * sizeof(double));
	p->y = malloc(m * c->nseries * sizeof(double));
	if (bands) {
		p->band = malloc(m * sizeof(int));
		count = calloc(c->nbands + 1, sizeof(unsigned));
	}
	if (c->stacked) {
		p->pos = malloc(m * sizeof(double));
		p->neg = malloc(m * sizeof(double));
	}
	if (!p->x || !p->y || (bands && (!p->band || !count)) || (c->stacked && (!p->pos || !p->neg))) {
		free(count);
		pts_free(p);
		return -1;
	}
	for (b = 0; b < m; b++) {
		/* Bucket b holds points [b * n / m, (b + 1) * n / m), without overflow. */
		size_t from = b * (n / m) + b * (n % m) / m;
		size_t to = (b + 1) * (n / m) + (b + 1) * (n % m) / m;
		double sx = 0;

		for (i = from; i < to; i++)
			sx += c->x[i];
		p->x[b] = sx / (double)(to - from);
		for (s = 0; s < c->nseries; s++) {
			const double *y = c->series[s].y;
			double sy = 0;
			size_t k = 0;
			for (i = from; i < to; i++) {
				if (isfinite(y[i])) {
					sy += y[i];
					k++;
				}
			}
			p->y[s * m + b] = k ? sy / (double)k : NAN;
		}
		if (bands) {
			/* Majority class; ties go to the lower class, a class to "none" (-1, slot nbands). */
			size_t best = c->nbands;
			for (i = from; i < to; i++) {
				int cl = band_of(c, i);
				count[cl < 0 ? c->nbands : (size_t)cl]++;
			}
			for (i = from; i < to; i++) {
				int cl = band_of(c, i);
				size_t slot = cl < 0 ? c->nbands : (size_t)cl;
				if (count[slot] > count[best] || (count[slot] == count[best] && slot < best))
					best = slot;
			}
			for (i = from; i < to; i++) {
				int cl = band_of(c, i);
				count[cl < 0 ? c->nbands : (size_t)cl] = 0;
			}
			p->band[b] = best == c->nbands ? -1 : (int)best;
		}
	}
	free(count);
	return 0;
}

/* ---- geometry ----------------------------------------------------------- */

struct geo {
	double L, T, PW, PH;   /* plot rectangle */
	double xa, xb, ya, yb; /* its data ranges */
};

static double px(const struct geo *g, double x)
{
	return g->L + (x - g->xa) / (g->xb - g->xa) * g->PW;
}

static double py(const struct geo *g, double y)
{
	return g->T + g->PH - (y - g->ya) / (g->yb - g->ya) * g->PH;
}

/* ---- legend ------------------------------------------------------------- */

struct item {
	const char *name, *color;
	int kind;    /* 0 line, 1 bar, 2 band */
	double w;    /* whole item */
	double tmax; /* room for the text */
	double x;    /* left, within its row */
	size_t row;
};

#define SWATCH(kind) ((kind) == 0 ? 16.0 : 10.0)

/* Places the items in rows of at most W - 2 PAD; returns the number of rows. */
static size_t legend_layout(struct item *it, size_t k, double W, double *roww)
{
	double avail = W - 2 * PAD, x = 0;
	size_t i, row = 0;

	for (i = 0; i < k; i++) {
		double sw = SWATCH(it[i].kind) + 4;
		it[i].tmax = fmax(avail - sw, 3 * FONT);
		it[i].w = sw + fmin(text_width(it[i].name, FONT), it[i].tmax);
		if (x > 0 && x + LEGEND_GAP + it[i].w > avail) {
			roww[row++] = x;
			x = 0;
		}
		if (x > 0)
			x += LEGEND_GAP;
		it[i].x = x;
		it[i].row = row;
		x += it[i].w;
	}
	roww[row] = x;
	return k ? row + 1 : 0;
}

static void legend_draw(struct mf_strbuf *sb, const struct item *it, size_t k, const double *roww, double W, double top)
{
	size_t i;

	mf_strbuf_puts(sb, "<g fill=\"" TEXT_COLOR "\">\n");
	for (i = 0; i < k; i++) {
		double x = (W - roww[it[i].row]) / 2 + it[i].x;
		double yc = top + LEGEND_ROW * (double)it[i].row + LEGEND_ROW / 2;
		if (it[i].kind == 0) {
			mf_strbuf_puts(sb, "<path d=\"M");
			num(sb, x);
			mf_strbuf_putc(sb, ' ');
			num(sb, yc);
			mf_strbuf_puts(sb, "h16\" stroke-width=\"2.5\"");
			attr_s(sb, "stroke", it[i].color);
		} else {
			mf_strbuf_puts(sb, "<rect");
			attr(sb, "x", x + 0.5);
			attr(sb, "y", yc - 4.5);
			mf_strbuf_puts(sb, " width=\"9\" height=\"9\"");
			attr_s(sb, "fill", it[i].color);
			if (it[i].kind == 2) {
				mf_strbuf_puts(sb, " fill-opacity=\"" BAND_OPACITY "\"");
				attr_s(sb, "stroke", it[i].color);
			}
		}
		mf_strbuf_puts(sb, "/>\n<text");
		attr(sb, "x", x + SWATCH(it[i].kind) + 4);
		attr(sb, "y", yc + 4);
		mf_strbuf_putc(sb, '>');
		put_text_fit(sb, it[i].name, it[i].tmax, FONT);
		mf_strbuf_puts(sb, "</text>\n");
	}
	mf_strbuf_puts(sb, "</g>\n");
}

/* ---- the chart ---------------------------------------------------------- */

static void svg_open(struct mf_strbuf *sb, double W, double H, const char *title, const char *suffix)
{
	mf_strbuf_puts(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
	attr(sb, "width", W);
	attr(sb, "height", H);
	mf_strbuf_puts(sb, " viewBox=\"0 0 ");
	num(sb, W);
	mf_strbuf_putc(sb, ' ');
	num(sb, H);
	mf_strbuf_puts(sb, "\" role=\"img\" aria-label=\"");
	if (title && *title) {
		mf_escape_xml(sb, title);
		if (suffix) {
			mf_strbuf_puts(sb, ": ");
			mf_strbuf_puts(sb, suffix);
		}
	} else {
		mf_strbuf_puts(sb, suffix ? suffix : "chart");
	}
	mf_strbuf_puts(sb, "\" font-family=\"sans-serif\" font-size=\"11\">\n<rect");
	attr(sb, "width", W);
	attr(sb, "height", H);
	mf_strbuf_puts(sb, " fill=\"#fff\"/>\n");
}

static void title_draw(struct mf_strbuf *sb, const char *title, double W)
{
	mf_strbuf_puts(sb, "<text x=\"8\" y=\"20\" font-size=\"13\" font-weight=\"bold\" fill=\"" TEXT_COLOR "\">");
	put_text_fit(sb, title, (W - 2 * PAD) / 1.1, TITLE_FONT); /* bold is wider */
	mf_strbuf_puts(sb, "</text>\n");
}

static void nodata(struct mf_strbuf *sb, const struct mf_svg_chart *c)
{
	const char *title = c && c->title && *c->title ? c->title : NULL;
	double W = c && isfinite(c->width) && c->width >= 60 && c->width <= 1e6 ? c->width : 320;
	double H = title ? 56 : 36;

	svg_open(sb, W, H, title, "no data");
	if (title)
		title_draw(sb, title, W);
	mf_strbuf_puts(sb, "<text");
	attr(sb, "x", W / 2);
	attr(sb, "y", H - 14);
	mf_strbuf_puts(sb, " text-anchor=\"middle\" fill=\"#555\">no data</text>\n</svg>\n");
}

static int usable(const struct mf_svg_chart *c)
{
	size_t s;
	if (!c || c->n == 0 || !c->x || c->nseries == 0 || !c->series)
		return 0;
	if (!isfinite(c->width) || !isfinite(c->height) || c->width <= 0 || c->height <= 0 || c->width > 1e6 ||
	    c->height > 1e6)
		return 0;
	if (!isfinite(c->x[0]) || !isfinite(c->x[c->n - 1]))
		return 0;
	for (s = 0; s < c->nseries; s++)
		if (!c->series[s].y)
			return 0;
	return 1;
}

static const char *series_color(const struct mf_svg_chart *c, size_t s)
{
	return c->series[s].color ? c->series[s].color : palette[s % 10];
}

/* The y range of the data (lines) or of the stacks (bars, always including 0); 0 when empty. */
static int data_range(const struct mf_svg_chart *c, struct pts *p, double *lo, double *hi)
{
	size_t m = p->m, i, s;
	int have = 0;

	*lo = INFINITY, *hi = -INFINITY;
	for (i = 0; i < m; i++) {
		double pos = 0, neg = 0;
		for (s = 0; s < c->nseries; s++) {
			double v = p->y[s * m + i];
			if (!isfinite(v))
				continue;
			have = 1;
			if (c->stacked) {
				if (v >= 0)
					pos += v;
				else
					neg += v;
			} else {
				*lo = fmin(*lo, v);
				*hi = fmax(*hi, v);
			}
		}
		if (c->stacked) {
			*lo = fmin(*lo, neg);
			*hi = fmax(*hi, pos);
		}
	}
	if (!have || !isfinite(*lo) || !isfinite(*hi))
		*lo = 0, *hi = 1;
	return have;
}

static void y_axis(struct axis *ax, const struct mf_svg_chart *c, double lo, double hi, double PH, double *ya,
		   double *yb)
{
	int glo = isfinite(c->y_min), ghi = isfinite(c->y_max);
	size_t maxc = (size_t)fmax(2, fmin(8, floor(PH / 16) + 1)), i, k;

	if (glo && ghi && !(c->y_min < c->y_max))
		glo = ghi = 0;
	if (glo && ghi) {
		*ya = c->y_min, *yb = c->y_max;
		inner_ticks(ax, *ya, *yb, PH, maxc, 14, 0);
		if (ax->n)
			return;
	}
	if (glo) {
		lo = c->y_min;
		hi = fmax(hi, lo);
	}
	if (ghi) {
		hi = c->y_max;
		lo = fmin(lo, hi);
	}
	ax->n = mf_svg_ticks(lo, hi, maxc, ax->v);
	if (ax->n < 2) { /* only for absurd magnitudes */
		ax->n = 2;
		ax->v[0] = 0, ax->v[1] = 1;
	}
	*ya = glo ? c->y_min : ax->v[0];
	*yb = ghi ? c->y_max : ax->v[ax->n - 1];
	if (!(*ya < *yb))
		*ya = ax->v[0], *yb = ax->v[ax->n - 1];
	for (i = k = 0; i < ax->n; i++) {
		double tol = (*yb - *ya) * 1e-9;
		if (ax->v[i] >= *ya - tol && ax->v[i] <= *yb + tol)
			ax->v[k++] = ax->v[i];
	}
	ax->n = k;
	label_nums(ax);
}

static void grid_draw(struct mf_strbuf *sb, const struct geo *g, const struct axis *xa, const struct axis *ya)
{
	size_t i;

	mf_strbuf_puts(sb, "<path d=\"");
	for (i = 0; i < ya->n; i++) {
		mf_strbuf_putc(sb, 'M');
		num(sb, g->L);
		mf_strbuf_putc(sb, ' ');
		num(sb, py(g, ya->v[i]));
		mf_strbuf_putc(sb, 'h');
		num(sb, g->PW);
	}
	for (i = 0; i < xa->n; i++) {
		mf_strbuf_putc(sb, 'M');
		num(sb, px(g, xa->v[i]));
		mf_strbuf_putc(sb, ' ');
		num(sb, g->T);
		mf_strbuf_putc(sb, 'v');
		num(sb, g->PH);
	}
	mf_strbuf_puts(sb, "\" stroke=\"#ddd\" shape-rendering=\"crispEdges\"/>\n");
}

static void bands_draw(struct mf_strbuf *sb, const struct mf_svg_chart *c, const struct pts *p, const struct geo *g)
{
	size_t m = p->m, i = 0;

	mf_strbuf_puts(sb, "<g fill-opacity=\"" BAND_OPACITY "\" shape-rendering=\"crispEdges\">\n");
	while (i < m) {
		size_t j = i;
		double l, r;
		long long hl, hr;
		int cl = p->band[i];
		while (j + 1 < m && p->band[j + 1] == cl)
			j++;
		if (cl >= 0) {
			l = i == 0 ? g->xa : (p->x[i - 1] + p->x[i]) / 2;
			r = j + 1 == m ? g->xb : (p->x[j] + p->x[j + 1]) / 2;
			hl = to_h(px(g, l));
			hr = to_h(px(g, r));
			mf_strbuf_puts(sb, "<rect x=\"");
			put_h(sb, hl);
			mf_strbuf_putc(sb, '"');
			attr(sb, "y", g->T);
			mf_strbuf_puts(sb, " width=\"");
			put_h(sb, hr - hl);
			mf_strbuf_putc(sb, '"');
			attr(sb, "height", g->PH);
			attr_s(sb, "fill", c->band_colors[cl] ? c->band_colors[cl] : "#999");
			mf_strbuf_puts(sb, "/>\n");
		}
		i = j + 1;
	}
	mf_strbuf_puts(sb, "</g>\n");
}

static void lines_draw(struct mf_strbuf *sb, const struct mf_svg_chart *c, const struct pts *p, const struct geo *g)
{
	size_t m = p->m, s, i;
	int clip = 0;

	for (i = 0; i < m * c->nseries; i++)
		if (isfinite(p->y[i]) && (p->y[i] < g->ya || p->y[i] > g->yb))
			clip = 1;
	if (clip) { /* a nested <svg> clips to its viewport: no ids needed */
		mf_strbuf_puts(sb, "<svg");
		attr(sb, "x", g->L - 2);
		attr(sb, "y", g->T - 2);
		attr(sb, "width", g->PW + 4);
		attr(sb, "height", g->PH + 4);
		mf_strbuf_puts(sb, " viewBox=\"");
		num(sb, g->L - 2);
		mf_strbuf_putc(sb, ' ');
		num(sb, g->T - 2);
		mf_strbuf_putc(sb, ' ');
		num(sb, g->PW + 4);
		mf_strbuf_putc(sb, ' ');
		num(sb, g->PH + 4);
		mf_strbuf_puts(sb, "\" overflow=\"hidden\">\n");
	}
	for (s = 0; s < c->nseries; s++) {
		const double *y = p->y + s * m;
		const char *color = series_color(c, s);
		mf_strbuf_puts(sb, "<g fill=\"none\"");
		attr_s(sb, "stroke", color);
		mf_strbuf_puts(sb, " stroke-width=\"1.5\" stroke-linejoin=\"round\">\n");
		i = 0;
		while (i < m) {
			size_t j;
			if (!isfinite(y[i]) || !isfinite(p->x[i])) {
				i++;
				continue;
			}
			for (j = i; j < m && isfinite(y[j]) && isfinite(p->x[j]); j++)
				;
			if (j - i == 1) { /* a lone point */
				mf_strbuf_puts(sb, "<circle");
				attr(sb, "cx", px(g, p->x[i]));
				attr(sb, "cy", py(g, y[i]));
				mf_strbuf_puts(sb, " r=\"2.5\"");
				attr_s(sb, "fill", color);
				mf_strbuf_puts(sb, " stroke=\"none\"/>\n");
			} else {
				size_t k;
				mf_strbuf_puts(sb, "<polyline points=\"");
				for (k = i; k < j; k++) {
					if (k > i)
						mf_strbuf_putc(sb, ' ');
					num(sb, px(g, p->x[k]));
					mf_strbuf_putc(sb, ',');
					num(sb, py(g, y[k]));
				}
				mf_strbuf_puts(sb, "\"/>\n");
			}
			i = j;
		}
		mf_strbuf_puts(sb, "</g>\n");
	}
	if (clip)
		mf_strbuf_puts(sb, "</svg>\n");
}

static void bars_draw(struct mf_strbuf *sb, const struct mf_svg_chart *c, struct pts *p, const struct geo *g, double d)
{
	size_t m = p->m, s, i;
	double slot = d / (g->xb - g->xa) * g->PW, bw = slot >= 3 ? slot * 0.8 : slot;
	long long top = to_h(g->T), bottom = to_h(g->T + g->PH);

	for (i = 0; i < m; i++)
		p->pos[i] = p->neg[i] = 0;
	for (s = 0; s < c->nseries; s++) {
		const double *y = p->y + s * m;
		mf_strbuf_puts(sb, "<g");
		attr_s(sb, "fill", series_color(c, s));
		mf_strbuf_puts(sb, " shape-rendering=\"crispEdges\">\n");
		for (i = 0; i < m; i++) {
			double v = y[i], from, to;
			long long h0, h1, xl, xr;
			if (!isfinite(v) || v == 0 || !isfinite(p->x[i]))
				continue;
			if (v > 0) {
				from = p->pos[i];
				to = p->pos[i] += v;
			} else {
				from = p->neg[i];
				to = p->neg[i] += v;
			}
			/* Rounded ends, clamped to the plot, so neighbouring segments meet exactly. */
			h0 = to_h(py(g, from));
			h1 = to_h(py(g, to));
			if (h0 > h1) {
				long long t = h0;
				h0 = h1;
				h1 = t;
			}
			h0 = h0 < top ? top : h0 > bottom ? bottom : h0;
			h1 = h1 < top ? top : h1 > bottom ? bottom : h1;
			if (h1 <= h0)
				continue;
			xl = to_h(px(g, p->x[i]) - bw / 2);
			xr = to_h(px(g, p->x[i]) + bw / 2);
			mf_strbuf_puts(sb, "<rect x=\"");
			put_h(sb, xl);
			mf_strbuf_puts(sb, "\" y=\"");
			put_h(sb, h0);
			mf_strbuf_puts(sb, "\" width=\"");
			put_h(sb, xr - xl);
			mf_strbuf_puts(sb, "\" height=\"");
			put_h(sb, h1 - h0);
			mf_strbuf_puts(sb, "\"/>\n");
		}
		mf_strbuf_puts(sb, "</g>\n");
	}
}

static void ticks_draw(struct mf_strbuf *sb, const struct geo *g, const struct axis *xa, const struct axis *ya,
		       double W)
{
	size_t i;

	mf_strbuf_puts(sb, "<g fill=\"" TEXT_COLOR "\" text-anchor=\"end\">\n");
	for (i = 0; i < ya->n; i++) {
		mf_strbuf_puts(sb, "<text");
		attr(sb, "x", g->L - 6);
		attr(sb, "y", py(g, ya->v[i]) + 4);
		mf_strbuf_putc(sb, '>');
		mf_escape_xml(sb, ya->lab[i]);
		mf_strbuf_puts(sb, "</text>\n");
	}
	mf_strbuf_puts(sb, "</g>\n<g fill=\"" TEXT_COLOR "\" text-anchor=\"middle\">\n");
	for (i = 0; i < xa->n; i++) {
		double half = text_width(xa->lab[i], FONT) / 2, x = px(g, xa->v[i]);
		/* Keep a label at the plot's right end inside the picture. */
		if (x + half > W - 2)
			x = W - 2 - half;
		if (x - half < 2)
			x = 2 + half;
		mf_strbuf_puts(sb, "<text");
		attr(sb, "x", x);
		attr(sb, "y", g->T + g->PH + 15);
		mf_strbuf_putc(sb, '>');
		mf_escape_xml(sb, xa->lab[i]);
		mf_strbuf_puts(sb, "</text>\n");
	}
	mf_strbuf_puts(sb, "</g>\n");
}

/* The x ticks: one at a lone x, times (shifted by x_offset for their labels) or numbers. */
static void x_axis(struct axis *xa, const struct mf_svg_chart *c, const struct pts *p, const struct geo *g)
{
	double off = c->x_is_time && isfinite(c->x_offset) ? c->x_offset : 0;
	size_t i;
	if (!(p->x[p->m - 1] > p->x[0])) { /* one x: one tick, there */
		xa->n = 1;
		xa->v[0] = p->x[0] + off;
		if (c->x_is_time)
			label_times(xa, 3600, c->x_zone != NULL);
		else
			label_nums(xa);
	} else if (c->x_is_time) {
		time_ticks(xa, g->xa + off, g->xb + off, g->PW, c->x_zone != NULL);
	} else {
		inner_ticks(xa, g->xa, g->xb, g->PW, 8, 12, 1);
	}
	for (i = 0; i < xa->n; i++) {
		double o = off;
		if (c->x_is_time && c->x_tz) /* the offset at the tick's own instant */
			o = mf_tz_offset(c->x_tz, (int64_t)llround((xa->v[i] - off) * 1e6));
		else if (c->x_is_time && c->x_offset_at)
			o = c->x_offset_at(c->x_offset_ctx, (int64_t)llround((xa->v[i] - off) * 1e6));
		xa->v[i] -= o;
	}
}

/* Under the time ticks: "2025, times in UTC" ("2025-2026, ..." across a new year). */
static void x_caption(struct mf_strbuf *sb, const struct mf_svg_chart *c, const struct geo *g, double W)
{
	struct utc a, b;
	char years[32];
	double off = isfinite(c->x_offset) ? c->x_offset : 0;
	utc_of(g->xa + off, &a);
	utc_of(g->xb + off, &b);
	if (a.year == b.year)
		snprintf(years, sizeof(years), "%lld", (long long)a.year);
	else
		snprintf(years, sizeof(years), "%lld-%lld", (long long)a.year, (long long)b.year);
	mf_strbuf_puts(sb, "<text");
	attr(sb, "x", g->L + g->PW / 2);
	attr(sb, "y", g->T + g->PH + 29);
	mf_strbuf_puts(sb, " text-anchor=\"middle\" fill=\"#555\">");
	mf_strbuf_puts(sb, years);
	mf_strbuf_puts(sb, ", times in ");
	put_text_fit(sb, c->x_zone, W / 2, FONT);
	mf_strbuf_puts(sb, "</text>\n");
}

/* The dashed reference line and its label, when inside the plot. */
static void ref_draw(struct mf_strbuf *sb, const struct mf_svg_chart *c, const struct geo *g)
{
	double y;
	if (!c->ref_label || !isfinite(c->ref_y) || c->ref_y < g->ya || c->ref_y > g->yb)
		return;
	y = py(g, c->ref_y);
	mf_strbuf_puts(sb, "<path d=\"M");
	num(sb, g->L);
	mf_strbuf_putc(sb, ' ');
	num(sb, y);
	mf_strbuf_putc(sb, 'h');
	num(sb, g->PW);
	mf_strbuf_puts(sb, "\" stroke=\"#555\" stroke-dasharray=\"5 3\" shape-rendering=\"crispEdges\"/>\n<text");
	attr(sb, "x", g->L + g->PW - 4);
	attr(sb, "y", y - 4);
	mf_strbuf_puts(sb, " text-anchor=\"end\" fill=\"#555\">");
	put_text_fit(sb, c->ref_label, g->PW / 2, FONT);
	mf_strbuf_puts(sb, "</text>\n");
}

static int chart(struct mf_strbuf *sb, const struct mf_svg_chart *c)
{
	int bands = c->band && c->nbands > 0 && c->band_names && c->band_colors;
	const char *title = c->title && *c->title ? c->title : NULL;
	const char *ylab = c->y_label && *c->y_label ? c->y_label : NULL;
	double W = c->width, H = c->height, lo, hi, d = 0, roww[64], *rw = roww;
	struct pts p;
	struct geo g;
	struct axis xa, ya;
	struct item *items;
	size_t nitems = c->nseries + (bands ? c->nbands : 0), rows, i;
	int have, cap = c->x_is_time && c->x_zone;

	if (pts_make(&p, c, bands)) {
		sb->failed = 1;
		return -1;
	}
	items = calloc(nitems, sizeof(*items));
	if (nitems + 1 > sizeof(roww) / sizeof(roww[0]))
		rw = malloc((nitems + 1) * sizeof(double));
	if (!items || !rw) {
		free(items);
		pts_free(&p);
		sb->failed = 1;
		return -1;
	}
	for (i = 0; i < c->nseries; i++) {
		items[i].name = c->series[i].name ? c->series[i].name : "";
		items[i].color = series_color(c, i);
		items[i].kind = c->stacked ? 1 : 0;
	}
	for (i = 0; bands && i < c->nbands; i++) {
		items[c->nseries + i].name = c->band_names[i] ? c->band_names[i] : "";
		items[c->nseries + i].color = c->band_colors[i] ? c->band_colors[i] : "#999";
		items[c->nseries + i].kind = 2;
	}
	rows = legend_layout(items, nitems, W, rw);

	/* Vertical layout, then the y axis, whose labels decide the left margin. */
	g.T = title ? 34 : 14;
	g.PH = fmax(H - g.T - 26 - (cap ? 14 : 0) - LEGEND_ROW * (double)rows, 20);
	have = data_range(c, &p, &lo, &hi);
	if (c->ref_label && isfinite(c->ref_y)) {
		lo = fmin(lo, c->ref_y);
		hi = fmax(hi, c->ref_y);
	}
	y_axis(&ya, c, lo, hi, g.PH, &g.ya, &g.yb);
	g.L = PAD + (ylab ? 18 : 0) + fmax(ya.maxw, 12) + 6;
	g.PW = fmax(W - g.L - 12, 20);

	/* x range: the data, or for bars the data and half a bar slot on each side. */
	for (i = 1; i < p.m; i++) {
		double dx = p.x[i] - p.x[i - 1];
		if (dx > 0 && (d == 0 || dx < d))
			d = dx;
	}
	if (d == 0 || !isfinite(d))
		d = c->x_is_time ? 3600 : 1;
	g.xa = p.x[0], g.xb = p.x[p.m - 1];
	if (c->stacked) {
		g.xa -= d / 2, g.xb += d / 2;
	} else if (!(g.xb > g.xa)) {
		g.xa -= d / 2, g.xb += d / 2;
	}
	x_axis(&xa, c, &p, &g);

	svg_open(sb, W, H, title, NULL);
	if (title)
		title_draw(sb, title, W);
	if (bands)
		bands_draw(sb, c, &p, &g);
	grid_draw(sb, &g, &xa, &ya);
	if (c->stacked)
		bars_draw(sb, c, &p, &g, d);
	else
		lines_draw(sb, c, &p, &g);
	ref_draw(sb, c, &g);
	/* Axes: left and bottom. */
	mf_strbuf_puts(sb, "<path d=\"M");
	num(sb, g.L);
	mf_strbuf_putc(sb, ' ');
	num(sb, g.T);
	mf_strbuf_puts(sb, "V");
	num(sb, g.T + g.PH);
	mf_strbuf_puts(sb, "H");
	num(sb, g.L + g.PW);
	mf_strbuf_puts(sb, "\" fill=\"none\" stroke=\"#444\" shape-rendering=\"crispEdges\"/>\n");
	ticks_draw(sb, &g, &xa, &ya, W);
	if (ylab) {
		double cy = g.T + g.PH / 2;
		mf_strbuf_puts(sb, "<text transform=\"rotate(-90)\"");
		attr(sb, "x", -cy);
		attr(sb, "y", PAD + 10);
		mf_strbuf_puts(sb, " text-anchor=\"middle\" fill=\"" TEXT_COLOR "\">");
		put_text_fit(sb, ylab, g.PH, FONT);
		mf_strbuf_puts(sb, "</text>\n");
	}
	if (!have) {
		mf_strbuf_puts(sb, "<text");
		attr(sb, "x", g.L + g.PW / 2);
		attr(sb, "y", g.T + g.PH / 2 + 4);
		mf_strbuf_puts(sb, " text-anchor=\"middle\" fill=\"#555\">no data</text>\n");
	}
	if (cap)
		x_caption(sb, c, &g, W);
	legend_draw(sb, items, nitems, rw, W, g.T + g.PH + 22 + (cap ? 14 : 0));
	mf_strbuf_puts(sb, "</svg>\n");

	if (rw != roww)
		free(rw);
	free(items);
	pts_free(&p);
	return 0;
}

int mf_svg_chart(struct mf_strbuf *sb, const struct mf_svg_chart *c)
{
	if (!usable(c)) {
		nodata(sb, c);
		return -1;
	}
	return chart(sb, c);
}
