/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MREPORT_H
#define MFSTAT_MREPORT_H

/*
 * The reports of mfstat measure: text in Caliper's layout, CSV and JSON of a
 * run, built on the aggregation (maggregate.h).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mfstat/base/error.h"
#include "mfstat/measure/run.h"

enum mf_mformat {
	MF_MFMT_TEXT = 0,
	MF_MFMT_CSV,
	MF_MFMT_JSON,
	MF_MFMT_FOLDED /* fold.h: "a;b;c 123" lines */,
	MF_MFMT_HTML /* flame.h: the page with the flame graph */
};

struct mf_cutoff {
	double pct;   /* rows while their % >= pct */
	double cum;   /* and the cumulative % before them <= cum */
	unsigned min; /* but at least min rows */
};

struct mf_mreport_opts {
	int format;               /* enum mf_mformat */
	struct mf_cutoff summary; /* default 1, 100, 5 */
	struct mf_cutoff detail;  /* default 5, 90, 1 */
	uint32_t line_size;       /* 0: the run's */
	bool attribute_line;      /* --attribute line (Caliper's rule): a cache line and its samples go to
	                               the function owning its first byte; false (the default, ip): each
	                               sample goes to the function, line and module of its own address */
	bool children;            /* --children: function tables in inclusive order (perf report --children);
	                             the summary cutoff's percent then applies to the inclusive share */
	bool no_warnings;         /* text: the header leaves out its Warning: lines (the caller says them on
	                             standard error: mf_mreport_warnings) */
};

/*
 * When run has no samples: why, into buf (the program ran too briefly for the
 * sampling period, or the event never fired, from the run's exact count of
 * the event or its CPU time), with the -s rate that would sample it; true.
 * False, buf empty, when there are samples.  The text report's header, the
 * JSON and CSV warnings and measure's standard error say it.
 */
bool mf_mreport_no_samples(const struct mf_mrun *run, char *buf, size_t n);

/*
 * The warnings of the text report's header (Warning: lines), one call of fn each, whatever the
 * format: what the run lacks (an END section, hardware counters, records or samples lost,
 * throttling), counts multiplexed, the run's own warnings (run->warnings) and why it has no
 * samples.  Builds the aggregate as mf_mreport_write does; 0, or MF_ENOMEM with err.
 */
int mf_mreport_warnings(const struct mf_mrun *run, const struct mf_mreport_opts *o,
			void (*fn)(void *ctx, const char *msg), void *ctx, struct mf_error *err);
/* Text (Caliper's layout), CSV (the function table), JSON, folded stacks or the HTML page of run to fp. */
int mf_mreport_write(FILE *fp, const struct mf_mrun *run, const struct mf_mreport_opts *o, struct mf_error *err);
/* Every table as CSV in dir (created if missing): run.csv metrics.csv threads.csv modules.csv functions.csv lines.csv
 * cache_lines.csv callers.csv (caller -> callee pairs of the call chains; only the heading without chains). */
int mf_mreport_csv_dir(const char *dir, const struct mf_mrun *run, const struct mf_mreport_opts *o,
		       struct mf_error *err);
/* The names of the files mf_mreport_csv_dir writes, i from 0 (run.csv first); NULL past the last. */
const char *mf_mreport_csv_name(size_t i);

#endif
