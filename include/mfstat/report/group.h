/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_GROUP_H
#define MFSTAT_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/input/sample.h"
#include "mfstat/base/tz.h"

/*
 * Grouping (--by): samples with the same key have their counter deltas summed
 * per counter; metrics are computed from the sums afterwards (sum, then
 * divide: cpumf-formulas.md, rule 1).  Memory grows with the groups, not with
 * the samples.
 */

enum {
	MF_BY_SYSTEM = 1u << 0,
	MF_BY_LPAR = 1u << 1,
	MF_BY_POOL = 1u << 2,
	MF_BY_INTERVAL = 1u << 3,
	MF_BY_CPU = 1u << 4,
	MF_BY_FILE = 1u << 5, /* each input on its own */
	MF_BY_HOUR = 1u << 6, /* calendar buckets, cut in the report's time zone */
	MF_BY_DAY = 1u << 7,
	MF_BY_WEEK = 1u << 8, /* ISO weeks, Monday first */
	MF_BY_MONTH = 1u << 9,
	MF_BY_HOUR_OF_DAY = 1u << 10, /* 0-23 across days */
	MF_BY_WEEKDAY = 1u << 11,     /* Monday to Sunday across weeks */
	/* Where the engines ran (SMF 70 and 99.14 joined to 113; CSV columns): */
	MF_BY_POLARITY = 1u << 12, /* VH, VM, VL, HZ */
	MF_BY_WEIGHT = 1u << 13,   /* the LPAR's weight for the pool ("lpar_weight") */
	MF_BY_DRAWER = 1u << 14,
	MF_BY_CHIP = 1u << 15
};
/* The keys of where an engine ran: printed after the LPAR and pool like the file and calendar keys. */
#define MF_BY_PLACE (MF_BY_POLARITY | MF_BY_WEIGHT | MF_BY_DRAWER | MF_BY_CHIP)
#define MF_BY_DEFAULT (MF_BY_SYSTEM | MF_BY_LPAR | MF_BY_POOL | MF_BY_INTERVAL)
#define MF_BY_CALENDAR (MF_BY_HOUR | MF_BY_DAY | MF_BY_WEEK | MF_BY_MONTH | MF_BY_HOUR_OF_DAY | MF_BY_WEEKDAY)
/* The time keys: at most one per grouping. */
#define MF_BY_TIME (MF_BY_INTERVAL | MF_BY_CALENDAR)

/*
 * Parses a --by list such as "system,lpar,pool" or "system,day" into MF_BY_*
 * bits; an empty string means "everything in one group".  Returns 0, -1 for
 * an item that is not a key or -2 for a second time key, with *bad set to the
 * offending item's offset.
 */
int mf_by_parse(const char *s, unsigned *by, size_t *bad);

/* The --by name of one MF_BY_* bit ("system", ..., "hour-of-day"), or NULL. */
const char *mf_by_name(unsigned bit);

/* The calendar bucket of the grouping: 1 with *cal set when by has a calendar key, else 0. */
int mf_by_calendar(unsigned by, enum mf_cal *cal);

#define MF_BITWORDS (MF_MAX_COUNTER / 64)

struct mf_group {
	/* Key: the fields not grouped on are unset (0, -1, false).  (Ordered to leave no padding.) */
	const struct mf_family *family;
	const struct mf_machine *machine; /* the rows' machine when they agree, else NULL */
	uint32_t system, lpar;
	int pool;
	uint32_t input; /* MF_BY_FILE: the input (1-based), else 0 */
	int64_t cpu;
	int64_t start_us; /* when has_start */
	int64_t bucket;   /* when has_bucket */

	int polarity;        /* MF_BY_POLARITY: enum mf_polarity, else MF_POL_NONE */
	int32_t lpar_weight; /* MF_BY_WEIGHT: the weight, else -1 */
	int32_t drawer;      /* MF_BY_DRAWER, else -1 */
	int32_t chip;        /* MF_BY_CHIP, else -1 */

	int32_t utc_offset_s; /* when has_offset */
	bool machine_mixed;
	bool has_start;
	bool has_bucket; /* a calendar key: its bucket (mf_cal_key) */
	bool has_offset; /* the local time offset of the group's first row that gave one (SMF) */

	uint64_t rows;
	uint64_t rows_lspr;    /* rows of engines the LSPR class counts */
	uint64_t *sum;         /* per dense counter slot, all rows */
	uint64_t *sum_lspr;    /* per slot, rows of engines the LSPR class counts */
	size_t nwords;         /* words of each bitmap below: (slots + 63) / 64 */
	uint64_t *present_all; /* slots present in every row */
	uint64_t *present_any; /* slots present in some row */
	uint64_t *overflow;    /* slots whose sum overflowed 64 bits */
	/* NULL: sum[] and sum_lspr[] by counter slot; else the sums kept (mf_grouper_set_layouts) */
	const struct mf_sum_layout *layout;

	double cpsp_min, cpsp_max;
	uint64_t ncpsp;
	uint64_t nnominal; /* rows whose cpsp was the nominal speed */
	unsigned user_only;
	bool cpu_unknown; /* a row carried no CPU number: the CPUs of the group are not all known */
	/* RMF dispatch time summed over the rows that carry it, ns (exact in any order) */
	int64_t rmf_busy_ns;
	uint64_t rmf_rows; /* rows that carry it */

	/* The group's intervals and distinct CPUs are kept by the grouper: see
	 * mf_group_interval_seconds and mf_group_cpus. */
};

struct mf_grouper;

/*
 * Which counter sums the groups of a family keep (--metrics: those something reads): sum[k]
 * and sum_lspr[k] hold the sum of the counter slot whose index[] is k.  The present and
 * overflow bitmaps stay by slot, whole.  A slot not kept is not summed: its overflow is
 * found from a bound, the sum over the rows of each row's largest value among the slots not
 * kept, and when that bound passes 2^64 those slots of the row are marked as overflowing.
 */
#define MF_SUM_NONE 0xffffu
struct mf_sum_layout {
	const struct mf_family *family;
	size_t nsums;                   /* sums kept */
	uint16_t index[MF_MAX_COUNTER]; /* by counter slot: its sum's index, or MF_SUM_NONE */
};

/* A new, empty grouper for the MF_BY_* bits; NULL on ENOMEM. */
struct mf_grouper *mf_grouper_new(unsigned by);

/*
 * The time zone calendar keys are cut in (borrowed; NULL, the default, is
 * UTC).  With a per-record zone ("smf") each row's own offset is used, UTC
 * for rows without one.
 */
void mf_grouper_set_tz(struct mf_grouper *g, const struct mf_tz *tz);
void mf_grouper_free(struct mf_grouper *g);

/*
 * The sums the groups of each family listed keep (borrowed: they must outlive every group
 * made, also those merged into other groupers); the groups of a family not listed keep all.
 * Set before the first sample; groupers that merge must share the same layouts.
 */
void mf_grouper_set_layouts(struct mf_grouper *g, const struct mf_sum_layout *layouts, size_t n);

/* The sum of counter slot of a group (0 when its layout does not keep it). */
uint64_t mf_group_sum(const struct mf_group *grp, size_t slot);

/* sums (grp->sum or grp->sum_lspr) by counter slot: sums itself, or spread into buf
 * (MF_MAX_COUNTER entries) with the slots not kept 0. */
const uint64_t *mf_group_sums_by_slot(const struct mf_group *grp, const uint64_t *sums, uint64_t *buf);

/*
 * Caps the number of groups (0, the default, is no cap): memory grows with the
 * groups, about 1 to 2 KiB each, so a key as fine as interval and CPU over a
 * long period needs a bound.  Beyond it mf_grouper_add returns MF_ELIMIT.
 */
void mf_grouper_set_max_groups(struct mf_grouper *g, size_t max);

/* Adds a sample to its group.  Returns 0, MF_ENOMEM, or MF_ELIMIT when the
 * sample needs a new group beyond the cap (the grouper is unchanged). */
int mf_grouper_add(struct mf_grouper *g, const struct mf_sample *s);

/*
 * The groups, sorted by family, system, LPAR, pool, interval start and CPU
 * (names compared through tab, which may be NULL for tests without names).
 * The array and groups are borrowed, valid until the grouper is freed or
 * added to.
 */
struct mf_group *const *mf_grouper_groups(struct mf_grouper *g, const struct mf_strtab *tab, size_t *n);
/* mf_grouper_groups sorting with up to jobs threads (the same order). */
struct mf_group *const *mf_grouper_sort(struct mf_grouper *g, const struct mf_strtab *tab, size_t jobs, size_t *n);

/*
 * What a grouper's groups take, counted (for tests and measurements): the group blocks are
 * carved from a few large chunks (an arena), not allocated one by one; a group holds allocations
 * of its own only for a second interval or CPU and for LSPR sums of mixed engines.
 */
struct mf_grouper_mem {
	size_t groups;
	size_t chunks;      /* allocations of the arena */
	size_t arena_bytes; /* their bytes */
	size_t block_bytes; /* carved for group blocks */
	size_t side_allocs; /* allocations groups hold beside their blocks */
	size_t side_bytes;
	size_t table_bytes; /* the lookup table and the list */
};
void mf_grouper_memory(const struct mf_grouper *g, struct mf_grouper_mem *m);

/* The groups in the order they were made (not sorted: cheaper, for merging). */
struct mf_group *const *mf_grouper_list(const struct mf_grouper *g, size_t *n);

/*
 * Adds a whole group into g, as if its samples were added one by one: the key
 * is src's under g's grouping (a coarser one folds many groups into one), and
 * the sums, presence, intervals, CPUs and speeds are combined.  Sums add up,
 * so metrics of the merged group are still "sum, then divide".  Returns 0 or
 * MF_ENOMEM.
 */
int mf_grouper_merge(struct mf_grouper *g, const struct mf_group *src);

/*
 * mf_grouper_merge for a group whose names are interned in another string
 * table: its system and LPAR ids (of the group, its intervals and CPUs) are
 * map[id] in g's (ids from nmap on are kept).  Merging the groupers of the
 * parts of an input in their order gives the groups of reading it whole:
 * sums, lengths (kept in nanoseconds) and counts add up exactly.
 */
int mf_grouper_merge_ids(struct mf_grouper *g, const struct mf_group *src, const uint32_t *map, size_t nmap);

/*
 * Every group of src into g, as mf_grouper_merge_ids of each in src's order:
 * a group g has not is moved (its names renamed through map), not copied; one
 * g has is added up and stays with src.  src is left with those alone (its
 * lookup emptied: only for freeing).  Either may be freed first.  Returns 0,
 * MF_ENOMEM or MF_ELIMIT.
 */
int mf_grouper_take_ids(struct mf_grouper *g, struct mf_grouper *src, const uint32_t *map, size_t nmap);

/*
 * The groups of the n groupers src (the parts of one input, in their order), each sorted
 * (mf_grouper_sort under its own string table), into g, which has none yet, as
 * mf_grouper_take_ids of each in turn gives them but already in the order of mf_grouper_sort
 * under tab (g's names): the groups are renamed through maps[i] (nmaps[i] ids) with a thread a
 * part, then their sorted runs merged, a group of a later part with the key of an earlier one's
 * added to it (and left to its src).  g keeps no lookup table until a group is added to it.
 * Returns 0, 1 when it does not apply (g has groups, a src is not sorted or groups otherwise:
 * nothing done, mf_grouper_take_ids does), or MF_ENOMEM.
 */
int mf_grouper_take_sorted(struct mf_grouper *g, struct mf_grouper *const *src, const uint32_t *const *maps,
			   const size_t *nmaps, size_t n, const struct mf_strtab *tab);
/* The groups g took sorted (mf_grouper_take_sorted), which its sort did not sort again. */
size_t mf_grouper_runs_taken(const struct mf_grouper *g);

/*
 * The interval length of a group (INTERVAL): the wall-clock time its
 * intervals cover, the length of the union of their spans.  An interval of a
 * system (system and LPAR) spans from its start for its length, the mean of
 * its rows' lengths; spans of one system that overlap by less than a second
 * count as adjacent (their lengths add up), so one system's INTERVAL is the
 * sum of its intervals' lengths.  Intervals without a start are taken to
 * begin together (the longest counts), apart from those with one.  NaN when
 * a length is unknown.
 */
double mf_group_interval_seconds(const struct mf_group *grp);

/*
 * The period a group covers: the earliest interval start and the latest
 * interval end (start plus length).  Returns false when no interval of the
 * group has a start.
 */
bool mf_group_period(const struct mf_group *grp, int64_t *start_us, int64_t *end_us);

/*
 * The local time offset the group's rows gave at the instant utc_us (SMF: z/OS's
 * offset when it wrote them): that of the interval starting there, else of the one
 * ending there, else of one holding it, else of the last one before it, else the
 * group's first.  So a period's start takes its first interval's offset and its end
 * its last one's, across a change of summer time.  False when no row gave one.
 */
bool mf_group_offset_at(const struct mf_group *grp, int64_t utc_us, int32_t *off_s);

/* The shortest and longest interval length of a group (seconds); false when none is known. */
bool mf_group_interval_range(const struct mf_group *grp, double *lo, double *hi);

/* Orders two groups by where their engines ran (polarity, LPAR weight, drawer, chip): <0, 0, >0. */
int mf_group_place_cmp(const struct mf_group *a, const struct mf_group *b);

/* Distinct CPUs (system, LPAR and CPU number) of a group, or when rows carry
 * no CPU number the most rows seen in one interval (all systems' rows with
 * the same start counted together). */
uint64_t mf_group_cpus(const struct mf_group *grp);

/* Two intervals of one system (system and LPAR) within a group that overlap. */
struct mf_group_overlap {
	uint32_t system, lpar;
	int64_t a_start_us, b_start_us; /* a starts first (or with b, and is not longer) */
	double a_seconds, b_seconds;
};

/*
 * Finds two intervals of the same system within the group that overlap by a
 * second or more (as mf_group_interval_seconds tells adjacent ones from
 * overlapping ones): the pair whose later start is earliest, in system order.
 * Returns false when there are none.  It sorts a copy of the intervals: for
 * a warning about one group, not for every group.
 */
bool mf_group_find_overlap(const struct mf_group *grp, struct mf_group_overlap *out);

#endif
