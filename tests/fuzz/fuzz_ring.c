/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: kernel perf records (ring.c, decode.c).  The first byte picks
 * the layout:
 *   bits 0-1  sample_type set (fuzz_sts, tests/unit/perfrec.h)
 *   bit 2     sample_id_all
 *   bits 3-4  the kinds of the two streams (ids 1 and 2)
 *   bit 5     ingest in two calls, split after the first record
 *   bit 6     data_offset 0 in the ring (older kernels)
 *   bits 6-7  both set: add PERF_SAMPLE_CALLCHAIN, which must be refused
 * The rest goes to mf_mrun_ingest, then into a fake ring buffer, placed so
 * that it wraps, which is drained into a second run.
 * tests/unit/test_ring.c writes the seeds (MFSTAT_RING_CORPUS=DIR): keep it
 * in step.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mfstat/measure/record.h"
#include "mfstat/measure/run.h"

#include "../unit/perfrec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct kind {
	int role;
	uint32_t type;
	int precise;
	uint64_t period;
};

/* Two streams per kind: CPU/fault software, non-precise hardware, precise raw and a dynamic PMU, cache. */
static const struct kind kinds[4][2] = {
	{{MF_ROLE_CPU, PERF_TYPE_SOFTWARE, 0, 1000000}, {MF_ROLE_FAULT, PERF_TYPE_SOFTWARE, 0, 1}},
	{{MF_ROLE_CPU, PERF_TYPE_HARDWARE, 0, 100003}, {MF_ROLE_FAULT, PERF_TYPE_SOFTWARE, 0, 1}},
	{{MF_ROLE_ITLB, PERF_TYPE_RAW, 2, 1009}, {MF_ROLE_STLB, 11, 0, 4096}},
	{{MF_ROLE_ITLB, PERF_TYPE_HW_CACHE, 0, 503}, {MF_ROLE_FAULT, PERF_TYPE_SOFTWARE, 0, 1}},
};

static int setup(struct mf_mrun *run, uint8_t sel)
{
	int i;
	mf_mrun_init(run);
	run->sample_type = fuzz_sts[sel & 3];
	if ((sel & 0xc0) == 0xc0)
		run->sample_type |= PERF_SAMPLE_CALLCHAIN;
	run->sample_id_all = sel & 4;
	for (i = 0; i < 2; i++) {
		const struct kind *k = &kinds[(sel >> 3) & 3][i];
		struct mf_mstream *s = mf_mrun_add_stream(run);
		if (!s)
			return -1;
		s->role = k->role;
		s->type = k->type;
		s->precise = k->precise;
		s->period = k->period;
		s->id = (uint64_t)i + 1;
	}
	return 0;
}

static int ingest_sink(void *ctx, const void *bytes, size_t n)
{
	struct mf_error e;
	return mf_mrun_ingest(ctx, bytes, n, "ring", &e);
}

/* Every model field a report reads stays in range. */
static void check(const struct mf_mrun *run)
{
	size_t i;
	for (i = 0; i < run->nsamples; i++) {
		const struct mf_msample *s = &run->samples[i];
		if (s->stream >= run->nstreams || (s->mod != MF_MOD_NONE && s->mod >= run->nmods))
			abort();
	}
	for (i = 0; i < run->nthreads; i++)
		if (run->threads[i].comm && strlen(run->threads[i].comm) > 65536)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mf_mrun run, run2;
	struct perf_event_mmap_page *meta;
	struct mf_error e;
	const uint8_t *rec;
	size_t n, page = (size_t)sysconf(_SC_PAGESIZE), dsize = 64;
	unsigned char *mem;
	uint64_t tail;
	uint8_t sel;

	if (size < 1)
		return 0;
	sel = data[0];
	rec = data + 1;
	n = size - 1;

	if (setup(&run, sel) == 0) {
		size_t split = n;
		if ((sel & 0x20) && n >= 8) {
			uint16_t first;
			memcpy(&first, rec + 6, 2);
			if (first <= n)
				split = first;
		}
		if (mf_mrun_ingest(&run, rec, split, "fuzz", &e) == 0)
			mf_mrun_ingest(&run, rec + split, n - split, "fuzz", &e);
		check(&run);
	}
	mf_mrun_free(&run);

	/* The same bytes in a ring, starting somewhere that makes them wrap. */
	while (dsize < n)
		dsize *= 2;
	mem = calloc(1, page + dsize);
	if (!mem)
		return 0;
	meta = (struct perf_event_mmap_page *)mem;
	meta->data_offset = (sel & 0x40) ? 0 : page;
	meta->data_size = dsize;
	tail = 5 * (uint64_t)dsize + (dsize - (n / 2 + (size_t)sel * 8) % dsize);
	meta->data_tail = tail;
	meta->data_head = tail + n;
	ring_put(mem + page, dsize, tail, rec, n);
	if (setup(&run2, sel) == 0) {
		mf_ring_drain(meta, dsize, ingest_sink, &run2, &e);
		check(&run2);
	}
	mf_mrun_free(&run2);
	free(mem);
	return 0;
}
