/* SPDX-License-Identifier: MIT */
/*
 * gencsv: writes a synthetic, deterministic IBM z16 CPU-MF counter-delta CSV in the format
 * mfstat reads (identity columns, then one column per z16 counter by short name).
 *
 *   cc -O2 -std=c17 -Wall -Wextra -o gencsv gencsv.c
 *   ./gencsv --systems 2 --lpars 1 --cpus 4 --ziip 1 --intervals 4 > demo.csv
 *
 * The values are made up, but internally consistent and in the ranges a real z16 shows:
 * busy 20-95%, CPI 1.2-3.5, L1MP 1.5-7, sourcing splits that sum to at most B2+B4,
 * FINITE_CPI (E143/B1) 0.3-1.5, and an RNI that moves between intervals so that the LSPR
 * workload class of an LPAR's general purpose engines is sometimes LOW, AVERAGE or HIGH.
 * Output is formatted by hand into a large buffer (no printf per field) for speed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- counters */

/* The z16 counters in the order of data/counters/z16.tsv (98 counters). */
static const unsigned short counters[] = {
	0,   1,   2,   3,   4,   5,   32,  33,  64,  65,  66,  67,  68,  69,  70,  71,  72,  73,  74,  75,
	76,  77,  78,  79,  80,  81,  82,  83,  128, 129, 130, 131, 132, 134, 135, 137, 138, 139, 140, 141,
	143, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163,
	164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180, 181, 182, 183,
	224, 225, 226, 232, 244, 245, 246, 248, 253, 256, 265, 266, 267, 268, 269, 270, 448, 449,
};
#define NCOUNTERS (sizeof counters / sizeof counters[0])
#define MAXCTR 450

/* Sourcing: for each category the data-side counters (including the IDCW counters that count
 * both sides) and the instruction-side counters, with base weights (see cpumf-formulas.md). */
struct split {
	unsigned char nd, ni;
	unsigned short d[10], i[4];
	double wd[10], wi[4];
};

enum { CAT_L2, CAT_L3, CAT_L4L, CAT_L4R, CAT_MEM, NCAT };

static const struct split splits[NCAT] = {
	[CAT_L2] = {2, 2, {145, 146}, {169, 170}, {0.93, 0.07}, {0.97, 0.03}},
	[CAT_L3] = {4, 4, {147, 149, 150, 151}, {171, 173, 174, 175}, {0.15, 0.60, 0.15, 0.10},
		    {0.20, 0.60, 0.10, 0.10}},
	[CAT_L4L] = {10, 4, {148, 152, 153, 154, 160, 161, 162, 163, 164, 165}, {172, 176, 177, 178},
		     {0.10, 0.05, 0.30, 0.25, 0.06, 0.06, 0.04, 0.05, 0.05, 0.04}, {0.15, 0.10, 0.40, 0.35}},
	[CAT_L4R] = {4, 1, {155, 166, 167, 168}, {179}, {0.60, 0.15, 0.15, 0.10}, {1.0}},
	[CAT_MEM] = {4, 4, {156, 157, 158, 159}, {180, 181, 182, 183}, {0.45, 0.25, 0.20, 0.10},
		     {0.45, 0.25, 0.20, 0.10}},
};

/* ---------------------------------------------------------------- PRNG (xoshiro256**) */

static uint64_t rs[4];

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rnd(void)
{
	uint64_t r = rotl(rs[1] * 5, 7) * 9, t = rs[1] << 17;
	rs[2] ^= rs[0];
	rs[3] ^= rs[1];
	rs[1] ^= rs[2];
	rs[0] ^= rs[3];
	rs[2] ^= t;
	rs[3] = rotl(rs[3], 45);
	return r;
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

/* ---------------------------------------------------------------- output buffer */

#define OUTBUF (4u << 20)
#define ROOM 16384u /* more than one row can take */

static char *ob;
static size_t on;

static void flush(void)
{
	if (on && fwrite(ob, 1, on, stdout) != on) {
		fprintf(stderr, "gencsv: write error: %s\n", strerror(errno));
		exit(1);
	}
	on = 0;
}

static const char digits2[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
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

/* YYYY-MM-DDTHH:MM:SSZ -> seconds since the epoch */
static int parse_iso(const char *s, int64_t *t)
{
	unsigned y, mo, d, h, mi, se;
	if (strlen(s) != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
	    s[19] != 'Z')
		return -1;
	if (num(s, 4, &y) || num(s + 5, 2, &mo) || num(s + 8, 2, &d) || num(s + 11, 2, &h) ||
	    num(s + 14, 2, &mi) || num(s + 17, 2, &se))
		return -1;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59)
		return -1;
	*t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
	return 0;
}

static void put2(char *p, unsigned v)
{
	p[0] = (char)('0' + v / 10 % 10);
	p[1] = (char)('0' + v % 10);
}

/* seconds since the epoch -> YYYY-MM-DDTHH:MM:SSZ (20 characters and a NUL) */
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

static void usage(FILE *f)
{
	fputs("Usage: gencsv [OPTIONS] > FILE.csv\n"
	      "Writes a synthetic, deterministic IBM z16 CPU-MF counter-delta CSV (mfstat's format).\n"
	      "Rows go interval by interval; within an interval by system, LPAR, cpu.\n"
	      "\n"
	      "  --rows N              data rows in total (may stop mid-interval; default:\n"
	      "                        --intervals times the cpus of all LPARs)\n"
	      "  --intervals N         intervals when --rows is not given (default 4)\n"
	      "  --systems N           systems SYSA, SYSB, ... (default 1)\n"
	      "  --lpars N             LPARs per system, PROD1, PROD2, ... (default 1)\n"
	      "  --cpus N              cpus per LPAR, numbered 0.. (default 4)\n"
	      "  --ziip N              how many of them are zIIPs, the highest numbers (default 1,\n"
	      "                        0 with one cpu)\n"
	      "  --interval-seconds S  interval length (default 900)\n"
	      "  --start ISO           first interval, YYYY-MM-DDTHH:MM:SSZ (default 2025-03-04T00:00:00Z)\n"
	      "  --machine M           machine column (default 3931)\n"
	      "  --cpsp MHZ            CPU speed (default 5200)\n"
	      "  --seed N              PRNG seed (default 1)\n"
	      "  -h, --help            this help\n",
	      f);
}

static void bad(const char *msg, const char *arg)
{
	fprintf(stderr, "gencsv: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	usage(stderr);
	exit(2);
}

static uint64_t parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+')
		bad("bad number for", opt);
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		bad("bad or out-of-range number for", opt);
	return v;
}

/* ---------------------------------------------------------------- generation */

struct cpu {
	double busy;   /* base busy fraction */
	double cmplx;  /* base instruction-complexity CPI */
	double prb;    /* problem-state share */
	double crypto; /* crypto intensity 0..1 */
	double dec;    /* decimal intensity */
	int aiu;       /* uses the AI accelerator */
	int ziip;
};

struct lpar_iv {
	double load;  /* busy offset this interval */
	double l1mp;  /* L1MP centre */
	double t;     /* nest intensity 0..1 (drives RNI) */
	double cmplx; /* CPI offset */
};

/* LSPR classes an LPAR cycles through, one per interval (offset per LPAR). */
enum { LOW, AVG, HIGH };
static const int class_cycle[4] = {AVG, LOW, AVG, HIGH};

static void lpar_profile(struct lpar_iv *p, int cls)
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

/* distribute n over the counters of list with the given base weights, jittered */
static void distribute(uint64_t *v, uint64_t n, const unsigned short *list, const double *w, unsigned k)
{
	double ww[10], sum = 0;
	for (unsigned j = 0; j < k; j++) {
		ww[j] = w[j] * U(0.75, 1.25);
		sum += ww[j];
	}
	uint64_t left = n;
	for (unsigned j = 1; j < k; j++) {
		uint64_t c = u64((double)n * ww[j] / sum);
		if (c > left)
			c = left;
		v[list[j]] = c;
		left -= c;
	}
	v[list[0]] = left;
}

static void gen_row(uint64_t *v, const struct cpu *c, const struct lpar_iv *p, double hz_s)
{
	/* busy, cycles */
	double busy = clampd(c->busy + p->load + U(-0.05, 0.05), 0.20, 0.95);
	double b0 = hz_s * busy;

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

	/* CPI = instruction complexity + finite (sourcing) CPI */
	double scpl1m = (10.0 + 14.0 * rni) * U(0.9, 1.1);
	double finite = clampd(l1mp / 100 * scpl1m, 0.3, 1.5);
	double cmplx = clampd(c->cmplx + p->cmplx + U(-0.05, 0.05), 0.9, 2.0);
	double cpi = finite + cmplx;

	uint64_t B0 = u64(b0);
	uint64_t B1 = u64(b0 / cpi);
	uint64_t L1M = u64((double)B1 * l1mp / 100);
	double ish = U(0.25, 0.35);
	uint64_t B2 = u64((double)L1M * ish), B4 = L1M - B2;
	uint64_t E143 = u64((double)B1 * finite);
	double pen = (double)E143 / U(0.55, 0.80); /* B3 + B5 >= E143 */
	double ipen = U(0.25, 0.40);
	v[0] = B0;
	v[1] = B1;
	v[2] = B2;
	v[3] = u64(pen * ipen);
	v[4] = B4;
	v[5] = u64(pen * (1 - ipen));
	v[143] = E143;

	/* problem state */
	double prb = clampd(c->prb + U(-0.05, 0.05), 0.30, 0.80);
	v[32] = u64(b0 * prb);
	v[33] = u64((double)B1 * clampd(prb + U(-0.03, 0.03), 0.30, 0.80));

	/* sourcing: everything except a small unattributed remainder, split by category */
	uint64_t src = L1M - u64((double)L1M * U(0.0, 0.003));
	uint64_t cat[NCAT];
	cat[CAT_L3] = u64((double)L1M * l3p / 100);
	cat[CAT_L4L] = u64((double)L1M * l4lp / 100);
	cat[CAT_L4R] = u64((double)L1M * l4rp / 100);
	cat[CAT_MEM] = u64((double)L1M * memp / 100);
	cat[CAT_L2] = src - cat[CAT_L3] - cat[CAT_L4L] - cat[CAT_L4R] - cat[CAT_MEM];
	for (unsigned k = 0; k < NCAT; k++) {
		const struct split *s = &splits[k];
		uint64_t ipart = u64((double)cat[k] * ish * U(0.9, 0.999)); /* I side <= B2 */
		if (ipart > cat[k])
			ipart = cat[k];
		distribute(v, cat[k] - ipart, s->d, s->wd, s->nd);
		distribute(v, ipart, s->i, s->wi, s->ni);
	}

	/* TLB */
	double dmiss = (double)B1 * U(0.0003, 0.0015), imiss = (double)B1 * U(0.00004, 0.0003);
	v[129] = u64(dmiss);
	v[130] = u64(dmiss * U(60, 160));
	v[134] = u64(imiss);
	v[135] = u64(imiss * U(50, 140));
	v[128] = u64((double)B4 * U(0.05, 0.15));
	v[131] = u64((dmiss + imiss) * U(0.10, 0.30));
	v[132] = rnd() % 4 == 0 ? rnd() % 50 : 0;
	v[137] = u64((dmiss + imiss) * U(0.60, 0.80));
	v[138] = u64((dmiss + imiss) * U(0.05, 0.15));
	v[139] = u64(b0 * U(0.01, 0.08));
	double tx = (double)B1 * U(0.0, 2e-6);
	v[140] = u64(tx * U(0.1, 0.3));
	v[141] = u64(tx * U(0.7, 0.9));
	v[244] = u64((double)v[141] * U(0.01, 0.05));
	v[245] = u64((double)v[140] * U(0.005, 0.02));
	v[246] = v[245] / 20;

	/* crypto: functions and coprocessor cycles (about 0-2% of the cycles) */
	static const double cyc_per_fn[5] = {1500, 400, 600, 800, 20000}; /* PRNG SHA DEA AES ECC */
	static const double fn_per_cyc[5] = {2e-8, 8e-7, 3e-8, 1.2e-6, 5e-9};
	for (unsigned k = 0; k < 5; k++) {
		double f = b0 * c->crypto * fn_per_cyc[k] * U(0.5, 1.5);
		double blk = f * U(0.0, 0.01);
		unsigned base = 64 + 4 * k;
		v[base] = u64(f);
		v[base + 1] = u64(f * cyc_per_fn[k] * U(0.8, 1.2));
		v[base + 2] = u64(blk);
		v[base + 3] = u64(blk * U(50, 300));
	}

	/* decimal, compression, sort */
	v[226] = u64((double)B1 * c->dec * U(0.8, 1.2));
	v[224] = u64((double)v[226] * U(0.02, 0.10));
	v[225] = u64((double)v[226] * U(0.05, 0.30));
	v[232] = rnd() % 8 == 0 ? rnd() % 2000 : 0;
	double dfl = c->ziip ? 0 : (double)(rnd() % 30000);
	v[265] = u64(dfl);
	v[266] = u64(dfl * U(0.98, 1.0));
	v[253] = u64(dfl * U(8000, 40000));
	v[248] = u64((double)v[253] * U(0.01, 0.05));
	v[256] = c->ziip ? 0 : rnd() % 3000;

	/* AI accelerator: only on some cpus, not in every interval */
	if (c->aiu && rnd() % 4 != 0) {
		double hold = b0 * U(0.005, 0.05);
		double inv = hold / U(5000, 50000);
		v[267] = u64(inv);
		v[268] = u64(inv * U(0.995, 1.0));
		v[270] = u64(hold);
		v[269] = u64(hold * U(0.02, 0.2));
	} else {
		v[267] = v[268] = v[269] = v[270] = 0;
	}

	/* MT diagnostic: SMT-2 is used on the zIIPs only */
	if (c->ziip) {
		double two = U(0.15, 0.40);
		v[449] = u64(b0 * two);
		v[448] = u64(b0 * (1 - two) * U(0.6, 0.9));
	} else {
		v[448] = v[449] = 0;
	}
}

int main(int argc, char **argv)
{
	uint64_t rows = 0, intervals = 4, systems = 1, lpars = 1, cpus = 4, ziips = 1, secs = 900, seed = 1,
		 cpsp = 5200;
	int have_rows = 0, have_ziip = 0;
	const char *start = "2025-03-04T00:00:00Z", *machine = "3931";

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (strncmp(a, "--", 2) != 0)
			bad("unexpected argument", a);
		const char *eq = strchr(a, '=');
		char name[32];
		size_t nl = eq ? (size_t)(eq - a) : strlen(a);
		if (nl >= sizeof name)
			bad("unknown option", a);
		memcpy(name, a, nl);
		name[nl] = 0;
		if (eq)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			bad("missing value for", name);

		if (!strcmp(name, "--rows")) {
			rows = parse_u64(name, val, 0, UINT64_MAX / 2);
			have_rows = 1;
		} else if (!strcmp(name, "--intervals"))
			intervals = parse_u64(name, val, 1, 100000000);
		else if (!strcmp(name, "--systems"))
			systems = parse_u64(name, val, 1, 702);
		else if (!strcmp(name, "--lpars"))
			lpars = parse_u64(name, val, 1, 85);
		else if (!strcmp(name, "--cpus"))
			cpus = parse_u64(name, val, 1, 256);
		else if (!strcmp(name, "--ziip")) {
			ziips = parse_u64(name, val, 0, 256);
			have_ziip = 1;
		} else if (!strcmp(name, "--interval-seconds"))
			secs = parse_u64(name, val, 1, 86400);
		else if (!strcmp(name, "--start"))
			start = val;
		else if (!strcmp(name, "--machine"))
			machine = val;
		else if (!strcmp(name, "--cpsp"))
			cpsp = parse_u64(name, val, 1, 100000);
		else if (!strcmp(name, "--seed"))
			seed = parse_u64(name, val, 0, UINT64_MAX);
		else
			bad("unknown option", name);
	}
	if (!have_ziip)
		ziips = cpus > 1 ? 1 : 0;
	if (ziips > cpus)
		bad("--ziip is larger than --cpus", NULL);
	if (!*machine || strlen(machine) > 16 || strpbrk(machine, ",\"\r\n"))
		bad("bad --machine", machine);
	int64_t t0;
	if (parse_iso(start, &t0))
		bad("bad --start (expected YYYY-MM-DDTHH:MM:SSZ)", start);

	uint64_t per_iv = systems * lpars * cpus;
	if (!have_rows)
		rows = intervals * per_iv;

	{
		uint64_t sm = seed;
		for (int k = 0; k < 4; k++)
			rs[k] = splitmix64(&sm);
	}

	/* per-cpu characteristics and identity prefixes "SYSA,PROD1,0,GCP,3931,5200," */
	struct cpu *cs = calloc(per_iv, sizeof *cs);
	char (*prefix)[64] = calloc(per_iv, sizeof *prefix);
	unsigned char *plen = calloc(per_iv, 1);
	struct lpar_iv *lp = calloc(systems * lpars, sizeof *lp);
	ob = malloc(OUTBUF);
	if (!cs || !prefix || !plen || !lp || !ob) {
		fputs("gencsv: out of memory\n", stderr);
		return 1;
	}
	for (uint64_t s = 0; s < systems; s++)
		for (uint64_t l = 0; l < lpars; l++)
			for (uint64_t c = 0; c < cpus; c++) {
				uint64_t k = (s * lpars + l) * cpus + c;
				struct cpu *x = &cs[k];
				x->ziip = c >= cpus - ziips;
				x->busy = x->ziip ? U(0.25, 0.55) : U(0.40, 0.80);
				x->cmplx = U(1.1, 1.8);
				x->prb = x->ziip ? U(0.55, 0.75) : U(0.35, 0.70);
				x->crypto = U(0.0, 1.0) < 0.3 ? U(0.0, 0.1) : U(0.2, 1.0);
				x->dec = U(0.0, 1.0) < 0.5 ? U(0.0, 1e-4) : U(2e-4, 2e-3);
				/* the AIU on cpu 0 of every other LPAR and on a few random GCPs */
				x->aiu = !x->ziip && ((c == 0 && (s * lpars + l) % 2 == 0) || U(0.0, 1.0) < 0.1);
				char sys[3] = {0};
				if (s < 26)
					sys[0] = (char)('A' + s);
				else {
					sys[0] = (char)('A' + s / 26 - 1);
					sys[1] = (char)('A' + s % 26);
				}
				int n = snprintf(prefix[k], sizeof prefix[k], "SYS%s,PROD%u,%u,%s,%s,%u,", sys,
						 (unsigned)(s * lpars + l + 1), (unsigned)c, x->ziip ? "ZIIP" : "GCP",
						 machine, (unsigned)cpsp);
				plen[k] = (unsigned char)n;
			}

	/* header */
	on = (size_t)snprintf(ob, OUTBUF, "system,lpar,cpu,pool,machine,cpsp,interval_start,interval_seconds");
	for (size_t j = 0; j < NCOUNTERS; j++) {
		unsigned n = counters[j];
		char *p = ob + on;
		*p++ = ',';
		*p++ = n < 32 ? 'B' : n < 64 ? 'P' : n < 128 ? 'C' : n < 448 ? 'E' : 'M';
		p = putu(p, n);
		on = (size_t)(p - ob);
	}
	ob[on++] = '\n';

	uint64_t v[MAXCTR] = {0};
	double hz_s = (double)cpsp * 1e6 * (double)secs;
	uint64_t done = 0;
	for (uint64_t iv = 0; done < rows; iv++) {
		char ts[21], tail[48];
		fmt_iso(t0 + (int64_t)(iv * secs), ts);
		char *tp = tail;
		memcpy(tp, ts, 20);
		tp += 20;
		*tp++ = ',';
		tp = putu(tp, secs);
		size_t tl = (size_t)(tp - tail);

		for (uint64_t k = 0; k < per_iv && done < rows; k++, done++) {
			uint64_t li = k / cpus;
			if (k % cpus == 0)
				lpar_profile(&lp[li], class_cycle[(iv + li) % 4]);
			gen_row(v, &cs[k], &lp[li], hz_s);

			if (on > OUTBUF - ROOM)
				flush();
			char *p = ob + on;
			memcpy(p, prefix[k], plen[k]);
			p += plen[k];
			memcpy(p, tail, tl);
			p += tl;
			for (size_t j = 0; j < NCOUNTERS; j++) {
				*p++ = ',';
				p = putu(p, v[counters[j]]);
			}
			*p++ = '\n';
			on = (size_t)(p - ob);
		}
	}
	flush();
	if (fflush(stdout) != 0) {
		fprintf(stderr, "gencsv: write error: %s\n", strerror(errno));
		return 1;
	}
	free(cs);
	free(prefix);
	free(plen);
	free(lp);
	free(ob);
	return 0;
}
