/* SPDX-License-Identifier: MIT */
/*
 * The run file (.mfdb, caliper-measure.md §3 "Database"): a round trip of a
 * run with every field set, truncation at every byte, CRC damage in each
 * section type, wrong magic and version, the other byte order, RECORDS
 * split at 1 MiB, write errors, and the records' errors mapped to file
 * offsets.
 *
 * MFDB_CORPUS_DIR=dir makes the test also write the seed corpus of
 * tests/fuzz/fuzz_mfdb.c into dir.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <zlib.h>

#include "testutil.h"

#include "mfstat/measure/mfdb.h"
#include "mfstat/measure/record.h"
#include "mfstat/measure/run.h"

#include "perfrec.h"

/* mfdb.c, for tests only: the writer writes the other byte order. */
int mf_mfdb_writer_swap_for_test(struct mf_mfdb_writer *w);

#define ST ST_BASIC
#define ID_CPU 101
#define ID_FAULT 102
#define PID 4242
#define PROG "/usr/bin/prog"
#define LIBFOO "/usr/lib/libfoo.so.1"

static const char *const secname[] = {"?",       "RUN",    "PROBE", "EVENT", "COUNT",  "RECORDS", "MODULE",
				      "SYMBOLS", "SOURCE", "VDSO",  "END",   "STACKS", "CHAINS"};

/* sample_regs_user of the records written (mf_mfdb_records_layout with g_st). */
static uint64_t g_regs;

/* ---- records (perfrec.h; g_st and g_id_all are set in main) -------------- */

/* A user-space sample of stream id by PID at ip. */
static void sample(struct bb *b, uint64_t id, uint64_t ip, uint64_t time, uint64_t period)
{
	struct smp s = {.misc = PERF_RECORD_MISC_USER,
			.id = id,
			.ip = ip,
			.pid = PID,
			.tid = PID,
			.time = time,
			.period = period};
	rec_sample(b, &s);
}

/* COMM, MMAP2 of PROG at 0x400000 (file offset 0x1000), a CPU and a fault sample in it. */
static void make_records(struct bb *b)
{
	rec_comm(b, PID, PID, "prog", true);
	rec_mmap2(b, PID, 0x400000, 0x3000, 0x1000, RX, PROG, NULL, 0);
	sample(b, ID_CPU, 0x400123, 2000, 1000000);
	sample(b, ID_FAULT, 0x401100, 2001, 1);
}

/* ---- a run with every field set ----------------------------------------- */

static void set_settings(struct mf_mrun *run)
{
	static char *const argv[] = {"./prog", "--flag=1", "", "arg with spaces"};
	size_t i;
	strcpy(run->measurement, "itlb");
	assert_int_equal(mf_mrun_set_argv(run, 4, argv), 0);
	run->pid = PID;
	run->wait_status = 3 << 8;
	run->start_us = INT64_C(1741046400123456);
	run->wall_s = 1.25;
	run->user_s = 0.1;
	run->sys_s = 3e-7;
	/* A field filled to its last byte. */
	for (i = 0; i < sizeof(run->host) - 1; i++)
		run->host[i] = (char)('a' + i % 26);
	run->host[i] = '\0';
	strcpy(run->arch, "x86_64");
	strcpy(run->cpu_model, "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz");
	strcpy(run->kernel, "6.1.0-18-amd64");
	run->ncpus = 8;
	run->vm = 1;
	strcpy(run->spec_requested, "10000, 5%, itlb_miss");
	strcpy(run->spec_used, "1000000 ns, 0%, task-clock");
	strcpy(run->privilege, "all");
	run->variation = 500;
	run->seed = UINT64_C(0xfedcba9876543210);
	run->line_size = 128;
	strcpy(run->line_size_source, "/sys/devices/system/cpu/cpu0/cache/index1/coherency_line_size");
	run->rung = MF_RUNG_SOFTWARE;
	run->user_only_forced = true;
	strcpy(run->mode, "software: no hardware counter (ENOENT)\nuser only");
	strcpy(run->attribution, "ip");
	for (i = 0; i < 3000; i++)
		run->database[i] = (char)('A' + i % 26);
	run->database[i] = '\0';
	run->sample_type = ST;
	run->sample_id_all = true;
	mf_mrun_warn(run, "throttled %d times", 3);
	mf_mrun_warn(run, "second warning: ünïcode");
}

static void set_streams_counts(struct mf_mrun *run)
{
	struct mf_mstream *s;
	struct mf_mcount *c;
	s = mf_mrun_add_stream(run);
	strcpy(s->name, "task-clock");
	s->role = MF_ROLE_CPU;
	s->type = PERF_TYPE_SOFTWARE;
	s->config = PERF_COUNT_SW_TASK_CLOCK;
	s->config1 = 7;
	s->precise = 0;
	s->period = 1000000;
	s->clock = true;
	s->id = ID_CPU;
	s = mf_mrun_add_stream(run);
	strcpy(s->name, "page-faults");
	s->role = MF_ROLE_FAULT;
	s->type = PERF_TYPE_SOFTWARE;
	s->config = PERF_COUNT_SW_PAGE_FAULTS;
	s->config1 = UINT64_MAX;
	s->precise = 2;
	s->period = 1;
	s->clock = false;
	s->id = ID_FAULT;

	c = mf_mrun_add_count(run);
	strcpy(c->name, "task-clock");
	strcpy(c->unit, "ns");
	c->value = 123456789;
	c->enabled = c->running = 123456789;
	c->status = MF_CNT_OK;
	c = mf_mrun_add_count(run);
	strcpy(c->name, "page-faults");
	strcpy(c->unit, "events");
	c->value = 2000;
	c->enabled = 100;
	c->running = 50;
	c->status = MF_CNT_SCALED;
	c = mf_mrun_add_count(run);
	strcpy(c->name, "instructions");
	strcpy(c->unit, "events");
	c->status = MF_CNT_NOT_SUPPORTED;
	strcpy(c->why, "ENOENT: no hardware counter");
}

static void set_symbols(struct mf_mrun *run, uint32_t prog, uint32_t foo)
{
	struct mf_mmod *m = &run->mods[prog];
	struct mf_msym *y;
	struct mf_msrc *r;
	char longpath[400];
	unsigned i;
	for (i = 0; i < 20; i++)
		m->build_id[i] = (uint8_t)(0xa0 + i);
	m->build_id_len = 20;
	m->flags = MF_MOD_ELF;
	m->nloads = 2;
	m->loads[0] = (struct mf_mload){0x1000, 0x401000, 0x1000};
	m->loads[1] = (struct mf_mload){0x2000, 0x403000, 0x1000};
	m = &run->mods[foo];
	for (i = 0; i < 8; i++)
		m->build_id[i] = (uint8_t)(0x10 + i);
	m->build_id_len = 8;
	m->flags = MF_MOD_MISSING | MF_MOD_CHANGED;
	m->note = mf_mrun_str(run, "cannot open: No such file or directory");
	m->nloads = 1;
	m->loads[0] = (struct mf_mload){0, 0x10000, 0x5000};

	memset(longpath, 'd', sizeof(longpath));
	memcpy(longpath + 390, "/prog.c", 8); /* longer than the loader's stack copy */
	y = mf_mrun_add_sym(run);
	*y = (struct mf_msym){prog, 0x401123, mf_mrun_str(run, "main"), 0x401100, 0x80, mf_mrun_str(run, longpath),
			      12,   0};
	y = mf_mrun_add_sym(run);
	*y = (struct mf_msym){prog, 0x403100, NULL, 0, 0, NULL, 0, 0};
	y = mf_mrun_add_sym(run);
	*y = (struct mf_msym){foo, 0x10040, mf_mrun_str(run, "foo"), 0x10000, 0x100, NULL, 0, MF_SYM_INLINE};
	r = mf_mrun_add_src(run);
	*r = (struct mf_msrc){prog, 0x401120, mf_mrun_str(run, "prog.c"), 11, 0};
	r = mf_mrun_add_src(run);
	*r = (struct mf_msrc){prog, 0x401123, mf_mrun_str(run, "inl.h"), 40, MF_SYM_INLINE};
	r = mf_mrun_add_src(run);
	*r = (struct mf_msrc){foo, 0x10040, NULL, 0, 0};
}

/*
 * The run as a live measurement has it: settings, streams, counts, the
 * records ingested (PROG is module 0), LIBFOO added after, symbols.
 */
static void build_run(struct mf_mrun *run, struct bb *recs)
{
	struct mf_error e;
	uint32_t foo;
	mf_mrun_init(run);
	set_settings(run);
	set_streams_counts(run);
	make_records(recs);
	mf_error_clear(&e);
	assert_int_equal(mf_mrun_ingest(run, recs->p, recs->n, "live", &e), 0);
	assert_int_equal(run->nmods, 1);
	foo = mf_mrun_module(run, LIBFOO);
	assert_int_equal(foo, 1);
	set_symbols(run, 0, foo);
	mf_mrun_finish(run);
	mf_mrun_sort_syms(run);
}

/* ---- files -------------------------------------------------------------- */

static char *tmp_path(void)
{
	static char paths[8][64];
	static int next;
	char *p = paths[next++ % 8];
	int fd;
	snprintf(p, 64, "/tmp/mfstat-mfdb-XXXXXX");
	fd = mkstemp(p);
	assert_true(fd >= 0);
	close(fd);
	return p;
}

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf;
	long len;
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	len = ftell(fp);
	assert_true(len >= 0);
	rewind(fp);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	*n = (size_t)len;
	return buf;
}

static void save_corpus(const char *name, const void *p, size_t n)
{
	const char *dir = getenv("MFDB_CORPUS_DIR");
	char path[512];
	FILE *fp;
	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(p, 1, n, fp), n);
	fclose(fp);
}

enum { W_SWAP = 1, W_ABANDON = 2, W_RUN_TWICE = 4 };

/* Writes the run as the collector does: records while running, then the run, then the symbols. */
static unsigned char *write_run(const struct mf_mrun *run, const struct bb *recs, int how, size_t *n)
{
	struct mf_mfdb_writer *w;
	struct mf_error e;
	char *path = tmp_path();
	unsigned char *data;
	mf_error_clear(&e);
	assert_int_equal(mf_mfdb_create(&w, path, &e), 0);
	if (how & W_SWAP)
		assert_int_equal(mf_mfdb_writer_swap_for_test(w), 0);
	mf_mfdb_records_layout(w, g_st, g_regs);
	assert_int_equal(mf_mfdb_put_records(w, recs->p, recs->n, &e), 0);
	assert_int_equal(mf_mfdb_put_run(w, run, &e), 0);
	if (how & W_RUN_TWICE)
		assert_int_equal(mf_mfdb_put_run(w, run, &e), 0);
	if (how & W_ABANDON) {
		mf_mfdb_abandon(w);
	} else {
		assert_int_equal(mf_mfdb_put_symbols(w, run, &e), 0);
		assert_int_equal(mf_mfdb_close(w, &e), 0);
	}
	data = slurp(path, n);
	unlink(path);
	return data;
}

/* The sections of a native-order file, as the test reads them (independent of mfdb.c). */
struct tsec {
	uint32_t type;
	size_t off; /* of the section header */
	size_t len;
	const unsigned char *pay;
};

static size_t parse(const unsigned char *b, size_t n, struct tsec *s, size_t max)
{
	size_t pos = 24, k = 0;
	while (pos + 24 <= n && k < max) {
		uint64_t len;
		memcpy(&s[k].type, b + pos, 4);
		memcpy(&len, b + pos + 8, 8);
		assert_true(len <= n - pos - 24);
		s[k].off = pos;
		s[k].len = (size_t)len;
		s[k].pay = b + pos + 24;
		pos += 24 + (size_t)len;
		pos = (pos + 7) / 8 * 8;
		k++;
	}
	return k;
}

/* A file from sections (CRCs computed here), header length set. */
static void build_file(struct bb *out, const struct tsec *s, size_t ns)
{
	static const unsigned char zero[8];
	uint64_t total;
	size_t i;
	out->n = 0;
	bb_put(out, "MFSTATDB", 8);
	put32(out, 0x01020304);
	put16(out, 1);
	put16(out, 0);
	put64(out, 0);
	for (i = 0; i < ns; i++) {
		put32(out, s[i].type);
		put32(out, 0);
		put64(out, s[i].len);
		put32(out, (uint32_t)crc32(0, s[i].pay, (uInt)s[i].len));
		put32(out, 0);
		if (s[i].len)
			bb_put(out, s[i].pay, s[i].len);
		bb_put(out, zero, (8 - s[i].len % 8) % 8);
	}
	total = out->n;
	memcpy(out->p + 16, &total, 8);
}

static int load(const void *p, size_t n, struct mf_mrun *run, struct mf_error *e)
{
	mf_mrun_init(run);
	mf_error_clear(e);
	return mf_mfdb_load_mem(p, n, "t.mfdb", run, e);
}

/* ---- comparing runs ----------------------------------------------------- */

static void assert_str_null_equal(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void assert_settings_equal(const struct mf_mrun *a, const struct mf_mrun *b)
{
	int i;
	size_t k;
	assert_string_equal(a->measurement, b->measurement);
	assert_int_equal(a->argc, b->argc);
	for (i = 0; i < a->argc; i++)
		assert_string_equal(a->argv[i], b->argv[i]);
	assert_int_equal(a->pid, b->pid);
	assert_int_equal(a->wait_status, b->wait_status);
	assert_int_equal(a->start_us, b->start_us);
	assert_true(a->wall_s == b->wall_s);
	assert_true(a->user_s == b->user_s);
	assert_true(a->sys_s == b->sys_s);
	assert_string_equal(a->host, b->host);
	assert_string_equal(a->arch, b->arch);
	assert_string_equal(a->cpu_model, b->cpu_model);
	assert_string_equal(a->kernel, b->kernel);
	assert_int_equal(a->ncpus, b->ncpus);
	assert_int_equal(a->vm, b->vm);
	assert_string_equal(a->spec_requested, b->spec_requested);
	assert_string_equal(a->spec_used, b->spec_used);
	assert_string_equal(a->privilege, b->privilege);
	assert_int_equal(a->variation, b->variation);
	assert_int_equal(a->seed, b->seed);
	assert_int_equal(a->line_size, b->line_size);
	assert_string_equal(a->line_size_source, b->line_size_source);
	assert_int_equal(a->rung, b->rung);
	assert_int_equal(a->user_only_forced, b->user_only_forced);
	assert_string_equal(a->mode, b->mode);
	assert_string_equal(a->attribution, b->attribution);
	assert_string_equal(a->database, b->database);
	assert_int_equal(a->sample_type, b->sample_type);
	assert_int_equal(a->sample_id_all, b->sample_id_all);
	/* b may have more (the loader's own notes) after a's. */
	assert_true(b->nwarnings >= a->nwarnings);
	for (k = 0; k < a->nwarnings; k++)
		assert_string_equal(a->warnings[k], b->warnings[k]);

	assert_int_equal(a->nstreams, b->nstreams);
	for (k = 0; k < a->nstreams; k++) {
		const struct mf_mstream *x = &a->streams[k], *y = &b->streams[k];
		assert_string_equal(x->name, y->name);
		assert_int_equal(x->role, y->role);
		assert_int_equal(x->type, y->type);
		assert_int_equal(x->config, y->config);
		assert_int_equal(x->config1, y->config1);
		assert_int_equal(x->precise, y->precise);
		assert_int_equal(x->period, y->period);
		assert_int_equal(x->clock, y->clock);
		assert_int_equal(x->id, y->id);
	}
	assert_int_equal(a->ncounts, b->ncounts);
	for (k = 0; k < a->ncounts; k++) {
		const struct mf_mcount *x = &a->counts[k], *y = &b->counts[k];
		assert_string_equal(x->name, y->name);
		assert_string_equal(x->unit, y->unit);
		assert_int_equal(x->value, y->value);
		assert_int_equal(x->enabled, y->enabled);
		assert_int_equal(x->running, y->running);
		assert_int_equal(x->status, y->status);
		assert_string_equal(x->why, y->why);
	}
}

static void assert_symbols_equal(const struct mf_mrun *a, const struct mf_mrun *b)
{
	size_t k;
	assert_int_equal(a->nmods, b->nmods);
	for (k = 0; k < a->nmods; k++) {
		const struct mf_mmod *x = &a->mods[k], *y = &b->mods[k];
		assert_string_equal(x->path, y->path);
		assert_string_equal(x->name, y->name);
		assert_int_equal(x->build_id_len, y->build_id_len);
		assert_memory_equal(x->build_id, y->build_id, x->build_id_len);
		assert_int_equal(x->flags, y->flags);
		assert_int_equal(x->nloads, y->nloads);
		assert_memory_equal(x->loads, y->loads, x->nloads * sizeof(x->loads[0]));
		assert_str_null_equal(x->note, y->note);
	}
	assert_int_equal(a->nsyms, b->nsyms);
	for (k = 0; k < a->nsyms; k++) {
		const struct mf_msym *x = &a->syms[k], *y = &b->syms[k];
		assert_int_equal(x->mod, y->mod);
		assert_int_equal(x->addr, y->addr);
		assert_str_null_equal(x->func, y->func);
		assert_int_equal(x->func_start, y->func_start);
		assert_int_equal(x->func_size, y->func_size);
		assert_str_null_equal(x->file, y->file);
		assert_int_equal(x->line, y->line);
		assert_int_equal(x->flags, y->flags);
	}
	assert_int_equal(a->nsrc, b->nsrc);
	for (k = 0; k < a->nsrc; k++) {
		const struct mf_msrc *x = &a->src[k], *y = &b->src[k];
		assert_int_equal(x->mod, y->mod);
		assert_int_equal(x->addr, y->addr);
		assert_str_null_equal(x->file, y->file);
		assert_int_equal(x->line, y->line);
		assert_int_equal(x->flags, y->flags);
	}
}

static void assert_records_equal(const struct mf_mrun *a, const struct mf_mrun *b)
{
	size_t k;
	assert_int_equal(a->lost, b->lost);
	assert_int_equal(a->lost_samples, b->lost_samples);
	assert_int_equal(a->throttles, b->throttles);
	assert_int_equal(a->unthrottles, b->unthrottles);
	assert_int_equal(a->unknown_records, b->unknown_records);
	assert_int_equal(a->unmapped, b->unmapped);
	assert_int_equal(a->nthreads, b->nthreads);
	for (k = 0; k < a->nthreads; k++) {
		assert_int_equal(a->threads[k].pid, b->threads[k].pid);
		assert_int_equal(a->threads[k].tid, b->threads[k].tid);
		assert_str_null_equal(a->threads[k].comm, b->threads[k].comm);
	}
	assert_int_equal(a->nsamples, b->nsamples);
	for (k = 0; k < a->nsamples; k++) {
		const struct mf_msample *x = &a->samples[k], *y = &b->samples[k];
		assert_int_equal(x->pid, y->pid);
		assert_int_equal(x->tid, y->tid);
		assert_int_equal(x->time, y->time);
		assert_int_equal(x->ip, y->ip);
		assert_int_equal(x->addr, y->addr);
		assert_int_equal(x->period, y->period);
		assert_int_equal(x->stream, y->stream);
		assert_int_equal(x->mod, y->mod);
		assert_int_equal(x->off, y->off);
		assert_int_equal(x->vaddr, y->vaddr);
		assert_int_equal(x->flags, y->flags);
	}
}

/* The two samples of make_records as a load must give them, independently of the writer's run. */
static void assert_samples(const struct mf_mrun *r, bool loads)
{
	assert_int_equal(r->nsamples, 2);
	assert_string_equal(r->mods[0].path, PROG);
	assert_int_equal(r->samples[0].stream, 0);
	assert_int_equal(r->samples[0].mod, 0);
	assert_int_equal(r->samples[0].off, 0x1123);
	assert_int_equal(r->samples[0].vaddr, loads ? 0x401123 : 0x1123);
	assert_int_equal(r->samples[0].period, 1000000);
	assert_int_equal(r->samples[1].stream, 1);
	assert_int_equal(r->samples[1].mod, 0);
	assert_int_equal(r->samples[1].off, 0x2100);
	assert_int_equal(r->samples[1].vaddr, loads ? 0x403100 : 0x2100);
	assert_int_equal(r->nthreads, 1);
	assert_string_equal(r->threads[0].comm, "prog");
}

/* ---- tests -------------------------------------------------------------- */

static void round_trip(void **state)
{
	struct mf_mrun run, back;
	struct bb recs = {0};
	struct mf_error e;
	struct tsec s[16] = {0};
	unsigned char *data;
	size_t n, ns, i;
	uint64_t len;
	char *path;
	(void)state;
	build_run(&run, &recs);
	data = write_run(&run, &recs, 0, &n);
	save_corpus("valid.mfdb", data, n);

	/* The header and the section layout, read here without mfdb.c. */
	assert_memory_equal(data, "MFSTATDB", 8);
	memcpy(&len, data + 16, 8);
	assert_int_equal(len, n);
	ns = parse(data, n, s, 16);
	assert_int_equal(ns, 8);
	{
		static const uint32_t want[] = {5, 1, 3, 4, 6, 7, 8, 10};
		for (i = 0; i < 8; i++)
			assert_int_equal(s[i].type, want[i]);
	}
	for (i = 0; i < ns; i++) {
		uint32_t crc;
		assert_int_equal(s[i].off % 8, 0);
		memcpy(&crc, data + s[i].off + 16, 4);
		assert_int_equal(crc, (uint32_t)crc32(0, s[i].pay, (uInt)s[i].len));
	}
	/* RECORDS verbatim. */
	assert_int_equal(s[0].len, recs.n);
	assert_memory_equal(s[0].pay, recs.p, recs.n);
	assert_int_equal(s[ns - 1].len, 0);
	assert_int_equal(s[ns - 1].off + 24, n);

	assert_int_equal(load(data, n, &back, &e), 0);
	assert_false(back.incomplete);
	assert_settings_equal(&run, &back);
	assert_int_equal(back.nwarnings, run.nwarnings);
	assert_symbols_equal(&run, &back);
	assert_records_equal(&run, &back);
	assert_samples(&back, true);
	assert_non_null(mf_mrun_sym(&back, 0, 0x401123));
	assert_string_equal(mf_mrun_sym(&back, 0, 0x401123)->func, "main");
	mf_mrun_free(&back);

	/* The same through a file. */
	path = tmp_path();
	{
		FILE *fp = fopen(path, "wb");
		assert_non_null(fp);
		assert_int_equal(fwrite(data, 1, n, fp), n);
		fclose(fp);
	}
	mf_mrun_init(&back);
	assert_int_equal(mf_mfdb_load(path, &back, &e), 0);
	assert_settings_equal(&run, &back);
	assert_symbols_equal(&run, &back);
	assert_records_equal(&run, &back);
	mf_mrun_free(&back);
	unlink(path);
	mf_mrun_init(&back);
	assert_int_equal(mf_mfdb_load(path, &back, &e), MF_EIO);
	assert_string_equal(e.file, path);
	assert_non_null(strstr(e.msg, strerror(ENOENT)));
	mf_mrun_free(&back);

	free(data);
	free(recs.p);
	mf_mrun_free(&run);
}

/* The writer's modules in another order than the records make them: symbols follow by path. */
static void module_order(void **state)
{
	struct mf_mrun run, back;
	struct bb recs = {0};
	struct mf_error e;
	unsigned char *data;
	size_t n;
	uint32_t foo, prog;
	const struct mf_msym *y;
	(void)state;
	mf_mrun_init(&run);
	set_settings(&run);
	set_streams_counts(&run);
	foo = mf_mrun_module(&run, LIBFOO);
	make_records(&recs);
	mf_error_clear(&e);
	assert_int_equal(mf_mrun_ingest(&run, recs.p, recs.n, "live", &e), 0);
	prog = mf_mrun_module(&run, PROG);
	assert_int_equal(foo, 0);
	assert_int_equal(prog, 1);
	set_symbols(&run, prog, foo);
	mf_mrun_sort_syms(&run);
	data = write_run(&run, &recs, 0, &n);
	save_corpus("module-order.mfdb", data, n);

	assert_int_equal(load(data, n, &back, &e), 0);
	assert_int_equal(back.nmods, 2);
	assert_string_equal(back.mods[0].path, PROG);
	assert_string_equal(back.mods[1].path, LIBFOO);
	assert_int_equal(back.mods[0].nloads, 2);
	assert_int_equal(back.mods[1].flags, MF_MOD_MISSING | MF_MOD_CHANGED);
	assert_string_equal(back.mods[1].note, "cannot open: No such file or directory");
	assert_samples(&back, true); /* vaddr from PROG's loads, found by path */
	y = mf_mrun_sym(&back, 1, 0x10040);
	assert_non_null(y);
	assert_string_equal(y->func, "foo");
	y = mf_mrun_sym(&back, 0, 0x401123);
	assert_non_null(y);
	assert_string_equal(y->func, "main");
	assert_int_equal(back.nsrc, 3);
	assert_int_equal(back.src[2].mod, 1);
	assert_null(back.src[2].file);
	mf_mrun_free(&back);
	free(data);
	free(recs.p);
	mf_mrun_free(&run);
}

/* What of the run a load of the sections wholly before cut must hold. */
static void check_partial(const struct mf_mrun *r, const struct tsec *s, size_t ns, size_t cut)
{
	bool have[11] = {false};
	size_t i;
	for (i = 0; i < ns; i++)
		if (s[i].off + 24 + s[i].len <= cut && s[i].type < 11)
			have[s[i].type] = true;
	assert_true(r->incomplete);
	if (have[1]) {
		assert_string_equal(r->measurement, "itlb");
		assert_int_equal(r->argc, 4);
		assert_int_equal(r->seed, UINT64_C(0xfedcba9876543210));
	} else {
		assert_int_equal(r->argc, 0);
	}
	assert_int_equal(r->nstreams, have[3] ? 2 : 0);
	assert_int_equal(r->ncounts, have[4] ? 3 : 0);
	if (have[5] && have[1]) {
		assert_int_equal(r->nsamples, have[3] ? 2 : 0);
		assert_int_equal(r->nthreads, 1);
	} else {
		assert_int_equal(r->nsamples, 0);
		assert_int_equal(r->nthreads, 0);
	}
	if (have[5] && !have[1]) {
		assert_int_equal(r->nwarnings, 1);
		assert_non_null(strstr(r->warnings[0], "no RUN section"));
	}
	if (have[6]) {
		assert_int_equal(r->nmods, 2);
		assert_string_equal(r->mods[1].path, LIBFOO);
		assert_int_equal(r->mods[0].build_id_len, 20);
	} else {
		assert_int_equal(r->nmods, have[5] && have[1] ? 1 : 0);
	}
	assert_int_equal(r->nsyms, have[7] ? 3 : 0);
	assert_int_equal(r->nsrc, have[8] ? 3 : 0);
}

/* Every prefix of a finished file, and an abandoned one: incomplete, the whole sections loaded. */
static void truncation(void **state)
{
	struct mf_mrun run, back;
	struct bb recs = {0};
	struct mf_error e;
	struct tsec s[16] = {0};
	unsigned char *data;
	size_t n, ns, cut, i;
	(void)state;
	build_run(&run, &recs);
	data = write_run(&run, &recs, 0, &n);
	ns = parse(data, n, s, 16);
	assert_int_equal(ns, 8);

	for (cut = 0; cut < n; cut++) {
		int rc = load(data, cut, &back, &e);
		assert_int_equal(rc, MF_EFORMAT);
		assert_string_equal(e.file, "t.mfdb");
		if (cut < 8) {
			assert_string_equal(e.msg, "not an mfstat run file");
		} else if (cut < 24) {
			assert_true(back.incomplete);
			assert_non_null(strstr(e.msg, "the header is cut short"));
		} else {
			/* Where the load stopped: a section cut short, or the clean end of the last whole one. */
			size_t in = ns;
			for (i = 0; i < ns; i++)
				if (cut > s[i].off && cut < s[i].off + 24 + s[i].len)
					in = i;
			assert_true(strncmp(e.msg, "run file is incomplete (no END section): the run did not finish",
					    63) == 0);
			if (in < ns) {
				char want[128];
				if (cut - s[in].off < 24)
					snprintf(want, sizeof(want), "the section header at offset 0x%zx is cut short",
						 s[in].off);
				else
					snprintf(want, sizeof(want), "the %s section at offset 0x%zx is cut short",
						 secname[s[in].type], s[in].off);
				assert_non_null(strstr(e.msg, want));
				assert_int_equal(e.offset, s[in].off);
			} else {
				assert_null(strstr(e.msg, "cut short"));
				assert_int_equal(e.offset, cut);
			}
			assert_non_null(strstr(e.msg, "bytes its header gives"));
			check_partial(&back, s, ns, cut);
		}
		if (cut == s[2].off + 10)
			save_corpus("cut-in-event.mfdb", data, cut);
		if (cut == s[1].off)
			save_corpus("cut-after-records.mfdb", data, cut);
		if (cut == s[0].off + 100)
			save_corpus("cut-in-records.mfdb", data, cut);
		mf_mrun_free(&back);
	}
	free(data);

	/* A run that failed: the writer stopped without END, the header length is 0. */
	data = write_run(&run, &recs, W_ABANDON, &n);
	save_corpus("abandoned.mfdb", data, n);
	assert_int_equal(load(data, n, &back, &e), MF_EFORMAT);
	assert_string_equal(e.msg, "run file is incomplete (no END section): the run did not finish");
	assert_int_equal(e.offset, n);
	assert_true(back.incomplete);
	assert_settings_equal(&run, &back);
	assert_samples(&back, false); /* no MODULE section: no load segments */
	assert_int_equal(back.nsyms, 0);
	mf_mrun_free(&back);
	free(data);

	/* END but a length of 0: the writer never patched the header. */
	data = write_run(&run, &recs, 0, &n);
	memset(data + 16, 0, 8);
	assert_int_equal(load(data, n, &back, &e), MF_EFORMAT);
	assert_string_equal(e.msg, "run file is incomplete (the header's length is 0): the run did not finish");
	assert_true(back.incomplete);
	assert_symbols_equal(&run, &back);
	mf_mrun_free(&back);
	free(data);
	free(recs.p);
	mf_mrun_free(&run);
}

/* One flipped byte in each section type: CRC mismatch naming the section and its offset. */
static void crc_damage(void **state)
{
	struct mf_mrun run, back;
	struct bb recs = {0};
	struct mf_error e;
	struct tsec s[16] = {0};
	unsigned char *data;
	size_t n, ns, i;
	(void)state;
	build_run(&run, &recs);
	data = write_run(&run, &recs, 0, &n);
	ns = parse(data, n, s, 16);
	for (i = 0; i < ns; i++) {
		unsigned char *copy = malloc(n);
		char want[128];
		memcpy(copy, data, n);
		if (s[i].len)
			copy[s[i].off + 24 + s[i].len / 2] ^= 0x20;
		else
			copy[s[i].off + 16] ^= 0x01; /* END: no payload, its CRC then */
		snprintf(want, sizeof(want), "section %s at offset 0x%zx: CRC mismatch", secname[s[i].type], s[i].off);
		assert_int_equal(load(copy, n, &back, &e), MF_EFORMAT);
		assert_string_equal(e.msg, want);
		assert_int_equal(e.offset, s[i].off);
		assert_false(back.incomplete);
		if (s[i].type == 6)
			save_corpus("crc-module.mfdb", copy, n);
		mf_mrun_free(&back);
		free(copy);
	}

	/* A finished file whose section length runs past its end: damage, not an unfinished run. */
	{
		unsigned char *copy = malloc(n);
		uint64_t big = UINT64_C(1) << 40;
		memcpy(copy, data, n);
		memcpy(copy + s[1].off + 8, &big, 8);
		assert_int_equal(load(copy, n, &back, &e), MF_EFORMAT);
		assert_int_equal(e.offset, s[1].off);
		assert_non_null(strstr(e.msg, "section RUN at offset"));
		assert_non_null(strstr(e.msg, "run past the end of the file"));
		assert_false(back.incomplete);
		save_corpus("huge-length.mfdb", copy, n);
		mf_mrun_free(&back);
		free(copy);
	}
	free(data);
	free(recs.p);
	mf_mrun_free(&run);
}

static void magic_and_version(void **state)
{
	struct mf_mrun run, back;
	struct bb recs = {0};
	struct mf_error e;
	unsigned char *data;
	size_t n;
	uint16_t v;
	char buf[600];
	(void)state;
	build_run(&run, &recs);
	data = write_run(&run, &recs, 0, &n);

	data[0] = 'X';
	assert_int_equal(load(data, n, &back, &e), MF_EFORMAT);
	assert_string_equal(e.msg, "not an mfstat run file");
	assert_int_equal(e.offset, 0);
	mf_error_format(&e, buf, sizeof(buf));
	assert_string_equal(buf, "t.mfdb: offset 0x0: error: not an mfstat run file");
	mf_mrun_free(&back);
	data[0] = 'M';
	assert_int_equal(load("", 0, &back, &e), MF_EFORMAT);
	assert_string_equal(e.msg, "not an mfstat run file");
	mf_mrun_free(&back);
	assert_int_equal(load("#!/bin/sh\necho hello\n", 21, &back, &e), MF_EFORMAT);
	assert_string_equal(e.msg, "not an mfstat run file");
	mf_mrun_free(&back);

	/* A byte-order tag that is neither order. */
	data[9] ^= 0xff;
	assert_int_equal(load(data, n, &back, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "not an mfstat run file"));
	mf_mrun_free(&back);
	data[9] ^= 0xff;

	v = 2;
	memcpy(data + 12, &v, 2);
	save_corpus("version2.mfdb", data, n);
	assert_int_equal(load(data, n, &back, &e), MF_EFORMAT);
	assert_string_equal(e.msg, "run file version 2.x; this mfstat reads 1.x");
	assert_int_equal(back.nstreams, 0);
	mf_mrun_free(&back);

	/* Another minor version of 1 reads. */
	v = 1;
	memcpy(data + 12, &v, 2);
	v = 7;
	memcpy(data + 14, &v, 2);
	assert_int_equal(load(data, n, &back, &e), 0);
	assert_settings_equal(&run, &back);
	mf_mrun_free(&back);
	free(data);
	free(recs.p);
	mf_mrun_free(&run);
}

/* Unknown and reserved sections are skipped, fields appended by a newer minor version too. */
static void forward_compatible(void **state)
{
	struct mf_mrun run, back;
	struct bb recs = {0}, file = {0}, longer = {0};
	struct mf_error e;
	struct tsec s[16] = {0}, t[20] = {0};
	unsigned char *data;
	size_t n, ns, i, k = 0;
	(void)state;
	build_run(&run, &recs);
	data = write_run(&run, &recs, 0, &n);
	ns = parse(data, n, s, 16);
	for (i = 0; i < ns; i++) {
		if (s[i].type == 10) {
			t[k++] = (struct tsec){77, 0, 5, (const unsigned char *)"hello"};
			t[k++] = (struct tsec){2, 0, 3, (const unsigned char *)"abc"};
			t[k++] = (struct tsec){9, 0, 0, (const unsigned char *)""};
		}
		t[k] = s[i];
		if (s[i].type == 1) {
			/* RUN with 12 more bytes: a later minor version's fields. */
			bb_put(&longer, s[i].pay, s[i].len);
			bb_put(&longer, "newer fields", 12);
			t[k].pay = longer.p;
			t[k].len = longer.n;
		}
		k++;
	}
	build_file(&file, t, k);
	save_corpus("unknown-sections.mfdb", file.p, file.n);
	assert_int_equal(load(file.p, file.n, &back, &e), 0);
	assert_settings_equal(&run, &back);
	assert_symbols_equal(&run, &back);
	assert_records_equal(&run, &back);
	mf_mrun_free(&back);

	/* Sections in another order (RUN last): the loader orders its work itself. */
	k = 0;
	for (i = 0; i < ns; i++)
		if (s[i].type != 1 && s[i].type != 10)
			t[k++] = s[i];
	t[k++] = s[1];
	t[k++] = s[ns - 1];
	build_file(&file, t, k);
	assert_int_equal(load(file.p, file.n, &back, &e), 0);
	assert_settings_equal(&run, &back);
	assert_symbols_equal(&run, &back);
	assert_records_equal(&run, &back);
	mf_mrun_free(&back);

	/* An element whose length runs past its payload. */
	k = 0;
	for (i = 0; i < ns; i++) {
		t[k] = s[i];
		if (s[i].type == 3) {
			unsigned char *bad = malloc(s[i].len);
			uint32_t huge = 100000;
			memcpy(bad, s[i].pay, s[i].len);
			memcpy(bad, &huge, 4);
			t[k].pay = bad;
		}
		k++;
	}
	build_file(&file, t, k);
	save_corpus("bad-element.mfdb", file.p, file.n);
	assert_int_equal(load(file.p, file.n, &back, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "section EVENT at offset"));
	assert_non_null(strstr(e.msg, "runs past the payload"));
	assert_int_equal(e.offset, s[2].off + 24);
	mf_mrun_free(&back);
	for (i = 0; i < k; i++)
		if (t[i].type == 3)
			free((void *)t[i].pay);

	free(longer.p);
	free(file.p);
	free(data);
	free(recs.p);
	mf_mrun_free(&run);
}

/* A file of the other byte order: every section decoded, the records left with a warning. */
static void byte_swapped(void **state)
{
	struct mf_mrun run, back;
	struct bb recs = {0};
	struct mf_error e;
	unsigned char *data;
	size_t n;
	uint32_t tag, type;
	uint64_t len, reclen;
	(void)state;
	build_run(&run, &recs);
	data = write_run(&run, &recs, W_SWAP, &n);
	save_corpus("swapped.mfdb", data, n);

	/* Really the other order: the tag, the length and the first section header reversed. */
	memcpy(&tag, data + 8, 4);
	assert_int_equal(tag, 0x04030201);
	memcpy(&len, data + 16, 8);
	assert_int_equal(__builtin_bswap64(len), n);
	memcpy(&type, data + 24, 4);
	assert_int_equal(__builtin_bswap32(type), 5);
	memcpy(&reclen, data + 32, 8);
	assert_int_equal(__builtin_bswap64(reclen), recs.n);

	assert_int_equal(load(data, n, &back, &e), 0);
	assert_false(back.incomplete);
	assert_settings_equal(&run, &back);
	assert_symbols_equal(&run, &back);
	assert_int_equal(back.nsamples, 0);
	assert_int_equal(back.nwarnings, run.nwarnings + 1);
	assert_non_null(strstr(back.warnings[run.nwarnings], "other byte order"));
	mf_mrun_free(&back);

	/* Damage is found in that order too. */
	data[24 + 24 + 10] ^= 1; /* in RECORDS */
	assert_int_equal(load(data, n, &back, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "CRC mismatch"));
	mf_mrun_free(&back);
	free(data);
	free(recs.p);
	mf_mrun_free(&run);
}

/* More than 2 MiB of records in one call: sections of at most 1 MiB, cut between records. */
static void records_split(void **state)
{
	struct mf_mrun run, back;
	struct bb recs = {0};
	struct mf_mfdb_writer *w;
	struct mf_error e;
	struct tsec s[64] = {0};
	unsigned char *data;
	char *path = tmp_path();
	size_t n, ns, i, nrec = 0, total = 0;
	const size_t nsamples = 60000;
	(void)state;
	mf_mrun_init(&run);
	set_settings(&run);
	set_streams_counts(&run);
	rec_comm(&recs, PID, PID, "prog", true);
	rec_mmap2(&recs, PID, 0x400000, 0x3000, 0x1000, RX, PROG, NULL, 0);
	for (i = 0; i < nsamples; i++)
		sample(&recs, i % 2 ? ID_FAULT : ID_CPU, 0x400000 + i % 0x3000, 5000 + i, 10 + i);
	assert_true(recs.n > (2u << 20));

	mf_error_clear(&e);
	assert_int_equal(mf_mfdb_create(&w, path, &e), 0);
	assert_int_equal(mf_mfdb_put_records(w, recs.p, recs.n, &e), 0);
	assert_int_equal(mf_mfdb_put_run(w, &run, &e), 0);
	assert_int_equal(mf_mfdb_put_symbols(w, &run, &e), 0);
	assert_int_equal(mf_mfdb_close(w, &e), 0);
	data = slurp(path, &n);
	unlink(path);

	ns = parse(data, n, s, 64);
	for (i = 0; i < ns; i++) {
		size_t at = 0;
		if (s[i].type != 5)
			continue;
		nrec++;
		assert_true(s[i].len <= (1u << 20));
		if (total + s[i].len < recs.n)
			assert_true(s[i].len > (1u << 20) - 128); /* full, but for the last */
		/* Whole records: their sizes add up to the section. */
		while (at < s[i].len) {
			uint16_t size;
			memcpy(&size, s[i].pay + at + 6, 2);
			assert_true(size >= 8);
			at += size;
		}
		assert_int_equal(at, s[i].len);
		assert_memory_equal(s[i].pay, recs.p + total, s[i].len);
		total += s[i].len;
	}
	assert_int_equal(nrec, 3);
	assert_int_equal(total, recs.n);

	assert_int_equal(load(data, n, &back, &e), 0);
	assert_int_equal(back.nsamples, nsamples);
	assert_int_equal(back.samples[nsamples - 1].off, 0x1000 + (nsamples - 1) % 0x3000);
	assert_int_equal(back.samples[nsamples - 1].period, 10 + nsamples - 1);
	assert_int_equal(back.samples[nsamples - 1].stream, 1);
	mf_mrun_free(&back);
	free(data);

	/* Records the writer cannot split (a size of 0) are refused. */
	mf_error_clear(&e);
	assert_int_equal(mf_mfdb_create(&w, path, &e), 0);
	memset(recs.p + 6, 0, 2);
	assert_int_equal(mf_mfdb_put_records(w, recs.p, recs.n, &e), MF_EINVAL);
	assert_non_null(strstr(e.msg, "byte 0"));
	assert_int_equal(mf_mfdb_put_records(w, recs.p, 5, &e), MF_EINVAL);
	mf_mfdb_abandon(w);
	unlink(path);
	free(recs.p);
	mf_mrun_free(&run);
}

/* A malformed kernel record: the error names the run file and the record's file offset. */
static void bad_record(void **state)
{
	struct mf_mrun run, back;
	struct bb recs = {0};
	struct mf_error e;
	struct tsec s[16] = {0};
	unsigned char *data;
	size_t n, first;
	char want[64];
	(void)state;
	mf_mrun_init(&run);
	set_settings(&run);
	set_streams_counts(&run);
	rec_comm(&recs, PID, PID, "prog", true);
	first = recs.n;
	rec_hdr(&recs, PERF_RECORD_COMM, 0, 16); /* pid and tid, no comm */
	put32(&recs, PID);
	put32(&recs, PID);
	data = write_run(&run, &recs, 0, &n);
	save_corpus("bad-record.mfdb", data, n);
	parse(data, n, s, 16);
	assert_int_equal(s[0].type, 5);

	assert_int_equal(load(data, n, &back, &e), MF_EFORMAT);
	assert_string_equal(e.file, "t.mfdb");
	assert_int_equal(e.offset, s[0].off + 24 + first);
	snprintf(want, sizeof(want), "section RECORDS at offset 0x%zx: COMM", s[0].off);
	assert_true(strncmp(e.msg, want, strlen(want)) == 0);
	mf_mrun_free(&back);
	free(data);

	/* A sample layout the record decoder does not know: the RUN section is at fault. */
	recs.n = first;
	run.sample_type |= PERF_SAMPLE_BRANCH_STACK;
	data = write_run(&run, &recs, 0, &n);
	parse(data, n, s, 16);
	assert_int_equal(s[1].type, 1);
	assert_int_equal(load(data, n, &back, &e), MF_EFORMAT);
	assert_int_equal(e.offset, s[1].off);
	snprintf(want, sizeof(want), "section RUN at offset 0x%zx: ", s[1].off);
	assert_true(strncmp(e.msg, want, strlen(want)) == 0);
	assert_non_null(strstr(e.msg, "BRANCH_STACK"));
	mf_mrun_free(&back);
	free(data);
	run.sample_type = ST;

	/* Two RUN sections. */
	recs.n = first;
	data = write_run(&run, &recs, W_RUN_TWICE, &n);
	save_corpus("two-runs.mfdb", data, n);
	assert_int_equal(load(data, n, &back, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "a second RUN section"));
	mf_mrun_free(&back);
	free(data);
	free(recs.p);
	mf_mrun_free(&run);
}

static void write_errors(void **state)
{
	struct mf_mfdb_writer *w = NULL;
	struct mf_mrun run;
	struct bb recs = {0};
	struct mf_error e;
	const char *path = "/nonexistent-mfstat-dir/run.mfdb";
	(void)state;
	mf_error_clear(&e);
	assert_int_equal(mf_mfdb_create(&w, path, &e), MF_EIO);
	assert_null(w);
	assert_string_equal(e.file, path);
	assert_non_null(strstr(e.msg, path));
	assert_non_null(strstr(e.msg, strerror(ENOENT)));

	/* A full disk: the buffered writes fail when they reach the device, at the latest at close. */
	if (access("/dev/full", W_OK) != 0) {
		skip();
		return;
	}
	build_run(&run, &recs);
	mf_error_clear(&e);
	assert_int_equal(mf_mfdb_create(&w, "/dev/full", &e), 0);
	assert_int_equal(mf_mfdb_put_records(w, recs.p, recs.n, &e), 0);
	assert_int_equal(mf_mfdb_put_run(w, &run, &e), 0);
	assert_int_equal(mf_mfdb_put_symbols(w, &run, &e), 0);
	assert_int_equal(mf_mfdb_close(w, &e), MF_EIO);
	assert_string_equal(e.file, "/dev/full");
	assert_non_null(strstr(e.msg, "/dev/full"));
	assert_non_null(strstr(e.msg, strerror(ENOSPC)));

	/* Past the buffer, put_records itself reports it, and later calls too. */
	{
		size_t big = (3u << 20) / recs.n * recs.n;
		unsigned char *many = malloc(big);
		size_t at;
		for (at = 0; at < big; at += recs.n)
			memcpy(many + at, recs.p, recs.n);
		assert_int_equal(mf_mfdb_create(&w, "/dev/full", &e), 0);
		assert_int_equal(mf_mfdb_put_records(w, many, big, &e), MF_EIO);
		assert_non_null(strstr(e.msg, strerror(ENOSPC)));
		mf_error_clear(&e);
		assert_int_equal(mf_mfdb_put_run(w, &run, &e), MF_EIO);
		assert_non_null(strstr(e.msg, strerror(ENOSPC)));
		assert_int_equal(mf_mfdb_close(w, &e), MF_EIO);
		free(many);
	}
	free(recs.p);
	mf_mrun_free(&run);
}

/* The victim's bytes, or "" when it cannot be read. */
static void read_small(const char *path, char *buf, size_t n)
{
	FILE *fp = fopen(path, "r");
	size_t got = 0;
	if (fp) {
		got = fread(buf, 1, n - 1, fp);
		fclose(fp);
	}
	buf[got] = '\0';
}

/*
 * Issue 13: a symbolic link at the run file's path is never followed (the
 * victim keeps its bytes); run files are 0600, an existing one made so; a
 * device or FIFO is refused as a run file before anything is read (no wait
 * for a FIFO's writer, no allocation fed by /dev/zero).
 */
static void hostile_paths(void **state)
{
	char dir[] = "/tmp/test_mfdb.XXXXXX", victim[64], link[64], fresh[64], fifo[64], got[64];
	struct mf_mfdb_writer *w = NULL;
	struct mf_mrun run;
	struct mf_error e;
	struct stat st;
	FILE *fp;
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(link, sizeof(link), "%s/link.mfdb", dir);
	snprintf(fresh, sizeof(fresh), "%s/fresh.mfdb", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_non_null(fp = fopen(victim, "w"));
	fputs("victim\n", fp);
	fclose(fp);
	assert_int_equal(symlink(victim, link), 0);

	mf_error_clear(&e);
	assert_int_equal(mf_mfdb_create(&w, link, &e), MF_EIO);
	assert_null(w);
	assert_non_null(strstr(e.msg, "symbolic link (not followed)"));
	read_small(victim, got, sizeof(got));
	assert_string_equal(got, "victim\n");

	/* A new run file is 0600; an existing one (0644) becomes 0600. */
	assert_int_equal(mf_mfdb_create(&w, fresh, &e), 0);
	assert_int_equal(mf_mfdb_close(w, &e), 0);
	assert_int_equal(stat(fresh, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(chmod(fresh, 0644), 0);
	assert_int_equal(mf_mfdb_create(&w, fresh, &e), 0);
	assert_int_equal(mf_mfdb_close(w, &e), 0);
	assert_int_equal(stat(fresh, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	/* /dev/zero and a FIFO without a writer: refused at once, offset 0 (an alarm ends a wait). */
	alarm(20);
	mf_mrun_init(&run);
	mf_error_clear(&e);
	assert_int_equal(mf_mfdb_load("/dev/zero", &run, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "not a regular file (a character device)"));
	assert_string_equal(e.file, "/dev/zero");
	assert_int_equal(e.offset, 0);
	mf_mrun_free(&run);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	mf_mrun_init(&run);
	assert_int_equal(mf_mfdb_load(fifo, &run, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "not a regular file (a pipe or FIFO)"));
	mf_mrun_free(&run);
	alarm(0);

	unlink(fifo);
	unlink(fresh);
	unlink(link);
	unlink(victim);
	rmdir(dir);
}

/* Issue 13: one run in either byte order has one identity; another start time, pid or command line another. */
static void run_identity(void **state)
{
	struct mf_mrun a, b;
	struct mf_error e;
	char ia[400], ib[400];
	char *argv2[] = {"./prog", "--flag=2"};
	(void)state;
	mf_mrun_init(&a);
	mf_mrun_init(&b);
	assert_int_equal(mf_mfdb_load(MFSTAT_SOURCE_DIR "/tests/fuzz/corpus/mfdb/valid.mfdb", &a, &e), 0);
	assert_int_equal(mf_mfdb_load(MFSTAT_SOURCE_DIR "/tests/fuzz/corpus/mfdb/swapped.mfdb", &b, &e), 0);
	mf_mrun_identity(&a, ia, sizeof(ia));
	mf_mrun_identity(&b, ib, sizeof(ib));
	assert_string_equal(ia, ib);
	assert_non_null(strstr(ia, "pid 4242"));
	b.start_us++;
	mf_mrun_identity(&b, ib, sizeof(ib));
	assert_string_not_equal(ia, ib);
	b.start_us--;
	b.pid++;
	mf_mrun_identity(&b, ib, sizeof(ib));
	assert_string_not_equal(ia, ib);
	b.pid--;
	assert_int_equal(mf_mrun_set_argv(&b, 2, argv2), 0);
	mf_mrun_identity(&b, ib, sizeof(ib));
	assert_string_not_equal(ia, ib);
	mf_mrun_free(&a);
	mf_mrun_free(&b);
}

/* Stacks are interned by content; merging re-indexes their modules and the samples' stacks. */
static void stacks_interned(void **state)
{
	struct mf_mrun a, b;
	struct mf_mframe f[3] = {{0}};
	uint32_t ma, mb, s0, s1, s2;
	struct mf_msample *smp;
	(void)state;
	mf_mrun_init(&a);
	mf_mrun_init(&b);
	ma = mf_mrun_module(&a, "/bin/prog");
	f[0].mod = ma, f[0].off = 0x1000;
	f[1].mod = ma, f[1].off = 0x2000, f[1].flags = MF_FR_RETURN;
	f[2].mod = MF_MOD_NONE, f[2].flags = MF_FR_UNKNOWN;
	s0 = mf_mrun_add_stack(&a, f, 3);
	s1 = mf_mrun_add_stack(&a, f, 2);
	assert_int_equal(s0, 0);
	assert_int_equal(s1, 1);
	assert_int_equal(mf_mrun_add_stack(&a, f, 3), s0);
	assert_int_equal(mf_mrun_add_stack(&a, f, 0), MF_STACK_NONE);
	f[1].flags = 0; /* the flags are part of the identity */
	s2 = mf_mrun_add_stack(&a, f, 2);
	assert_int_equal(s2, 2);
	assert_int_equal(a.nstacks, 3);
	assert_int_equal(a.nframes, 7);
	assert_int_equal(mf_mframe_lookup(&a.frames[a.stacks[s0].first + 1]), 0x1fff);
	assert_int_equal(mf_mframe_lookup(&a.frames[a.stacks[s2].first + 1]), 0x2000);
	smp = mf_mrun_add_sample(&a);
	assert_int_equal(smp->stack, MF_STACK_NONE);
	smp->stack = s0;
	smp->mod = ma;
	/* Many distinct stacks: the table grows and still finds each. */
	for (uint64_t i = 0; i < 1000; i++) {
		f[0].off = 0x10000 + i;
		assert_int_equal(mf_mrun_add_stack(&a, f, 1), 3 + i);
	}
	for (uint64_t i = 0; i < 1000; i++) {
		f[0].off = 0x10000 + i;
		assert_int_equal(mf_mrun_add_stack(&a, f, 1), 3 + i);
	}
	/* b has another module first: a's stacks land with b's module indexes. */
	mb = mf_mrun_module(&b, "/lib/other.so");
	assert_int_equal(mb, 0);
	assert_int_equal(mf_mrun_merge(&b, &a), 0);
	assert_int_equal(b.nstacks, a.nstacks);
	assert_int_equal(b.nsamples, 1);
	assert_int_equal(b.samples[0].stack, 0);
	assert_int_equal(b.frames[b.stacks[0].first].mod, 1);
	assert_int_equal(b.frames[b.stacks[0].first + 2].mod, MF_MOD_NONE);
	assert_int_equal(b.frames[b.stacks[0].first + 2].flags, MF_FR_UNKNOWN);
	/* Merging again adds no stack. */
	assert_int_equal(mf_mrun_merge(&b, &a), 0);
	assert_int_equal(b.nstacks, a.nstacks);
	assert_int_equal(b.samples[1].stack, 0);
	mf_mrun_free(&a);
	mf_mrun_free(&b);
}

/* ---- call chains -------------------------------------------------------- */

#define ST_CHAINS (ST | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
#define LIBADDR 0x7f0000000000ULL

/* make_records with call chains, user registers (4) and 32 bytes of stack ("SSSS..."). */
static void build_chain_run(struct mf_mrun *run, struct bb *recs)
{
	static const uint64_t c0[] = {(uint64_t)PERF_CONTEXT_USER, 0x400123, LIBADDR + 0x100, 0x400200};
	static const uint64_t c1[] = {(uint64_t)PERF_CONTEXT_USER, 0x401100, 0x9};
	static const uint64_t regs[4] = {1, 2, 3, 4};
	struct smp s = {.misc = PERF_RECORD_MISC_USER,
			.id = ID_CPU,
			.ip = 0x400123,
			.pid = PID,
			.tid = PID,
			.time = 2000,
			.period = 1000000,
			.chain = c0,
			.nchain = 4,
			.abi = PERF_SAMPLE_REGS_ABI_64,
			.regs = regs,
			.nregs = 4,
			.stack_size = 32,
			.dyn_size = 16};
	struct mf_error e;
	g_st = ST_CHAINS;
	g_regs = 0xf;
	mf_mrun_init(run);
	set_settings(run);
	set_streams_counts(run);
	run->sample_type = ST_CHAINS;
	snprintf(run->call_graph, sizeof(run->call_graph), "dwarf");
	run->stack_size = 32;
	run->max_stack = 0;
	run->unwind_failed = 3;
	assert_int_equal(mf_mrun_ingest_regs(run, g_regs), 0);
	rec_comm(recs, PID, PID, "prog", true);
	rec_mmap2(recs, PID, 0x400000, 0x3000, 0x1000, RX, PROG, NULL, 0);
	rec_mmap2(recs, PID, LIBADDR, 0x10000, 0, RX, LIBFOO, NULL, 0);
	rec_sample(recs, &s);
	s.id = ID_FAULT, s.ip = 0x401100, s.time = 2001, s.period = 1, s.chain = c1, s.nchain = 3;
	s.abi = PERF_SAMPLE_REGS_ABI_NONE, s.stack_size = 0;
	rec_sample(recs, &s);
	s.id = ID_CPU, s.ip = 0x400123, s.time = 2002, s.period = 1000000, s.chain = c0, s.nchain = 4;
	s.abi = PERF_SAMPLE_REGS_ABI_64, s.stack_size = 32;
	rec_sample(recs, &s);
	mf_error_clear(&e);
	assert_int_equal(mf_mrun_ingest(run, recs->p, recs->n, "live", &e), 0);
	assert_int_equal(run->nsamples, 3);
	assert_int_equal(run->nstacks, 2);
	mf_mrun_finish(run);
}

static void assert_chains_equal(const struct mf_mrun *a, const struct mf_mrun *b)
{
	size_t i, k;
	assert_int_equal(a->nsamples, b->nsamples);
	for (i = 0; i < a->nsamples; i++) {
		const struct mf_mstack *x, *y;
		assert_true(a->samples[i].stack < a->nstacks);
		assert_true(b->samples[i].stack < b->nstacks);
		x = &a->stacks[a->samples[i].stack];
		y = &b->stacks[b->samples[i].stack];
		assert_int_equal(x->n, y->n);
		for (k = 0; k < x->n; k++) {
			const struct mf_mframe *f = &a->frames[x->first + k], *g = &b->frames[y->first + k];
			assert_int_equal(f->flags, g->flags);
			assert_int_equal(f->off, g->off);
			assert_int_equal(f->vaddr, g->vaddr);
			if (f->mod == MF_MOD_NONE)
				assert_int_equal(g->mod, MF_MOD_NONE);
			else
				assert_string_equal(a->mods[f->mod].path, b->mods[g->mod].path);
		}
	}
}

/* The file built from s without the sections of type drop (0: none), and with section type swap's payload replaced. */
static void rebuild(struct bb *file, const struct tsec *s, size_t ns, uint32_t drop, uint32_t type,
		    const struct bb *pay)
{
	struct tsec t[16] = {{0}};
	size_t i, k = 0;
	for (i = 0; i < ns; i++) {
		if (s[i].type == drop)
			continue;
		t[k] = s[i];
		if (pay && s[i].type == type) {
			t[k].pay = pay->p;
			t[k].len = pay->n;
		}
		k++;
	}
	build_file(file, t, k);
}

static void chains_round_trip(void **state)
{
	struct mf_mrun run, back;
	struct bb recs = {0}, file = {0}, pay = {0};
	struct mf_error e;
	struct tsec s[16] = {0};
	unsigned char *data;
	size_t n, ns, i, cut, stacks = 16, chains = 16, rec = 16;
	(void)state;
	build_chain_run(&run, &recs);
	data = write_run(&run, &recs, 0, &n);
	save_corpus("chains.mfdb", data, n);
	ns = parse(data, n, s, 16);
	for (i = 0; i < ns; i++) {
		if (s[i].type == 11)
			stacks = i;
		if (s[i].type == 12)
			chains = i;
		if (s[i].type == 5)
			rec = i;
	}
	assert_true(stacks < ns && chains < ns && rec < ns);
	/* The records lost their chains, registers and stacks: 2 x (32 + 8 + 16 + 4 x 8 + 8 + 32 + 8) bytes less. */
	assert_int_equal(s[rec].len, recs.n - 2 * (8 + 4 * 8 + 8 + 4 * 8 + 8 + 32 + 8) - (8 + 3 * 8 + 8 + 8));
	assert_null(memmem(s[rec].pay, s[rec].len, "SSSSSSSS", 8));

	assert_int_equal(load(data, n, &back, &e), 0);
	assert_int_equal(back.sample_type, ST); /* the layout as stored */
	assert_string_equal(back.call_graph, "dwarf");
	assert_int_equal(back.stack_size, 32);
	assert_int_equal(back.unwind_failed, 3);
	assert_int_equal(back.nstacks, 2);
	assert_chains_equal(&run, &back);
	assert_int_equal(back.samples[0].stack, back.samples[2].stack);
	assert_int_equal(back.frames[back.stacks[back.samples[1].stack].first + 1].flags, MF_FR_UNKNOWN);
	mf_mrun_free(&back);

	/* A file without the chain sections (minor 0): every sample without a chain. */
	{
		struct tsec t[16] = {{0}};
		size_t k = 0;
		for (i = 0; i < ns; i++)
			if (s[i].type != 11 && s[i].type != 12)
				t[k++] = s[i];
		build_file(&file, t, k);
	}
	assert_int_equal(load(file.p, file.n, &back, &e), 0);
	assert_int_equal(back.nsamples, 3);
	assert_int_equal(back.nstacks, 0);
	for (i = 0; i < back.nsamples; i++)
		assert_int_equal(back.samples[i].stack, MF_STACK_NONE);
	mf_mrun_free(&back);

	/* CHAINS with a count that is not the records' samples: an error naming the section and its offset. */
	pay.n = 0;
	put32(&pay, 4);
	for (i = 0; i < 4; i++)
		put32(&pay, 0);
	rebuild(&file, s, ns, 0, 12, &pay);
	assert_int_equal(load(file.p, file.n, &back, &e), MF_EFORMAT);
	{
		char want[128];
		snprintf(want, sizeof(want),
			 "section CHAINS at offset 0x%zx: 4 chains for the 3 samples of the records", s[chains].off);
		assert_string_equal(e.msg, want);
		assert_int_equal(e.offset, s[chains].off);
	}
	save_corpus("chains-count.mfdb", file.p, file.n);
	mf_mrun_free(&back);

	/* A stack index past STACKS. */
	pay.n = 0;
	put32(&pay, 3);
	put32(&pay, 0), put32(&pay, 2), put32(&pay, UINT32_MAX);
	rebuild(&file, s, ns, 0, 12, &pay);
	assert_int_equal(load(file.p, file.n, &back, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "sample 1 has stack 2 (the STACKS section has 2)"));
	mf_mrun_free(&back);

	/* A count larger than the payload: cut short, nothing allocated for it. */
	pay.n = 0;
	put32(&pay, 0x40000000);
	rebuild(&file, s, ns, 0, 12, &pay);
	assert_int_equal(load(file.p, file.n, &back, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "section CHAINS"));
	assert_non_null(strstr(e.msg, "cut short"));
	mf_mrun_free(&back);

	/* A stack claiming more frames than its element holds, and one with a module that does not exist. */
	pay.n = 0;
	put32(&pay, 4 + 13);
	put32(&pay, 1000);
	put32(&pay, 0), put64(&pay, 0x123), bb_put(&pay, "", 1);
	rebuild(&file, s, ns, 0, 11, &pay);
	assert_int_equal(load(file.p, file.n, &back, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "section STACKS at offset"));
	assert_non_null(strstr(e.msg, "a stack of 1000 frames in an element of 17 bytes"));
	save_corpus("stacks-bad.mfdb", file.p, file.n);
	mf_mrun_free(&back);
	pay.n = 0;
	put32(&pay, 4 + 13);
	put32(&pay, 1);
	put32(&pay, 99), put64(&pay, 0x123), bb_put(&pay, "", 1);
	rebuild(&file, s, ns, 0, 11, &pay);
	assert_int_equal(load(file.p, file.n, &back, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "section STACKS at offset"));
	assert_non_null(strstr(e.msg, "module 99 does not exist"));
	mf_mrun_free(&back);

	/* Damage: a flipped byte in each chain section is a CRC mismatch naming it. */
	for (i = 0; i < ns; i++) {
		unsigned char *copy;
		char want[128];
		if (s[i].type != 11 && s[i].type != 12)
			continue;
		copy = malloc(n);
		memcpy(copy, data, n);
		copy[s[i].off + 24 + s[i].len / 2] ^= 0x20;
		snprintf(want, sizeof(want), "section %s at offset 0x%zx: CRC mismatch", secname[s[i].type], s[i].off);
		assert_int_equal(load(copy, n, &back, &e), MF_EFORMAT);
		assert_string_equal(e.msg, want);
		mf_mrun_free(&back);
		free(copy);
	}

	/* Cut anywhere: an incomplete file, never a crash; cut after CHAINS, every chain is there. */
	for (cut = 0; cut < n; cut++) {
		assert_int_equal(load(data, cut, &back, &e), MF_EFORMAT);
		if (cut >= s[chains].off + 24 + s[chains].len)
			assert_chains_equal(&run, &back);
		mf_mrun_free(&back);
	}
	free(data);

	/* The other byte order: records not decoded (a warning), the chain sections read and no error. */
	data = write_run(&run, &recs, W_SWAP, &n);
	save_corpus("chains-swapped.mfdb", data, n);
	assert_int_equal(load(data, n, &back, &e), 0);
	assert_int_equal(back.nsamples, 0);
	assert_int_equal(back.nstacks, 2);
	assert_string_equal(back.call_graph, "dwarf");
	assert_non_null(strstr(back.warnings[back.nwarnings - 1], "other byte order"));
	mf_mrun_free(&back);
	free(data);

	free(file.p);
	free(pay.p);
	free(recs.p);
	mf_mrun_free(&run);
	g_st = ST;
	g_regs = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),        cmocka_unit_test(module_order),
		cmocka_unit_test(truncation),        cmocka_unit_test(crc_damage),
		cmocka_unit_test(magic_and_version), cmocka_unit_test(forward_compatible),
		cmocka_unit_test(byte_swapped),      cmocka_unit_test(records_split),
		cmocka_unit_test(bad_record),        cmocka_unit_test(write_errors),
		cmocka_unit_test(hostile_paths),     cmocka_unit_test(run_identity),
		cmocka_unit_test(stacks_interned),   cmocka_unit_test(chains_round_trip),
	};
	/* The records' layout: what set_settings gives the run. */
	g_st = ST;
	g_id_all = true;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
