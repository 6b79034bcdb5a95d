/* SPDX-License-Identifier: MIT */
/*
 * The progress of a reading (mf_reader_opts.progress): the samples and input bytes the reader
 * counts, its fn told every MF_PROGRESS_EVERY samples and at the end, and the size of a file
 * opened as the total.
 */
#include <stdio.h>
#include <unistd.h>

#include "testutil.h"

MF_TEST_KB_FIXTURE()

#define ROWS 600

struct seen {
	unsigned calls;
	unsigned long long samples[8];
};

static void count_fn(void *ctx, struct mf_progress *p)
{
	struct seen *s = ctx;
	if (s->calls < 8)
		s->samples[s->calls] = atomic_load(&p->samples);
	s->calls++;
}

/* ROWS rows of a z16 GCP pool, an interval apart, into a new string (the caller frees it). */
static char *rows_csv(size_t *len)
{
	size_t cap = 100 + ROWS * 100, n;
	char *b = malloc(cap);
	int i;
	assert_non_null(b);
	n = (size_t)snprintf(b, cap, "system,lpar,pool,machine,cpsp,interval_start,interval_seconds,B0,B1,B2,B4\n");
	for (i = 0; i < ROWS; i++)
		n += (size_t)snprintf(b + n, cap - n,
				      "SYS1,LP1,GCP,z16,5200,2025-03-%02dT%02d:%02d:00Z,60,1000,500,5,5\n",
				      1 + i / 1440, i / 60 % 24, i % 60);
	*len = n;
	return b;
}

static void read_all(struct mf_reader *r)
{
	struct mf_sample s;
	struct mf_error e;
	int got, n = 0;
	memset(&s, 0, sizeof(s));
	mf_error_clear(&e);
	while ((got = mf_reader_next(r, &s, &e)) == 1)
		n++;
	assert_int_equal(got, 0);
	assert_int_equal(n, ROWS);
}

static void counts_in_memory(void **state)
{
	struct mf_progress p;
	struct mf_reader_opts ro = {0};
	struct mf_reader *r;
	struct mf_error e;
	struct seen seen = {0};
	size_t len;
	char *csv = rows_csv(&len);
	(void)state;
	memset(&p, 0, sizeof(p));
	p.fn = count_fn;
	p.ctx = &seen;
	ro.kb = kb;
	ro.strtab = mf_strtab_new();
	ro.progress = &p;
	mf_error_clear(&e);
	assert_int_equal(mf_reader_open_mem(&r, "t.csv", csv, len, &ro, &e), 0);
	read_all(r);
	/* Told at 256 and 512 samples, then at the end with all 600. */
	assert_int_equal(seen.calls, ROWS / MF_PROGRESS_EVERY + 1);
	assert_int_equal(seen.samples[0], MF_PROGRESS_EVERY);
	assert_int_equal(seen.samples[1], 2 * MF_PROGRESS_EVERY);
	assert_int_equal(seen.samples[2], ROWS);
	assert_int_equal(atomic_load(&p.samples), ROWS);
	assert_int_equal(atomic_load(&p.bytes), len);
	assert_int_equal(atomic_load(&p.total), 0); /* memory: no size of a file */
	mf_reader_close(r);
	mf_strtab_free(ro.strtab);
	free(csv);
}

static void file_total(void **state)
{
	struct mf_progress p;
	struct mf_reader_opts ro = {0};
	struct mf_reader *r;
	struct mf_error e;
	char path[] = "/tmp/mfstat-progress-XXXXXX";
	size_t len;
	char *csv = rows_csv(&len);
	int fd = mkstemp(path);
	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, csv, len), (ssize_t)len);
	close(fd);
	memset(&p, 0, sizeof(p)); /* no fn: the counters alone */
	ro.kb = kb;
	ro.strtab = mf_strtab_new();
	ro.progress = &p;
	mf_error_clear(&e);
	assert_int_equal(mf_reader_open(&r, path, &ro, &e), 0);
	assert_int_equal(atomic_load(&p.total), len);
	read_all(r);
	assert_int_equal(atomic_load(&p.bytes), len);
	assert_int_equal(atomic_load(&p.samples), ROWS);
	mf_reader_close(r);
	unlink(path);
	mf_strtab_free(ro.strtab);
	free(csv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_in_memory),
		cmocka_unit_test(file_total),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
