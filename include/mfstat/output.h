/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_OUTPUT_H
#define MFSTAT_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mfstat/group.h"
#include "mfstat/kb.h"
#include "mfstat/metrics.h"

/* Everything a report writer needs; all borrowed. */
struct mf_report {
	const struct mf_kb *kb;
	const struct mf_strtab *tab;
	unsigned by;                  /* MF_BY_* bits */
	size_t ngroups;
	const struct mf_result *results;
	uint64_t rows_read;
	uint64_t rows_skipped;
	size_t nreasons;              /* skipped rows by reason */
	const char *const *reason;
	const uint64_t *reason_count;
	size_t nwarnings;
	const char *const *warnings;
	size_t nfiles;
	const char *input_summary;    /* what the readers saw (SMF record counts), text and HTML output */
	double mem_peak_gbs;          /* --mem-peak, NaN when not given (HTML recomputes period totals) */
};

/*
 * Writers, one per format.  Each writes the whole report to fp and returns 0,
 * or MF_EIO when writing failed.  Output is deterministic: no timestamps, no
 * locale, numbers as the README documents.
 */
int mf_out_text(FILE *fp, const struct mf_report *rep);
int mf_out_csv(FILE *fp, const struct mf_report *rep);
int mf_out_json(FILE *fp, const struct mf_report *rep);
int mf_out_html(FILE *fp, const struct mf_report *rep);

/*
 * The metric names (and LSPR) reported for the families present in rep, in
 * report order; *n receives the count.  The array is the caller's (free).
 */
const char **mf_report_keys(const struct mf_report *rep, size_t *n);

/*
 * For every family of the knowledge base and every key: the result of
 * mf_report_key_index, as an array indexed [family * nkeys + key]; the
 * caller's (free).  Writers use it to avoid name lookups per group.
 */
int *mf_report_key_map(const struct mf_report *rep, const char *const *keys, size_t nkeys);

/* Index of key k in family fam: a metric index, MF_REPORT_LSPR, or -1 when undefined. */
int mf_report_key_index(const struct mf_family *fam, const char *key);

#endif
