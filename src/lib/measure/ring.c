/* SPDX-License-Identifier: MIT */
/*
 * Draining a perf mmap ring buffer (caliper-measure.md §3, Collector steps
 * 3-4): the records between data_tail and data_head go to a sink in runs of
 * whole records, a record wrapping the end of the buffer through a bounce
 * buffer, then data_tail moves on.  Knows nothing of what the records mean:
 * decode.c turns them into the run model.
 */
#include "mfstat/measure/record.h"

#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A record's size is a u16, so one buffer of this size holds any record. */
#define BOUNCE_SIZE 65536

/* Copies n bytes at ring position pos out of the data area (size a power of two), wrapping at its end. */
static void ring_copy(const unsigned char *data, size_t size, uint64_t pos, void *dst, size_t n)
{
	size_t off = (size_t)(pos & (size - 1));
	size_t first = size - off < n ? size - off : n;
	memcpy(dst, data + off, first);
	memcpy((unsigned char *)dst + first, data, n - first);
}

static int ring_bad(struct mf_error *err, uint64_t pos, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int ring_bad(struct mf_error *err, uint64_t pos, size_t size, const char *fmt, ...)
{
	char what[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	mf_error_set(err, MF_EFORMAT, "perf ring buffer", 0, 0, "record at ring position %llu (buffer offset %zu): %s",
		     (unsigned long long)pos, (size_t)(pos & (size - 1)), what);
	if (err)
		err->offset = (long long)pos;
	return MF_EFORMAT;
}

/* A drain in progress: the run of whole, unwrapped records not yet passed on. */
struct drain {
	const unsigned char *data;
	size_t mask;
	mf_ring_sink sink;
	void *ctx;
	uint64_t run_pos; /* ring position of the run */
	size_t run_len;
	uint64_t done; /* ring position up to which the sink took everything */
	long passed;
};

static int pass(struct drain *d, const void *bytes, size_t n)
{
	int rc = d->sink(d->ctx, bytes, n);
	if (rc < 0)
		return rc;
	d->passed += (long)n;
	d->done += n;
	return 0;
}

static int flush(struct drain *d)
{
	int rc = 0;
	if (d->run_len)
		rc = pass(d, d->data + (d->run_pos & d->mask), d->run_len);
	d->run_len = 0;
	return rc;
}

long mf_ring_drain(void *meta, size_t data_size, mf_ring_sink sink, void *ctx, struct mf_error *err)
{
	struct perf_event_mmap_page *pg = meta;
	unsigned char bounce[BOUNCE_SIZE];
	struct drain d = {.sink = sink, .ctx = ctx, .mask = data_size - 1};
	uint64_t head, tail, pos;
	int rc = 0, damage = 0;

	if (!pg || !sink || data_size < 8 || (data_size & (data_size - 1)) != 0)
		return mf_error_set(err, MF_EINVAL, "perf ring buffer", 0, 0,
				    "data size %zu is not a power of two of at least 8 bytes", data_size);
	if (pg->data_size && pg->data_size != data_size)
		return mf_error_set(err, MF_EINVAL, "perf ring buffer", 0, 0,
				    "data size %zu given, but the metadata page says %llu", data_size,
				    (unsigned long long)pg->data_size);
	/* Kernels before 4.1 leave data_offset 0: the data follows the first page. */
	d.data = (const unsigned char *)meta + (pg->data_offset ? pg->data_offset : (uint64_t)sysconf(_SC_PAGESIZE));

	/* Acquire pairs with the kernel's release of data_head: the records
	 * before head are visible once head is (§3 Collector step 4). */
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = __atomic_load_n(&pg->data_tail, __ATOMIC_RELAXED); /* only we write it */
	if (head - tail > data_size) {
		mf_error_set(err, MF_EFORMAT, "perf ring buffer", 0, 0,
			     "data_head %llu is behind data_tail %llu or more than the %zu-byte buffer ahead",
			     (unsigned long long)head, (unsigned long long)tail, data_size);
		if (err)
			err->offset = (long long)tail;
		return MF_EFORMAT;
	}
	d.done = tail;

	/*
	 * Walk the records, collecting runs of whole records that lie in one
	 * piece in the buffer; each run goes to the sink in one call.  A record
	 * that wraps the end goes through the bounce buffer on its own (at
	 * most one per drain, as head - tail <= data_size).
	 */
	for (pos = tail; pos != head;) {
		struct perf_event_header h;
		size_t off = (size_t)(pos & d.mask);
		uint64_t left = head - pos;

		if (left < sizeof(h)) {
			damage = ring_bad(err, pos, data_size,
					  "record header runs past data_head (%llu bytes before it)",
					  (unsigned long long)left);
			break;
		}
		ring_copy(d.data, data_size, pos, &h, sizeof(h));
		if (h.size < sizeof(h)) {
			damage = ring_bad(err, pos, data_size,
					  "size %u is smaller than the 8-byte record header (type %u)", h.size, h.type);
			break;
		}
		if (h.size > left) {
			damage = ring_bad(err, pos, data_size,
					  "record runs past data_head (size %u, %llu bytes before data_head)", h.size,
					  (unsigned long long)left);
			break;
		}
		/* A run ends where the buffer does. */
		if (d.run_len && (d.run_pos & d.mask) + d.run_len != off && (rc = flush(&d)) < 0)
			goto out;
		if (off + h.size <= data_size) {
			if (!d.run_len)
				d.run_pos = pos;
			d.run_len += h.size;
		} else {
			if ((rc = flush(&d)) < 0)
				goto out;
			ring_copy(d.data, data_size, pos, bounce, h.size);
			if ((rc = pass(&d, bounce, h.size)) < 0)
				goto out;
		}
		pos += h.size;
	}
	/* The whole records before head, or before the damaged one. */
	if ((rc = flush(&d)) < 0)
		goto out;
	/*
	 * On damage, skip to head: the kernel publishes head only at a record
	 * boundary, so the next drain starts in step again.
	 */
	if (damage) {
		d.done = head;
		rc = damage;
	}
out:
	/*
	 * A sink failure leaves data_tail at the first record it did not take.
	 * Release: our reads of the records happen before the kernel may
	 * overwrite their space.
	 */
	__atomic_store_n(&pg->data_tail, d.done, __ATOMIC_RELEASE);
	return rc < 0 ? rc : d.passed;
}
