/* SPDX-License-Identifier: MIT */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "mfstat/report/metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "mfstat/base/shares.h"

/* The metrics of fam marked in need (NULL: all) from the sums; the others are NaN. */
static void evaluate(const struct mf_family *fam, const unsigned char *need, const uint64_t *sums,
		     const uint64_t *present, const double *vars, double *value, struct mf_na *na)
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
		if (need && !need[m]) {
			na[m].why = MF_NA_NONE;
			continue;
		}
		value[m] = mf_expr_eval(fam->metrics[m].expr, &env, &na[m]);
		if (isinf(value[m])) {
			/* mf_expr_eval never returns an infinity (only an infinite input could); be safe. */
			value[m] = NAN;
			na[m].why = MF_NA_OVERFLOW;
		}
	}
}

static void mark_needed(const struct mf_family *fam, unsigned char *need, int m)
{
	if (m >= 0 && (size_t)m < fam->nmetrics)
		need[m] = 1;
}

unsigned char *mf_metrics_needed(const struct mf_family *fam, const char *const *names, size_t n)
{
	unsigned char *need = calloc(fam->nmetrics + 1, 1), *neg = calloc(fam->nmetrics + 1, 1);
	size_t i, k;

	if (!need || !neg) {
		free(need);
		free(neg);
		return NULL;
	}
	/* Which metrics can be negative with nonnegative variables: a subtraction in them or below. */
	for (i = 0; i < fam->nmetrics; i++) {
		size_t m = fam->order[i];
		const struct mf_expr *e = fam->metrics[m].expr;
		neg[m] = mf_expr_subtracts(e);
		for (k = 0; k < mf_expr_nrefs(e) && !neg[m]; k++) {
			int kind, index;
			mf_expr_ref(e, k, &kind, &index);
			if (kind == MF_REF_METRIC && index >= 0 && (size_t)index < fam->nmetrics && neg[index])
				neg[m] = 1;
		}
	}
	for (k = 0; k < n; k++)
		mark_needed(fam, need, mf_family_metric(fam, names[k]));
	/* What mf_metrics_compute and the notes read of every group, whatever is shown. */
	for (k = 0; k < n; k++)
		if (strcasecmp(names[k], "LSPR") == 0) {
			mark_needed(fam, need, fam->idx_l1mp);
			mark_needed(fam, need, fam->idx_rni);
		}
	mark_needed(fam, need, fam->idx_lparcpu);
	mark_needed(fam, need, mf_family_metric(fam, "LPARCPU_DIFF"));
	mark_needed(fam, need, mf_family_metric(fam, "RMF_LPARCPU"));
	for (i = 0; i < fam->nmetrics; i++)
		if ((fam->metrics[i].flags & MF_METRIC_MAX) || ((fam->metrics[i].flags & MF_METRIC_NONNEG) && neg[i]))
			need[i] = 1;
	/* And what they refer to: a metric's references come before it in the order. */
	for (i = fam->nmetrics; i-- > 0;) {
		size_t m = fam->order[i];
		const struct mf_expr *e = fam->metrics[m].expr;
		if (!need[m])
			continue;
		for (k = 0; k < mf_expr_nrefs(e); k++) {
			int kind, index;
			mf_expr_ref(e, k, &kind, &index);
			if (kind == MF_REF_METRIC)
				mark_needed(fam, need, index);
		}
	}
	free(neg);
	return need;
}

/* Marks in refs (a metric) the metrics and counters e reads, and what those metrics read. */
static void mark_reads(const struct mf_family *fam, size_t m, unsigned char *done, unsigned char *counter)
{
	const struct mf_expr *e = fam->metrics[m].expr;
	size_t k;
	if (done[m])
		return;
	done[m] = 1;
	for (k = 0; k < mf_expr_nrefs(e); k++) {
		int kind, index;
		mf_expr_ref(e, k, &kind, &index);
		if (kind == MF_REF_METRIC && index >= 0 && (size_t)index < fam->nmetrics)
			mark_reads(fam, (size_t)index, done, counter);
		else if (kind == MF_REF_COUNTER && index >= 0 && (size_t)index < fam->ncounters)
			counter[index] = 1;
	}
}

/* Whether metric m reads a variable, itself or through the metrics it reads. */
static bool reads_var(const struct mf_family *fam, size_t m, unsigned depth)
{
	const struct mf_expr *e = fam->metrics[m].expr;
	size_t k;
	if (depth > fam->nmetrics)
		return false;
	for (k = 0; k < mf_expr_nrefs(e); k++) {
		int kind, index;
		mf_expr_ref(e, k, &kind, &index);
		if (kind == MF_REF_VAR)
			return true;
		if (kind == MF_REF_METRIC && index >= 0 && (size_t)index < fam->nmetrics &&
		    reads_var(fam, (size_t)index, depth + 1))
			return true;
	}
	return false;
}

bool mf_metrics_layout(const struct mf_family *fam, const unsigned char *need, struct mf_sum_layout *out)
{
	unsigned char done[1024], counter[MF_MAX_COUNTER];
	size_t i;

	memset(out, 0, sizeof(*out));
	out->family = fam;
	if (!need || fam->nmetrics > sizeof(done) || fam->ncounters > MF_MAX_COUNTER)
		return false;
	memset(done, 0, sizeof(done));
	memset(counter, 0, sizeof(counter));
	for (i = 0; i < fam->nmetrics; i++) {
		const struct mf_metric *m = &fam->metrics[i];
		/*
		 * The needed, and those mf_metrics_compute_some computes all of when a variable is
		 * negative whose range it checks: a metric left out that reads no variable is never
		 * out of its range with counters of zero or more, whatever their values.
		 */
		if (need[i] || ((m->flags & (MF_METRIC_NONNEG | MF_METRIC_MAX)) && reads_var(fam, i, 0)))
			mark_reads(fam, i, done, counter);
	}
	for (i = 0; i < fam->ncounters; i++)
		out->index[i] = counter[i] ? (uint16_t)out->nsums++ : (uint16_t)MF_SUM_NONE;
	return out->nsums < fam->ncounters;
}

void mf_metrics_compute(const struct mf_kb *kb, const struct mf_group *grp, const struct mf_metrics_opts *opts,
			struct mf_result *r)
{
	mf_metrics_compute_some(kb, grp, opts, NULL, r);
}

void mf_metrics_compute_some(const struct mf_kb *kb, const struct mf_group *grp, const struct mf_metrics_opts *opts,
			     const unsigned char *need, struct mf_result *r)
{
	double mem_peak_gbs = opts ? opts->mem_peak_gbs : NAN;
	const struct mf_family *fam = grp->family;
	uint64_t present[MF_BITWORDS];
	uint64_t slots[MF_MAX_COUNTER]; /* the sums by slot, for a group that keeps some (its layout) */
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
		mf_metrics_compute_some(kb, grp, opts, need, r);
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
	/* The metrics left out by need cannot leave their range with variables of zero or more. */
	for (i = 0; i < MF_NVARS; i++)
		if (vars[i] < 0)
			need = NULL;
	evaluate(fam, need, mf_group_sums_by_slot(grp, grp->sum, slots), present, vars, r->value, r->na);
	for (i = 0; i < fam->nmetrics; i++) {
		const struct mf_metric *m = &fam->metrics[i];
		if (need && !need[i])
			continue; /* not computed: NaN, and could not leave its range (mf_metrics_needed) */
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
	if (need && !(fam->idx_l1mp >= 0 && need[fam->idx_l1mp] && fam->idx_rni >= 0 && need[fam->idx_rni])) {
		/* Not asked for (mf_metrics_needed): the class is not computed. */
		r->lspr_why = MF_LSPR_NO_INPUT;
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
			evaluate(fam, need, mf_group_sums_by_slot(grp, grp->sum_lspr, slots), present, vars, v, na);
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

/*
 * A block of len bytes that will be written whole at once (the results and their values, 88
 * and 8 a metric per group: 300 MB at a million groups): mapped in huge pages, and in one call
 * rather than a fault every 4 KiB page.  Its part in whole 2 MiB pages only; hints, whatever
 * malloc gave.
 */
static void *written_whole(void *p, size_t len)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t from = ((uintptr_t)p + huge - 1) & ~(huge - 1), to = ((uintptr_t)p + len) & ~(huge - 1);
	if (p && len >= 2 * huge && to > from) {
		(void)madvise((void *)from, to - from, MADV_HUGEPAGE);
#if defined(MADV_POPULATE_WRITE)
		(void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
#endif
	}
#else
	(void)len;
#endif
	return p;
}

/* mf_results_new_jobs's work: share i of ns counts, then sets up, groups [n * i / ns, n * (i + 1) / ns). */
struct results_work {
	struct mf_group *const *groups;
	struct mf_result *r;
	size_t n, ns;
	size_t *at; /* by share: its first value (counting), the metrics of its groups (after) */
	double *values;
	struct mf_na *na;
	bool count;
};

static void results_share(void *ctx, size_t s)
{
	struct results_work *w = ctx;
	size_t i, from = w->n * s / w->ns, to = w->n * (s + 1) / w->ns, at = 0;
	if (w->count) {
		for (i = from; i < to; i++) {
			if (i + 8 < to) /* the groups lie far apart in memory: ask for the family's pointer ahead */
				__builtin_prefetch(w->groups[i + 8]);
			at += w->groups[i]->family->nmetrics;
		}
		w->at[s] = at;
		return;
	}
	/* r set up by the share's thread (its pages mapped already where written_whole could). */
	for (i = from, at = w->at[s]; i < to; i++) {
		w->r[i].group = w->groups[i];
		w->r[i].value = w->values + at;
		w->r[i].na = w->na ? w->na + at : NULL;
		at += w->groups[i]->family->nmetrics;
	}
}

struct mf_result *mf_results_new_jobs(struct mf_group *const *groups, size_t n, bool with_na, unsigned jobs)
{
	struct mf_result *r = calloc(n ? n : 1, sizeof(*r));
	size_t at[64], i, total = 0;
	struct results_work w = {groups, r, n, jobs < 64 ? jobs : 64, at, NULL, NULL, true};

	if (!r)
		return NULL;
	written_whole(r, (n ? n : 1) * sizeof(*r));
	if (w.ns < 2 || n < 65536)
		w.ns = 1;
	/* One block of values and one of reasons for all groups. */
	mf_run_shares(w.ns, results_share, &w);
	for (i = 0; i < w.ns; i++) {
		size_t k = at[i];
		at[i] = total;
		total += k;
	}
	w.values = written_whole(malloc((total + 1) * sizeof(*w.values)), (total + 1) * sizeof(*w.values));
	w.na = with_na ? written_whole(calloc(total + 1, sizeof(*w.na)), (total + 1) * sizeof(*w.na)) : NULL;
	if (!w.values || (with_na && !w.na)) {
		free(w.values);
		free(w.na);
		free(r);
		return NULL;
	}
	w.count = false;
	mf_run_shares(w.ns, results_share, &w);
	if (n == 0) {
		r[0].value = w.values;
		r[0].na = w.na;
	}
	return r;
}

struct mf_result *mf_results_new_na(struct mf_group *const *groups, size_t n, bool with_na)
{
	return mf_results_new_jobs(groups, n, with_na, 1);
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
