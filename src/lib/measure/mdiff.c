/* SPDX-License-Identifier: MIT */
/*
 * The difference of two runs (mfstat/measure/diff.h): each run is aggregated
 * (aggregate.c) and folded (fold.c) as its report would be; the rows of both
 * are keyed by name (module basename, function name, folded string), sorted
 * by key and merged, so a key seen twice in one run (a static function of
 * the same name in two objects of one basename) is summed; then sorted by
 * the size of the change.  Everything is built in memory before one write.
 */
#include "mfstat/measure/diff.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/base/escape.h"
#include "mfstat/base/strbuf.h"
#include "mfstat/measure/aggregate.h"
#include "mfstat/measure/fold.h"

#include "mtable.h"

/* One side's contribution to a key. */
struct item {
	const char *module, *name;
	int side; /* 0 before, 1 after */
	uint64_t n, incl;
};

struct items {
	struct item *v;
	size_t n, cap;
	bool nomem;
};

static const char *own(struct mf_mdiff *d, char *s)
{
	char **n;
	if (!s)
		return NULL;
	n = realloc(d->owned, (d->nowned + 1) * sizeof(*n));
	if (!n) {
		free(s);
		return NULL;
	}
	d->owned = n;
	n[d->nowned++] = s;
	return s;
}

static void put(struct items *it, const char *module, const char *name, int side, uint64_t n, uint64_t incl)
{
	if (!name || !module) {
		it->nomem = true;
		return;
	}
	if (it->n == it->cap) {
		size_t nc = it->cap ? it->cap * 2 : 64;
		struct item *nv = realloc(it->v, nc * sizeof(*nv));
		if (!nv) {
			it->nomem = true;
			return;
		}
		it->v = nv;
		it->cap = nc;
	}
	it->v[it->n++] = (struct item){.module = module, .name = name, .side = side, .n = n, .incl = incl};
}

static int cmp_item(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->module, b->module);
}

static bool g_absolute;

static int cmp_row(const void *pa, const void *pb)
{
	const struct mf_mdiff_row *a = pa, *b = pb;
	int c;
	if (g_absolute) {
		uint64_t x =
			a->change_samples < 0 ? (uint64_t)0 - (uint64_t)a->change_samples : (uint64_t)a->change_samples;
		uint64_t y =
			b->change_samples < 0 ? (uint64_t)0 - (uint64_t)b->change_samples : (uint64_t)b->change_samples;
		if (x != y)
			return x > y ? -1 : 1;
	} else {
		double x = isnan(a->change) ? 0 : fabs(a->change), y = isnan(b->change) ? 0 : fabs(b->change);
		if (x != y)
			return x > y ? -1 : 1;
	}
	if ((c = strcmp(a->name, b->name)))
		return c;
	return strcmp(a->module, b->module);
}

static double pct(uint64_t n, uint64_t total)
{
	return total ? (double)n / (double)total * 100.0 : NAN;
}

/* Merges the items of both sides by key into t, sorted by change. */
static int merge(struct mf_mdiff *d, struct items *it, struct mf_mdiff_table *t, bool incl)
{
	size_t i, j;
	if (it->nomem)
		return MF_ENOMEM;
	if (it->n)
		qsort(it->v, it->n, sizeof(*it->v), cmp_item);
	if (!(t->rows = calloc(it->n ? it->n : 1, sizeof(*t->rows))))
		return MF_ENOMEM;
	for (i = 0; i < it->n; i = j) {
		struct mf_mdiff_row *r = &t->rows[t->n++];
		uint64_t ib = 0, ia = 0;
		bool in_b = false, in_a = false;
		r->module = it->v[i].module;
		r->name = it->v[i].name;
		for (j = i; j < it->n && cmp_item(&it->v[i], &it->v[j]) == 0; j++) {
			if (it->v[j].side) {
				r->after += it->v[j].n;
				ia += it->v[j].incl;
				in_a = true;
			} else {
				r->before += it->v[j].n;
				ib += it->v[j].incl;
				in_b = true;
			}
		}
		r->side = in_b && in_a ? MF_MDIFF_BOTH : in_b ? MF_MDIFF_BEFORE_ONLY : MF_MDIFF_AFTER_ONLY;
		r->before_pct = pct(r->before, d->before_total);
		r->after_pct = pct(r->after, d->after_total);
		/* A run without samples has no shares: its side counts as 0 %. */
		r->change = (isnan(r->after_pct) ? 0 : r->after_pct) - (isnan(r->before_pct) ? 0 : r->before_pct);
		r->change_samples = (int64_t)r->after - (int64_t)r->before;
		r->incl_before = r->incl_after = r->incl_change = NAN;
		if (incl) {
			r->incl_before = pct(ib, d->before_total);
			r->incl_after = pct(ia, d->after_total);
			r->incl_change = (isnan(r->incl_after) ? 0 : r->incl_after) -
					 (isnan(r->incl_before) ? 0 : r->incl_before);
		}
	}
	g_absolute = d->absolute;
	if (t->n)
		qsort(t->rows, t->n, sizeof(*t->rows), cmp_row);
	return 0;
}

/* A function's name as the reports give it: the symbol, or module+0xOFF. */
static const char *func_name(struct mf_mdiff *d, const struct mf_agg_row *f)
{
	struct mf_strbuf b;
	if (f->func)
		return f->func;
	mf_strbuf_init(&b);
	mf_strbuf_printf(&b, "%s+0x%" PRIx64, f->modname ? f->modname : "", f->start);
	if (b.failed) {
		mf_strbuf_free(&b);
		return NULL;
	}
	return own(d, b.buf);
}

/* The folded string of stack s: names joined by ';' (';' in a name as ':', control characters as '?'). */
static const char *stack_name(struct mf_mdiff *d, const struct mf_fold *f, const struct mf_fold_stack *s)
{
	struct mf_strbuf b;
	size_t i;
	const char *p;
	mf_strbuf_init(&b);
	mf_strbuf_puts(&b, "");
	for (i = 0; i < s->n; i++) {
		if (i)
			mf_strbuf_putc(&b, ';');
		for (p = f->frames[s->first + i].name; *p; p++)
			mf_strbuf_putc(&b, *p == ';' ? ':' : ((unsigned char)*p < 0x20 || *p == 0x7f) ? '?' : *p);
	}
	if (b.failed) {
		mf_strbuf_free(&b);
		return NULL;
	}
	return own(d, b.buf);
}

static int side(struct mf_mdiff *d, const struct mf_mrun *run, int sd, struct items *mods, struct items *funcs,
		struct items *stacks, bool *chains, struct mf_error *err)
{
	struct mf_agg a;
	struct mf_fold f;
	size_t i;
	int rc;
	uint32_t ls = run->line_size && !(run->line_size & (run->line_size - 1)) ? run->line_size : 64;

	if ((rc = mf_agg_build(&a, run, ls, true, err)) != 0) {
		mf_agg_free(&a);
		return rc;
	}
	*chains = a.chains;
	if (sd)
		d->after_total = a.total.metric;
	else
		d->before_total = a.total.metric;
	for (i = 0; i < a.mods.n; i++)
		put(mods, a.mods.rows[i].modname, a.mods.rows[i].modname, sd, a.mods.rows[i].metric,
		    a.mods.rows[i].incl);
	for (i = 0; i < a.funcs.n; i++)
		put(funcs, a.funcs.rows[i].modname, func_name(d, &a.funcs.rows[i]), sd, a.funcs.rows[i].metric,
		    a.funcs.rows[i].incl);
	mf_agg_free(&a);
	if ((rc = mf_fold_build(&f, run, err)) != 0) {
		mf_fold_free(&f);
		return rc;
	}
	for (i = 0; i < f.n; i++)
		put(stacks, "", stack_name(d, &f, &f.stacks[i]), sd, f.stacks[i].samples, 0);
	mf_fold_free(&f);
	return 0;
}

void mf_mdiff_free(struct mf_mdiff *d)
{
	size_t i;
	for (i = 0; i < d->nowned; i++)
		free(d->owned[i]);
	free(d->owned);
	free(d->mods.rows);
	free(d->funcs.rows);
	free(d->stacks.rows);
	memset(d, 0, sizeof(*d));
}

int mf_mdiff_build(struct mf_mdiff *d, const struct mf_mrun *before, const struct mf_mrun *after, bool absolute,
		   struct mf_error *err)
{
	struct items m = {0}, f = {0}, s = {0};
	int rc;

	memset(d, 0, sizeof(*d));
	if (strcmp(before->measurement, after->measurement) != 0)
		return mf_error_set(err, MF_EINVAL, "", 0, 0,
				    "runs of different measurements cannot be compared (%s and %s)",
				    before->measurement[0] ? before->measurement : "(unknown)",
				    after->measurement[0] ? after->measurement : "(unknown)");
	snprintf(d->measurement, sizeof(d->measurement), "%s", after->measurement);
	d->absolute = absolute;
	rc = side(d, before, 0, &m, &f, &s, &d->before_chains, err);
	if (!rc)
		rc = side(d, after, 1, &m, &f, &s, &d->after_chains, err);
	if (!rc && (merge(d, &m, &d->mods, d->before_chains && d->after_chains) ||
		    merge(d, &f, &d->funcs, d->before_chains && d->after_chains) || merge(d, &s, &d->stacks, false)))
		rc = mf_error_set(err, MF_ENOMEM, "", 0, 0, "out of memory while comparing the runs");
	free(m.v);
	free(f.v);
	free(s.v);
	return rc;
}

/* ---- writing ------------------------------------------------------------------------------------ */

static const char *side_word(int side)
{
	return side == MF_MDIFF_BEFORE_ONLY ? "before" : side == MF_MDIFF_AFTER_ONLY ? "after" : "";
}

static void signed_fixed(char *buf, size_t n, double v)
{
	char t[40];
	if (isnan(v)) {
		snprintf(buf, n, "n/a");
		return;
	}
	mf_fmt_fixed(t, sizeof(t), fabs(v), 2);
	/* -0.00 and +0.00 are both 0.00. */
	snprintf(buf, n, "%s%s", strcmp(t, "0.00") == 0 ? "" : v < 0 ? "-" : "+", t);
}

/* Rows of t the text shows: while |change| >= the cutoff's pct (points, or samples), at least min. */
static size_t cut(const struct mf_mdiff *d, const struct mf_mdiff_table *t, const struct mf_cutoff *c)
{
	size_t i;
	for (i = 0; i < t->n; i++) {
		const struct mf_mdiff_row *r = &t->rows[i];
		double v = d->absolute ? fabs((double)r->change_samples) : fabs(r->change);
		if (i >= c->min && !(v >= c->pct))
			break;
	}
	return i;
}

enum { K_MOD, K_FUNC, K_STACK };

static void text_table(const struct mf_mdiff *d, struct mf_strbuf *sb, int kind, const struct mf_cutoff *c)
{
	static const char *const title[] = {"Load Module Changes", "Function Changes", "Stack Changes"};
	static const char *const what[] = {"load modules", "functions", "stacks"};
	const struct mf_mdiff_table *t = kind == K_MOD ? &d->mods : kind == K_FUNC ? &d->funcs : &d->stacks;
	bool incl = kind == K_FUNC && d->before_chains && d->after_chains;
	size_t n = cut(d, t, c), i, col;
	struct mf_ttab tt = {0};
	char b[48];

	mf_strbuf_printf(sb, "\n%s%s\n", title[kind], kind == K_STACK ? " (folded, root first)" : "");
	mf_tt_col(&tt, false, 1, "Before", "Samples", NULL);
	mf_tt_col(&tt, false, 1, "% Before", NULL, NULL);
	mf_tt_col(&tt, false, 1, "After", "Samples", NULL);
	mf_tt_col(&tt, false, 1, "% After", NULL, NULL);
	mf_tt_col(&tt, false, 1, "Change", d->absolute ? "(samples)" : "(points)", NULL);
	if (incl) {
		mf_tt_col(&tt, false, 1, "% Incl", "Before", NULL);
		mf_tt_col(&tt, false, 1, "% Incl", "After", NULL);
		mf_tt_col(&tt, false, 1, "Incl", "Change", "(points)");
	}
	mf_tt_col(&tt, true, 1, "Only", "In", NULL);
	mf_tt_col(&tt, true, 1, kind == K_MOD ? "Load Module" : kind == K_FUNC ? "Function" : "Stack", NULL, NULL);
	for (i = 0; i < n; i++) {
		const struct mf_mdiff_row *r = &t->rows[i];
		mf_tt_row(&tt, TT_CELLS);
		mf_tt_set(&tt, 0, "%" PRIu64, r->before);
		mf_tt_fixed(&tt, 1, r->before_pct, 2);
		mf_tt_set(&tt, 2, "%" PRIu64, r->after);
		mf_tt_fixed(&tt, 3, r->after_pct, 2);
		if (d->absolute)
			mf_tt_set(&tt, 4, "%s%" PRId64, r->change_samples > 0 ? "+" : "", r->change_samples);
		else {
			signed_fixed(b, sizeof(b), r->change);
			mf_tt_set(&tt, 4, "%s", b);
		}
		col = 5;
		if (incl) {
			mf_tt_fixed(&tt, col++, r->incl_before, 2);
			mf_tt_fixed(&tt, col++, r->incl_after, 2);
			signed_fixed(b, sizeof(b), r->incl_change);
			mf_tt_set(&tt, col++, "%s", b);
		}
		mf_tt_set(&tt, col++, "%s", side_word(r->side));
		if (kind == K_FUNC)
			mf_tt_set(&tt, col, "%s::%s", r->module, r->name);
		else
			mf_tt_set(&tt, col, "%s", r->name);
	}
	if (!t->n) {
		mf_tt_row(&tt, TT_RAW);
		mf_tt_set(&tt, 0, " (none)");
	}
	sb->failed |= !mf_tt_render(sb, &tt);
	mf_tt_free(&tt);
	if (n < t->n)
		mf_strbuf_printf(sb, "[%zu more %s with smaller changes left out; --summary-cutoff 0 lists them]\n",
				 t->n - n, what[kind]);
}

static void text_run(struct mf_strbuf *sb, const char *label, const char *name, const struct mf_mrun *run,
		     uint64_t total, bool chains)
{
	int i;
	mf_strbuf_printf(sb, "%-18s%s: %s of", label, name ? name : "(run)", run->measurement);
	for (i = 0; i < run->argc; i++)
		mf_strbuf_printf(sb, " %s", run->argv[i] ? run->argv[i] : "");
	mf_strbuf_printf(sb, ", %" PRIu64 " sample%s, %s\n", total, total == 1 ? "" : "s",
			 chains ? "call chains" : "no call chains");
}

static void write_text(struct mf_strbuf *sb, const struct mf_mdiff *d, const struct mf_mrun *before,
		       const struct mf_mrun *after, const struct mf_mdiff_opts *o)
{
	text_run(sb, "Before:", o->before_name, before, d->before_total, d->before_chains);
	text_run(sb, "After:", o->after_name, after, d->after_total, d->after_chains);
	mf_strbuf_printf(sb, "%-18s%s\n", "Compared:",
			 d->absolute ? "sample counts (--absolute): change in samples, largest first"
				     : "shares of each run's samples: change in percentage points, largest first");
	mf_strbuf_printf(sb, "%-18s%s\n",
			 "Matched by:", "load module basename and function name; stacks by their folded names");
	if (!(d->before_chains && d->after_chains))
		mf_strbuf_printf(sb, "%-18s%s\n",
				 "Inclusive:", "n/a: both runs need call chains (measure -g) for inclusive shares");
	text_table(d, sb, K_MOD, &o->summary);
	text_table(d, sb, K_FUNC, &o->summary);
	text_table(d, sb, K_STACK, &o->summary);
}

static void num(struct mf_strbuf *sb, double v, bool json)
{
	char b[48];
	if (isnan(v) || isinf(v)) {
		if (json)
			mf_strbuf_puts(sb, "null");
		return;
	}
	mf_strbuf_add(sb, b, (size_t)mf_fmt_g15(v == 0 ? 0.0 : v, b));
}

static void str(struct mf_strbuf *sb, const char *s, bool json)
{
	if (json)
		mf_escape_json(sb, s);
	else
		mf_escape_csv(sb, s, MF_ESCAPE_CSV_TEXT);
}

/* The fields of a row: CSV cells after kind, or JSON members. */
static void data_row(struct mf_strbuf *sb, const struct mf_mdiff_row *r, bool json)
{
	const char *k[] = {"module",
			   "name",
			   "before_samples",
			   "after_samples",
			   "before_percent",
			   "after_percent",
			   "change_points",
			   "change_samples",
			   "only_in",
			   "before_inclusive_percent",
			   "after_inclusive_percent",
			   "inclusive_change_points"};
	size_t i;
	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		if (json) {
			if (i)
				mf_strbuf_putc(sb, ',');
			mf_escape_json(sb, k[i]);
			mf_strbuf_putc(sb, ':');
		} else {
			mf_strbuf_putc(sb, ',');
		}
		switch (i) {
		case 0: str(sb, r->module, json); break;
		case 1: str(sb, r->name, json); break;
		case 2: mf_strbuf_printf(sb, "%" PRIu64, r->before); break;
		case 3: mf_strbuf_printf(sb, "%" PRIu64, r->after); break;
		case 4: num(sb, r->before_pct, json); break;
		case 5: num(sb, r->after_pct, json); break;
		case 6: num(sb, r->change, json); break;
		case 7: mf_strbuf_printf(sb, "%" PRId64, r->change_samples); break;
		case 8:
			if (json && r->side == MF_MDIFF_BOTH)
				mf_strbuf_puts(sb, "null");
			else
				str(sb, side_word(r->side), json);
			break;
		case 9: num(sb, r->incl_before, json); break;
		case 10: num(sb, r->incl_after, json); break;
		default: num(sb, r->incl_change, json); break;
		}
	}
}

static void write_csv(struct mf_strbuf *sb, const struct mf_mdiff *d)
{
	static const char *const kinds[] = {"module", "function", "stack"};
	const struct mf_mdiff_table *t[] = {&d->mods, &d->funcs, &d->stacks};
	size_t k, i;
	mf_strbuf_puts(sb,
		       "kind,module,name,before_samples,after_samples,before_percent,after_percent,change_points,"
		       "change_samples,only_in,before_inclusive_percent,after_inclusive_percent,"
		       "inclusive_change_points\n");
	for (k = 0; k < 3; k++)
		for (i = 0; i < t[k]->n; i++) {
			mf_strbuf_puts(sb, kinds[k]);
			data_row(sb, &t[k]->rows[i], false);
			mf_strbuf_putc(sb, '\n');
		}
}

static void json_run(struct mf_strbuf *sb, const char *name, uint64_t total, bool chains)
{
	mf_strbuf_puts(sb, "{\"file\":");
	mf_escape_json(sb, name);
	mf_strbuf_printf(sb, ",\"samples\":%" PRIu64 ",\"call_chains\":%s}", total, chains ? "true" : "false");
}

static void write_json(struct mf_strbuf *sb, const struct mf_mdiff *d, const struct mf_mdiff_opts *o)
{
	static const char *const keys[] = {"modules", "functions", "stacks"};
	const struct mf_mdiff_table *t[] = {&d->mods, &d->funcs, &d->stacks};
	size_t k, i;
	mf_strbuf_puts(sb, "{\"schema\":1,\n\"measurement\":");
	mf_escape_json(sb, d->measurement);
	mf_strbuf_puts(sb, ",\n\"before\":");
	json_run(sb, o->before_name, d->before_total, d->before_chains);
	mf_strbuf_puts(sb, ",\n\"after\":");
	json_run(sb, o->after_name, d->after_total, d->after_chains);
	mf_strbuf_printf(sb, ",\n\"sorted_by\":\"%s\"", d->absolute ? "change_samples" : "change_points");
	for (k = 0; k < 3; k++) {
		mf_strbuf_printf(sb, ",\n\"%s\":[", keys[k]);
		for (i = 0; i < t[k]->n; i++) {
			mf_strbuf_puts(sb, i ? ",\n{" : "\n{");
			data_row(sb, &t[k]->rows[i], true);
			mf_strbuf_putc(sb, '}');
		}
		mf_strbuf_puts(sb, "\n]");
	}
	mf_strbuf_puts(sb, "}\n");
}

static int cmp_stack_name(const void *pa, const void *pb)
{
	const struct mf_mdiff_row *a = pa, *b = pb;
	return strcmp(a->name, b->name);
}

/* difffolded.pl's pairs, sorted by stack; unless absolute, before scaled to after's total (its -n). */
static int write_folded(struct mf_strbuf *sb, const struct mf_mdiff *d, bool absolute)
{
	struct mf_mdiff_row *v = malloc((d->stacks.n ? d->stacks.n : 1) * sizeof(*v));
	size_t i;
	if (!v)
		return MF_ENOMEM;
	memcpy(v, d->stacks.rows, d->stacks.n * sizeof(*v));
	if (d->stacks.n)
		qsort(v, d->stacks.n, sizeof(*v), cmp_stack_name);
	for (i = 0; i < d->stacks.n; i++) {
		uint64_t b = v[i].before;
		/* As difffolded.pl -n: int(c1 * total2 / total1), in floating point. */
		if (!absolute)
			b = d->before_total ? (uint64_t)((double)b * (double)d->after_total / (double)d->before_total)
					    : 0;
		mf_strbuf_printf(sb, "%s %" PRIu64 " %" PRIu64 "\n", v[i].name, b, v[i].after);
	}
	free(v);
	return 0;
}

int mf_mdiff_write(FILE *fp, const struct mf_mrun *before, const struct mf_mrun *after, const struct mf_mdiff_opts *o,
		   struct mf_error *err)
{
	struct mf_mdiff d;
	struct mf_strbuf sb;
	int rc;

	mf_strbuf_init(&sb);
	if ((rc = mf_mdiff_build(&d, before, after, o->absolute, err)) != 0) {
		mf_mdiff_free(&d);
		return rc;
	}
	switch (o->format) {
	case MF_MFMT_CSV: write_csv(&sb, &d); break;
	case MF_MFMT_JSON: write_json(&sb, &d, o); break;
	case MF_MFMT_FOLDED:
		if (write_folded(&sb, &d, o->absolute))
			sb.failed = 1;
		break;
	case MF_MFMT_TEXT: {
		/* Names come from the programs: no control character of theirs reaches a terminal. */
		struct mf_strbuf raw;
		mf_strbuf_init(&raw);
		write_text(&raw, &d, before, after, o);
		mf_escape_text(&sb, mf_strbuf_str(&raw), MF_ESCAPE_TEXT_KEEP_NL);
		if (raw.failed)
			sb.failed = 1;
		mf_strbuf_free(&raw);
		break;
	}
	default:
		/* -f html (a differential flame graph) is the HTML writer's; it is dispatched before this. */
		mf_mdiff_free(&d);
		mf_strbuf_free(&sb);
		return mf_error_set(err, MF_EINVAL, "", 0, 0, "unknown diff format %d", o->format);
	}
	mf_mdiff_free(&d);
	if (sb.failed)
		rc = mf_error_set(err, MF_ENOMEM, "", 0, 0, "out of memory while writing the difference");
	else if (fwrite(mf_strbuf_str(&sb), 1, sb.len, fp) != sb.len || fflush(fp) != 0 || ferror(fp))
		rc = mf_error_set(err, MF_EIO, "", 0, 0, "cannot write the difference: %s", strerror(errno));
	mf_strbuf_free(&sb);
	return rc;
}
