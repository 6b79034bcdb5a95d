/* SPDX-License-Identifier: MIT */
/* Reader table, format detection and the block-reading byte stream. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/io.h"
#include "base/text.h"
#include "reader_int.h"
#include "smf_int.h"

static const struct mf_reader_ops *const readers[] = {&mf_csv_reader, &mf_smf_reader, &mf_perf_reader,
						      &mf_lshwc_reader};
#define NREADERS (sizeof(readers) / sizeof(readers[0]))

/* Keep in step with readers[] (a test checks every name opens). */
static const char *const reader_names[] = {"csv", "smf", "perf", "lshwc", NULL};

const char *const *mf_reader_formats(void)
{
	return reader_names;
}

long mf_stream_fill(struct mf_stream *st, size_t max, struct mf_error *err)
{
	long got;

	if (st->eof)
		return 0;
	if (st->pos > 0) {
		memmove(st->buf, st->buf + st->pos, st->len - st->pos);
		st->base += (long long)st->pos;
		st->len -= st->pos;
		st->pos = 0;
	}
	if (st->len == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : (size_t)1 << 18;
		char *nb;
		if (cap > max)
			return mf_error_set(err, MF_EFORMAT, st->name, 0, 0,
					    "a line longer than %zu bytes: not a text file of this format", max);
		/* 16 zero bytes past the end let parsers read 8 bytes at a time. */
		nb = realloc(st->buf, cap + 16);
		if (!nb)
			return mf_error_nomem(err, st->name, 0, "reading a line of %zu bytes", cap);
		memset(nb + st->cap, 0, cap + 16 - st->cap);
		st->buf = nb;
		st->cap = cap;
	}
	got = mf_source_read(st->src, st->buf + st->len, st->cap - st->len, err);
	if (got < 0)
		return got;
	if (got == 0) {
		st->eof = true;
		return 0;
	}
	st->len += (size_t)got;
	memset(st->buf + st->len, 0, 16);
	return (long)got;
}

int mf_stream_skip_line(struct mf_stream *st, long *lines, struct mf_error *err)
{
	for (;;) {
		const char *s = st->buf + st->pos;
		const char *nl = st->pos < st->len ? memchr(s, '\n', st->len - st->pos) : NULL;
		long got;
		if (nl) {
			st->pos = (size_t)(nl - st->buf) + 1;
			(*lines)++;
			return 1;
		}
		st->pos = st->len;
		if (st->eof)
			return 0;
		got = mf_stream_fill(st, st->cap, err); /* all consumed: no growth */
		if (got < 0)
			return (int)got;
	}
}

int mf_stream_line(struct mf_stream *st, const char *path, struct mf_linerd *lr, const char **ls, const char **le,
		   struct mf_error *err)
{
	if (lr->skip_rest) {
		int rc = mf_stream_skip_line(st, &lr->line, err);
		lr->skip_rest = false;
		if (rc < 0)
			return rc;
	}
	for (;;) {
		const char *s = st->buf + st->pos, *end = st->buf + st->len, *nl;
		long lines, got;
		if (st->pos < st->len) {
			nl = mf_text_line_end(s, end, lr->quotes, &lines);
			if (!nl && st->eof) {
				nl = end; /* the last line without a newline */
				lines = 1;
			}
			if (nl) {
				lr->line += lines;
				*ls = s;
				*le = nl > s && nl[-1] == '\r' ? nl - 1 : nl;
				st->pos = (size_t)(nl - st->buf) + (nl < end ? 1 : 0);
				return 1;
			}
		} else if (st->eof) {
			return 0;
		}
		if (st->len - st->pos >= lr->max) {
			/* Too long to hold: an error about this line; the next call skips the rest of it. */
			long first = lr->line + 1;
			for (; s < end; s++)
				lr->line += *s == '\n';
			st->pos = st->len;
			lr->skip_rest = true;
			return mf_error_set(err, MF_EFORMAT, path, first, 0, "a %s longer than %zu MiB (the limit): %s",
					    lr->unit, lr->max >> 20, lr->what);
		}
		got = mf_stream_fill(st, lr->max, err);
		if (got < 0) {
			if (err && got == MF_EFORMAT)
				err->line = lr->line + 1;
			return (int)got;
		}
	}
}

void mf_reader_warn(struct mf_reader *r, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	if (r->nwarn >= sizeof(r->warn) / sizeof(r->warn[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	r->warn[r->nwarn] = strdup(buf);
	if (r->warn[r->nwarn])
		r->nwarn++;
}

size_t mf_reader_nwarnings(const struct mf_reader *r)
{
	return r->nwarn;
}

const char *mf_reader_warning(const struct mf_reader *r, size_t i)
{
	return i < r->nwarn ? r->warn[i] : NULL;
}

/*
 * Archives and compressors mfstat does not read (gzip and zstd it does): the command that
 * unpacks them.  Checked on the decompressed bytes, so a .tar.gz is a tar archive.
 */
static int archive_check(struct mf_reader *r, struct mf_error *err)
{
	static const struct {
		size_t off, len;
		const char *magic, *what, *cmd, *pipe;
	} kinds[] = {
		{0, 6,
		 "\xFD"
		 "7zXZ\0",
		 "an xz-compressed file", "xz -dk", "xz -dc"},
		{0, 6, "7z\xBC\xAF\x27\x1C", "a 7-Zip archive", "7z x", NULL},
		{0, 4, "PK\x03\x04", "a zip archive", "unzip", NULL},
		{0, 4, "PK\x05\x06", "a zip archive (empty)", "unzip -l", NULL},
		{257, 5, "ustar", "a tar archive", "tar xf", "tar xO"},
	};
	const unsigned char *b = (const unsigned char *)r->st.buf;
	bool stdin_ = strcmp(r->path, "<stdin>") == 0;
	size_t i;
	const char *what = NULL, *cmd = NULL, *pipe = NULL;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !what; i++)
		if (r->st.len >= kinds[i].off + kinds[i].len &&
		    memcmp(b + kinds[i].off, kinds[i].magic, kinds[i].len) == 0) {
			what = kinds[i].what;
			cmd = kinds[i].cmd;
			pipe = kinds[i].pipe;
		}
	/* bzip2: "BZh", the block size 1-9, then a block or end-of-stream magic. */
	if (!what && r->st.len >= 10 && memcmp(b, "BZh", 3) == 0 && b[3] >= '1' && b[3] <= '9' &&
	    (memcmp(b + 4, "\x31\x41\x59\x26\x53\x59", 6) == 0 || memcmp(b + 4, "\x17\x72\x45\x38\x50\x90", 6) == 0)) {
		what = "a bzip2-compressed file";
		cmd = "bunzip2 -k";
		pipe = "bunzip2 -c";
	}
	if (!what)
		return 0;
	if (stdin_ && pipe)
		return mf_error_set(err, MF_EFORMAT, r->path, 0, 0,
				    "%s: decompress it first (%s FILE | mfstat ... -); mfstat reads plain, gzip and "
				    "zstd input",
				    what, pipe);
	return mf_error_set(err, MF_EFORMAT, r->path, 0, 0,
			    "%s: decompress it first (%s %s) and give mfstat what it holds; mfstat reads plain, gzip "
			    "and zstd files",
			    what, cmd, stdin_ ? "FILE" : r->path);
}

/* Whether the first line of buf (len bytes) holds word as a whole field between separators sep. */
static bool header_has(const char *buf, size_t len, const char *word, char sep)
{
	size_t wl = strlen(word), i = 0;
	while (i < len && buf[i] != '\n') {
		size_t e = i;
		while (e < len && buf[e] != sep && buf[e] != '\n' && buf[e] != '\r')
			e++;
		if (e - i == wl && strncasecmp(buf + i, word, wl) == 0)
			return true;
		if (e >= len || buf[e] != sep)
			break;
		i = e + 1;
	}
	return false;
}

/*
 * Inputs a user may give that are not counters, with what to do instead: mfstat's own report
 * output fed back in, and a CSV separated by semicolons (a spreadsheet in a comma-decimal locale).
 */
static int not_counters(struct mf_reader *r, struct mf_error *err)
{
	const char *b = r->st.buf;
	size_t n = r->st.len, first = 0;
	while (first < n && b[first] != '\n')
		first++;
	if ((header_has(b, n, "cpus_expected", ',') && header_has(b, n, "period_start", ',')) ||
	    (header_has(b, n, "metric", ',') && header_has(b, n, "before_period_start", ',')))
		return mf_error_set(err, MF_EFORMAT, r->path, 1, 0,
				    "this is mfstat %s output (metrics per group), not counters: give mfstat the "
				    "counter "
				    "files or SMF dumps it was made from",
				    header_has(b, n, "metric", ',') ? "diff" : "report");
	if (n > 12 && strncmp(b, "{\"schema\":1,", 12) == 0)
		return mf_error_set(err, MF_EFORMAT, r->path, 1, 0,
				    "this is mfstat report or diff JSON output (metrics), not counters: give mfstat "
				    "the "
				    "counter files or SMF dumps it was made from");
	if (n > 15 && strncmp(b, "<!DOCTYPE html>", 15) == 0)
		return mf_error_set(err, MF_EFORMAT, r->path, 1, 0,
				    "this is an HTML page (mfstat report -f html?), not counters: give mfstat the "
				    "counter files or SMF dumps it was made from");
	if (!memchr(b, ',', first) && memchr(b, ';', first) &&
	    (header_has(b, n, "system", ';') || header_has(b, n, "B0", ';') || header_has(b, n, "B1", ';') ||
	     header_has(b, n, "interval_start", ';')))
		return mf_error_set(err, MF_EFORMAT, r->path, 1, 0,
				    "the fields are separated by ';': mfstat reads comma-separated files (export the "
				    "sheet as CSV with ',' as the separator and '.' as the decimal point, or, when no "
				    "field holds a ',', convert it: tr ';' ',' < FILE)");
	return 0;
}

/* Shared tail of the open functions: detect the format and open the reader. */
static int finish_open(struct mf_reader *r, struct mf_error *err)
{
	size_t i;
	int rc;

	for (i = 0; i < r->st.len && strchr(" \t\r\n", r->st.buf[i]) && r->st.buf[i]; i++)
		;
	if (i == r->st.len)
		return mf_error_set(err, MF_EFORMAT, r->path, 0, 0, "empty file: no header line");
	rc = archive_check(r, err);
	if (rc)
		return rc;
	rc = not_counters(r, err);
	if (rc)
		return rc;
	if (!r->ops) {
		int best = 0;
		for (i = 0; i < NREADERS; i++) {
			int score = readers[i]->probe(r->st.buf, r->st.len);
			if (score > best) {
				best = score;
				r->ops = readers[i];
			}
		}
		if (!r->ops) {
			char why[400];
			if (mf_smf_explain(r->st.buf, r->st.len, why, sizeof(why)))
				return mf_error_set(err, MF_EFORMAT, r->path, 0, 0, "input format not recognised: %s",
						    why);
			return mf_error_set(err, MF_EFORMAT, r->path, 0, 0,
					    "input format not recognised (not a counter CSV, an SMF dump, perf stat or "
					    "lshwc output); use --input to name it");
		}
	}
	return r->ops->open(r, err);
}

static int new_reader(struct mf_reader **out, const char *name, const struct mf_reader_opts *opts, struct mf_error *err)
{
	struct mf_reader *r;
	size_t i;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return mf_error_nomem(err, name, 0, "opening the reader");
	r->opts = *opts;
	r->path = strdup(name);
	if (!r->path) {
		free(r);
		return mf_error_nomem(err, name, 0, "opening the reader");
	}
	r->st.name = r->path;
	*out = r;
	if (opts->format) {
		for (i = 0; i < NREADERS; i++)
			if (strcmp(readers[i]->name, opts->format) == 0)
				r->ops = readers[i];
		if (!r->ops)
			return mf_error_set(err, MF_EUSAGE, name, 0, 0, "unknown input format '%s'", opts->format);
	}
	return 0;
}

/* Reads a first block for detection (readers see it as unconsumed input), then detects the format. */
static int first_block(struct mf_reader *r, struct mf_error *err)
{
	do {
		long got = mf_stream_fill(&r->st, (size_t)1 << 20, err);
		if (got < 0)
			return (int)got;
	} while (!r->st.eof && r->st.len < 4096);
	return finish_open(r, err);
}

int mf_reader_open(struct mf_reader **out, const char *path, const struct mf_reader_opts *opts, struct mf_error *err)
{
	struct mf_reader *r;
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	struct stat sb;
	int rc, fd = 0;

	rc = new_reader(&r, name, opts, err);
	if (rc)
		goto fail;
	if (strcmp(path, "-") == 0) {
		rc = mf_source_open_fd(&r->st.src, 0, 0, r->path, err);
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			rc = mf_error_set(err, MF_EIO, name, 0, 0, "cannot open: %s", strerror(errno));
			goto fail;
		}
		rc = mf_source_open_fd(&r->st.src, fd, 1, r->path, err);
	}
	if (rc)
		goto fail;
	if (opts->progress && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
		atomic_fetch_add(&opts->progress->total, (unsigned long long)sb.st_size);
	if (opts->jobs > 1)
		mf_source_decompress_ahead(r->st.src);
	rc = first_block(r, err);
	if (rc)
		goto fail;
	*out = r;
	return 0;
fail:
	mf_reader_close(r);
	*out = NULL;
	return rc;
}

int mf_reader_open_mem(struct mf_reader **out, const char *name, const void *data, size_t len,
		       const struct mf_reader_opts *opts, struct mf_error *err)
{
	return mf_reader_open_range(out, name, data, len, -1, 0, 0, opts, err);
}

int mf_reader_open_range(struct mf_reader **out, const char *name, const void *head, size_t hlen, int fd, long long off,
			 long long len, const struct mf_reader_opts *opts, struct mf_error *err)
{
	struct mf_reader *r;
	int rc;

	rc = new_reader(&r, name, opts, err);
	if (rc)
		goto fail;
	rc = mf_source_open_head_range(&r->st.src, head, hlen, fd, off, len, r->path, err);
	if (rc)
		goto fail;
	if (opts->progress && fd >= 0 && len > 0) /* a part of a file: its share of the total */
		atomic_fetch_add(&opts->progress->total, (unsigned long long)len);
	rc = first_block(r, err);
	if (rc)
		goto fail;
	*out = r;
	return 0;
fail:
	mf_reader_close(r);
	*out = NULL;
	return rc;
}

/* mf_reader_open_source: the caller's next behind a table of functions of the reader's own. */
struct source_state {
	struct mf_reader_ops ops;
	mf_reader_source_fn *next;
	void *ctx;
};

static int source_open(struct mf_reader *r, struct mf_error *err)
{
	(void)r;
	(void)err;
	return 0;
}

static int source_next(struct mf_reader *r, struct mf_sample *s, struct mf_error *err)
{
	struct source_state *st = r->state;
	return st->next(st->ctx, &r->opts, s, err);
}

static void source_close(struct mf_reader *r)
{
	free(r->state);
	r->state = NULL;
}

int mf_reader_open_source(struct mf_reader **out, const char *name, const char *format, mf_reader_source_fn *next,
			  void *ctx, const struct mf_reader_opts *opts, struct mf_error *err)
{
	struct source_state *st;
	struct mf_reader_opts o = *opts;
	int rc;

	o.format = NULL;
	rc = new_reader(out, name, &o, err);
	if (rc) {
		mf_reader_close(*out);
		*out = NULL;
		return rc;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		mf_reader_close(*out);
		*out = NULL;
		return mf_error_nomem(err, name, 0, "opening the reader");
	}
	st->ops.name = format;
	st->ops.open = source_open;
	st->ops.next = source_next;
	st->ops.close = source_close;
	st->next = next;
	st->ctx = ctx;
	(*out)->ops = &st->ops;
	(*out)->state = st;
	return 0;
}

/* --cpu-mhz: the speed of a sample whose data give none; one that gives another is kept, counted. */
static void given_speed(struct mf_reader *r, struct mf_sample *s)
{
	if (isnan(s->cpsp) || s->cpsp_nominal) {
		s->cpsp = r->opts.cpu_mhz;
		s->cpsp_nominal = false;
	} else if (s->cpsp != r->opts.cpu_mhz && r->speed_kept++ == 0) {
		r->speed_first = s->cpsp;
		r->speed_line = s->line;
		r->speed_offset = s->offset;
	}
}

/* At the end: the samples that kept a speed of their own, said. */
static void speed_warning(struct mf_reader *r)
{
	bool smf = r->ops == &mf_smf_reader;
	char where[48] = "";
	bool one;
	if (r->speed_line > 0)
		snprintf(where, sizeof(where), ", line %ld", r->speed_line);
	else if (smf && r->speed_offset >= 0)
		snprintf(where, sizeof(where), ", offset 0x%llx", (unsigned long long)r->speed_offset);
	one = r->speed_kept == 1;
	mf_reader_warn(r, "%s: %lu %s%s with a CPU speed of %s own (%s%g MHz%s) kept it, not --cpu-mhz %g", r->path,
		       r->speed_kept, smf ? "record" : "row", one ? "" : "s", one ? "its" : "their",
		       one ? "" : "the first ", r->speed_first, where, r->opts.cpu_mhz);
	r->speed_kept = 0;
}

/* opts.progress: adds what was read since the last call and tells its fn. */
static void progress(struct mf_reader *r)
{
	struct mf_progress *p = r->opts.progress;
	long long raw = r->st.src ? mf_source_raw_bytes(r->st.src) : r->prog_bytes;
	if (raw > r->prog_bytes)
		atomic_fetch_add(&p->bytes, (unsigned long long)(raw - r->prog_bytes));
	r->prog_bytes = raw > r->prog_bytes ? raw : r->prog_bytes;
	atomic_fetch_add(&p->samples, r->prog_samples);
	r->prog_samples = 0;
	if (p->fn)
		p->fn(p->ctx, p);
}

int mf_reader_next(struct mf_reader *r, struct mf_sample *s, struct mf_error *err)
{
	int rc;
	if (r->dead)
		return 0;
	rc = r->ops->next(r, s, err);
	if (r->opts.progress && ((rc == 1 && ++r->prog_samples >= MF_PROGRESS_EVERY) || rc == 0))
		progress(r);
	if (rc == 1 && r->opts.cpu_mhz > 0)
		given_speed(r, s);
	else if (rc == 0 && r->speed_kept)
		speed_warning(r);
	if (rc == MF_EIO || rc == MF_ENOMEM || rc == MF_ENODATA)
		r->dead = true;
	return rc;
}

void mf_reader_close(struct mf_reader *r)
{
	size_t i;
	if (!r)
		return;
	if (r->ops && r->state)
		r->ops->close(r);
	mf_source_close(r->st.src);
	for (i = 0; i < r->nwarn; i++)
		free(r->warn[i]);
	free(r->st.buf);
	free(r->path);
	free(r);
}

void mf_reader_summary(struct mf_reader *r, struct mf_strbuf *sb)
{
	if (r->ops->summary && r->state)
		r->ops->summary(r, sb);
}

void mf_reader_counts(struct mf_reader *r, mf_count_fn *fn, void *ctx)
{
	if (r->ops->counts && r->state)
		r->ops->counts(r, fn, ctx);
}

long mf_reader_lines(struct mf_reader *r)
{
	return r->ops->lines ? r->ops->lines(r) : 0;
}

const char *mf_reader_format(const struct mf_reader *r)
{
	return r->ops->name;
}
