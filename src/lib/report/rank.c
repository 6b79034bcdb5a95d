/* SPDX-License-Identifier: MIT */
/* --sort and --top: the results of a report in the order shown. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rank.h"

#include "mfstat/report/group.h"

/* The sort value of a result: its --sort metric, NaN when its family has none. */
static double sort_value(const struct mf_result *r, const char *metric)
{
	int m = mf_family_metric(r->group->family, metric);
	return m >= 0 ? r->value[m] : NAN;
}

struct ranked {
	const struct mf_result *r;
	const char *system, *lpar;
	double v;
	size_t i;
};

/* The series (every key but the time keys), then the value, highest first, NaN last, then report order. */
static int cmp_series(const struct ranked *a, const struct ranked *b)
{
	const struct mf_group *x = a->r->group, *y = b->r->group;
	int c;
	if (x->family != y->family)
		return strcmp(x->family->key, y->family->key);
	if (x->input != y->input)
		return x->input < y->input ? -1 : 1;
	if ((c = mf_strtab_cmp_names(a->system, b->system)) || (c = mf_strtab_cmp_names(a->lpar, b->lpar)))
		return c;
	if (x->pool != y->pool)
		return x->pool < y->pool ? -1 : 1;
	if ((c = mf_group_place_cmp(x, y)))
		return c;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return 0;
}

static int cmp_ranked(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	int c = cmp_series(a, b);
	if (c)
		return c;
	if (isnan(a->v) != isnan(b->v))
		return isnan(a->v) ? 1 : -1;
	if (!isnan(a->v) && a->v != b->v)
		return a->v > b->v ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

int mf_rank_results(const struct mf_result *res, size_t ngroups, const struct mf_strtab *tab, const char *sort,
		    size_t top, struct mf_result **shownp, size_t *n)
{
	struct ranked *rk = malloc((ngroups + 1) * sizeof(*rk));
	struct mf_result *shown = malloc((ngroups + 1) * sizeof(*shown));
	size_t i, out = 0, run = 0;
	*shownp = shown;
	if (!rk || !shown) {
		free(rk);
		return MF_ENOMEM;
	}
	for (i = 0; i < ngroups; i++) {
		rk[i].r = &res[i];
		rk[i].system = mf_strtab_get(tab, res[i].group->system);
		rk[i].lpar = mf_strtab_get(tab, res[i].group->lpar);
		rk[i].v = sort ? sort_value(&res[i], sort) : NAN;
		rk[i].i = i;
	}
	if (sort)
		qsort(rk, ngroups, sizeof(*rk), cmp_ranked);
	for (i = 0; i < ngroups; i++) {
		run = i && cmp_series(&rk[i - 1], &rk[i]) == 0 ? run + 1 : 0;
		if (top && run >= top)
			continue;
		shown[out++] = *rk[i].r;
	}
	free(rk);
	*n = out;
	return 0;
}
