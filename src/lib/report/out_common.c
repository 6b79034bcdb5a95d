/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mfstat/report/output.h"
#include "mfstat/input/reader.h"
#include "stream.h"

int mf_report_key_index(const struct mf_family *fam, const char *key)
{
	return mf_family_report_key(fam, key);
}

int mf_report_column_index(const struct mf_report *rep, const struct mf_family *fam, const char *key)
{
	int m;
	if (!rep->columns)
		return mf_report_key_index(fam, key);
	/* --metrics: any metric of the family (a helper too: it was asked for), in any case. */
	if (strcasecmp(key, "LSPR") == 0)
		return mf_family_has_lspr(fam) ? MF_REPORT_LSPR : -1;
	m = mf_family_metric(fam, key);
	return m >= 0 ? m : -1;
}

size_t mf_report_families(const struct mf_report *rep, const struct mf_family **out, size_t max)
{
	/* One pass over the groups, marking each family met (a run of groups of one family marks
	 * it once); then the marked ones in the knowledge base's order. */
	const struct mf_kb *kb = rep->kb;
	const struct mf_family *last = NULL;
	uintptr_t lo = (uintptr_t)kb->families, hi = (uintptr_t)(kb->families + kb->nfamilies);
	unsigned char *seen;
	size_t f, i, n = 0;
	if (rep->stream)
		return mf_stream_families(rep->stream, out, max);
	seen = calloc(kb->nfamilies + 1, 1);
	if (!seen) { /* out of memory: the scan per family */
		for (f = 0; f < kb->nfamilies; f++)
			for (i = 0; i < rep->ngroups; i++)
				if (rep->results[i].group->family == &kb->families[f]) {
					if (n < max)
						out[n] = &kb->families[f];
					n++;
					break;
				}
		return n;
	}
	for (i = 0; i < rep->ngroups; i++) {
		const struct mf_family *fam = rep->results[i].group->family;
		if (fam != last && (uintptr_t)fam >= lo && (uintptr_t)fam < hi)
			seen[fam - kb->families] = 1;
		last = fam;
	}
	for (f = 0; f < kb->nfamilies; f++)
		if (seen[f]) {
			if (n < max)
				out[n] = &kb->families[f];
			n++;
		}
	free(seen);
	return n;
}

/* A metric flagged sparse (the RMF view) that no group of the report has a value of: no column. */
void mf_lpar_pools_text(const struct mf_lpar_row *row, bool weights, const char *space, char *buf, size_t n)
{
	size_t p, k, used = 0;
	bool any = false;
	buf[0] = '\0';
	for (p = 0; p < MF_NPOOLS; p++) {
		unsigned cnt = 0;
		for (k = 0; k < MF_POL_COUNT; k++)
			cnt += row->lcpus[p][k];
		if (!cnt)
			continue;
		mf_buf_appendf(buf, n, &used, "%s%s", any ? (weights ? ", " : "; ") : "",
			       mf_pool_name((int)p) ? mf_pool_name((int)p) : "other");
		any = true;
		if (weights) {
			if (row->dedicated[p])
				mf_buf_appendf(buf, n, &used, " dedicated");
			else
				mf_buf_appendf(buf, n, &used, " %d", (int)row->weight[p]);
			continue;
		}
		for (k = 1; k < MF_POL_COUNT; k++)
			if (row->lcpus[p][k])
				mf_buf_appendf(buf, n, &used, " %u%s%s", row->lcpus[p][k], space,
					       mf_polarity_name((int)k));
	}
	if (!any)
		mf_buf_appendf(buf, n, &used, "-");
}

double mf_lpar_rmf_busy(const struct mf_lpar_row *row)
{
	double disp = 0;
	size_t p;
	for (p = 0; p < MF_NPOOLS; p++)
		disp += row->dispatch_s[p];
	return row->seconds > 0 ? disp / row->seconds * 100 : NAN;
}

double mf_shown(double v, int digits)
{
	/* -0.004 shown with two digits would be "-0.00". */
	return fabs(v) < 0.5 * pow(10, -digits) ? 0.0 : v;
}

int mf_fmt_metric(char *buf, size_t n, double v, int digits, bool sign)
{
	if (fabs(v) >= MF_FMT_EXP_FROM && !isinf(v)) {
		char b[40];
		int len = sign ? mf_fmt_g15_signed(v, b) : mf_fmt_g15(v, b); /* %+.15g, %.15g */
		if (n)
			snprintf(buf, n, "%s", b);
		return len;
	}
	return snprintf(buf, n, sign ? "%+.*f" : "%.*f", digits, v);
}

bool mf_report_key_sparse_empty(const struct mf_report *rep, const char *key)
{
	size_t i;
	bool sparse = false;
	const struct mf_family *fam = NULL;
	int idx = -1;
	if (rep->stream)
		return mf_stream_key_sparse_empty(rep->stream, key);
	for (i = 0; i < rep->ngroups; i++) {
		const struct mf_group *g = rep->results[i].group;
		if (g->family != fam) { /* the key's index, looked up once per run of a family */
			fam = g->family;
			idx = mf_report_key_index(fam, key);
		}
		if (idx < 0)
			continue;
		if (!(g->family->metrics[idx].flags & MF_METRIC_SPARSE))
			return false;
		sparse = true;
		if (!isnan(rep->results[i].value[idx]))
			return false;
	}
	return sparse;
}

const char **mf_report_keys(const struct mf_report *rep, size_t *n)
{
	const struct mf_kb *kb = rep->kb;
	const char **keys = malloc((kb->nkeys + 1) * sizeof(*keys));
	bool *seen = calloc(kb->nfamilies + 1, sizeof(*seen));
	size_t i, k;

	*n = 0;
	if (!keys || !seen) {
		free(keys);
		free(seen);
		return NULL;
	}
	if (rep->columns) {
		/* --metrics: the columns asked for, in that order, named as the knowledge base spells them. */
		free(seen);
		free(keys);
		keys = malloc((rep->ncolumns + 1) * sizeof(*keys));
		if (!keys)
			return NULL;
		for (k = 0; k < rep->ncolumns; k++) {
			const char *known = mf_kb_metric_name(kb, rep->columns[k]);
			keys[k] = known ? known : rep->columns[k];
		}
		*n = rep->ncolumns;
		return keys;
	}
	if (rep->stream) {
		const struct mf_family **fams = malloc((kb->nfamilies + 1) * sizeof(*fams));
		size_t nf = fams ? mf_stream_families(rep->stream, fams, kb->nfamilies) : 0;
		for (i = 0; i < nf; i++)
			seen[fams[i] - kb->families] = true;
		free(fams);
		if (!fams) {
			free(keys);
			free(seen);
			return NULL;
		}
	}
	for (i = 0; i < rep->ngroups && !rep->stream; i++)
		seen[rep->results[i].group->family - kb->families] = true;
	for (k = 0; k < kb->nkeys; k++) {
		for (i = 0; i < kb->nfamilies; i++) {
			if (seen[i] && mf_report_key_index(&kb->families[i], kb->keys[k]) != -1) {
				if (!mf_report_key_sparse_empty(rep, kb->keys[k]))
					keys[(*n)++] = kb->keys[k];
				break;
			}
		}
	}
	free(seen);
	return keys;
}

int *mf_report_key_map(const struct mf_report *rep, const char *const *keys, size_t nkeys)
{
	const struct mf_kb *kb = rep->kb;
	int *map = malloc((kb->nfamilies * nkeys + 1) * sizeof(*map));
	size_t f, k;
	if (!map)
		return NULL;
	for (f = 0; f < kb->nfamilies; f++)
		for (k = 0; k < nkeys; k++)
			map[f * nkeys + k] = mf_report_column_index(rep, &kb->families[f], keys[k]);
	return map;
}

/* ---- Inputs ---- */

struct collect {
	struct mf_input *in;
	int failed;
};

static void add_count(void *ctx, enum mf_count_kind kind, const char *what, uint64_t n)
{
	struct collect *c = ctx;
	size_t *cnt = kind == MF_COUNT_RECORDS ? &c->in->nrecords : &c->in->ndropped;
	struct mf_input_count **arr = kind == MF_COUNT_RECORDS ? &c->in->records : &c->in->dropped;
	struct mf_input_count *na = realloc(*arr, (*cnt + 1) * sizeof(**arr));
	if (!na) {
		c->failed = MF_ENOMEM;
		return;
	}
	*arr = na;
	na[*cnt].what = strdup(what);
	na[*cnt].n = n;
	if (!na[*cnt].what) {
		c->failed = MF_ENOMEM;
		return;
	}
	(*cnt)++;
}

int mf_input_collect(struct mf_input *in, const char *file, struct mf_reader *r)
{
	struct collect c = {in, 0};
	in->file = strdup(file ? file : "-");
	if (!in->file)
		return MF_ENOMEM;
	in->format = mf_reader_format(r);
	mf_reader_counts(r, add_count, &c);
	return c.failed;
}

void mf_input_free(struct mf_input *in)
{
	size_t i;
	if (!in)
		return;
	for (i = 0; i < in->nrecords; i++)
		free(in->records[i].what);
	for (i = 0; i < in->ndropped; i++)
		free(in->dropped[i].what);
	free(in->records);
	free(in->dropped);
	free(in->file);
	memset(in, 0, sizeof(*in));
}

/* ---- Notes: skipped rows and warnings ---- */

void mf_notes_init(struct mf_notes *n)
{
	memset(n, 0, sizeof(*n));
}

void mf_notes_free(struct mf_notes *n)
{
	size_t i;
	for (i = 0; i < n->nreasons; i++) {
		free(n->reason[i]);
		free(n->key[i]);
		free(n->first[i]);
		free(n->where[i]);
	}
	for (i = 0; i < n->nwarnings; i++)
		free(n->warnings[i]);
	free(n->warnings);
	memset(n, 0, sizeof(*n));
}

/* msg with its quoted values and numbers blanked ('.' and N): what rows of one cause share. */
static void notes_key(const char *msg, char *norm, size_t cap)
{
	size_t i = 0;
	bool inq = false;

	for (; *msg && i + 2 < cap; msg++) {
		if (*msg == '\'') {
			if (!inq)
				norm[i++] = '\'', norm[i++] = '.';
			inq = !inq;
			if (!inq)
				norm[i++] = '\'';
			continue;
		}
		if (inq)
			continue;
		if (isdigit((unsigned char)*msg) && (i == 0 || !isalpha((unsigned char)norm[i - 1]))) {
			norm[i++] = 'N';
			while (isdigit((unsigned char)msg[1]))
				msg++;
			continue;
		}
		norm[i++] = *msg;
	}
	norm[i] = '\0';
}

/* Where the error is: FILE:LINE:COL, FILE:LINE, "FILE, record R at offset 0xO", or NULL. */
static char *notes_where(const struct mf_error *e)
{
	char buf[400];
	if (!e || !e->file[0])
		return NULL;
	if (e->line > 0 && e->col > 0)
		snprintf(buf, sizeof(buf), "%s:%ld:%ld", e->file, e->line, e->col);
	else if (e->line > 0)
		snprintf(buf, sizeof(buf), "%s:%ld", e->file, e->line);
	else if (e->offset >= 0 && e->record >= 0)
		snprintf(buf, sizeof(buf), "%s, record %ld at offset 0x%llx", e->file, e->record,
			 (unsigned long long)e->offset);
	else if (e->offset >= 0)
		snprintf(buf, sizeof(buf), "%s at offset 0x%llx", e->file, (unsigned long long)e->offset);
	else
		snprintf(buf, sizeof(buf), "%s", e->file);
	return strdup(buf);
}

/* reason[k] from first[k] and where[k]: "MSG (at W)" for one row, "MSG (first at W)" for more. */
static void notes_show(struct mf_notes *n, size_t k)
{
	const char *w = n->where[k];
	size_t len = strlen(n->first[k]) + (w ? strlen(w) + 16 : 0) + 1;
	char *t = malloc(len);
	if (!t)
		return; /* the text shown before stays */
	if (w)
		snprintf(t, len, "%s (%s %s)", n->first[k], n->reason_count[k] > 1 ? "first at" : "at", w);
	else
		snprintf(t, len, "%s", n->first[k]);
	free(n->reason[k]);
	n->reason[k] = t;
}

void mf_notes_skip(struct mf_notes *n, const char *reason, const struct mf_error *at)
{
	char norm[256];
	size_t k;

	notes_key(reason, norm, sizeof(norm));
	n->skipped++;
	for (k = 0; k < n->nreasons; k++) {
		if (strcmp(n->key[k], norm) == 0) {
			if (++n->reason_count[k] == 2) /* "at" becomes "first at" */
				notes_show(n, k);
			return;
		}
	}
	if (n->nreasons < MF_NOTES_MAX_REASONS) {
		const char *msg = at && at->msg[0] ? at->msg : reason;
		size_t len = strlen(reason) + strlen(msg) + 3;
		k = n->nreasons;
		n->key[k] = strdup(norm);
		n->first[k] = malloc(len);
		n->where[k] = at ? notes_where(at) : NULL;
		if (!n->key[k] || !n->first[k]) {
			free(n->key[k]);
			free(n->first[k]);
			free(n->where[k]);
			return;
		}
		/* The reason counted under, then the row's own message when it says more. */
		if (strcmp(msg, reason) != 0)
			snprintf(n->first[k], len, "%s: %s", reason, msg);
		else
			snprintf(n->first[k], len, "%s", reason);
		n->reason[k] = NULL;
		n->reason_count[k] = 1;
		notes_show(n, k);
		if (!n->reason[k])
			n->reason[k] = strdup(n->first[k]);
		if (n->reason[k])
			n->nreasons++;
		else {
			free(n->key[k]);
			free(n->first[k]);
			free(n->where[k]);
		}
	} else {
		/* Past the last reason kept: counted with it, and said so once. */
		k = MF_NOTES_MAX_REASONS - 1;
		n->reason_count[k]++;
		if (!n->reasons_full) {
			size_t len = strlen(n->first[k]) + 48;
			char *t = malloc(len);
			if (t) {
				snprintf(t, len, "%s; and rows skipped for other reasons", n->first[k]);
				free(n->first[k]);
				n->first[k] = t;
				n->reasons_full = true;
			}
		}
		notes_show(n, k);
	}
}

void mf_notes_warn(struct mf_notes *n, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];
	if (n->nwarnings == n->capwarnings) {
		size_t cap = n->capwarnings ? n->capwarnings * 2 : 8;
		char **w = realloc(n->warnings, cap * sizeof(*w));
		if (!w)
			return;
		n->warnings = w;
		n->capwarnings = cap;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n->warnings[n->nwarnings] = strdup(buf);
	if (n->warnings[n->nwarnings])
		n->nwarnings++;
}

void mf_group_describe(const struct mf_group *g, const struct mf_strtab *tab, char *buf, size_t n)
{
	char t[48];
	const char *sys = mf_strtab_get(tab, g->system), *lpar = mf_strtab_get(tab, g->lpar);
	const char *pool = mf_pool_name(g->pool);
	size_t used = 0;
	buf[0] = '\0';
	mf_buf_appendf(buf, n, &used, "%s", g->family->display);
	if (sys)
		mf_buf_appendf(buf, n, &used, " system %s", sys);
	if (lpar)
		mf_buf_appendf(buf, n, &used, " lpar %s", lpar);
	if (pool)
		mf_buf_appendf(buf, n, &used, " pool %s", pool);
	if (mf_polarity_name(g->polarity))
		mf_buf_appendf(buf, n, &used, " polarity %s", mf_polarity_name(g->polarity));
	if (g->lpar_weight >= 0)
		mf_buf_appendf(buf, n, &used, " weight %d", (int)g->lpar_weight);
	if (g->drawer >= 0)
		mf_buf_appendf(buf, n, &used, " drawer %d", (int)g->drawer);
	if (g->chip >= 0)
		mf_buf_appendf(buf, n, &used, " chip %d", (int)g->chip);
	if (g->has_start) {
		mf_time_format(g->start_us, t, sizeof(t));
		mf_buf_appendf(buf, n, &used, " interval %s", t);
	}
	if (g->cpu >= 0)
		mf_buf_appendf(buf, n, &used, " cpu %lld", (long long)g->cpu);
}

void mf_overlap_text(const struct mf_strtab *tab, uint32_t system, uint32_t lpar, int64_t cpu, int64_t a_start_us,
		     double a_seconds, int64_t b_start_us, double b_seconds, char *buf, size_t n)
{
	const char *sys = mf_strtab_get(tab, system), *lp = mf_strtab_get(tab, lpar);
	char ta[48], tb[48];
	size_t used = 0;
	buf[0] = '\0';
	mf_time_format(a_start_us, ta, sizeof(ta));
	mf_time_format(b_start_us, tb, sizeof(tb));
	mf_buf_appendf(buf, n, &used, "system %s", sys ? sys : "-");
	if (lp)
		mf_buf_appendf(buf, n, &used, " lpar %s", lp);
	if (cpu >= 0)
		mf_buf_appendf(buf, n, &used, " cpu %lld", (long long)cpu);
	mf_buf_appendf(buf, n, &used, ": %s (%g s) and %s (%g s)", ta, a_seconds, tb, b_seconds);
}

/* The busy text of r, the first of count groups with MF_DOUBT_BUSY; ov: two of its intervals that overlap, or NULL. */
static void busy_text(const struct mf_result *r, size_t count, const struct mf_group_overlap *ov,
		      const struct mf_strtab *tab, char *buf, size_t len)
{
	const struct mf_family *fam = r->group->family;
	char where[300], why[512];
	mf_group_describe(r->group, tab, where, sizeof(where));
	if (ov) {
		char pair[300];
		mf_overlap_text(tab, ov->system, ov->lpar, -1, ov->a_start_us, ov->a_seconds, ov->b_start_us,
				ov->b_seconds, pair, sizeof(pair));
		snprintf(why, sizeof(why),
			 "its intervals overlap (%s), so their common time is counted twice (one system read from "
			 "two dumps with shifted intervals?)",
			 pair);
	} else {
		snprintf(why, sizeof(why),
			 "a wrong CPU speed or interval length, or the same time of a CPU read twice");
	}
	snprintf(buf, len, "LPARCPU %.1f with %llu CPU%s (at most %g) in %zu group%s, first %s; %s",
		 r->value[fam->idx_lparcpu], (unsigned long long)r->cpus, r->cpus == 1 ? "" : "s",
		 100.0 * (double)r->cpus, count, count == 1 ? "" : "s", where, why);
}

size_t mf_busy_describe(const struct mf_result *res, size_t n, const struct mf_strtab *tab, char *buf, size_t len)
{
	const struct mf_result *r = NULL;
	struct mf_group_overlap ov;
	size_t i, count = 0;
	for (i = 0; i < n; i++)
		if (res[i].doubts & MF_DOUBT_BUSY && !count++)
			r = &res[i];
	if (!count) {
		if (len)
			buf[0] = '\0';
		return 0;
	}
	busy_text(r, count, mf_group_find_overlap(r->group, &ov) ? &ov : NULL, tab, buf, len);
	return count;
}

/* The kinds of per-group doubts said, in the order said (mf_note_facts' doubt arrays). */
static const unsigned doubt_bits[MF_NOTE_DOUBTS] = {MF_DOUBT_NEGATIVE, MF_DOUBT_MIXED_CPSP, MF_DOUBT_PARTIAL,
						    MF_DOUBT_OVERFLOW, MF_DOUBT_BUSY};

unsigned mf_note_doubt_bit(size_t k)
{
	return doubt_bits[k];
}

/* Per-group data doubts: one warning per kind, naming the first group and the count. */
static void doubt_warnings(struct mf_notes *w, const struct mf_note_facts *f, const struct mf_strtab *tab)
{
	static const char *const texts[MF_NOTE_DOUBTS] = {
		"inconsistent data: %s is %s, %s, in %zu group%s, first %s (%s)",
		"rows with different CPU speeds in %zu group%s, first %s: CPSP-based metrics "
		"are not available there",
		"counter %s is present in only some rows of %zu group%s, first %s: treated as "
		"not available there",
		"a counter sum exceeded 64 bits in %zu group%s, first %s: treated as not available",
		NULL,
	};
	size_t k;
	for (k = 0; k < MF_NOTE_DOUBTS; k++) {
		size_t count = f->doubt_count[k];
		const struct mf_result *first = f->doubt_first[k];
		char where[300];
		if (!count)
			continue;
		mf_group_describe(first->group, tab, where, sizeof(where));
		switch (doubt_bits[k]) {
		case MF_DOUBT_NEGATIVE: {
			const struct mf_metric *m = &first->group->family->metrics[first->negative_metric];
			char range[64], val[40];
			mf_fmt_g15(first->value[first->negative_metric], val);
			if ((m->flags & MF_METRIC_MAX) && first->value[first->negative_metric] > m->max)
				snprintf(range, sizeof(range), "above its limit of %g", m->max);
			else
				snprintf(range, sizeof(range), "below zero");
			mf_notes_warn(w, texts[k], m->name, val, range, count, count == 1 ? "" : "s", where, m->desc);
			break;
		}
		case MF_DOUBT_PARTIAL:
			mf_notes_warn(w, texts[k], first->group->family->counters[first->partial_slot].short_name,
				      count, count == 1 ? "" : "s", where);
			break;
		case MF_DOUBT_BUSY: {
			/* LPARCPU beyond 100 % of each CPU (mf_busy_describe), said once. */
			char text[900];
			busy_text(first, count, f->busy_has_ov ? &f->busy_ov : NULL, tab, text, sizeof(text));
			mf_notes_warn(w, "impossible busy: %s", text);
			break;
		}
		default: mf_notes_warn(w, texts[k], count, count == 1 ? "" : "s", where); break;
		}
	}
}

/*
 * Busy from both sides: LPARCPU from the counters against RMF's (SMF type 70)
 * for the same engines.  More than MF_BUSY_FINDING points apart is a finding.
 */
static void busy_finding(struct mf_notes *w, const struct mf_note_facts *f, const struct mf_strtab *tab)
{
	if (f->finding_count) {
		const struct mf_result *r = f->finding;
		int c = mf_family_metric(r->group->family, "LPARCPU"),
		    fr = mf_family_metric(r->group->family, "RMF_LPARCPU");
		char where[300];
		mf_group_describe(r->group, tab, where, sizeof(where));
		mf_notes_warn(w,
			      "busy from the counters and from RMF differ by more than %d points in %zu group%s, most "
			      "in "
			      "%s (LPARCPU %.1f, RMF_LPARCPU %.1f): counter data lost, HIS stopped, or HIS and RMF "
			      "intervals that do not match",
			      MF_BUSY_FINDING, f->finding_count, f->finding_count == 1 ? "" : "s", where,
			      c >= 0 ? r->value[c] : NAN, fr >= 0 ? r->value[fr] : NAN);
	}
}

/* Whether r is a busy finding, d the index of LPARCPU_DIFF in its family (-1: none). */
static bool finding_at(const struct mf_result *r, int d, double *diff)
{
	if (d >= 0 && !isnan(r->value[d]) && fabs(r->value[d]) > MF_BUSY_FINDING) {
		*diff = r->value[d];
		return true;
	}
	return false;
}

bool mf_note_finding_first(const struct mf_result *r, double *diff)
{
	return finding_at(r, mf_family_metric(r->group->family, "LPARCPU_DIFF"), diff);
}

/*
 * How many groups ahead a pass over the results asks for the group it will read: a report's
 * groups are far apart in memory (in the order they were first read), each a cache miss.
 */
#define PREFETCH_AHEAD 8

/*
 * What the per-group notes read of the report's results, in their order (the whole path), in
 * one pass: LPARCPU_DIFF is looked up once per run of groups of one family, and the group
 * (far in memory) asked for PREFETCH_AHEAD groups ahead.
 */
static bool note_facts(const struct mf_report *rep, struct mf_note_facts *f, uint64_t **own)
{
	const struct mf_result *res = rep->results;
	const struct mf_family *fam = NULL;
	const uint64_t *exp = NULL;
	size_t n = rep->ngroups, i, k;
	double worst = 0;
	unsigned any = 0;
	int d = -1;
	memset(f, 0, sizeof(*f));
	*own = NULL;
	if (n)
		exp = mf_report_expected(rep, own); /* NULL when out of memory: no note of fewer CPUs */
	for (k = 0; k < MF_NOTE_DOUBTS; k++)
		any |= doubt_bits[k];
	for (i = 0; i < n; i++) {
		double diff;
		if (i + PREFETCH_AHEAD < n)
			__builtin_prefetch(res[i + PREFETCH_AHEAD].group);
		if (res[i].doubts & any)
			for (k = 0; k < MF_NOTE_DOUBTS; k++)
				if (res[i].doubts & doubt_bits[k] && !f->doubt_count[k]++)
					f->doubt_first[k] = &res[i];
		if (res[i].group->family != fam) {
			fam = res[i].group->family;
			d = mf_family_metric(fam, "LPARCPU_DIFF");
		}
		if (finding_at(&res[i], d, &diff)) {
			if (!f->finding_count || fabs(diff) > fabs(worst)) {
				f->finding = &res[i];
				worst = diff;
			}
			f->finding_count++;
		}
		if (exp && res[i].cpus < exp[i] && !f->fewer_count++) {
			f->fewer_group = res[i].group;
			f->fewer_cpus = mf_group_cpus(res[i].group);
			f->fewer_expected = exp[i];
		}
	}
	if (f->doubt_count[MF_NOTE_DOUBTS - 1])
		f->busy_has_ov = mf_group_find_overlap(f->doubt_first[MF_NOTE_DOUBTS - 1]->group, &f->busy_ov);
	return !n || exp;
}

void mf_overlap_describe(const struct mf_report *rep, char *buf, size_t n)
{
	const struct mf_dedup_overlap *o = &rep->overlap;
	char pair[300] = "";
	const char *sys = mf_strtab_get(rep->tab, o->system), *lpar = mf_strtab_get(rep->tab, o->lpar);
	if (o->pair)
		mf_overlap_text(rep->tab, o->system, o->lpar, o->cpu, o->a_start_s * 1000000, (double)o->a_len_s,
				o->b_start_s * 1000000, (double)o->b_len_s, pair, sizeof(pair));
	else
		snprintf(pair, sizeof(pair), "system %s%s%s cpu %lld", sys ? sys : "-", lpar ? " lpar " : "",
			 lpar ? lpar : "", (long long)o->cpu);
	snprintf(buf, n,
		 "intervals overlap within one CPU on %llu CPU%s of %llu system%s, first %s; the same time of "
		 "a CPU is counted twice (one system read from two dumps with shifted intervals?), so busy and "
		 "rates over a period that holds both are too high",
		 (unsigned long long)o->cpus, o->cpus == 1 ? "" : "s", (unsigned long long)o->systems,
		 o->systems == 1 ? "" : "s", pair);
}

/* Intervals of one CPU that overlap (mf_dedup_overlaps), said once. */
static void overlap_warning(struct mf_notes *w, const struct mf_report *rep)
{
	char text[700];
	mf_overlap_describe(rep, text, sizeof(text));
	mf_notes_warn(w, "%s", text);
}

static bool same_series(const struct mf_group *a, const struct mf_group *b)
{
	return a->family == b->family && a->system == b->system && a->lpar == b->lpar && a->pool == b->pool &&
	       a->cpu == b->cpu && mf_group_place_cmp(a, b) == 0;
}

static uint64_t series_hash(const struct mf_group *g)
{
	uint64_t h = (uint64_t)(uintptr_t)g->family * 0x9e3779b97f4a7c15ULL;
	uint64_t v[] = {g->system,
			g->lpar,
			(uint64_t)(uint32_t)g->pool,
			(uint64_t)g->cpu,
			(uint64_t)(uint32_t)g->polarity,
			(uint64_t)(uint32_t)g->lpar_weight,
			(uint64_t)(uint32_t)g->drawer,
			(uint64_t)(uint32_t)g->chip};
	size_t k;
	for (k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		h = (h ^ v[k]) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 29;
	}
	return h;
}

/*
 * Each timed group's expected CPUs: the most any interval of its series (same family, system,
 * LPAR, pool, place and CPU) had.  One pass over the groups with a table of the series, sized
 * by the series (grown by doubling, kept at most half full: a group per sample has many groups
 * and few series), each slot the series' first group, its hash (compared before the group, far
 * in memory, is read) and the series' number; out holds each timed group's series number,
 * marked with SERIES_MARK (a count of CPUs never reaches it), until the second pass, which so
 * reads no group.  The groups are asked for PREFETCH_AHEAD groups ahead.
 */
#define SERIES_MARK (UINT64_C(1) << 63)
void mf_report_cpus_expected(const struct mf_report *rep, uint64_t *out)
{
	struct slot {
		const struct mf_group *first; /* NULL: empty */
		uint64_t hash;
		size_t id; /* the series' number */
	} *tab = NULL;
	uint64_t *most = NULL;
	size_t i, n = rep->ngroups, size = 0, mask = 0, nser = 0;
	if (rep->cpus_expected) {
		memcpy(out, rep->cpus_expected, n * sizeof(*out));
		return;
	}
	for (i = 0; i < n; i++)
		out[i] = rep->results[i].cpus;
	if (!(rep->by & MF_BY_INTERVAL) || n < 2)
		return;
	for (i = 0; i < n; i++) {
		const struct mf_group *g = rep->results[i].group;
		uint64_t h;
		size_t j;
		if (i + PREFETCH_AHEAD < n)
			__builtin_prefetch(rep->results[i + PREFETCH_AHEAD].group);
		if (!g->has_start)
			continue;
		if (2 * (nser + 1) > size) {
			/* grow the table (and the series' most) to keep it at most half full */
			size_t nsize = size ? 2 * size : 64, k;
			struct slot *nt = calloc(nsize, sizeof(*nt));
			uint64_t *nm = realloc(most, nsize / 2 * sizeof(*nm));
			if (!nt || !nm) {
				free(nt);
				free(nm ? nm : most);
				free(tab);
				for (i = 0; i < n; i++) /* out of memory: every group its own */
					out[i] = rep->results[i].cpus;
				return;
			}
			most = nm;
			for (k = 0; k < size; k++)
				if (tab[k].first) {
					size_t at = tab[k].hash & (nsize - 1);
					while (nt[at].first)
						at = (at + 1) & (nsize - 1);
					nt[at] = tab[k];
				}
			free(tab);
			tab = nt;
			size = nsize;
			mask = size - 1;
		}
		h = series_hash(g);
		for (j = h & mask; tab[j].first; j = (j + 1) & mask)
			if (tab[j].hash == h && same_series(tab[j].first, g))
				break;
		if (!tab[j].first) {
			tab[j].first = g;
			tab[j].hash = h;
			tab[j].id = nser;
			most[nser++] = 0;
		}
		if (out[i] > most[tab[j].id])
			most[tab[j].id] = out[i];
		out[i] = tab[j].id | SERIES_MARK;
	}
	for (i = 0; i < n; i++)
		if (out[i] & SERIES_MARK)
			out[i] = most[out[i] & ~SERIES_MARK];
	free(tab);
	free(most);
}

const uint64_t *mf_report_expected(const struct mf_report *rep, uint64_t **own)
{
	*own = NULL;
	if (rep->cpus_expected || rep->stream) /* a stream: the CSV writer takes them from it */
		return rep->cpus_expected;
	*own = malloc((rep->ngroups + 1) * sizeof(**own));
	if (*own)
		mf_report_cpus_expected(rep, *own);
	return *own;
}

void mf_notes_report(struct mf_notes *n, const struct mf_report *rep)
{
	struct mf_note_facts f;
	uint64_t *own = NULL;
	bool smf = false, facts;
	size_t i;
	for (i = 0; i < rep->ninputs; i++)
		if (strcmp(rep->inputs[i].format, "smf") == 0)
			smf = true;
	if (n->skipped)
		mf_notes_warn(n, "%llu bad %s%s skipped (--skip-bad-%ss)", (unsigned long long)n->skipped,
			      smf ? "record" : "row", n->skipped == 1 ? "" : "s", smf ? "record" : "row");
	if (rep->duplicates)
		mf_notes_warn(n,
			      "%llu duplicate sample%s dropped (read before with the same system, LPAR, CPU, "
			      "pool, interval and counters: a file given twice, or overlapping inputs)",
			      (unsigned long long)rep->duplicates, rep->duplicates == 1 ? "" : "s");
	if (rep->overlap.cpus)
		overlap_warning(n, rep);
	if (rep->stream)
		facts = mf_stream_note_facts(rep->stream, &f);
	else
		facts = note_facts(rep, &f, &own);
	doubt_warnings(n, &f, rep->tab);
	busy_finding(n, &f, rep->tab);
	if (facts && f.fewer_count) {
		char where[300];
		mf_group_describe(f.fewer_group, rep->tab, where, sizeof(where));
		mf_notes_warn(n,
			      "%zu interval%s with fewer CPUs than the other intervals of %s system "
			      "(data lost), first %s: %llu of %llu CPUs; marked (cpus_expected), a "
			      "lower "
			      "LPARCPU there is missing data, not less load",
			      f.fewer_count, f.fewer_count == 1 ? "" : "s", f.fewer_count == 1 ? "its" : "their", where,
			      (unsigned long long)f.fewer_cpus, (unsigned long long)f.fewer_expected);
	}
	free(own);
	if (rep->rows_read == 0)
		mf_notes_warn(n, "no data rows in the input");
}

static const struct mf_writer writers[] = {
	{"text", ".txt", mf_out_text},
	{"csv", ".csv", mf_out_csv},
	{"json", ".json", mf_out_json},
	{"html", ".html", mf_out_html},
};

const struct mf_writer *mf_writers(size_t *n)
{
	*n = sizeof(writers) / sizeof(writers[0]);
	return writers;
}

const struct mf_writer *mf_writer_find(const char *name)
{
	size_t i;
	for (i = 0; name && i < sizeof(writers) / sizeof(writers[0]); i++)
		if (strcmp(writers[i].name, name) == 0)
			return &writers[i];
	return NULL;
}

int32_t mf_report_offset(const struct mf_report *rep, const struct mf_group *g, int64_t utc_us)
{
	if (!rep->tz || mf_tz_is_utc(rep->tz))
		return 0;
	if (mf_tz_per_record(rep->tz)) {
		int32_t off = 0;
		return g && mf_group_offset_at(g, utc_us, &off) ? off : 0;
	}
	return mf_tz_offset(rep->tz, utc_us);
}

void mf_report_time(const struct mf_report *rep, const struct mf_group *g, int64_t utc_us, char *buf, size_t n)
{
	bool utc = !rep->tz || mf_tz_is_utc(rep->tz);
	mf_time_format_at(utc_us, utc ? 0 : mf_report_offset(rep, g, utc_us), utc, buf, n);
}

/* The period over the groups, and the groups it starts and ends in (for their offsets with "smf"). */
static bool period_of(const struct mf_report *rep, int64_t *start, int64_t *end, const struct mf_group **gs,
		      const struct mf_group **ge)
{
	bool any = false;
	size_t i;
	if (rep->has_period) {
		*start = rep->period_start_us;
		*end = rep->period_end_us;
		*gs = rep->period_first;
		*ge = rep->period_last;
		return true;
	}
	if (rep->stream) {
		*gs = *ge = NULL;
		return mf_stream_period(rep->stream, start, end);
	}
	for (i = 0; i < rep->ngroups; i++) {
		const struct mf_group *g = rep->results[i].group;
		int64_t s, e;
		if (!mf_group_period(g, &s, &e))
			continue;
		if (!any || s < *start) {
			*start = s;
			*gs = g;
		}
		if (!any || e > *end) {
			*end = e;
			*ge = g;
		}
		any = true;
	}
	return any;
}

void mf_report_fix_period(struct mf_report *rep)
{
	rep->has_period = false;
	rep->has_period =
		period_of(rep, &rep->period_start_us, &rep->period_end_us, &rep->period_first, &rep->period_last);
}

int64_t mf_report_label_unit(const struct mf_report *rep)
{
	double lo = 0, hi = 0;
	int64_t unit = 1000000;
	if (!mf_report_interval_range(rep, &lo, &hi) || !(lo > 0))
		return unit;
	while (unit > 1 && (double)unit > lo * 1e6)
		unit /= 10;
	return unit;
}

/* The decimals of a second labels show: 0 for a unit of a second (or none), 1 for 100 ms, ... */
static int label_digits(const struct mf_report *rep)
{
	int d = 0;
	for (int64_t u = rep->label_unit_us > 0 ? rep->label_unit_us : 1000000; u < 1000000; u *= 10)
		d++;
	return d;
}

void mf_report_label(const struct mf_report *rep, const struct mf_group *g, int64_t utc_us, char *buf, size_t n)
{
	int64_t u = rep->label_unit_us;
	char *dot, *end;
	size_t keep;
	if (u > 1) {
		int64_t r = utc_us % u;
		if (r < 0)
			r += u;
		utc_us = utc_us - r + (r * 2 >= u ? u : 0);
	}
	mf_report_time(rep, g, utc_us, buf, n);
	if (u <= 1 || !(dot = strchr(buf, '.')))
		return;
	keep = (size_t)label_digits(rep); /* the fraction to the unit's digits */
	for (end = dot + 1; *end >= '0' && *end <= '9'; end++)
		;
	memmove(keep ? dot + 1 + keep : dot, end, strlen(end) + 1);
}

bool mf_report_period(const struct mf_report *rep, char *start, char *end, size_t n)
{
	const struct mf_group *gs = NULL, *ge = NULL;
	int64_t s, e;
	if (!period_of(rep, &s, &e, &gs, &ge))
		return false;
	mf_report_time(rep, gs, s, start, n);
	mf_report_time(rep, ge, e, end, n);
	return true;
}

bool mf_report_interval_range(const struct mf_report *rep, double *lo, double *hi)
{
	bool any = false;
	size_t i;
	if (rep->stream)
		return mf_stream_interval_range(rep->stream, lo, hi);
	for (i = 0; i < rep->ngroups; i++) {
		double l, h;
		if (!mf_group_interval_range(rep->results[i].group, &l, &h))
			continue;
		if (!any || l < *lo)
			*lo = l;
		if (!any || h > *hi)
			*hi = h;
		any = true;
	}
	return any;
}

const char *mf_report_key_text(const struct mf_report *rep, const struct mf_group *g, unsigned bit, char *buf, size_t n)
{
	enum mf_cal cal;
	if (bit == MF_BY_FILE)
		return g->input > 0 && g->input <= rep->ninputs ? rep->inputs[g->input - 1].file : NULL;
	if (bit == MF_BY_POLARITY)
		return mf_polarity_name(g->polarity);
	if (bit & (MF_BY_WEIGHT | MF_BY_DRAWER | MF_BY_CHIP)) {
		int32_t v = bit == MF_BY_WEIGHT ? g->lpar_weight : bit == MF_BY_DRAWER ? g->drawer : g->chip;
		if (v < 0 || !n)
			return NULL;
		snprintf(buf, n, "%d", (int)v);
		return buf;
	}
	if (!(bit & MF_BY_CALENDAR) || !g->has_bucket || !mf_by_calendar(bit, &cal))
		return NULL;
	if (cal == MF_CAL_HOUR)
		mf_cal_hour_format(g->bucket, !rep->tz || mf_tz_is_utc(rep->tz), buf, n);
	else
		mf_cal_format(cal, g->bucket, buf, n);
	return buf;
}

const char *mf_report_zone_rule(const struct mf_report *rep)
{
	if (rep->tz && mf_tz_per_record(rep->tz))
		return "smf: local time, each record's own offset";
	if (rep->tz_default)
		return "UTC: the input gives no local offset";
	return rep->tz ? mf_tz_name(rep->tz) : "UTC";
}

bool mf_report_period_labels(const struct mf_report *rep, char *start, char *end, size_t n, int32_t *off_start,
			     int32_t *off_end)
{
	const struct mf_group *gs = NULL, *ge = NULL;
	int64_t ps, pe;
	if (!period_of(rep, &ps, &pe, &gs, &ge))
		return false;
	mf_report_label(rep, gs, ps, start, n);
	mf_report_label(rep, ge, pe, end, n);
	*off_start = mf_report_offset(rep, gs, ps);
	*off_end = mf_report_offset(rep, ge, pe);
	return true;
}

void mf_report_period_line(const struct mf_report *rep, char *buf, size_t n)
{
	double lo, hi;
	char a[48], b[48];
	size_t used;

	if (!n)
		return;
	buf[0] = '\0';
	{
		const struct mf_group *gs = NULL, *ge = NULL;
		int64_t ps, pe;
		if (!period_of(rep, &ps, &pe, &gs, &ge))
			return;
		mf_report_label(rep, gs, ps, a, sizeof(a));
		mf_report_label(rep, ge, pe, b, sizeof(b));
	}
	used = (size_t)snprintf(buf, n, "period %s to %s (%s)", a, b, mf_report_zone_rule(rep));
	if (used < n && rep->nsystems)
		used += (size_t)snprintf(buf + used, n - used, ", %zu system%s", rep->nsystems,
					 rep->nsystems == 1 ? "" : "s");
	for (size_t i = 0; i < rep->ninputs; i++) /* a database's roll-ups: buckets, not intervals */
		if (used < n && rep->inputs[i].rollup) {
			snprintf(buf + used, n - used, ", from the %s roll-ups", rep->inputs[i].rollup);
			return;
		}
	if (used < n && mf_report_interval_range(rep, &lo, &hi)) {
		/* Seconds to the labels' digits: "900 s", "0.1 s" for perf -I 100, not "0 s". */
		int dec = label_digits(rep);
		if (hi - lo < 0.5 * (dec ? pow(10, -dec) : 1))
			snprintf(buf + used, n - used, ", intervals of %.*f s", dec, (lo + hi) / 2);
		else
			snprintf(buf + used, n - used, ", intervals of %.*f to %.*f s", dec, lo, dec, hi);
	}
}

void mf_report_left_out_text(const struct mf_report *rep, char *buf, size_t n)
{
	uint64_t total = 0;
	size_t used, k;
	bool first = true;
	buf[0] = '\0';
	for (k = 1; k < MF_SELECT_NREASONS; k++)
		total += rep->left_out[k];
	if (!total || !n)
		return;
	used = (size_t)snprintf(buf, n, "%llu sample%s left out by the selection:", (unsigned long long)total,
				total == 1 ? "" : "s");
	for (k = 1; k < MF_SELECT_NREASONS && used < n; k++) {
		if (!rep->left_out[k])
			continue;
		used += (size_t)snprintf(buf + used, n - used, "%s %llu %s", first ? "" : ",",
					 (unsigned long long)rep->left_out[k], mf_select_reason((enum mf_select_why)k));
		first = false;
	}
}

size_t mf_report_extra_keys(const struct mf_report *rep, unsigned *bits)
{
	static const unsigned order[] = {MF_BY_POLARITY, MF_BY_WEIGHT,      MF_BY_DRAWER, MF_BY_CHIP,
					 MF_BY_FILE,     MF_BY_HOUR,        MF_BY_DAY,    MF_BY_WEEK,
					 MF_BY_MONTH,    MF_BY_HOUR_OF_DAY, MF_BY_WEEKDAY};
	size_t k, n = 0;
	for (k = 0; k < sizeof(order) / sizeof(order[0]) && n < MF_EXTRA_KEYS_MAX; k++)
		if (rep->by & order[k])
			bits[n++] = order[k];
	return n;
}
