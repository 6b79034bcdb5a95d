/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_READER_H
#define MFSTAT_READER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "mfstat/base/error.h"
#include "mfstat/kb/kb.h"
#include "mfstat/input/lpar.h"
#include "mfstat/input/sample.h"
#include "mfstat/base/strbuf.h"
#include "mfstat/base/tz.h"

/*
 * Input readers.  Each format is one reader behind a table of functions; the
 * format is forced by name or detected from the first bytes of the input.
 * A reader turns its input into mf_sample values, one at a time, reusing the
 * caller's sample, so memory does not grow with the input.
 */

struct mf_reader;
struct mf_smf_record;

/*
 * The progress of a reading, for a command to show (the library prints nothing): counters
 * the readers given it (mf_reader_opts.progress) add to as they read, from any thread, and
 * fn (may be NULL) called with them every MF_PROGRESS_EVERY samples and at each input's
 * end, on the thread that reads (so fn must be thread-safe when readers run at once, -j).
 */
struct mf_progress {
	atomic_ullong bytes;   /* input bytes read, as stored (a compressed file's compressed bytes) */
	atomic_ullong total;   /* the sizes of the inputs opened that have one (regular files; the parts of one, -j) */
	atomic_ullong samples; /* samples read */
	void (*fn)(void *ctx, struct mf_progress *p);
	void *ctx;
};
#define MF_PROGRESS_EVERY 256

struct mf_reader_opts {
	const struct mf_kb *kb;
	const char *format;               /* "csv", "smf", or NULL to detect */
	const struct mf_family *family;   /* --machine: used where the data names none */
	const struct mf_machine *machine; /* --machine given as a type number, else NULL */
	struct mf_strtab *strtab;         /* where system and LPAR names are interned */
	bool per_cpu;                     /* --by cpu: lshwc reads its per-CPU rows, not the Total rows */
	/*
	 * SMF: the LPAR view (lpar.h).  Type 70 subtype 1 and type 99 subtype 14
	 * records read are added to it and every type 113 sample is joined to
	 * it; NULL: neither.  With lpar_scan the reader only adds those records
	 * and returns no samples (a first pass, so that a dump's type 113
	 * records find the RMF records that follow them, or those of another
	 * file).
	 */
	struct mf_lparmap *lpar;
	bool lpar_scan;
	/*
	 * With lpar: the type 70 and 99 records are added to it, the type 113
	 * samples are not joined (the caller joins them with mf_lparmap_join once
	 * every input's records are in: one pass, mf_pipeline_read_files).
	 */
	bool lpar_nojoin;
	/* -j: above 1, a compressed file (gzip, zstd) is decompressed by a thread of its own, ahead
	 * of the parsing; 0 or 1: in line, as it is read. */
	unsigned jobs;
	/*
	 * --cpu-mhz: the CPU speed (MHz) of every sample whose data give none, instead of the
	 * nominal speed of a machine type; a sample whose data give another is kept as it is,
	 * counted and said in a warning.  0: none.
	 */
	double cpu_mhz;
	/*
	 * perf stat: its '# started on' line is the local time of the machine that ran perf; it is
	 * read in perf_tz (borrowed), and a warning says in which zone, and perf_tz_from where that
	 * zone came from ("from --perf-tz").  perf_tz NULL: with perf_tz_from, this machine's zone is
	 * unknown for the reason perf_tz_from gives and a file with the line is refused (MF_EUSAGE);
	 * without, UTC is taken, and said.
	 */
	const struct mf_tz *perf_tz;
	const char *perf_tz_from;
	/*
	 * SMF with lpar, not lpar_scan (mfstat db import): called with every type 70 subtype 1 and
	 * type 99 subtype 14 record read, decoded or not (rec->raw, rec->raw_len: its bytes, RDW
	 * included, borrowed for the call).  A nonzero return stops the reading: mf_reader_next
	 * returns it, with err as fn filled it.
	 */
	int (*smf_record_fn)(void *ctx, const struct mf_smf_record *rec, struct mf_error *err);
	void *smf_record_ctx;
	/* Where the reader counts what it reads (borrowed, shared by readers), or NULL. */
	struct mf_progress *progress;
};

/*
 * Opens path ("-" is standard input) and checks its header.  On success *out
 * is the caller's (mf_reader_close).  Errors: MF_EIO (cannot open or read),
 * MF_EFORMAT (format not recognised, bad header), MF_ENOMACHINE, MF_EUSAGE
 * (unknown format name); err says where.
 */
int mf_reader_open(struct mf_reader **out, const char *path, const struct mf_reader_opts *opts, struct mf_error *err);

/*
 * Reads the next sample into s.  Returns 1 for a sample, 0 at the end, or a
 * negative code with err filled.  After MF_EFORMAT, MF_ENOCOUNTER or
 * MF_ENOMACHINE about one row the reader has moved past it, and calling again
 * continues with the next row (--skip-bad-rows); after MF_EIO, MF_ENOMEM or
 * MF_ENODATA (the whole input holds no data of its kind, e.g. a dump without
 * type 113 records: never a bad row to skip) it returns 0.
 */
/* Like mf_reader_open, reading data[0..len) (which must stay valid until close) named name. */
int mf_reader_open_mem(struct mf_reader **out, const char *name, const void *data, size_t len,
		       const struct mf_reader_opts *opts, struct mf_error *err);

/*
 * Like mf_reader_open_mem over head[0..hlen) followed by bytes [off, off + len)
 * of the open file fd (not owned), as if one input: the header line of a CSV
 * file and one part of its rows, for reading the parts of a file at once.
 * Lines count from head's first.
 */
int mf_reader_open_range(struct mf_reader **out, const char *name, const void *head, size_t hlen, int fd, long long off,
			 long long len, const struct mf_reader_opts *opts, struct mf_error *err);

int mf_reader_next(struct mf_reader *r, struct mf_sample *s, struct mf_error *err);

/*
 * A sample source of the caller's: fills s with its next sample (system and LPAR names interned
 * in opts->strtab, families and machines of opts->kb) and returns 1, 0 at the end, or a negative
 * code with err filled, as mf_reader_next returns them.
 */
typedef int mf_reader_source_fn(void *ctx, const struct mf_reader_opts *opts, struct mf_sample *s,
				struct mf_error *err);

/*
 * A reader whose samples come from next (the performance database: src/lib/db/read.c), named
 * name, its format format (borrowed: "db"), so that they go where a file's go: selection, copies,
 * grouping, the inputs of the report.  opts as mf_reader_open takes them (--cpu-mhz applies);
 * the LPAR view is the caller's to fill.  0 or MF_ENOMEM.
 */
int mf_reader_open_source(struct mf_reader **out, const char *name, const char *format, mf_reader_source_fn *next,
			  void *ctx, const struct mf_reader_opts *opts, struct mf_error *err);

void mf_reader_close(struct mf_reader *r);

/* Appends what the reader saw (for SMF: records by type, drops) to sb; nothing for CSV. */
void mf_reader_summary(struct mf_reader *r, struct mf_strbuf *sb);

/* What a count of mf_reader_counts is about. */
enum mf_count_kind {
	MF_COUNT_RECORDS = 0, /* records of the input by kind ("type 113 subtype 1", "type 30") */
	MF_COUNT_DROPPED = 1  /* records read but not turned into samples, by reason */
};

/* Receives one count: kind, what it counts (borrowed for the call), the number. */
typedef void mf_count_fn(void *ctx, enum mf_count_kind kind, const char *what, uint64_t n);

/*
 * The structured form of mf_reader_summary: calls fn for each nonzero count
 * the reader keeps (SMF: records by type and subtype, drops by reason);
 * nothing for readers whose every record is a sample or an error.
 */
void mf_reader_counts(struct mf_reader *r, mf_count_fn *fn, void *ctx);

/* The lines read so far of a text input (CSV), 0 for the others. */
long mf_reader_lines(struct mf_reader *r);

/* The name of the format being read ("csv", "smf"). */
const char *mf_reader_format(const struct mf_reader *r);

/* Warnings the reader collected (e.g. nominal CPU speed used); borrowed. */
size_t mf_reader_nwarnings(const struct mf_reader *r);
const char *mf_reader_warning(const struct mf_reader *r, size_t i);

/* Names of the known formats, NULL-terminated. */
const char *const *mf_reader_formats(void);

#endif
