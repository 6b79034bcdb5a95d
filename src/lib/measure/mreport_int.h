/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MREPORT_INT_H
#define MFSTAT_MREPORT_INT_H

/*
 * Inside the measure reports: the context of one report (mreport.c) and
 * what the text report (mreport_text.c) and the data writers
 * (mreport_data.c, CSV and JSON) share.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"
#include "mfstat/measure/aggregate.h"
#include "mfstat/measure/report.h"
#include "mfstat/measure/run.h"
#include "mfstat/base/strbuf.h"

#include "msource.h"

/* One report in the making. */
struct mf_mrep {
	const struct mf_mrun *run;
	struct mf_mreport_opts o;
	struct mf_agg a;
	struct mf_srccache src;
	uint32_t line_size;
	bool nomem;
	bool terminal; /* the report goes to a terminal: CSV cells without control characters */
	size_t *order; /* the function rows in the order the reports list them (--children: inclusive) */
	double *cum;   /* the cumulative self % in that order */
};

/* Function row i in the reports' order (--children: inclusive), its cumulative self % into *cum. */
const struct mf_agg_row *mf_mrep_func(const struct mf_mrep *x, size_t i, double *cum);

/* Fills x from the options (NULL: the defaults) and builds the aggregate; mf_mrep_close either way. */
int mf_mrep_open(struct mf_mrep *x, const struct mf_mrun *run, const struct mf_mreport_opts *o, struct mf_error *err);
void mf_mrep_close(struct mf_mrep *x);
/* MF_ENOMEM with err when x or sb ran out of memory, else 0. */
int mf_mrep_check(const struct mf_mrep *x, const struct mf_strbuf *sb, struct mf_error *err);

/* ---- descriptions of the run, the same in every format ---------------------------------- */

/* "exit 0", "killed by signal 9 (SIGKILL)" from a wait4 status. */
void mf_mrep_exit_text(char *buf, size_t n, int st);
/* argv joined by spaces; arguments that need it in single quotes, as a shell would take them. */
void mf_mrep_command(struct mf_strbuf *sb, const struct mf_mrun *run);
/* The start time in whole seconds, ISO 8601. */
void mf_mrep_date(char *buf, size_t n, int64_t us);
/* "precise" or the fallback reason line(s). */
const char *mf_mrep_mode(const struct mf_mrun *run);
/* Where the cache-line size came from. */
const char *mf_mrep_line_size_source(const struct mf_mrep *x);
/* A function as the text shows it: module::function, or module+0xOFF without a symbol. */
void mf_mrep_func_label(struct mf_strbuf *sb, const struct mf_agg_row *f, bool with_mod);

/* A ratio derived from exact counts (§6). */
struct mf_mrep_derived {
	const char *name;  /* CSV/JSON name */
	const char *label; /* text */
	const char *unit;
	char formula[200];
	double v;
	int status;
};

#define MF_MREP_DERIVED_MAX 4

/* The ratios whose inputs were counted, into d (MF_MREP_DERIVED_MAX); returns how many. */
size_t mf_mrep_derive(const struct mf_mrep *x, struct mf_mrep_derived *d);

/* ---- the formats ------------------------------------------------------------------------------ */

/* Caliper's text layout (mreport_text.c), before escaping. */
void mf_mrep_text(struct mf_mrep *x, struct mf_strbuf *sb);
/* The function table as CSV (mreport_data.c). */
void mf_mrep_csv(const struct mf_mrep *x, struct mf_strbuf *sb);
/* Everything as one JSON document (mreport_data.c). */
void mf_mrep_json(const struct mf_mrep *x, struct mf_strbuf *sb);

/* Rows shown under a cutoff: while % >= pct and the cumulative % before the row <= cum, at least min. */
size_t mf_mrep_cut_rows(const struct mf_agg_table *t, const struct mf_cutoff *c);

#endif
