/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_ZOUT_H
#define MFSTAT_ZOUT_H

#include <stddef.h>
#include <stdio.h>

/*
 * Compressed output: what io.c reads (gzip, zstd), written.  A sink wraps an
 * open FILE, compresses what is written to it and writes the stream's end on
 * mf_zout_finish; the FILE stays the caller's to close.
 */

enum mf_zout_kind { MF_ZOUT_PLAIN = 0, MF_ZOUT_GZIP, MF_ZOUT_ZSTD };

/* The kind a file name asks for: .gz gzip, .zst zstd, anything else (and NULL, "-") plain. */
enum mf_zout_kind mf_zout_kind_for(const char *path);

struct mf_zout;

/* A sink writing kind to fp (borrowed); NULL when out of memory. */
struct mf_zout *mf_zout_new(FILE *fp, enum mf_zout_kind kind);
/* Writes data[0..n): 0, or MF_EIO (a write error; see ferror(fp)) or MF_ENOMEM. */
int mf_zout_write(struct mf_zout *z, const void *data, size_t n);
/* Ends the stream and flushes it to fp: 0 or an error as for mf_zout_write. */
int mf_zout_finish(struct mf_zout *z);
void mf_zout_free(struct mf_zout *z);

#endif
