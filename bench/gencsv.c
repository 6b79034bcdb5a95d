/* SPDX-License-Identifier: MIT */
/*
 * gencsv: writes a synthetic, deterministic IBM z16 CPU-MF counter-delta CSV in the format
 * mfstat reads (identity columns, then one column per z16 counter by short name).
 *
 *   cc -O2 -std=c17 -Wall -Wextra -o gencsv gencsv.c
 *   ./gencsv --systems 2 --lpars 1 --cpus 4 --ziip 1 --intervals 4 > demo.csv
 *   ./gencsv --systems 20 --series 50000 --days 21 > finest.csv     (one group per sample)
 *
 * The values are made up, but internally consistent and in the ranges a real z16 shows:
 * busy 20-95%, CPI 1.2-3.5, L1MP 1.5-7, sourcing splits that sum to at most B2+B4,
 * FINITE_CPI (E143/B1) 0.3-1.5, and an RNI that moves between intervals so that the LSPR
 * workload class of an LPAR's general purpose engines is sometimes LOW, AVERAGE or HIGH.
 * Output is formatted by hand into a large buffer (no printf per field) for speed.
 * The PRNG, the formatting and the value model are shared with tools/gensmf.c (tools/gen_common.h).
 */
#define PROG "gencsv"
#include "../tools/gen_common.h"

/* ---------------------------------------------------------------- counters */

#define NCOUNTERS (sizeof ctr_z16 / sizeof ctr_z16[0])
#define MAXCTR 450

static const struct split splits[NCAT] = {
	[CAT_L2] = SP_Z16_L2,   [CAT_L3] = SP_Z16_L3,   [CAT_L4L] = SP_Z16_L4L,
	[CAT_L4R] = SP_Z16_L4R, [CAT_MEM] = SP_Z16_MEM,
};

/* ---------------------------------------------------------------- output buffer */

#define OUTBUF (4u << 20)
#define ROOM 16384u /* more than one row can take */

static char *ob;
static size_t on;

static void flush(void)
{
	if (on && fwrite(ob, 1, on, stdout) != on) {
		fprintf(stderr, PROG ": write error: %s\n", strerror(errno));
		exit(1);
	}
	on = 0;
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
	      "\n"
	      "Series mode (--series N): the finest grain, one group per sample.  N series, each its\n"
	      "own system, LPAR and pool with one cpu (series k: system k mod --systems; in it LPAR\n"
	      "PROD<j/2+1>, GCP cpu 0 for even j, ZIIP cpu 1 for odd j, j = k div --systems); --rows\n"
	      "distinct samples (default N times --days), each a random series and a random interval\n"
	      "of --days days, in random order (--lpars, --cpus, --ziip and --intervals are ignored).\n"
	      "A sample's values depend only on --seed, its series and its interval, so --ordered\n"
	      "writes the same rows sorted by interval start (then series).\n"
	      "  --series N            series count (at most 20,000,000)\n"
	      "  --days D              days the intervals are drawn from (default 21)\n"
	      "  --ordered             rows in time order\n"
	      "  -h, --help            this help\n",
	      f);
}

/* ---------------------------------------------------------------- generation */

static void gen_row(uint64_t *v, const struct cpu *c, const struct prof *p, double hz_s)
{
	memset(v, 0, MAXCTR * sizeof *v); /* the sourcing counters are added up */
	struct core k;
	gen_core(&k, c, p, hz_s, 1.0);
	gen_basic(v, &k, 0, 0, 143);
	gen_prb(v, &k, c);
	gen_sourcing(v, &k, splits);

	/* TLB */
	double dmiss = (double)k.B1 * U(0.0003, 0.0015), imiss = (double)k.B1 * U(0.00004, 0.0003);
	v[129] = u64(dmiss);
	v[130] = u64(dmiss * U(60, 160));
	v[134] = u64(imiss);
	v[135] = u64(imiss * U(50, 140));
	v[128] = u64((double)k.B4 * U(0.05, 0.15));
	v[131] = u64((dmiss + imiss) * U(0.10, 0.30));
	v[132] = rnd() % 4 == 0 ? rnd() % 50 : 0;
	v[137] = u64((dmiss + imiss) * U(0.60, 0.80));
	v[138] = u64((dmiss + imiss) * U(0.05, 0.15));
	v[139] = u64(k.b0 * U(0.01, 0.08));
	double tx = (double)k.B1 * U(0.0, 2e-6);
	v[140] = u64(tx * U(0.1, 0.3));
	v[141] = u64(tx * U(0.7, 0.9));
	v[244] = u64((double)v[141] * U(0.01, 0.05));
	v[245] = u64((double)v[140] * U(0.005, 0.02));
	v[246] = v[245] / 20;

	gen_crypto(v, &k, c);

	/* decimal, compression, sort */
	v[226] = u64((double)k.B1 * c->dec * U(0.8, 1.2));
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
	if (c->aiu && rnd() % 4 != 0)
		gen_nnpa(v, &k);

	gen_mt(v, &k, c);
}

/* one row: identity prefix, "interval_start,interval_seconds" tail, the counters */
static void put_row(const char *prefix, size_t plen, const char *tail, size_t tl, const uint64_t *v)
{
	if (on > OUTBUF - ROOM)
		flush();
	char *p = ob + on;
	memcpy(p, prefix, plen);
	p += plen;
	memcpy(p, tail, tl);
	p += tl;
	for (size_t j = 0; j < NCOUNTERS; j++) {
		*p++ = ',';
		p = putu(p, v[ctr_z16[j]]);
	}
	*p++ = '\n';
	on = (size_t)(p - ob);
}

static size_t put_tail(char *tail, int64_t t, uint64_t secs)
{
	char ts[21];
	fmt_iso(t, ts);
	char *tp = tail;
	memcpy(tp, ts, 20);
	tp += 20;
	*tp++ = ',';
	tp = putu(tp, secs);
	return (size_t)(tp - tail);
}

static void sys_name(uint64_t s, char sys[3])
{
	sys[0] = sys[1] = sys[2] = 0;
	if (s < 26)
		sys[0] = (char)('A' + s);
	else {
		sys[0] = (char)('A' + s / 26 - 1);
		sys[1] = (char)('A' + s % 26);
	}
}

struct sample {
	uint32_t iv, series;
};

static int by_time(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	if (x->iv != y->iv)
		return x->iv < y->iv ? -1 : 1;
	return (x->series > y->series) - (x->series < y->series);
}

/* --series: distinct random (series, interval) samples, one group each under the default --by */
static void gen_series(uint64_t nseries, uint64_t rows, uint64_t days, int ordered, uint64_t systems, uint64_t secs,
		       uint64_t seed, int64_t t0, const char *machine, uint64_t cpsp)
{
	uint64_t per_series = days * 86400 / secs, slots = nseries * per_series;
	if (per_series == 0 || per_series > UINT32_MAX)
		bad("--days and --interval-seconds give no interval or too many", NULL);
	if (rows > slots / 2)
		bad("--rows is more than half of --series times the intervals of --days", NULL);
	unsigned char *taken = calloc(slots / 8 + 1, 1);
	struct sample *sm = malloc((rows ? rows : 1) * sizeof *sm);
	if (!taken || !sm) {
		fputs(PROG ": out of memory\n", stderr);
		exit(1);
	}
	rng_t pick;
	rng_seed(&pick, seed ^ 0x5eed5e11e5ull);
	for (uint64_t i = 0; i < rows;) {
		uint64_t slot = rnd_r(&pick) % slots;
		if (taken[slot / 8] & (1u << (slot % 8)))
			continue;
		taken[slot / 8] |= (unsigned char)(1u << (slot % 8));
		sm[i++] = (struct sample){(uint32_t)(slot % per_series), (uint32_t)(slot / per_series)};
	}
	free(taken);
	if (ordered)
		qsort(sm, rows, sizeof *sm, by_time);

	uint64_t v[MAXCTR] = {0};
	double hz_s = (double)cpsp * 1e6 * (double)secs;
	for (uint64_t i = 0; i < rows; i++) {
		uint64_t k = sm[i].series, iv = sm[i].iv, j = k / systems;
		int ziip = (int)(j % 2);
		/* the series' lasting character, then the sample's values: a stream per sample */
		uint64_t h = seed ^ (k * 0x9e3779b97f4a7c15ull);
		rng_seed(&R, h);
		struct cpu c;
		cpu_init(&c, ziip, k % 7 == 0);
		rng_seed(&R, h ^ ((iv + 1) * 0xd1b54a32d192ed03ull));
		struct prof pr;
		make_profile(&pr, class_cycle[(iv + j / 2) % 4]);
		gen_row(v, &c, &pr, hz_s);

		char sys[3], prefix[80], tail[48];
		sys_name(k % systems, sys);
		int n = snprintf(prefix, sizeof prefix, "SYS%s,PROD%u,%u,%s,%s,%u,", sys, (unsigned)(j / 2 + 1),
				 (unsigned)ziip, ziip ? "ZIIP" : "GCP", machine, (unsigned)cpsp);
		size_t tl = put_tail(tail, t0 + (int64_t)(iv * secs), secs);
		put_row(prefix, (size_t)n, tail, tl, v);
	}
	free(sm);
}

int main(int argc, char **argv)
{
	uint64_t rows = 0, intervals = 4, systems = 1, lpars = 1, cpus = 4, ziips = 1, secs = 900, seed = 1,
		 cpsp = 5200, series = 0, days = 21;
	int have_rows = 0, have_ziip = 0, ordered = 0;
	const char *start = "2025-03-04T00:00:00Z", *machine = "3931";

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--ordered")) {
			ordered = 1;
			continue;
		}
		char name[OPT_NAME_MAX];
		val = opt_value(opt_split(a, name), argc, argv, &i, name);

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
		else if (!strcmp(name, "--series"))
			series = parse_u64(name, val, 1, 20000000);
		else if (!strcmp(name, "--days"))
			days = parse_u64(name, val, 1, 36500);
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
	if (parse_iso(start, 1970, 9999, &t0))
		bad("bad --start (expected YYYY-MM-DDTHH:MM:SSZ)", start);

	uint64_t per_iv = systems * lpars * cpus;
	if (!have_rows)
		rows = intervals * per_iv;

	rng_seed(&R, seed);

	/* per-cpu characteristics and identity prefixes "SYSA,PROD1,0,GCP,3931,5200," */
	struct cpu *cs = calloc(per_iv, sizeof *cs);
	char(*prefix)[64] = calloc(per_iv, sizeof *prefix);
	unsigned char *plen = calloc(per_iv, 1);
	struct prof *lp = calloc(systems * lpars, sizeof *lp);
	ob = malloc(OUTBUF);
	if (!cs || !prefix || !plen || !lp || !ob) {
		fputs(PROG ": out of memory\n", stderr);
		return 1;
	}
	for (uint64_t s = 0; s < systems; s++)
		for (uint64_t l = 0; l < lpars; l++)
			for (uint64_t c = 0; c < cpus; c++) {
				uint64_t k = (s * lpars + l) * cpus + c;
				struct cpu *x = &cs[k];
				/* the AIU on cpu 0 of every other LPAR and on a few random GCPs */
				cpu_init(x, c >= cpus - ziips, c == 0 && (s * lpars + l) % 2 == 0);
				char sys[3];
				sys_name(s, sys);
				int n = snprintf(prefix[k], sizeof prefix[k], "SYS%s,PROD%u,%u,%s,%s,%u,", sys,
						 (unsigned)(s * lpars + l + 1), (unsigned)c, x->ziip ? "ZIIP" : "GCP",
						 machine, (unsigned)cpsp);
				plen[k] = (unsigned char)n;
			}

	/* header */
	on = (size_t)snprintf(ob, OUTBUF, "system,lpar,cpu,pool,machine,cpsp,interval_start,interval_seconds");
	for (size_t j = 0; j < NCOUNTERS; j++) {
		char *p = ob + on;
		*p++ = ',';
		p = put_ctr_name(p, ctr_z16[j]);
		on = (size_t)(p - ob);
	}
	ob[on++] = '\n';

	uint64_t v[MAXCTR] = {0};
	double hz_s = (double)cpsp * 1e6 * (double)secs;
	uint64_t done = series ? rows : 0;
	if (series)
		gen_series(series, have_rows ? rows : series * days, days, ordered, systems, secs, seed, t0, machine,
			   cpsp);
	for (uint64_t iv = 0; done < rows; iv++) {
		char tail[48];
		size_t tl = put_tail(tail, t0 + (int64_t)(iv * secs), secs);

		for (uint64_t k = 0; k < per_iv && done < rows; k++, done++) {
			uint64_t li = k / cpus;
			if (k % cpus == 0)
				make_profile(&lp[li], class_cycle[(iv + li) % 4]);
			gen_row(v, &cs[k], &lp[li], hz_s);
			put_row(prefix[k], plen[k], tail, tl, v);
		}
	}
	flush();
	if (fflush(stdout) != 0) {
		fprintf(stderr, PROG ": write error: %s\n", strerror(errno));
		return 1;
	}
	free(cs);
	free(prefix);
	free(plen);
	free(lp);
	free(ob);
	return 0;
}
