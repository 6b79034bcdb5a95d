/* SPDX-License-Identifier: MIT */
/*
 * Prometheus recording rules (src/lib/report/prom_rules.c) and the PromQL back-end of the
 * formula translator (src/lib/kb/expr_sql.c): chosen formulas of the embedded knowledge base
 * translate to exact PromQL, metrics that read what Prometheus lacks are left out, and the
 * window is checked as a Prometheus duration.  promtool checks the whole file (tests/prom_rules.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mfstat/kb/expr_sql.h"
#include "mfstat/kb/kb.h"
#include "mfstat/report/prom_rules.h"

#define FIN_A "(("
#define FIN_B ") <= 1.7976931348623157e+308 >= -1.7976931348623157e+308)"

static struct mf_kb *kb;

static int setup(void **state)
{
	struct mf_error err;
	(void)state;
	return mf_kb_load(NULL, &kb, &err);
}

static int teardown(void **state)
{
	(void)state;
	mf_kb_free(kb);
	return 0;
}

/* The expression of metric name of family key at level, guarded when guard is not NULL. */
static void expect(const char *key, const char *name, enum mf_prom_level level, const char *guard, const char *want)
{
	const struct mf_family *fam = mf_kb_family(kb, key);
	struct mf_strbuf out;
	struct mf_error err;
	int m;
	assert_non_null(fam);
	m = mf_family_metric(fam, name);
	assert_true(m >= 0);
	mf_strbuf_init(&out);
	assert_int_equal(mf_prom_rules_expr(fam, (size_t)m, level, "5m", guard, &out, &err), 0);
	if (strcmp(mf_strbuf_str(&out), want) != 0)
		fail_msg("%s %s:\n got  %s\n want %s", key, name, mf_strbuf_str(&out), want);
	mf_strbuf_free(&out);
}

static void test_cpi(void **state)
{
	(void)state;
	expect("z16", "CPI", MF_PROM_CPU, NULL,
	       FIN_A
	       "instance_cpu:mfstat_cpumf_cpu_cycles:rate5m / (instance_cpu:mfstat_cpumf_instructions:rate5m "
	       "!= 0)" FIN_B);
	expect("z16", "CPI", MF_PROM_INSTANCE, "z16",
	       FIN_A
	       "instance:mfstat_cpumf_cpu_cycles:rate5m{family=\"z16\"} / "
	       "(instance:mfstat_cpumf_instructions:rate5m{family=\"z16\"} != 0)" FIN_B);
}

/* A percent metric: recorded as its ratio, the formula's value divided by 100. */
static void test_percent(void **state)
{
	(void)state;
	expect("z16", "L2P", MF_PROM_INSTANCE, NULL,
	       FIN_A
	       "(instance:mfstat_cpumf_dcw_req:rate5m + instance:mfstat_cpumf_dcw_req_iv:rate5m + "
	       "instance:mfstat_cpumf_icw_req:rate5m + instance:mfstat_cpumf_icw_req_iv:rate5m) / "
	       "(instance:mfstat_l1m:rate5m != 0) * 100.0" FIN_B " / 100");
}

/* RNI reads the percent metrics: their ratios multiplied back by 100, as the deck's formula wants. */
static void test_rni(void **state)
{
	(void)state;
	expect("z16", "RNI", MF_PROM_CPU, NULL,
	       FIN_A
	       "4.1 * (0.45 * (instance_cpu:mfstat_l3p_ratio:rate5m * 100) + 1.3 * "
	       "(instance_cpu:mfstat_l4lp_ratio:rate5m * 100) + 5.0 * (instance_cpu:mfstat_l4rp_ratio:rate5m * "
	       "100) + 6.1 * (instance_cpu:mfstat_memp_ratio:rate5m * 100)) / 100.0" FIN_B);
}

/* A divisor of constants only: a plain division (PromQL refuses 100 != 0 between scalars). */
static void test_constant_divisor(void **state)
{
	(void)state;
	expect("z16", "EFF_GHZ", MF_PROM_CPU, NULL, FIN_A "instance_cpu:mfstat_cpsp_mhz:rate5m / 1000.0" FIN_B);
	/* INTERVAL is the constant 1 (rates are per second): its division is plain too. */
	expect("z16", "TLB_MISS_RATE", MF_PROM_INSTANCE, NULL,
	       FIN_A
	       "(instance:mfstat_cpumf_dtlb2_writes:rate5m + instance:mfstat_cpumf_itlb2_writes:rate5m) / "
	       "1.0" FIN_B);
}

/* LPARCPU: CPSP (MHz) times 1e6 is a vector divisor, INTERVAL a constant one. */
static void test_lparcpu(void **state)
{
	(void)state;
	expect("z16", "LPARCPU", MF_PROM_CPU, NULL,
	       FIN_A
	       "instance_cpu:mfstat_cpumf_cpu_cycles:rate5m / (instance_cpu:mfstat_cpsp_mhz:rate5m * "
	       "1000000.0 != 0) / 1.0 * 100.0" FIN_B " / 100");
}

/* A namer for hand-written formulas: A and B are series, X the constant 2. */
static int bind_abx(void *ctx, const char *name, size_t len, int *kind, int *index)
{
	(void)ctx;
	if (len != 1 || !strchr("ABX", name[0]))
		return -1;
	*kind = name[0] == 'X' ? MF_REF_VAR : MF_REF_COUNTER;
	*index = name[0] == 'B' ? 1 : 0;
	return 0;
}

static int name_abx(void *ctx, int kind, int index, struct mf_strbuf *out, struct mf_error *err)
{
	(void)ctx;
	(void)err;
	if (kind == MF_REF_VAR) {
		mf_strbuf_puts(out, "2.0");
		return MF_EXPR_NAMED_CONST;
	}
	mf_strbuf_puts(out, index ? "b" : "a");
	return 0;
}

static void translate(const struct mf_expr_lang *lang, const char *src, const char *want)
{
	struct mf_expr *ex = NULL;
	struct mf_strbuf t;
	struct mf_error e;
	assert_int_equal(mf_expr_compile(src, bind_abx, NULL, &ex, &e), 0);
	mf_strbuf_init(&t);
	assert_int_equal(mf_expr_translate(ex, lang, name_abx, NULL, &t, &e), 0);
	if (strcmp(mf_strbuf_str(&t), want) != 0)
		fail_msg("%s in %s:\n got  %s\n want %s", src, lang->name, mf_strbuf_str(&t), want);
	mf_strbuf_free(&t);
	mf_expr_free(ex);
}

/* Constant-only terms: numbers and named constants, through sums, negation and division. */
static void test_constant_terms(void **state)
{
	(void)state;
	translate(&mf_expr_lang_promql, "A / (X + 3)", "a / (2.0 + 3.0)");
	translate(&mf_expr_lang_promql, "A / -X", "a / (-2.0)");
	translate(&mf_expr_lang_promql, "A / (B - X)", "a / (b - 2.0 != 0)");
	translate(&mf_expr_lang_promql, "(A + B) / X / (A * 2)", "(a + b) / 2.0 / (a * 2.0 != 0)");
	translate(&mf_expr_lang_promql, "X / A", "2.0 / (a != 0)");
	/* SQL keeps NULLIF for every divisor, constant or not. */
	translate(&mf_expr_lang_sql, "A / (X + 3)", "CAST(a AS DOUBLE) / NULLIF(CAST(2.0 AS DOUBLE) + 3.0, 0)");
}

/* Metrics that read RMF_BUSY, directly or through another metric, are left out. */
static void test_left_out(void **state)
{
	const struct mf_family *fam = mf_kb_family(kb, "z16");
	struct mf_prom_leftout *lo = mf_prom_rules_leftout(fam);
	int rmf = mf_family_metric(fam, "RMF_LPARCPU"), diff = mf_family_metric(fam, "LPARCPU_DIFF");
	struct mf_strbuf out, file;
	struct mf_error err;
	(void)state;
	assert_non_null(lo);
	assert_true(rmf >= 0 && diff >= 0);
	assert_int_equal(lo[rmf].var, MF_VAR_RMF_BUSY);
	assert_int_equal(lo[rmf].via, -1);
	assert_int_equal(lo[diff].var, MF_VAR_RMF_BUSY);
	assert_int_equal(lo[diff].via, rmf);
	assert_int_equal(lo[mf_family_metric(fam, "CPI")].var, MF_PROM_KEPT);
	free(lo);
	mf_strbuf_init(&out);
	assert_int_equal(mf_prom_rules_expr(fam, (size_t)rmf, MF_PROM_CPU, "5m", NULL, &out, &err), MF_EINVAL);
	mf_strbuf_free(&out);

	mf_strbuf_init(&file);
	assert_int_equal(mf_prom_rules(kb, fam, "5m", "mfstat metrics --prometheus-rules --machine z16", &file, &err),
			 0);
	assert_non_null(strstr(mf_strbuf_str(&file), "# RMF_LPARCPU left out: it reads RMF_BUSY"));
	assert_non_null(strstr(mf_strbuf_str(&file), "# LPARCPU_DIFF left out: it uses RMF_LPARCPU"));
	assert_null(strstr(mf_strbuf_str(&file), "record: instance_cpu:mfstat_rmf_lparcpu"));
	assert_non_null(strstr(mf_strbuf_str(&file), "record: instance_cpu:mfstat_cpi:rate5m\n"));
	assert_non_null(strstr(mf_strbuf_str(&file), "record: instance:mfstat_lspr_info:rate5m\n"));
	assert_non_null(strstr(mf_strbuf_str(&file), "  - name: mfstat_rate5m\n"));
	mf_strbuf_free(&file);
	mf_strbuf_init(&file);
	assert_int_equal(mf_prom_rules(kb, fam, "5 m", "x", &file, &err), MF_EINVAL);
	mf_strbuf_free(&file);
}

static void test_duration(void **state)
{
	static const char *const good[] = {"5m", "1h30m", "90s", "100ms", "1y2w3d4h5m6s7ms", "01m", "0h1m"};
	static const char *const bad[] = {"",    "0",    "0m",   "5",      "m",
					  "5x",  "1m5h", "5m5m", "5ms5s",  "-5m",
					  "5m ", "1.5m", "5M",   "1s0ms0", "123456789012345678901234567890123m"};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!mf_prom_duration_ok(good[i]))
			fail_msg("'%s' refused", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (mf_prom_duration_ok(bad[i]))
			fail_msg("'%s' accepted", bad[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpi),      cmocka_unit_test(test_percent),
		cmocka_unit_test(test_rni),      cmocka_unit_test(test_constant_divisor),
		cmocka_unit_test(test_lparcpu),  cmocka_unit_test(test_constant_terms),
		cmocka_unit_test(test_left_out), cmocka_unit_test(test_duration),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
