/* SPDX-License-Identifier: MIT */
/* The Prometheus exposition's names and writer (src/lib/report/prom.c). */
#include "testutil.h"

#include <ctype.h>
#include <math.h>

#include "mfstat/report/prom.h"

MF_TEST_KB_FIXTURE()

static const struct mf_family *fam(const char *key)
{
	for (size_t i = 0; i < kb->nfamilies; i++)
		if (strcmp(kb->families[i].key, key) == 0)
			return &kb->families[i];
	fail_msg("no family %s", key);
	return NULL;
}

static const struct mf_counter *counter(const struct mf_family *f, const char *short_name)
{
	for (size_t i = 0; i < f->ncounters; i++)
		if (strcmp(f->counters[i].short_name, short_name) == 0)
			return &f->counters[i];
	fail_msg("no counter %s", short_name);
	return NULL;
}

static void test_names(void **state)
{
	char b[128];
	const struct mf_family *z16 = fam("z16");
	(void)state;
	mf_prom_counter_name(z16, counter(z16, "B0"), b, sizeof(b));
	assert_string_equal(b, "mfstat_cpumf_cpu_cycles");
	mf_prom_counter_name(z16, counter(z16, "E143"), b, sizeof(b));
	assert_string_equal(b, "mfstat_cpumf_l1c_tlb2_misses");
	mf_prom_counter_name(fam("linux_perf"), counter(fam("linux_perf"), "task_clock"), b, sizeof(b));
	assert_string_equal(b, "mfstat_perf_task_clock");
	for (size_t i = 0; i < z16->nmetrics; i++) {
		const struct mf_metric *m = &z16->metrics[i];
		size_t n = mf_prom_metric_name(m, b, sizeof(b));
		assert_int_equal(n, strlen(b));
		for (size_t k = 0; k < n; k++)
			assert_true(islower((unsigned char)b[k]) || isdigit((unsigned char)b[k]) || b[k] == '_');
		if (strcmp(m->name, "L3P") == 0)
			assert_string_equal(b, "mfstat_l3p_ratio");
		if (strcmp(m->name, "CPI") == 0)
			assert_string_equal(b, "mfstat_cpi");
	}
	/* A name cut to the buffer still says its full length. */
	assert_int_equal(mf_prom_counter_name(z16, counter(z16, "B0"), b, 8), strlen("mfstat_cpumf_cpu_cycles"));
	assert_string_equal(b, "mfstat_");
}

static void test_writer(void **state)
{
	struct mf_strbuf sb;
	struct mf_prom p;
	const char *labels[] = {"cpu", "0", "set", "basic", NULL};
	const char *odd[] = {"reason", "a \"quoted\"\\path\nline", NULL};
	(void)state;
	mf_strbuf_init(&sb);
	mf_prom_init(&p, &sb, MF_PROM_TEXT);
	mf_prom_family(&p, "mfstat_cpumf_cpu_cycles", "counter", "Cycles\\not waiting\nat all");
	mf_prom_sample_u64(&p, labels, 18446744073709551615u);
	mf_prom_family(&p, "mfstat_machine", "info", "The machine");
	mf_prom_sample(&p, odd, 1);
	mf_prom_family(&p, "mfstat_cpi", "gauge", "CPI");
	mf_prom_sample(&p, NULL, 0.1);
	mf_prom_sample(&p, NULL, NAN);
	mf_prom_sample(&p, NULL, -INFINITY);
	mf_prom_end(&p);
	assert_string_equal(mf_strbuf_str(&sb),
			    "# HELP mfstat_cpumf_cpu_cycles_total Cycles\\\\not waiting\\nat all\n"
			    "# TYPE mfstat_cpumf_cpu_cycles_total counter\n"
			    "mfstat_cpumf_cpu_cycles_total{cpu=\"0\",set=\"basic\"} "
			    "18446744073709551615\n"
			    "# HELP mfstat_machine_info The machine\n"
			    "# TYPE mfstat_machine_info gauge\n"
			    "mfstat_machine_info{reason=\"a \\\"quoted\\\"\\\\path\\nline\"} 1\n"
			    "# HELP mfstat_cpi CPI\n"
			    "# TYPE mfstat_cpi gauge\n"
			    "mfstat_cpi 0.1\nmfstat_cpi NaN\nmfstat_cpi -Inf\n");
	mf_strbuf_free(&sb);
	mf_strbuf_init(&sb);
	mf_prom_init(&p, &sb, MF_PROM_OPENMETRICS);
	mf_prom_family(&p, "mfstat_cpumf_cpu_cycles", "counter", "Cycles");
	mf_prom_sample_u64(&p, labels, 5);
	mf_prom_family(&p, "mfstat_machine", "info", "The machine");
	mf_prom_sample(&p, NULL, 1);
	mf_prom_end(&p);
	assert_string_equal(mf_strbuf_str(&sb),
			    "# HELP mfstat_cpumf_cpu_cycles Cycles\n"
			    "# TYPE mfstat_cpumf_cpu_cycles counter\n"
			    "mfstat_cpumf_cpu_cycles_total{cpu=\"0\",set=\"basic\"} 5\n"
			    "# HELP mfstat_machine The machine\n"
			    "# TYPE mfstat_machine info\n"
			    "mfstat_machine_info 1\n"
			    "# EOF\n");
	mf_strbuf_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_writer),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
