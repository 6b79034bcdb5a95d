/* SPDX-License-Identifier: MIT */
/*
 * measure diff (mdiff.c) on hand-made runs: a caller's work moved from 3:1
 * to 1:1 gives exactly -25 and +25 points (self shares of flat runs, and
 * inclusive shares of runs with call chains), rows of one run only, the
 * order (largest change first, ties by name), --absolute, the folded pairs
 * of difffolded.pl (-n scaling), CSV and JSON, runs of different
 * measurements refused, and runs without samples.
 *
 * With MDIFF_FIXTURE_DIR set it also writes the run files the CLI goldens
 * (tests/cli/main/measure_*diff*.sh) read: tests/data/mdiff/{before,after,
 * itlb}.mfdb, made from kernel records (perfrec.h) as a live run makes them.
 */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "mfstat/measure/diff.h"
#include "mfstat/measure/mfdb.h"
#include "mfstat/measure/record.h"
#include "mfstat/measure/run.h"

#include "mchain.h"
#include "perfrec.h"

/* ---- flat runs: functions with self samples only ---------------------------------------------- */

struct fdef {
	const char *mod, *name;
	uint64_t start;
	int n;
};

/* A run of measurement m with n samples in each function of f (0x100 bytes each). */
static void flat_run(struct mf_mrun *run, const char *m, const struct fdef *f, size_t nf)
{
	struct mf_mstream *s;
	size_t i;
	int k;
	char *argv[] = {"./app"};
	mf_mrun_init(run);
	strcpy(run->measurement, m);
	mf_mrun_set_argv(run, 1, argv);
	run->line_size = 64;
	s = mf_mrun_add_stream(run);
	strcpy(s->name, "task-clock");
	s->role = MF_ROLE_CPU;
	s->period = 1000000;
	s->clock = true;
	mf_mrun_thread(run, 7, 7, "app");
	for (i = 0; i < nf; i++) {
		uint32_t mod = mf_mrun_module(run, f[i].mod);
		struct mf_msym *y = mf_mrun_add_sym(run);
		assert_non_null(y);
		y->mod = mod;
		y->addr = f[i].start + 0x10;
		y->func = mf_mrun_str(run, f[i].name);
		y->func_start = f[i].start;
		y->func_size = 0x100;
		for (k = 0; k < f[i].n; k++) {
			struct mf_msample *x = mf_mrun_add_sample(run);
			assert_non_null(x);
			x->pid = x->tid = 7;
			x->period = 1000000;
			x->mod = mod;
			x->off = f[i].start + 0x10;
			x->stack = MF_STACK_NONE;
		}
	}
	mf_mrun_finish(run);
	mf_mrun_sort_syms(run);
}

static const struct mf_mdiff_row *row(const struct mf_mdiff_table *t, const char *name)
{
	size_t i;
	for (i = 0; i < t->n; i++)
		if (strcmp(t->rows[i].name, name) == 0)
			return &t->rows[i];
	fail_msg("no row %s", name);
	return NULL;
}

static char *written(const struct mf_mrun *b, const struct mf_mrun *a, int format, bool absolute)
{
	struct mf_mdiff_opts o = {.format = format,
				  .absolute = absolute,
				  .summary = {1, 100, 5},
				  .before_name = "before.mfdb",
				  .after_name = "after.mfdb"};
	struct mf_error e;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	mf_error_clear(&e);
	if (mf_mdiff_write(fp, b, a, &o, &e) != 0)
		fail_msg("mf_mdiff_write: %s", e.msg);
	fclose(fp);
	return buf;
}

/* 3:1 -> 1:1: caller_a 75 % -> 50 % is -25 points exactly, caller_b +25; the library's module unchanged. */
static void three_to_one(void **state)
{
	static const struct fdef before[] = {{"/opt/app/app", "caller_a", 0x1100, 30},
					     {"/opt/app/app", "caller_b", 0x1200, 10}};
	static const struct fdef after[] = {{"/opt/app/app", "caller_b", 0x1200, 20},
					    {"/opt/app/app", "caller_a", 0x1100, 20}};
	struct mf_mrun b, a;
	struct mf_mdiff d;
	struct mf_error e;
	(void)state;
	flat_run(&b, "profile", before, 2);
	flat_run(&a, "profile", after, 2);
	mf_error_clear(&e);
	assert_int_equal(mf_mdiff_build(&d, &b, &a, false, &e), 0);
	assert_int_equal(d.before_total, 40);
	assert_int_equal(d.after_total, 40);
	assert_int_equal(d.funcs.n, 2);
	/* Equal |change|: by name. */
	assert_string_equal(d.funcs.rows[0].name, "caller_a");
	assert_string_equal(d.funcs.rows[0].module, "app");
	assert_true(d.funcs.rows[0].before_pct == 75.0);
	assert_true(d.funcs.rows[0].after_pct == 50.0);
	assert_true(d.funcs.rows[0].change == -25.0);
	assert_int_equal(d.funcs.rows[0].change_samples, -10);
	assert_true(d.funcs.rows[1].change == 25.0);
	assert_int_equal(d.funcs.rows[0].side, MF_MDIFF_BOTH);
	assert_true(isnan(d.funcs.rows[0].incl_before));
	assert_int_equal(d.mods.n, 1);
	assert_true(d.mods.rows[0].change == 0.0);
	mf_mdiff_free(&d);
	mf_mrun_free(&b);
	mf_mrun_free(&a);
}

/*
 * With call chains (mchain.h): 30 A + 10 B before, 20 A + 20 B + 6 R after.
 * caller_a inclusive 75 % -> 40 % (20 of 46 samples): -35 points; with
 * 20 A + 20 B alone after, exactly -25.  rec and its stack are after only.
 */
static void chains_inclusive(void **state)
{
	struct mf_mrun b, a, a2;
	struct mf_mdiff d;
	struct mf_error e;
	const struct mf_mdiff_row *r;
	(void)state;
	mchain_run(&b, 30, 10, 0, 0, 0);
	mchain_run(&a, 20, 20, 0, 0, 0);
	mf_error_clear(&e);
	assert_int_equal(mf_mdiff_build(&d, &b, &a, false, &e), 0);
	assert_true(d.before_chains && d.after_chains);
	r = row(&d.funcs, "caller_a");
	assert_int_equal(r->before, 0);
	assert_true(r->incl_before == 75.0);
	assert_true(r->incl_after == 50.0);
	assert_true(r->incl_change == -25.0);
	assert_true(row(&d.funcs, "caller_b")->incl_change == 25.0);
	assert_true(row(&d.funcs, "main")->incl_change == 0.0);
	r = row(&d.stacks, "app;main;caller_a;qsort;cmp");
	assert_int_equal(r->before, 30);
	assert_int_equal(r->after, 20);
	assert_true(r->change == -25.0);
	mf_mdiff_free(&d);

	mchain_run(&a2, 20, 20, 6, 0, 0);
	assert_int_equal(mf_mdiff_build(&d, &b, &a2, false, &e), 0);
	r = row(&d.funcs, "rec");
	assert_int_equal(r->side, MF_MDIFF_AFTER_ONLY);
	assert_int_equal(r->before, 0);
	assert_int_equal(r->after, 6);
	assert_int_equal(row(&d.stacks, "app;main;rec;rec;rec")->side, MF_MDIFF_AFTER_ONLY);
	assert_int_equal(row(&d.stacks, "app;main;caller_a;qsort;cmp")->side, MF_MDIFF_BOTH);
	mf_mdiff_free(&d);

	/* BEFORE's view: rec is before only. */
	assert_int_equal(mf_mdiff_build(&d, &a2, &b, false, &e), 0);
	assert_int_equal(row(&d.funcs, "rec")->side, MF_MDIFF_BEFORE_ONLY);
	mf_mdiff_free(&d);
	mf_mrun_free(&b);
	mf_mrun_free(&a);
	mf_mrun_free(&a2);
}

/* A run without chains diffed against one with: shares compare, inclusive is n/a. */
static void chains_one_side(void **state)
{
	static const struct fdef before[] = {{"/opt/app/app", "cmp", 0x1300, 40}};
	struct mf_mrun b, a;
	struct mf_mdiff d;
	struct mf_error e;
	char *txt;
	(void)state;
	flat_run(&b, "profile", before, 1);
	mchain_run(&a, 30, 10, 0, 0, 0);
	mf_error_clear(&e);
	assert_int_equal(mf_mdiff_build(&d, &b, &a, false, &e), 0);
	assert_false(d.before_chains);
	assert_true(d.after_chains);
	assert_true(row(&d.funcs, "cmp")->change == 0.0);
	assert_true(isnan(row(&d.funcs, "cmp")->incl_change));
	/* The flat run folds to one frame per sample below the program's name. */
	assert_int_equal(row(&d.stacks, "app;cmp")->side, MF_MDIFF_BEFORE_ONLY);
	mf_mdiff_free(&d);
	txt = written(&b, &a, MF_MFMT_TEXT, false);
	assert_non_null(strstr(txt, "Inclusive:        n/a: both runs need call chains"));
	free(txt);
	mf_mrun_free(&b);
	mf_mrun_free(&a);
}

/* Sorted by the largest change, ties by name; --absolute sorts by samples. */
static void order_and_absolute(void **state)
{
	/* before 100: a 50, b 30, c 20; after 10: a 2, b 5, c 3.  Points: a -30, b +20, c +10;
	 * samples: a -48, b -25, c -17. */
	static const struct fdef before[] = {{"/x/m", "a", 0x1000, 50},
					     {"/x/m", "b", 0x2000, 30},
					     {"/x/m", "c", 0x3000, 20}};
	static const struct fdef after[] = {{"/x/m", "a", 0x1000, 2},
					    {"/x/m", "b", 0x2000, 5},
					    {"/x/m", "c", 0x3000, 3}};
	struct mf_mrun b, a;
	struct mf_mdiff d;
	struct mf_error e;
	(void)state;
	flat_run(&b, "profile", before, 3);
	flat_run(&a, "profile", after, 3);
	mf_error_clear(&e);
	assert_int_equal(mf_mdiff_build(&d, &b, &a, false, &e), 0);
	assert_string_equal(d.funcs.rows[0].name, "a");
	assert_string_equal(d.funcs.rows[1].name, "b");
	assert_string_equal(d.funcs.rows[2].name, "c");
	assert_true(d.funcs.rows[1].change == 20.0);
	mf_mdiff_free(&d);
	assert_int_equal(mf_mdiff_build(&d, &a, &b, true, &e), 0);
	assert_string_equal(d.funcs.rows[0].name, "a");
	assert_int_equal(d.funcs.rows[0].change_samples, 48);
	assert_string_equal(d.funcs.rows[1].name, "b");
	assert_string_equal(d.funcs.rows[2].name, "c");
	mf_mdiff_free(&d);
	mf_mrun_free(&b);
	mf_mrun_free(&a);
}

/* difffolded.pl pairs: every stack of either run, sorted; -n: before scaled to after's total. */
static void folded_pairs(void **state)
{
	struct mf_mrun b, a;
	char *txt;
	(void)state;
	mchain_run(&b, 30, 10, 0, 0, 0); /* 40 samples */
	mchain_run(&a, 20, 20, 6, 4, 0); /* 50 samples */
	txt = written(&b, &a, MF_MFMT_FOLDED, false);
	/* 30 * 50 / 40 = 37.5 -> 37; 10 * 50 / 40 = 12.5 -> 12 (int(), as difffolded.pl -n). */
	assert_string_equal(txt,
			    "app;[unknown];qsort 0 4\n"
			    "app;main;caller_a;qsort;cmp 37 20\n"
			    "app;main;caller_b;qsort;cmp 12 20\n"
			    "app;main;rec;rec;rec 0 6\n");
	free(txt);
	txt = written(&b, &a, MF_MFMT_FOLDED, true);
	assert_string_equal(txt,
			    "app;[unknown];qsort 0 4\n"
			    "app;main;caller_a;qsort;cmp 30 20\n"
			    "app;main;caller_b;qsort;cmp 10 20\n"
			    "app;main;rec;rec;rec 0 6\n");
	free(txt);
	mf_mrun_free(&b);
	mf_mrun_free(&a);
}

#define CSV_HEAD                                                                                                       \
	"kind,module,name,before_samples,after_samples,before_percent,after_percent,change_points,change_samples,"     \
	"only_in,before_inclusive_percent,after_inclusive_percent,inclusive_change_points\n"

static void csv_json_text(void **state)
{
	struct mf_mrun b, a;
	char *txt;
	json_t *j, *f;
	json_error_t je;
	(void)state;
	mchain_run(&b, 30, 10, 0, 0, 0);
	mchain_run(&a, 20, 20, 0, 0, 0);
	txt = written(&b, &a, MF_MFMT_CSV, false);
	assert_true(strncmp(txt, CSV_HEAD, strlen(CSV_HEAD)) == 0);
	assert_non_null(strstr(txt, "\nfunction,app,caller_a,0,0,0,0,0,0,,75,50,-25\n"));
	assert_non_null(strstr(txt, "\nstack,,app;main;caller_a;qsort;cmp,30,20,75,50,-25,-10,,,,\n"));
	free(txt);
	txt = written(&b, &a, MF_MFMT_JSON, false);
	j = json_loads(txt, 0, &je);
	if (!j)
		fail_msg("JSON: %s", je.text);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "before"), "file")), "before.mfdb");
	assert_true(json_is_true(json_object_get(json_object_get(j, "after"), "call_chains")));
	f = json_object_get(j, "stacks");
	assert_int_equal(json_array_size(f), 2);
	assert_true(json_number_value(json_object_get(json_array_get(f, 0), "change_points")) == -25.0);
	assert_true(json_is_null(json_object_get(json_array_get(f, 0), "only_in")));
	json_decref(j);
	free(txt);
	txt = written(&b, &a, MF_MFMT_TEXT, false);
	assert_non_null(strstr(txt, "\nFunction Changes\n"));
	assert_non_null(strstr(txt, "-25.00"));
	assert_non_null(strstr(txt, "app::caller_a"));
	assert_non_null(strstr(txt, "\nStack Changes (folded, root first)\n"));
	free(txt);
	mf_mrun_free(&b);
	mf_mrun_free(&a);
}

static void refused_and_empty(void **state)
{
	static const struct fdef f[] = {{"/opt/app/app", "main", 0x1000, 3}};
	struct mf_mrun b, a;
	struct mf_mdiff d;
	struct mf_error e;
	(void)state;
	flat_run(&b, "profile", f, 1);
	flat_run(&a, "itlb", f, 1);
	mf_error_clear(&e);
	assert_int_equal(mf_mdiff_build(&d, &b, &a, false, &e), MF_EINVAL);
	assert_string_equal(e.msg, "runs of different measurements cannot be compared (profile and itlb)");
	mf_mdiff_free(&d);
	mf_mrun_free(&a);
	/* A run without samples: its side is 0 %, every row of the other run one-sided. */
	flat_run(&a, "profile", f, 0);
	assert_int_equal(mf_mdiff_build(&d, &b, &a, false, &e), 0);
	assert_int_equal(d.after_total, 0);
	assert_int_equal(d.funcs.n, 1);
	assert_int_equal(d.funcs.rows[0].side, MF_MDIFF_BEFORE_ONLY);
	assert_true(d.funcs.rows[0].change == -100.0);
	assert_true(isnan(d.funcs.rows[0].after_pct));
	mf_mdiff_free(&d);
	mf_mrun_free(&b);
	mf_mrun_free(&a);
}

/* ---- the run files of the CLI goldens ------------------------------------------------------------ */

#define APP "/opt/app/app"
#define LIBX "/usr/lib/libx.so.1"

/* A run file of measurement m: n[i] task-clock samples in function i of fn (two modules). */
static void write_fixture(const char *path, const char *m, const int *n)
{
	static const struct {
		int lib;
		const char *name;
		uint64_t off;
	} fn[] = {{0, "caller_a", 0x1110},
		  {0, "caller_b", 0x1210},
		  {0, "old_helper", 0x1310},
		  {1, "new_helper", 0x2110}};
	struct mf_mrun run;
	struct mf_mstream *s;
	struct mf_mfdb_writer *w;
	struct mf_error e;
	struct bb recs = {0};
	char *argv[] = {"./app", "--work"};
	size_t i;
	int k;

	mf_mrun_init(&run);
	strcpy(run.measurement, m);
	mf_mrun_set_argv(&run, 2, argv);
	run.pid = 4242;
	run.start_us = INT64_C(1741046400000000);
	strcpy(run.host, "testhost");
	strcpy(run.arch, "x86_64");
	run.line_size = 64;
	strcpy(run.attribution, "ip");
	run.sample_type = g_st;
	s = mf_mrun_add_stream(&run);
	strcpy(s->name, "task-clock");
	s->role = MF_ROLE_CPU;
	s->type = PERF_TYPE_SOFTWARE;
	s->config = PERF_COUNT_SW_TASK_CLOCK;
	s->period = 1000000;
	s->clock = true;
	s->id = 101;
	rec_comm(&recs, 4242, 4242, "app", true);
	rec_mmap2(&recs, 4242, 0x400000, 0x2000, 0x1000, RX, APP, NULL, 0);
	rec_mmap2(&recs, 4242, 0x7f0000000000, 0x2000, 0x2000, RX, LIBX, NULL, 0);
	for (i = 0; i < sizeof(fn) / sizeof(fn[0]); i++)
		for (k = 0; k < n[i]; k++) {
			struct smp x = {.misc = PERF_RECORD_MISC_USER,
					.id = 101,
					.ip = (fn[i].lib ? 0x7f0000000000 : 0x400000) + fn[i].off -
					      (fn[i].lib ? 0x2000 : 0x1000),
					.pid = 4242,
					.tid = 4242,
					.time = 1000 + (uint64_t)k,
					.period = 1000000};
			rec_sample(&recs, &x);
		}
	mf_error_clear(&e);
	assert_int_equal(mf_mrun_ingest(&run, recs.p, recs.n, "fixture", &e), 0);
	for (i = 0; i < sizeof(fn) / sizeof(fn[0]); i++) {
		struct mf_msym *y = mf_mrun_add_sym(&run);
		y->mod = mf_mrun_module(&run, fn[i].lib ? LIBX : APP);
		y->addr = fn[i].off;
		y->func = mf_mrun_str(&run, fn[i].name);
		y->func_start = fn[i].off & ~(uint64_t)0xff;
		y->func_size = 0x100;
	}
	mf_mrun_finish(&run);
	mf_mrun_sort_syms(&run);
	assert_int_equal(mf_mfdb_create(&w, path, &e), 0);
	assert_int_equal(mf_mfdb_put_records(w, recs.p, recs.n, &e), 0);
	assert_int_equal(mf_mfdb_put_run(w, &run, &e), 0);
	assert_int_equal(mf_mfdb_put_symbols(w, &run, &e), 0);
	assert_int_equal(mf_mfdb_close(w, &e), 0);
	bb_free(&recs);
	mf_mrun_free(&run);
}

/*
 * before: caller_a 24, caller_b 8, old_helper 8 (60/20/20 %); after:
 * caller_a 16, caller_b 16, new_helper 8 in libx (40/40/20 %); itlb: a run
 * of the other measurement.  Written to MDIFF_FIXTURE_DIR when set, and
 * always to a temporary directory, loaded back and compared.
 */
static void fixtures(void **state)
{
	static const int nb[] = {24, 8, 8, 0}, na[] = {16, 16, 0, 8};
	const char *dir = getenv("MDIFF_FIXTURE_DIR");
	char tmpl[] = "/tmp/mfstat-mdiff-XXXXXX", pb[300], pa[300], pi[300];
	struct mf_mrun b, a;
	struct mf_mdiff d;
	struct mf_error e;
	(void)state;
	assert_non_null(mkdtemp(tmpl));
	if (!dir)
		dir = tmpl;
	snprintf(pb, sizeof(pb), "%s/before.mfdb", dir);
	snprintf(pa, sizeof(pa), "%s/after.mfdb", dir);
	snprintf(pi, sizeof(pi), "%s/itlb.mfdb", dir);
	write_fixture(pb, "profile", nb);
	write_fixture(pa, "profile", na);
	write_fixture(pi, "itlb", nb);
	mf_mrun_init(&b);
	mf_mrun_init(&a);
	mf_error_clear(&e);
	assert_int_equal(mf_mfdb_load(pb, &b, &e), 0);
	assert_int_equal(mf_mfdb_load(pa, &a, &e), 0);
	assert_int_equal(mf_mdiff_build(&d, &b, &a, false, &e), 0);
	assert_int_equal(d.funcs.n, 4);
	assert_string_equal(d.funcs.rows[0].name, "caller_a");
	assert_true(d.funcs.rows[0].change == -20.0);
	assert_string_equal(d.funcs.rows[2].name, "new_helper");
	assert_int_equal(d.funcs.rows[2].side, MF_MDIFF_AFTER_ONLY);
	assert_string_equal(d.funcs.rows[3].name, "old_helper");
	assert_int_equal(d.funcs.rows[3].side, MF_MDIFF_BEFORE_ONLY);
	mf_mdiff_free(&d);
	mf_mrun_free(&b);
	mf_mrun_free(&a);
	if (dir == tmpl) {
		unlink(pb);
		unlink(pa);
		unlink(pi);
	}
	rmdir(tmpl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(three_to_one),      cmocka_unit_test(chains_inclusive),
		cmocka_unit_test(chains_one_side),   cmocka_unit_test(order_and_absolute),
		cmocka_unit_test(folded_pairs),      cmocka_unit_test(csv_json_text),
		cmocka_unit_test(refused_and_empty), cmocka_unit_test(fixtures),
	};
	g_st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
