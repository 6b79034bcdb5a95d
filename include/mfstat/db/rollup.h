/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_DB_ROLLUP_H
#define MFSTAT_DB_ROLLUP_H

#include <stdbool.h>
#include <stdint.h>

#include "mfstat/base/error.h"
#include "mfstat/db/db.h"
#include "mfstat/db/prune.h"

/*
 * Roll-ups: the samples summed per system, LPAR, pool and family over each hour, day and month
 * of the local clock they were written in (docs/db.md, "Levels and retention").
 */

/*
 * The start of the bucket of level (MF_DB_HOUR, MF_DB_DAY, MF_DB_MONTH) that holds the instant
 * us (Unix microseconds) on a clock off_s seconds ahead of UTC: the bucket's local start as an
 * instant.
 */
int64_t mf_db_bucket(int level, int64_t us, int32_t off_s);

struct mf_db_rolled {
	uint64_t rows[MF_DB_NLEVELS]; /* roll-up rows written per level (MF_DB_SAMPLE unused) */
	uint64_t samples;             /* samples summed (each counted once per level) */
	uint64_t held_back;           /* samples in buckets that start before the sample level's prune horizon */
};

/*
 * Recomputes from the samples every hour, day and month bucket that holds a sample starting in
 * [lo_us, hi_us) (all buckets when all), replacing the roll-ups there.  Buckets that start before
 * the newest sample horizon of prune_log are left as they are (their samples are partly gone);
 * the samples in them are counted in held_back.  Within the caller's transaction when one is
 * open, else in one of its own.  0, or MF_EIO / MF_ENOMEM (err names the database).
 */
int mf_db_rollup(struct mf_db *db, bool all, int64_t lo_us, int64_t hi_us, struct mf_db_rolled *out,
		 struct mf_error *err);

/*
 * The counter sums of the hours, gathered in C by the importer as it writes new samples, so that
 * the roll-up of an import does not read the counters back in SQL.  Keyed as the hour level
 * (family, system, lpar, pool, local hour, offset and whether it is known).
 */
struct mf_db_hours;
struct mf_family;
struct mf_db_hours *mf_db_hours_new(void);
void mf_db_hours_free(struct mf_db_hours *hs);
void mf_db_hours_clear(struct mf_db_hours *hs);
/*
 * Adds one sample written (it has a start): its CPU (-1: none) and its counters by the family's
 * dense slot (has[k] set when it has counter k, val[k] its delta, below 2^63).  0 or MF_ENOMEM.
 */
int mf_db_hours_add(struct mf_db_hours *hs, const struct mf_family *f, const char *system, const char *lpar,
		    const char *pool, int64_t cpu, int64_t start_us, bool has_offset, int32_t off_s,
		    const unsigned char *has, const uint64_t *val);

/*
 * mf_db_rollup(db, false, lo_us, hi_us, ...) with the hours' counter sums taken from hs where hs
 * holds every sample of an hour bucket (its count equals the samples held there), and the CPUs of
 * each bucket of a level counted from hs when the database holds no other sample in that level's
 * buckets; the rest is summed in SQL as mf_db_rollup does.  Same rows and values.
 */
int mf_db_rollup_hours(struct mf_db *db, int64_t lo_us, int64_t hi_us, const struct mf_db_hours *hs,
		       struct mf_db_rolled *out, struct mf_error *err);

#endif
