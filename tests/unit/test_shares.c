/* SPDX-License-Identifier: MIT */
/*
 * Work cut into shares (mf_run_shares): every share runs once, share 0 in the calling thread,
 * the others at once in threads of their own, and all are done on return.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include "testutil.h"

#include "mfstat/base/shares.h"

struct work {
	size_t n;
	int runs[64];
	pthread_t who[64];
	atomic_int arrived; /* shares that have started */
	bool together;      /* some share saw another running at the same time */
};

static void share(void *ctx, size_t i)
{
	struct work *w = ctx;
	int k;
	w->runs[i]++;
	w->who[i] = pthread_self();
	atomic_fetch_add(&w->arrived, 1);
	/* Wait a little for the others: threads that run at once meet here. */
	for (k = 0; k < 2000 && atomic_load(&w->arrived) < (int)w->n; k++) {
		struct timespec t = {0, 100000};
		nanosleep(&t, NULL);
	}
	if (atomic_load(&w->arrived) == (int)w->n && w->n > 1)
		w->together = true;
}

static void every_share_once(void **state)
{
	size_t sizes[] = {1, 2, 3, 16, 17, 64}, s, i;
	(void)state;
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct work *w = calloc(1, sizeof(*w));
		assert_non_null(w);
		w->n = sizes[s];
		mf_run_shares(w->n, share, w);
		for (i = 0; i < w->n; i++)
			assert_int_equal(w->runs[i], 1);
		/* Share 0 ran in the calling thread; with more than one share, they ran at once. */
		assert_true(pthread_equal(w->who[0], pthread_self()));
		if (w->n > 1) {
			assert_true(w->together);
			assert_false(pthread_equal(w->who[1], pthread_self()));
		}
		free(w);
	}
}

static void count(void *ctx, size_t i)
{
	int *c = ctx;
	(void)i;
	(*c)++;
}

/* No shares asked for is one share, in the calling thread. */
static void zero_is_one(void **state)
{
	int c = 0;
	(void)state;
	mf_run_shares(0, count, &c);
	assert_int_equal(c, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_share_once),
		cmocka_unit_test(zero_is_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
