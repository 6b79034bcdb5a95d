/* SPDX-License-Identifier: MIT */
/*
 * mfstat db import's library part (src/lib/db/import.c): samples written once with their
 * identity and counters, a file's bytes recognised by their hash, a copy with the same counters
 * known, one with others a data error that rolls its file back and keeps the files before it, a
 * delta of 2^63 refused, and the columns an older knowledge base did not have added.
 */
#include <sqlite3.h>
#include <unistd.h>

#include "mfstat/db/import.h"
#include "testutil.h"

MF_TEST_KB_FIXTURE()

static const char head[] = "system,cpu,pool,machine,interval_start,interval_seconds,B0,B1\n";

static char *csv(const char *rows)
{
	char buf[2048];
	snprintf(buf, sizeof(buf), "%s%s", head, rows);
	return test_tmpfile(buf, strlen(buf));
}

static long long one_int(struct mf_db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	long long v;
	assert_int_equal(sqlite3_prepare_v2(mf_db_sqlite(db), sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static struct mf_db *new_db(char *path, size_t n)
{
	struct mf_db *db = NULL;
	struct mf_error e;
	int fd;
	snprintf(path, n, "/tmp/mfstat-test-import-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(mf_db_open(&db, path, MF_DB_WRITE, &e), 0);
	return db;
}

static int import(struct mf_db *db, const char *const *paths, size_t n, struct mf_db_import_totals *t,
		  struct mf_error *e)
{
	struct mf_db_import_opts o;
	memset(&o, 0, sizeof(o));
	o.kb = kb;
	o.kb_name = "embedded";
	return mf_db_import(db, paths, n, &o, t, e);
}

static void once_and_known(void **state)
{
	char path[64];
	struct mf_db *db = new_db(path, sizeof(path));
	char *a = csv("S,0,GCP,3931,2025-01-01T00:00:00Z,60,100,50\nS,1,GCP,3931,2025-01-01T00:00:00Z,60,200,70\n");
	char *b = csv("S,1,GCP,3931,2025-01-01T00:00:00.4Z,60,200,70\nS,2,GCP,3931,2025-01-01T00:00:00Z,60,300,90\n");
	const char *paths[] = {a, b, a};
	struct mf_db_import_totals t;
	struct mf_error e;
	(void)state;
	assert_int_equal(import(db, paths, 3, &t, &e), 0);
	assert_int_equal(t.files, 2);
	assert_int_equal(t.already, 1);
	assert_int_equal(t.samples_new, 3);
	assert_int_equal(t.samples_known, 1);
	assert_int_equal(one_int(db, "SELECT COUNT(*) FROM sample"), 3);
	assert_int_equal(one_int(db, "SELECT SUM(B0) FROM counters_z16"), 600);
	assert_int_equal(one_int(db, "SELECT COUNT(*) FROM counters_z16 WHERE B2 IS NULL"), 3);
	assert_int_equal(one_int(db, "SELECT key_start_s FROM sample WHERE cpu = 1"), 1735689600);
	assert_int_equal(one_int(db, "SELECT samples_known FROM file WHERE id = 2"), 1);
	assert_int_equal(one_int(db,
				 "SELECT COUNT(*) FROM counter WHERE family = 'z16' AND name = 'B0' AND number = 0 "
				 "AND set_name = 'basic'"),
			 1);
	mf_db_close(db);
	unlink(path);
	unlink(a);
	unlink(b);
}

static void conflict_rolls_back(void **state)
{
	char path[64];
	struct mf_db *db = new_db(path, sizeof(path));
	char *a = csv("S,0,GCP,3931,2025-01-01T00:00:00Z,60,100,50\n");
	char *b = csv("S,3,GCP,3931,2025-01-01T00:00:00Z,60,1,1\nS,0,GCP,3931,2025-01-01T00:00:00Z,60,101,50\n");
	char *c = csv("S,4,GCP,3931,2025-01-01T00:00:00Z,60,1,1\n");
	const char *paths[] = {a, b, c};
	struct mf_db_import_totals t;
	struct mf_error e;
	(void)state;
	assert_int_equal(import(db, paths, 3, &t, &e), MF_EFORMAT);
	assert_int_equal(e.line, 3);
	assert_non_null(strstr(e.msg, "different counters"));
	assert_non_null(strstr(e.msg, a));
	assert_non_null(strstr(e.msg, "line 2"));
	assert_int_equal(t.files, 1);
	assert_int_equal(t.failed, 1);
	assert_int_equal(one_int(db, "SELECT COUNT(*) FROM file"), 1);
	assert_int_equal(one_int(db, "SELECT COUNT(*) FROM sample"), 1);
	mf_db_close(db);
	unlink(path);
	unlink(a);
	unlink(b);
	unlink(c);
}

static void delta_too_big(void **state)
{
	char path[64];
	struct mf_db *db = new_db(path, sizeof(path));
	char *a =
		csv("S,0,GCP,3931,2025-01-01T00:00:00Z,60,9223372036854775807,1\n"
		    "S,1,GCP,3931,2025-01-01T00:00:00Z,60,9223372036854775808,1\n");
	const char *paths[] = {a};
	struct mf_db_import_totals t;
	struct mf_error e;
	(void)state;
	assert_int_equal(import(db, paths, 1, &t, &e), MF_EFORMAT);
	assert_int_equal(e.line, 3);
	assert_non_null(strstr(e.msg, "2^63"));
	assert_int_equal(one_int(db, "SELECT COUNT(*) FROM sample"), 0);
	mf_db_close(db);
	unlink(path);
	unlink(a);
}

static void adds_columns(void **state)
{
	char path[64];
	struct mf_db *db = new_db(path, sizeof(path));
	char *a = csv("S,0,GCP,3931,2025-01-01T00:00:00Z,60,100,50\n");
	const char *paths[] = {a};
	struct mf_db_import_totals t;
	struct mf_error e;
	(void)state;
	/* As an older knowledge base left it: B0 only. */
	assert_int_equal(mf_db_exec(db, "CREATE TABLE counters_z16 (id INTEGER PRIMARY KEY, \"B0\" INTEGER)", "test",
				    &e),
			 0);
	assert_int_equal(import(db, paths, 1, &t, &e), 0);
	assert_int_equal(one_int(db, "SELECT B1 FROM counters_z16"), 50);
	assert_true(one_int(db, "SELECT COUNT(*) FROM pragma_table_info('counters_z16')") > 50);
	mf_db_close(db);
	unlink(path);
	unlink(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(once_and_known),
		cmocka_unit_test(conflict_rolls_back),
		cmocka_unit_test(delta_too_big),
		cmocka_unit_test(adds_columns),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
