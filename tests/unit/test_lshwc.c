/* SPDX-License-Identifier: MIT */
/*
 * lshwc reader: the four man-page examples (tests/data/lshwc/), differencing of
 * cumulative reads (the first read is the base, no interval), per-CPU against
 * Total rows, the family from the JSON versions or from the counters, and
 * every bad input with its position.
 */
#include <math.h>

#include "pipeline.h"

MF_TEST_KB_FIXTURE()

#define DATA MFSTAT_SOURCE_DIR "/tests/data/lshwc/"
#define EX1 DATA "lshwc_man_ex1_basic_problem_total.csv"
#define EX2 DATA "lshwc_man_ex2_problem_allcpu.csv"
#define EX3 DATA "lshwc_man_ex3_basic_delta_short.csv"
#define EX4 DATA "lshwc_man_ex4_problem_cpu3.json"

#define SEC INT64_C(1000000)

struct run {
	struct mf_strtab *tab;
	struct mf_reader *r;
	struct mf_sample s;
	struct mf_error e;
	int open_rc;
};

/* Opens a file (path) or text (name "t.csv"), with --machine and --by cpu as given. */
static void start(struct run *run, const char *path, const char *text, const char *machine, bool per_cpu)
{
	struct mf_reader_opts ro = {0};
	memset(run, 0, sizeof(*run));
	run->tab = mf_strtab_new();
	ro.kb = kb;
	ro.strtab = run->tab;
	ro.per_cpu = per_cpu;
	if (!path)
		ro.format = "lshwc";
	if (machine)
		assert_int_equal(mf_kb_resolve(kb, machine, strlen(machine), &ro.family, &ro.machine), 0);
	mf_error_clear(&run->e);
	if (path)
		run->open_rc = mf_reader_open(&run->r, path, &ro, &run->e);
	else
		run->open_rc = mf_reader_open_mem(&run->r, "t.csv", text, strlen(text), &ro, &run->e);
	if (run->open_rc == 0)
		assert_string_equal(mf_reader_format(run->r), "lshwc");
}

static void finish(struct run *run)
{
	mf_reader_close(run->r);
	mf_strtab_free(run->tab);
}

static int next(struct run *run)
{
	return mf_reader_next(run->r, &run->s, &run->e);
}

static uint64_t value_of(const struct mf_sample *s, unsigned number)
{
	size_t i;
	assert_true(s->family->dense[number] >= 0);
	for (i = 0; i < s->n; i++)
		if (s->slot[i] == (uint16_t)s->family->dense[number])
			return s->value[i];
	fail_msg("counter %u not in sample", number);
	return 0;
}

static bool has_warning(const struct mf_reader *r, const char *text)
{
	size_t i;
	for (i = 0; i < mf_reader_nwarnings(r); i++)
		if (strstr(mf_reader_warning(r, i), text))
			return true;
	return false;
}

/* 2021-04-01 11:50:32 as written (local time, taken as UTC). */
static int64_t t2021(int h, int m, int s)
{
	return (INT64_C(1617235200) + h * 3600 + m * 60 + s) * SEC;
}

/* The reader, grouper and metrics as `mfstat report` runs them. */
static void pipe_file(struct pipe *p, const char *path, unsigned by, bool per_cpu)
{
	struct mf_reader_opts ro = {0};
	struct mf_reader *r = NULL;
	struct mf_sample *s = malloc(sizeof(*s));
	struct mf_error e;
	size_t i;
	int rc;

	memset(p, 0, sizeof(*p));
	p->kb = kb;
	p->by = by;
	p->tab = mf_strtab_new();
	p->g = mf_grouper_new(by);
	ro.kb = kb;
	ro.strtab = p->tab;
	ro.per_cpu = per_cpu;
	mf_error_clear(&e);
	if (mf_reader_open(&r, path, &ro, &e) != 0)
		fail_msg("open: %s", e.msg);
	while ((rc = mf_reader_next(r, s, &e)) == 1) {
		assert_int_equal(mf_grouper_add(p->g, s), 0);
		p->rows++;
	}
	if (rc != 0)
		fail_msg("line %ld: %s", e.line, e.msg);
	mf_reader_close(r);
	free(s);
	p->groups = mf_grouper_groups(p->g, p->tab, &p->n);
	p->res = mf_results_new(p->groups, p->n);
	for (i = 0; i < p->n; i++)
		mf_metrics_compute(kb, p->groups[i], NULL, &p->res[i]);
}

static uint64_t group_sum(const struct pipe *p, size_t g, unsigned number)
{
	return p->groups[g]->sum[p->groups[g]->family->dense[number]];
}

/* The reader's dropped counts (mf_reader_counts), as "what=n;" pairs. */
static void count_fn(void *ctx, enum mf_count_kind kind, const char *what, uint64_t n)
{
	char *out = ctx;
	size_t used = strlen(out);
	if (kind == MF_COUNT_DROPPED)
		snprintf(out + used, 1024 - used, "%s=%llu;", what, (unsigned long long)n);
}

static void dropped(struct mf_reader *r, char out[1024])
{
	out[0] = '\0';
	mf_reader_counts(r, count_fn, out);
}

#define FIRST_TOTAL                                                                                                    \
	"the Total row of the first read (baseline only: counts since the counters were switched on, not an "          \
	"interval)"
#define FIRST_CPU                                                                                                      \
	"per-CPU rows of each CPU's first read (baseline only: counts since the counters were switched on, not an "    \
	"interval)"

/*
 * ex1: two cumulative Total reads.  The first counts from when lshwc switched the counters on,
 * over a time no row gives: it is the base of the second, no sample, counted as dropped.
 */
static void ex1_cumulative_totals(void **state)
{
	static const uint64_t r1[] = {125422, 39421, 304, 13953, 454, 97489, 0, 0};
	static const uint64_t r2[] = {68074231, 16386850, 194028, 21382384, 317227, 104503489, 777383, 14198};
	static const unsigned num[] = {0, 1, 2, 3, 4, 5, 32, 33};
	struct run run;
	struct pipe p;
	struct mf_strbuf sb;
	char drops[1024];
	size_t i;
	(void)state;

	start(&run, EX1, NULL, NULL, false);
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(next(&run), 1);
	assert_string_equal(run.s.family->key, "generic");
	assert_int_equal(run.s.cpu, -1);
	assert_int_equal(run.s.system, 0);
	assert_int_equal(run.s.n, 8);
	assert_true(run.s.has_start);
	assert_int_equal(run.s.start_us, t2021(11, 50, 32));
	assert_true(run.s.seconds == 60);
	for (i = 0; i < 8; i++)
		assert_true(value_of(&run.s, num[i]) == r2[i] - r1[i]);
	assert_int_equal(next(&run), 0);
	assert_int_equal(mf_reader_nwarnings(run.r), 0);
	dropped(run.r, drops);
	assert_string_equal(drops, FIRST_TOTAL "=1;");
	mf_strbuf_init(&sb);
	mf_reader_summary(run.r, &sb);
	assert_non_null(strstr(mf_strbuf_str(&sb),
			       "2 Total, 0 Delta and 0 per-CPU rows; samples from the Total "
			       "and Delta rows\n  dropped 1: " FIRST_TOTAL "\n"));
	mf_strbuf_free(&sb);
	finish(&run);

	/*
	 * One group for the whole file (--by ""): the second read's differences alone, worked out
	 * by hand: CPI (68074231 - 125422) / (16386850 - 39421) = 67948809 / 16347429, not the
	 * 68074231 / 16386850 of the first read's counts summed in; INTERVAL the 60 s between reads.
	 */
	pipe_file(&p, EX1, 0, false);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.rows, 1);
	assert_true(group_sum(&p, 0, 0) == 67948809);
	assert_true(fabs(metric(&p, 0, "CPI") - 67948809.0 / 16347429.0) < 1e-12);
	assert_true(fabs(metric(&p, 0, "L1MP") - (193724.0 + 316773.0) / 16347429.0 * 100) < 1e-12);
	assert_true(fabs(metric(&p, 0, "PRBSTATE") - 14198.0 / 16347429.0 * 100) < 1e-12);
	assert_true(p.res[0].interval == 60);
	pipe_free(&p);

	/* By interval: one group, the second read's; no group without a start. */
	pipe_file(&p, EX1, MF_BY_INTERVAL, false);
	assert_int_equal(p.n, 1);
	assert_true(fabs(metric(&p, 0, "CPI") - 67948809.0 / 16347429.0) < 1e-12);
	assert_true(p.groups[0]->has_start && p.groups[0]->start_us == t2021(11, 50, 32));
	assert_true(mf_group_interval_seconds(p.groups[0]) == 60);
	pipe_free(&p);
}

/* ex2: per-CPU rows and Total rows; by default only the Totals, with --by cpu only the CPUs. */
static void ex2_per_cpu_and_total(void **state)
{
	static const uint64_t cpu0[3][2] = {{0, 0}, {818775, 14198}, {3207071426, 1489122591}};
	static const uint64_t cpu1[3][2] = {{0, 0}, {125689, 1306}, {3225092021, 1489278312}};
	static const uint64_t tot[3][2] = {{0, 0}, {944464, 15504}, {6432163447, 2978400903}};
	struct run run;
	struct pipe pc, pt;
	char drops[1024];
	size_t i, k;
	(void)state;

	/* The first read (all zero here) is the base of the second: reads 2 and 3 are the samples. */
	start(&run, EX2, NULL, NULL, false);
	assert_int_equal(run.open_rc, 0);
	for (i = 1; i < 3; i++) {
		assert_int_equal(next(&run), 1);
		assert_int_equal(run.s.cpu, -1);
		assert_int_equal(run.s.start_us, t2021(11, 53 + (int)i, 47));
		for (k = 0; k < 2; k++)
			assert_true(value_of(&run.s, 32 + (unsigned)k) == tot[i][k] - tot[i - 1][k]);
	}
	assert_int_equal(next(&run), 0);
	dropped(run.r, drops);
	assert_string_equal(drops, FIRST_TOTAL "=1;");
	finish(&run);

	/* --by cpu: each CPU's first read is its base, counted. */
	start(&run, EX2, NULL, NULL, true);
	assert_int_equal(run.open_rc, 0);
	for (i = 1; i < 3; i++) {
		assert_int_equal(next(&run), 1);
		assert_int_equal(run.s.cpu, 0);
		assert_int_equal(run.s.start_us, t2021(11, 53 + (int)i, 47));
		for (k = 0; k < 2; k++)
			assert_true(value_of(&run.s, 32 + (unsigned)k) == cpu0[i][k] - cpu0[i - 1][k]);
		assert_int_equal(next(&run), 1);
		assert_int_equal(run.s.cpu, 1);
		for (k = 0; k < 2; k++)
			assert_true(value_of(&run.s, 32 + (unsigned)k) == cpu1[i][k] - cpu1[i - 1][k]);
	}
	assert_int_equal(next(&run), 0);
	assert_int_equal(mf_reader_nwarnings(run.r), 0);
	dropped(run.r, drops);
	assert_string_equal(drops, FIRST_CPU "=2;");
	finish(&run);

	/* Per interval, the CPUs add up to the Total: each counted once either way. */
	pipe_file(&pt, EX2, MF_BY_INTERVAL, false);
	pipe_file(&pc, EX2, MF_BY_INTERVAL, true);
	assert_int_equal(pt.rows, 2);
	assert_int_equal(pc.rows, 4);
	assert_int_equal(pt.n, 2);
	assert_int_equal(pc.n, 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(pc.groups[i]->start_us, pt.groups[i]->start_us);
		assert_int_equal(pc.groups[i]->rows, 2);
		for (k = 32; k <= 33; k++)
			assert_true(group_sum(&pc, i, (unsigned)k) == group_sum(&pt, i, (unsigned)k));
	}
	assert_true(group_sum(&pt, 1, 32) == 6432163447u - 944464u);
	assert_true(group_sum(&pt, 1, 33) == 2978400903u - 15504u);
	pipe_free(&pt);
	pipe_free(&pc);
}

/*
 * ex3: lshwc -d with short names: a cumulative first row (Total), the base only, then Delta rows
 * taken as they are.
 */
static void ex3_delta_short(void **state)
{
	/* B0..B5 of each row of the file. */
	static const uint64_t b[10][6] = {
		{208075, 117287, 1950, 50548, 1082, 49609},
		{85800055, 70353492, 590286, 13228290, 364034, 12945804},
		{70654751, 60656797, 483047, 10838672, 305703, 10570868},
		{81043162, 69476160, 587141, 13228161, 376662, 12868298},
		{73434017, 62675417, 524857, 11787256, 333966, 11543649},
		{68367967, 58452919, 506712, 11370740, 310785, 10589883},
		{70351947, 57607764, 507675, 11433377, 312433, 10676243},
		{77154817, 65371168, 562153, 12671030, 349750, 12311061},
		{88871882, 75441201, 655310, 14875963, 392530, 13773130},
		{83763472, 71730813, 609260, 13643680, 366992, 12672405},
	};
	/*
	 * CPI = B0 / B1 and L1MP = (B2 + B4) / B1 * 100 of each Delta row (rows 2 to 10 of the file),
	 * worked out apart from mfstat (30-digit decimal arithmetic), e.g. row 2:
	 * 85800055 / 70353492 = 1.21955645073026,
	 * (590286 + 364034) / 70353492 * 100 = 954320 / 70353492 * 100 = 1.35646429604376.
	 * The Total row before them (1.774 and 2.585 so computed) is no interval: no group has it.
	 */
	static const double cpi[9] = {1.21955645073026, 1.16482825494396, 1.16648879270242,
				      1.1716558184208,  1.16962451438909, 1.2212233580182,
				      1.18025758695332, 1.17802846219269, 1.16774742257557};
	static const double l1mp[9] = {1.35646429604376, 1.30034891225793, 1.38724276068223,
				       1.37027089903526, 1.39855633214827, 1.42360672078854,
				       1.39496207257609, 1.38894925599077, 1.36099391484661};
	struct run run;
	struct pipe p;
	char drops[1024];
	uint64_t sum0 = 0, sum1 = 0;
	size_t i, k;
	(void)state;

	start(&run, EX3, NULL, NULL, false);
	assert_int_equal(run.open_rc, 0);
	for (i = 1; i < 10; i++) {
		assert_int_equal(next(&run), 1);
		assert_string_equal(run.s.family->key, "generic");
		assert_int_equal(run.s.cpu, -1);
		for (k = 0; k < 6; k++)
			assert_true(value_of(&run.s, (unsigned)k) == b[i][k]);
		/* 2025-03-26 10:34:19 + 5 s per read before this one */
		assert_int_equal(run.s.start_us, (INT64_C(1742985259) + 5 * ((int64_t)i - 1)) * SEC);
		assert_true(run.s.seconds == 5);
	}
	assert_int_equal(next(&run), 0);
	dropped(run.r, drops);
	assert_string_equal(drops, FIRST_TOTAL "=1;");
	finish(&run);

	pipe_file(&p, EX3, MF_BY_INTERVAL, false);
	assert_int_equal(p.n, 9);
	for (i = 0; i < 9; i++) {
		double c = metric(&p, i, "CPI"), l = metric(&p, i, "L1MP");
		if (fabs(c - cpi[i]) > 1e-13 * cpi[i] || fabs(l - l1mp[i]) > 1e-13 * l1mp[i])
			fail_msg("row %zu: CPI %.15g L1MP %.15g, by hand %.15g %.15g", i + 2, c, l, cpi[i], l1mp[i]);
		assert_true(p.groups[i]->has_start);
		assert_true(mf_group_interval_seconds(p.groups[i]) == 5);
	}
	pipe_free(&p);

	/* One group (--by ""): the nine Delta rows summed, the Total row not; 45 s. */
	for (i = 1; i < 10; i++) {
		sum0 += b[i][0];
		sum1 += b[i][1];
	}
	pipe_file(&p, EX3, 0, false);
	assert_int_equal(p.n, 1);
	assert_true(group_sum(&p, 0, 0) == sum0 && group_sum(&p, 0, 1) == sum1);
	assert_true(fabs(metric(&p, 0, "CPI") - (double)sum0 / (double)sum1) < 1e-12);
	assert_true(p.res[0].interval == 45);
	pipe_free(&p);

	/* --by cpu, but lshwc ran without -a: the Total and Delta rows, said once. */
	start(&run, EX3, NULL, NULL, true);
	assert_int_equal(run.open_rc, 0);
	for (i = 1; i < 10; i++) {
		assert_int_equal(next(&run), 1);
		assert_int_equal(run.s.cpu, -1);
		assert_true(value_of(&run.s, 0) == b[i][0]);
	}
	assert_int_equal(next(&run), 0);
	assert_int_equal(mf_reader_nwarnings(run.r), 1);
	assert_true(has_warning(run.r, "only its Total row"));
	finish(&run);
}

/* ex4: JSON; the family from "counter second": 8, the system from meta.host. */
static void ex4_json(void **state)
{
	struct run run;
	struct mf_strbuf sb;
	char drops[1024];
	(void)state;

	/* Two reads: the first ("total" at 19:24:06+02:00) the base, the second the one sample. */
	start(&run, EX4, NULL, NULL, false);
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(next(&run), 1);
	assert_string_equal(run.s.family->key, "z17");
	assert_null(run.s.machine);
	assert_string_equal(mf_strtab_get(run.tab, run.s.system), "b46lp08.lnxne.boe");
	assert_int_equal(run.s.cpu, -1);
	assert_int_equal(run.s.n, 2);
	assert_true(value_of(&run.s, 32) == 0 && value_of(&run.s, 33) == 0);
	assert_true(run.s.has_start && run.s.start_us == INT64_C(1750094646) * SEC);
	assert_true(run.s.seconds == 60);
	assert_int_equal(next(&run), 0);
	mf_strbuf_init(&sb);
	mf_reader_summary(run.r, &sb);
	assert_non_null(strstr(mf_strbuf_str(&sb), "lshwc JSON, family z17 (from counter second version 8)"));
	assert_non_null(strstr(mf_strbuf_str(&sb), "\n  dropped 1: " FIRST_TOTAL "\n"));
	mf_strbuf_free(&sb);
	dropped(run.r, drops);
	assert_string_equal(drops, FIRST_TOTAL "=1;");
	finish(&run);

	start(&run, EX4, NULL, NULL, true);
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(next(&run), 1);
	assert_int_equal(run.s.cpu, 3);
	assert_true(run.s.seconds == 60);
	assert_int_equal(next(&run), 0);
	dropped(run.r, drops);
	assert_string_equal(drops, FIRST_CPU "=1;");
	finish(&run);

	/* --machine wins over the versions. */
	start(&run, EX4, NULL, "z16", false);
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(next(&run), 1);
	assert_string_equal(run.s.family->key, "z16");
	finish(&run);
}

/* Family from the counters; 0x values; -q quotes; unnamed counters; a machine type's speed. */
static void family_and_forms(void **state)
{
	struct run run;
	(void)state;

	/* E180 (z16 only) with B0: one family. */
	start(&run, NULL,
	      "Date,Time,CPU,B0,B1,E180\n2025-01-01,00:00:00,Total,0,0,0\n2025-01-01,00:01:00,Total,0x10,0X1f,3\n",
	      NULL, false);
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(next(&run), 1);
	assert_string_equal(run.s.family->key, "z16");
	assert_true(value_of(&run.s, 0) == 16 && value_of(&run.s, 1) == 31 && value_of(&run.s, 180) == 3);
	finish(&run);

	/* Long names narrow the families E143 fits to those that call it L1C_TLB2_MISSES... */
	start(&run, NULL,
	      "Date,Time,CPU,CPU_CYCLES(0),L1C_TLB1_MISSES(143)\n2025-01-01,00:00:00,Total,1,2\n"
	      "2025-01-01,00:01:00,Total,1,2\n",
	      NULL, false);
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(next(&run), 1);
	assert_string_equal(run.s.family->key, "z13");
	finish(&run);
	start(&run, NULL, "Date,Time,CPU,L1C_TLB2_MISSES(143)\n", NULL, false);
	assert_int_equal(run.open_rc, MF_EUSAGE);
	assert_string_equal(run.e.msg, "counters fit z14, z15, z16, z17: give --machine");
	finish(&run);

	/* lshwc -q quotes every field. */
	start(&run, NULL,
	      "\"Date\",\"Time\",\"CPU\",\"CPU_CYCLES(0)\",\"INSTRUCTIONS(1)\"\r\n"
	      "\"2025-01-01\",\"00:00:00\",\"CPU2\",\"0\",\"0\"\r\n\"2025-01-01\",\"00:00:00\",\"Total\",\"0\","
	      "\"0\"\r\n"
	      "\"2025-01-01\",\"00:01:00\",\"CPU2\",\"5\",\"7\"\r\n\"2025-01-01\",\"00:01:00\",\"Total\",\"5\","
	      "\"7\"\r\n",
	      NULL, true);
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(next(&run), 1);
	assert_int_equal(run.s.cpu, 2);
	assert_true(value_of(&run.s, 1) == 7);
	assert_int_equal(next(&run), 0);
	finish(&run);

	/* An unnamed counter the family does not define is left out, said once. */
	start(&run, NULL,
	      "Date,Time,CPU,B0,Counter(300),U301\n2025-01-01,00:00:00,Total,0,0,0\n2025-01-01,00:01:00,Total,1,2,3\n",
	      "z16", false);
	assert_int_equal(run.open_rc, 0);
	assert_true(has_warning(run.r, "2 unnamed counters that z16 does not define were ignored"));
	assert_int_equal(next(&run), 1);
	assert_int_equal(run.s.n, 1);
	finish(&run);

	/* --machine 3931: its nominal speed, said. */
	start(&run, NULL, "Date,Time,CPU,B0\n2025-01-01,00:00:00,Total,0\n2025-01-01,00:01:00,Total,1\n", "3931",
	      false);
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(next(&run), 1);
	assert_true(run.s.machine != NULL && run.s.cpsp_nominal && run.s.cpsp == 5200);
	assert_int_equal(next(&run), 0);
	assert_true(has_warning(run.r, "nominal speed of machine type 3931"));
	finish(&run);

	/* Per-CPU rows of a -d run are deltas too: their read's summary says Delta (the first read's
	 * CPU row, cumulative like its Total row, is the base). */
	start(&run, NULL,
	      "Date,Time,CPU,B0\n"
	      "2025-01-01,00:00:00,CPU0,10\n2025-01-01,00:00:00,Total,10\n"
	      "2025-01-01,00:00:05,CPU0,4\n2025-01-01,00:00:05,Delta,4\n"
	      "2025-01-01,00:00:10,CPU0,6\n2025-01-01,00:00:10,Delta,6\n",
	      NULL, true);
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(next(&run), 1);
	assert_true(value_of(&run.s, 0) == 4 && run.s.seconds == 5);
	assert_int_equal(next(&run), 1);
	assert_true(value_of(&run.s, 0) == 6 && run.s.seconds == 5);
	assert_int_equal(next(&run), 0);
	finish(&run);

	/* Per-CPU rows with no Total row (a grep of one CPU): a new read starts at a new time. */
	start(&run, NULL, "Date,Time,CPU,B0\n2025-01-01,00:00:00,CPU3,10\n2025-01-01,00:01:00,CPU3,25\n", NULL, true);
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(next(&run), 1);
	assert_true(value_of(&run.s, 0) == 15 && run.s.seconds == 60);
	assert_int_equal(next(&run), 0);
	finish(&run);
	start(&run, NULL, "Date,Time,CPU,B0\n2025-01-01,00:00:00,CPU3,10\n2025-01-01,00:01:00,CPU3,25\n", NULL, false);
	assert_int_equal(next(&run), 0);
	assert_true(has_warning(run.r, "2 per-CPU rows without a Total or Delta row"));
	finish(&run);
}

struct bad {
	const char *text;
	const char *machine;
	int open; /* error at open (header) rather than at a row */
	int code;
	long line, col;
	const char *msg;
};

static void bad_inputs(void **state)
{
#define H "Date,Time,CPU,B0,B1\n"
#define R "2025-03-26,10:34:19,"
	static const struct bad cases[] = {
		{H R "Total,5\n", NULL, 0, MF_EFORMAT, 2, 28, "fewer fields than the header (4, header has 5)"},
		{H R "Total,5,6,7\n", NULL, 0, MF_EFORMAT, 2, 31, "more fields than the header"},
		{H R "Total,5,x1\n", NULL, 0, MF_EFORMAT, 2, 29, "B1: not a number 'x1'"},
		{H R "Total,5,-1\n", NULL, 0, MF_EFORMAT, 2, 29, "B1: a negative value"},
		{H R "Total,5,1f\n", NULL, 0, MF_EFORMAT, 2, 29, "use -X"},
		{H R "Total,5,18446744073709551616\n", NULL, 0, MF_EFORMAT, 2, 29, "does not fit in 64 bits"},
		{H R "Total,5,\n", NULL, 0, MF_EFORMAT, 2, 29, "B1: not a number ''"},
		{H R "CPUx,5,6\n", NULL, 0, MF_EFORMAT, 2, 21, "bad CPU label 'CPUx'"},
		{H R "CPU16384,5,6\n", NULL, 0, MF_EFORMAT, 2, 21, "bad CPU label"},
		{H "2025-13-26,10:34:19,Total,5,6\n", NULL, 0, MF_EFORMAT, 2, 1, "bad date '2025-13-26'"},
		{H "2025-03-26,25:34:19,Total,5,6\n", NULL, 0, MF_EFORMAT, 2, 12, "bad time '25:34:19'"},
		{H "2025-03-26,10:34,Total,5,6\n", NULL, 0, MF_EFORMAT, 2, 12, "bad time"},
		{H R "Total,\"5,6\n", NULL, 0, MF_EFORMAT, 2, 27, "malformed quotes"},
		{"Date,Time,CPU,B0,FOO\n", NULL, 1, MF_EFORMAT, 1, 18, "unknown column 'FOO'"},
		{"Date,Time,CPU,B0,B0\n", NULL, 1, MF_EFORMAT, 1, 18, "repeats counter 0"},
		{"Date,Time,CPU,CPU_CYCLES(0),X(0)\n", NULL, 1, MF_EFORMAT, 1, 29, "repeats counter 0"},
		{"Date,Time,CPU,B0,Counter(512)\n", NULL, 1, MF_EFORMAT, 1, 18, "unknown column"},
		{"Date,Time,CPU\n", NULL, 1, MF_EFORMAT, 1, 14, "without counter columns"},
		{"Date,Time,B0,B1\n", NULL, 1, MF_EFORMAT, 1, 11, "must start Date,Time,CPU"},
		{"Date,Time,CPU,B0,B6\n", NULL, 1, MF_EFORMAT, 1, 18, "counter B6 (number 6) is not defined on any"},
		{"Date,Time,CPU,B0,E143\n", NULL, 1, MF_EUSAGE, 0, 0,
		 "counters fit z196, zEC12, z13, z14, z15, z16, z17: give --machine"},
		/* E133 exists on z15 and before, E180 only on z16. */
		{"Date,Time,CPU,B0,E133,E180\n", NULL, 1, MF_ENOMACHINE, 1, 23,
		 "counter E180 fits no machine family together with the counters before it"},
		{"Date,Time,CPU,B0,E180\n", "z17", 1, MF_ENOCOUNTER, 1, 18,
		 "counter E180 (number 180) does not exist on z17"},
		{"{\"lshwc\": {\"measurements\": [}}\n", NULL, 1, MF_EFORMAT, 1, 29, "JSON: unexpected token near '}'"},
		{"{\"lshwc\": {\"measurements\": []", NULL, 1, MF_EFORMAT, 1, 29,
		 "JSON: '}' expected near end of file"},
		{"{\"lshwc\": {\"measurements\": []}} x", NULL, 1, MF_EFORMAT, 1, 33,
		 "JSON: text after the end of the document"},
		{"{\"lshwc\": {\"measurements\": []}, \"lshwc\": {}}", NULL, 1, MF_EFORMAT, 1, 33, "JSON: lshwc twice"},
		{"{\"lshwc\": {\"measurements\": [{\"a\": [1}]}}", NULL, 1, MF_EFORMAT, 1, 37,
		 "JSON: ']' expected near '}'"},
		{"{\"lshwc\": {\"measurements\": [\n  {\"cpu\": \"all\", \"counters\": [{\"id\": 0, \"value\": 1}]}]}}",
		 NULL, 0, MF_EFORMAT, 2, 3, "lshwc.measurements[0].cpu: expected a CPU number"},
		{"{\"lshwc\": {}}", NULL, 1, MF_EFORMAT, 0, 0, "\"measurements\" is missing"},
		{"{\"lshwc\": {\"cpumcf info\": {\"counter second\": 9}, \"measurements\": "
		 "[{\"cpu\": 0, \"counters\": [{\"id\": 0, \"value\": 1}]}]}}",
		 NULL, 1, MF_ENOMACHINE, 0, 0, "counter second version 9 names no known machine family"},
		{"{\"lshwc\": {\"measurements\": [{\"cpu\": \"total\", \"counters\": [{\"id\": 0, \"value\": "
		 "\"abc\"}]}]}}",
		 NULL, 0, MF_EFORMAT, 1, 29, "lshwc.measurements[0].counters[0].value (id 0): hexadecimal without 0x"},
		{"{\"lshwc\": {\"measurements\": [{\"cpu\": \"all\", \"counters\": [{\"id\": 0, \"value\": 1}]}]}}",
		 NULL, 0, MF_EFORMAT, 1, 29, "lshwc.measurements[0].cpu: expected a CPU number"},
		{"{\"lshwc\": {\"measurements\": [{\"cpu\": 1, \"counters\": [{\"id\": 0, \"value\": -1}]}]}}", NULL, 0,
		 MF_EFORMAT, 1, 29, "a negative value"},
		{"{\"meta\": {}}", NULL, 1, MF_EFORMAT, 0, 0, "no \"lshwc\" object"},
	};
#undef H
#undef R
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad *b = &cases[i];
		struct run run;
		int rc;
		start(&run, NULL, b->text, b->machine, false);
		rc = run.open_rc;
		if (!b->open && rc == 0)
			rc = next(&run);
		if (rc != b->code || run.e.line != b->line || (b->col && run.e.col != b->col) ||
		    !strstr(run.e.msg, b->msg))
			fail_msg("case %zu: got %d %ld:%ld '%s', expected %d %ld:%ld '%s'", i, rc, run.e.line,
				 run.e.col, run.e.msg, b->code, b->line, b->col, b->msg);
		assert_string_equal(run.e.file, "t.csv");
		finish(&run);
	}
}

/*
 * JSON is parsed a measurement at a time, each at most 1 MiB: a larger one is an error at its
 * start (a few KB of zstd can hold one that jansson would turn into gigabytes).
 */
static void json_piece_limit(void **state)
{
	static const char head[] =
		"{\"lshwc\": {\"measurements\": [\n"
		"{\"cpu\": \"total\", \"counters\": [{\"id\": 0, \"value\": 1}]},\n"
		"{\"cpu\": \"total\", \"pad\": \"";
	static const char tail[] = "\", \"counters\": [{\"id\": 0, \"value\": 2}]}]}}\n";
	size_t pad = ((size_t)1 << 20) + 1, n = strlen(head) + pad + strlen(tail);
	char *text = malloc(n + 1);
	struct run run;
	(void)state;
	assert_non_null(text);
	memcpy(text, head, strlen(head));
	memset(text + strlen(head), 'x', pad);
	memcpy(text + strlen(head) + pad, tail, strlen(tail) + 1);
	start(&run, NULL, text, NULL, false);
	assert_int_equal(run.open_rc, MF_EFORMAT);
	assert_int_equal(run.e.line, 3);
	assert_int_equal(run.e.col, 1);
	assert_string_equal(run.e.msg, "JSON: a measurement larger than 1 MiB (the limit)");
	finish(&run);
	/* Just under the limit it is read. */
	memmove(text + strlen(head) + pad - 200, text + strlen(head) + pad, strlen(tail) + 1);
	start(&run, NULL, text, NULL, false);
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(next(&run), 1); /* the second read less the first */
	assert_true(value_of(&run.s, 0) == 1);
	assert_int_equal(next(&run), 0);
	finish(&run);
	free(text);
}

/* A decreasing cumulative value is an error at its field; skipping it, reading goes on from it. */
static void decreasing_and_skip(void **state)
{
	struct run run;
	char buf[2048];
	(void)state;

	start(&run, NULL,
	      "Date,Time,CPU,B0,B1\n"
	      "2025-01-01,00:00:00,Total,10,10\n"
	      "2025-01-01,00:01:00,Total,20,9\n"
	      "2025-01-01,00:02:00,Total,x,30\n"
	      "2025-01-01,00:03:00,Total,26,40\n",
	      NULL, false);
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(next(&run), MF_EFORMAT); /* the first read is the base of the second */
	assert_int_equal(run.e.line, 3);
	assert_int_equal(run.e.col, 30);
	assert_non_null(strstr(run.e.msg, "B1: cumulative value 9 is below 10 of the read before"));
	mf_error_format(&run.e, buf, sizeof(buf));
	assert_non_null(strstr(buf, "t.csv:3:30: error: B1: cumulative value 9"));
	{
		/* The line, and the caret under the 9. */
		const char *l2 = strchr(buf, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
		assert_non_null(strstr(l2, "2025-01-01,00:01:00,Total,20,9"));
		assert_int_equal(strcspn(l3, "^"), (size_t)(strstr(l2, ",9") + 1 - l2));
	}
	assert_int_equal(next(&run), MF_EFORMAT);
	assert_int_equal(run.e.line, 4);
	assert_int_equal(run.e.col, 27);
	/* The next read counts from the one that decreased (00:01), not from the bad row. */
	assert_int_equal(next(&run), 1);
	assert_true(value_of(&run.s, 0) == 6 && value_of(&run.s, 1) == 31);
	assert_int_equal(run.s.start_us, INT64_C(1735689660) * SEC);
	assert_true(run.s.seconds == 120);
	assert_int_equal(next(&run), 0);
	finish(&run);

	/* A per-CPU row held until its Total row: the error still names its own line. */
	start(&run, NULL,
	      "Date,Time,CPU,B0\n"
	      "2025-01-01,00:00:00,CPU0,10\n2025-01-01,00:00:00,CPU1,10\n2025-01-01,00:00:00,Total,20\n"
	      "2025-01-01,00:01:00,CPU0,5\n2025-01-01,00:01:00,CPU1,15\n2025-01-01,00:01:00,Total,20\n",
	      NULL, true);
	assert_int_equal(next(&run), MF_EFORMAT);
	assert_int_equal(run.e.line, 5);
	assert_int_equal(run.e.col, 26);
	assert_int_equal(next(&run), 1);
	assert_int_equal(run.s.cpu, 1);
	assert_true(value_of(&run.s, 0) == 5);
	assert_int_equal(next(&run), 0);
	finish(&run);
}

/* Detection from content; other CSVs stay with the canonical reader. */
static void detection(void **state)
{
	static const char *const files[] = {EX1, EX2, EX3, EX4};
	const char *const *f = mf_reader_formats();
	struct mf_reader_opts ro = {0};
	struct mf_reader *r;
	struct mf_error e;
	size_t i;
	bool listed = false;
	(void)state;

	for (; *f; f++)
		listed |= strcmp(*f, "lshwc") == 0;
	assert_true(listed);
	ro.kb = kb;
	ro.strtab = mf_strtab_new();
	for (i = 0; i < 4; i++) {
		assert_int_equal(mf_reader_open(&r, files[i], &ro, &e), 0);
		assert_string_equal(mf_reader_format(r), "lshwc");
		mf_reader_close(r);
	}
	assert_int_equal(mf_reader_open_mem(&r, "c.csv", "B0,B1\n1,2\n", 10, &ro, &e), 0);
	assert_string_equal(mf_reader_format(r), "csv");
	mf_reader_close(r);
	assert_int_equal(mf_reader_open_mem(&r, "j.json", "{\"x\": 1}", 8, &ro, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "not recognised"));
	mf_strtab_free(ro.strtab);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ex1_cumulative_totals),
		cmocka_unit_test(ex2_per_cpu_and_total),
		cmocka_unit_test(ex3_delta_short),
		cmocka_unit_test(ex4_json),
		cmocka_unit_test(family_and_forms),
		cmocka_unit_test(bad_inputs),
		cmocka_unit_test(decreasing_and_skip),
		cmocka_unit_test(json_piece_limit),
		cmocka_unit_test(detection),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
