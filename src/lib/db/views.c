/* SPDX-License-Identifier: MIT */
/* The views of the performance database: the knowledge base's metrics translated to SQL. */
#include "mfstat/db/views.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/db/db.h"
#include "mfstat/kb/expr_sql.h"

const struct mf_db_grouping mf_db_grouping_utc_hour = {"utc_hour",
						       "CAST((s.\"start_us\" - s.\"start_us\" % 3600000000) / "
						       "1000000 AS BIGINT)"};

/* The variables' columns in the innermost layer (by MF_VAR_*). */
static const char *const var_column[MF_NVARS] = {"v_cpsp", "v_interval", "v_mem_peak", "v_rmf_busy"};

/* A metric's value as the layers above its own read it: its raw column, null where not finite. */
static void metric_value(struct mf_strbuf *out, const struct mf_metric *m)
{
	struct mf_strbuf col;
	mf_strbuf_init(&col);
	mf_db_sql_ident(&col, "r_", m->name);
	mf_expr_lang_finite(&mf_expr_lang_sql, mf_strbuf_str(&col), out);
	mf_strbuf_free(&col);
}

static int name_ref(void *ctx, int kind, int index, struct mf_strbuf *out, struct mf_error *err)
{
	const struct mf_family *fam = ctx;
	(void)err;
	if (kind == MF_REF_COUNTER)
		mf_db_sql_ident(out, "c_", fam->counters[index].short_name);
	else if (kind == MF_REF_VAR)
		mf_db_sql_ident(out, "", var_column[index]);
	else
		metric_value(out, &fam->metrics[index]);
	return 0;
}

/* Appends "x op bound" for one side of a rule (nothing for an infinite bound). */
static void bound(struct mf_strbuf *out, int *terms, const char *x, const char *op, double b)
{
	if (isinf(b))
		return;
	mf_strbuf_puts(out, (*terms)++ ? " AND " : "");
	mf_strbuf_puts(out, x);
	mf_strbuf_puts(out, op);
	mf_expr_lang_number(b, out);
}

void mf_db_lspr_sql(const struct mf_kb *kb, const struct mf_family *fam, const char *pool, const char *l1mp,
		    const char *rni, struct mf_strbuf *out)
{
	unsigned p;
	size_t i;
	int k, pools = 0;

	if (!fam->lspr) {
		mf_strbuf_puts(out, "NULL");
		return;
	}
	mf_strbuf_puts(out, "CASE");
	for (p = 1; p < MF_NPOOLS; p++)
		if (fam->lspr_exclude & (1u << p)) {
			if (!pools++)
				mf_strbuf_printf(out, " WHEN %s IN (", pool);
			else
				mf_strbuf_puts(out, ", ");
			mf_db_sql_text(out, mf_pool_name((int)p));
		}
	if (pools)
		mf_strbuf_puts(out, ") THEN NULL");
	/* The rules in order, the first that holds both values wins; a NULL fails every comparison. */
	for (i = 0; i < kb->nlspr; i++) {
		const struct mf_lspr_rule *r = &kb->lspr[i];
		int terms = 0;
		mf_strbuf_puts(out, "\n\t\tWHEN ");
		for (k = 0; k < 2; k++) {
			const char *x = k == 0 ? l1mp : rni;
			bound(out, &terms, x, r->lo_incl[k] ? " >= " : " > ", r->lo[k]);
			bound(out, &terms, x, r->hi_incl[k] ? " <= " : " < ", r->hi[k]);
			if (isinf(r->lo[k]) && isinf(r->hi[k])) {
				mf_strbuf_puts(out, terms++ ? " AND " : "");
				mf_strbuf_puts(out, x);
				mf_strbuf_puts(out, " IS NOT NULL");
			}
		}
		mf_strbuf_puts(out, " THEN ");
		mf_db_sql_text(out, mf_lspr_name(r->cls));
	}
	mf_strbuf_puts(out, " END");
}

/* The LSPR class of the layers' L1MP and RNI. */
static void lspr_case(const struct mf_kb *kb, const struct mf_family *fam, struct mf_strbuf *out)
{
	struct mf_strbuf l1mp, rni;
	if (!fam->lspr || fam->idx_l1mp < 0 || fam->idx_rni < 0) {
		mf_strbuf_puts(out, "NULL");
		return;
	}
	mf_strbuf_init(&l1mp);
	mf_strbuf_init(&rni);
	metric_value(&l1mp, &fam->metrics[fam->idx_l1mp]);
	metric_value(&rni, &fam->metrics[fam->idx_rni]);
	mf_db_lspr_sql(kb, fam, "\"pool\"", mf_strbuf_str(&l1mp), mf_strbuf_str(&rni), out);
	mf_strbuf_free(&l1mp);
	mf_strbuf_free(&rni);
}

/*
 * start_iso, the ISO 8601 UTC text of start_unix (Unix seconds, 1970 or later), in arithmetic
 * that SQLite and DuckDB both read alike (they share no date function): the civil date of the
 * day number (H. Hinnant's days-to-civil), one layer a step.  IDIV(a, b) is the quotient of a >= 0
 * by b > 0, an integer in both (DuckDB's / of integers is a double).
 */
#define IDIV(a, b) "CAST(((" a ") - (" a ") % " b ") / " b " AS BIGINT)"
static const char *const time_layer[] = {
	IDIV("\"start_unix\"", "86400") " + 719468 AS \"t_z\", \"start_unix\" % 86400 AS \"t_s\"",
	IDIV("\"t_z\"", "146097") " AS \"t_era\", \"t_z\" % 146097 AS \"t_doe\"",
	IDIV("\"t_doe\" - " IDIV("\"t_doe\"", "1460") " + " IDIV("\"t_doe\"", "36524") " - " IDIV("\"t_doe\"", "146096"),
	     "365") " AS \"t_yoe\"",
	"\"t_doe\" - (365 * \"t_yoe\" + " IDIV("\"t_yoe\"", "4") " - " IDIV("\"t_yoe\"", "100") ") AS \"t_doy\", "
	"\"t_yoe\" + 400 * \"t_era\" AS \"t_y\"",
	IDIV("5 * \"t_doy\" + 2", "153") " AS \"t_mp\"",
	"CASE WHEN \"start_unix\" IS NOT NULL THEN printf('%04d-%02d-%02dT%02d:%02d:%02dZ', "
	"\"t_y\" + CASE WHEN \"t_mp\" >= 10 THEN 1 ELSE 0 END, "
	"CASE WHEN \"t_mp\" < 10 THEN \"t_mp\" + 3 ELSE \"t_mp\" - 9 END, "
	"\"t_doy\" - " IDIV("153 * \"t_mp\" + 2", "5") " + 1, " IDIV("\"t_s\"", "3600") ", " IDIV("\"t_s\" % 3600", "60") ", "
	"\"t_s\" % 60) END AS \"start_iso\""};

/*
 * The view name AS SELECT idents, every metric, LSPR FROM the layers over base: the layer of
 * depth d computes the metrics whose formulas refer to metrics of depth below d only.
 */
static int layered_view(const struct mf_kb *kb, const struct mf_family *fam, const char *view, const char *idents,
			const char *base, struct mf_strbuf *out, struct mf_error *err)
{
	int *depth = calloc(fam->nmetrics + 1, sizeof(*depth)), maxd = 0, d, rc = 0;
	struct mf_strbuf with;
	size_t i, k;

	if (!depth)
		return mf_error_nomem(err, NULL, 0, "writing the views of %s", fam->key);
	for (i = 0; i < fam->nmetrics; i++) {
		size_t m = fam->order[i];
		const struct mf_expr *e = fam->metrics[m].expr;
		for (k = 0; k < mf_expr_nrefs(e); k++) {
			int kind, index;
			mf_expr_ref(e, k, &kind, &index);
			if (kind == MF_REF_METRIC && depth[index] + 1 > depth[m])
				depth[m] = depth[index] + 1;
		}
		if (depth[m] > maxd)
			maxd = depth[m];
	}
	/* The layers one after another (WITH), not nested: SQLite's parser has a bounded stack. */
	mf_strbuf_init(&with);
	mf_strbuf_puts(&with, "WITH \"base\" AS (\n");
	mf_strbuf_puts(&with, base);
	mf_strbuf_puts(&with, ")");
	for (k = 0; k < sizeof(time_layer) / sizeof(time_layer[0]); k++) {
		mf_strbuf_printf(&with, ",\n\"time%zu\" AS (SELECT *,\n\t%s\n\tFROM ", k, time_layer[k]);
		if (k)
			mf_strbuf_printf(&with, "\"time%zu\")", k - 1);
		else
			mf_strbuf_puts(&with, "\"base\")");
	}
	for (d = 0; d <= maxd && rc == 0; d++) {
		mf_strbuf_printf(&with, ",\n\"depth%d\" AS (SELECT *", d);
		for (i = 0; i < fam->nmetrics && rc == 0; i++) {
			if (depth[i] != d)
				continue;
			mf_strbuf_puts(&with, ",\n\t");
			rc = mf_expr_translate(fam->metrics[i].expr, &mf_expr_lang_sql, name_ref, (void *)fam, &with,
					       err);
			mf_strbuf_puts(&with, " AS ");
			mf_db_sql_ident(&with, "r_", fam->metrics[i].name);
		}
		if (d == 0)
			mf_strbuf_printf(&with, "\n\tFROM \"time%zu\")",
					 sizeof(time_layer) / sizeof(time_layer[0]) - 1);
		else
			mf_strbuf_printf(&with, "\n\tFROM \"depth%d\")", d - 1);
	}
	mf_strbuf_puts(out, "DROP VIEW IF EXISTS ");
	mf_db_sql_ident(out, "", view);
	mf_strbuf_puts(out, ";\nCREATE VIEW ");
	mf_db_sql_ident(out, "", view);
	mf_strbuf_printf(out, " AS\n%s\nSELECT %s", mf_strbuf_str(&with), idents);
	for (i = 0; i < fam->nmetrics; i++) {
		mf_strbuf_puts(out, ",\n\t");
		metric_value(out, &fam->metrics[i]);
		mf_strbuf_puts(out, " AS ");
		mf_db_sql_ident(out, "", fam->metrics[i].name);
	}
	if (fam->lspr) {
		mf_strbuf_puts(out, ",\n\t");
		lspr_case(kb, fam, out);
		mf_strbuf_puts(out, " AS \"LSPR\"");
	}
	mf_strbuf_printf(out, "\nFROM \"depth%d\";\n", maxd);
	if (rc == 0 && (out->failed || with.failed))
		rc = mf_error_nomem(err, NULL, 0, "writing the views of %s", fam->key);
	mf_strbuf_free(&with);
	free(depth);
	return rc;
}

int mf_db_sample_view_sql(const struct mf_kb *kb, const struct mf_family *fam, struct mf_strbuf *out,
			  struct mf_error *err)
{
	struct mf_strbuf base, view;
	size_t i;
	int rc;

	mf_strbuf_init(&base);
	mf_strbuf_init(&view);
	mf_strbuf_puts(&base,
		       "SELECT s.\"id\", s.\"system\", s.\"lpar\", s.\"pool\", s.\"cpu\", s.\"start_us\", "
		       "s.\"seconds\",\n"
		       "\tCAST((s.\"start_us\" - s.\"start_us\" % 1000000) / 1000000 AS BIGINT) AS "
		       "\"start_unix\"");
	for (i = 0; i < fam->ncounters; i++) {
		mf_strbuf_puts(&base, i % 8 ? ", " : ",\n\t");
		mf_strbuf_puts(&base, "c.");
		mf_db_sql_ident(&base, "", fam->counters[i].short_name);
		mf_strbuf_puts(&base, " AS ");
		mf_db_sql_ident(&base, "c_", fam->counters[i].short_name);
	}
	/* A group of one row (mf_metrics_compute): its length as report takes it, to the nanosecond. */
	mf_strbuf_puts(&base,
		       ",\n\ts.\"cpsp_mhz\" AS \"v_cpsp\",\n"
		       "\tCAST(round(s.\"seconds\" * 1e9) AS BIGINT) / 1e9 AS \"v_interval\",\n"
		       "\tCAST(NULL AS DOUBLE) AS \"v_mem_peak\",\n"
		       "\tCAST(round(s.\"rmf_busy_s\" * 1e9) AS BIGINT) / 1e9 AS \"v_rmf_busy\"\n"
		       "FROM \"sample\" AS s JOIN ");
	mf_db_sql_ident(&base, "counters_", fam->key);
	mf_strbuf_puts(&base, " AS c ON c.\"id\" = s.\"id\"\n");
	mf_strbuf_printf(&view, "metrics_%s_sample", fam->key);
	rc = layered_view(kb, fam, mf_strbuf_str(&view),
			  "\"id\", \"system\", \"lpar\", \"pool\", \"cpu\", \"start_us\", \"seconds\", \"start_unix\", "
			  "\"start_iso\"",
			  mf_strbuf_str(&base), out, err);
	mf_strbuf_free(&base);
	mf_strbuf_free(&view);
	return rc;
}

int mf_db_summed_view_sql(const struct mf_kb *kb, const struct mf_family *fam, const struct mf_db_grouping *g,
			  struct mf_strbuf *out, struct mf_error *err)
{
	struct mf_strbuf base, view;
	size_t i;
	int rc;

	mf_strbuf_init(&base);
	mf_strbuf_init(&view);
	/*
	 * The sums of the group, as mf_group_add takes them: a counter is there only when every
	 * sample has it; CPSP only when every sample gives the same; RMF busy only when every
	 * sample has it, summed in nanoseconds.
	 */
	mf_strbuf_puts(&base,
		       "SELECT g.\"system\", g.\"lpar\", g.\"pool\", g.\"bucket\" AS \"start_unix\", g.\"samples\"");
	for (i = 0; i < fam->ncounters; i++) {
		mf_strbuf_puts(&base, i % 8 ? ", g." : ",\n\tg.");
		mf_db_sql_ident(&base, "c_", fam->counters[i].short_name);
	}
	mf_strbuf_puts(&base,
		       ",\n\tg.\"v_cpsp\", i.\"v_interval\", CAST(NULL AS DOUBLE) AS \"v_mem_peak\", g.\"v_rmf_busy\"\n"
		       "FROM (SELECT s.\"system\", s.\"lpar\", s.\"pool\", ");
	mf_strbuf_puts(&base, g->bucket);
	mf_strbuf_puts(&base, " AS \"bucket\", count(*) AS \"samples\"");
	for (i = 0; i < fam->ncounters; i++) {
		mf_strbuf_puts(&base, ",\n\tCASE WHEN count(c.");
		mf_db_sql_ident(&base, "", fam->counters[i].short_name);
		mf_strbuf_puts(&base, ") = count(*) THEN sum(c.");
		mf_db_sql_ident(&base, "", fam->counters[i].short_name);
		mf_strbuf_puts(&base, ") END AS ");
		mf_db_sql_ident(&base, "c_", fam->counters[i].short_name);
	}
	mf_strbuf_puts(&base,
		       ",\n\tCASE WHEN count(s.\"cpsp_mhz\") = count(*) AND min(s.\"cpsp_mhz\") = "
		       "max(s.\"cpsp_mhz\") THEN min(s.\"cpsp_mhz\") END AS \"v_cpsp\",\n"
		       "\tCASE WHEN count(s.\"rmf_busy_s\") = count(*) THEN sum(CAST(round(s.\"rmf_busy_s\" * "
		       "1e9) AS BIGINT)) / 1e9 END AS \"v_rmf_busy\"\n"
		       "\tFROM \"sample\" AS s JOIN ");
	mf_db_sql_ident(&base, "counters_", fam->key);
	mf_strbuf_puts(&base,
		       " AS c ON c.\"id\" = s.\"id\"\n\tWHERE s.\"start_us\" IS NOT NULL\n"
		       "\tGROUP BY 1, 2, 3, 4) AS g\n");
	/*
	 * INTERVAL, the wall-clock length (mf_group_interval_seconds): per interval start the mean
	 * length of its samples (to the nanosecond), added over the starts; none when some start has
	 * no length.
	 */
	mf_strbuf_puts(&base,
		       "JOIN (SELECT \"system\", \"lpar\", \"pool\", \"bucket\",\n"
		       "\tCASE WHEN count(\"len\") = count(*) THEN sum(\"len\") END AS \"v_interval\"\n"
		       "\tFROM (SELECT s.\"system\", s.\"lpar\", s.\"pool\", ");
	mf_strbuf_puts(&base, g->bucket);
	mf_strbuf_puts(&base,
		       " AS \"bucket\",\n\t\tCAST(sum(CAST(round(s.\"seconds\" * 1e9) AS BIGINT)) AS DOUBLE) / "
		       "NULLIF(count(s.\"seconds\") * 1e9, 0) AS \"len\"\n"
		       "\t\tFROM \"sample\" AS s WHERE s.\"family\" = ");
	mf_db_sql_text(&base, fam->key);
	mf_strbuf_puts(&base,
		       " AND s.\"start_us\" IS NOT NULL\n"
		       "\t\tGROUP BY 1, 2, 3, 4, s.\"start_us\")\n"
		       "\tGROUP BY 1, 2, 3, 4) AS i\n"
		       "ON i.\"system\" = g.\"system\" AND i.\"lpar\" = g.\"lpar\" AND i.\"pool\" = g.\"pool\" AND "
		       "i.\"bucket\" = g.\"bucket\"\n");
	mf_strbuf_printf(&view, "metrics_%s_%s", fam->key, g->name);
	rc = layered_view(kb, fam, mf_strbuf_str(&view),
			  "\"system\", \"lpar\", \"pool\", \"start_unix\", \"start_iso\", \"samples\"",
			  mf_strbuf_str(&base), out, err);
	mf_strbuf_free(&base);
	mf_strbuf_free(&view);
	return rc;
}

/* The levels of roll-ups that have a view (docs/db.md, "Levels and retention"). */
static const char *const rollup_level[] = {"hour", "day", "month"};

int mf_db_level_view_sql(const struct mf_kb *kb, const struct mf_family *fam, const char *level, struct mf_strbuf *out,
			 struct mf_error *err)
{
	struct mf_strbuf base, view, word;
	size_t i;
	int rc;

	mf_strbuf_init(&base);
	mf_strbuf_init(&view);
	mf_strbuf_init(&word);
	/*
	 * The row's sums as report takes a group's (mf_metrics_compute): a counter listed in partial
	 * did not come from every sample, so it is no sum of the group (NULL), as one no sample had;
	 * CPSP only when every sample gave the same; RMF busy only when every sample carried it;
	 * INTERVAL the wall-clock seconds the row covers.
	 */
	mf_strbuf_puts(&base,
		       "SELECT r.\"system\", r.\"lpar\", r.\"pool\", r.\"bucket\",\n"
		       "\tCAST((r.\"bucket_us\" - r.\"bucket_us\" % 1000000) / 1000000 AS BIGINT) AS \"start_unix\", "
		       "r.\"utc_offset_s\", r.\"samples\", r.\"cpus\"");
	for (i = 0; i < fam->ncounters; i++) {
		word.len = 0;
		mf_strbuf_printf(&word, " %s ", fam->counters[i].short_name);
		mf_strbuf_puts(&base, ",\n\tCASE WHEN instr(' ' || r.\"partial\" || ' ', ");
		mf_db_sql_text(&base, mf_strbuf_str(&word));
		mf_strbuf_puts(&base, ") = 0 THEN x.");
		mf_db_sql_ident(&base, "", fam->counters[i].short_name);
		mf_strbuf_puts(&base, " END AS ");
		mf_db_sql_ident(&base, "c_", fam->counters[i].short_name);
	}
	mf_strbuf_puts(&base,
		       ",\n\tCASE WHEN r.\"cpsp_min\" = r.\"cpsp_max\" THEN r.\"cpsp_min\" END AS \"v_cpsp\",\n"
		       "\tr.\"seconds\" AS \"v_interval\",\n"
		       "\tCAST(NULL AS DOUBLE) AS \"v_mem_peak\",\n"
		       "\tCASE WHEN r.\"rmf_samples\" = r.\"samples\" THEN r.\"rmf_busy_ns\" / 1e9 END AS "
		       "\"v_rmf_busy\"\n"
		       "FROM \"rollup\" AS r JOIN ");
	mf_db_sql_ident(&base, "rollup_", fam->key);
	mf_strbuf_puts(&base, " AS x ON x.\"id\" = r.\"id\"\nWHERE r.\"level\" = ");
	mf_db_sql_text(&base, level);
	mf_strbuf_puts(&base, " AND r.\"family\" = ");
	mf_db_sql_text(&base, fam->key);
	mf_strbuf_puts(&base, "\n");
	mf_strbuf_printf(&view, "metrics_%s_%s", fam->key, level);
	rc = layered_view(kb, fam, mf_strbuf_str(&view),
			  "\"system\", \"lpar\", \"pool\", \"bucket\", \"start_unix\" AS \"bucket_unix\", "
			  "\"start_iso\", \"utc_offset_s\", \"samples\", \"cpus\"",
			  mf_strbuf_str(&base), out, err);
	if (rc == 0 && word.failed)
		rc = mf_error_nomem(err, NULL, 0, "writing the views of %s", fam->key);
	mf_strbuf_free(&base);
	mf_strbuf_free(&view);
	mf_strbuf_free(&word);
	return rc;
}

int mf_db_views_sql(const struct mf_kb *kb, const struct mf_family *fam, struct mf_strbuf *out, struct mf_error *err)
{
	size_t i, k;
	int rc = 0;
	for (i = 0; i < kb->nfamilies && rc == 0; i++) {
		const struct mf_family *f = &kb->families[i];
		if (fam && f != fam)
			continue;
		mf_strbuf_printf(out, "-- %s: %s\n", f->key, f->display);
		rc = mf_db_sample_view_sql(kb, f, out, err);
		if (rc == 0)
			rc = mf_db_summed_view_sql(kb, f, &mf_db_grouping_utc_hour, out, err);
		for (k = 0; k < sizeof(rollup_level) / sizeof(rollup_level[0]) && rc == 0; k++)
			rc = mf_db_level_view_sql(kb, f, rollup_level[k], out, err);
	}
	return rc;
}
