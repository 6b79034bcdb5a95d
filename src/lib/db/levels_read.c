/* SPDX-License-Identifier: MIT */
/*
 * report --db over the levels of the database (docs/db.md, "Which level answers"): the level
 * that answers the question asked, and the rows of a roll-up level read as the common model,
 * each standing for the samples it sums.
 */
#include <math.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/base/timefmt.h"
#include "mfstat/db/read.h"
#include "mfstat/db/rollup.h"
#include "mfstat/input/sample.h"
#include "mfstat/report/group.h"
#include "read_int.h"

#define NO_HORIZON INT64_MIN
#define US_PER_HOUR INT64_C(3600000000)

/* One integer of a query with the level's name bound to ?1 (when level >= 0): *null when NULL. */
static int query_i64(struct mf_db *db, const char *sql, int level, int64_t *v, bool *null, const char *what,
		     struct mf_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;
	if (sqlite3_prepare_v2(mf_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		return mf_db_fail(db, what, err);
	if (level >= 0)
		sqlite3_bind_text(st, 1, mf_db_level_name(level), -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = mf_db_fail(db, what, err);
	} else {
		*null = sqlite3_column_type(st, 0) == SQLITE_NULL;
		*v = *null ? 0 : sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return rc;
}

/* The earliest interval start held at any level; INT64_MAX when there is none. */
static int earliest_held(struct mf_db *db, int64_t *out, struct mf_error *err)
{
	int64_t v;
	bool null;
	int level, rc;
	*out = INT64_MAX;
	rc = query_i64(db, "SELECT min(start_us) FROM sample", -1, &v, &null, "finding the period held", err);
	if (!rc && !null && v < *out)
		*out = v;
	for (level = MF_DB_HOUR; !rc && level < MF_DB_NLEVELS; level++) {
		/* Through the index on (level, bucket_us): the earliest first start is in the earliest bucket. */
		rc = query_i64(db,
			       "SELECT min(first_us) FROM rollup WHERE level = ?1 AND bucket_us = (SELECT "
			       "min(bucket_us) FROM rollup WHERE level = ?1)",
			       level, &v, &null, "finding the period held", err);
		if (!rc && !null && v < *out)
			*out = v;
	}
	return rc;
}

/*
 * Whether level answers the grouping and selection as far as their grain goes: NULL when it
 * does, else the option that needs a finer level ("--by cpu", "--hours") with in *finest the
 * coarsest level that answers it.
 */
static const char *grain_needs(int level, unsigned by, const struct mf_select *sel, int *finest)
{
	static const struct {
		unsigned bit;
		int finest; /* the coarsest level that still answers it */
	} keys[] = {
		{MF_BY_INTERVAL, MF_DB_SAMPLE}, {MF_BY_CPU, MF_DB_SAMPLE},    {MF_BY_FILE, MF_DB_SAMPLE},
		{MF_BY_POLARITY, MF_DB_SAMPLE}, {MF_BY_WEIGHT, MF_DB_SAMPLE}, {MF_BY_DRAWER, MF_DB_SAMPLE},
		{MF_BY_CHIP, MF_DB_SAMPLE},     {MF_BY_HOUR, MF_DB_HOUR},     {MF_BY_HOUR_OF_DAY, MF_DB_HOUR},
		{MF_BY_DAY, MF_DB_DAY},         {MF_BY_WEEK, MF_DB_DAY},      {MF_BY_WEEKDAY, MF_DB_DAY},
	};
	static char text[40];
	size_t i;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if ((by & keys[i].bit) && level > keys[i].finest) {
			snprintf(text, sizeof(text), "--by %s", mf_by_name(keys[i].bit));
			*finest = keys[i].finest;
			return text;
		}
	*finest = MF_DB_HOUR;
	if (sel && sel->hours && level > MF_DB_HOUR)
		return "--hours";
	*finest = MF_DB_DAY;
	if (sel && sel->weekdays && level > MF_DB_DAY)
		return "--weekdays";
	return NULL;
}

/*
 * With a zone that is not each record's own (--tz UTC, --tz Europe/Berlin): whether every row of
 * level falls in one bucket of that zone too (its first and last sample's starts), so that
 * grouping and selecting its rows in that zone gives what the samples give.
 */
static int zone_agrees(struct mf_db *db, int level, const struct mf_tz *tz, bool *agrees, struct mf_error *err)
{
	sqlite3_stmt *st = NULL;
	int step;
	*agrees = true;
	if (sqlite3_prepare_v2(mf_db_sqlite(db), "SELECT first_us, last_us FROM rollup WHERE level = ?1", -1, &st,
			       NULL) != SQLITE_OK)
		return mf_db_fail(db, "reading the roll-ups", err);
	sqlite3_bind_text(st, 1, mf_db_level_name(level), -1, SQLITE_STATIC);
	while (*agrees && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t a = sqlite3_column_int64(st, 0), b = sqlite3_column_int64(st, 1);
		int32_t oa = tz ? mf_tz_offset(tz, a) : 0, ob = tz ? mf_tz_offset(tz, b) : 0;
		*agrees = mf_db_bucket(level, a, oa) == mf_db_bucket(level, b, ob);
	}
	sqlite3_finalize(st);
	if (*agrees && step != SQLITE_DONE)
		return mf_db_fail(db, "reading the roll-ups", err);
	return 0;
}

/* Whether a row of level holds samples on both sides of the bound x of --from or --to. */
static int straddled(struct mf_db *db, int level, int64_t x, bool local, bool *yes, struct mf_error *err)
{
	sqlite3_stmt *st = NULL;
	/* A date alone (local) is that date on each row's own clock (UTC for a row without one). */
	const char *sql =
		local ? "SELECT EXISTS (SELECT 1 FROM rollup WHERE level = ?1 AND first_us < ?2 - "
			"(CASE WHEN offset_known THEN utc_offset_s ELSE 0 END) * 1000000 AND last_us >= ?2 - "
			"(CASE WHEN offset_known THEN utc_offset_s ELSE 0 END) * 1000000)"
		      : "SELECT EXISTS (SELECT 1 FROM rollup WHERE level = ?1 AND first_us < ?2 AND last_us >= ?2)";
	int rc = 0;
	if (sqlite3_prepare_v2(mf_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		return mf_db_fail(db, "checking the period against the roll-ups", err);
	sqlite3_bind_text(st, 1, mf_db_level_name(level), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, x);
	if (sqlite3_step(st) != SQLITE_ROW)
		rc = mf_db_fail(db, "checking the period against the roll-ups", err);
	else
		*yes = sqlite3_column_int(st, 0) != 0;
	sqlite3_finalize(st);
	return rc;
}

/* Why level cannot answer ask ("" when it can) into why[n]. */
static int cannot_answer(struct mf_db *db, int level, const struct mf_db_ask *ask, char *why, size_t n,
			 struct mf_error *err)
{
	const struct mf_select *sel = ask->sel;
	const char *needs;
	char t[40];
	bool bad = false;
	int rc = 0, finest;

	why[0] = '\0';
	if (level == MF_DB_SAMPLE)
		return 0;
	needs = grain_needs(level, ask->by, sel, &finest);
	if (needs) {
		if (finest == MF_DB_SAMPLE)
			snprintf(why, n, "%s needs the samples", needs);
		else
			snprintf(why, n, "%s needs the %s level or a finer one", needs, mf_db_level_name(finest));
		return 0;
	}
	if (!ask->tz || !mf_tz_per_record(ask->tz)) {
		bool agrees;
		rc = zone_agrees(db, level, ask->tz, &agrees, err);
		if (!rc && !agrees) {
			snprintf(why, n, "its %ss are cut on the clock the records were written in, not in --tz %s",
				 mf_db_level_name(level), ask->tz ? mf_tz_name(ask->tz) : "UTC");
			return 0;
		}
	}
	if (!rc && sel && sel->has_from && !(rc = straddled(db, level, sel->from_us, sel->from_local, &bad, err)) &&
	    bad) {
		mf_time_format(sel->from_us, t, sizeof(t));
		snprintf(why, n, "--from %s%s falls inside one of its %ss", t, sel->from_local ? " (local)" : "",
			 mf_db_level_name(level));
		return 0;
	}
	if (!rc && sel && sel->has_to && !(rc = straddled(db, level, sel->to_us, sel->to_local, &bad, err)) && bad) {
		mf_time_format(sel->to_us, t, sizeof(t));
		snprintf(why, n, "--to %s%s falls inside one of its %ss", t, sel->to_local ? " (local)" : "",
			 mf_db_level_name(level));
	}
	return rc;
}

/* cannot_answer's answers within one choice: each level's scans of its rows run once. */
struct answers {
	bool known[MF_DB_NLEVELS];
	char why[MF_DB_NLEVELS][192];
};

/* Why level cannot answer ask ("" when it can), from a or worked out once into it. */
static int answer(struct mf_db *db, int level, const struct mf_db_ask *ask, struct answers *a, const char **why,
		  struct mf_error *err)
{
	int rc = 0;
	if (!a->known[level]) {
		rc = cannot_answer(db, level, ask, a->why[level], sizeof(a->why[level]), err);
		a->known[level] = rc == 0;
	}
	*why = a->why[level];
	return rc;
}

int mf_db_choose(struct mf_db *db, const struct mf_db_ask *ask, struct mf_db_choice *c, struct mf_error *err)
{
	struct answers a;
	const char *why;
	int64_t horizon[MF_DB_NLEVELS], start;
	bool held[MF_DB_NLEVELS], null = false;
	int level, rc = 0;

	memset(c, 0, sizeof(*c));
	memset(&a, 0, sizeof(a));
	c->level = MF_DB_SAMPLE;
	c->held = true;
	c->horizon_us = NO_HORIZON;
	/* Where the period asked begins: --from (a date alone: up to 14 hours earlier somewhere), else the earliest held. */
	if (ask->sel && ask->sel->has_from)
		start = ask->sel->from_us - (ask->sel->from_local ? 14 * US_PER_HOUR : 0);
	else
		rc = earliest_held(db, &start, err);
	for (level = 0; !rc && level < MF_DB_NLEVELS; level++) {
		rc = query_i64(db, "SELECT max(before_us) FROM prune_log WHERE level = ?1", level, &horizon[level],
			       &null, "reading the prune log", err);
		if (null)
			horizon[level] = NO_HORIZON;
		held[level] = horizon[level] == NO_HORIZON || horizon[level] <= start;
	}
	if (rc)
		return rc;
	if (ask->level >= 0) { /* --level: that one, or why it cannot answer */
		if ((rc = answer(db, ask->level, ask, &a, &why, err)) != 0)
			return rc;
		if (why[0])
			return mf_error_set(err, MF_EUSAGE, mf_db_path(db), 0, 0, "the %s level cannot answer: %s",
					    mf_db_level_name(ask->level), why);
		c->level = ask->level;
		c->held = held[ask->level];
		c->horizon_us = horizon[ask->level];
		c->asked = true;
		return 0;
	}
	if (held[MF_DB_SAMPLE])
		return 0;
	/* The samples of the period are partly pruned: the coarsest roll-up that answers and holds it. */
	for (level = MF_DB_MONTH; level > MF_DB_SAMPLE; level--) {
		if ((rc = answer(db, level, ask, &a, &why, err)) != 0)
			return rc;
		if (!why[0] && held[level]) {
			c->level = level;
			c->horizon_us = horizon[MF_DB_SAMPLE];
			return 0;
		}
		if (why[0] && !c->why[0])
			snprintf(c->why, sizeof(c->why), "the %s roll-ups cannot answer: %s", mf_db_level_name(level),
				 why);
	}
	/* None holds all of it: the level that answers and holds the most. */
	for (level = MF_DB_HOUR; level < MF_DB_NLEVELS; level++) {
		if ((rc = answer(db, level, ask, &a, &why, err)) != 0)
			return rc;
		if (!why[0] && horizon[level] < horizon[c->level])
			c->level = level;
	}
	c->held = false;
	c->horizon_us = horizon[c->level];
	return 0;
}

/* The columns of the roll-ups' statement. */
enum {
	R_ID,
	R_SYSTEM,
	R_LPAR,
	R_POOL,
	R_FAMILY,
	R_MACHINE,
	R_OFFSET_S,
	R_OFFSET_KNOWN,
	R_SAMPLES,
	R_CPUS,
	R_SECONDS,
	R_FIRST,
	R_CPSP_MIN,
	R_CPSP_MAX,
	R_BUSY,
	R_BUSY_SAMPLES,
	R_PARTIAL,
	R_BUSY_NS,
	R_BUCKET,
	R_NCOLS
};

struct rows {
	struct mf_db *db;
	const struct mf_kb *kb;
	sqlite3_stmt *st;
	struct mf_db_fam *fams;
	size_t nfams;
	int level;
};

static void rows_close(struct rows *d)
{
	size_t i;
	sqlite3_finalize(d->st);
	for (i = 0; i < d->nfams; i++)
		mf_db_fam_free(&d->fams[i]);
	free(d->fams);
}

/* The roll-up rows of level in the order of their buckets, each with its counter sums joined. */
static int rows_open(struct rows *d, struct mf_db *db, const struct mf_kb *kb, int level, struct mf_error *err)
{
	sqlite3 *h = mf_db_sqlite(db);
	struct mf_strbuf sql;
	size_t k, ncols = R_NCOLS;
	int rc;

	memset(d, 0, sizeof(*d));
	d->db = db;
	d->kb = kb;
	d->level = level;
	rc = mf_db_fams_load_all(db, kb, "rollup_", "listing the roll-up tables", &d->fams, &d->nfams, err);
	if (rc)
		return rc;
	mf_strbuf_init(&sql);
	mf_strbuf_puts(&sql,
		       "SELECT r.id, r.system, r.lpar, r.pool, r.family, r.machine, r.utc_offset_s, "
		       "r.offset_known, r.samples, r.cpus, r.seconds, r.first_us, r.cpsp_min, r.cpsp_max, "
		       "r.rmf_busy_s, r.rmf_samples, r.partial, ");
	/* Schema 1 (read as it is) had the seconds alone. */
	mf_strbuf_puts(&sql, mf_db_version(db) >= 2 ? "r.rmf_busy_ns" : "CAST(round(r.rmf_busy_s * 1e9) AS INTEGER)");
	mf_strbuf_puts(&sql, ", r.bucket");
	for (k = 0; k < d->nfams; k++) {
		mf_strbuf_puts(&sql, mf_strbuf_str(&d->fams[k].joined));
		d->fams[k].base = (int)ncols;
		ncols += d->fams[k].ncols + 1;
	}
	mf_strbuf_puts(&sql, " FROM rollup AS r");
	for (k = 0; k < d->nfams; k++) {
		struct mf_strbuf t;
		mf_strbuf_init(&t);
		mf_strbuf_printf(&t, "rollup_%s", d->fams[k].key);
		mf_strbuf_puts(&sql, " LEFT JOIN ");
		mf_db_sql_ident(&sql, "", mf_strbuf_str(&t));
		mf_strbuf_printf(&sql, " AS c%zu ON c%zu.id = r.id", k, k);
		mf_strbuf_free(&t);
	}
	mf_strbuf_puts(&sql, " WHERE r.level = ?1 ORDER BY r.bucket_us, r.id");
	if (ncols >= 2000)
		rc = mf_error_set(err, MF_EFORMAT, mf_db_path(db), 0, 0,
				  "the roll-up tables have %zu columns together, more than one statement reads", ncols);
	else if (sqlite3_prepare_v2(h, mf_strbuf_str(&sql), -1, &d->st, NULL) != SQLITE_OK)
		rc = mf_db_fail(db, "preparing the reading of the roll-ups", err);
	else
		sqlite3_bind_text(d->st, 1, mf_db_level_name(level), -1, SQLITE_STATIC);
	mf_strbuf_free(&sql);
	return rc;
}

static bool null_at(sqlite3_stmt *st, int c)
{
	return sqlite3_column_type(st, c) == SQLITE_NULL;
}

/*
 * The error of the current row of d: MF_EFORMAT naming the database, the row (its level, id,
 * bucket, system, LPAR and pool) and what is wrong with it.
 */
static int row_fail(const struct rows *d, struct mf_error *err, const char *fmt, ...)
{
	static const int cols[] = {R_BUCKET, R_SYSTEM, R_LPAR, R_POOL};
	static const char *const names[] = {"bucket", "system", "LPAR", "pool"};
	const char *t[4];
	char what[256];
	va_list ap;
	size_t i;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	for (i = 0; i < 4; i++) { /* each column's text stays valid until the next step */
		t[i] = (const char *)sqlite3_column_text(d->st, cols[i]);
		if (!t[i] || !*t[i])
			t[i] = "(none)";
	}
	return mf_error_set(err, MF_EFORMAT, mf_db_path(d->db), 0, 0,
			    "the %s roll-up %lld (%s %s, %s %s, %s %s, %s %s): %s", mf_db_level_name(d->level),
			    (long long)sqlite3_column_int64(d->st, R_ID), names[0], t[0], names[1], t[1], names[2],
			    t[2], names[3], t[3], what);
}

/*
 * The next roll-up row as a sample standing for the samples it sums (mf_reader_source_fn): cpu
 * -1, its first sample's start, the wall-clock seconds of its bucket, the speed when every sample
 * had the same, the RMF time when every sample had one, the counters every sample had.
 */
static int rows_next(void *ctx, const struct mf_reader_opts *opts, struct mf_sample *s, struct mf_error *err)
{
	struct rows *d = ctx;
	sqlite3_stmt *st = d->st;
	struct mf_db_fam *f = NULL;
	const char *key, *text;
	int64_t neg = 0;
	size_t i, bad;
	int step = sqlite3_step(st);

	if (step == SQLITE_DONE)
		return 0;
	if (step != SQLITE_ROW)
		return mf_db_fail(d->db, "reading the roll-ups", err);
	mf_sample_reset(s);
	key = (const char *)sqlite3_column_text(st, R_FAMILY);
	for (i = 0; key && i < d->nfams; i++)
		if (strcmp(d->fams[i].key, key) == 0)
			f = &d->fams[i];
	if (!f)
		return row_fail(d, err, "its family '%s' has no table rollup_%s", key ? key : "", key ? key : "");
	if (null_at(st, f->base))
		return row_fail(d, err, "no row in rollup_%s", f->key);
	s->family = f->family;
	if (!null_at(st, R_MACHINE) &&
	    !(s->machine = mf_kb_machine(d->kb, (unsigned)sqlite3_column_int(st, R_MACHINE))))
		return row_fail(d, err, "machine type %d is not in this knowledge base",
				sqlite3_column_int(st, R_MACHINE));
	text = (const char *)sqlite3_column_text(st, R_SYSTEM);
	s->system = text && *text ? mf_strtab_intern(opts->strtab, text, strlen(text)) : 0;
	text = (const char *)sqlite3_column_text(st, R_LPAR);
	s->lpar = text && *text ? mf_strtab_intern(opts->strtab, text, strlen(text)) : 0;
	text = (const char *)sqlite3_column_text(st, R_POOL);
	if (text && *text) {
		int pool = mf_pool_parse(text, strlen(text));
		if (pool < 0)
			return row_fail(d, err, "unknown pool '%s'", text);
		s->pool = pool;
	}
	s->has_offset = sqlite3_column_int(st, R_OFFSET_KNOWN) != 0;
	s->utc_offset_s = s->has_offset ? sqlite3_column_int(st, R_OFFSET_S) : 0;
	if (sqlite3_column_int64(st, R_SAMPLES) <= 0)
		return row_fail(d, err, "it sums no samples (samples %lld)",
				(long long)sqlite3_column_int64(st, R_SAMPLES));
	if (sqlite3_column_int64(st, R_CPUS) < 0 || sqlite3_column_int64(st, R_CPUS) > UINT32_MAX)
		return row_fail(d, err, "its count of CPUs is out of range (%lld)",
				(long long)sqlite3_column_int64(st, R_CPUS));
	s->rollup_rows = (uint64_t)sqlite3_column_int64(st, R_SAMPLES);
	s->rollup_cpus = (uint32_t)sqlite3_column_int(st, R_CPUS);
	s->has_start = true;
	s->start_us = sqlite3_column_int64(st, R_FIRST);
	s->seconds = null_at(st, R_SECONDS) ? NAN : sqlite3_column_double(st, R_SECONDS);
	if (!null_at(st, R_CPSP_MIN) && !null_at(st, R_CPSP_MAX) &&
	    sqlite3_column_double(st, R_CPSP_MIN) == sqlite3_column_double(st, R_CPSP_MAX))
		s->cpsp = sqlite3_column_double(st, R_CPSP_MIN);
	if (!null_at(st, R_BUSY_NS) && sqlite3_column_int64(st, R_BUSY_SAMPLES) == (sqlite3_int64)s->rollup_rows) {
		s->rollup_busy_ns = sqlite3_column_int64(st, R_BUSY_NS);
		s->rmf_busy_s = (double)s->rollup_busy_ns / 1e9;
	}
	/* Its counters in the family's slot order: a counter only some samples had is left out (not a full sum). */
	bad = mf_db_fam_row(f, st, f->base + 1, (const char *)sqlite3_column_text(st, R_PARTIAL), s, &neg);
	if (bad)
		return row_fail(d, err, "the sum of %s is negative (%lld)",
				f->family->counters[f->cols[bad - 1].slot].short_name, (long long)neg);
	return 1;
}

int mf_db_report_read(struct mf_pipeline *p, struct mf_db *db, const struct mf_kb *kb, const struct mf_db_ask *ask,
		      struct mf_db_choice *c, struct mf_error *err)
{
	/* The input's format, kept by the report (static). */
	static const char *const format[MF_DB_NLEVELS] = {"db", "db hour", "db day", "db month"};
	const char *path = mf_db_path(db);
	char t[40];
	struct rows d;
	int rc;

	mf_error_clear(err);
	rc = mf_db_choose(db, ask, c, err);
	if (rc) {
		mf_pipeline_error(p, err);
		return rc;
	}
	if (c->horizon_us != NO_HORIZON)
		mf_time_format(c->horizon_us, t, sizeof(t));
	if (!c->held)
		mf_pipeline_warn(p,
				 "%s: the %s level holds nothing before %s (mfstat db prune): the report covers the "
				 "period from then on%s%s",
				 path, mf_db_level_name(c->level), t, c->why[0] ? "; " : "", c->why);
	else if (c->level != MF_DB_SAMPLE && !c->asked)
		mf_pipeline_warn(p,
				 "%s: read from the %s roll-ups, as the samples before %s were pruned (sums exact; "
				 "samples and cpus are counted per %s: docs/db.md)",
				 path, mf_db_level_name(c->level), t, mf_db_level_name(c->level));
	if (c->level == MF_DB_SAMPLE)
		return mf_db_report_add(p, db, kb, ask->sel, err);
	rc = rows_open(&d, db, kb, c->level, err);
	if (rc) {
		mf_pipeline_error(p, err);
	} else {
		rc = mf_pipeline_add_source(p, path, format[c->level], rows_next, &d, NULL, err);
		if (!rc)
			mf_pipeline_set_rollup(p, mf_db_level_name(c->level));
	}
	rows_close(&d);
	return rc;
}
