/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MDIFF_H
#define MFSTAT_MDIFF_H

/*
 * The difference of two runs of one measurement (mdiff.c, `mfstat measure
 * diff BEFORE AFTER`): per load module, function and folded stack the
 * samples and shares before and after and the change, sorted by the largest
 * change.  Modules are matched by basename, functions by (module basename,
 * name), stacks by their folded strings (fold.h): never by address or path,
 * so two runs of one program under ASLR, or of two builds, line up.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mfstat/base/error.h"
#include "mfstat/measure/report.h"
#include "mfstat/measure/run.h"

enum { MF_MDIFF_BOTH = 0, MF_MDIFF_BEFORE_ONLY = 1, MF_MDIFF_AFTER_ONLY = 2 };

/* One matched row. */
struct mf_mdiff_row {
	const char *module; /* basename ("" for stacks) */
	const char *name;   /* function as the reports name it (unnamed: module+0xOFF), folded stack, or the module */
	uint64_t before, after;         /* samples of the report's sort metric */
	double before_pct, after_pct;   /* % of each run's total (NAN when it is 0) */
	double change;                  /* after_pct - before_pct, in points */
	int64_t change_samples;         /* after - before */
	int side;                       /* MF_MDIFF_* */
	double incl_before, incl_after; /* functions, when both runs have chains: inclusive %, else NAN */
	double incl_change;             /* in points, NAN without */
};

struct mf_mdiff_table {
	size_t n;
	struct mf_mdiff_row *rows; /* by |change| (points; --absolute: samples) descending, ties by name, module */
};

struct mf_mdiff {
	char measurement[16];
	uint64_t before_total, after_total; /* samples of the sort metric */
	bool before_chains, after_chains;
	bool absolute; /* sorted by the change in samples */
	struct mf_mdiff_table mods, funcs, stacks;
	/* private */
	char **owned;
	size_t nowned;
};

/*
 * Compares before and after (symbols sorted, as loaded).  absolute: sort by
 * the change in samples rather than in shares.  Runs of different
 * measurements give MF_EINVAL; MF_ENOMEM.  d is valid for mf_mdiff_free
 * either way.
 */
int mf_mdiff_build(struct mf_mdiff *d, const struct mf_mrun *before, const struct mf_mrun *after, bool absolute,
		   struct mf_error *err);
void mf_mdiff_free(struct mf_mdiff *d);

struct mf_mdiff_opts {
	int format;               /* MF_MFMT_TEXT, CSV, JSON or FOLDED */
	bool absolute;            /* --absolute */
	struct mf_cutoff summary; /* text: rows while |change| >= pct (points; --absolute: samples), at least min */
	const char *before_name, *after_name; /* the run files, for the text's and JSON's header */
};

/*
 * Writes the difference in a format: text (modules, functions, stacks),
 * CSV (one table, a kind column), JSON, or folded pairs as difffolded.pl
 * writes them ("stack before after", every stack of either run, sorted, 0
 * where absent; unless absolute, the before counts scaled to after's total
 * as difffolded.pl -n does).  Returns 0, MF_EINVAL, MF_ENOMEM or MF_EIO.
 */
int mf_mdiff_write(FILE *fp, const struct mf_mrun *before, const struct mf_mrun *after, const struct mf_mdiff_opts *o,
		   struct mf_error *err);

#endif
