/* SPDX-License-Identifier: MIT */
/* Code shared by bench/gencsv.c and tools/gensmf.c: PRNG, number/time formatting, options, z16 counter model. */
#ifndef GEN_COMMON_H
#define GEN_COMMON_H

/*
 * Header-only, for the two standalone generators: everything is static.  The including file
 * defines PROG (the program name in messages) before the #include and a
 * `static void usage(FILE *f)` somewhere in the file (bad() prints it).
 *
 * The order in which the model functions draw random numbers is part of the generators'
 * output: changing it changes every value they write.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PROG
#error "define PROG (the program name for messages) before including gen_common.h"
#endif

/* ---------------------------------------------------------------- PRNG (xoshiro256**) */

typedef struct {
	uint64_t s[4];
} rng_t;

static rng_t R; /* the stream of the counter values (and gensmf's jitter) */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static void rng_seed(rng_t *g, uint64_t seed)
{
	for (int k = 0; k < 4; k++)
		g->s[k] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rnd_r(rng_t *g)
{
	uint64_t *rs = g->s;
	uint64_t r = rotl(rs[1] * 5, 7) * 9, t = rs[1] << 17;
	rs[2] ^= rs[0];
	rs[3] ^= rs[1];
	rs[1] ^= rs[2];
	rs[0] ^= rs[3];
	rs[2] ^= t;
	rs[3] = rotl(rs[3], 45);
	return r;
}

static inline uint64_t rnd(void)
{
	return rnd_r(&R);
}

/* uniform in [lo, hi) */
static inline double U(double lo, double hi)
{
	return lo + (hi - lo) * ((double)(rnd() >> 11) * 0x1.0p-53);
}

static inline double clampd(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

static inline uint64_t u64(double x)
{
	return x <= 0 ? 0 : (uint64_t)x;
}

/* ---------------------------------------------------------------- decimal output */

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline unsigned ndigits(uint64_t v)
{
	unsigned n = 1;
	for (;;) {
		if (v < 10)
			return n;
		if (v < 100)
			return n + 1;
		if (v < 1000)
			return n + 2;
		if (v < 10000)
			return n + 3;
		v /= 10000;
		n += 4;
	}
}

/* writes v in decimal at p, returns the new end */
static inline char *putu(char *p, uint64_t v)
{
	unsigned n = ndigits(v);
	char *e = p + n;
	char *q = e;
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;
		v /= 100;
		*--q = digits2[d + 1];
		*--q = digits2[d];
	}
	if (v >= 10) {
		*--q = digits2[v * 2 + 1];
		*--q = digits2[v * 2];
	} else {
		*--q = (char)('0' + v);
	}
	return e;
}

/* a counter's short name (B0, P32, C64, E128, M448), the CSV column name; returns the new end */
static inline char *put_ctr_name(char *p, unsigned n)
{
	*p++ = n < 32 ? 'B' : n < 64 ? 'P' : n < 128 ? 'C' : n < 448 ? 'E' : 'M';
	return putu(p, n);
}

/* ---------------------------------------------------------------- time */

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? (unsigned)-3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static int num(const char *s, size_t n, unsigned *out)
{
	unsigned v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* YYYY-MM-DDTHH:MM:SSZ, with ymin <= YYYY <= ymax -> seconds since the Unix epoch */
static int parse_iso(const char *s, unsigned ymin, unsigned ymax, int64_t *t)
{
	unsigned y, mo, d, h, mi, se;
	if (strlen(s) != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
	    s[19] != 'Z')
		return -1;
	if (num(s, 4, &y) || num(s + 5, 2, &mo) || num(s + 8, 2, &d) || num(s + 11, 2, &h) || num(s + 14, 2, &mi) ||
	    num(s + 17, 2, &se))
		return -1;
	if (y < ymin || y > ymax || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59)
		return -1;
	*t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
	return 0;
}

static void put2(char *p, unsigned v)
{
	p[0] = (char)('0' + v / 10 % 10);
	p[1] = (char)('0' + v % 10);
}

/* seconds since the Unix epoch -> YYYY-MM-DDTHH:MM:SSZ (20 characters and a NUL) */
static void fmt_iso(int64_t t, char out[21])
{
	int64_t days = t / 86400, y;
	unsigned m, d, sec = (unsigned)(t % 86400);
	civil_from_days(days, &y, &m, &d);
	put2(out, (unsigned)(y / 100 % 100));
	put2(out + 2, (unsigned)(y % 100));
	out[4] = '-';
	put2(out + 5, m);
	out[7] = '-';
	put2(out + 8, d);
	out[10] = 'T';
	put2(out + 11, sec / 3600);
	out[13] = ':';
	put2(out + 14, sec / 60 % 60);
	out[16] = ':';
	put2(out + 17, sec % 60);
	out[19] = 'Z';
	out[20] = 0;
}

/* ---------------------------------------------------------------- options */

static void usage(FILE *f); /* defined by the including program */

_Noreturn static void bad(const char *msg, const char *arg)
{
	fprintf(stderr, PROG ": %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	usage(stderr);
	exit(2);
}

static uint64_t parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		bad("bad number for", opt);
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		bad("bad or out-of-range number for", opt);
	return v;
}

#define OPT_NAME_MAX 32

/* Splits the argument a, "--name" or "--name=value", copying "--name" to name; returns the
 * value after the '=' or NULL. */
static const char *opt_split(const char *a, char name[OPT_NAME_MAX])
{
	if (strncmp(a, "--", 2) != 0)
		bad("unexpected argument", a);
	const char *eq = strchr(a, '=');
	size_t nl = eq ? (size_t)(eq - a) : strlen(a);
	if (nl >= OPT_NAME_MAX)
		bad("unknown option", a);
	memcpy(name, a, nl);
	name[nl] = 0;
	return eq ? eq + 1 : NULL;
}

/* The value of option name: eqval (from opt_split) if there was one, else the next argument. */
static const char *opt_value(const char *eqval, int argc, char **argv, int *i, const char *name)
{
	if (eqval)
		return eqval;
	if (*i + 1 >= argc)
		bad("missing value for", name);
	return argv[++*i];
}

/* ---------------------------------------------------------------- z16 counter value model */

/* The z16 counters in the order of data/counters/z16.tsv (98 counters). */
/* clang-format off */
static const unsigned short ctr_z16[] = {
	0,   1,   2,   3,   4,   5,   32,  33,  64,  65,  66,  67,  68,  69,  70,  71,  72,  73,  74,  75,
	76,  77,  78,  79,  80,  81,  82,  83,  128, 129, 130, 131, 132, 134, 135, 137, 138, 139, 140, 141,
	143, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163,
	164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180, 181, 182, 183,
	224, 225, 226, 232, 244, 245, 246, 248, 253, 256, 265, 266, 267, 268, 269, 270, 448, 449,
};
/* clang-format on */

/* Sourcing categories of the L1 misses. */
enum { CAT_L2, CAT_L3, CAT_L4L, CAT_L4R, CAT_MEM, NCAT };

/* The counters of one category with their base weights: data side (including the IDCW counters
 * that count both sides) and instruction side (ni 0: all on the data side). */
struct split {
	unsigned char nd, ni;
	unsigned short d[10], i[10];
	double wd[10], wi[10];
};

/* The z16 split (see cpumf-formulas.md). */
/* clang-format off */
#define SP_Z16_L2 {2, 2, {145, 146}, {169, 170}, {0.93, 0.07}, {0.97, 0.03}}
#define SP_Z16_L3                                                                                      \
	{4, 4, {147, 149, 150, 151}, {171, 173, 174, 175}, {0.15, 0.60, 0.15, 0.10}, {0.20, 0.60, 0.10, 0.10}}
#define SP_Z16_L4L                                                                                     \
	{10,                                                                                           \
	 4,                                                                                            \
	 {148, 152, 153, 154, 160, 161, 162, 163, 164, 165},                                           \
	 {172, 176, 177, 178},                                                                         \
	 {0.10, 0.05, 0.30, 0.25, 0.06, 0.06, 0.04, 0.05, 0.05, 0.04},                                 \
	 {0.15, 0.10, 0.40, 0.35}}
#define SP_Z16_L4R {4, 1, {155, 166, 167, 168}, {179}, {0.60, 0.15, 0.15, 0.10}, {1.0}}
#define SP_Z16_MEM                                                                                     \
	{4, 4, {156, 157, 158, 159}, {180, 181, 182, 183}, {0.45, 0.25, 0.20, 0.10}, {0.45, 0.25, 0.20, 0.10}}
/* clang-format on */

/* The lasting character of one cpu. */
struct cpu {
	double busy;   /* base busy fraction */
	double cmplx;  /* base instruction-complexity CPI */
	double prb;    /* problem-state share */
	double crypto; /* crypto intensity 0..1 */
	double dec;    /* decimal intensity */
	int aiu;       /* uses the AI accelerator */
	int ziip;
};

/* ziip: the cpu is a zIIP; aiu: it uses the AI accelerator whatever the dice say */
static void cpu_init(struct cpu *x, int ziip, int aiu)
{
	x->ziip = ziip;
	x->busy = x->ziip ? U(0.25, 0.55) : U(0.40, 0.80);
	x->cmplx = U(1.1, 1.8);
	x->prb = x->ziip ? U(0.55, 0.75) : U(0.35, 0.70);
	x->crypto = U(0.0, 1.0) < 0.3 ? U(0.0, 0.1) : U(0.2, 1.0);
	x->dec = U(0.0, 1.0) < 0.5 ? U(0.0, 1e-4) : U(2e-4, 2e-3);
	x->aiu = !x->ziip && (aiu || U(0.0, 1.0) < 0.1);
}

/* The workload of one LPAR (system) in one interval. */
struct prof {
	double load;  /* busy offset this interval */
	double l1mp;  /* L1MP centre */
	double t;     /* nest intensity 0..1 (drives RNI) */
	double cmplx; /* CPI offset */
};

/* LSPR classes an LPAR cycles through, one per interval (offset per LPAR). */
enum { LOW, AVG, HIGH };
static const int class_cycle[4] = {AVG, LOW, AVG, HIGH};

static void make_profile(struct prof *p, int cls)
{
	/* RNI = 0.515 + 1.941 t with the endpoints below; each share later gets +-8% jitter per cpu.
	 * LOW: L1MP < 3 and RNI < 0.75; AVERAGE: L1MP 3-6 and RNI 0.6-1.0; HIGH: L1MP 3-6, RNI > 1. */
	switch (cls) {
	case LOW:
		p->l1mp = U(1.6, 2.6);
		p->t = U(0.0, 0.06);
		break;
	case AVG:
		p->l1mp = U(3.4, 5.4);
		p->t = U(0.08, 0.20);
		break;
	default:
		p->l1mp = U(3.6, 5.5);
		p->t = U(0.32, 0.52);
		break;
	}
	p->load = U(-0.15, 0.15);
	p->cmplx = U(-0.15, 0.15);
}

/* adds n to v, spread over the k counters of list with the base weights w, jittered */
static void distribute(uint64_t *v, uint64_t n, const unsigned short *list, const double *w, unsigned k)
{
	double ww[10], sum = 0;
	if (k == 0)
		return;
	for (unsigned j = 0; j < k; j++) {
		ww[j] = w[j] * U(0.75, 1.25);
		sum += ww[j];
	}
	uint64_t left = n;
	for (unsigned j = 1; j < k; j++) {
		uint64_t c = u64((double)n * ww[j] / sum);
		if (c > left)
			c = left;
		v[list[j]] += c;
		left -= c;
	}
	v[list[0]] += left;
}

/* What the counters of one interval of one cpu derive from. */
struct core {
	double b0;                    /* busy cycles */
	double finite;                /* finite (sourcing) CPI */
	double ish;                   /* instruction-side share of the L1 misses */
	double l3p, l4lp, l4rp, memp; /* beyond-L2 sourcing, percent of the L1 misses */
	uint64_t B0, B1, B2, B4, L1M;
};

/* Busy, CPI and L1 misses of one interval of `cycles` elapsed cycles.  nest scales the beyond-L2
 * shares after the RNI (and with it the finite CPI) is taken. */
static void gen_core(struct core *k, const struct cpu *c, const struct prof *p, double cycles, double nest)
{
	double busy = clampd(c->busy + p->load + U(-0.05, 0.05), 0.20, 0.95);
	k->b0 = cycles * busy;

	/* cache behaviour */
	double l1mp = clampd(p->l1mp * U(0.95, 1.05), 1.5, 7.0);
	double t = p->t + U(-0.01, 0.01);
	if (t < 0)
		t = 0;
	double l3p = (8.0 + 12.0 * t) * U(0.92, 1.08);
	double l4lp = (2.0 + 6.0 * t) * U(0.92, 1.08);
	double l4rp = (0.05 + 1.95 * t) * U(0.92, 1.08);
	double memp = (1.0 + 4.0 * t) * U(0.92, 1.08);
	double rni = 4.1 * (0.45 * l3p + 1.3 * l4lp + 5.0 * l4rp + 6.1 * memp) / 100;
	k->l3p = l3p * nest;
	k->l4lp = l4lp * nest;
	k->l4rp = l4rp * nest;
	k->memp = memp * nest;

	/* CPI = instruction complexity + finite (sourcing) CPI */
	double scpl1m = (10.0 + 14.0 * rni) * U(0.9, 1.1);
	k->finite = clampd(l1mp / 100 * scpl1m, 0.3, 1.5);
	double cmplx = clampd(c->cmplx + p->cmplx + U(-0.05, 0.05), 0.9, 2.0);
	double cpi = k->finite + cmplx;

	k->B0 = u64(k->b0);
	k->B1 = u64(k->b0 / cpi);
	k->L1M = u64((double)k->B1 * l1mp / 100);
	k->ish = U(0.25, 0.35);
	k->B2 = u64((double)k->L1M * k->ish);
	k->B4 = k->L1M - k->B2;
}

/* B0-B5, and the finite-CPI cycles counter e143: with fin_coef > 0 FINITE_CPI = (B3+B5)/B1 * fin_coef
 * (z10-zEC12, no e143), else FINITE_CPI = E143/B1 + fin_add. */
static void gen_basic(uint64_t *v, const struct core *k, double fin_coef, double fin_add, unsigned e143)
{
	double pen;
	double penr = U(0.55, 0.80);
	if (fin_coef > 0) {
		pen = (double)k->B1 * k->finite / fin_coef;
	} else {
		double e = k->finite - fin_add;
		uint64_t E143 = u64((double)k->B1 * (e < 0.1 ? 0.1 : e));
		v[e143] = E143;
		pen = (double)E143 / penr; /* B3 + B5 >= E143 */
	}
	double ipen = U(0.25, 0.40);
	v[0] = k->B0;
	v[1] = k->B1;
	v[2] = k->B2;
	v[3] = u64(pen * ipen);
	v[4] = k->B4;
	v[5] = u64(pen * (1 - ipen));
}

/* P32, P33; returns the problem-state share */
static double gen_prb(uint64_t *v, const struct core *k, const struct cpu *c)
{
	double prb = clampd(c->prb + U(-0.05, 0.05), 0.30, 0.80);
	v[32] = u64(k->b0 * prb);
	v[33] = u64((double)k->B1 * clampd(prb + U(-0.03, 0.03), 0.30, 0.80));
	return prb;
}

/* Sourcing: all the L1 misses but a small unattributed remainder, split by category over the
 * counters of sp; v must hold zeros there. */
static void gen_sourcing(uint64_t *v, const struct core *k, const struct split sp[NCAT])
{
	uint64_t L1M = k->L1M;
	uint64_t src = L1M - u64((double)L1M * U(0.0, 0.003));
	uint64_t cat[NCAT];
	cat[CAT_L3] = u64((double)L1M * k->l3p / 100);
	cat[CAT_L4L] = u64((double)L1M * k->l4lp / 100);
	cat[CAT_L4R] = u64((double)L1M * k->l4rp / 100);
	cat[CAT_MEM] = u64((double)L1M * k->memp / 100);
	cat[CAT_L2] = src - cat[CAT_L3] - cat[CAT_L4L] - cat[CAT_L4R] - cat[CAT_MEM];
	for (unsigned j = 0; j < NCAT; j++) {
		const struct split *s = &sp[j];
		uint64_t ipart = u64((double)cat[j] * k->ish * U(0.9, 0.999)); /* I side <= B2 */
		if (ipart > cat[j] || s->ni == 0)
			ipart = s->ni == 0 ? 0 : cat[j];
		distribute(v, cat[j] - ipart, s->d, s->wd, s->nd);
		distribute(v, ipart, s->i, s->wi, s->ni);
	}
}

/* crypto: functions and coprocessor cycles (about 0-2% of the cycles), C64-C83 */
static void gen_crypto(uint64_t *v, const struct core *k, const struct cpu *c)
{
	static const double cyc_per_fn[5] = {1500, 400, 600, 800, 20000}; /* PRNG SHA DEA AES ECC */
	static const double fn_per_cyc[5] = {2e-8, 8e-7, 3e-8, 1.2e-6, 5e-9};
	for (unsigned j = 0; j < 5; j++) {
		double fn = k->b0 * c->crypto * fn_per_cyc[j] * U(0.5, 1.5);
		double blk = fn * U(0.0, 0.01);
		unsigned base = 64 + 4 * j;
		v[base] = u64(fn);
		v[base + 1] = u64(fn * cyc_per_fn[j] * U(0.8, 1.2));
		v[base + 2] = u64(blk);
		v[base + 3] = u64(blk * U(50, 300));
	}
}

/* AI accelerator (NNPA) E267-E270, for a cpu that used it this interval; returns the invocations */
static double gen_nnpa(uint64_t *v, const struct core *k)
{
	double hold = k->b0 * U(0.005, 0.05);
	double inv = hold / U(5000, 50000);
	v[267] = u64(inv);
	v[268] = u64(inv * U(0.995, 1.0));
	v[270] = u64(hold);
	v[269] = u64(hold * U(0.02, 0.2));
	return inv;
}

/* MT diagnostic M448, M449: SMT-2 on the zIIPs only */
static void gen_mt(uint64_t *v, const struct core *k, const struct cpu *c)
{
	if (c->ziip) {
		double two = U(0.15, 0.40);
		v[449] = u64(k->b0 * two);
		v[448] = u64(k->b0 * (1 - two) * U(0.6, 0.9));
	}
}

#endif /* GEN_COMMON_H */
