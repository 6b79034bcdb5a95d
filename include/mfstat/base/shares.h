/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_SHARES_H
#define MFSTAT_SHARES_H

#include <stddef.h>

/*
 * Work cut into n shares, run at once: fn(ctx, i) for every i in [0, n),
 * share 0 in the calling thread and each other share in a thread of its own
 * (a share whose thread cannot be started runs in the calling thread, after
 * share 0).  Returns when every share is done.  n of 1 (or 0) runs share 0
 * alone, without a thread.
 */
void mf_run_shares(size_t n, void (*fn)(void *ctx, size_t i), void *ctx);

#endif
