/* SPDX-License-Identifier: MIT */
/*
 * Inline SVG charts for the HTML report: line charts and stacked bar charts
 * with nice ticks, background bands and a legend.  The output is
 * deterministic (no locale, no time, no randomness), holds no scripts and no
 * references to anything outside the element, and needs no ids, so any
 * number of charts can share one HTML document.
 */
#ifndef MFSTAT_SVG_H
#define MFSTAT_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "mfstat/base/tz.h"

#include "mfstat/base/strbuf.h"

/* One data series of a chart: y values for the chart's x values; NaN = no value (a gap). */
struct mf_svg_series {
	const char *name;  /* legend text (escaped by mf_escape_xml) */
	const char *color; /* CSS color, e.g. "#1f77b4" (trusted, from our code) */
	const double *y;   /* n values */
};

struct mf_svg_chart {
	double width, height; /* pixels of the whole SVG, e.g. 760 x 260 */
	const char *title;    /* drawn above the plot, escaped; may be NULL */
	const char *y_label;  /* unit text at the y axis, escaped; may be NULL */
	size_t n;             /* number of points */
	const double *x;      /* n x values, ascending (Unix seconds when x_is_time) */
	bool x_is_time;       /* ticks as UTC times/dates ("03-04 12:00" style) instead of numbers */
	size_t nseries;
	const struct mf_svg_series *series;
	bool stacked;        /* stacked bars (values summed per x) instead of lines */
	double y_min, y_max; /* NaN = automatic (0 .. a nice maximum for bars; nice range for lines) */
	/* Optional background bands: band[i] is a class index (0..nbands-1) or -1 for point i;
	 * consecutive points of one class are drawn as one translucent rectangle behind the plot. */
	const int *band; /* NULL = no bands */
	size_t nbands;
	const char *const *band_names;  /* legend names for the classes, escaped */
	const char *const *band_colors; /* CSS colors */
	size_t max_points;              /* downsample above this many points (0 = 600): buckets of
	                               consecutive points, averaged (NaN ignored); bands take the
	                               class of the bucket's majority */
	/* Time axes in a zone: x_offset seconds are added to x for the ticks and their labels (ticks
	 * fall on round local times); with x_zone set, day labels always carry the year and a caption
	 * under the ticks gives the year(s) and the zone, "2025, times in UTC" (escaped). */
	double x_offset;
	const char *x_zone;
	/* With a zone whose offset changes (summer time), the offset at each tick's instant: ticks
	 * stay on round local times on both sides of a change.  NULL: x_offset throughout. */
	const struct mf_tz *x_tz;
	/* Or, with offsets that come with the data (--tz smf), the offset at an instant (Unix
	 * microseconds) from x_offset_at(x_offset_ctx, ...).  NULL: none. */
	int32_t (*x_offset_at)(const void *ctx, int64_t utc_us);
	const void *x_offset_ctx;
	/* A dashed line across the plot at ref_y with ref_label at its right end (escaped), e.g. the
	 * engine count; the automatic y range includes it.  NULL: none. */
	const char *ref_label;
	double ref_y;
};

/*
 * Appends one complete <svg> element (with width/height/viewBox, role="img" and an aria-label
 * from the title) drawing the chart: axes, 4-8 "nice" ticks on each axis with grid lines and
 * labels, the series (polyline per series split at NaN gaps, or stacked <rect> bars), the bands,
 * and a legend (series, then bands). Returns 0, or -1 when c is unusable (n == 0 or NULL arrays);
 * then it appends a small SVG with the text "no data".
 *
 * Details:
 * - Unusable also means: c NULL, nseries == 0, a NULL y array, a NULL x, width or height not
 *   finite and positive, or a first or last x that is not finite.  Bands are ignored when
 *   band_names or band_colors is NULL or nbands is 0; a band class outside 0..nbands-1 counts
 *   as -1.
 * - Infinite y values count as NaN; a point (or bucket) whose x is not finite is not drawn.  When no y value is left, the axes are drawn around an
 *   empty plot with "no data" in it, and 0 is returned.
 * - Stacked bars: NaN counts as 0; negative values stack downwards from 0.
 * - A given y_min / y_max is kept exactly (the ticks are the nice values inside it) and the
 *   plot is clipped to it; y_min >= y_max given together are ignored.
 * - Text that does not fit (title, legend names) is shortened with an ellipsis.
 * - When a memory allocation fails, sb->failed is set and -1 is returned.
 */
int mf_svg_chart(struct mf_strbuf *sb, const struct mf_svg_chart *c);

/*
 * Nice tick values covering [lo, hi] (1, 2, 2.5, 5 x 10^k steps), at most max of them into
 * ticks[]; returns the count. lo == hi gives a sensible range around it.
 *
 * The step is the smallest nice one that needs at most max ticks; the first tick is <= lo and
 * the last >= hi (within 1e-9 of a step).  Each tick is the correctly rounded value of its
 * decimal (so 0.1 * 3 is 0.3), and 0 is never -0.  lo == hi == 0 gives 0 .. 1, other lo == hi
 * give 0 .. 2 * lo (or 2 * lo .. 0 below zero); so do ranges too narrow for doubles.  lo > hi
 * are swapped.  Returns 0 when lo or hi is not finite or max is 0; max == 1 gives lo alone;
 * max == 2 gives the ends of the 3 ticks a range around 0 needs.
 */
size_t mf_svg_ticks(double lo, double hi, size_t max, double *ticks);

#endif
