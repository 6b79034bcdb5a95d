/* SPDX-License-Identifier: MIT */
/*
 * Retention: each level of the database is kept for its own span, counted back from the newest
 * interval start held (not from the wall clock: a database of last year's dumps is not emptied
 * by pruning it today).  docs/db.md, "Levels and retention".
 */
#include "mfstat/db/prune.h"

#include <ctype.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mfstat/base/timefmt.h"
#include "mfstat/base/strbuf.h"

#define US_PER_DAY INT64_C(86400000000)

static const char *const level_names[MF_DB_NLEVELS] = {"sample", "hour", "day", "month"};

const char *mf_db_level_name(int level)
{
	return level >= 0 && level < MF_DB_NLEVELS ? level_names[level] : NULL;
}

static void keep_set(struct mf_db_keep *k, int level, unsigned n, char unit)
{
	k->forever[level] = unit == 0;
	k->n[level] = n;
	k->unit[level] = unit;
	if (unit)
		snprintf(k->text[level], sizeof(k->text[level]), "%u%c", n, unit);
	else
		snprintf(k->text[level], sizeof(k->text[level]), "forever");
}

void mf_db_keep_default(struct mf_db_keep *k)
{
	memset(k, 0, sizeof(*k));
	keep_set(k, MF_DB_SAMPLE, 35, 'd');
	keep_set(k, MF_DB_HOUR, 400, 'd');
	keep_set(k, MF_DB_DAY, 5, 'y');
	keep_set(k, MF_DB_MONTH, 0, 0);
}

int mf_db_keep_parse(const char *spec, struct mf_db_keep *k, char *why, size_t n)
{
	struct mf_db_keep t = *k;
	const char *p = spec;
	if (!*spec) {
		snprintf(why, n, "an empty list: give LEVEL=SPAN items such as sample=35d,hour=400d,day=5y");
		return -1;
	}
	while (*p) {
		const char *e = strchr(p, ','), *eq;
		size_t len = e ? (size_t)(e - p) : strlen(p), nl;
		int level = -1, l;
		eq = memchr(p, '=', len);
		if (!eq) {
			snprintf(why, n, "'%.*s' is not LEVEL=SPAN (say sample=35d)", (int)len, p);
			return -1;
		}
		nl = (size_t)(eq - p);
		for (l = 0; l < MF_DB_NLEVELS; l++)
			if (strlen(level_names[l]) == nl && strncmp(p, level_names[l], nl) == 0)
				level = l;
		if (level < 0) {
			snprintf(why, n, "'%.*s' is not a level (sample, hour, day, month)", (int)nl, p);
			return -1;
		}
		{
			const char *v = eq + 1, *ve = p + len;
			unsigned long num = 0;
			size_t digits = 0;
			if ((size_t)(ve - v) == 7 && strncmp(v, "forever", 7) == 0) {
				keep_set(&t, level, 0, 0);
			} else {
				while (v + digits < ve && isdigit((unsigned char)v[digits]) && digits < 7)
					num = num * 10 + (unsigned long)(v[digits++] - '0');
				if (!digits || num == 0 || v + digits + 1 != ve || !strchr("dwmy", v[digits]) ||
				    !v[digits]) {
					snprintf(why, n,
						 "'%.*s': the span of %s is a number from 1 to 9999999 and a unit, d "
						 "(days), w "
						 "(weeks), m (months) or y (years), or forever",
						 (int)len, p, level_names[level]);
					return -1;
				}
				keep_set(&t, level, (unsigned)num, v[digits]);
			}
		}
		p += len;
		if (*p == ',')
			p++;
	}
	*k = t;
	return 0;
}

int64_t mf_db_keep_horizon(const struct mf_db_keep *k, int level, int64_t ref_us)
{
	int64_t days, y, months;
	unsigned m, d, last;
	int64_t tod;
	if (k->forever[level])
		return INT64_MIN;
	switch (k->unit[level]) {
	case 'd': return ref_us - (int64_t)k->n[level] * US_PER_DAY;
	case 'w': return ref_us - (int64_t)k->n[level] * 7 * US_PER_DAY;
	default: break;
	}
	/* Calendar months and years: the same day and time so many months back, the day cut to the month's last. */
	days = ref_us >= 0 ? ref_us / US_PER_DAY : -((-ref_us + US_PER_DAY - 1) / US_PER_DAY);
	tod = ref_us - days * US_PER_DAY;
	mf_civil_from_days(days, &y, &m, &d);
	months = y * 12 + (m - 1) - (int64_t)k->n[level] * (k->unit[level] == 'y' ? 12 : 1);
	y = months >= 0 ? months / 12 : -((-months + 11) / 12);
	m = (unsigned)(months - y * 12) + 1;
	last = (unsigned)(mf_days_from_civil(m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1, 1) -
			  mf_days_from_civil(y, m, 1));
	if (d > last)
		d = last;
	return mf_days_from_civil(y, m, d) * US_PER_DAY + tod;
}

/* The names of the tables whose name starts with prefix (counters_, rollup_ of a family). */
static int tables_like(struct mf_db *db, const char *prefix, char ***out, size_t *n, struct mf_error *err)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;
	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(mf_db_sqlite(db),
			       "SELECT name FROM sqlite_schema WHERE type = 'table' AND substr(name, 1, length(?1)) = "
			       "?1 "
			       "ORDER BY name",
			       -1, &st, NULL) != SQLITE_OK)
		return mf_db_fail(db, "listing the tables", err);
	sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		if (*n == cap) {
			char **g = realloc(*out, (cap = cap ? 2 * cap : 8) * sizeof(**out));
			if (!g)
				break;
			*out = g;
		}
		if (!((*out)[*n] = strdup(name)))
			break;
		(*n)++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		while (*n)
			free((*out)[--*n]);
		free(*out);
		*out = NULL;
		return rc == SQLITE_ROW ? mf_error_nomem(err, mf_db_path(db), 0, "listing the tables")
					: mf_db_fail(db, "listing the tables", err);
	}
	return 0;
}

static void free_names(char **names, size_t n)
{
	while (n)
		free(names[--n]);
	free(names);
}

/* Runs sql with ?1 bound to v (and ?2 to text t when not NULL): the rows it changed, or -1 (err set). */
static long long run1(struct mf_db *db, const char *sql, int64_t v, const char *t, const char *what,
		      struct mf_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc;
	if (sqlite3_prepare_v2(mf_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK) {
		mf_db_fail(db, what, err);
		return -1;
	}
	sqlite3_bind_int64(st, 1, v);
	if (t)
		sqlite3_bind_text(st, 2, t, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) { /* a count */
		long long c = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		return c;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		mf_db_fail(db, what, err);
		return -1;
	}
	return sqlite3_changes64(mf_db_sqlite(db));
}

/* The newest interval start held (samples and roll-ups): 1 and *ref, 0 when none, or MF_EIO. */
static int newest(struct mf_db *db, int64_t *ref, struct mf_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc, got = 0;
	if (sqlite3_prepare_v2(mf_db_sqlite(db),
			       "SELECT max(t) FROM (SELECT max(start_us) AS t FROM sample UNION ALL "
			       "SELECT max(last_us) FROM rollup)",
			       -1, &st, NULL) != SQLITE_OK)
		return mf_db_fail(db, "finding the newest sample", err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*ref = sqlite3_column_int64(st, 0);
		got = 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return mf_db_fail(db, "finding the newest sample", err);
	return got;
}

/* Text of column 0 of the one row of sql (?1 bound to name), malloc'd; NULL with err set. */
static char *schema_text(struct mf_db *db, const char *sql, const char *name, struct mf_error *err)
{
	sqlite3_stmt *st = NULL;
	char *r = NULL;
	if (sqlite3_prepare_v2(mf_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK) {
		mf_db_fail(db, "reading the schema", err);
		return NULL;
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) &&
	    !(r = strdup((const char *)sqlite3_column_text(st, 0))))
		mf_error_nomem(err, mf_db_path(db), 0, "reading the schema");
	else if (!r)
		mf_db_fail(db, "reading the schema", err);
	sqlite3_finalize(st);
	return r;
}

/*
 * Table t made anew with only the rows whose id is in keep (a SELECT of ids, ?1 the horizon): a
 * table of the same definition (its CREATE statement from the schema, renamed) filled in id
 * order, the old one dropped, the new one renamed to its name, and t's indexes made again.  Views
 * name the table by its name and see the new one.  0 or MF_EIO / MF_ENOMEM.
 */
static int rebuild(struct mf_db *db, const char *t, const char *keep, int64_t b, struct mf_error *err)
{
	struct mf_strbuf q, tmp;
	char *ddl = NULL, *idx = NULL;
	const char *paren;
	int rc = MF_EIO;
	mf_strbuf_init(&q);
	mf_strbuf_init(&tmp);
	mf_strbuf_printf(&tmp, "mf_keep_%s", t);
	if (!(ddl = schema_text(db, "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?1", t, err)) ||
	    !(idx = schema_text(db,
				"SELECT coalesce(group_concat(sql, '; '), '') FROM sqlite_schema WHERE type = 'index' "
				"AND tbl_name = ?1 AND sql IS NOT NULL",
				t, err)))
		goto out;
	if (!(paren = strchr(ddl, '('))) {
		rc = mf_error_set(err, MF_EFORMAT, mf_db_path(db), 0, 0, "the definition of table %s has no columns",
				  t);
		goto out;
	}
	mf_strbuf_puts(&q, "CREATE TABLE ");
	mf_db_sql_ident(&q, "", mf_strbuf_str(&tmp));
	mf_strbuf_printf(&q, " %s", paren);
	if (mf_db_exec(db, mf_strbuf_str(&q), "making a table anew", err) != 0)
		goto out;
	mf_strbuf_free(&q);
	mf_strbuf_init(&q);
	mf_strbuf_puts(&q, "INSERT INTO ");
	mf_db_sql_ident(&q, "", mf_strbuf_str(&tmp));
	mf_strbuf_puts(&q, " SELECT * FROM ");
	mf_db_sql_ident(&q, "", t);
	mf_strbuf_printf(&q, " WHERE id IN (%s) ORDER BY id", keep);
	if (run1(db, mf_strbuf_str(&q), b, NULL, "copying the rows kept", err) < 0)
		goto out;
	mf_strbuf_free(&q);
	mf_strbuf_init(&q);
	/* Legacy renaming: the views that name t are left as they are, and find the new t. */
	mf_strbuf_puts(&q, "PRAGMA legacy_alter_table = ON; DROP TABLE ");
	mf_db_sql_ident(&q, "", t);
	mf_strbuf_puts(&q, "; ALTER TABLE ");
	mf_db_sql_ident(&q, "", mf_strbuf_str(&tmp));
	mf_strbuf_puts(&q, " RENAME TO ");
	mf_db_sql_ident(&q, "", t);
	mf_strbuf_printf(&q, "; PRAGMA legacy_alter_table = OFF; %s", idx);
	rc = mf_db_exec(db, mf_strbuf_str(&q), "making a table anew", err);
	if (rc)
		sqlite3_exec(mf_db_sqlite(db), "PRAGMA legacy_alter_table = OFF", NULL, NULL, NULL);
out:
	free(ddl);
	free(idx);
	mf_strbuf_free(&q);
	mf_strbuf_free(&tmp);
	return rc;
}

/*
 * Deletes the rows of table (sample, rollup) that cond selects (?1 the horizon, ?2 t), with their
 * rows of the same id in every table whose name begins with prefix (their counters or sums; NULL:
 * none); dry counts them.  *n gets the rows of table.  When most of the samples go (the first
 * prune of a long history), the tables are made anew with the rows kept instead: deleting row by
 * row rewrites, and journals, nearly every page of the file.  0 or MF_EIO.
 */
static int delete_rows(struct mf_db *db, const char *table, const char *prefix, const char *cond, int64_t b,
		       const char *t, bool dry, uint64_t *n, struct mf_error *err)
{
	char **tabs = NULL;
	size_t ntabs = 0, i;
	long long c, all = 0;
	int rc;
	char sql[512];
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s WHERE %s", table, cond);
	if ((c = run1(db, sql, b, t, "counting what would be pruned", err)) < 0)
		return MF_EIO;
	*n = (uint64_t)c;
	if (dry || c == 0)
		return 0;
	if (prefix && (rc = tables_like(db, prefix, &tabs, &ntabs, err)) != 0)
		return rc;
	if (!t && strcmp(table, "sample") == 0) {
		char keep[256];
		if ((all = run1(db, "SELECT count(*) FROM sample", 0, NULL, "counting the samples", err)) < 0) {
			free_names(tabs, ntabs);
			return MF_EIO;
		}
		if (2 * c > all) {
			snprintf(keep, sizeof(keep), "SELECT id FROM sample WHERE (%s) IS NOT 1", cond);
			for (i = 0, rc = 0; i < ntabs && !rc; i++)
				rc = rebuild(db, tabs[i], keep, b, err);
			if (!rc)
				rc = rebuild(db, "sample", keep, b, err);
			free_names(tabs, ntabs);
			return rc;
		}
	}
	for (i = 0; i < ntabs; i++) {
		struct mf_strbuf q;
		mf_strbuf_init(&q);
		mf_strbuf_puts(&q, "DELETE FROM ");
		mf_db_sql_ident(&q, "", tabs[i]);
		mf_strbuf_printf(&q, " WHERE id IN (SELECT id FROM %s WHERE %s)", table, cond);
		c = run1(db, mf_strbuf_str(&q), b, t, "deleting what was pruned", err);
		mf_strbuf_free(&q);
		if (c < 0)
			break;
	}
	free_names(tabs, ntabs);
	if (i < ntabs)
		return MF_EIO;
	snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE %s", table, cond);
	if ((c = run1(db, sql, b, t, "deleting what was pruned", err)) < 0)
		return MF_EIO;
	*n = (uint64_t)c;
	return 0;
}

/* Deletes (or counts) the samples starting before b with their counters, and the SMF records before b. */
static int prune_samples(struct mf_db *db, int64_t b, bool dry, struct mf_db_pruned *out, struct mf_error *err)
{
	int rc = delete_rows(db, "sample", "counters_", "start_us < ?1", b, NULL, dry, &out->rows[MF_DB_SAMPLE], err);
	if (!rc)
		rc = delete_rows(db, "smf_record", NULL, "time_us < ?1", b, NULL, dry, &out->smf_records, err);
	return rc;
}

/* Deletes (or counts) the roll-ups of level before b with their sums. */
static int prune_rollups(struct mf_db *db, int level, int64_t b, bool dry, struct mf_db_pruned *out,
			 struct mf_error *err)
{
	return delete_rows(db, "rollup", "rollup_", "bucket_us < ?1 AND level = ?2", b, level_names[level], dry,
			   &out->rows[level], err);
}

static int log_level(struct mf_db *db, const struct mf_db_keep *k, int level, const struct mf_db_pruned *out,
		     struct mf_error *err)
{
	sqlite3_stmt *st = NULL;
	time_t now = time(NULL);
	char iso[40];
	int rc;
	mf_time_format((int64_t)now * 1000000, iso, sizeof(iso));
	if (sqlite3_prepare_v2(mf_db_sqlite(db),
			       "INSERT INTO prune_log (level, keep, before_us, rows, pruned_unix, pruned) VALUES (?1, "
			       "?2, ?3, "
			       "?4, ?5, ?6)",
			       -1, &st, NULL) != SQLITE_OK)
		return mf_db_fail(db, "recording the prune", err);
	sqlite3_bind_text(st, 1, level_names[level], -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, k->text[level], -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, out->before_us[level]);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)out->rows[level]);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)now);
	sqlite3_bind_text(st, 6, iso, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : mf_db_fail(db, "recording the prune", err);
}

int mf_db_prune(struct mf_db *db, const struct mf_db_keep *k, bool dry_run, struct mf_db_pruned *out,
		struct mf_error *err)
{
	int level, rc;
	memset(out, 0, sizeof(*out));
	for (level = 0; level < MF_DB_NLEVELS; level++)
		out->before_us[level] = INT64_MIN;
	if ((rc = mf_db_exec(db, dry_run ? "BEGIN" : "BEGIN IMMEDIATE", "starting to prune", err)) != 0)
		return rc;
	if ((rc = newest(db, &out->ref_us, err)) < 0)
		goto fail;
	out->has_ref = rc == 1;
	rc = 0;
	for (level = 0; out->has_ref && level < MF_DB_NLEVELS; level++) {
		int64_t b = mf_db_keep_horizon(k, level, out->ref_us);
		if (b == INT64_MIN)
			continue;
		out->before_us[level] = b;
		rc = level == MF_DB_SAMPLE ? prune_samples(db, b, dry_run, out, err)
					   : prune_rollups(db, level, b, dry_run, out, err);
		if (rc)
			goto fail;
		if (!dry_run && out->rows[level] && (rc = log_level(db, k, level, out, err)) != 0)
			goto fail;
	}
	if ((rc = mf_db_exec(db, dry_run ? "ROLLBACK" : "COMMIT", "finishing the prune", err)) == 0)
		return 0;
fail:
	sqlite3_exec(mf_db_sqlite(db), "ROLLBACK", NULL, NULL, NULL);
	return rc;
}
