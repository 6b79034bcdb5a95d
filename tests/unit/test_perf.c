/* SPDX-License-Identifier: MIT */
/* perf stat reader: the real IBM Z outputs give perf's own metric values; every parsing rule. */
#include "pipeline.h"

MF_TEST_KB_FIXTURE()

static char *slurp(const char *name)
{
	char path[512];
	FILE *fp;
	char *buf = calloc(1, 1 << 16);
	size_t n;
	snprintf(path, sizeof(path), "%s/tests/data/perf/%s", MFSTAT_SOURCE_DIR, name);
	fp = fopen(path, "r");
	assert_non_null(fp);
	n = fread(buf, 1, (1 << 16) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

/* Reads text as perf output with --machine (NULL: from the events), one group. */
static int run_perf(struct pipe *p, const char *text, const char *machine, struct mf_error *e)
{
	struct mf_reader_opts ro = {0};
	struct mf_reader *r = NULL;
	struct mf_sample *s = malloc(sizeof(*s));
	size_t i;
	int rc;
	memset(p, 0, sizeof(*p));
	p->kb = kb;
	p->tab = mf_strtab_new();
	p->g = mf_grouper_new(0);
	ro.kb = kb;
	ro.strtab = p->tab;
	ro.format = "perf";
	if (machine)
		assert_int_equal(mf_kb_resolve(kb, machine, strlen(machine), &ro.family, &ro.machine), 0);
	mf_error_clear(e);
	rc = mf_reader_open_mem(&r, "perf.txt", text, strlen(text), &ro, e);
	while (rc == 0 && (rc = mf_reader_next(r, s, e)) == 1) {
		assert_int_equal(mf_grouper_add(p->g, s), 0);
		rc = 0;
	}
	mf_reader_close(r);
	free(s);
	p->groups = mf_grouper_groups(p->g, p->tab, &p->n);
	p->res = mf_results_new(p->groups, p->n);
	for (i = 0; i < p->n; i++)
		mf_metrics_compute(kb, p->groups[i], &p->res[i]);
	return rc;
}

static void check_metric(const char *file, const char *machine, const char *family, const char *name,
			 double want, double tol)
{
	struct pipe p;
	struct mf_error e;
	char *text = slurp(file);
	double v;
	if (run_perf(&p, text, machine, &e) != 0)
		fail_msg("%s: %s", file, e.msg);
	assert_int_equal(p.n, 1);
	assert_string_equal(p.groups[0]->family->key, family);
	v = metric(&p, 0, name);
	if (!(fabs(v - want) <= tol))
		fail_msg("%s: %s = %.10g, expected %.10g", file, name, v, want);
	pipe_free(&p);
	free(text);
}

/* perf printed l4rp 0.02, 0.01, 0.01, 0.00 and tlb_miss 440.96; mfstat's L4RP and
 * TLB1_CYCLES_PER_MISS are the same formulas. */
static void real_outputs(void **state)
{
	(void)state;
	check_metric("z13-l4rp.txt", NULL, "z13", "L4RP", 0.02, 0.005); /* z13: named from its events */
	check_metric("z14-l4rp.txt", "z14", "z14", "L4RP", 0.01, 0.005);
	check_metric("z15-l4rp.txt", "z15", "z15", "L4RP", 0.01, 0.005);
	check_metric("z16-l4rp.txt", "z16", "z16", "L4RP", 0.00, 0.005);
	check_metric("tlb-miss.txt", "z16", "z16", "TLB1_CYCLES_PER_MISS", 440.96, 0.005);
	/* (667726 + 9478) / (820 + 198) * (795170260 / (2457447 + 1197126869)), worked by hand. */
	check_metric("tlb-miss.txt", "z16", "z16", "TLB1_CYCLES_PER_MISS",
		     677204.0 / 1018.0 * (795170260.0 / 1199584316.0), 1e-9);
	/* LOCAL_AIU_PCT = NNPA_INST_ONCHIP / NNPA_INVOCATIONS * 100 = 10 / 19 * 100 */
	check_metric("z17-nnpa.txt", NULL, "z17", "LOCAL_AIU_PCT", 1000.0 / 19.0, 1e-9);
	check_metric("z17-nnpa.txt", NULL, "z17", "REMOTE_AIU_PCT", 0, 0);
}

static void elapsed_and_modifiers(void **state)
{
	struct pipe p;
	struct mf_error e;
	char *text = slurp("cpu-cycles-u.txt");
	(void)state;
	assert_int_equal(run_perf(&p, text, NULL, &e), 0);
	assert_string_equal(p.groups[0]->family->key, "generic");
	assert_true(p.groups[0]->user_only);
	assert_true(fabs(p.res[0].interval - 0.000844143) < 1e-12);
	assert_true(p.groups[0]->sum[p.groups[0]->family->dense[0]] == 349613);
	pipe_free(&p);
	free(text);
}

static void formats(void **state)
{
	struct pipe p;
	struct mf_error e;
	(void)state;
	/* -x, with <not counted>, a software event left out, and a metric-only line. */
	assert_int_equal(run_perf(&p,
				  "# started on Sat Nov 21 10:00:00 2026\n\n"
				  "300,,CPU_CYCLES,100,100.00,,\n"
				  "100,,INSTRUCTIONS,100,100.00,3.00,insn per cycle\n"
				  "<not counted>,,L1D_DIR_WRITES,0,0.00,,\n"
				  "12.5,msec,task-clock,12,100.00,0.9,CPUs utilized\n"
				  ",,,,,0.5,some metric\n",
				  NULL, &e),
			 0);
	assert_true(metric(&p, 0, "CPI") == 3.0);
	assert_true(isnan(metric(&p, 0, "L1MP"))); /* L1D_DIR_WRITES not counted: absent, not 0 */
	pipe_free(&p);
	/* Human form with -I: each timestamp is an interval after the previous one. */
	assert_int_equal(run_perf(&p,
				  "#           time             counts unit events\n"
				  "     1.000500000          1,000,000      CPU_CYCLES\n"
				  "     1.000500000            500,000      INSTRUCTIONS\n"
				  "     2.001000000          3,000,000      CPU_CYCLES\n"
				  "     2.001000000          1,000,000      INSTRUCTIONS\n",
				  NULL, &e),
			 0);
	assert_int_equal(p.n, 1); /* by "" = one group over both intervals */
	assert_true(metric(&p, 0, "CPI") == 4000000.0 / 1500000.0);
	assert_true(fabs(p.res[0].interval - 2.001) < 1e-9);
	pipe_free(&p);
	/* -A -x; with CPU numbers. */
	assert_int_equal(run_perf(&p,
				  "CPU0;100;;CPU_CYCLES;1;100.00;;\nCPU1;300;;CPU_CYCLES;1;100.00;;\n"
				  "CPU0;50;;INSTRUCTIONS;1;100.00;;\nCPU1;50;;INSTRUCTIONS;1;100.00;;\n",
				  NULL, &e),
			 0);
	assert_true(metric(&p, 0, "CPI") == 4.0);
	assert_int_equal(mf_group_cpus(p.groups[0]), 2);
	pipe_free(&p);
}

static void bad_input(void **state)
{
	static const struct { const char *text; const char *machine; int code; long line; const char *msg; } cases[] = {
		{"   1,000      CPU_CYCLES\n   12x      INSTRUCTIONS\n", NULL, MF_EFORMAT, 2, "count '12x' is not a number"},
		{"   1,000      CPU_CYCLES\n   2,000\n", NULL, MF_EFORMAT, 2, "truncated line"},
		{"   1,000      CPU_CYCLES\n   5      NO_SUCH_EVENT\n", NULL, MF_EFORMAT, 2, "unknown event NO_SUCH_EVENT"},
		{"   5      DCW_REQ\n   5      L1D_L2_SOURCED_WRITES\n", NULL, MF_EFORMAT, 0, "mix machine families"},
		{"   5      DCW_REQ\n", NULL, MF_EUSAGE, 0, "several machine families (z16, z17): give --machine"},
		{"   5      L1D_L2_SOURCED_WRITES\n", "z16", MF_ENOCOUNTER, 1, "is not a z16 counter"},
		{"# nothing\n", NULL, MF_EFORMAT, 0, "no CPU-MF counter lines"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pipe p;
		struct mf_error e;
		int rc = run_perf(&p, cases[i].text, cases[i].machine, &e);
		if (rc != cases[i].code || e.line != cases[i].line || !strstr(e.msg, cases[i].msg))
			fail_msg("case %zu: got %d line %ld '%s'", i, rc, e.line, e.msg);
		assert_string_equal(e.file, "perf.txt");
		pipe_free(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_outputs),
		cmocka_unit_test(elapsed_and_modifiers),
		cmocka_unit_test(formats),
		cmocka_unit_test(bad_input),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
