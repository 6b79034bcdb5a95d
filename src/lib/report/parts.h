/* SPDX-License-Identifier: MIT */
/*
 * The -j machinery of the report pipeline (parts.c, internal to the report layer): a plain CSV
 * file cut into parts between intervals, or several SMF dumps, read at once by threads, each
 * into tables of its own (struct part); the check that the parts give what reading the file
 * whole gives (their names mapped into the pipeline's string table, their duplicate tables
 * disjoint); and the duplicate tables of the last file read in parts, kept until another file
 * is read.  Moving the parts' groups and counts into the pipeline is the pipeline's own step
 * (merge_parts in pipeline.c).
 */
#ifndef MFSTAT_REPORT_PARTS_H
#define MFSTAT_REPORT_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/input/reader.h"
#include "mfstat/report/dedup.h"
#include "mfstat/report/group.h"
#include "mfstat/report/pipeline.h"

/*
 * What the samples a selection left out cover: the first start and the last end, with the
 * offsets those samples gave (SMF), for the message of an empty selection
 * (mf_pipeline_left_out_span).  Zeroed: none.
 */
struct mf_left_span {
	bool any;
	int64_t start_us, end_us;
	bool start_has_off, end_has_off;
	int32_t start_off, end_off;
};
void mf_left_span_add(struct mf_left_span *x, const struct mf_sample *s);
void mf_left_span_merge(struct mf_left_span *x, const struct mf_left_span *y);

/* What the parts need of the pipeline: its options, its reader's, and which tables it keeps. */
struct mf_part_cfg {
	struct mf_pipeline_opts o;
	struct mf_reader_opts ro;
	bool igrp;                           /* the pipeline groups by series and interval too (keep_intervals) */
	bool lgrp;                           /* and by system and LPAR, for the LPAR table */
	const struct mf_sum_layout *layouts; /* the sums the pipeline's groups keep (mf_grouper_set_layouts) */
	size_t nlayouts;
};

struct part {
	const struct mf_part_cfg *p;
	const char *name;
	const char *head; /* the header line */
	size_t hlen;
	int fd;             /* the file, read with pread */
	long long off, len; /* the part's bytes */
	uint32_t input;
	struct mf_strtab *tab;
	struct mf_grouper *grp, *igrp, *lgrp;
	struct mf_dedup *dd;
	struct mf_sample *s, *s_ahead;
	bool reserve;  /* make the duplicate table at the size the part's rows need */
	uint8_t *kept; /* by the part's name id: a kept sample named this system */
	size_t nkept;
	uint64_t rows, duplicates, no_offset, with_offset, left_out[MF_SELECT_NREASONS];
	struct mf_left_span left; /* what the samples left out cover */
	uint8_t *left_sys;        /* by the part's name id: a sample left out named this system */
	size_t nleft_sys;
	long lines; /* lines of the part (its rows, the header's line not counted) */
	bool whole; /* a whole file (an SMF dump): its reader is kept for its counts and warnings */
	struct mf_reader *r;
	struct mf_lparmap *lpar; /* whole: an LPAR view of its own (the records a first pass did not find) */
	bool fallback;           /* what reading the file whole gives differs (an error, a warning, a limit) */
	bool idropped;           /* igrp went beyond max_groups: freed, as the whole reading drops it */
	/*
	 * Shared by the parts read at once: set when a part's groups go beyond --max-groups (the
	 * reading then fails: the whole reading says where) and, for the parts of one file, when any
	 * part falls back (the file is read whole anyway).  Every part stops at its next row.
	 */
	int *stop;
	bool stop_all; /* any fallback sets stop (the parts of one file), not only the limit */
};

/* A part's own tables, like the pipeline's; a table that cannot be made leaves the part to the whole reading. */
void mf_part_init(const struct mf_part_cfg *p, struct part *t, uint32_t input);
void mf_part_free(struct part *t);

/* Reads the parts at once, a thread each, and waits for them (a part that fell back is not read). */
void mf_parts_run(struct part *t, size_t n);

/*
 * A plain CSV file read in parts at once (p->o.jobs of them at most), its samples numbered
 * input: 0 with the parts read in *t (*nt of them; one fell back when the file is to be read
 * whole), 1 when the file is not for parts (small, compressed, another format, not a regular
 * file), or MF_ENOMEM when the *nt parts could not be started.  The parts are mf_parts_free'd.
 */
int mf_parts_read(const struct mf_part_cfg *p, const char *name, uint32_t input, struct part **t, size_t *nt);
void mf_parts_free(struct part *t, size_t nt);

/* The duplicate tables of the parts of the last file read in parts, not yet added to the pipeline's. */
struct mf_parts_pending {
	struct mf_dedup_part *dp;
	uint32_t **maps; /* map and rev of each, to free */
	size_t n;
};

/*
 * The parts' duplicate tables, their names mapped into tab, into *pend, if they are disjoint
 * from dd's and from each other (checked with up to jobs threads): 0; 1 when they are not (the
 * file is read whole; *pend empty); MF_ENOMEM.
 */
int mf_parts_map(struct mf_strtab *tab, const struct mf_dedup *dd, unsigned jobs, const struct part *t, size_t nt,
		 struct mf_parts_pending *pend);

/* Adds the pending tables into dd (before another file is read) and frees them: 0 or MF_ENOMEM. */
int mf_parts_pending_flush(struct mf_parts_pending *pend, struct mf_dedup *dd);
/* Frees the pending tables. */
void mf_parts_pending_drop(struct mf_parts_pending *pend);

/*
 * Room in the duplicate table for the rows of a plain CSV file (path, or fd) from byte off for
 * len bytes (-1: to its end), estimated from the lines of its first 64 KiB.
 */
void mf_parts_reserve_rows(struct mf_dedup *dd, const char *path, int fd, long long off, long long len);

/* Sets flag id of a growing array of flags; returns whether it was clear, or MF_ENOMEM. */
int mf_flag_mark(uint8_t **flags, size_t *n, uint32_t id);

#endif
