/* SPDX-License-Identifier: MIT */
/*
 * The formula translator to SQL (src/lib/kb/expr_sql.c) and the views built with it
 * (src/lib/db/views.c): every metric of every family of the embedded knowledge base, evaluated
 * by SQLite over counters drawn from a fixed seed (with zeros and NULLs), equals mf_expr_eval to a
 * relative 1e-12 and is NULL exactly where mfstat gives n/a; the LSPR class from SQL equals
 * mf_kb_lspr_class on a grid around every boundary of the decision table.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "mfstat/db/views.h"
#include "mfstat/kb/expr_sql.h"
#include "mfstat/kb/kb.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static sqlite3 *open_schema(void)
{
	sqlite3 *h = NULL;
	FILE *f = fopen(MFSTAT_SOURCE_DIR "/data/db/schema-1.sql", "r");
	char *sql = calloc(1, 1 << 20);
	size_t n;
	assert_non_null(f);
	assert_non_null(sql);
	n = fread(sql, 1, (1 << 20) - 1, f);
	fclose(f);
	sql[n] = '\0';
	assert_int_equal(sqlite3_open(":memory:", &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	free(sql);
	return h;
}

static void exec_ok(sqlite3 *h, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(h, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK)
		fail_msg("%s\n%.2000s", msg ? msg : "?", sql);
}

/* Whether a and b agree: both not available, or within a relative 1e-12. */
static bool same(double sql, bool null, double c)
{
	if (isnan(c) || null)
		return isnan(c) && null;
	if (sql == c)
		return true;
	return fabs(sql - c) <= 1e-12 * fmax(fabs(sql), fabs(c));
}

#define NROWS 400

struct row {
	uint64_t v[MF_MAX_COUNTER];
	bool has[MF_MAX_COUNTER];
	double cpsp, seconds, rmf;
	const char *pool;
	long long start_us;
};

/* A counter value: 0 (a quarter), absent (one in ten), else of any size up to 2^40. */
static void draw(struct row *r, const struct mf_family *fam)
{
	static const char *const pools[] = {"", "GCP", "ZIIP", "IFL", "ZCBP"};
	size_t i;
	for (i = 0; i < fam->ncounters; i++) {
		uint64_t x = next_rand();
		r->has[i] = x % 10 != 0;
		r->v[i] = x % 4 == 1 ? 0 : (x >> 20) >> (x % 24);
	}
	r->cpsp = next_rand() % 8 == 0 ? NAN : (double)(next_rand() % 6000) + 0.5;
	r->seconds = next_rand() % 8 == 0 ? NAN : next_rand() % 8 == 0 ? 0 : (double)(next_rand() % 900000) / 1000.0;
	r->rmf = next_rand() % 3 == 0 ? NAN : (double)(next_rand() % 900000) / 1000.0;
	r->pool = pools[next_rand() % 5];
	/* Any second from 1970 to 2099, or a day around a leap day, with microseconds. */
	if (next_rand() % 4)
		r->start_us = (long long)(next_rand() % 4102444800u) * 1000000 + (long long)(next_rand() % 1000000);
	else
		r->start_us = (951782400LL + (long long)(next_rand() % 4) * 31622400 * 25 +
			       (long long)(next_rand() % 172800)) *
			      1000000;
}

/* What report computes for a group of one sample r (mf_metrics_compute's evaluate). */
static void expected(const struct mf_family *fam, const struct row *r, double *value)
{
	uint64_t present[MF_MAX_COUNTER / 64] = {0};
	double vars[MF_NVARS];
	struct mf_eval_env env;
	size_t i;
	for (i = 0; i < fam->ncounters; i++)
		if (r->has[i])
			present[i >> 6] |= UINT64_C(1) << (i & 63);
	vars[MF_VAR_CPSP] = r->cpsp;
	vars[MF_VAR_INTERVAL] = isnan(r->seconds) ? NAN : (double)llround(r->seconds * 1e9) / 1e9;
	vars[MF_VAR_MEM_PEAK_GBS] = NAN;
	vars[MF_VAR_RMF_BUSY] = isnan(r->rmf) ? NAN : (double)llround(r->rmf * 1e9) / 1e9;
	env.counters = r->v;
	env.present = present;
	env.vars = vars;
	env.metrics = value;
	env.metric_na = NULL;
	for (i = 0; i < fam->nmetrics; i++)
		value[i] = NAN;
	for (i = 0; i < fam->nmetrics; i++)
		value[fam->order[i]] = mf_expr_eval(fam->metrics[fam->order[i]].expr, &env, NULL);
}

static void every_metric_of_every_family(void **state)
{
	struct mf_kb *kb = NULL;
	struct mf_error e;
	size_t f, checked = 0, nulls = 0, values = 0;
	(void)state;
	assert_int_equal(mf_kb_load(NULL, &kb, &e), 0);
	for (f = 0; f < kb->nfamilies; f++) {
		const struct mf_family *fam = &kb->families[f];
		struct row *rows = calloc(NROWS, sizeof(*rows));
		double *value = calloc(fam->nmetrics + 1, sizeof(*value));
		sqlite3 *h = open_schema();
		sqlite3_stmt *st = NULL;
		struct mf_strbuf sql;
		size_t i, k;
		int r;

		assert_non_null(rows);
		assert_non_null(value);
		mf_strbuf_init(&sql);
		mf_strbuf_printf(&sql, "CREATE TABLE \"counters_%s\" (id INTEGER PRIMARY KEY", fam->key);
		for (i = 0; i < fam->ncounters; i++)
			mf_strbuf_printf(&sql, ", \"%s\" INTEGER", fam->counters[i].short_name);
		mf_strbuf_puts(&sql, ");\n");
		exec_ok(h, mf_strbuf_str(&sql));
		for (r = 0; r < NROWS; r++) {
			struct row *w = &rows[r];
			draw(w, fam);
			sql.len = 0;
			mf_strbuf_printf(&sql,
					 "INSERT INTO sample (id, system, lpar, key_lpar, pool, cpu, start_us, "
					 "seconds, "
					 "key_start_s, "
					 "key_len_s, anon, family, cpsp_mhz, cpsp_nominal, user_only, lpar_joined, "
					 "rmf_busy_s, file) VALUES (%d, 'SYS1', 'LP1', 'LP1', '%s', %d, %lld, ",
					 r + 1, w->pool, r, w->start_us);
			if (isnan(w->seconds))
				mf_strbuf_puts(&sql, "NULL");
			else
				mf_strbuf_printf(&sql, "%.17g", w->seconds);
			mf_strbuf_printf(&sql, ", %d, 900, 0, '%s', ", r, fam->key);
			if (isnan(w->cpsp))
				mf_strbuf_puts(&sql, "NULL");
			else
				mf_strbuf_printf(&sql, "%.17g", w->cpsp);
			mf_strbuf_puts(&sql, ", 0, 0, 0, ");
			if (isnan(w->rmf))
				mf_strbuf_puts(&sql, "NULL");
			else
				mf_strbuf_printf(&sql, "%.17g", w->rmf);
			mf_strbuf_printf(&sql, ", 1);\nINSERT INTO \"counters_%s\" VALUES (%d", fam->key, r + 1);
			for (i = 0; i < fam->ncounters; i++) {
				if (w->has[i])
					mf_strbuf_printf(&sql, ", %llu", (unsigned long long)w->v[i]);
				else
					mf_strbuf_puts(&sql, ", NULL");
			}
			mf_strbuf_puts(&sql, ");\n");
			exec_ok(h, mf_strbuf_str(&sql));
		}
		sql.len = 0;
		assert_int_equal(mf_db_views_sql(kb, fam, &sql, &e), 0);
		exec_ok(h, mf_strbuf_str(&sql));
		sql.len = 0;
		mf_strbuf_printf(&sql, "SELECT * FROM \"metrics_%s_sample\" ORDER BY id", fam->key);
		assert_int_equal(sqlite3_prepare_v2(h, mf_strbuf_str(&sql), -1, &st, NULL), SQLITE_OK);
		/* The columns: 9 of identity and time, then every metric in the family's order, then LSPR. */
		assert_int_equal(sqlite3_column_count(st), 9 + (int)fam->nmetrics + (fam->lspr ? 1 : 0));
		for (i = 0; i < fam->nmetrics; i++)
			assert_string_equal(sqlite3_column_name(st, 9 + (int)i), fam->metrics[i].name);
		for (r = 0; r < NROWS; r++) {
			assert_int_equal(sqlite3_step(st), SQLITE_ROW);
			expected(fam, &rows[r], value);
			{
				time_t t = (time_t)(rows[r].start_us / 1000000);
				struct tm tm;
				char iso[32];
				gmtime_r(&t, &tm);
				strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
				assert_int_equal(sqlite3_column_int64(st, 7), (long long)t);
				assert_string_equal((const char *)sqlite3_column_text(st, 8), iso);
			}
			for (k = 0; k < fam->nmetrics; k++) {
				int col = 9 + (int)k;
				bool null = sqlite3_column_type(st, col) == SQLITE_NULL;
				double v = sqlite3_column_double(st, col);
				if (!null && sqlite3_column_type(st, col) != SQLITE_FLOAT)
					fail_msg("%s %s row %d: not a REAL", fam->key, fam->metrics[k].name, r);
				if (!same(v, null, value[k]))
					fail_msg("%s %s row %d: SQL %s%.17g, mf_expr_eval %.17g", fam->key,
						 fam->metrics[k].name, r, null ? "NULL " : "", v, value[k]);
				checked++;
				if (null)
					nulls++;
				else
					values++;
			}
			if (fam->lspr) {
				int col = 9 + (int)fam->nmetrics, cls = MF_LSPR_NONE;
				const unsigned char *t = sqlite3_column_text(st, col);
				unsigned p;
				bool excluded = false;
				for (p = 1; p < MF_NPOOLS; p++)
					if ((fam->lspr_exclude & (1u << p)) &&
					    strcmp(mf_pool_name((int)p), rows[r].pool) == 0)
						excluded = true;
				if (!excluded)
					cls = mf_kb_lspr_class(kb, value[fam->idx_l1mp], value[fam->idx_rni]);
				if (cls == MF_LSPR_NONE)
					assert_null(t);
				else
					assert_string_equal((const char *)t, mf_lspr_name(cls));
			}
		}
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_finalize(st);
		sqlite3_close(h);
		mf_strbuf_free(&sql);
		free(rows);
		free(value);
	}
	/* The draw reaches both sides: values and n/a, in every family. */
	assert_true(nulls > checked / 20);
	assert_true(values > checked / 4);
	mf_kb_free(kb);
}

/* A binder of A and B (counters 0 and 1) and X (a variable), for hand-written formulas. */
static int bind_ab(void *ctx, const char *name, size_t len, int *kind, int *index)
{
	(void)ctx;
	if (len != 1 || (name[0] != 'A' && name[0] != 'B' && name[0] != 'X'))
		return -1;
	*kind = name[0] == 'X' ? MF_REF_VAR : MF_REF_COUNTER;
	*index = name[0] == 'B' ? 1 : 0;
	return 0;
}

static int name_ab(void *ctx, int kind, int index, struct mf_strbuf *out, struct mf_error *err)
{
	(void)ctx;
	(void)err;
	mf_strbuf_puts(out, kind == MF_REF_VAR ? "x" : index ? "b" : "a");
	return 0;
}

/* The SQL value of formula src over a = A, b = B (integers), x = NULL, through the overflow guard. */
static void sql_value(const char *src, long long a, long long b, bool *null, double *v)
{
	struct mf_expr *ex = NULL;
	struct mf_strbuf t, q;
	struct mf_error e;
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(mf_expr_compile(src, bind_ab, NULL, &ex, &e), 0);
	mf_strbuf_init(&t);
	mf_strbuf_init(&q);
	assert_int_equal(mf_expr_translate(ex, &mf_expr_lang_sql, name_ab, NULL, &t, &e), 0);
	mf_strbuf_puts(&q, "SELECT ");
	mf_expr_lang_finite(&mf_expr_lang_sql, mf_strbuf_str(&t), &q);
	mf_strbuf_printf(&q, " FROM (SELECT %lld AS a, %lld AS b, NULL AS x)", a, b);
	assert_int_equal(sqlite3_open(":memory:", &h), SQLITE_OK);
	if (sqlite3_prepare_v2(h, mf_strbuf_str(&q), -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", mf_strbuf_str(&q), sqlite3_errmsg(h));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	*null = sqlite3_column_type(st, 0) == SQLITE_NULL;
	*v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	mf_strbuf_free(&t);
	mf_strbuf_free(&q);
	mf_expr_free(ex);
}

/* The cases SQL gets wrong when translated as written: integer division, 0 divisors, overflow, "--". */
static void semantics(void **state)
{
	static const struct {
		const char *src;
		long long a, b;
		bool null;
		double v;
	} cases[] = {
		{"A / B", 1, 2, false, 0.5}, /* not integer division */
		{"A / 2", 3, 0, false, 1.5},
		{"1 / 2", 0, 0, false, 0.5},
		{"A / B", 1, 0, true, 0}, /* divisor zero: n/a */
		{"A / (B - B)", 1, 5, true, 0},
		{"A / (B * -0)", 1, 5, true, 0},
		{"- -A", 7, 0, false, 7}, /* "--" would be an SQL comment */
		{"A - -B", 7, 2, false, 9},
		{"-(A - B) * 2", 1, 4, false, 6},
		{"A * 1e300 * 1e300", 1, 0, true, 0}, /* overflow: n/a, not Inf */
		{"A * 1e300 * 1e300 - B * 1e300 * 1e300", 1, 1, true, 0},
		{"A + X", 1, 0, true, 0}, /* a variable not known */
		{"(A + B) / (A - B) * 1e-5", 9007199254740993LL, 1, false, 0},
		{"A * B", 4294967296LL, 4294967296LL, false, 18446744073709551616.0}, /* no integer overflow */
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool null;
		double v, want = cases[i].v;
		sql_value(cases[i].src, cases[i].a, cases[i].b, &null, &v);
		if (i == 12)
			want = ((double)cases[i].a + (double)cases[i].b) / ((double)cases[i].a - (double)cases[i].b) *
			       1e-5;
		if (null != cases[i].null || (!null && v != want))
			fail_msg("%s (A=%lld, B=%lld): SQL %s%.17g, want %s%.17g", cases[i].src, cases[i].a, cases[i].b,
				 null ? "NULL " : "", v, cases[i].null ? "NULL " : "", want);
	}
}

/* The LSPR class of SQL and of mf_kb_lspr_class on a grid around every bound of the table. */
static void lspr_grid(void **state)
{
	struct mf_kb *kb = NULL;
	const struct mf_family *fam;
	struct mf_error e;
	struct mf_strbuf q;
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	double pts[2][64];
	size_t np[2] = {0, 0}, i, j, k, n = 0;
	(void)state;
	assert_int_equal(mf_kb_load(NULL, &kb, &e), 0);
	fam = mf_kb_family(kb, "z16");
	assert_non_null(fam);
	for (k = 0; k < 2; k++) {
		pts[k][np[k]++] = NAN;
		pts[k][np[k]++] = 0;
		pts[k][np[k]++] = -1;
		pts[k][np[k]++] = 1e6;
		for (i = 0; i < kb->nlspr; i++) {
			double b[2] = {kb->lspr[i].lo[k], kb->lspr[i].hi[k]};
			for (j = 0; j < 2; j++) {
				if (isinf(b[j]) || np[k] + 5 > 64)
					continue;
				pts[k][np[k]++] = b[j];
				pts[k][np[k]++] = nextafter(b[j], -INFINITY);
				pts[k][np[k]++] = nextafter(b[j], INFINITY);
				pts[k][np[k]++] = b[j] - 1e-9;
				pts[k][np[k]++] = b[j] + 1e-9;
			}
		}
	}
	mf_strbuf_init(&q);
	mf_strbuf_puts(&q, "SELECT ");
	mf_db_lspr_sql(kb, fam, "?3", "?1", "?2", &q);
	assert_int_equal(sqlite3_open(":memory:", &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, mf_strbuf_str(&q), -1, &st, NULL), SQLITE_OK);
	for (i = 0; i < np[0]; i++)
		for (j = 0; j < np[1]; j++)
			for (k = 0; k < 2; k++) {
				int want = k ? MF_LSPR_NONE : mf_kb_lspr_class(kb, pts[0][i], pts[1][j]);
				const unsigned char *t;
				sqlite3_reset(st);
				if (isnan(pts[0][i]))
					sqlite3_bind_null(st, 1);
				else
					sqlite3_bind_double(st, 1, pts[0][i]);
				if (isnan(pts[1][j]))
					sqlite3_bind_null(st, 2);
				else
					sqlite3_bind_double(st, 2, pts[1][j]);
				sqlite3_bind_text(st, 3, k ? "ZIIP" : "GCP", -1, SQLITE_STATIC);
				assert_int_equal(sqlite3_step(st), SQLITE_ROW);
				t = sqlite3_column_text(st, 0);
				if (want == MF_LSPR_NONE ? t != NULL
							 : (!t || strcmp((const char *)t, mf_lspr_name(want))))
					fail_msg("L1MP %.17g RNI %.17g pool %s: SQL %s, mfstat %s", pts[0][i],
						 pts[1][j], k ? "ZIIP" : "GCP", t ? (const char *)t : "NULL",
						 want == MF_LSPR_NONE ? "none" : mf_lspr_name(want));
				n++;
			}
	assert_true(n > 500);
	sqlite3_finalize(st);
	sqlite3_close(h);
	mf_strbuf_free(&q);
	mf_kb_free(kb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(semantics),
		cmocka_unit_test(every_metric_of_every_family),
		cmocka_unit_test(lspr_grid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
