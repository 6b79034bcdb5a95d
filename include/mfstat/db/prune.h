/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_DB_PRUNE_H
#define MFSTAT_DB_PRUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"
#include "mfstat/db/db.h"

/*
 * Ageing the levels of the database out, each on its own schedule (mfstat db prune --keep
 * sample=35d,hour=400d,day=5y): docs/db.md, "Levels and retention".
 */

enum mf_db_level { MF_DB_SAMPLE = 0, MF_DB_HOUR, MF_DB_DAY, MF_DB_MONTH, MF_DB_NLEVELS };

/* "sample", "hour", "day", "month". */
const char *mf_db_level_name(int level);

/* How long each level is kept, back from the newest sample held. */
struct mf_db_keep {
	bool forever[MF_DB_NLEVELS]; /* never pruned */
	unsigned n[MF_DB_NLEVELS];   /* else n units */
	char unit[MF_DB_NLEVELS];    /* 'd' days, 'w' weeks, 'm' calendar months, 'y' calendar years */
	char text[MF_DB_NLEVELS][16];
};

/* The defaults: sample=35d, hour=400d, day=5y, month=forever. */
void mf_db_keep_default(struct mf_db_keep *k);

/*
 * Parses LEVEL=SPAN[,LEVEL=SPAN...] over k (levels not named keep what k had): SPAN is a
 * positive number and a unit (d, w, m, y) or "forever".  0, or -1 with why (n bytes) saying
 * what is wrong with which item.
 */
int mf_db_keep_parse(const char *spec, struct mf_db_keep *k, char *why, size_t n);

/* The instant before which level is pruned, back from ref_us (Unix us); INT64_MIN: forever. */
int64_t mf_db_keep_horizon(const struct mf_db_keep *k, int level, int64_t ref_us);

struct mf_db_pruned {
	bool has_ref;                     /* the database holds a dated sample or roll-up */
	int64_t ref_us;                   /* the newest interval start held: where the spans count back from */
	int64_t before_us[MF_DB_NLEVELS]; /* per level: rows before it pruned (INT64_MIN: none) */
	uint64_t rows[MF_DB_NLEVELS];     /* rows (samples, roll-ups) deleted, or that would be */
	uint64_t smf_records;             /* SMF 70.1/99.14 records deleted with the samples */
};

/*
 * Deletes from each level what starts before its horizon, in one transaction, and records each
 * level pruned in prune_log; with dry_run only counts.  Samples without an interval start are
 * never pruned; the file table stays whole (a file pruned is still known, and importing it again
 * adds nothing).  0, or MF_EIO (err names the database).
 */
int mf_db_prune(struct mf_db *db, const struct mf_db_keep *k, bool dry_run, struct mf_db_pruned *out,
		struct mf_error *err);

#endif
