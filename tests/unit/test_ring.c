/* SPDX-License-Identifier: MIT */
/*
 * Kernel perf records (ring.c, decode.c, caliper-measure.md §8): a fake perf
 * mmap area (metadata page and 2^n data pages) filled with synthetic records
 * (perfrec.h), some wrapping the end; draining it; decoding every record type into the
 * run model (address spaces, threads, samples, counts); damage with offsets.
 *
 * With MFSTAT_RING_CORPUS=DIR set, the test also writes the fuzz seeds
 * (tests/fuzz/corpus/ring/) into DIR.
 */
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "testutil.h"

#include "mfstat/measure/record.h"
#include "mfstat/measure/unwind.h"
#include "mfstat/measure/run.h"

#include "perfrec.h"

/* ---- the fake mmap area ----------------------------------------------- */

struct ring {
	unsigned char *mem;
	size_t page, size;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
};

/* One metadata page and 2^order data pages; head = tail = start. */
static void ring_init(struct ring *r, unsigned order, uint64_t start)
{
	r->page = (size_t)sysconf(_SC_PAGESIZE);
	r->size = r->page << order;
	r->mem = aligned_alloc(r->page, r->page + r->size);
	assert_non_null(r->mem);
	memset(r->mem, 0, r->page);
	memset(r->mem + r->page, 0xee, r->size);
	r->meta = (struct perf_event_mmap_page *)r->mem;
	r->meta->data_offset = r->page;
	r->meta->data_size = r->size;
	r->meta->data_head = r->meta->data_tail = start;
	r->data = r->mem + r->page;
}

/* Writes bytes at data_head, wrapping at the end, as the kernel does. */
static void ring_write(struct ring *r, const void *bytes, size_t n)
{
	ring_put(r->data, r->size, r->meta->data_head, bytes, n);
	r->meta->data_head += n;
}

/* A sink collecting what it gets, counting calls; fails with fail_rc on call fail_at (1-based). */
struct collect {
	struct bb got;
	int calls;
	int fail_at, fail_rc;
	size_t sizes[64];
};

static int collect_sink(void *ctx, const void *bytes, size_t n)
{
	struct collect *c = ctx;
	size_t at = 0;
	c->calls++;
	if (c->calls == c->fail_at)
		return c->fail_rc;
	/* only whole records, every one of them */
	while (at < n) {
		uint16_t size;
		assert_true(n - at >= 8);
		memcpy(&size, (const unsigned char *)bytes + at + 6, 2);
		assert_true(size >= 8 && size <= n - at);
		at += size;
	}
	if (c->calls <= 64)
		c->sizes[c->calls - 1] = n;
	bb_put(&c->got, bytes, n);
	return 0;
}

/* ---- the run ---------------------------------------------------------- */

enum { ID_CLOCK = 101, ID_FAULT = 102, ID_CYCLES = 103, ID_PEBS = 104, ID_IBS = 105 };

/* A run with five streams: software clock, page faults, non-precise cycles, precise raw, a dynamic PMU. */
static void run_setup(struct mf_mrun *run, uint64_t st, bool id_all)
{
	static const struct {
		const char *name;
		int role;
		uint32_t type;
		int precise;
		uint64_t period, id;
	} s[] = {
		{"task-clock", MF_ROLE_CPU, PERF_TYPE_SOFTWARE, 0, 100000, ID_CLOCK},
		{"page-faults", MF_ROLE_FAULT, PERF_TYPE_SOFTWARE, 0, 1, ID_FAULT},
		{"cycles", MF_ROLE_CPU, PERF_TYPE_HARDWARE, 0, 50000, ID_CYCLES},
		{"FRONTEND_RETIRED.ITLB_MISS", MF_ROLE_ITLB, PERF_TYPE_RAW, 2, 1009, ID_PEBS},
		{"ibs_fetch", MF_ROLE_ITLB, PERF_TYPE_MAX, 0, 4096, ID_IBS}, /* the first dynamic PMU type */
	};
	size_t i;
	mf_mrun_init(run);
	run->sample_type = st;
	run->sample_id_all = id_all;
	g_st = st;
	g_id_all = id_all;
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		struct mf_mstream *m = mf_mrun_add_stream(run);
		assert_non_null(m);
		snprintf(m->name, sizeof(m->name), "%s", s[i].name);
		m->role = s[i].role;
		m->type = s[i].type;
		m->precise = s[i].precise;
		m->period = s[i].period;
		m->id = s[i].id;
	}
}

static int ingest(struct mf_mrun *run, const struct bb *b, struct mf_error *e)
{
	mf_error_clear(e);
	return mf_mrun_ingest(run, b->p, b->n, "t.mfdb", e);
}

static void ingest_ok(struct mf_mrun *run, const struct bb *b)
{
	struct mf_error e;
	int rc = ingest(run, b, &e);
	if (rc != 0)
		fail_msg("ingest: %d %s at %lld", rc, e.msg, e.offset);
}

static const struct mf_mthread *find_thread(const struct mf_mrun *run, uint32_t tid)
{
	size_t i;
	for (i = 0; i < run->nthreads; i++)
		if (run->threads[i].tid == tid)
			return &run->threads[i];
	return NULL;
}

static const char *mod_path(const struct mf_mrun *run, uint32_t mod)
{
	return mod == MF_MOD_NONE ? "(none)" : run->mods[mod].path;
}

/* Sample i lies in module path at file offset off. */
static void assert_at(const struct mf_mrun *run, size_t i, const char *path, uint64_t off)
{
	const struct mf_msample *s;
	assert_true(i < run->nsamples);
	s = &run->samples[i];
	if (strcmp(mod_path(run, s->mod), path) != 0 || s->off != off)
		fail_msg("sample %zu (ip 0x%llx): %s+0x%llx, expected %s+0x%llx", i, (unsigned long long)s->ip,
			 mod_path(run, s->mod), (unsigned long long)s->off, path, (unsigned long long)off);
}

/* ---- draining --------------------------------------------------------- */

/* Records of sizes 16, 24, 32, ... built with the basic layout. */
static void some_records(struct bb *b, int n)
{
	int i;
	for (i = 0; i < n; i++)
		rec_other(b, 200 + (uint32_t)i, 8 * (size_t)i + 4);
}

static void drain_contiguous(void **state)
{
	struct ring r;
	struct bb b = {0};
	struct collect c = {0};
	struct mf_error e;
	long got;
	(void)state;
	g_id_all = false;
	ring_init(&r, 1, 4096);
	some_records(&b, 6);
	ring_write(&r, b.p, b.n);
	mf_error_clear(&e);
	got = mf_ring_drain(r.meta, r.size, collect_sink, &c, &e);
	assert_int_equal(got, (long)b.n);
	assert_int_equal(c.calls, 1); /* one run, one call */
	assert_int_equal(c.got.n, b.n);
	assert_memory_equal(c.got.p, b.p, b.n);
	assert_true(r.meta->data_tail == r.meta->data_head);
	/* nothing new: nothing passed */
	got = mf_ring_drain(r.meta, r.size, collect_sink, &c, &e);
	assert_int_equal(got, 0);
	assert_int_equal(c.calls, 1);
	bb_free(&b);
	bb_free(&c.got);
	free(r.mem);
}

/* A record wrapping the end is reassembled; the records around it come in place. */
static void drain_wrap(void **state)
{
	struct ring r;
	struct bb b = {0};
	struct collect c = {0};
	struct mf_error e;
	long got;
	(void)state;
	g_id_all = false;
	/* 40 bytes before the end: 16 fit, then 48 wrap (24 + 24), then 32 and 16 at the start */
	ring_init(&r, 0, 3 * (uint64_t)sysconf(_SC_PAGESIZE) - 40);
	rec_other(&b, 1000, 8);
	rec_other(&b, 1001, 40);
	rec_other(&b, 1002, 24);
	rec_other(&b, 1003, 8);
	assert_int_equal(b.n, 16 + 48 + 32 + 16);
	ring_write(&r, b.p, b.n);
	mf_error_clear(&e);
	got = mf_ring_drain(r.meta, r.size, collect_sink, &c, &e);
	assert_int_equal(got, (long)b.n);
	assert_int_equal(c.calls, 3);
	assert_int_equal(c.sizes[0], 16);
	assert_int_equal(c.sizes[1], 48);
	assert_int_equal(c.sizes[2], 48);
	assert_memory_equal(c.got.p, b.p, b.n);
	assert_true(r.meta->data_tail == r.meta->data_head);
	bb_free(&b);
	bb_free(&c.got);
	free(r.mem);

	/* A run ending exactly at the end of the buffer, then records from its start: two calls. */
	memset(&c, 0, sizeof(c));
	ring_init(&r, 0, 5 * (uint64_t)sysconf(_SC_PAGESIZE) - 32);
	rec_other(&b, 1, 8);
	rec_other(&b, 2, 8);
	rec_other(&b, 3, 16);
	rec_other(&b, 4, 0);
	ring_write(&r, b.p, b.n);
	got = mf_ring_drain(r.meta, r.size, collect_sink, &c, &e);
	assert_int_equal(got, (long)b.n);
	assert_int_equal(c.calls, 2);
	assert_int_equal(c.sizes[0], 32);
	assert_int_equal(c.sizes[1], 32);
	assert_memory_equal(c.got.p, b.p, b.n);
	bb_free(&b);
	bb_free(&c.got);
	free(r.mem);

	/* Not 8-aligned: the header itself is split by the end. */
	memset(&c, 0, sizeof(c));
	ring_init(&r, 0, 2 * (uint64_t)sysconf(_SC_PAGESIZE) - 3);
	rec_other(&b, 77, 30);
	rec_other(&b, 78, 2);
	ring_write(&r, b.p, b.n);
	got = mf_ring_drain(r.meta, r.size, collect_sink, &c, &e);
	assert_int_equal(got, (long)b.n);
	assert_int_equal(c.calls, 2);
	assert_int_equal(c.sizes[0], 40);
	assert_memory_equal(c.got.p, b.p, b.n);
	assert_true(r.meta->data_tail == r.meta->data_head);
	bb_free(&b);
	bb_free(&c.got);
	free(r.mem);

	/* A full buffer: head - tail == data size, wrapping. */
	memset(&c, 0, sizeof(c));
	ring_init(&r, 0, 7 * (uint64_t)sysconf(_SC_PAGESIZE) + 1000);
	while (b.n < r.size - 64)
		rec_other(&b, 5, 56);
	rec_other(&b, 6, r.size - b.n - 8);
	assert_int_equal(b.n, r.size);
	ring_write(&r, b.p, b.n);
	got = mf_ring_drain(r.meta, r.size, collect_sink, &c, &e);
	assert_int_equal(got, (long)b.n);
	assert_memory_equal(c.got.p, b.p, b.n);
	bb_free(&b);
	bb_free(&c.got);
	free(r.mem);
}

static void drain_errors(void **state)
{
	struct ring r;
	struct bb b = {0};
	struct collect c = {0};
	struct mf_error e;
	uint64_t start = 2 * (uint64_t)sysconf(_SC_PAGESIZE) - 16;
	long got;
	(void)state;
	g_id_all = false;

	/* size 0 after a good record (wrapping): the good one passes, the error names the position */
	ring_init(&r, 0, start);
	rec_other(&b, 1, 16);
	ring_write(&r, b.p, b.n);
	{
		unsigned char zero[16] = {9, 0, 0, 0, 0, 0, 0, 0};
		ring_write(&r, zero, sizeof(zero));
	}
	mf_error_clear(&e);
	got = mf_ring_drain(r.meta, r.size, collect_sink, &c, &e);
	assert_int_equal(got, MF_EFORMAT);
	assert_int_equal(e.code, MF_EFORMAT);
	assert_int_equal(e.offset, (long long)(start + 24));
	assert_non_null(strstr(e.msg, "smaller than the 8-byte record header"));
	assert_non_null(strstr(e.msg, "buffer offset 8"));
	assert_int_equal(c.got.n, 24);
	assert_memory_equal(c.got.p, b.p, 24);
	/* resynchronised at head */
	assert_true(r.meta->data_tail == r.meta->data_head);
	bb_free(&b);
	bb_free(&c.got);
	free(r.mem);

	/* data_head behind a record's end */
	memset(&c, 0, sizeof(c));
	ring_init(&r, 0, start);
	rec_other(&b, 1, 8);
	rec_other(&b, 2, 40);
	ring_write(&r, b.p, b.n);
	r.meta->data_head -= 8;
	mf_error_clear(&e);
	got = mf_ring_drain(r.meta, r.size, collect_sink, &c, &e);
	assert_int_equal(got, MF_EFORMAT);
	assert_int_equal(e.offset, (long long)(start + 16));
	assert_non_null(strstr(e.msg, "runs past data_head"));
	assert_non_null(strstr(e.msg, "size 48, 40 bytes before data_head"));
	assert_int_equal(c.got.n, 16);
	bb_free(&b);
	bb_free(&c.got);
	free(r.mem);

	/* a header cut by data_head */
	memset(&c, 0, sizeof(c));
	ring_init(&r, 0, start);
	rec_other(&b, 1, 8);
	put32(&b, 1);
	ring_write(&r, b.p, b.n);
	mf_error_clear(&e);
	got = mf_ring_drain(r.meta, r.size, collect_sink, &c, &e);
	assert_int_equal(got, MF_EFORMAT);
	assert_int_equal(e.offset, (long long)(start + 16));
	assert_non_null(strstr(e.msg, "header runs past data_head"));
	bb_free(&b);
	bb_free(&c.got);

	/* head more than a buffer ahead, or behind tail */
	r.meta->data_tail = start;
	r.meta->data_head = start + r.size + 8;
	got = mf_ring_drain(r.meta, r.size, collect_sink, &c, &e);
	assert_int_equal(got, MF_EFORMAT);
	assert_int_equal(e.offset, (long long)start);
	r.meta->data_head = start - 8;
	assert_int_equal(mf_ring_drain(r.meta, r.size, collect_sink, &c, &e), MF_EFORMAT);
	assert_true(r.meta->data_tail == start);

	/* sizes: not a power of two, or not the metadata page's */
	r.meta->data_head = start;
	assert_int_equal(mf_ring_drain(r.meta, r.size - 8, collect_sink, &c, &e), MF_EINVAL);
	assert_int_equal(mf_ring_drain(r.meta, r.size * 2, collect_sink, &c, &e), MF_EINVAL);
	assert_non_null(strstr(e.msg, "metadata page says"));
	assert_int_equal(mf_ring_drain(r.meta, 0, collect_sink, &c, &e), MF_EINVAL);
	free(r.mem);
}

/* data_offset 0 (kernels before 4.1): the data follows the first page. */
static void drain_old_kernel(void **state)
{
	struct ring r;
	struct bb b = {0};
	struct collect c = {0};
	struct mf_error e;
	(void)state;
	g_id_all = false;
	ring_init(&r, 1, 77 * 8);
	r.meta->data_offset = 0;
	r.meta->data_size = 0;
	some_records(&b, 4);
	ring_write(&r, b.p, b.n);
	assert_int_equal(mf_ring_drain(r.meta, r.size, collect_sink, &c, &e), (long)b.n);
	assert_memory_equal(c.got.p, b.p, b.n);
	bb_free(&b);
	bb_free(&c.got);
	free(r.mem);
}

/* A failing sink stops the drain; data_tail stays at the first record it did not take. */
static void drain_sink_error(void **state)
{
	struct ring r;
	struct bb b = {0};
	struct collect c = {.fail_at = 2, .fail_rc = MF_EIO};
	struct mf_error e;
	uint64_t start = 4 * (uint64_t)sysconf(_SC_PAGESIZE) - 24;
	(void)state;
	g_id_all = false;
	ring_init(&r, 0, start);
	rec_other(&b, 1, 8);  /* 16, in one piece */
	rec_other(&b, 2, 24); /* 32, wraps */
	rec_other(&b, 3, 8);
	ring_write(&r, b.p, b.n);
	mf_error_clear(&e);
	assert_int_equal(mf_ring_drain(r.meta, r.size, collect_sink, &c, &e), MF_EIO);
	assert_int_equal(c.calls, 2);
	assert_true(r.meta->data_tail == start + 16);
	/* the retry delivers the rest */
	c.fail_at = 0;
	assert_int_equal(mf_ring_drain(r.meta, r.size, collect_sink, &c, &e), (long)b.n - 16);
	assert_memory_equal(c.got.p, b.p, b.n);
	assert_true(r.meta->data_tail == r.meta->data_head);
	bb_free(&b);
	bb_free(&c.got);
	free(r.mem);
}

/* ---- decoding --------------------------------------------------------- */

static const uint8_t libc_bid[20] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* Every record type once or more, sample_id_all on. */
static void every_type(void **state)
{
	struct mf_mrun run;
	struct bb b = {0};
	const struct mf_mthread *t;
	uint32_t libc;
	(void)state;
	run_setup(&run, ST_BASIC, true);
	rec_comm(&b, 100, 100, "prog", true);
	rec_mmap2(&b, 100, 0x400000, 0x2000, 0, RX, "/usr/bin/prog", NULL, 0);
	rec_mmap(&b, 100, 0x7000000, 0x1000, 0x3000, "/lib/old.so");
	rec_mmap2(&b, 100, 0x7f0000000000, 0x1000, 0x1000, RX, "/lib/libc.so.6", libc_bid, 20);
	smp_at(&b, ID_CLOCK, 100, 100, 0x400010, 0);
	smp_at(&b, ID_CLOCK, 100, 100, 0x7000020, 0);
	smp_at(&b, ID_CLOCK, 100, 100, 0x7f0000000030, 0);
	rec_task(&b, PERF_RECORD_FORK, 100, 100, 101, 100); /* a thread */
	rec_comm(&b, 100, 101, "worker", false);
	rec_task(&b, PERF_RECORD_FORK, 200, 100, 200, 100); /* a process */
	smp_at(&b, ID_CLOCK, 200, 200, 0x400040, 0);
	rec_task(&b, PERF_RECORD_EXIT, 100, 100, 101, 101);
	rec_lost(&b, 7);
	rec_lost(&b, 3);
	rec_lost_samples(&b, 5);
	rec_throttle(&b, PERF_RECORD_THROTTLE);
	rec_throttle(&b, PERF_RECORD_THROTTLE);
	rec_throttle(&b, PERF_RECORD_UNTHROTTLE);
	rec_other(&b, 99, 12);
	rec_other(&b, PERF_RECORD_READ, 16);
	ingest_ok(&run, &b);

	assert_int_equal(run.nsamples, 4);
	assert_at(&run, 0, "/usr/bin/prog", 0x10);
	assert_at(&run, 1, "/lib/old.so", 0x3020);
	assert_at(&run, 2, "/lib/libc.so.6", 0x1030);
	assert_at(&run, 3, "/usr/bin/prog", 0x40); /* the forked process has its parent's maps */
	assert_int_equal(run.samples[0].pid, 100);
	assert_int_equal(run.samples[3].pid, 200);
	assert_int_equal(run.samples[3].tid, 200);
	assert_int_equal(run.samples[0].stream, 0);
	assert_int_equal(run.samples[0].period, 7);
	assert_int_equal(run.samples[0].flags, 0);
	libc = run.samples[2].mod;
	assert_int_equal(run.mods[libc].build_id_len, 20);
	assert_memory_equal(run.mods[libc].build_id, libc_bid, 20);
	assert_string_equal(run.mods[libc].name, "libc.so.6");
	assert_int_equal(run.mods[run.samples[0].mod].build_id_len, 0);

	assert_int_equal(run.nthreads, 3);
	t = find_thread(&run, 100);
	assert_non_null(t);
	assert_string_equal(t->comm, "prog");
	t = find_thread(&run, 101);
	assert_non_null(t);
	assert_int_equal(t->pid, 100);
	assert_string_equal(t->comm, "worker");
	t = find_thread(&run, 200);
	assert_non_null(t);
	assert_int_equal(t->pid, 200);
	assert_string_equal(t->comm, "prog"); /* inherited */

	assert_int_equal(run.lost, 10);
	assert_int_equal(run.lost_samples, 5);
	assert_int_equal(run.throttles, 2);
	assert_int_equal(run.unthrottles, 1);
	assert_int_equal(run.unknown_records, 2);
	assert_int_equal(run.unmapped, 0);
	bb_free(&b);
	mf_mrun_free(&run);
}

/* Samples of several layouts decode to the same fields. */
static void sample_layouts(void **state)
{
	static const uint64_t sts[] = {
		ST_BASIC,
		ST_FAULT,
		ST_ALL,
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC,
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_RAW | PERF_SAMPLE_CODE_PAGE_SIZE,
	};
	size_t k;
	(void)state;
	for (k = 0; k < sizeof(sts) / sizeof(sts[0]); k++) {
		struct mf_mrun run;
		struct bb b = {0};
		struct smp s = {.id = ID_FAULT,
				.ip = 0x401234,
				.pid = 55,
				.tid = 56,
				.time = 987654321,
				.addr = 0x7ffc0010,
				.period = 3};
		const struct mf_msample *m;
		int id_all;
		for (id_all = 0; id_all < 2; id_all++) {
			run_setup(&run, sts[k], id_all);
			rec_mmap2(&b, 55, 0x400000, 0x10000, 0x2000, RX, "/bin/x", NULL, 0);
			rec_sample(&b, &s);
			s.id = ID_CLOCK;
			s.ip += 8;
			rec_sample(&b, &s);
			ingest_ok(&run, &b);
			assert_int_equal(run.nsamples, 2);
			m = &run.samples[0];
			assert_true(m->ip == 0x401234);
			assert_int_equal(m->pid, 55);
			assert_int_equal(m->tid, 56);
			assert_true(m->time == (sts[k] & PERF_SAMPLE_TIME ? 987654321 : 0));
			assert_true(m->addr == (sts[k] & PERF_SAMPLE_ADDR ? 0x7ffc0010 : 0));
			/* without PERIOD, the stream's */
			assert_true(m->period == (sts[k] & PERF_SAMPLE_PERIOD ? 3 : 1));
			assert_int_equal(m->stream, 1);
			assert_at(&run, 0, "/bin/x", 0x3234);
			assert_int_equal(run.samples[1].stream, 0);
			assert_true(run.samples[1].period == (sts[k] & PERF_SAMPLE_PERIOD ? 3 : 100000));
			assert_at(&run, 1, "/bin/x", 0x323c);
			assert_int_equal(run.nthreads, 1);
			bb_free(&b);
			mf_mrun_free(&run);
			s.id = ID_FAULT;
			s.ip -= 8;
		}
	}
}

/* No id in the samples: the single stream, or counted as unknown when there are several. */
static void sample_without_id(void **state)
{
	struct mf_mrun run;
	struct bb b = {0};
	struct mf_mstream *s;
	(void)state;
	mf_mrun_init(&run);
	g_st = run.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	g_id_all = false;
	s = mf_mrun_add_stream(&run);
	s->period = 250000;
	s->type = PERF_TYPE_SOFTWARE;
	smp_at(&b, 0, 1, 1, 0x1000, 0);
	smp_at(&b, 0, 1, 2, 0x2000, 0);
	ingest_ok(&run, &b);
	assert_int_equal(run.nsamples, 2);
	assert_int_equal(run.samples[1].stream, 0);
	assert_int_equal(run.samples[1].period, 250000);
	assert_int_equal(run.samples[1].tid, 2);
	assert_int_equal(run.samples[1].mod, MF_MOD_NONE);
	assert_int_equal(run.unmapped, 2);
	assert_int_equal(run.nthreads, 2);
	assert_non_null(mf_mrun_add_stream(&run));
	ingest_ok(&run, &b);
	assert_int_equal(run.nsamples, 2);
	assert_int_equal(run.unknown_records, 2);
	bb_free(&b);
	mf_mrun_free(&run);
}

static void unsupported_bits(void **state)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} c[] = {
		{PERF_SAMPLE_READ, "PERF_SAMPLE_READ"},   {PERF_SAMPLE_BRANCH_STACK, "PERF_SAMPLE_BRANCH_STACK"},
		{PERF_SAMPLE_TRANSACTION, "TRANSACTION"}, {PERF_SAMPLE_REGS_INTR, "REGS_INTR"},
		{PERF_SAMPLE_AUX, "PERF_SAMPLE_AUX"},     {PERF_SAMPLE_CGROUP, "PERF_SAMPLE_CGROUP"},
		{1ULL << 40, "unknown bit 40"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct mf_mrun run;
		struct bb b = {0};
		struct mf_error e;
		run_setup(&run, ST_BASIC | c[i].bit, false);
		rec_comm(&b, 1, 1, "x", false);
		assert_int_equal(ingest(&run, &b, &e), MF_EINVAL);
		if (!strstr(e.msg, c[i].name))
			fail_msg("message \"%s\" does not name %s", e.msg, c[i].name);
		assert_string_equal(e.file, "t.mfdb");
		assert_int_equal(run.nthreads, 0);
		bb_free(&b);
		mf_mrun_free(&run);
	}
}

/*
 * The whole path: records in a wrapping ring, drained into the decoder.
 * PIE executable with pgoff != 0, a library in two segments, an overlapping
 * mmap, FORK, exec, faults on instruction fetch and on data, kernel samples,
 * skid, unmapped samples and unknown stream ids, loss and throttling.
 */
#define APP 0x555555554000ULL
#define LIBM 0x7f0000000000ULL
#define LIBA 0x7f1000000000ULL

static void build_scenario(struct bb *b)
{
	/* exec of pid 100 */
	rec_comm(b, 100, 100, "app", true);
	rec_mmap2(b, 100, APP, 0x1000, 0, PROT_READ, "/opt/app", NULL, 0);
	rec_mmap2(b, 100, APP + 0x1000, 0x3000, 0x1000, RX, "/opt/app", NULL, 0); /* text */
	rec_mmap2(b, 100, APP + 0x4000, 0x1000, 0x4000, RW, "/opt/app", NULL, 0); /* data right after */
	/* libm: text at file offset 0x10000, data at 0x20000 (its second PT_LOAD) */
	rec_mmap2(b, 100, LIBM + 0x10000, 0x8000, 0x10000, RX, "/usr/lib/libm.so.6", NULL, 0);
	rec_mmap2(b, 100, LIBM + 0x30000, 0x2000, 0x20000, RW, "/usr/lib/libm.so.6", NULL, 0);
	/* liba, then libb over its middle page, then libe over its tail and beyond */
	rec_mmap2(b, 100, LIBA, 0x4000, 0, RX, "/usr/lib/liba.so", NULL, 0);
	rec_mmap2(b, 100, LIBA + 0x1000, 0x1000, 0x5000, RX, "/usr/lib/libb.so", NULL, 0);
	rec_mmap2(b, 100, LIBA + 0x3800, 0x1000, 0, RX, "/usr/lib/libe.so", libc_bid, 20);
	/* 0 */ smp_at(b, ID_CLOCK, 100, 100, APP + 0x1123, 0);
	/* 1 */ smp_at(b, ID_CLOCK, 100, 100, LIBM + 0x10456, 0);
	/* 2 */ smp_at(b, ID_CLOCK, 100, 100, LIBM + 0x30010, 0);
	/* 3 */ smp_at(b, ID_CLOCK, 100, 100, LIBA + 0x10, 0);
	/* 4 */ smp_at(b, ID_CLOCK, 100, 100, LIBA + 0x1010, 0);
	/* 5 */ smp_at(b, ID_CLOCK, 100, 100, LIBA + 0x2010, 0);
	/* 6 */ smp_at(b, ID_CLOCK, 100, 100, LIBA + 0x3000, 0);
	/* 7 */ smp_at(b, ID_CLOCK, 100, 100, LIBA + 0x3900, 0);
	/* a child process, running the parent's code, then exec'ing */
	rec_task(b, PERF_RECORD_FORK, 300, 100, 300, 100);
	/* 8 */ smp_at(b, ID_CLOCK, 300, 300, APP + 0x1200, 0);
	rec_comm(b, 300, 300, "other", true);
	/* 9 */ smp_at(b, ID_CLOCK, 300, 300, APP + 0x1200, 0); /* maps gone: unmapped */
	rec_mmap2(b, 300, APP, 0x2000, 0x3000, RX, "/opt/other", NULL, 0);
	/* 10 */ smp_at(b, ID_CLOCK, 300, 300, APP + 0x1200, 0);
	/* 11 */ smp_at(b, ID_CLOCK, 100, 100, APP + 0x1200, 0); /* the parent keeps its maps */
	/* page faults: on fetch, on data, near the end of text into data */
	/* 12 */ smp_at(b, ID_FAULT, 100, 100, APP + 0x1ff8, APP + 0x2000);
	/* 13 */ smp_at(b, ID_FAULT, 100, 100, APP + 0x1100, APP + 0x100);
	/* 14 */ smp_at(b, ID_FAULT, 100, 100, APP + 0x3ffc, APP + 0x4004);
	/* 15 */ smp_at(b, ID_FAULT, 100, 100, APP + 0x1100, APP + 0x1100 + 14);
	/* 16 */ smp_at(b, ID_FAULT, 100, 100, APP + 0x1100, APP + 0x1100 + 15);
	/* 17 */ smp_at(b, ID_FAULT, 100, 100, APP + 0x1100, APP + 0x10ff);
	/* kernel */
	{
		struct smp s = {.misc = PERF_RECORD_MISC_KERNEL,
				.id = ID_CLOCK,
				.ip = 0xffffffff81001234ULL,
				.pid = 100,
				.tid = 100,
				.period = 9};
		/* 18 */ rec_sample(b, &s);
		s.misc = PERF_RECORD_MISC_USER;
		s.ip = 0x12345;
		/* 19 */ rec_sample(b, &s); /* unmapped */
	}
	/* hardware streams: skid unless precise */
	/* 20 */ smp_at(b, ID_CYCLES, 100, 101, APP + 0x1000, 0);
	/* 21 */ smp_at(b, ID_PEBS, 100, 101, APP + 0x1000, 0);
	/* 22 */ smp_at(b, ID_IBS, 100, 101, APP + 0x1000, 0);
	smp_at(b, 999, 100, 100, APP + 0x1000, 0); /* unknown id: counted, dropped */
	rec_lost(b, 4);
	rec_lost_samples(b, 2);
	rec_throttle(b, PERF_RECORD_THROTTLE);
	rec_throttle(b, PERF_RECORD_UNTHROTTLE);
}

static void check_scenario(const struct mf_mrun *run)
{
	size_t i;
	assert_int_equal(run->nsamples, 23);
	assert_at(run, 0, "/opt/app", 0x1123);
	assert_at(run, 1, "/usr/lib/libm.so.6", 0x10456);
	assert_at(run, 2, "/usr/lib/libm.so.6", 0x20010);
	assert_at(run, 3, "/usr/lib/liba.so", 0x10);
	assert_at(run, 4, "/usr/lib/libb.so", 0x5010);
	assert_at(run, 5, "/usr/lib/liba.so", 0x2010);
	assert_at(run, 6, "/usr/lib/liba.so", 0x3000);
	assert_at(run, 7, "/usr/lib/libe.so", 0x100);
	assert_at(run, 8, "/opt/app", 0x1200);
	assert_at(run, 9, "(none)", 0);
	assert_at(run, 10, "/opt/other", 0x4200);
	assert_at(run, 11, "/opt/app", 0x1200);
	for (i = 0; i <= 11; i++)
		assert_int_equal(run->samples[i].flags, 0);
	assert_int_equal(run->samples[12].flags, MF_MS_IFETCH);
	assert_int_equal(run->samples[12].stream, 1);
	assert_int_equal(run->samples[12].addr, APP + 0x2000);
	assert_int_equal(run->samples[13].flags, 0);
	assert_int_equal(run->samples[14].flags, 0); /* within 15 bytes, but in the data map */
	assert_int_equal(run->samples[15].flags, MF_MS_IFETCH);
	assert_int_equal(run->samples[16].flags, 0);
	assert_int_equal(run->samples[17].flags, 0); /* before ip */
	assert_at(run, 18, "[kernel.kallsyms]", 0xffffffff81001234ULL);
	assert_int_equal(run->samples[18].flags, MF_MS_KERNEL);
	assert_true(run->mods[run->samples[18].mod].flags & MF_MOD_SPECIAL);
	assert_int_equal(run->samples[18].period, 9);
	assert_at(run, 19, "(none)", 0);
	assert_int_equal(run->samples[20].flags, MF_MS_SKID);
	assert_int_equal(run->samples[20].stream, 2);
	assert_int_equal(run->samples[21].flags, 0);
	assert_int_equal(run->samples[22].flags, MF_MS_SKID);
	assert_int_equal(run->unmapped, 2);
	assert_int_equal(run->unknown_records, 1);
	assert_int_equal(run->lost, 4);
	assert_int_equal(run->lost_samples, 2);
	assert_int_equal(run->throttles, 1);
	assert_int_equal(run->unthrottles, 1);
	/* threads: 100, 300 (comm from exec), 101 (from a sample, no comm) */
	assert_int_equal(run->nthreads, 3);
	assert_string_equal(find_thread(run, 300)->comm, "other");
	assert_string_equal(find_thread(run, 100)->comm, "app");
	assert_null(find_thread(run, 101)->comm);
	assert_int_equal(find_thread(run, 101)->pid, 100);
	/* libe's build id from its MMAP2 */
	assert_int_equal(run->mods[run->samples[7].mod].build_id_len, 20);
}

static int ingest_sink(void *ctx, const void *bytes, size_t n)
{
	struct mf_error e;
	mf_error_clear(&e);
	return mf_mrun_ingest(ctx, bytes, n, "ring", &e);
}

static void end_to_end(void **state)
{
	static const uint64_t starts[] = {0, 4096 - 8, 4096 - 200, 3 * 8192 - 1000};
	size_t k;
	(void)state;
	for (k = 0; k < sizeof(starts) / sizeof(starts[0]); k++) {
		struct mf_mrun run;
		struct ring r;
		struct bb b = {0};
		struct mf_error e;
		int id_all;
		for (id_all = 0; id_all < 2; id_all++) {
			run_setup(&run, ST_FAULT, id_all);
			build_scenario(&b);
			ring_init(&r, 1, starts[k]);
			assert_true(b.n <= r.size);
			ring_write(&r, b.p, b.n);
			mf_error_clear(&e);
			assert_int_equal(mf_ring_drain(r.meta, r.size, ingest_sink, &run, &e), (long)b.n);
			check_scenario(&run);
			bb_free(&b);
			free(r.mem);
			mf_mrun_free(&run);
		}
	}
	/* the same with every field in the samples */
	{
		struct mf_mrun run;
		struct bb b = {0};
		run_setup(&run, ST_ALL, true);
		build_scenario(&b);
		ingest_ok(&run, &b);
		check_scenario(&run);
		bb_free(&b);
		mf_mrun_free(&run);
	}
}

/* Two calls split at a record boundary give what one call gives; error offsets count from the first byte. */
static void chunks(void **state)
{
	struct mf_mrun one, two;
	struct bb b = {0};
	struct mf_error e;
	size_t split = 0, i;
	(void)state;
	run_setup(&one, ST_FAULT, true);
	build_scenario(&b);
	ingest_ok(&one, &b);
	run_setup(&two, ST_FAULT, true);
	/* split after the FORK (about half way): the child's maps come from state of the first call */
	while (split < b.n) {
		uint32_t type;
		uint16_t size;
		memcpy(&type, b.p + split, 4);
		memcpy(&size, b.p + split + 6, 2);
		split += size;
		if (type == PERF_RECORD_FORK)
			break;
	}
	assert_true(split > 0 && split < b.n);
	mf_error_clear(&e);
	assert_int_equal(mf_mrun_ingest(&two, b.p, split, "t", &e), 0);
	assert_int_equal(mf_mrun_ingest(&two, b.p + split, b.n - split, "t", &e), 0);
	check_scenario(&two);
	assert_int_equal(one.nsamples, two.nsamples);
	for (i = 0; i < one.nsamples; i++) {
		const struct mf_msample *x = &one.samples[i], *y = &two.samples[i];
		assert_true(x->ip == y->ip && x->addr == y->addr && x->time == y->time && x->period == y->period);
		assert_true(x->pid == y->pid && x->tid == y->tid && x->stream == y->stream && x->flags == y->flags);
		assert_string_equal(mod_path(&one, x->mod), mod_path(&two, y->mod));
		assert_true(x->off == y->off);
	}
	assert_int_equal(one.nthreads, two.nthreads);
	assert_int_equal(one.nmods, two.nmods);

	/* a third call: a good record, then a damaged one; the offset is from the first call's first byte */
	{
		struct bb c = {0};
		size_t bad;
		rec_lost(&c, 1);
		bad = c.n;
		rec_lost(&c, 1);
		memset(c.p + bad + 6, 0, 2); /* size 0 */
		mf_error_clear(&e);
		assert_int_equal(mf_mrun_ingest(&two, c.p, c.n, "run.mfdb", &e), MF_EFORMAT);
		assert_int_equal(e.offset, (long long)(b.n + bad));
		assert_string_equal(e.file, "run.mfdb");
		assert_non_null(strstr(e.msg, "LOST record"));
		assert_non_null(strstr(e.msg, "smaller than the 8-byte record header"));
		assert_int_equal(two.lost, one.lost + 1);
		/* and the next call's offsets continue after everything given so far */
		mf_error_clear(&e);
		assert_int_equal(mf_mrun_ingest(&two, c.p + bad, 6, "run.mfdb", &e), MF_EFORMAT);
		assert_int_equal(e.offset, (long long)(b.n + c.n));
		bb_free(&c);
	}
	bb_free(&b);
	mf_mrun_free(&one);
	mf_mrun_free(&two);
}

/* A record of type, cut to size bytes, fails with a message naming the type and what is wrong. */
static void expect_bad(struct bb *b, size_t cut, const char *type, const char *what)
{
	struct mf_mrun run;
	struct mf_error e;
	size_t good;
	uint16_t size;
	run_setup(&run, g_st, g_id_all);
	/* a LOST record first, so the offset is not 0 */
	{
		struct bb all = {0};
		rec_lost(&all, 1);
		good = all.n;
		bb_put(&all, b->p, b->n);
		if (cut) {
			size = (uint16_t)cut;
			memcpy(all.p + good + 6, &size, 2);
			all.n = good + cut;
		}
		mf_error_clear(&e);
		assert_int_equal(mf_mrun_ingest(&run, all.p, all.n, "bad.mfdb", &e), MF_EFORMAT);
		bb_free(&all);
	}
	assert_int_equal(e.code, MF_EFORMAT);
	assert_int_equal(e.offset, (long long)good);
	assert_int_equal(e.record, 1);
	assert_string_equal(e.file, "bad.mfdb");
	if (!strstr(e.msg, type) || !strstr(e.msg, what))
		fail_msg("message \"%s\" lacks \"%s\" or \"%s\"", e.msg, type, what);
	assert_int_equal(run.lost, 1);
	mf_mrun_free(&run);
	bb_free(b);
}

static void format_errors(void **state)
{
	struct bb b = {0};
	uint8_t bid[20] = {0};
	(void)state;
	g_st = ST_ALL;
	g_id_all = false;
	rec_mmap2(&b, 1, 0x1000, 0x1000, 0, RX, "/x", NULL, 0);
	expect_bad(&b, 64, "MMAP2 record", "shorter than its fixed part of 73 bytes");
	rec_mmap2(&b, 1, 0x1000, 0x1000, 0, RX, "/x", bid, 21);
	expect_bad(&b, 0, "MMAP2 record", "build id size 21");
	rec_mmap(&b, 1, 0x1000, 0x1000, 0, "/abcdefg");
	expect_bad(&b, 48, "MMAP record", "file name is not NUL-terminated");
	rec_comm(&b, 1, 1, "abcdefgh", false);
	expect_bad(&b, 24, "COMM record", "comm is not NUL-terminated");
	rec_comm(&b, 1, 1, "", false);
	expect_bad(&b, 16, "COMM record", "fixed part of 17 bytes");
	rec_task(&b, PERF_RECORD_FORK, 1, 1, 2, 1);
	expect_bad(&b, 24, "FORK record", "fixed part of 32 bytes");
	rec_task(&b, PERF_RECORD_EXIT, 1, 1, 2, 1);
	expect_bad(&b, 16, "EXIT record", "fixed part of 32 bytes");
	rec_lost(&b, 1);
	expect_bad(&b, 16, "LOST record", "fixed part of 24 bytes");
	rec_lost_samples(&b, 1);
	expect_bad(&b, 8, "LOST_SAMPLES record", "fixed part of 16 bytes");
	rec_throttle(&b, PERF_RECORD_UNTHROTTLE);
	expect_bad(&b, 24, "UNTHROTTLE record", "fixed part of 32 bytes");
	smp_at(&b, ID_CLOCK, 1, 1, 0x1000, 0);
	expect_bad(&b, 48, "SAMPLE record", "inside the fields of sample_type");
	/* RAW's size runs past the record */
	smp_at(&b, ID_CLOCK, 1, 1, 0x1000, 0);
	{
		uint32_t big = 4000;
		memcpy(b.p + 8 + 9 * 8, &big, 4);
	}
	expect_bad(&b, 0, "SAMPLE record", "inside the fields");
	/* RAW fits, the fields after it do not */
	smp_at(&b, ID_CLOCK, 1, 1, 0x1000, 0);
	expect_bad(&b, b.n - 8, "SAMPLE record", "inside the fields");
	/* more than the fields: written with another sample_type */
	smp_at(&b, ID_CLOCK, 1, 1, 0x1000, 0);
	put64(&b, 0);
	{
		uint16_t size = (uint16_t)b.n;
		memcpy(b.p + 6, &size, 2);
	}
	expect_bad(&b, 0, "SAMPLE record", "8 bytes left after the fields of sample_type");
	/* size 0, a size past the bytes given, fewer than 8 bytes left */
	rec_lost(&b, 1);
	memset(b.p + 6, 0, 2);
	expect_bad(&b, 0, "LOST record", "smaller than the 8-byte record header");
	rec_lost(&b, 1);
	b.n -= 8;
	expect_bad(&b, 0, "LOST record", "runs past the end of the data (16 bytes left)");
	put32(&b, 2);
	expect_bad(&b, 0, "", "only 4 bytes left");
}

/* Mappings replaced in every way: inside, over both ends, exactly, over several. */
static void mmap_replace(void **state)
{
	struct mf_mrun run;
	struct bb b = {0};
	(void)state;
	run_setup(&run, ST_BASIC, false);
	rec_mmap2(&b, 7, 0x10000, 0x1000, 0x100000, RX, "/a", NULL, 0);
	rec_mmap2(&b, 7, 0x11000, 0x1000, 0x200000, RX, "/b", NULL, 0);
	rec_mmap2(&b, 7, 0x12000, 0x1000, 0x300000, RX, "/c", NULL, 0);
	rec_mmap2(&b, 7, 0x10800, 0x2000, 0, RX, "/d", NULL, 0); /* a's tail, all of b, c's head */
	rec_mmap2(&b, 7, 0x20000, 0x1000, 0, RX, "/e", NULL, 0);
	rec_mmap2(&b, 7, 0x20000, 0x1000, 0x9000, RX, "/f", NULL, 0); /* exactly e */
	rec_mmap2(&b, 7, 0x30000, 0, 0, RX, "/empty", NULL, 0);       /* nothing */
	smp_at(&b, ID_CLOCK, 7, 7, 0x107ff, 0);
	smp_at(&b, ID_CLOCK, 7, 7, 0x10800, 0);
	smp_at(&b, ID_CLOCK, 7, 7, 0x11000, 0);
	smp_at(&b, ID_CLOCK, 7, 7, 0x127ff, 0);
	smp_at(&b, ID_CLOCK, 7, 7, 0x12800, 0);
	smp_at(&b, ID_CLOCK, 7, 7, 0x12fff, 0);
	smp_at(&b, ID_CLOCK, 7, 7, 0x13000, 0);
	smp_at(&b, ID_CLOCK, 7, 7, 0x20010, 0);
	smp_at(&b, ID_CLOCK, 7, 7, 0x30000, 0);
	smp_at(&b, ID_CLOCK, 8, 8, 0x10000, 0); /* another pid: nothing */
	ingest_ok(&run, &b);
	assert_at(&run, 0, "/a", 0x1007ff);
	assert_at(&run, 1, "/d", 0);
	assert_at(&run, 2, "/d", 0x800);
	assert_at(&run, 3, "/d", 0x1fff);
	assert_at(&run, 4, "/c", 0x300800);
	assert_at(&run, 5, "/c", 0x300fff);
	assert_at(&run, 6, "(none)", 0);
	assert_at(&run, 7, "/f", 0x9010);
	assert_at(&run, 8, "(none)", 0);
	assert_at(&run, 9, "(none)", 0);
	assert_int_equal(run.unmapped, 3);
	bb_free(&b);
	mf_mrun_free(&run);
}

/* Many processes and maps: the sorted arrays grow and stay searchable. */
static void many(void **state)
{
	struct mf_mrun run;
	struct bb b = {0};
	uint32_t pid;
	uint64_t i;
	(void)state;
	run_setup(&run, ST_BASIC, false);
	/* pids inserted out of order, maps out of order */
	for (pid = 0; pid < 40; pid++) {
		uint32_t p = (pid * 17) % 40 + 1;
		for (i = 0; i < 30; i++) {
			uint64_t slot = (i * 7) % 30;
			char path[32];
			snprintf(path, sizeof(path), "/lib%u.so", (unsigned)slot);
			rec_mmap2(&b, p, 0x100000 + slot * 0x1000, 0x1000, slot * 0x10, RX, path, NULL, 0);
		}
	}
	for (pid = 1; pid <= 40; pid++)
		for (i = 0; i < 30; i += 7)
			smp_at(&b, ID_CLOCK, pid, pid, 0x100000 + i * 0x1000 + pid, 0);
	ingest_ok(&run, &b);
	assert_int_equal(run.nsamples, 40 * 5);
	assert_int_equal(run.unmapped, 0);
	for (i = 0; i < run.nsamples; i++) {
		const struct mf_msample *s = &run.samples[i];
		uint64_t slot = (s->ip - 0x100000) / 0x1000;
		char path[32];
		snprintf(path, sizeof(path), "/lib%u.so", (unsigned)slot);
		assert_at(&run, i, path, slot * 0x10 + s->pid);
	}
	assert_int_equal(run.nmods, 30);
	assert_int_equal(run.nthreads, 40);
	bb_free(&b);
	mf_mrun_free(&run);
}

/* ---- fuzz seeds ------------------------------------------------------- */

/*
 * The fuzz target's first byte picks the layout (tests/fuzz/fuzz_ring.c):
 * bits 0-1 the sample_type set (fuzz_sts, perfrec.h), bit 2 sample_id_all,
 * bits 3-4 the streams' kinds.  Its streams have ids 1 and 2.  Keep in step.
 */

/* ---- call chains ---------------------------------------------------------- */

#define CTX_USER ((uint64_t)PERF_CONTEXT_USER)
#define CTX_KERNEL ((uint64_t)PERF_CONTEXT_KERNEL)
#define KADDR 0xffffffff81000010ULL

static void assert_frame(const struct mf_mrun *run, uint32_t stack, uint32_t k, const char *path, uint64_t off,
			 uint32_t flags)
{
	const struct mf_mframe *f;
	assert_true(stack < run->nstacks);
	assert_true(k < run->stacks[stack].n);
	f = &run->frames[run->stacks[stack].first + k];
	if (strcmp(mod_path(run, f->mod), path) != 0 || f->off != off || f->flags != flags)
		fail_msg("stack %u frame %u: %s+0x%llx flags %u, expected %s+0x%llx flags %u", stack, k,
			 mod_path(run, f->mod), (unsigned long long)f->off, f->flags, path, (unsigned long long)off,
			 flags);
}

/* PERF_SAMPLE_CALLCHAIN: markers skipped, frames resolved like the ip, junk ends the chain, equal chains shared. */
static void call_chains(void **state)
{
	static const uint64_t user[] = {CTX_USER, APP + 0x1234, LIBM + 0x10, APP + 0x2000, 0x4, APP + 0x3000};
	static const uint64_t kern[] = {CTX_KERNEL, KADDR, KADDR + 0x10, CTX_USER, APP + 0x1234};
	struct smp s = {.misc = PERF_RECORD_MISC_USER,
			.id = ID_CLOCK,
			.ip = APP + 0x1234,
			.pid = 7,
			.tid = 7,
			.period = 5,
			.chain = user,
			.nchain = 6};
	struct mf_mrun run;
	struct bb b = {0};
	struct mf_error e;
	size_t at;
	(void)state;
	run_setup(&run, ST_BASIC | PERF_SAMPLE_CALLCHAIN, false);
	rec_comm(&b, 7, 7, "app", true);
	rec_mmap2(&b, 7, APP, 0x10000, 0, RX, "/bin/app", NULL, 0);
	rec_mmap2(&b, 7, LIBM, 0x10000, 0x2000, RX, "/lib/libm.so.6", NULL, 0);
	s.time = 1;
	rec_sample(&b, &s);
	s.time = 2;
	rec_sample(&b, &s);
	s.misc = PERF_RECORD_MISC_KERNEL, s.ip = KADDR, s.chain = kern, s.nchain = 5, s.time = 3;
	rec_sample(&b, &s);
	s.misc = PERF_RECORD_MISC_USER, s.ip = APP + 0x40, s.nchain = 0, s.time = 4;
	rec_sample(&b, &s);
	ingest_ok(&run, &b);
	assert_int_equal(run.nsamples, 4);
	assert_int_equal(run.nstacks, 3);
	assert_int_equal(run.samples[0].stack, 0);
	assert_int_equal(run.samples[1].stack, 0);
	assert_int_equal(run.samples[2].stack, 1);
	assert_int_equal(run.samples[3].stack, 2);
	/* leaf first; the junk 0x4 (a frame-pointer walk through code without them) ends the chain */
	assert_int_equal(run.stacks[0].n, 4);
	assert_frame(&run, 0, 0, "/bin/app", 0x1234, 0);
	assert_frame(&run, 0, 1, "/lib/libm.so.6", 0x2010, MF_FR_RETURN);
	assert_frame(&run, 0, 2, "/bin/app", 0x2000, MF_FR_RETURN);
	assert_frame(&run, 0, 3, "(none)", 0, MF_FR_UNKNOWN);
	assert_int_equal(run.stacks[1].n, 3);
	assert_frame(&run, 1, 0, "(none)", KADDR, MF_FR_KERNEL);
	assert_frame(&run, 1, 1, "(none)", KADDR + 0x10, MF_FR_KERNEL | MF_FR_RETURN);
	assert_frame(&run, 1, 2, "/bin/app", 0x1234, MF_FR_RETURN);
	/* no addresses (exclude_callchain_user on a user sample): the sample's ip alone */
	assert_int_equal(run.stacks[2].n, 1);
	assert_frame(&run, 2, 0, "/bin/app", 0x40, 0);
	mf_mrun_free(&run);

	/* A count of entries past the record's end: an error naming the record, no read past it. */
	run_setup(&run, ST_BASIC | PERF_SAMPLE_CALLCHAIN, false);
	b.n = 0;
	s.chain = user, s.nchain = 2;
	rec_sample(&b, &s);
	at = 8 + 5 * 8;
	{
		uint64_t nr = 1000;
		memcpy(b.p + at, &nr, 8);
	}
	assert_int_equal(ingest(&run, &b, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "SAMPLE record"));
	assert_non_null(strstr(e.msg, "call chain of 1000 entries runs past the record"));
	assert_int_equal(e.offset, 0);
	mf_mrun_free(&run);
	bb_free(&b);
}

/* REGS_USER (abi NONE: no registers) and STACK_USER (size 0: no dyn_size) are taken in their place. */
static void user_regs_stack(void **state)
{
	static const uint64_t user[] = {CTX_USER, APP + 0x1234, APP + 0x2000};
	uint64_t regs[20];
	struct smp s = {.misc = PERF_RECORD_MISC_USER,
			.id = ID_CLOCK,
			.ip = APP + 0x1234,
			.pid = 7,
			.tid = 7,
			.period = 5,
			.chain = user,
			.nchain = 3,
			.abi = PERF_SAMPLE_REGS_ABI_64,
			.regs = regs,
			.nregs = 20,
			.stack_size = 64,
			.dyn_size = 40};
	struct mf_mrun run;
	struct bb b = {0};
	struct mf_error e;
	size_t start;
	uint64_t big = 4096;
	(void)state;
	for (size_t i = 0; i < 20; i++)
		regs[i] = 0x1000 + i;
	run_setup(&run, ST_BASIC | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, false);
	assert_int_equal(mf_mrun_ingest_regs(&run, 0xff0fff), 0); /* x86-64: AX..SS, R8..R15 */
	rec_mmap2(&b, 7, APP, 0x10000, 0, RX, "/bin/app", NULL, 0);
	rec_sample(&b, &s);
	s.abi = PERF_SAMPLE_REGS_ABI_NONE, s.stack_size = 0; /* a kernel thread: neither */
	rec_sample(&b, &s);
	ingest_ok(&run, &b);
	assert_int_equal(run.nsamples, 2);
	assert_int_equal(run.samples[0].stack, 0);
	assert_int_equal(run.samples[1].stack, 0);
	assert_int_equal(run.stacks[0].n, 2);
	assert_frame(&run, 0, 1, "/bin/app", 0x2000, MF_FR_RETURN);
	mf_mrun_free(&run);

	/* A stack size past the record's end. */
	run_setup(&run, ST_BASIC | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, false);
	assert_int_equal(mf_mrun_ingest_regs(&run, 0xff0fff), 0);
	b.n = 0;
	s.abi = PERF_SAMPLE_REGS_ABI_64, s.stack_size = 64;
	start = b.n;
	rec_sample(&b, &s);
	memcpy(b.p + start + 8 + 5 * 8 + 8 + 3 * 8 + 8 + 20 * 8, &big, 8);
	assert_int_equal(ingest(&run, &b, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "user stack of 4096 bytes runs past the record"));
	mf_mrun_free(&run);

	/* Registers recorded with another mask than the one given: the fields no longer fill the record. */
	run_setup(&run, ST_BASIC | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, false);
	assert_int_equal(mf_mrun_ingest_regs(&run, 0xff), 0);
	b.n = 0;
	rec_sample(&b, &s);
	assert_int_equal(ingest(&run, &b, &e), MF_EFORMAT);
	mf_mrun_free(&run);
	bb_free(&b);
}

/* A test's unwinder: records what it was given, returns three addresses and "stopped early". */
struct fake_unwind {
	int calls;
	uint64_t gens[4];
	size_t nmaps;
	uint64_t stack_size, abi, reg0;
	char path[64];
};

static int fake_unwind(struct mf_unwind *u, const struct mf_unwind_sample *s, uint64_t *ips, size_t max, size_t *n)
{
	struct fake_unwind *f = (struct fake_unwind *)(void *)u;
	if (f->calls < 4)
		f->gens[f->calls] = s->maps_gen;
	f->calls++;
	f->nmaps = s->nmaps;
	f->stack_size = s->stack_size;
	f->abi = s->abi;
	f->reg0 = s->regs[0];
	snprintf(f->path, sizeof(f->path), "%s", s->nmaps ? s->maps[0].path : "");
	assert_true(max >= 3);
	ips[0] = APP + 0x1234;
	ips[1] = APP + 0x3000;
	ips[2] = LIBM + 0x20;
	*n = 3;
	return 1;
}

/* With an unwinder: the user part from it over the process's maps, the kernel's part from CALLCHAIN. */
static void unwound_chains(void **state)
{
	static const uint64_t chain[] = {CTX_KERNEL, KADDR, CTX_USER, APP + 0x1234, 0x4};
	uint64_t regs[20];
	struct fake_unwind fu = {0};
	struct smp s = {.misc = PERF_RECORD_MISC_KERNEL,
			.id = ID_CLOCK,
			.ip = KADDR,
			.pid = 7,
			.tid = 7,
			.period = 5,
			.chain = chain,
			.nchain = 5,
			.abi = PERF_SAMPLE_REGS_ABI_64,
			.regs = regs,
			.nregs = 20,
			.stack_size = 64,
			.dyn_size = 40};
	struct mf_mrun run;
	struct bb b = {0};
	(void)state;
	for (size_t i = 0; i < 20; i++)
		regs[i] = 0x1000 + i;
	run_setup(&run, ST_BASIC | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, false);
	assert_int_equal(mf_mrun_ingest_regs(&run, 0xff0fff), 0);
	assert_int_equal(mf_mrun_ingest_unwind(&run, fake_unwind, (struct mf_unwind *)(void *)&fu), 0);
	rec_mmap2(&b, 7, APP, 0x10000, 0, RX, "/bin/app", NULL, 0);
	rec_sample(&b, &s);
	rec_sample(&b, &s);
	rec_mmap2(&b, 7, LIBM, 0x10000, 0x2000, RX, "/lib/libm.so.6", NULL, 0);
	rec_sample(&b, &s);
	s.abi = PERF_SAMPLE_REGS_ABI_NONE, s.stack_size = 0; /* no registers: the kernel's chain, not the unwinder */
	rec_sample(&b, &s);
	ingest_ok(&run, &b);
	assert_int_equal(fu.calls, 3);
	assert_int_equal(fu.abi, PERF_SAMPLE_REGS_ABI_64);
	assert_int_equal(fu.reg0, 0x1000);
	assert_int_equal(fu.stack_size, 40); /* dyn_size: the bytes copied */
	assert_string_equal(fu.path, "/bin/app");
	assert_int_equal(fu.nmaps, 2);
	/* the same maps: the same generation; a new mapping: another */
	assert_true(fu.gens[0] == fu.gens[1]);
	assert_true(fu.gens[2] != fu.gens[1]);
	assert_int_equal(run.nsamples, 4);
	/* before the library was mapped its address ends the chain; after, the walk's own stop does */
	assert_int_equal(run.samples[0].stack, run.samples[1].stack);
	assert_frame(&run, run.samples[0].stack, 0, "(none)", KADDR, MF_FR_KERNEL);
	assert_frame(&run, run.samples[0].stack, 1, "/bin/app", 0x1234, MF_FR_RETURN);
	assert_frame(&run, run.samples[0].stack, 2, "/bin/app", 0x3000, MF_FR_RETURN);
	assert_frame(&run, run.samples[0].stack, 3, "(none)", 0, MF_FR_UNKNOWN);
	assert_int_equal(run.stacks[run.samples[0].stack].n, 4);
	assert_int_equal(run.stacks[run.samples[2].stack].n, 5);
	assert_frame(&run, run.samples[2].stack, 3, "/lib/libm.so.6", 0x2020, MF_FR_RETURN);
	assert_frame(&run, run.samples[2].stack, 4, "(none)", 0, MF_FR_UNKNOWN);
	assert_int_equal(run.unwind_failed, 3);
	/* without registers: CALLCHAIN's user part, which ends at the junk 0x4 */
	assert_int_equal(run.stacks[run.samples[3].stack].n, 3);
	assert_frame(&run, run.samples[3].stack, 1, "/bin/app", 0x1234, MF_FR_RETURN);
	assert_frame(&run, run.samples[3].stack, 2, "(none)", 0, MF_FR_UNKNOWN);
	mf_mrun_free(&run);
	bb_free(&b);
}

static void write_seed(const char *dir, const char *name, uint8_t sel, const struct bb *b)
{
	char path[4096];
	FILE *fp;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(&sel, 1, 1, fp), 1);
	assert_int_equal(fwrite(b->p, 1, b->n, fp), b->n);
	fclose(fp);
	assert_true(b->n + 1 < 8192);
}

static void fuzz_seeds(void **state)
{
	const char *dir = getenv("MFSTAT_RING_CORPUS");
	unsigned sel;
	(void)state;
	if (!dir || !*dir)
		skip();
	mkdir(dir, 0755);
	for (sel = 0; sel < 12; sel++) {
		/* every layout, with and without sample_id_all, every kind of streams */
		uint8_t byte = (uint8_t)((sel & 3) | ((sel / 4) & 1) << 2 | ((sel + sel / 4) & 3) << 3);
		struct bb b = {0};
		char name[64];
		g_st = fuzz_sts[byte & 3];
		g_id_all = byte & 4;
		rec_comm(&b, 10, 10, "fuzz", true);
		rec_mmap2(&b, 10, 0x400000, 0x3000, 0x1000, RX, "/bin/fz", NULL, 0);
		rec_mmap2(&b, 10, 0x403000, 0x1000, 0x4000, RW, "/bin/fz", NULL, 0);
		rec_mmap2(&b, 10, 0x7f0000001000, 0x2000, 0, RX, "/lib/l.so", libc_bid, 20);
		rec_mmap(&b, 10, 0x500000, 0x1000, 0, "//anon");
		if (sel % 3 == 1)
			rec_mmap2(&b, 10, 0x401000, 0x800, 0x20, RX, "/bin/over", NULL, 0);
		smp_at(&b, 1, 10, 10, 0x400100, 0x400104);
		smp_at(&b, 2, 10, 10, 0x400100, 0x400104); /* a fetch fault where stream 2 is page faults */
		smp_at(&b, 2, 10, 10, 0x402ffc, 0x403002);
		smp_at(&b, 2, 10, 11, 0x7f0000001010, 0x10);
		rec_task(&b, PERF_RECORD_FORK, 10, 10, 11, 10);
		rec_task(&b, PERF_RECORD_FORK, 12, 10, 12, 10);
		smp_at(&b, 1, 12, 12, 0x400200, 0);
		rec_comm(&b, 12, 12, "child", true);
		smp_at(&b, 1, 12, 12, 0x400200, 0);
		smp_at(&b, 3, 12, 12, 0x400200, 0);
		{
			struct smp s = {.misc = PERF_RECORD_MISC_KERNEL,
					.id = 1,
					.ip = 0xffffffff81000000ULL,
					.pid = 10,
					.tid = 11};
			rec_sample(&b, &s);
		}
		rec_task(&b, PERF_RECORD_EXIT, 12, 10, 12, 10);
		rec_lost(&b, 3);
		rec_lost_samples(&b, 4);
		rec_throttle(&b, PERF_RECORD_THROTTLE);
		rec_throttle(&b, PERF_RECORD_UNTHROTTLE);
		rec_other(&b, 42, 4);
		snprintf(name, sizeof(name), "stream-%02x", byte);
		write_seed(dir, name, byte, &b);
		bb_free(&b);
	}
	/* damaged ones: size 0, cut short, an unsupported layout bit */
	{
		struct bb b = {0};
		g_st = fuzz_sts[0];
		g_id_all = false;
		rec_comm(&b, 1, 1, "z", false);
		put64(&b, 0);
		write_seed(dir, "size-zero", 0, &b);
		bb_free(&b);
		rec_mmap2(&b, 1, 0x1000, 0x1000, 0, RX, "/cut", NULL, 0);
		smp_at(&b, 1, 1, 1, 0x1000, 0);
		b.n -= 4;
		write_seed(dir, "cut-short", 0, &b);
		bb_free(&b);
		smp_at(&b, 1, 1, 1, 0x1000, 0);
		write_seed(dir, "callchain", 0xe0, &b);
		bb_free(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(drain_contiguous), cmocka_unit_test(drain_wrap),
		cmocka_unit_test(drain_errors),     cmocka_unit_test(drain_old_kernel),
		cmocka_unit_test(drain_sink_error), cmocka_unit_test(every_type),
		cmocka_unit_test(sample_layouts),   cmocka_unit_test(sample_without_id),
		cmocka_unit_test(unsupported_bits), cmocka_unit_test(end_to_end),
		cmocka_unit_test(chunks),           cmocka_unit_test(format_errors),
		cmocka_unit_test(mmap_replace),     cmocka_unit_test(many),
		cmocka_unit_test(fuzz_seeds),       cmocka_unit_test(call_chains),
		cmocka_unit_test(user_regs_stack),  cmocka_unit_test(unwound_chains),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
