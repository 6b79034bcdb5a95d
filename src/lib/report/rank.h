/* SPDX-License-Identifier: MIT */
/* The ranking of the report pipeline (rank.c, internal to the report layer): --sort and --top. */
#ifndef MFSTAT_REPORT_RANK_H
#define MFSTAT_REPORT_RANK_H

#include <stddef.h>

#include "mfstat/base/strtab.h"
#include "mfstat/report/metrics.h"

/*
 * --sort and --top over the ngroups results res (names in tab): *shown (malloc'ed, the caller
 * frees it, also on failure) holds copies of the results in the order shown, *n how many.  Within
 * each series (every key but the time keys) the groups by their sort metric, highest first, NaN
 * last, in report order when equal or without sort; the first top of each series (0: all).
 * 0 or MF_ENOMEM.
 */
int mf_rank_results(const struct mf_result *res, size_t ngroups, const struct mf_strtab *tab, const char *sort,
		    size_t top, struct mf_result **shown, size_t *n);

#endif
