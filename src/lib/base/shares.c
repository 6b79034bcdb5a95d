/* SPDX-License-Identifier: MIT */
/* Work cut into shares run by threads at once (shares.h). */
#include "mfstat/base/shares.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct share {
	void (*fn)(void *ctx, size_t i);
	void *ctx;
	size_t i;
	bool started;
	pthread_t thread;
};

static void *share_run(void *arg)
{
	struct share *s = arg;
	s->fn(s->ctx, s->i);
	return NULL;
}

void mf_run_shares(size_t n, void (*fn)(void *ctx, size_t i), void *ctx)
{
	struct share few[16], *sh = n <= 16 ? few : malloc(n * sizeof(*sh));
	size_t i;
	if (n == 0)
		n = 1;
	if (!sh) { /* no memory for the threads' places: every share in this thread */
		for (i = 0; i < n; i++)
			fn(ctx, i);
		return;
	}
	for (i = 0; i < n; i++) {
		sh[i].fn = fn;
		sh[i].ctx = ctx;
		sh[i].i = i;
		sh[i].started = i > 0 && pthread_create(&sh[i].thread, NULL, share_run, &sh[i]) == 0;
	}
	fn(ctx, 0);
	for (i = 1; i < n; i++) {
		if (sh[i].started)
			pthread_join(sh[i].thread, NULL);
		else
			fn(ctx, i);
	}
	if (sh != few)
		free(sh);
}
