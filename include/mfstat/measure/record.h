/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MRECORD_H
#define MFSTAT_MRECORD_H

/*
 * Kernel perf records of mfstat measure: draining a perf mmap ring buffer
 * (ring.c, which knows nothing of what records mean) and decoding records
 * into the run model (decode.c).
 */

#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"

struct mf_mrun;

/*
 * Copies the records between data_tail and data_head of a perf mmap ring
 * (meta is the first, metadata page; data_size the data area, a power of
 * two) to sink, handling a record that wraps the end of the buffer, then
 * advances data_tail (with release order; data_head is read with acquire).
 * Only whole records are passed on.  Returns bytes passed, or MF_EFORMAT
 * (with err: the ring offset and what is wrong) for a record of size 0 or
 * one running past data_head.
 */
typedef int (*mf_ring_sink)(void *ctx, const void *bytes, size_t n);
long mf_ring_drain(void *meta, size_t data_size, mf_ring_sink sink, void *ctx, struct mf_error *err);

/*
 * Decodes a stream of whole kernel records (as written to the run file) into
 * run: MMAP/MMAP2 build per-process address spaces (module, start, length,
 * pgoff, protection), FORK copies the parent's, COMM names threads (an exec
 * COMM clears the process's maps), EXIT ends a thread, LOST, LOST_SAMPLES,
 * THROTTLE and UNTHROTTLE are counted, SAMPLE becomes an mf_msample with its
 * stream (by PERF_SAMPLE_IDENTIFIER), module and file offset resolved, page
 * faults flagged MF_MS_IFETCH when on instruction fetch; other types are
 * counted in run->unknown_records.  run->sample_type, sample_id_all and the
 * streams must be set first.  May be called repeatedly: state carries over.
 * Returns 0, or MF_EFORMAT with err->offset (byte offset in the stream
 * given to the first call) for a malformed record.  file names err->file.
 */
int mf_mrun_ingest(struct mf_mrun *run, const void *bytes, size_t n, const char *file, struct mf_error *err);

struct mf_unwind;
struct mf_unwind_sample;

/* The most addresses one sample's chain gets from the unwinder (the kernel's PERF_MAX_STACK_DEPTH and one). */
#define MF_UNWIND_MAX_IPS 128
/* An unwinder: mf_unwind_sample (mfstat/measure/unwind.h) or a test's. */
typedef int (*mf_unwind_fn)(struct mf_unwind *u, const struct mf_unwind_sample *s, uint64_t *ips, size_t max,
			    size_t *n);

/*
 * Call chains (run->sample_type with PERF_SAMPLE_CALLCHAIN): each sample's
 * chain becomes frames resolved through its process's maps like its ip
 * (kernel addresses MF_FR_KERNEL, later frames MF_FR_RETURN, an address in no
 * mapping ends the chain with an MF_FR_UNKNOWN frame), interned by
 * mf_mrun_add_stack into smp->stack.  PERF_SAMPLE_REGS_USER records hold one
 * register per bit of the sample_regs_user they were recorded with: give it
 * here before the first record.  Returns 0 or MF_ENOMEM.
 */
int mf_mrun_ingest_regs(struct mf_mrun *run, uint64_t regs_mask);
/*
 * With an unwinder, a sample with user registers and a copied stack gets the
 * user part of its chain from fn(u, ...) over its process's maps (the
 * kernel's part still from CALLCHAIN); a walk that stops early ends in an
 * MF_FR_UNKNOWN frame and counts in run->unwind_failed.  A sample without
 * registers or stack keeps the kernel's frame-pointer chain.  fn NULL: none.
 * Returns 0 or MF_ENOMEM.
 */
int mf_mrun_ingest_unwind(struct mf_mrun *run, mf_unwind_fn fn, struct mf_unwind *u);

#endif
