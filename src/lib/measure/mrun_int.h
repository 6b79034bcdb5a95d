/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MRUN_INT_H
#define MFSTAT_MRUN_INT_H

#include "mfstat/measure/run.h"

/*
 * What a record decoder keeps with a run (decode.c: the per-process address
 * spaces built from MMAP2/FORK/COMM/EXIT records and the byte offset reached
 * in the record stream), in run->priv.  The run model knows it only as a
 * pointer and the function that frees it, so the dependency goes one way:
 * the decoder uses the run model, the run model never calls the decoder.
 */
struct mf_mrun_decoder {
	void *state;                     /* the decoder's, NULL until its first call */
	void (*free_state)(void *state); /* called by mf_mrun_free when state is set */
};

/* The run's decoder slot (created on first use), or NULL on ENOMEM. */
struct mf_mrun_decoder *mf_mrun_decoder(struct mf_mrun *run);

#endif
