/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MFLAME_H
#define MFSTAT_MFLAME_H

/*
 * Flame graphs of mfstat measure (flame.c: the layout; mreport_html.c: the
 * HTML pages).  The layout is computed here, not in the browser: the folded
 * stacks (fold.h) become a tree of frames, the frames of one name merged
 * below each parent, children ordered by name (byte order), each frame as
 * wide as the samples through it and placed at the samples left of it.  A
 * differential layout (measure diff) takes its widths from one run and puts
 * each stack's change on the stack's leaf frame, as FlameGraph's
 * difffolded.pl and flamegraph.pl do.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mfstat/base/error.h"
#include "mfstat/measure/fold.h"
#include "mfstat/measure/report.h"
#include "mfstat/measure/run.h"

#define MF_FLAME_NONE SIZE_MAX

/* One frame of the graph. */
struct mf_flame_node {
	const char *name;    /* function (the fold's frame name); depth 1: the program's name */
	const char *modname; /* module basename, "" for the program's root frame */
	uint32_t depth;      /* 1 for the roots (the "all" frame below them is not stored) */
	size_t parent;       /* index of the parent frame, MF_FLAME_NONE at depth 1 */
	uint64_t x;          /* samples left of the frame (the view's) */
	uint64_t samples;    /* its width: the view's samples of the stacks through it */
	bool drawn;          /* at least the minimum width */
	/* differential layouts */
	uint64_t before, after; /* samples through the frame in each run (stacks without width included) */
	bool self;              /* a stack ends here */
	double delta;           /* that stack's change: points of the total (or samples with absolute) */
};

struct mf_flame {
	size_t n;
	struct mf_flame_node *nodes; /* depth first: each frame before its children, children by name */
	uint64_t total;              /* the view's samples: the "all" frame's width */
	uint32_t depth;              /* the deepest frame */
	size_t dropped;              /* frames with samples narrower than the minimum, not drawn */
	/* differential layouts */
	bool diff, absolute, negate;
	uint64_t total_before, total_after;
	double max_delta;       /* the largest |delta| */
	size_t nonly;           /* stacks with samples only in the run that does not give the widths */
	size_t *only;           /* their indexes into the side's fold (before's fold unless negate) */
	uint64_t *only_samples; /* and their samples (stacks of equal names merged) */
};

/*
 * The layout of the folded stacks f.  A frame narrower than min_frac of the
 * total is not drawn (its children neither) and counted in dropped.
 * Returns 0 or MF_ENOMEM (err filled); fl is valid for mf_flame_free
 * either way.  fl borrows f's names: free it first.
 */
int mf_flame_build(struct mf_flame *fl, const struct mf_fold *f, double min_frac, struct mf_error *err);

/*
 * The differential layout of two folds, stacks matched by their frame names:
 * widths from after (negate: from before).  Each stack's delta, after's
 * share minus before's in points of each run's total (absolute: after's
 * samples minus before's), goes on its leaf frame.  Stacks with samples only
 * on the side that gives no width are listed in only.
 */
int mf_flame_diff(struct mf_flame *fl, const struct mf_fold *before, const struct mf_fold *after, bool absolute,
		  bool negate, double min_frac, struct mf_error *err);
void mf_flame_free(struct mf_flame *fl);

/*
 * The fill of a frame, "hsl(H,S%,L%)" into buf (at least 32 bytes): a hue
 * per load module (from its name: the same in every run), the lightness from
 * the function's name; the program's root frames and [unknown] grey.
 */
void mf_flame_colour(const char *name, const char *modname, char *buf, size_t n);
/*
 * The fill of a differential frame, "rgb(R,G,B)": red where it grew (delta >
 * 0), blue where it shrank, the stronger the closer |delta| is to max; white
 * without change.
 */
void mf_flame_diff_colour(double delta, double max, char *buf, size_t n);
/*
 * The label of a frame width_px wide: name when it fits (7 px a character),
 * else as many characters as fit with ".." after them, else "" (under three
 * characters).  Cut between UTF-8 characters; into out (n bytes).
 */
void mf_flame_clip(const char *name, double width_px, char *out, size_t n);

/*
 * measure -f html: the page of run (profile or itlb): a flame graph of its
 * call chains (a bar chart of the top functions for a run without chains),
 * the load module and function summaries and the hottest source lines of the
 * top functions.  One self-contained page: inline SVG, readable without
 * script (every frame's figures in its <title>), the only script the
 * click-to-zoom, nothing loaded.  Returns 0, MF_ENOMEM or MF_EIO (err filled).
 */
int mf_mreport_html(FILE *fp, const struct mf_mrun *run, const struct mf_mreport_opts *o, struct mf_error *err);

/*
 * measure diff -f html: the differential flame graph of two runs (see
 * mf_flame_diff), red where a stack grew, blue where it shrank, and a table
 * of the stacks that have no width in the view.  Returns 0, MF_ENOMEM or
 * MF_EIO (err filled).
 */
int mf_mdiff_html(FILE *fp, const struct mf_mrun *before, const struct mf_mrun *after, bool absolute, bool negate,
		  struct mf_error *err);

#endif
