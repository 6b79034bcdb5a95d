/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MRUN_INT_H
#define MFSTAT_MRUN_INT_H

#include "mfstat/measure.h"

/*
 * Ingest state of a run (perf_ring.c owns what impl points to): the
 * per-process address spaces built from MMAP2/FORK/COMM/EXIT records and the
 * byte offset reached in the record stream.  Kept in run->priv.
 */
struct mf_ring_state {
	void *impl;
};

/* The run's ingest state (created on first use), or NULL on ENOMEM. */
struct mf_ring_state *mf_mrun_ring_state(struct mf_mrun *run);
/* Frees what perf_ring.c keeps in st (called by mf_mrun_free). */
void mf_ring_state_free(struct mf_ring_state *st);

#endif
