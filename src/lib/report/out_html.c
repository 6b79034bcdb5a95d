/* SPDX-License-Identifier: MIT */
/*
 * HTML writer: one self-contained page (inline CSS and SVG, no script, nothing
 * fetched) with, per series (the groups of --by over their intervals),
 * charts of CPI, L1MP and RNI with the LSPR class as bands, LPARCPU, the
 * sourcing of L1 misses, a summary over the whole period (sums merged, then
 * divided) and the interval table; and findings in plain words.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/base/escape.h"
#include "mfstat/report/output.h"
#include "mfstat/base/strbuf.h"
#include "mfstat/report/svg.h"

#define MAX_TABLE_ROWS 500 /* interval rows per series in the page; the CSV has them all */
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
};

static bool same_series(const struct mf_group *a, const struct mf_group *b)
{
	return a->family == b->family && a->system == b->system && a->lpar == b->lpar && a->pool == b->pool &&
	       a->cpu == b->cpu;
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
		mf_strbuf_printf(sb, "<td>%.*f</td>", fam->metrics[idx].digits,
				 r->value[idx] == 0 ? 0.0 : r->value[idx]);
	}
}

static double val(const struct mf_result *r, const char *name)
{
	int idx = mf_family_metric(r->group->family, name);
	return idx >= 0 ? r->value[idx] : NAN;
}

/* A line chart of some metrics of a series over its intervals, LSPR bands optional. */
static void chart(struct mf_strbuf *sb, const struct series *s, const char *title, const char *ylabel,
		  const char *const *names, size_t nnames, bool bands, bool stacked, const bool *gap)
{
	struct mf_svg_series ser[10];
	double *x = malloc(s->n * sizeof(*x));
	double *y = malloc(s->n * nnames * sizeof(*y));
	int *band = bands ? malloc(s->n * sizeof(*band)) : NULL;
	struct mf_svg_chart c;
	size_t i, k, used = 0;

	if (!x || !y || (bands && !band))
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
			y[used * s->n + i] = gap && gap[i] ? NAN : val(s->pts[i], names[k]);
		ser[used].name = names[k];
		ser[used].color = palette[used % (sizeof(palette) / sizeof(palette[0]))];
		ser[used].y = &y[used * s->n];
		used++;
	}
	if (!used)
		goto out;
	memset(&c, 0, sizeof(c));
	c.width = 760;
	c.height = 240;
	c.title = title;
	c.y_label = ylabel;
	c.n = s->n;
	c.x = x;
	c.x_is_time = s->n && s->pts[0]->group->has_start;
	c.nseries = used;
	c.series = ser;
	c.stacked = stacked;
	c.y_min = c.y_max = NAN;
	if (stacked) {
		c.y_min = 0;
		c.y_max = 100;
	}
	c.band = band;
	c.nbands = band ? 3 : 0;
	c.band_names = lspr_names;
	c.band_colors = lspr_colors;
	mf_strbuf_puts(sb, "<figure>");
	mf_svg_chart(sb, &c);
	mf_strbuf_puts(sb, "</figure>\n");
out:
	free(x);
	free(y);
	free(band);
}

static void fmt_time(char *buf, size_t n, const struct mf_group *g)
{
	if (g->has_start)
		mf_time_format(g->start_us, buf, n);
	else
		snprintf(buf, n, "-");
}

/* Findings: computed from the data, each with its numbers. */
static void findings(struct mf_strbuf *sb, const struct mf_report *rep, struct series *ser, size_t nser)
{
	const struct mf_result *top = NULL;
	size_t i, k, bad = 0, items = 0;
	char t[48];
	const struct mf_result *first_bad = NULL;

	mf_strbuf_puts(sb, "<h2>Findings</h2>\n<ul class=\"findings\">\n");
	for (i = 0; i < rep->ngroups; i++) {
		const struct mf_result *r = &rep->results[i];
		double rni = val(r, "RNI");
		if (!isnan(rni) && (!top || rni > val(top, "RNI")))
			top = r;
		if (r->doubts & MF_DOUBT_NEGATIVE) {
			if (!bad++)
				first_bad = r;
		}
	}
	if (top) {
		static const char *const src[] = {"L15P", "L2LP", "L2RP", "L2P", "L3P", "L4LP", "L4RP", "MEMP"};
		fmt_time(t, sizeof(t), top->group);
		mf_strbuf_printf(sb, "<li>The highest RNI is <b>%.3f</b>, in ", val(top, "RNI"));
		series_name(sb, rep, top->group);
		mf_strbuf_printf(sb, " at %s (L1MP %.2f, CPI %.3f). Where its level-1 misses were found:", t,
				 val(top, "L1MP"), val(top, "CPI"));
		for (k = 0; k < sizeof(src) / sizeof(src[0]); k++) {
			double v = val(top, src[k]);
			if (!isnan(v))
				mf_strbuf_printf(sb, " %s %.2f%%", src[k], v);
		}
		mf_strbuf_puts(sb, "; the farther caches and memory weigh most in RNI.</li>\n");
		items++;
	}
	for (i = 0; i < nser; i++) {
		unsigned cnt[3] = {0, 0, 0}, changes = 0;
		int prev = -9;
		const struct series *s = &ser[i];
		if (!s->first->family->lspr)
			continue;
		for (k = 0; k < s->n; k++) {
			int l = s->pts[k]->lspr;
			if (l >= 0 && l < 3)
				cnt[l]++;
			if (l >= 0 && prev >= 0 && l != prev)
				changes++;
			if (l >= 0)
				prev = l;
		}
		if (s->total_res.lspr_why == MF_LSPR_ONLY_EXCLUDED) {
			mf_strbuf_puts(sb, "<li>");
			series_name(sb, rep, s->first);
			mf_strbuf_puts(sb,
				       " has no LSPR class: its engines are zIIPs, zAAPs or zCBPs, which the LSPR "
				       "match "
				       "leaves out since December 2024.</li>\n");
			items++;
			continue;
		}
		if (s->total_res.lspr_why == MF_LSPR_NO_INPUT) {
			mf_strbuf_puts(sb, "<li>");
			series_name(sb, rep, s->first);
			mf_strbuf_puts(sb,
				       " has no LSPR class: L1MP or RNI is not available (the extended counters "
				       "are missing or a divisor is zero).</li>\n");
			items++;
			continue;
		}
		if (s->n > 1 && cnt[0] + cnt[1] + cnt[2]) {
			const char *whole = mf_lspr_name(s->total_res.lspr);
			mf_strbuf_puts(sb, "<li>");
			series_name(sb, rep, s->first);
			mf_strbuf_printf(sb,
					 ": LSPR class %s over the whole period (L1MP %.2f, RNI %.3f); per interval "
					 "LOW %u, AVERAGE %u, HIGH %u times, changing %u time%s.</li>\n",
					 whole ? whole : "n/a", s->total_res.lspr_l1mp, s->total_res.lspr_rni, cnt[0],
					 cnt[1], cnt[2], changes, changes == 1 ? "" : "s");
			items++;
		}
	}
	if (bad) {
		const struct mf_family *fam = first_bad->group->family;
		fmt_time(t, sizeof(t), first_bad->group);
		mf_strbuf_printf(sb,
				 "<li class=\"warn\">%zu interval%s with inconsistent data: %s is out of its range "
				 "(%.15g), first in ",
				 bad, bad == 1 ? "" : "s", fam->metrics[first_bad->negative_metric].name,
				 first_bad->value[first_bad->negative_metric]);
		series_name(sb, rep, first_bad->group);
		mf_strbuf_printf(sb, " at %s. ", t);
		esc(sb, fam->metrics[first_bad->negative_metric].desc);
		mf_strbuf_puts(sb, ".</li>\n");
		items++;
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
	"ul.findings li{margin:.3em 0}"
	"@media print{body{max-width:none}section{break-inside:avoid-page}details{display:block}}\n";

/* What every section of the page shares: the report, its metric columns and the CPUs expected per group. */
struct page {
	const struct mf_report *rep;
	const char **keys;
	size_t nkeys;
	int *map;           /* per family and column: the metric, or -1 */
	uint64_t *expected; /* per group of the report */
};

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

/* The whole period of each series: its groups merged in g (sum, then divide), and its metrics. */
static int series_totals(const struct mf_report *rep, struct mf_grouper *g, struct series *ser, size_t nser)
{
	size_t ng, i, k;
	struct mf_group *const *mg = mf_grouper_groups(g, rep->tab, &ng);
	for (k = 0; k < nser; k++) {
		struct series *s = &ser[k];
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

/* The charts of a series: CPI/L1MP/RNI, LPARCPU and sourcing for CPU-MF families, else the reported metrics. */
static void series_charts(struct mf_strbuf *sb, const struct series *s, const bool *short_iv)
{
	const struct mf_family *fam = s->first->family;
	if (fam->lspr) {
		static const char *const main3[] = {"CPI", "L1MP", "RNI"};
		static const char *const busy[] = {"LPARCPU"};
		static const char *const src[] = {"L15P", "L2LP", "L2RP", "L2P", "L3P", "L4LP", "L4RP", "MEMP"};
		chart(sb, s, "CPI, L1MP and RNI; background: LSPR class", NULL, main3, 3, true, false, NULL);
		chart(sb, s,
		      short_iv ? "LPARCPU (% of one engine); gaps: intervals short of CPUs (data lost)"
			       : "LPARCPU (% of one engine)",
		      "%", busy, 1, false, false, short_iv);
		chart(sb, s, "Where L1 misses were sourced (% of L1 misses)", "%", src, 8, false, true, NULL);
	} else {
		/* Other families: their reported metrics, a few per chart. */
		const char *names[6];
		size_t nn = 0, j;
		for (j = 0; j < fam->nreport; j++) {
			if (fam->report[j] < 0)
				continue;
			names[nn++] = fam->metrics[fam->report[j]].name;
			if (nn == 3 || j + 1 == fam->nreport) {
				chart(sb, s, NULL, NULL, names, nn, false, false, NULL);
				nn = 0;
			}
		}
		if (nn)
			chart(sb, s, NULL, NULL, names, nn, false, false, NULL);
	}
}

/* The table of a series: the whole period, then up to MAX_TABLE_ROWS intervals. */
static void series_table(struct mf_strbuf *sb, const struct page *pg, const struct series *s, const bool *short_iv)
{
	const struct mf_report *rep = pg->rep;
	const struct mf_family *fam = s->first->family;
	const int *map = pg->map + (size_t)(fam - rep->kb->families) * pg->nkeys;
	size_t i, j, rows;

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
	rows = s->n < MAX_TABLE_ROWS ? s->n : MAX_TABLE_ROWS;
	for (i = 0; i < rows; i++) {
		char t[48];
		fmt_time(t, sizeof(t), s->pts[i]->group);
		if (short_iv && short_iv[i])
			mf_strbuf_printf(sb,
					 "<tr class=\"short\"><td class=\"id\">%s <span class=\"warn\">(%llu of "
					 "%llu CPUs: data lost)</span></td>",
					 t, (unsigned long long)mf_group_cpus(s->pts[i]->group),
					 (unsigned long long)pg->expected[s->pts[i] - rep->results]);
		else
			mf_strbuf_printf(sb, "<tr><td class=\"id\">%s</td>", t);
		for (j = 0; j < pg->nkeys; j++)
			if (map[j] != -1)
				num_cell(sb, fam, map[j], s->pts[i]);
		mf_strbuf_puts(sb, "</tr>\n");
	}
	mf_strbuf_puts(sb, "</table></div>\n");
	if (s->n > rows)
		mf_strbuf_printf(sb,
				 "<p class=\"note\">%zu more intervals not shown: report with -f csv for all of "
				 "them.</p>\n",
				 s->n - rows);
}

/* One series: heading, charts and table.  Intervals with fewer CPUs than the others lost data: marked, not a dip. */
static int series_section(struct mf_strbuf *sb, const struct page *pg, const struct series *s)
{
	bool *short_iv = calloc(s->n + 1, sizeof(*short_iv));
	size_t i, nshort = 0;

	if (!short_iv)
		return MF_ENOMEM;
	for (i = 0; i < s->n; i++) {
		size_t gi = (size_t)(s->pts[i] - pg->rep->results);
		short_iv[i] = mf_group_cpus(s->pts[i]->group) < pg->expected[gi];
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
	series_charts(sb, s, nshort ? short_iv : NULL);
	series_table(sb, pg, s, nshort ? short_iv : NULL);
	mf_strbuf_puts(sb, "</section>\n");
	free(short_iv);
	return 0;
}

/* The page's opening: head, counts, warnings and findings. */
static void page_head(struct mf_strbuf *sb, const struct mf_report *rep, struct series *ser, size_t nser)
{
	size_t i;
	mf_strbuf_puts(sb,
		       "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		       "<title>mfstat report</title><style>");
	mf_strbuf_puts(sb, css);
	mf_strbuf_puts(sb, "</style></head><body>\n<h1>mfstat report</h1>\n");
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
		       "ratios; n/a means not available.</p>\n");
	for (i = 0; i < rep->nwarnings; i++) {
		mf_strbuf_puts(sb, "<p class=\"warn\">warning: ");
		esc(sb, rep->warnings[i]);
		mf_strbuf_puts(sb, "</p>\n");
	}
	findings(sb, rep, ser, nser);
}

int mf_out_html(FILE *fp, const struct mf_report *rep)
{
	struct mf_strbuf sb;
	struct series *ser = NULL;
	size_t nser = 0, cap = 0, i, k;
	struct page pg = {.rep = rep};
	struct mf_grouper *g = mf_grouper_new(rep->by & ~(unsigned)MF_BY_INTERVAL);
	int rc = 0;

	mf_strbuf_init(&sb);
	pg.keys = mf_report_keys(rep, &pg.nkeys);
	pg.map = pg.keys ? mf_report_key_map(rep, pg.keys, pg.nkeys) : NULL;
	pg.expected = malloc((rep->ngroups + 1) * sizeof(*pg.expected));
	if (!pg.keys || !pg.map || !g || !pg.expected) {
		rc = MF_ENOMEM;
		goto out;
	}
	mf_report_cpus_expected(rep, pg.expected);
	/* Series: the groups without their interval, in report order. */
	for (i = 0; i < rep->ngroups && !rc; i++) {
		rc = add_to_series(&ser, &nser, &cap, &rep->results[i]);
		if (!rc && mf_grouper_merge(g, rep->results[i].group))
			rc = MF_ENOMEM;
	}
	if (!rc)
		rc = series_totals(rep, g, ser, nser);
	if (rc)
		goto out;
	page_head(&sb, rep, ser, nser);
	for (k = 0; k < nser && k < MAX_SERIES && !rc; k++)
		rc = series_section(&sb, &pg, &ser[k]);
	if (rc)
		goto out;
	if (nser > MAX_SERIES)
		mf_strbuf_printf(&sb,
				 "<p class=\"note\">%zu more series not drawn: narrow the input or use -f csv.</p>\n",
				 nser - MAX_SERIES);
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
	mf_grouper_free(g);
	free(pg.keys);
	free(pg.map);
	mf_strbuf_free(&sb);
	return rc ? rc : (ferror(fp) ? MF_EIO : 0);
}
