/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_PIPELINE_H
#define MFSTAT_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"
#include "mfstat/kb/kb.h"
#include "mfstat/report/output.h"
#include "mfstat/report/select.h"
#include "mfstat/base/tz.h"

/*
 * The one read -> group -> compute pipeline of `mfstat report`, for every
 * program using the library: files are read one after the other, duplicate
 * samples dropped, bad rows skipped and counted (skip_bad), samples grouped
 * (up to max_groups), and mf_pipeline_finish computes the metrics and fills a
 * report with the same counts and warnings the CLI writes.
 */

/* What a diagnostic passed to the diag callback is. */
enum mf_pipeline_diag {
	MF_PIPELINE_SKIPPED = 0, /* a row or record skipped (skip_bad): e says where and why */
	MF_PIPELINE_ERROR = 1,   /* the error that stops the pipeline: e says where and why */
	MF_PIPELINE_FAILED = 2,  /* the same without a place in a file (e->msg only: out of memory, --max-groups) */
	MF_PIPELINE_HINT = 3     /* advice that follows an error (e->msg only) */
};

struct mf_sample;
struct mf_smf_record;
struct mf_strtab;

struct mf_pipeline_opts {
	const struct mf_kb *kb;           /* borrowed; must outlive the pipeline */
	const char *format;               /* input format name, NULL to detect */
	const struct mf_family *family;   /* for rows whose data names none, or NULL */
	const struct mf_machine *machine; /* the machine type given, or NULL */
	unsigned by;                      /* MF_BY_* bits */
	bool skip_bad;                    /* skip and count bad rows instead of stopping */
	size_t max_groups;                /* MF_ELIMIT beyond this many groups; 0: no limit */
	/*
	 * Threads reading a plain CSV file in parts at once (-j N): each part
	 * into tables of its own, merged in file order, so the report is the
	 * one of reading it whole, byte for byte; a file the parts would not
	 * read alike (an error, a warning, a duplicate across parts) is read
	 * again whole.  0 or 1: one thread.
	 */
	unsigned jobs;
	struct mf_metrics_opts metrics; /* what the user says beyond the counters (--mem-peak) */
	double cpu_mhz;                 /* --cpu-mhz: the speed of samples whose data give none; 0: none */
	const struct mf_tz *perf_tz;    /* perf stat's '# started on' zone (mf_reader_opts), borrowed */
	const char *perf_tz_from;       /* where it came from, or why it is unknown (mf_reader_opts) */
	const struct mf_tz *tz;         /* the report's time zone (borrowed); NULL: UTC */
	/*
	 * tz is the default, not asked for: a per-record zone ("smf") that the report
	 * keeps when the samples carry their local offsets (SMF, a CSV with
	 * utc_offset_minutes) and turns into UTC when none does.
	 */
	bool tz_default;
	const struct mf_select *select; /* samples to keep (borrowed); NULL: all */
	const char *sort;               /* --sort METRIC: each series' groups by it, highest first; NULL: key order */
	size_t top;                     /* --top N: the first N groups of each series after sorting; 0: all */
	const char *const *columns;     /* --metrics: the metric columns, in order (borrowed); NULL: the families' */
	size_t ncolumns;
	/*
	 * Also group by interval within each series (--by without its time key,
	 * plus interval), in the same pass: the report's interval_results, for
	 * writers that draw time series whatever --by says (HTML).  Costs a
	 * group per series and interval; beyond max_groups those are dropped.
	 */
	bool keep_intervals;
	/*
	 * Keep why each unavailable metric is (struct mf_result's na, for report -v); without it
	 * the results' na is NULL, 8 bytes a metric a group fewer (184 bytes a z16 group).
	 */
	bool explain;
	/*
	 * The report is written as CSV (report -f csv): where it gives the same bytes, the groups
	 * of a file in time order are finished as their interval closes and kept as compact rows
	 * (mf_pipeline_read_files; README "Performance": when it applies, and its limit).
	 */
	bool stream_csv;
	/*
	 * Importing (mfstat db import): sample_fn is called for every sample kept (after select) instead
	 * of the duplicate check and the grouping, with the file it was read from.  It returns
	 * MF_DEDUP_KEEP (a new sample), MF_DEDUP_DUPLICATE (one held already: counted as a
	 * duplicate), MF_EFORMAT (a bad sample, e says where: with skip_bad skipped and counted as
	 * report skips a conflicting copy, else the error that stops) or another negative code that
	 * stops the reading (e filled, told to diag).  No groups are held, and streaming and jobs are
	 * off; read with mf_pipeline_prescan_file for every input, then mf_pipeline_add_file for each.
	 */
	int (*sample_fn)(void *ctx, const struct mf_sample *s, const char *file, struct mf_error *e);
	/* Handed to the SMF reader of mf_pipeline_add_file (mf_reader_opts.smf_record_fn): the type 70.1 and 99.14 records with their bytes. */
	int (*smf_record_fn)(void *ctx, const struct mf_smf_record *rec, struct mf_error *err);
	void *sample_ctx; /* the ctx of sample_fn and smf_record_fn */
	/* Where the readers of the inputs count what they read (mf_reader_opts.progress), or NULL. */
	struct mf_progress *progress;
	/* Receives every diagnostic in order (may be NULL); e is borrowed for the call. */
	void (*diag)(void *ctx, enum mf_pipeline_diag kind, const struct mf_error *e);
	void *ctx;
};

struct mf_pipeline;

/* A new pipeline (opts copied), or NULL when out of memory. */
struct mf_pipeline *mf_pipeline_new(const struct mf_pipeline_opts *opts);

/*
 * Reads all of path ("-" is standard input) into the pipeline.  Returns 0,
 * or the code of the error that stops it (err filled, and told to diag):
 * MF_EUSAGE when the file cannot be opened as asked (the format or family is
 * for the user to say), MF_ELIMIT
 * beyond max_groups, MF_ENOMEM, or the reader's code.
 */
int mf_pipeline_add_file(struct mf_pipeline *p, const char *path, struct mf_error *err);
/*
 * The first pass of the LPAR view: reads the SMF type 70 subtype 1 and type
 * 99 subtype 14 records of path (an SMF dump; other inputs and "-" are left
 * alone), so that every type 113 sample read later, from any file, is joined
 * to them.  Call it for every input before the first mf_pipeline_add_file.
 * Errors are left to mf_pipeline_add_file.  Without it the records of a dump
 * join only the samples that follow them.
 */
void mf_pipeline_prescan_file(struct mf_pipeline *p, const char *path);
void mf_pipeline_prescan_mem(struct mf_pipeline *p, const char *name, const void *data, size_t len);

/*
 * mf_pipeline_add_file for each of paths, in order; with jobs, consecutive
 * SMF dumps are read at once, each by a thread (when no LPAR view is to be
 * joined), and merged in their order: the report is the one of reading them
 * one after the other.  Returns 0 or the first error's code.
 */
int mf_pipeline_add_files(struct mf_pipeline *p, const char *const *paths, size_t n, struct mf_error *err);

/*
 * Every input of paths read as mf_pipeline_prescan_file for each and then
 * mf_pipeline_add_files would read them (the same report, messages and
 * their order), reading each SMF dump once: its type 70 and 99 records go
 * into the LPAR view in the same pass that decodes its type 113 samples,
 * which are held (compactly: their identity and the counters they have)
 * and joined to the view, checked and grouped in their order once every
 * SMF dump is read.  A first pass is still made over the inputs that
 * follow a non-SMF input or standard input read after held samples, and
 * over an input whose reading stops at an error, so that the view is the
 * one of every input; with jobs and several inputs, the inputs are read as
 * mf_pipeline_prescan_file and mf_pipeline_add_files read them.
 */
int mf_pipeline_read_files(struct mf_pipeline *p, const char *const *paths, size_t n, struct mf_error *err);

/* Like mf_pipeline_add_file, reading data[0..len) named name. */
int mf_pipeline_add_mem(struct mf_pipeline *p, const char *name, const void *data, size_t len, struct mf_error *err);

/*
 * Reads the samples of next (mf_reader_open_source) into the pipeline as one more input, named
 * name, of format format: each is selected, checked for copies and grouped as a file's sample
 * is.  left_out (NULL: none), by enum mf_select_why, counts the samples the source left out
 * itself, by the selection's own rule (a database selects in SQL): they are counted as the
 * pipeline's selection counts what it leaves out, read and left out.  Call
 * mf_pipeline_prescan_mem first for the source's LPAR view.  Returns as mf_pipeline_add_file.
 * next is given the pipeline's reader options: opts->strtab is the table the pipeline names
 * systems and LPARs in (a source interns its names there), opts->lpar its LPAR view (a source of
 * SMF samples read elsewhere joins them with mf_lparmap_join, as the SMF reader does: db import -j).
 */
struct mf_reader_opts;
int mf_pipeline_add_source(struct mf_pipeline *p, const char *name, const char *format,
			   int (*next)(void *ctx, const struct mf_reader_opts *opts, struct mf_sample *s,
				       struct mf_error *err),
			   void *ctx, const uint64_t *left_out, struct mf_error *err);

/* Tells e to diag as the error that stops the pipeline (a source's, before its first sample); returns e->code. */
int mf_pipeline_error(struct mf_pipeline *p, const struct mf_error *e);

/*
 * Adds one sample that was not read from a file (counted live, as `mfstat
 * stat` does): grouped like a read one, without duplicate detection.
 * Returns 0, MF_ELIMIT beyond max_groups or MF_ENOMEM (err filled, and told
 * to diag).
 */
struct mf_sample;
int mf_pipeline_add_sample(struct mf_pipeline *p, const struct mf_sample *s, struct mf_error *err);

/*
 * Adds a warning of the caller's (a counter that could not be counted, an
 * assumed CPU speed) to the report, before those mf_pipeline_finish adds.
 */
void mf_pipeline_warn(struct mf_pipeline *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Groups, computes the metrics and fills *out (which borrows from p: keep p
 * until out is written) with results, counts, inputs and warnings.  Call it
 * after the last file: it frees the duplicate tables first (their memory
 * grows with the rows read), so a file added after it is refused
 * (MF_EUSAGE); samples of mf_pipeline_add_sample, which are not checked for
 * copies, may follow and a new report be made.  Returns 0 or MF_ENOMEM (told to diag as
 * MF_PIPELINE_FAILED: "out of memory while" what it was making).
 */
int mf_pipeline_finish(struct mf_pipeline *p, struct mf_report *out);

/* Rows and records skipped so far. */
unsigned long long mf_pipeline_skipped(const struct mf_pipeline *p);

/*
 * Rows read so far by the threads of jobs (a file in parts, SMF dumps at once), whether
 * merged or left to a reading of the whole file: the work the threads did, for tests (a part
 * stops soon after any part passes max_groups, so that memory stays near max_groups groups a
 * part).
 */
unsigned long long mf_pipeline_part_rows(const struct mf_pipeline *p);

/*
 * The groups of the report that the threads of -j sorted, each part its own, and that were
 * merged in order (mf_grouper_take_sorted), so that mf_pipeline_finish did not sort them again.
 */
unsigned long long mf_pipeline_part_sorted(const struct mf_pipeline *p);

/* The last input read, whole (its format, counts of samples, skipped rows, records by kind), or NULL before the first. */
const struct mf_input *mf_pipeline_last_input(const struct mf_pipeline *p);
/* The last input read holds the roll-up rows of level (static: "hour", "day", "month"); nothing before the first. */
void mf_pipeline_set_rollup(struct mf_pipeline *p, const char *level);
/* The names of the samples read (their system and lpar ids). */
const struct mf_strtab *mf_pipeline_strtab(const struct mf_pipeline *p);

void mf_pipeline_free(struct mf_pipeline *p);

/*
 * What streaming did (mf_pipeline_opts.stream_csv), counted for tests, never timed: false when
 * the report was not streamed.  rows: finished; most_groups: the most groups held at once;
 * most_identities: the most the duplicate table held; runs and bytes: spilled to the temporary
 * file.
 */
struct mf_pipeline_stream_counts {
	uint64_t rows, runs, bytes;
	size_t most_groups, most_identities;
};
bool mf_pipeline_stream_counts(const struct mf_pipeline *p, struct mf_pipeline_stream_counts *c);

/*
 * After the reading, when the selection left samples out: what they cover, as the report
 * writes times (its zone; a sample's own offset with the default or "smf" zone) and sorted
 * system names, at most six and "and N more": "2025-03-04T10:00:00Z to 2025-03-04T10:02:00Z
 * (systems SYSA, SYSB)", into buf (n bytes).  False, buf empty, when none was left out.  For the
 * message of a selection that leaves nothing (the data's period and systems).
 */
bool mf_pipeline_left_out_span(const struct mf_pipeline *p, char *buf, size_t n);

/*
 * A source that leaves samples out itself (a database, which counts them: mf_pipeline_add_source)
 * tells what they cover: a sample that starts or ends their span (has_start, its start, length
 * in seconds, NaN unknown, and local offset), or only its system (has_start false).  0 or
 * MF_ENOMEM.
 */
int mf_pipeline_left_out_add(struct mf_pipeline *p, const char *system, bool has_start, int64_t start_us,
			     double seconds, bool has_offset, int32_t utc_offset_s);

#endif
