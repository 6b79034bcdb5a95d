/* SPDX-License-Identifier: MIT */
/* Metrics over groups: the zIIP rule of the LSPR class, reasons, inconsistent data. */
#include "pipeline.h"

MF_TEST_KB_FIXTURE()

/* A z16 CSV with every sourcing counter; rows give pool, B1, B4, E145 (L2) and E156 (memory). */
static char *z16_csv(const char *rows[][4], size_t n)
{
	static char buf[8192];
	size_t len = 0, i, k;
	len += (size_t)snprintf(buf + len, sizeof(buf) - len, "system,pool,machine,B0,B1,B2,B4");
	for (k = 145; k <= 183; k++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, ",E%zu", k);
	buf[len++] = '\n';
	for (i = 0; i < n; i++) {
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "S,%s,z16,1000,%s,0,%s", rows[i][0], rows[i][1],
					rows[i][2]);
		for (k = 145; k <= 183; k++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, ",%s",
						k == 145   ? rows[i][2]
						: k == 156 ? rows[i][3]
							   : "0");
		buf[len++] = '\n';
	}
	buf[len] = '\0';
	return buf;
}

static void ziip_rule(void **state)
{
	/* GCP: L1MP 2, all misses from L2: RNI 0, LOW.  zIIP: L1MP 10, half from memory: HIGH.
	 * (B4 is the miss count; E145 = B4 - E156 so the sourcing adds up.) */
	const char *rows[][4] = {{"GCP", "1000", "20", "0"}, {"ZIIP", "1000", "50", "50"}};
	struct pipe p;
	(void)state;
	rows[1][2] = "50";
	pipe_run(&p, kb, z16_csv(rows, 2), MF_BY_SYSTEM);
	assert_int_equal(p.n, 1);
	/* All engines: L1MP (20 + 50) / 2000 * 100 = 3.5, so the GCP-only inputs must be used: */
	assert_true(fabs(metric(&p, 0, "L1MP") - 3.5) < 1e-12);
	assert_true(p.res[0].lspr_l1mp == 2.0);
	assert_true(p.res[0].lspr_rni == 0.0);
	assert_int_equal(p.res[0].lspr, MF_LSPR_LOW);
	assert_int_equal(p.res[0].lspr_why, MF_LSPR_OK);
	pipe_free(&p);

	/* By pool: the zIIP group has no class, and says why. */
	pipe_run(&p, kb, z16_csv(rows, 2), MF_BY_SYSTEM | MF_BY_POOL);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.groups[1]->pool, MF_POOL_ZIIP);
	assert_int_equal(p.res[0].lspr, MF_LSPR_LOW);
	assert_int_equal(p.res[1].lspr, MF_LSPR_NONE);
	assert_int_equal(p.res[1].lspr_why, MF_LSPR_ONLY_EXCLUDED);
	assert_false(isnan(metric(&p, 1, "RNI"))); /* the metrics themselves are there */
	pipe_free(&p);

	/* zAAP is treated like zIIP; rows without a pool and IFLs count. */
	{
		const char *r2[][4] = {{"ZAAP", "1000", "50", "50"},
				       {"", "1000", "20", "0"},
				       {"IFL", "1000", "20", "0"}};
		pipe_run(&p, kb, z16_csv(r2, 3), MF_BY_SYSTEM);
		assert_true(p.res[0].lspr_l1mp == 2.0);
		assert_int_equal(p.res[0].lspr, MF_LSPR_LOW);
		pipe_free(&p);
		pipe_run(&p, kb, z16_csv(r2, 1), MF_BY_SYSTEM);
		assert_int_equal(p.res[0].lspr_why, MF_LSPR_ONLY_EXCLUDED);
		pipe_free(&p);
	}
	/* GCP first then zIIP, and zIIP first then GCP, give the same class. */
	{
		const char *r3[][4] = {{"ZIIP", "1000", "50", "50"},
				       {"GCP", "1000", "20", "0"},
				       {"ZIIP", "1000", "50", "50"}};
		pipe_run(&p, kb, z16_csv(r3, 3), MF_BY_SYSTEM);
		assert_true(p.res[0].lspr_l1mp == 2.0);
		assert_int_equal(p.res[0].lspr, MF_LSPR_LOW);
		pipe_free(&p);
	}
}

static void reasons(void **state)
{
	struct pipe p;
	char why[200];
	int m;
	(void)state;
	pipe_run(&p, kb, "machine,B0,B1,B2,B4\nz16,10,0,1,1\n", 0);
	m = mf_family_metric(p.groups[0]->family, "CPI");
	assert_true(isnan(p.res[0].value[m]));
	mf_na_explain(p.groups[0]->family, &p.res[0].na[m], why, sizeof(why));
	assert_string_equal(why, "a divisor is zero");
	m = mf_family_metric(p.groups[0]->family, "RNI");
	mf_na_explain(p.groups[0]->family, &p.res[0].na[m], why, sizeof(why));
	assert_non_null(strstr(why, "not in the data"));
	m = mf_family_metric(p.groups[0]->family, "LPARCPU");
	mf_na_explain(p.groups[0]->family, &p.res[0].na[m], why, sizeof(why));
	assert_string_equal(why, "CPU speed (cpsp) not known");
	assert_int_equal(p.res[0].lspr_why, MF_LSPR_NO_INPUT);
	pipe_free(&p);
}

/* Binds B0 of the family ctx (dense slot 0: counters are in ascending order). */
static int bind_z16(void *ctx, const char *name, size_t len, int *kind, int *index)
{
	const struct mf_family *fam = ctx;
	if (len != 2 || memcmp(name, "B0", 2) != 0)
		return -1;
	*kind = MF_REF_COUNTER;
	*index = fam->dense[0];
	return 0;
}

/* A value beyond the range of a double is explained as an overflow, not as a zero divisor. */
static void overflow_reason(void **state)
{
	static const char *const srcs[] = {"B0 * 1e300", "B0 / 1e-300", "1 / (B0 * 1e300)"};
	const struct mf_family *fam = mf_kb_family(kb, "z16");
	struct mf_expr *e;
	struct mf_error err;
	struct mf_na na;
	char why[200];
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++) {
		static const uint64_t sums[MF_MAX_COUNTER] = {[0] = 1000000000};
		static const uint64_t present[MF_MAX_COUNTER / 64] = {1};
		static const double vars[MF_NVARS] = {5200, 60, NAN};
		struct mf_eval_env env = {sums, present, vars, NULL, NULL};
		assert_int_equal(mf_expr_compile(srcs[i], bind_z16, (void *)fam, &e, &err), 0);
		assert_true(isnan(mf_expr_eval(e, &env, &na)));
		assert_int_equal(na.why, MF_NA_OVERFLOW);
		mf_na_explain(fam, &na, why, sizeof(why));
		if (!strstr(why, "overflow") || strstr(why, "divisor"))
			fail_msg("'%s': %s", srcs[i], why);
		mf_expr_free(e);
	}
}

/*
 * One zEC12 row whose sourcing counters sum beyond L1M (E130 is 110, the L1 misses B4 100): the
 * remote remainder comes out negative.
 */
static void zec12_negative_csv(char *csv, size_t size)
{
	static const unsigned ctr[] = {130, 131, 132, 135, 137, 144, 145, 146, 147, 148, 150,
				       151, 152, 153, 154, 155, 156, 157, 159, 160, 161};
	size_t len = 0, i;
	len += (size_t)snprintf(csv + len, size - len, "machine,B0,B1,B2,B3,B4,B5");
	for (i = 0; i < sizeof(ctr) / sizeof(ctr[0]); i++)
		len += (size_t)snprintf(csv + len, size - len, ",E%u", ctr[i]);
	len += (size_t)snprintf(csv + len, size - len, "\nzEC12,1000,1000,0,10,100,10");
	for (i = 0; i < sizeof(ctr) / sizeof(ctr[0]); i++)
		len += (size_t)snprintf(csv + len, size - len, ",%s", ctr[i] == 130 ? "110" : "0");
	snprintf(csv + len, size - len, "\n");
}

/* zEC12: sourcing counters beyond L1M give a negative remote remainder, reported as a doubt. */
static void negative_remainder(void **state)
{
	char csv[4096];
	struct pipe p;
	(void)state;
	zec12_negative_csv(csv, sizeof(csv));
	pipe_run(&p, kb, csv, 0);
	assert_true(p.res[0].doubts & MF_DOUBT_NEGATIVE);
	assert_string_equal(p.groups[0]->family->metrics[p.res[0].negative_metric].name, "REMOTE_L1M");
	assert_true(metric(&p, 0, "REMOTE_L1M") == -10.0);
	/* MEMP as written: (0 + 0 + -10) / 100 * 100 = -10 */
	assert_true(metric(&p, 0, "MEMP") == -10.0);
	pipe_free(&p);
}

/* csv through a pipeline as `report --metrics names` makes it (no -v, not HTML). */
static void pipe_run_columns(struct pipe *p, const char *csv, const char *const *names, size_t n, const char *sort)
{
	struct mf_pipeline_opts o = {0};
	struct mf_error e;
	memset(p, 0, sizeof(*p));
	p->kb = kb;
	o.kb = kb;
	o.metrics.mem_peak_gbs = NAN;
	o.diag = pipe_fail;
	o.columns = names;
	o.ncolumns = n;
	o.sort = sort;
	p->pl = mf_pipeline_new(&o);
	assert_non_null(p->pl);
	assert_int_equal(mf_pipeline_add_mem(p->pl, "t.csv", csv, strlen(csv), &e), 0);
	pipe_end(p);
}

/* The same results as with every metric, for those computed; and every doubt the same. */
static void same_as_all(const struct pipe *some, const struct pipe *all, const char *const *computed, bool lspr)
{
	size_t k;
	assert_int_equal(some->n, all->n);
	assert_int_equal(some->res[0].doubts, all->res[0].doubts);
	assert_int_equal(some->res[0].negative_metric, all->res[0].negative_metric);
	if (lspr) {
		assert_int_equal(some->res[0].lspr, all->res[0].lspr);
		assert_int_equal(some->res[0].lspr_why, all->res[0].lspr_why);
		assert_true(some->res[0].lspr_l1mp == all->res[0].lspr_l1mp);
		assert_true(some->res[0].lspr_rni == all->res[0].lspr_rni);
	}
	for (k = 0; computed[k]; k++) {
		double a = metric(some, 0, computed[k]), b = metric(all, 0, computed[k]);
		if (!(a == b || (isnan(a) && isnan(b))))
			fail_msg("%s: %g, with all metrics %g", computed[k], a, b);
	}
}

/*
 * --metrics (issue 26): only the metrics asked for, what they refer to and what the notes read
 * are computed; the others are left NaN.  The old code computed all 23 of a z16 group.
 */
static void only_needed(void **state)
{
	const char *rows[][4] = {{"GCP", "1000", "20", "10"}};
	static const char *const cols[] = {"CPI", "PRBSTATE", "L1MP", "L2P"};
	static const char *const computed[] = {"CPI",     "PRBSTATE",    "L1MP",         "L2P", "L1M",
					       "LPARCPU", "RMF_LPARCPU", "LPARCPU_DIFF", NULL};
	static const char *const with_lspr[] = {"CPI", "LSPR"};
	static const char *const computed_lspr[] = {"CPI", "L1MP", "RNI", "L3P", "MEMP", NULL};
	const struct mf_family *fam;
	struct pipe all, some;
	unsigned char *need;
	size_t i, n = 0;
	(void)state;
	pipe_run(&all, kb, z16_csv(rows, 1), 0);
	pipe_run_columns(&some, z16_csv(rows, 1), cols, 4, NULL);
	same_as_all(&some, &all, computed, false);
	fam = some.groups[0]->family;
	assert_false(isnan(metric(&all, 0, "L3P")));
	assert_true(isnan(metric(&some, 0, "L3P")));
	assert_true(isnan(metric(&some, 0, "MEMP")));
	assert_true(isnan(metric(&some, 0, "FINITE_CPI")));
	need = mf_metrics_needed(fam, cols, 4);
	assert_non_null(need);
	for (i = 0; i < fam->nmetrics; i++)
		n += need[i];
	free(need);
	/* 8 of 23: the four, L1M (of L1MP and L2P), LPARCPU and its RMF pair (the notes on busy). */
	assert_int_equal(fam->nmetrics, 23);
	assert_int_equal(n, 8);
	/* No LSPR column: no class; with one, L1MP and RNI and what RNI reads. */
	assert_true(isnan(metric(&some, 0, "RNI")));
	assert_int_equal(some.res[0].lspr, MF_LSPR_NONE);
	assert_int_not_equal(all.res[0].lspr, MF_LSPR_NONE);
	pipe_free(&some);
	pipe_run_columns(&some, z16_csv(rows, 1), with_lspr, 2, NULL);
	same_as_all(&some, &all, computed_lspr, true);
	assert_true(isnan(metric(&some, 0, "L2P")));
	pipe_free(&some);

	/* --sort names a metric to compute too. */
	pipe_run_columns(&some, z16_csv(rows, 1), cols, 1, "L3P");
	assert_true(metric(&some, 0, "L3P") == metric(&all, 0, "L3P"));
	assert_true(isnan(metric(&some, 0, "L2P")));
	pipe_free(&some);
	pipe_free(&all);
}

/* A metric out of its range is found though not asked for: REMOTE_L1M (nonneg, a subtraction). */
static void needed_range_checks(void **state)
{
	static const char *const cols[] = {"CPI"};
	static const char *const computed[] = {"CPI", "REMOTE_L1M", NULL};
	char csv[4096];
	struct pipe all, some;
	(void)state;
	zec12_negative_csv(csv, sizeof(csv));
	pipe_run(&all, kb, csv, 0);
	pipe_run_columns(&some, csv, cols, 1, NULL);
	assert_true(some.res[0].doubts & MF_DOUBT_NEGATIVE);
	same_as_all(&some, &all, computed, false);
	assert_true(isnan(metric(&some, 0, "MEMP"))); /* negative too, but without a range to check */
	pipe_free(&some);
	pipe_free(&all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ziip_rule),       cmocka_unit_test(reasons),
		cmocka_unit_test(overflow_reason), cmocka_unit_test(negative_remainder),
		cmocka_unit_test(only_needed),     cmocka_unit_test(needed_range_checks),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
