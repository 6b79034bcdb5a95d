/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_DB_H
#define MFSTAT_DB_H

#include <stdbool.h>
#include <stddef.h>

#include "mfstat/base/error.h"

/*
 * The performance database: one SQLite file that holds every sample imported once
 * (docs/db.md is the contract, data/db/schema-1.sql the DDL).  This part opens, creates
 * and migrates the file; importing and reading are beside it.
 */

/* The schema version this mfstat writes and reads (PRAGMA user_version). */
#define MF_DB_SCHEMA 2

struct mf_db;

enum mf_db_mode {
	MF_DB_READ = 0,  /* an existing database, read only */
	MF_DB_WRITE = 1, /* read and write; a missing file is created with the schema */
	MF_DB_UPDATE = 2 /* read and write an existing mfstat database (roll-ups, pruning): never created */
};

/*
 * Opens the database at path.  MF_DB_WRITE creates a missing file (and a file of no bytes) with
 * schema MF_DB_SCHEMA and migrates an older one; MF_DB_UPDATE migrates but creates nothing (a
 * missing or empty file is refused as for reading); MF_DB_READ never changes the file.  Returns 0,
 * or an error naming path: MF_EIO (cannot be opened or created, not an SQLite file), MF_EFORMAT
 * (an SQLite file that is not an mfstat database, a newer schema, an older one opened for reading
 * that lacks what the reader needs), MF_ENOMEM.
 */
int mf_db_open(struct mf_db **out, const char *path, enum mf_db_mode mode, struct mf_error *err);

/* Closes db (NULL is a no-op).  A transaction still open is rolled back. */
void mf_db_close(struct mf_db *db);

/* The path it was opened with. */
const char *mf_db_path(const struct mf_db *db);

/* The schema version of the file as opened (MF_DB_SCHEMA once migrated). */
int mf_db_version(const struct mf_db *db);

/* The sqlite3 handle, for the db layer's other parts and for tests (the caller does not close it). */
struct sqlite3 *mf_db_sqlite(struct mf_db *db);

/*
 * The value of key in the meta table into buf (n bytes, NUL-terminated, cut to fit): 1 found,
 * 0 not there, or an error (MF_EIO, err says which statement failed).
 */
int mf_db_meta_get(struct mf_db *db, const char *key, char *buf, size_t n, struct mf_error *err);
/* Sets key to value in the meta table (within the caller's transaction, if any): 0 or MF_EIO. */
int mf_db_meta_set(struct mf_db *db, const char *key, const char *value, struct mf_error *err);

/*
 * Runs sql (one or more statements, no rows expected) on db: 0, or MF_EIO with err naming the
 * database file, what was being done (what) and SQLite's message.
 */
int mf_db_exec(struct mf_db *db, const char *sql, const char *what, struct mf_error *err);

struct mf_strbuf;
/* Appends prefix and name to sb as one SQL identifier in double quotes (a double quote doubled). */
void mf_db_sql_ident(struct mf_strbuf *sb, const char *prefix, const char *name);
/* Appends s to sb as an SQL string literal in single quotes (a single quote doubled). */
void mf_db_sql_text(struct mf_strbuf *sb, const char *s);

/* Sets err to MF_EIO naming db's file, what was being done and SQLite's last message; returns MF_EIO. */
int mf_db_fail(struct mf_db *db, const char *what, struct mf_error *err);

#endif
