/* SPDX-License-Identifier: MIT */
/* Knowledge base: lint of every embedded table, lookups, and table errors. */
#include <math.h>
#include <sys/stat.h>

#include "testutil.h"

static const char *const sourcing[] = {"L15P", "L2LP", "L2RP", "L2P", "L3P", "L4LP", "L4RP", "MEMP", NULL};

/* Counter slots a metric's formula names directly or through other metrics. */
static void collect(const struct mf_family *fam, int m, unsigned char *slots)
{
	size_t k, n = mf_expr_nrefs(fam->metrics[m].expr);
	for (k = 0; k < n; k++) {
		int kind, index;
		mf_expr_ref(fam->metrics[m].expr, k, &kind, &index);
		if (kind == MF_REF_COUNTER)
			slots[index] = 1;
		else if (kind == MF_REF_METRIC && strcmp(fam->metrics[index].name, "L1M") != 0 &&
			 strcmp(fam->metrics[index].name, "REMOTE_L1M") != 0)
			collect(fam, index, slots);
	}
}

/* Every metric of every family evaluates on synthetic counters; sourcing sums to 100 %. */
static void lint_families(void **state)
{
	struct mf_kb *kb = test_kb();
	size_t f, i;
	(void)state;
	assert_true(kb->nfamilies >= 9);
	for (f = 0; f < kb->nfamilies; f++) {
		const struct mf_family *fam = &kb->families[f];
		struct mf_sample *s = calloc(1, sizeof(*s));
		unsigned char src[MF_MAX_COUNTER] = {0};
		struct mf_grouper *g = mf_grouper_new(0);
		struct mf_group *const *groups;
		struct mf_result *res;
		uint64_t nsrc = 0;
		double total = 0;
		size_t n;
		int have_src = 0;

		assert_non_null(s);
		mf_sample_reset(s);
		s->family = fam;
		s->cpsp = 5000;
		s->seconds = 60;
		s->rmf_busy_s = 30; /* the RMF view (SMF type 70) */
		for (i = 0; sourcing[i]; i++) {
			int m = mf_family_metric(fam, sourcing[i]);
			if (m >= 0 && strcmp(sourcing[i], "MEMP") != 0)
				collect(fam, m, src);
			if (m >= 0 && strcmp(sourcing[i], "MEMP") == 0 && fam->key[1] >= '1' &&
			    mf_family_metric(fam, "REMOTE_L1M") < 0)
				collect(fam, m, src);
		}
		for (i = 0; i < fam->ncounters; i++)
			if (src[i])
				nsrc++;
		/* All sourcing counters 1000; L1 misses exactly their sum (plus 500 of remote memory). */
		for (i = 0; i < fam->ncounters; i++) {
			unsigned num = fam->counters[i].number;
			uint64_t v = src[i] ? 1000 : 1000000 + num * 7919;
			if (num == 2 && !fam->named)
				v = 0;
			if (num == 4 && !fam->named)
				v = nsrc * 1000 + (mf_family_metric(fam, "REMOTE_L1M") >= 0 ? 500 : 0);
			s->slot[s->n] = (uint16_t)i;
			s->value[s->n++] = v;
		}
		assert_int_equal(mf_grouper_add(g, s), 0);
		groups = mf_grouper_groups(g, NULL, &n);
		res = mf_results_new(groups, n);
		mf_metrics_compute(kb, groups[0], &(struct mf_metrics_opts){.mem_peak_gbs = 25.6},
				   &res[0]); /* --mem-peak for DRAM_UTIL */
		for (i = 0; i < fam->nmetrics; i++)
			if (isnan(res[0].value[i]))
				fail_msg("%s: %s not available with every counter present", fam->display,
					 fam->metrics[i].name);
		for (i = 0; sourcing[i]; i++) {
			int m = mf_family_metric(fam, sourcing[i]);
			if (m >= 0) {
				total += res[0].value[m];
				have_src = 1;
			}
		}
		if (have_src && fabs(total - 100) > 1e-9)
			fail_msg("%s: sourcing percentages sum to %.15g, not 100", fam->display, total);
		/* Every metric carries a unit, a description and a revision date. */
		for (i = 0; i < fam->nmetrics; i++)
			assert_true(fam->metrics[i].unit[0] && fam->metrics[i].desc[0] && fam->metrics[i].revision[0]);
		for (i = 0; i < fam->ncounters; i++)
			assert_true(fam->counters[i].desc[0] != '\0');
		mf_results_free(res, n);
		mf_grouper_free(g);
		free(s);
	}
	mf_kb_free(kb);
}

static void families_and_machines(void **state)
{
	struct mf_kb *kb = test_kb();
	static const struct {
		const char *s;
		const char *fam;
		int csvn;
		int ext;
	} cases[] = {
		{"2097", "z10", 1, 32},  {"2818", "z196", 2, 48}, {"2827", "zec12", 3, 128}, {"zEC12", "zec12", 3, 128},
		{"2965", "z13", 4, 128}, {"3906", "z14", 5, 128}, {"8562", "z15", 6, 160},   {"3931", "z16", 7, 160},
		{"Z16", "z16", 7, 160},  {"9175", "z17", 8, 160},
	};
	const struct mf_family *fam;
	const struct mf_machine *m;
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(mf_kb_resolve(kb, cases[i].s, strlen(cases[i].s), &fam, &m), 0);
		assert_string_equal(fam->key, cases[i].fam);
		assert_int_equal(fam->csvn, cases[i].csvn);
		assert_int_equal(fam->set_size[MF_SET_EXTENDED], cases[i].ext);
	}
	assert_int_equal(mf_kb_resolve(kb, "3931", 4, &fam, &m), 0);
	assert_non_null(m);
	assert_true(m->nominal_mhz == 5200);
	assert_int_equal(mf_kb_resolve(kb, "9999", 4, &fam, &m), MF_ENOMACHINE);
	assert_int_equal(mf_kb_resolve(kb, "z99", 3, &fam, &m), MF_ENOMACHINE);
	assert_int_equal(mf_kb_resolve(kb, "", 0, &fam, &m), MF_ENOMACHINE);
	fam = mf_kb_family(kb, "z16");
	assert_non_null(mf_family_counter(fam, "E143", 4));
	assert_non_null(mf_family_counter(fam, "e143", 4));
	assert_string_equal(mf_family_counter(fam, "L1D_DIR_WRITES", 14)->short_name, "B4");
	assert_null(mf_family_counter(fam, "E300", 4));
	assert_null(mf_family_counter(mf_kb_family(kb, "z13"), "E300", 4));
	assert_null(mf_family_counter(mf_kb_generic(kb), "E143", 4));
	/* Metrics by name, case-insensitively (hashed). */
	assert_true(mf_family_metric(fam, "cpi") >= 0);
	assert_int_equal(mf_family_metric(fam, "Cpi"), mf_family_metric(fam, "CPI"));
	assert_string_equal(fam->metrics[mf_family_metric(fam, "l1mp")].name, "L1MP");
	assert_int_equal(mf_family_metric(fam, "NOPE"), -1);
	assert_int_equal(mf_family_metric(fam, "CP"), -1);
	/* The metric keys of the report, in the order. */
	assert_true(kb->nkeys >= 29);
	assert_string_equal(kb->keys[0], "CPI");
	assert_string_equal(kb->keys[kb->nkeys - 1], "LSPR");
	mf_kb_free(kb);
}

/* Metric names as the knowledge base spells them, and the nearest ones for a name that is none. */
static void metric_names(void **state)
{
	struct mf_kb *kb = test_kb();
	const char *near[4];
	(void)state;
	assert_string_equal(mf_kb_metric_name(kb, "cpi"), "CPI");
	assert_string_equal(mf_kb_metric_name(kb, "Rni"), "RNI");
	assert_string_equal(mf_kb_metric_name(kb, "l1m"), "L1M"); /* a helper is a metric too */
	assert_string_equal(mf_kb_metric_name(kb, "w_aiu_cpu"), "W_AIU_CPU");
	assert_string_equal(mf_kb_metric_name(kb, "l15p"), "L15P"); /* z10 only */
	assert_string_equal(mf_kb_metric_name(kb, "lspr"), "LSPR");
	assert_null(mf_kb_metric_name(kb, "CPX"));
	assert_null(mf_kb_metric_name(kb, ""));
	assert_true(mf_family_has_lspr(mf_kb_family(kb, "z16")));
	assert_true(mf_family_has_lspr(mf_kb_family(kb, "z10")));
	assert_false(mf_family_has_lspr(mf_kb_generic(kb)));
	assert_false(mf_family_has_lspr(mf_kb_family(kb, "itanium2")));

	/* One edit away in a short name. */
	assert_int_equal(mf_kb_metric_nearest(kb, NULL, "cpx", true, near, 4), 1);
	assert_string_equal(near[0], "CPI");
	/* All at the fewest edits, each once (L2P, L3P and L4RP are on several families), in the families' order. */
	assert_int_equal(mf_kb_metric_nearest(kb, NULL, "L4P", true, near, 4), 4);
	assert_string_equal(near[0], "L2P");
	assert_string_equal(near[1], "L3P");
	assert_string_equal(near[2], "L4LP");
	assert_string_equal(near[3], "L4RP");
	/* No more than max. */
	assert_int_equal(mf_kb_metric_nearest(kb, NULL, "L4P", true, near, 2), 2);
	assert_string_equal(near[1], "L3P");
	/* Two edits in a longer name; a transposition is one. */
	assert_int_equal(mf_kb_metric_nearest(kb, NULL, "LPRACPU", true, near, 4), 1);
	assert_string_equal(near[0], "LPARCPU");
	/* LSPR only when asked for (--sort has no use for it). */
	assert_int_equal(mf_kb_metric_nearest(kb, NULL, "lsrp", true, near, 4), 3);
	assert_string_equal(near[1], "LSPR");
	assert_int_equal(mf_kb_metric_nearest(kb, NULL, "lsrp", false, near, 4), 2);
	assert_string_equal(near[0], "L2RP");
	assert_string_equal(near[1], "L4RP");
	/* None that near: the names containing it, from 3 characters on. */
	assert_int_equal(mf_kb_metric_nearest(kb, NULL, "tlb1", true, near, 4), 2);
	assert_string_equal(near[0], "TLB1_CPU_MISS_PCT");
	assert_string_equal(near[1], "TLB1_CYCLES_PER_MISS");
	assert_int_equal(mf_kb_metric_nearest(kb, NULL, "xyzzy", true, near, 4), 0);
	assert_int_equal(mf_kb_metric_nearest(kb, NULL, "zz", true, near, 4), 0);
	/* Within one family: z15 has no AI accelerator metrics. */
	assert_int_equal(mf_kb_metric_nearest(kb, mf_kb_family(kb, "z15"), "aiu", true, near, 4), 0);
	assert_int_equal(mf_kb_metric_nearest(kb, mf_kb_family(kb, "z16"), "aiu", true, near, 4), 3);
	assert_string_equal(near[0], "W_AIU_CPU");
	mf_kb_free(kb);
}

static void short_names(void **state)
{
	(void)state;
	assert_int_equal(mf_short_counter_number("B0", 2), 0);
	assert_int_equal(mf_short_counter_number("P33", 3), 33);
	assert_int_equal(mf_short_counter_number("C64", 3), 64);
	assert_int_equal(mf_short_counter_number("E447", 4), 447);
	assert_int_equal(mf_short_counter_number("M448", 4), 448);
	assert_int_equal(mf_short_counter_number("B32", 3), -1);
	assert_int_equal(mf_short_counter_number("E127", 4), -1);
	assert_int_equal(mf_short_counter_number("E0143", 5), -1);
	assert_int_equal(mf_short_counter_number("X1", 2), -1);
	assert_int_equal(mf_short_counter_number("E", 1), -1);
}

/* The LSPR table at and around each boundary (cpumf-formulas.md, LSPR). */
static void lspr_boundaries(void **state)
{
	struct mf_kb *kb = test_kb();
	static const struct {
		double l1mp, rni;
		int cls;
	} cases[] = {
		{2.999, 0.75, MF_LSPR_AVERAGE}, {2.999, 0.7499, MF_LSPR_LOW},      {0, 0, MF_LSPR_LOW},
		{3, 0.75, MF_LSPR_AVERAGE},     {3, 1.0, MF_LSPR_AVERAGE},         {3, 1.0001, MF_LSPR_HIGH},
		{3, 0.6, MF_LSPR_AVERAGE},      {3, 0.5999, MF_LSPR_LOW},          {6, 1.0, MF_LSPR_AVERAGE},
		{6, 1.01, MF_LSPR_HIGH},        {6, 0.6, MF_LSPR_AVERAGE},         {6, 0.59, MF_LSPR_LOW},
		{6.0001, 0.75, MF_LSPR_HIGH},   {6.0001, 0.7499, MF_LSPR_AVERAGE}, {4.5, 0.7, MF_LSPR_AVERAGE},
		{2, 2, MF_LSPR_AVERAGE},        {10, 0.1, MF_LSPR_AVERAGE},        {10, -0.1, MF_LSPR_AVERAGE},
		{1, -0.5, MF_LSPR_LOW},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = mf_kb_lspr_class(kb, cases[i].l1mp, cases[i].rni);
		if (got != cases[i].cls)
			fail_msg("L1MP %g RNI %g: %s, expected %s", cases[i].l1mp, cases[i].rni,
				 mf_lspr_name(got) ? mf_lspr_name(got) : "none", mf_lspr_name(cases[i].cls));
	}
	assert_int_equal(mf_kb_lspr_class(kb, NAN, 1), MF_LSPR_NONE);
	assert_int_equal(mf_kb_lspr_class(kb, 1, NAN), MF_LSPR_NONE);
	mf_kb_free(kb);
}

static void write_file(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *fp;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* A broken table names its file, line and column. */
static void table_errors(void **state)
{
	static const struct {
		const char *rel, *text;
		long line, col;
		const char *msg;
	} cases[] = {
		{"metrics/generic.tsv",
		 "name\tunit\tdigits\tflags\trevision\tformula\tdescription\n"
		 "X\t%\t2\t-\t2025-01\t(B0 + \tbroken\n",
		 2, 23, "formula ends"},
		{"metrics/generic.tsv",
		 "# c\nname\tunit\tdigits\tflags\trevision\tformula\tdescription\n"
		 "X\t%\t2\t-\t2025-01\tB0 / NOPE\tunknown\n",
		 3, 22, "unknown name 'NOPE'"},
		{"metrics/generic.tsv",
		 "name\tunit\tdigits\tflags\trevision\tformula\tdescription\n"
		 "X\t%\t2\t-\t2025-01\tY\tcycle\nY\t%\t2\t-\t2025-01\tX\tcycle\n",
		 2, 17, "depends on itself: X -> Y -> X"},
		{"metrics/generic.tsv",
		 "name\tunit\tdigits\tflags\trevision\tformula\tdescription\n"
		 "A\t%\t2\t-\t2025-01\tB0\tok\nX\t%\t2\t-\t2025-01\tA + X\tself\n",
		 3, 17, "metric X depends on itself: X -> X"},
		{"metrics/generic.tsv",
		 "name\tunit\tdigits\tflags\trevision\tformula\tdescription\n"
		 "X\t%\t2\t-\t2025-01\tB0 + 1e-400\tunderflow\n",
		 2, 22, "number '1e-400' is too small"},
		{"metrics/generic.tsv",
		 "name\tunit\tdigits\tflags\trevision\tformula\tdescription\n"
		 "X\t%\t2\t-\t2025-01\tB0 * 1e309\toverflow\n",
		 2, 22, "number '1e309' is too large"},
		{"metrics/generic.tsv",
		 "name\tunit\tdigits\tflags\trevision\tformula\tdescription\n"
		 "X\t%\t2\t-\t2025-01\tB0\ta\nY\t%\t2\t-\t2025-01\tB1\tb\nX\t%\t2\t-\t2025-01\tB2\tc\n",
		 4, 1, "metric X defined twice in this file"},
		{"metrics/generic.tsv",
		 "name\tunit\tdigits\tflags\trevision\tformula\tdescription\n"
		 "X\t%\t2\tbogus\t2025-01\tB0\td\n",
		 2, 7, "unknown flag 'bogus'"},
		{"metrics/generic.tsv",
		 "name\tunit\tdigits\tflags\trevision\tformula\tdescription\n"
		 "X\t%\t2\tnonneg,max=1e-400\t2025-01\tB0\td\n",
		 2, 18, "max=1e-400 is out of the range of a double"},
		{"metrics/generic.tsv",
		 "name\tunit\tdigits\tflags\trevision\tformula\tdescription\n"
		 "X\t%\t2\tmax=1e999\t2025-01\tB0\td\n",
		 2, 11, "max=1e999 is out of the range"},
		{"metrics/generic.tsv",
		 "name\tunit\tdigits\tflags\trevision\tformula\tdescription\n"
		 "X\t%\t2\tmax=nan\t2025-01\tB0\td\n",
		 2, 7, "max= needs a number"},
		{"metrics/generic.tsv",
		 "name\tunit\tdigits\tflags\trevision\tformula\tdescription\n"
		 "X\t%\t2\t-\tApril\tB0\td\n",
		 2, 9, "revision must be a date"},
		{"metrics/generic.tsv", "name\tunit\tdigits\tflags\tformula\tdescription\n", 1, 24, "header must be"},
		{"lspr.tsv", "l1mp\trni\tclass\n[0,3)\t(x,1]\tLOW\n", 2, 7, "expected an interval"},
		{"lspr.tsv", "l1mp\trni\tclass\n[0,3)\t(0,1]\tMEDIUM\n", 2, 13, "class must be"},
		{"machines.tsv", "type\tfamily\tmodel\tnominal_mhz\n3931\tz99\tX\t5200\n", 2, 6, "unknown family"},
		{"counters/z10.tsv", "number\tshort\tlinux\tset\tdescription\n0\tB1\tCPU_CYCLES\tbasic\tx\n", 2, 3,
		 "does not match"},
		{"counters/z10.tsv", "number\tshort\tlinux\tset\tdescription\n0\tB0\tCPU_CYCLES\tbasic\n", 2, 22,
		 "expected 5 fields"},
		/* A report listing a name twice overran the family's report slots (a fuzz find). */
		{"reports/ibmz.txt", "CPI\nLSPR\nL1MP\nLSPR\n", 4, 1, "LSPR is listed twice"},
		{"reports/ibmz.txt", "CPI\nL1MP\nCPI\n", 3, 1, "CPI is listed twice"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char dir[] = "/tmp/mfstat-kb-XXXXXX", sub[600];
		struct mf_kb *kb = NULL;
		struct mf_error e;
		assert_non_null(mkdtemp(dir));
		snprintf(sub, sizeof(sub), "%s/metrics", dir);
		mkdir(sub, 0700);
		snprintf(sub, sizeof(sub), "%s/counters", dir);
		mkdir(sub, 0700);
		snprintf(sub, sizeof(sub), "%s/reports", dir);
		mkdir(sub, 0700);
		write_file(dir, cases[i].rel, cases[i].text);
		mf_error_clear(&e);
		assert_int_equal(mf_kb_load(dir, &kb, &e), MF_ETABLE);
		assert_null(kb);
		if (!strstr(e.file, cases[i].rel) || e.line != cases[i].line || e.col != cases[i].col ||
		    !strstr(e.msg, cases[i].msg))
			fail_msg("case %zu: got %s:%ld:%ld '%s', expected %s:%ld:%ld '%s'", i, e.file, e.line, e.col,
				 e.msg, cases[i].rel, cases[i].line, cases[i].col, cases[i].msg);
		snprintf(sub, sizeof(sub), "rm -rf %s", dir);
		assert_int_equal(system(sub), 0);
	}
}

/* An overlay replaces one file and keeps the rest. */
static void overlay(void **state)
{
	char dir[] = "/tmp/mfstat-kb-XXXXXX", sub[2048];
	struct mf_kb *kb = NULL;
	struct mf_error e;
	(void)state;
	assert_non_null(mkdtemp(dir));
	write_file(dir, "lspr.tsv", "l1mp\trni\tclass\n[-inf,inf]\t[-inf,inf]\tHIGH\n");
	assert_int_equal(mf_kb_load(dir, &kb, &e), 0);
	assert_int_equal(mf_kb_lspr_class(kb, 1, 0.1), MF_LSPR_HIGH);
	assert_non_null(mf_kb_family(kb, "z17"));
	mf_kb_free(kb);
	/* A family file's metric replaces the common one of the same name, in its place. */
	{
		struct mf_kb *base = test_kb();
		const struct mf_family *f0 = mf_kb_family(base, "z16"), *f1;
		int cpi = mf_family_metric(f0, "CPI");
		snprintf(sub, sizeof(sub), "%s/metrics", dir);
		mkdir(sub, 0700);
		snprintf(sub, sizeof(sub),
			 "cp %s/data/metrics/z16.tsv %s/metrics/ && printf 'CPI\\tc\\t3\\t-\\t2025-01\\tB0 / B1 * 2"
			 "\\tdoubled\\nNEWONE\\tc\\t3\\t-\\t2025-01\\tCPI + 1\\tnew\\n' >> %s/metrics/z16.tsv",
			 MFSTAT_SOURCE_DIR, dir, dir);
		assert_int_equal(system(sub), 0);
		mf_error_clear(&e);
		if (mf_kb_load(dir, &kb, &e) != 0)
			fail_msg("%s:%ld: %s", e.file, e.line, e.msg);
		f1 = mf_kb_family(kb, "z16");
		assert_int_equal(mf_family_metric(f1, "CPI"), cpi);
		assert_string_equal(f1->metrics[cpi].formula, "B0 / B1 * 2");
		assert_int_equal(mf_family_metric(f1, "newone"), (int)f0->nmetrics);
		assert_int_equal(f1->nmetrics, f0->nmetrics + 1);
		assert_true(mf_family_metric(f1, "L1MP") >= 0);
		mf_kb_free(kb);
		mf_kb_free(base);
	}
	snprintf(sub, sizeof(sub), "rm -rf %s", dir);
	assert_int_equal(system(sub), 0);
}

/* Family inference from counter names, the CSVN lookup and "defined anywhere". */
static void infer_family(void **state)
{
	struct mf_kb *kb = test_kb();
	struct mf_family_fit fit;
	const char *basic[] = {"B0", "p32"}, *both[] = {"B0", "E128"}, *e128[] = {"E128"}, *e128l[] = {"DTLB1_MISSES"},
		   *late[] = {"E160", "E265"}, *mix[] = {"E160", "L1I_L2_SOURCED_WRITES"};
	(void)state;
	mf_kb_infer_family(kb, basic, NULL, 2, &fit);
	assert_true(fit.generic);
	assert_int_equal(fit.n, 1);
	assert_ptr_equal(fit.fam[0], mf_kb_generic(kb));
	mf_kb_infer_family(kb, both, NULL, 2, &fit);
	assert_false(fit.generic);
	assert_int_equal(fit.n, 8);
	assert_non_null(strstr(fit.list, "z10, z196, zEC12"));
	mf_kb_infer_family(kb, e128, e128l, 1, &fit);
	assert_int_equal(fit.n, 1);
	assert_string_equal(fit.fam[0]->key, "zec12");
	mf_kb_infer_family(kb, late, NULL, 2, &fit);
	assert_int_equal(fit.n, 2);
	assert_string_equal(fit.list, "z16, z17");
	mf_kb_infer_family(kb, mix, NULL, 2, &fit);
	assert_int_equal(fit.n, 0);
	assert_int_equal(fit.misfit, 1);
	assert_string_equal(mf_kb_family_by_csvn(kb, 7)->key, "z16");
	assert_null(mf_kb_family_by_csvn(kb, 0));
	assert_null(mf_kb_family_by_csvn(kb, 99));
	assert_true(mf_kb_counter_known(kb, "b0", 2));
	assert_true(mf_kb_counter_known(kb, "bus_cycles", 10));
	assert_true(mf_kb_counter_known(kb, "DTLB1_MISSES", 12));
	assert_false(mf_kb_counter_known(kb, "E999", 4));
	assert_false(mf_kb_counter_known(kb, "B10", 3));
	mf_kb_free(kb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lint_families),   cmocka_unit_test(families_and_machines),
		cmocka_unit_test(short_names),     cmocka_unit_test(metric_names),
		cmocka_unit_test(lspr_boundaries), cmocka_unit_test(table_errors),
		cmocka_unit_test(overlay),         cmocka_unit_test(infer_family),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
