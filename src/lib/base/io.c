/* SPDX-License-Identifier: MIT */
/* Input bytes from files, stdin or memory; gzip and zstd recognised by their magic bytes. */
#include "io.h"

#include "mfstat/base/inbytes.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

enum { SRC_NONE, SRC_GZIP, SRC_ZSTD };

#define INBUF (1u << 17)

struct mf_source {
	int fd;
	int own;
	const char *name;
	const unsigned char *mem; /* memory source, or NULL */
	size_t mem_len, mem_pos;
	int range_fd; /* after mem: bytes [range_off, range_end) of this file (a header, then a part of a file) */
	long long range_off, range_end;
	int kind;
	bool raw_eof;
	long long raw_bytes;
	unsigned char *in; /* raw input block */
	size_t in_len, in_pos;
	z_stream zs;
	bool zs_init, zs_end; /* zs_end: a gzip member just ended */
	ZSTD_DStream *zd;
	bool zd_frame_open;
	struct ahead *ahead; /* a thread decompressing ahead (mf_source_decompress_ahead), or NULL */
};

/*
 * Decompression ahead: a thread fills a ring of blocks with decompressed bytes; mf_source_read
 * takes them in order.  The thread alone touches the decompressor; a block carries what the
 * reading that filled it returned at its end (0, or an error with its message), so errors
 * arrive after the bytes before them, as without the thread.
 */
#define AHEAD_BLOCK (1u << 20)
#define AHEAD_BLOCKS 4

struct ahead_block {
	unsigned char *buf;
	size_t len, pos;
	long end; /* after these bytes: 0 the end, < 0 an error (err), 1 more to come */
	struct mf_error err;
	long long raw_bytes; /* compressed bytes read when the block was filled */
};

struct ahead {
	struct ahead_block b[AHEAD_BLOCKS];
	size_t filled, taken; /* blocks filled by the thread, and taken by the reader (the one in use counts) */
	bool stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
};

/* Input bytes read by every source of the process (mf_input_bytes_read). */
static unsigned long long input_bytes;

unsigned long long mf_input_bytes_read(void)
{
	return __atomic_load_n(&input_bytes, __ATOMIC_RELAXED);
}

static long raw_read_uncounted(struct mf_source *s, unsigned char *dst, size_t n, struct mf_error *err);

/* Raw bytes from the file or memory, counted. */
static long raw_read(struct mf_source *s, unsigned char *dst, size_t n, struct mf_error *err)
{
	long got = raw_read_uncounted(s, dst, n, err);
	if (got > 0)
		__atomic_fetch_add(&input_bytes, (unsigned long long)got, __ATOMIC_RELAXED);
	return got;
}

static long raw_read_uncounted(struct mf_source *s, unsigned char *dst, size_t n, struct mf_error *err)
{
	ssize_t got;
	if (s->mem && s->mem_pos == s->mem_len && s->range_fd >= 0) {
		long long left = s->range_end - s->range_off;
		size_t k = left < (long long)n ? (size_t)left : n;
		do
			got = k ? pread(s->range_fd, dst, k, (off_t)s->range_off) : 0;
		while (got < 0 && errno == EINTR);
		if (got < 0)
			return mf_error_set(err, MF_EIO, s->name, 0, 0, "read error: %s", strerror(errno));
		s->range_off += got;
		s->raw_bytes += got;
		return (long)got;
	}
	if (s->mem) {
		size_t k;
		k = s->mem_len - s->mem_pos < n ? s->mem_len - s->mem_pos : n;
		memcpy(dst, s->mem + s->mem_pos, k);
		s->mem_pos += k;
		s->raw_bytes += (long long)k;
		return (long)k;
	}
	do
		got = read(s->fd, dst, n);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return mf_error_set(err, MF_EIO, s->name, 0, 0, "read error: %s", strerror(errno));
	s->raw_bytes += got;
	return (long)got;
}

/* Refills the raw input block when it is used up; returns bytes available (0 at end). */
static long refill(struct mf_source *s, struct mf_error *err)
{
	long got;
	if (s->in_pos < s->in_len)
		return (long)(s->in_len - s->in_pos);
	if (s->raw_eof)
		return 0;
	got = raw_read(s, s->in, INBUF, err);
	if (got < 0)
		return got;
	if (got == 0)
		s->raw_eof = true;
	s->in_len = (size_t)got;
	s->in_pos = 0;
	return got;
}

static int start(struct mf_source *s, struct mf_error *err)
{
	long got;
	/* Zeroed: gcc 12 at -O3 cannot see that raw_read fills the bytes tested below. */
	s->in = calloc(1, INBUF);
	if (!s->in)
		return mf_error_nomem(err, s->name, 0, "making the input buffer");
	/* Enough bytes to see a magic number (a short read is fine at the end). */
	while (s->in_len < 4 && !s->raw_eof) {
		got = raw_read(s, s->in + s->in_len, INBUF - s->in_len, err);
		if (got < 0)
			return (int)got;
		if (got == 0)
			s->raw_eof = true;
		s->in_len += (size_t)got;
	}
	if (s->in_len >= 2 && s->in[0] == 0x1f && s->in[1] == 0x8b) {
		s->kind = SRC_GZIP;
		/* 16 + MAX_WBITS: gzip wrapper; members are restarted below. */
		if (inflateInit2(&s->zs, 16 + MAX_WBITS) != Z_OK)
			return mf_error_nomem(err, s->name, 0, "starting the gzip decompression");
		s->zs_init = true;
	} else if (s->in_len >= 4 && s->in[0] == 0x28 && s->in[1] == 0xb5 && s->in[2] == 0x2f && s->in[3] == 0xfd) {
		s->kind = SRC_ZSTD;
		s->zd = ZSTD_createDStream();
		if (!s->zd)
			return mf_error_nomem(err, s->name, 0, "starting the zstd decompression");
	}
	return 0;
}

int mf_source_open_fd(struct mf_source **out, int fd, int own, const char *name, struct mf_error *err)
{
	struct mf_source *s = calloc(1, sizeof(*s));
	int rc;
	*out = NULL;
	if (!s)
		return mf_error_nomem(err, name, 0, "opening the input");
	s->fd = fd;
	s->own = own;
	s->range_fd = -1;
	s->name = name;
	rc = start(s, err);
	if (rc) {
		mf_source_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

int mf_source_open_mem(struct mf_source **out, const void *data, size_t len, const char *name, struct mf_error *err)
{
	return mf_source_open_head_range(out, data, len, -1, 0, 0, name, err);
}

int mf_source_open_head_range(struct mf_source **out, const void *head, size_t hlen, int fd, long long off,
			      long long len, const char *name, struct mf_error *err)
{
	struct mf_source *s = calloc(1, sizeof(*s));
	int rc;
	*out = NULL;
	if (!s)
		return mf_error_nomem(err, name, 0, "opening the input");
	s->fd = -1;
	s->name = name;
	s->mem = head;
	s->mem_len = hlen;
	s->range_fd = fd;
	s->range_off = off;
	s->range_end = off + len;
	rc = start(s, err);
	if (rc) {
		mf_source_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

static long read_gzip(struct mf_source *s, void *dst, size_t n, struct mf_error *err)
{
	for (;;) {
		long avail = refill(s, err);
		int zr;
		size_t produced;
		if (avail < 0)
			return avail;
		if (s->zs_end) {
			/* Another member may follow (concatenated gzip files). */
			if (avail == 0)
				return 0;
			if (inflateReset(&s->zs) != Z_OK)
				return mf_error_set(err, MF_EIO, s->name, 0, 0, "gzip data corrupt");
			s->zs_end = false;
		}
		if (avail == 0)
			return mf_error_set(err, MF_EIO, s->name, 0, 0,
					    "gzip data truncated (the compressed file ends early)");
		s->zs.next_in = s->in + s->in_pos;
		s->zs.avail_in = (uInt)avail;
		s->zs.next_out = dst;
		s->zs.avail_out = (uInt)(n > UINT32_MAX ? UINT32_MAX : n);
		zr = inflate(&s->zs, Z_NO_FLUSH);
		s->in_pos = s->in_len - s->zs.avail_in;
		produced = (size_t)((unsigned char *)s->zs.next_out - (unsigned char *)dst);
		if (zr == Z_STREAM_END)
			s->zs_end = true;
		else if (zr != Z_OK && zr != Z_BUF_ERROR)
			return mf_error_set(err, MF_EIO, s->name, 0, 0, "gzip data corrupt (%s)",
					    s->zs.msg ? s->zs.msg : "inflate failed");
		if (produced)
			return (long)produced;
	}
}

static long read_zstd(struct mf_source *s, void *dst, size_t n, struct mf_error *err)
{
	for (;;) {
		long avail = refill(s, err);
		ZSTD_inBuffer in;
		ZSTD_outBuffer outb;
		size_t zr;
		if (avail < 0)
			return avail;
		if (avail == 0) {
			if (s->zd_frame_open)
				return mf_error_set(err, MF_EIO, s->name, 0, 0,
						    "zstd data truncated (the compressed file ends early)");
			return 0;
		}
		in.src = s->in + s->in_pos;
		in.size = (size_t)avail;
		in.pos = 0;
		outb.dst = dst;
		outb.size = n;
		outb.pos = 0;
		zr = ZSTD_decompressStream(s->zd, &outb, &in);
		s->in_pos += in.pos;
		if (ZSTD_isError(zr))
			return mf_error_set(err, MF_EIO, s->name, 0, 0, "zstd data corrupt (%s)",
					    ZSTD_getErrorName(zr));
		s->zd_frame_open = zr != 0;
		if (outb.pos)
			return (long)outb.pos;
	}
}

static long read_direct(struct mf_source *s, void *dst, size_t n, struct mf_error *err);

static void *ahead_run(void *arg)
{
	struct mf_source *s = arg;
	struct ahead *a = s->ahead;
	long end = 1;
	pthread_mutex_lock(&a->lock);
	while (end > 0) {
		struct ahead_block *b;
		/* One block in use by the reader, the others free to fill. */
		while (!a->stop && a->filled - a->taken >= AHEAD_BLOCKS - 1)
			pthread_cond_wait(&a->cond, &a->lock);
		if (a->stop)
			break;
		b = &a->b[a->filled % AHEAD_BLOCKS];
		pthread_mutex_unlock(&a->lock);
		b->len = b->pos = 0;
		mf_error_clear(&b->err);
		while (b->len < AHEAD_BLOCK) {
			long got = read_direct(s, b->buf + b->len, AHEAD_BLOCK - b->len, &b->err);
			if (got <= 0) {
				end = got;
				break;
			}
			b->len += (size_t)got;
		}
		b->end = end;
		b->raw_bytes = s->raw_bytes;
		pthread_mutex_lock(&a->lock);
		a->filled++;
		pthread_cond_broadcast(&a->cond);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

int mf_source_decompress_ahead(struct mf_source *s)
{
	struct ahead *a;
	size_t i;
	if (s->kind == SRC_NONE || s->ahead)
		return 0;
	a = calloc(1, sizeof(*a));
	if (!a)
		return 0;
	for (i = 0; i < AHEAD_BLOCKS; i++)
		if (!(a->b[i].buf = malloc(AHEAD_BLOCK)))
			break;
	if (i < AHEAD_BLOCKS) {
		while (i--)
			free(a->b[i].buf);
		free(a);
		return 0;
	}
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	s->ahead = a;
	if (pthread_create(&a->thread, NULL, ahead_run, s) != 0) {
		s->ahead = NULL;
		pthread_mutex_destroy(&a->lock);
		pthread_cond_destroy(&a->cond);
		for (i = 0; i < AHEAD_BLOCKS; i++)
			free(a->b[i].buf);
		free(a);
		return 0;
	}
	return 1;
}

/* mf_source_read from the blocks of the thread. */
static long read_ahead(struct mf_source *s, void *dst, size_t n, struct mf_error *err)
{
	struct ahead *a = s->ahead;
	for (;;) {
		struct ahead_block *b;
		pthread_mutex_lock(&a->lock);
		while (a->filled == a->taken)
			pthread_cond_wait(&a->cond, &a->lock);
		b = &a->b[a->taken % AHEAD_BLOCKS];
		pthread_mutex_unlock(&a->lock);
		if (b->pos < b->len) {
			size_t k = b->len - b->pos < n ? b->len - b->pos : n;
			memcpy(dst, b->buf + b->pos, k);
			b->pos += k;
			return (long)k;
		}
		if (b->end <= 0) {
			/* The end, or the error, stays: later reads say it again. */
			if (b->end < 0 && err)
				*err = b->err;
			return b->end;
		}
		pthread_mutex_lock(&a->lock);
		a->taken++;
		pthread_cond_broadcast(&a->cond);
		pthread_mutex_unlock(&a->lock);
	}
}

long mf_source_read(struct mf_source *s, void *dst, size_t n, struct mf_error *err)
{
	return s->ahead ? read_ahead(s, dst, n, err) : read_direct(s, dst, n, err);
}

static long read_direct(struct mf_source *s, void *dst, size_t n, struct mf_error *err)
{
	long avail;
	size_t k;

	switch (s->kind) {
	case SRC_GZIP: return read_gzip(s, dst, n, err);
	case SRC_ZSTD: return read_zstd(s, dst, n, err);
	default:
		/* Plain: first what start() read ahead, then straight into dst. */
		if (s->in_pos < s->in_len) {
			k = s->in_len - s->in_pos < n ? s->in_len - s->in_pos : n;
			memcpy(dst, s->in + s->in_pos, k);
			s->in_pos += k;
			return (long)k;
		}
		if (s->raw_eof)
			return 0;
		avail = raw_read(s, dst, n, err);
		if (avail == 0)
			s->raw_eof = true;
		return avail;
	}
}

const char *mf_source_compression(const struct mf_source *s)
{
	return s->kind == SRC_GZIP ? "gzip" : s->kind == SRC_ZSTD ? "zstd" : "none";
}

long long mf_source_raw_bytes(const struct mf_source *s)
{
	if (s->ahead) {
		struct ahead *a = s->ahead;
		long long raw = 0;
		pthread_mutex_lock(&a->lock);
		if (a->filled > a->taken)
			raw = a->b[a->taken % AHEAD_BLOCKS].raw_bytes;
		else if (a->taken)
			raw = a->b[(a->taken - 1) % AHEAD_BLOCKS].raw_bytes;
		pthread_mutex_unlock(&a->lock);
		return raw;
	}
	return s->raw_bytes;
}

void mf_source_close(struct mf_source *s)
{
	if (!s)
		return;
	if (s->ahead) {
		struct ahead *a = s->ahead;
		size_t i;
		pthread_mutex_lock(&a->lock);
		a->stop = true;
		pthread_cond_broadcast(&a->cond);
		pthread_mutex_unlock(&a->lock);
		pthread_join(a->thread, NULL);
		pthread_mutex_destroy(&a->lock);
		pthread_cond_destroy(&a->cond);
		for (i = 0; i < AHEAD_BLOCKS; i++)
			free(a->b[i].buf);
		free(a);
	}
	if (s->zs_init)
		inflateEnd(&s->zs);
	if (s->zd)
		ZSTD_freeDStream(s->zd);
	if (s->own && s->fd >= 0)
		close(s->fd);
	free(s->in);
	free(s);
}
