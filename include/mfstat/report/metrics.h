/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_METRICS_H
#define MFSTAT_METRICS_H

#include <stddef.h>

#include "mfstat/kb/expr.h"
#include "mfstat/report/group.h"
#include "mfstat/kb/kb.h"

/* Why a group has no LSPR class. */
enum mf_lspr_why {
	MF_LSPR_OK = 0,
	MF_LSPR_NOT_DEFINED,   /* the family has no LSPR table */
	MF_LSPR_ONLY_EXCLUDED, /* only zIIP/zAAP engines in the group */
	MF_LSPR_NO_INPUT       /* L1MP or RNI not available */
};

/* Data doubts found while computing a group, for warnings. */
enum {
	MF_DOUBT_MIXED_CPSP = 1u << 0,   /* rows disagree on the CPU speed: CPSP not available */
	MF_DOUBT_PARTIAL = 1u << 1,      /* a counter is missing in some rows: treated as absent */
	MF_DOUBT_OVERFLOW = 1u << 2,     /* a counter sum overflowed 64 bits: treated as absent */
	MF_DOUBT_NEGATIVE = 1u << 3,     /* a metric outside its valid range (nonneg, max=N): inconsistent data */
	MF_DOUBT_NOMINAL_CPSP = 1u << 4, /* CPSP is the machine's nominal speed */
	MF_DOUBT_BUSY = 1u << 5          /* LPARCPU above MF_BUSY_LIMIT per CPU: more busy than the CPUs can be */
};

/*
 * LPARCPU per CPU beyond which a group's busy is impossible: 100 % of each of
 * its CPUs, plus one point for interval lengths and CPU speeds rounded in the
 * data.  Checked only when every row of the group carries a CPU number (rows
 * without one, such as totals over a system, cannot be counted as CPUs).
 */
#define MF_BUSY_LIMIT 101.0

struct mf_result {
	const struct mf_group *group;
	double *value;              /* per metric of the family; NaN = not available */
	struct mf_na *na;           /* why, per metric */
	int lspr;                   /* enum mf_lspr */
	int lspr_why;               /* enum mf_lspr_why */
	double lspr_l1mp, lspr_rni; /* the inputs the class was taken from */
	double cpsp, interval;
	uint64_t cpus; /* mf_group_cpus of the group */
	unsigned doubts;
	int negative_metric; /* first nonneg metric found negative, or -1 */
	int partial_slot;    /* first counter slot present in only some rows, or -1 */
};

/* What the data does not say and the user may: the inputs of mf_metrics_compute beyond the counters. */
struct mf_metrics_opts {
	double mem_peak_gbs; /* peak memory bandwidth in GB/s (--mem-peak); 0 or NaN when not known */
};

/*
 * Computes every metric of the group's family from its summed counters, then
 * the LSPR class from the engines it counts.  opts may be NULL (the
 * defaults).  r->value and r->na must hold family->nmetrics entries.  Never
 * fails.
 */
void mf_metrics_compute(const struct mf_kb *kb, const struct mf_group *grp, const struct mf_metrics_opts *opts,
			struct mf_result *r);

/*
 * The same, computing only the metrics marked in need (fam->nmetrics bytes, from
 * mf_metrics_needed; NULL: all); the others are NaN.  Everything else of r (doubts,
 * the first metric out of range, busy) is what mf_metrics_compute gives, and the
 * LSPR class too when need holds L1MP and RNI (else MF_LSPR_NONE, not computed).
 */
void mf_metrics_compute_some(const struct mf_kb *kb, const struct mf_group *grp, const struct mf_metrics_opts *opts,
			     const unsigned char *need, struct mf_result *r);

/*
 * Which metrics of fam mf_metrics_compute_some must compute for those named
 * (names as mf_family_metric takes them; unknown ones are left out) to come
 * out as mf_metrics_compute gives them, doubts and notes included: the named,
 * L1MP and RNI when LSPR is named (the class), LPARCPU (busy), LPARCPU_DIFF and RMF_LPARCPU (the note
 * comparing busy with RMF's), every metric with a max= and every nonneg one whose
 * formula subtracts or negates (the range check), and everything these refer
 * to.  A metric left out is a sum, product and quotient of counters,
 * variables and metrics of the same kind, which is never negative while the
 * variables are not (mf_metrics_compute_some computes all when one is).
 * Returns fam->nmetrics bytes, 1 for a metric to compute (the caller's:
 * free), or NULL when out of memory.
 */
unsigned char *mf_metrics_needed(const struct mf_family *fam, const char *const *names, size_t n);

/*
 * The counter sums the groups of fam need keep for mf_metrics_compute_some with need
 * (from mf_metrics_needed) to give what it gives with every sum: the counters the needed
 * metrics read, and those of every metric it range-checks that reads a variable (it
 * computes them all when a variable is negative), with what these read.  Fills out (its
 * family fam) and returns whether that is fewer than all; false for need NULL.
 */
bool mf_metrics_layout(const struct mf_family *fam, const unsigned char *need, struct mf_sum_layout *out);

/* Allocates results for n groups (values and reasons included); free with mf_results_free. */
struct mf_result *mf_results_new(struct mf_group *const *groups, size_t n);
/* The same, with na only when asked (else each result's na is NULL: mf_metrics_compute then
 * works out the reasons in a scratch array of its own and keeps the values alone). */
struct mf_result *mf_results_new_na(struct mf_group *const *groups, size_t n, bool na);
/* mf_results_new_na set up with up to jobs threads for many groups (their pages first written by them). */
struct mf_result *mf_results_new_jobs(struct mf_group *const *groups, size_t n, bool na, unsigned jobs);
void mf_results_free(struct mf_result *r, size_t n);

/* One-line explanation of why metric m of a result is not available (for -v). */
void mf_na_explain(const struct mf_family *fam, const struct mf_na *na, char *buf, size_t n);

#endif
