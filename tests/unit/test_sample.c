/* SPDX-License-Identifier: MIT */
/* Sample model helpers: time parsing and formatting, pools, interning, number formatting. */
#include <math.h>

#include "testutil.h"

static void times(void **state)
{
	static const struct {
		const char *in;
		int64_t us;
		const char *out;
	} ok[] = {
		{"1970-01-01T00:00:00Z", 0, "1970-01-01T00:00:00Z"},
		{"2025-03-04T10:15:00Z", INT64_C(1741083300000000), "2025-03-04T10:15:00Z"},
		{"2025-03-04 10:15:00", INT64_C(1741083300000000), "2025-03-04T10:15:00Z"},
		{"2025-03-04T10:15Z", INT64_C(1741083300000000), "2025-03-04T10:15:00Z"},
		{"2025-03-04T11:15:00+01:00", INT64_C(1741083300000000), "2025-03-04T10:15:00Z"},
		{"2025-03-04T05:15:00-0500", INT64_C(1741083300000000), "2025-03-04T10:15:00Z"},
		{"2025-03-04T10:15:00.5Z", INT64_C(1741083300500000), "2025-03-04T10:15:00.500000Z"},
		{"2024-02-29T23:59:59.999999Z", INT64_C(1709251199999999), "2024-02-29T23:59:59.999999Z"},
		{"1969-12-31T23:59:59Z", -1000000, "1969-12-31T23:59:59Z"},
	};
	static const char *const bad[] = {"",
					  "2025-03-04",
					  "2025-3-04T10:15:00Z",
					  "2025-02-29T00:00:00Z",
					  "2025-03-04T24:00:00Z",
					  "2025-03-04T10:15:00Q",
					  "2025-03-04T10:15:00.Z",
					  "2025-03-04T10:15:00+1:00",
					  "x025-03-04T10:15:00Z"};
	size_t i;
	char buf[48];
	int64_t us;
	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (mf_time_parse(ok[i].in, strlen(ok[i].in), &us) != 0 || us != ok[i].us)
			fail_msg("'%s' -> %lld, expected %lld", ok[i].in, (long long)us, (long long)ok[i].us);
		mf_time_format(us, buf, sizeof(buf));
		assert_string_equal(buf, ok[i].out);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (mf_time_parse(bad[i], strlen(bad[i]), &us) == 0)
			fail_msg("'%s' accepted", bad[i]);
	/* Every int64_t formats without overflow (UBSan would stop here): floor division, no negation. */
	mf_time_format(INT64_MIN, buf, sizeof(buf));
	mf_time_format(INT64_MAX, buf, sizeof(buf));
	mf_time_format(-1, buf, sizeof(buf));
	assert_string_equal(buf, "1969-12-31T23:59:59.999999Z");
	mf_time_format(-86400000001LL, buf, sizeof(buf));
	assert_string_equal(buf, "1969-12-30T23:59:59.999999Z");
}

static void pools(void **state)
{
	(void)state;
	assert_int_equal(mf_pool_parse("GCP", 3), MF_POOL_GCP);
	assert_int_equal(mf_pool_parse("cp", 2), MF_POOL_GCP);
	assert_int_equal(mf_pool_parse("zIIP", 4), MF_POOL_ZIIP);
	assert_int_equal(mf_pool_parse("ZAAP", 4), MF_POOL_ZAAP);
	assert_int_equal(mf_pool_parse("IFL", 3), MF_POOL_IFL);
	assert_int_equal(mf_pool_parse("ICF", 3), MF_POOL_ICF);
	assert_int_equal(mf_pool_parse("zcbp", 4), MF_POOL_ZCBP);
	assert_string_equal(mf_pool_name(MF_POOL_ZCBP), "ZCBP");
	assert_int_equal(mf_pool_parse("1", 1), MF_POOL_GCP);
	assert_int_equal(mf_pool_parse("3", 1), MF_POOL_ZAAP);
	assert_int_equal(mf_pool_parse("6", 1), MF_POOL_ZIIP);
	assert_int_equal(mf_pool_parse("2", 1), -1);
	assert_int_equal(mf_pool_parse("GCPX", 4), -1);
	assert_string_equal(mf_pool_name(MF_POOL_ZIIP), "ZIIP");
	assert_null(mf_pool_name(MF_POOL_NONE));
}

static void interning(void **state)
{
	struct mf_strtab *t = mf_strtab_new();
	char name[32];
	uint32_t ids[2000];
	int i;
	(void)state;
	assert_int_equal(mf_strtab_intern(t, "", 0), 0);
	assert_null(mf_strtab_get(t, 0));
	for (i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "SYS%d", i);
		ids[i] = mf_strtab_intern(t, name, strlen(name));
		assert_true(ids[i] > 0);
	}
	for (i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "SYS%d", i);
		assert_int_equal(mf_strtab_intern(t, name, strlen(name)), ids[i]);
		assert_string_equal(mf_strtab_get(t, ids[i]), name);
	}
	mf_strtab_free(t);
}

static void cpu_lists(void **state)
{
	int c[16];
	(void)state;
	assert_int_equal(mf_cpu_list("0-3,8\n", c, 16), 5);
	assert_int_equal(c[3], 3);
	assert_int_equal(c[4], 8);
	assert_int_equal(mf_cpu_list("5", c, 16), 1);
	assert_int_equal(mf_cpu_list("3-1", c, 16), -1);
	assert_int_equal(mf_cpu_list("0-20", c, 16), -1);
	assert_int_equal(mf_cpu_list("x", c, 16), -1);
	assert_int_equal(mf_cpu_list("1,,2", c, 16), -1);
}

/* mf_buf_appendf: appends what fits, always terminated, never past the end. */
static void buf_appendf(void **state)
{
	char buf[12];
	size_t used = 0;
	(void)state;
	buf[0] = '\0';
	mf_buf_appendf(buf, sizeof(buf), &used, "%s", "SYSA");
	mf_buf_appendf(buf, sizeof(buf), &used, " / %d", 42);
	assert_string_equal(buf, "SYSA / 42");
	assert_int_equal(used, 9);
	mf_buf_appendf(buf, sizeof(buf), &used, "%s", "-long");
	assert_string_equal(buf, "SYSA / 42-l");
	assert_int_equal(used, 11);
	mf_buf_appendf(buf, sizeof(buf), &used, "%s", "more");
	assert_string_equal(buf, "SYSA / 42-l");
	assert_int_equal(used, 11);
	used = 0;
	mf_buf_appendf(buf, 0, &used, "%s", "x"); /* no room at all: nothing written */
	assert_int_equal(used, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpu_lists), cmocka_unit_test(times),       cmocka_unit_test(pools),
		cmocka_unit_test(interning), cmocka_unit_test(buf_appendf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
