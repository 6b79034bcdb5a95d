/* SPDX-License-Identifier: MIT */
/*
 * mfstat db import (docs/db.md): each input read by the report pipeline, its samples handed here
 * one by one (mf_pipeline_opts.sample_fn) and written with prepared statements, one transaction
 * per input file.  The sample's identity is the unique index of `sample`: an INSERT that finds
 * it held is a copy, compared counter by counter with the row held.
 */
#include "mfstat/db/import.h"
#include "mfstat/db/rollup.h"
#include "mfstat/db/views.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <nettle/sha2.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mfstat/base/strtab.h"
#include "mfstat/base/timefmt.h"
#include "mfstat/input/lpar.h"
#include "mfstat/input/reader.h"
#include "mfstat/input/sample.h"
#include "mfstat/input/smf.h"
#include "mfstat/report/dedup.h"
#include "mfstat/report/output.h"

/* A family's counters table, its statements and its columns (the kb's counters, dense order). */
struct fam {
	const struct mf_family *f;
	sqlite3_stmt *ins, *get;
};

struct imp {
	struct mf_db *db;
	sqlite3 *h;
	const struct mf_db_import_opts *o;
	struct mf_pipeline *p;
	sqlite3_stmt *ins_sample, *find_sample, *ins_smf;
	struct mf_db_hours *hours; /* the counter sums of the hours its new samples fall in */
	struct fam *fams;
	size_t nfams;
	/* The input being read. */
	int64_t file_id;
	const char *name;
	uint64_t size, lines, ordinal, fresh, known;
	bool compressed;
	/* The interval starts of its new samples: the roll-up buckets it touched (dated when has_range). */
	int64_t lo_us, hi_us;
	bool has_range;
	/* The inputs, the one being imported, and whether the LPAR view's first pass was made. */
	const char *const *paths;
	size_t n, at;
	bool prescanned;
	struct par *par; /* -j N: the readers, or NULL */
	/* An error of the database met in a callback (its code; the message is in the pipeline's err). */
	int failed;
	bool told;
	/* Scratch: one sample's values by dense slot. */
	uint64_t val[MF_MAX_COUNTER];
	unsigned char has[MF_MAX_COUNTER];
};

static int prep(struct imp *m, sqlite3_stmt **st, const char *sql, struct mf_error *err)
{
	if (sqlite3_prepare_v3(m->h, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		return mf_db_fail(m->db, "preparing the import's statements", err);
	return 0;
}

static void fams_free(struct imp *m)
{
	size_t i;
	for (i = 0; i < m->nfams; i++) {
		sqlite3_finalize(m->fams[i].ins);
		sqlite3_finalize(m->fams[i].get);
	}
	free(m->fams);
	m->fams = NULL;
	m->nfams = 0;
}

/* Appends the quoted identifier s to the buffer (names of the kb: letters, digits, '_'; '"' doubled anyway). */
static void put_ident(char **at, const char *s)
{
	*(*at)++ = '"';
	for (; *s; s++) {
		if (*s == '"')
			*(*at)++ = '"';
		*(*at)++ = *s;
	}
	*(*at)++ = '"';
}

/*
 * The counters table of family f, made or completed (docs/db.md "Counters"): created on first
 * use with one column per counter the kb knows, missing columns added, each labelled in
 * `counter`; its statements prepared.  NULL with err filled.
 */
static struct fam *fam_of(struct imp *m, const struct mf_family *f, struct mf_error *err)
{
	size_t i, room = 256 + f->ncounters * 2 * (strlen("\"\",?") + 80);
	char *sql, *at, table[128];
	struct fam *nf, *r;
	sqlite3_stmt *st = NULL;
	unsigned char *have = NULL;

	for (i = 0; i < m->nfams; i++)
		if (m->fams[i].f == f)
			return &m->fams[i];
	snprintf(table, sizeof(table), "counters_%s", f->key);
	sql = malloc(room);
	have = calloc(f->ncounters + 1, 1);
	nf = realloc(m->fams, (m->nfams + 1) * sizeof(*nf));
	if (!sql || !have || !nf) {
		free(sql);
		free(have);
		if (nf)
			m->fams = nf;
		mf_error_nomem(err, mf_db_path(m->db), 0, "making the table %s", table);
		return NULL;
	}
	m->fams = nf;
	r = &m->fams[m->nfams];
	memset(r, 0, sizeof(*r));
	r->f = f;

	at = sql + sprintf(sql, "CREATE TABLE IF NOT EXISTS ");
	put_ident(&at, table);
	at += sprintf(at, " (id INTEGER PRIMARY KEY");
	for (i = 0; i < f->ncounters; i++) {
		*at++ = ',';
		*at++ = ' ';
		put_ident(&at, f->counters[i].short_name);
		at += sprintf(at, " INTEGER");
	}
	strcpy(at, ")");
	if (mf_db_exec(m->db, sql, "making the counters table", err))
		goto fail;
	/* The columns it has (made by an older knowledge base: fewer). */
	at = sql + sprintf(sql, "SELECT name FROM pragma_table_info(");
	at += sprintf(at, "'%s')", table);
	if (sqlite3_prepare_v2(m->h, sql, -1, &st, NULL) != SQLITE_OK) {
		mf_db_fail(m->db, "reading the columns of the counters table", err);
		goto fail;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		for (i = 0; c && i < f->ncounters; i++)
			if (strcmp(c, f->counters[i].short_name) == 0)
				have[i] = 1;
	}
	sqlite3_finalize(st);
	st = NULL;
	for (i = 0; i < f->ncounters; i++) {
		if (have[i])
			continue;
		at = sql + sprintf(sql, "ALTER TABLE ");
		put_ident(&at, table);
		at += sprintf(at, " ADD COLUMN ");
		put_ident(&at, f->counters[i].short_name);
		strcpy(at, " INTEGER");
		if (mf_db_exec(m->db, sql, "adding a column to the counters table", err))
			goto fail;
	}
	/* Their labels. */
	if (sqlite3_prepare_v2(m->h,
			       "INSERT OR IGNORE INTO counter (family, name, number, set_name, linux_name, "
			       "description) "
			       "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
			       -1, &st, NULL) != SQLITE_OK) {
		mf_db_fail(m->db, "labelling the counters", err);
		goto fail;
	}
	for (i = 0; i < f->ncounters; i++) {
		const struct mf_counter *c = &f->counters[i];
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, f->key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, c->short_name, -1, SQLITE_STATIC);
		if (f->named) {
			sqlite3_bind_null(st, 3);
			sqlite3_bind_null(st, 4);
		} else {
			sqlite3_bind_int64(st, 3, c->number);
			sqlite3_bind_text(st, 4, mf_set_name(c->set), -1, SQLITE_STATIC);
		}
		if (c->linux_name && *c->linux_name)
			sqlite3_bind_text(st, 5, c->linux_name, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 5);
		sqlite3_bind_text(st, 6, c->desc ? c->desc : "", -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE) {
			mf_db_fail(m->db, "labelling the counters", err);
			goto fail;
		}
	}
	sqlite3_finalize(st);
	st = NULL;
	/* INSERT INTO t (id, c...) VALUES (?, ?...) and SELECT c... FROM t WHERE id = ?. */
	at = sql + sprintf(sql, "INSERT INTO ");
	put_ident(&at, table);
	at += sprintf(at, " (id");
	for (i = 0; i < f->ncounters; i++) {
		*at++ = ',';
		put_ident(&at, f->counters[i].short_name);
	}
	at += sprintf(at, ") VALUES (?");
	for (i = 0; i < f->ncounters; i++)
		at += sprintf(at, ",?");
	strcpy(at, ")");
	if (prep(m, &r->ins, sql, err))
		goto fail;
	at = sql + sprintf(sql, "SELECT 0");
	for (i = 0; i < f->ncounters; i++) {
		*at++ = ',';
		put_ident(&at, f->counters[i].short_name);
	}
	at += sprintf(at, " FROM ");
	put_ident(&at, table);
	strcpy(at, " WHERE id = ?1");
	if (prep(m, &r->get, sql, err))
		goto fail;
	free(sql);
	free(have);
	m->nfams++;
	return r;
fail:
	sqlite3_finalize(st);
	sqlite3_finalize(r->ins);
	sqlite3_finalize(r->get);
	free(sql);
	free(have);
	return NULL;
}

/* Where s was read, for messages: "line N", "offset 0x..", or "an unknown place". */
static void place(char *buf, size_t n, sqlite3_stmt *st, int line_col)
{
	if (sqlite3_column_type(st, line_col) != SQLITE_NULL)
		snprintf(buf, n, "line %lld", (long long)sqlite3_column_int64(st, line_col));
	else if (sqlite3_column_type(st, line_col + 1) != SQLITE_NULL)
		snprintf(buf, n, "offset 0x%llx", (unsigned long long)sqlite3_column_int64(st, line_col + 1));
	else
		snprintf(buf, n, "an unknown place");
}

/* e names where s was read (file, line or offset) and why: MF_EFORMAT. */
static int bad_sample(const char *file, const struct mf_sample *s, struct mf_error *e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int bad_sample(const char *file, const struct mf_sample *s, struct mf_error *e, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	mf_error_set(e, MF_EFORMAT, file, s->line > 0 ? s->line : 0, 0, "%s", msg);
	if (s->line <= 0)
		e->offset = s->offset;
	return MF_EFORMAT;
}

/* A database error in a callback: said in e, kept so that the import says it (not a bad row). */
static int db_failed(struct imp *m, const char *what, struct mf_error *e)
{
	m->failed = mf_db_fail(m->db, what, e);
	return MF_ENOMEM; /* a code the pipeline never skips */
}

/* A held sample of the same identity: the same family and counters (MF_DEDUP_DUPLICATE), or a conflict. */
static int compare_held(struct imp *m, const struct mf_sample *s, const char *file, struct fam *fm, struct mf_error *e)
{
	sqlite3_stmt *st = m->find_sample;
	int64_t id = sqlite3_column_int64(st, 0);
	const char *hfam = (const char *)sqlite3_column_text(st, 1);
	char first[64], when[48], hfile[512];
	size_t i;
	bool same = hfam && strcmp(hfam, s->family->key) == 0;

	place(first, sizeof(first), st, 3);
	snprintf(hfile, sizeof(hfile), "%s",
		 sqlite3_column_text(st, 2) ? (const char *)sqlite3_column_text(st, 2) : "?");
	if (same) {
		sqlite3_stmt *g = fm->get;
		int rc;
		sqlite3_reset(g);
		sqlite3_bind_int64(g, 1, id);
		rc = sqlite3_step(g);
		if (rc != SQLITE_ROW) {
			sqlite3_reset(g);
			if (rc == SQLITE_DONE)
				same = false;
			else
				return db_failed(m, "reading the counters of a held sample", e);
		}
		for (i = 0; same && i < s->family->ncounters; i++) {
			int t = sqlite3_column_type(g, (int)i + 1);
			if (!m->has[i])
				same = t == SQLITE_NULL;
			else
				same = t == SQLITE_INTEGER &&
				       (uint64_t)sqlite3_column_int64(g, (int)i + 1) == m->val[i];
		}
		sqlite3_reset(g);
	}
	if (same)
		return MF_DEDUP_DUPLICATE;
	mf_time_format(sqlite3_column_int64(st, 5) * 1000000, when, sizeof(when));
	return bad_sample(file, s, e,
			  "a second copy of a sample (same system, LPAR, CPU, pool and interval %s, %lld s) with "
			  "different counters; the database holds the first, from %s %s",
			  when, (long long)sqlite3_column_int64(st, 6), hfile, first);
}

static int on_sample(void *ctx, const struct mf_sample *s, const char *file, struct mf_error *e)
{
	struct imp *m = ctx;
	const struct mf_strtab *tab = mf_pipeline_strtab(m->p);
	const char *system = s->system ? mf_strtab_get(tab, s->system) : "";
	const char *lpar = s->lpar ? mf_strtab_get(tab, s->lpar) : "";
	const char *pool = mf_pool_name(s->pool);
	const char *pol = mf_polarity_name(s->polarity);
	int64_t key_start = 0, key_len = isnan(s->seconds) ? -1 : (int64_t)llround(s->seconds);
	int64_t anon = 0, id;
	sqlite3_stmt *st = m->ins_sample;
	struct fam *fm;
	size_t i;
	int rc;

	m->ordinal++;
	if (m->o->progress && (m->ordinal & 4095) == 0) {
		double frac = -1;
		if (!m->compressed && s->line > 0 && m->lines)
			frac = (double)s->line / (double)m->lines;
		else if (!m->compressed && s->offset >= 0 && m->size)
			frac = (double)s->offset / (double)m->size;
		m->o->progress(m->o->ctx, file, frac > 1 ? 1 : frac, m->size, m->ordinal);
	}
	if (!s->family)
		return bad_sample(file, s, e, "a sample of no machine family");
	if (!system)
		system = "";
	if (!lpar)
		lpar = "";
	/* The counters, checked before anything is written. */
	memset(m->has, 0, s->family->ncounters);
	for (i = 0; i < s->n; i++) {
		uint16_t k = s->slot[i];
		if (k >= s->family->ncounters)
			continue;
		if (s->value[i] > (uint64_t)INT64_MAX)
			return bad_sample(file, s, e,
					  "counter %s has a delta of %" PRIu64
					  " (2^63 or more), which the database cannot hold",
					  s->family->counters[k].short_name, s->value[i]);
		m->has[k] = 1;
		m->val[k] = s->value[i];
	}
	if (s->has_start)
		key_start = (s->start_us >= 0 ? s->start_us + 500000 : s->start_us - 499999) / 1000000;
	if (!s->system || !s->has_start)
		anon = m->file_id * INT64_C(4294967296) + (int64_t)m->ordinal;
	if (!(fm = fam_of(m, s->family, e))) {
		m->failed = e->code ? e->code : MF_EIO;
		return MF_ENOMEM;
	}

	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, system, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, lpar, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, pool ? pool : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, s->cpu);
	if (s->has_start)
		sqlite3_bind_int64(st, 5, s->start_us);
	else
		sqlite3_bind_null(st, 5);
	if (isnan(s->seconds))
		sqlite3_bind_null(st, 6);
	else
		sqlite3_bind_double(st, 6, s->seconds);
	sqlite3_bind_int64(st, 7, key_start);
	sqlite3_bind_int64(st, 8, key_len);
	sqlite3_bind_text(st, 9, s->lpar_joined ? "" : lpar, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 10, anon);
	sqlite3_bind_text(st, 11, s->family->key, -1, SQLITE_STATIC);
	if (s->machine)
		sqlite3_bind_int64(st, 12, s->machine->type);
	else
		sqlite3_bind_null(st, 12);
	if (isnan(s->cpsp))
		sqlite3_bind_null(st, 13);
	else
		sqlite3_bind_double(st, 13, s->cpsp);
	sqlite3_bind_int(st, 14, s->cpsp_nominal);
	sqlite3_bind_int(st, 15, s->user_only ? 1 : 0);
	if (s->has_offset)
		sqlite3_bind_int64(st, 16, s->utc_offset_s);
	else
		sqlite3_bind_null(st, 16);
	sqlite3_bind_int(st, 17, s->lpar_joined);
	if (pol)
		sqlite3_bind_text(st, 18, pol, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 18);
	if (s->lpar_weight >= 0)
		sqlite3_bind_int64(st, 19, s->lpar_weight);
	else
		sqlite3_bind_null(st, 19);
	if (s->drawer >= 0)
		sqlite3_bind_int64(st, 20, s->drawer);
	else
		sqlite3_bind_null(st, 20);
	if (s->chip >= 0)
		sqlite3_bind_int64(st, 21, s->chip);
	else
		sqlite3_bind_null(st, 21);
	if (isnan(s->rmf_busy_s))
		sqlite3_bind_null(st, 22);
	else
		sqlite3_bind_double(st, 22, s->rmf_busy_s);
	sqlite3_bind_int64(st, 23, m->file_id);
	if (s->line > 0)
		sqlite3_bind_int64(st, 24, s->line);
	else
		sqlite3_bind_null(st, 24);
	if (s->line <= 0 && s->offset >= 0)
		sqlite3_bind_int64(st, 25, s->offset);
	else
		sqlite3_bind_null(st, 25);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_failed(m, "writing a sample", e);
	if (sqlite3_changes(m->h) == 0) { /* its identity is held */
		sqlite3_stmt *f = m->find_sample;
		sqlite3_reset(f);
		sqlite3_bind_text(f, 1, system, -1, SQLITE_STATIC);
		sqlite3_bind_text(f, 2, s->lpar_joined ? "" : lpar, -1, SQLITE_STATIC);
		sqlite3_bind_text(f, 3, pool ? pool : "", -1, SQLITE_STATIC);
		sqlite3_bind_int64(f, 4, s->cpu);
		sqlite3_bind_int64(f, 5, key_start);
		sqlite3_bind_int64(f, 6, key_len);
		sqlite3_bind_int64(f, 7, anon);
		if (sqlite3_step(f) != SQLITE_ROW) {
			sqlite3_reset(f);
			return db_failed(m, "finding a held sample", e);
		}
		rc = compare_held(m, s, file, fm, e);
		sqlite3_reset(f);
		if (rc == MF_DEDUP_DUPLICATE)
			m->known++;
		return rc;
	}
	id = sqlite3_last_insert_rowid(m->h);
	st = fm->ins;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, id);
	for (i = 0; i < s->family->ncounters; i++)
		if (m->has[i])
			sqlite3_bind_int64(st, (int)i + 2, (int64_t)m->val[i]);
		else
			sqlite3_bind_null(st, (int)i + 2);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_failed(m, "writing the counters of a sample", e);
	m->fresh++;
	if (s->has_start && mf_db_hours_add(m->hours, s->family, system, lpar, pool ? pool : "", s->cpu, s->start_us,
					    s->has_offset, (int32_t)s->utc_offset_s, m->has, m->val) != 0) {
		m->failed = mf_error_nomem(e, mf_db_path(m->db), 0, "summing the hours");
		return MF_ENOMEM;
	}
	if (s->has_start) {
		if (!m->has_range || s->start_us < m->lo_us)
			m->lo_us = s->start_us;
		if (!m->has_range || s->start_us > m->hi_us)
			m->hi_us = s->start_us;
		m->has_range = true;
	}
	return MF_DEDUP_KEEP;
}

/* A type 70.1 or 99.14 record (its bytes raw[0..len), RDW included): kept once by its hash. */
static int keep_record(struct imp *m, int type, int subtype, const char *system, int64_t t, long long offset,
		       const unsigned char *raw, size_t len, struct mf_error *e)
{
	sqlite3_stmt *st = m->ins_smf;
	struct sha256_ctx h;
	uint8_t d[SHA256_DIGEST_SIZE];
	char hex[2 * SHA256_DIGEST_SIZE + 1];
	size_t i;
	int rc;
	sha256_init(&h);
	sha256_update(&h, len, raw);
	sha256_digest(&h, sizeof(d), d);
	for (i = 0; i < sizeof(d); i++)
		sprintf(hex + 2 * i, "%02x", d[i]);
	sqlite3_reset(st);
	sqlite3_bind_int(st, 1, type);
	sqlite3_bind_int(st, 2, subtype);
	sqlite3_bind_text(st, 3, system, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, t);
	sqlite3_bind_text(st, 5, hex, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, m->file_id);
	sqlite3_bind_int64(st, 7, offset);
	sqlite3_bind_blob(st, 8, raw, (int)len, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_failed(m, "keeping an SMF type 70 or 99 record", e);
	return 0;
}

/* The time a type 70.1 or 99.14 record is kept under. */
static int64_t record_time(const struct mf_smf_record *rec)
{
	return rec->rmf ? rec->rmf->start_us : rec->topo ? rec->topo->time_us : 0;
}

static int on_smf_record(void *ctx, const struct mf_smf_record *rec, struct mf_error *e)
{
	if (!rec->raw)
		return 0;
	return keep_record(ctx, rec->type, rec->subtype, rec->system, record_time(rec), rec->offset, rec->raw,
			   rec->raw_len, e);
}

static void on_diag(void *ctx, enum mf_pipeline_diag kind, const struct mf_error *e)
{
	struct imp *m = ctx;
	if (kind == MF_PIPELINE_ERROR || kind == MF_PIPELINE_FAILED)
		m->told = true;
	if (m->failed)
		return; /* the database's error, said by the import */
	if (m->o->diag)
		m->o->diag(m->o->ctx, kind, e);
}

/* The SHA-256 (hex), size and lines of path; whether it is compressed (gzip, zstd).  0 or MF_EIO. */
static int hash_file(const char *path, char hex[65], uint64_t *size, uint64_t *lines, bool *compressed,
		     struct mf_error *err)
{
	enum { BUF = 1 << 20 };
	unsigned char *buf;
	struct sha256_ctx h;
	uint8_t d[SHA256_DIGEST_SIZE];
	uint64_t total = 0, nl = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;
	size_t i;
	if (fd < 0)
		return mf_error_set(err, MF_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
	if (!(buf = malloc(BUF))) { /* its own: the readers of -j hash at once */
		close(fd);
		return mf_error_nomem(err, path, 0, "hashing it");
	}
	sha256_init(&h);
	*compressed = false;
	while ((got = read(fd, buf, BUF)) != 0) {
		const unsigned char *q = buf, *end;
		if (got < 0) {
			if (errno == EINTR)
				continue;
			int en = errno;
			close(fd);
			free(buf);
			return mf_error_set(err, MF_EIO, path, 0, 0, "cannot read: %s", strerror(en));
		}
		if (total == 0 && got >= 4)
			*compressed = (buf[0] == 0x1f && buf[1] == 0x8b) ||
				      (buf[0] == 0x28 && buf[1] == 0xb5 && buf[2] == 0x2f && buf[3] == 0xfd);
		sha256_update(&h, (size_t)got, buf);
		end = buf + got;
		while ((q = memchr(q, '\n', (size_t)(end - q))) != NULL) {
			nl++;
			q++;
		}
		total += (uint64_t)got;
	}
	close(fd);
	free(buf);
	sha256_digest(&h, sizeof(d), d);
	for (i = 0; i < sizeof(d); i++)
		sprintf(hex + 2 * i, "%02x", d[i]);
	*size = total;
	*lines = nl;
	return 0;
}

static void count_rows(struct imp *m, const char *kind, const struct mf_input_count *c, size_t n, int *rc,
		       struct mf_error *err)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	if (*rc || !n)
		return;
	if (sqlite3_prepare_v2(m->h, "INSERT INTO file_count (file, kind, what, n) VALUES (?1, ?2, ?3, ?4)", -1, &st,
			       NULL) != SQLITE_OK) {
		*rc = mf_db_fail(m->db, "writing the file's counts", err);
		return;
	}
	for (i = 0; i < n && !*rc; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, m->file_id);
		sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, c[i].what, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, (int64_t)c[i].n);
		if (sqlite3_step(st) != SQLITE_DONE)
			*rc = mf_db_fail(m->db, "writing the file's counts", err);
	}
	sqlite3_finalize(st);
}

/*
 * The file row's end: counts, format, time; meta.kb.  The records and drops are those of counts
 * (the reader of -j's), or NULL: of the pipeline's last input.  0 or MF_EIO.
 */
static int finish_file(struct imp *m, struct mf_db_import_file *f, const struct mf_input *counts, struct mf_error *err)
{
	const struct mf_input *in = mf_pipeline_last_input(m->p);
	const struct mf_input *c = counts ? counts : in;
	sqlite3_stmt *st = NULL;
	char when[48];
	time_t now = time(NULL);
	int rc = 0;
	count_rows(m, "records", c ? c->records : NULL, c ? c->nrecords : 0, &rc, err);
	count_rows(m, "dropped", c ? c->dropped : NULL, c ? c->ndropped : 0, &rc, err);
	if (rc)
		return rc;
	mf_time_format((int64_t)now * 1000000, when, sizeof(when));
	f->format = in && in->format ? in->format : "";
	f->skipped = in ? in->skipped : 0;
	if (sqlite3_prepare_v2(m->h,
			       "UPDATE file SET format = ?2, imported_unix = ?3, imported = ?4, samples_new = ?5, "
			       "samples_known = ?6, skipped = ?7 WHERE id = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return mf_db_fail(m->db, "writing the file's row", err);
	sqlite3_bind_int64(st, 1, m->file_id);
	sqlite3_bind_text(st, 2, f->format, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)now);
	sqlite3_bind_text(st, 4, when, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (int64_t)m->fresh);
	sqlite3_bind_int64(st, 6, (int64_t)m->known);
	sqlite3_bind_int64(st, 7, (int64_t)f->skipped);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = mf_db_fail(m->db, "writing the file's row", err);
	sqlite3_finalize(st);
	if (!rc)
		rc = mf_db_meta_set(m->db, "kb", m->o->kb_name ? m->o->kb_name : "embedded", err);
	if (!rc)
		rc = mf_db_meta_set(m->db, "kb_revision", mf_kb_revision(m->o->kb), err);
	return rc;
}

/* Whether the bytes of sha are held: 1 (f's held_name and held_when filled), 0, or MF_EIO. */
static int held_file(struct imp *m, const char *sha, struct mf_db_import_file *f, struct mf_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc;
	if (sqlite3_prepare_v2(m->h, "SELECT name, imported FROM file WHERE sha256 = ?1", -1, &st, NULL) != SQLITE_OK)
		return mf_db_fail(m->db, "looking for the file's hash", err);
	sqlite3_bind_text(st, 1, sha, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(f->held_name, sizeof(f->held_name), "%s", (const char *)sqlite3_column_text(st, 0));
		snprintf(f->held_when, sizeof(f->held_when), "%s", (const char *)sqlite3_column_text(st, 1));
		rc = 1;
	} else if (rc == SQLITE_DONE) {
		rc = 0;
	} else {
		rc = mf_db_fail(m->db, "looking for the file's hash", err);
	}
	sqlite3_finalize(st);
	return rc;
}

/* Whether the bytes of path are held already (a file that cannot be read: no). */
static bool is_held(struct imp *m, const char *path)
{
	char sha[65];
	uint64_t size, lines;
	bool compressed;
	struct mf_error e;
	struct mf_db_import_file f;
	if (strcmp(path, "-") == 0 || hash_file(path, sha, &size, &lines, &compressed, &e))
		return false;
	return held_file(m, sha, &f, &e) == 1;
}

/*
 * ---- -j N: the inputs read by N-1 threads, written here (docs/db.md "Import") ----
 *
 * Each reader thread takes the next input in order (at most as many ahead of the writer as there
 * are readers): hashes it, opens it (SMF: its type 70 and 99 records handed over, its samples not
 * joined: the writer joins them to the LPAR view) and reads it into the input's queue: each
 * sample (with its names), each type 70 or 99 record (its bytes) and each error, in order.  A
 * queue holds at most Q_EVENTS events and Q_BYTES bytes: a reader ahead of the writer waits.  The
 * writer, this thread, takes the inputs in order as import_one does, reading the queue through
 * mf_pipeline_add_source: the same checks, messages and rows as reading the file itself.
 */
#define Q_EVENTS 4096
#define Q_BYTES ((size_t)16 << 20)
#define Q_WAKE 64 /* the events that wake a writer waiting for them (the end does too) */
#define HEAD_BYTES offsetof(struct mf_sample, slot)

enum { EV_SAMPLE = 1, EV_RECORD = 2, EV_ERROR = 3 };

struct qev {
	struct qev *next;
	int kind, got;      /* EV_ERROR: the reader's code */
	size_t bytes;       /* of the event */
	size_t n;           /* EV_SAMPLE: counters; EV_RECORD: the record's bytes */
	size_t lsys, llpar; /* EV_SAMPLE: the lengths of its system's and LPAR's names */
	int type, subtype;  /* EV_RECORD */
	int64_t t;
	long long offset;
	char system[9];
	/* EV_SAMPLE: the sample's head, values, slots, names; EV_RECORD: its bytes; EV_ERROR: the mf_error. */
	_Alignas(8) unsigned char data[];
};

/* One input: what its reader found, and its queue (under par.mu). */
struct rq {
	const char *path;
	bool hashed, opened, done, cancel;
	bool waiting, wwaiting; /* its reader waits for room, the writer for events */
	int hrc, orc, frc;      /* hash_file's, mf_reader_open's and mf_input_collect's results */
	struct mf_error herr, oerr;
	char sha[65];
	uint64_t size, lines;
	bool compressed;
	const char *format; /* the reader's (static) */
	struct qev *head, *tail;
	size_t count, bytes;
	int pgot; /* an error after the last event (out of memory keeping one) */
	struct mf_error perr;
	struct mf_input fin; /* the reader's counts at its end (format, records, dropped) */
};

struct par {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct rq *q;
	size_t n, next, writer_at, ahead;
	bool stop, skip_bad;
	struct mf_reader_opts ro; /* the readers' (strtab and lpar their own) */
	pthread_t *th;
	size_t nth;
};

struct rctx {
	struct par *P;
	struct rq *q;
};

/* Appends ev to q's queue, waiting for room: 0, or -1 when the input is no longer wanted (ev freed). */
static int q_push(struct par *P, struct rq *q, struct qev *ev)
{
	pthread_mutex_lock(&P->mu);
	if (q->count && (q->count >= Q_EVENTS || q->bytes + ev->bytes > Q_BYTES))
		/* Full: on when it is half empty (woken once, not at every event the writer takes). */
		while (!P->stop && !q->cancel && q->count && (q->count > Q_EVENTS / 2 || q->bytes > Q_BYTES / 2)) {
			q->waiting = true;
			pthread_cond_wait(&P->cv, &P->mu);
		}
	q->waiting = false;
	if (P->stop || q->cancel) {
		pthread_mutex_unlock(&P->mu);
		free(ev);
		return -1;
	}
	ev->next = NULL;
	if (q->tail)
		q->tail->next = ev;
	else
		q->head = ev;
	q->tail = ev;
	q->count++;
	q->bytes += ev->bytes;
	if (q->wwaiting && (q->count >= Q_WAKE || q->bytes >= Q_BYTES / 2))
		pthread_cond_broadcast(&P->cv);
	pthread_mutex_unlock(&P->mu);
	return 0;
}

/* The reader could not keep an event: its error ends the queue. */
static void q_nomem(struct par *P, struct rq *q, const char *what)
{
	pthread_mutex_lock(&P->mu);
	if (!q->pgot)
		q->pgot = mf_error_nomem(&q->perr, q->path, 0, "%s", what);
	pthread_mutex_unlock(&P->mu);
}

static struct qev *ev_new(int kind, size_t data)
{
	struct qev *ev = malloc(sizeof(*ev) + data);
	if (ev) {
		memset(ev, 0, sizeof(*ev));
		ev->kind = kind;
		ev->bytes = sizeof(*ev) + data;
	}
	return ev;
}

/* The reader's smf_record_fn: the record's bytes into the queue. */
static int copy_record(void *ctx, const struct mf_smf_record *rec, struct mf_error *e)
{
	struct rctx *c = ctx;
	struct qev *ev;
	if (!rec->raw)
		return 0;
	if (!(ev = ev_new(EV_RECORD, rec->raw_len))) {
		q_nomem(c->P, c->q, "keeping an SMF type 70 or 99 record for the writer");
		return mf_error_nomem(e, c->q->path, 0, "keeping an SMF type 70 or 99 record");
	}
	ev->n = rec->raw_len;
	ev->type = rec->type;
	ev->subtype = rec->subtype;
	snprintf(ev->system, sizeof(ev->system), "%s", rec->system);
	ev->t = record_time(rec);
	ev->offset = rec->offset;
	memcpy(ev->data, rec->raw, rec->raw_len);
	if (q_push(c->P, c->q, ev))
		return mf_error_set(e, MF_EIO, c->q->path, 0, 0, "no longer wanted");
	return 0;
}

/* A sample read (its names from tab) into the queue: 0, or -1 to stop. */
static int push_sample(struct par *P, struct rq *q, const struct mf_strtab *tab, const struct mf_sample *s)
{
	const char *sys = s->system ? mf_strtab_get(tab, s->system) : NULL;
	const char *lpar = s->lpar ? mf_strtab_get(tab, s->lpar) : NULL;
	size_t lsys = sys ? strlen(sys) : 0, llpar = lpar ? strlen(lpar) : 0;
	size_t head = (HEAD_BYTES + 7) & ~(size_t)7;
	struct qev *ev = ev_new(EV_SAMPLE, head + s->n * (sizeof(uint64_t) + sizeof(uint16_t)) + lsys + llpar);
	unsigned char *at;
	if (!ev) {
		q_nomem(P, q, "keeping a sample for the writer");
		return -1;
	}
	ev->n = s->n;
	ev->lsys = lsys;
	ev->llpar = llpar;
	at = ev->data;
	memcpy(at, s, HEAD_BYTES);
	at += head;
	memcpy(at, s->value, s->n * sizeof(uint64_t));
	at += s->n * sizeof(uint64_t);
	memcpy(at, s->slot, s->n * sizeof(uint16_t));
	at += s->n * sizeof(uint16_t);
	if (lsys)
		memcpy(at, sys, lsys);
	if (llpar)
		memcpy(at + lsys, lpar, llpar);
	return q_push(P, q, ev);
}

/* Reads input q as drain would read it, into its queue. */
static void read_input(struct par *P, struct rq *q, struct mf_strtab *tab, struct mf_sample *s)
{
	struct mf_reader_opts ro = P->ro;
	struct rctx c = {P, q};
	struct mf_reader *r = NULL;
	struct mf_lparmap *lpar = NULL;
	struct mf_error e;
	char sha[65];
	uint64_t size = 0, lines = 0;
	bool compressed = false;
	int rc = 0, got;

	mf_error_clear(&e);
	if (strcmp(q->path, "-") != 0) /* the writer refuses it */
		rc = hash_file(q->path, sha, &size, &lines, &compressed, &e);
	pthread_mutex_lock(&P->mu);
	q->hashed = true;
	q->hrc = rc;
	q->herr = e;
	memcpy(q->sha, sha, sizeof(sha));
	q->size = size;
	q->lines = lines;
	q->compressed = compressed;
	pthread_cond_broadcast(&P->cv);
	pthread_mutex_unlock(&P->mu);
	if (rc || strcmp(q->path, "-") == 0)
		goto end;
	if (!(lpar = mf_lparmap_new())) {
		rc = mf_error_nomem(&e, q->path, 0, "opening it");
	} else {
		ro.strtab = tab;
		ro.lpar = lpar;
		ro.lpar_nojoin = true;
		ro.smf_record_fn = copy_record;
		ro.smf_record_ctx = &c;
		mf_error_clear(&e);
		rc = mf_reader_open(&r, q->path, &ro, &e);
	}
	pthread_mutex_lock(&P->mu);
	q->opened = true;
	q->orc = rc;
	q->oerr = e;
	q->format = rc ? NULL : mf_reader_format(r);
	pthread_cond_broadcast(&P->cv);
	pthread_mutex_unlock(&P->mu);
	if (rc)
		goto end;
	while ((got = mf_reader_next(r, s, &e)) != 0) {
		struct qev *ev;
		if (got == 1) {
			if (push_sample(P, q, tab, s))
				break;
			continue;
		}
		if (!(ev = ev_new(EV_ERROR, sizeof(e)))) {
			q_nomem(P, q, "keeping an error for the writer");
			break;
		}
		ev->got = got;
		memcpy(ev->data, &e, sizeof(e));
		if (q_push(P, q, ev))
			break;
		/* Where drain stops reading. */
		if (!P->skip_bad || got == MF_ENOMEM || got == MF_ENODATA || got == MF_EIO)
			break;
	}
	q->frc = mf_input_collect(&q->fin, q->path, r);
end:
	mf_reader_close(r);
	mf_lparmap_free(lpar);
	pthread_mutex_lock(&P->mu);
	q->done = true;
	pthread_cond_broadcast(&P->cv);
	pthread_mutex_unlock(&P->mu);
}

static void *reader_main(void *arg)
{
	struct par *P = arg;
	struct mf_strtab *tab = mf_strtab_new();
	struct mf_sample *s = malloc(sizeof(*s));
	for (;;) {
		size_t i;
		pthread_mutex_lock(&P->mu);
		while (!P->stop && P->next < P->n && P->next > P->writer_at + P->ahead)
			pthread_cond_wait(&P->cv, &P->mu);
		if (P->stop || P->next >= P->n) {
			pthread_mutex_unlock(&P->mu);
			break;
		}
		i = P->next++;
		if (!tab || !s) { /* its input says so when the writer reaches it */
			P->q[i].hashed = P->q[i].opened = P->q[i].done = true;
			P->q[i].hrc = mf_error_nomem(&P->q[i].herr, P->q[i].path, 0, "starting its reader");
			pthread_cond_broadcast(&P->cv);
			pthread_mutex_unlock(&P->mu);
			continue;
		}
		pthread_mutex_unlock(&P->mu);
		read_input(P, &P->q[i], tab, s);
	}
	mf_strtab_free(tab);
	free(s);
	return NULL;
}

static void q_clear(struct rq *q)
{
	while (q->head) {
		struct qev *n = q->head->next;
		free(q->head);
		q->head = n;
	}
	q->tail = NULL;
	q->count = q->bytes = 0;
}

/* The readers stopped and joined, the queues freed. */
static void par_free(struct par *P)
{
	size_t i;
	if (!P)
		return;
	pthread_mutex_lock(&P->mu);
	P->stop = true;
	pthread_cond_broadcast(&P->cv);
	pthread_mutex_unlock(&P->mu);
	for (i = 0; i < P->nth; i++)
		pthread_join(P->th[i], NULL);
	for (i = 0; i < P->n; i++) {
		q_clear(&P->q[i]);
		mf_input_free(&P->q[i].fin);
	}
	pthread_mutex_destroy(&P->mu);
	pthread_cond_destroy(&P->cv);
	free(P->th);
	free(P->q);
	free(P);
}

/* readers threads reading paths[0..n) (NULL when out of memory or no thread starts). */
static struct par *par_new(const char *const *paths, size_t n, unsigned readers, const struct mf_db_import_opts *o)
{
	struct par *P = calloc(1, sizeof(*P));
	size_t i;
	if (!P)
		return NULL;
	pthread_mutex_init(&P->mu, NULL);
	pthread_cond_init(&P->cv, NULL);
	P->q = calloc(n, sizeof(*P->q));
	P->th = calloc(readers, sizeof(*P->th));
	if (!P->q || !P->th) {
		par_free(P);
		return NULL;
	}
	P->n = n;
	P->ahead = readers;
	P->skip_bad = o->skip_bad;
	P->ro.kb = o->kb;
	P->ro.format = o->format;
	P->ro.family = o->family;
	P->ro.machine = o->machine;
	P->ro.perf_tz = o->perf_tz;
	P->ro.perf_tz_from = o->perf_tz_from;
	/* cpu_mhz stays 0: the writer's reader of the queue applies --cpu-mhz, as the file's would. */
	for (i = 0; i < n; i++)
		P->q[i].path = paths[i];
	for (i = 0; i < readers; i++) {
		if (pthread_create(&P->th[i], NULL, reader_main, P) != 0)
			break;
		P->nth++;
	}
	if (!P->nth) {
		par_free(P);
		return NULL;
	}
	return P;
}

/* The writer's view of input q (m->par) through mf_pipeline_add_source. */
struct wsrc {
	struct imp *m;
	struct rq *q;
	bool smf; /* an SMF dump: its samples joined to the LPAR view */
};

/* Waits (under P->mu) until *flag. */
static void wait_for(struct par *P, const bool *flag)
{
	while (!*flag)
		pthread_cond_wait(&P->cv, &P->mu);
}

/* mf_reader_source_fn: the next sample of the queue, its names in the pipeline's table, joined to its LPAR view. */
static int src_next(void *ctx, const struct mf_reader_opts *opts, struct mf_sample *s, struct mf_error *err)
{
	struct wsrc *w = ctx;
	struct par *P = w->m->par;
	struct rq *q = w->q;
	for (;;) {
		struct qev *ev;
		int rc;
		pthread_mutex_lock(&P->mu);
		while (!q->head && !q->done) {
			q->wwaiting = true;
			pthread_cond_wait(&P->cv, &P->mu);
		}
		q->wwaiting = false;
		if (!(ev = q->head)) {
			rc = q->pgot;
			if (rc)
				*err = q->perr;
			q->pgot = 0;
			pthread_mutex_unlock(&P->mu);
			return rc;
		}
		q->head = ev->next;
		if (!q->head)
			q->tail = NULL;
		q->count--;
		q->bytes -= ev->bytes;
		if (q->waiting && q->count <= Q_EVENTS / 2 && q->bytes <= Q_BYTES / 2)
			pthread_cond_broadcast(&P->cv);
		pthread_mutex_unlock(&P->mu);
		if (ev->kind == EV_RECORD) {
			rc = keep_record(w->m, ev->type, ev->subtype, ev->system, ev->t, ev->offset, ev->data, ev->n,
					 err);
			free(ev);
			if (rc)
				return rc;
			continue;
		}
		if (ev->kind == EV_ERROR) {
			rc = ev->got;
			memcpy(err, ev->data, sizeof(*err));
			free(ev);
			return rc;
		}
		{
			size_t head = (HEAD_BYTES + 7) & ~(size_t)7;
			const unsigned char *at = ev->data + head;
			memcpy(s, ev->data, HEAD_BYTES);
			memcpy(s->value, at, ev->n * sizeof(uint64_t));
			at += ev->n * sizeof(uint64_t);
			memcpy(s->slot, at, ev->n * sizeof(uint16_t));
			at += ev->n * sizeof(uint16_t);
			s->present_bits = NULL;
			if (s->system)
				s->system = mf_strtab_intern(opts->strtab, (const char *)at, ev->lsys);
			if (s->lpar)
				s->lpar = mf_strtab_intern(opts->strtab, (const char *)at + ev->lsys, ev->llpar);
			rc = (ev->lsys && !s->system) || (ev->llpar && !s->lpar);
			free(ev);
			if (rc)
				return mf_error_nomem(err, q->path, 0, "keeping the systems read");
		}
		if (w->smf) /* as the SMF reader joins its samples (the other readers join none) */
			mf_lparmap_join(opts->lpar, s);
		return 1;
	}
}

/* One input, in its transaction; q: read by a reader of -j (NULL: read here). */
static int import_one(struct imp *m, const char *path, struct rq *q, struct mf_db_import_file *f, struct mf_error *err)
{
	char sha[65];
	sqlite3_stmt *st = NULL;
	int rc;

	memset(f, 0, sizeof(*f));
	f->name = path;
	f->status = MF_DB_FAILED;
	m->told = false;
	m->failed = 0;
	if (strcmp(path, "-") == 0)
		return mf_error_set(err, MF_EUSAGE, NULL, 0, 0,
				    "standard input cannot be imported: its hash is needed before it is read; "
				    "save it to a file");
	if (q) {
		pthread_mutex_lock(&m->par->mu);
		wait_for(m->par, &q->hashed);
		pthread_mutex_unlock(&m->par->mu);
		if (q->hrc) {
			*err = q->herr;
			return q->hrc;
		}
		memcpy(sha, q->sha, sizeof(sha));
		m->size = q->size;
		m->lines = q->lines;
		m->compressed = q->compressed;
	} else if ((rc = hash_file(path, sha, &m->size, &m->lines, &m->compressed, err)) != 0) {
		return rc;
	}
	f->size = m->size;
	if ((rc = held_file(m, sha, f, err)) < 0)
		return rc;
	if (rc == 1) {
		f->status = MF_DB_ALREADY;
		return 0;
	}
	if (!m->prescanned) {
		/* The LPAR view of this input and of every input after it that is not held, as report reads them. */
		size_t k;
		for (k = m->at; k < m->n; k++)
			if (k == m->at || !is_held(m, m->paths[k]))
				mf_pipeline_prescan_file(m->p, m->paths[k]);
		m->prescanned = true;
	}
	if ((rc = mf_db_exec(m->db, "BEGIN IMMEDIATE", "starting the file's transaction", err)) != 0)
		return rc;
	if (sqlite3_prepare_v2(m->h,
			       "INSERT INTO file (name, size, sha256, format, imported_unix, imported, samples_new, "
			       "samples_known, skipped) VALUES (?1, ?2, ?3, '', 0, '', 0, 0, 0)",
			       -1, &st, NULL) != SQLITE_OK) {
		rc = mf_db_fail(m->db, "writing the file's row", err);
		goto rollback;
	}
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)m->size);
	sqlite3_bind_text(st, 3, sha, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		rc = mf_db_fail(m->db, "writing the file's row", err);
		goto rollback;
	}
	m->file_id = sqlite3_last_insert_rowid(m->h);
	m->name = path;
	m->ordinal = m->fresh = m->known = 0;
	m->has_range = false;
	mf_db_hours_clear(m->hours);
	if (!q) {
		rc = mf_pipeline_add_file(m->p, path, err);
	} else {
		struct wsrc w = {m, q, false};
		pthread_mutex_lock(&m->par->mu);
		wait_for(m->par, &q->opened);
		pthread_mutex_unlock(&m->par->mu);
		if (q->orc) { /* as mf_pipeline_add_file says a file it cannot open */
			*err = q->oerr;
			rc = mf_pipeline_error(m->p, err);
		} else {
			w.smf = strcmp(q->format, "smf") == 0;
			rc = mf_pipeline_add_source(m->p, path, q->format, src_next, &w, NULL, err);
		}
		if (!rc) { /* the queue's end: the reader's counts are whole */
			pthread_mutex_lock(&m->par->mu);
			wait_for(m->par, &q->done);
			pthread_mutex_unlock(&m->par->mu);
			if (q->frc)
				rc = mf_error_nomem(err, path, 0, "keeping the counts of %s", path);
		}
	}
	if (m->failed)
		rc = m->failed;
	if (!rc)
		rc = finish_file(m, f, q ? &q->fin : NULL, err);
	/* The roll-ups of the buckets its new samples fall in, in the same transaction. */
	if (!rc && m->has_range) {
		struct mf_db_rolled rolled;
		rc = mf_db_rollup_hours(m->db, m->lo_us, m->hi_us + 1, m->hours, &rolled, err);
		f->held_back = rolled.held_back;
	}
	if (!rc)
		rc = mf_db_exec(m->db, "COMMIT", "committing the file's transaction", err);
	if (rc)
		goto rollback;
	f->status = MF_DB_IMPORTED;
	f->samples_new = m->fresh;
	f->samples_known = m->known;
	return 0;
rollback:
	sqlite3_exec(m->h, "ROLLBACK", NULL, NULL, NULL);
	fams_free(m); /* their tables may be gone with the transaction */
	return rc;
}

/*
 * The views of every family the database holds samples of (docs/db.md, "Views"), made anew from
 * this knowledge base's formulas, in one transaction: after an import they compute what report
 * computes today.  0, or MF_EIO / MF_ENOMEM.
 */
static int make_views(struct mf_db *db, const struct mf_kb *kb, struct mf_error *err)
{
	struct mf_strbuf sql;
	sqlite3_stmt *st = NULL;
	int rc, step;
	mf_strbuf_init(&sql);
	if (sqlite3_prepare_v2(mf_db_sqlite(db),
			       "SELECT substr(name, 10) FROM sqlite_schema WHERE type = 'table' AND name LIKE "
			       "'counters\\_%' ESCAPE '\\' ORDER BY name",
			       -1, &st, NULL) != SQLITE_OK)
		return mf_db_fail(db, "listing the families for the views", err);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const struct mf_family *fam = mf_kb_family(kb, (const char *)sqlite3_column_text(st, 0));
		if (fam && (rc = mf_db_views_sql(kb, fam, &sql, err)) != 0) {
			sqlite3_finalize(st);
			mf_strbuf_free(&sql);
			return rc;
		}
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		mf_strbuf_free(&sql);
		return mf_db_fail(db, "listing the families for the views", err);
	}
	rc = mf_db_exec(db, "BEGIN IMMEDIATE", "starting to create the views", err);
	if (!rc && (rc = mf_db_exec(db, mf_strbuf_str(&sql), "creating the views", err)) == 0)
		rc = mf_db_exec(db, "COMMIT", "committing the views", err);
	if (rc)
		sqlite3_exec(mf_db_sqlite(db), "ROLLBACK", NULL, NULL, NULL);
	mf_strbuf_free(&sql);
	return rc;
}

int mf_db_import(struct mf_db *db, const char *const *paths, size_t n, const struct mf_db_import_opts *o,
		 struct mf_db_import_totals *tot, struct mf_error *err)
{
	struct mf_pipeline_opts po;
	struct imp *m = calloc(1, sizeof(*m));
	struct mf_db_import_file f;
	struct mf_error verr;
	size_t i;
	int rc = 0;

	memset(tot, 0, sizeof(*tot));
	mf_error_clear(err);
	if (!m)
		return mf_error_nomem(err, mf_db_path(db), 0, "starting the import");
	m->db = db;
	m->h = mf_db_sqlite(db);
	m->o = o;
	memset(&po, 0, sizeof(po));
	po.kb = o->kb;
	po.format = o->format;
	po.family = o->family;
	po.machine = o->machine;
	po.by = MF_BY_SYSTEM;
	po.skip_bad = o->skip_bad;
	po.cpu_mhz = o->cpu_mhz;
	po.perf_tz = o->perf_tz;
	po.perf_tz_from = o->perf_tz_from;
	po.sample_fn = on_sample;
	po.smf_record_fn = on_smf_record;
	po.sample_ctx = m;
	po.diag = on_diag;
	po.ctx = m;
	if (!(m->hours = mf_db_hours_new()) || !(m->p = mf_pipeline_new(&po))) {
		mf_db_hours_free(m->hours);
		free(m);
		return mf_error_nomem(err, mf_db_path(db), 0, "starting the import");
	}
	/* 64 MiB of page cache for this connection (SQLite's default is 2): the identity index of a large import stays in it. */
	if ((rc = mf_db_exec(db, "PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY", "setting the page cache",
			     err)) != 0)
		goto out;
	if ((rc = prep(m, &m->ins_sample,
		       "INSERT INTO sample (system, lpar, pool, cpu, start_us, seconds, key_start_s, key_len_s, "
		       "key_lpar, anon, family, machine, cpsp_mhz, cpsp_nominal, user_only, utc_offset_s, "
		       "lpar_joined, polarity, lpar_weight, drawer, chip, rmf_busy_s, file, line, offset) VALUES "
		       "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, "
		       "?21, ?22, ?23, ?24, ?25) ON CONFLICT DO NOTHING",
		       err)) != 0 ||
	    (rc = prep(m, &m->find_sample,
		       "SELECT s.id, s.family, f.name, s.line, s.offset, s.key_start_s, s.key_len_s FROM sample s "
		       "JOIN file f ON f.id = s.file WHERE s.system = ?1 AND s.key_lpar = ?2 AND s.pool = ?3 AND "
		       "s.cpu = ?4 AND s.key_start_s = ?5 AND s.key_len_s = ?6 AND s.anon = ?7",
		       err)) != 0 ||
	    (rc = prep(m, &m->ins_smf,
		       "INSERT INTO smf_record (type, subtype, system, time_us, sha256, file, offset, record) VALUES "
		       "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (sha256) DO NOTHING",
		       err)) != 0)
		goto out;
	m->paths = paths;
	m->n = n;
	if (o->jobs >= 2 && n >= 1) /* -j N: N-1 readers (no more than the inputs), this thread writes */
		m->par = par_new(paths, n, o->jobs - 1 < n ? o->jobs - 1 : (unsigned)n, o);
	for (i = 0; i < n; i++) {
		m->at = i;
		rc = import_one(m, paths[i], m->par ? &m->par->q[i] : NULL, &f, err);
		if (m->par) { /* done with it: its reader stops, the next input may be taken */
			pthread_mutex_lock(&m->par->mu);
			m->par->q[i].cancel = true;
			q_clear(&m->par->q[i]);
			m->par->writer_at = i + 1;
			pthread_cond_broadcast(&m->par->cv);
			pthread_mutex_unlock(&m->par->mu);
		}
		if (rc)
			f.status = MF_DB_FAILED;
		tot->bytes += f.size;
		if (f.status == MF_DB_IMPORTED) {
			tot->files++;
			tot->samples_new += f.samples_new;
			tot->samples_known += f.samples_known;
			tot->skipped += f.skipped;
		} else if (f.status == MF_DB_ALREADY) {
			tot->already++;
		} else {
			tot->failed++;
		}
		if (o->done)
			o->done(o->ctx, &f);
		if (rc) {
			tot->told = m->told && !m->failed;
			break;
		}
	}
	if (tot->files) {
		/* The inputs are in whatever happens here: an error now only says the views were not made. */
		int vrc = make_views(db, o->kb, rc ? &verr : err);
		if (!rc)
			rc = vrc;
	}
out:
	par_free(m->par);
	fams_free(m);
	sqlite3_finalize(m->ins_sample);
	sqlite3_finalize(m->find_sample);
	sqlite3_finalize(m->ins_smf);
	mf_pipeline_free(m->p);
	mf_db_hours_free(m->hours);
	free(m);
	return rc;
}
