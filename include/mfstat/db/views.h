/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_DB_VIEWS_H
#define MFSTAT_DB_VIEWS_H

#include "mfstat/base/error.h"
#include "mfstat/base/strbuf.h"
#include "mfstat/kb/kb.h"

/*
 * The views of the performance database (docs/db.md, "Views"): every metric of the knowledge
 * base and the LSPR class, computed in SQL from the stored counters by the formula translator
 * (mfstat/kb/expr_sql.h), so that sqlite3, DuckDB's sqlite reader and Grafana show them.
 */

/*
 * A level of sums: the samples of a family grouped by system, LPAR, pool and a bucket of time,
 * with the metrics computed from the sums as report computes them over a group.
 */
struct mf_db_grouping {
	const char *name;   /* the view is metrics_<family>_<name> */
	const char *bucket; /* SQL: the bucket's start, Unix seconds, from s."start_us" (microseconds) */
};

/* The UTC hour of the samples (metrics_<family>_utc_hour). */
extern const struct mf_db_grouping mf_db_grouping_utc_hour;

/*
 * Appends to out the statements (DROP VIEW IF EXISTS, CREATE VIEW) of the views of fam, or of
 * every family when fam is NULL: metrics_<family>_sample, metrics_<family>_utc_hour, and
 * metrics_<family>_hour, _day and _month over the roll-ups.  Returns 0, or MF_ENOMEM with err set.
 */
int mf_db_views_sql(const struct mf_kb *kb, const struct mf_family *fam, struct mf_strbuf *out, struct mf_error *err);

/* The statements of fam's view per sample. */
int mf_db_sample_view_sql(const struct mf_kb *kb, const struct mf_family *fam, struct mf_strbuf *out,
			  struct mf_error *err);

/* The statements of fam's summing view at grouping g. */
int mf_db_summed_view_sql(const struct mf_kb *kb, const struct mf_family *fam, const struct mf_db_grouping *g,
			  struct mf_strbuf *out, struct mf_error *err);

/*
 * The statements of fam's view over the roll-ups of level ("hour", "day", "month"): one row per
 * row of rollup JOIN rollup_<family> of that level, the metrics computed from its sums.
 */
int mf_db_level_view_sql(const struct mf_kb *kb, const struct mf_family *fam, const char *level, struct mf_strbuf *out,
			 struct mf_error *err);

/*
 * Appends the LSPR class (a CASE giving 'LOW', 'AVERAGE', 'HIGH' or NULL) of the SQL values l1mp
 * and rni for an engine of pool (SQL text): the knowledge base's decision table, as
 * mf_kb_lspr_class applies it, NULL for the pools fam leaves out of the class.
 */
void mf_db_lspr_sql(const struct mf_kb *kb, const struct mf_family *fam, const char *pool, const char *l1mp,
		    const char *rni, struct mf_strbuf *out);

#endif
