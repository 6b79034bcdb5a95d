/* SPDX-License-Identifier: MIT */
/*
 * HTML writer: one self-contained page (inline CSS and SVG, no script, nothing
 * fetched) for a capacity planner: a title naming the systems and period, the
 * period, findings in plain words (one line for the same finding about many
 * series), a summary table of every series side by side, with a calendar key in
 * --by a table per series and bucket, then per series (the groups of
 * --by without their time key) charts over its intervals, whatever --by says
 * (the report's interval_results): CPI, L1MP and RNI with the LSPR class as
 * bands, LPARCPU from 0 with a line at the engine count, the sourcing of L1
 * misses; a table of the whole period (sums merged, then divided) and its
 * peak intervals (--html-intervals); and a glossary of the metrics shown.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/base/escape.h"
#include "mfstat/base/tz.h"
#include "mfstat/report/output.h"
#include "mfstat/base/strbuf.h"
#include "mfstat/report/svg.h"

#define MAX_TABLE_ROWS 500 /* interval rows per series in the page; the CSV has them all */
#define PEAK_ROWS 10       /* --html-intervals peaks: the busiest intervals of each series */
#define LINE_POINTS 168    /* points of a line chart, a week in hours (averaged buckets beyond) */
#define BAR_POINTS 42      /* bars of the sourcing chart, a week in 4-hour bars */
#define MAX_SERIES 200     /* series drawn; the rest are listed */

static const char *const lspr_colors[3] = {"#2ca02c", "#ff7f0e", "#d62728"};
static const char *const lspr_names[3] = {"LOW", "AVERAGE", "HIGH"};
static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b",
				      "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#ff7f0e"};

struct series {
	const struct mf_group *first; /* its key */
	size_t n, cap;
	const struct mf_result **pts; /* per-interval results, in time order */
	struct mf_group *total;       /* merged over the period */
	struct mf_result total_res;
	uint64_t engines;            /* the most CPUs of an interval */
	size_t peak;                 /* the interval of the highest LPARCPU, or n when none */
	double zone_offset;          /* seconds east of UTC of the report's zone at its first interval */
	const struct mf_report *rep; /* for the offsets of its points (--tz smf) */
};

/*
 * The offset in force at utc_us in a series of a per-record zone (smf): that of
 * the last point starting at or before it (the first point's before them all),
 * so ticks after a change of summer time carry the records' new offset.
 */
static int32_t series_offset_at(const void *ctx, int64_t utc_us)
{
	const struct series *s = ctx;
	size_t lo = 0, hi = s->n;
	const struct mf_group *g;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->pts[mid]->group->has_start && s->pts[mid]->group->start_us <= utc_us)
			lo = mid + 1;
		else
			hi = mid;
	}
	g = s->pts[lo ? lo - 1 : 0]->group;
	return mf_report_offset(s->rep, g, g->has_start ? g->start_us : utc_us);
}

static bool same_series(const struct mf_group *a, const struct mf_group *b)
{
	return a->family == b->family && a->system == b->system && a->lpar == b->lpar && a->pool == b->pool &&
	       a->cpu == b->cpu && a->input == b->input && mf_group_place_cmp(a, b) == 0;
}

/* Text from the input or the tables, for element text and attribute values (include/mfstat/base/escape.h). */
static void esc(struct mf_strbuf *sb, const char *s)
{
	mf_escape_xml(sb, s);
}

static void series_name(struct mf_strbuf *sb, const struct mf_report *rep, const struct mf_group *g)
{
	const char *sys = mf_strtab_get(rep->tab, g->system), *lpar = mf_strtab_get(rep->tab, g->lpar);
	const char *pool = mf_pool_name(g->pool);
	size_t before = sb->len;
	if (sys)
		esc(sb, sys);
	if (lpar) {
		mf_strbuf_puts(sb, sb->len > before ? " / " : "");
		esc(sb, lpar);
	}
	if (pool) {
		mf_strbuf_puts(sb, sb->len > before ? " / " : "");
		esc(sb, pool);
	}
	if (mf_polarity_name(g->polarity))
		mf_strbuf_printf(sb, "%s%s", sb->len > before ? " / " : "", mf_polarity_name(g->polarity));
	if (g->lpar_weight >= 0)
		mf_strbuf_printf(sb, "%sweight %d", sb->len > before ? " / " : "", (int)g->lpar_weight);
	if (g->drawer >= 0)
		mf_strbuf_printf(sb, "%sdrawer %d", sb->len > before ? " / " : "", (int)g->drawer);
	if (g->chip >= 0)
		mf_strbuf_printf(sb, "%schip %d", sb->len > before ? " / " : "", (int)g->chip);
	if (g->cpu >= 0)
		mf_strbuf_printf(sb, "%sCPU %lld", sb->len > before ? " / " : "", (long long)g->cpu);
	if (sb->len == before)
		mf_strbuf_puts(sb, "all data");
	mf_strbuf_puts(sb, " (");
	esc(sb, g->family->display);
	mf_strbuf_puts(sb, ")");
}

static void num_cell(struct mf_strbuf *sb, const struct mf_family *fam, int idx, const struct mf_result *r)
{
	if (idx == MF_REPORT_LSPR) {
		const char *l = mf_lspr_name(r->lspr);
		mf_strbuf_printf(sb, "<td class=\"%s\">%s</td>", l ? l : "na", l ? l : "n/a");
	} else if (idx < 0) {
		mf_strbuf_puts(sb, "<td></td>");
	} else if (isnan(r->value[idx])) {
		mf_strbuf_puts(sb, "<td class=\"na\">n/a</td>");
	} else {
		char b[64];
		mf_fmt_metric(b, sizeof(b), mf_shown(r->value[idx], fam->metrics[idx].digits), fam->metrics[idx].digits,
			      false);
		mf_strbuf_printf(sb, "<td>%s</td>", b);
	}
}

static double val(const struct mf_result *r, const char *name)
{
	int idx = mf_family_metric(r->group->family, name);
	return idx >= 0 ? r->value[idx] : NAN;
}

/* What every section of the page shares. */
struct page {
	const struct mf_report *rep;
	const struct mf_result *src; /* the results drawn: per series and interval when kept, else the report's */
	size_t nsrc;
	unsigned src_by; /* their MF_BY_* bits */
	const char **keys;
	size_t nkeys;
	int *map;                  /* per family and column: the metric, or -1 */
	uint64_t *expected;        /* per result of src: the CPUs expected */
	char zone[64];             /* the zone for the time axes */
	struct mf_grouper *totals; /* holds the series' totals */
};

/* How a chart of a series looks. */
struct look {
	const char *title, *ylabel;
	bool bands, stacked;
	const bool *gap; /* points left out (NaN), or NULL */
	bool engines;    /* from 0, with a line at the engine count */
	size_t max_points;
};

static void chart_frame(struct mf_svg_chart *c, const struct page *pg, const struct series *s, const struct look *lk)
{
	memset(c, 0, sizeof(*c));
	c->width = 760;
	c->height = 240;
	c->title = lk->title;
	c->y_label = lk->ylabel;
	c->n = s->n;
	c->x_is_time = s->n && s->pts[0]->group->has_start;
	c->x_offset = s->zone_offset;
	c->x_tz = pg->rep->tz && !mf_tz_is_utc(pg->rep->tz) && !mf_tz_per_record(pg->rep->tz) ? pg->rep->tz : NULL;
	if (pg->rep->tz && mf_tz_per_record(pg->rep->tz) && s->n) {
		c->x_offset_at = series_offset_at;
		c->x_offset_ctx = s;
	}
	c->x_zone = pg->zone;
	c->stacked = lk->stacked;
	c->y_min = c->y_max = NAN;
	c->max_points = lk->max_points;
	if (lk->stacked) {
		c->y_min = 0;
		c->y_max = 100;
	}
	if (lk->engines)
		c->y_min = 0;
	c->nbands = lk->bands ? 3 : 0;
	c->band_names = lspr_names;
	c->band_colors = lspr_colors;
}

/* A chart of some metrics of a series over its intervals. */
static void chart(struct mf_strbuf *sb, const struct page *pg, const struct series *s, const char *const *names,
		  size_t nnames, const struct look *lk)
{
	struct mf_svg_series ser[10];
	double *x = malloc(s->n * sizeof(*x));
	double *y = malloc(s->n * nnames * sizeof(*y));
	int *band = lk->bands ? malloc(s->n * sizeof(*band)) : NULL;
	struct mf_svg_chart c;
	char ref[64];
	size_t i, k, used = 0;

	if (!x || !y || (lk->bands && !band))
		goto out;
	for (i = 0; i < s->n; i++) {
		x[i] = s->pts[i]->group->has_start ? (double)s->pts[i]->group->start_us / 1e6 : (double)i;
		if (band)
			band[i] = s->pts[i]->lspr;
	}
	for (k = 0; k < nnames && used < 10; k++) {
		if (mf_family_metric(s->first->family, names[k]) < 0)
			continue;
		for (i = 0; i < s->n; i++)
			y[used * s->n + i] = lk->gap && lk->gap[i] ? NAN : val(s->pts[i], names[k]);
		ser[used].name = names[k];
		ser[used].color = palette[used % (sizeof(palette) / sizeof(palette[0]))];
		ser[used].y = &y[used * s->n];
		used++;
	}
	if (!used)
		goto out;
	chart_frame(&c, pg, s, lk);
	c.x = x;
	c.nseries = used;
	c.series = ser;
	c.band = band;
	if (lk->engines && s->engines) {
		snprintf(ref, sizeof(ref), "%llu engine%s", (unsigned long long)s->engines, s->engines == 1 ? "" : "s");
		c.ref_label = ref;
		c.ref_y = (double)s->engines * 100;
	}
	mf_strbuf_puts(sb, "<figure>");
	mf_svg_chart(sb, &c);
	mf_strbuf_puts(sb, "</figure>\n");
out:
	free(x);
	free(y);
	free(band);
}

/* An interval's start in the report's zone, or "-". */
static void fmt_time(const struct mf_report *rep, char *buf, size_t n, const struct mf_group *g)
{
	if (g->has_start)
		mf_report_label(rep, g, g->start_us, buf, n);
	else
		snprintf(buf, n, "-");
}
/* Series named in a finding or the title before "and N more". */
#define NAMED 3
/* Up to this many are all named. */
#define NAMED_ALL 4

/* The names of series ser[idx[0..n)]: all of up to NAMED_ALL, else NAMED of them "and N more". */
static void series_names(struct mf_strbuf *sb, const struct mf_report *rep, const struct series *ser, const size_t *idx,
			 size_t n)
{
	size_t k, shown = n <= NAMED_ALL ? n : NAMED;
	for (k = 0; k < shown; k++) {
		mf_strbuf_puts(sb, k == 0 ? "" : k + 1 == n ? " and " : ", ");
		series_name(sb, rep, ser[idx[k]].first);
	}
	if (shown < n)
		mf_strbuf_printf(sb, " and %zu more", n - shown);
}

/* A pool as IBM writes it in prose ("zIIP"); NULL for none. */
static const char *pool_prose(int pool)
{
	static const char *const names[MF_NPOOLS] = {NULL, "general-purpose", "zIIP", "zAAP", "IFL", "ICF", "zCBP"};
	return pool > 0 && pool < MF_NPOOLS ? names[pool] : NULL;
}

/* The highest RNI of an interval: where, its L1MP and CPI, and where its level-1 misses were sourced. */
static void rni_finding(struct mf_strbuf *sb, const struct page *pg, const struct mf_result *top,
			const struct mf_result *other)
{
	static const char *const src[] = {"L15P", "L2LP", "L2RP", "L2P", "L3P", "L4LP", "L4RP", "MEMP"};
	const struct mf_report *rep = pg->rep;
	char t[48];
	size_t k;
	fmt_time(rep, t, sizeof(t), top->group);
	if (top->group->pool == MF_POOL_GCP)
		mf_strbuf_printf(sb, "<li>The highest RNI of a general-purpose pool is <b>%.3f</b>, in ",
				 val(top, "RNI"));
	else
		mf_strbuf_printf(sb, "<li>The highest RNI is <b>%.3f</b>, in ", val(top, "RNI"));
	series_name(sb, rep, top->group);
	mf_strbuf_printf(sb, " at %s (L1MP %.2f, CPI %.3f). Where its level-1 misses were found:", t, val(top, "L1MP"),
			 val(top, "CPI"));
	for (k = 0; k < sizeof(src) / sizeof(src[0]); k++) {
		double v = val(top, src[k]);
		if (!isnan(v))
			mf_strbuf_printf(sb, " %s %.2f%%", src[k], v);
	}
	mf_strbuf_puts(sb, "; the farther caches and memory weigh most in RNI.");
	if (other) {
		const char *p = pool_prose(other->group->pool);
		fmt_time(rep, t, sizeof(t), other->group);
		mf_strbuf_printf(sb, " %s%s pool is higher: <b>%.3f</b> in ",
				 p && strchr("aeiouAEIOU", p[0]) ? "An " : "A ", p ? p : "other", val(other, "RNI"));
		series_name(sb, rep, other->group);
		mf_strbuf_printf(sb, " at %s%s.", t,
				 other->group->family->lspr &&
						 ((other->group->family->lspr_exclude >> other->group->pool) & 1u)
					 ? ", a pool the LSPR class leaves out"
					 : "");
	}
	mf_strbuf_puts(sb, "</li>\n");
}

/* What a series' LSPR finding is: -1 none, 0..2 its class over the period (3: n/a), 4 no input, 5+pool excluded. */
static int lspr_kind(const struct series *s)
{
	unsigned n = 0;
	size_t k;
	if (!s->first->family->lspr)
		return -1;
	if (s->total_res.lspr_why == MF_LSPR_ONLY_EXCLUDED)
		return 5 + s->first->pool;
	if (s->total_res.lspr_why == MF_LSPR_NO_INPUT)
		return 4;
	for (k = 0; k < s->n; k++)
		n += s->pts[k]->lspr >= 0 && s->pts[k]->lspr < 3;
	if (s->n <= 1 || !n)
		return -1;
	return s->total_res.lspr >= 0 && s->total_res.lspr < 3 ? s->total_res.lspr : 3;
}

/*
 * The LSPR finding of the series idx[0..n) sharing kind: one line, naming one series with its
 * numbers, or many with a count and the first few names (the summary table has their numbers).
 */
static void lspr_finding(struct mf_strbuf *sb, const struct mf_report *rep, const struct series *ser, const size_t *idx,
			 size_t n, int kind)
{
	const struct series *s = &ser[idx[0]];
	mf_strbuf_puts(sb, "<li>");
	if (kind >= 4) {
		const char *p = kind >= 5 ? pool_prose(kind - 5) : NULL;
		if (n == 1)
			series_name(sb, rep, s->first);
		else if (p)
			mf_strbuf_printf(sb, "%zu %s pools", n, p);
		else
			mf_strbuf_printf(sb, "%zu series", n);
		mf_strbuf_printf(sb, " %s no LSPR class", n == 1 ? "has" : "have");
		if (n > 1) {
			mf_strbuf_puts(sb, " (");
			series_names(sb, rep, ser, idx, n);
			mf_strbuf_puts(sb, ")");
		}
		if (kind >= 5)
			mf_strbuf_printf(sb,
					 ": %s engines are zIIPs, zAAPs or zCBPs, which the LSPR match leaves out "
					 "since December 2024.</li>\n",
					 n == 1 ? "its" : "their");
		else
			mf_strbuf_puts(sb,
				       ": L1MP or RNI is not available (the extended counters are missing or a "
				       "divisor is zero).</li>\n");
		return;
	}
	{
		unsigned cnt[3] = {0, 0, 0}, changes = 0;
		size_t j, k;
		const char *whole = mf_lspr_name(kind < 3 ? kind : -1);
		for (j = 0; j < n; j++) {
			int prev = -9;
			for (k = 0; k < ser[idx[j]].n; k++) {
				int l = ser[idx[j]].pts[k]->lspr;
				if (l >= 0 && l < 3)
					cnt[l]++;
				if (l >= 0 && prev >= 0 && l != prev)
					changes++;
				if (l >= 0)
					prev = l;
			}
		}
		if (n == 1) {
			series_name(sb, rep, s->first);
			mf_strbuf_printf(sb,
					 ": LSPR class %s over the whole period (L1MP %.2f, RNI %.3f); per interval ",
					 whole ? whole : "n/a", s->total_res.lspr_l1mp, s->total_res.lspr_rni);
		} else {
			const char *p = pool_prose(s->first->pool);
			for (j = 1; j < n && p; j++)
				if (ser[idx[j]].first->pool != s->first->pool)
					p = NULL; /* pools of several kinds: series */
			if (p)
				mf_strbuf_printf(sb, "%zu %s pools are", n, p);
			else
				mf_strbuf_printf(sb, "%zu series are", n);
			mf_strbuf_printf(sb, " LSPR class %s over the whole period (", whole ? whole : "n/a");
			series_names(sb, rep, ser, idx, n);
			mf_strbuf_puts(sb, "; the summary has each one's L1MP and RNI); per interval, together, ");
		}
		mf_strbuf_printf(sb, "LOW %u, AVERAGE %u, HIGH %u times, changing %u time%s.</li>\n", cnt[0], cnt[1],
				 cnt[2], changes, changes == 1 ? "" : "s");
	}
}

/*
 * Findings: computed from the data, each with its numbers.  The same finding about many series
 * is one line with their count and first names.
 */
static void findings(struct mf_strbuf *sb, const struct page *pg, struct series *ser, size_t nser)
{
	const struct mf_report *rep = pg->rep;
	const struct mf_result *top = NULL, *top_gp = NULL;
	size_t i, bad = 0, items = 0;
	char t[48];
	const struct mf_result *first_bad = NULL;
	int *kind = malloc((nser + 1) * sizeof(*kind));
	size_t *idx = malloc((nser + 1) * sizeof(*idx));

	mf_strbuf_puts(sb, "<h2>Findings</h2>\n<ul class=\"findings\">\n");
	for (i = 0; i < pg->nsrc; i++) {
		const struct mf_result *r = &pg->src[i];
		double rni = val(r, "RNI");
		if (!isnan(rni) && (!top || rni > val(top, "RNI")))
			top = r;
		if (!isnan(rni) && r->group->pool == MF_POOL_GCP && (!top_gp || rni > val(top_gp, "RNI")))
			top_gp = r;
		if (r->doubts & MF_DOUBT_NEGATIVE) {
			if (!bad++)
				first_bad = r;
		}
	}
	/* The planner's question is which general-purpose pool (the LSPR class is theirs) is highest. */
	if (top_gp) {
		rni_finding(sb, pg, top_gp, top != top_gp && val(top, "RNI") > val(top_gp, "RNI") ? top : NULL);
		items++;
	} else if (top) {
		rni_finding(sb, pg, top, NULL);
		items++;
	}
	if (!kind || !idx)
		sb->failed = 1; /* out of memory: the page is not written */
	if (kind && idx) {
		for (i = 0; i < nser; i++)
			kind[i] = lspr_kind(&ser[i]);
		for (i = 0; i < nser; i++) {
			size_t j, n = 0;
			int kd = kind[i];
			if (kd == -1)
				continue;
			for (j = i; j < nser; j++)
				if (kind[j] == kd) {
					idx[n++] = j;
					kind[j] = -1; /* told */
				}
			lspr_finding(sb, rep, ser, idx, n, kd);
			items++;
		}
	}
	free(kind);
	free(idx);
	if (bad) {
		const struct mf_family *fam = first_bad->group->family;
		fmt_time(rep, t, sizeof(t), first_bad->group);
		mf_strbuf_printf(sb,
				 "<li class=\"warn\">%zu interval%s with inconsistent data: %s is out of its range "
				 "(",
				 bad, bad == 1 ? "" : "s", fam->metrics[first_bad->negative_metric].name);
		{
			char b[40];
			mf_strbuf_add(sb, b, (size_t)mf_fmt_g15(first_bad->value[first_bad->negative_metric], b));
		}
		mf_strbuf_puts(sb, "), first in ");
		series_name(sb, rep, first_bad->group);
		mf_strbuf_printf(sb, " at %s. ", t);
		esc(sb, fam->metrics[first_bad->negative_metric].desc);
		mf_strbuf_puts(sb, ".</li>\n");
		items++;
	}
	{
		/* Time counted twice: overlapping intervals of a CPU, busy beyond the CPUs (the warnings' words). */
		char text[1024];
		if (rep->overlap.cpus) {
			mf_overlap_describe(rep, text, sizeof(text));
			text[0] = (char)toupper((unsigned char)text[0]);
			mf_strbuf_puts(sb, "<li class=\"warn\">");
			esc(sb, text);
			mf_strbuf_puts(sb, ".</li>\n");
			items++;
		}
		if (mf_busy_describe(rep->results, rep->ngroups, rep->tab, text, sizeof(text))) {
			mf_strbuf_puts(sb, "<li class=\"warn\">Impossible busy: ");
			esc(sb, text);
			mf_strbuf_puts(sb, ".</li>\n");
			items++;
		}
	}
	if (!items)
		mf_strbuf_puts(sb,
			       "<li>No findings: the data has no RNI, LSPR class or range problems to report.</li>\n");
	mf_strbuf_puts(sb, "</ul>\n");
}

static const char css[] =
	"body{font-family:sans-serif;margin:1.5em auto;max-width:1100px;color:#222;background:#fff}"
	"h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:2em}"
	"table{border-collapse:collapse;font-size:.8em;margin:.5em 0}"
	"th,td{border:1px solid #ddd;padding:2px 6px;text-align:right}th{background:#f3f3f3}"
	"td.id,th.id{text-align:left;white-space:nowrap}td.na{color:#999}td.LOW{background:#e3f4e3}"
	".wide{overflow-x:auto}"
	"td.AVERAGE{background:#fff0de}td.HIGH{background:#fadcdc}tr.short td{background:#f6f6f6}"
	".warn{color:#a00}.note{color:#555;font-size:.85em}figure{margin:.5em 0}"
	"ul.findings li{margin:.3em 0}figure,pre{overflow-x:auto}"
	"dl.glossary dt{font-weight:bold;margin-top:.4em}dl.glossary dd{margin-left:1.5em}"
	"@media print{body{max-width:none}section{break-inside:avoid-page}details{display:block}}\n";

/* Finds or appends the series of group r, then appends r to it. */
static int add_to_series(struct series **ser, size_t *nser, size_t *cap, const struct mf_result *r)
{
	struct series *s;
	size_t k;
	for (k = 0; k < *nser && !same_series((*ser)[k].first, r->group); k++)
		;
	if (k == *nser) {
		if (*nser == *cap) {
			size_t ncap = *cap ? *cap * 2 : 16;
			struct series *n2 = realloc(*ser, ncap * sizeof(*n2));
			if (!n2)
				return MF_ENOMEM;
			*ser = n2;
			*cap = ncap;
		}
		memset(&(*ser)[*nser], 0, sizeof((*ser)[*nser]));
		(*ser)[*nser].first = r->group;
		(*nser)++;
	}
	s = &(*ser)[k];
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 16;
		const struct mf_result **p = realloc(s->pts, ncap * sizeof(*p));
		if (!p)
			return MF_ENOMEM;
		s->pts = p;
		s->cap = ncap;
	}
	s->pts[s->n++] = r;
	return 0;
}

/* Engines, peak and zone offset of a series (pg->expected is per result of pg->src). */
static void series_facts(const struct page *pg, struct series *s)
{
	size_t i;
	double best = NAN;
	s->rep = pg->rep;
	s->peak = s->n;
	s->engines = 0;
	for (i = 0; i < s->n; i++) {
		uint64_t e = pg->expected[s->pts[i] - pg->src];
		double v = val(s->pts[i], "LPARCPU");
		if (e > s->engines)
			s->engines = e;
		if (!isnan(v) && (isnan(best) || v > best)) {
			best = v;
			s->peak = i;
		}
	}
	s->zone_offset = s->n && s->pts[0]->group->has_start
				 ? mf_report_offset(pg->rep, s->pts[0]->group, s->pts[0]->group->start_us)
				 : 0;
}

/* The whole period of each series: its groups merged in g (sum, then divide), and its metrics. */
static int series_totals(const struct page *pg, struct mf_grouper *g, struct series *ser, size_t nser)
{
	const struct mf_report *rep = pg->rep;
	size_t ng, i, k;
	struct mf_group *const *mg = mf_grouper_groups(g, rep->tab, &ng);
	for (k = 0; k < nser; k++) {
		struct series *s = &ser[k];
		series_facts(pg, s);
		for (i = 0; i < ng; i++)
			if (same_series(mg[i], s->first))
				s->total = mg[i];
		if (!s->total)
			continue;
		s->total_res.value = malloc(s->total->family->nmetrics * sizeof(double) + 8);
		s->total_res.na = calloc(s->total->family->nmetrics + 1, sizeof(struct mf_na));
		if (!s->total_res.value || !s->total_res.na)
			return MF_ENOMEM;
		mf_metrics_compute(rep->kb, s->total, &rep->metrics, &s->total_res);
	}
	return 0;
}

/* A metric of a result as a cell, with the family's decimals; n/a when missing. */
static void metric_cell(struct mf_strbuf *sb, const struct mf_result *r, const char *name)
{
	int idx = r ? mf_family_metric(r->group->family, name) : -1;
	if (idx < 0)
		mf_strbuf_puts(sb, "<td class=\"na\">n/a</td>");
	else
		num_cell(sb, r->group->family, idx, r);
}

/* The summary: every series side by side, over its whole period. */
static void summary_table(struct mf_strbuf *sb, const struct page *pg, const struct series *ser, size_t nser)
{
	const struct mf_report *rep = pg->rep;
	size_t k;
	mf_strbuf_puts(sb,
		       "<h2>Summary</h2>\n<p class=\"note\">Each series over its whole period: averages are the "
		       "metrics of its summed counters; the peak is its busiest interval.</p>\n"
		       "<div class=\"wide\"><table class=\"summary\"><tr><th class=\"id\">series</th>"
		       "<th class=\"id\">period</th><th>intervals</th><th>engines</th><th>LPARCPU average</th>"
		       "<th>LPARCPU peak</th><th class=\"id\">peak at</th><th>CPI</th><th>L1MP</th><th>RNI</th>"
		       "<th>LSPR</th></tr>\n");
	for (k = 0; k < nser; k++) {
		const struct series *s = &ser[k];
		const struct mf_result *tot = s->total ? &s->total_res : NULL;
		int64_t a, b;
		char ta[48], tb[48];
		mf_strbuf_puts(sb, "<tr><td class=\"id\">");
		series_name(sb, rep, s->first);
		mf_strbuf_puts(sb, "</td><td class=\"id\">");
		if (s->total && mf_group_period(s->total, &a, &b)) {
			mf_report_label(rep, s->pts[0]->group, a, ta, sizeof(ta));
			mf_report_label(rep, s->pts[s->n - 1]->group, b, tb, sizeof(tb));
			mf_strbuf_printf(sb, "%s<br>to %s", ta, tb);
		} else {
			mf_strbuf_puts(sb, "-");
		}
		mf_strbuf_printf(sb, "</td><td>%zu</td><td>%llu</td>", s->n, (unsigned long long)s->engines);
		metric_cell(sb, tot, "LPARCPU");
		metric_cell(sb, s->peak < s->n ? s->pts[s->peak] : NULL, "LPARCPU");
		if (s->peak < s->n)
			fmt_time(rep, ta, sizeof(ta), s->pts[s->peak]->group);
		mf_strbuf_printf(sb, "<td class=\"id\">%s</td>", s->peak < s->n ? ta : "-");
		metric_cell(sb, tot, "CPI");
		metric_cell(sb, tot, "L1MP");
		metric_cell(sb, tot, "RNI");
		if (tot)
			num_cell(sb, s->total->family, MF_REPORT_LSPR, tot);
		else
			mf_strbuf_puts(sb, "<td class=\"na\">n/a</td>");
		mf_strbuf_puts(sb, "</tr>\n");
	}
	mf_strbuf_puts(sb, "</table></div>\n");
}

/* Rows of the calendar table (--by ...,day); the CSV has them all. */
#define MAX_CALENDAR_ROWS 2000

/*
 * With a calendar key in --by (day, hour, week, month, hour-of-day, weekday): the report's
 * groups as a table, one row per series and bucket, the bucket labelled as the text report
 * labels it (in the report's zone), the metrics of the bucket's summed counters.
 */
static void calendar_table(struct mf_strbuf *sb, const struct page *pg)
{
	const struct mf_report *rep = pg->rep;
	unsigned bits[MF_EXTRA_KEYS_MAX], cal[MF_EXTRA_KEYS_MAX];
	size_t nextra, ncal = 0, i, k, rows;
	bool *shown;
	if (!(rep->by & MF_BY_CALENDAR) || !rep->results || !rep->ngroups)
		return;
	nextra = mf_report_extra_keys(rep, bits);
	for (k = 0; k < nextra; k++)
		if (bits[k] & MF_BY_CALENDAR)
			cal[ncal++] = bits[k];
	if (!ncal)
		return;
	shown = calloc(pg->nkeys + 1, sizeof(*shown));
	if (!shown) {
		sb->failed = 1;
		return;
	}
	for (i = 0; i < rep->ngroups; i++) {
		const int *map = pg->map + (size_t)(rep->results[i].group->family - rep->kb->families) * pg->nkeys;
		for (k = 0; k < pg->nkeys; k++)
			shown[k] = shown[k] || map[k] != -1;
	}
	mf_strbuf_puts(sb, "<h2>By ");
	for (k = 0; k < ncal; k++) {
		const char *c = mf_by_name(cal[k]);
		mf_strbuf_puts(sb, k ? " and " : "");
		for (; *c; c++)
			mf_strbuf_printf(sb, "%c", *c == '-' ? ' ' : *c);
	}
	mf_strbuf_printf(sb,
			 "</h2>\n<p class=\"note\">Each series per %s of --by, in the report's zone (%s) as the "
			 "text report labels it: the metrics of its summed counters.</p>\n",
			 mf_by_name(cal[0]), pg->zone);
	mf_strbuf_puts(sb, "<div class=\"wide\"><table class=\"calendar\"><tr><th class=\"id\">series</th>");
	for (k = 0; k < ncal; k++)
		mf_strbuf_printf(sb, "<th class=\"id\">%s</th>", mf_by_name(cal[k]));
	for (k = 0; k < pg->nkeys; k++)
		if (shown[k]) {
			mf_strbuf_puts(sb, "<th>");
			esc(sb, pg->keys[k]);
			mf_strbuf_puts(sb, "</th>");
		}
	mf_strbuf_puts(sb, "</tr>\n");
	rows = rep->ngroups < MAX_CALENDAR_ROWS ? rep->ngroups : MAX_CALENDAR_ROWS;
	for (i = 0; i < rows; i++) {
		const struct mf_result *r = &rep->results[i];
		const struct mf_family *fam = r->group->family;
		const int *map = pg->map + (size_t)(fam - rep->kb->families) * pg->nkeys;
		mf_strbuf_puts(sb, "<tr><td class=\"id\">");
		series_name(sb, rep, r->group);
		mf_strbuf_puts(sb, "</td>");
		for (k = 0; k < ncal; k++) {
			char b[64];
			const char *v = mf_report_key_text(rep, r->group, cal[k], b, sizeof(b));
			mf_strbuf_puts(sb, "<td class=\"id\">");
			esc(sb, v ? v : "-");
			mf_strbuf_puts(sb, "</td>");
		}
		for (k = 0; k < pg->nkeys; k++)
			if (shown[k])
				num_cell(sb, fam, map[k], r);
		mf_strbuf_puts(sb, "</tr>\n");
	}
	mf_strbuf_puts(sb, "</table></div>\n");
	if (rows < rep->ngroups)
		mf_strbuf_printf(sb,
				 "<p class=\"note\">The table shows the first %zu of %zu rows; -f csv has all of "
				 "them.</p>\n",
				 rows, rep->ngroups);
	free(shown);
}

/* The counters' result of the LPAR a system ran in (rep->lpar_results), or NULL. */
static const struct mf_result *lpar_result(const struct mf_report *rep, const struct mf_lpar_row *row)
{
	size_t i;
	for (i = 0; i < rep->nlpar_results; i++) {
		const struct mf_group *g = rep->lpar_results[i].group;
		const char *name = mf_strtab_get(rep->tab, g->lpar);
		if (row->system && g->system == row->system && name && strcmp(name, row->name) == 0)
			return &rep->lpar_results[i];
	}
	return NULL;
}

/* The pools of an LPAR row that have logical processors: weights or logical processors by polarity. */
static void lpar_pools(struct mf_strbuf *sb, const struct mf_lpar_row *row, bool weights)
{
	char buf[512];
	mf_lpar_pools_text(row, weights, "&nbsp;", buf, sizeof(buf));
	mf_strbuf_puts(sb, buf); /* pool and polarity names only: nothing to escape */
}

/*
 * The LPAR table (SMF type 70): every LPAR of the machines read, its weights and logical
 * processors by polarity, busy as RMF saw it and, for the LPARs whose systems wrote type 113
 * records, busy from the counters, CPI, RNI and the LSPR class.
 */
static void lpar_table(struct mf_strbuf *sb, const struct page *pg)
{
	const struct mf_report *rep = pg->rep;
	size_t i;
	if (!rep->nlpars)
		return;
	mf_strbuf_puts(sb,
		       "<h2>LPARs</h2>\n<p class=\"note\">Every LPAR of the machines in the SMF type 70 records "
		       "(RMF's PR/SM view), over the RMF intervals read. Weights and logical processors are those of "
		       "the last interval; RMF busy is dispatch time over the intervals' length in % of one engine; "
		       "the counters' columns are filled for the LPARs whose systems wrote type 113 records, from "
		       "the samples joined to them. A difference of more than 5 points is a finding.</p>\n"
		       "<div class=\"wide\"><table class=\"lpars\"><tr><th class=\"id\">machine</th>"
		       "<th class=\"id\">LPAR</th><th>number</th><th class=\"id\">system</th>"
		       "<th class=\"id\">weight</th><th class=\"id\">logical processors</th><th>RMF busy</th>"
		       "<th>LPARCPU</th><th>difference</th><th>CPI</th><th>RNI</th><th>LSPR</th></tr>\n");
	for (i = 0; i < rep->nlpars; i++) {
		const struct mf_lpar_row *row = &rep->lpars[i];
		const struct mf_result *r = lpar_result(rep, row);
		const char *sys = row->system ? mf_strtab_get(rep->tab, row->system) : NULL;
		double rmf = mf_lpar_rmf_busy(row), cnt = r ? val(r, "LPARCPU") : NAN;
		mf_strbuf_puts(sb, "<tr><td class=\"id\">");
		esc(sb, row->serial[0] ? row->serial : "-");
		if (row->machine_type)
			mf_strbuf_printf(sb, " (%u)", row->machine_type);
		mf_strbuf_puts(sb, "</td><td class=\"id\">");
		esc(sb, row->name);
		mf_strbuf_printf(sb, "</td><td>%u</td><td class=\"id\">", row->number);
		esc(sb, sys ? sys : "-");
		mf_strbuf_puts(sb, "</td><td class=\"id\">");
		lpar_pools(sb, row, true);
		mf_strbuf_puts(sb, "</td><td class=\"id\">");
		lpar_pools(sb, row, false);
		mf_strbuf_puts(sb, "</td>");
		if (isnan(rmf))
			mf_strbuf_puts(sb, "<td class=\"na\">n/a</td>");
		else
			mf_strbuf_printf(sb, "<td>%.1f</td>", mf_shown(rmf, 1));
		if (isnan(cnt)) {
			mf_strbuf_puts(sb, "<td class=\"na\">-</td><td class=\"na\">-</td>");
		} else {
			double d = cnt - rmf;
			mf_strbuf_printf(sb, "<td>%.1f</td>", mf_shown(cnt, 1));
			if (isnan(d))
				mf_strbuf_puts(sb, "<td class=\"na\">n/a</td>");
			else
				mf_strbuf_printf(sb, "<td%s>%+.1f</td>",
						 fabs(d) > MF_BUSY_FINDING ? " class=\"warn\"" : "", mf_shown(d, 1));
		}
		if (r) {
			metric_cell(sb, r, "CPI");
			metric_cell(sb, r, "RNI");
			num_cell(sb, r->group->family, MF_REPORT_LSPR, r);
		} else {
			mf_strbuf_puts(sb, "<td class=\"na\">-</td><td class=\"na\">-</td><td class=\"na\">-</td>");
		}
		mf_strbuf_puts(sb, "</tr>\n");
	}
	mf_strbuf_puts(sb, "</table></div>\n");
}

/* The charts of a series: CPI/L1MP/RNI, LPARCPU and sourcing for CPU-MF families, else the reported metrics. */
static void series_charts(struct mf_strbuf *sb, const struct page *pg, const struct series *s, const bool *short_iv)
{
	const struct mf_family *fam = s->first->family;
	struct look lk = {.max_points = LINE_POINTS};
	if (fam->lspr) {
		static const char *const main3[] = {"CPI", "L1MP", "RNI"};
		static const char *const busy[] = {"LPARCPU"};
		static const char *const src[] = {"L15P", "L2LP", "L2RP", "L2P", "L3P", "L4LP", "L4RP", "MEMP"};
		lk.title = "CPI, L1MP and RNI; background: LSPR class";
		lk.bands = true;
		chart(sb, pg, s, main3, 3, &lk);
		lk.title = short_iv ? "LPARCPU (% of one engine; 100 % per engine); gaps: intervals short of CPUs "
				      "(data lost)"
				    : "LPARCPU (% of one engine; 100 % per engine)";
		lk.ylabel = "%";
		lk.bands = false;
		lk.gap = short_iv;
		lk.engines = true;
		chart(sb, pg, s, busy, 1, &lk);
		memset(&lk, 0, sizeof(lk));
		lk.title = "Where L1 misses were sourced (% of L1 misses)";
		lk.ylabel = "%";
		lk.stacked = true;
		lk.max_points = BAR_POINTS;
		chart(sb, pg, s, src, 8, &lk);
	} else {
		/* Other families: their reported metrics, a few per chart. */
		const char *names[6];
		size_t nn = 0, j;
		for (j = 0; j < fam->nreport; j++) {
			if (fam->report[j] < 0)
				continue;
			names[nn++] = fam->metrics[fam->report[j]].name;
			if (nn == 3 || j + 1 == fam->nreport) {
				chart(sb, pg, s, names, nn, &lk);
				nn = 0;
			}
		}
		if (nn)
			chart(sb, pg, s, names, nn, &lk);
	}
}

struct ranked_iv {
	double v;
	size_t i;
};

static int cmp_ranked_iv(const void *pa, const void *pb)
{
	const struct ranked_iv *a = pa, *b = pb;
	if (isnan(a->v) != isnan(b->v))
		return isnan(a->v) ? 1 : -1;
	if (!isnan(a->v) && a->v != b->v)
		return a->v > b->v ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static int cmp_index(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	return (a > b) - (a < b);
}

size_t mf_html_peaks(const double *v, size_t n, size_t k, size_t *idx)
{
	struct ranked_iv *rk;
	size_t i;
	if (k > n)
		k = n;
	if (!k)
		return 0;
	rk = malloc(n * sizeof(*rk));
	if (!rk) { /* the first k, rather than nothing */
		for (i = 0; i < k; i++)
			idx[i] = i;
		return k;
	}
	for (i = 0; i < n; i++) {
		rk[i].v = v[i];
		rk[i].i = i;
	}
	qsort(rk, n, sizeof(*rk), cmp_ranked_iv);
	for (i = 0; i < k; i++)
		idx[i] = rk[i].i;
	free(rk);
	qsort(idx, k, sizeof(*idx), cmp_index);
	return k;
}

/* One interval row of a series' table. */
static void interval_row(struct mf_strbuf *sb, const struct page *pg, const struct series *s, const int *map, size_t i,
			 const bool *short_iv)
{
	const struct mf_family *fam = s->first->family;
	char t[48];
	size_t j;
	fmt_time(pg->rep, t, sizeof(t), s->pts[i]->group);
	if (short_iv && short_iv[i])
		mf_strbuf_printf(sb,
				 "<tr class=\"short\"><td class=\"id\">%s <span class=\"warn\">(%llu of "
				 "%llu CPUs: data lost)</span></td>",
				 t, (unsigned long long)mf_group_cpus(s->pts[i]->group),
				 (unsigned long long)pg->expected[s->pts[i] - pg->src]);
	else
		mf_strbuf_printf(sb, "<tr><td class=\"id\">%s%s</td>", t, i == s->peak ? " (peak)" : "");
	for (j = 0; j < pg->nkeys; j++)
		if (map[j] != -1)
			num_cell(sb, fam, map[j], s->pts[i]);
	mf_strbuf_puts(sb, "</tr>\n");
}

/* The intervals a series' table shows (--html-intervals), their indices into idx; how many. */
static size_t table_rows(const struct page *pg, const struct series *s, size_t *idx, size_t *cap)
{
	enum mf_html_rows mode = pg->rep->html_rows;
	size_t i, k = mode == MF_HTML_ROWS_NONE ? 0 : mode == MF_HTML_ROWS_ALL ? MAX_TABLE_ROWS : PEAK_ROWS;
	double *v;
	*cap = k;
	if (s->n <= k) {
		for (i = 0; i < s->n; i++)
			idx[i] = i;
		return s->n;
	}
	v = malloc(s->n * sizeof(*v));
	if (!v) {
		for (i = 0; i < k; i++)
			idx[i] = i;
		return k;
	}
	for (i = 0; i < s->n; i++)
		v[i] = val(s->pts[i], "LPARCPU");
	k = mf_html_peaks(v, s->n, k, idx);
	free(v);
	return k;
}

/* The table of a series: the whole period, then the intervals --html-intervals asks for. */
static int series_table(struct mf_strbuf *sb, const struct page *pg, const struct series *s, const bool *short_iv)
{
	const struct mf_report *rep = pg->rep;
	const struct mf_family *fam = s->first->family;
	const int *map = pg->map + (size_t)(fam - rep->kb->families) * pg->nkeys;
	size_t *idx = malloc((s->n + 1) * sizeof(*idx));
	size_t i, rows, cap;
	bool busy = mf_family_metric(fam, "LPARCPU") >= 0;

	if (!idx)
		return MF_ENOMEM;
	rows = table_rows(pg, s, idx, &cap);
	mf_strbuf_puts(sb, "<div class=\"wide\"><table><tr><th class=\"id\">period</th>");
	for (i = 0; i < pg->nkeys; i++)
		if (map[i] != -1) {
			mf_strbuf_puts(sb, "<th>");
			esc(sb, pg->keys[i]);
			mf_strbuf_puts(sb, "</th>");
		}
	mf_strbuf_puts(sb, "</tr>\n");
	if (s->total) {
		mf_strbuf_puts(sb, "<tr><td class=\"id\"><b>whole period</b></td>");
		for (i = 0; i < pg->nkeys; i++)
			if (map[i] != -1)
				num_cell(sb, fam, map[i], &s->total_res);
		mf_strbuf_puts(sb, "</tr>\n");
	}
	for (i = 0; i < rows; i++)
		interval_row(sb, pg, s, map, idx[i], short_iv);
	mf_strbuf_puts(sb, "</table></div>\n");
	free(idx);
	if (s->n > rows && rows == 0)
		mf_strbuf_printf(sb,
				 "<p class=\"note\">%zu intervals not listed (--html-intervals none): -f csv has "
				 "all of them.</p>\n",
				 s->n);
	else if (s->n > rows)
		mf_strbuf_printf(sb,
				 "<p class=\"note\">The table shows %zu of %zu intervals: the %s, in time order "
				 "(%s); -f csv has all of them.</p>\n",
				 rows, s->n, busy ? "busiest by LPARCPU" : "first",
				 rep->html_rows == MF_HTML_ROWS_ALL ? "at most 500 per series"
								    : "--html-intervals all lists up to 500");
	return 0;
}

/* One series: heading, charts and table.  Intervals with fewer CPUs than the others lost data: marked, not a dip. */
static int series_section(struct mf_strbuf *sb, const struct page *pg, const struct series *s)
{
	bool *short_iv = calloc(s->n + 1, sizeof(*short_iv));
	size_t i, nshort = 0;
	int rc;

	if (!short_iv)
		return MF_ENOMEM;
	for (i = 0; i < s->n; i++) {
		short_iv[i] = mf_group_cpus(s->pts[i]->group) < pg->expected[s->pts[i] - pg->src];
		nshort += short_iv[i];
	}
	mf_strbuf_puts(sb, "<section>\n<h2>");
	series_name(sb, pg->rep, s->first);
	mf_strbuf_printf(sb, "</h2>\n<p class=\"note\">%zu interval%s.", s->n, s->n == 1 ? "" : "s");
	if (nshort)
		mf_strbuf_printf(sb,
				 " <span class=\"warn\">%zu interval%s with fewer CPUs than the others (data "
				 "lost): marked in the table, left out of the LPARCPU chart.</span>",
				 nshort, nshort == 1 ? "" : "s");
	mf_strbuf_puts(sb, "</p>\n");
	series_charts(sb, pg, s, nshort ? short_iv : NULL);
	rc = series_table(sb, pg, s, nshort ? short_iv : NULL);
	mf_strbuf_puts(sb, "</section>\n");
	free(short_iv);
	return rc;
}

/* What the glossary says of column i on family fam: its unit (NULL: none) and meaning. */
static void gloss_of(const struct page *pg, const struct mf_family *fam, size_t i, const char **unit, char *text,
		     size_t n)
{
	int idx = pg->map[(size_t)(fam - pg->rep->kb->families) * pg->nkeys + i];
	*unit = NULL;
	text[0] = '\0';
	if (idx == MF_REPORT_LSPR) {
		/* The pools the family's table leaves out (cpumf-formulas.md, LSPR workload match), as IBM spells them. */
		static const char *const ibm[MF_NPOOLS] = {NULL,  "general purpose", "zIIP", "zAAP", "IFL", "ICF",
							   "zCBP"};
		size_t used = 0, left = 0, p, k = 0;
		char pools[128] = "";
		for (p = 1; p < MF_NPOOLS; p++)
			left += (fam->lspr_exclude >> p) & 1u;
		for (p = 1; p < MF_NPOOLS && used < sizeof(pools); p++)
			if ((fam->lspr_exclude >> p) & 1u) {
				k++;
				used += (size_t)snprintf(pools + used, sizeof(pools) - used, "%s%s",
							 k == 1      ? ""
							 : k == left ? " and "
								     : ", ",
							 ibm[p]);
			}
		snprintf(text, n,
			 "The LSPR workload class (LOW, AVERAGE or HIGH relative nest intensity), matched from L1MP "
			 "and RNI%s%s%s.",
			 left ? "; " : "", pools, left ? " engines are left out" : "");
	} else if (idx >= 0) {
		const struct mf_metric *m = &fam->metrics[idx];
		*unit = m->unit && m->unit[0] ? m->unit : NULL;
		snprintf(text, n, "%s", m->desc ? m->desc : "");
	}
}

/*
 * Every column shown, with its unit and meaning from the knowledge base, as the families of the
 * page's groups define it (a z16 page never shows z10's wording): one entry when they agree,
 * else one per definition naming the families that share it; a column only some of them define
 * names those.
 */
static void glossary(struct mf_strbuf *sb, const struct page *pg)
{
	const struct mf_kb *kb = pg->rep->kb;
	const struct mf_family *fams[64];
	size_t nfam = mf_report_families(pg->rep, fams, 64), i, f, g;
	if (nfam > 64)
		nfam = 64;
	mf_strbuf_puts(sb, "<h2>Glossary</h2>\n<dl class=\"glossary\">\n");
	for (i = 0; i < pg->nkeys; i++) {
		char text[64][512];
		const char *unit[64];
		size_t def[64], ndef = 0, d, nhave = 0; /* each definition: the first family giving it */
		int of[64]; /* per family: its definition, or -1 when it has no such column */
		for (f = 0; f < nfam; f++) {
			of[f] = -1;
			if (pg->map[(size_t)(fams[f] - kb->families) * pg->nkeys + i] == -1)
				continue;
			nhave++;
			gloss_of(pg, fams[f], i, &unit[f], text[f], sizeof(text[f]));
			for (d = 0; d < ndef; d++)
				if (!strcmp(text[def[d]], text[f]) &&
				    !strcmp(unit[def[d]] ? unit[def[d]] : "", unit[f] ? unit[f] : ""))
					break;
			if (d == ndef)
				def[ndef++] = f;
			of[f] = (int)d;
		}
		if (!ndef) { /* a column asked for that no family of the page defines */
			mf_strbuf_puts(sb, "<dt>");
			esc(sb, pg->keys[i]);
			mf_strbuf_puts(sb, "</dt><dd>Not defined on the machine families of this page.</dd>\n");
		}
		for (d = 0; d < ndef; d++) {
			const char *u = unit[def[d]];
			mf_strbuf_puts(sb, "<dt>");
			esc(sb, pg->keys[i]);
			if (u) {
				mf_strbuf_puts(sb, " (");
				esc(sb, u);
				mf_strbuf_puts(sb, ")");
			}
			if (nhave < nfam || ndef > 1) { /* the families whose definition this is */
				size_t k = 0;
				mf_strbuf_puts(sb, ", on ");
				for (g = 0; g < nfam; g++)
					if (of[g] == (int)d) {
						mf_strbuf_puts(sb, k++ ? ", " : "");
						esc(sb, fams[g]->display);
					}
			}
			mf_strbuf_puts(sb, "</dt><dd>");
			esc(sb, text[def[d]]);
			mf_strbuf_puts(sb, "</dd>\n");
		}
	}
	mf_strbuf_puts(sb, "</dl>\n");
}

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return (a > b) - (a < b);
}

static int cmp_str(const void *pa, const void *pb)
{
	return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* The systems of the page, by name: all of up to NAMED_ALL, else NAMED "and N more"; false when none is named. */
static bool title_systems(struct mf_strbuf *sb, const struct page *pg)
{
	const struct mf_report *rep = pg->rep;
	uint32_t *ids = malloc((pg->nsrc + 1) * sizeof(*ids));
	const char **names = malloc((pg->nsrc + 1) * sizeof(*names));
	size_t i, n = 0, nn = 0, shown;
	if (!ids || !names) {
		free(ids);
		free(names);
		return false;
	}
	for (i = 0; i < pg->nsrc; i++)
		if (pg->src[i].group->system)
			ids[n++] = pg->src[i].group->system;
	if (n)
		qsort(ids, n, sizeof(*ids), cmp_u32);
	for (i = 0; i < n; i++)
		if (!i || ids[i] != ids[i - 1]) {
			const char *name = mf_strtab_get(rep->tab, ids[i]);
			if (name)
				names[nn++] = name;
		}
	if (nn)
		qsort(names, nn, sizeof(*names), cmp_str);
	shown = nn <= NAMED_ALL ? nn : NAMED;
	for (i = 0; i < shown; i++) {
		mf_strbuf_puts(sb, i ? ", " : "");
		mf_strbuf_puts(sb, names[i]);
	}
	if (shown < nn)
		mf_strbuf_printf(sb, " and %zu more", nn - shown);
	free(ids);
	free(names);
	return nn > 0;
}

/*
 * A label's date and time of day (mf_report_label's "2025-03-04T10:00:00+02:00"): date into d,
 * the time without its zone into t.
 */
static void split_label(const char *label, char *d, size_t dn, char *t, size_t tn)
{
	const char *T = strchr(label, 'T');
	size_t len;
	if (!T) {
		snprintf(d, dn, "%s", label);
		snprintf(t, tn, "%s", "");
		return;
	}
	snprintf(d, dn, "%.*s", (int)(T - label), label);
	len = strcspn(T + 1, "Z+-");
	snprintf(t, tn, "%.*s", (int)len, T + 1);
}

/*
 * The page's title, plain text: "mfstat report: SYSA, SYSB, 2025-03-04 00:00 to 01:00 UTC", the
 * zone as the period line names it, with its offsets when they are not its name.
 */
static void page_title(struct mf_strbuf *sb, const struct page *pg)
{
	const struct mf_report *rep = pg->rep;
	char a[48], b[48], da[48], ta[48], db[48], tb[48], oa[16], ob[16];
	int32_t offa, offb;
	bool period = mf_report_period_labels(rep, a, b, sizeof(a), &offa, &offb);
	struct mf_strbuf sys;
	mf_strbuf_init(&sys);
	if (!title_systems(&sys, pg) && rep->nsystems)
		mf_strbuf_printf(&sys, "%zu system%s", rep->nsystems, rep->nsystems == 1 ? "" : "s");
	mf_strbuf_puts(sb, "mfstat report");
	if (sys.len || period)
		mf_strbuf_puts(sb, ": ");
	if (sys.len)
		mf_strbuf_puts(sb, mf_strbuf_str(&sys));
	if (sys.failed)
		sb->failed = 1;
	if (sys.len && period)
		mf_strbuf_puts(sb, ", ");
	mf_strbuf_free(&sys);
	if (!period)
		return;
	split_label(a, da, sizeof(da), ta, sizeof(ta));
	split_label(b, db, sizeof(db), tb, sizeof(tb));
	if (strlen(ta) == 8 && strlen(tb) == 8 && !strcmp(ta + 5, ":00") && !strcmp(tb + 5, ":00"))
		ta[5] = tb[5] = '\0'; /* whole minutes: 10:00 */
	mf_strbuf_printf(sb, "%s %s to ", da, ta);
	if (strcmp(da, db))
		mf_strbuf_printf(sb, "%s ", db);
	mf_strbuf_puts(sb, tb);
	mf_tz_offset_text(offa, oa, sizeof(oa));
	mf_tz_offset_text(offb, ob, sizeof(ob));
	if (rep->tz && mf_tz_per_record(rep->tz)) {
		mf_strbuf_printf(sb, " local time (%s", oa);
	} else if (!rep->tz || rep->tz_default || mf_tz_is_utc(rep->tz)) {
		mf_strbuf_puts(sb, " UTC");
		return;
	} else {
		const char *name = mf_tz_name(rep->tz);
		mf_strbuf_printf(sb, " %s", name);
		if (!strcmp(name, oa) && !strcmp(name, ob))
			return;
		mf_strbuf_printf(sb, " (%s", oa);
	}
	if (strcmp(oa, ob))
		mf_strbuf_printf(sb, " to %s", ob);
	mf_strbuf_puts(sb, ")");
}

/* The page's opening: head, counts, warnings and findings. */
static void page_head(struct mf_strbuf *sb, const struct page *pg, struct series *ser, size_t nser)
{
	const struct mf_report *rep = pg->rep;
	size_t i;
	struct mf_strbuf title;
	mf_strbuf_init(&title);
	page_title(&title, pg);
	mf_strbuf_puts(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
	esc(sb, mf_strbuf_str(&title));
	mf_strbuf_puts(sb, "</title><style>");
	mf_strbuf_puts(sb, css);
	mf_strbuf_puts(sb, "</style></head><body>\n<h1>");
	esc(sb, mf_strbuf_str(&title));
	mf_strbuf_puts(sb, "</h1>\n");
	if (title.failed)
		sb->failed = 1;
	mf_strbuf_free(&title);
	{
		char line[256];
		mf_report_period_line(rep, line, sizeof(line));
		if (line[0]) {
			mf_strbuf_puts(sb, "<p class=\"period\">");
			line[0] = 'P'; /* "Period ..." opens the page */
			esc(sb, line);
			mf_strbuf_puts(sb, ".</p>\n");
		}
	}
	mf_strbuf_printf(sb, "<p>%llu row%s from %zu file%s, %zu group%s in %zu series.",
			 (unsigned long long)rep->rows_read, rep->rows_read == 1 ? "" : "s", rep->nfiles,
			 rep->nfiles == 1 ? "" : "s", rep->ngroups, rep->ngroups == 1 ? "" : "s", nser);
	if (rep->rows_skipped)
		mf_strbuf_printf(sb, " <span class=\"warn\">%llu rows skipped.</span>",
				 (unsigned long long)rep->rows_skipped);
	{
		char text[1024];
		mf_report_left_out_text(rep, text, sizeof(text));
		if (text[0]) {
			mf_strbuf_puts(sb, " ");
			text[0] = (char)toupper((unsigned char)text[0]);
			esc(sb, text);
			mf_strbuf_puts(sb, ".");
		}
	}
	mf_strbuf_puts(sb,
		       " Metrics over a series are computed from its summed counters, never by averaging "
		       "ratios; n/a means not available. The charts draw each series over its intervals.</p>\n");
	for (i = 0; i < rep->nwarnings; i++) {
		mf_strbuf_puts(sb, "<p class=\"warn\">warning: ");
		esc(sb, rep->warnings[i]);
		mf_strbuf_puts(sb, "</p>\n");
	}
	findings(sb, pg, ser, nser);
}

/* The results the page draws (per series and interval when the report kept them), and the CPUs expected. */
static int page_init(struct page *pg, const struct mf_report *rep)
{
	struct mf_report r = *rep;
	const char *zone = rep->tz ? mf_tz_name(rep->tz) : "UTC";
	if (rep->interval_results) {
		r.results = rep->interval_results;
		r.ngroups = rep->ninterval_results;
		r.by = rep->interval_by;
		r.cpus_expected = NULL; /* those are of rep's groups */
	}
	pg->rep = rep;
	pg->src = r.results;
	pg->nsrc = r.ngroups;
	pg->src_by = r.by;
	if (rep->tz && mf_tz_per_record(rep->tz))
		zone = "the SMF records' local time";
	snprintf(pg->zone, sizeof(pg->zone), "%s", zone);
	pg->keys = mf_report_keys(rep, &pg->nkeys);
	pg->map = pg->keys ? mf_report_key_map(rep, pg->keys, pg->nkeys) : NULL;
	pg->expected = malloc((pg->nsrc + 1) * sizeof(*pg->expected));
	if (!pg->keys || !pg->map || !pg->expected)
		return MF_ENOMEM;
	mf_report_cpus_expected(&r, pg->expected);
	return 0;
}

/* The series of the page, with their totals. */
static int page_series(struct page *pg, struct series **ser, size_t *nser)
{
	size_t cap = 0, i;
	struct mf_grouper *g = mf_grouper_new(pg->src_by & ~(unsigned)MF_BY_TIME);
	int rc = g ? 0 : MF_ENOMEM;
	if (g)
		mf_grouper_set_tz(g, pg->rep->tz);
	for (i = 0; i < pg->nsrc && !rc; i++) {
		rc = add_to_series(ser, nser, &cap, &pg->src[i]);
		if (!rc && mf_grouper_merge(g, pg->src[i].group))
			rc = MF_ENOMEM;
	}
	if (!rc)
		rc = series_totals(pg, g, *ser, *nser);
	/* The totals' groups live in g: keep it until the series go (freed with them). */
	if (rc) {
		mf_grouper_free(g);
		return rc;
	}
	pg->totals = g;
	return 0;
}

int mf_out_html(FILE *fp, const struct mf_report *rep)
{
	struct mf_strbuf sb;
	struct series *ser = NULL;
	size_t nser = 0, k;
	struct page pg;
	int rc;

	memset(&pg, 0, sizeof(pg));
	mf_strbuf_init(&sb);
	rc = page_init(&pg, rep);
	if (!rc)
		rc = page_series(&pg, &ser, &nser);
	if (rc)
		goto out;
	page_head(&sb, &pg, ser, nser);
	if (nser)
		summary_table(&sb, &pg, ser, nser < MAX_SERIES ? nser : MAX_SERIES);
	calendar_table(&sb, &pg);
	lpar_table(&sb, &pg);
	for (k = 0; k < nser && k < MAX_SERIES && !rc; k++)
		rc = series_section(&sb, &pg, &ser[k]);
	if (rc)
		goto out;
	if (nser > MAX_SERIES)
		mf_strbuf_printf(&sb,
				 "<p class=\"note\">%zu more series not drawn: narrow the input or use -f csv.</p>\n",
				 nser - MAX_SERIES);
	glossary(&sb, &pg);
	if (rep->input_summary && rep->input_summary[0]) {
		mf_strbuf_puts(&sb, "<h2>Input</h2>\n<pre>");
		esc(&sb, rep->input_summary);
		mf_strbuf_puts(&sb, "</pre>\n");
	}
	mf_strbuf_puts(&sb, "<p class=\"note\">Written by mfstat.</p>\n</body></html>\n");
	if (sb.failed)
		rc = MF_ENOMEM;
	else
		fwrite(sb.buf, 1, sb.len, fp);
out:
	for (k = 0; k < nser; k++) {
		free(ser[k].pts);
		free(ser[k].total_res.value);
		free(ser[k].total_res.na);
	}
	free(ser);
	free(pg.expected);
	mf_grouper_free(pg.totals);
	free(pg.keys);
	free(pg.map);
	mf_strbuf_free(&sb);
	return rc ? rc : (ferror(fp) ? MF_EIO : 0);
}
