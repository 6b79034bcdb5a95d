/* SPDX-License-Identifier: MIT */
/*
 * Roll-ups (src/lib/db/rollup.c) over samples written by hand as docs/db.md says: the buckets of
 * each level on the samples' own clock, the sums, CPUs, seconds and the partial counters worked
 * out in the test from the same rows, recomputed in place when run again, only the buckets
 * touched by a range, nothing before the prune horizon, UTC for samples without an offset.
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
#include "mfstat/db/read.h"
#include "mfstat/db/rollup.h"
#include "mfstat/report/select.h"

static int64_t at(const char *iso)
{
	int64_t us;
	assert_int_equal(mf_time_parse(iso, strlen(iso), &us), 0);
	return us;
}

static void buckets(void **state)
{
	(void)state;
	/* 08:40 at +01:00 is in the local hour from 08:00+01:00, 07:00Z. */
	assert_true(mf_db_bucket(MF_DB_HOUR, at("2025-03-04T07:40:00Z"), 3600) == at("2025-03-04T07:00:00Z"));
	/* India, +05:30: the local hour starts at half past a UTC hour. */
	assert_true(mf_db_bucket(MF_DB_HOUR, at("2025-03-04T07:40:00Z"), 19800) == at("2025-03-04T07:30:00Z"));
	assert_true(mf_db_bucket(MF_DB_DAY, at("2025-03-04T23:30:00Z"), 3600) == at("2025-03-04T23:00:00Z"));
	assert_true(mf_db_bucket(MF_DB_DAY, at("2025-03-04T22:30:00Z"), 3600) == at("2025-03-03T23:00:00Z"));
	/* 02:00Z on 1 March at -05:00 is still February there. */
	assert_true(mf_db_bucket(MF_DB_MONTH, at("2025-03-01T02:00:00Z"), -18000) == at("2025-02-01T05:00:00Z"));
	assert_true(mf_db_bucket(MF_DB_MONTH, at("2024-02-29T12:00:00Z"), 0) == at("2024-02-01T00:00:00Z"));
	assert_true(mf_db_bucket(MF_DB_MONTH, at("1969-12-31T12:00:00Z"), 0) == at("1969-12-01T00:00:00Z"));
}

static char path[] = "/tmp/mfstat-test-rollup.XXXXXX";

static void exec(struct mf_db *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(mf_db_sqlite(db), sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

static long long q(struct mf_db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	long long v;
	if (sqlite3_prepare_v2(mf_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(mf_db_sqlite(db)));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void qtext(struct mf_db *db, const char *sql, char *buf, size_t n)
{
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_prepare_v2(mf_db_sqlite(db), sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(buf, n, "%s", sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "(null)");
	sqlite3_finalize(st);
}

static int next_id = 1;

/* A sample of SYSA L1 GCP as docs/db.md has it; off_s INT32_MIN: no offset.  B0, B1 given, P33 if >= 0. */
static void put(struct mf_db *db, int cpu, int64_t start, int32_t off_s, long long b0, long long b1, long long p33)
{
	char sql[1024], off[32] = "NULL", p[32] = "NULL";
	int id = next_id++;
	if (off_s != INT32_MIN)
		snprintf(off, sizeof(off), "%d", off_s);
	if (p33 >= 0)
		snprintf(p, sizeof(p), "%lld", p33);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO sample (id, system, lpar, key_lpar, pool, cpu, start_us, seconds, key_start_s, "
		 "key_len_s, anon, "
		 "family, "
		 "machine, cpsp_mhz, cpsp_nominal, user_only, utc_offset_s, lpar_joined, rmf_busy_s, file) VALUES (%d, "
		 "'SYSA', 'L1', '', 'GCP', %d, %lld, 900, %lld, 900, 0, 'z16', 3931, 5200, 0, 0, %s, 1, %s, 1);"
		 "INSERT INTO counters_z16 (id, \"B0\", \"B1\", \"P33\") VALUES (%d, %lld, %lld, %s)",
		 id, cpu, (long long)start, (long long)(start / 1000000), off, cpu == 0 ? "450.5" : "NULL", id, b0, b1,
		 p);
	exec(db, sql);
}

static void rolls_up(void **state)
{
	struct mf_db *db = NULL;
	struct mf_error e;
	struct mf_db_rolled r;
	char buf[256];
	int64_t t0 = at("2025-03-04T07:30:00Z");
	long long b0[3] = {0, 0, 0}, h;
	int k, cpu;
	(void)state;
	assert_int_equal(mf_db_open(&db, path, MF_DB_WRITE, &e), 0);
	exec(db,
	     "INSERT INTO file (id, name, size, sha256, format, imported_unix, imported, samples_new, samples_known, "
	     "skipped) VALUES (1, 'a.smf', 1, 'aa', 'smf', 0, '1970-01-01T00:00:00Z', 0, 0, 0);"
	     "CREATE TABLE counters_z16 (id INTEGER PRIMARY KEY, \"B0\" INTEGER, \"B1\" INTEGER, \"P33\" INTEGER)");
	/* Two CPUs, eight intervals of 15 minutes from 08:30+01:00: local hours 08 (2), 09 (4), 10 (2). */
	for (k = 0; k < 8; k++)
		for (cpu = 0; cpu < 2; cpu++) {
			long long v = 1000000000LL * (cpu + 1) + k;
			put(db, cpu, t0 + (int64_t)k * 900000000, 3600, v, 10, cpu == 0 ? 7 : -1);
			b0[k < 2 ? 0 : k < 6 ? 1 : 2] += v;
		}
	assert_int_equal(mf_db_rollup(db, true, 0, 0, &r, &e), 0);
	assert_int_equal(r.rows[MF_DB_HOUR], 3);
	assert_int_equal(r.rows[MF_DB_DAY], 1);
	assert_int_equal(r.rows[MF_DB_MONTH], 1);
	assert_int_equal(r.samples, 16);
	assert_int_equal(r.held_back, 0);
	for (h = 0; h < 3; h++) {
		char sql[512];
		long long n = h == 1 ? 8 : 4;
		snprintf(sql, sizeof(sql),
			 "SELECT s.\"B0\" FROM rollup r JOIN rollup_z16 s USING (id) WHERE r.level = 'hour' AND "
			 "r.bucket_us = %lld",
			 (long long)(at("2025-03-04T07:00:00Z") + h * 3600000000LL));
		assert_int_equal(q(db, sql), b0[h]);
		snprintf(sql, sizeof(sql),
			 "SELECT samples * 1000000 + cpus * 100000 + CAST(seconds AS INT) * 10 + (cpu_seconds = 2 * "
			 "seconds) "
			 "FROM rollup WHERE level = 'hour' AND bucket_us = %lld",
			 (long long)(at("2025-03-04T07:00:00Z") + h * 3600000000LL));
		assert_int_equal(q(db, sql), n * 1000000 + 2 * 100000 + (n / 2) * 900 * 10 + 1);
	}
	qtext(db, "SELECT bucket FROM rollup WHERE level = 'hour' ORDER BY bucket_us LIMIT 1", buf, sizeof(buf));
	assert_string_equal(buf, "2025-03-04T08:00:00+01:00");
	qtext(db,
	      "SELECT bucket || ' ' || partial || ' ' || machine || ' ' || cpsp_min || ' ' || rmf_samples || ' ' || "
	      "rmf_busy_s FROM rollup WHERE level = 'day'",
	      buf, sizeof(buf));
	assert_string_equal(buf, "2025-03-04T00:00:00+01:00 P33 3931 5200.0 8 3604.0");
	assert_int_equal(q(db, "SELECT bucket_us FROM rollup WHERE level = 'day'"), at("2025-03-03T23:00:00Z"));
	assert_int_equal(q(db, "SELECT \"P33\" FROM rollup_z16 JOIN rollup USING (id) WHERE level = 'month'"), 56);
	assert_int_equal(q(db, "SELECT \"B1\" FROM rollup_z16 JOIN rollup USING (id) WHERE level = 'month'"), 160);
	assert_int_equal(q(db, "SELECT first_us FROM rollup WHERE level = 'month'"), t0);
	assert_int_equal(q(db, "SELECT last_us FROM rollup WHERE level = 'month'"), t0 + 7 * 900000000LL);

	/* Again: the same rows, replaced, none twice. */
	assert_int_equal(mf_db_rollup(db, true, 0, 0, &r, &e), 0);
	assert_int_equal(q(db, "SELECT count(*) FROM rollup"), 5);
	assert_int_equal(q(db, "SELECT count(*) FROM rollup_z16"), 5);
	assert_int_equal(q(db, "SELECT count(*) FROM rollup_z16 WHERE id NOT IN (SELECT id FROM rollup)"), 0);

	/* A new sample at 11:00+01:00, rolled up by its range: a new hour; the day and month grow. */
	put(db, 1, t0 + 10 * 900000000LL, 3600, 5, 1, -1);
	h = q(db, "SELECT id FROM rollup WHERE level = 'hour' ORDER BY bucket_us LIMIT 1");
	assert_int_equal(mf_db_rollup(db, false, t0 + 10 * 900000000LL, t0 + 10 * 900000000LL + 1, &r, &e), 0);
	assert_int_equal(r.rows[MF_DB_HOUR], 1);
	assert_int_equal(r.rows[MF_DB_DAY], 1);
	assert_int_equal(r.samples, 1);
	assert_int_equal(q(db, "SELECT id FROM rollup WHERE level = 'hour' ORDER BY bucket_us LIMIT 1"),
			 h); /* untouched */
	assert_int_equal(q(db, "SELECT count(*) FROM rollup WHERE level = 'hour'"), 4);
	assert_int_equal(q(db, "SELECT samples FROM rollup WHERE level = 'day'"), 17);
	assert_int_equal(q(db, "SELECT \"B0\" FROM rollup_z16 JOIN rollup USING (id) WHERE level = 'day'"),
			 b0[0] + b0[1] + b0[2] + 5);

	/* Samples without an offset are cut in UTC, labelled so. */
	put(db, 0, at("2025-03-05T23:50:00Z"), INT32_MIN, 1, 1, 1);
	assert_int_equal(mf_db_rollup(db, true, 0, 0, &r, &e), 0);
	qtext(db, "SELECT bucket FROM rollup WHERE level = 'day' AND offset_known = 0", buf, sizeof(buf));
	assert_string_equal(buf, "2025-03-05T00:00:00Z");

	/*
	 * Pruned up to 10:00+01:00 (09:00Z) of the 4th: the hours before it, the 4th and March at +01:00
	 * stay as they were (marked 99 here to show it); the rest is recomputed.
	 */
	exec(db, "UPDATE rollup SET samples = 99 WHERE bucket_us < 1741078800000000");
	snprintf(buf, sizeof(buf),
		 "INSERT INTO prune_log (level, keep, before_us, rows, pruned_unix, pruned) VALUES ('sample', '1d', "
		 "%lld, 0, "
		 "0, "
		 "'x')",
		 (long long)at("2025-03-04T09:00:00Z"));
	exec(db, buf);
	assert_int_equal(mf_db_rollup(db, true, 0, 0, &r, &e), 0);
	assert_int_equal(r.held_back, 16 + 1 - 4 - 1); /* the samples of 08:00 and 09:00 local */
	/* 08:00 and 09:00 local, the 4th, March at +01:00 and March in UTC: all begin before the horizon. */
	assert_int_equal(q(db, "SELECT count(*) FROM rollup WHERE samples = 99"), 5);
	assert_int_equal(q(db, "SELECT samples FROM rollup WHERE level = 'day' AND offset_known = 0"), 1);
	/* 10:00+01:00 (09:00Z) is recomputed: its four samples again. */
	assert_int_equal(q(db, "SELECT samples FROM rollup WHERE level = 'hour' AND bucket_us = 1741078800000000"), 4);
	mf_db_close(db);
}

/* A new database at path with a file row and counters_z16 (B0, B1, P33). */
static struct mf_db *fresh(void)
{
	struct mf_db *db = NULL;
	struct mf_error e;
	unlink(path);
	assert_int_equal(mf_db_open(&db, path, MF_DB_WRITE, &e), 0);
	exec(db,
	     "INSERT INTO file (id, name, size, sha256, format, imported_unix, imported, samples_new, samples_known, "
	     "skipped) VALUES (1, 'a.smf', 1, 'aa', 'smf', 0, '1970-01-01T00:00:00Z', 0, 0, 0);"
	     "CREATE TABLE counters_z16 (id INTEGER PRIMARY KEY, \"B0\" INTEGER, \"B1\" INTEGER, \"P33\" INTEGER)");
	return db;
}

/* The day summer time starts (Europe: 01:00Z on 30 March 2025): the day is two rows, one per offset. */
static void clock_change(void **state)
{
	struct mf_db *db = NULL;
	struct mf_error e;
	struct mf_db_rolled r;
	char buf[256];
	(void)state;
	db = fresh();
	put(db, 0, at("2025-03-30T00:30:00Z"), 3600, 10, 1, 1);
	put(db, 0, at("2025-03-30T01:30:00Z"), 7200, 20, 1, 1);
	assert_int_equal(mf_db_rollup(db, true, 0, 0, &r, &e), 0);
	assert_int_equal(r.rows[MF_DB_HOUR], 2);
	assert_int_equal(r.rows[MF_DB_DAY], 2);
	qtext(db,
	      "SELECT group_concat(bucket, ' ') FROM (SELECT bucket FROM rollup WHERE level = 'hour' ORDER BY "
	      "bucket_us)",
	      buf, sizeof(buf));
	assert_string_equal(buf, "2025-03-30T01:00:00+01:00 2025-03-30T03:00:00+02:00");
	qtext(db,
	      "SELECT group_concat(bucket, ' ') FROM (SELECT bucket FROM rollup WHERE level = 'day' ORDER BY "
	      "bucket_us)",
	      buf, sizeof(buf));
	assert_string_equal(buf, "2025-03-30T00:00:00+02:00 2025-03-30T00:00:00+01:00");
	assert_int_equal(q(db,
			   "SELECT sum(\"B0\") FROM rollup_z16 JOIN rollup USING (id) WHERE level = 'day' AND "
			   "substr(bucket, 1, 10) = '2025-03-30'"),
			 30);
	mf_db_close(db);
}

/* The statements run that scan a level's roll-up rows for mf_db_choose: [level][0] zone, [1] period bound. */
static unsigned scans[MF_DB_NLEVELS][2];

static int count_scans(unsigned what, void *ctx, void *p, void *x)
{
	char *sql = sqlite3_expanded_sql(p);
	int level;
	(void)what, (void)ctx, (void)x;
	for (level = MF_DB_HOUR; sql && level < MF_DB_NLEVELS; level++) {
		char want[96];
		snprintf(want, sizeof(want), "FROM rollup WHERE level = '%s'", mf_db_level_name(level));
		if (!strstr(sql, want))
			continue;
		if (strstr(sql, "SELECT first_us, last_us FROM rollup"))
			scans[level][0]++;
		else if (strstr(sql, "AND last_us >="))
			scans[level][1]++;
	}
	sqlite3_free(sql);
	return 0;
}

/*
 * The automatic choice with no level holding the period asked (every level pruned after --from)
 * asks each roll-up level whether it answers in both of its passes: the zone scan and the
 * --from check over that level's rows run once a level all the same.
 */
static void choose_scans_once(void **state)
{
	struct mf_db *db = NULL;
	struct mf_error e;
	struct mf_db_rolled r;
	struct mf_select sel;
	struct mf_db_ask ask;
	struct mf_db_choice c;
	int level, k;
	(void)state;
	db = fresh();
	for (k = 0; k < 4; k++)
		put(db, 0, at("2025-03-04T08:00:00Z") + (int64_t)k * 900000000, 3600, 10, 1, 1);
	assert_int_equal(mf_db_rollup(db, true, 0, 0, &r, &e), 0);
	for (level = 0; level < MF_DB_NLEVELS; level++) {
		char sql[256];
		snprintf(sql, sizeof(sql),
			 "INSERT INTO prune_log (level, keep, before_us, rows, pruned_unix, pruned) VALUES ('%s', "
			 "'1d', "
			 "%lld, 0, 0, '')",
			 mf_db_level_name(level), (long long)at("2025-03-04T09:30:00Z"));
		exec(db, sql);
	}
	memset(&sel, 0, sizeof(sel));
	sel.has_from = true;
	sel.from_us = at("2025-03-01T00:00:00Z");
	memset(&ask, 0, sizeof(ask));
	ask.sel = &sel;
	ask.level = -1;
	memset(scans, 0, sizeof(scans));
	sqlite3_trace_v2(mf_db_sqlite(db), SQLITE_TRACE_STMT, count_scans, NULL);
	assert_int_equal(mf_db_choose(db, &ask, &c, &e), 0);
	sqlite3_trace_v2(mf_db_sqlite(db), 0, NULL, NULL);
	assert_false(c.held);
	for (level = MF_DB_HOUR; level < MF_DB_NLEVELS; level++) {
		print_message("%s: %u zone scans, %u --from checks\n", mf_db_level_name(level), scans[level][0],
			      scans[level][1]);
		assert_int_equal(scans[level][0], 1);
		assert_int_equal(scans[level][1], 1);
	}
	mf_db_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buckets),
		cmocka_unit_test(rolls_up),
		cmocka_unit_test(clock_change),
		cmocka_unit_test(choose_scans_once),
	};
	int rc, fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	unlink(path);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(path);
	return rc;
}
