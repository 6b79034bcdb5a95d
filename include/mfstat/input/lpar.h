/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_LPAR_H
#define MFSTAT_LPAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/strtab.h"
#include "mfstat/input/sample.h"
#include "mfstat/input/smf.h"

/*
 * The LPAR view: what SMF type 70 subtype 1 (RMF CPU activity) and type 99
 * subtype 14 (HiperDispatch topology) records say about the systems whose
 * type 113 samples are read.  A type 113 sample belongs to the RMF interval of
 * the same system that overlaps it most; its CPU id is the logical processor
 * address.  The join gives the sample its LPAR name, its logical processor's
 * polarity and the LPAR's weight for its pool, the RMF dispatch time of that
 * processor over the sample's interval (apportioned by overlap when the RMF
 * and HIS intervals differ), and from type 99 subtype 14 its drawer and chip.
 *
 * Memory grows with the RMF intervals (a few dozen bytes per logical CPU) and
 * the LPARs of the machines, not with the samples.
 */

struct mf_lparmap;

struct mf_lparmap *mf_lparmap_new(void);
void mf_lparmap_free(struct mf_lparmap *m);

/*
 * Adds a decoded type 70 subtype 1 record (names interned in tab).  The same
 * system and interval start read again (a dump given twice) is kept once.
 * Broken records (one interval split over several) are counted, not joined.
 * Returns 0 or MF_ENOMEM.
 */
int mf_lparmap_add_rmf(struct mf_lparmap *m, struct mf_strtab *tab, const struct mf_smf70 *r);

/* Adds a decoded type 99 subtype 14 record.  Returns 0 or MF_ENOMEM. */
int mf_lparmap_add_topo(struct mf_lparmap *m, struct mf_strtab *tab, const struct mf_smf99t *t);

/* Says that an input is read without a first pass (standard input), for the warnings. */
void mf_lparmap_set_streamed(struct mf_lparmap *m);

/* RMF intervals and topology records held. */
size_t mf_lparmap_nintervals(const struct mf_lparmap *m);
size_t mf_lparmap_ntopos(const struct mf_lparmap *m);

/*
 * Fills what the map knows of sample s (its system, interval start and
 * length, CPU): lpar (when s has none), polarity, lpar_weight, rmf_busy_s,
 * drawer and chip.  Returns 1 when an RMF interval was found, else 0.  Counts
 * what could not be joined, for mf_lparmap_warnings.
 */
int mf_lparmap_join(struct mf_lparmap *m, struct mf_sample *s);

/*
 * The warnings of what was read and joined: a system whose LPAR changes
 * (naming the interval), HIS and RMF intervals that do not line up (naming
 * both lengths), samples of systems with RMF data outside every RMF interval,
 * systems without RMF data beside others with it, broken records.  fn gets
 * each one (borrowed for the call).
 */
void mf_lparmap_warnings(struct mf_lparmap *m, const struct mf_strtab *tab, void (*fn)(void *ctx, const char *msg),
			 void *ctx);

/* One LPAR of a machine over all RMF intervals read (the PR/SM view, the same from every system of the machine). */
struct mf_lpar_row {
	char serial[17];           /* the machine's serial (SMF70CSC) */
	unsigned machine_type;     /* SMF70MOD */
	char name[9];              /* LPAR name */
	unsigned number;           /* LPAR number (the latest seen) */
	uint32_t system;           /* strtab id of the system that wrote records from it, 0 if none did */
	int32_t weight[MF_NPOOLS]; /* the latest weight per pool, -1 none; 0 dedicated */
	bool dedicated[MF_NPOOLS];
	unsigned lcpus[MF_NPOOLS][MF_POL_COUNT]; /* logical processors per pool and polarity, latest interval */
	double dispatch_s[MF_NPOOLS];            /* dispatch time per pool, summed over the intervals */
	double seconds;                          /* the length of the intervals summed (wall clock, per machine) */
	int64_t first_us, last_us;               /* first interval start, last interval end */
};

/*
 * The LPARs of every machine seen, sorted by serial and LPAR name; *rows is
 * the caller's (free).  Returns 0 or MF_ENOMEM.
 */
int mf_lparmap_table(const struct mf_lparmap *m, const struct mf_strtab *tab, struct mf_lpar_row **rows, size_t *n);

#endif
