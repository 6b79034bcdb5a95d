/* SPDX-License-Identifier: MIT */
/*
 * Knowledge-base queries: families, counters and metrics by name or number,
 * machine types, the LSPR table, and which family a set of counters belongs
 * to.  The tables are loaded by kb_load.c.
 */
#include "mfstat/kb/kb.h"
#include "mfstat/base/distance.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kb_int.h"

/* The name sets of kb_int.h: FNV-1a of the lower-case name. */
static size_t name_hash_of(const char *s, size_t len)
{
	size_t h = 1469598103934665603u, i;
	for (i = 0; i < len; i++) {
		h ^= (unsigned char)tolower((unsigned char)s[i]);
		h *= 1099511628211u;
	}
	return h;
}

/* mf_kb_name_lookups and mf_kb_name_compares: relaxed atomics, as threads look names up too. */
static unsigned long long name_lookups, name_compares;

unsigned long long mf_kb_name_lookups(void)
{
	return __atomic_load_n(&name_lookups, __ATOMIC_RELAXED);
}

unsigned long long mf_kb_name_compares(void)
{
	return __atomic_load_n(&name_compares, __ATOMIC_RELAXED);
}

static bool name_eq(const char *key, const char *s, size_t len, bool nocase)
{
	__atomic_fetch_add(&name_compares, 1, __ATOMIC_RELAXED);
	if (nocase)
		return strncasecmp(key, s, len) == 0 && key[len] == '\0';
	return strncmp(key, s, len) == 0 && key[len] == '\0';
}

/*
 * The value of name s[0..len), or -1.  With nocase, of all names equal but for
 * case the one with the smallest value (the first defined).
 */
long mf_kb_name_find(const struct name_hash *h, const char *s, size_t len, bool nocase)
{
	size_t i;
	long best = -1;

	__atomic_fetch_add(&name_lookups, 1, __ATOMIC_RELAXED);
	if (!h->cap)
		return -1;
	for (i = name_hash_of(s, len) & (h->cap - 1); h->e[i].key; i = (i + 1) & (h->cap - 1)) {
		if (!name_eq(h->e[i].key, s, len, nocase))
			continue;
		if (!nocase)
			return (long)h->e[i].val;
		if (best < 0 || h->e[i].val < (size_t)best)
			best = (long)h->e[i].val;
	}
	return best;
}

static void name_put(struct name_ent *e, size_t cap, const char *key, size_t val)
{
	size_t i;
	for (i = name_hash_of(key, strlen(key)) & (cap - 1); e[i].key; i = (i + 1) & (cap - 1))
		;
	e[i].key = key;
	e[i].val = val;
}

/* Adds key (borrowed, must outlive h); returns -1 when out of memory. */
int mf_kb_name_add(struct name_hash *h, const char *key, size_t val)
{
	if (2 * (h->n + 1) > h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64, i;
		struct name_ent *e = calloc(cap, sizeof(*e));
		if (!e)
			return -1;
		for (i = 0; i < h->cap; i++)
			if (h->e[i].key)
				name_put(e, cap, h->e[i].key, h->e[i].val);
		free(h->e);
		h->e = e;
		h->cap = cap;
	}
	name_put(h->e, h->cap, key, val);
	h->n++;
	return 0;
}

void mf_kb_name_hash_free(struct name_hash *h)
{
	free(h->e);
	h->e = NULL;
	h->cap = h->n = 0;
}

int mf_short_counter_number(const char *s, size_t len)
{
	static const struct {
		char c;
		int lo, hi;
	} sets[] = {{'B', 0, 31}, {'P', 32, 63}, {'C', 64, 127}, {'E', 128, 447}, {'M', 448, 495}};
	size_t i, k;
	long v = 0;

	if (len < 2 || len > 4)
		return -1;
	for (i = 1; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (len > 2 && s[1] == '0')
		return -1;
	for (k = 0; k < sizeof(sets) / sizeof(sets[0]); k++)
		if (toupper((unsigned char)s[0]) == sets[k].c)
			return v >= sets[k].lo && v <= sets[k].hi ? (int)v : -1;
	return -1;
}

void mf_short_counter_name(unsigned n, char *buf, size_t len)
{
	char c = n < 32 ? 'B' : n < 64 ? 'P' : n < 128 ? 'C' : n < 448 ? 'E' : 'M';
	snprintf(buf, len, "%c%u", c, n);
}

const char *mf_set_name(int set)
{
	static const char *const names[] = {"basic", "problem", "crypto", "extended", "mtdiag", "other"};
	return set >= 0 && set <= MF_SET_OTHER ? names[set] : "?";
}

const char *mf_lspr_name(int cls)
{
	switch (cls) {
	case MF_LSPR_LOW: return "LOW";
	case MF_LSPR_AVERAGE: return "AVERAGE";
	case MF_LSPR_HIGH: return "HIGH";
	default: return NULL;
	}
}

const char *mf_pool_name(int pool)
{
	static const char *const names[] = {NULL, "GCP", "ZIIP", "ZAAP", "IFL", "ICF", "ZCBP"};
	return pool > 0 && pool < MF_NPOOLS ? names[pool] : NULL;
}

const struct mf_counter *mf_family_counter(const struct mf_family *fam, const char *name, size_t len)
{
	int num = fam->named ? -1 : mf_short_counter_number(name, len);
	size_t i;

	if (num >= 0)
		return mf_family_counter_num(fam, (unsigned)num);
	for (i = 0; i < fam->ncounters; i++) {
		const char *ln = fam->counters[i].linux_name;
		if (strncasecmp(ln, name, len) == 0 && ln[len] == '\0')
			return &fam->counters[i];
	}
	return NULL;
}

const struct mf_counter *mf_family_counter_num(const struct mf_family *fam, unsigned number)
{
	/* Named families number their counters only as ids, not as CPU-MF counters. */
	if (fam->named || number >= MF_MAX_COUNTER || fam->dense[number] < 0)
		return NULL;
	return &fam->counters[fam->dense[number]];
}

int mf_family_metric(const struct mf_family *fam, const char *name)
{
	size_t i;
	if (fam->metric_index)
		return (int)mf_kb_name_find((const struct name_hash *)fam->metric_index, name, strlen(name), true);
	for (i = 0; i < fam->nmetrics; i++) {
		__atomic_fetch_add(&name_compares, 1, __ATOMIC_RELAXED);
		if (strcasecmp(fam->metrics[i].name, name) == 0)
			return (int)i;
	}
	return -1;
}

bool mf_family_has_lspr(const struct mf_family *fam)
{
	size_t j;
	if (fam->report_at)
		return fam->lspr_at >= 0;
	for (j = 0; j < fam->nreport; j++)
		if (fam->report[j] == MF_REPORT_LSPR)
			return true;
	return false;
}

int mf_family_report_key(const struct mf_family *fam, const char *key)
{
	size_t j;
	if (fam->report_at && fam->metric_index) {
		long m = mf_kb_name_find((const struct name_hash *)fam->metric_index, key, strlen(key), false);
		int at = m >= 0 ? fam->report_at[m] : -1;
		if (strcmp(key, "LSPR") == 0 && fam->lspr_at >= 0 && (at < 0 || fam->lspr_at < at))
			return MF_REPORT_LSPR;
		return at >= 0 ? (int)m : -1;
	}
	/* A family not made by the loader: its report searched. */
	for (j = 0; j < fam->nreport; j++) {
		int idx = fam->report[j];
		__atomic_fetch_add(&name_compares, 1, __ATOMIC_RELAXED);
		if (idx == MF_REPORT_LSPR) {
			if (strcmp(key, "LSPR") == 0)
				return MF_REPORT_LSPR;
		} else if (strcmp(fam->metrics[idx].name, key) == 0) {
			return idx;
		}
	}
	return -1;
}

const char *mf_kb_metric_name(const struct mf_kb *kb, const char *name)
{
	size_t f;
	for (f = 0; f < kb->nfamilies; f++) {
		int m = mf_family_metric(&kb->families[f], name);
		if (m >= 0)
			return kb->families[f].metrics[m].name;
	}
	if (strcasecmp(name, "LSPR") == 0)
		for (f = 0; f < kb->nfamilies; f++)
			if (mf_family_has_lspr(&kb->families[f]))
				return "LSPR";
	return NULL;
}

/* Whether s contains w, ignoring case. */
static bool contains_nocase(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (; *s; s++)
		if (strncasecmp(s, w, n) == 0)
			return true;
	return false;
}

/* How near candidate c is to name: its distance, or 9 when too far (pass 1: containing name counts). */
static size_t nearness(const char *name, const char *c, int pass)
{
	size_t len = strlen(name), d;
	if (pass == 0) {
		d = mf_name_distance(name, strlen(name), c, strlen(c), true);
		/* One edit in a short name, two in a longer one: beyond that most names are "near". */
		return d <= (len <= 4 ? 1u : 2u) ? d : 9;
	}
	return len >= 3 && contains_nocase(c, name) ? 0 : 9;
}

size_t mf_kb_metric_nearest(const struct mf_kb *kb, const struct mf_family *fam, const char *name, bool lspr,
			    const char **out, size_t max)
{
	size_t f, i, k, n = 0, best = 9;
	int pass;
	/* First the names an edit or two away; only when none is, the names that contain it (AIU). */
	for (pass = 0; pass < 2 && n == 0; pass++) {
		for (f = 0; f < kb->nfamilies; f++) {
			const struct mf_family *fm = &kb->families[f];
			if (fam && fm != fam)
				continue;
			for (i = 0; i <= fm->nmetrics; i++) {
				const char *c = i < fm->nmetrics ? fm->metrics[i].name : "LSPR";
				size_t d;
				if (i == fm->nmetrics && (!lspr || !mf_family_has_lspr(fm)))
					continue;
				d = nearness(name, c, pass);
				if (d >= 9 || d > best) /* too far, or farther than one already found */
					continue;
				if (d < best) { /* a nearer one: forget the others */
					best = d;
					n = 0;
				}
				for (k = 0; k < n && strcmp(out[k], c) != 0; k++)
					;
				if (k == n && n < max)
					out[n++] = c;
			}
		}
	}
	return n;
}

const char *mf_kb_revision(const struct mf_kb *kb)
{
	const char *rev = NULL;
	size_t f, m;
	for (f = 0; f < kb->nfamilies; f++) {
		const struct mf_family *fam = &kb->families[f];
		if (!fam->lspr)
			continue;
		for (m = 0; m < fam->nmetrics; m++)
			if (!rev || strcmp(fam->metrics[m].revision, rev) > 0)
				rev = fam->metrics[m].revision;
	}
	return rev ? rev : "none";
}

const struct mf_family *mf_kb_family(const struct mf_kb *kb, const char *name)
{
	size_t i;
	for (i = 0; i < kb->nfamilies; i++)
		if (strcasecmp(kb->families[i].key, name) == 0 || strcasecmp(kb->families[i].display, name) == 0)
			return &kb->families[i];
	return NULL;
}

const struct mf_machine *mf_kb_machine(const struct mf_kb *kb, unsigned type)
{
	size_t i;
	for (i = 0; i < kb->nmachines; i++)
		if (kb->machines[i].type == type)
			return &kb->machines[i];
	return NULL;
}

const struct mf_family *mf_kb_generic(const struct mf_kb *kb)
{
	return mf_kb_family(kb, "generic");
}

int mf_kb_resolve(const struct mf_kb *kb, const char *s, size_t len, const struct mf_family **fam,
		  const struct mf_machine **machine)
{
	char buf[64];
	size_t i;
	bool digits = len > 0;

	*fam = NULL;
	*machine = NULL;
	if (len == 0 || len >= sizeof(buf))
		return MF_ENOMACHINE;
	for (i = 0; i < len; i++)
		digits = digits && isdigit((unsigned char)s[i]);
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (digits) {
		const struct mf_machine *m = len <= 5 ? mf_kb_machine(kb, (unsigned)atoi(buf)) : NULL;
		if (!m)
			return MF_ENOMACHINE;
		*machine = m;
		*fam = m->family;
		return 0;
	}
	*fam = mf_kb_family(kb, buf);
	return *fam ? 0 : MF_ENOMACHINE;
}

static bool in_range(double v, double lo, double hi, bool lo_incl, bool hi_incl)
{
	if (lo_incl ? v < lo : v <= lo)
		return false;
	if (hi_incl ? v > hi : v >= hi)
		return false;
	return true;
}

int mf_kb_lspr_class(const struct mf_kb *kb, double l1mp, double rni)
{
	size_t i;
	if (isnan(l1mp) || isnan(rni))
		return MF_LSPR_NONE;
	for (i = 0; i < kb->nlspr; i++) {
		const struct mf_lspr_rule *r = &kb->lspr[i];
		if (in_range(l1mp, r->lo[0], r->hi[0], r->lo_incl[0], r->hi_incl[0]) &&
		    in_range(rni, r->lo[1], r->hi[1], r->lo_incl[1], r->hi_incl[1]))
			return r->cls;
	}
	return MF_LSPR_NONE;
}

size_t mf_kb_families_for(const struct mf_kb *kb, const char *const *names, size_t n, const struct mf_family **out,
			  size_t max)
{
	size_t f, i, count = 0;
	for (f = 0; f < kb->nfamilies; f++) {
		const struct mf_family *fam = &kb->families[f];
		if (fam == mf_kb_generic(kb) || !fam->csvn)
			continue;
		for (i = 0; i < n; i++)
			if (!mf_family_counter(fam, names[i], strlen(names[i])))
				break;
		if (i < n)
			continue;
		if (count < max)
			out[count] = fam;
		count++;
	}
	return count;
}

const struct mf_family *mf_kb_family_by_csvn(const struct mf_kb *kb, int csvn)
{
	size_t k;
	for (k = 0; k < kb->nfamilies && csvn > 0; k++)
		if (kb->families[k].csvn == csvn && &kb->families[k] != mf_kb_generic(kb))
			return &kb->families[k];
	return NULL;
}

bool mf_kb_counter_known(const struct mf_kb *kb, const char *name, size_t len)
{
	size_t k;
	for (k = 0; k < kb->nfamilies; k++)
		if (mf_family_counter(&kb->families[k], name, len))
			return true;
	return false;
}

/* Keeps the candidates on which every counter with a known Linux name has that name, if any. */
static void keep_linux_names(struct mf_family_fit *fit, const char *const *names, const char *const *linux, size_t n)
{
	size_t k, i, kept = 0;

	for (k = 0; k < fit->n; k++) {
		bool ok = true;
		for (i = 0; i < n && ok; i++) {
			const struct mf_counter *c;
			if (!linux[i])
				continue;
			c = mf_family_counter(fit->fam[k], names[i], strlen(names[i]));
			ok = c && strcasecmp(c->linux_name, linux[i]) == 0;
		}
		if (ok)
			fit->fam[kept++] = fit->fam[k];
	}
	if (kept)
		fit->n = kept;
}

void mf_kb_infer_family(const struct mf_kb *kb, const char *const *names, const char *const *linux, size_t n,
			struct mf_family_fit *fit)
{
	const struct mf_family *g = mf_kb_generic(kb);
	size_t i, k, used = 0;

	memset(fit, 0, sizeof(*fit));
	for (i = 0; i < n; i++)
		if (!mf_family_counter(g, names[i], strlen(names[i])))
			break;
	if (i == n) {
		fit->n = 1;
		fit->generic = true;
		fit->fam[0] = g;
		return;
	}
	fit->n = mf_kb_families_for(kb, names, n, fit->fam, MF_FIT_MAX);
	if (fit->n == 0) {
		/* The first name that no family has together with those before it. */
		for (i = 1; i <= n; i++)
			if (mf_kb_families_for(kb, names, i, NULL, 0) == 0)
				break;
		fit->misfit = i - 1;
		return;
	}
	if (fit->n > 1 && fit->n <= MF_FIT_MAX && linux)
		keep_linux_names(fit, names, linux, n);
	for (k = 0; fit->n > 1 && k < fit->n && k < MF_FIT_MAX; k++) {
		int w = snprintf(fit->list + used, sizeof(fit->list) - used, "%s%s", k ? ", " : "",
				 fit->fam[k]->display);
		if (w < 0 || (size_t)w >= sizeof(fit->list) - used)
			break;
		used += (size_t)w;
	}
}
