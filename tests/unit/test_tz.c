/* SPDX-License-Identifier: MIT */
/*
 * Time zones and the calendar: IANA zones checked against the C library's own
 * reading of the same files (localtime_r with TZ set, an independent oracle)
 * from 1970 to 2080, past the last transition stored in the files (the POSIX
 * rule of the footer); fixed offsets, local-to-UTC around changes, calendar
 * keys and names worked out by hand, and bad specs and files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "mfstat/base/timefmt.h"
#include "mfstat/base/tz.h"

#define US INT64_C(1000000)

static int64_t at(const char *iso)
{
	int64_t us;
	assert_int_equal(mf_time_parse(iso, strlen(iso), &us), 0);
	return us;
}

static bool have_zone(const char *name)
{
	char path[256];
	FILE *fp;
	snprintf(path, sizeof(path), "/usr/share/zoneinfo/%s", name);
	fp = fopen(path, "rb");
	if (fp)
		fclose(fp);
	return fp != NULL;
}

/* Every 7 h 13 min from 1970 to 2080 (crossing every change at some minute), against localtime_r. */
static void zones_match_libc(void **state)
{
	static const char *const zones[] = {"Europe/Berlin",     "America/New_York",  "Australia/Sydney",
					    "Asia/Kolkata",      "America/St_Johns",  "Pacific/Chatham",
					    "Europe/London",     "America/Sao_Paulo", "Asia/Tehran",
					    "Africa/Casablanca", "Pacific/Apia",      "Europe/Dublin"};
	size_t z, checked = 0, zones_read = 0;
	(void)state;
	for (z = 0; z < sizeof(zones) / sizeof(zones[0]); z++) {
		struct mf_tz *tz;
		struct mf_error e;
		char env[128];
		time_t t;
		if (!have_zone(zones[z]))
			continue;
		assert_int_equal(mf_tz_open(&tz, zones[z], "/usr/share/zoneinfo", &e), 0);
		assert_string_equal(mf_tz_name(tz), zones[z]);
		snprintf(env, sizeof(env), ":/usr/share/zoneinfo/%s", zones[z]);
		setenv("TZ", env, 1);
		tzset();
		for (t = 0; t < (time_t)3471292800; t += 7 * 3600 + 13 * 60) { /* to 2080-01-01 */
			struct tm tm;
			assert_non_null(localtime_r(&t, &tm));
			if (mf_tz_offset(tz, (int64_t)t * US) != (int32_t)tm.tm_gmtoff)
				fail_msg("%s at %lld: mfstat %d, libc %ld", zones[z], (long long)t,
					 (int)mf_tz_offset(tz, (int64_t)t * US), (long)tm.tm_gmtoff);
			checked++;
		}
		zones_read++;
		mf_tz_free(tz);
	}
	unsetenv("TZ");
	tzset();
	if (!zones_read)
		skip();
	assert_true(checked > 100000);
}

static void fixed_and_utc(void **state)
{
	struct mf_tz *tz;
	struct mf_error e;
	char buf[64];
	(void)state;
	assert_int_equal(mf_tz_open(&tz, "+02:00", NULL, &e), 0);
	assert_string_equal(mf_tz_name(tz), "+02:00");
	assert_int_equal(mf_tz_offset(tz, 0), 7200);
	assert_false(mf_tz_is_utc(tz));
	mf_time_format_at(at("2025-04-10T08:15:00Z"), mf_tz_offset(tz, 0), false, buf, sizeof(buf));
	assert_string_equal(buf, "2025-04-10T10:15:00+02:00");
	mf_tz_free(tz);
	assert_int_equal(mf_tz_open(&tz, "-0330", NULL, &e), 0);
	assert_string_equal(mf_tz_name(tz), "-03:30");
	assert_int_equal(mf_tz_offset(tz, 0), -12600);
	mf_time_format_at(at("2025-01-01T02:00:00.5Z"), -12600, false, buf, sizeof(buf));
	assert_string_equal(buf, "2024-12-31T22:30:00.500000-03:30");
	/* An offset with seconds (local mean time: Africa/Monrovia until 1972) keeps them. */
	mf_time_format_at(at("1971-06-01T12:00:00Z"), -2670, false, buf, sizeof(buf));
	assert_string_equal(buf, "1971-06-01T11:15:30-00:44:30");
	mf_time_format_at(at("1971-06-01T12:00:00Z"), 2670, false, buf, sizeof(buf));
	assert_string_equal(buf, "1971-06-01T12:44:30+00:44:30");
	mf_time_format_at(-INT64_C(62198755200000000), -2670, false, buf, sizeof(buf)); /* -0001-01-01Z */
	assert_string_equal(buf, "-002-12-31T23:15:30-00:44:30");
	mf_tz_free(tz);
	assert_int_equal(mf_tz_open(&tz, "+05", NULL, &e), 0);
	assert_string_equal(mf_tz_name(tz), "+05:00");
	mf_tz_free(tz);
	assert_int_equal(mf_tz_open(&tz, "UTC", NULL, &e), 0);
	assert_true(mf_tz_is_utc(tz));
	assert_int_equal(mf_tz_offset(tz, at("2025-07-01T00:00:00Z")), 0);
	mf_time_format_at(at("2025-04-10T08:15:00Z"), 0, true, buf, sizeof(buf));
	assert_string_equal(buf, "2025-04-10T08:15:00Z");
	mf_tz_free(tz);
	assert_int_equal(mf_tz_open(&tz, "smf", NULL, &e), 0);
	assert_true(mf_tz_per_record(tz));
	assert_string_equal(mf_tz_name(tz), "smf");
	mf_tz_free(tz);
}

/* Europe/Berlin 2025: summer time from 2025-03-30 01:00Z (02:00 -> 03:00) to 2025-10-26 01:00Z (03:00 -> 02:00). */
static void local_to_utc(void **state)
{
	struct mf_tz *tz;
	struct mf_error e;
	(void)state;
	if (!have_zone("Europe/Berlin"))
		skip();
	assert_int_equal(mf_tz_open(&tz, "Europe/Berlin", NULL, &e), 0);
	assert_int_equal(mf_tz_offset(tz, at("2025-03-30T00:59:59Z")), 3600);
	assert_int_equal(mf_tz_offset(tz, at("2025-03-30T01:00:00Z")), 7200);
	assert_int_equal(mf_tz_offset(tz, at("2025-10-26T00:59:59Z")), 7200);
	assert_int_equal(mf_tz_offset(tz, at("2025-10-26T01:00:00Z")), 3600);
	/* Plain days. */
	assert_int_equal(mf_tz_utc_of_local(tz, at("2025-01-15T00:00:00Z")), at("2025-01-14T23:00:00Z"));
	assert_int_equal(mf_tz_utc_of_local(tz, at("2025-07-15T00:00:00Z")), at("2025-07-14T22:00:00Z"));
	/* Midnight of the change days (before the change). */
	assert_int_equal(mf_tz_utc_of_local(tz, at("2025-03-30T00:00:00Z")), at("2025-03-29T23:00:00Z"));
	assert_int_equal(mf_tz_utc_of_local(tz, at("2025-10-26T00:00:00Z")), at("2025-10-25T22:00:00Z"));
	/* 02:30 on 2025-03-30 does not exist: the offset before the change (+01:00). */
	assert_int_equal(mf_tz_utc_of_local(tz, at("2025-03-30T02:30:00Z")), at("2025-03-30T01:30:00Z"));
	assert_int_equal(mf_tz_utc_of_local(tz, at("2025-03-30T03:30:00Z")), at("2025-03-30T01:30:00Z"));
	/* 02:30 on 2025-10-26 happens twice: the first one (+02:00); 03:30 once (+01:00). */
	assert_int_equal(mf_tz_utc_of_local(tz, at("2025-10-26T02:30:00Z")), at("2025-10-26T00:30:00Z"));
	assert_int_equal(mf_tz_utc_of_local(tz, at("2025-10-26T03:30:00Z")), at("2025-10-26T02:30:00Z"));
	/* 2075, past the transitions stored in the file: the footer's rule (last Sundays of March, October). */
	assert_int_equal(mf_tz_offset(tz, at("2075-03-31T00:59:59Z")), 3600);
	assert_int_equal(mf_tz_offset(tz, at("2075-03-31T01:00:00Z")), 7200);
	assert_int_equal(mf_tz_offset(tz, at("2075-10-27T01:00:00Z")), 3600);
	mf_tz_free(tz);
}

static void calendar(void **state)
{
	char buf[32];
	int64_t thu = at("2025-04-10T08:15:00Z"); /* a Thursday, ISO week 15 */
	(void)state;
	assert_int_equal(mf_cal_weekday(thu), 3);
	assert_int_equal(mf_cal_hour(thu), 8);
	mf_cal_format(MF_CAL_HOUR, mf_cal_key(MF_CAL_HOUR, thu), buf, sizeof(buf));
	assert_string_equal(buf, "2025-04-10T08");
	mf_cal_format(MF_CAL_DAY, mf_cal_key(MF_CAL_DAY, thu), buf, sizeof(buf));
	assert_string_equal(buf, "2025-04-10");
	mf_cal_format(MF_CAL_WEEK, mf_cal_key(MF_CAL_WEEK, thu), buf, sizeof(buf));
	assert_string_equal(buf, "2025-W15");
	assert_int_equal(mf_cal_key(MF_CAL_WEEK, thu), mf_cal_key(MF_CAL_DAY, at("2025-04-07T00:00:00Z")));
	mf_cal_format(MF_CAL_MONTH, mf_cal_key(MF_CAL_MONTH, thu), buf, sizeof(buf));
	assert_string_equal(buf, "2025-04");
	mf_cal_format(MF_CAL_HOUR_OF_DAY, mf_cal_key(MF_CAL_HOUR_OF_DAY, thu), buf, sizeof(buf));
	assert_string_equal(buf, "08");
	mf_cal_format(MF_CAL_WEEKDAY, mf_cal_key(MF_CAL_WEEKDAY, thu), buf, sizeof(buf));
	assert_string_equal(buf, "Thu");
	/* ISO weeks at year ends: 2021-01-03 (Sunday) is in 2020-W53, 2024-12-30 (Monday) in 2025-W01. */
	mf_cal_format(MF_CAL_WEEK, mf_cal_key(MF_CAL_WEEK, at("2021-01-03T23:59:59Z")), buf, sizeof(buf));
	assert_string_equal(buf, "2020-W53");
	mf_cal_format(MF_CAL_WEEK, mf_cal_key(MF_CAL_WEEK, at("2024-12-30T00:00:00Z")), buf, sizeof(buf));
	assert_string_equal(buf, "2025-W01");
	mf_cal_format(MF_CAL_WEEKDAY, mf_cal_key(MF_CAL_WEEKDAY, at("2021-01-03T12:00:00Z")), buf, sizeof(buf));
	assert_string_equal(buf, "Sun");
	/* Before 1970: floor, not truncation. */
	mf_cal_format(MF_CAL_HOUR, mf_cal_key(MF_CAL_HOUR, at("1969-12-31T23:30:00Z")), buf, sizeof(buf));
	assert_string_equal(buf, "1969-12-31T23");
	mf_cal_format(MF_CAL_MONTH, mf_cal_key(MF_CAL_MONTH, at("1969-12-31T23:30:00Z")), buf, sizeof(buf));
	assert_string_equal(buf, "1969-12");
	assert_int_equal(mf_cal_weekday(at("1969-12-31T23:30:00Z")), 2); /* a Wednesday */
	assert_int_equal(mf_cal_hour(at("1969-12-31T23:30:00Z")), 23);
	/* Keys sort in calendar order across a year. */
	assert_true(mf_cal_key(MF_CAL_MONTH, at("2024-12-31T00:00:00Z")) < mf_cal_key(MF_CAL_MONTH, thu));
}

/* --by hour keeps the offset: the repeated hour is two keys, in time order, each labelled with its offset. */
static void hour_keys(void **state)
{
	char buf[48];
	/* 2025-10-26 in Berlin: 00:00Z is 02:00+02:00, 01:00Z is 02:00+01:00, 02:00Z is 03:00+01:00. */
	int64_t a = mf_cal_hour_key(at("2025-10-26T02:00:00Z"), 7200);
	int64_t b = mf_cal_hour_key(at("2025-10-26T02:59:59Z"), 7200);
	int64_t c = mf_cal_hour_key(at("2025-10-26T02:00:00Z"), 3600);
	int64_t d = mf_cal_hour_key(at("2025-10-26T03:00:00Z"), 3600);
	(void)state;
	assert_true(a == b);
	assert_true(a < c && c < d);
	mf_cal_hour_format(a, false, buf, sizeof(buf));
	assert_string_equal(buf, "2025-10-26T02:00+02:00");
	mf_cal_hour_format(c, false, buf, sizeof(buf));
	assert_string_equal(buf, "2025-10-26T02:00+01:00");
	mf_cal_hour_format(mf_cal_hour_key(at("2025-11-02T01:00:00Z"), -18000), false, buf, sizeof(buf));
	assert_string_equal(buf, "2025-11-02T01:00-05:00");
	mf_cal_hour_format(mf_cal_hour_key(at("2025-04-07T05:30:00Z"), 19800), false, buf, sizeof(buf));
	assert_string_equal(buf, "2025-04-07T05:00+05:30");
	/* An offset of seconds (local mean time) keeps them; UTC keeps the short label. */
	mf_cal_hour_format(mf_cal_hour_key(at("1890-01-01T00:53:28Z"), 3208), false, buf, sizeof(buf));
	assert_string_equal(buf, "1890-01-01T00:00+00:53:28");
	mf_cal_hour_format(mf_cal_hour_key(at("1969-12-31T23:30:00Z"), 0), true, buf, sizeof(buf));
	assert_string_equal(buf, "1969-12-31T23");
	mf_cal_hour_format(mf_cal_hour_key(at("1969-12-31T23:30:00Z"), 0), false, buf, sizeof(buf));
	assert_string_equal(buf, "1969-12-31T23:00+00:00");
}

static void bad_specs(void **state)
{
	static const char *const bad[] =
		{"",      "Mars/Olympus_Mons", "../etc/passwd", "/etc/localtime", "+15:00", "+02:60", "+2",
		 "+02:0", "Europe//Berlin",    "Europe/Berlin/"};
	struct mf_tz *tz;
	struct mf_error e;
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(mf_tz_open(&tz, bad[i], "/usr/share/zoneinfo", &e), MF_EUSAGE);
		assert_null(tz);
		assert_non_null(strstr(e.msg, "--tz"));
	}
	/* A zone of wall-clock times (--perf-tz): the same specs but smf, the messages naming it. */
	assert_int_equal(mf_tz_open_wall(&tz, "smf", NULL, "--perf-tz", &e), MF_EUSAGE);
	assert_null(tz);
	assert_string_equal(e.msg,
			    "--perf-tz: 'smf' is the offset each SMF record carries, not a zone of wall-clock "
			    "times (give UTC, +hh:mm, -hh:mm or a time zone name such as Europe/Berlin)");
	assert_int_equal(mf_tz_open_wall(&tz, "+15:00", NULL, "--perf-tz", &e), MF_EUSAGE);
	assert_non_null(strstr(e.msg, "--perf-tz: '+15:00' is not an offset"));
	assert_int_equal(mf_tz_open_wall(&tz, "+05:30", NULL, "--perf-tz", &e), 0);
	assert_int_equal(mf_tz_offset(tz, 0), 19800);
	mf_tz_free(tz);
	assert_int_equal(mf_tz_open(&tz, "Mars", "/usr/share/zoneinfo", &e), MF_EUSAGE);
	assert_non_null(strstr(e.msg, "(give UTC, +hh:mm, -hh:mm, smf or a time zone name such as Europe/Berlin)"));
}

/* Zone files cut short or with a bad index: MF_EFORMAT naming the file and the offset. */
static void bad_files(void **state)
{
	char dir[] = "/tmp/mfstat-tz-XXXXXX", path[300];
	unsigned char buf[4096];
	struct mf_tz *tz;
	struct mf_error e;
	size_t n;
	FILE *fp;
	(void)state;
	if (!have_zone("Europe/Berlin"))
		skip();
	assert_non_null(mkdtemp(dir));
	fp = fopen("/usr/share/zoneinfo/Europe/Berlin", "rb");
	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	assert_true(n > 100);
	/* Cut after the first header and a few bytes. */
	snprintf(path, sizeof(path), "%s/Cut", dir);
	fp = fopen(path, "wb");
	fwrite(buf, 1, 60, fp);
	fclose(fp);
	assert_int_equal(mf_tz_open(&tz, "Cut", dir, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "TZif"));
	assert_non_null(strstr(e.file, "Cut"));
	assert_int_equal(e.offset, 44);
	remove(path);
	/* Not TZif at all. */
	snprintf(path, sizeof(path), "%s/Text", dir);
	fp = fopen(path, "wb");
	fputs("Europe/Berlin\n", fp);
	fclose(fp);
	assert_int_equal(mf_tz_open(&tz, "Text", dir, &e), MF_EFORMAT);
	assert_int_equal(e.offset, 0);
	remove(path);
	rmdir(dir);
}

/* The zone of this machine (mf_tz_open_local): $TZ in each of its forms, else the localtime file. */
static void local_zone(void **state)
{
	static const struct {
		const char *env;
		const char *name;
		int32_t winter, summer; /* offsets at 2025-01-15T12:00Z and 2025-07-15T12:00Z */
	} ok[] = {
		{"Europe/Berlin", "Europe/Berlin", 3600, 7200},
		{":Europe/Berlin", "Europe/Berlin", 3600, 7200},
		{":/usr/share/zoneinfo/America/New_York", "America/New_York", -18000, -14400},
		{"/usr/share/zoneinfo/America/New_York", "America/New_York", -18000, -14400},
		{"CET-1CEST,M3.5.0,M10.5.0/3", "CET-1CEST,M3.5.0,M10.5.0/3", 3600, 7200},
		{"JST-9", "JST-9", 32400, 32400},
		{"<+0530>-5:30", "<+0530>-5:30", 19800, 19800},
		{"", "UTC", 0, 0},
		{":UTC", "UTC", 0, 0},
	};
	struct mf_tz *tz;
	struct mf_error e;
	char from[128], dir[] = "/tmp/mfstat-tz-XXXXXX", link[160], none[160];
	size_t i;
	(void)state;
	if (!have_zone("Europe/Berlin") || !have_zone("America/New_York"))
		skip();
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (mf_tz_open_local(&tz, ok[i].env, "/nonexistent", "/usr/share/zoneinfo", from, sizeof(from), &e))
			fail_msg("TZ=%s: %s", ok[i].env, e.msg);
		assert_string_equal(from, "$TZ");
		assert_string_equal(mf_tz_name(tz), ok[i].name);
		assert_int_equal(mf_tz_offset(tz, at("2025-01-15T12:00:00Z")), ok[i].winter);
		assert_int_equal(mf_tz_offset(tz, at("2025-07-15T12:00:00Z")), ok[i].summer);
		mf_tz_free(tz);
	}
	/* The POSIX rule against the C library's reading of the same TZ, hour by hour over 2024-2026. */
	assert_int_equal(mf_tz_open_local(&tz, "CET-1CEST,M3.5.0,M10.5.0/3", NULL, NULL, from, sizeof(from), &e), 0);
	setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
	tzset();
	{
		time_t t;
		for (t = (time_t)1704067200; t < (time_t)1798761600; t += 3600 - 7) {
			struct tm tm;
			assert_non_null(localtime_r(&t, &tm));
			if (mf_tz_offset(tz, (int64_t)t * US) != (int32_t)tm.tm_gmtoff)
				fail_msg("at %lld: mfstat %d, libc %ld", (long long)t,
					 (int)mf_tz_offset(tz, (int64_t)t * US), (long)tm.tm_gmtoff);
		}
	}
	unsetenv("TZ");
	tzset();
	mf_tz_free(tz);
	/* What the C library would silently take as UTC is an error naming the value. */
	assert_int_equal(mf_tz_open_local(&tz, "Mars/Olympus", NULL, "/usr/share/zoneinfo", from, sizeof(from), &e),
			 MF_EUSAGE);
	assert_null(tz);
	assert_string_equal(e.msg,
			    "$TZ 'Mars/Olympus' is neither a time zone of /usr/share/zoneinfo nor a POSIX TZ "
			    "string such as CET-1CEST,M3.5.0,M10.5.0/3");
	assert_int_equal(mf_tz_open_local(&tz, ":/nonexistent/zone", NULL, NULL, from, sizeof(from), &e), MF_EUSAGE);
	assert_non_null(strstr(e.msg, "$TZ: cannot open /nonexistent/zone: "));
	/* No $TZ: the localtime file, named by where it links to; none at all: UTC, said. */
	assert_non_null(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/localtime", dir);
	assert_int_equal(symlink("/usr/share/zoneinfo/America/New_York", link), 0);
	assert_int_equal(mf_tz_open_local(&tz, NULL, link, NULL, from, sizeof(from), &e), 0);
	assert_string_equal(from, link);
	assert_string_equal(mf_tz_name(tz), "America/New_York");
	assert_int_equal(mf_tz_offset(tz, at("2025-07-15T12:00:00Z")), -14400);
	mf_tz_free(tz);
	assert_int_equal(mf_tz_open_local(&tz, NULL, "/usr/share/zoneinfo/Europe/Berlin", NULL, from, sizeof(from), &e),
			 0);
	assert_string_equal(mf_tz_name(tz), "Europe/Berlin");
	mf_tz_free(tz);
	snprintf(none, sizeof(none), "%s/none", dir);
	assert_int_equal(mf_tz_open_local(&tz, NULL, none, NULL, from, sizeof(from), &e), 0);
	assert_true(mf_tz_is_utc(tz));
	assert_non_null(strstr(from, "no $TZ and no "));
	mf_tz_free(tz);
	unlink(link);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(zones_match_libc), cmocka_unit_test(fixed_and_utc), cmocka_unit_test(local_to_utc),
		cmocka_unit_test(local_zone),       cmocka_unit_test(calendar),      cmocka_unit_test(hour_keys),
		cmocka_unit_test(bad_specs),        cmocka_unit_test(bad_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
