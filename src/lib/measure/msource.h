/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MSOURCE_H
#define MFSTAT_MSOURCE_H

/*
 * The source cache of the measure reports (msource.c): source files read
 * once each, on first use, for the statement text of a line.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mf_srcfile;

/* Zero-initialised it is empty; mf_srccache_free frees it. */
struct mf_srccache {
	struct mf_srcfile *f;
	size_t n, cap;
};

/*
 * The statement text of path:line, stripped of indentation, trailing blanks
 * and control characters, at most ~160 bytes; false when unknown.
 */
bool mf_srccache_text(struct mf_srccache *c, const char *path, uint32_t line, char *out, size_t n);
void mf_srccache_free(struct mf_srccache *c);

#endif
