/* SPDX-License-Identifier: MIT */
/* The read -> group -> compute pipeline of `mfstat report`, with its skip and duplicate counts. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/report/dedup.h"
#include "mfstat/report/group.h"
#include "mfstat/report/metrics.h"
#include "mfstat/report/pipeline.h"
#include "mfstat/input/reader.h"
#include "mfstat/input/sample.h"
#include "mfstat/base/strbuf.h"

struct mf_pipeline {
	struct mf_pipeline_opts o;
	struct mf_reader_opts ro;
	struct mf_strtab *tab;
	struct mf_grouper *grp;
	struct mf_grouper *igrp; /* keep_intervals: by series and interval; NULL when not kept (or dropped) */
	struct mf_result *ires;
	size_t nires;
	bool idropped; /* igrp went beyond max_groups */
	struct mf_dedup *dd;
	struct mf_sample *s;
	struct mf_notes notes;
	struct mf_strbuf summary;
	struct mf_input *inputs;
	size_t ninputs, capinputs, nfiles, ngroups;
	struct mf_result *res;
	struct mf_result *shown; /* --sort/--top: the results in the order shown (copies pointing into res) */
	uint64_t rows;
	uint64_t left_out[MF_SELECT_NREASONS];
	uint64_t no_offset;      /* --tz smf: samples without a local offset of their own */
	struct mf_lparmap *lpar; /* the LPAR view of SMF inputs (types 70 and 99.14) */
	struct mf_grouper *lgrp; /* keep_intervals: by system and LPAR, for the LPAR table */
	struct mf_result *lres;
	size_t nlres;
	struct mf_lpar_row *lpar_rows;
	uint8_t *seen; /* by strtab id: a kept sample named this system */
	size_t nseen, nsystems;
};

/* Counts the distinct systems of the samples kept. */
static int see_system(struct mf_pipeline *p, uint32_t id)
{
	if (!id)
		return 0;
	if (id >= p->nseen) {
		size_t n = (size_t)id * 2 + 64;
		uint8_t *s = realloc(p->seen, n);
		if (!s)
			return MF_ENOMEM;
		memset(s + p->nseen, 0, n - p->nseen);
		p->seen = s;
		p->nseen = n;
	}
	if (!p->seen[id]) {
		p->seen[id] = 1;
		p->nsystems++;
	}
	return 0;
}

/* "system, LPAR, pool, interval and CPU": the keys of a --by, for messages. */
static void by_keys_text(unsigned by, char *buf, size_t size)
{
	static const struct {
		unsigned bit;
		const char *name;
	} keys[] = {{MF_BY_SYSTEM, "system"},
		    {MF_BY_LPAR, "LPAR"},
		    {MF_BY_POOL, "pool"},
		    {MF_BY_INTERVAL, "interval"},
		    {MF_BY_CPU, "CPU"}};
	size_t k, n = 0, used = 0;
	buf[0] = '\0';
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		n += (by & keys[k].bit) != 0;
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		if (!(by & keys[k].bit))
			continue;
		used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? (--n == 1 ? " and " : ", ") : "",
					 keys[k].name);
		if (!used || used >= size)
			break;
	}
	if (!buf[0])
		snprintf(buf, size, "machine family");
}

static void tell(struct mf_pipeline *p, enum mf_pipeline_diag kind, const struct mf_error *e)
{
	if (p->o.diag)
		p->o.diag(p->o.ctx, kind, e);
}

/* An error without a place in a file (out of memory, --max-groups): into err, and told. */
static int fail_plain(struct mf_pipeline *p, struct mf_error *err, int code, const char *msg)
{
	mf_error_clear(err);
	err->code = code;
	snprintf(err->msg, sizeof(err->msg), "%s", msg);
	tell(p, MF_PIPELINE_FAILED, err);
	return code;
}

static void hint(struct mf_pipeline *p, const char *text)
{
	struct mf_error h;
	mf_error_clear(&h);
	snprintf(h.msg, sizeof(h.msg), "%s", text);
	tell(p, MF_PIPELINE_HINT, &h);
}

struct mf_pipeline *mf_pipeline_new(const struct mf_pipeline_opts *opts)
{
	struct mf_pipeline *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->o = *opts;
	mf_notes_init(&p->notes);
	mf_strbuf_init(&p->summary);
	p->tab = mf_strtab_new();
	p->grp = mf_grouper_new(opts->by);
	p->dd = mf_dedup_new();
	p->s = malloc(sizeof(*p->s));
	p->lpar = mf_lparmap_new();
	if (!p->tab || !p->grp || !p->dd || !p->s || !p->lpar) {
		mf_pipeline_free(p);
		return NULL;
	}
	mf_grouper_set_max_groups(p->grp, opts->max_groups);
	mf_grouper_set_tz(p->grp, opts->tz);
	if (opts->keep_intervals && (opts->by & MF_BY_TIME) != MF_BY_INTERVAL) {
		p->igrp = mf_grouper_new((opts->by & ~(unsigned)MF_BY_TIME) | MF_BY_INTERVAL);
		if (!p->igrp) {
			mf_pipeline_free(p);
			return NULL;
		}
		mf_grouper_set_max_groups(p->igrp, opts->max_groups);
		mf_grouper_set_tz(p->igrp, opts->tz);
	}
	if (opts->keep_intervals) {
		p->lgrp = mf_grouper_new(MF_BY_SYSTEM | MF_BY_LPAR);
		if (!p->lgrp) {
			mf_pipeline_free(p);
			return NULL;
		}
		mf_grouper_set_max_groups(p->lgrp, opts->max_groups);
	}
	p->ro.kb = opts->kb;
	p->ro.format = opts->format;
	p->ro.family = opts->family;
	p->ro.machine = opts->machine;
	p->ro.strtab = p->tab;
	p->ro.per_cpu = (opts->by & MF_BY_CPU) != 0; /* lshwc: per-CPU rows instead of Total rows */
	p->ro.lpar = p->lpar;
	return p;
}

/* Counts one skipped row or record and tells it. */
static void skipped(struct mf_pipeline *p, struct mf_input *in, const char *reason, const struct mf_error *e)
{
	mf_notes_skip(&p->notes, reason);
	in->skipped++;
	tell(p, MF_PIPELINE_SKIPPED, e);
}

/* Groups s: 0, or the code that stops (in e, and told). */
static int group_sample(struct mf_pipeline *p, const struct mf_sample *s, const char *file, struct mf_error *e)
{
	int got = see_system(p, s->system);
	if (!got)
		got = mf_grouper_add(p->grp, s);
	if (!got && p->lgrp && s->lpar_joined)
		got = mf_grouper_add(p->lgrp, s);
	if (!got && p->igrp) {
		int igot = mf_grouper_add(p->igrp, s);
		if (igot == MF_ELIMIT) { /* the report goes on without them */
			mf_grouper_free(p->igrp);
			p->igrp = NULL;
			p->idropped = true;
		} else {
			got = igot;
		}
	}
	if (got == MF_ELIMIT) {
		char at[64] = "", keys[96], msg[512];
		if (s->line > 0)
			snprintf(at, sizeof(at), ":%ld", s->line);
		else if (s->offset >= 0)
			snprintf(at, sizeof(at), ": offset 0x%llx", (unsigned long long)s->offset);
		by_keys_text(p->o.by, keys, sizeof(keys));
		snprintf(msg, sizeof(msg),
			 "%s%s: more than %llu groups (--max-groups): every distinct %s makes a group; "
			 "group by fewer keys (for example --by system,pool) or raise --max-groups",
			 file, at, (unsigned long long)p->o.max_groups, keys);
		return fail_plain(p, e, got, msg);
	}
	if (got)
		return fail_plain(p, e, MF_ENOMEM, "out of memory");
	return 0;
}

/* One sample read from file: dedup, group.  0 to go on, else the code that stops. */
static int take_sample(struct mf_pipeline *p, struct mf_reader *r, const char *file, struct mf_input *in,
		       struct mf_error *e)
{
	const struct mf_sample *s = p->s;
	bool smf = strcmp(mf_reader_format(r), "smf") == 0;
	int got;

	p->s->input = (uint32_t)p->ninputs + 1;
	if (p->o.select) {
		enum mf_select_why why = mf_select_check(p->o.select, s, p->tab);
		if (why != MF_SELECT_KEEP) {
			p->rows++;
			in->samples++;
			p->left_out[why]++;
			return 0;
		}
	}
	if (p->o.tz && mf_tz_per_record(p->o.tz) && !s->has_offset)
		p->no_offset++;
	got = mf_dedup_check(p->dd, file, s, e);

	if (got >= 0) {
		p->rows++;
		in->samples++;
	}
	if (got == MF_DEDUP_DUPLICATE) {
		in->duplicates++;
		return 0;
	}
	if (got == MF_EFORMAT && p->o.skip_bad) {
		skipped(p, in, e->msg, e);
		return 0;
	}
	if (got == MF_EFORMAT) {
		char text[128];
		tell(p, MF_PIPELINE_ERROR, e);
		snprintf(text, sizeof(text), "(use --skip-bad-%s to keep the first copy and count the others)",
			 smf ? "records" : "rows");
		hint(p, text);
		return got;
	}
	if (got == MF_ENOMEM)
		return fail_plain(p, e, got, "out of memory");
	return group_sample(p, s, file, e);
}

/* Reads the opened reader r to its end. */
static int drain(struct mf_pipeline *p, struct mf_reader *r, const char *file, struct mf_error *e)
{
	struct mf_input *in;
	size_t k;
	int got;

	if (p->ninputs == p->capinputs) {
		size_t cap = p->capinputs ? 2 * p->capinputs : 4;
		struct mf_input *n = realloc(p->inputs, cap * sizeof(*n));
		if (!n)
			return fail_plain(p, e, MF_ENOMEM, "out of memory");
		p->inputs = n;
		p->capinputs = cap;
	}
	in = &p->inputs[p->ninputs];
	memset(in, 0, sizeof(*in));
	for (;;) {
		/* Readers fill e completely when they fail: no clearing per row. */
		got = mf_reader_next(r, p->s, e);
		if (got == 0)
			break;
		if (got == 1) {
			got = take_sample(p, r, file, in, e);
			if (got)
				return got;
			continue;
		}
		/* A file with no data at all is not a bad record: skipping does not hide it. */
		if (!p->o.skip_bad || got == MF_ENOMEM || got == MF_ENODATA) {
			tell(p, MF_PIPELINE_ERROR, e);
			if (!p->o.skip_bad && got != MF_EIO && got != MF_ENOMEM && got != MF_ENODATA) {
				const char *what = strcmp(mf_reader_format(r), "smf") == 0 ? "records" : "rows";
				char text[128];
				snprintf(text, sizeof(text), "(use --skip-bad-%s to skip bad %s and count them)", what,
					 what);
				hint(p, text);
			}
			/* MF_EUSAGE is for a file that cannot be opened as asked; mid-file it is bad data. */
			return got == MF_EUSAGE ? MF_EFORMAT : got;
		}
		/* With skipping on, even an unreadable rest of a file is counted, not fatal. */
		skipped(p, in, got == MF_EIO ? "the rest of the file cannot be read" : e->msg, e);
		if (got == MF_EIO)
			break;
	}
	for (k = 0; k < mf_reader_nwarnings(r); k++)
		mf_notes_warn(&p->notes, "%s", mf_reader_warning(r, k));
	mf_reader_summary(r, &p->summary);
	got = mf_input_collect(in, file, r);
	p->ninputs++;
	if (got)
		return fail_plain(p, e, MF_ENOMEM, "out of memory");
	return 0;
}

static int add(struct mf_pipeline *p, const char *name, const void *data, size_t len, bool mem, struct mf_error *err)
{
	struct mf_reader *r = NULL;
	int got;

	mf_error_clear(err);
	p->nfiles++;
	got = mem ? mf_reader_open_mem(&r, name, data, len, &p->ro, err) : mf_reader_open(&r, name, &p->ro, err);
	if (got) {
		tell(p, MF_PIPELINE_ERROR, err);
		return got;
	}
	if (!mem && strcmp(name, "-") == 0)
		mf_lparmap_set_streamed(p->lpar);
	got = drain(p, r, name, err);
	mf_reader_close(r);
	return got;
}

/* The first pass over an SMF input: its type 70 and 99 records into the LPAR view. */
static void prescan(struct mf_pipeline *p, const char *name, const void *data, size_t len, bool mem)
{
	struct mf_reader_opts ro = p->ro;
	struct mf_reader *r = NULL;
	struct mf_error e;
	int got;
	ro.lpar_scan = true;
	mf_error_clear(&e);
	got = mem ? mf_reader_open_mem(&r, name, data, len, &ro, &e) : mf_reader_open(&r, name, &ro, &e);
	if (got)
		return; /* the second pass says why */
	if (strcmp(mf_reader_format(r), "smf") == 0)
		while ((got = mf_reader_next(r, p->s, &e)) != 0 && got != MF_EIO && got != MF_ENOMEM &&
		       got != MF_ENODATA)
			;
	mf_reader_close(r);
}

void mf_pipeline_prescan_file(struct mf_pipeline *p, const char *path)
{
	if (strcmp(path, "-") != 0)
		prescan(p, path, NULL, 0, false);
}

void mf_pipeline_prescan_mem(struct mf_pipeline *p, const char *name, const void *data, size_t len)
{
	prescan(p, name, data, len, true);
}

int mf_pipeline_add_file(struct mf_pipeline *p, const char *path, struct mf_error *err)
{
	return add(p, path, NULL, 0, false, err);
}

int mf_pipeline_add_mem(struct mf_pipeline *p, const char *name, const void *data, size_t len, struct mf_error *err)
{
	return add(p, name, data, len, true, err);
}

int mf_pipeline_add_sample(struct mf_pipeline *p, const struct mf_sample *s, struct mf_error *err)
{
	mf_error_clear(err);
	p->rows++;
	return group_sample(p, s, "counted", err);
}

void mf_pipeline_warn(struct mf_pipeline *p, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	mf_notes_warn(&p->notes, "%s", buf);
}

unsigned long long mf_pipeline_skipped(const struct mf_pipeline *p)
{
	return p->notes.skipped;
}

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

static int cmp_str(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return a ? 1 : -1;
	return strcmp(a, b);
}

/* The series (every key but the time keys), then the value, highest first, NaN last, then report order. */
static int cmp_series(const struct ranked *a, const struct ranked *b)
{
	const struct mf_group *x = a->r->group, *y = b->r->group;
	int c;
	if (x->family != y->family)
		return strcmp(x->family->key, y->family->key);
	if (x->input != y->input)
		return x->input < y->input ? -1 : 1;
	if ((c = cmp_str(a->system, b->system)) || (c = cmp_str(a->lpar, b->lpar)))
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

/* --sort and --top: p->shown holds the results in the order shown, *n how many. */
static int rank_results(struct mf_pipeline *p, size_t *n)
{
	struct ranked *rk = malloc((p->ngroups + 1) * sizeof(*rk));
	size_t i, out = 0, run = 0;
	free(p->shown);
	p->shown = malloc((p->ngroups + 1) * sizeof(*p->shown));
	if (!rk || !p->shown) {
		free(rk);
		return MF_ENOMEM;
	}
	for (i = 0; i < p->ngroups; i++) {
		rk[i].r = &p->res[i];
		rk[i].system = mf_strtab_get(p->tab, p->res[i].group->system);
		rk[i].lpar = mf_strtab_get(p->tab, p->res[i].group->lpar);
		rk[i].v = p->o.sort ? sort_value(&p->res[i], p->o.sort) : NAN;
		rk[i].i = i;
	}
	if (p->o.sort)
		qsort(rk, p->ngroups, sizeof(*rk), cmp_ranked);
	for (i = 0; i < p->ngroups; i++) {
		run = i && cmp_series(&rk[i - 1], &rk[i]) == 0 ? run + 1 : 0;
		if (p->o.top && run >= p->o.top)
			continue;
		p->shown[out++] = *rk[i].r;
	}
	free(rk);
	*n = out;
	return 0;
}

/* keep_intervals: the results by series and interval (those of the report when --by is by interval). */
static int interval_results(struct mf_pipeline *p, struct mf_report *rep)
{
	struct mf_group *const *groups;
	size_t i;
	if (!p->o.keep_intervals)
		return 0;
	rep->interval_by = (p->o.by & ~(unsigned)MF_BY_TIME) | MF_BY_INTERVAL;
	if (!p->igrp) {
		if (p->idropped) {
			mf_notes_warn(&p->notes,
				      "more than %llu groups by interval (--max-groups): the HTML "
				      "page draws the groups of --by instead",
				      (unsigned long long)p->o.max_groups);
			return 0;
		}
		rep->interval_results = p->res;
		rep->ninterval_results = p->ngroups;
		return 0;
	}
	mf_results_free(p->ires, p->nires);
	groups = mf_grouper_groups(p->igrp, p->tab, &p->nires);
	p->ires = mf_results_new(groups, p->nires);
	if (!p->ires)
		return MF_ENOMEM;
	for (i = 0; i < p->nires; i++)
		mf_metrics_compute(p->o.kb, groups[i], &p->o.metrics, &p->ires[i]);
	rep->interval_results = p->ires;
	rep->ninterval_results = p->nires;
	return 0;
}

static void lpar_warning(void *ctx, const char *msg)
{
	struct mf_pipeline *p = ctx;
	mf_notes_warn(&p->notes, "%s", msg);
}

int mf_pipeline_finish(struct mf_pipeline *p, struct mf_report *rep)
{
	struct mf_group *const *groups;
	size_t i;

	mf_results_free(p->res, p->ngroups);
	p->res = NULL;
	groups = mf_grouper_groups(p->grp, p->tab, &p->ngroups);
	p->res = mf_results_new(groups, p->ngroups);
	if (!p->res)
		return MF_ENOMEM;
	for (i = 0; i < p->ngroups; i++)
		mf_metrics_compute(p->o.kb, groups[i], &p->o.metrics, &p->res[i]);
	memset(rep, 0, sizeof(*rep));
	rep->kb = p->o.kb;
	rep->tab = p->tab;
	rep->by = p->o.by;
	rep->ngroups = p->ngroups;
	rep->results = p->res;
	if (p->o.sort || p->o.top) {
		/* The period stays that of everything read, not of the groups shown. */
		mf_report_fix_period(rep);
		if (rank_results(p, &rep->ngroups))
			return MF_ENOMEM;
		rep->results = p->shown;
		rep->groups_cut = p->ngroups - rep->ngroups;
	}
	if (interval_results(p, rep))
		return MF_ENOMEM;
	rep->columns = p->o.columns;
	rep->ncolumns = p->o.ncolumns;
	rep->rows_read = p->rows;
	rep->ninputs = p->ninputs;
	rep->inputs = p->inputs;
	rep->duplicates = mf_dedup_duplicates(p->dd);
	mf_lparmap_warnings(p->lpar, p->tab, lpar_warning, p);
	if (mf_lparmap_nintervals(p->lpar)) {
		free(p->lpar_rows);
		p->lpar_rows = NULL;
		if (mf_lparmap_table(p->lpar, p->tab, &p->lpar_rows, &rep->nlpars))
			return MF_ENOMEM;
		rep->lpars = p->lpar_rows;
		if (p->lgrp) {
			struct mf_group *const *lg = mf_grouper_groups(p->lgrp, p->tab, &p->nlres);
			mf_results_free(p->lres, p->nlres);
			p->lres = mf_results_new(lg, p->nlres);
			if (!p->lres)
				return MF_ENOMEM;
			for (i = 0; i < p->nlres; i++)
				mf_metrics_compute(p->o.kb, lg[i], &p->o.metrics, &p->lres[i]);
			rep->lpar_results = p->lres;
			rep->nlpar_results = p->nlres;
		}
	}
	if (p->no_offset)
		mf_notes_warn(&p->notes,
			      "%llu sample%s carry no local time offset of their own (--tz smf takes it from SMF "
			      "records): %s times are UTC",
			      (unsigned long long)p->no_offset, p->no_offset == 1 ? "" : "s",
			      p->no_offset == 1 ? "its" : "their");
	mf_notes_report(&p->notes, rep);
	rep->rows_skipped = p->notes.skipped;
	rep->nreasons = p->notes.nreasons;
	rep->reason = (const char *const *)p->notes.reason;
	rep->reason_count = p->notes.reason_count;
	rep->nwarnings = p->notes.nwarnings;
	rep->warnings = (const char *const *)p->notes.warnings;
	rep->nfiles = p->nfiles;
	rep->input_summary = mf_strbuf_str(&p->summary);
	rep->metrics = p->o.metrics;
	rep->tz = p->o.tz;
	rep->nsystems = p->nsystems;
	rep->selected = p->o.select && mf_select_active(p->o.select);
	memcpy(rep->left_out, p->left_out, sizeof(rep->left_out));
	return 0;
}

void mf_pipeline_free(struct mf_pipeline *p)
{
	size_t i;
	if (!p)
		return;
	mf_results_free(p->res, p->ngroups);
	mf_results_free(p->ires, p->nires);
	free(p->shown);
	mf_grouper_free(p->grp);
	mf_grouper_free(p->igrp);
	mf_dedup_free(p->dd);
	mf_lparmap_free(p->lpar);
	mf_results_free(p->lres, p->nlres);
	mf_grouper_free(p->lgrp);
	free(p->lpar_rows);
	mf_strtab_free(p->tab);
	free(p->s);
	free(p->seen);
	for (i = 0; i < p->ninputs; i++)
		mf_input_free(&p->inputs[i]);
	free(p->inputs);
	mf_notes_free(&p->notes);
	mf_strbuf_free(&p->summary);
	free(p);
}
