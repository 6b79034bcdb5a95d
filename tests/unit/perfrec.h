/* SPDX-License-Identifier: MIT */
/*
 * Kernel perf records built by hand, shared by the tests and fuzz targets of
 * mfstat measure (tests/unit/test_ring.c, tests/unit/test_mfdb.c,
 * tests/fuzz/fuzz_ring.c): a growing byte buffer, one builder per record
 * type in the kernel's layout for the sample_type in g_st (non-sample records
 * with the sample_id trailer when g_id_all is set), the sample_type sets of
 * the ring fuzz target, and writing bytes into a perf ring as the kernel
 * does.  No cmocka here (the fuzz targets have none): out of memory aborts.
 * Included once per program; everything is static.
 */
#ifndef MFSTAT_TEST_PERFREC_H
#define MFSTAT_TEST_PERFREC_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- bytes ---------------------------------------------------------------- */

struct bb {
	unsigned char *p;
	size_t n, cap;
};

static inline void bb_put(struct bb *b, const void *v, size_t n)
{
	if (b->cap - b->n < n) {
		size_t nc = b->cap ? b->cap * 2 : 4096;
		while (nc - b->n < n)
			nc *= 2;
		if (!(b->p = realloc(b->p, nc)))
			abort();
		b->cap = nc;
	}
	if (n)
		memcpy(b->p + b->n, v, n);
	b->n += n;
}

static inline void put16(struct bb *b, uint16_t v)
{
	bb_put(b, &v, 2);
}

static inline void put32(struct bb *b, uint32_t v)
{
	bb_put(b, &v, 4);
}

static inline void put64(struct bb *b, uint64_t v)
{
	bb_put(b, &v, 8);
}

static inline void bb_free(struct bb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---- records ---------------------------------------------------------------- */

/* How records are laid out: the run's sample_type and sample_id_all.  Set before building. */
static uint64_t g_st;
static bool g_id_all;

#define RX (PROT_READ | PROT_EXEC)
#define RW (PROT_READ | PROT_WRITE)

/* A record header with the size given (for records built byte by byte, damaged ones too). */
static inline void rec_hdr(struct bb *b, uint32_t type, uint16_t misc, uint16_t size)
{
	put32(b, type);
	put16(b, misc);
	put16(b, size);
}

/* Starts a record; rec_end sets its size.  Returns where it starts. */
static inline size_t rec_begin(struct bb *b, uint32_t type, uint16_t misc)
{
	size_t at = b->n;
	rec_hdr(b, type, misc, 0);
	return at;
}

/* Pads to 8 bytes, appends the sample_id trailer (non-sample records) and sets the size. */
static inline void rec_end(struct bb *b, size_t at)
{
	uint32_t type;
	uint16_t size;
	memcpy(&type, b->p + at, 4);
	while ((b->n - at) % 8)
		bb_put(b, "", 1);
	if (g_id_all && type != PERF_RECORD_SAMPLE) {
		if (g_st & PERF_SAMPLE_TID)
			put32(b, 0x5151), put32(b, 0x5252);
		if (g_st & PERF_SAMPLE_TIME)
			put64(b, 0x7171);
		if (g_st & PERF_SAMPLE_ID)
			put64(b, 0x1d1d);
		if (g_st & PERF_SAMPLE_STREAM_ID)
			put64(b, 0x5d5d);
		if (g_st & PERF_SAMPLE_CPU)
			put32(b, 3), put32(b, 0);
		if (g_st & PERF_SAMPLE_IDENTIFIER)
			put64(b, 0x1d1d);
	}
	if (b->n - at >= 65536)
		abort();
	size = (uint16_t)(b->n - at);
	memcpy(b->p + at + 6, &size, 2);
}

struct smp {
	uint16_t misc;
	uint64_t id, ip;
	uint32_t pid, tid;
	uint64_t time, addr, period;
	/* PERF_SAMPLE_CALLCHAIN: nchain entries (markers included); REGS_USER: abi, nregs values; STACK_USER */
	const uint64_t *chain;
	uint32_t nchain;
	uint64_t abi;
	const uint64_t *regs;
	uint32_t nregs;
	uint32_t stack_size; /* bytes of stack copied (then dyn_size), 0: no stack */
	uint64_t dyn_size;
};

/* A SAMPLE with the fields of g_st, in the kernel's order. */
static inline void rec_sample(struct bb *b, const struct smp *s)
{
	size_t at = rec_begin(b, PERF_RECORD_SAMPLE, s->misc);
	if (g_st & PERF_SAMPLE_IDENTIFIER)
		put64(b, s->id);
	if (g_st & PERF_SAMPLE_IP)
		put64(b, s->ip);
	if (g_st & PERF_SAMPLE_TID)
		put32(b, s->pid), put32(b, s->tid);
	if (g_st & PERF_SAMPLE_TIME)
		put64(b, s->time);
	if (g_st & PERF_SAMPLE_ADDR)
		put64(b, s->addr);
	if (g_st & PERF_SAMPLE_ID)
		put64(b, s->id);
	if (g_st & PERF_SAMPLE_STREAM_ID)
		put64(b, 0xabcdef);
	if (g_st & PERF_SAMPLE_CPU)
		put32(b, 7), put32(b, 0);
	if (g_st & PERF_SAMPLE_PERIOD)
		put64(b, s->period);
	if (g_st & PERF_SAMPLE_CALLCHAIN) {
		put64(b, s->nchain);
		for (uint32_t k = 0; k < s->nchain; k++)
			put64(b, s->chain[k]);
	}
	if (g_st & PERF_SAMPLE_RAW) {
		/* 4 + 20 bytes: the kernel pads raw data so the sample stays 8-aligned */
		put32(b, 20);
		bb_put(b, "IBS-FETCH-CTL-RAWDAT", 20);
	}
	if (g_st & PERF_SAMPLE_REGS_USER) {
		put64(b, s->abi);
		for (uint32_t k = 0; s->abi && k < s->nregs; k++)
			put64(b, s->regs[k]);
	}
	if (g_st & PERF_SAMPLE_STACK_USER) {
		put64(b, s->stack_size);
		for (uint32_t k = 0; k < s->stack_size; k++)
			bb_put(b, "S", 1);
		if (s->stack_size)
			put64(b, s->dyn_size);
	}
	if (g_st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		put64(b, 0x0000000300020001ULL);
	if (g_st & PERF_SAMPLE_DATA_SRC)
		put64(b, 0x29080842ULL);
	if (g_st & PERF_SAMPLE_PHYS_ADDR)
		put64(b, 0x12345000ULL);
	if (g_st & PERF_SAMPLE_DATA_PAGE_SIZE)
		put64(b, 4096);
	if (g_st & PERF_SAMPLE_CODE_PAGE_SIZE)
		put64(b, 2u << 20);
	rec_end(b, at);
}

/* A sample of stream id by pid/tid at ip (addr for page faults), period 7. */
static inline void smp_at(struct bb *b, uint64_t id, uint32_t pid, uint32_t tid, uint64_t ip, uint64_t addr)
{
	struct smp s = {.id = id, .ip = ip, .pid = pid, .tid = tid, .time = 1000 + b->n, .addr = addr, .period = 7};
	rec_sample(b, &s);
}

/* MMAP: the kernel reports only executable maps this way. */
static inline void rec_mmap(struct bb *b, uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff, const char *path)
{
	size_t at = rec_begin(b, PERF_RECORD_MMAP, 0);
	put32(b, pid), put32(b, pid);
	put64(b, addr), put64(b, len), put64(b, pgoff);
	bb_put(b, path, strlen(path) + 1);
	rec_end(b, at);
}

/* MMAP2 with maj/min/ino, or with a build id when bid is given. */
static inline void rec_mmap2(struct bb *b, uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff, uint32_t prot,
			     const char *path, const uint8_t *bid, uint8_t bid_len)
{
	size_t at = rec_begin(b, PERF_RECORD_MMAP2, bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0);
	put32(b, pid), put32(b, pid);
	put64(b, addr), put64(b, len), put64(b, pgoff);
	if (bid) {
		uint8_t u[24] = {bid_len};
		memcpy(u + 4, bid, bid_len < 20 ? bid_len : 20);
		bb_put(b, u, 24);
	} else {
		put32(b, 8), put32(b, 1), put64(b, 123456), put64(b, 0);
	}
	put32(b, prot), put32(b, MAP_PRIVATE);
	bb_put(b, path, strlen(path) + 1);
	rec_end(b, at);
}

/* COMM, an exec one (PERF_RECORD_MISC_COMM_EXEC) when exec. */
static inline void rec_comm(struct bb *b, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	size_t at = rec_begin(b, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	put32(b, pid), put32(b, tid);
	bb_put(b, comm, strlen(comm) + 1);
	rec_end(b, at);
}

/* FORK or EXIT. */
static inline void rec_task(struct bb *b, uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	size_t at = rec_begin(b, type, 0);
	put32(b, pid), put32(b, ppid), put32(b, tid), put32(b, ptid);
	put64(b, 424242);
	rec_end(b, at);
}

static inline void rec_lost(struct bb *b, uint64_t lost)
{
	size_t at = rec_begin(b, PERF_RECORD_LOST, 0);
	put64(b, 11), put64(b, lost);
	rec_end(b, at);
}

static inline void rec_lost_samples(struct bb *b, uint64_t lost)
{
	size_t at = rec_begin(b, PERF_RECORD_LOST_SAMPLES, 0);
	put64(b, lost);
	rec_end(b, at);
}

/* THROTTLE or UNTHROTTLE. */
static inline void rec_throttle(struct bb *b, uint32_t type)
{
	size_t at = rec_begin(b, type, 0);
	put64(b, 99), put64(b, 11), put64(b, 11);
	rec_end(b, at);
}

/* A record of any type with payload bytes of 0x5a. */
static inline void rec_other(struct bb *b, uint32_t type, size_t payload)
{
	size_t at = rec_begin(b, type, 0), i;
	for (i = 0; i < payload; i++)
		bb_put(b, "\x5a", 1);
	rec_end(b, at);
}

/* ---- sample_type sets ---------------------------------------------------- */

#define ST_BASIC (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)
#define ST_FAULT (ST_BASIC | PERF_SAMPLE_ADDR)
#define ST_ALL                                                                                                         \
	(ST_FAULT | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW |                       \
	 PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_PAGE_SIZE |       \
	 PERF_SAMPLE_CODE_PAGE_SIZE)

/*
 * The layouts of the ring fuzz target, picked by bits 0-1 of its first byte
 * (tests/fuzz/fuzz_ring.c; test_ring.c writes its seeds).
 */
static const uint64_t fuzz_sts[4] = {
	ST_BASIC,
	ST_FAULT,
	ST_ALL,
	PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_WEIGHT |
		PERF_SAMPLE_DATA_SRC,
};

/* ---- the ring ------------------------------------------------------------- */

/* Writes n bytes at ring position pos of a data area of size bytes (a power of two), wrapping at its end. */
static inline void ring_put(unsigned char *data, size_t size, uint64_t pos, const void *bytes, size_t n)
{
	const unsigned char *p = bytes;
	size_t i;
	for (i = 0; i < n; i++)
		data[(pos + i) & (size - 1)] = p[i];
}

#endif
