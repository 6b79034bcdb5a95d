/* SPDX-License-Identifier: MIT */
/*
 * mfstat measure reports (aggregate.c, mreport*.c) on hand-made runs: profile
 * shares, itlb on the software path and with ITLB + STLB streams, a run
 * without samples, cutoffs, line versus ip attribution, the cache-line
 * layout of Function Details, CSV tables and JSON.  Golden files live in
 * tests/data/mreport/ (MFSTAT_UPDATE=1 rewrites them); the source directory
 * in them is written as @SRCDIR@.
 */
#include <errno.h>
#include <math.h>
#include <sys/stat.h>

#include <jansson.h>

#include "testutil.h"

#include "mfstat/measure/aggregate.h"
#include "mfstat/measure/report.h"
#include "mfstat/measure/run.h"

#include "mchain.h"

#define DATA_DIR MFSTAT_SOURCE_DIR "/tests/data/mreport"
#define DEMO_SRC DATA_DIR "/demo.c"
#define T0 INT64_C(1741046400000000) /* 2025-03-04T00:00:00Z */

/* ---- a fake symbolizer over a fixed layout of the module "demo" ---------------- */

static const struct fdef {
	const char *name;
	uint64_t start, size;
} fdefs[] = {
	/* hot's last cache line 0x11c0..0x1200 straddles into cold (0x11e0) */
	{"hot", 0x1100, 0xe0}, {"cold", 0x11e0, 0x60}, {"f1", 0x3000, 0x100}, {"f2", 0x3100, 0x100},
	{"f3", 0x3200, 0x100}, {"f4", 0x3300, 0x100},  {"f5", 0x3400, 0x100},
};

/* The DWARF line rows of demo.c (see tests/data/mreport/demo.c for the text). */
static const struct ldef {
	uint64_t addr;
	uint32_t line;
	bool inl;
} ldefs[] = {
	{0x1100, 10, false}, {0x1110, 11, false}, {0x1130, 12, false}, {0x1150, 13, false},
	{0x1170, 14, false}, {0x11a0, 15, false}, {0x11c0, 11, false}, {0x11d0, 16, false},
	{0x11e0, 20, false}, {0x1200, 21, true},  {0x1220, 22, false},
};

static const struct fdef *fdef_at(uint64_t a)
{
	size_t i;
	for (i = 0; i < sizeof(fdefs) / sizeof(fdefs[0]); i++)
		if (a >= fdefs[i].start && a < fdefs[i].start + fdefs[i].size)
			return &fdefs[i];
	return NULL;
}

static const struct ldef *ldef_at(uint64_t a)
{
	const struct ldef *best = NULL;
	size_t i;
	for (i = 0; i < sizeof(ldefs) / sizeof(ldefs[0]); i++)
		if (ldefs[i].addr <= a && a < 0x1240)
			best = &ldefs[i];
	return best;
}

static void add_sym(struct mf_mrun *run, uint32_t mod, uint64_t addr)
{
	const struct fdef *f = fdef_at(addr);
	const struct ldef *l = ldef_at(addr);
	struct mf_msym *s = mf_mrun_add_sym(run);
	assert_non_null(s);
	s->mod = mod;
	s->addr = addr;
	if (f) {
		s->func = mf_mrun_str(run, f->name);
		s->func_start = f->start;
		s->func_size = f->size;
	}
	if (l) {
		s->file = mf_mrun_str(run, DEMO_SRC);
		s->line = l->line;
		s->flags = l->inl ? MF_SYM_INLINE : 0;
	}
}

/* What the symbolizer does for module "demo": every sampled address and its line start, and the rows. */
static void symbolize(struct mf_mrun *run, uint32_t demo)
{
	size_t i;
	for (i = 0; i < run->nsamples; i++) {
		const struct mf_msample *s = &run->samples[i];
		if (s->mod != demo || (s->flags & MF_MS_KERNEL))
			continue;
		add_sym(run, demo, s->vaddr);
		add_sym(run, demo, s->vaddr & ~(uint64_t)(run->line_size - 1));
	}
	for (i = 0; i < sizeof(ldefs) / sizeof(ldefs[0]); i++) {
		struct mf_msrc *r = mf_mrun_add_src(run);
		assert_non_null(r);
		r->mod = demo;
		r->addr = ldefs[i].addr;
		r->file = mf_mrun_str(run, DEMO_SRC);
		r->line = ldefs[i].line;
		r->flags = ldefs[i].inl ? MF_SYM_INLINE : 0;
	}
	mf_mrun_sort_syms(run);
}

/* ---- building runs --------------------------------------------------------------- */

static void base_run(struct mf_mrun *run, const char *measurement)
{
	char *argv[] = {"./demo", "3", "two words"};
	mf_mrun_init(run);
	snprintf(run->measurement, sizeof(run->measurement), "%s", measurement);
	assert_int_equal(mf_mrun_set_argv(run, 3, argv), 0);
	run->pid = 4242;
	run->wait_status = 0; /* exit 0 */
	run->start_us = T0 + 1500000;
	run->wall_s = 2.0;
	run->user_s = 1.25;
	run->sys_s = 0.125;
	snprintf(run->host, sizeof(run->host), "testhost");
	snprintf(run->arch, sizeof(run->arch), "x86_64");
	snprintf(run->cpu_model, sizeof(run->cpu_model), "Test CPU @ 2.00GHz");
	snprintf(run->kernel, sizeof(run->kernel), "6.1.0-test");
	run->ncpus = 4;
	run->vm = 1;
	snprintf(run->privilege, sizeof(run->privilege), "user");
	run->line_size = 64;
	snprintf(run->line_size_source, sizeof(run->line_size_source), "sysfs coherency_line_size");
	snprintf(run->database, sizeof(run->database), ".mfstat/%s-test.mfdb", measurement);
}

static uint32_t add_stream(struct mf_mrun *run, const char *name, int role, uint64_t period, bool clock)
{
	struct mf_mstream *s = mf_mrun_add_stream(run);
	assert_non_null(s);
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->role = role;
	s->period = period;
	s->clock = clock;
	s->id = 100 + run->nstreams;
	return (uint32_t)(run->nstreams - 1);
}

static void add_count(struct mf_mrun *run, const char *name, const char *unit, uint64_t v, int status, const char *why)
{
	struct mf_mcount *c = mf_mrun_add_count(run);
	assert_non_null(c);
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->unit, sizeof(c->unit), "%s", unit);
	c->value = v;
	c->status = status;
	c->enabled = 1000;
	c->running = status == MF_CNT_SCALED ? 500 : status == MF_CNT_OK ? 1000 : 0;
	snprintf(c->why, sizeof(c->why), "%s", why ? why : "");
}

static void samples(struct mf_mrun *run, uint32_t stream, uint32_t mod, uint64_t vaddr, uint32_t tid, uint32_t flags,
		    int n)
{
	int i;
	for (i = 0; i < n; i++) {
		struct mf_msample *s = mf_mrun_add_sample(run);
		assert_non_null(s);
		s->pid = 4242;
		s->tid = tid;
		s->time = (uint64_t)run->nsamples * 1000;
		/* kernel and unmapped samples keep their absolute address (the model's vaddr = ip) */
		s->ip = mod == MF_MOD_NONE ? vaddr : 0x555555554000 + vaddr;
		s->vaddr = vaddr;
		s->off = vaddr;
		s->mod = mod;
		s->stream = stream;
		s->period = run->streams[stream].period;
		s->flags = flags;
	}
}

/* The profile run: hot 75 samples over three cache lines, cold 25 (one line, inlined). */
static void profile_run(struct mf_mrun *run)
{
	uint32_t st, demo;
	base_run(run, "profile");
	snprintf(run->spec_requested, sizeof(run->spec_requested), "1000000, 5%%, cycles");
	snprintf(run->spec_used, sizeof(run->spec_used), "1ms, 5%%, task_clock");
	run->rung = MF_RUNG_SOFTWARE;
	snprintf(run->mode, sizeof(run->mode),
		 "fallback: no hardware counters (cycles: ENOENT, hypervisor: yes); sampling software events "
		 "task-clock");
	run->variation = 50000;
	run->seed = 7;
	st = add_stream(run, "task-clock", MF_ROLE_CPU, 1000000, true);
	demo = mf_mrun_module(run, "/opt/demo/demo");
	assert_true(mf_mrun_thread(run, 4242, 4242, "demo") != NULL);
	samples(run, st, demo, 0x1108, 4242, 0, 30); /* line 0x1100 */
	samples(run, st, demo, 0x1150, 4242, 0, 20); /* line 0x1140, adjacent */
	samples(run, st, demo, 0x11c8, 4242, 0, 25); /* line 0x11c0, after a gap */
	samples(run, st, demo, 0x1208, 4242, 0, 25); /* cold, inlined line 21 */
	add_count(run, "task-clock", "ns", 1000000000, MF_CNT_OK, NULL);
	add_count(run, "cycles", "events", 0, MF_CNT_NOT_SUPPORTED, "ENOENT: no hardware counter");
	symbolize(run, demo);
}

/* itlb without a PMU (§4 rung 3): task-clock and page faults, two threads, odd modules. */
static void itlb_sw_run(struct mf_mrun *run)
{
	uint32_t cpu, pf, demo, lib;
	base_run(run, "itlb");
	run->wait_status = 9; /* killed by SIGKILL */
	snprintf(run->spec_requested, sizeof(run->spec_requested), "10000, 5%%, itlb_miss");
	snprintf(run->spec_used, sizeof(run->spec_used), "1ms, 5%%, task_clock; page_faults");
	run->rung = MF_RUNG_SOFTWARE;
	snprintf(run->mode, sizeof(run->mode),
		 "fallback: no hardware counters (cycles: ENOENT, hypervisor: yes); sampling software events "
		 "task-clock and page-faults");
	run->lost = 3;
	run->throttles = 2;
	run->unmapped = 1;
	mf_mrun_warn(run, "binary /opt/demo/demo changed since the run (build id differs)");
	cpu = add_stream(run, "task-clock", MF_ROLE_CPU, 1000000, true);
	pf = add_stream(run, "page-faults", MF_ROLE_FAULT, 1, false);
	demo = mf_mrun_module(run, "/opt/demo/demo");
	lib = mf_mrun_module(run, "/usr/lib/libstripped.so");
	assert_true(mf_mrun_thread(run, 4242, 4242, "demo") != NULL);
	assert_true(mf_mrun_thread(run, 4242, 4243, "worker") != NULL);
	samples(run, cpu, demo, 0x1108, 4242, 0, 50);
	samples(run, cpu, demo, 0x1208, 4243, 0, 20);
	samples(run, pf, demo, 0x1108, 4242, MF_MS_IFETCH, 6);
	samples(run, pf, demo, 0x1150, 4242, MF_MS_IFETCH, 2);
	samples(run, pf, lib, 0x2044, 4243, MF_MS_IFETCH, 4); /* stripped: libstripped.so+0x2040 */
	samples(run, pf, demo, 0x1108, 4242, 0, 3);           /* data faults: not misses */
	samples(run, cpu, MF_MOD_NONE, 0x7000, 4242, 0, 1);   /* unmapped */
	samples(run, cpu, MF_MOD_NONE, 0xffffffff81000123, 4242, MF_MS_KERNEL, 1);
	add_count(run, "instructions", "events", 0, MF_CNT_NOT_SUPPORTED, "ENOENT: no hardware counter");
	add_count(run, "page-faults", "events", 40, MF_CNT_OK, NULL);
	add_count(run, "task-clock", "ns", 1500000000, MF_CNT_SCALED, NULL);
	symbolize(run, demo);
}

/* itlb with PEBS-like ITLB and STLB streams: hot L2 5 / HPW 3, cold STLB > ITLB (clamped). */
static void itlb_hw_run(struct mf_mrun *run)
{
	uint32_t it, stl, demo;
	base_run(run, "itlb");
	run->wait_status = 3 << 8; /* exit 3 */
	snprintf(run->spec_requested, sizeof(run->spec_requested), "10000, 5%%, itlb_miss");
	snprintf(run->spec_used, sizeof(run->spec_used), "10000, 5%%, itlb_miss");
	run->variation = 500;
	run->seed = 99;
	snprintf(run->mode, sizeof(run->mode), "precise");
	it = add_stream(run, "FRONTEND_RETIRED.ITLB_MISS", MF_ROLE_ITLB, 10000, false);
	stl = add_stream(run, "FRONTEND_RETIRED.STLB_MISS", MF_ROLE_STLB, 10000, false);
	run->streams[it].precise = 3;
	run->streams[stl].precise = 3;
	demo = mf_mrun_module(run, "/opt/demo/demo");
	assert_true(mf_mrun_thread(run, 4242, 4242, "demo") != NULL);
	samples(run, it, demo, 0x1108, 4242, 0, 8);
	samples(run, stl, demo, 0x1108, 4242, 0, 3);
	samples(run, it, demo, 0x1208, 4242, 0, 1);
	samples(run, stl, demo, 0x1208, 4242, 0, 2);
	add_count(run, "instructions", "events", 1000000000, MF_CNT_OK, NULL);
	add_count(run, "FRONTEND_RETIRED.ITLB_MISS", "events", 90000, MF_CNT_OK, NULL);
	symbolize(run, demo);
}

/* Five functions of 40, 30, 20, 9.5 and 0.5 percent. */
static void cutoff_run(struct mf_mrun *run)
{
	static const int n[] = {400, 300, 200, 95, 5};
	uint32_t st, demo;
	size_t i;
	base_run(run, "profile");
	st = add_stream(run, "cycles", MF_ROLE_CPU, 1000000, false);
	demo = mf_mrun_module(run, "/opt/demo/demo");
	for (i = 0; i < 5; i++)
		samples(run, st, demo, 0x3008 + i * 0x100, 4242, 0, n[i]);
	symbolize(run, demo);
}

/* ---- running the writers ----------------------------------------------------------- */

static struct mf_mreport_opts opts(int format)
{
	struct mf_mreport_opts o = {0};
	o.format = format;
	o.summary = (struct mf_cutoff){1, 100, 5};
	o.detail = (struct mf_cutoff){5, 90, 1};
	return o;
}

/* s with the source directory replaced by @SRCDIR@ (frees s). */
static char *subst(char *s)
{
	size_t n = strlen(MFSTAT_SOURCE_DIR), hits = 0;
	char *out, *p, *q;
	/* The source directory may be shorter than its placeholder (a clone in /tmp/ck). */
	for (p = s; (p = strstr(p, MFSTAT_SOURCE_DIR)) != NULL; p += n)
		hits++;
	out = malloc(strlen(s) + hits * 8 + 1);
	assert_non_null(out);
	for (p = s, q = out; *p;) {
		if (strncmp(p, MFSTAT_SOURCE_DIR, n) == 0) {
			memcpy(q, "@SRCDIR@", 8);
			q += 8;
			p += n;
		} else {
			*q++ = *p++;
		}
	}
	*q = '\0';
	free(s);
	return out;
}

/* The report as a string (caller frees), the source directory written as @SRCDIR@. */
static char *report(const struct mf_mrun *run, const struct mf_mreport_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct mf_error e;
	assert_non_null(fp);
	mf_error_clear(&e);
	if (mf_mreport_write(fp, run, o, &e) != 0)
		fail_msg("mf_mreport_write: %s", e.msg);
	fclose(fp);
	return subst(buf);
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long n;
	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static void golden(const char *name, const char *got)
{
	char path[512];
	const char *upd = getenv("MFSTAT_UPDATE");
	char *want;
	size_t line = 1, i;
	snprintf(path, sizeof(path), "%s/%s", DATA_DIR, name);
	if (upd && *upd && strcmp(upd, "0") != 0) {
		FILE *fp = fopen(path, "wb");
		assert_non_null(fp);
		fputs(got, fp);
		fclose(fp);
		return;
	}
	want = slurp(path);
	if (!want)
		fail_msg("%s is missing (MFSTAT_UPDATE=1 writes it)", path);
	for (i = 0; want[i] && want[i] == got[i]; i++)
		if (want[i] == '\n')
			line++;
	if (want[i] != got[i]) {
		const char *w = want + i, *g = got + i;
		while (w > want && w[-1] != '\n')
			w--;
		while (g > got && g[-1] != '\n')
			g--;
		fail_msg("%s differs at line %zu:\n  want: %.160s\n  got:  %.160s\n(MFSTAT_UPDATE=1 rewrites it)", path,
			 line, w, g);
	}
	free(want);
}

/* The text of one section: from its title line to the next blank line. */
static char *section(const char *text, const char *title)
{
	char key[128];
	const char *s, *e;
	char *out;
	snprintf(key, sizeof(key), "\n%s\n", title);
	s = strstr(text, key);
	if (!s)
		return NULL;
	s += 1;
	e = strstr(s, "\n\n");
	if (!e)
		e = s + strlen(s);
	out = malloc((size_t)(e - s) + 2);
	assert_non_null(out);
	memcpy(out, s, (size_t)(e - s) + 1);
	out[e - s + 1] = '\0';
	return out;
}

/* The line of a section that holds needle (copied into buf), or NULL. */
static const char *line_with(const char *text, const char *needle, char *buf, size_t n)
{
	const char *p = strstr(text, needle), *s, *e;
	if (!p)
		return NULL;
	for (s = p; s > text && s[-1] != '\n'; s--)
		;
	e = strchr(p, '\n');
	if (!e)
		e = p + strlen(p);
	snprintf(buf, n, "%.*s", (int)(e - s), s);
	return buf;
}

/* Data rows of a summary table: lines between the second and third rule. */
static int table_rows(const char *sec)
{
	int rules = 0, rows = 0;
	const char *p = sec;
	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len > 3 && strncmp(p, "---", 3) == 0)
			rules++;
		else if (rules == 2 && len)
			rows++;
		p = e ? e + 1 : NULL;
	}
	return rows;
}

/* Splits whitespace-separated fields of a line into f (modified in place). */
static int fields(char *line, char **f, int max)
{
	int n = 0;
	char *tok = strtok(line, " ");
	while (tok && n < max) {
		f[n++] = tok;
		tok = strtok(NULL, " ");
	}
	return n;
}

/*
 * The shape of one function's details: D dash row, T tilde row, R a cache
 * line's data row, S a further statement.
 */
static void detail_shape(const char *sec, const char *head, char *shape, size_t n)
{
	const char *p = strstr(sec, head);
	size_t k = 0;
	assert_non_null(p);
	p = strchr(p, '\n') + 1;
	while (*p && k + 1 < n) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char l[512];
		snprintf(l, sizeof(l), "%.*s", (int)len, p);
		if (strncmp(l, " - -", 4) == 0)
			shape[k++] = 'D';
		else if (strncmp(l, " ~ ~", 4) == 0)
			shape[k++] = 'T';
		else if (strstr(l, "+0x") || strstr(l, " -0x"))
			shape[k++] = 'R';
		else if (strstr(l, "  >") && !strstr(l, "Function Totals"))
			shape[k++] = 'S';
		else if (strncmp(l, "---", 3) == 0 || (strstr(l, ", 0x") && l[len - 1] == ']'))
			break; /* the next function or the end */
		if (!e)
			break;
		p = e + 1;
	}
	shape[k] = '\0';
}

/* ---- tests ------------------------------------------------------------------------- */

static void profile_shares(void **state)
{
	struct mf_mrun run;
	struct mf_mreport_opts o = opts(MF_MFMT_TEXT);
	char *txt, *fs, *det, b[512], *f[16];
	(void)state;
	profile_run(&run);
	txt = report(&run, &o);
	golden("profile.txt", txt);

	assert_non_null(strstr(txt, "Target:           ./demo 3 'two words' (pid 4242, exit 0)\n"));
	assert_non_null(
		strstr(txt, "Run:              2025-03-04T00:00:01Z, wall 2.000 s, user 1.250 s, system 0.125 s\n"));
	assert_non_null(strstr(txt, "Variation:        50000, applied per wakeup (seed 7)\n"));
	assert_non_null(strstr(txt, "Granularity:      64-byte cache lines (sysfs coherency_line_size)\n"));
	assert_null(strstr(txt, "Thread Summary")); /* one thread */
	/* CPU utilisation = 1e9 ns task-clock / 2 s wall */
	assert_non_null(line_with(txt, "CPU utilisation", b, sizeof(b)));
	assert_non_null(strstr(b, " 0.500 "));
	assert_non_null(line_with(txt, " cycles ", b, sizeof(b)));
	assert_non_null(strstr(b, "n/a"));
	assert_non_null(strstr(b, "not supported (ENOENT: no hardware counter)"));

	fs = section(txt, "Function Summary");
	assert_non_null(fs);
	assert_non_null(strstr(fs, "(ms)")); /* clock stream: estimated events in ms */
	assert_int_equal(table_rows(fs), 2);
	assert_non_null(line_with(fs, "demo::hot", b, sizeof(b)));
	assert_int_equal(fields(b, f, 16), 6);
	assert_string_equal(f[0], "75.00");
	assert_string_equal(f[1], "75.00");
	assert_string_equal(f[2], "75");
	assert_string_equal(f[3], "75.000"); /* 75 samples x 1 ms */
	assert_string_equal(f[5], "demo.c");
	assert_non_null(line_with(fs, "demo::cold", b, sizeof(b)));
	assert_int_equal(fields(b, f, 16), 6);
	assert_string_equal(f[0], "25.00");
	assert_string_equal(f[1], "100.00");
	/* hot comes first */
	assert_true(strstr(fs, "demo::hot") < strstr(fs, "demo::cold"));

	det = section(txt, "Function Details");
	assert_non_null(det);
	assert_non_null(strstr(det, "75.00 [demo::hot, 0x1100, demo.c]"));
	assert_non_null(strstr(det, " [@SRCDIR@/tests/data/mreport/demo.c]"));
	/* first statement of line 0x1100 with its source text, data beside it */
	assert_non_null(line_with(det, "+0x0 ", b, sizeof(b)));
	assert_non_null(strstr(b, " 30 "));
	assert_non_null(strstr(b, "10  > double acc = 0;"));
	assert_non_null(strstr(det, "11  > for (int i = 0; i < n; i++) {"));
	/* cold's line is inlined: approximate */
	assert_non_null(line_with(det, "~21  > sink += i;", b, sizeof(b)));
	free(det);
	free(fs);
	free(txt);

	o.format = MF_MFMT_CSV;
	txt = report(&run, &o);
	golden("profile.csv", txt);
	assert_non_null(strstr(txt,
			       "function,module,file,start_address,percent,cumulative_percent,samples,"
			       "estimated_events,approximate,inclusive_percent\n"));
	assert_non_null(strstr(txt, "hot,demo,@SRCDIR@/tests/data/mreport/demo.c,0x1100,75,75,75,75000000,0,\n"));
	assert_non_null(strstr(txt, "cold,demo,@SRCDIR@/tests/data/mreport/demo.c,0x11e0,25,100,25,25000000,0,\n"));
	free(txt);
	mf_mrun_free(&run);
}

static json_t *parse_json(const char *txt)
{
	json_error_t je;
	json_t *j = json_loads(txt, 0, &je);
	if (!j)
		fail_msg("JSON does not parse: %s at line %d column %d", je.text, je.line, je.column);
	return j;
}

static json_t *row_named(json_t *arr, const char *key, const char *name)
{
	size_t i;
	json_t *r;
	json_array_foreach(arr, i, r)
	{
		const char *s = json_string_value(json_object_get(r, key));
		if (s && strcmp(s, name) == 0)
			return r;
	}
	return NULL;
}

static void profile_json(void **state)
{
	struct mf_mrun run;
	struct mf_mreport_opts o = opts(MF_MFMT_JSON);
	char *txt;
	json_t *j, *funcs, *r, *lines, *cls;
	(void)state;
	profile_run(&run);
	txt = report(&run, &o);
	golden("profile.json", txt);
	j = parse_json(txt);
	assert_int_equal(json_integer_value(json_object_get(j, "schema")), 1);
	assert_string_equal(json_string_value(json_object_get(j, "measurement")), "profile");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "fallback"), "rung")), 3);
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(j, "fallback"), "reason")),
			       "no hardware counters"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "run"), "command")),
			    "./demo 3 'two words'");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "sampling"), "variation_applied")),
			    "per wakeup");
	funcs = json_object_get(j, "functions");
	assert_int_equal(json_array_size(funcs), 2);
	r = json_array_get(funcs, 0);
	assert_string_equal(json_string_value(json_object_get(r, "function")), "hot");
	assert_string_equal(json_string_value(json_object_get(r, "module")), "demo");
	assert_string_equal(json_string_value(json_object_get(r, "start_address")), "0x1100");
	assert_true(fabs(json_number_value(json_object_get(r, "percent")) - 75.0) < 1e-9);
	assert_int_equal(json_integer_value(json_object_get(r, "samples")), 75);
	assert_false(json_boolean_value(json_object_get(r, "approximate")));
	/* lines: hot has source lines 10 (30), 13 (20), 11 (25); cold 21 (25, inlined: approximate) */
	lines = json_object_get(j, "lines");
	assert_int_equal(json_array_size(lines), 4);
	r = json_array_get(lines, 0);
	assert_int_equal(json_integer_value(json_object_get(r, "line")), 10);
	assert_int_equal(json_integer_value(json_object_get(r, "samples")), 30);
	r = row_named(lines, "function", "cold");
	assert_non_null(r);
	assert_int_equal(json_integer_value(json_object_get(r, "line")), 21);
	assert_true(json_boolean_value(json_object_get(r, "approximate")));
	cls = json_object_get(j, "cache_lines");
	assert_int_equal(json_array_size(cls), 4);
	r = json_array_get(cls, 0);
	assert_string_equal(json_string_value(json_object_get(r, "start_address")), "0x1100");
	assert_int_equal(json_integer_value(json_object_get(r, "offset")), 0);
	r = json_array_get(cls, 1); /* 25 samples, tied with 0x1200: the lower address first */
	assert_string_equal(json_string_value(json_object_get(r, "start_address")), "0x11c0");
	assert_int_equal(json_integer_value(json_object_get(r, "offset")), 0xc0);
	r = json_array_get(cls, 2); /* cold's line 0x1200 starts in inlined code: approximate */
	assert_string_equal(json_string_value(json_object_get(r, "start_address")), "0x1200");
	assert_true(json_boolean_value(json_object_get(r, "approximate")));
	assert_int_equal(json_array_size(json_object_get(j, "metrics")), 3); /* 2 counts + CPU utilisation */
	assert_null(row_named(json_object_get(j, "metrics"), "name", "page_faults_per_second"));
	r = row_named(json_object_get(j, "metrics"), "name", "cycles");
	assert_true(json_is_null(json_object_get(r, "value")));
	assert_string_equal(json_string_value(json_object_get(r, "status")), "not_supported");
	json_decref(j);
	free(txt);
	mf_mrun_free(&run);
}

static void itlb_software(void **state)
{
	struct mf_mrun run;
	struct mf_mreport_opts o = opts(MF_MFMT_TEXT);
	char *txt, *fs, b[512], *f[20];
	json_t *j, *r;
	(void)state;
	itlb_sw_run(&run);
	txt = report(&run, &o);
	golden("itlb_sw.txt", txt);
	assert_non_null(strstr(txt, "(pid 4242, killed by signal 9 (SIGKILL))\n"));
	assert_non_null(strstr(txt,
			       "Warning:          without hardware counters these are page faults, mostly "
			       "start-up demand paging, not steady-state TLB behaviour\n"));
	assert_non_null(strstr(txt, "page faults on data: 3"));
	assert_non_null(strstr(txt, "Warning:          3 records lost"));
	assert_non_null(strstr(txt, "Warning:          sampling throttled 2 times"));
	assert_non_null(strstr(txt, "Warning:          binary /opt/demo/demo changed since the run"));
	assert_non_null(strstr(txt, "Warning:          task-clock multiplexed: counted 50.00% of the time"));
	assert_non_null(strstr(txt, "\nThread Summary\n")); /* two threads */
	/* page faults per second = 40 / 2 s */
	assert_non_null(line_with(txt, "Page faults per second", b, sizeof(b)));
	assert_non_null(strstr(b, " 20.000 "));

	fs = section(txt, "Function Summary");
	assert_non_null(fs);
	assert_non_null(strstr(fs, "% Total"));
	/* misses = instruction-fetch faults: demo::hot 8 (6 + 2) of 12 */
	assert_non_null(line_with(fs, "demo::hot", b, sizeof(b)));
	assert_int_equal(fields(b, f, 20), 12);
	assert_string_equal(f[0], "66.67");
	assert_string_equal(f[2], "8");   /* sampled misses */
	assert_string_equal(f[3], "n/a"); /* L2 */
	assert_string_equal(f[4], "n/a"); /* HPW */
	assert_string_equal(f[5], "8");   /* soft = misses */
	assert_string_equal(f[6], "n/a");
	assert_string_equal(f[7], "n/a");
	assert_string_equal(f[8], "100.00");
	assert_string_equal(f[9], "50"); /* CPU samples */
	assert_non_null(line_with(fs, "libstripped.so+0x2040", b, sizeof(b)));
	assert_int_equal(fields(b, f, 20), 11); /* no file */
	assert_string_equal(f[0], "33.33");
	assert_string_equal(f[1], "100.00");
	/* cold has CPU samples but no misses: % fill n/a, never 0 */
	assert_non_null(line_with(fs, "demo::cold", b, sizeof(b)));
	assert_int_equal(fields(b, f, 20), 12);
	assert_string_equal(f[0], "0.00");
	assert_string_equal(f[2], "0");
	assert_string_equal(f[8], "n/a");
	assert_string_equal(f[9], "20");
	assert_non_null(strstr(fs, "[kernel.kallsyms]+0xffffffff81000100"));
	assert_non_null(strstr(fs, "[unknown]+0x7000"));
	free(fs);
	free(txt);

	o.format = MF_MFMT_CSV;
	txt = report(&run, &o);
	assert_non_null(strstr(txt,
			       "function,module,file,start_address,percent,cumulative_percent,sampled_misses,"
			       "l2_fills,hpw_fills,soft_fills,pct_l2_fill,pct_hpw_fill,pct_soft_fill,cpu_samples,"
			       "approximate,inclusive_percent\n"));
	assert_non_null(strstr(txt,
			       "hot,demo,@SRCDIR@/tests/data/mreport/demo.c,0x1100,66.6666666666667,"
			       "66.6666666666667,8,,,8,,,100,50,0,\n"));
	assert_non_null(
		strstr(txt, "libstripped.so+0x2040,libstripped.so,,0x2040,33.3333333333333,100,4,,,4,,,100,0,0,\n"));
	free(txt);

	o.format = MF_MFMT_JSON;
	txt = report(&run, &o);
	golden("itlb_sw.json", txt);
	j = parse_json(txt);
	r = row_named(json_object_get(j, "functions"), "function", "hot");
	assert_non_null(r);
	assert_true(json_is_null(json_object_get(r, "l2_fills")));
	assert_true(json_is_null(json_object_get(r, "pct_hpw_fill")));
	assert_int_equal(json_integer_value(json_object_get(r, "soft_fills")), 8);
	assert_true(fabs(json_number_value(json_object_get(r, "pct_soft_fill")) - 100.0) < 1e-9);
	r = row_named(json_object_get(j, "functions"), "function", "cold");
	assert_true(json_is_null(json_object_get(r, "pct_soft_fill")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "run"), "data_faults")), 3);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "run"), "exit_status")),
			    "killed by signal 9 (SIGKILL)");
	assert_int_equal(json_array_size(json_object_get(j, "threads")), 2);
	r = row_named(json_object_get(j, "threads"), "comm", "worker");
	assert_non_null(r);
	assert_int_equal(json_integer_value(json_object_get(r, "sampled_misses")), 4);
	assert_int_equal(json_array_size(json_object_get(json_object_get(j, "run"), "warnings")), 1);
	json_decref(j);
	free(txt);
	mf_mrun_free(&run);
}

static void itlb_hardware(void **state)
{
	struct mf_mrun run;
	struct mf_mreport_opts o = opts(MF_MFMT_TEXT);
	char *txt, *fs, *det, b[512], *f[20];
	json_t *j, *r;
	(void)state;
	itlb_hw_run(&run);
	txt = report(&run, &o);
	golden("itlb_hw.txt", txt);
	assert_non_null(strstr(txt, "(pid 4242, exit 3)\n"));
	assert_null(strstr(txt, "without hardware counters"));
	assert_null(strstr(txt, "Page faults:"));
	/* 1000 * 90000 / 1e9 */
	assert_non_null(line_with(txt, "ITLB misses per 1000 instructions", b, sizeof(b)));
	assert_non_null(strstr(b, " 0.090 "));
	fs = section(txt, "Function Summary");
	assert_non_null(fs);
	assert_non_null(line_with(fs, "demo::hot", b, sizeof(b)));
	assert_int_equal(fields(b, f, 20), 12);
	assert_string_equal(f[0], "88.89"); /* 8 of 9 ITLB misses */
	assert_string_equal(f[2], "8");
	assert_string_equal(f[3], "5");   /* L2 = 8 - 3 */
	assert_string_equal(f[4], "3");   /* HPW */
	assert_string_equal(f[5], "n/a"); /* no fault stream */
	assert_string_equal(f[6], "62.50");
	assert_string_equal(f[7], "37.50");
	assert_string_equal(f[8], "n/a");
	assert_string_equal(f[9], "n/a"); /* no CPU stream */
	assert_non_null(line_with(fs, "demo::cold", b, sizeof(b)));
	assert_int_equal(fields(b, f, 20), 12);
	assert_string_equal(f[2], "1");
	assert_string_equal(f[3], "~0"); /* 1 - 2 clamped, marked */
	assert_string_equal(f[4], "2");
	assert_string_equal(f[6], "0.00");
	assert_string_equal(f[7], "100.00");
	det = section(txt, "Function Details");
	assert_non_null(det);
	/* the clamped cache line's statement is approximate */
	assert_non_null(line_with(det, "+0x20", b, sizeof(b)));
	assert_non_null(strstr(b, "~21  > sink += i;"));
	free(det);
	free(fs);
	free(txt);

	o.format = MF_MFMT_CSV;
	txt = report(&run, &o);
	golden("itlb_hw.csv", txt);
	assert_non_null(
		strstr(txt,
		       "cold,demo,@SRCDIR@/tests/data/mreport/demo.c,0x11e0,11.1111111111111,100,1,0,2,,0,100,,,1,\n"));
	free(txt);
	o.format = MF_MFMT_JSON;
	txt = report(&run, &o);
	j = parse_json(txt);
	r = row_named(json_object_get(j, "functions"), "function", "cold");
	assert_int_equal(json_integer_value(json_object_get(r, "l2_fills")), 0);
	assert_true(json_boolean_value(json_object_get(r, "approximate")));
	assert_true(json_is_null(json_object_get(r, "soft_fills")));
	assert_true(json_is_null(json_object_get(json_object_get(j, "fallback"), "reason")));
	r = row_named(json_object_get(j, "metrics"), "name", "itlb_misses_per_kilo_instruction");
	assert_non_null(r);
	assert_true(fabs(json_number_value(json_object_get(r, "value")) - 0.09) < 1e-12);
	json_decref(j);
	free(txt);
	mf_mrun_free(&run);
}

static void zero_samples(void **state)
{
	struct mf_mrun run;
	struct mf_mreport_opts o = opts(MF_MFMT_TEXT);
	char *txt, *fs, b[512], *f[20];
	json_t *j;
	uint32_t it, demo;
	(void)state;

	/* Nothing sampled at all. */
	base_run(&run, "itlb");
	add_stream(&run, "FRONTEND_RETIRED.ITLB_MISS", MF_ROLE_ITLB, 10000, false);
	add_stream(&run, "FRONTEND_RETIRED.STLB_MISS", MF_ROLE_STLB, 10000, false);
	txt = report(&run, &o);
	golden("zero.txt", txt);
	assert_non_null(strstr(txt, "Sorted by:        CPU samples (the run has no sampled ITLB misses)"));
	assert_non_null(strstr(txt, "(no exact counts)"));
	fs = section(txt, "Function Summary");
	assert_int_equal(table_rows(fs), 0);
	assert_non_null(strstr(fs, "% Total"));
	assert_non_null(strstr(fs, "Samples"));
	free(fs);
	free(txt);
	o.format = MF_MFMT_CSV;
	txt = report(&run, &o);
	assert_string_equal(txt,
			    "function,module,file,start_address,percent,cumulative_percent,sampled_misses,"
			    "l2_fills,hpw_fills,soft_fills,pct_l2_fill,pct_hpw_fill,pct_soft_fill,cpu_samples,"
			    "approximate,inclusive_percent\n");
	free(txt);
	o.format = MF_MFMT_JSON;
	txt = report(&run, &o);
	j = parse_json(txt);
	assert_int_equal(json_array_size(json_object_get(j, "functions")), 0);
	assert_int_equal(json_array_size(json_object_get(j, "cache_lines")), 0);
	json_decref(j);
	free(txt);
	mf_mrun_free(&run);

	/* Samples but a zero total: STLB samples only, no misses, no CPU stream to sort by. */
	base_run(&run, "itlb");
	add_stream(&run, "FRONTEND_RETIRED.ITLB_MISS", MF_ROLE_ITLB, 10000, false);
	it = add_stream(&run, "FRONTEND_RETIRED.STLB_MISS", MF_ROLE_STLB, 10000, false);
	demo = mf_mrun_module(&run, "/opt/demo/demo");
	samples(&run, it, demo, 0x1108, 4242, 0, 2);
	symbolize(&run, demo);
	o.format = MF_MFMT_TEXT;
	txt = report(&run, &o);
	fs = section(txt, "Function Summary");
	assert_non_null(line_with(fs, "demo::hot", b, sizeof(b)));
	assert_int_equal(fields(b, f, 20), 12);
	assert_string_equal(f[0], "n/a"); /* % Total of a zero total */
	assert_string_equal(f[1], "n/a");
	assert_string_equal(f[3], "~0");
	assert_string_equal(f[4], "2");
	assert_string_equal(f[6], "0.00");
	assert_string_equal(f[7], "100.00");
	assert_string_equal(f[9], "n/a");
	assert_non_null(strstr(txt, "\nFunction Details\n"));
	assert_non_null(strstr(txt, "n/a [demo::hot, 0x1100, demo.c]"));
	free(fs);
	free(txt);
	o.format = MF_MFMT_CSV;
	txt = report(&run, &o);
	assert_non_null(strstr(txt, "hot,demo,@SRCDIR@/tests/data/mreport/demo.c,0x1100,,,0,0,2,,0,100,,,1,\n"));
	free(txt);
	mf_mrun_free(&run);
}

static int summary_rows(const struct mf_mrun *run, struct mf_cutoff c)
{
	struct mf_mreport_opts o = opts(MF_MFMT_TEXT);
	char *txt, *fs;
	int n;
	o.summary = c;
	txt = report(run, &o);
	fs = section(txt, "Function Summary");
	assert_non_null(fs);
	n = table_rows(fs);
	free(fs);
	free(txt);
	return n;
}

static int detail_functions(const struct mf_mrun *run, struct mf_cutoff c)
{
	struct mf_mreport_opts o = opts(MF_MFMT_TEXT);
	char *txt, *det;
	const char *p;
	int n = 0;
	o.detail = c;
	txt = report(run, &o);
	det = section(txt, "Function Details");
	assert_non_null(det);
	for (p = det; (p = strstr(p, "Function Totals")); p++)
		n++;
	free(det);
	free(txt);
	return n;
}

static void cutoffs(void **state)
{
	struct mf_mrun run;
	struct mf_mreport_opts o = opts(MF_MFMT_TEXT);
	char *txt, *fs;
	(void)state;
	cutoff_run(&run);
	/* 40, 30, 20, 9.5, 0.5 % */
	assert_int_equal(summary_rows(&run, (struct mf_cutoff){1, 100, 5}), 5);  /* min wins over 0.5 < 1 */
	assert_int_equal(summary_rows(&run, (struct mf_cutoff){1, 100, 0}), 4);  /* 0.5 % is cut */
	assert_int_equal(summary_rows(&run, (struct mf_cutoff){10, 100, 1}), 3); /* 9.5 < 10 */
	assert_int_equal(summary_rows(&run, (struct mf_cutoff){1, 60, 1}), 2);   /* 70 before f3 > 60 */
	assert_int_equal(summary_rows(&run, (struct mf_cutoff){50, 100, 2}), 2); /* only min */
	assert_int_equal(summary_rows(&run, (struct mf_cutoff){0, 100, 0}), 5);
	assert_int_equal(detail_functions(&run, (struct mf_cutoff){5, 90, 1}), 4); /* 90 before f4 <= 90 */
	assert_int_equal(detail_functions(&run, (struct mf_cutoff){5, 80, 1}), 3);
	assert_int_equal(detail_functions(&run, (struct mf_cutoff){50, 100, 1}), 1);
	assert_int_equal(detail_functions(&run, (struct mf_cutoff){50, 100, 0}), 0);
	o.summary = (struct mf_cutoff){10, 100, 1};
	txt = report(&run, &o);
	fs = section(txt, "Function Summary");
	assert_non_null(strstr(fs,
			       "[Minimum function entries: 1, percent cutoff: 10.00, cumulative percent cutoff: "
			       "100.00]\n"));
	assert_non_null(strstr(fs, "demo::f3"));
	assert_null(strstr(fs, "demo::f4"));
	free(fs);
	free(txt);
	/* CSV holds every row whatever the cutoffs */
	o.format = MF_MFMT_CSV;
	txt = report(&run, &o);
	assert_non_null(strstr(txt, "\nf5,demo,,0x3400,0.5,100,5,5000000,0,\n"));
	free(txt);
	mf_mrun_free(&run);
}

static void attribution(void **state)
{
	struct mf_mrun run;
	struct mf_mreport_opts o = opts(MF_MFMT_JSON);
	char *txt, *det;
	json_t *j, *r;
	uint32_t st, demo;
	(void)state;
	base_run(&run, "profile");
	st = add_stream(&run, "cycles", MF_ROLE_CPU, 100000, false);
	demo = mf_mrun_module(&run, "/opt/demo/demo");
	samples(&run, st, demo, 0x1108, 4242, 0, 60); /* hot */
	samples(&run, st, demo, 0x11f0, 4242, 0, 30); /* cold's code in hot's last cache line 0x11c0 */
	samples(&run, st, demo, 0x1208, 4242, 0, 10); /* cold */
	symbolize(&run, demo);

	/* ip (the default, all options zero): each sample's own function */
	txt = report(&run, &o);
	j = parse_json(txt);
	r = row_named(json_object_get(j, "functions"), "function", "hot");
	assert_int_equal(json_integer_value(json_object_get(r, "samples")), 60);
	r = row_named(json_object_get(j, "functions"), "function", "cold");
	assert_int_equal(json_integer_value(json_object_get(r, "samples")), 40);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "run"), "attribution")), "ip");
	/* cold's share of line 0x11c0 starts before cold: offset -0x20 */
	r = row_named(json_object_get(j, "cache_lines"), "start_address", "0x11c0");
	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(r, "function")), "cold");
	assert_int_equal(json_integer_value(json_object_get(r, "offset")), -0x20);
	assert_int_equal(json_integer_value(json_object_get(r, "line")), 20);
	json_decref(j);
	free(txt);
	o.format = MF_MFMT_TEXT;
	txt = report(&run, &o);
	assert_non_null(strstr(txt, "Attribution:      ip (each sample goes to the function of its own address)\n"));
	det = section(txt, "Function Details");
	/* with ip, cold's part of line 0x11c0 starts at cold's first statement (line 20) */
	assert_non_null(strstr(det, " -0x20 "));
	free(det);
	free(txt);
	/* --attribute line (Caliper's rule): the straddling line goes to hot, which owns its first byte */
	o.attribute_line = true;
	o.format = MF_MFMT_JSON;
	txt = report(&run, &o);
	j = parse_json(txt);
	r = row_named(json_object_get(j, "functions"), "function", "hot");
	assert_int_equal(json_integer_value(json_object_get(r, "samples")), 90);
	r = row_named(json_object_get(j, "functions"), "function", "cold");
	assert_int_equal(json_integer_value(json_object_get(r, "samples")), 10);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "run"), "attribution")), "line");
	/* the source line stays the sample's own: cold's line 20, listed under hot */
	r = row_named(json_object_get(j, "lines"), "function", "hot");
	assert_non_null(r);
	json_decref(j);
	free(txt);
	o.format = MF_MFMT_TEXT;
	txt = report(&run, &o);
	assert_non_null(strstr(txt,
			       "Attribution:      line (a cache line and its samples go to the function owning "
			       "its first byte)\n"));
	det = section(txt, "Function Details");
	/* hot's straddling line shows all its statements, cold's line 20 included */
	assert_non_null(strstr(det, "> for (int i = 0; i < n; i++)\n"));
	free(det);
	free(txt);

	mf_mrun_free(&run);
}

static void cache_line_layout(void **state)
{
	struct mf_mrun run;
	struct mf_mreport_opts o = opts(MF_MFMT_TEXT);
	char *txt, *det, shape[64];
	(void)state;
	profile_run(&run);
	txt = report(&run, &o);
	det = section(txt, "Function Details");
	assert_non_null(det);
	/*
	 * hot: line 0x1100 (statements 10, 11, 12), adjacent 0x1140 (12, 13, 14)
	 * sharing one dash row, then a gap (tildes) and 0x11c0 (11, 16: with the
	 * default ip attribution only the part of the line inside hot; cold's
	 * line 20 from 0x11e0 on is listed under cold).
	 */
	detail_shape(det, "[demo::hot,", shape, sizeof(shape));
	assert_string_equal(shape, "DRSSDRSSDTDRSD");
	detail_shape(det, "[demo::cold,", shape, sizeof(shape));
	assert_string_equal(shape, "DRSD");
	free(det);
	free(txt);
	/* --attribute line: the whole of line 0x11c0 is hot's, cold's statement 20 included. */
	o.attribute_line = true;
	txt = report(&run, &o);
	det = section(txt, "Function Details");
	detail_shape(det, "[demo::hot,", shape, sizeof(shape));
	assert_string_equal(shape, "DRSSDRSSDTDRSSD");
	free(det);
	free(txt);
	o.attribute_line = false;

	/* With 128-byte lines 0x1100 and 0x1180 are adjacent: no tildes in hot any more. */
	o.line_size = 128;
	txt = report(&run, &o);
	assert_non_null(strstr(txt, "Granularity:      128-byte cache lines (--line-size)\n"));
	det = section(txt, "Function Details");
	detail_shape(det, "[demo::hot,", shape, sizeof(shape));
	assert_null(strchr(shape, 'T'));
	assert_int_equal(shape[0], 'D');
	free(det);
	free(txt);
	mf_mrun_free(&run);
}

static void csv_dir(void **state)
{
	struct mf_mrun run;
	struct mf_mreport_opts o = opts(MF_MFMT_TEXT);
	struct mf_error e;
	char tmpl[] = "/tmp/mfstat-mreport-XXXXXX", dir[128], path[256], *s, *fn;
	static const char *const files[] = {"run.csv",       "metrics.csv", "threads.csv",     "modules.csv",
					    "functions.csv", "lines.csv",   "cache_lines.csv", "callers.csv"};
	size_t i;
	(void)state;
	itlb_sw_run(&run);
	assert_non_null(mkdtemp(tmpl));
	snprintf(dir, sizeof(dir), "%s/sub/tables", tmpl);
	mf_error_clear(&e);
	assert_int_equal(mf_mreport_csv_dir(dir, &run, &o, &e), 0);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		s = slurp(path);
		assert_non_null(s);
		s = subst(s);
		if (i == 0) {
			assert_true(strncmp(s, "key,value\nmeasurement,itlb\n", 27) == 0);
			assert_non_null(strstr(s, "\ncommand,./demo 3 'two words'\n"));
			assert_non_null(strstr(s, "\nfallback_rung,3\n"));
			assert_non_null(
				strstr(s,
				       "\nfallback_reason,\"fallback: no hardware counters (cycles: ENOENT, "
				       "hypervisor: yes); sampling software events task-clock and page-faults\"\n"));
			assert_non_null(strstr(s, "\nstream_1_name,page-faults\nstream_1_role,fault\n"));
			assert_non_null(strstr(s,
					       "\nwarning,binary /opt/demo/demo changed since the run (build id "
					       "differs)\n"));
			assert_non_null(strstr(s, "\ndata_faults,3\n"));
			assert_non_null(strstr(s, "\nexit_status,killed by signal 9 (SIGKILL)\n"));
		} else if (i == 1) {
			assert_true(strncmp(s, "name,value,unit,status,event,", 29) == 0);
			assert_non_null(strstr(s,
					       "\ninstructions,,events,not_supported,instructions,1000,0,"
					       "ENOENT: no hardware counter\n"));
			assert_non_null(strstr(s, "\ntask-clock,1500000000,ns,scaled,task-clock,1000,500,\n"));
			assert_non_null(strstr(s, "\npage_faults_per_second,20,per s,ok,page-faults / wall time,,,\n"));
		} else if (i == 2) {
			assert_true(strncmp(s, "tid,pid,comm,percent,", 21) == 0);
			assert_non_null(strstr(s, "\n4243,4242,worker,33.3333333333333,100,4,,,4,,,100,20,0\n"));
		} else if (i == 3) {
			assert_true(strncmp(s, "module,path,percent,", 20) == 0);
			assert_non_null(strstr(s, "\nlibstripped.so,/usr/lib/libstripped.so,33.3333333333333,"));
			assert_non_null(strstr(s, "\n[kernel.kallsyms],[kernel.kallsyms],0,"));
		} else if (i == 4) {
			/* the same table as -f csv writes */
			o.format = MF_MFMT_CSV;
			fn = report(&run, &o);
			assert_string_equal(s, fn);
			free(fn);
		} else if (i == 5) {
			assert_true(strncmp(s, "function,module,file,line,address,percent,", 42) == 0);
			assert_non_null(strstr(s, "\nhot,demo,@SRCDIR@/tests/data/mreport/demo.c,10,0x1108,"));
		} else if (i == 7) {
			/* no call chains: the heading alone */
			assert_string_equal(s,
					    "caller,caller_module,callee,callee_module,samples,estimated_events,"
					    "percent,"
					    "percent_of_callee\n");
		} else {
			assert_true(strncmp(s, "function,module,file,line,start_address,offset,percent,", 55) == 0);
			assert_non_null(strstr(s,
					       "\nhot,demo,@SRCDIR@/tests/data/mreport/"
					       "demo.c,10,0x1100,0,50,50,6,,,6,,,100,50,0\n"));
		}
		free(s);
		unlink(path);
	}
	rmdir(dir);
	snprintf(path, sizeof(path), "%s/sub", tmpl);
	rmdir(path);
	rmdir(tmpl);

	/* A file in the way: an error naming it, not a crash. */
	mf_error_clear(&e);
	assert_int_equal(mf_mreport_csv_dir("/dev/null/x", &run, &o, &e), MF_EIO);
	assert_string_equal(e.file, "/dev/null/x");
	mf_mrun_free(&run);
}

static void bad_options(void **state)
{
	struct mf_mrun run;
	struct mf_mreport_opts o = opts(MF_MFMT_TEXT);
	struct mf_error e;
	FILE *fp = fopen("/dev/null", "w");
	(void)state;
	assert_non_null(fp);
	profile_run(&run);
	o.line_size = 48;
	mf_error_clear(&e);
	assert_int_equal(mf_mreport_write(fp, &run, &o, &e), MF_EINVAL);
	assert_non_null(strstr(e.msg, "48"));
	o.line_size = 0;
	o.format = 7;
	assert_int_equal(mf_mreport_write(fp, &run, &o, &e), MF_EINVAL);
	/* NULL options: the defaults (text, 1/100/5, 5/90/1) */
	assert_int_equal(mf_mreport_write(fp, &run, NULL, &e), 0);
	fclose(fp);
	mf_mrun_free(&run);
}

/* The output does not depend on the order the samples arrived in. */
static void order_independent(void **state)
{
	struct mf_mrun run;
	struct mf_mreport_opts o = opts(MF_MFMT_JSON);
	char *a, *b;
	size_t i, n;
	(void)state;
	itlb_sw_run(&run);
	a = report(&run, &o);
	n = run.nsamples;
	for (i = 0; i < n / 2; i++) {
		struct mf_msample t = run.samples[i];
		run.samples[i] = run.samples[n - 1 - i];
		run.samples[n - 1 - i] = t;
	}
	b = report(&run, &o);
	assert_string_equal(a, b);
	free(a);
	free(b);
	mf_mrun_free(&run);
}

/* Why a run has no samples, and the -s that would sample it (mf_mreport_no_samples). */
static void no_samples_why(void **state)
{
	struct mf_mrun run;
	struct mf_mreport_opts o = opts(MF_MFMT_JSON);
	char why[600], *txt;
	json_t *j, *w;
	uint32_t st;
	(void)state;

	/* A clock stream and a program that ran 0.4 ms: too briefly for 1 ms; a tenth of its time, down to 1-2-5. */
	base_run(&run, "profile");
	run.user_s = 0.0003;
	run.sys_s = 0.0001;
	add_stream(&run, "task_clock", MF_ROLE_CPU, 1000000, true);
	assert_true(mf_mreport_no_samples(&run, why, sizeof(why)));
	assert_string_equal(why,
			    "no samples: ./demo ran 0.400 ms of task_clock, under two sampling periods (1ms "
			    "each): it ran too briefly for the rate; sample more often, say -s 20us");
	/* The exact count of the clock wins over the CPU times; 10us at the least. */
	add_count(&run, "task_clock", "ns", 50000, MF_CNT_OK, NULL);
	assert_true(mf_mreport_no_samples(&run, why, sizeof(why)));
	assert_non_null(strstr(why, "ran 0.050 ms of task_clock"));
	assert_non_null(strstr(why, "say -s 10us"));
	/* In the JSON warnings and the text header too. */
	txt = report(&run, &o);
	j = parse_json(txt);
	w = json_object_get(json_object_get(j, "run"), "warnings");
	assert_true(json_is_array(w) && json_array_size(w) == 1);
	assert_string_equal(json_string_value(json_array_get(w, 0)), why);
	json_decref(j);
	free(txt);
	o.format = MF_MFMT_TEXT;
	txt = report(&run, &o);
	assert_non_null(strstr(txt, "\nWarning:          no samples: ./demo ran 0.050 ms"));
	free(txt);
	mf_mrun_free(&run);

	/* An event that never fired: no rate helps. */
	base_run(&run, "itlb");
	add_stream(&run, "itlb_miss", MF_ROLE_ITLB, 10000, false);
	add_count(&run, "itlb_miss", "events", 0, MF_CNT_OK, NULL);
	assert_true(mf_mreport_no_samples(&run, why, sizeof(why)));
	assert_string_equal(why,
			    "no samples: itlb_miss never fired while ./demo ran (counted 0), so no -s rate "
			    "can sample it");
	/* Fired 1234 times against a period of 10000: a tenth of the count, rounded down to 1-2-5, 100. */
	run.counts[0].value = 1234;
	assert_true(mf_mreport_no_samples(&run, why, sizeof(why)));
	assert_string_equal(why,
			    "no samples: itlb_miss fired 1234 times, under two sampling periods (10000 events "
			    "each): ./demo ran too briefly for the rate; sample more often, say -s 100");
	/* Fired many periods, yet nothing arrived: lost, not too brief. */
	run.counts[0].value = 500000;
	assert_true(mf_mreport_no_samples(&run, why, sizeof(why)));
	assert_non_null(strstr(why, "yet the run holds none"));
	assert_null(strstr(why, "-s"));
	/* Not counted: both reasons named, a hundredth of the period suggested. */
	run.counts[0].status = MF_CNT_NOT_SUPPORTED;
	assert_true(mf_mreport_no_samples(&run, why, sizeof(why)));
	assert_non_null(strstr(why, "the event never fired, or ./demo ran too briefly for the rate"));
	assert_non_null(strstr(why, "say -s 100"));
	mf_mrun_free(&run);

	/* With samples: nothing to say. */
	base_run(&run, "profile");
	st = add_stream(&run, "task_clock", MF_ROLE_CPU, 1000000, true);
	samples(&run, st, mf_mrun_module(&run, "/opt/demo/demo"), 0x1108, 4242, 0, 1);
	assert_false(mf_mreport_no_samples(&run, why, sizeof(why)));
	assert_string_equal(why, "");
	mf_mrun_free(&run);
}

/*
 * A library without source lines: Function Details keep its hot cache lines
 * (>= 5% of the function, cumulative <= 90%, at least five) and say how many
 * colder ones were left out; a function with source keeps every line.
 */
static void nosource_details(void **state)
{
	struct mf_mrun run;
	struct mf_mreport_opts o = opts(MF_MFMT_TEXT);
	char *txt, *fd, b[512];
	uint32_t st, lib, demo;
	size_t i;
	(void)state;

	base_run(&run, "profile");
	st = add_stream(&run, "task_clock", MF_ROLE_CPU, 1000000, true);
	lib = mf_mrun_module(&run, "/usr/lib/libnosrc.so.1");
	demo = mf_mrun_module(&run, "/opt/demo/demo");
	assert_true(mf_mrun_thread(&run, 4242, 4242, "demo") != NULL);
	/* scan: 0x2000..0x2800, 32 lines; hot at 0x2040 (40), 0x2400 (30), 0x2440 (15); 14 lines of 1 sample. */
	samples(&run, st, lib, 0x2048, 4242, 0, 40);
	samples(&run, st, lib, 0x2408, 4242, 0, 30);
	samples(&run, st, lib, 0x2448, 4242, 0, 15);
	for (i = 0; i < 14; i++)
		samples(&run, st, lib, 0x2080 + i * 0x40, 4242, 0, 1);
	/* hot in demo (with source): 3 lines, all kept. */
	samples(&run, st, demo, 0x1108, 4242, 0, 10);
	samples(&run, st, demo, 0x1150, 4242, 0, 1);
	samples(&run, st, demo, 0x11c8, 4242, 0, 1);
	for (i = 0; i < run.nsamples; i++) {
		const struct mf_msample *sm = &run.samples[i];
		uint64_t a[2] = {sm->vaddr, sm->vaddr & ~(uint64_t)63};
		size_t k;
		if (sm->mod != lib)
			continue;
		for (k = 0; k < 2; k++) {
			struct mf_msym *sy = mf_mrun_add_sym(&run);
			assert_non_null(sy);
			sy->mod = lib;
			sy->addr = a[k];
			sy->func = mf_mrun_str(&run, "scan");
			sy->func_start = 0x2000;
			sy->func_size = 0x800;
		}
	}
	symbolize(&run, demo);
	o.detail = (struct mf_cutoff){5, 90, 2}; /* both functions have details (min 2) */
	txt = report(&run, &o);
	fd = section(txt, "Function Details");
	assert_non_null(fd);
	golden("nosource.txt", fd);
	/* 0x2040, 0x2400, 0x2440 (86%), then the two first 1-sample lines by address: 5 kept, 12 left out. */
	assert_non_null(line_with(fd, "+0x40 ", b, sizeof(b)));
	assert_non_null(line_with(fd, "+0x400 ", b, sizeof(b)));
	assert_non_null(line_with(fd, "+0x440 ", b, sizeof(b)));
	assert_non_null(line_with(fd, "+0x80 ", b, sizeof(b)));
	assert_non_null(line_with(fd, "+0xc0 ", b, sizeof(b)));
	assert_null(line_with(fd, "+0x100 ", b, sizeof(b)));
	assert_non_null(strstr(fd,
			       "\n [no source lines: 12 colder cache lines with 12 of the function's samples "
			       "(12.12%) left out; --detail-cutoff 0,100 lists them]\n   10.81 [demo::hot,"));
	/* demo::hot has source: all three of its lines, nothing left out but scan's. */
	assert_non_null(line_with(fd, "+0x0 ", b, sizeof(b)));
	assert_null(strstr(strstr(fd, "[demo::hot"), "left out"));
	free(fd);
	free(txt);
	/* --detail-cutoff 0,100 lists every line. */
	o.detail = (struct mf_cutoff){0, 100, 1};
	txt = report(&run, &o);
	assert_null(strstr(txt, "left out"));
	assert_non_null(strstr(txt, "+0x100 "));
	free(txt);
	mf_mrun_free(&run);
}

/* ---- call chains: inclusive shares, edges, --children, the call graph, callers.csv and JSON ---- */

static const struct mf_agg_row *agg_func(const struct mf_agg *a, const char *name)
{
	size_t i;
	for (i = 0; i < a->funcs.n; i++)
		if (a->funcs.rows[i].func && strcmp(a->funcs.rows[i].func, name) == 0)
			return &a->funcs.rows[i];
	fail_msg("no function row %s", name);
	return NULL;
}

static const struct mf_agg_row *agg_mod(const struct mf_agg *a, const char *name)
{
	size_t i;
	for (i = 0; i < a->mods.n; i++)
		if (strcmp(a->mods.rows[i].modname, name) == 0)
			return &a->mods.rows[i];
	fail_msg("no module row %s", name);
	return NULL;
}

static uint64_t agg_edge(const struct mf_agg *a, const char *caller, const char *callee)
{
	size_t i;
	for (i = 0; i < a->nedges; i++) {
		const struct mf_agg_row *x = &a->funcs.rows[a->edges[i].caller],
					*y = &a->funcs.rows[a->edges[i].callee];
		if (x->func && y->func && strcmp(x->func, caller) == 0 && strcmp(y->func, callee) == 0)
			return a->edges[i].samples;
	}
	return 0;
}

/*
 * 30 chains A, 10 B, 6 R, 4 U (mchain.h): 50 samples.  By hand: self cmp 40
 * (80 %), rec 6 (12 %), qsort 4 (8 %); inclusive main 46 (92 %: every chain
 * but U), qsort 44 (88 %), cmp 40 (80 %), caller_a 30 (60 %), caller_b 10
 * (20 %), rec 6 (12 %, not 18: once per sample), [unknown] 4 (8 %); modules
 * app 46, libc.so.6 44, [unknown] 4; qsort's callers caller_a 30/44 =
 * 68.18 %, caller_b 10/44 = 22.73 %, [unknown] 4/44 = 9.09 %.
 */
static void call_chains(void **state)
{
	struct mf_mrun run;
	struct mf_agg a;
	struct mf_error e;
	struct mf_mreport_opts o = opts(MF_MFMT_TEXT);
	char *txt, *sec, line[300], tmpl[] = "/tmp/mfstat-mreport-XXXXXX", path[300];
	json_t *j, *arr, *row;
	(void)state;
	mchain_run(&run, 30, 10, 6, 4, 0);
	mf_error_clear(&e);
	assert_int_equal(mf_agg_build(&a, &run, 64, true, &e), 0);
	assert_true(a.chains);
	assert_int_equal(a.total.metric, 50);
	assert_int_equal(a.funcs.n, 7);
	assert_int_equal(agg_func(&a, "cmp")->cpu, 40);
	assert_int_equal(agg_func(&a, "cmp")->incl, 40);
	assert_int_equal(agg_func(&a, "main")->cpu, 0);
	assert_int_equal(agg_func(&a, "main")->incl, 46);
	assert_true(agg_func(&a, "main")->incl_pct == 92.0);
	assert_int_equal(agg_func(&a, "qsort")->cpu, 4);
	assert_int_equal(agg_func(&a, "qsort")->incl, 44);
	assert_true(agg_func(&a, "qsort")->incl_pct == 88.0);
	assert_int_equal(agg_func(&a, "caller_a")->incl, 30);
	assert_true(agg_func(&a, "caller_a")->incl_pct == 60.0);
	assert_int_equal(agg_func(&a, "caller_b")->incl, 10);
	assert_int_equal(agg_func(&a, "rec")->cpu, 6);
	assert_int_equal(agg_func(&a, "rec")->incl, 6);
	assert_int_equal(agg_func(&a, "[unknown]")->incl, 4);
	assert_string_equal(agg_func(&a, "[unknown]")->modname, "[unknown]");
	assert_int_equal(agg_mod(&a, "app")->incl, 46);
	assert_int_equal(agg_mod(&a, "app")->cpu, 46);
	assert_int_equal(agg_mod(&a, "libc.so.6")->incl, 44);
	assert_int_equal(agg_mod(&a, "[unknown]")->incl, 4);
	assert_int_equal(agg_mod(&a, "[unknown]")->cpu, 0);
	/* Edges: adjacent distinct functions once per sample; no rec -> rec. */
	assert_int_equal(a.nedges, 7);
	assert_int_equal(agg_edge(&a, "qsort", "cmp"), 40);
	assert_int_equal(agg_edge(&a, "caller_a", "qsort"), 30);
	assert_int_equal(agg_edge(&a, "caller_b", "qsort"), 10);
	assert_int_equal(agg_edge(&a, "main", "caller_a"), 30);
	assert_int_equal(agg_edge(&a, "main", "caller_b"), 10);
	assert_int_equal(agg_edge(&a, "main", "rec"), 6);
	assert_int_equal(agg_edge(&a, "[unknown]", "qsort"), 4);
	assert_int_equal(agg_edge(&a, "rec", "rec"), 0);
	assert_int_equal(a.edges[0].samples, 40);
	/* The self order is as without chains: callers without samples of their own last. */
	assert_string_equal(a.funcs.rows[0].func, "cmp");
	assert_int_equal(a.funcs.rows[a.funcs.n - 1].cpu, 0);
	mf_agg_free(&a);

	/* Text: the inclusive column, and the call graph with qsort's callers' shares. */
	txt = report(&run, &o);
	golden("chains.txt", txt);
	sec = section(txt, "Function Summary");
	assert_non_null(line_with(sec, "app::cmp", line, sizeof(line)));
	assert_string_equal(line, "   80.00   80.00  80.00      40 40.000 app::cmp");
	free(sec);
	sec = section(txt, "Call Graph");
	assert_non_null(strstr(sec, "not from call counts"));
	assert_non_null(line_with(sec, "[2]", line, sizeof(line)));
	assert_non_null(strstr(line, "88.00"));
	assert_non_null(strstr(line, "libc.so.6::qsort"));
	assert_non_null(strstr(sec, "68.18      30      app::caller_a [4]\n"));
	assert_non_null(strstr(sec, "22.73      10      app::caller_b [5]\n"));
	assert_non_null(strstr(sec, " 9.09       4      [unknown] [7]\n"));
	free(sec);
	free(txt);

	/* --children: main first (92 %), then qsort, cmp, caller_a, caller_b, rec, [unknown]. */
	o.children = true;
	txt = report(&run, &o);
	golden("chains_children.txt", txt);
	sec = section(txt, "Function Summary");
	assert_true(strstr(sec, "app::main") < strstr(sec, "libc.so.6::qsort"));
	assert_true(strstr(sec, "libc.so.6::qsort") < strstr(sec, "app::cmp"));
	assert_true(strstr(sec, "app::caller_b") < strstr(sec, "app::rec"));
	assert_non_null(strstr(sec, "Sorted by inclusive share (--children)"));
	free(sec);
	free(txt);
	o.format = MF_MFMT_CSV;
	txt = report(&run, &o);
	assert_true(strncmp(txt,
			    "function,module,file,start_address,percent,cumulative_percent,samples,"
			    "estimated_events,approximate,inclusive_percent\n"
			    "main,app,,0x1000,0,0,0,0,0,92\n"
			    "qsort,libc.so.6,,0x5000,8,8,4,4000000,0,88\n"
			    "cmp,app,,0x1300,80,88,40,40000000,0,80\n",
			    strlen("function,module,file,start_address,percent,cumulative_percent,samples,"
				   "estimated_events,approximate,inclusive_percent\n"
				   "main,app,,0x1000,0,0,0,0,0,92\n"
				   "qsort,libc.so.6,,0x5000,8,8,4,4000000,0,88\n"
				   "cmp,app,,0x1300,80,88,40,40000000,0,80\n")) == 0);
	free(txt);

	/* callers.csv in --csv DIR, and JSON: inclusive per function and the callers array. */
	o.children = false;
	assert_non_null(mkdtemp(tmpl));
	mf_error_clear(&e);
	assert_int_equal(mf_mreport_csv_dir(tmpl, &run, &o, &e), 0);
	snprintf(path, sizeof(path), "%s/callers.csv", tmpl);
	txt = slurp(path);
	assert_non_null(txt);
	assert_string_equal(txt,
			    "caller,caller_module,callee,callee_module,samples,estimated_events,percent,"
			    "percent_of_callee\n"
			    "qsort,libc.so.6,cmp,app,40,40000000,80,100\n"
			    "caller_a,app,qsort,libc.so.6,30,30000000,60,68.1818181818182\n"
			    "main,app,caller_a,app,30,30000000,60,100\n"
			    "caller_b,app,qsort,libc.so.6,10,10000000,20,22.7272727272727\n"
			    "main,app,caller_b,app,10,10000000,20,100\n"
			    "main,app,rec,app,6,6000000,12,100\n"
			    "[unknown],[unknown],qsort,libc.so.6,4,4000000,8,9.09090909090909\n");
	free(txt);
	for (size_t i = 0; mf_mreport_csv_name(i); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpl, mf_mreport_csv_name(i));
		unlink(path);
	}
	rmdir(tmpl);
	o.format = MF_MFMT_JSON;
	txt = report(&run, &o);
	j = parse_json(txt);
	row = row_named(json_object_get(j, "functions"), "function", "main");
	assert_true(json_real_value(json_object_get(row, "inclusive_percent")) == 92.0 ||
		    json_integer_value(json_object_get(row, "inclusive_percent")) == 92);
	arr = json_object_get(j, "callers");
	assert_int_equal(json_array_size(arr), 7);
	assert_string_equal(json_string_value(json_object_get(json_array_get(arr, 1), "caller")), "caller_a");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(arr, 1), "samples")), 30);
	json_decref(j);
	free(txt);
	mf_mrun_free(&run);
}

/* A chain-less sample in a run with chains adds to its own function only; a run of flat samples has no chains. */
static void chains_mixed(void **state)
{
	struct mf_mrun run;
	struct mf_agg a;
	struct mf_error e;
	(void)state;
	mchain_run(&run, 3, 0, 0, 0, 1);
	mf_error_clear(&e);
	assert_int_equal(mf_agg_build(&a, &run, 64, true, &e), 0);
	assert_true(a.chains);
	assert_int_equal(agg_func(&a, "caller_a")->cpu, 1);
	assert_int_equal(agg_func(&a, "caller_a")->incl, 4);
	assert_int_equal(agg_func(&a, "main")->incl, 3);
	assert_true(agg_func(&a, "main")->incl_pct == 75.0);
	mf_agg_free(&a);
	mf_mrun_free(&run);
	mchain_run(&run, 0, 0, 0, 0, 5);
	assert_int_equal(mf_agg_build(&a, &run, 64, true, &e), 0);
	assert_false(a.chains);
	assert_int_equal(a.funcs.n, 1);
	assert_int_equal(a.nedges, 0);
	assert_int_equal(a.funcs.rows[0].incl, 5);
	assert_true(isnan(a.funcs.rows[0].incl_pct));
	mf_agg_free(&a);
	mf_mrun_free(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(profile_shares),    cmocka_unit_test(profile_json),
		cmocka_unit_test(itlb_software),     cmocka_unit_test(itlb_hardware),
		cmocka_unit_test(zero_samples),      cmocka_unit_test(cutoffs),
		cmocka_unit_test(attribution),       cmocka_unit_test(cache_line_layout),
		cmocka_unit_test(csv_dir),           cmocka_unit_test(bad_options),
		cmocka_unit_test(order_independent), cmocka_unit_test(no_samples_why),
		cmocka_unit_test(nosource_details),  cmocka_unit_test(call_chains),
		cmocka_unit_test(chains_mixed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
