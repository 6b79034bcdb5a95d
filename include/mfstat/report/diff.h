/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_DIFF_H
#define MFSTAT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mfstat/base/error.h"
#include "mfstat/report/output.h"
#include "mfstat/base/tz.h"

/*
 * Two reports compared (`mfstat diff`): a report of the period before and one
 * of the period after, each made by its own pipeline with the same --by.
 * Groups are matched on their non-time keys (system, LPAR, pool and CPU,
 * names compared as text since each report has its own string table), not on
 * their family: a z15 system before and a z16 one after is a migration.  For
 * each metric: before, after, the change (after - before) and the percent
 * change; the LSPR class before and after.
 */

/* One metric of a matched group. */
struct mf_diff_value {
	bool in_before, in_after; /* the metric is defined on that side's family */
	double before, after;     /* NaN when not available (or not defined) */
	/*
	 * after - before of the values as written (%.15g), to the 15th significant digit of the
	 * larger: two values written alike differ by 0, not by the rounding of their doubles.
	 * NaN when either is.
	 */
	double delta;
	/* delta in percent of |before|; NaN when either is NaN or before is within rounding of zero
	 * at the metric's decimals (0.004 shown as 0.00) */
	double percent;
};

/* A group of both sides (before and after set) or of one side only (the other NULL). */
struct mf_diff_group {
	const struct mf_result *before, *after;
	struct mf_diff_value *values; /* per metric of the diff (matched groups only) */
	int lspr_before, lspr_after;  /* enum mf_lspr */
	bool lspr_moved;              /* both classes known and different */
};

struct mf_diff {
	const struct mf_report *before, *after; /* borrowed */
	unsigned by;                            /* the keys matched on: rep->by without time keys */
	size_t nmetrics;
	const char **metrics; /* the metrics compared, in report order */
	size_t ngroups;       /* matched, in key order */
	struct mf_diff_group *groups;
	size_t nonly_before, nonly_after; /* on one side only, in key order */
	struct mf_diff_group *only_before, *only_after;
};

/*
 * Matches the groups of before and after (two reports with the same --by) and
 * computes the changes.  metrics is a comma-separated list of the metrics to
 * compare (LSPR may be named: the class is always compared), or NULL for
 * every metric either side's families report.  Returns 0 with *out the
 * caller's (mf_diff_free; it borrows from both reports), MF_EUSAGE for a name
 * that is no metric of any family (err says which), or MF_ENOMEM.
 */
int mf_diff_new(const struct mf_report *before, const struct mf_report *after, const char *metrics,
		struct mf_diff **out, struct mf_error *err);
void mf_diff_free(struct mf_diff *d);

/*
 * Parses a --before or --after range "FROM/TO" (each as mf_select_parse_time
 * takes it, a date alone being midnight in tz).  Returns 0, or -1 when s is
 * not such a range or TO is not after FROM.
 */
int mf_diff_parse_range(const char *s, const struct mf_tz *tz, int64_t *from_us, int64_t *to_us);

/* The text of a group's keys ("SYSA / GCP"), "all data" when it has none; into buf. */
void mf_diff_group_name(const struct mf_diff *d, const struct mf_diff_group *g, char *buf, size_t n);

/*
 * What moved most, in plain words, most important first: LSPR classes that
 * moved, then the largest changes of CPI, RNI, L1MP and LPARCPU (1% or more;
 * a move from about zero, without a percent, first), a CPI move explained by
 * the instructions or the L1 misses, an RNI move by the sourcing levels that
 * moved it most (each alone in the after side's formula) and, across two
 * families, by the formula ("RNI up 0.031 (0.858 -> 0.889, +3.6%): +0.323 from
 * the RNI formula of z16 instead of z15's, -0.292 from fewer L1 misses sourced
 * from memory (MEMP 2.38% -> 1.77%), ...").  Calls fn once per finding, at
 * most max times; returns how many there were in all.
 */
size_t mf_diff_findings(const struct mf_diff *d, size_t max, void (*fn)(void *ctx, const char *text), void *ctx);

/*
 * Writers, one per format: text (a table per matched group), csv (one row per
 * group and metric), json (schema 1) and html (one self-contained page, the
 * findings first).  Each returns 0, MF_ENOMEM or MF_EIO.
 */
int mf_diff_out_text(FILE *fp, const struct mf_diff *d);
int mf_diff_out_csv(FILE *fp, const struct mf_diff *d);
int mf_diff_out_json(FILE *fp, const struct mf_diff *d);
int mf_diff_out_html(FILE *fp, const struct mf_diff *d);

/* The diff writer of format name ("text", "csv", "json", "html"), or NULL. */
int (*mf_diff_writer(const char *name))(FILE *fp, const struct mf_diff *d);

#endif
