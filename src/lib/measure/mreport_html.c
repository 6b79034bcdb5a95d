/* SPDX-License-Identifier: MIT */
/*
 * The HTML pages of mfstat measure (mfstat/measure/flame.h): a run's flame
 * graph (or, without call chains, a bar chart of its top functions) with its
 * summaries, and the differential flame graph of two runs.  The rules of
 * `report -f html`: one self-contained page, inline SVG, readable without
 * script (each frame's name and figures in its <title>, which browsers show
 * as a tooltip), nothing loaded from anywhere, every name from the run
 * escaped (mf_escape_xml).  The one script is the click-to-zoom; without it
 * the page is complete.  Numbers are formatted without the locale.
 */
#include "mreport_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/base/escape.h"
#include "mfstat/measure/flame.h"
#include "mfstat/measure/fold.h"

#include "mtable.h"

#define SVG_W 1200  /* the image's width */
#define PAD 10      /* left, right, top and bottom margins */
#define INNER 1180  /* SVG_W - 2 * PAD: the "all" frame's width */
#define FRAME_H 16  /* a frame's height */
#define MIN_PX 0.1  /* narrower frames are not drawn (flamegraph.pl's default) */
#define TOP_BARS 20 /* functions in the bar chart of a run without chains */
#define TOP_LINES 10

static const char css[] =
	"body{font-family:sans-serif;margin:1.5em auto;max-width:1220px;color:#222;background:#fff}"
	"h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:2em}"
	"h3{font-size:1em;margin-top:1.5em}"
	"table{border-collapse:collapse;font-size:.8em;margin:.5em 0}"
	"th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
	"dl{display:grid;grid-template-columns:max-content auto;gap:2px 1em;font-size:.9em}"
	"dt{font-weight:bold}dd{margin:0;word-break:break-all}"
	"p.note{font-size:.9em;color:#555}code{font-size:.95em}"
	"svg{display:block;background:#f8f8f8}"
	"svg.flame g.f rect{stroke:#fff;stroke-width:.5}"
	"svg.flame g.f:hover rect{stroke:#000;stroke-width:1}"
	"svg.flame g.f{cursor:pointer}"
	"svg.diff{background:#fff}svg.diff g.f rect{stroke:#999}"
	"svg text{font-family:monospace;font-size:11px;fill:#000}";

/*
 * Click a frame: it fills the width, its ancestors span it, other frames
 * hide; click the "all" frame to see everything again.  Widths and places
 * come from each frame's data-x and data-w (samples).
 */
static const char zoom_js[] =
	"(function(){var W=1180,P=10;"
	"function clip(s,w){var n=Math.floor(w/7);if(n<3)return '';var c=Array.from(s);"
	"return c.length<=n?s:c.slice(0,n-2).join('')+'..';}"
	"function zoom(svg,g){var x0=+g.getAttribute('data-x'),w0=+g.getAttribute('data-w'),"
	"d0=+g.getAttribute('data-d'),fs=svg.querySelectorAll('g.f');if(!(w0>0))return;"
	"for(var i=0;i<fs.length;i++){var f=fs[i],x=+f.getAttribute('data-x'),w=+f.getAttribute('data-w'),"
	"d=+f.getAttribute('data-d'),nx,nw;"
	"if(d<d0&&x<=x0&&x+w>=x0+w0){nx=0;nw=W;}"
	"else if(d>=d0&&x>=x0&&x+w<=x0+w0){nx=(x-x0)/w0*W;nw=w/w0*W;}"
	"else{f.style.display='none';continue;}"
	"if(nw<0.1){f.style.display='none';continue;}"
	"f.style.display='';var r=f.querySelector('rect'),t=f.querySelector('text');"
	"r.setAttribute('x',(P+nx).toFixed(2));r.setAttribute('width',nw.toFixed(2));"
	"if(t){t.setAttribute('x',(P+nx+3).toFixed(2));t.textContent=clip(f.getAttribute('data-n')||'',nw);}}}"
	"var svgs=document.querySelectorAll('svg.flame');"
	"for(var i=0;i<svgs.length;i++)(function(svg){svg.addEventListener('click',function(ev){"
	"var g=ev.target.closest?ev.target.closest('g.f'):null;if(g)zoom(svg,g);});})(svgs[i]);})();";

static void esc(struct mf_strbuf *sb, const char *s)
{
	mf_escape_xml(sb, s ? s : "");
}

static void fixed(struct mf_strbuf *sb, double v, int dec)
{
	char buf[64];
	mf_fmt_fixed(buf, sizeof(buf), v, dec);
	mf_strbuf_puts(sb, buf);
}

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0;
}

static void page_head(struct mf_strbuf *sb, const char *title_a, const char *title_b)
{
	mf_strbuf_puts(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
	esc(sb, title_a);
	esc(sb, title_b);
	mf_strbuf_printf(sb, "</title><style>%s</style></head><body>\n<h1>", css);
	esc(sb, title_a);
	esc(sb, title_b);
	mf_strbuf_puts(sb, "</h1>\n");
}

static void page_tail(struct mf_strbuf *sb, bool script)
{
	if (script)
		mf_strbuf_printf(sb, "<script>%s</script>\n", zoom_js);
	mf_strbuf_puts(sb, "</body></html>\n");
}

static const char *prog_name(const struct mf_mrun *run)
{
	const char *p = run->argc && run->argv[0] ? run->argv[0] : "the program";
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

/* The run's facts as a definition list. */
static void run_facts(struct mf_strbuf *sb, const struct mf_mrun *run, const char *label)
{
	char date[64], ex[96];
	mf_mrep_date(date, sizeof(date), run->start_us);
	mf_mrep_exit_text(ex, sizeof(ex), run->wait_status);
	if (label) {
		mf_strbuf_puts(sb, "<h3>");
		esc(sb, label);
		mf_strbuf_puts(sb, "</h3>\n");
	}
	mf_strbuf_puts(sb, "<dl><dt>Command</dt><dd><code>");
	{
		struct mf_strbuf c;
		mf_strbuf_init(&c);
		mf_mrep_command(&c, run);
		esc(sb, mf_strbuf_str(&c));
		if (c.failed)
			sb->failed = 1;
		mf_strbuf_free(&c);
	}
	mf_strbuf_puts(sb, "</code></dd><dt>Measurement</dt><dd>");
	esc(sb, run->measurement);
	mf_strbuf_puts(sb, "</dd><dt>Started</dt><dd>");
	esc(sb, date);
	mf_strbuf_puts(sb, "</dd><dt>Event</dt><dd>");
	esc(sb, run->spec_used);
	mf_strbuf_puts(sb, "</dd><dt>Call chains</dt><dd>");
	esc(sb, run->call_graph[0] ? run->call_graph : "none (run with -g for call chains)");
	mf_strbuf_puts(sb, "</dd><dt>Host</dt><dd>");
	esc(sb, run->host);
	if (run->arch[0]) {
		mf_strbuf_puts(sb, " (");
		esc(sb, run->arch);
		mf_strbuf_puts(sb, ")");
	}
	mf_strbuf_puts(sb, "</dd><dt>Program</dt><dd>");
	esc(sb, ex);
	mf_strbuf_puts(sb, "</dd><dt>Run file</dt><dd>");
	esc(sb, run->database);
	mf_strbuf_puts(sb, "</dd></dl>\n");
}

/* ---- the flame graph ---------------------------------------------------------------------- */

static double px(uint64_t samples, uint64_t total)
{
	return total ? (double)samples * INNER / (double)total : 0;
}

/* One frame: <g> with its <title>, rect and clipped label. */
static void frame(struct mf_strbuf *sb, uint64_t x, uint64_t w, uint64_t total, uint32_t depth, uint32_t maxdepth,
		  const char *name, const char *fill, const char *title)
{
	char label[512];
	double fx = PAD + px(x, total), fw = px(w, total);
	double y = PAD + (double)(maxdepth - depth) * FRAME_H;
	mf_strbuf_printf(sb,
			 "<g class=\"f\" data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\" data-d=\"%" PRIu32
			 "\" data-n=\"",
			 x, w, depth);
	esc(sb, name);
	mf_strbuf_puts(sb, "\"><title>");
	esc(sb, title);
	mf_strbuf_puts(sb, "</title><rect x=\"");
	fixed(sb, fx, 2);
	mf_strbuf_printf(sb, "\" y=\"");
	fixed(sb, y, 0);
	mf_strbuf_puts(sb, "\" width=\"");
	fixed(sb, fw, 2);
	mf_strbuf_printf(sb, "\" height=\"%d\" rx=\"2\" fill=\"%s\"/>", FRAME_H - 1, fill);
	mf_flame_clip(name, fw, label, sizeof(label));
	mf_strbuf_puts(sb, "<text x=\"");
	fixed(sb, fx + 3, 2);
	mf_strbuf_puts(sb, "\" y=\"");
	fixed(sb, y + 11.5, 1);
	mf_strbuf_puts(sb, "\">");
	esc(sb, label);
	mf_strbuf_puts(sb, "</text></g>\n");
}

/* "name (module)", or the name alone for the program's frames. */
static void frame_name(struct mf_strbuf *t, const struct mf_flame_node *nd)
{
	mf_strbuf_puts(t, nd->name);
	if (nd->modname[0] && strcmp(nd->modname, nd->name) != 0)
		mf_strbuf_printf(t, " (%s)", nd->modname);
}

static void side_figure(struct mf_strbuf *t, const struct mf_flame *fl, uint64_t v, uint64_t total)
{
	char buf[64];
	if (fl->absolute) {
		mf_strbuf_u64(t, v);
		return;
	}
	mf_fmt_fixed(buf, sizeof(buf), pct(v, total), 2);
	mf_strbuf_printf(t, "%s%%", buf);
}

static void change(struct mf_strbuf *t, const struct mf_flame *fl, double d)
{
	char buf[64];
	if (fl->absolute) {
		mf_strbuf_printf(t, "%s%.0f sample%s", d >= 0 ? "+" : "", d, fabs(d) == 1 ? "" : "s");
		return;
	}
	mf_fmt_fixed(buf, sizeof(buf), d, 2);
	mf_strbuf_printf(t, "%s%s points", d >= 0 && buf[0] != '-' ? "+" : "", buf);
}

/* The inclusive change of a frame: points (or samples) from before to after. */
static double inclusive_change(const struct mf_flame *fl, const struct mf_flame_node *nd)
{
	if (fl->absolute)
		return (double)nd->after - (double)nd->before;
	return pct(nd->after, fl->total_after) - pct(nd->before, fl->total_before);
}

static void flame_svg(struct mf_strbuf *sb, const struct mf_flame *fl, const char *what)
{
	struct mf_strbuf t;
	size_t i;
	char fill[48];
	int h = 2 * PAD + (int)(fl->depth + 1) * FRAME_H;

	mf_strbuf_init(&t);
	mf_strbuf_printf(sb,
			 "<svg class=\"flame%s\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
			 "viewBox=\"0 0 %d %d\" role=\"img\">\n",
			 fl->diff ? " diff" : "", SVG_W, h, SVG_W, h);
	/* The "all" frame: every sample (the diff: the view's), a click on it zooms out. */
	mf_strbuf_puts(&t, "all: ");
	if (fl->diff) {
		mf_strbuf_printf(&t, "%" PRIu64 " \xe2\x86\x92 %" PRIu64 " %s", fl->total_before, fl->total_after,
				 what);
	} else {
		mf_strbuf_printf(&t, "%" PRIu64 " %s, 100%%", fl->total, what);
	}
	frame(sb, 0, fl->total, fl->total, 0, fl->depth, "all", fl->diff ? "rgb(250,250,250)" : "hsl(0,0%,80%)",
	      mf_strbuf_str(&t));
	for (i = 0; i < fl->n; i++) {
		const struct mf_flame_node *nd = &fl->nodes[i];
		if (!nd->drawn)
			continue;
		t.len = 0;
		if (t.buf)
			t.buf[0] = '\0';
		frame_name(&t, nd);
		if (fl->diff) {
			double ch = inclusive_change(fl, nd);
			mf_strbuf_puts(&t, ": ");
			side_figure(&t, fl, nd->before, fl->total_before);
			mf_strbuf_puts(&t, " \xe2\x86\x92 ");
			side_figure(&t, fl, nd->after, fl->total_after);
			mf_strbuf_puts(&t, " (");
			change(&t, fl, ch);
			mf_strbuf_puts(&t, ")");
			if (nd->self && fabs(nd->delta - ch) > 1e-9) {
				mf_strbuf_puts(&t, "; the stack ending here: ");
				change(&t, fl, nd->delta);
			}
			mf_flame_diff_colour(nd->self ? nd->delta : 0, fl->max_delta, fill, sizeof(fill));
		} else {
			mf_strbuf_printf(&t, ": %" PRIu64 " %s, ", nd->samples,
					 nd->samples == 1 ? "sample" : "samples");
			fixed(&t, pct(nd->samples, fl->total), 2);
			mf_strbuf_puts(&t, "%");
			mf_flame_colour(nd->name, nd->modname, fill, sizeof(fill));
		}
		frame(sb, nd->x, nd->samples, fl->total, nd->depth, fl->depth, nd->name, fill, mf_strbuf_str(&t));
	}
	if (t.failed)
		sb->failed = 1;
	mf_strbuf_free(&t);
	mf_strbuf_puts(sb, "</svg>\n");
	if (fl->dropped)
		mf_strbuf_printf(sb,
				 "<p class=\"note\">%zu frame%s narrower than %s px (%s%% of the width) not "
				 "drawn.</p>\n",
				 fl->dropped, fl->dropped == 1 ? "" : "s", "0.1", "0.0085");
}

/* ---- the run's page ------------------------------------------------------------------------ */

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p ? p : "";
}

static void func_label(struct mf_strbuf *sb, const struct mf_agg_row *r)
{
	struct mf_strbuf l;
	mf_strbuf_init(&l);
	mf_mrep_func_label(&l, r, false);
	esc(sb, mf_strbuf_str(&l));
	if (l.failed)
		sb->failed = 1;
	mf_strbuf_free(&l);
}

/* A run without chains: a horizontal bar per top function, its figures in its <title>. */
static void bar_chart(struct mf_strbuf *sb, const struct mf_agg *a, const char *what)
{
	size_t n = a->funcs.n < TOP_BARS ? a->funcs.n : TOP_BARS, i;
	double maxp = 0;
	int label_w = 400, bar_w = SVG_W - 2 * PAD - label_w - 70, row = 18;
	int h = 2 * PAD + (int)n * row;
	char fill[48], label[512];

	for (i = 0; i < n; i++)
		if (!isnan(a->funcs.rows[i].pct) && a->funcs.rows[i].pct > maxp)
			maxp = a->funcs.rows[i].pct;
	mf_strbuf_printf(sb,
			 "<svg class=\"bars\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
			 "viewBox=\"0 0 %d %d\" role=\"img\">\n",
			 SVG_W, h, SVG_W, h);
	for (i = 0; i < n; i++) {
		const struct mf_agg_row *r = &a->funcs.rows[i];
		double p = isnan(r->pct) ? 0 : r->pct, w = maxp > 0 ? p / maxp * bar_w : 0;
		int y = PAD + (int)i * row;
		struct mf_strbuf nm;
		mf_strbuf_init(&nm);
		mf_mrep_func_label(&nm, r, false);
		mf_flame_colour(mf_strbuf_str(&nm), r->modname, fill, sizeof(fill));
		mf_strbuf_puts(sb, "<g><title>");
		esc(sb, mf_strbuf_str(&nm));
		mf_strbuf_puts(sb, " (");
		esc(sb, r->modname);
		mf_strbuf_printf(sb, "): %" PRIu64 " %s, ", r->metric,
				 r->metric == 1 && strcmp(what, "samples") == 0 ? "sample" : what);
		fixed(sb, p, 2);
		mf_strbuf_printf(sb, "%%</title><text x=\"%d\" y=\"%d\">", PAD, y + 13);
		mf_flame_clip(mf_strbuf_str(&nm), label_w - 10, label, sizeof(label));
		esc(sb, label);
		mf_strbuf_printf(sb, "</text><rect x=\"%d\" y=\"%d\" width=\"", PAD + label_w, y + 1);
		fixed(sb, w, 2);
		mf_strbuf_printf(sb, "\" height=\"%d\" fill=\"%s\"/><text x=\"", row - 3, fill);
		fixed(sb, PAD + label_w + w + 4, 2);
		mf_strbuf_printf(sb, "\" y=\"%d\">", y + 13);
		fixed(sb, p, 2);
		mf_strbuf_puts(sb, "%</text></g>\n");
		if (nm.failed)
			sb->failed = 1;
		mf_strbuf_free(&nm);
	}
	mf_strbuf_puts(sb, "</svg>\n");
}

static void table_head(struct mf_strbuf *sb, const char *const *cols, const bool *num)
{
	size_t i;
	mf_strbuf_puts(sb, "<table><thead><tr>");
	for (i = 0; cols[i]; i++)
		mf_strbuf_printf(sb, "<th%s>%s</th>", num[i] ? " class=\"n\"" : "", cols[i]);
	mf_strbuf_puts(sb, "</tr></thead><tbody>\n");
}

static void num_cell(struct mf_strbuf *sb, double v)
{
	mf_strbuf_puts(sb, "<td class=\"n\">");
	fixed(sb, isnan(v) ? 0 : v, 2);
	mf_strbuf_puts(sb, "</td>");
}

static void cutoff_note(struct mf_strbuf *sb, size_t shown, size_t all, const char *what, const char *opt)
{
	if (shown < all)
		mf_strbuf_printf(sb, "<p class=\"note\">%zu of %zu %s shown (%s).</p>\n", shown, all, what, opt);
}

static void summaries(struct mf_mrep *x, struct mf_strbuf *sb, const char *what)
{
	static const char *const mcols[] = {"Samples", "% Total", "Cumulative %", "Load module", NULL};
	static const bool mnum[] = {true, true, true, false};
	static const char *const fcols[] = {"Samples", "% Total", "Cumulative %", "Function", "Module", "File", NULL};
	static const bool fnum[] = {true, true, true, false, false, false};
	const struct mf_agg *a = &x->a;
	size_t n, i;

	mf_strbuf_printf(sb, "<h2>Load modules</h2>\n");
	n = mf_mrep_cut_rows(&a->mods, &x->o.summary);
	table_head(sb, mcols, mnum);
	for (i = 0; i < n; i++) {
		const struct mf_agg_row *r = &a->mods.rows[i];
		mf_strbuf_printf(sb, "<tr><td class=\"n\">%" PRIu64 "</td>", r->metric);
		num_cell(sb, r->pct);
		num_cell(sb, r->cum);
		mf_strbuf_puts(sb, "<td>");
		esc(sb, r->modpath);
		mf_strbuf_puts(sb, "</td></tr>\n");
	}
	mf_strbuf_puts(sb, "</tbody></table>\n");
	cutoff_note(sb, n, a->mods.n, "load modules", "--summary-cutoff");

	mf_strbuf_printf(sb,
			 "<h2>Functions</h2>\n<p class=\"note\">Samples: the %s of each function, the hottest "
			 "first.</p>\n",
			 what);
	n = mf_mrep_cut_rows(&a->funcs, &x->o.summary);
	table_head(sb, fcols, fnum);
	for (i = 0; i < n; i++) {
		const struct mf_agg_row *r = &a->funcs.rows[i];
		mf_strbuf_printf(sb, "<tr><td class=\"n\">%" PRIu64 "</td>", r->metric);
		num_cell(sb, r->pct);
		num_cell(sb, r->cum);
		mf_strbuf_puts(sb, "<td>");
		func_label(sb, r);
		mf_strbuf_puts(sb, "</td><td>");
		esc(sb, r->modname);
		mf_strbuf_puts(sb, "</td><td>");
		esc(sb, base_name(r->file));
		mf_strbuf_puts(sb, "</td></tr>\n");
	}
	mf_strbuf_puts(sb, "</tbody></table>\n");
	cutoff_note(sb, n, a->funcs.n, "functions", "--summary-cutoff");
}

/* The hottest source lines of each function under the detail cutoff. */
static void hot_lines(struct mf_mrep *x, struct mf_strbuf *sb)
{
	static const char *const cols[] = {"Samples", "% Total", "% Function", "Line", "Source", NULL};
	static const bool num[] = {true, true, true, false, false};
	const struct mf_agg *a = &x->a;
	size_t nf = mf_mrep_cut_rows(&a->funcs, &x->o.detail), f, i, shown;
	char text[200];

	mf_strbuf_puts(sb, "<h2>Hottest source lines</h2>\n");
	if (!nf || !a->lines.n) {
		mf_strbuf_puts(sb, "<p class=\"note\">No source lines: the sampled code has no line table.</p>\n");
		return;
	}
	for (f = 0; f < nf; f++) {
		const struct mf_agg_row *fr = &a->funcs.rows[f];
		mf_strbuf_puts(sb, "<h3>");
		func_label(sb, fr);
		mf_strbuf_puts(sb, " (");
		esc(sb, fr->modname);
		mf_strbuf_puts(sb, ")</h3>\n");
		shown = 0;
		for (i = 0; i < a->lines.n && shown < TOP_LINES; i++) {
			const struct mf_agg_row *r = &a->lines.rows[i];
			if (r->fn != f || !r->metric || !r->file || !r->line)
				continue;
			if (!shown)
				table_head(sb, cols, num);
			shown++;
			mf_strbuf_printf(sb, "<tr><td class=\"n\">%" PRIu64 "</td>", r->metric);
			num_cell(sb, r->pct);
			num_cell(sb, pct(r->metric, fr->metric));
			mf_strbuf_printf(sb, "<td>%s", r->approx ? "~" : "");
			esc(sb, base_name(r->file));
			mf_strbuf_printf(sb, ":%" PRIu32 "</td><td><code>", r->line);
			if (mf_srccache_text(&x->src, r->file, r->line, text, sizeof(text)))
				esc(sb, text);
			mf_strbuf_puts(sb, "</code></td></tr>\n");
		}
		if (shown)
			mf_strbuf_puts(sb, "</tbody></table>\n");
		else
			mf_strbuf_puts(sb, "<p class=\"note\">No line information for this function.</p>\n");
	}
	cutoff_note(sb, nf, a->funcs.n, "functions", "--detail-cutoff");
}

/* Writes sb to fp in one piece (MF_EIO names the reason). */
static int put(FILE *fp, const struct mf_strbuf *sb, struct mf_error *err)
{
	if (sb->failed)
		return mf_error_set(err, MF_ENOMEM, "", 0, 0, "out of memory while writing the report");
	if (fwrite(mf_strbuf_str(sb), 1, sb->len, fp) != sb->len || fflush(fp) != 0 || ferror(fp))
		return mf_error_set(err, MF_EIO, "", 0, 0, "cannot write the report: %s", strerror(errno));
	return 0;
}

int mf_mreport_html(FILE *fp, const struct mf_mrun *run, const struct mf_mreport_opts *o, struct mf_error *err)
{
	struct mf_mreport_opts oo;
	struct mf_mrep x;
	struct mf_fold fold;
	struct mf_flame fl;
	struct mf_strbuf sb;
	const char *what;
	char why[512], head[64];
	int rc;

	memset(&fl, 0, sizeof(fl));
	memset(&fold, 0, sizeof(fold));
	if (o) {
		oo = *o;
	} else {
		memset(&oo, 0, sizeof(oo));
		oo.summary = (struct mf_cutoff){1, 100, 5};
		oo.detail = (struct mf_cutoff){5, 90, 1};
	}
	oo.format = MF_MFMT_TEXT; /* the aggregate's options; the format is this page */
	mf_strbuf_init(&sb);
	if ((rc = mf_mrep_open(&x, run, &oo, err)) != 0 || (rc = mf_fold_build(&fold, run, err)) != 0 ||
	    (rc = mf_flame_build(&fl, &fold, MIN_PX / INNER, err)) != 0)
		goto out;
	what = x.a.itlb && !x.a.by_cpu ? "sampled ITLB misses" : "samples";
	snprintf(head, sizeof(head), "mfstat measure %s: ", run->measurement);
	page_head(&sb, head, prog_name(run));
	run_facts(&sb, run, NULL);
	if (mf_mreport_no_samples(run, why, sizeof(why))) {
		mf_strbuf_puts(&sb, "<p class=\"note\">");
		esc(&sb, why);
		mf_strbuf_puts(&sb, "</p>\n");
	}
	if (fold.chains) {
		mf_strbuf_puts(&sb,
			       "<h2>Flame graph</h2>\n<p class=\"note\">Each frame is as wide as the samples "
			       "in it and in what it called; callers below, callees above, children ordered by "
			       "name; colour by load module.  Hover a frame for its figures; click to zoom, click "
			       "<i>all</i> to zoom out.</p>\n");
		flame_svg(&sb, &fl, "samples");
	} else {
		mf_strbuf_puts(&sb,
			       "<h2>Top functions</h2>\n<p class=\"note\">This run has no call chains: run with "
			       "-g for call chains and a flame graph.</p>\n");
		bar_chart(&sb, &x.a, what);
	}
	summaries(&x, &sb, what);
	hot_lines(&x, &sb);
	page_tail(&sb, fold.chains);
	if (x.nomem)
		sb.failed = 1;
	rc = put(fp, &sb, err);
out:
	mf_flame_free(&fl);
	mf_fold_free(&fold);
	mf_strbuf_free(&sb);
	mf_mrep_close(&x);
	return rc;
}

/* ---- the differential page ----------------------------------------------------------------- */

int mf_mdiff_html(FILE *fp, const struct mf_mrun *before, const struct mf_mrun *after, bool absolute, bool negate,
		  struct mf_error *err)
{
	struct mf_fold fb, fa;
	struct mf_flame fl;
	struct mf_strbuf sb;
	const struct mf_fold *side;
	size_t i, j;
	int rc;

	memset(&fl, 0, sizeof(fl));
	memset(&fb, 0, sizeof(fb));
	memset(&fa, 0, sizeof(fa));
	mf_strbuf_init(&sb);
	if ((rc = mf_fold_build(&fb, before, err)) != 0 || (rc = mf_fold_build(&fa, after, err)) != 0 ||
	    (rc = mf_flame_diff(&fl, &fb, &fa, absolute, negate, MIN_PX / INNER, err)) != 0)
		goto out;
	page_head(&sb, "mfstat measure diff: ", prog_name(after));
	run_facts(&sb, before, "Before");
	run_facts(&sb, after, "After");
	mf_strbuf_printf(&sb,
			 "<h2>Differential flame graph</h2>\n<p class=\"note\">Widths from %s (%" PRIu64
			 " samples).  Each stack's change is on its leaf frame, %s: "
			 "<span style=\"background:rgb(255,60,60)\">&#160;red&#160;</span> where it grew, "
			 "<span style=\"background:rgb(60,60,255);color:#fff\">&#160;blue&#160;</span> where it "
			 "shrank, white where it did not change; the stronger, the larger the change.  Each "
			 "frame's title gives its share before and after and the change.  Click to zoom.</p>\n",
			 negate ? "BEFORE (--negate)" : "AFTER", negate ? fl.total_before : fl.total_after,
			 absolute ? "in samples (--absolute)" : "in points of each run's total samples");
	if (!fb.chains && !fa.chains)
		mf_strbuf_puts(&sb,
			       "<p class=\"note\">Neither run has call chains: the stacks are the sampled "
			       "functions alone (run with -g for call chains).</p>\n");
	flame_svg(&sb, &fl, "samples");
	side = negate ? &fa : &fb;
	mf_strbuf_printf(&sb, "<h2>Stacks only in %s</h2>\n", negate ? "AFTER" : "BEFORE");
	if (!fl.nonly) {
		mf_strbuf_puts(&sb, "<p class=\"note\">None.</p>\n");
	} else {
		mf_strbuf_printf(&sb,
				 "<p class=\"note\">They have no width in %s's view.</p>\n<table><thead><tr>"
				 "<th class=\"n\">Samples</th><th class=\"n\">%% Total</th><th>Stack</th></tr>"
				 "</thead><tbody>\n",
				 negate ? "BEFORE" : "AFTER");
		for (i = 0; i < fl.nonly; i++) {
			const struct mf_fold_stack *s;
			if (fl.only[i] >= side->n)
				continue;
			s = &side->stacks[fl.only[i]];
			mf_strbuf_printf(&sb, "<tr><td class=\"n\">%" PRIu64 "</td>", fl.only_samples[i]);
			num_cell(&sb, pct(fl.only_samples[i], side->samples));
			mf_strbuf_puts(&sb, "<td><code>");
			for (j = 0; j < s->n; j++) {
				if (j)
					mf_strbuf_puts(&sb, ";");
				esc(&sb, side->frames[s->first + j].name);
			}
			mf_strbuf_puts(&sb, "</code></td></tr>\n");
		}
		mf_strbuf_puts(&sb, "</tbody></table>\n");
	}
	page_tail(&sb, true);
	rc = put(fp, &sb, err);
out:
	mf_flame_free(&fl);
	mf_fold_free(&fa);
	mf_fold_free(&fb);
	mf_strbuf_free(&sb);
	return rc;
}
