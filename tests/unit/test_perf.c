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

/* The warnings of the last run_perf, joined by newlines. */
static char warnings[2048];

/* The reader's warnings, a line each, into warnings (r may be NULL: none). */
static void keep_warnings(const struct mf_reader *r)
{
	size_t i;
	warnings[0] = '\0';
	for (i = 0; r && i < mf_reader_nwarnings(r); i++) {
		size_t used = strlen(warnings);
		snprintf(warnings + used, sizeof(warnings) - used, "%s\n", mf_reader_warning(r, i));
	}
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
	keep_warnings(r);
	mf_reader_close(r);
	free(s);
	p->groups = mf_grouper_groups(p->g, p->tab, &p->n);
	p->res = mf_results_new(p->groups, p->n);
	for (i = 0; i < p->n; i++)
		mf_metrics_compute(kb, p->groups[i], NULL, &p->res[i]);
	return rc;
}

static void check_metric(const char *file, const char *machine, const char *family, const char *name, double want,
			 double tol)
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
	static const struct {
		const char *text;
		const char *machine;
		int code;
		long line;
		const char *msg;
	} cases[] = {
		{"   1,000      CPU_CYCLES\n   12x      INSTRUCTIONS\n", NULL, MF_EFORMAT, 2,
		 "count '12x' is not a number"},
		{"   1,000      CPU_CYCLES\n   2,000\n", NULL, MF_EFORMAT, 2, "truncated line"},
		{"   1,000      CPU_CYCLES\n   5  msec  task-clock  extra\n", NULL, MF_EFORMAT, 2,
		 "unexpected 'extra' after"},
		{"S0        2          1,234      CPU_CYCLES\n", NULL, MF_EFORMAT, 1,
		 "'S0' is an aggregation id of perf stat --per-socket"},
		{"     1.000500000,S0-D0-C3,1,1234,,CPU_CYCLES,100,100.00,,\n", NULL, MF_EFORMAT, 1,
		 "'S0-D0-C3' is an aggregation id"},
		{"   5      DFLT_CCERROR\n", "z16", MF_ENOCOUNTER, 1,
		 "DFLT_CCERROR is not a z16 counter (it is the name"},
		{"   5      DFLT_CCERROR\n   5      DCW_REQ\n", NULL, MF_EFORMAT, 1, "not all z15 counters"},
		{"   5      DCW_REQ\n   5      L1D_L2_SOURCED_WRITES\n", NULL, MF_EFORMAT, 0, "mix machine families"},
		{"   5      DCW_REQ\n", NULL, MF_EUSAGE, 0, "several machine families (z16, z17): give --machine"},
		{"   5      L1D_L2_SOURCED_WRITES\n", "z16", MF_ENOCOUNTER, 1, "is not a z16 counter"},
		{"# nothing\n", NULL, MF_EFORMAT, 0,
		 "has no CPU-MF counter values: on Linux on IBM Z, count the cpum_cf"},
		/* Thousands groups: 1-3 digits, then groups of exactly 3 after one kind of separator. */
		{"   1,,,,,,,,2      CPU_CYCLES\n", NULL, MF_EFORMAT, 1, "count '1,,,,,,,,2' is not a number"},
		{"   12,34      CPU_CYCLES\n", NULL, MF_EFORMAT, 1, "count '12,34' is not a number"},
		{"   1,2345      CPU_CYCLES\n", NULL, MF_EFORMAT, 1, "count '1,2345' is not a number"},
		{"   1234,567      CPU_CYCLES\n", NULL, MF_EFORMAT, 1, "count '1234,567' is not a number"},
		{"   1.234,567      CPU_CYCLES\n", NULL, MF_EFORMAT, 1, "count '1.234,567' is not a number"},
		{"   1,234,      CPU_CYCLES\n", NULL, MF_EFORMAT, 1, "count '1,234,' is not a number"},
		/* The same event twice in one sample: not added up. */
		{"   1,000      CPU_CYCLES\n   500      INSTRUCTIONS\n   7      CPU_CYCLES\n", NULL, MF_EFORMAT, 3,
		 "event CPU_CYCLES twice in one run (first on line 1)"},
		{"     1.000100000      1,000      CPU_CYCLES\n     1.000100000      7      CPU_CYCLES\n", NULL,
		 MF_EFORMAT, 2, "event CPU_CYCLES twice in one interval (first on line 1)"},
		{"1.0,CPU3,10,,CPU_CYCLES,100,100.00,,\n1.0,CPU3,10,,cpum_cf/CPU_CYCLES/,100,100.00,,\n", NULL,
		 MF_EFORMAT, 2, "event CPU_CYCLES twice in one interval for CPU 3 (first on line 1)"},
		/* The elapsed time: a number of seconds, not negative, NaN or huge. */
		{"   1,000      CPU_CYCLES\n\n   -1.5 seconds time elapsed\n", NULL, MF_EFORMAT, 3,
		 "elapsed time '-1.5' is not a number of seconds (0 to 1e9)"},
		{"   1,000      CPU_CYCLES\n\n   nan seconds time elapsed\n", NULL, MF_EFORMAT, 3,
		 "elapsed time 'nan'"},
		{"   1,000      CPU_CYCLES\n\n   1e308 seconds time elapsed\n", NULL, MF_EFORMAT, 3,
		 "elapsed time '1e308'"},
		{"   1,000      CPU_CYCLES\n\n   inf seconds time elapsed\n", NULL, MF_EFORMAT, 3,
		 "elapsed time 'inf'"},
		/* -I timestamps: seconds from 0 to 1e9, so that microseconds stay in 64 bits (a fuzz find). */
		{"     1.000100000      1,000      CPU_CYCLES\n 66666666666666666660.20  7 CPU_CYCLES\n", NULL,
		 MF_EFORMAT, 2, "bad interval timestamp '66666666666666666660.20' (seconds from 0 to 1e9)"},
		{"1.0,10,,CPU_CYCLES,100,100.00,,\n99999999999.5,10,,CPU_CYCLES,100,100.00,,\n", NULL, MF_EFORMAT, 2,
		 "bad interval timestamp"},
		{"   1,000      CPU_CYCLES\n\n   2000000000.5 seconds time elapsed\n", NULL, MF_EFORMAT, 3,
		 "elapsed time '2000000000.5'"},
		{"  12.5 msec task-clock\n  <not supported>      cycles\n", NULL, MF_EFORMAT, 0,
		 "no CPU-MF counter values; perf could not count cycles (<not supported> or <not counted>); task-clock "
		 "is not a CPU-MF counter: on Linux on IBM Z"},
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

/*
 * Real outputs of perf 6.1 on the development machine (a virtual machine without a hardware PMU):
 * software events with unit columns, <not supported> hardware events, every layout.  None has a
 * CPU-MF counter: each must be read to its end (no parse error on any line) and refused with the
 * same clear error naming what the file has and what to collect.
 */
static void this_machine(void **state)
{
	static const char *const files[] = {
		"vm-default.txt",
		"vm-interval.txt",
		"vm-x.txt",
		"vm-x-interval.txt",
		"vm-all-cpus.txt",
		"vm-x-all-cpus.txt",
		"vm-interval-all-cpus.txt",
		"vm-x-interval-all-cpus.txt",
		"vm-command-seps.txt",
		"vm-command-tab.txt",
		"vm-duration.txt",
		"vm-repeat.txt",
		"vm-x-pipe.txt",
		"vm-x-tab.txt",
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct pipe p;
		struct mf_error e;
		char *text = slurp(files[i]);
		int rc = run_perf(&p, text, NULL, &e);
		if (rc != MF_EFORMAT || e.line != 0 || !strstr(e.msg, "has no CPU-MF counter values") ||
		    !strstr(e.msg, "count the cpum_cf events"))
			fail_msg("%s: got %d line %ld '%s'", files[i], rc, e.line, e.msg);
		/* What the file has is named: its software events, and what perf could not count. */
		if (!strstr(e.msg, strstr(text, "cpu-clock") ? "cpu-clock" : "task-clock"))
			fail_msg("%s: software events not named: %s", files[i], e.msg);
		if (strstr(text, "<not supported>") && strstr(text, "cycles") &&
		    !strstr(e.msg, "perf could not count cycles, instructions (<not supported> or <not counted>)"))
			fail_msg("%s: uncounted events not named: %s", files[i], e.msg);
		if (strstr(text, "branches") && !strstr(e.msg, "branches, branch-misses are not CPU-MF counters"))
			fail_msg("%s: branches not named: %s", files[i], e.msg);
		pipe_free(&p);
		free(text);
	}
}

/*
 * The shapes of the real outputs with CPU-MF counters among the software events: unit columns
 * (msec, ns), K/sec comments, a command holding , ; | and a tab, the -I forms (human and -x with
 * blank-padded timestamps), duration_time as the length of a -x run, DFLT_CCERROR.
 */
static void units_and_shapes(void **state)
{
	struct pipe p;
	struct mf_error e;
	char *text;
	(void)state;
	/* Default layout: tlb_miss as perf printed it (440.96), the run's length from the elapsed line. */
	text = slurp("z16-default-units.txt");
	if (run_perf(&p, text, "z16", &e))
		fail_msg("z16-default-units.txt: %s", e.msg);
	assert_int_equal(p.n, 1);
	assert_true(fabs(metric(&p, 0, "TLB1_CYCLES_PER_MISS") - 440.96) < 0.005);
	assert_true(fabs(p.res[0].interval - 1.249342187) < 1e-12);
	assert_non_null(strstr(warnings,
			       "5 lines of events that are not CPU-MF counters left out (task-clock, "
			       "context-switches, cpu-migrations, page-faults, branches)"));
	pipe_free(&p);
	free(text);
	/* -I, human and -x with padded timestamps: (3e6 + 1e6) / (1e6 + 1e6) = 2; 30000 misses in 2e6. */
	{
		static const char *const iv[] = {"generic-interval-units.txt", "generic-x-interval-padded.txt"};
		size_t i;
		for (i = 0; i < 2; i++) {
			text = slurp(iv[i]);
			if (run_perf(&p, text, NULL, &e))
				fail_msg("%s: %s", iv[i], e.msg);
			assert_int_equal(p.n, 1);
			assert_true(metric(&p, 0, "CPI") == 2.0);
			assert_true(fabs(metric(&p, 0, "L1MP") - 1.5) < 1e-12);
			assert_true(fabs(p.res[0].interval - 0.200400371) < 1e-12);
			assert_int_equal(p.groups[0]->rows, 2);
			assert_non_null(strstr(warnings,
					       "6 lines of events that are not CPU-MF counters left out "
					       "(task-clock, context-switches, page-faults)"));
			pipe_free(&p);
			free(text);
		}
	}
	/* -x without -I: no elapsed line, duration_time gives the length (and is not "left out"). */
	text = slurp("generic-x-duration.txt");
	if (run_perf(&p, text, NULL, &e))
		fail_msg("generic-x-duration.txt: %s", e.msg);
	assert_true(fabs(p.res[0].interval - 0.100226547) < 1e-12);
	assert_true(metric(&p, 0, "CPI") == 3.0);
	assert_non_null(strstr(warnings,
			       "3 lines of events that are not CPU-MF counters left out (task-clock, "
			       "page-faults, branches)"));
	pipe_free(&p);
	free(text);
	/* DFLT_CCERROR (z15 counter 265 before Linux 5.8) names the family: z15 without --machine. */
	text = slurp("z15-dflt-ccerror.txt");
	if (run_perf(&p, text, NULL, &e))
		fail_msg("z15-dflt-ccerror.txt: %s", e.msg);
	assert_string_equal(p.groups[0]->family->key, "z15");
	assert_true(p.groups[0]->sum[p.groups[0]->family->dense[265]] == 812);
	assert_true(fabs(metric(&p, 0, "L4RP") - 0.01) < 0.005);
	pipe_free(&p);
	free(text);
}

/* Well-formed thousands groups in each locale's separator; a repeated event skipped, counted. */
static void groups_and_repeats(void **state)
{
	struct pipe p;
	struct mf_error e;
	struct mf_reader_opts ro = {0};
	struct mf_reader *r = NULL;
	struct mf_sample *s = malloc(sizeof(*s));
	static const char twice[] =
		"     1.000100000      1,000      CPU_CYCLES\n"
		"     1.000100000        500      INSTRUCTIONS\n"
		"     1.000100000          7      CPU_CYCLES\n"
		"     2.000100000      3,000      CPU_CYCLES\n"
		"     2.000100000      1,000      INSTRUCTIONS\n";
	(void)state;
	assert_int_equal(run_perf(&p,
				  "   3.000.000      CPU_CYCLES\n   1'000'000      INSTRUCTIONS\n"
				  "   0,5 seconds time elapsed\n",
				  NULL, &e),
			 0);
	assert_true(metric(&p, 0, "CPI") == 3.0);
	assert_true(p.res[0].interval == 0.5);
	pipe_free(&p);
	/* With --skip-bad-rows the reader goes on after the interval with the repeat. */
	ro.kb = kb;
	ro.strtab = mf_strtab_new();
	ro.format = "perf";
	assert_int_equal(mf_reader_open_mem(&r, "perf.txt", twice, strlen(twice), &ro, &e), 0);
	assert_int_equal(mf_reader_next(r, s, &e), MF_EFORMAT);
	assert_int_equal(e.line, 3);
	assert_int_equal(mf_reader_next(r, s, &e), 1);
	assert_int_equal(s->n, 2);
	assert_true(s->value[0] == 3000 && s->value[1] == 1000);
	assert_int_equal(mf_reader_next(r, s, &e), 0);
	mf_reader_close(r);
	mf_strtab_free(ro.strtab);
	free(s);
}

static void odd_lines(void **state)
{
	struct pipe p;
	struct mf_error e;
	(void)state;
	/* -r: "( +- N% )" after the event, and the elapsed line with its spread. */
	assert_int_equal(run_perf(&p,
				  " Performance counter stats for 'sleep 0.05' (3 runs):\n\n"
				  "         3,000      CPU_CYCLES                                  ( +-  2.79% )\n"
				  "         1,000      INSTRUCTIONS    #    0.33  insn per cycle   ( +-  1.00% )\n"
				  "\n           0.05412 +- 0.00184 seconds time elapsed  ( +-  3.41% )\n",
				  NULL, &e),
			 0);
	assert_true(metric(&p, 0, "CPI") == 3.0);
	assert_true(fabs(p.res[0].interval - 0.05412) < 1e-12);
	pipe_free(&p);
	/* The default event list as perf prints it on Linux on Z: cycles and instructions are counted. */
	assert_int_equal(run_perf(&p,
				  " Performance counter stats for 'sleep 0.1':\n\n"
				  "              0.78 msec task-clock                #    0.008 CPUs utilized\n"
				  "                75      page-faults               #   96.441 K/sec\n"
				  "         2,469,134      cycles                    #    3.166 GHz\n"
				  "           823,045      instructions              #    0.33  insn per cycle\n"
				  "   <not supported>      branches\n\n"
				  "       0.100226547 seconds time elapsed\n",
				  NULL, &e),
			 0);
	assert_string_equal(p.groups[0]->family->key, "generic");
	assert_true(fabs(metric(&p, 0, "CPI") - 2469134.0 / 823045.0) < 1e-12);
	assert_non_null(strstr(warnings,
			       "3 lines of events that are not CPU-MF counters left out (task-clock, "
			       "page-faults, branches)"));
	pipe_free(&p);
	/* Multiplexed "(50.00%)"; cpum_cf/event=0x0/ is counter 0; unknown names are left out, named. */
	assert_int_equal(run_perf(&p,
				  "     6,000      cpum_cf/event=0x0/                        (50.00%)\n"
				  "     2,000      cpum_cf/event=0x01/u                      (50.00%)\n"
				  "         5      NO_SUCH_EVENT\n"
				  "         7      sched:sched_switch\n",
				  NULL, &e),
			 0);
	assert_true(metric(&p, 0, "CPI") == 3.0);
	assert_true(p.groups[0]->user_only);
	assert_non_null(strstr(warnings,
			       "2 lines of events that are not CPU-MF counters left out (NO_SUCH_EVENT, "
			       "sched:sched_switch)"));
	pipe_free(&p);
}

/* perf's zone and the reader's options of a run (read_starts, run_perf_with). */
struct popts {
	const char *zone;    /* --perf-tz or this machine's zone; NULL: none given */
	const char *from;    /* where it came from */
	const char *machine; /* --machine */
	double cpu_mhz;      /* --cpu-mhz; 0: none */
};

/* Reads text with o: up to 8 samples' starts into start_us (-1: none) and speeds; the count or an error. */
static int read_starts(const char *text, const struct popts *o, int64_t *start_us, double *cpsp, bool *nominal,
		       struct mf_error *e)
{
	struct mf_reader_opts ro = {0};
	struct mf_reader *r = NULL;
	struct mf_sample *s = malloc(sizeof(*s));
	struct mf_tz *tz = NULL;
	int rc, n = 0;
	ro.kb = kb;
	ro.strtab = mf_strtab_new();
	ro.format = "perf";
	ro.cpu_mhz = o->cpu_mhz;
	ro.perf_tz_from = o->from;
	if (o->zone) {
		assert_int_equal(mf_tz_open(&tz, o->zone, "/usr/share/zoneinfo", e), 0);
		ro.perf_tz = tz;
	}
	if (o->machine)
		assert_int_equal(mf_kb_resolve(kb, o->machine, strlen(o->machine), &ro.family, &ro.machine), 0);
	rc = mf_reader_open_mem(&r, "perf.txt", text, strlen(text), &ro, e);
	while (rc == 0 && (rc = mf_reader_next(r, s, e)) == 1) {
		assert_true(n < 8);
		start_us[n] = s->has_start ? s->start_us : -1;
		cpsp[n] = s->cpsp;
		nominal[n] = s->cpsp_nominal;
		n++;
		rc = 0;
	}
	keep_warnings(r);
	mf_reader_close(r);
	mf_tz_free(tz);
	mf_strtab_free(ro.strtab);
	free(s);
	return rc ? rc : n;
}

#define SEC INT64_C(1000000)

/*
 * "# started on" is the local time of the machine that ran perf.  The file's run started on
 * Sun Mar 30 01:59:30 2025, the day Europe/Berlin changed to summer time (02:00 CET became
 * 03:00 CEST, at 01:00Z); its intervals are 60.000412345 s long.  Worked out by hand:
 *   Europe/Berlin    01:59:30 CET  (+01:00) = 00:59:30Z = 1743296370 s; the second interval
 *                    starts 60.000412 s later, 01:00:30.000412Z (03:00:30 CEST on the wall),
 *                    the third 120.000825 s later (llround of 120000824.69 us);
 *   America/New_York 01:59:30 EDT  (-04:00, summer time since March 9) = 05:59:30Z = 1743314370 s;
 *   +05:30           01:59:30 = 2025-03-29T20:29:30Z = 1743280170 s;
 *   UTC              01:59:30Z = 1743299970 s.
 */
static void started_on_zone(void **state)
{
	static const struct {
		const char *zone;
		int64_t start;
		const char *said;
	} cases[] = {
		{"Europe/Berlin", 1743296370,
		 "read in Europe/Berlin (+01:00, from $TZ): the run started at 2025-03-30T00:59:30Z"},
		{"America/New_York", 1743314370,
		 "read in America/New_York (-04:00, from $TZ): the run started at 2025-03-30T05:59:30Z"},
		{"+05:30", 1743280170, "read in +05:30 (from $TZ): the run started at 2025-03-29T20:29:30Z"},
		{"UTC", 1743299970, "read in UTC (+00:00, from $TZ): the run started at 2025-03-30T01:59:30Z"},
	};
	char *text = slurp("generic-x-interval-dst.txt");
	struct mf_error e;
	int64_t start[8];
	double cpsp[8];
	bool nominal[8];
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct popts o = {cases[i].zone, "from $TZ", NULL, 0};
		if (read_starts(text, &o, start, cpsp, nominal, &e) != 3)
			fail_msg("%s: %s", cases[i].zone, e.msg);
		assert_int_equal(start[0], cases[i].start * SEC);
		assert_int_equal(start[1], cases[i].start * SEC + 60000412);
		assert_int_equal(start[2], cases[i].start * SEC + 120000825);
		if (!strstr(warnings, cases[i].said) ||
		    !strstr(warnings,
			    "perf.txt: '# started on Sun Mar 30 01:59:30 2025' is the local time of the "
			    "machine that ran perf"))
			fail_msg("%s: %s", cases[i].zone, warnings);
		assert_true(isnan(cpsp[0])); /* perf writes no speed */
	}
	/* No zone given (a library caller): UTC, said. */
	{
		struct popts o = {NULL, NULL, NULL, 0};
		assert_int_equal(read_starts(text, &o, start, cpsp, nominal, &e), 3);
		assert_int_equal(start[0], INT64_C(1743299970) * SEC);
		assert_non_null(strstr(warnings, "read in UTC (+00:00, no zone given)"));
	}
	/* This machine's zone unknown (a bad $TZ): the file is refused, naming why and what to give. */
	{
		struct popts o = {NULL, "$TZ 'Mars/Olympus' is neither ...", NULL, 0};
		assert_int_equal(read_starts(text, &o, start, cpsp, nominal, &e), MF_EUSAGE);
		assert_int_equal(e.line, 1);
		assert_string_equal(e.msg,
				    "'# started on Sun Mar 30 01:59:30 2025' is the local time of the machine "
				    "that ran perf, but the zone of this machine is unknown ($TZ 'Mars/Olympus' "
				    "is neither ...): give --perf-tz ZONE");
	}
	free(text);
}

/*
 * Wall times a zone skipped or had twice, and a run without -I: it starts at "# started on".
 * Europe/Berlin 2025-10-26: 03:00 CEST became 02:00 CET at 01:00Z, so 02:30 came twice:
 * 00:30Z (+02:00, the first, taken) and 01:30Z (+01:00).  2025-03-30 02:30 never showed.
 */
static void started_on_changes(void **state)
{
	static const char body[] = "\n 3,000      CPU_CYCLES\n 1,000      INSTRUCTIONS\n\n 2.5 seconds time elapsed\n";
	struct popts berlin = {"Europe/Berlin", "from --perf-tz", NULL, 0};
	struct mf_error e;
	int64_t start[8];
	double cpsp[8];
	bool nominal[8];
	char text[256];
	(void)state;
	snprintf(text, sizeof(text), "# started on Sun Oct 26 02:30:00 2025\n%s", body);
	assert_int_equal(read_starts(text, &berlin, start, cpsp, nominal, &e), 1);
	assert_int_equal(start[0], INT64_C(1761438600) * SEC); /* 2025-10-26T00:30:00Z */
	assert_non_null(strstr(warnings,
			       "read in Europe/Berlin (+02:00, from --perf-tz): the run started at "
			       "2025-10-26T00:30:00Z; clocks in Europe/Berlin showed that time twice (they were "
			       "put back over it): the first, not the one at +01:00, was taken"));
	snprintf(text, sizeof(text), "# started on Sun Mar 30 02:30:00 2025\n%s", body);
	assert_int_equal(read_starts(text, &berlin, start, cpsp, nominal, &e), 1);
	assert_int_equal(start[0], INT64_C(1743298200) * SEC); /* taken at +01:00: 01:30Z */
	assert_non_null(strstr(warnings,
			       "no clock in Europe/Berlin showed that time (it was put forward over it): "
			       "is it the zone of the machine that ran perf?"));
	/* ctime pads the day with a blank. */
	snprintf(text, sizeof(text), "# started on Mon Nov  2 09:05:01 2026\n%s", body);
	assert_int_equal(read_starts(text, &berlin, start, cpsp, nominal, &e), 1);
	assert_non_null(strstr(warnings, "the run started at 2026-11-02T08:05:01Z"));
	/* What is not a ctime, or a second run appended to the file, is an error at its line. */
	snprintf(text, sizeof(text), "# started on Sun Oct 26 25:30:00 2025\n%s", body);
	assert_int_equal(read_starts(text, &berlin, start, cpsp, nominal, &e), MF_EFORMAT);
	assert_int_equal(e.line, 1);
	assert_int_equal(e.col, 14);
	assert_non_null(strstr(e.msg, "'# started on' is not followed by a time such as 'Mon Nov 23 19:38:27 2026'"));
	snprintf(text, sizeof(text), "# started on Sun Oct 26 12:30:00 2025\n%s# started on Sun Oct 26 12:31:00 2025\n",
		 body);
	assert_int_equal(read_starts(text, &berlin, start, cpsp, nominal, &e), MF_EFORMAT);
	assert_int_equal(e.line, 7);
	assert_non_null(strstr(e.msg, "a second '# started on' line (the first is on line 1)"));
}

/*
 * perf writes no CPU speed: --machine TYPE gives the type's nominal one (said), --cpu-mhz the
 * one given.  LPARCPU of the DST file's first interval with 5200 MHz (3931, z16), by hand:
 * 312000000000 / (5200 * 1e6) / 60.000412345 * 100 = 99.9993127630563; EFF_GHZ 5.2.
 */
static void speed(void **state)
{
	char *text = slurp("generic-x-interval-dst.txt");
	struct popts o = {"UTC", "from --perf-tz", "3931", 0};
	struct mf_error e;
	struct pipe p;
	int64_t start[8];
	double cpsp[8];
	bool nominal[8];
	(void)state;
	assert_int_equal(read_starts(text, &o, start, cpsp, nominal, &e), 3);
	assert_true(cpsp[0] == 5200 && nominal[0] && cpsp[2] == 5200);
	assert_non_null(strstr(warnings,
			       "perf.txt: no CPU speed in perf stat output: used the nominal speed of machine "
			       "type 3931 (5200 MHz)"));
	o.cpu_mhz = 5000;
	assert_int_equal(read_starts(text, &o, start, cpsp, nominal, &e), 3);
	assert_true(cpsp[0] == 5000 && !nominal[0]);
	assert_null(strstr(warnings, "nominal"));
	/* A family alone names no machine type, hence no nominal speed; --cpu-mhz still gives one. */
	o.machine = "z16";
	o.cpu_mhz = 0;
	assert_int_equal(read_starts(text, &o, start, cpsp, nominal, &e), 3);
	assert_true(isnan(cpsp[0]));
	o.cpu_mhz = 4800.5;
	assert_int_equal(read_starts(text, &o, start, cpsp, nominal, &e), 3);
	assert_true(cpsp[1] == 4800.5);
	/* The metrics: the first interval alone. */
	{
		static char first[2048];
		const char *cut = strstr(text, "120.000824690");
		assert_non_null(cut);
		snprintf(first, sizeof(first), "%.*s", (int)(cut - text), text);
		assert_int_equal(run_perf(&p, first, "3931", &e), 0);
		assert_int_equal(p.n, 1);
		assert_true(fabs(metric(&p, 0, "LPARCPU") - 312000000000.0 / (5200 * 1e6) / 60.000412345 * 100) < 1e-9);
		assert_true(metric(&p, 0, "EFF_GHZ") == 5.2);
		assert_true(metric(&p, 0, "CPI") == 2.0);
		pipe_free(&p);
	}
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_outputs),    cmocka_unit_test(elapsed_and_modifiers),
		cmocka_unit_test(formats),         cmocka_unit_test(bad_input),
		cmocka_unit_test(this_machine),    cmocka_unit_test(units_and_shapes),
		cmocka_unit_test(odd_lines),       cmocka_unit_test(groups_and_repeats),
		cmocka_unit_test(started_on_zone), cmocka_unit_test(started_on_changes),
		cmocka_unit_test(speed),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
