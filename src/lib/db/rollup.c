/* SPDX-License-Identifier: MIT */
/*
 * Roll-ups: every hour, day and month bucket touched by an import recomputed from the samples,
 * in SQL over the tables of docs/db.md (the counter columns are those of each counters_<family>
 * table, whatever knowledge base wrote them).  Buckets are cut on the local clock each sample
 * carries (utc_offset_s; UTC without one) by mfstat_bucket(), a function registered on the
 * connection, so that the calendar arithmetic is the C of mf_db_bucket, not SQL's.
 */
#include "mfstat/db/rollup.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/base/strbuf.h"
#include "mfstat/base/timefmt.h"
#include "mfstat/base/tz.h"
#include "mfstat/kb/kb.h"

#define US_PER_S INT64_C(1000000)
#define US_PER_HOUR (3600 * US_PER_S)
#define US_PER_DAY (86400 * US_PER_S)

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int64_t mf_db_bucket(int level, int64_t us, int32_t off_s)
{
	int64_t local = us + (int64_t)off_s * US_PER_S, start, y;
	unsigned m, d;
	switch (level) {
	case MF_DB_HOUR: start = floor_div(local, US_PER_HOUR) * US_PER_HOUR; break;
	case MF_DB_DAY: start = floor_div(local, US_PER_DAY) * US_PER_DAY; break;
	default:
		mf_civil_from_days(floor_div(local, US_PER_DAY), &y, &m, &d);
		start = mf_days_from_civil(y, m, 1) * US_PER_DAY;
		break;
	}
	return start - (int64_t)off_s * US_PER_S;
}

/* mfstat_bucket(level, us, off_s): mf_db_bucket; NULL for a NULL instant. */
static void fn_bucket(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	if (sqlite3_value_type(argv[1]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	sqlite3_result_int64(ctx, mf_db_bucket(sqlite3_value_int(argv[0]), sqlite3_value_int64(argv[1]),
					       (int32_t)sqlite3_value_int(argv[2])));
}

/* mfstat_local(us, off_s, known): the instant as local ISO 8601 with its offset (Z when not known). */
static void fn_local(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char buf[48];
	(void)argc;
	mf_time_format_at(sqlite3_value_int64(argv[0]), (int32_t)sqlite3_value_int(argv[1]),
			  sqlite3_value_int(argv[2]) == 0, buf, sizeof(buf));
	sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

static const char *const level_sql[MF_DB_NLEVELS] = {"sample", "hour", "day", "month"};

struct names {
	char **v;
	size_t n, cap;
};

static void names_free(struct names *nm)
{
	while (nm->n)
		free(nm->v[--nm->n]);
	free(nm->v);
	memset(nm, 0, sizeof(*nm));
}

static int names_add(struct names *nm, const char *s)
{
	if (nm->n == nm->cap) {
		size_t cap = nm->cap ? 2 * nm->cap : 16;
		char **g = realloc(nm->v, cap * sizeof(*g));
		if (!g)
			return -1;
		nm->v = g;
		nm->cap = cap;
	}
	if (!(nm->v[nm->n] = strdup(s)))
		return -1;
	nm->n++;
	return 0;
}

/* The rows of column 0 of sql (text) into nm: 0, MF_EIO or MF_ENOMEM. */
static int list(struct mf_db *db, const char *sql, int col, struct names *nm, struct mf_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc;
	if (sqlite3_prepare_v2(mf_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		return mf_db_fail(db, "reading the schema for the roll-ups", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (names_add(nm, (const char *)sqlite3_column_text(st, col)) != 0) {
			sqlite3_finalize(st);
			return mf_error_nomem(err, mf_db_path(db), 0, "listing the counter columns");
		}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : mf_db_fail(db, "reading the schema for the roll-ups", err);
}

/* The counter columns of table (all but id). */
static int columns_of(struct mf_db *db, const char *table, struct names *nm, struct mf_error *err)
{
	struct mf_strbuf sql;
	int rc;
	mf_strbuf_init(&sql);
	mf_strbuf_puts(&sql, "SELECT name FROM pragma_table_info(");
	mf_db_sql_text(&sql, table);
	mf_strbuf_puts(&sql, ") WHERE name <> 'id' ORDER BY cid");
	rc = list(db, mf_strbuf_str(&sql), 0, nm, err);
	mf_strbuf_free(&sql);
	return rc;
}

static int exec_sb(struct mf_db *db, struct mf_strbuf *sql, const char *what, struct mf_error *err)
{
	int rc = mf_db_exec(db, mf_strbuf_str(sql), what, err);
	mf_strbuf_free(sql);
	mf_strbuf_init(sql);
	return rc;
}

static int query_i64(struct mf_db *db, const char *sql, int64_t *v, bool *null, struct mf_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc;
	if (sqlite3_prepare_v2(mf_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		return mf_db_fail(db, "rolling up", err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*null = sqlite3_column_type(st, 0) == SQLITE_NULL;
		*v = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : mf_db_fail(db, "rolling up", err);
}

/* rollup_<fam> with every column of counters_<fam> (added when a newer knowledge base added some). */
static int sums_table(struct mf_db *db, const char *fam, const struct names *cols, struct mf_error *err)
{
	struct names have = {0};
	struct mf_strbuf sql, t;
	size_t i, k;
	int rc;
	mf_strbuf_init(&sql);
	mf_strbuf_init(&t);
	mf_strbuf_printf(&t, "rollup_%s", fam);
	mf_strbuf_puts(&sql, "CREATE TABLE IF NOT EXISTS ");
	mf_db_sql_ident(&sql, "", mf_strbuf_str(&t));
	mf_strbuf_puts(&sql, " (id INTEGER PRIMARY KEY)");
	if ((rc = exec_sb(db, &sql, "creating the roll-up sums", err)) != 0 ||
	    (rc = columns_of(db, mf_strbuf_str(&t), &have, err)) != 0)
		goto out;
	for (i = 0; i < cols->n; i++) {
		for (k = 0; k < have.n && strcmp(have.v[k], cols->v[i]) != 0; k++)
			;
		if (k < have.n)
			continue;
		mf_strbuf_puts(&sql, "ALTER TABLE ");
		mf_db_sql_ident(&sql, "", mf_strbuf_str(&t));
		mf_strbuf_puts(&sql, " ADD COLUMN ");
		mf_db_sql_ident(&sql, "", cols->v[i]);
		mf_strbuf_puts(&sql, " INTEGER");
		if ((rc = exec_sb(db, &sql, "adding a counter to the roll-up sums", err)) != 0)
			goto out;
	}
out:
	names_free(&have);
	mf_strbuf_free(&sql);
	mf_strbuf_free(&t);
	return rc;
}

/* The bucket of a sample row s of this level, on its own clock. */
static void bucket_expr(struct mf_strbuf *sql, int level)
{
	mf_strbuf_printf(sql, "mfstat_bucket(%d, s.start_us, coalesce(s.utc_offset_s, 0))", level);
}

/* ---- the hours' counter sums gathered by the importer ---- */

struct hour {
	const struct mf_family *f;
	char *system, *lpar, *pool;
	int64_t b;
	int32_t off;
	int known;
	uint64_t n;
	bool overflow; /* a sum reached 2^63: SQL's sum() says so ("integer overflow") */
	int64_t *sum;
	uint64_t *cnt;
	/* The CPUs of its samples: bit cpu + 1 (bit 0: samples of no CPU, -1); cpus_odd: a CPU beyond CPU_MAX. */
	uint64_t *cpus;
	size_t ncpuw;
	bool cpus_odd;
};

/* The highest CPU number kept in a CPU set (beyond it the level's CPUs are counted in SQL). */
#define CPU_MAX 65535

struct mf_db_hours {
	struct hour *v;
	size_t n, cap;
	size_t *slot; /* open addressing: index + 1 into v, 0 empty */
	size_t nslot;
};

struct mf_db_hours *mf_db_hours_new(void)
{
	return calloc(1, sizeof(struct mf_db_hours));
}

void mf_db_hours_clear(struct mf_db_hours *hs)
{
	size_t i;
	if (!hs)
		return;
	for (i = 0; i < hs->n; i++) {
		free(hs->v[i].system);
		free(hs->v[i].lpar);
		free(hs->v[i].pool);
		free(hs->v[i].sum);
		free(hs->v[i].cnt);
		free(hs->v[i].cpus);
	}
	hs->n = 0;
	if (hs->slot)
		memset(hs->slot, 0, hs->nslot * sizeof(*hs->slot));
}

void mf_db_hours_free(struct mf_db_hours *hs)
{
	if (!hs)
		return;
	mf_db_hours_clear(hs);
	free(hs->v);
	free(hs->slot);
	free(hs);
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
	return (h ^ 0xff) * UINT64_C(0x100000001b3);
}

static uint64_t hour_hash(const struct mf_family *f, const char *system, const char *lpar, const char *pool, int64_t b,
			  int32_t off, int known)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325) ^ (uint64_t)(uintptr_t)f;
	h = hash_str(h, system);
	h = hash_str(h, lpar);
	h = hash_str(h, pool);
	h = (h ^ (uint64_t)b) * UINT64_C(0x100000001b3);
	h = (h ^ (uint64_t)(uint32_t)off) * UINT64_C(0x100000001b3);
	h = (h ^ (uint64_t)known) * UINT64_C(0x100000001b3);
	return h ^ (h >> 29);
}

static int hours_grow(struct mf_db_hours *hs)
{
	size_t nslot = hs->nslot ? 2 * hs->nslot : 1024, i;
	size_t *slot = calloc(nslot, sizeof(*slot));
	if (!slot)
		return -1;
	for (i = 0; i < hs->n; i++) {
		const struct hour *e = &hs->v[i];
		size_t k = (size_t)hour_hash(e->f, e->system, e->lpar, e->pool, e->b, e->off, e->known) & (nslot - 1);
		while (slot[k])
			k = (k + 1) & (nslot - 1);
		slot[k] = i + 1;
	}
	free(hs->slot);
	hs->slot = slot;
	hs->nslot = nslot;
	return 0;
}

/* Sets bit cpu + 1 of e's CPU set.  0 or MF_ENOMEM. */
static int cpus_add(struct hour *e, int64_t cpu)
{
	size_t bit, w;
	if (cpu < -1 || cpu > CPU_MAX) {
		e->cpus_odd = true;
		return 0;
	}
	bit = (size_t)(cpu + 1);
	w = bit / 64;
	if (w >= e->ncpuw) {
		size_t n = w + 1 > 2 * e->ncpuw ? w + 1 : 2 * e->ncpuw;
		uint64_t *g = realloc(e->cpus, n * sizeof(*g));
		if (!g)
			return MF_ENOMEM;
		memset(g + e->ncpuw, 0, (n - e->ncpuw) * sizeof(*g));
		e->cpus = g;
		e->ncpuw = n;
	}
	e->cpus[w] |= UINT64_C(1) << (bit % 64);
	return 0;
}

int mf_db_hours_add(struct mf_db_hours *hs, const struct mf_family *f, const char *system, const char *lpar,
		    const char *pool, int64_t cpu, int64_t start_us, bool has_offset, int32_t off_s,
		    const unsigned char *has, const uint64_t *val)
{
	int32_t off = has_offset ? off_s : 0;
	int known = has_offset ? 1 : 0;
	int64_t b = mf_db_bucket(MF_DB_HOUR, start_us, off);
	size_t k, i;
	struct hour *e;
	if ((hs->n + 1) * 2 > hs->nslot && hours_grow(hs) != 0)
		return MF_ENOMEM;
	k = (size_t)hour_hash(f, system, lpar, pool, b, off, known) & (hs->nslot - 1);
	for (;; k = (k + 1) & (hs->nslot - 1)) {
		if (!hs->slot[k])
			break;
		e = &hs->v[hs->slot[k] - 1];
		if (e->f == f && e->b == b && e->off == off && e->known == known && strcmp(e->system, system) == 0 &&
		    strcmp(e->lpar, lpar) == 0 && strcmp(e->pool, pool) == 0)
			goto found;
	}
	if (hs->n == hs->cap) {
		size_t cap = hs->cap ? 2 * hs->cap : 256;
		struct hour *g = realloc(hs->v, cap * sizeof(*g));
		if (!g)
			return MF_ENOMEM;
		hs->v = g;
		hs->cap = cap;
	}
	e = &hs->v[hs->n];
	memset(e, 0, sizeof(*e));
	e->f = f;
	e->b = b;
	e->off = off;
	e->known = known;
	e->system = strdup(system);
	e->lpar = strdup(lpar);
	e->pool = strdup(pool);
	e->sum = calloc(f->ncounters + 1, sizeof(*e->sum));
	e->cnt = calloc(f->ncounters + 1, sizeof(*e->cnt));
	if (!e->system || !e->lpar || !e->pool || !e->sum || !e->cnt) {
		free(e->system);
		free(e->lpar);
		free(e->pool);
		free(e->sum);
		free(e->cnt);
		return MF_ENOMEM;
	}
	hs->slot[k] = ++hs->n;
found:
	if (cpus_add(e, cpu) != 0)
		return MF_ENOMEM;
	e->n++;
	for (i = 0; i < f->ncounters; i++)
		if (has[i]) {
			e->cnt[i]++;
			if (__builtin_add_overflow(e->sum[i], (int64_t)val[i], &e->sum[i]))
				e->overflow = true;
		}
	return 0;
}

/*
 * temp.mf_csum: the hours of family fam held in hs, with the counter sums by the columns of the
 * counters table (cols) and the partial list as the SQL of agg_sql makes them.  Returns 0 (rows
 * written in *rows), MF_EIO or MF_ENOMEM.
 */
static int csum_table(struct mf_db *db, const char *fam, const struct names *cols, const struct mf_db_hours *hs,
		      size_t *rows, struct mf_error *err)
{
	sqlite3 *h = mf_db_sqlite(db);
	struct mf_strbuf sql, partial;
	sqlite3_stmt *st = NULL;
	long *slot = NULL;
	const struct mf_family *f = NULL;
	size_t i, k;
	int rc;
	*rows = 0;
	mf_strbuf_init(&sql);
	mf_strbuf_init(&partial);
	mf_strbuf_puts(&sql,
		       "DROP TABLE IF EXISTS temp.mf_csum; CREATE TEMP TABLE mf_csum (system TEXT, lpar TEXT, pool "
		       "TEXT, b INTEGER, off INTEGER, known INTEGER, n INTEGER, ovf INTEGER, partial TEXT");
	for (i = 0; i < cols->n; i++)
		mf_strbuf_printf(&sql, ", s%zu INTEGER", i);
	mf_strbuf_puts(&sql, ")");
	if ((rc = exec_sb(db, &sql, "summing the hours", err)) != 0)
		goto out;
	mf_strbuf_puts(&sql, "INSERT INTO temp.mf_csum VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?");
	for (i = 0; i < cols->n; i++)
		mf_strbuf_puts(&sql, ", ?");
	mf_strbuf_puts(&sql, ")");
	if (sqlite3_prepare_v2(h, mf_strbuf_str(&sql), -1, &st, NULL) != SQLITE_OK) {
		rc = mf_db_fail(db, "summing the hours", err);
		goto out;
	}
	for (i = 0; i < hs->n; i++) {
		const struct hour *e = &hs->v[i];
		if (strcmp(e->f->key, fam) != 0)
			continue;
		if (f != e->f) { /* the dense slot of each column, -1 for a column the kb does not know */
			f = e->f;
			free(slot);
			if (!(slot = malloc((cols->n + 1) * sizeof(*slot)))) {
				rc = mf_error_nomem(err, mf_db_path(db), 0, "summing the hours");
				goto out;
			}
			for (k = 0; k < cols->n; k++) {
				size_t j;
				slot[k] = -1;
				for (j = 0; j < f->ncounters; j++)
					if (strcmp(f->counters[j].short_name, cols->v[k]) == 0) {
						slot[k] = (long)j;
						break;
					}
			}
		}
		mf_strbuf_free(&partial);
		mf_strbuf_init(&partial);
		mf_strbuf_puts(&partial, "");
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, e->system, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, e->lpar, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, e->pool, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, e->b);
		sqlite3_bind_int64(st, 5, e->off);
		sqlite3_bind_int64(st, 6, e->known);
		sqlite3_bind_int64(st, 7, (int64_t)e->n);
		sqlite3_bind_int(st, 8, e->overflow ? 1 : 0);
		for (k = 0; k < cols->n; k++) {
			uint64_t c = slot[k] < 0 ? 0 : e->cnt[slot[k]];
			if (c == 0) {
				sqlite3_bind_null(st, (int)k + 10);
				continue;
			}
			sqlite3_bind_int64(st, (int)k + 10, e->sum[slot[k]]);
			if (c < e->n) {
				if (partial.len)
					mf_strbuf_puts(&partial, " ");
				mf_strbuf_puts(&partial, cols->v[k]);
			}
		}
		sqlite3_bind_text(st, 9, mf_strbuf_str(&partial), -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE) {
			rc = mf_db_fail(db, "summing the hours", err);
			goto out;
		}
		++*rows;
	}
out:
	sqlite3_finalize(st);
	free(slot);
	mf_strbuf_free(&sql);
	mf_strbuf_free(&partial);
	return rc;
}

/* "WHERE" the samples s of family fam in the touched buckets of level (starting in [blo, bhi)). */
static void touched_samples(struct mf_strbuf *sql, const char *fam, int level, int64_t blo, int64_t bhi)
{
	mf_strbuf_puts(sql, "WHERE s.family = ");
	mf_db_sql_text(sql, fam);
	mf_strbuf_printf(sql, " AND s.start_us >= %lld AND s.start_us < %lld AND (", (long long)blo, (long long)bhi);
	bucket_expr(sql, level);
	mf_strbuf_puts(sql,
		       ", coalesce(s.utc_offset_s, 0), s.utc_offset_s IS NOT NULL) IN (SELECT b, off, known FROM "
		       "temp.mf_touched)");
}

/*
 * The SQL that makes temp.<table>: the sums of the touched buckets of level (their samples starting
 * in [blo, bhi)), with the counters' sums and the partial list when counters, else without them.
 */
static void agg_sql(struct mf_strbuf *sql, const char *table, const char *fam, const char *sums, const char *ctable,
		    const struct names *cols, int level, int64_t blo, int64_t bhi, bool counters, bool c_cpus)
{
	size_t i;
	/*
	 * The sums.  An hour: per interval start first (its CPUs), then per bucket, from the samples.
	 * A day or a month: from the hours just made (their buckets lie within it), each counter's
	 * presence from the hour's sum and its partial list; only the CPUs are counted in the samples.
	 */
	mf_strbuf_printf(sql, "DROP TABLE IF EXISTS temp.%s; CREATE TEMP TABLE %s AS WITH per AS (SELECT ", table,
			 table);
	if (level == MF_DB_HOUR) {
		mf_strbuf_puts(sql, "s.system AS system, s.lpar AS lpar, s.pool AS pool, ");
		bucket_expr(sql, level);
		mf_strbuf_puts(sql,
			       " AS b, coalesce(s.utc_offset_s, 0) AS off, s.utc_offset_s IS NOT NULL AS known, "
			       "s.start_us AS sf, s.start_us AS sl, count(*) AS n, max(s.seconds) AS len, "
			       "sum(s.seconds) AS cs, "
			       "min(s.machine) AS mmin, max(s.machine) AS mmax, count(s.machine) AS mn, "
			       "min(s.cpsp_mhz) AS pmin, max(s.cpsp_mhz) AS pmax, "
			       "sum(CAST(round(s.rmf_busy_s * 1e9) AS INTEGER)) AS rbn, count(s.rmf_busy_s) AS rn");
		for (i = 0; counters && i < cols->n; i++)
			mf_strbuf_printf(sql, ", sum(c.\"%s\") AS s%zu, count(c.\"%s\") AS n%zu", cols->v[i], i,
					 cols->v[i], i);
		/*
		 * Without the counters (the importer's hours, whose samples all have their counters row),
		 * the wide counters rows are not read.
		 */
		mf_strbuf_puts(sql, " FROM sample s ");
		if (counters) {
			mf_strbuf_puts(sql, "JOIN ");
			mf_db_sql_ident(sql, "", ctable);
			mf_strbuf_puts(sql, " c ON c.id = s.id ");
		}
		touched_samples(sql, fam, level, blo, bhi);
		mf_strbuf_puts(sql, " GROUP BY 1, 2, 3, 4, 5, 6, 7), ");
	} else {
		mf_strbuf_printf(
			sql,
			"h.system AS system, h.lpar AS lpar, h.pool AS pool, mfstat_bucket(%d, h.bucket_us, "
			"h.utc_offset_s) AS b, h.utc_offset_s AS off, h.offset_known AS known, h.first_us AS sf, "
			"h.last_us AS sl, h.samples AS n, h.seconds AS len, h.cpu_seconds AS cs, h.machine AS mmin, "
			"h.machine AS mmax, CASE WHEN h.machine IS NULL THEN 0 ELSE h.samples END AS mn, "
			"h.cpsp_min AS pmin, h.cpsp_max AS pmax, h.rmf_busy_ns AS rbn, h.rmf_samples AS rn",
			level);
		for (i = 0; i < cols->n; i++) {
			mf_strbuf_printf(sql,
					 ", x.\"%s\" AS s%zu, CASE WHEN x.\"%s\" IS NULL THEN 0 WHEN instr(' ' || "
					 "h.partial || ' ', ",
					 cols->v[i], i, cols->v[i]);
			mf_db_sql_text(sql, cols->v[i]);
			mf_strbuf_printf(sql, ") > 0 THEN h.samples - 1 ELSE h.samples END AS n%zu", i);
		}
		mf_strbuf_puts(sql, " FROM rollup h JOIN ");
		mf_db_sql_ident(sql, "", sums);
		mf_strbuf_puts(sql, " x ON x.id = h.id WHERE h.level = 'hour' AND h.family = ");
		mf_db_sql_text(sql, fam);
		mf_strbuf_printf(sql,
				 " AND h.bucket_us >= %lld AND h.bucket_us < %lld AND (mfstat_bucket(%d, h.bucket_us, "
				 "h.utc_offset_s), h.utc_offset_s, h.offset_known) IN (SELECT b, off, known FROM "
				 "temp.mf_touched)), ",
				 (long long)blo, (long long)bhi, level);
	}
	if (c_cpus) { /* counted in C (cpus_table) */
		mf_strbuf_puts(sql, "cpus AS (SELECT system, lpar, pool, b, off, known, cpus FROM temp.mf_cpus) ");
	} else {
		mf_strbuf_puts(sql, "cpus AS (SELECT s.system AS system, s.lpar AS lpar, s.pool AS pool, ");
		bucket_expr(sql, level);
		mf_strbuf_puts(sql,
			       " AS b, coalesce(s.utc_offset_s, 0) AS off, s.utc_offset_s IS NOT NULL AS known, "
			       "count(DISTINCT s.cpu) AS cpus FROM sample s ");
		touched_samples(sql, fam, level, blo, bhi);
		mf_strbuf_puts(sql, " GROUP BY 1, 2, 3, 4, 5, 6) ");
	}
	mf_strbuf_puts(sql,
		       "SELECT per.system, per.lpar, per.pool, per.b, per.off, per.known, "
		       "CASE WHEN sum(mn) = sum(n) AND min(mmin) = max(mmax) THEN min(mmin) END AS machine, "
		       "sum(n) AS samples, min(cpus.cpus) AS cpus, sum(len) AS seconds, sum(cs) AS cpu_seconds, "
		       "min(sf) AS first_us, max(sl) AS last_us, min(pmin) AS cpsp_min, max(pmax) AS cpsp_max, "
		       "sum(rbn) / 1e9 AS rmf_busy_s, sum(rbn) AS rmf_busy_ns, sum(rn) AS rmf_samples");
	if (counters) {
		mf_strbuf_puts(sql, ", rtrim(''");
		for (i = 0; i < cols->n; i++) {
			mf_strbuf_printf(sql, " || CASE WHEN sum(n%zu) > 0 AND sum(n%zu) < sum(n) THEN ", i, i);
			mf_db_sql_text(sql, cols->v[i]);
			mf_strbuf_puts(sql, " || ' ' ELSE '' END");
		}
		mf_strbuf_puts(sql, ") AS partial");
		for (i = 0; i < cols->n; i++)
			mf_strbuf_printf(sql, ", sum(s%zu) AS s%zu", i, i);
	}
	mf_strbuf_puts(sql,
		       " FROM per JOIN cpus ON cpus.system = per.system AND cpus.lpar = per.lpar AND cpus.pool = "
		       "per.pool AND cpus.b = per.b AND cpus.off = per.off AND cpus.known = per.known "
		       "GROUP BY per.system, per.lpar, per.pool, per.b, per.off, per.known");
}

/* An hour of hs seen at a level: its bucket there, for sorting by the level's key. */
struct lvl_hour {
	const struct hour *e;
	int64_t b;
};

static int cmp_lvl_hour(const void *a, const void *b)
{
	const struct lvl_hour *x = a, *y = b;
	int c;
	if ((c = strcmp(x->e->system, y->e->system)) != 0 || (c = strcmp(x->e->lpar, y->e->lpar)) != 0 ||
	    (c = strcmp(x->e->pool, y->e->pool)) != 0)
		return c;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	if (x->e->off != y->e->off)
		return x->e->off < y->e->off ? -1 : 1;
	return (x->e->known > y->e->known) - (x->e->known < y->e->known);
}

/* The start of the bucket of level after the one that starts at b on a clock off_s ahead of UTC. */
static int64_t bucket_end(int level, int64_t b, int32_t off_s)
{
	switch (level) {
	case MF_DB_HOUR: return b + US_PER_HOUR;
	case MF_DB_DAY: return b + US_PER_DAY;
	default: return mf_db_bucket(MF_DB_MONTH, b + 32 * US_PER_DAY, off_s);
	}
}

/*
 * temp.mf_cpus: the CPUs of each bucket of level that the hours of family fam in hs fall in,
 * counted from their CPU sets, when the database holds no sample of fam in those buckets but
 * the ones hs counted (an import of new periods: the buckets' samples are all its own).
 * *whole says whether it did; when not (a bucket that also holds samples imported before, a CPU
 * beyond CPU_MAX), the CPUs are left to SQL.  0, MF_EIO or MF_ENOMEM.
 */
static int cpus_table(struct mf_db *db, const char *fam, int level, const struct mf_db_hours *hs, bool *whole,
		      struct mf_error *err)
{
	sqlite3 *h = mf_db_sqlite(db);
	struct lvl_hour *v = NULL;
	sqlite3_stmt *st = NULL;
	uint64_t *set = NULL;
	size_t i, j, k, n = 0, maxw = 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN, held;
	int rc = 0;
	*whole = false;
	for (i = 0; i < hs->n; i++)
		if (strcmp(hs->v[i].f->key, fam) == 0) {
			if (hs->v[i].cpus_odd)
				return 0;
			n++;
		}
	if (!n)
		return 0;
	if (!(v = malloc(n * sizeof(*v))))
		return mf_error_nomem(err, mf_db_path(db), 0, "counting the CPUs of the roll-ups");
	for (i = n = 0; i < hs->n; i++) {
		const struct hour *e = &hs->v[i];
		int64_t b, end;
		if (strcmp(e->f->key, fam) != 0)
			continue;
		b = level == MF_DB_HOUR ? e->b : mf_db_bucket(level, e->b, e->off);
		end = bucket_end(level, b, e->off);
		v[n].e = e;
		v[n++].b = b;
		lo = b < lo ? b : lo;
		hi = end > hi ? end : hi;
		maxw = e->ncpuw > maxw ? e->ncpuw : maxw;
	}
	qsort(v, n, sizeof(*v), cmp_lvl_hour);
	/*
	 * The samples held in those buckets' span, by system (a bucket is of one system): are they
	 * only the ones hs counted, for every system hs has?
	 */
	if (sqlite3_prepare_v2(h,
			       "SELECT system, count(*) FROM sample WHERE start_us >= ?1 AND start_us < ?2 "
			       "AND family = ?3 GROUP BY system ORDER BY system",
			       -1, &st, NULL) != SQLITE_OK) {
		rc = mf_db_fail(db, "counting the samples of the roll-ups", err);
		goto out;
	}
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	sqlite3_bind_text(st, 3, fam, -1, SQLITE_STATIC);
	for (i = 0; i < n; i = j) {
		uint64_t total = 0;
		int step;
		for (j = i; j < n && strcmp(v[j].e->system, v[i].e->system) == 0; j++)
			total += v[j].e->n;
		/* The held systems in the same (binary) order: those hs does not have are passed by. */
		while ((step = sqlite3_step(st)) == SQLITE_ROW &&
		       strcmp((const char *)sqlite3_column_text(st, 0), v[i].e->system) < 0)
			;
		if (step != SQLITE_ROW && step != SQLITE_DONE) {
			rc = mf_db_fail(db, "counting the samples of the roll-ups", err);
			goto out;
		}
		if (step != SQLITE_ROW || strcmp((const char *)sqlite3_column_text(st, 0), v[i].e->system) != 0)
			goto out; /* none held: not the samples hs counted (cannot be) */
		held = sqlite3_column_int64(st, 1);
		if (held < 0 || (uint64_t)held != total)
			goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (!(set = malloc((maxw ? maxw : 1) * sizeof(*set)))) {
		rc = mf_error_nomem(err, mf_db_path(db), 0, "counting the CPUs of the roll-ups");
		goto out;
	}
	if ((rc = mf_db_exec(db,
			     "DROP TABLE IF EXISTS temp.mf_cpus; CREATE TEMP TABLE mf_cpus (system TEXT, lpar TEXT, "
			     "pool TEXT, b INTEGER, off INTEGER, known INTEGER, cpus INTEGER, PRIMARY KEY (system, "
			     "lpar, "
			     "pool, b, off, known)) WITHOUT ROWID",
			     "counting the CPUs of the roll-ups", err)) != 0)
		goto out;
	if (sqlite3_prepare_v2(h, "INSERT INTO temp.mf_cpus VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, &st, NULL) !=
	    SQLITE_OK) {
		rc = mf_db_fail(db, "counting the CPUs of the roll-ups", err);
		goto out;
	}
	for (i = 0; i < n; i = j) {
		int64_t cpus = 0;
		memset(set, 0, maxw * sizeof(*set));
		for (j = i; j < n && cmp_lvl_hour(&v[i], &v[j]) == 0; j++)
			for (k = 0; k < v[j].e->ncpuw; k++)
				set[k] |= v[j].e->cpus[k];
		for (k = 0; k < maxw; k++)
			cpus += __builtin_popcountll(set[k]);
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, v[i].e->system, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, v[i].e->lpar, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, v[i].e->pool, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, v[i].b);
		sqlite3_bind_int64(st, 5, v[i].e->off);
		sqlite3_bind_int64(st, 6, v[i].e->known);
		sqlite3_bind_int64(st, 7, cpus);
		if (sqlite3_step(st) != SQLITE_DONE) {
			rc = mf_db_fail(db, "counting the CPUs of the roll-ups", err);
			goto out;
		}
	}
	*whole = true;
out:
	sqlite3_finalize(st);
	free(set);
	free(v);
	return rc;
}

/* Rolls family fam up at level over the buckets of the samples starting in [lo, hi) (all when all). */
static int roll_level(struct mf_db *db, const char *fam, const struct names *cols, int level, bool all, int64_t lo,
		      int64_t hi, int64_t horizon, const struct mf_db_hours *hs, struct mf_db_rolled *out,
		      struct mf_error *err)
{
	struct mf_strbuf sql;
	char sums[160], counters[160];
	bool done = false, c_cpus = false;
	size_t csum = 0;
	int64_t v, blo, bhi;
	bool null;
	size_t i;
	int rc;
	snprintf(sums, sizeof(sums), "rollup_%s", fam);
	snprintf(counters, sizeof(counters), "counters_%s", fam);
	mf_strbuf_init(&sql);
	/* The buckets touched, each on the clock of its samples. */
	mf_strbuf_puts(&sql, "DROP TABLE IF EXISTS temp.mf_touched; CREATE TEMP TABLE mf_touched AS SELECT DISTINCT ");
	bucket_expr(&sql, level);
	mf_strbuf_puts(&sql,
		       " AS b, coalesce(s.utc_offset_s, 0) AS off, s.utc_offset_s IS NOT NULL AS known "
		       "FROM sample s WHERE s.start_us IS NOT NULL AND s.family = ");
	mf_db_sql_text(&sql, fam);
	if (!all)
		mf_strbuf_printf(&sql, " AND s.start_us >= %lld AND s.start_us < %lld", (long long)lo, (long long)hi);
	if ((rc = exec_sb(db, &sql, "finding the buckets to roll up", err)) != 0)
		goto out;
	/* Buckets that begin before the samples' prune horizon are kept as they were. */
	if (horizon != INT64_MIN) {
		if (level == MF_DB_HOUR) {
			mf_strbuf_puts(&sql,
				       "SELECT count(*) FROM sample s WHERE s.start_us IS NOT NULL AND s.family = ");
			mf_db_sql_text(&sql, fam);
			mf_strbuf_puts(&sql, " AND ");
			bucket_expr(&sql, level);
			mf_strbuf_printf(&sql, " < %lld", (long long)horizon);
			if (!all)
				mf_strbuf_printf(&sql, " AND s.start_us >= %lld AND s.start_us < %lld", (long long)lo,
						 (long long)hi);
			if ((rc = query_i64(db, mf_strbuf_str(&sql), &v, &null, err)) != 0)
				goto out;
			out->held_back += (uint64_t)v;
			mf_strbuf_free(&sql);
			mf_strbuf_init(&sql);
		}
		mf_strbuf_printf(&sql, "DELETE FROM temp.mf_touched WHERE b < %lld", (long long)horizon);
		if ((rc = exec_sb(db, &sql, "rolling up", err)) != 0)
			goto out;
	}
	if ((rc = query_i64(db, "SELECT min(b) FROM temp.mf_touched", &blo, &null, err)) != 0 || null)
		goto out;
	if ((rc = query_i64(db, "SELECT max(b) FROM temp.mf_touched", &bhi, &null, err)) != 0)
		goto out;
	/* A bucket's samples start within a day and a half of its start's span, whatever their offsets. */
	blo -= 2 * US_PER_DAY;
	bhi += 33 * US_PER_DAY;

	/* Out with the old roll-ups of those buckets. */
	mf_strbuf_puts(&sql, "DELETE FROM ");
	mf_db_sql_ident(&sql, "", sums);
	mf_strbuf_puts(&sql,
		       " WHERE id IN (SELECT r.id FROM rollup r JOIN temp.mf_touched t ON r.bucket_us = t.b AND "
		       "r.utc_offset_s = t.off AND r.offset_known = t.known WHERE r.family = ");
	mf_db_sql_text(&sql, fam);
	mf_strbuf_printf(&sql, " AND r.level = '%s'); DELETE FROM rollup WHERE family = ", level_sql[level]);
	mf_db_sql_text(&sql, fam);
	mf_strbuf_printf(&sql,
			 " AND level = '%s' AND (bucket_us, utc_offset_s, offset_known) IN (SELECT b, off, known FROM "
			 "temp.mf_touched)",
			 level_sql[level]);
	if ((rc = exec_sb(db, &sql, "replacing roll-ups", err)) != 0)
		goto out;

	/* The CPUs of the buckets of an import of new periods, counted in C. */
	if (hs && (rc = cpus_table(db, fam, level, hs, &c_cpus, err)) != 0)
		goto out;
	/*
	 * The hours of an import: the counter sums gathered in C (hs) where they hold every sample of
	 * the bucket, the rest of the row from the samples in SQL; any other bucket all in SQL.
	 */
	if (level == MF_DB_HOUR && hs && (rc = csum_table(db, fam, cols, hs, &csum, err)) != 0)
		goto out;
	if (csum) {
		agg_sql(&sql, "mf_agg0", fam, sums, counters, cols, level, blo, bhi, false, c_cpus);
		if ((rc = exec_sb(db, &sql, "summing the samples", err)) != 0)
			goto out;
		if ((rc = query_i64(db,
				    "SELECT count(*) FROM temp.mf_agg0 a LEFT JOIN temp.mf_csum c ON c.system = "
				    "a.system AND c.lpar = a.lpar AND c.pool = a.pool AND c.b = a.b AND c.off = a.off "
				    "AND c.known = a.known WHERE c.n IS NULL OR c.n <> a.samples OR c.ovf <> 0",
				    &v, &null, err)) != 0)
			goto out;
		if (v == 0) {
			mf_strbuf_puts(&sql,
				       "DROP TABLE IF EXISTS temp.mf_agg; CREATE TEMP TABLE mf_agg AS SELECT a.*, "
				       "c.partial AS partial");
			for (i = 0; i < cols->n; i++)
				mf_strbuf_printf(&sql, ", c.s%zu AS s%zu", i, i);
			mf_strbuf_puts(&sql,
				       " FROM temp.mf_agg0 a JOIN temp.mf_csum c ON c.system = a.system AND c.lpar = "
				       "a.lpar AND c.pool = a.pool AND c.b = a.b AND c.off = a.off AND c.known = "
				       "a.known");
			if ((rc = exec_sb(db, &sql, "summing the samples", err)) != 0)
				goto out;
			done = true;
		}
	}
	if (!done) {
		agg_sql(&sql, "mf_agg", fam, sums, counters, cols, level, blo, bhi, true, c_cpus);
		if ((rc = exec_sb(db, &sql, "summing the samples", err)) != 0)
			goto out;
	}

	mf_strbuf_printf(&sql,
			 "INSERT INTO rollup (level, system, lpar, pool, family, machine, bucket_us, utc_offset_s, "
			 "offset_known, bucket, samples, cpus, seconds, cpu_seconds, first_us, last_us, cpsp_min, "
			 "cpsp_max, rmf_busy_s, rmf_busy_ns, rmf_samples, partial) SELECT '%s', system, lpar, pool, ",
			 level_sql[level]);
	mf_db_sql_text(&sql, fam);
	mf_strbuf_puts(&sql,
		       ", machine, b, off, known, mfstat_local(b, off, known), samples, cpus, seconds, "
		       "cpu_seconds, first_us, last_us, cpsp_min, cpsp_max, rmf_busy_s, rmf_busy_ns, rmf_samples, "
		       "partial "
		       "FROM temp.mf_agg ORDER BY system, lpar, pool, b, off, known");
	if ((rc = exec_sb(db, &sql, "writing the roll-ups", err)) != 0)
		goto out;
	out->rows[level] += (uint64_t)sqlite3_changes64(mf_db_sqlite(db));
	if (level == MF_DB_HOUR) {
		if ((rc = query_i64(db, "SELECT coalesce(sum(samples), 0) FROM temp.mf_agg", &v, &null, err)) != 0)
			goto out;
		out->samples += (uint64_t)v;
	}
	mf_strbuf_puts(&sql, "INSERT INTO ");
	mf_db_sql_ident(&sql, "", sums);
	mf_strbuf_puts(&sql, " (id");
	for (i = 0; i < cols->n; i++) {
		mf_strbuf_puts(&sql, ", ");
		mf_db_sql_ident(&sql, "", cols->v[i]);
	}
	mf_strbuf_puts(&sql, ") SELECT r.id");
	for (i = 0; i < cols->n; i++)
		mf_strbuf_printf(&sql, ", a.s%zu", i);
	mf_strbuf_printf(&sql,
			 " FROM temp.mf_agg a JOIN rollup r ON r.level = '%s' AND r.system = a.system AND r.lpar = "
			 "a.lpar AND r.pool = a.pool AND r.bucket_us = a.b AND r.utc_offset_s = a.off AND "
			 "r.offset_known = a.known AND r.family = ",
			 level_sql[level]);
	mf_db_sql_text(&sql, fam);
	rc = exec_sb(db, &sql, "writing the roll-up sums", err);
out:
	mf_strbuf_free(&sql);
	return rc;
}

static int rollup(struct mf_db *db, bool all, int64_t lo_us, int64_t hi_us, const struct mf_db_hours *hs,
		  struct mf_db_rolled *out, struct mf_error *err)
{
	sqlite3 *h = mf_db_sqlite(db);
	struct names fams = {0}, cols = {0};
	bool own = sqlite3_get_autocommit(h) != 0, null;
	int64_t horizon, hhorizon;
	size_t f;
	int rc, level;
	memset(out, 0, sizeof(*out));
	if (sqlite3_create_function(h, "mfstat_bucket", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, fn_bucket, NULL,
				    NULL) != SQLITE_OK ||
	    sqlite3_create_function(h, "mfstat_local", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, fn_local, NULL,
				    NULL) != SQLITE_OK)
		return mf_db_fail(db, "setting up the roll-ups", err);
	if (own && (rc = mf_db_exec(db, "BEGIN IMMEDIATE", "starting the roll-ups", err)) != 0)
		return rc;
	if ((rc = query_i64(db, "SELECT max(before_us) FROM prune_log WHERE level = 'sample'", &horizon, &null, err)) !=
	    0)
		goto out;
	if (null)
		horizon = INT64_MIN;
	/* Days and months are summed from the hours: none before the hours' horizon either. */
	if ((rc = query_i64(db, "SELECT max(before_us) FROM prune_log WHERE level = 'hour'", &hhorizon, &null, err)) !=
	    0)
		goto out;
	if (null || hhorizon < horizon)
		hhorizon = horizon;
	if ((rc = list(db,
		       "SELECT substr(name, 10) FROM sqlite_schema WHERE type = 'table' AND name LIKE 'counters\\_%' "
		       "ESCAPE '\\' ORDER BY name",
		       0, &fams, err)) != 0)
		goto out;
	for (f = 0; f < fams.n && !rc; f++) {
		char table[128];
		snprintf(table, sizeof(table), "counters_%s", fams.v[f]);
		if ((rc = columns_of(db, table, &cols, err)) != 0 || (rc = sums_table(db, fams.v[f], &cols, err)) != 0)
			break;
		for (level = MF_DB_HOUR; level <= MF_DB_MONTH && !rc; level++)
			rc = roll_level(db, fams.v[f], &cols, level, all, lo_us, hi_us,
					level == MF_DB_HOUR ? horizon : hhorizon, hs, out, err);
		names_free(&cols);
	}
	if (!rc)
		rc = mf_db_exec(db,
				"DROP TABLE IF EXISTS temp.mf_touched; DROP TABLE IF EXISTS temp.mf_agg; DROP TABLE IF "
				"EXISTS "
				"temp.mf_agg0; DROP TABLE IF EXISTS temp.mf_csum; DROP TABLE IF EXISTS temp.mf_cpus",
				"finishing the roll-ups", err);
out:
	names_free(&fams);
	names_free(&cols);
	if (own) {
		if (!rc)
			rc = mf_db_exec(db, "COMMIT", "committing the roll-ups", err);
		if (rc)
			sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
	}
	return rc;
}

int mf_db_rollup(struct mf_db *db, bool all, int64_t lo_us, int64_t hi_us, struct mf_db_rolled *out,
		 struct mf_error *err)
{
	return rollup(db, all, lo_us, hi_us, NULL, out, err);
}

int mf_db_rollup_hours(struct mf_db *db, int64_t lo_us, int64_t hi_us, const struct mf_db_hours *hs,
		       struct mf_db_rolled *out, struct mf_error *err)
{
	return rollup(db, false, lo_us, hi_us, hs, out, err);
}
