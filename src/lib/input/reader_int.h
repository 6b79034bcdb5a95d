/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_READER_INT_H
#define MFSTAT_READER_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "mfstat/input/reader.h"
#include "mfstat/base/strbuf.h"

/* A byte stream read in large blocks; the reader owns the buffer window. */
struct mf_source;

struct mf_stream {
	struct mf_source *src;
	const char *name;
	char *buf;
	size_t len; /* bytes in buf */
	size_t pos; /* first byte not yet consumed */
	size_t cap;
	bool eof;
	long long base; /* file offset of buf[0] */
};

/*
 * Moves unconsumed bytes to the front and reads more.  Returns the number of
 * new bytes, 0 at end of file, or MF_EIO / MF_ENOMEM with err filled.  The
 * buffer grows up to max bytes when it is full of unconsumed data.
 */
long mf_stream_fill(struct mf_stream *st, size_t max, struct mf_error *err);

/*
 * Discards the input up to and including the next newline, reading on as
 * needed without growing the buffer: the rest of a line too long to hold.
 * Adds the newlines it discarded to *lines.  Returns 1 when a newline ended
 * the skip, 0 at end of file, or MF_EIO / MF_EFORMAT with err filled.
 */
int mf_stream_skip_line(struct mf_stream *st, long *lines, struct mf_error *err);

/* How a text reader takes lines from its stream (mf_stream_line). */
struct mf_linerd {
	size_t max;       /* the longest line held (the buffer grows up to it) */
	bool quotes;      /* CSV: a '\n' inside a quoted field does not end the line */
	const char *unit; /* "row" or "line", and what a longer one means, for the error */
	const char *what;
	long line;      /* number of the last line read */
	bool skip_rest; /* the last line was too long: its rest is still to be skipped */
};

/*
 * The next line of the stream as [*ls, *le), without its line end (valid
 * until the next call); 1, 0 at the end, or an error (MF_EFORMAT for a line
 * longer than lr->max: the next call goes on after it).
 */
int mf_stream_line(struct mf_stream *st, const char *path, struct mf_linerd *lr, const char **ls, const char **le,
		   struct mf_error *err);

struct mf_reader_ops {
	const char *name;
	/* Scores how likely buf[0..n) starts this format: 0 no, 100 certain. */
	int (*probe)(const char *buf, size_t n);
	int (*open)(struct mf_reader *r, struct mf_error *err);
	int (*next)(struct mf_reader *r, struct mf_sample *s, struct mf_error *err);
	void (*close)(struct mf_reader *r);
	/* Optional: appends what the reader saw (records by kind, drops) for the text summary. */
	void (*summary)(struct mf_reader *r, struct mf_strbuf *sb);
	/* Optional: the same counts, one call of fn per (kind, what, count) (mf_reader_counts). */
	void (*counts)(struct mf_reader *r, mf_count_fn *fn, void *ctx);
	/* Optional: the lines read so far (mf_reader_lines). */
	long (*lines)(struct mf_reader *r);
};

struct mf_reader {
	const struct mf_reader_ops *ops;
	struct mf_reader_opts opts;
	struct mf_stream st;
	char *path;
	void *state;
	bool dead;
	size_t nwarn;
	char *warn[16];
	/* --cpu-mhz (opts.cpu_mhz): samples whose data gave another speed, the first of them. */
	unsigned long speed_kept;
	double speed_first;
	long speed_line;
	long long speed_offset;
	/* opts.progress: the input bytes already added to it, samples not yet added. */
	long long prog_bytes;
	unsigned prog_samples;
};

/* Adds a warning (at most 16 are kept; the reader words them to be counted). */
void mf_reader_warn(struct mf_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

extern const struct mf_reader_ops mf_csv_reader;
extern const struct mf_reader_ops mf_smf_reader;
extern const struct mf_reader_ops mf_perf_reader;
extern const struct mf_reader_ops mf_lshwc_reader;

#endif
