/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_EXPORT_H
#define MFSTAT_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "mfstat/report/group.h"
#include "mfstat/base/strtab.h"

/*
 * `mfstat export`: groups written back as the canonical counter CSV that
 * `mfstat report` reads, one row per group with its summed counter deltas.
 * With the finest grouping (system, lpar, pool, cpu, interval and where the
 * engines ran) a row is one sample, and the report of the export is the
 * report of the inputs for any --by (README "Scaling out: mfstat export").
 *
 * Columns, each only when some group has a value for it: system, lpar, pool,
 * cpu, polarity, lpar_weight, drawer, chip, machine (the machine type when
 * the rows agree on one, else the family), cpsp (empty when the rows' speed
 * was the machine's nominal one), interval_start (the group's interval, else
 * its first interval's start), interval_seconds (INTERVAL: the mean length of
 * the rows of a group of one interval), utc_offset_minutes (the local offset
 * SMF records carry, for --tz smf), rmf_busy_seconds (when every row has it),
 * then the counters of the groups' families (short names, or a named
 * family's names).  A counter is written when every row of the group had it;
 * otherwise (present in some rows only, or a sum beyond 64 bits) its field is
 * empty, which the reader takes as absent from that row.
 */

struct mf_export_stats {
	size_t rows;       /* rows written */
	size_t partial;    /* groups with a counter in some of their rows only (written empty) */
	size_t overflow;   /* groups with a counter sum beyond 64 bits (written empty) */
	size_t mixed_cpsp; /* groups whose rows had different speeds (cpsp empty) */
	size_t merged;     /* groups of more than one row where a row count matters (see README) */
};

/*
 * Writes the CSV of groups[0..n) (sorted or not; tab names their systems and
 * LPARs) through put, which returns 0 or an error code that stops the
 * writing.  Returns 0, that code, or MF_ENOMEM.  stats may be NULL.
 *
 * System and LPAR names are written with MF_ESCAPE_CSV_DATA (valid UTF-8, no
 * cell a spreadsheet takes for a formula, and the reader gets the same bytes
 * back: mfstat/base/escape.h); with terminal (the CSV goes to a terminal)
 * their control characters are written \xNN as well, as the text report shows
 * them: a file keeps them.
 */
int mf_export_csv(struct mf_group *const *groups, size_t n, const struct mf_strtab *tab, bool terminal,
		  int (*put)(void *ctx, const char *s, size_t len), void *ctx, struct mf_export_stats *stats);

#endif
