/* SPDX-License-Identifier: MIT */
/*
 * The performance database file: opening, creating with the schema, migrating, and refusing
 * what is not an mfstat database or is newer than this mfstat (docs/db.md, "Versions").
 */
#include "mfstat/db/db.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/datafile.h"
#include "mfstat/base/strbuf.h"
#include "mfstat/base/timefmt.h"

#ifndef MFSTAT_VERSION
#define MFSTAT_VERSION "unknown"
#endif

struct mf_db {
	sqlite3 *h;
	char *path;
	int version;
};

const char *mf_db_path(const struct mf_db *db)
{
	return db->path;
}

int mf_db_version(const struct mf_db *db)
{
	return db->version;
}

struct sqlite3 *mf_db_sqlite(struct mf_db *db)
{
	return db->h;
}

void mf_db_sql_ident(struct mf_strbuf *sb, const char *prefix, const char *name)
{
	const char *parts[2] = {prefix, name};
	size_t k;
	mf_strbuf_putc(sb, '"');
	for (k = 0; k < 2; k++)
		for (const char *p = parts[k]; p && *p; p++) {
			if (*p == '"')
				mf_strbuf_putc(sb, '"');
			mf_strbuf_putc(sb, *p);
		}
	mf_strbuf_putc(sb, '"');
}

void mf_db_sql_text(struct mf_strbuf *sb, const char *s)
{
	mf_strbuf_putc(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			mf_strbuf_putc(sb, '\'');
		mf_strbuf_putc(sb, *s);
	}
	mf_strbuf_putc(sb, '\'');
}

int mf_db_fail(struct mf_db *db, const char *what, struct mf_error *err)
{
	const char *msg = db->h ? sqlite3_errmsg(db->h) : "out of memory";
	return mf_error_set(err, MF_EIO, db->path, 0, 0, "%s: %s", what, msg);
}

int mf_db_exec(struct mf_db *db, const char *sql, const char *what, struct mf_error *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		mf_error_set(err, MF_EIO, db->path, 0, 0, "%s: %s", what, msg ? msg : sqlite3_errmsg(db->h));
		sqlite3_free(msg);
		return MF_EIO;
	}
	return 0;
}

int mf_db_meta_get(struct mf_db *db, const char *key, char *buf, size_t n, struct mf_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc;
	if (sqlite3_prepare_v2(db->h, "SELECT value FROM meta WHERE key = ?1", -1, &st, NULL) != SQLITE_OK)
		return mf_db_fail(db, "reading the meta table", err);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(st, 0);
		snprintf(buf, n, "%s", v ? (const char *)v : "");
		sqlite3_finalize(st);
		return 1;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	return mf_db_fail(db, "reading the meta table", err);
}

int mf_db_meta_set(struct mf_db *db, const char *key, const char *value, struct mf_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc;
	if (sqlite3_prepare_v2(db->h, "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", -1, &st, NULL) !=
	    SQLITE_OK)
		return mf_db_fail(db, "writing the meta table", err);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : mf_db_fail(db, "writing the meta table", err);
}

/* One integer from a query of one row and column: 0, or MF_EIO (a file that is not SQLite says so). */
static int query_int(struct mf_db *db, const char *sql, long long *v, struct mf_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		*v = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_NOTADB)
		return mf_error_set(err, MF_EIO, db->path, 0, 0, "not an SQLite database (nor an mfstat database)");
	return mf_db_fail(db, "reading the schema", err);
}

/* Runs the embedded data file rel (a script of statements). */
static int run_script(struct mf_db *db, const char *rel, struct mf_error *err)
{
	size_t len;
	const char *sql = mf_datafile_embedded(rel, &len);
	char what[128];
	if (!sql)
		return mf_error_set(err, MF_EFORMAT, db->path, 0, 0,
				    "this mfstat has no %s to bring the schema up to date", rel);
	snprintf(what, sizeof(what), "running %s", rel);
	return mf_db_exec(db, sql, what, err);
}

/* Creates schema MF_DB_SCHEMA in the empty database db, in one transaction. */
static int create_schema(struct mf_db *db, struct mf_error *err)
{
	char now[40], ver[32], schema[16], rel[64];
	int rc, v;
	mf_time_format((int64_t)time(NULL) * 1000000, now, sizeof(now));
	snprintf(ver, sizeof(ver), "PRAGMA user_version = %d", MF_DB_SCHEMA);
	snprintf(schema, sizeof(schema), "%d", MF_DB_SCHEMA);
	/*
	 * 16 KiB pages (SQLite's default is 4): a sample's counters row (some 100 integers) and the
	 * identity index pack tighter, the database 4 % smaller (README "Performance").  Set before
	 * the first table; a database made with other pages keeps them.
	 */
	if ((rc = mf_db_exec(db, "PRAGMA page_size = 16384", "setting the page size", err)) != 0 ||
	    (rc = mf_db_exec(db, "BEGIN IMMEDIATE", "starting to create the schema", err)) != 0)
		return rc;
	/* Schema 1, then each migration: one text per change, whether created or migrated. */
	rc = run_script(db, "db/schema-1.sql", err);
	for (v = 2; !rc && v <= MF_DB_SCHEMA; v++) {
		snprintf(rel, sizeof(rel), "db/migrate-%d.sql", v);
		rc = run_script(db, rel, err);
	}
	if (rc == 0 && (rc = mf_db_meta_set(db, "schema", schema, err)) == 0 &&
	    (rc = mf_db_meta_set(db, "created", now, err)) == 0 &&
	    (rc = mf_db_meta_set(db, "created_by", "mfstat " MFSTAT_VERSION, err)) == 0 &&
	    (rc = mf_db_exec(db, ver, "setting the schema version", err)) == 0 &&
	    (rc = mf_db_exec(db, "COMMIT", "creating the schema", err)) == 0) {
		db->version = MF_DB_SCHEMA;
		return 0;
	}
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* Takes db from its version up to MF_DB_SCHEMA with data/db/migrate-N.sql, in one transaction. */
static int migrate(struct mf_db *db, struct mf_error *err)
{
	char rel[64], ver[64];
	int v, rc;
	if ((rc = mf_db_exec(db, "BEGIN IMMEDIATE", "starting to migrate the schema", err)) != 0)
		return rc;
	for (v = db->version + 1; v <= MF_DB_SCHEMA; v++) {
		snprintf(rel, sizeof(rel), "db/migrate-%d.sql", v);
		snprintf(ver, sizeof(ver), "%d", v);
		if ((rc = run_script(db, rel, err)) != 0 || (rc = mf_db_meta_set(db, "schema", ver, err)) != 0)
			break;
	}
	if (!rc) {
		snprintf(ver, sizeof(ver), "PRAGMA user_version = %d", MF_DB_SCHEMA);
		if ((rc = mf_db_exec(db, ver, "setting the schema version", err)) == 0 &&
		    (rc = mf_db_exec(db, "COMMIT", "migrating the schema", err)) == 0) {
			db->version = MF_DB_SCHEMA;
			return 0;
		}
	}
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* Checks the opened file: creates, migrates, or refuses it. */
static int settle(struct mf_db *db, enum mf_db_mode mode, struct mf_error *err)
{
	long long version, tables, meta;
	int rc;
	if ((rc = query_int(db, "PRAGMA user_version", &version, err)) != 0 ||
	    (rc = query_int(db, "SELECT count(*) FROM sqlite_schema", &tables, err)) != 0 ||
	    (rc = query_int(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'meta'", &meta,
			    err)) != 0)
		return rc;
	if (version == 0 && tables == 0) {
		if (mode != MF_DB_WRITE)
			return mf_error_set(err, MF_EFORMAT, db->path, 0, 0,
					    "an empty database, not an mfstat database (mfstat db import creates one)");
		return create_schema(db, err);
	}
	if (!meta || version <= 0)
		return mf_error_set(err, MF_EFORMAT, db->path, 0, 0,
				    "an SQLite database, but not an mfstat database (it has no meta table or schema "
				    "version): mfstat does not write into it");
	if (version > MF_DB_SCHEMA)
		return mf_error_set(err, MF_EFORMAT, db->path, 0, 0,
				    "schema version %lld is newer than this mfstat reads (%d): use a newer mfstat",
				    version, MF_DB_SCHEMA);
	db->version = (int)version;
	/* Read as it is (the readers know every version's tables); migrated when written. */
	if (version < MF_DB_SCHEMA && mode != MF_DB_READ)
		return migrate(db, err);
	return 0;
}

/*
 * A write killed in its transaction (kill -9, a crash, power) leaves a hot journal beside the
 * file, which only a connection that may write rolls back: read only, SQLite refuses the file
 * ("attempt to write a readonly database").  Reading it is then preceded by that roll-back, when
 * this process may write there; the file is as it was before the transaction (docs/db.md
 * "Transactions").
 */
static void recover(const char *path)
{
	char *journal = malloc(strlen(path) + sizeof("-journal"));
	sqlite3 *h = NULL;
	if (!journal)
		return;
	strcpy(journal, path);
	strcat(journal, "-journal");
	if (access(journal, F_OK) == 0 && access(path, W_OK) == 0 &&
	    sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK) {
		sqlite3_busy_timeout(h, 10000);
		sqlite3_exec(h, "SELECT COUNT(*) FROM sqlite_master", NULL, NULL, NULL);
	}
	sqlite3_close(h);
	free(journal);
}

int mf_db_open(struct mf_db **out, const char *path, enum mf_db_mode mode, struct mf_error *err)
{
	struct mf_db *db = calloc(1, sizeof(*db));
	int flags = mode == MF_DB_READ     ? SQLITE_OPEN_READONLY
		    : mode == MF_DB_UPDATE ? SQLITE_OPEN_READWRITE
					   : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	struct stat sb;
	int rc;
	*out = NULL;
	if (!db || !(db->path = strdup(path))) {
		free(db);
		return mf_error_nomem(err, path, 0, "opening the database");
	}
	if (mode != MF_DB_WRITE && stat(path, &sb) != 0) {
		rc = mf_error_set(err, MF_EIO, path, 0, 0, "cannot open the database: %s", strerror(errno));
		mf_db_close(db);
		return rc;
	}
	if (mode == MF_DB_READ)
		recover(path);
	if (sqlite3_open_v2(path, &db->h, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = mf_db_fail(db,
				mode == MF_DB_READ ? "cannot open the database" : "cannot open or create the database",
				err);
		mf_db_close(db);
		return rc;
	}
	sqlite3_extended_result_codes(db->h, 1);
	sqlite3_busy_timeout(db->h, 10000); /* another import holding the file: wait, then say so */
	if ((rc = settle(db, mode, err)) != 0) {
		mf_db_close(db);
		return rc;
	}
	*out = db;
	return 0;
}

void mf_db_close(struct mf_db *db)
{
	if (!db)
		return;
	if (db->h) {
		if (!sqlite3_get_autocommit(db->h))
			sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_close_v2(db->h);
	}
	free(db->path);
	free(db);
}
