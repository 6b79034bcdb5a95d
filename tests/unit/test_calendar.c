/* SPDX-License-Identifier: MIT */
/*
 * Calendar roll-ups and selection through the library pipeline (--by hour,
 * day, week, month, hour-of-day, weekday, --tz, --hours, --weekdays, --from,
 * --to, --system), checked against counters summed by hand: the expected
 * buckets are worked out here with plain arithmetic on the row times (local =
 * UTC + offset, day = local / 86400), not with the library's calendar.
 */
#include "pipeline.h"

#include "mfstat/report/select.h"
#include "mfstat/base/tz.h"

MF_TEST_KB_FIXTURE()

/* 2025-04-07T00:00:00Z, a Monday. */
#define T0 INT64_C(1743984000)
#define STEP 900
#define NROWS 192 /* two days of 15-minute intervals */

/* Row i of system S: starts at T0 + i * STEP, CPU_CYCLES (B0) 1000 + i, INSTRUCTIONS (B1) 1 + i. */
static char *two_days(const char *systems)
{
	struct mf_strbuf sb;
	const char *s;
	char *out;
	mf_strbuf_init(&sb);
	mf_strbuf_puts(&sb, "system,interval_start,interval_seconds,B0,B1\n");
	for (s = systems; *s; s++) {
		int i;
		for (i = 0; i < NROWS; i++) {
			char t[48];
			mf_time_format((T0 + (int64_t)i * STEP) * 1000000, t, sizeof(t));
			mf_strbuf_printf(&sb, "%c,%s,%d,%d,%d\n", *s, t, STEP, 1000 + i, 1 + i);
		}
	}
	out = strdup(mf_strbuf_str(&sb));
	mf_strbuf_free(&sb);
	return out;
}

static void run(struct pipe *p, const char *csv, unsigned by, const struct mf_tz *tz, const struct mf_select *sel)
{
	struct mf_error e;
	pipe_begin(p, kb, by, tz, sel);
	assert_int_equal(mf_pipeline_add_mem(p->pl, "t.csv", csv, strlen(csv), &e), 0);
	pipe_end(p);
}

static uint64_t sum_b0(const struct mf_group *g)
{
	return g->sum[g->family->dense[0]];
}

static struct mf_tz *zone(const char *spec)
{
	struct mf_tz *tz;
	struct mf_error e;
	assert_int_equal(mf_tz_open(&tz, spec, NULL, &e), 0);
	return tz;
}

/* Hand sums of B0 per bucket: bucket(i) for each row, over nb buckets; returns rows per bucket too. */
static void hand_sums(long (*bucket)(int64_t local, void *ctx), void *ctx, int32_t off, uint64_t *sum, uint64_t *rows,
		      size_t nb)
{
	int i;
	memset(sum, 0, nb * sizeof(*sum));
	memset(rows, 0, nb * sizeof(*rows));
	for (i = 0; i < NROWS; i++) {
		long b = bucket(T0 + (int64_t)i * STEP + off, ctx);
		assert_true(b >= 0 && (size_t)b < nb);
		sum[b] += (uint64_t)(1000 + i);
		rows[b]++;
	}
}

static long by_day(int64_t local, void *ctx)
{
	(void)ctx;
	return (long)(local / 86400 - T0 / 86400 + 1); /* 0: the day before T0's (UTC) date */
}

static long by_hour_of_day(int64_t local, void *ctx)
{
	(void)ctx;
	return (long)(local % 86400 / 3600);
}

static long by_hour(int64_t local, void *ctx)
{
	(void)ctx;
	return (long)((local - T0) / 3600);
}

/* Days in UTC: two buckets of 96 intervals; in +02:00 three (22 h, 24 h, 2 h of local time). */
static void days_utc_and_plus2(void **state)
{
	static const char *const zones[] = {"UTC", "+02:00"};
	size_t z;
	(void)state;
	for (z = 0; z < 2; z++) {
		struct mf_tz *tz = zone(zones[z]);
		int32_t off = mf_tz_offset(tz, 0);
		uint64_t sum[4], rows[4];
		struct pipe p;
		size_t g, b;
		char *csv = two_days("S");
		hand_sums(by_day, NULL, off, sum, rows, 4);
		run(&p, csv, MF_BY_SYSTEM | MF_BY_DAY, tz, NULL);
		assert_int_equal(p.n, off ? 3 : 2);
		for (g = 0, b = 0; b < 4; b++) {
			char want[16], got[32];
			int64_t y;
			unsigned m, d;
			if (!rows[b])
				continue;
			assert_true(g < p.n);
			assert_int_equal(sum_b0(p.groups[g]), sum[b]);
			assert_int_equal(p.groups[g]->rows, rows[b]);
			/* INTERVAL is the time the bucket covers: its rows' 15 minutes each. */
			assert_true(fabs(p.res[g].interval - (double)rows[b] * STEP) < 1e-6);
			mf_civil_from_days(T0 / 86400 - 1 + (int64_t)b, &y, &m, &d);
			snprintf(want, sizeof(want), "%04lld-%02u-%02u", (long long)y, m, d);
			assert_string_equal(mf_report_key_text(&p.rep, p.groups[g], MF_BY_DAY, got, sizeof(got)), want);
			g++;
		}
		assert_int_equal(g, p.n);
		if (off) {
			/* +02:00: Monday 02:00 local to Tuesday 24:00; the first bucket starts at 02:00 local. */
			char s[48], e[48];
			assert_int_equal(p.groups[0]->rows, 88);
			assert_true(mf_report_period(&p.rep, s, e, sizeof(s)));
			assert_string_equal(s, "2025-04-07T02:00:00+02:00");
			assert_string_equal(e, "2025-04-09T02:00:00+02:00");
		}
		pipe_free(&p);
		free(csv);
		mf_tz_free(tz);
	}
}

/* Hours: 48 buckets of 4 intervals; hour-of-day: 24 buckets of 8 (two days each), in +05:30. */
static void hours(void **state)
{
	struct mf_tz *tz = zone("+05:30");
	int32_t off = mf_tz_offset(tz, 0);
	uint64_t sum[49], rows[49];
	struct pipe p;
	size_t g, b;
	char *csv = two_days("S");
	(void)state;
	/* Whole hours of +05:30 are half past in UTC: 49 hour buckets, the first and last of 2 rows
	 * (by_hour counts hours from T0 shifted by the half hour). */
	hand_sums(by_hour, NULL, 1800, sum, rows, 49);
	run(&p, csv, MF_BY_HOUR, tz, NULL);
	assert_int_equal(p.n, 49);
	for (g = 0, b = 0; b < 49; b++) {
		if (!rows[b])
			continue;
		assert_int_equal(sum_b0(p.groups[g]), sum[b]);
		assert_int_equal(p.groups[g]->rows, rows[b]);
		g++;
	}
	assert_int_equal(p.groups[0]->rows, 2);
	pipe_free(&p);
	hand_sums(by_hour_of_day, NULL, off, sum, rows, 24);
	run(&p, csv, MF_BY_HOUR_OF_DAY, tz, NULL);
	assert_int_equal(p.n, 24);
	for (b = 0; b < 24; b++) {
		char want[8], got[16];
		assert_int_equal(sum_b0(p.groups[b]), sum[b]);
		assert_int_equal(p.groups[b]->rows, 8);
		/* Two days of the same hour: their lengths add up (2 x 4 x 15 minutes). */
		assert_true(fabs(p.res[b].interval - 7200) < 1e-6);
		snprintf(want, sizeof(want), "%02zu", b);
		assert_string_equal(mf_report_key_text(&p.rep, p.groups[b], MF_BY_HOUR_OF_DAY, got, sizeof(got)), want);
	}
	pipe_free(&p);
	free(csv);
	mf_tz_free(tz);
}

/* Weekday, week and month of two systems: Monday and Tuesday; one ISO week; one month. */
static void weekday_week_month(void **state)
{
	struct pipe p;
	char got[32];
	char *csv = two_days("AB");
	uint64_t day0 = 0, day1 = 0;
	int i;
	(void)state;
	for (i = 0; i < NROWS; i++)
		*(i < 96 ? &day0 : &day1) += 2 * (uint64_t)(1000 + i); /* two systems */
	run(&p, csv, MF_BY_WEEKDAY, NULL, NULL);
	assert_int_equal(p.n, 2);
	assert_string_equal(mf_report_key_text(&p.rep, p.groups[0], MF_BY_WEEKDAY, got, sizeof(got)), "Mon");
	assert_string_equal(mf_report_key_text(&p.rep, p.groups[1], MF_BY_WEEKDAY, got, sizeof(got)), "Tue");
	assert_int_equal(sum_b0(p.groups[0]), day0);
	assert_int_equal(sum_b0(p.groups[1]), day1);
	/* Two systems over the same day: the day's covered time, not twice it. */
	assert_true(fabs(p.res[0].interval - 86400) < 1e-6);
	assert_int_equal(p.rep.nsystems, 2);
	pipe_free(&p);
	run(&p, csv, MF_BY_WEEK, NULL, NULL);
	assert_int_equal(p.n, 1);
	assert_string_equal(mf_report_key_text(&p.rep, p.groups[0], MF_BY_WEEK, got, sizeof(got)), "2025-W15");
	assert_int_equal(sum_b0(p.groups[0]), day0 + day1);
	pipe_free(&p);
	run(&p, csv, MF_BY_MONTH | MF_BY_SYSTEM, NULL, NULL);
	assert_int_equal(p.n, 2);
	assert_string_equal(mf_report_key_text(&p.rep, p.groups[1], MF_BY_MONTH, got, sizeof(got)), "2025-04");
	assert_int_equal(sum_b0(p.groups[1]), (day0 + day1) / 2);
	pipe_free(&p);
	free(csv);
}

/* The prime shift, Monday to Friday 8-17 in +02:00: 36 intervals a day kept; the rest counted by reason. */
static void prime_shift(void **state)
{
	struct mf_tz *tz = zone("+02:00");
	struct mf_select sel;
	struct pipe p;
	uint64_t want[2] = {0, 0};
	char *csv = two_days("S");
	char text[256];
	int i;
	(void)state;
	memset(&sel, 0, sizeof(sel));
	sel.tz = tz;
	assert_int_equal(mf_select_parse_hours("8-17", &sel.hours), 0);
	assert_int_equal(mf_select_parse_weekdays("Mon-Fri", &sel.weekdays), 0);
	for (i = 0; i < NROWS; i++) {
		int64_t local = T0 + (int64_t)i * STEP + 7200;
		int h = (int)(local % 86400 / 3600);
		if (h >= 8 && h < 17)
			want[(local - T0) / 86400] += (uint64_t)(1000 + i);
	}
	run(&p, csv, MF_BY_DAY, tz, &sel);
	assert_int_equal(p.n, 2);
	assert_int_equal(sum_b0(p.groups[0]), want[0]);
	assert_int_equal(sum_b0(p.groups[1]), want[1]);
	assert_int_equal(p.groups[0]->rows, 36);
	assert_int_equal(p.rep.rows_read, NROWS);
	assert_int_equal(p.rep.left_out[MF_SELECT_HOURS], NROWS - 72);
	assert_true(p.rep.selected);
	mf_report_left_out_text(&p.rep, text, sizeof(text));
	assert_string_equal(text, "120 samples left out by the selection: 120 outside --hours");
	pipe_free(&p);
	/* Saturday and Sunday only: nothing of Monday and Tuesday is left. */
	assert_int_equal(mf_select_parse_weekdays("Sat-Sun", &sel.weekdays), 0);
	sel.hours = 0;
	run(&p, csv, MF_BY_DAY, tz, &sel);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.rep.left_out[MF_SELECT_WEEKDAYS], NROWS);
	pipe_free(&p);
	free(csv);
	mf_tz_free(tz);
}

/* --from/--to (a date alone is midnight in the zone) and --system. */
static void range_and_system(void **state)
{
	struct mf_tz *tz = zone("+02:00");
	struct mf_select sel;
	struct pipe p;
	char *csv = two_days("AB");
	uint64_t want = 0;
	int i;
	(void)state;
	memset(&sel, 0, sizeof(sel));
	sel.tz = tz;
	/* From Tuesday 00:00 local (Monday 22:00Z) to Tuesday 12:00Z. */
	assert_int_equal(mf_select_parse_time("2025-04-08", tz, &sel.from_us), 0);
	assert_int_equal(sel.from_us, (T0 + 22 * 3600) * 1000000);
	assert_int_equal(mf_select_parse_time("2025-04-08T12:00:00Z", tz, &sel.to_us), 0);
	sel.has_from = sel.has_to = true;
	assert_int_equal(mf_select_parse_systems("b", &sel), 0);
	for (i = 88; i < 144; i++)
		want += (uint64_t)(1000 + i);
	run(&p, csv, MF_BY_SYSTEM, tz, &sel);
	assert_int_equal(p.n, 1);
	assert_string_equal(mf_strtab_get(p.tab, p.groups[0]->system), "B");
	assert_int_equal(sum_b0(p.groups[0]), want);
	assert_int_equal(p.rep.left_out[MF_SELECT_SYSTEM], NROWS);
	assert_int_equal(p.rep.left_out[MF_SELECT_BEFORE], 88);
	assert_int_equal(p.rep.left_out[MF_SELECT_AFTER], NROWS - 144);
	pipe_free(&p);
	free(csv);
	mf_tz_free(tz);
}

static void parse_errors(void **state)
{
	struct mf_select sel;
	uint32_t h;
	unsigned m;
	int64_t us;
	(void)state;
	assert_int_equal(mf_select_parse_hours("8-17", &h), 0);
	assert_int_equal(h, 0x1ff00u);
	assert_int_equal(mf_select_parse_hours("22-6", &h), 0);
	assert_int_equal(h, 0xc0003fu);
	assert_int_equal(mf_select_parse_hours("0-24", &h), 0);
	assert_int_equal(h, 0xffffffu);
	assert_int_equal(mf_select_parse_hours("8-12,14", &h), 0);
	assert_int_equal(h, 0x4f00u);
	assert_int_equal(mf_select_parse_hours("08:00-17:00", &h), 0); /* as a clock shows them */
	assert_int_equal(h, 0x1ff00u);
	assert_int_equal(mf_select_parse_hours("8:30-17", &h), -1); /* hours are whole */
	assert_int_equal(mf_select_parse_hours("8:0-17", &h), -1);
	assert_int_equal(mf_select_parse_hours("8-8", &h), -1);
	assert_int_equal(mf_select_parse_hours("8-25", &h), -1);
	assert_int_equal(mf_select_parse_hours("24", &h), -1);
	assert_int_equal(mf_select_parse_hours("", &h), -1);
	assert_int_equal(mf_select_parse_hours("8-", &h), -1);
	assert_int_equal(mf_select_parse_hours("8-17,", &h), -1);
	assert_int_equal(mf_select_parse_hours("prime", &h), -1);
	assert_int_equal(mf_select_parse_weekdays("Mon-Fri", &m), 0);
	assert_int_equal(m, 0x1fu);
	assert_int_equal(mf_select_parse_weekdays("saturday,SUN", &m), 0);
	assert_int_equal(m, 0x60u);
	assert_int_equal(mf_select_parse_weekdays("Sat-Mon", &m), 0);
	assert_int_equal(m, 0x61u);
	assert_int_equal(mf_select_parse_weekdays("Mo", &m), -1);
	assert_int_equal(mf_select_parse_weekdays("Mon-", &m), -1);
	assert_int_equal(mf_select_parse_weekdays("Funday", &m), -1);
	assert_int_equal(mf_select_parse_pools("gcp,ziip", &m), 0);
	assert_int_equal(m, (1u << MF_POOL_GCP) | (1u << MF_POOL_ZIIP));
	assert_int_equal(mf_select_parse_pools("gcp,", &m), -1);
	memset(&sel, 0, sizeof(sel));
	assert_int_equal(mf_select_parse_systems("SYSA,SYSB", &sel), 0);
	assert_int_equal(sel.nsystems, 2);
	assert_int_equal(mf_select_parse_systems("SYSA,,SYSB", &sel), -1);
	assert_int_equal(mf_select_parse_systems("A_NAME_OF_16_CHR", &sel), -1);
	assert_int_equal(mf_select_parse_time("2025-04-31", NULL, &us), -1);
	assert_int_equal(mf_select_parse_time("yesterday", NULL, &us), -1);
	assert_int_equal(mf_select_parse_time("2025-04-07", NULL, &us), 0);
	assert_int_equal(us, T0 * 1000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(days_utc_and_plus2), cmocka_unit_test(hours),
		cmocka_unit_test(weekday_week_month), cmocka_unit_test(prime_shift),
		cmocka_unit_test(range_and_system),   cmocka_unit_test(parse_errors),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
