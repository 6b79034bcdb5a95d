/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_IO_H
#define MFSTAT_IO_H

#include <stddef.h>

#include "mfstat/base/error.h"

/*
 * A source of input bytes: a file descriptor or a memory block, decompressed
 * on the fly when it starts with the gzip (1f 8b) or zstd (28 b5 2f fd) magic
 * bytes.  Internal.
 */
struct mf_source;

/* Opens a source over fd (closed by mf_source_close when own) or over data[0..len) (borrowed). */
int mf_source_open_fd(struct mf_source **out, int fd, int own, const char *name, struct mf_error *err);
int mf_source_open_mem(struct mf_source **out, const void *data, size_t len, const char *name, struct mf_error *err);
/*
 * The same over head[0..hlen), then bytes [off, off + len) of the open file fd (read with pread,
 * fd not owned): a file's header line, then a part of its rows.
 */
int mf_source_open_head_range(struct mf_source **out, const void *head, size_t hlen, int fd, long long off,
			      long long len, const char *name, struct mf_error *err);

/*
 * Reads up to n decompressed bytes into dst.  Returns the count, 0 at the
 * end, or MF_EIO / MF_EFORMAT (corrupt or truncated compressed data) /
 * MF_ENOMEM with err filled.
 */
long mf_source_read(struct mf_source *s, void *dst, size_t n, struct mf_error *err);

/*
 * A compressed source: starts a thread that decompresses ahead of the
 * reads (for -j), so that decompressing and parsing run at once.  The
 * bytes, errors and their order are those of reading without it.  Returns
 * 1 when the thread runs, 0 when not (plain input, or no thread or memory:
 * the reads decompress as before).
 */
int mf_source_decompress_ahead(struct mf_source *s);

/* "none", "gzip" or "zstd". */
const char *mf_source_compression(const struct mf_source *s);

/* Compressed bytes consumed so far (the file size at the end). */
long long mf_source_raw_bytes(const struct mf_source *s);

void mf_source_close(struct mf_source *s);

#endif
