/* SPDX-License-Identifier: MIT */
/*
 * A report as a Prometheus (text 0.0.4) or OpenMetrics exposition: each group's summed counters
 * as counters, and with derived its metrics as gauges and its LSPR class as an info series,
 * labelled by the group's --by keys (stat -f prom, report -f prom).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/base/error.h"
#include "mfstat/base/strtab.h"
#include "mfstat/report/output.h"

#define MAX_FAMS 16

/* One series name of the exposition and, per family of the report, its counter slot or metric (-1: none). */
struct entry {
	char name[128];
	const char *desc; /* the first family's description of it */
	const char *short_name;
	int slot[MAX_FAMS];
};

struct entries {
	struct entry *e;
	size_t n, cap;
};

/* The entry of name, made when new; NULL when out of memory. */
static struct entry *entry_of(struct entries *es, const char *name, const char *desc, const char *short_name)
{
	size_t i;
	for (i = 0; i < es->n; i++)
		if (strcmp(es->e[i].name, name) == 0)
			return &es->e[i];
	if (es->n == es->cap) {
		size_t cap = es->cap ? 2 * es->cap : 256;
		struct entry *e = realloc(es->e, cap * sizeof(*e));
		if (!e)
			return NULL;
		es->e = e;
		es->cap = cap;
	}
	memset(&es->e[es->n], 0, sizeof(es->e[es->n]));
	snprintf(es->e[es->n].name, sizeof(es->e[es->n].name), "%s", name);
	es->e[es->n].desc = desc;
	es->e[es->n].short_name = short_name;
	for (i = 0; i < MAX_FAMS; i++)
		es->e[es->n].slot[i] = -1;
	return &es->e[es->n++];
}

/* A description in one line: whitespace runs (newlines, tabs) as one space, none at either end. */
static void one_line(char *buf, size_t n, const char *s)
{
	size_t o = 0;
	bool space = false;
	for (; s && *s && o + 1 < n; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
			space = o > 0;
			continue;
		}
		if (space && o + 2 < n)
			buf[o++] = ' ';
		space = false;
		buf[o++] = *s;
	}
	buf[o] = '\0';
}

/* The labels of a group: its --by keys (those it has a value of) and room for two more pairs. */
struct labels {
	const char *v[2 * 16 + 5];
	size_t n;
	char cpu[24], extra[MF_EXTRA_KEYS_MAX][48];
};

static void add_label(struct labels *l, const char *name, const char *value)
{
	if (!value || !value[0])
		return; /* an empty value is no label to Prometheus */
	l->v[l->n++] = name;
	l->v[l->n++] = value;
}

static void group_labels(const struct mf_report *rep, const struct mf_group *g, const struct mf_prom_opts *o,
			 struct labels *l)
{
	unsigned extra[MF_EXTRA_KEYS_MAX];
	size_t k, nextra;
	l->n = 0;
	if (o->family_label)
		add_label(l, "family", g->family->key);
	if (rep->by & MF_BY_SYSTEM)
		add_label(l, "system", mf_strtab_get(rep->tab, g->system));
	if (rep->by & MF_BY_LPAR)
		add_label(l, "lpar", mf_strtab_get(rep->tab, g->lpar));
	if (rep->by & MF_BY_POOL)
		add_label(l, "pool", mf_pool_name(g->pool));
	if ((rep->by & MF_BY_CPU) && g->cpu >= 0) {
		snprintf(l->cpu, sizeof(l->cpu), "%lld", (long long)g->cpu);
		add_label(l, "cpu", l->cpu);
	}
	nextra = mf_report_extra_keys(rep, extra);
	for (k = 0; k < nextra; k++) {
		if (extra[k] & MF_BY_CALENDAR)
			continue; /* refused by the caller: a time key makes no series */
		add_label(l, mf_by_name(extra[k]),
			  mf_report_key_text(rep, g, extra[k], l->extra[k], sizeof(l->extra[k])));
	}
	l->v[l->n] = NULL;
}

/* The set label of a counter: IBM's set name, or for named counters the family's prefix. */
static const char *set_label(const struct mf_family *fam, const struct mf_counter *c)
{
	if (!fam->named)
		return mf_set_name(c->set);
	return strcmp(fam->key, "linux_perf") == 0 ? "perf" : fam->key;
}

static int fam_index(const struct mf_family *const *fams, size_t nf, const struct mf_family *f)
{
	size_t i;
	for (i = 0; i < nf; i++)
		if (fams[i] == f)
			return (int)i;
	return -1;
}

static bool slot_present(const struct mf_group *g, int slot)
{
	size_t w = (size_t)slot / 64;
	uint64_t bit = 1ull << ((unsigned)slot % 64);
	if (w >= g->nwords)
		return false;
	if (g->overflow && (g->overflow[w] & bit))
		return false; /* a sum past 2^64 is no count */
	return g->present_any && (g->present_any[w] & bit);
}

static void write_counters(struct mf_prom *p, const struct mf_report *rep, const struct mf_prom_opts *o,
			   const struct mf_family *const *fams, size_t nf, struct entries *es)
{
	size_t i, k, f;
	char name[128], help[600], desc[400];
	for (f = 0; f < nf; f++)
		for (k = 0; k < fams[f]->ncounters; k++) {
			const struct mf_counter *c = &fams[f]->counters[k];
			struct entry *e;
			mf_prom_counter_name(fams[f], c, name, sizeof(name));
			e = entry_of(es, name, c->desc, c->short_name);
			if (e && e->slot[f] < 0)
				e->slot[f] = (int)k;
		}
	for (i = 0; i < es->n; i++) {
		const struct entry *e = &es->e[i];
		bool any = false, head = false;
		for (k = 0; k < rep->ngroups && !any; k++) {
			const struct mf_group *g = rep->results[k].group;
			int fi = fam_index(fams, nf, g->family);
			any = fi >= 0 && e->slot[fi] >= 0 && slot_present(g, e->slot[fi]);
		}
		if (!any)
			continue; /* counted nowhere: absent, never 0 */
		for (k = 0; k < rep->ngroups; k++) {
			const struct mf_group *g = rep->results[k].group;
			int fi = fam_index(fams, nf, g->family);
			struct labels l;
			int slot;
			if (fi < 0 || (slot = e->slot[fi]) < 0 || !slot_present(g, slot))
				continue;
			if (!head) {
				one_line(desc, sizeof(desc), e->desc);
				snprintf(help, sizeof(help), "%s%s(counter %s, summed over the CPUs counted)", desc,
					 desc[0] ? " " : "", e->short_name);
				mf_prom_family(p, e->name, "counter", help);
				head = true;
			}
			group_labels(rep, g, o, &l);
			l.v[l.n++] = "set";
			l.v[l.n++] = set_label(g->family, &g->family->counters[slot]);
			l.v[l.n] = NULL;
			mf_prom_sample_u64(p, l.v, mf_group_sum(g, (size_t)slot));
		}
	}
}

static void write_metrics(struct mf_prom *p, const struct mf_report *rep, const struct mf_prom_opts *o,
			  const struct mf_family *const *fams, size_t nf, struct entries *es)
{
	size_t i, k, f;
	char name[128], help[600], desc[500];
	bool lspr = false;
	es->n = 0;
	for (f = 0; f < nf; f++)
		for (k = 0; k < fams[f]->nreport; k++) {
			int m = fams[f]->report[k];
			struct entry *e;
			if (m < 0)
				continue; /* the LSPR class: an info series below */
			mf_prom_metric_name(&fams[f]->metrics[m], name, sizeof(name));
			e = entry_of(es, name, fams[f]->metrics[m].desc, fams[f]->metrics[m].name);
			if (e && e->slot[f] < 0)
				e->slot[f] = m;
		}
	for (i = 0; i < es->n; i++) {
		const struct entry *e = &es->e[i];
		bool head = false;
		for (k = 0; k < rep->ngroups; k++) {
			const struct mf_result *r = &rep->results[k];
			const struct mf_metric *m;
			int fi = fam_index(fams, nf, r->group->family);
			struct labels l;
			double v;
			if (fi < 0 || e->slot[fi] < 0 || isnan(r->value[e->slot[fi]]))
				continue; /* not available: absent */
			m = &r->group->family->metrics[e->slot[fi]];
			v = r->value[e->slot[fi]];
			v *= mf_prom_metric_scale(m);
			if (!head) {
				one_line(desc, sizeof(desc), e->desc);
				if (mf_prom_metric_is_percent(m))
					snprintf(help, sizeof(help), "%s%s(metric %s as a ratio 0-1, not percent)",
						 desc, desc[0] ? " " : "", e->short_name);
				else if (mf_prom_metric_scale(m) != 1)
					snprintf(help, sizeof(help), "%s%s(metric %s in seconds, not %s)", desc,
						 desc[0] ? " " : "", e->short_name, m->unit);
				else
					snprintf(help, sizeof(help), "%s%s(metric %s%s%s)", desc, desc[0] ? " " : "",
						 e->short_name, m->unit && m->unit[0] ? ", " : "",
						 m->unit ? m->unit : "");
				mf_prom_family(p, e->name, "gauge", help);
				head = true;
			}
			group_labels(rep, r->group, o, &l);
			mf_prom_sample(p, l.v, v);
		}
	}
	for (k = 0; k < rep->ngroups; k++) {
		const struct mf_result *r = &rep->results[k];
		struct labels l;
		if (!mf_family_has_lspr(r->group->family) || !mf_lspr_name(r->lspr))
			continue;
		if (!lspr)
			mf_prom_family(p, "mfstat_lspr", "info",
				       "The LSPR workload class (LOW, AVERAGE, HIGH) from L1MP and RNI");
		lspr = true;
		group_labels(rep, r->group, o, &l);
		l.v[l.n++] = "class";
		l.v[l.n++] = mf_lspr_name(r->lspr);
		l.v[l.n] = NULL;
		mf_prom_sample(p, l.v, 1);
	}
}

int mf_prom_report(struct mf_strbuf *out, const struct mf_report *rep, const struct mf_prom_opts *o)
{
	const struct mf_family *fams[MAX_FAMS];
	struct entries es = {NULL, 0, 0};
	struct mf_prom p;
	size_t nf;

	if (rep->stream)
		return MF_EUSAGE; /* the groups are not held */
	nf = mf_report_families(rep, fams, MAX_FAMS);
	if (nf > MAX_FAMS)
		nf = MAX_FAMS;
	mf_prom_init(&p, out, o->fmt);
	if (o->machine)
		mf_prom_machine(&p, o->machine);
	if (o->nup)
		mf_prom_up(&p, o->up, o->nup);
	write_counters(&p, rep, o, fams, nf, &es);
	if (o->derived)
		write_metrics(&p, rep, o, fams, nf, &es);
	free(es.e);
	mf_prom_end(&p);
	return out->failed ? MF_ENOMEM : 0;
}

int mf_out_prom(FILE *fp, const struct mf_report *rep, const struct mf_prom_opts *o)
{
	struct mf_strbuf sb;
	int rc;
	mf_strbuf_init(&sb);
	rc = mf_prom_report(&sb, rep, o);
	if (!rc && sb.len && fwrite(sb.buf, 1, sb.len, fp) != sb.len)
		rc = MF_EIO;
	mf_strbuf_free(&sb);
	return rc;
}
