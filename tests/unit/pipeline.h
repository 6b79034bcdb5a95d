/* SPDX-License-Identifier: MIT */
/* Test helper: CSV text -> reader -> grouper -> results, as `mfstat report` does. */
#ifndef MFSTAT_TEST_PIPELINE_H
#define MFSTAT_TEST_PIPELINE_H

#include <math.h>

#include "testutil.h"

struct pipe {
	struct mf_kb *kb;
	struct mf_strtab *tab;
	struct mf_grouper *g;
	struct mf_group *const *groups;
	struct mf_result *res;
	size_t n;
	unsigned by;
	uint64_t rows;
};

static inline void pipe_run(struct pipe *p, struct mf_kb *kb, const char *csv, unsigned by)
{
	struct mf_reader_opts ro = {0};
	struct mf_reader *r = NULL;
	struct mf_sample *s = malloc(sizeof(*s));
	struct mf_error e;
	size_t i;
	int rc;

	memset(p, 0, sizeof(*p));
	p->kb = kb;
	p->by = by;
	p->tab = mf_strtab_new();
	p->g = mf_grouper_new(by);
	ro.kb = kb;
	ro.strtab = p->tab;
	mf_error_clear(&e);
	if (mf_reader_open_mem(&r, "t.csv", csv, strlen(csv), &ro, &e) != 0)
		fail_msg("open: %s", e.msg);
	while ((rc = mf_reader_next(r, s, &e)) == 1) {
		assert_int_equal(mf_grouper_add(p->g, s), 0);
		p->rows++;
	}
	if (rc != 0)
		fail_msg("line %ld: %s", e.line, e.msg);
	mf_reader_close(r);
	free(s);
	p->groups = mf_grouper_groups(p->g, p->tab, &p->n);
	p->res = mf_results_new(p->groups, p->n);
	for (i = 0; i < p->n; i++)
		mf_metrics_compute(kb, p->groups[i], &p->res[i]);
}

static inline void pipe_free(struct pipe *p)
{
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

#endif
