/* SPDX-License-Identifier: MIT */
/*
 * Streaming the finest grain (private to the report layer): the groups of closed intervals
 * leave memory as compact finished rows, in sorted runs (spilled to an unlinked temporary file
 * beyond a limit), merged in the report's key order when the CSV is written.  Used by the
 * pipeline only where it gives the bytes of the whole path (pipeline.c, stream_eligible).
 */
#ifndef MFSTAT_REPORT_STREAM_H
#define MFSTAT_REPORT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/report/output.h"

/* The kinds of per-group doubts the notes say, in their order (mf_note_doubt_bit). */
#define MF_NOTE_DOUBTS 5
unsigned mf_note_doubt_bit(size_t k);

/* What the per-group notes read of the results (first: in the report's order). */
struct mf_note_facts {
	size_t doubt_count[MF_NOTE_DOUBTS];
	const struct mf_result *doubt_first[MF_NOTE_DOUBTS];
	bool busy_has_ov; /* the first busy group's intervals overlap: busy_ov */
	struct mf_group_overlap busy_ov;
	size_t finding_count; /* LPARCPU and RMF_LPARCPU apart: the most apart, the first of those */
	const struct mf_result *finding;
	size_t fewer_count; /* groups with fewer CPUs than their series' most */
	const struct mf_group *fewer_group;
	uint64_t fewer_cpus, fewer_expected;
};

/* Whether r is a busy finding (LPARCPU_DIFF beyond MF_BUSY_FINDING), its difference in *diff. */
bool mf_note_finding_first(const struct mf_result *r, double *diff);

/* The times of a row as the CSV writes them: its period, and (offs) the zone offsets at each instant. */
struct mf_row_times {
	bool has_period;
	int64_t ps, pe;
	bool offs; /* the offsets below are the report's (else mf_report_time asks the group) */
	int32_t off_start, off_ps, off_pe;
};

struct mf_stream;

/*
 * A stream of rows of the columns (--metrics; NULL: every metric) of kb's families, names in tab; tz the zone of
 * the report unless it turns to UTC (offsets are worked out in it).  mem_limit: bytes of rows
 * held before a run is spilled (0: MF_STREAM_MEM_DEFAULT).  NULL when out of memory.
 */
#define MF_STREAM_MEM_DEFAULT ((size_t)64 << 20)
struct mf_stream *mf_stream_new(const struct mf_kb *kb, const struct mf_strtab *tab, unsigned by,
				const char *const *columns, size_t ncolumns, const struct mf_tz *tz, size_t mem_limit);
void mf_stream_free(struct mf_stream *st);

/*
 * Adds the closed groups groups[0..n) in key order (mf_grouper_sort) with their results.
 * 0 or MF_ENOMEM (without a temporary file the rows stay in memory).
 */
int mf_stream_add(struct mf_stream *st, struct mf_group *const *groups, const struct mf_result *res, size_t n);

/* The rows added, the runs spilled to the temporary file, and its bytes. */
void mf_stream_counts(const struct mf_stream *st, uint64_t *rows, uint64_t *runs, uint64_t *bytes);

/* The facts of the notes (valid until the stream is freed).  false when out of memory. */
bool mf_stream_note_facts(const struct mf_stream *st, struct mf_note_facts *f);

/* The families of the rows, in the knowledge base's order (as mf_report_families). */
size_t mf_stream_families(const struct mf_stream *st, const struct mf_family **out, size_t max);

/* Whether key (of kb->keys) is of sparse metrics without a value in any row (as mf_report_key_sparse_empty). */
bool mf_stream_key_sparse_empty(const struct mf_stream *st, const char *key);

/* The shortest and longest interval of the rows (as mf_report_interval_range). */
bool mf_stream_interval_range(const struct mf_stream *st, double *lo, double *hi);

/* The earliest start and latest end of the rows' periods. */
bool mf_stream_period(const struct mf_stream *st, int64_t *start, int64_t *end);

/*
 * Calls row for every row in the report's key order (a merge of the runs), with a group and a
 * result that hold the row's keys, columns (values at the metric indexes of the columns, as
 * mf_report_key_map gives them), CPUs and interval, its series' most CPUs (cpus_expected) and
 * its times.  Stops at the first nonzero return of row and returns it; MF_ENOMEM or MF_EIO of
 * its own.
 */
int mf_stream_each(const struct mf_stream *st,
		   int (*row)(void *ctx, const struct mf_group *g, const struct mf_result *r, uint64_t expected,
			      const struct mf_row_times *t),
		   void *ctx);

#endif
