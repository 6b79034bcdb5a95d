/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_SAMPLE_H
#define MFSTAT_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/kb/kb.h"
#include "mfstat/base/strtab.h"
#include "mfstat/base/timefmt.h"

/*
 * The common counter-sample model.  Every input format produces these: one
 * sample is the counter deltas of one CPU (or one total) over one interval,
 * with its identity.  Grouping, metrics and every report read only this model.
 */

#define MF_SAMPLE_MAX MF_MAX_COUNTER

struct mf_sample {
	const struct mf_family *family;
	const struct mf_machine *machine; /* NULL when only the family is known */
	uint32_t system;                  /* strtab id, 0 = none */
	uint32_t lpar;                    /* strtab id, 0 = none */
	int64_t cpu;                      /* -1 = none */
	int pool;                         /* enum mf_pool */
	bool has_start;
	int64_t start_us;     /* interval start, microseconds since 1970-01-01 UTC */
	double seconds;       /* interval length; NaN = unknown */
	double cpsp;          /* CPU speed in MHz; NaN = unknown */
	bool cpsp_nominal;    /* cpsp is the machine's nominal speed, not data */
	unsigned user_only;   /* counters counted in problem state only (perf :u) */
	bool has_offset;      /* the input gives the local time offset (SMF records do) */
	int32_t utc_offset_s; /* then: local time minus UTC, in seconds (--tz smf) */
	uint32_t input;   /* the input it came from, 1-based in the order read (the pipeline sets it), 0 = unknown */
	long line;        /* where it was read: its (first) line in a text input, 0 = unknown */
	long long offset; /* or the byte offset of its record in a binary input (SMF), -1 = unknown */

	/* Where the engine ran (SMF type 70 and 99 subtype 14 joined to type 113, or CSV columns). */
	bool lpar_joined;    /* lpar came from the LPAR view (SMF type 70), not from the sample's own input */
	int polarity;        /* enum mf_polarity; MF_POL_NONE = unknown */
	int32_t lpar_weight; /* the LPAR's weight for the engine's pool; -1 = unknown */
	int32_t drawer;      /* drawer (book) of the core; -1 = unknown */
	int32_t chip;        /* chip of the core within its drawer; -1 = unknown */
	double rmf_busy_s;   /* RMF dispatch time of the engine over this sample's interval, s; NaN = none */

	/*
	 * A row of the performance database's roll-ups (mfstat report --db over the hour, day or
	 * month level) stands for many samples: their counter sums, with cpu -1.  0 for a sample.
	 */
	uint64_t rollup_rows;   /* the samples it sums (grouping counts them, not 1) */
	uint32_t rollup_cpus;   /* the distinct CPUs among them (a group's cpus: the most of one bucket) */
	int64_t rollup_busy_ns; /* with rmf_busy_s: the exact sum of its samples' RMF time, ns */

	const uint64_t *present_bits;  /* optional: bitmap of the slots below, when the reader has it */
	size_t n;                      /* number of counters present */
	uint16_t slot[MF_SAMPLE_MAX];  /* dense slot of each counter in family */
	uint64_t value[MF_SAMPLE_MAX]; /* its delta */
};

/* HiperDispatch polarity of a logical processor (SMF 70, 99.14). */
enum mf_polarity {
	MF_POL_NONE = 0, /* not known */
	MF_POL_VH,       /* vertical high: a dedicated share of a whole engine */
	MF_POL_VM,       /* vertical medium: part of an engine */
	MF_POL_VL,       /* vertical low: no guaranteed share (runs on unused capacity) */
	MF_POL_HZ,       /* horizontal: HiperDispatch off, the LPAR's share spread evenly */
	MF_POL_COUNT
};

/* "VH", "VM", "VL", "HZ", or NULL for MF_POL_NONE. */
const char *mf_polarity_name(int polarity);
/* Parses VH, VM, VL, HZ (any case, also the words high, medium, low, horizontal); -1 if none. */
int mf_polarity_parse(const char *s, size_t len);

/* Resets s to an empty sample of no family. */
void mf_sample_reset(struct mf_sample *s);

/*
 * Parses a pool name: GCP (or CP), ZIIP, ZAAP, ZCBP, IFL, ICF case-insensitively, or
 * an RMF pool number 1 (GCP), 3 (zAAP), 6 (zIIP).  Returns the pool or -1.
 */
int mf_pool_parse(const char *s, size_t len);

#endif
