/* SPDX-License-Identifier: MIT */
/*
 * The LPAR view (mfstat/input/lpar.h): decoded SMF type 70 subtype 1 and
 * type 99 subtype 14 records built here directly as structs (no files, no
 * decoder), added to a map, and hand-made type 113 samples joined to it.
 * Every expected value is computed by hand in the comments.
 *
 * Times: T0 = 2025-03-04T00:00:00Z = 1741046400 s.
 */
#include "testutil.h"

#include <math.h>

#include "mfstat/input/lpar.h"

#define T0 (1741046400LL * 1000000)
#define S(x) ((int64_t)(x)*1000000) /* seconds -> microseconds */
#define DED 0xFFFFFFFFu             /* weight argument: a dedicated processor */

/* a within eps of b (cmocka 1.1's assert_float_equal works in float). */
#define assert_double_equal(a, b, eps)                                                                                 \
	do {                                                                                                           \
		double a_ = (a), b_ = (b);                                                                             \
		if (!(fabs(a_ - b_) <= (eps)))                                                                         \
			fail_msg("%s = %.12g, expected %.12g", #a, a_, b_);                                            \
	} while (0)

/* ---- builders ------------------------------------------------------------ */

/* A type 70 subtype 1 record as mf_smf70_decode would leave it, with room to spare. */
struct rec70 {
	struct mf_smf70 r;
	struct mf_smf70_cpu cpus[8];
	struct mf_smf70_lpar lpars[6];
	struct mf_smf70_lcpu lcpus[24];
};

static void r70_init(struct rec70 *b, const char *system, const char *serial, int64_t start_us, int64_t seconds)
{
	memset(b, 0, sizeof(*b));
	snprintf(b->r.system, sizeof(b->r.system), "%s", system);
	snprintf(b->r.serial, sizeof(b->r.serial), "%s", serial);
	snprintf(b->r.model, sizeof(b->r.model), "A01");
	b->r.machine_type = 3931;
	b->r.start_us = start_us;
	b->r.end_us = start_us + S(seconds);
	b->r.local_start_us = start_us;
	b->r.own = -1;
	b->r.cpus = b->cpus;
	b->r.lpars = b->lpars;
	b->r.lcpus = b->lcpus;
	b->r.capcpus = 8;
	b->r.caplpars = 6;
	b->r.caplcpus = 24;
}

/* A PR/SM partition; own: the LPAR of the system that wrote the record. */
static void r70_lpar(struct rec70 *b, const char *name, unsigned number, bool own)
{
	struct mf_smf70_lpar *l = &b->lpars[b->r.nlpars];
	assert_true(b->r.nlpars < 6);
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->number = number;
	l->first = b->r.nlcpus;
	l->n = 0;
	if (own) {
		b->r.own = (long)b->r.nlpars;
		b->r.own_number = number;
	}
	b->r.nlpars++;
}

/* A logical processor of the last partition added; weight DED: dedicated. */
static void r70_lcpu(struct rec70 *b, unsigned address, int pool, int polarity, unsigned weight, uint64_t pdt_us)
{
	struct mf_smf70_lcpu *l = &b->lcpus[b->r.nlcpus];
	assert_true(b->r.nlcpus < 24 && b->r.nlpars > 0);
	l->address = address;
	l->pool = pool;
	snprintf(l->type, sizeof(l->type), "%s", pool == MF_POOL_ZIIP ? "IIP" : pool == MF_POOL_IFL ? "IFL" : "CP");
	l->polarity = polarity;
	l->dedicated = weight == DED;
	l->weight = weight == DED ? 0 : weight;
	l->dispatch_us = pdt_us;
	l->online_us = (uint64_t)(b->r.end_us - b->r.start_us);
	b->r.nlcpus++;
	b->lpars[b->r.nlpars - 1].n++;
}

/* A CPU of the writing system (CPU data section), tied to the own LPAR's logical processor of that address. */
static void r70_cpu(struct rec70 *b, unsigned id, int pool)
{
	struct mf_smf70_cpu *c = &b->cpus[b->r.ncpus++];
	size_t k;
	c->id = id;
	c->pool = pool;
	c->online = true;
	c->invalid = false;
	c->lcpu = -1;
	if (b->r.own >= 0) {
		const struct mf_smf70_lpar *o = &b->lpars[b->r.own];
		for (k = o->first; k < o->first + o->n; k++)
			if (b->lcpus[k].address == id)
				c->lcpu = (long)k;
	}
}

/* A type 99 subtype 14 record. */
struct rec99 {
	struct mf_smf99t t;
	struct mf_smf99_cpu cpus[8];
};

static void r99_init(struct rec99 *b, const char *system, int64_t time_us)
{
	memset(b, 0, sizeof(*b));
	snprintf(b->t.system, sizeof(b->t.system), "%s", system);
	b->t.time_us = time_us;
	b->t.cpus = b->cpus;
	b->t.capcpus = 8;
}

static void r99_cpu(struct rec99 *b, unsigned cpu, unsigned type, int polarity, int32_t drawer, int32_t chip)
{
	struct mf_smf99_cpu *c = &b->cpus[b->t.ncpus++];
	c->cpu = cpu;
	c->type = type;
	c->polarity = polarity;
	c->levels = 2;
	c->nl[0] = (unsigned)chip;
	c->nl[1] = (unsigned)drawer;
	c->chip = chip;
	c->drawer = drawer;
}

/* The map and its strings, fresh per test. */
struct fix {
	struct mf_lparmap *m;
	struct mf_strtab *tab;
	struct mf_sample *s; /* big (counter arrays): on the heap */
	char warn[16][600];
	size_t nwarn;
};

static int fix_setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	f->m = mf_lparmap_new();
	f->tab = mf_strtab_new();
	f->s = malloc(sizeof(*f->s));
	assert_non_null(f->m);
	assert_non_null(f->tab);
	assert_non_null(f->s);
	*state = f;
	return 0;
}

static int fix_teardown(void **state)
{
	struct fix *f = *state;
	mf_lparmap_free(f->m);
	mf_strtab_free(f->tab);
	free(f->s);
	free(f);
	return 0;
}

static uint32_t id(struct fix *f, const char *s)
{
	return mf_strtab_intern(f->tab, s, strlen(s));
}

static void add70(struct fix *f, const struct rec70 *b)
{
	assert_int_equal(mf_lparmap_add_rmf(f->m, f->tab, &b->r), 0);
}

static void add99(struct fix *f, const struct rec99 *b)
{
	assert_int_equal(mf_lparmap_add_topo(f->m, f->tab, &b->t), 0);
}

/* Joins a fresh sample of system sys, [start, start + seconds), CPU cpu of pool; returns what the join returns. */
static int join(struct fix *f, const char *sys, int64_t start_us, double seconds, int64_t cpu, int pool)
{
	struct mf_sample *s = f->s;
	mf_sample_reset(s);
	s->system = id(f, sys);
	s->has_start = true;
	s->start_us = start_us;
	s->seconds = seconds;
	s->cpu = cpu;
	s->pool = pool;
	return mf_lparmap_join(f->m, s);
}

static void collect(void *ctx, const char *msg)
{
	struct fix *f = ctx;
	assert_true(f->nwarn < 16);
	snprintf(f->warn[f->nwarn++], sizeof(f->warn[0]), "%s", msg);
}

static void warnings(struct fix *f)
{
	f->nwarn = 0;
	mf_lparmap_warnings(f->m, f->tab, collect, f);
}

/* The one warning that holds every one of the (NULL-ended) parts, else the test fails. */
static const char *warning_with(struct fix *f, const char *part, ...)
{
	size_t i;
	for (i = 0; i < f->nwarn; i++) {
		va_list ap;
		const char *p = part;
		bool all = true;
		va_start(ap, part);
		for (; p; p = va_arg(ap, const char *))
			if (!strstr(f->warn[i], p))
				all = false;
		va_end(ap);
		if (all)
			return f->warn[i];
	}
	for (i = 0; i < f->nwarn; i++)
		print_message("warning %zu: %s\n", i, f->warn[i]);
	fail_msg("no warning with '%s' (and the other parts) among %zu", part, f->nwarn);
	return NULL;
}

static const char *polname(int p)
{
	return mf_polarity_name(p) ? mf_polarity_name(p) : "none";
}

#define SERIAL "00000000000A1B2C"

/* SYSA in LPSYSA (number 1): CPU 0 GCP VH weight 300, CPU 1 GCP VM 300, CPU 2 zIIP dedicated VH. */
static void sysa(struct rec70 *b, int64_t start_us, int64_t seconds, uint64_t pdt0, uint64_t pdt1, uint64_t pdt2)
{
	r70_init(b, "SYSA", SERIAL, start_us, seconds);
	r70_lpar(b, "LPSYSA", 1, true);
	r70_lcpu(b, 0, MF_POOL_GCP, MF_POL_VH, 300, pdt0);
	r70_lcpu(b, 1, MF_POOL_GCP, MF_POL_VM, 300, pdt1);
	r70_lcpu(b, 2, MF_POOL_ZIIP, MF_POL_VH, DED, pdt2);
	r70_cpu(b, 0, MF_POOL_GCP);
	r70_cpu(b, 1, MF_POOL_GCP);
	r70_cpu(b, 2, MF_POOL_ZIIP);
}

/* ---- aligned 900 s intervals --------------------------------------------- */

static void test_aligned(void **state)
{
	struct fix *f = *state;
	struct rec70 b;
	uint32_t lpsysa;
	/* Interval 0: PDT 450 s, 123.456789 s, 900 s; interval 1: 600 s, 0.000001 s, 899.5 s. */
	sysa(&b, T0, 900, 450000000, 123456789, 900000000);
	add70(f, &b);
	sysa(&b, T0 + S(900), 900, 600000000, 1, 899500000);
	add70(f, &b);
	assert_int_equal(mf_lparmap_nintervals(f->m), 2);
	lpsysa = id(f, "LPSYSA");

	/* CPU 0 in interval 0: LPSYSA (joined), VH, weight 300, busy = PDT = 450 s exactly. */
	assert_int_equal(join(f, "SYSA", T0, 900, 0, MF_POOL_GCP), 1);
	assert_int_equal(f->s->lpar, lpsysa);
	assert_true(f->s->lpar_joined);
	assert_string_equal(polname(f->s->polarity), "VH");
	assert_int_equal(f->s->lpar_weight, 300);
	assert_true(f->s->rmf_busy_s == 450.0);
	assert_int_equal(f->s->drawer, -1); /* no 99.14 */
	assert_int_equal(f->s->chip, -1);

	/* CPU 1 in interval 0: VM, 300, 123456789 us = 123.456789 s (the same double, the overlap ratio is 1). */
	assert_int_equal(join(f, "SYSA", T0, 900, 1, MF_POOL_GCP), 1);
	assert_string_equal(polname(f->s->polarity), "VM");
	assert_int_equal(f->s->lpar_weight, 300);
	assert_true(f->s->rmf_busy_s == 123.456789);

	/* CPU 2 (dedicated zIIP) in interval 1: VH, weight 0, busy 899.5 s; CPU 1 there: 1 us. */
	assert_int_equal(join(f, "SYSA", T0 + S(900), 900, 2, MF_POOL_ZIIP), 1);
	assert_string_equal(polname(f->s->polarity), "VH");
	assert_int_equal(f->s->lpar_weight, 0);
	assert_true(f->s->rmf_busy_s == 899.5);
	assert_int_equal(join(f, "SYSA", T0 + S(900), 900, 1, MF_POOL_GCP), 1);
	assert_true(f->s->rmf_busy_s == 0.000001);

	/* HIS boundaries a little off (jitter 300 ms, under the 9 s tolerance): the same, no warning. */
	assert_int_equal(join(f, "SYSA", T0 + S(900) + 300000, 899.7, 0, MF_POOL_GCP), 1);
	/* covered = 899.7 s = len: busy = 600 x 899.7 / 900 = 599.8 s */
	assert_double_equal(f->s->rmf_busy_s, 599.8, 1e-9);

	/* A sample that names its LPAR itself keeps it (lpar_joined stays false); the rest is joined. */
	mf_sample_reset(f->s);
	f->s->system = id(f, "SYSA");
	f->s->lpar = id(f, "OWNNAME");
	f->s->has_start = true;
	f->s->start_us = T0;
	f->s->seconds = 900;
	f->s->cpu = 0;
	f->s->pool = MF_POOL_GCP;
	assert_int_equal(mf_lparmap_join(f->m, f->s), 1);
	assert_int_equal(f->s->lpar, id(f, "OWNNAME"));
	assert_false(f->s->lpar_joined);
	assert_true(f->s->rmf_busy_s == 450.0);

	/* A CPU the record does not know: the LPAR, no polarity, weight or busy. */
	assert_int_equal(join(f, "SYSA", T0, 900, 7, MF_POOL_GCP), 1);
	assert_int_equal(f->s->lpar, lpsysa);
	assert_int_equal(f->s->polarity, MF_POL_NONE);
	assert_int_equal(f->s->lpar_weight, -1);
	assert_true(isnan(f->s->rmf_busy_s));

	/* A system the map has never heard of: nothing. */
	assert_int_equal(join(f, "SYSQ", T0, 900, 0, MF_POOL_GCP), 0);
	assert_int_equal(f->s->lpar, 0);
	assert_true(isnan(f->s->rmf_busy_s));

	/* Aligned, one system: no warning at all (SYSQ: no map data, the map has not seen it; see test_no_rmf_system). */
	warnings(f);
	for (size_t i = 0; i < f->nwarn; i++)
		if (!strstr(f->warn[i], "SYSQ"))
			fail_msg("unexpected warning: %s", f->warn[i]);
}

/* ---- RMF 1800 s, HIS 900 s ----------------------------------------------- */

static void test_rmf_longer(void **state)
{
	struct fix *f = *state;
	struct rec70 b;
	/* One RMF interval [T0, T0+1800): CPU 0 PDT 1200 s, CPU 1 600.3 s, CPU 2 1800 s. */
	sysa(&b, T0, 1800, 1200000000, 600300000, 1800000000);
	add70(f, &b);
	/* Each 900 s HIS sample overlaps it by 900 of its 1800 s: half the PDT. */
	assert_int_equal(join(f, "SYSA", T0, 900, 0, MF_POOL_GCP), 1);
	assert_double_equal(f->s->rmf_busy_s, 600.0, 1e-9);
	assert_string_equal(polname(f->s->polarity), "VH");
	assert_int_equal(f->s->lpar_weight, 300);
	assert_int_equal(join(f, "SYSA", T0 + S(900), 900, 0, MF_POOL_GCP), 1);
	assert_double_equal(f->s->rmf_busy_s, 600.0, 1e-9);
	assert_int_equal(join(f, "SYSA", T0, 900, 1, MF_POOL_GCP), 1);
	assert_double_equal(f->s->rmf_busy_s, 300.15, 1e-9);
	assert_int_equal(join(f, "SYSA", T0 + S(900), 900, 1, MF_POOL_GCP), 1);
	assert_double_equal(f->s->rmf_busy_s, 300.15, 1e-9);
	assert_int_equal(join(f, "SYSA", T0 + S(900), 900, 2, MF_POOL_ZIIP), 1);
	assert_double_equal(f->s->rmf_busy_s, 900.0, 1e-9);

	/* Five samples, one pair of lengths: one warning naming both, the count and the first start. */
	warnings(f);
	assert_int_equal(f->nwarn, 1);
	warning_with(f, "system SYSA", "HIS intervals of 900 s", "RMF intervals of 1800 s", "5 samples",
		     "first at 2025-03-04T00:00:00Z", NULL);
}

/* ---- HIS shifted by 300 s against 900 s RMF intervals ------------------- */

static void test_shifted(void **state)
{
	struct fix *f = *state;
	struct rec70 b;
	/* Interval 0 [T0, T0+900): CPU 0 VH weight 300, PDT 270 s. */
	sysa(&b, T0, 900, 270000000, 0, 0);
	add70(f, &b);
	/* Interval 1 [T0+900, T0+1800): CPU 0 now VM with weight 500, PDT 810 s. */
	sysa(&b, T0 + S(900), 900, 810000000, 0, 0);
	b.lcpus[0].polarity = MF_POL_VM;
	b.lcpus[0].weight = 500;
	add70(f, &b);

	/* [T0+300, T0+1200): 600 s in interval 0, 300 s in 1: 270 x 2/3 + 810 x 1/3 = 180 + 270 = 450 s;
	 * identity from interval 0 (the larger overlap): VH, 300. */
	assert_int_equal(join(f, "SYSA", T0 + S(300), 900, 0, MF_POOL_GCP), 1);
	assert_double_equal(f->s->rmf_busy_s, 450.0, 1e-9);
	assert_string_equal(polname(f->s->polarity), "VH");
	assert_int_equal(f->s->lpar_weight, 300);
	assert_int_equal(f->s->lpar, id(f, "LPSYSA"));

	/* [T0+600, T0+1500): 300 s in 0, 600 s in 1: 270 x 1/3 + 810 x 2/3 = 90 + 540 = 630 s; VM, 500. */
	assert_int_equal(join(f, "SYSA", T0 + S(600), 900, 0, MF_POOL_GCP), 1);
	assert_double_equal(f->s->rmf_busy_s, 630.0, 1e-9);
	assert_string_equal(polname(f->s->polarity), "VM");
	assert_int_equal(f->s->lpar_weight, 500);

	/* [T0+1200, T0+2100): 600 s of it in interval 1, the last 300 s in none: joined (VM), but RMF
	 * covers only 600 of 900 s (beyond the tolerance): no busy. */
	assert_int_equal(join(f, "SYSA", T0 + S(1200), 900, 0, MF_POOL_GCP), 1);
	assert_string_equal(polname(f->s->polarity), "VM");
	assert_true(isnan(f->s->rmf_busy_s));

	/* Same lengths, shifted boundaries: the warning says 900 s and 900 s. */
	warnings(f);
	assert_int_equal(f->nwarn, 1);
	warning_with(f, "system SYSA", "HIS intervals of 900 s and RMF intervals of 900 s do not line up", "3 samples",
		     "first at 2025-03-04T00:05:00Z", NULL);
}

/* ---- samples outside every RMF interval; a system without RMF data ------ */

static void test_outside(void **state)
{
	struct fix *f = *state;
	struct rec70 b;
	sysa(&b, T0, 900, 450000000, 0, 0);
	add70(f, &b);
	/* [T0+3600, +900) and [T0+4500, +900): no overlap with [T0, T0+900): not joined, counted. */
	assert_int_equal(join(f, "SYSA", T0 + S(3600), 900, 0, MF_POOL_GCP), 0);
	assert_int_equal(f->s->lpar, 0);
	assert_false(f->s->lpar_joined);
	assert_int_equal(f->s->polarity, MF_POL_NONE);
	assert_int_equal(f->s->lpar_weight, -1);
	assert_true(isnan(f->s->rmf_busy_s));
	assert_int_equal(join(f, "SYSA", T0 + S(4500), 900, 1, MF_POOL_GCP), 0);
	/* Touching the interval's end only ([T0+900, ...)): outside too. */
	assert_int_equal(join(f, "SYSA", T0 + S(900), 900, 1, MF_POOL_GCP), 0);
	/* A sample with no interval is not "outside": it has no time to be outside of. */
	mf_sample_reset(f->s);
	f->s->system = id(f, "SYSA");
	f->s->cpu = 0;
	assert_int_equal(mf_lparmap_join(f->m, f->s), 0);
	/* The one inside joins. */
	assert_int_equal(join(f, "SYSA", T0, 900, 0, MF_POOL_GCP), 1);

	warnings(f);
	assert_int_equal(f->nwarn, 1);
	warning_with(f, "system SYSA: 3 samples outside every RMF (SMF type 70) interval",
		     "first at 2025-03-04T01:00:00Z", NULL);
}

/*
 * A system with no type 70 records beside one with them: its samples are
 * warned about.  SYSB has a 99.14 record (so the map knows the system), SYSC
 * has nothing at all in the map: both must be named.
 */
static void test_no_rmf_system(void **state)
{
	struct fix *f = *state;
	struct rec70 b;
	struct rec99 t;
	sysa(&b, T0, 900, 450000000, 0, 0);
	add70(f, &b);
	r99_init(&t, "SYSB", T0);
	r99_cpu(&t, 0, 0, MF_POL_VH, 0, 0);
	add99(f, &t);
	assert_int_equal(join(f, "SYSA", T0, 900, 0, MF_POOL_GCP), 1);
	/* SYSB: no RMF interval; drawer and chip from its 99.14 all the same. */
	assert_int_equal(join(f, "SYSB", T0, 900, 0, MF_POOL_GCP), 0);
	assert_int_equal(f->s->drawer, 0);
	assert_int_equal(f->s->lpar, 0);
	assert_true(isnan(f->s->rmf_busy_s));
	assert_int_equal(join(f, "SYSC", T0, 900, 0, MF_POOL_GCP), 0);
	assert_int_equal(f->s->lpar, 0);

	warnings(f);
	warning_with(f, "system SYSB has no SMF type 70 records (other systems have)", NULL);
	/* No "outside" warning for them: they have no RMF intervals to be outside of. */
	for (size_t i = 0; i < f->nwarn; i++)
		assert_null(strstr(f->warn[i], "outside"));
	/* A system with neither type 70 nor 99.14 records (the usual case) too: before 0c08c51 the
	 * join never entered it in the map and this warning could not fire. */
	warning_with(f, "system SYSC has no SMF type 70 records (other systems have)", NULL);
}

/* ---- an LPAR name change ------------------------------------------------ */

static void test_lpar_change(void **state)
{
	struct fix *f = *state;
	struct rec70 b;
	/* Intervals 0 and 1 in LPSYSA, 2 and 3 in LPMOVED (the number stays 1). */
	for (int k = 0; k < 4; k++) {
		sysa(&b, T0 + S(900 * k), 900, 100000000, 0, 0);
		if (k >= 2)
			snprintf(b.lpars[0].name, sizeof(b.lpars[0].name), "LPMOVED");
		add70(f, &b);
	}
	assert_int_equal(join(f, "SYSA", T0 + S(900), 900, 0, MF_POOL_GCP), 1);
	assert_int_equal(f->s->lpar, id(f, "LPSYSA"));
	assert_int_equal(join(f, "SYSA", T0 + S(1800), 900, 0, MF_POOL_GCP), 1);
	assert_int_equal(f->s->lpar, id(f, "LPMOVED"));
	assert_true(f->s->lpar_joined);

	/* One warning, naming both LPARs and the start of interval 2 (T0 + 1800 s = 00:30:00Z). */
	warnings(f);
	assert_int_equal(f->nwarn, 1);
	assert_string_equal(f->warn[0],
			    "system SYSA ran in LPAR LPSYSA, then in LPAR LPMOVED from the interval "
			    "starting 2025-03-04T00:30:00Z");
}

/* ---- duplicates, two systems of one machine, the LPAR table ------------- */

/* Every record of the machine carries all its LPARs (the PR/SM view); own: whose record it is. */
static void machine(struct rec70 *b, const char *system, int64_t start_us, unsigned weight_a, uint64_t scale)
{
	bool a = strcmp(system, "SYSA") == 0;
	r70_init(b, system, SERIAL, start_us, 900);
	/* LPSYSA: GCP 0 VH, GCP 1 VM, GCP 2 VL (weight weight_a), zIIP 3 VM (weight 100). */
	r70_lpar(b, "LPSYSA", 1, a);
	r70_lcpu(b, 0, MF_POOL_GCP, MF_POL_VH, weight_a, 500000000 * scale);
	r70_lcpu(b, 1, MF_POOL_GCP, MF_POL_VM, weight_a, 200000000 * scale);
	r70_lcpu(b, 2, MF_POOL_GCP, MF_POL_VL, weight_a, 50000000 * scale);
	r70_lcpu(b, 3, MF_POOL_ZIIP, MF_POL_VM, 100, 30000000 * scale);
	/* LPSYSB: GCP 0 VH weight 400, zIIP 1 dedicated (VH). */
	r70_lpar(b, "LPSYSB", 2, !a);
	r70_lcpu(b, 0, MF_POOL_GCP, MF_POL_VH, 400, 100000000 * scale);
	r70_lcpu(b, 1, MF_POOL_ZIIP, MF_POL_VH, DED, 900000000 * scale);
	/* An LPAR that writes no records: IFLs, horizontal. */
	r70_lpar(b, "LPX1", 3, false);
	r70_lcpu(b, 0, MF_POOL_IFL, MF_POL_HZ, 50, 360000000);
	r70_lcpu(b, 1, MF_POOL_IFL, MF_POL_HZ, 50, 360000000);
	/* PR/SM's own partition: left out of the table. */
	r70_lpar(b, "PHYSICAL", 255, false);
	r70_lcpu(b, 0, MF_POOL_GCP, MF_POL_HZ, 0, 7000000);
	if (a) {
		for (unsigned c = 0; c < 4; c++)
			r70_cpu(b, c, c == 3 ? MF_POOL_ZIIP : MF_POOL_GCP);
	} else {
		r70_cpu(b, 0, MF_POOL_GCP);
		r70_cpu(b, 1, MF_POOL_ZIIP);
	}
}

static const struct mf_lpar_row *row_named(const struct mf_lpar_row *rows, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	fail_msg("no LPAR row %s", name);
	return NULL;
}

static void test_table(void **state)
{
	struct fix *f = *state;
	struct rec70 b;
	struct mf_lpar_row *rows = NULL;
	const struct mf_lpar_row *r;
	size_t n = 0;

	/* Interval 0 from SYSA, twice (a dump read twice): kept once. */
	machine(&b, "SYSA", T0, 300, 1);
	add70(f, &b);
	add70(f, &b);
	assert_int_equal(mf_lparmap_nintervals(f->m), 1);
	/* The same machine interval from SYSB: its own interval (1 per system), but the table counts it once. */
	machine(&b, "SYSB", T0, 300, 1);
	add70(f, &b);
	assert_int_equal(mf_lparmap_nintervals(f->m), 2);

	assert_int_equal(mf_lparmap_table(f->m, f->tab, &rows, &n), 0);
	/* LPSYSA, LPSYSB, LPX1, sorted by name; PHYSICAL left out. */
	assert_int_equal(n, 3);
	assert_string_equal(rows[0].name, "LPSYSA");
	assert_string_equal(rows[1].name, "LPSYSB");
	assert_string_equal(rows[2].name, "LPX1");
	r = &rows[0];
	assert_string_equal(r->serial, SERIAL);
	assert_int_equal(r->machine_type, 3931);
	assert_int_equal(r->number, 1);
	assert_int_equal(r->system, id(f, "SYSA"));
	/* Once, not twice: GCP 500 + 200 + 50 = 750 s, zIIP 30 s, 900 s of wall clock. */
	assert_double_equal(r->dispatch_s[MF_POOL_GCP], 750.0, 1e-9);
	assert_double_equal(r->dispatch_s[MF_POOL_ZIIP], 30.0, 1e-9);
	assert_double_equal(r->seconds, 900.0, 1e-9);
	assert_int_equal(r->weight[MF_POOL_GCP], 300);
	assert_int_equal(r->weight[MF_POOL_ZIIP], 100);
	assert_int_equal(r->weight[MF_POOL_IFL], -1);
	assert_false(r->dedicated[MF_POOL_GCP]);
	assert_int_equal(r->lcpus[MF_POOL_GCP][MF_POL_VH], 1);
	assert_int_equal(r->lcpus[MF_POOL_GCP][MF_POL_VM], 1);
	assert_int_equal(r->lcpus[MF_POOL_GCP][MF_POL_VL], 1);
	assert_int_equal(r->lcpus[MF_POOL_GCP][MF_POL_HZ], 0);
	assert_int_equal(r->lcpus[MF_POOL_ZIIP][MF_POL_VM], 1);
	assert_true(r->first_us == T0);
	assert_true(r->last_us == T0 + S(900));
	r = &rows[1];
	assert_int_equal(r->number, 2);
	assert_int_equal(r->system, id(f, "SYSB"));
	assert_int_equal(r->weight[MF_POOL_GCP], 400);
	assert_int_equal(r->weight[MF_POOL_ZIIP], 0);
	assert_true(r->dedicated[MF_POOL_ZIIP]);
	assert_double_equal(r->dispatch_s[MF_POOL_ZIIP], 900.0, 1e-9);
	assert_double_equal(r->seconds, 900.0, 1e-9);
	r = &rows[2];
	assert_int_equal(r->system, 0); /* no system of it wrote records */
	assert_int_equal(r->lcpus[MF_POOL_IFL][MF_POL_HZ], 2);
	assert_int_equal(r->weight[MF_POOL_IFL], 50);
	assert_double_equal(r->dispatch_s[MF_POOL_IFL], 720.0, 1e-9);
	free(rows);

	/* Interval 1 from both systems, LPSYSA's GCP weight now 350, dispatch doubled:
	 * GCP 750 + 1500 = 2250 s, zIIP 30 + 60 = 90 s, seconds 1800; weight the latest, 350. */
	machine(&b, "SYSA", T0 + S(900), 350, 2);
	add70(f, &b);
	machine(&b, "SYSB", T0 + S(900), 350, 2);
	add70(f, &b);
	assert_int_equal(mf_lparmap_nintervals(f->m), 4);
	assert_int_equal(mf_lparmap_table(f->m, f->tab, &rows, &n), 0);
	assert_int_equal(n, 3);
	r = row_named(rows, n, "LPSYSA");
	assert_double_equal(r->dispatch_s[MF_POOL_GCP], 2250.0, 1e-9);
	assert_double_equal(r->dispatch_s[MF_POOL_ZIIP], 90.0, 1e-9);
	assert_double_equal(r->seconds, 1800.0, 1e-9);
	assert_int_equal(r->weight[MF_POOL_GCP], 350);
	assert_int_equal(r->lcpus[MF_POOL_GCP][MF_POL_VH], 1); /* the latest interval's, not summed */
	assert_true(r->last_us == T0 + S(1800));
	free(rows);

	/* Interval 0 once more (a second copy of the dump): nothing changes. */
	machine(&b, "SYSA", T0, 300, 1);
	add70(f, &b);
	assert_int_equal(mf_lparmap_nintervals(f->m), 4);
	assert_int_equal(mf_lparmap_table(f->m, f->tab, &rows, &n), 0);
	r = row_named(rows, n, "LPSYSA");
	assert_double_equal(r->dispatch_s[MF_POOL_GCP], 2250.0, 1e-9);
	assert_double_equal(r->seconds, 1800.0, 1e-9);
	assert_int_equal(r->weight[MF_POOL_GCP], 350);
	free(rows);

	/* A second machine sorts by serial first: its LPAR ZZZ comes before LPSYSA. */
	r70_init(&b, "SYSZ", "0000000000000001", T0, 900);
	r70_lpar(&b, "ZZZ", 1, true);
	r70_lcpu(&b, 0, MF_POOL_GCP, MF_POL_HZ, 10, 1000000);
	r70_cpu(&b, 0, MF_POOL_GCP);
	add70(f, &b);
	assert_int_equal(mf_lparmap_table(f->m, f->tab, &rows, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(rows[0].name, "ZZZ");
	assert_string_equal(rows[0].serial, "0000000000000001");
	assert_string_equal(rows[1].name, "LPSYSA");
	free(rows);

	/* The systems' samples join their own LPAR: SYSB CPU 1 = LPSYSB's dedicated zIIP. */
	assert_int_equal(join(f, "SYSB", T0, 900, 1, MF_POOL_ZIIP), 1);
	assert_int_equal(f->s->lpar, id(f, "LPSYSB"));
	assert_int_equal(f->s->lpar_weight, 0);
	assert_string_equal(polname(f->s->polarity), "VH");
	assert_true(f->s->rmf_busy_s == 900.0);
	warnings(f);
	assert_int_equal(f->nwarn, 0);
}

/*
 * "The latest weight per pool" and "logical processors ... latest interval"
 * (lpar.h) when the records come out of time order (two dumps given newest
 * first: `mfstat report day2.smf day1.smf`).
 */
static void test_table_out_of_order(void **state)
{
	struct fix *f = *state;
	struct rec70 b;
	struct mf_lpar_row *rows = NULL;
	size_t n = 0;
	machine(&b, "SYSA", T0 + S(900), 350, 1);
	add70(f, &b);
	machine(&b, "SYSA", T0, 300, 1);
	add70(f, &b);
	assert_int_equal(mf_lparmap_table(f->m, f->tab, &rows, &n), 0);
	const struct mf_lpar_row *r = row_named(rows, n, "LPSYSA");
	assert_double_equal(r->seconds, 1800.0, 1e-9);
	assert_true(r->first_us == T0);
	assert_true(r->last_us == T0 + S(1800));
	/* The weight and the logical processor counts are the latest interval's (350), not those of
	 * the record added last (300). */
	assert_int_equal(r->weight[MF_POOL_GCP], 350);
	free(rows);
}

/* ---- an invalid CPU, broken records -------------------------------------- */

static void test_invalid_broken(void **state)
{
	struct fix *f = *state;
	struct rec70 b;
	/* CPU 1 reconfigured in the interval (SMF70CNF bit 6): its data is not valid. */
	sysa(&b, T0, 900, 450000000, 300000000, 0);
	b.cpus[1].invalid = true;
	add70(f, &b);
	assert_int_equal(join(f, "SYSA", T0, 900, 1, MF_POOL_GCP), 1);
	assert_true(isnan(f->s->rmf_busy_s));
	assert_string_equal(polname(f->s->polarity), "VM"); /* the identity stands */
	assert_int_equal(f->s->lpar_weight, 300);
	assert_int_equal(join(f, "SYSA", T0, 900, 0, MF_POOL_GCP), 1);
	assert_true(f->s->rmf_busy_s == 450.0);

	/* An invalid CPU in one of two overlapped intervals: no busy for the sample (not half of it). */
	sysa(&b, T0 + S(900), 900, 450000000, 300000000, 0);
	add70(f, &b);
	assert_int_equal(join(f, "SYSA", T0 + S(450), 900, 1, MF_POOL_GCP), 1);
	assert_true(isnan(f->s->rmf_busy_s));

	/* Two broken records (SMF70RAN): counted, not joined, no interval. */
	sysa(&b, T0 + S(1800), 900, 1, 1, 1);
	b.r.broken = true;
	add70(f, &b);
	sysa(&b, T0 + S(2700), 900, 1, 1, 1);
	b.r.broken = true;
	add70(f, &b);
	assert_int_equal(mf_lparmap_nintervals(f->m), 2);
	assert_int_equal(join(f, "SYSA", T0 + S(1800), 900, 0, MF_POOL_GCP), 0);
	assert_true(isnan(f->s->rmf_busy_s));
	warnings(f);
	warning_with(f, "2 SMF type 70 subtype 1 records split over several records (SMF70RAN) are not joined", NULL);
}

/*
 * A broken record read twice (report's first pass and its second one over
 * the same file, or the same dump given twice) is the same record, as a whole
 * record read twice is kept once.
 */
static void test_broken_twice(void **state)
{
	struct fix *f = *state;
	struct rec70 b;
	sysa(&b, T0, 900, 1, 1, 1);
	b.r.broken = true;
	add70(f, &b);
	add70(f, &b);
	warnings(f);
	/* Counted once however often it is added (`mfstat report FILE` reads it twice). */
	warning_with(f, "1 SMF type 70 subtype 1 record split over several records (SMF70RAN) is not joined", NULL);
}

/* ---- 99.14: drawer, chip, polarity ---------------------------------------- */

static void test_topology(void **state)
{
	struct fix *f = *state;
	struct rec99 t;
	/* Added newest first: the map sorts them by time. At T0+1800: CPU 0 in drawer 1, chip 3. */
	r99_init(&t, "SYSA", T0 + S(1800));
	r99_cpu(&t, 0, 0, MF_POL_VM, 1, 3);
	r99_cpu(&t, 1, 5, MF_POL_VL, 1, 4);
	add99(f, &t);
	/* At T0: CPU 0 in drawer 0, chip 0, VM; CPU 1 (zIIP) drawer 0 chip 1, VL. */
	r99_init(&t, "SYSA", T0);
	r99_cpu(&t, 0, 0, MF_POL_VM, 0, 0);
	r99_cpu(&t, 1, 5, MF_POL_VL, 0, 1);
	add99(f, &t);
	add99(f, &t); /* the same one again: kept once */
	assert_int_equal(mf_lparmap_ntopos(f->m), 2);
	assert_int_equal(mf_lparmap_nintervals(f->m), 0);

	/* [T0, T0+900): ends at T0+900, the latest at or before it is T0's. No RMF: returns 0,
	 * polarity from 99.14 (70 gave none). */
	assert_int_equal(join(f, "SYSA", T0, 900, 0, MF_POOL_GCP), 0);
	assert_int_equal(f->s->drawer, 0);
	assert_int_equal(f->s->chip, 0);
	assert_string_equal(polname(f->s->polarity), "VM");
	assert_int_equal(f->s->lpar, 0);
	/* [T0+900, T0+1800): ends exactly at the second topology: that one (at or before). */
	assert_int_equal(join(f, "SYSA", T0 + S(900), 900, 0, MF_POOL_GCP), 0);
	assert_int_equal(f->s->drawer, 1);
	assert_int_equal(f->s->chip, 3);
	assert_int_equal(join(f, "SYSA", T0 + S(900), 900, 1, MF_POOL_ZIIP), 0);
	assert_int_equal(f->s->drawer, 1);
	assert_int_equal(f->s->chip, 4);
	assert_string_equal(polname(f->s->polarity), "VL");
	/* [T0+899, T0+1799): ends 1 s before it: T0's. */
	assert_int_equal(join(f, "SYSA", T0 + S(899), 900, 0, MF_POOL_GCP), 0);
	assert_int_equal(f->s->drawer, 0);
	/* Before every topology ([T0-1800, T0-900)): the first one. */
	assert_int_equal(join(f, "SYSA", T0 - S(1800), 900, 1, MF_POOL_ZIIP), 0);
	assert_int_equal(f->s->drawer, 0);
	assert_int_equal(f->s->chip, 1);
	/* A CPU the topology does not list: nothing. */
	assert_int_equal(join(f, "SYSA", T0, 900, 5, MF_POOL_GCP), 0);
	assert_int_equal(f->s->drawer, -1);
	assert_int_equal(f->s->chip, -1);
	assert_int_equal(f->s->polarity, MF_POL_NONE);
	/* No RMF data anywhere: no warning. */
	warnings(f);
	assert_int_equal(f->nwarn, 0);
}

static void test_topology_polarity(void **state)
{
	struct fix *f = *state;
	struct rec99 t;
	struct rec70 b;
	/* 99.14 says CPU 0 VM and CPU 1 VL; CPU 2 is not in it. */
	r99_init(&t, "SYSA", T0);
	r99_cpu(&t, 0, 0, MF_POL_VM, 2, 5);
	r99_cpu(&t, 1, 0, MF_POL_VL, 2, 6);
	add99(f, &t);
	/* 70 says CPU 0 VH (with its logical processor); CPU 1 has no logical processor data (lcpu -1). */
	sysa(&b, T0, 900, 450000000, 300000000, 0);
	b.cpus[1].lcpu = -1;
	add70(f, &b);

	/* CPU 0: 70 gives VH: 70 wins; drawer and chip from 99.14. */
	assert_int_equal(join(f, "SYSA", T0, 900, 0, MF_POOL_GCP), 1);
	assert_string_equal(polname(f->s->polarity), "VH");
	assert_int_equal(f->s->drawer, 2);
	assert_int_equal(f->s->chip, 5);
	assert_true(f->s->rmf_busy_s == 450.0);
	/* CPU 2: 70 gives VH (dedicated zIIP), 99.14 nothing. */
	assert_int_equal(join(f, "SYSA", T0, 900, 2, MF_POOL_ZIIP), 1);
	assert_string_equal(polname(f->s->polarity), "VH");
	assert_int_equal(f->s->drawer, -1);
	/* CPU 1: 70 knows the CPU but gives no polarity (no logical processor section entry), so the
	 * polarity is 99.14's, VL; no weight, no busy. */
	assert_int_equal(join(f, "SYSA", T0, 900, 1, MF_POOL_GCP), 1);
	assert_int_equal(f->s->drawer, 2);
	assert_int_equal(f->s->chip, 6);
	assert_int_equal(f->s->lpar_weight, -1);
	assert_true(isnan(f->s->rmf_busy_s));
	assert_string_equal(polname(f->s->polarity), "VL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_aligned, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_rmf_longer, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_shifted, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_outside, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_no_rmf_system, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_lpar_change, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_table, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_table_out_of_order, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_invalid_broken, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_broken_twice, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_topology, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_topology_polarity, fix_setup, fix_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
