/* SPDX-License-Identifier: MIT */
/* Test helper: CSV text -> the library pipeline -> results, as `mfstat report` does. */
#ifndef MFSTAT_TEST_PIPELINE_H
#define MFSTAT_TEST_PIPELINE_H

#include <math.h>

#include "testutil.h"

struct pipe {
	struct mf_kb *kb;
	struct mf_pipeline *pl; /* pipe_run: owns tab, the groups and res */
	struct mf_strtab *tab;
	struct mf_grouper *g; /* helpers that group by hand: owned with tab and res */
	struct mf_group *const *groups;
	struct mf_result *res;
	size_t n;
	unsigned by;
	uint64_t rows;
	struct mf_report rep; /* pipe_run: the report mfstat report would write */
};

/* The groups of a report in result order, as an array the caller frees. */
static inline struct mf_group *const *pipe_groups(const struct mf_report *rep)
{
	struct mf_group **g = calloc(rep->ngroups ? rep->ngroups : 1, sizeof(*g));
	size_t i;
	assert_non_null(g);
	for (i = 0; i < rep->ngroups; i++)
		g[i] = (struct mf_group *)rep->results[i].group;
	return (struct mf_group *const *)g;
}

static inline void pipe_fail(void *ctx, enum mf_pipeline_diag kind, const struct mf_error *e)
{
	(void)ctx;
	(void)kind;
	fail_msg("line %ld: %s", e->line, e->msg);
}

/* A library pipeline grouping by by, cut in tz and selecting sel (both may be NULL); any diagnostic fails. */
static inline void pipe_begin(struct pipe *p, struct mf_kb *kb, unsigned by, const struct mf_tz *tz,
			      const struct mf_select *sel)
{
	struct mf_pipeline_opts o = {0};

	memset(p, 0, sizeof(*p));
	p->kb = kb;
	p->by = by;
	o.kb = kb;
	o.by = by;
	o.tz = tz;
	o.select = sel;
	o.metrics.mem_peak_gbs = NAN;
	o.diag = pipe_fail;
	o.explain = true; /* the tests read why metrics are not available */
	p->pl = mf_pipeline_new(&o);
	assert_non_null(p->pl);
}

/* After the inputs: the report, its results and groups. */
static inline void pipe_end(struct pipe *p)
{
	assert_int_equal(mf_pipeline_finish(p->pl, &p->rep), 0);
	p->tab = (struct mf_strtab *)p->rep.tab;
	p->res = (struct mf_result *)p->rep.results;
	p->n = p->rep.ngroups;
	p->rows = p->rep.rows_read;
	p->groups = pipe_groups(&p->rep);
}

/* CSV text through the library pipeline, as `mfstat report` reads it; any diagnostic fails. */
static inline void pipe_run(struct pipe *p, struct mf_kb *kb, const char *csv, unsigned by)
{
	struct mf_error e;
	pipe_begin(p, kb, by, NULL, NULL);
	assert_int_equal(mf_pipeline_add_mem(p->pl, "t.csv", csv, strlen(csv), &e), 0);
	pipe_end(p);
}

static inline void pipe_free(struct pipe *p)
{
	if (p->pl) {
		free((void *)p->groups);
		mf_pipeline_free(p->pl);
		return;
	}
	mf_results_free(p->res, p->n);
	mf_grouper_free(p->g);
	mf_strtab_free(p->tab);
}

static inline double metric(const struct pipe *p, size_t g, const char *name)
{
	int idx = mf_family_metric(p->groups[g]->family, name);
	if (idx < 0)
		fail_msg("metric %s not defined", name);
	return p->res[g].value[idx];
}

/*
 * The groups of g and of whole (grouped from the same rows, say by parts and whole) are alike:
 * the same count, and in order the same key, rows, the first nsums sums, the counters present in
 * every row, CPUs and interval seconds.
 */
static inline void assert_groupers_alike(struct mf_grouper *g, struct mf_grouper *whole, struct mf_strtab *tab,
					 size_t nsums)
{
	size_t n, nw, i, k;
	struct mf_group *const *gg = mf_grouper_groups(g, tab, &n);
	struct mf_group *const *gw = mf_grouper_groups(whole, tab, &nw);
	assert_int_equal(n, nw);
	for (i = 0; i < n; i++) {
		assert_int_equal(gg[i]->system, gw[i]->system);
		assert_int_equal(gg[i]->lpar, gw[i]->lpar);
		assert_int_equal(gg[i]->cpu, gw[i]->cpu);
		assert_int_equal(gg[i]->start_us, gw[i]->start_us);
		assert_int_equal(gg[i]->rows, gw[i]->rows);
		for (k = 0; k < nsums; k++)
			assert_int_equal(gg[i]->sum[k], gw[i]->sum[k]);
		assert_int_equal(gg[i]->present_all[0], gw[i]->present_all[0]);
		assert_int_equal(mf_group_cpus(gg[i]), mf_group_cpus(gw[i]));
		assert_true(mf_group_interval_seconds(gg[i]) == mf_group_interval_seconds(gw[i]));
	}
}

#endif
