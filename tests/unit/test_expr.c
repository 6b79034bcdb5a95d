/* SPDX-License-Identifier: MIT */
/* Expression engine: a table of tiny cases, values and errors (with columns). */
#include <math.h>

#include "testutil.h"

/* Names: counters A..D (slots 0..3; D absent), X (slot 4, value 0), CPSP,
 * INTERVAL (absent), metrics M0 (2.5) and M1 (not available). */
static int bind(void *ctx, const char *name, size_t len, int *kind, int *index)
{
	(void)ctx;
	if (len == 1 && strchr("ABCDX", name[0])) {
		*kind = MF_REF_COUNTER;
		*index = name[0] == 'X' ? 4 : name[0] - 'A';
		return 0;
	}
	if (len == 4 && memcmp(name, "CPSP", 4) == 0) {
		*kind = MF_REF_VAR;
		*index = MF_VAR_CPSP;
		return 0;
	}
	if (len == 8 && memcmp(name, "INTERVAL", 8) == 0) {
		*kind = MF_REF_VAR;
		*index = MF_VAR_INTERVAL;
		return 0;
	}
	if (len == 2 && name[0] == 'M' && (name[1] == '0' || name[1] == '1')) {
		*kind = MF_REF_METRIC;
		*index = name[1] - '0';
		return 0;
	}
	return -1;
}

static const uint64_t ctr[5] = {10, 4, 3, 999, 0};
static const uint64_t present[MF_MAX_COUNTER / 64] = {0x17}; /* A B C X */
static const double vars[MF_NVARS] = {5200, NAN};
static const double mets[2] = {2.5, NAN};

static double eval(const char *src, struct mf_na *na)
{
	struct mf_expr *e = NULL;
	struct mf_error err;
	struct mf_eval_env env = {ctr, present, vars, mets, NULL};
	double v;
	mf_error_clear(&err);
	if (mf_expr_compile(src, bind, NULL, &e, &err) != 0)
		fail_msg("'%s' does not compile: %s (col %ld)", src, err.msg, err.col);
	v = mf_expr_eval(e, &env, na);
	mf_expr_free(e);
	return v;
}

static void values(void **state)
{
	static const struct {
		const char *src;
		double want;
	} cases[] = {
		{"1", 1},
		{"A + B", 14},
		{"A - B - C", 3},    /* left associative */
		{"A / B / 2", 1.25}, /* left associative */
		{"A + B * C", 22},   /* precedence */
		{"(A + B) * C", 42},
		{"-A + 3", -7},
		{"- -A", 10},
		{"2 * -B", -8},
		{"1e6 * CPSP", 5.2e9},
		{"0.45*A", 4.5},
		{".5 * B", 2},
		{"  A\t+B  ", 14},
		{"X * 7", 0}, /* a zero counter is a value */
		{"X / A", 0},
		{"M0 * 2", 5},
		{"A / (B + C) * 100", 1000.0 / 7},
		{"((((A))))", 10},
		{"0e-400 + 1", 1}, /* zero written with any exponent is zero */
		{"1e308 / 1e308", 1},
		{"2.3e-308 * 1e308", 2.3}, /* the smallest normal doubles are kept */
	};
	struct mf_na na;
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double v = eval(cases[i].src, &na);
		if (fabs(v - cases[i].want) > 1e-12 * fabs(cases[i].want))
			fail_msg("'%s' = %.17g, expected %.17g", cases[i].src, v, cases[i].want);
		assert_int_equal(na.why, MF_NA_NONE);
	}
}

static void not_available(void **state)
{
	static const struct {
		const char *src;
		int why;
	} cases[] = {
		{"A / X", MF_NA_DIVZERO},
		{"A / (B - 4)", MF_NA_DIVZERO},
		{"0 / 0", MF_NA_DIVZERO},
		{"X / X * 100", MF_NA_DIVZERO},
		{"D", MF_NA_ABSENT},
		{"A + D * 0", MF_NA_ABSENT}, /* an absent counter is never 0 */
		{"A / INTERVAL", MF_NA_ABSENT},
		{"M1 + 1", MF_NA_ABSENT},
		{"(A / X) - (A / X)", MF_NA_DIVZERO},
		/* A step beyond 1.8e308 is an overflow, even when later steps would bring it back. */
		{"1e308 * 10 / 10", MF_NA_OVERFLOW},
		{"1 / (1e300 * 1e300)", MF_NA_OVERFLOW},
		{"A / 1e-307 / 1e-10", MF_NA_OVERFLOW},
		{"-1e308 - 1e308", MF_NA_OVERFLOW},
		{"D + 1e308 * 10", MF_NA_ABSENT}, /* the first cause is kept */
	};
	struct mf_na na;
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double v = eval(cases[i].src, &na);
		if (!isnan(v))
			fail_msg("'%s' = %g, expected not available", cases[i].src, v);
		if (na.why != cases[i].why)
			fail_msg("'%s': reason %d, expected %d", cases[i].src, na.why, cases[i].why);
	}
	eval("D + A", &na);
	assert_int_equal(na.kind, MF_REF_COUNTER);
	assert_int_equal(na.index, 3);
}

static void errors(void **state)
{
	static const struct {
		const char *src;
		long col;
		const char *msg;
	} cases[] = {
		{"", 1, "empty formula"},
		{"   ", 4, "empty formula"},
		{"A +", 4, "formula ends"},
		{"A + * B", 5, "expected a number"},
		{"(A + B", 7, "missing ')'"},
		{"A + B)", 6, "unbalanced ')'"},
		{"A B", 3, "expected an operator"},
		{"A + Q", 5, "unknown name 'Q'"},
		{"A + E999", 5, "unknown name 'E999'"},
		{"A $ B", 3, "expected an operator"},
		{"$", 1, "invalid character"},
		{"1.2.3", 4, "expected an operator"},
		{"12abc", 1, "malformed number"},
		{"()", 2, "expected a number"},
		{"1e", 1, "malformed number"},
		/* Out of the range of a double, both ways: the literal is named. */
		{"A + 1e309", 5, "number '1e309' is too large"},
		{"1e-400", 1, "number '1e-400' is too small (underflow"},
		{"A * 0.000001e-303", 5, "number '0.000001e-303' is too small"},
		{"2e-310 + A", 1, "number '2e-310' is too small"}, /* a subnormal has lost digits */
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mf_expr *e = NULL;
		struct mf_error err;
		mf_error_clear(&err);
		if (mf_expr_compile(cases[i].src, bind, NULL, &e, &err) == 0)
			fail_msg("'%s' compiled but should not", cases[i].src);
		assert_null(e);
		assert_int_equal(err.code, MF_EFORMAT);
		if (err.col != cases[i].col || !strstr(err.msg, cases[i].msg))
			fail_msg("'%s': got col %ld '%s', expected col %ld '%s'", cases[i].src, err.col, err.msg,
				 cases[i].col, cases[i].msg);
	}
}

static void deep_nesting(void **state)
{
	char src[400];
	struct mf_expr *e = NULL;
	struct mf_error err;
	size_t i;
	(void)state;
	for (i = 0; i < 100; i++)
		src[i] = '(';
	src[100] = 'A';
	for (i = 0; i < 100; i++)
		src[101 + i] = ')';
	src[201] = '\0';
	assert_int_equal(mf_expr_compile(src, bind, NULL, &e, &err), MF_EFORMAT);
	assert_non_null(strstr(err.msg, "nested too deeply"));
}

/*
 * The parser recurses per parenthesis and unary minus; 100,000 of either stop
 * at the 33rd with a positioned error (no stack overflow), while a sum of
 * 100,000 terms, which needs no nesting, compiles and evaluates.
 */
static void huge_formulas(void **state)
{
	const size_t n = 100000;
	char *src = malloc(4 * n + 16);
	struct mf_expr *e = NULL;
	struct mf_error err;
	size_t i;
	(void)state;
	assert_non_null(src);
	for (i = 0; i < n; i++)
		src[i] = '(';
	src[n] = 'A';
	for (i = 0; i < n; i++)
		src[n + 1 + i] = ')';
	src[2 * n + 1] = '\0';
	mf_error_clear(&err);
	assert_int_equal(mf_expr_compile(src, bind, NULL, &e, &err), MF_EFORMAT);
	assert_null(e);
	assert_int_equal(err.col, 33);
	assert_non_null(strstr(err.msg, "parentheses nested too deeply"));

	memset(src, '-', n);
	strcpy(src + n, "A");
	mf_error_clear(&err);
	assert_int_equal(mf_expr_compile(src, bind, NULL, &e, &err), MF_EFORMAT);
	assert_int_equal(err.col, 33);
	assert_non_null(strstr(err.msg, "nested too deeply"));

	for (i = 0; i < n; i++)
		memcpy(src + 2 * i, i ? "+B" : " B", 2);
	src[2 * n] = '\0';
	assert_int_equal(mf_expr_compile(src, bind, NULL, &e, &err), 0);
	assert_int_equal(mf_expr_nrefs(e), n);
	{
		struct mf_eval_env env = {ctr, present, vars, mets, NULL};
		struct mf_na na;
		assert_true(mf_expr_eval(e, &env, &na) == 4.0 * (double)n);
		assert_int_equal(na.why, MF_NA_NONE);
	}
	mf_expr_free(e);
	free(src);
}

static void references(void **state)
{
	struct mf_expr *e = NULL;
	struct mf_error err;
	int kind, index;
	(void)state;
	assert_int_equal(mf_expr_compile("A + CPSP * M0 - 3", bind, NULL, &e, &err), 0);
	assert_int_equal(mf_expr_nrefs(e), 3);
	mf_expr_ref(e, 0, &kind, &index);
	assert_true(kind == MF_REF_COUNTER && index == 0);
	mf_expr_ref(e, 1, &kind, &index);
	assert_true(kind == MF_REF_VAR && index == MF_VAR_CPSP);
	mf_expr_ref(e, 2, &kind, &index);
	assert_true(kind == MF_REF_METRIC && index == 0);
	mf_expr_free(e);
}

static const char *upper(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	return len == 1 && name[0] == 'A' ? "CPU_CYCLES" : NULL;
}

static void rewrite(void **state)
{
	struct mf_strbuf sb;
	(void)state;
	mf_strbuf_init(&sb);
	mf_expr_rewrite("(A+B)/ -C*100", upper, NULL, &sb);
	assert_string_equal(mf_strbuf_str(&sb), "(CPU_CYCLES + B) / -C * 100");
	mf_strbuf_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(values),       cmocka_unit_test(not_available), cmocka_unit_test(errors),
		cmocka_unit_test(deep_nesting), cmocka_unit_test(huge_formulas), cmocka_unit_test(references),
		cmocka_unit_test(rewrite),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
