/* SPDX-License-Identifier: MIT */
/* The Prometheus exposition's names and writer (src/lib/report/prom.c). */
#include "testutil.h"

#include <ctype.h>
#include <math.h>

#include "mfstat/report/output.h"
#include "mfstat/report/pipeline.h"
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

static const struct mf_metric *metric(const struct mf_family *f, const char *name)
{
	for (size_t i = 0; i < f->nmetrics; i++)
		if (strcmp(f->metrics[i].name, name) == 0)
			return &f->metrics[i];
	fail_msg("no metric %s", name);
	return NULL;
}

/* Metric names in Prometheus's base units (promtool check metrics refuses _s, _ms, _ns). */
static void test_base_units(void **state)
{
	char b[128];
	const struct mf_family *perf = fam("linux_perf"), *unc = fam("intel_uncore"), *z16 = fam("z16");
	(void)state;
	mf_prom_metric_name(metric(perf, "TASK_MS"), b, sizeof(b));
	assert_string_equal(b, "mfstat_task_seconds");
	assert_true(mf_prom_metric_scale(metric(perf, "TASK_MS")) == 1e-3);
	mf_prom_metric_name(metric(perf, "ELAPSED_S"), b, sizeof(b));
	assert_string_equal(b, "mfstat_elapsed_seconds");
	assert_true(mf_prom_metric_scale(metric(perf, "ELAPSED_S")) == 1);
	mf_prom_metric_name(metric(perf, "FAULTS_PER_S"), b, sizeof(b));
	assert_string_equal(b, "mfstat_faults_per_second");
	assert_true(mf_prom_metric_scale(metric(perf, "FAULTS_PER_S")) == 1);
	mf_prom_metric_name(metric(unc, "MEM_LAT_NS"), b, sizeof(b));
	assert_string_equal(b, "mfstat_mem_lat_seconds");
	assert_true(mf_prom_metric_scale(metric(unc, "MEM_LAT_NS")) == 1e-9);
	assert_true(mf_prom_metric_scale(metric(z16, "L3P")) == 0.01);
	assert_true(mf_prom_metric_scale(metric(z16, "CPI")) == 1);
	/* A name cut short says its whole length, as before. */
	assert_int_equal(mf_prom_metric_name(metric(perf, "TASK_MS"), b, 10), strlen("mfstat_task_seconds"));
	/* No metric of any family keeps an abbreviated unit as its last word. */
	for (size_t f = 0; f < kb->nfamilies; f++)
		for (size_t i = 0; i < kb->families[f].nmetrics; i++) {
			size_t n = mf_prom_metric_name(&kb->families[f].metrics[i], b, sizeof(b));
			assert_false(n > 2 && (strcmp(b + n - 2, "_s") == 0));
			assert_false(n > 3 && (strcmp(b + n - 3, "_ms") == 0 || strcmp(b + n - 3, "_ns") == 0 ||
					       strcmp(b + n - 3, "_us") == 0));
		}
}

static void test_format_names(void **state)
{
	enum mf_prom_fmt f = MF_PROM_OPENMETRICS;
	(void)state;
	assert_true(mf_prom_format_name("prom", &f));
	assert_int_equal(f, MF_PROM_TEXT);
	assert_true(mf_prom_format_name("openmetrics", &f));
	assert_int_equal(f, MF_PROM_OPENMETRICS);
	assert_false(mf_prom_format_name("json", &f));
	assert_false(mf_prom_format_name(NULL, NULL));
	assert_true(mf_prom_file_name("/var/lib/node_exporter/mfstat.prom"));
	assert_true(mf_prom_file_name("x.PROM"));
	assert_false(mf_prom_file_name(".prom"));
	assert_false(mf_prom_file_name("mfstat.prom.tmp"));
	assert_false(mf_prom_file_name(NULL));
}

/* Every family's TYPE once, and every sample after its family's TYPE: what a scraper needs. */
static void assert_well_formed(const char *text)
{
	char fams[400][128];
	size_t nf = 0;
	const char *line = text;
	char cur[128] = "";
	while (*line) {
		const char *end = strchr(line, '\n');
		size_t len;
		assert_non_null(end);
		len = (size_t)(end - line);
		if (strncmp(line, "# TYPE ", 7) == 0) {
			const char *sp = memchr(line + 7, ' ', len - 7);
			assert_non_null(sp);
			snprintf(cur, sizeof(cur), "%.*s", (int)(sp - line - 7), line + 7);
			for (size_t i = 0; i < nf; i++)
				assert_string_not_equal(fams[i], cur);
			assert_true(nf < 400);
			snprintf(fams[nf++], sizeof(fams[0]), "%s", cur);
		} else if (line[0] != '#') {
			/* the sample's name is the family's (text format: counters' TYPE has _total) */
			size_t k = strlen(cur);
			assert_true(k > 0);
			assert_memory_equal(line, cur, k);
			assert_true(line[k] == '{' || line[k] == ' ' || line[k] == '_');
		}
		line = end + 1;
	}
}

/* A report of a CSV file as an exposition: sums per --by group, absent counters, metrics as ratios. */
static void test_report_exposition(void **state)
{
	static const char csv[] =
		"system,lpar,cpu,pool,machine,cpsp,interval_start,interval_seconds,B0,B1,B2,B3,B4,B5,P33,E143\n"
		"SYSA,P1,0,GCP,3931,5200,2025-03-04T10:00:00Z,60,3000,1000,5,90,15,80,400,\n"
		"SYSA,P1,1,GCP,3931,5200,2025-03-04T10:00:00Z,60,3000,1000,5,90,15,80,0,\n"
		"SYSB,P2,0,IFL,3931,5200,2025-03-04T10:00:00Z,60,500,250,1,9,1,8,,\n";
	char *path = test_tmpfile(csv, sizeof(csv) - 1);
	struct mf_pipeline_opts po;
	struct mf_pipeline *pl;
	struct mf_report rep;
	struct mf_error e;
	struct mf_strbuf sb;
	struct mf_prom_opts o;
	struct mf_prom_machine m = {"z16", 3931, NULL, 3, 7, 0x27, 5200};
	struct mf_prom_up up[] = {{"basic", true, NULL}, {"crypto", false, "not authorized (authorization 0x27)"}};
	const char *t;
	(void)state;

	memset(&po, 0, sizeof(po));
	po.kb = kb;
	po.by = MF_BY_SYSTEM | MF_BY_POOL;
	pl = mf_pipeline_new(&po);
	assert_non_null(pl);
	assert_int_equal(mf_pipeline_add_file(pl, path, &e), 0);
	assert_int_equal(mf_pipeline_finish(pl, &rep), 0);
	memset(&o, 0, sizeof(o));
	o.fmt = MF_PROM_TEXT;
	o.family_label = true;
	o.machine = &m;
	o.up = up;
	o.nup = 2;
	mf_strbuf_init(&sb);
	assert_int_equal(mf_prom_report(&sb, &rep, &o), 0);
	t = mf_strbuf_str(&sb);
	assert_well_formed(t);
	assert_non_null(
		strstr(t, "mfstat_machine_info{type=\"3931\",family=\"z16\",cfvn=\"3\",csvn=\"7\",auth=\"0x27\"} 1\n"));
	assert_non_null(strstr(t, "mfstat_up{set=\"crypto\",reason=\"not authorized (authorization 0x27)\"} 0\n"));
	assert_non_null(
		strstr(t,
		       "# TYPE mfstat_cpumf_cpu_cycles_total counter\n"
		       "mfstat_cpumf_cpu_cycles_total{family=\"z16\",system=\"SYSA\",pool=\"GCP\",set=\"basic\"} 6000\n"
		       "mfstat_cpumf_cpu_cycles_total{family=\"z16\",system=\"SYSB\",pool=\"IFL\",set=\"basic\"} "
		       "500\n"));
	/* P33 counted by SYSA only (0 on one CPU is a count), absent for SYSB; E143 counted nowhere. */
	assert_non_null(strstr(t,
			       "mfstat_cpumf_problem_state_instructions_total{family=\"z16\",system=\"SYSA\","
			       "pool=\"GCP\",set=\"problem\"} 400\n"));
	assert_null(strstr(t, "mfstat_cpumf_problem_state_instructions_total{family=\"z16\",system=\"SYSB\""));
	assert_null(strstr(t, "l1c_tlb2_misses"));
	assert_null(strstr(t, "mfstat_cpi"));
	assert_null(strstr(t, "# EOF"));
	mf_strbuf_free(&sb);

	/* --derived, OpenMetrics: CPI 3, PRBSTATE 400/2000 as the ratio 0.2, RNI n/a absent. */
	o.derived = true;
	o.fmt = MF_PROM_OPENMETRICS;
	o.machine = NULL;
	o.nup = 0;
	mf_strbuf_init(&sb);
	assert_int_equal(mf_prom_report(&sb, &rep, &o), 0);
	t = mf_strbuf_str(&sb);
	assert_null(strstr(t, "mfstat_machine"));
	assert_null(strstr(t, "mfstat_up"));
	assert_non_null(strstr(t, "# TYPE mfstat_cpumf_cpu_cycles counter\n"));
	assert_non_null(strstr(t, "mfstat_cpi{family=\"z16\",system=\"SYSA\",pool=\"GCP\"} 3\n"));
	assert_non_null(strstr(t, "mfstat_cpi{family=\"z16\",system=\"SYSB\",pool=\"IFL\"} 2\n"));
	assert_non_null(strstr(t, "mfstat_prbstate_ratio{family=\"z16\",system=\"SYSA\",pool=\"GCP\"} 0.2\n"));
	assert_null(strstr(t, "mfstat_rni"));
	assert_null(strstr(t, "mfstat_lspr"));
	assert_true(sb.len > 6 && strcmp(t + sb.len - 6, "# EOF\n") == 0);
	mf_strbuf_free(&sb);
	mf_pipeline_free(pl);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_writer),
		cmocka_unit_test(test_base_units),
		cmocka_unit_test(test_format_names),
		cmocka_unit_test(test_report_exposition),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
