/* SPDX-License-Identifier: MIT */
/* Compressed output (gzip through zlib, zstd through libzstd): the writing side of io.c. */
#include "mfstat/base/zout.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "mfstat/base/error.h"

#define ZOUT_BUF ((size_t)1 << 17)

struct mf_zout {
	enum mf_zout_kind kind;
	FILE *fp;
	z_stream gz;
	bool gz_open;
	ZSTD_CCtx *zc;
	unsigned char *buf; /* compressed bytes on their way to fp */
	bool failed;
};

enum mf_zout_kind mf_zout_kind_for(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	if (n > 3 && strcmp(path + n - 3, ".gz") == 0)
		return MF_ZOUT_GZIP;
	if (n > 4 && strcmp(path + n - 4, ".zst") == 0)
		return MF_ZOUT_ZSTD;
	return MF_ZOUT_PLAIN;
}

struct mf_zout *mf_zout_new(FILE *fp, enum mf_zout_kind kind)
{
	struct mf_zout *z = calloc(1, sizeof(*z));
	if (!z)
		return NULL;
	z->kind = kind;
	z->fp = fp;
	if (kind == MF_ZOUT_PLAIN)
		return z;
	z->buf = malloc(ZOUT_BUF);
	if (!z->buf) {
		free(z);
		return NULL;
	}
	if (kind == MF_ZOUT_GZIP) {
		/* 15 + 16: a gzip header and trailer around the deflate stream. */
		if (deflateInit2(&z->gz, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			mf_zout_free(z);
			return NULL;
		}
		z->gz_open = true;
	} else {
		z->zc = ZSTD_createCCtx();
		if (!z->zc || ZSTD_isError(ZSTD_CCtx_setParameter(z->zc, ZSTD_c_compressionLevel, 3))) {
			mf_zout_free(z);
			return NULL;
		}
	}
	return z;
}

static int put(struct mf_zout *z, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, z->fp) != n) {
		z->failed = true;
		return MF_EIO;
	}
	return 0;
}

/* Feeds data through the compressor; end: finish the stream. */
static int pump(struct mf_zout *z, const void *data, size_t n, bool end)
{
	if (z->kind == MF_ZOUT_GZIP) {
		int zr;
		z->gz.next_in = (Bytef *)(uintptr_t)data;
		z->gz.avail_in = (uInt)n;
		do {
			z->gz.next_out = z->buf;
			z->gz.avail_out = (uInt)ZOUT_BUF;
			zr = deflate(&z->gz, end ? Z_FINISH : Z_NO_FLUSH);
			if (zr == Z_STREAM_ERROR)
				return MF_ENOMEM;
			if (put(z, z->buf, ZOUT_BUF - z->gz.avail_out))
				return MF_EIO;
		} while (z->gz.avail_out == 0 || (end && zr != Z_STREAM_END));
		return 0;
	} else {
		ZSTD_inBuffer in = {data, n, 0};
		size_t left;
		do {
			ZSTD_outBuffer out = {z->buf, ZOUT_BUF, 0};
			left = ZSTD_compressStream2(z->zc, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
			if (ZSTD_isError(left))
				return MF_ENOMEM;
			if (put(z, z->buf, out.pos))
				return MF_EIO;
		} while (end ? left != 0 : in.pos < in.size);
		return 0;
	}
}

int mf_zout_write(struct mf_zout *z, const void *data, size_t n)
{
	if (z->failed)
		return MF_EIO;
	if (z->kind == MF_ZOUT_PLAIN)
		return put(z, data, n);
	/* Large writes in pieces: zlib counts its input in uInt. */
	while (n) {
		size_t k = n > ((size_t)1 << 30) ? (size_t)1 << 30 : n;
		int rc = pump(z, data, k, false);
		if (rc)
			return rc;
		data = (const char *)data + k;
		n -= k;
	}
	return 0;
}

int mf_zout_finish(struct mf_zout *z)
{
	int rc = 0;
	if (z->failed)
		return MF_EIO;
	if (z->kind != MF_ZOUT_PLAIN)
		rc = pump(z, NULL, 0, true);
	if (!rc && fflush(z->fp))
		rc = MF_EIO;
	return rc;
}

void mf_zout_free(struct mf_zout *z)
{
	if (!z)
		return;
	if (z->gz_open)
		deflateEnd(&z->gz);
	ZSTD_freeCCtx(z->zc);
	free(z->buf);
	free(z);
}
