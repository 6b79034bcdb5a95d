/* SPDX-License-Identifier: MIT */
/*
 * Reading the performance database back into the common model (docs/db.md, "Reading"):
 * the samples in the order they were imported, their counters from counters_<family>, the
 * selection that SQL can make pushed into it, and the SMF records of the LPAR view framed as
 * the dumps had them.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mfstat/db/read.h"
#include "mfstat/input/sample.h"
#include "read_int.h"

struct mf_db_samples {
	struct mf_db *db;
	const struct mf_kb *kb;
	sqlite3_stmt *st; /* the samples */
	struct mf_db_fam *fams;
	size_t nfams;
	uint64_t left_out[MF_SELECT_NREASONS];
};

/* The columns of the samples' statement. */
enum {
	C_ID,
	C_SYSTEM,
	C_LPAR,
	C_POOL,
	C_CPU,
	C_START,
	C_SECONDS,
	C_FAMILY,
	C_MACHINE,
	C_CPSP,
	C_NOMINAL,
	C_USER,
	C_OFFSET_S,
	C_JOINED,
	C_POLARITY,
	C_WEIGHT,
	C_DRAWER,
	C_CHIP,
	C_BUSY,
	C_LINE,
	C_BYTE
};

static const char sample_cols[] =
	"SELECT s.id, s.system, s.lpar, s.pool, s.cpu, s.start_us, s.seconds, s.family, s.machine, s.cpsp_mhz, "
	"s.cpsp_nominal, s.user_only, s.utc_offset_s, s.lpar_joined, s.polarity, s.lpar_weight, s.drawer, s.chip, "
	"s.rmf_busy_s, s.line, s.\"offset\"";
#define NSAMPLE_COLS (C_BYTE + 1)
/* The counters are joined to the samples' statement while its columns stay below this (SQLite's 2000). */
#define MAX_JOINED_COLS 1900

static void sb_reset(struct mf_strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

static int cmp_col(const void *a, const void *b)
{
	const struct mf_db_col *x = a, *y = b;
	return (x->slot > y->slot) - (x->slot < y->slot);
}

int mf_db_fam_load(struct mf_db *db, const struct mf_kb *kb, const char *table, size_t prefix, size_t alias,
		   struct mf_db_fam *f, struct mf_error *err)
{
	const char *path = mf_db_path(db);
	sqlite3 *h = mf_db_sqlite(db);
	struct mf_strbuf sql;
	sqlite3_stmt *ti = NULL;
	int rc = 0, step, n = 0;

	memset(f, 0, sizeof(*f));
	mf_strbuf_init(&f->joined);
	f->base = -1;
	f->key = strdup(table + prefix);
	if (!f->key)
		return mf_error_nomem(err, path, 0, "reading the table %s", table);
	f->family = mf_kb_family(kb, f->key);
	if (!f->family)
		return mf_error_set(err, MF_EFORMAT, path, 0, 0,
				    "the table %s holds the counters of a family '%s' that this knowledge base does "
				    "not know (give --tables with its files)",
				    table, f->key);
	mf_strbuf_init(&sql);
	mf_strbuf_puts(&sql, "SELECT name FROM pragma_table_info(?) ORDER BY cid");
	if (sqlite3_prepare_v2(h, mf_strbuf_str(&sql), -1, &ti, NULL) != SQLITE_OK) {
		mf_strbuf_free(&sql);
		return mf_db_fail(db, "reading the columns of a counters table", err);
	}
	sqlite3_bind_text(ti, 1, table, -1, SQLITE_STATIC);
	sb_reset(&sql);
	mf_strbuf_puts(&sql, "SELECT ");
	mf_strbuf_printf(&f->joined, ", c%zu.id", alias);
	f->cols = calloc(f->family->ncounters + 1, sizeof(*f->cols));
	if (!f->cols)
		rc = mf_error_nomem(err, path, 0, "reading the table %s", table);
	while (!rc && (step = sqlite3_step(ti)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(ti, 0);
		const struct mf_counter *c;
		size_t i;
		if (!name || strcmp(name, "id") == 0)
			continue;
		c = mf_family_counter(f->family, name, strlen(name));
		if (!c) {
			rc = mf_error_set(err, MF_EFORMAT, path, 0, 0,
					  "the column %s of the table %s is not a counter of the family %s in this "
					  "knowledge base",
					  name, table, f->family->display);
			break;
		}
		for (i = 0; i < f->ncols; i++)
			if (f->cols[i].slot == (uint16_t)(c - f->family->counters))
				break;
		if (i < f->ncols || f->ncols == f->family->ncounters) {
			rc = mf_error_set(err, MF_EFORMAT, path, 0, 0,
					  "the table %s has the counter %s twice (as the column %s)", table,
					  c->short_name, name);
			break;
		}
		if (n)
			mf_strbuf_puts(&sql, ", ");
		mf_db_sql_ident(&sql, "", name);
		mf_strbuf_printf(&f->joined, ", c%zu.", alias);
		mf_db_sql_ident(&f->joined, "", name);
		f->cols[f->ncols].column = n++;
		f->cols[f->ncols].slot = (uint16_t)(c - f->family->counters);
		f->ncols++;
	}
	if (!rc && step != SQLITE_DONE)
		rc = mf_db_fail(db, "reading the columns of a counters table", err);
	sqlite3_finalize(ti);
	if (!rc) {
		if (!n)
			mf_strbuf_puts(&sql, "NULL");
		mf_strbuf_puts(&sql, " FROM ");
		mf_db_sql_ident(&sql, "", table);
		mf_strbuf_puts(&sql, " WHERE id = ?");
		if (sqlite3_prepare_v2(h, mf_strbuf_str(&sql), -1, &f->st, NULL) != SQLITE_OK)
			rc = mf_db_fail(db, "preparing the reading of the counters", err);
	}
	mf_strbuf_free(&sql);
	if (!rc)
		qsort(f->cols, f->ncols, sizeof(*f->cols), cmp_col);
	return rc;
}

void mf_db_fam_free(struct mf_db_fam *f)
{
	sqlite3_finalize(f->st);
	free(f->key);
	mf_strbuf_free(&f->joined);
	free(f->cols);
}

int mf_db_fams_load_all(struct mf_db *db, const struct mf_kb *kb, const char *prefix, const char *what,
			struct mf_db_fam **fams, size_t *n, struct mf_error *err)
{
	struct mf_strbuf like;
	sqlite3_stmt *st = NULL;
	const char *c;
	int rc = 0, step = SQLITE_DONE;

	/* The prefix as a LIKE pattern, its '_' and '%' escaped. */
	mf_strbuf_init(&like);
	for (c = prefix; *c; c++)
		mf_strbuf_printf(&like, "%s%c", *c == '_' || *c == '%' || *c == '\\' ? "\\" : "", *c);
	mf_strbuf_puts(&like, "%");
	if (sqlite3_prepare_v2(mf_db_sqlite(db),
			       "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ?1 ESCAPE '\\' "
			       "ORDER BY name",
			       -1, &st, NULL) != SQLITE_OK)
		rc = mf_db_fail(db, what, err);
	else
		sqlite3_bind_text(st, 1, mf_strbuf_str(&like), -1, SQLITE_STATIC);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		struct mf_db_fam *nf = realloc(*fams, (*n + 1) * sizeof(*nf));
		if (!nf) {
			rc = mf_error_nomem(err, mf_db_path(db), 0, "reading the table %s", name);
			break;
		}
		*fams = nf;
		(*n)++;
		rc = mf_db_fam_load(db, kb, name, strlen(prefix), *n - 1, &nf[*n - 1], err);
	}
	if (!rc && step != SQLITE_DONE)
		rc = mf_db_fail(db, what, err);
	sqlite3_finalize(st);
	mf_strbuf_free(&like);
	return rc;
}

/* Whether the counter named name is in the space-separated list. */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;
	while (p && *p) {
		const char *e = strchr(p, ' ');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == n && memcmp(p, name, n) == 0)
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

size_t mf_db_fam_row(const struct mf_db_fam *f, sqlite3_stmt *st, int base, const char *skip, struct mf_sample *s,
		     int64_t *neg)
{
	size_t i;
	if (skip && !*skip)
		skip = NULL;
	s->n = 0;
	for (i = 0; i < f->ncols; i++) {
		int c = base + f->cols[i].column;
		/* One call a column: NULL reads as 0, and only a 0 is asked whether it was NULL. */
		sqlite3_int64 v = sqlite3_column_int64(st, c);
		if (v == 0 && sqlite3_column_type(st, c) == SQLITE_NULL)
			continue;
		if (skip && listed(skip, f->family->counters[f->cols[i].slot].short_name))
			continue;
		if (v < 0) {
			*neg = v;
			return i + 1;
		}
		s->slot[s->n] = f->cols[i].slot;
		s->value[s->n] = (uint64_t)v;
		s->n++;
	}
	return 0;
}

/*
 * --system in SQL: the names held that the selection names (case-insensitively, as
 * mf_select_check compares them), found through the index that begins with system, one
 * distinct name at a time.  Appends "system IN (...)" to where, or "0" when none is held.
 */
static int systems_in(struct mf_db_samples *d, const struct mf_select *sel, struct mf_strbuf *where,
		      struct mf_error *err)
{
	sqlite3 *h = mf_db_sqlite(d->db);
	sqlite3_stmt *st = NULL;
	char *last = strdup(""); /* the name found last: the next is the least above it */
	bool first = true, any = false;
	int step, rc = 0;

	if (!last)
		return mf_error_nomem(err, mf_db_path(d->db), 0, "listing the systems");
	if (sqlite3_prepare_v2(h, "SELECT min(system) FROM sample WHERE system > ?", -1, &st, NULL) != SQLITE_OK) {
		free(last);
		return mf_db_fail(d->db, "listing the systems", err);
	}
	mf_strbuf_puts(where, "s.system IN (");
	for (;;) {
		const char *name;
		size_t i;
		sqlite3_bind_text(st, 1, last, -1, SQLITE_STATIC);
		step = sqlite3_step(st);
		if (step != SQLITE_ROW || sqlite3_column_type(st, 0) == SQLITE_NULL)
			break;
		name = (const char *)sqlite3_column_text(st, 0);
		for (i = 0; i < sel->nsystems; i++)
			if (strcasecmp(sel->systems[i], name) == 0)
				break;
		if (i < sel->nsystems) {
			char *q = sqlite3_mprintf("%s%Q", first ? "" : ", ", name);
			if (!q) {
				rc = mf_error_nomem(err, mf_db_path(d->db), 0, "listing the systems");
				break;
			}
			mf_strbuf_puts(where, q);
			sqlite3_free(q);
			first = false;
			any = true;
		}
		{
			char *next = strdup(name); /* name lives until the reset, last is bound until then */
			sqlite3_reset(st);
			free(last);
			last = next;
		}
		if (!last) {
			rc = mf_error_nomem(err, mf_db_path(d->db), 0, "listing the systems");
			break;
		}
	}
	if (!rc && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = mf_db_fail(d->db, "listing the systems", err);
	sqlite3_finalize(st);
	free(last);
	if (rc)
		return rc;
	mf_strbuf_puts(where, ")");
	if (!any) {
		sb_reset(where);
		mf_strbuf_puts(where, "0");
	}
	return 0;
}

/*
 * What SQL selects of sel: --system, and --from and --to given as UTC instants (not a date
 * alone in each record's own zone).  where gets the condition ("" for none).
 */
static int pushed(struct mf_db_samples *d, const struct mf_select *sel, struct mf_strbuf *where, struct mf_error *err)
{
	struct mf_strbuf sys;
	char t[96];
	int rc = 0;
	if (!sel)
		return 0;
	mf_strbuf_init(&sys);
	if (sel->nsystems) {
		rc = systems_in(d, sel, &sys, err);
		if (!rc)
			mf_strbuf_puts(where, mf_strbuf_str(&sys));
	}
	if (!rc && sel->has_from && !sel->from_local) {
		snprintf(t, sizeof(t), "%ss.start_us >= %lld", where->len ? " AND " : "", (long long)sel->from_us);
		mf_strbuf_puts(where, t);
	}
	if (!rc && sel->has_to && !sel->to_local) {
		snprintf(t, sizeof(t), "%ss.start_us < %lld", where->len ? " AND " : "", (long long)sel->to_us);
		mf_strbuf_puts(where, t);
	}
	mf_strbuf_free(&sys);
	return rc;
}

/*
 * The samples the condition where leaves out, counted by the reason mf_select_check gives
 * first: another system, another pool, no start (a time selection is given), before --from,
 * at or after --to.
 */
static int count_left_out(struct mf_db_samples *d, const struct mf_select *sel, const char *where, struct mf_error *err)
{
	struct mf_strbuf sql, sys;
	sqlite3_stmt *st = NULL;
	char t[96];
	int rc = 0, step, k;

	mf_strbuf_init(&sql);
	mf_strbuf_init(&sys);
	mf_strbuf_puts(&sql, "SELECT CASE");
	if (sel->nsystems) {
		rc = systems_in(d, sel, &sys, err);
		mf_strbuf_puts(&sql, " WHEN NOT (");
		mf_strbuf_puts(&sql, mf_strbuf_str(&sys));
		snprintf(t, sizeof(t), ") THEN %d", MF_SELECT_SYSTEM);
		mf_strbuf_puts(&sql, t);
	}
	if (sel->pools) {
		bool first = true;
		mf_strbuf_puts(&sql, " WHEN upper(s.pool) NOT IN (");
		for (k = 1; k < MF_NPOOLS; k++)
			if (sel->pools & (1u << k)) {
				mf_strbuf_puts(&sql, first ? "'" : ", '");
				mf_strbuf_puts(&sql, mf_pool_name(k));
				mf_strbuf_puts(&sql, "'");
				if (k == MF_POOL_GCP)
					mf_strbuf_puts(&sql, ", 'CP'");
				first = false;
			}
		if (first)
			mf_strbuf_puts(&sql, "''");
		snprintf(t, sizeof(t), ") THEN %d", MF_SELECT_POOL);
		mf_strbuf_puts(&sql, t);
	}
	if (sel->has_from || sel->has_to || sel->hours || sel->weekdays) {
		snprintf(t, sizeof(t), " WHEN s.start_us IS NULL THEN %d", MF_SELECT_NO_START);
		mf_strbuf_puts(&sql, t);
	}
	if (sel->has_from && !sel->from_local) {
		snprintf(t, sizeof(t), " WHEN s.start_us < %lld THEN %d", (long long)sel->from_us, MF_SELECT_BEFORE);
		mf_strbuf_puts(&sql, t);
	}
	if (sel->has_to && !sel->to_local) {
		snprintf(t, sizeof(t), " WHEN s.start_us >= %lld THEN %d", (long long)sel->to_us, MF_SELECT_AFTER);
		mf_strbuf_puts(&sql, t);
	}
	mf_strbuf_puts(&sql, " ELSE 0 END AS why, count(*) FROM sample AS s WHERE NOT coalesce(");
	mf_strbuf_puts(&sql, where);
	mf_strbuf_puts(&sql, ", 0) GROUP BY why");
	if (!rc && sqlite3_prepare_v2(mf_db_sqlite(d->db), mf_strbuf_str(&sql), -1, &st, NULL) != SQLITE_OK)
		rc = mf_db_fail(d->db, "counting the samples the selection leaves out", err);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int why = sqlite3_column_int(st, 0);
		if (why > 0 && why < MF_SELECT_NREASONS)
			d->left_out[why] += (uint64_t)sqlite3_column_int64(st, 1);
	}
	if (!rc && step != SQLITE_DONE)
		rc = mf_db_fail(d->db, "counting the samples the selection leaves out", err);
	sqlite3_finalize(st);
	mf_strbuf_free(&sql);
	mf_strbuf_free(&sys);
	return rc;
}

int mf_db_samples_open(struct mf_db_samples **out, struct mf_db *db, const struct mf_kb *kb,
		       const struct mf_select *sel, struct mf_error *err)
{
	const char *path = mf_db_path(db);
	sqlite3 *h = mf_db_sqlite(db);
	struct mf_db_samples *d;
	struct mf_strbuf where, sql;
	sqlite3_stmt *st = NULL;
	int rc = 0;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return mf_error_nomem(err, path, 0, "reading the samples");
	d->db = db;
	d->kb = kb;
	mf_strbuf_init(&where);
	mf_strbuf_init(&sql);
	/* A database without samples has nothing to report: said as a dump without type 113 is. */
	if (sqlite3_prepare_v2(h, "SELECT EXISTS (SELECT 1 FROM sample)", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		rc = mf_db_fail(db, "reading the samples", err);
	else if (sqlite3_column_int(st, 0) == 0)
		rc = mf_error_set(err, MF_ENODATA, path, 0, 0,
				  "the database holds no samples (mfstat db import %s INPUT... puts them in)", path);
	sqlite3_finalize(st);
	st = NULL;
	/* The families: one counters_<family> table each. */
	if (!rc)
		rc = mf_db_fams_load_all(db, kb, "counters_", "listing the counters tables", &d->fams, &d->nfams, err);
	if (!rc)
		rc = pushed(d, sel, &where, err);
	if (!rc && where.len)
		rc = count_left_out(d, sel, mf_strbuf_str(&where), err);
	if (!rc) {
		size_t k, ncols = NSAMPLE_COLS;
		bool join;
		for (k = 0; k < d->nfams; k++)
			ncols += d->fams[k].ncols + 1;
		/* Each sample's counters joined in the same statement: one pass, no lookup a sample. */
		join = ncols < MAX_JOINED_COLS;
		mf_strbuf_puts(&sql, sample_cols);
		for (k = 0, ncols = NSAMPLE_COLS; join && k < d->nfams; k++) {
			mf_strbuf_puts(&sql, mf_strbuf_str(&d->fams[k].joined));
			d->fams[k].base = (int)ncols;
			ncols += d->fams[k].ncols + 1;
		}
		mf_strbuf_puts(&sql, " FROM sample AS s");
		/* A period alone: through its index (without statistics SQLite would scan the table). */
		if (sel && !sel->nsystems && ((sel->has_from && !sel->from_local) || (sel->has_to && !sel->to_local)))
			mf_strbuf_puts(&sql, " INDEXED BY sample_start");
		for (k = 0; join && k < d->nfams; k++) {
			struct mf_strbuf t;
			mf_strbuf_init(&t);
			mf_strbuf_puts(&t, "counters_");
			mf_strbuf_puts(&t, d->fams[k].key);
			mf_strbuf_puts(&sql, " LEFT JOIN ");
			mf_db_sql_ident(&sql, "", mf_strbuf_str(&t));
			mf_strbuf_printf(&sql, " AS c%zu ON c%zu.id = s.id", k, k);
			mf_strbuf_free(&t);
		}
		if (where.len) {
			mf_strbuf_puts(&sql, " WHERE ");
			mf_strbuf_puts(&sql, mf_strbuf_str(&where));
		}
		mf_strbuf_puts(&sql, " ORDER BY s.id");
		if (sqlite3_prepare_v2(h, mf_strbuf_str(&sql), -1, &d->st, NULL) != SQLITE_OK)
			rc = mf_db_fail(db, "preparing the reading of the samples", err);
	}
	mf_strbuf_free(&where);
	mf_strbuf_free(&sql);
	if (rc) {
		mf_db_samples_close(d);
		return rc;
	}
	*out = d;
	return 0;
}

const uint64_t *mf_db_samples_left_out(const struct mf_db_samples *d)
{
	return d->left_out;
}

static uint32_t intern_col(sqlite3_stmt *st, int c, struct mf_strtab *tab)
{
	const char *v = (const char *)sqlite3_column_text(st, c);
	int n = sqlite3_column_bytes(st, c);
	return v && n > 0 ? mf_strtab_intern(tab, v, (size_t)n) : 0;
}

static bool is_null(sqlite3_stmt *st, int c)
{
	return sqlite3_column_type(st, c) == SQLITE_NULL;
}

int mf_db_samples_next(void *ctx, const struct mf_reader_opts *opts, struct mf_sample *s, struct mf_error *err)
{
	struct mf_db_samples *d = ctx;
	const char *path = mf_db_path(d->db);
	sqlite3_stmt *st = d->st;
	const char *key, *text;
	struct mf_db_fam *f = NULL;
	long long id;
	int64_t neg = 0;
	size_t i, bad;
	int step;

	step = sqlite3_step(st);
	if (step == SQLITE_DONE)
		return 0;
	if (step != SQLITE_ROW)
		return mf_db_fail(d->db, "reading the samples", err);
	mf_sample_reset(s);
	id = sqlite3_column_int64(st, C_ID);
	key = (const char *)sqlite3_column_text(st, C_FAMILY);
	for (i = 0; key && i < d->nfams; i++)
		if (strcmp(d->fams[i].key, key) == 0)
			f = &d->fams[i];
	if (!f)
		return mf_error_set(err, MF_EFORMAT, path, 0, 0, "sample %lld: its family '%s' has no counters table",
				    id, key ? key : "");
	s->family = f->family;
	if (!is_null(st, C_MACHINE)) {
		s->machine = mf_kb_machine(d->kb, (unsigned)sqlite3_column_int(st, C_MACHINE));
		if (!s->machine)
			return mf_error_set(err, MF_EFORMAT, path, 0, 0,
					    "sample %lld: machine type %d is not in this knowledge base", id,
					    sqlite3_column_int(st, C_MACHINE));
	}
	s->system = intern_col(st, C_SYSTEM, opts->strtab);
	s->lpar = intern_col(st, C_LPAR, opts->strtab);
	text = (const char *)sqlite3_column_text(st, C_POOL);
	s->pool = MF_POOL_NONE;
	if (text && *text) {
		int pool = mf_pool_parse(text, strlen(text));
		if (pool < 0)
			return mf_error_set(err, MF_EFORMAT, path, 0, 0, "sample %lld: unknown pool '%s'", id, text);
		s->pool = pool;
	}
	s->cpu = sqlite3_column_int64(st, C_CPU);
	s->has_start = !is_null(st, C_START);
	s->start_us = s->has_start ? sqlite3_column_int64(st, C_START) : 0;
	s->seconds = is_null(st, C_SECONDS) ? NAN : sqlite3_column_double(st, C_SECONDS);
	s->cpsp = is_null(st, C_CPSP) ? NAN : sqlite3_column_double(st, C_CPSP);
	s->cpsp_nominal = sqlite3_column_int(st, C_NOMINAL) != 0;
	s->user_only = (unsigned)sqlite3_column_int(st, C_USER);
	s->has_offset = !is_null(st, C_OFFSET_S);
	s->utc_offset_s = s->has_offset ? sqlite3_column_int(st, C_OFFSET_S) : 0;
	s->lpar_joined = sqlite3_column_int(st, C_JOINED) != 0;
	text = (const char *)sqlite3_column_text(st, C_POLARITY);
	s->polarity = MF_POL_NONE;
	if (text && *text) {
		int pol = mf_polarity_parse(text, strlen(text));
		if (pol < 0)
			return mf_error_set(err, MF_EFORMAT, path, 0, 0, "sample %lld: unknown polarity '%s'", id,
					    text);
		s->polarity = pol;
	}
	s->lpar_weight = is_null(st, C_WEIGHT) ? -1 : sqlite3_column_int(st, C_WEIGHT);
	s->drawer = is_null(st, C_DRAWER) ? -1 : sqlite3_column_int(st, C_DRAWER);
	s->chip = is_null(st, C_CHIP) ? -1 : sqlite3_column_int(st, C_CHIP);
	s->rmf_busy_s = is_null(st, C_BUSY) ? NAN : sqlite3_column_double(st, C_BUSY);
	s->line = is_null(st, C_LINE) ? 0 : (long)sqlite3_column_int64(st, C_LINE);
	s->offset = is_null(st, C_BYTE) ? -1 : sqlite3_column_int64(st, C_BYTE);

	/* Its counters, in the family's dense slot order, from the joined statement or f's own. */
	if (f->base >= 0) {
		if (is_null(st, f->base))
			return mf_error_set(err, MF_EFORMAT, path, 0, 0, "sample %lld: no row in counters_%s", id,
					    f->key);
		bad = mf_db_fam_row(f, st, f->base + 1, NULL, s, &neg);
	} else {
		sqlite3_reset(f->st);
		sqlite3_bind_int64(f->st, 1, id);
		step = sqlite3_step(f->st);
		if (step == SQLITE_DONE)
			return mf_error_set(err, MF_EFORMAT, path, 0, 0, "sample %lld: no row in counters_%s", id,
					    f->key);
		if (step != SQLITE_ROW)
			return mf_db_fail(d->db, "reading the counters", err);
		bad = mf_db_fam_row(f, f->st, 0, NULL, s, &neg);
		sqlite3_reset(f->st);
	}
	if (bad)
		return mf_error_set(err, MF_EFORMAT, path, 0, 0, "sample %lld: counter %s is negative (%lld)", id,
				    f->family->counters[f->cols[bad - 1].slot].short_name, (long long)neg);
	return 1;
}

void mf_db_samples_close(struct mf_db_samples *d)
{
	size_t i;
	if (!d)
		return;
	sqlite3_finalize(d->st);
	for (i = 0; i < d->nfams; i++)
		mf_db_fam_free(&d->fams[i]);
	free(d->fams);
	free(d);
}

/* The LPAR view's records handed to the pipeline's first pass in blocks of about this many bytes. */
#define SMF_BLOCK (8u << 20)

int mf_db_smf_prescan(struct mf_pipeline *p, struct mf_db *db, struct mf_error *err)
{
	sqlite3_stmt *st = NULL;
	unsigned char *b = NULL;
	size_t n = 0, cap = 0;
	int step;

	if (sqlite3_prepare_v2(mf_db_sqlite(db), "SELECT record FROM smf_record ORDER BY id", -1, &st, NULL) !=
	    SQLITE_OK)
		return mf_db_fail(db, "reading the SMF records", err);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const void *r = sqlite3_column_blob(st, 0);
		size_t rl = (size_t)sqlite3_column_bytes(st, 0);
		if (n + rl > cap) {
			size_t nc = cap ? cap * 2 : 65536;
			unsigned char *nb;
			while (nc < n + rl)
				nc *= 2;
			nb = realloc(b, nc);
			if (!nb) {
				free(b);
				sqlite3_finalize(st);
				return mf_error_nomem(err, mf_db_path(db), 0, "reading the SMF records (%zu bytes)", n);
			}
			b = nb;
			cap = nc;
		}
		if (rl)
			memcpy(b + n, r, rl);
		n += rl;
		if (n >= SMF_BLOCK) { /* whole records: each block is an RDW stream of its own */
			mf_pipeline_prescan_mem(p, mf_db_path(db), b, n);
			n = 0;
		}
	}
	sqlite3_finalize(st);
	if (step == SQLITE_DONE && n)
		mf_pipeline_prescan_mem(p, mf_db_path(db), b, n);
	free(b);
	if (step != SQLITE_DONE)
		return mf_db_fail(db, "reading the SMF records", err);
	return 0;
}

/*
 * When the database left samples out (the selection it was given): what the database holds, its
 * first and last sample and its systems (the index makes each a short walk), for the message of
 * a selection that leaves nothing (mf_pipeline_left_out_span).
 */
static int left_out_span(struct mf_pipeline *p, struct mf_db_samples *d, struct mf_error *err)
{
	static const char *const ends[] = {
		"SELECT start_us, seconds, utc_offset_s FROM sample WHERE start_us IS NOT NULL ORDER BY start_us LIMIT "
		"1",
		"SELECT start_us, seconds, utc_offset_s FROM sample WHERE start_us IS NOT NULL ORDER BY start_us DESC "
		"LIMIT 1",
	};
	sqlite3 *h = mf_db_sqlite(d->db);
	sqlite3_stmt *st = NULL;
	uint64_t total = 0;
	char *last;
	size_t k;
	int step, rc = 0;
	for (k = 1; k < MF_SELECT_NREASONS; k++)
		total += d->left_out[k];
	if (!total)
		return 0;
	for (k = 0; k < 2 && !rc; k++) {
		if (sqlite3_prepare_v2(h, ends[k], -1, &st, NULL) != SQLITE_OK)
			return mf_db_fail(d->db, "finding the period of the samples", err);
		if ((step = sqlite3_step(st)) == SQLITE_ROW)
			rc = mf_pipeline_left_out_add(p, NULL, true, sqlite3_column_int64(st, 0),
						      sqlite3_column_type(st, 1) == SQLITE_NULL
							      ? NAN
							      : sqlite3_column_double(st, 1),
						      sqlite3_column_type(st, 2) != SQLITE_NULL,
						      (int32_t)sqlite3_column_int64(st, 2));
		else if (step != SQLITE_DONE)
			rc = mf_db_fail(d->db, "finding the period of the samples", err);
		sqlite3_finalize(st);
		st = NULL;
	}
	if (rc)
		return rc == MF_ENOMEM ? mf_error_nomem(err, mf_db_path(d->db), 0, "noting the systems") : rc;
	/* The systems, each the least name above the last (the identity index walked, not the table). */
	if (!(last = strdup("")))
		return mf_error_nomem(err, mf_db_path(d->db), 0, "listing the systems");
	if (sqlite3_prepare_v2(h, "SELECT min(system) FROM sample WHERE system > ?", -1, &st, NULL) != SQLITE_OK) {
		free(last);
		return mf_db_fail(d->db, "listing the systems", err);
	}
	for (;;) {
		char *name;
		sqlite3_bind_text(st, 1, last, -1, SQLITE_TRANSIENT);
		step = sqlite3_step(st);
		if (step != SQLITE_ROW || sqlite3_column_type(st, 0) == SQLITE_NULL)
			break;
		name = strdup((const char *)sqlite3_column_text(st, 0));
		if (!name || mf_pipeline_left_out_add(p, name, false, 0, NAN, false, 0)) {
			free(name);
			rc = mf_error_nomem(err, mf_db_path(d->db), 0, "listing the systems");
			break;
		}
		free(last);
		last = name;
		sqlite3_reset(st);
	}
	if (!rc && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = mf_db_fail(d->db, "listing the systems", err);
	sqlite3_finalize(st);
	free(last);
	return rc;
}

int mf_db_report_add(struct mf_pipeline *p, struct mf_db *db, const struct mf_kb *kb, const struct mf_select *sel,
		     struct mf_error *err)
{
	struct mf_db_samples *d = NULL;
	int rc;

	mf_error_clear(err);
	rc = mf_db_samples_open(&d, db, kb, sel, err);
	if (!rc)
		rc = mf_db_smf_prescan(p, db, err);
	if (!rc)
		rc = left_out_span(p, d, err);
	if (rc)
		mf_pipeline_error(p, err);
	else
		rc = mf_pipeline_add_source(p, mf_db_path(db), "db", mf_db_samples_next, d, mf_db_samples_left_out(d),
					    err);
	mf_db_samples_close(d);
	return rc;
}
