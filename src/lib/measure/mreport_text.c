/* SPDX-License-Identifier: MIT */
/*
 * The text report of mfstat measure (caliper-measure.md §6), in Caliper's
 * layout: the header, the sampling specification, the exact counts, the
 * thread, load module and function summaries, and the Function Details
 * with their cache lines and source statements.
 */
#include "mreport_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtable.h"

/* ---- cells ------------------------------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *s;
	if (!path)
		return NULL;
	s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}

/* Estimated events of the CPU role: milliseconds for clock streams (§6), else events. */
static void set_est(const struct mf_mrep *x, struct mf_ttab *t, size_t c, const struct mf_agg_row *r)
{
	if (x->a.clock)
		mf_tt_fixed(t, c, (double)r->events[MF_ROLE_CPU] / 1e6, 3);
	else
		mf_tt_set(t, c, "%" PRIu64, r->events[MF_ROLE_CPU]);
}

/* The class columns of a row from column c on; with pcts also the three % fill columns. */
static size_t set_classes(const struct mf_mrep *x, struct mf_ttab *t, size_t c, const struct mf_agg_row *r, bool pcts)
{
	const struct mf_agg *a = &x->a;
	if (!a->itlb) {
		mf_tt_set(t, c++, "%" PRIu64, r->cpu);
		set_est(x, t, c++, r);
		return c;
	}
	mf_tt_u64(t, c++, a->av_misses, r->misses);
	if (a->av_l2hpw && r->l2_clamped)
		mf_tt_set(t, c++, "~%" PRIu64, r->l2);
	else
		mf_tt_u64(t, c++, a->av_l2hpw, r->l2);
	mf_tt_u64(t, c++, a->av_l2hpw, r->hpw);
	mf_tt_u64(t, c++, a->av_soft, r->soft);
	if (pcts) {
		mf_tt_fixed(t, c++, r->pct_l2, 2);
		mf_tt_fixed(t, c++, r->pct_hpw, 2);
		mf_tt_fixed(t, c++, r->pct_soft, 2);
	}
	mf_tt_u64(t, c++, a->av_cpu, r->cpu);
	return c;
}

static void class_cols(const struct mf_mrep *x, struct mf_ttab *t, bool pcts)
{
	if (!x->a.itlb) {
		mf_tt_col(t, false, 1, "Samples", NULL, NULL);
		mf_tt_col(t, false, 1, "Est.", "Events", x->a.clock ? "(ms)" : NULL);
		return;
	}
	mf_tt_col(t, false, 1, "Sampled", "ITLB", "Misses");
	mf_tt_col(t, false, 1, "ITLB", "L2", "Fills");
	mf_tt_col(t, false, 1, "ITLB", "HPW", "Fills");
	mf_tt_col(t, false, 1, "ITLB", "Soft", "Fills");
	if (pcts) {
		mf_tt_col(t, false, 1, "% ITLB", "L2", "Fill");
		mf_tt_col(t, false, 1, "% ITLB", "HPW", "Fill");
		mf_tt_col(t, false, 1, "% ITLB", "Soft", "Fill");
	}
	mf_tt_col(t, false, 1, "CPU", "Samples", NULL);
}

/* ---- text: header ------------------------------------------------------------- */

static void hline(struct mf_strbuf *sb, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void hline(struct mf_strbuf *sb, const char *label, const char *fmt, ...)
{
	va_list ap;
	char buf[4600];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	mf_strbuf_puts(sb, label);
	if (buf[0])
		mf_strbuf_pad(sb, ' ', strlen(label) < 18 ? 18 - strlen(label) : 1);
	mf_strbuf_puts(sb, buf);
	mf_strbuf_putc(sb, '\n');
}

/* §4: the itlb software rung samples page faults, which are not steady-state TLB misses. */
static bool software_itlb(const struct mf_mrep *x)
{
	return x->a.itlb &&
	       (x->run->rung == MF_RUNG_SOFTWARE || (!x->a.has_role[MF_ROLE_ITLB] && x->a.has_role[MF_ROLE_FAULT]));
}

static double share(const struct mf_mcount *c)
{
	return c->enabled ? (double)c->running / (double)c->enabled * 100.0 : NAN;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static void say(void (*fn)(void *ctx, const char *msg), void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(void (*fn)(void *ctx, const char *msg), void *ctx, const char *fmt, ...)
{
	va_list ap;
	char buf[4600];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fn(ctx, buf);
}

/*
 * The header's warnings, one call of fn each, in the header's order: what the run lacks (an END
 * section, hardware counters, lost or throttled samples, ...), the counts multiplexed, the run's
 * own warnings, and why it has no samples.
 */
static void header_warnings(const struct mf_mrep *x, void (*fn)(void *ctx, const char *msg), void *ctx)
{
	const struct mf_mrun *run = x->run;
	char b1[64], nos[600];
	size_t i;

	if (run->incomplete)
		say(fn, ctx, "INCOMPLETE: the run file has no END section; this is what was complete");
	if (software_itlb(x))
		say(fn, ctx,
		    "without hardware counters these are page faults, mostly start-up demand "
		    "paging, not steady-state TLB behaviour");
	if (run->lost)
		say(fn, ctx, "%" PRIu64 " record%s lost (the ring buffer was full): samples are missing", run->lost,
		    plural(run->lost));
	if (run->lost_samples)
		say(fn, ctx, "%" PRIu64 " sample%s lost by the kernel", run->lost_samples, plural(run->lost_samples));
	if (run->throttles)
		say(fn, ctx,
		    "sampling throttled %" PRIu64
		    " time%s (kernel.perf_event_max_sample_rate): "
		    "samples are missing",
		    run->throttles, plural(run->throttles));
	if (run->unmapped)
		say(fn, ctx, "%" PRIu64 " sample%s outside any known mapping (load module [unknown])", run->unmapped,
		    plural(run->unmapped));
	if (run->unknown_records)
		say(fn, ctx, "%" PRIu64 " record%s of unknown or unused types skipped", run->unknown_records,
		    plural(run->unknown_records));
	if (x->a.skipped)
		say(fn, ctx, "%" PRIu64 " sample%s of streams this measurement does not use left out", x->a.skipped,
		    plural(x->a.skipped));
	for (i = 0; i < run->ncounts; i++)
		if (run->counts[i].status == MF_CNT_SCALED) {
			mf_fmt_fixed(b1, sizeof(b1), share(&run->counts[i]), 2);
			say(fn, ctx, "%s multiplexed: counted %s%% of the time, value scaled", run->counts[i].name, b1);
		}
	for (i = 0; i < run->nwarnings; i++)
		say(fn, ctx, "%s", run->warnings[i]);
	if (mf_mreport_no_samples(run, nos, sizeof(nos)))
		say(fn, ctx, "%s", nos);
}

static void warning_line(void *ctx, const char *msg)
{
	hline(ctx, "Warning:", "%s", msg);
}

int mf_mreport_warnings(const struct mf_mrun *run, const struct mf_mreport_opts *o,
			void (*fn)(void *ctx, const char *msg), void *ctx, struct mf_error *err)
{
	struct mf_mreport_opts t = {0};
	struct mf_mrep x;
	int rc;
	if (o)
		t = *o;
	t.format = MF_MFMT_TEXT; /* the text header's warnings, whatever the report's format */
	rc = mf_mrep_open(&x, run, o ? &t : NULL, err);
	if (!rc)
		header_warnings(&x, fn, ctx);
	mf_mrep_close(&x);
	return rc;
}

static void text_header(struct mf_mrep *x, struct mf_strbuf *sb)
{
	const struct mf_mrun *run = x->run;
	struct mf_strbuf t;
	char b1[64], b2[64], b3[64], b4[64];

	mf_strbuf_init(&t);
	mf_mrep_command(&t, run);
	mf_mrep_exit_text(b1, sizeof(b1), run->wait_status);
	if (run->pid > 0)
		hline(sb, "Target:", "%s (pid %d, %s)", run->argc ? mf_strbuf_str(&t) : "(unknown)", run->pid, b1);
	else
		hline(sb, "Target:", "%s (not started)", run->argc ? mf_strbuf_str(&t) : "(unknown)");
	sb_reset(&t);
	if (run->host[0])
		mf_strbuf_printf(&t, "%s, ", run->host);
	if (run->arch[0])
		mf_strbuf_printf(&t, "%s, ", run->arch);
	if (run->cpu_model[0])
		mf_strbuf_printf(&t, "%s, ", run->cpu_model);
	if (run->ncpus > 0)
		mf_strbuf_printf(&t, "%d CPU%s, ", run->ncpus, run->ncpus == 1 ? "" : "s");
	if (run->kernel[0])
		mf_strbuf_printf(&t, "kernel %s, ", run->kernel);
	if (t.len >= 2)
		t.buf[t.len -= 2] = '\0';
	hline(sb, "Host:", "%s", t.len ? mf_strbuf_str(&t) : "unknown");
	mf_strbuf_free(&t);
	hline(sb, "Virtual machine:", "%s", run->vm > 0 ? "yes" : run->vm == 0 ? "no" : "unknown");
	mf_mrep_date(b1, sizeof(b1), run->start_us);
	mf_fmt_fixed(b2, sizeof(b2), run->wall_s, 3);
	mf_fmt_fixed(b3, sizeof(b3), run->user_s, 3);
	mf_fmt_fixed(b4, sizeof(b4), run->sys_s, 3);
	hline(sb, "Run:", "%s, wall %s s, user %s s, system %s s", b1, b2, b3, b4);
	hline(sb, "Database:", "%s", run->database[0] ? run->database : "not saved");
	hline(sb, "Mode:", "%s", mf_mrep_mode(run));
	hline(sb, "Attribution:", "%s",
	      !x->o.attribute_line ? "ip (each sample goes to the function of its own address)"
				   : "line (a cache line and its samples go to the function owning its first byte)");
	if (x->a.itlb && x->a.by_cpu)
		hline(sb, "Sorted by:", "CPU samples (the run has no sampled ITLB misses)");
	if (x->a.itlb && x->a.has_role[MF_ROLE_FAULT])
		hline(sb, "Page faults:",
		      "on instruction fetch: %" PRIu64 " (soft fills), page faults on data: %" PRIu64
		      " (not misses, left out)",
		      x->a.total.ifetch_samples, x->a.data_faults);

	if (!x->o.no_warnings)
		header_warnings(x, warning_line, sb);
}

static const char *role_text(int role)
{
	switch (role) {
	case MF_ROLE_CPU: return "CPU samples";
	case MF_ROLE_ITLB: return "ITLB misses";
	case MF_ROLE_STLB: return "STLB misses: page walks";
	case MF_ROLE_FAULT: return "page faults";
	default: return "unused";
	}
}

static void text_sampling(struct mf_mrep *x, struct mf_strbuf *sb)
{
	const struct mf_mrun *run = x->run;
	char b1[48];
	size_t i;

	mf_strbuf_puts(sb, "\nSampling Specification\n");
	hline(sb, "Requested:", "%s", run->spec_requested[0] ? run->spec_requested : "(default)");
	hline(sb, "Used:", "%s", run->spec_used[0] ? run->spec_used : "(as requested)");
	if (!run->nstreams)
		hline(sb, "Event:", "none sampled");
	for (i = 0; i < run->nstreams; i++) {
		const struct mf_mstream *s = &run->streams[i];
		if (s->clock) {
			mf_fmt_fixed(b1, sizeof(b1), (double)s->period / 1e6, 3);
			hline(sb, "Event:", "%s (%s), period %" PRIu64 " ns (%s ms)%s", s->name, role_text(s->role),
			      s->period, b1, s->precise > 0 ? ", precise" : "");
		} else {
			hline(sb, "Event:", "%s (%s), period %" PRIu64 " event%s%s", s->name, role_text(s->role),
			      s->period, s->period == 1 ? "" : "s", s->precise > 0 ? ", precise" : "");
		}
	}
	if (run->variation)
		hline(sb, "Variation:", "%" PRIu64 ", applied per wakeup (seed %" PRIu64 ")", run->variation,
		      run->seed);
	else
		hline(sb, "Variation:", "none");
	hline(sb, "Privilege:", "%s", run->privilege[0] ? run->privilege : "user");
	hline(sb, "Granularity:", "%u-byte cache lines (%s)", x->line_size, mf_mrep_line_size_source(x));
	hline(sb, "Lost:", "%" PRIu64 " records, %" PRIu64 " samples", run->lost, run->lost_samples);
	hline(sb, "Throttled:", "%" PRIu64 " times, unthrottled %" PRIu64 " times", run->throttles, run->unthrottles);
}

static void text_metrics(struct mf_mrep *x, struct mf_strbuf *sb)
{
	const struct mf_mrun *run = x->run;
	struct mf_mrep_derived d[MF_MREP_DERIVED_MAX];
	struct mf_ttab t = {0};
	size_t i, nd = mf_mrep_derive(x, d);
	char b[48];

	mf_strbuf_puts(sb, "\nMetrics Summed for Entire Run\n");
	mf_tt_col(&t, true, 1, "Name", NULL, NULL);
	mf_tt_col(&t, false, 1, "Value", NULL, NULL);
	mf_tt_col(&t, true, 1, "Unit", NULL, NULL);
	mf_tt_col(&t, true, 1, "Status", NULL, NULL);
	for (i = 0; i < run->ncounts; i++) {
		const struct mf_mcount *c = &run->counts[i];
		mf_tt_row(&t, TT_CELLS);
		mf_tt_set(&t, 0, "%s", c->name);
		mf_tt_set(&t, 2, "%s", c->unit);
		switch (c->status) {
		case MF_CNT_OK:
			mf_tt_set(&t, 1, "%" PRIu64, c->value);
			mf_tt_set(&t, 3, "ok");
			break;
		case MF_CNT_SCALED:
			mf_fmt_fixed(b, sizeof(b), share(c), 2);
			mf_tt_set(&t, 1, "%" PRIu64, c->value);
			mf_tt_set(&t, 3, "scaled (counted %s%% of the time)", b);
			break;
		default:
			mf_tt_set(&t, 1, "n/a");
			mf_tt_set(&t, 3, "%s%s%s%s", c->status == MF_CNT_NOT_COUNTED ? "not counted" : "not supported",
				  c->why[0] ? " (" : "", c->why, c->why[0] ? ")" : "");
			break;
		}
	}
	for (i = 0; i < nd; i++) {
		mf_tt_row(&t, TT_CELLS);
		mf_tt_set(&t, 0, "%s", d[i].label);
		mf_tt_fixed(&t, 1, d[i].v, 3);
		mf_tt_set(&t, 2, "%s", d[i].unit);
		mf_tt_set(&t, 3, "derived: %s%s", d[i].formula, d[i].status == MF_CNT_SCALED ? " (scaled inputs)" : "");
	}
	if (!run->ncounts) {
		mf_tt_row(&t, TT_RAW);
		mf_tt_set(&t, 0, " (no exact counts)");
	}
	x->nomem |= !mf_tt_render(sb, &t);
	mf_tt_free(&t);
}

/* ---- text: summaries and details -------------------------------------------------- */

/*
 * Function rows printed under a cutoff in the reports' order; with
 * --children while the inclusive % >= pct (inclusive shares overlap: no
 * cumulative test), at least min.
 */
static size_t cut_funcs(const struct mf_mrep *x, const struct mf_cutoff *c)
{
	size_t i;
	if (!x->o.children)
		return SIZE_MAX;
	for (i = 0; i < x->a.funcs.n; i++) {
		const struct mf_agg_row *r = mf_mrep_func(x, i, NULL);
		double p = x->a.chains ? r->incl_pct : r->pct;
		if (i >= c->min && !((isnan(p) ? 0 : p) >= c->pct))
			break;
	}
	return i;
}

/* Rows printed under a cutoff: while % >= pct and the cumulative % before the row <= cum, at least min. */
size_t mf_mrep_cut_rows(const struct mf_agg_table *t, const struct mf_cutoff *c)
{
	size_t i;
	double before = 0;
	for (i = 0; i < t->n; i++) {
		const struct mf_agg_row *r = &t->rows[i];
		double p = isnan(r->pct) ? 0 : r->pct;
		/* A hair of slack: a cumulative sum of 100 may come out as 100.00000000000001. */
		if (i >= c->min && !(p >= c->pct && before <= c->cum + 1e-9))
			break;
		before = isnan(r->cum) ? 0 : r->cum;
	}
	return i;
}

static void footer(struct mf_strbuf *sb, const char *what, const struct mf_cutoff *c)
{
	char p[48], q[48];
	mf_fmt_fixed(p, sizeof(p), c->pct, 2);
	mf_fmt_fixed(q, sizeof(q), c->cum, 2);
	mf_strbuf_printf(sb, "[Minimum %s entries: %u, percent cutoff: %s, cumulative percent cutoff: %s]\n", what,
			 c->min, p, q);
}

enum { SUM_THREAD, SUM_MOD, SUM_FUNC };

static void text_summary(struct mf_mrep *x, struct mf_strbuf *sb, int which)
{
	static const char *const titles[] = {"Thread Summary", "Load Module Summary", "Function Summary"};
	static const char *const what[] = {"thread", "load module", "function"};
	const struct mf_agg *a = &x->a;
	const struct mf_agg_table *tab = which == SUM_THREAD ? &a->threads : which == SUM_MOD ? &a->mods : &a->funcs;
	struct mf_ttab t = {0};
	size_t i, c, n = mf_mrep_cut_rows(tab, &x->o.summary);
	struct mf_strbuf lab;
	bool incl = which != SUM_THREAD && a->chains;

	if (which == SUM_FUNC && x->o.children)
		n = cut_funcs(x, &x->o.summary);

	mf_strbuf_printf(sb, "\n%s\n", titles[which]);
	if (!a->itlb)
		mf_tt_col(&t, false, 1, "% Total", "Samples", NULL);
	else if (a->by_cpu)
		mf_tt_col(&t, false, 1, "% Total", "CPU", "Samples");
	else
		mf_tt_col(&t, false, 1, "% Total", "ITLB", "Misses");
	mf_tt_col(&t, false, 1, "Cumulat", "% of", "Total");
	/* With call chains: the share of the samples whose chain holds the function (module). */
	if (incl)
		mf_tt_col(&t, false, 1, "Inclus", "% of", "Total");
	class_cols(x, &t, true);
	if (which == SUM_THREAD) {
		mf_tt_col(&t, true, 1, "Thread", NULL, NULL);
	} else if (which == SUM_MOD) {
		mf_tt_col(&t, true, 1, "Load Module", NULL, NULL);
	} else {
		mf_tt_col(&t, true, 1, "Function", NULL, NULL);
		mf_tt_col(&t, true, 2, "File", NULL, NULL);
	}
	mf_strbuf_init(&lab);
	for (i = 0; i < n; i++) {
		double cum;
		const struct mf_agg_row *r = which == SUM_FUNC ? mf_mrep_func(x, i, &cum) : &tab->rows[i];
		if (which != SUM_FUNC)
			cum = r->cum;
		mf_tt_row(&t, TT_CELLS);
		mf_tt_fixed(&t, 0, r->pct, 2);
		mf_tt_fixed(&t, 1, cum, 2);
		c = 2;
		if (incl)
			mf_tt_fixed(&t, c++, r->incl_pct, 2);
		c = set_classes(x, &t, c, r, true);
		if (which == SUM_THREAD) {
			mf_tt_set(&t, c, "%" PRIu32 " %s", r->tid, r->comm ? r->comm : "");
		} else if (which == SUM_MOD) {
			mf_tt_set(&t, c, "%s", r->modpath ? r->modpath : "");
		} else {
			sb_reset(&lab);
			mf_mrep_func_label(&lab, r, true);
			mf_tt_set(&t, c, "%s", mf_strbuf_str(&lab));
			mf_tt_set(&t, c + 1, "%s", r->file ? base_name(r->file) : "");
		}
	}
	x->nomem |= lab.failed != 0;
	mf_strbuf_free(&lab);
	x->nomem |= !mf_tt_render(sb, &t);
	mf_tt_free(&t);
	if (which == SUM_FUNC && x->o.children) {
		char p[48];
		mf_fmt_fixed(p, sizeof(p), x->o.summary.pct, 2);
		mf_strbuf_printf(sb,
				 "[Sorted by inclusive share (--children); minimum function entries: %u, inclusive "
				 "percent cutoff: %s]\n",
				 x->o.summary.min, p);
		return;
	}
	footer(sb, what[which], &x->o.summary);
}

struct stmt {
	const char *file;
	uint32_t line;
	bool inl;
};

static bool same_file(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static size_t add_stmt(struct stmt *st, size_t n, size_t max, const char *file, uint32_t line, bool inl)
{
	size_t i;
	if (!line || n >= max)
		return n;
	for (i = 0; i < n; i++)
		if (st[i].line == line && same_file(st[i].file, file))
			return n;
	st[n].file = file;
	st[n].line = line;
	st[n].inl = inl;
	return n + 1;
}

/*
 * The statements of a cache line in address order, each source line once:
 * the one of its first byte, then the DWARF rows inside it (§6 Function
 * Details).  With --attribute ip, only the part inside the function.
 */
static size_t cl_statements(const struct mf_mrep *x, const struct mf_agg_row *f, const struct mf_agg_row *cl,
			    struct stmt *st, size_t max)
{
	const struct mf_mrun *run = x->run;
	uint64_t lo = cl->start, hi = cl->start + x->line_size;
	size_t n = 0, first, cnt, i;
	const struct mf_msym *s;

	if (!x->o.attribute_line && f->func) {
		if (f->start > lo)
			lo = f->start;
		if (f->size && f->start + f->size < hi && f->start + f->size > lo)
			hi = f->start + f->size;
	}
	if (f->mod < run->nmods) {
		if ((s = mf_mrun_sym(run, f->mod, lo)))
			n = add_stmt(st, n, max, s->file, s->line, (s->flags & MF_SYM_INLINE) != 0);
		first = mf_mrun_src_range(run, f->mod, lo, hi, &cnt);
		for (i = 0; i < cnt; i++) {
			const struct mf_msrc *r = &run->src[first + i];
			n = add_stmt(st, n, max, r->file, r->line, (r->flags & MF_SYM_INLINE) != 0);
		}
	}
	if (!n)
		n = add_stmt(st, n, max, cl->file, cl->line, false);
	return n;
}

static int cmp_cl_addr(const void *pa, const void *pb)
{
	const struct mf_agg_row *a = *(const struct mf_agg_row *const *)pa, *b = *(const struct mf_agg_row *const *)pb;
	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return 0;
}

static void stmt_cells(struct mf_mrep *x, struct mf_ttab *t, size_t c, const struct stmt *s, bool approx)
{
	char text[200];
	if (!s) {
		mf_tt_set(t, c, "?");
		mf_tt_set(t, c + 1, ">");
		return;
	}
	mf_tt_set(t, c, "%s%" PRIu32, approx || s->inl ? "~" : "", s->line);
	if (mf_srccache_text(&x->src, s->file, s->line, text, sizeof(text)) && text[0])
		mf_tt_set(t, c + 1, "> %s", text);
	else
		mf_tt_set(t, c + 1, ">");
}

static int cmp_cl_hot(const void *pa, const void *pb)
{
	const struct mf_agg_row *a = *(const struct mf_agg_row *const *)pa, *b = *(const struct mf_agg_row *const *)pb;
	if (a->metric != b->metric)
		return a->metric > b->metric ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* The fewest cache lines Function Details keeps of code without source lines. */
enum { NOSRC_MIN_LINES = 5 };

/*
 * Code without source lines (a library without debug information) shows
 * only its hot cache lines: those with at least the detail cutoff's % of the
 * function's metric while the cumulative % before them is at most its
 * cumulative cutoff, at least NOSRC_MIN_LINES (and the cutoff's minimum).
 * Marks keep[k] for cls[k] (k < n, the function's lines); returns how many
 * were left out, their metric in *left.
 */
static size_t hot_lines(const struct mf_mrep *x, const struct mf_agg_row *f, const struct mf_agg_row **cls, size_t n,
			bool *keep, uint64_t *left)
{
	const struct mf_agg_row **by = malloc(n * sizeof(*by));
	unsigned min = x->o.detail.min > NOSRC_MIN_LINES ? x->o.detail.min : NOSRC_MIN_LINES;
	double before = 0;
	size_t i, k, out = 0;

	*left = 0;
	for (k = 0; k < n; k++)
		keep[k] = true;
	if (!by || n <= min || !f->metric) {
		free(by);
		return 0;
	}
	memcpy(by, cls, n * sizeof(*by));
	qsort(by, n, sizeof(*by), cmp_cl_hot);
	for (i = 0; i < n; i++) {
		double p = (double)by[i]->metric / (double)f->metric * 100.0;
		bool take = i < min || (p >= x->o.detail.pct && before <= x->o.detail.cum + 1e-9);
		before += p;
		if (take)
			continue;
		for (k = 0; k < n && cls[k] != by[i]; k++)
			;
		keep[k] = false;
		*left += by[i]->metric;
		out++;
	}
	free(by);
	return out;
}

static void text_details(struct mf_mrep *x, struct mf_strbuf *sb)
{
	const struct mf_agg *a = &x->a;
	struct mf_ttab t = {0};
	size_t nf = mf_mrep_cut_rows(&a->funcs, &x->o.detail), i, j = 0, c, ncl = a->cls.n, j0, nfl, nleft, k;
	uint64_t left = 0;
	const struct mf_agg_row **cls = NULL;
	bool *keep = NULL;
	struct mf_strbuf lab;
	struct stmt st[128];
	char pct[48];

	mf_strbuf_puts(sb, "\nFunction Details\n");
	if (ncl && (!(cls = malloc(ncl * sizeof(*cls))) || !(keep = malloc(ncl * sizeof(*keep))))) {
		free(cls);
		x->nomem = true;
		return;
	}
	for (i = 0; i < ncl; i++)
		cls[i] = &a->cls.rows[i];
	if (ncl)
		qsort(cls, ncl, sizeof(*cls), cmp_cl_addr);
	class_cols(x, &t, false);
	mf_tt_col(&t, false, 1, "+Offset", NULL, NULL);
	mf_tt_col(&t, false, 1, "Line", NULL, NULL);
	mf_tt_col(&t, true, 2, ">Statement", NULL, NULL);
	mf_strbuf_init(&lab);
	for (i = 0; i < nf; i++) {
		const struct mf_agg_row *f = &a->funcs.rows[i], *prev = NULL;
		sb_reset(&lab);
		mf_strbuf_putc(&lab, '[');
		mf_mrep_func_label(&lab, f, true);
		mf_strbuf_printf(&lab, ", 0x%" PRIx64, f->start);
		if (f->file)
			mf_strbuf_printf(&lab, ", %s", base_name(f->file));
		mf_strbuf_putc(&lab, ']');
		mf_tt_row(&t, TT_PCT);
		mf_fmt_fixed(pct, sizeof(pct), f->pct, 2);
		mf_tt_set(&t, 0, "%s", pct);
		mf_tt_set(&t, 1, "%s", mf_strbuf_str(&lab));
		mf_tt_row(&t, TT_CELLS);
		c = set_classes(x, &t, 0, f, false);
		mf_tt_set(&t, c + 2, "Function Totals");
		mf_tt_row(&t, TT_RAW);
		mf_tt_set(&t, 0, " [%s]", f->file ? f->file : "source file unknown");
		/* The function's cache lines are consecutive in cls (sorted by function, then address). */
		for (; j < ncl && cls[j]->fn < i; j++)
			;
		for (j0 = j, nfl = 0; j0 + nfl < ncl && cls[j0 + nfl]->fn == i; nfl++)
			;
		nleft = 0;
		if (!f->file && nfl)
			nleft = hot_lines(x, f, cls + j0, nfl, keep + j0, &left);
		else
			for (k = 0; k < nfl; k++)
				keep[j0 + k] = true;
		nfl = 0;
		for (; j < ncl && cls[j]->fn == i; j++) {
			const struct mf_agg_row *cl = cls[j];
			size_t ns, k2;
			uint64_t off = cl->start >= f->start ? cl->start - f->start : f->start - cl->start;
			if (!keep[j])
				continue;
			ns = cl_statements(x, f, cl, st, sizeof(st) / sizeof(st[0]));
			/* §6: dashes around each cache line, shared by adjacent ones; tildes across gaps. */
			if (prev && prev->start + x->line_size != cl->start) {
				mf_tt_row(&t, TT_TILDE);
				mf_tt_row(&t, TT_DASH);
			} else if (!prev) {
				mf_tt_row(&t, TT_DASH);
			}
			mf_tt_row(&t, TT_CELLS);
			c = set_classes(x, &t, 0, cl, false);
			mf_tt_set(&t, c, "%s0x%" PRIx64, cl->start >= f->start ? "+" : "-", off);
			stmt_cells(x, &t, c + 1, ns ? &st[0] : NULL, cl->approx);
			for (k2 = 1; k2 < ns; k2++) {
				mf_tt_row(&t, TT_CELLS);
				stmt_cells(x, &t, c + 1, &st[k2], false);
			}
			mf_tt_row(&t, TT_DASH);
			prev = cl;
		}
		if (nleft) {
			mf_fmt_fixed(pct, sizeof(pct), (double)left / (double)f->metric * 100.0, 2);
			mf_tt_row(&t, TT_RAW);
			mf_tt_set(&t, 0,
				  " [no source lines: %zu colder cache line%s with %" PRIu64
				  " of the function's %s (%s%%) left out; --detail-cutoff 0,100 lists them]",
				  nleft, nleft == 1 ? "" : "s", left,
				  !x->a.itlb    ? "samples"
				  : x->a.by_cpu ? "CPU samples"
						: "sampled misses",
				  pct);
		}
	}
	x->nomem |= lab.failed != 0;
	mf_strbuf_free(&lab);
	free(cls);
	free(keep);
	x->nomem |= !mf_tt_render(sb, &t);
	mf_tt_free(&t);
	footer(sb, "function", &x->o.detail);
}

/* One caller or callee line of a call-graph entry: its share of f's inclusive samples, its samples, its name. */
static void cg_edge(struct mf_ttab *t, struct mf_strbuf *lab, const struct mf_agg_row *f,
		    const struct mf_agg_row *other, const struct mf_agg_edge *g, size_t idx)
{
	mf_tt_row(t, TT_CELLS);
	mf_tt_fixed(t, 3, f->incl ? (double)g->samples / (double)f->incl * 100.0 : NAN, 2);
	mf_tt_set(t, 4, "%" PRIu64, g->samples);
	sb_reset(lab);
	mf_mrep_func_label(lab, other, true);
	mf_tt_set(t, 5, "    %s [%zu]", mf_strbuf_str(lab), idx);
}

/*
 * The call graph of the sampled chains (HP Caliper's call-graph profile): an
 * entry per function in inclusive order, cut by the detail cutoff's percent
 * on the inclusive share, separated by dashes; each entry's callers above its
 * primary line and its callees below, with the share of the function's
 * inclusive samples that came through each (from whole chains, not from call
 * counts as gprof divides time), the largest first.
 */
static void text_callgraph(struct mf_mrep *x, struct mf_strbuf *sb)
{
	const struct mf_agg *a = &x->a;
	struct mf_ttab t = {0};
	struct mf_strbuf lab;
	size_t *order = mf_agg_by_inclusive(a), *idx = calloc(a->funcs.n + 1, sizeof(*idx));
	size_t i, k, n = 0;
	char p[48];

	if (!order || !idx) {
		free(order);
		free(idx);
		x->nomem = true;
		return;
	}
	for (i = 0; i < a->funcs.n && a->funcs.rows[order[i]].incl; i++)
		idx[order[i]] = i + 1;
	mf_strbuf_puts(sb, "\nCall Graph\n");
	mf_strbuf_puts(sb,
		       "Shares come from the sampled whole call chains, not from call counts: a caller's % is\n"
		       "the part of the function's inclusive samples whose chain passes through that caller,\n"
		       "a callee's the part that passes on into that callee.  A recursive function counts\n"
		       "once per sample; its calls to itself are not listed.\n");
	mf_tt_col(&t, true, 1, "Index", NULL, NULL);
	mf_tt_col(&t, false, 1, "% Total", "Incl", NULL);
	mf_tt_col(&t, false, 1, "% Total", "Self", NULL);
	mf_tt_col(&t, false, 1, "% of", "Func", "Incl");
	mf_tt_col(&t, false, 1, "Samples", NULL, NULL);
	mf_tt_col(&t, true, 2, "Function: callers above, callees below", NULL, NULL);
	mf_strbuf_init(&lab);
	for (i = 0; i < a->funcs.n; i++) {
		const struct mf_agg_row *f = &a->funcs.rows[order[i]];
		double ip = isnan(f->incl_pct) ? 0 : f->incl_pct;
		if (!f->incl || (i >= x->o.detail.min && !(ip >= x->o.detail.pct)))
			break;
		if (n++)
			mf_tt_row(&t, TT_DASH);
		for (k = 0; k < a->nedges; k++)
			if (a->edges[k].callee == order[i])
				cg_edge(&t, &lab, f, &a->funcs.rows[a->edges[k].caller], &a->edges[k],
					idx[a->edges[k].caller]);
		mf_tt_row(&t, TT_CELLS);
		mf_tt_set(&t, 0, "[%zu]", idx[order[i]]);
		mf_tt_fixed(&t, 1, f->incl_pct, 2);
		mf_tt_fixed(&t, 2, f->pct, 2);
		mf_tt_set(&t, 4, "%" PRIu64, f->incl);
		sb_reset(&lab);
		mf_mrep_func_label(&lab, f, true);
		mf_tt_set(&t, 5, "%s", mf_strbuf_str(&lab));
		for (k = 0; k < a->nedges; k++)
			if (a->edges[k].caller == order[i])
				cg_edge(&t, &lab, f, &a->funcs.rows[a->edges[k].callee], &a->edges[k],
					idx[a->edges[k].callee]);
	}
	x->nomem |= lab.failed != 0;
	mf_strbuf_free(&lab);
	free(order);
	free(idx);
	x->nomem |= !mf_tt_render(sb, &t);
	mf_tt_free(&t);
	mf_fmt_fixed(p, sizeof(p), x->o.detail.pct, 2);
	mf_strbuf_printf(sb, "[Minimum call graph entries: %u, inclusive percent cutoff: %s (--detail-cutoff)]\n",
			 x->o.detail.min, p);
}

void mf_mrep_text(struct mf_mrep *x, struct mf_strbuf *sb)
{
	text_header(x, sb);
	text_sampling(x, sb);
	text_metrics(x, sb);
	/* §3: the Thread Summary only when there are several threads. */
	if (x->a.threads.n > 1)
		text_summary(x, sb, SUM_THREAD);
	text_summary(x, sb, SUM_MOD);
	text_summary(x, sb, SUM_FUNC);
	text_details(x, sb);
	if (x->a.chains)
		text_callgraph(x, sb);
}
