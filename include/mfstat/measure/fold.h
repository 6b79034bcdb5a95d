/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MFOLD_H
#define MFSTAT_MFOLD_H

/*
 * Folded stacks of a run (fold.c): each sampled call chain named by function,
 * root first, the program's name as the root frame, with its samples; equal
 * name sequences merged and sorted by name, as FlameGraph's stackcollapse
 * tools write them ("prog;main;work;qsort 123").  The flame graph, the
 * folded output and measure diff read this.  A run without chains folds
 * to one frame per sample below the program's name.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mfstat/base/error.h"
#include "mfstat/measure/run.h"

/* One named frame. */
struct mf_fold_frame {
	const char *name; /* function; "[kernel.kallsyms]", "[unknown]", "[MODULE]" when unnamed; the root: the comm */
	const char *modname; /* module basename ("[kernel.kallsyms]", "[unknown]"; "" for the root frame) */
};

/* One distinct folded stack: frames[first .. first + n), root first. */
struct mf_fold_stack {
	size_t first, n;
	uint64_t samples; /* samples with this stack */
	uint64_t events;  /* their periods summed */
};

struct mf_fold {
	size_t nframes;
	struct mf_fold_frame *frames;
	size_t n;
	struct mf_fold_stack *stacks; /* sorted frame by frame by name (byte order), equal ones merged */
	uint64_t samples, events;     /* totals over the stacks */
	bool chains;                  /* some sample had a call chain */
	/* private */
	char **owned;
	size_t nowned;
};

/*
 * Folds the samples of run that its report counts (profile: CPU samples;
 * itlb: sampled misses and instruction-fetch faults).  run's symbols must be
 * sorted.  Returns 0 or MF_ENOMEM (err filled); f is valid for mf_fold_free
 * either way.
 */
int mf_fold_build(struct mf_fold *f, const struct mf_mrun *run, struct mf_error *err);
void mf_fold_free(struct mf_fold *f);

/*
 * Writes one frame name as the folded format allows: ';' becomes ':', and
 * control characters (a newline would split the line) become '?'.
 */
void mf_fold_put_name(FILE *fp, const char *name);
/* The folded lines "a;b;c 123" (samples), one per stack, in the fold's order. */
int mf_fold_write(FILE *fp, const struct mf_fold *f);

#endif
