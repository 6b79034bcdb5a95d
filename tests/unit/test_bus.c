/* SPDX-License-Identifier: MIT */
/* Bus (itanium2) and memory (intel_uncore) families: hand-worked values, sum then divide, ranges. */
#include "pipeline.h"

MF_TEST_KB_FIXTURE()

static const char head[] =
	"system,machine,interval_start,interval_seconds,bus_cycles,trans_all,trans_cpu,trans_io,"
	"brl,bril,bwl,implicit_wb,partial_nonzero,cpu_cycles,read_occupancy,read_inserts\n";

static void itanium2(void **state)
{
	struct pipe p;
	char csv[1024];
	(void)state;
	snprintf(csv, sizeof(csv), "%s%s", head,
		 "h,itanium2,2011-02-01T10:00:00Z,10,2000000000,100000000,90000000,10000000,40000000,10000000,"
		 "20000000,5000000,3000000,16000000000,32000000000,80000000\n");
	pipe_run(&p, kb, csv, MF_BY_DEFAULT);
	assert_string_equal(p.groups[0]->family->key, "itanium2");
	/* 100 * 1e8 * 3 / 2e9 = 15 */
	assert_true(fabs(metric(&p, 0, "UTIL_ADRS") - 15) < 1e-12);
	/* 100 * ((4e7 + 1e7 + 2e7 + 5e6) * 4 + 3e6) / 2e9 = 100 * 3.03e8 / 2e9 = 15.15 */
	assert_true(fabs(metric(&p, 0, "UTIL_DATA") - 15.15) < 1e-12);
	assert_true(metric(&p, 0, "CPU_PCT") == 90 && metric(&p, 0, "IO_PCT") == 10);
	assert_true(metric(&p, 0, "BRL_PCT") == 40 && metric(&p, 0, "BRIL_PCT") == 10 &&
		    metric(&p, 0, "BWL_PCT") == 20);
	assert_true(metric(&p, 0, "AVG_LAT") == 400);    /* 3.2e10 / 8e7 */
	assert_true(metric(&p, 0, "AVG_OUTSTAND") == 2); /* 3.2e10 / 1.6e10 */
	assert_int_equal(p.res[0].doubts & MF_DOUBT_NEGATIVE, 0);
	pipe_free(&p);

	/* A zero bus-cycle interval: the utilizations are not available, never 0. */
	snprintf(csv, sizeof(csv), "%s%s", head, "h,itanium2,,10,0,100,90,10,40,10,20,5,3,1000,2000,10\n");
	pipe_run(&p, kb, csv, MF_BY_DEFAULT);
	assert_true(isnan(metric(&p, 0, "UTIL_ADRS")));
	assert_true(isnan(metric(&p, 0, "UTIL_DATA")));
	assert_true(metric(&p, 0, "CPU_PCT") == 90);
	pipe_free(&p);

	/* Several intervals in one group: sum, then divide.  Interval 1: 100 of 1000 cycles busy
	 * (UTIL_ADRS 30); interval 2: 100 of 4000 (7.5).  The mean of ratios would be 18.75; the
	 * group's value is 100 * 200 * 3 / 5000 = 12. */
	snprintf(csv, sizeof(csv), "%s%s%s", head,
		 "h,itanium2,2011-02-01T10:00:00Z,1,1000,100,90,10,1,1,1,1,1,10,10,1\n",
		 "h,itanium2,2011-02-01T10:00:01Z,1,4000,100,90,10,1,1,1,1,1,10,10,1\n");
	pipe_run(&p, kb, csv, MF_BY_SYSTEM);
	assert_int_equal(p.n, 1);
	assert_true(fabs(metric(&p, 0, "UTIL_ADRS") - 12) < 1e-12);
	pipe_free(&p);

	/* Inconsistent counts: CPU + I/O transactions beyond all, 17 reads outstanding. */
	snprintf(csv, sizeof(csv), "%s%s", head, "h,itanium2,,1,1000,100,95,10,1,1,1,1,1,100,1700,10\n");
	pipe_run(&p, kb, csv, 0);
	assert_true(p.res[0].doubts & MF_DOUBT_NEGATIVE);
	pipe_free(&p);
}

static void intel_uncore(void **state)
{
	struct pipe p;
	size_t i;
	(void)state;
	pipe_run(&p, kb,
		 "machine,interval_seconds,cas_count_read,cas_count_write,tor_occupancy_drd,tor_inserts_drd,cha_"
		 "clockticks,"
		 "offcore_outstanding_drd,offcore_requests_drd,offcore_cycles_with_drd\n"
		 "intel_uncore,2,300000000,100000000,9000000000,50000000,4000000000,600000000,4000000,200000000\n",
		 0);
	/* 64 * 4e8 / 2 / 1e9 = 12.8 GB/s */
	assert_true(fabs(metric(&p, 0, "DRAM_GBS") - 12.8) < 1e-12);
	assert_true(isnan(metric(&p, 0, "DRAM_UTIL"))); /* no --mem-peak */
	assert_true(metric(&p, 0, "DRAM_READ_PCT") == 75);
	/* 1e9 * (9e9 / 5e7) / (4e9 / 2) = 1e9 * 180 / 2e9 = 90 ns */
	assert_true(fabs(metric(&p, 0, "MEM_LAT_NS") - 90) < 1e-9);
	assert_true(fabs(metric(&p, 0, "MEM_OUTSTAND") - 2.25) < 1e-12);
	assert_true(metric(&p, 0, "L2_MISS_LAT_CYC") == 150);
	assert_true(metric(&p, 0, "L2_MISS_MLP") == 3);
	/* With the peak: 100 * 12.8 / 25.6 = 50 % */
	for (i = 0; i < p.n; i++)
		mf_metrics_compute(kb, p.groups[i], &(struct mf_metrics_opts){.mem_peak_gbs = 25.6}, &p.res[i]);
	assert_true(fabs(metric(&p, 0, "DRAM_UTIL") - 50) < 1e-12);
	pipe_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(itanium2),
		cmocka_unit_test(intel_uncore),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
