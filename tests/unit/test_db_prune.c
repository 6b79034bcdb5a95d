/* SPDX-License-Identifier: MIT */
/*
 * Retention (src/lib/db/prune.c): --keep specs parsed and refused, horizons worked out by hand
 * (calendar months and years end on the month's last day), and a database filled by hand-written
 * SQL from docs/db.md pruned level by level: exactly the rows before each horizon go, with their
 * counters, sums and SMF records; samples without a start and the file table stay; the prune is
 * logged; a dry run changes nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "mfstat/base/timefmt.h"
#include "mfstat/db/db.h"
#include "mfstat/db/prune.h"

static int64_t at(const char *iso)
{
	int64_t us;
	assert_int_equal(mf_time_parse(iso, strlen(iso), &us), 0);
	return us;
}

static void keep_parse(void **state)
{
	struct mf_db_keep k;
	char why[256];
	(void)state;
	mf_db_keep_default(&k);
	assert_string_equal(k.text[MF_DB_SAMPLE], "35d");
	assert_string_equal(k.text[MF_DB_HOUR], "400d");
	assert_string_equal(k.text[MF_DB_DAY], "5y");
	assert_true(k.forever[MF_DB_MONTH]);
	assert_int_equal(mf_db_keep_parse("sample=10d,month=3y", &k, why, sizeof(why)), 0);
	assert_string_equal(k.text[MF_DB_SAMPLE], "10d");
	assert_string_equal(k.text[MF_DB_HOUR], "400d"); /* not named: kept */
	assert_string_equal(k.text[MF_DB_MONTH], "3y");
	assert_false(k.forever[MF_DB_MONTH]);
	assert_int_equal(mf_db_keep_parse("day=forever,hour=13w", &k, why, sizeof(why)), 0);
	assert_true(k.forever[MF_DB_DAY]);
	assert_int_equal(k.n[MF_DB_HOUR], 13);
	assert_int_equal(k.unit[MF_DB_HOUR], 'w');
	/* Refused, k unchanged. */
	assert_int_equal(mf_db_keep_parse("samples=10d", &k, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "'samples' is not a level"));
	assert_int_equal(mf_db_keep_parse("sample=10", &k, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "'sample=10': the span of sample"));
	assert_int_equal(mf_db_keep_parse("sample=0d", &k, why, sizeof(why)), -1);
	assert_int_equal(mf_db_keep_parse("sample=10x", &k, why, sizeof(why)), -1);
	assert_int_equal(mf_db_keep_parse("sample=10dd", &k, why, sizeof(why)), -1);
	assert_int_equal(mf_db_keep_parse("sample", &k, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "is not LEVEL=SPAN"));
	assert_int_equal(mf_db_keep_parse("", &k, why, sizeof(why)), -1);
	assert_int_equal(mf_db_keep_parse("sample=10d,hour=2q", &k, why, sizeof(why)), -1);
	assert_string_equal(k.text[MF_DB_SAMPLE], "10d"); /* the good item before a bad one is not taken */
}

static void horizons(void **state)
{
	struct mf_db_keep k;
	char why[128];
	(void)state;
	mf_db_keep_default(&k);
	assert_int_equal(mf_db_keep_parse("sample=35d,hour=2w,day=1m,month=1y", &k, why, sizeof(why)), 0);
	assert_true(mf_db_keep_horizon(&k, MF_DB_SAMPLE, at("2025-03-31T12:00:00Z")) == at("2025-02-24T12:00:00Z"));
	assert_true(mf_db_keep_horizon(&k, MF_DB_HOUR, at("2025-03-31T12:00:00Z")) == at("2025-03-17T12:00:00Z"));
	/* A month back from the 31st of March is the last of February; a year back from 29 February, the 28th. */
	assert_true(mf_db_keep_horizon(&k, MF_DB_DAY, at("2025-03-31T12:00:00Z")) == at("2025-02-28T12:00:00Z"));
	assert_true(mf_db_keep_horizon(&k, MF_DB_DAY, at("2024-03-31T00:15:00Z")) == at("2024-02-29T00:15:00Z"));
	assert_true(mf_db_keep_horizon(&k, MF_DB_MONTH, at("2024-02-29T23:45:00Z")) == at("2023-02-28T23:45:00Z"));
	assert_true(mf_db_keep_horizon(&k, MF_DB_DAY, at("2025-01-15T00:00:00Z")) == at("2024-12-15T00:00:00Z"));
	assert_int_equal(mf_db_keep_parse("month=forever,day=14m", &k, why, sizeof(why)), 0);
	assert_true(mf_db_keep_horizon(&k, MF_DB_MONTH, at("2025-01-15T00:00:00Z")) == INT64_MIN);
	assert_true(mf_db_keep_horizon(&k, MF_DB_DAY, at("2025-01-15T00:00:00Z")) == at("2023-11-15T00:00:00Z"));
}

static char path[] = "/tmp/mfstat-test-prune.XXXXXX";

static long long q(struct mf_db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	long long v;
	assert_int_equal(sqlite3_prepare_v2(mf_db_sqlite(db), sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void exec(struct mf_db *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(mf_db_sqlite(db), sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

/*
 * Ten days of one sample a day at noon UTC (2025-03-01 to 03-10), one sample without a start,
 * hour roll-ups at the same times, a day roll-up each day, a month roll-up for February and
 * March, an SMF record each day; all written as docs/db.md says, by hand.
 */
static void fill(struct mf_db *db)
{
	char sql[1024];
	int d;
	exec(db,
	     "INSERT INTO file (id, name, size, sha256, format, imported_unix, imported, samples_new, "
	     "samples_known, skipped) VALUES (1, 'a.smf', 100, 'aa', 'smf', 0, '1970-01-01T00:00:00Z', 11, 0, 0)");
	exec(db, "CREATE TABLE counters_z16 (id INTEGER PRIMARY KEY, \"B0\" INTEGER, \"B1\" INTEGER)");
	exec(db, "CREATE TABLE rollup_z16 (id INTEGER PRIMARY KEY, \"B0\" INTEGER, \"B1\" INTEGER)");
	for (d = 1; d <= 10; d++) {
		int64_t us = at("2025-03-01T12:00:00Z") + (int64_t)(d - 1) * 86400000000;
		snprintf(sql, sizeof(sql),
			 "INSERT INTO sample (id, system, lpar, key_lpar, pool, cpu, start_us, seconds, key_start_s, "
			 "key_len_s, "
			 "anon, "
			 "family, cpsp_nominal, user_only, lpar_joined, file) VALUES (%d, 'SYSA', '', '', 'GCP', 0, "
			 "%lld, "
			 "900, "
			 "%lld, 900, 0, 'z16', 0, 0, 0, 1);"
			 "INSERT INTO counters_z16 VALUES (%d, %d, %d);"
			 "INSERT INTO smf_record (type, subtype, system, time_us, sha256, file, offset, record) VALUES "
			 "(70, 1, 'SYSA', %lld, 'r%d', 1, %d, x'00');"
			 "INSERT INTO rollup (id, level, system, lpar, pool, family, bucket_us, utc_offset_s, "
			 "offset_known, "
			 "bucket, samples, cpus, first_us, last_us, rmf_samples, partial) VALUES (%d, 'hour', 'SYSA', "
			 "'', "
			 "'GCP', 'z16', %lld, 0, 0, 'h', 1, 1, %lld, %lld, 0, ''), (%d, 'day', 'SYSA', '', 'GCP', "
			 "'z16', "
			 "%lld, 0, 0, 'd', 1, 1, %lld, %lld, 0, '');"
			 "INSERT INTO rollup_z16 VALUES (%d, %d, %d), (%d, %d, %d);",
			 d, (long long)us, (long long)(us / 1000000), d, 1000 * d, 100 * d, (long long)us, d, d * 10,
			 100 + d, (long long)us, (long long)us, (long long)us, 200 + d,
			 (long long)(us - 12 * 3600000000LL), (long long)us, (long long)us, 100 + d, 1000 * d, 100 * d,
			 200 + d, 1000 * d, 100 * d);
		exec(db, sql);
	}
	exec(db,
	     "INSERT INTO sample (id, system, lpar, key_lpar, pool, cpu, start_us, seconds, key_start_s, key_len_s, "
	     "anon, "
	     "family, cpsp_nominal, user_only, lpar_joined, file) VALUES (11, '', '', '', '', -1, NULL, NULL, 0, -1, "
	     "4294967297, 'z16', 0, 0, 0, 1); INSERT INTO counters_z16 VALUES (11, 5, 5)");
	snprintf(sql, sizeof(sql),
		 "INSERT INTO rollup (id, level, system, lpar, pool, family, bucket_us, utc_offset_s, offset_known, "
		 "bucket, "
		 "samples, cpus, first_us, last_us, rmf_samples, partial) VALUES (301, 'month', 'SYSA', '', 'GCP', "
		 "'z16', "
		 "%lld, 0, 0, '2025-02', 1, 1, %lld, %lld, 0, ''), (302, 'month', 'SYSA', '', 'GCP', 'z16', %lld, 0, "
		 "0, "
		 "'2025-03', 10, 1, %lld, %lld, 0, '');"
		 "INSERT INTO rollup_z16 VALUES (301, 1, 1), (302, 55000, 5500)",
		 (long long)at("2025-02-01T00:00:00Z"), (long long)at("2025-02-01T00:00:00Z"),
		 (long long)at("2025-02-01T00:00:00Z"), (long long)at("2025-03-01T00:00:00Z"),
		 (long long)at("2025-03-01T12:00:00Z"), (long long)at("2025-03-10T12:00:00Z"));
	exec(db, sql);
}

static void prunes_levels(void **state)
{
	struct mf_db *db = NULL;
	struct mf_error e;
	struct mf_db_keep k;
	struct mf_db_pruned p;
	char why[128];
	(void)state;
	assert_int_equal(mf_db_open(&db, path, MF_DB_WRITE, &e), 0);
	/* Empty: nothing to count back from, nothing pruned. */
	mf_db_keep_default(&k);
	assert_int_equal(mf_db_prune(db, &k, false, &p, &e), 0);
	assert_false(p.has_ref);
	fill(db);
	/* sample=3d: the newest start is 03-10 12:00, so samples before 03-07 12:00 (six) go. */
	assert_int_equal(mf_db_keep_parse("sample=3d,hour=5d,day=1w,month=1m", &k, why, sizeof(why)), 0);
	assert_int_equal(mf_db_prune(db, &k, true, &p, &e), 0); /* dry run first */
	assert_true(p.has_ref);
	assert_true(p.ref_us == at("2025-03-10T12:00:00Z"));
	assert_int_equal(p.rows[MF_DB_SAMPLE], 6);
	assert_int_equal(p.smf_records, 6);
	assert_int_equal(p.rows[MF_DB_HOUR], 4);  /* 03-01 to 03-04 at noon, before 03-05 12:00 */
	assert_int_equal(p.rows[MF_DB_DAY], 3);   /* day buckets start at midnight: 03-01, 02, 03 before 03-03 12:00 */
	assert_int_equal(p.rows[MF_DB_MONTH], 1); /* February's bucket starts before 02-10 12:00 */
	assert_int_equal(q(db, "SELECT count(*) FROM sample"), 11);
	assert_int_equal(q(db, "SELECT count(*) FROM prune_log"), 0);
	/* Now for real. */
	assert_int_equal(mf_db_prune(db, &k, false, &p, &e), 0);
	assert_int_equal(p.rows[MF_DB_SAMPLE], 6);
	assert_int_equal(q(db, "SELECT count(*) FROM sample"), 5); /* four dated and the one without a start */
	assert_int_equal(q(db, "SELECT count(*) FROM sample WHERE start_us IS NULL"), 1);
	assert_int_equal(q(db, "SELECT min(start_us) FROM sample"), at("2025-03-07T12:00:00Z"));
	assert_int_equal(q(db, "SELECT count(*) FROM counters_z16"), 5);
	assert_int_equal(q(db, "SELECT count(*) FROM counters_z16 WHERE id NOT IN (SELECT id FROM sample)"), 0);
	assert_int_equal(q(db, "SELECT count(*) FROM smf_record"), 4);
	assert_int_equal(q(db, "SELECT count(*) FROM rollup WHERE level = 'hour'"), 6);
	assert_int_equal(q(db, "SELECT count(*) FROM rollup WHERE level = 'day'"), 7);
	assert_int_equal(q(db, "SELECT count(*) FROM rollup WHERE level = 'month'"), 1);
	assert_int_equal(q(db, "SELECT count(*) FROM rollup_z16 WHERE id NOT IN (SELECT id FROM rollup)"), 0);
	assert_int_equal(q(db, "SELECT count(*) FROM rollup_z16"), 14); /* 22 less 4 + 3 + 1 */
	assert_int_equal(q(db, "SELECT count(*) FROM file"), 1);
	/* Logged: one row per level pruned, with its span and horizon. */
	assert_int_equal(q(db, "SELECT count(*) FROM prune_log"), 4);
	assert_int_equal(q(db, "SELECT rows FROM prune_log WHERE level = 'sample' AND keep = '3d'"), 6);
	assert_int_equal(q(db, "SELECT before_us FROM prune_log WHERE level = 'month'"), at("2025-02-10T12:00:00Z"));
	/* Again: nothing more goes (the newest is still 03-10), nothing more is logged. */
	assert_int_equal(mf_db_prune(db, &k, false, &p, &e), 0);
	assert_int_equal(p.rows[MF_DB_SAMPLE] + p.rows[MF_DB_HOUR] + p.rows[MF_DB_DAY] + p.rows[MF_DB_MONTH], 0);
	assert_int_equal(q(db, "SELECT count(*) FROM prune_log"), 4);
	/* forever keeps a level whole. */
	assert_int_equal(mf_db_keep_parse("sample=forever,hour=forever,day=forever,month=forever", &k, why,
					  sizeof(why)),
			 0);
	assert_int_equal(mf_db_prune(db, &k, false, &p, &e), 0);
	assert_true(p.before_us[MF_DB_SAMPLE] == INT64_MIN);
	assert_int_equal(q(db, "SELECT count(*) FROM sample"), 5);
	mf_db_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keep_parse),
		cmocka_unit_test(horizons),
		cmocka_unit_test(prunes_levels),
	};
	int rc, fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	unlink(path); /* mf_db_open creates it */
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(path);
	return rc;
}
