/* SPDX-License-Identifier: MIT */
#include "mfstat/report/metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void evaluate(const struct mf_family *fam, const uint64_t *sums, const uint64_t *present, const double *vars,
		     double *value, struct mf_na *na)
{
	struct mf_eval_env env;
	size_t i;

	env.counters = sums;
	env.present = present;
	env.vars = vars;
	env.metrics = value;
	env.metric_na = na;
	for (i = 0; i < fam->nmetrics; i++)
		value[i] = NAN;
	for (i = 0; i < fam->nmetrics; i++) {
		size_t m = fam->order[i];
		value[m] = mf_expr_eval(fam->metrics[m].expr, &env, &na[m]);
		if (isinf(value[m])) {
			/* mf_expr_eval never returns an infinity (only an infinite input could); be safe. */
			value[m] = NAN;
			na[m].why = MF_NA_OVERFLOW;
		}
	}
}

void mf_metrics_compute(const struct mf_kb *kb, const struct mf_group *grp, const struct mf_metrics_opts *opts,
			struct mf_result *r)
{
	double mem_peak_gbs = opts ? opts->mem_peak_gbs : NAN;
	const struct mf_family *fam = grp->family;
	uint64_t present[MF_BITWORDS];
	double vars[MF_NVARS];
	size_t i;

	if (!r->na) {
		/* A result without reasons (mf_results_new_na): they are worked out in a scratch array. */
		struct mf_na small[128],
			*scratch = fam->nmetrics <= 128 ? small : malloc(fam->nmetrics * sizeof(*scratch));
		if (!scratch) {
			r->group = grp;
			for (i = 0; i < fam->nmetrics; i++)
				r->value[i] = NAN;
			r->lspr = MF_LSPR_NONE;
			r->lspr_why = MF_LSPR_NO_INPUT;
			return;
		}
		r->na = scratch;
		mf_metrics_compute(kb, grp, opts, r);
		r->na = NULL;
		if (scratch != small)
			free(scratch);
		return;
	}
	r->group = grp;
	r->doubts = 0;
	r->negative_metric = -1;
	r->partial_slot = -1;
	memset(present, 0, sizeof(present));
	for (i = 0; i < grp->nwords; i++) {
		uint64_t partial = grp->present_any[i] & ~grp->present_all[i];
		present[i] = grp->present_all[i] & ~grp->overflow[i];
		if (partial) {
			r->doubts |= MF_DOUBT_PARTIAL;
			if (r->partial_slot < 0)
				r->partial_slot = (int)(i * 64 + (size_t)__builtin_ctzll(partial));
		}
		if (grp->overflow[i] & grp->present_all[i])
			r->doubts |= MF_DOUBT_OVERFLOW;
	}
	if (grp->rows == 0)
		memset(present, 0, sizeof(present));
	/* CPSP of a group: the rows' common speed (rule: no averaging of ratios). */
	if (grp->ncpsp == grp->rows && grp->rows > 0 && grp->cpsp_min == grp->cpsp_max) {
		vars[MF_VAR_CPSP] = grp->cpsp_min;
	} else {
		vars[MF_VAR_CPSP] = NAN;
		if (grp->ncpsp > 0)
			r->doubts |= MF_DOUBT_MIXED_CPSP;
	}
	if (grp->nnominal)
		r->doubts |= MF_DOUBT_NOMINAL_CPSP;
	/* INTERVAL is the wall-clock length, not a sum over engines (rule 2). */
	vars[MF_VAR_INTERVAL] = mf_group_interval_seconds(grp);
	vars[MF_VAR_MEM_PEAK_GBS] = mem_peak_gbs > 0 ? mem_peak_gbs : NAN;
	/* RMF's view of the same engines: only when every row of the group has it. */
	vars[MF_VAR_RMF_BUSY] = grp->rows > 0 && grp->rmf_rows == grp->rows ? (double)grp->rmf_busy_ns / 1e9 : NAN;
	r->cpsp = vars[MF_VAR_CPSP];
	r->interval = vars[MF_VAR_INTERVAL];
	r->cpus = mf_group_cpus(grp);
	evaluate(fam, grp->sum, present, vars, r->value, r->na);
	for (i = 0; i < fam->nmetrics; i++) {
		const struct mf_metric *m = &fam->metrics[i];
		if (((m->flags & MF_METRIC_NONNEG) && r->value[i] < 0) ||
		    ((m->flags & MF_METRIC_MAX) && r->value[i] > m->max)) {
			r->doubts |= MF_DOUBT_NEGATIVE;
			if (r->negative_metric < 0)
				r->negative_metric = (int)i;
		}
	}

	/*
	 * Busy beyond its CPUs: each CPU is at most 100 % busy (cpumf-formulas.md, rule 2: LPARCPU
	 * of a group is the sum of its engines').  More means time counted twice, such as one system
	 * read from two dumps whose intervals are shifted (their union is shorter than the sum).
	 */
	if (fam->idx_lparcpu >= 0 && !grp->cpu_unknown && r->cpus > 0 &&
	    r->value[fam->idx_lparcpu] > MF_BUSY_LIMIT * (double)r->cpus)
		r->doubts |= MF_DOUBT_BUSY;

	/* LSPR from the engines the family leaves out of it (zIIP, zAAP, zCBP: deck, December 2024). */
	r->lspr = MF_LSPR_NONE;
	r->lspr_l1mp = r->lspr_rni = NAN;
	if (!fam->lspr) {
		r->lspr_why = MF_LSPR_NOT_DEFINED;
		return;
	}
	if (grp->rows_lspr == 0) {
		r->lspr_why = MF_LSPR_ONLY_EXCLUDED;
		return;
	}
	if (grp->rows_lspr == grp->rows || !grp->sum_lspr) {
		r->lspr_l1mp = r->value[fam->idx_l1mp];
		r->lspr_rni = r->value[fam->idx_rni];
	} else {
		double *v = malloc(fam->nmetrics * sizeof(*v));
		struct mf_na *na = malloc(fam->nmetrics * sizeof(*na));
		if (v && na) {
			evaluate(fam, grp->sum_lspr, present, vars, v, na);
			r->lspr_l1mp = v[fam->idx_l1mp];
			r->lspr_rni = v[fam->idx_rni];
		}
		free(v);
		free(na);
	}
	r->lspr = mf_kb_lspr_class(kb, r->lspr_l1mp, r->lspr_rni);
	r->lspr_why = r->lspr == MF_LSPR_NONE ? MF_LSPR_NO_INPUT : MF_LSPR_OK;
}

struct mf_result *mf_results_new(struct mf_group *const *groups, size_t n)
{
	return mf_results_new_na(groups, n, true);
}

struct mf_result *mf_results_new_na(struct mf_group *const *groups, size_t n, bool with_na)
{
	struct mf_result *r = calloc(n ? n : 1, sizeof(*r));
	size_t i, total = 0;
	double *values;
	struct mf_na *na;

	if (!r)
		return NULL;
	/* One block of values and one of reasons for all groups. */
	for (i = 0; i < n; i++)
		total += groups[i]->family->nmetrics;
	values = malloc((total + 1) * sizeof(*values));
	na = with_na ? calloc(total + 1, sizeof(*na)) : NULL;
	if (!values || (with_na && !na)) {
		free(values);
		free(na);
		free(r);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		r[i].group = groups[i];
		r[i].value = values;
		r[i].na = na;
		values += groups[i]->family->nmetrics;
		if (na)
			na += groups[i]->family->nmetrics;
	}
	if (n == 0) {
		r[0].value = values;
		r[0].na = na;
	}
	return r;
}

void mf_results_free(struct mf_result *r, size_t n)
{
	(void)n;
	if (!r)
		return;
	free(r[0].value);
	free(r[0].na);
	free(r);
}

void mf_na_explain(const struct mf_family *fam, const struct mf_na *na, char *buf, size_t n)
{
	switch (na->why) {
	case MF_NA_DIVZERO: snprintf(buf, n, "a divisor is zero"); break;
	case MF_NA_OVERFLOW:
		snprintf(buf, n, "overflow: a result is beyond the range of a double (about 1.8e308)");
		break;
	case MF_NA_ABSENT:
		if (na->kind == MF_REF_COUNTER && na->index >= 0 && (size_t)na->index < fam->ncounters)
			snprintf(buf, n, "counter %s (%s) not in the data", fam->counters[na->index].short_name,
				 fam->counters[na->index].linux_name);
		else if (na->kind == MF_REF_VAR)
			snprintf(buf, n, "%s not known",
				 na->index == MF_VAR_CPSP       ? "CPU speed (cpsp)"
				 : na->index == MF_VAR_INTERVAL ? "interval length (interval_seconds)"
				 : na->index == MF_VAR_RMF_BUSY
					 ? "RMF dispatch time (SMF type 70 records of every engine of the group)"
					 : "peak memory bandwidth (--mem-peak)");
		else if (na->kind == MF_REF_METRIC && na->index >= 0 && (size_t)na->index < fam->nmetrics)
			snprintf(buf, n, "%s not available", fam->metrics[na->index].name);
		else
			snprintf(buf, n, "input not available");
		break;
	default: snprintf(buf, n, "available"); break;
	}
}
