/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_DB_READ_H
#define MFSTAT_DB_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "mfstat/base/error.h"
#include "mfstat/db/db.h"
#include "mfstat/db/prune.h"
#include "mfstat/input/reader.h"
#include "mfstat/report/pipeline.h"
#include "mfstat/report/select.h"
#include "mfstat/base/tz.h"

/*
 * Reading the performance database back (docs/db.md, "Reading"): its samples as the common
 * model, exactly as the reader of the original input made them, and its SMF type 70 and 99.14
 * records as the LPAR view.
 */

struct mf_db_samples;

/*
 * Prepares the reading of db's samples, in the order they were imported (sample.id).  kb names
 * the families (borrowed; every counters_<family> table and column must be one of its families
 * and counters, else MF_EFORMAT naming them).  sel (borrowed, may be NULL): what SQL can select
 * of it, --system and --from/--to in UTC, is left out in SQL through the indexes, and counted
 * by reason as mf_select_check would (mf_db_samples_left_out).  Returns 0, MF_ENODATA (no
 * samples at all), MF_EFORMAT, MF_EIO or MF_ENOMEM, err naming the database file.
 */
int mf_db_samples_open(struct mf_db_samples **out, struct mf_db *db, const struct mf_kb *kb,
		       const struct mf_select *sel, struct mf_error *err);

/* The next sample into s (a mf_reader_source_fn: names interned in opts->strtab): 1, 0 at the end, or an error. */
int mf_db_samples_next(void *ctx, const struct mf_reader_opts *opts, struct mf_sample *s, struct mf_error *err);

/* The samples the SQL selection left out, by enum mf_select_why (MF_SELECT_NREASONS counts). */
const uint64_t *mf_db_samples_left_out(const struct mf_db_samples *d);

void mf_db_samples_close(struct mf_db_samples *d);

/*
 * The first pass of the LPAR view (mf_pipeline_prescan_mem) over the smf_record rows of db, in
 * the order they were imported (id), framed as the RDW stream the dumps had, in blocks of whole
 * records of about 8 MiB (the memory it takes, whatever the number of records).  0, MF_EIO or
 * MF_ENOMEM.
 */
int mf_db_smf_prescan(struct mf_pipeline *p, struct mf_db *db, struct mf_error *err);

/*
 * The one call per database of `mfstat report --db`: the LPAR view from its SMF records
 * (mf_pipeline_prescan_mem), then its samples as one input of p named by the database's path
 * (mf_pipeline_add_source, format "db"), selected by sel as the pipeline selects (sel is the
 * pipeline's own selection, or NULL).  Returns 0 or the error's code (err filled, and told
 * to the pipeline's diag as the pipeline tells its own).
 */
int mf_db_report_add(struct mf_pipeline *p, struct mf_db *db, const struct mf_kb *kb, const struct mf_select *sel,
		     struct mf_error *err);

/*
 * What `report --db` asks of a database, for choosing the level that answers it (docs/db.md,
 * "Which level answers").
 */
struct mf_db_ask {
	unsigned by;                 /* the grouping, MF_BY_* bits */
	const struct mf_select *sel; /* the selection (borrowed), or NULL */
	const struct mf_tz *tz;      /* the report's zone (borrowed); NULL: UTC */
	int level;                   /* enum mf_db_level asked (--level), or -1: the level that answers */
};

struct mf_db_choice {
	int level;          /* enum mf_db_level read */
	bool asked;         /* it was asked (--level) */
	bool held;          /* it holds the whole period asked (nothing of it pruned) */
	int64_t horizon_us; /* the newest prune horizon of the samples (a roll-up read) or of the level (!held) */
	char why[256];      /* when no roll-up holds the period: why the coarser ones cannot answer, or "" */
};

/*
 * The level that answers ask: the samples when they hold the whole period asked (nothing of it
 * pruned), else the coarsest roll-up level (month, day, hour) that answers the grouping, the
 * selection and the zone and holds the period, else the one that answers and holds the most.
 * With ask->level the one asked, or MF_EUSAGE saying why it cannot answer.  0, MF_EUSAGE, MF_EIO.
 */
int mf_db_choose(struct mf_db *db, const struct mf_db_ask *ask, struct mf_db_choice *c, struct mf_error *err);

/*
 * mf_db_report_add at the level mf_db_choose gives (told in c): a roll-up level's rows are one
 * input of p each standing for the samples it sums (mf_sample.rollup_rows and rollup_cpus), with
 * a warning saying which level was read and why, or which part of the period is not held.
 */
int mf_db_report_read(struct mf_pipeline *p, struct mf_db *db, const struct mf_kb *kb, const struct mf_db_ask *ask,
		      struct mf_db_choice *c, struct mf_error *err);

#endif
