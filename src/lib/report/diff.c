/* SPDX-License-Identifier: MIT */
/* Two reports compared: groups matched on their non-time keys, metrics before and after, findings. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mfstat/base/strbuf.h"
#include "mfstat/kb/expr.h"
#include "mfstat/report/diff.h"
#include "mfstat/report/select.h"

/* A group's key, its names looked up in its own report's string table. */
struct keyed {
	const struct mf_result *r;
	const char *system, *lpar;
	int pool;
	int64_t cpu;
	size_t i; /* report order, the last tie-break */
};

/* The non-time keys only: system, LPAR, pool, CPU. */
static int cmp_key(const struct keyed *a, const struct keyed *b)
{
	int c;
	if ((c = mf_strtab_cmp_names(a->system, b->system)) || (c = mf_strtab_cmp_names(a->lpar, b->lpar)))
		return c;
	if (a->pool != b->pool)
		return a->pool < b->pool ? -1 : 1;
	if ((c = mf_group_place_cmp(a->r->group, b->r->group)))
		return c;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return 0;
}

static int cmp_keyed(const void *pa, const void *pb)
{
	const struct keyed *a = pa, *b = pb;
	int c = cmp_key(a, b);
	if (c)
		return c;
	if (a->r->group->family != b->r->group->family)
		return strcmp(a->r->group->family->key, b->r->group->family->key);
	return (a->i > b->i) - (a->i < b->i);
}

/* The results of rep with their keys, sorted by key then family. */
static struct keyed *keyed_results(const struct mf_report *rep)
{
	struct keyed *k = malloc((rep->ngroups + 1) * sizeof(*k));
	size_t i;
	if (!k)
		return NULL;
	for (i = 0; i < rep->ngroups; i++) {
		const struct mf_group *g = rep->results[i].group;
		k[i].r = &rep->results[i];
		k[i].system = mf_strtab_get(rep->tab, g->system);
		k[i].lpar = mf_strtab_get(rep->tab, g->lpar);
		k[i].pool = g->pool;
		k[i].cpu = g->cpu;
		k[i].i = i;
	}
	qsort(k, rep->ngroups, sizeof(*k), cmp_keyed);
	return k;
}

static bool family_present(const struct mf_report *rep, const struct mf_family *fam)
{
	size_t i;
	for (i = 0; i < rep->ngroups; i++)
		if (rep->results[i].group->family == fam)
			return true;
	return false;
}

/* Every metric (not LSPR) that a family present on either side reports, in the knowledge base's order. */
static int default_metrics(struct mf_diff *d)
{
	const struct mf_kb *kb = d->before->kb;
	size_t k, f;
	d->metrics = malloc((kb->nkeys + 1) * sizeof(*d->metrics));
	if (!d->metrics)
		return MF_ENOMEM;
	for (k = 0; k < kb->nkeys; k++) {
		if (strcmp(kb->keys[k], "LSPR") == 0)
			continue;
		for (f = 0; f < kb->nfamilies; f++) {
			const struct mf_family *fam = &kb->families[f];
			if (mf_report_key_index(fam, kb->keys[k]) >= 0 &&
			    (family_present(d->before, fam) || family_present(d->after, fam))) {
				if (mf_report_key_sparse_empty(d->before, kb->keys[k]) &&
				    mf_report_key_sparse_empty(d->after, kb->keys[k]))
					break;
				d->metrics[d->nmetrics++] = kb->keys[k];
				break;
			}
		}
	}
	return 0;
}

/* The metrics named in list (comma-separated), by their knowledge-base spelling; LSPR is skipped. */
static int listed_metrics(struct mf_diff *d, const char *list, struct mf_error *err)
{
	const struct mf_kb *kb = d->before->kb;
	const char *p = list;
	d->metrics = malloc((strlen(list) / 2 + 2) * sizeof(*d->metrics));
	if (!d->metrics)
		return MF_ENOMEM;
	for (;;) {
		size_t len = strcspn(p, ","), f;
		char name[128];
		const char *found = NULL;
		if (len == 0 || len >= sizeof(name)) {
			err->code = MF_EUSAGE;
			snprintf(err->msg, sizeof(err->msg), "--metrics: '%s' has an empty or overlong name", list);
			return MF_EUSAGE;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		for (f = 0; f < kb->nfamilies && !found; f++) {
			int m = mf_family_metric(&kb->families[f], name);
			if (m >= 0)
				found = kb->families[f].metrics[m].name;
		}
		if (!found && strcasecmp(name, "LSPR") != 0) {
			err->code = MF_EUSAGE;
			snprintf(err->msg, sizeof(err->msg), "--metrics: '%s' is not a metric of any family", name);
			return MF_EUSAGE;
		}
		if (found)
			d->metrics[d->nmetrics++] = found;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static double metric_value(const struct mf_result *r, const char *name, bool *defined)
{
	int m = r ? mf_family_metric(r->group->family, name) : -1;
	*defined = m >= 0;
	return m >= 0 ? r->value[m] : NAN;
}

/* The decimals a metric is shown with: its family's on the before side, else the after side's (3). */
static int shown_digits(const struct mf_diff_group *g, const char *name)
{
	const struct mf_result *side[2] = {g->before, g->after};
	size_t k;
	for (k = 0; k < 2; k++) {
		int m = side[k] ? mf_family_metric(side[k]->group->family, name) : -1;
		if (m >= 0)
			return side[k]->group->family->metrics[m].digits;
	}
	return 3;
}

/* v as the writers write it: 15 significant digits (%.15g). */
static double as_written(double v)
{
	char b[40];
	if (isnan(v) || isinf(v))
		return v;
	b[mf_fmt_g15(v, b)] = '\0';
	return strtod(b, NULL);
}

/*
 * The change and the percent change of one metric (diff.h): after - before of the values as
 * written, to the 15th significant digit of the larger (what the two carry, so that two values
 * written alike differ by 0, not by 2.36e-09 of rounding); no percent when before is within
 * rounding of zero at the metric's decimals (0.001 shown as 0.00 is no base for +49900%).
 */
static void change_of(struct mf_diff_value *v, int digits)
{
	double b = as_written(v->before), a = as_written(v->after), big = fmax(fabs(a), fabs(b));
	v->delta = a - b;
	if (!isnan(v->delta) && v->delta != 0 && big > 0) {
		/* Steps of 10^e; a negative e divides by 10^-e, exact up to 10^22, so 0.496 stays 0.496. */
		int e = (int)floor(log10(big)) - 14;
		if (e < 0 && e >= -22)
			v->delta = round(v->delta * pow(10, -e)) / pow(10, -e);
		else
			v->delta = round(v->delta / pow(10, e)) * pow(10, e);
	}
	if (v->delta == 0)
		v->delta = 0; /* never -0 */
	v->percent = isnan(v->delta) || mf_shown(b, digits) == 0 ? NAN : v->delta / fabs(b) * 100;
}

/* Fills a group's values and LSPR; a one-sided group gets no values. */
static int fill_group(const struct mf_diff *d, struct mf_diff_group *g)
{
	size_t k;
	g->lspr_before = g->before ? g->before->lspr : MF_LSPR_NONE;
	g->lspr_after = g->after ? g->after->lspr : MF_LSPR_NONE;
	g->lspr_moved =
		g->lspr_before != MF_LSPR_NONE && g->lspr_after != MF_LSPR_NONE && g->lspr_before != g->lspr_after;
	if (!g->before || !g->after)
		return 0;
	g->values = calloc(d->nmetrics + 1, sizeof(*g->values));
	if (!g->values)
		return MF_ENOMEM;
	for (k = 0; k < d->nmetrics; k++) {
		struct mf_diff_value *v = &g->values[k];
		v->before = metric_value(g->before, d->metrics[k], &v->in_before);
		v->after = metric_value(g->after, d->metrics[k], &v->in_after);
		change_of(v, shown_digits(g, d->metrics[k]));
	}
	return 0;
}

/* Pairs one run of equal keys: the same family first, then the rest in order; the others one-sided. */
static void pair_run(struct mf_diff *d, const struct keyed *b, size_t nb, const struct keyed *a, size_t na)
{
	bool used_b[8] = {false}, used_a[8] = {false};
	size_t i, j, pass;
	if (nb > 8 || na > 8) { /* more families than any machine has: pair in order */
		for (i = 0; i < nb || i < na; i++) {
			if (i < nb && i < na)
				d->groups[d->ngroups++] = (struct mf_diff_group){.before = b[i].r, .after = a[i].r};
			else if (i < nb)
				d->only_before[d->nonly_before++] = (struct mf_diff_group){.before = b[i].r};
			else
				d->only_after[d->nonly_after++] = (struct mf_diff_group){.after = a[i].r};
		}
		return;
	}
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < nb; i++)
			for (j = 0; j < na && !used_b[i]; j++) {
				if (used_a[j] || (pass == 0 && b[i].r->group->family != a[j].r->group->family))
					continue;
				used_b[i] = used_a[j] = true;
				d->groups[d->ngroups++] = (struct mf_diff_group){.before = b[i].r, .after = a[j].r};
			}
	for (i = 0; i < nb; i++)
		if (!used_b[i])
			d->only_before[d->nonly_before++] = (struct mf_diff_group){.before = b[i].r};
	for (j = 0; j < na; j++)
		if (!used_a[j])
			d->only_after[d->nonly_after++] = (struct mf_diff_group){.after = a[j].r};
}

/* Walks both sorted sides at once, run of equal keys by run. */
static void match(struct mf_diff *d, const struct keyed *b, size_t nb, const struct keyed *a, size_t na)
{
	size_t i = 0, j = 0;
	while (i < nb || j < na) {
		size_t ei = i, ej = j;
		int c = i == nb ? 1 : j == na ? -1 : cmp_key(&b[i], &a[j]);
		if (c <= 0)
			while (ei < nb && cmp_key(&b[ei], &b[i]) == 0)
				ei++;
		if (c >= 0)
			while (ej < na && cmp_key(&a[ej], &a[j]) == 0)
				ej++;
		pair_run(d, b + i, ei - i, a + j, ej - j);
		i = ei;
		j = ej;
	}
}

int mf_diff_new(const struct mf_report *before, const struct mf_report *after, const char *metrics,
		struct mf_diff **out, struct mf_error *err)
{
	struct mf_diff *d = calloc(1, sizeof(*d));
	struct keyed *kb = keyed_results(before), *ka = keyed_results(after);
	size_t n = before->ngroups + after->ngroups + 1, i;
	int rc = MF_ENOMEM;

	mf_error_clear(err);
	*out = NULL;
	if (!d || !kb || !ka)
		goto fail;
	d->before = before;
	d->after = after;
	d->by = before->by & ~(unsigned)MF_BY_TIME;
	rc = metrics ? listed_metrics(d, metrics, err) : default_metrics(d);
	if (rc)
		goto fail;
	rc = MF_ENOMEM;
	d->groups = calloc(n, sizeof(*d->groups));
	d->only_before = calloc(n, sizeof(*d->only_before));
	d->only_after = calloc(n, sizeof(*d->only_after));
	if (!d->groups || !d->only_before || !d->only_after)
		goto fail;
	match(d, kb, before->ngroups, ka, after->ngroups);
	for (i = 0; i < d->ngroups; i++)
		if (fill_group(d, &d->groups[i]))
			goto fail;
	for (i = 0; i < d->nonly_before; i++)
		fill_group(d, &d->only_before[i]);
	for (i = 0; i < d->nonly_after; i++)
		fill_group(d, &d->only_after[i]);
	free(kb);
	free(ka);
	*out = d;
	return 0;
fail:
	if (rc == MF_ENOMEM)
		mf_error_nomem(err, NULL, 0, "matching %zu groups before with %zu after", before->ngroups,
			       after->ngroups);
	free(kb);
	free(ka);
	mf_diff_free(d);
	return rc;
}

void mf_diff_free(struct mf_diff *d)
{
	size_t i;
	if (!d)
		return;
	for (i = 0; d->groups && i < d->ngroups; i++)
		free(d->groups[i].values);
	free(d->groups);
	free(d->only_before);
	free(d->only_after);
	free(d->metrics);
	free(d);
}

int mf_diff_parse_range(const char *s, const struct mf_tz *tz, int64_t *from_us, int64_t *to_us)
{
	const char *slash = strchr(s, '/');
	char from[64];
	if (!slash || slash == s || (size_t)(slash - s) >= sizeof(from) || strchr(slash + 1, '/'))
		return -1;
	memcpy(from, s, (size_t)(slash - s));
	from[slash - s] = '\0';
	if (mf_select_parse_time(from, tz, from_us) || mf_select_parse_time(slash + 1, tz, to_us))
		return -1;
	return *to_us > *from_us ? 0 : -1;
}

void mf_diff_group_name(const struct mf_diff *d, const struct mf_diff_group *g, char *buf, size_t n)
{
	const struct mf_result *r = g->before ? g->before : g->after;
	const struct mf_report *rep = g->before ? d->before : d->after;
	const char *sys = mf_strtab_get(rep->tab, r->group->system), *lpar = mf_strtab_get(rep->tab, r->group->lpar);
	const char *pool = mf_pool_name(r->group->pool);
	size_t used = 0;
	buf[0] = '\0';
	if (sys)
		mf_buf_appendf(buf, n, &used, "%s", sys);
	if (lpar)
		mf_buf_appendf(buf, n, &used, "%s%s", used ? " / " : "", lpar);
	if (pool)
		mf_buf_appendf(buf, n, &used, "%s%s", used ? " / " : "", pool);
	if (r->group->cpu >= 0)
		mf_buf_appendf(buf, n, &used, "%sCPU %lld", used ? " / " : "", (long long)r->group->cpu);
	if (!used)
		mf_buf_appendf(buf, n, &used, "all data");
}

/* ---- Findings ---- */

/* Where L1 misses come from, nearest first, with the words for them. */
static const struct {
	const char *metric, *words;
	bool near; /* the core's own caches: a move there is not what drives RNI */
} sources[] = {
	{"L15P", "the L1.5 cache", true},
	{"L2P", "the core's L2", true},
	{"L2LP", "the local L2", true},
	{"L2RP", "a remote L2", false},
	{"L3P", "an L3 on the same chip", false},
	{"L4LP", "caches elsewhere on the same drawer", false},
	{"L4RP", "caches on another drawer", false},
	{"MEMP", "memory", false},
};

static int metric_index(const struct mf_diff *d, const char *name)
{
	size_t k;
	for (k = 0; k < d->nmetrics; k++)
		if (strcmp(d->metrics[k], name) == 0)
			return (int)k;
	return -1;
}

static int digits_of(const struct mf_diff_group *g, const char *name)
{
	const struct mf_family *fam = g->before->group->family;
	int m = mf_family_metric(fam, name);
	if (m < 0) {
		fam = g->after->group->family;
		m = mf_family_metric(fam, name);
	}
	return m >= 0 ? fam->metrics[m].digits : 3;
}

/* One metric of a matched group straight from its results (compared or not): false when either side lacks it. */
static bool both_values(const struct mf_diff_group *g, const char *name, struct mf_diff_value *v)
{
	v->before = metric_value(g->before, name, &v->in_before);
	v->after = metric_value(g->after, name, &v->in_after);
	change_of(v, shown_digits(g, name));
	return !isnan(v->delta);
}

/* The words for where a sourcing metric's misses come from ("memory"), or its name. */
static const char *source_words(const char *metric)
{
	size_t s;
	for (s = 0; s < sizeof(sources) / sizeof(sources[0]); s++)
		if (strcmp(sources[s].metric, metric) == 0)
			return sources[s].words;
	return metric;
}

/* One sourcing level of an RNI move: its values and what it moved RNI by. */
struct level {
	const char *metric;
	double before, after;
	int digits;
	double rni; /* the RNI change it makes alone (under the after side's formula); NaN: not known */
};

#define MAX_LEVELS 16

static int cmp_level(const void *pa, const void *pb)
{
	const struct level *a = pa, *b = pb;
	double x = isnan(a->rni) ? fabs(a->after - a->before) : fabs(a->rni);
	double y = isnan(b->rni) ? fabs(b->after - b->before) : fabs(b->rni);
	return (x < y) - (x > y); /* largest first */
}

/*
 * The RNI formula of family fam evaluated on metric values vals (fam's indices): only metrics,
 * never counters or variables, so it needs nothing but the values.  NaN when it uses more.
 */
static double rni_of(const struct mf_family *fam, const double *vals)
{
	static const uint64_t none[MF_BITWORDS];
	double vars[MF_NVARS];
	struct mf_eval_env env = {NULL, none, vars, vals, NULL};
	size_t k;
	for (k = 0; k < MF_NVARS; k++)
		vars[k] = NAN;
	return fam->idx_rni >= 0 ? mf_expr_eval(fam->metrics[fam->idx_rni].expr, &env, NULL) : NAN;
}

/*
 * The levels RNI weighs (the metrics its formula on the after side names, L3P, L4LP, L4RP and
 * MEMP from z13 on) with their values on both sides, and each one's share of the move: the
 * after side's formula with that level alone moved from before to after.  *formula gets the
 * part of the move that is the formula's (the after side's formula on the before side's
 * sourcing, against the before side's RNI): 0 for one family.  Returns the number of levels,
 * 0 when a level is missing on a side (or the formula needs more than metrics): then nothing is
 * attributed.
 */
static size_t rni_levels(const struct mf_diff_group *g, struct level *lv, double *formula)
{
	const struct mf_family *fa = g->after->group->family, *fb = g->before->group->family;
	const struct mf_expr *e;
	double *vals, base;
	size_t n = 0, i, k;
	*formula = NAN;
	if (fa->idx_rni < 0 || fb->idx_rni < 0)
		return 0;
	e = fa->metrics[fa->idx_rni].expr;
	for (i = 0; i < mf_expr_nrefs(e) && n < MAX_LEVELS; i++) {
		int kind, index, mb;
		mf_expr_ref(e, i, &kind, &index);
		if (kind != MF_REF_METRIC)
			return 0;
		for (k = 0; k < n && strcmp(lv[k].metric, fa->metrics[index].name) != 0; k++)
			;
		if (k < n)
			continue; /* named twice */
		mb = mf_family_metric(fb, fa->metrics[index].name);
		lv[n].metric = fa->metrics[index].name;
		lv[n].after = g->after->value[index];
		lv[n].before = mb >= 0 ? g->before->value[mb] : NAN;
		lv[n].digits = fa->metrics[index].digits;
		lv[n].rni = NAN;
		if (isnan(lv[n].before) || isnan(lv[n].after))
			return 0;
		n++;
	}
	vals = malloc((fa->nmetrics + 1) * sizeof(*vals));
	if (!vals)
		return 0;
	/* The after side's values with every level at its before value: the formula on the old sourcing. */
	memcpy(vals, g->after->value, fa->nmetrics * sizeof(*vals));
	for (k = 0; k < n; k++)
		vals[mf_family_metric(fa, lv[k].metric)] = lv[k].before;
	base = rni_of(fa, vals);
	*formula = base - g->before->value[fb->idx_rni];
	for (k = 0; k < n && !isnan(base); k++) {
		int m = mf_family_metric(fa, lv[k].metric);
		vals[m] = lv[k].after;
		lv[k].rni = rni_of(fa, vals) - base;
		vals[m] = lv[k].before;
	}
	free(vals);
	if (isnan(base) || isnan(*formula))
		return 0;
	return n;
}

/*
 * "more L1 misses sourced from memory (MEMP 1.76% -> 2.40%) and caches elsewhere on the same
 * drawer (L4LP 2.50% -> 4.10%), fewer from an L3 on the same chip (L3P 9.27% -> 8.90%)": the
 * levels lv[0..n) (most first), those that moved in direction dir first.  Returns the length.
 */
static size_t levels_text(const struct level *lv, size_t n, int dir, char *buf, size_t len)
{
	size_t used = 0, pass, k;
	buf[0] = '\0';
	for (pass = 0; pass < 2; pass++) {
		int want = pass == 0 ? dir : -dir;
		size_t count = 0, total = 0;
		for (k = 0; k < n; k++)
			total += (lv[k].after > lv[k].before ? 1 : -1) == want;
		for (k = 0; k < n; k++) {
			char b[64], a[64];
			if ((lv[k].after > lv[k].before ? 1 : -1) != want)
				continue;
			if (count == 0)
				mf_buf_appendf(buf, len, &used, "%s%s%s", used ? ", " : "", want > 0 ? "more" : "fewer",
					       used ? " from " : " L1 misses sourced from ");
			else
				mf_buf_appendf(buf, len, &used, count + 1 == total ? " and " : ", ");
			mf_fmt_metric(b, sizeof(b), lv[k].before, lv[k].digits, false);
			mf_fmt_metric(a, sizeof(a), lv[k].after, lv[k].digits, false);
			mf_buf_appendf(buf, len, &used, "%s (%s %s%% -> %s%%)", source_words(lv[k].metric),
				       lv[k].metric, b, a);
			count++;
		}
	}
	return used;
}

/*
 * The sourcing levels of a matched group, those that moved RNI most first: attributed with
 * rni_levels when it can (*attributed; *formula and *sourcing the parts of the move that are the
 * formula's and the sourcing's), else the sources beyond the core's caches that both sides have,
 * by points.  Levels that moved less than 0.01 points, or (attributed) RNI by less than 0.0005
 * (it is shown with three decimals), are left out.  Returns how many are in lv.
 */
static size_t ranked_levels(const struct mf_diff_group *g, struct level *lv, bool *attributed, double *formula,
			    double *sourcing)
{
	size_t nl = rni_levels(g, lv, formula), k, kept = 0;
	*attributed = nl > 0;
	*sourcing = 0;
	if (!*attributed) {
		struct mf_diff_value v;
		size_t s;
		for (s = 0; s < sizeof(sources) / sizeof(sources[0]) && nl < MAX_LEVELS; s++) {
			if (sources[s].near || !both_values(g, sources[s].metric, &v))
				continue;
			lv[nl++] = (struct level){sources[s].metric, v.before, v.after, digits_of(g, sources[s].metric),
						  NAN};
		}
	}
	for (k = 0; *attributed && k < nl; k++)
		*sourcing += lv[k].rni; /* the sourcing's whole part, not only that of the levels kept */
	qsort(lv, nl, sizeof(*lv), cmp_level);
	for (k = 0; k < nl; k++) {
		if (fabs(lv[k].after - lv[k].before) < 0.01 || (*attributed && fabs(lv[k].rni) < 0.0005))
			continue;
		lv[kept++] = lv[k];
	}
	return kept;
}

/*
 * "more L1 misses sourced from memory (MEMP 1.76% -> 2.40%)": the level that moved RNI most
 * among those that moved in direction dir (+1 up, -1 down).  Returns the length written, 0 when
 * none moved that way.
 */
static size_t explain_sourcing(const struct mf_diff_group *g, int dir, char *buf, size_t n)
{
	struct level lv[MAX_LEVELS];
	double formula, sourcing;
	bool attributed;
	size_t nl = ranked_levels(g, lv, &attributed, &formula, &sourcing), k;
	for (k = 0; k < nl && n; k++)
		if ((lv[k].after > lv[k].before ? 1 : -1) == dir)
			return levels_text(&lv[k], 1, dir, buf, n);
	return 0;
}

/*
 * Why an RNI move: the sourcing levels that moved RNI most (up to three), and for two families
 * the part that is the formula's ("+0.323 from the RNI formula of z16 instead of z15's, -0.292
 * from fewer L1 misses sourced from memory (MEMP 2.38% -> 1.77%), ...").  When the move cannot
 * be attributed (a level missing on a side), the levels beyond the core's caches that moved most
 * in points.
 */
static void why_rni(const struct mf_diff_group *g, int dir, char *buf, size_t n)
{
	const struct mf_family *fb = g->before->group->family, *fa = g->after->group->family;
	struct level lv[MAX_LEVELS];
	double formula = 0, sourcing = 0;
	bool attributed;
	size_t kept = ranked_levels(g, lv, &attributed, &formula, &sourcing);
	char words[700];

	if (kept > 3)
		kept = 3;
	buf[0] = '\0';
	if (!kept && fb == fa)
		return;
	levels_text(lv, kept, attributed ? (sourcing > 0 ? 1 : -1) : dir, words, sizeof(words));
	if (fb == fa) {
		snprintf(buf, n, "%s", words);
	} else if (!attributed) {
		snprintf(buf, n, "%s%sweighed by the RNI formula of %s instead of %s's", words, kept ? ", " : "",
			 fa->display, fb->display);
	} else if (!kept) {
		snprintf(buf, n, "%+.3f from the RNI formula of %s instead of %s's; the sourcing barely moved", formula,
			 fa->display, fb->display);
	} else if (fabs(formula) >= fabs(sourcing)) {
		snprintf(buf, n, "%+.3f from the RNI formula of %s instead of %s's, %+.3f from %s", formula,
			 fa->display, fb->display, sourcing, words);
	} else {
		snprintf(buf, n, "%+.3f from %s, %+.3f from the RNI formula of %s instead of %s's", sourcing, words,
			 formula, fa->display, fb->display);
	}
}

/* Why a CPI move: the instructions themselves, or the L1 misses (how many, and from where). */
static void why_cpi(const struct mf_diff_group *g, int dir, char *buf, size_t n)
{
	struct mf_diff_value ev, fv, lv;
	const struct mf_diff_value *e = both_values(g, "EST_INSTR_CMPLX_CPI", &ev) ? &ev : NULL;
	const struct mf_diff_value *f = both_values(g, "FINITE_CPI", &fv) ? &fv : NULL;
	const struct mf_diff_value *l1 = both_values(g, "L1MP", &lv) ? &lv : NULL;
	size_t used = 0;
	buf[0] = '\0';
	if (e && f && fabs(e->delta) >= fabs(f->delta)) {
		snprintf(buf, n,
			 "mostly the instructions themselves (EST_INSTR_CMPLX_CPI %.3f -> %.3f), not the L1 misses",
			 e->before, e->after);
		return;
	}
	if (e && f)
		used = (size_t)snprintf(buf, n, "mostly the L1 misses (FINITE_CPI %.3f -> %.3f)", f->before, f->after);
	if (used < n && l1 && fabs(l1->percent) >= 1)
		used += (size_t)snprintf(buf + used, n - used,
					 "%s%s L1 misses per 100 instructions (L1MP %.3f -> %.3f)", used ? ", " : "",
					 l1->delta > 0 ? "more" : "fewer", l1->before, l1->after);
	if (used < n && used && n - used > 2 && explain_sourcing(g, dir, buf + used + 2, n - used - 2))
		memcpy(buf + used, ", ", 2);
	else if (used < n && !used)
		explain_sourcing(g, dir, buf, n);
}

struct finding {
	size_t group;
	int metric; /* index into d->metrics; -1: the LSPR class */
	double score;
};

static int cmp_finding(const void *pa, const void *pb)
{
	const struct finding *a = pa, *b = pb;
	if ((a->metric < 0) != (b->metric < 0))
		return a->metric < 0 ? -1 : 1;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	return (a->metric > b->metric) - (a->metric < b->metric);
}

/* One finding in words, into buf. */
static void finding_text(const struct mf_diff *d, const struct finding *f, char *buf, size_t n)
{
	const struct mf_diff_group *g = &d->groups[f->group];
	const struct mf_diff_value *v;
	char name[200], nd[64], nb[64], na[64], rb[64], ra[64];
	size_t used;
	int dg;

	mf_diff_group_name(d, g, name, sizeof(name));
	if (f->metric < 0) {
		used = (size_t)snprintf(buf, n, "%s: LSPR class %s -> %s", name, mf_lspr_name(g->lspr_before),
					mf_lspr_name(g->lspr_after));
		mf_fmt_metric(nb, sizeof(nb), g->before->lspr_l1mp, 3, false);
		mf_fmt_metric(na, sizeof(na), g->after->lspr_l1mp, 3, false);
		mf_fmt_metric(rb, sizeof(rb), g->before->lspr_rni, 3, false);
		mf_fmt_metric(ra, sizeof(ra), g->after->lspr_rni, 3, false);
		if (used < n)
			snprintf(buf + used, n - used, " (L1MP %s -> %s, RNI %s -> %s)", nb, na, rb, ra);
		return;
	}
	v = &g->values[f->metric];
	dg = digits_of(g, d->metrics[f->metric]);
	mf_fmt_metric(nd, sizeof(nd), fabs(v->delta), dg, false);
	mf_fmt_metric(nb, sizeof(nb), v->before, dg, false);
	mf_fmt_metric(na, sizeof(na), v->after, dg, false);
	used = (size_t)snprintf(buf, n, "%s: %s %s %s (%s -> %s", name, d->metrics[f->metric],
				v->delta > 0 ? "up" : "down", nd, nb, na);
	if (used < n)
		used += (size_t)snprintf(buf + used, n - used, isnan(v->percent) ? ")" : ", %+.1f%%)", v->percent);
	if (used + 2 >= n)
		return;
	if (strcmp(d->metrics[f->metric], "CPI") == 0)
		why_cpi(g, v->delta > 0 ? 1 : -1, buf + used + 2, n - used - 2);
	else if (strcmp(d->metrics[f->metric], "RNI") == 0)
		why_rni(g, v->delta > 0 ? 1 : -1, buf + used + 2, n - used - 2);
	else
		return;
	if (buf[used + 2])
		memcpy(buf + used, ": ", 2);
}

size_t mf_diff_findings(const struct mf_diff *d, size_t max, void (*fn)(void *ctx, const char *text), void *ctx)
{
	static const char *const watched[] = {"CPI", "RNI", "L1MP", "LPARCPU"};
	struct finding *f = malloc((d->ngroups * 5 + 1) * sizeof(*f));
	size_t i, k, nf = 0;
	if (!f)
		return 0;
	for (i = 0; i < d->ngroups; i++) {
		const struct mf_diff_group *g = &d->groups[i];
		if (g->lspr_moved)
			f[nf++] = (struct finding){i, -1, 0};
		for (k = 0; k < sizeof(watched) / sizeof(watched[0]); k++) {
			int m = metric_index(d, watched[k]);
			const struct mf_diff_value *v = m >= 0 ? &g->values[m] : NULL;
			if (v && !isnan(v->percent) && fabs(v->percent) >= 1)
				f[nf++] = (struct finding){i, m, fabs(v->percent)};
			else if (v && isnan(v->percent) && !isnan(v->delta) &&
				 mf_shown(v->after, shown_digits(g, watched[k])) != 0)
				f[nf++] = (struct finding){i, m, INFINITY}; /* from about zero: no percent, the most */
		}
	}
	qsort(f, nf, sizeof(*f), cmp_finding);
	for (i = 0; i < nf && i < max; i++) {
		char text[1024];
		finding_text(d, &f[i], text, sizeof(text));
		fn(ctx, text);
	}
	free(f);
	return nf;
}
