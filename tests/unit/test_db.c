/* SPDX-License-Identifier: MIT */
/*
 * The database file (src/lib/db/db.c): created with the current schema and its meta rows,
 * reopened as it is, an older schema read as it is and migrated when written, and refused when it
 * is not an mfstat database or is newer than this mfstat.  Each refusal must leave the file as it
 * was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "mfstat/db/db.h"
#include "base/datafile.h"

static char dir[] = "/tmp/mfstat-test-db.XXXXXX";

static void path_of(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

/* Runs sql on the file at path with sqlite3 itself (no mfstat in between). */
static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *h = NULL;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
}

static long long raw_int(const char *path, const char *sql)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	long long v;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

static void creates_schema(void **state)
{
	char path[256], buf[64];
	struct mf_db *db = NULL;
	struct mf_error e;
	(void)state;
	path_of(path, sizeof(path), "new.db");
	assert_int_equal(mf_db_open(&db, path, MF_DB_WRITE, &e), 0);
	assert_int_equal(mf_db_version(db), MF_DB_SCHEMA);
	assert_int_equal(mf_db_meta_get(db, "schema", buf, sizeof(buf), &e), 1);
	assert_string_equal(buf, "2");
	assert_int_equal(mf_db_meta_get(db, "created_by", buf, sizeof(buf), &e), 1);
	assert_true(strncmp(buf, "mfstat ", 7) == 0);
	assert_int_equal(mf_db_meta_get(db, "no such key", buf, sizeof(buf), &e), 0);
	mf_db_close(db);
	/* What sqlite3 itself sees: the version and the tables of docs/db.md. */
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 2);
	assert_int_equal(raw_int(path, "PRAGMA page_size"), 16384); /* docs/db.md "Files" */
	assert_int_equal(raw_int(path,
				 "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN "
				 "('meta', 'file', 'file_count', 'counter', 'sample', 'smf_record')"),
			 6);
	assert_int_equal(raw_int(path,
				 "SELECT count(*) FROM pragma_index_list('sample') WHERE name = "
				 "'sample_identity' AND \"unique\" = 1"),
			 1);
	/* Reopened for reading: as it is. */
	assert_int_equal(mf_db_open(&db, path, MF_DB_READ, &e), 0);
	assert_int_equal(mf_db_version(db), 2);
	mf_db_close(db);
	unlink(path);
}

static void refuses_newer(void **state)
{
	char path[256];
	struct mf_db *db = NULL;
	struct mf_error e;
	(void)state;
	path_of(path, sizeof(path), "newer.db");
	assert_int_equal(mf_db_open(&db, path, MF_DB_WRITE, &e), 0);
	mf_db_close(db);
	raw_exec(path, "PRAGMA user_version = 7");
	assert_int_equal(mf_db_open(&db, path, MF_DB_WRITE, &e), MF_EFORMAT);
	assert_null(db);
	assert_string_equal(e.file, path);
	assert_non_null(strstr(e.msg, "schema version 7 is newer than this mfstat reads (2)"));
	assert_int_equal(mf_db_open(&db, path, MF_DB_READ, &e), MF_EFORMAT);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 7); /* untouched */
	unlink(path);
}

static void refuses_foreign(void **state)
{
	char path[256];
	struct mf_db *db = NULL;
	struct mf_error e;
	FILE *fp;
	(void)state;
	/* Another program's SQLite database: never written into. */
	path_of(path, sizeof(path), "other.db");
	raw_exec(path, "CREATE TABLE t (x); INSERT INTO t VALUES (1)");
	assert_int_equal(mf_db_open(&db, path, MF_DB_WRITE, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "not an mfstat database"));
	assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_schema"), 1);
	unlink(path);
	/* A text file. */
	path_of(path, sizeof(path), "text.db");
	fp = fopen(path, "w");
	assert_non_null(fp);
	for (int i = 0; i < 100; i++)
		fputs("system,cpu,B0,B1\n", fp);
	fclose(fp);
	assert_int_equal(mf_db_open(&db, path, MF_DB_WRITE, &e), MF_EIO);
	assert_non_null(strstr(e.msg, "not an SQLite database"));
	assert_string_equal(e.file, path);
	unlink(path);
	/* Missing, for reading: not created. */
	path_of(path, sizeof(path), "missing.db");
	assert_int_equal(mf_db_open(&db, path, MF_DB_READ, &e), MF_EIO);
	assert_non_null(strstr(e.msg, "No such file"));
	assert_int_not_equal(access(path, F_OK), 0);
	/* Nor for updating (db rollup, db prune): those never create a database. */
	assert_int_equal(mf_db_open(&db, path, MF_DB_UPDATE, &e), MF_EIO);
	assert_non_null(strstr(e.msg, "No such file"));
	assert_int_not_equal(access(path, F_OK), 0);
	/* An empty file opened for reading: not an mfstat database yet, and left empty. */
	fp = fopen(path, "w");
	fclose(fp);
	assert_int_equal(mf_db_open(&db, path, MF_DB_READ, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "empty database"));
	assert_int_equal(mf_db_open(&db, path, MF_DB_UPDATE, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "empty database"));
	{
		struct stat sb;
		assert_int_equal(stat(path, &sb), 0);
		assert_int_equal(sb.st_size, 0);
	}
	unlink(path);
}

static void older_for_reading(void **state)
{
	char path[256];
	struct mf_db *db = NULL;
	struct mf_error e;
	(void)state;
	/* An mfstat database of a version before this one's (none exists yet: 0 with a meta table). */
	path_of(path, sizeof(path), "old.db");
	raw_exec(path, "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); PRAGMA user_version = 0");
	assert_int_equal(mf_db_open(&db, path, MF_DB_READ, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "not an mfstat database"));
	unlink(path);
}

/* A database of schema 1 (its DDL as embedded), with one roll-up row: read as it is, migrated to 2 when written. */
static void migrates_schema_1(void **state)
{
	char path[256], buf[64];
	struct mf_db *db = NULL;
	struct mf_error e;
	size_t len;
	const char *ddl = mf_datafile_embedded("db/schema-1.sql", &len);
	char *sql;
	(void)state;
	assert_non_null(ddl);
	sql = malloc(len + 1);
	assert_non_null(sql);
	memcpy(sql, ddl, len);
	sql[len] = '\0';
	path_of(path, sizeof(path), "v1.db");
	raw_exec(path, sql);
	free(sql);
	raw_exec(path,
		 "PRAGMA user_version = 1; INSERT INTO meta VALUES ('schema', '1'); INSERT INTO rollup "
		 "(level, system, lpar, pool, family, bucket_us, utc_offset_s, offset_known, bucket, samples, cpus, "
		 "first_us, last_us, rmf_busy_s, rmf_samples, partial) VALUES ('hour', 'SYSA', '', 'GCP', 'z16', 0, 0, "
		 "0, '1970-01-01T00:00+00:00', 4, 4, 0, 0, 2.75, 4, '')");
	assert_int_equal(mf_db_open(&db, path, MF_DB_READ, &e), 0);
	assert_int_equal(mf_db_version(db), 1);
	mf_db_close(db);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM pragma_table_info('rollup') WHERE name = 'rmf_busy_ns'"),
			 0);
	assert_int_equal(mf_db_open(&db, path, MF_DB_UPDATE, &e), 0);
	assert_int_equal(mf_db_version(db), 2);
	assert_int_equal(mf_db_meta_get(db, "schema", buf, sizeof(buf), &e), 1);
	assert_string_equal(buf, "2");
	mf_db_close(db);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 2);
	assert_int_equal(raw_int(path, "SELECT rmf_busy_ns FROM rollup"), 2750000000LL);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(creates_schema),    cmocka_unit_test(refuses_newer),
		cmocka_unit_test(refuses_foreign),   cmocka_unit_test(older_for_reading),
		cmocka_unit_test(migrates_schema_1),
	};
	int rc;
	if (!mkdtemp(dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(dir);
	return rc;
}
