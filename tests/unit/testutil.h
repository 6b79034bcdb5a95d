/* SPDX-License-Identifier: MIT */
/* Helpers shared by the unit tests (included once per test program). */
#ifndef MFSTAT_TESTUTIL_H
#define MFSTAT_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mfstat/mfstat.h"

static inline struct mf_kb *test_kb(void)
{
	struct mf_kb *kb = NULL;
	struct mf_error e;
	mf_error_clear(&e);
	if (mf_kb_load(NULL, &kb, &e) != 0) {
		char buf[1024];
		mf_error_format(&e, buf, sizeof(buf));
		fail_msg("knowledge base does not load: %s", buf);
	}
	return kb;
}

/* Writes text to a fresh temporary file; returns its path (static buffer per call site). */
static inline char *test_tmpfile(const char *text, size_t len)
{
	static char paths[16][64];
	static int next;
	char *p = paths[next++ % 16];
	int fd;
	snprintf(p, 64, "/tmp/mfstat-test-XXXXXX");
	fd = mkstemp(p);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return p;
}

/* A knowledge base loaded once per test program: defines kb, kb_setup and kb_teardown. */
#define MF_TEST_KB_FIXTURE()                                                                                           \
	static struct mf_kb *kb;                                                                                       \
	static int kb_setup(void **state)                                                                              \
	{                                                                                                              \
		(void)state;                                                                                           \
		kb = test_kb();                                                                                        \
		return 0;                                                                                              \
	}                                                                                                              \
	static int kb_teardown(void **state)                                                                           \
	{                                                                                                              \
		(void)state;                                                                                           \
		mf_kb_free(kb);                                                                                        \
		return 0;                                                                                              \
	}

#endif
