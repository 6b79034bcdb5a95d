/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_DB_IMPORT_H
#define MFSTAT_DB_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"
#include "mfstat/db/db.h"
#include "mfstat/report/pipeline.h"

/*
 * mfstat db import: inputs read by the report pipeline (every format report reads, SMF joined to
 * the LPAR view of every input) into an opened database, each sample once (docs/db.md).  One
 * transaction per input file; a file whose SHA-256 is held already is not read again.
 */

/* What became of one input. */
enum mf_db_import_status {
	MF_DB_IMPORTED = 0, /* committed: samples_new and samples_known say what it held */
	MF_DB_ALREADY = 1,  /* its bytes were imported before, as held_name on held_when */
	MF_DB_FAILED = 2    /* rolled back (the error returned says why) */
};

struct mf_db_import_file {
	const char *name; /* the input as given */
	enum mf_db_import_status status;
	uint64_t size;                       /* bytes */
	uint64_t samples_new, samples_known; /* MF_DB_IMPORTED */
	uint64_t skipped;                    /* bad rows or records skipped (skip_bad) */
	char held_name[512], held_when[32];  /* MF_DB_ALREADY: the name and time of the import that holds it */
	const char *format;                  /* smf, csv, perf, lshwc (MF_DB_IMPORTED), else NULL */
	uint64_t held_back; /* new samples in roll-up buckets older than the prune horizon (not rolled up) */
};

struct mf_db_import_opts {
	const struct mf_kb *kb;           /* borrowed */
	const char *kb_name;              /* meta.kb: "embedded" or the --tables directory */
	const char *format;               /* input format, NULL to detect */
	const struct mf_family *family;   /* --machine: for rows whose data name none, or NULL */
	const struct mf_machine *machine; /* the machine type given, or NULL */
	double cpu_mhz;                   /* as mf_pipeline_opts */
	const struct mf_tz *perf_tz;
	const char *perf_tz_from;
	bool skip_bad; /* skip and count bad rows and records (and conflicting copies) */
	/*
	 * -j N: above 1, N-1 threads read the inputs ahead (hash, decode; each input's samples,
	 * records and errors queued, at most 4096 events and 16 MiB an input, as many inputs ahead
	 * as there are readers) while this thread writes them in order, as with 1: the same
	 * database, lines and messages.  0 or 1: read and written here, one after the other.
	 */
	unsigned jobs;
	/* The pipeline's diagnostics (mf_pipeline_opts.diag), told as they come; may be NULL. */
	void (*diag)(void *ctx, enum mf_pipeline_diag kind, const struct mf_error *e);
	/* Each input when done with (imported, already there or rolled back); may be NULL. */
	void (*done)(void *ctx, const struct mf_db_import_file *f);
	/*
	 * Progress within the input being read, called every few thousand samples: the fraction
	 * of it read (0..1, or negative when unknown: compressed), its size and the samples so far.
	 */
	void (*progress)(void *ctx, const char *name, double fraction, uint64_t size, uint64_t samples);
	void *ctx;
};

/* What a whole import did. */
struct mf_db_import_totals {
	size_t files, already, failed;
	uint64_t samples_new, samples_known, skipped, bytes;
	bool told; /* the error returned was told to diag already (by the pipeline) */
};

/*
 * Imports paths[0..n) into db in order, each in a transaction of its own.  Stops at the first
 * input that fails (it is rolled back; those before stay).  Returns 0, or that error's code
 * with err filled: MF_EFORMAT and the reader's codes for bad data (a copy of a held sample with
 * other counters names both places, a counter delta of 2^63 or more), MF_EUSAGE (standard input,
 * a format that cannot be read as asked), MF_EIO (a file or the database), MF_ENOMEM.
 */
int mf_db_import(struct mf_db *db, const char *const *paths, size_t n, const struct mf_db_import_opts *o,
		 struct mf_db_import_totals *tot, struct mf_error *err);

#endif
