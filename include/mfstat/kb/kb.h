/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_KB_H
#define MFSTAT_KB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"
#include "mfstat/kb/expr.h"

/*
 * The knowledge base: machine families, their counters and metrics, machine
 * types and the LSPR decision table.  It is loaded from the text files of
 * data/ embedded in the library, each of which a directory given to
 * mf_kb_load() can replace (same relative path) or extend.
 */

#define MF_MAX_COUNTER 512    /* counter numbers are 0..511 */
#define MF_MAX_METRICS 100000 /* metrics in one family; one more is a table error at its line */

enum mf_set {
	MF_SET_BASIC,
	MF_SET_PROBLEM,
	MF_SET_CRYPTO,
	MF_SET_EXTENDED,
	MF_SET_MTDIAG,
	MF_NSETS,
	MF_SET_OTHER = MF_NSETS /* the counters of a family with named counters */
};

/* Engine pools (processor classes). */
enum mf_pool {
	MF_POOL_NONE = 0,
	MF_POOL_GCP,
	MF_POOL_ZIIP,
	MF_POOL_ZAAP,
	MF_POOL_IFL,
	MF_POOL_ICF,
	MF_POOL_ZCBP, /* z/OS Container Based Processor: SMF 113 class 2 with the zCBP flag */
	MF_NPOOLS
};

enum mf_lspr { MF_LSPR_NONE = -1, MF_LSPR_LOW = 0, MF_LSPR_AVERAGE = 1, MF_LSPR_HIGH = 2 };

#define MF_METRIC_NONNEG 0x1u /* a negative value means inconsistent data: warn */
#define MF_METRIC_AUX 0x2u    /* a helper: listed, but not reported unless asked */
#define MF_METRIC_MAX 0x4u    /* a value above max means inconsistent data: warn */
#define MF_METRIC_SPARSE 0x8u /* a column only where some group has a value (RMF data joined) */

struct mf_counter {
	unsigned number;
	const char *short_name; /* B0, P33, C64, E143, M448 */
	const char *linux_name; /* CPU_CYCLES, ... */
	int set;                /* enum mf_set */
	const char *desc;
};

struct mf_metric {
	const char *name;
	const char *unit;
	int digits; /* decimals in text output */
	unsigned flags;
	double max;           /* with MF_METRIC_MAX: the largest valid value */
	const char *revision; /* date of the revision of the source formula it follows */
	const char *formula;
	const char *desc;
	const char *file; /* where it was defined, for diagnostics */
	long line;
	struct mf_expr *expr;
};

struct mf_topology {
	const char *item;
	const char *value;
};

struct mf_family {
	const char *key;     /* lowercase file key: z16, zec12, generic */
	const char *display; /* z16, zEC12, ... */
	const char *description;
	int csvn;           /* CTRVN2 / CSVN, or 0 when not an IBM Z family */
	bool named;         /* counters are plain names (any vendor), not IBM's B0..M449 */
	unsigned cfvn_mask; /* bit n set when CFVN n is valid */
	int set_size[MF_NSETS];
	bool lspr;             /* the LSPR decision table applies */
	unsigned lspr_exclude; /* bit per enum mf_pool excluded from the LSPR class */

	size_t ncounters;
	struct mf_counter *counters;   /* ascending number; index = dense slot */
	int16_t dense[MF_MAX_COUNTER]; /* counter number -> dense slot, or -1 */

	size_t nmetrics;
	struct mf_metric *metrics;
	size_t *order;            /* evaluation order (dependencies first) */
	const void *metric_index; /* internal: metric names hashed, for mf_family_metric */
	size_t nreport;
	int *report;           /* reported metrics in order; MF_REPORT_LSPR for the class */
	int *report_at;        /* per metric: its place in report, or -1 (NULL: look in report) */
	int lspr_at;           /* the place of MF_REPORT_LSPR in report, or -1 (with report_at) */
	int idx_l1mp, idx_rni; /* metric indices used by LSPR, or -1 */
	int idx_lparcpu;       /* LPARCPU, for the bound on busy (mf_metrics_compute), or -1 */

	size_t ntopology;
	struct mf_topology *topology;
};

#define MF_REPORT_LSPR (-2)

struct mf_machine {
	unsigned type;
	const struct mf_family *family;
	const char *model;
	double nominal_mhz;
};

struct mf_lspr_rule {
	double lo[2], hi[2]; /* [0] L1MP, [1] RNI */
	bool lo_incl[2], hi_incl[2];
	int cls;
};

struct mf_kb {
	size_t nfamilies;
	struct mf_family *families;
	size_t nmachines;
	struct mf_machine *machines;
	size_t nlspr;
	struct mf_lspr_rule *lspr;
	size_t nkeys;
	const char **keys;  /* union of the reported names of all families, in report order */
	const char *source; /* "embedded" or the overlay directory */
	void *priv;
};

/*
 * Loads the knowledge base: the embedded tables, each replaced by the file of
 * the same relative path under dir when dir is not NULL and has it.  On
 * success *out is the caller's (mf_kb_free).  On failure returns MF_ETABLE,
 * MF_EIO or MF_ENOMEM with err naming file, line and column.
 */
int mf_kb_load(const char *dir, struct mf_kb **out, struct mf_error *err);
void mf_kb_free(struct mf_kb *kb);

/*
 * The IBM CPU MF formula deck the knowledge base follows: the latest revision of the metrics of
 * its LSPR families ("2024-09"), what `mfstat --version` prints; "none" without one.
 */
const char *mf_kb_revision(const struct mf_kb *kb);

/* Finds a family by key or display name, case-insensitively; NULL if none. */
const struct mf_family *mf_kb_family(const struct mf_kb *kb, const char *name);

/* Finds a machine type; NULL if unknown. */
const struct mf_machine *mf_kb_machine(const struct mf_kb *kb, unsigned type);

/*
 * Resolves what a user or a file says the machine is: a family name or a
 * machine type number.  Sets *fam (and *machine when a type was given, else
 * NULL).  Returns 0 or MF_ENOMACHINE.
 */
int mf_kb_resolve(const struct mf_kb *kb, const char *s, size_t len, const struct mf_family **fam,
		  const struct mf_machine **machine);

/* The family used when the data names no machine (basic and problem-state only). */
const struct mf_family *mf_kb_generic(const struct mf_kb *kb);

/* A counter of fam by short name (B0, e143) or Linux name, case-insensitively. */
const struct mf_counter *mf_family_counter(const struct mf_family *fam, const char *name, size_t len);

/* A counter of fam by number; NULL when the family does not define it. */
const struct mf_counter *mf_family_counter_num(const struct mf_family *fam, unsigned number);

/* Index of a metric of fam by name (case-insensitive), or -1. */
int mf_family_metric(const struct mf_family *fam, const char *name);

/* Whether fam reports the LSPR workload class (a column LSPR). */
bool mf_family_has_lspr(const struct mf_family *fam);

/*
 * The column key of fam's report: the metric named key (exactly) when fam reports it, or
 * MF_REPORT_LSPR for "LSPR" when fam reports the class (the first in report order should a
 * reported metric be named LSPR too); -1 when fam reports no such column.  A hash lookup, not
 * a search of the report: a family may report 100,000 metrics.
 */
int mf_family_report_key(const struct mf_family *fam, const char *key);

/*
 * Name lookups made so far by mf_family_metric and mf_family_report_key, and the names they
 * compared: the work of the lookups, for tests that bound it (a report over n metrics makes
 * O(n) of them, not O(n^2)).  Counted by every thread; approximate when threads look up at once.
 */
unsigned long long mf_kb_name_lookups(void);
unsigned long long mf_kb_name_compares(void);

/*
 * The knowledge base's spelling of metric name, given in any case: the name
 * as the first family defining it spells it ("cpi" gives "CPI"), "LSPR" for
 * the workload class when some family reports it, or NULL when no family
 * defines name.  The string is borrowed from kb.
 */
const char *mf_kb_metric_name(const struct mf_kb *kb, const char *name);

/*
 * The metric names nearest to name, for a message about a name that is none:
 * those the fewest edits away (ignoring case; one edit for names of up to 4
 * characters, two for longer ones), or when none is that near, those that
 * contain name (of 3 characters or more).  Among the metrics of fam, or of
 * every family when fam is NULL, and LSPR where reported when lspr is true.
 * Writes up to max distinct names (borrowed from kb) in the families' order
 * to out and returns how many; 0 when none is near.
 */
size_t mf_kb_metric_nearest(const struct mf_kb *kb, const struct mf_family *fam, const char *name, bool lspr,
			    const char **out, size_t max);

/*
 * The IBM Z families (not "generic") on which every one of the n counter names
 * (short or Linux names, case-insensitive) is defined.  Writes up to max
 * family pointers to out and returns how many families fit (which may exceed
 * max).  Readers use it to name the family from the counters alone; more than
 * one fit means the user must say --machine.
 */
size_t mf_kb_families_for(const struct mf_kb *kb, const char *const *names, size_t n, const struct mf_family **out,
			  size_t max);

/* The IBM Z family (not "generic") whose counter second version number (CSVN) is csvn; NULL if none. */
const struct mf_family *mf_kb_family_by_csvn(const struct mf_kb *kb, int csvn);

/* Whether some family defines the counter name[0..len) (short or Linux name, case-insensitive). */
bool mf_kb_counter_known(const struct mf_kb *kb, const char *name, size_t len);

#define MF_FIT_MAX 16

/* What mf_kb_infer_family found. */
struct mf_family_fit {
	size_t n;     /* families that fit: 1 names the family; 0 none (the names mix families); more: ask --machine */
	bool generic; /* every name is a basic or problem-state counter: fam[0] is the generic family */
	const struct mf_family *fam[MF_FIT_MAX]; /* the first of them */
	size_t misfit;  /* with n == 0: the first name no family has together with the names before it */
	char list[256]; /* with n > 1: their display names, "z14, z15" */
};

/*
 * The family a set of n counter names belongs to, for readers whose data does
 * not name the machine: the generic family when every name is one of its
 * counters; else the IBM Z families that define them all (mf_kb_families_for).
 * When several fit and linux is not NULL, only those on which counter
 * names[i] has the Linux name linux[i] (NULL: not known) are kept, if any are.
 */
void mf_kb_infer_family(const struct mf_kb *kb, const char *const *names, const char *const *linux, size_t n,
			struct mf_family_fit *fit);

/* Applies the LSPR decision table; MF_LSPR_NONE when either input is NaN or no rule matches. */
int mf_kb_lspr_class(const struct mf_kb *kb, double l1mp, double rni);

const char *mf_lspr_name(int cls);  /* "LOW", "AVERAGE", "HIGH" or NULL */
const char *mf_pool_name(int pool); /* "GCP", ..., or NULL for MF_POOL_NONE */
const char *mf_set_name(int set);   /* "basic", "problem", ... */

/*
 * Parses a short counter name (B0..B31, P32..P63, C64..C127, E128..E447,
 * M448..M495), case-insensitively.  Returns the number or -1.
 */
int mf_short_counter_number(const char *s, size_t len);

/* Writes the short name of counter number n (B0, P32, C64, E128, M448) to buf. */
void mf_short_counter_name(unsigned n, char *buf, size_t len);

#endif
