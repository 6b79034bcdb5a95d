/* SPDX-License-Identifier: MIT */
/*
 * Flame graph layout (flame.c) on hand-made folds: widths and places, frames
 * of one name merged below their parent, children by name, the minimum
 * width, colours stable and per module, labels clipped between UTF-8
 * characters; the differential layout (sign, normalisation, --absolute,
 * --negate, stacks on one side only); and the HTML pages (mreport_html.c)
 * of hand-made runs: hostile names escaped, titles, the bar chart without
 * chains, the differential titles.
 */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/measure/flame.h"
#include "mfstat/measure/fold.h"

/* A fold from lines "a;b;c" with counts (given in the fold's order); module "m" ("" for the root). */
static void mkfold(struct mf_fold *f, const char *const *lines, const uint64_t *counts, size_t n)
{
	size_t i, cap = 0;
	memset(f, 0, sizeof(*f));
	f->stacks = calloc(n ? n : 1, sizeof(*f->stacks));
	f->owned = calloc(n ? n : 1, sizeof(*f->owned));
	assert_non_null(f->stacks);
	assert_non_null(f->owned);
	for (i = 0; i < n; i++) {
		char *s = strdup(lines[i]), *p, *save = NULL;
		assert_non_null(s);
		f->owned[f->nowned++] = s;
		f->stacks[i].first = f->nframes;
		for (p = strtok_r(s, ";", &save); p; p = strtok_r(NULL, ";", &save)) {
			if (f->nframes == cap) {
				cap = cap ? cap * 2 : 16;
				f->frames = realloc(f->frames, cap * sizeof(*f->frames));
				assert_non_null(f->frames);
			}
			f->frames[f->nframes].name = p;
			f->frames[f->nframes].modname = f->nframes == f->stacks[i].first ? "" : "m";
			f->nframes++;
		}
		f->stacks[i].n = f->nframes - f->stacks[i].first;
		f->stacks[i].samples = counts[i];
		f->samples += counts[i];
		if (f->stacks[i].n > 2)
			f->chains = true;
	}
	f->n = n;
}

static size_t node(const struct mf_flame *fl, const char *path)
{
	/* path "p;main;a": the frame reached by these names. */
	char buf[256], *p, *save = NULL;
	size_t cur = MF_FLAME_NONE, i;
	snprintf(buf, sizeof(buf), "%s", path);
	for (p = strtok_r(buf, ";", &save); p; p = strtok_r(NULL, ";", &save)) {
		for (i = 0; i < fl->n; i++)
			if (fl->nodes[i].parent == cur && strcmp(fl->nodes[i].name, p) == 0)
				break;
		if (i == fl->n)
			return MF_FLAME_NONE;
		cur = i;
	}
	return cur;
}

static void layout(void **state)
{
	static const char *const lines[] = {"p;main;a;x", "p;main;a;y", "p;main;b", "p;other", "q;main"};
	static const uint64_t counts[] = {3, 1, 2, 4, 5};
	static const char *const order[] = {"p", "main", "a", "x", "y", "b", "other", "q", "main"};
	struct mf_fold f;
	struct mf_flame fl;
	struct mf_error e;
	size_t i, j;
	(void)state;
	mf_error_clear(&e);
	mkfold(&f, lines, counts, 5);
	assert_int_equal(mf_flame_build(&fl, &f, 0, &e), 0);
	assert_int_equal(fl.total, 15);
	assert_int_equal(fl.depth, 4);
	assert_int_equal(fl.n, 9);
	assert_int_equal(fl.dropped, 0);
	/* Depth first, children by name; "main" once below p (three stacks merged) and once below q. */
	for (i = 0; i < fl.n; i++)
		assert_string_equal(fl.nodes[i].name, order[i]);
	assert_int_equal(fl.nodes[node(&fl, "p")].samples, 10);
	assert_int_equal(fl.nodes[node(&fl, "p;main")].samples, 6);
	assert_int_equal(fl.nodes[node(&fl, "p;main;a")].samples, 4);
	assert_int_equal(fl.nodes[node(&fl, "p;main;a;y")].x, 3);
	assert_int_equal(fl.nodes[node(&fl, "p;main;b")].x, 4);
	assert_int_equal(fl.nodes[node(&fl, "p;other")].x, 6);
	assert_int_equal(fl.nodes[node(&fl, "q")].x, 10);
	assert_int_equal(fl.nodes[node(&fl, "q;main")].depth, 2);
	/* Children fit in their parent, side by side, and the roots sum to the total. */
	{
		uint64_t roots = 0;
		for (i = 0; i < fl.n; i++) {
			uint64_t sum = 0, x = fl.nodes[i].x;
			if (fl.nodes[i].parent == MF_FLAME_NONE)
				roots += fl.nodes[i].samples;
			for (j = 0; j < fl.n; j++)
				if (fl.nodes[j].parent == i) {
					assert_true(fl.nodes[j].x >= x);
					x = fl.nodes[j].x + fl.nodes[j].samples;
					sum += fl.nodes[j].samples;
				}
			assert_true(sum <= fl.nodes[i].samples);
			assert_true(x <= fl.nodes[i].x + fl.nodes[i].samples);
			assert_true(fl.nodes[i].drawn);
		}
		assert_int_equal(roots, fl.total);
	}
	mf_flame_free(&fl);
	mf_fold_free(&f);
}

/* Frames under the minimum width are not drawn, nor anything above them, and are counted. */
static void min_width(void **state)
{
	static const char *const lines[] = {"p;big", "p;tiny;above"};
	static const uint64_t counts[] = {100000, 1};
	struct mf_fold f;
	struct mf_flame fl;
	struct mf_error e;
	(void)state;
	mf_error_clear(&e);
	mkfold(&f, lines, counts, 2);
	assert_int_equal(mf_flame_build(&fl, &f, 0.1 / 1180, &e), 0);
	assert_int_equal(fl.dropped, 2);
	assert_true(fl.nodes[node(&fl, "p;big")].drawn);
	assert_false(fl.nodes[node(&fl, "p;tiny")].drawn);
	assert_false(fl.nodes[node(&fl, "p;tiny;above")].drawn);
	mf_flame_free(&fl);
	/* Wide enough at a smaller minimum. */
	assert_int_equal(mf_flame_build(&fl, &f, 0.000001, &e), 0);
	assert_int_equal(fl.dropped, 0);
	mf_flame_free(&fl);
	mf_fold_free(&f);
}

static unsigned hue(const char *hsl)
{
	unsigned h = 999;
	assert_int_equal(sscanf(hsl, "hsl(%u,", &h), 1);
	return h;
}

static void colours(void **state)
{
	char a[48], b[48], c[48], d[48];
	(void)state;
	/* Stable: the same in every run and on every host (FNV-1a of the names). */
	mf_flame_colour("main", "prog", a, sizeof(a));
	mf_flame_colour("main", "prog", b, sizeof(b));
	assert_string_equal(a, b);
	assert_string_equal(a, "hsl(341,65%,72%)");
	/* One hue per module, the lightness from the function. */
	mf_flame_colour("work", "prog", c, sizeof(c));
	assert_int_equal(hue(a), hue(c));
	assert_string_not_equal(a, c);
	mf_flame_colour("qsort", "libc.so.6", d, sizeof(d));
	assert_int_not_equal(hue(a), hue(d));
	mf_flame_colour("x", "[kernel.kallsyms]", d, sizeof(d));
	assert_int_equal(hue(d), 30);
	mf_flame_colour("[unknown]", "[unknown]", d, sizeof(d));
	assert_true(strstr(d, ",0%,") != NULL);
	mf_flame_colour("prog", "", d, sizeof(d));
	assert_true(strstr(d, ",0%,") != NULL);
	/* Differential: red grew, blue shrank, white unchanged, strongest at the largest change. */
	mf_flame_diff_colour(25, 25, d, sizeof(d));
	assert_string_equal(d, "rgb(255,20,20)");
	mf_flame_diff_colour(-25, 25, d, sizeof(d));
	assert_string_equal(d, "rgb(20,20,255)");
	mf_flame_diff_colour(-12.5, 25, d, sizeof(d));
	assert_string_equal(d, "rgb(120,120,255)");
	mf_flame_diff_colour(0, 25, d, sizeof(d));
	assert_string_equal(d, "rgb(250,250,250)");
	mf_flame_diff_colour(0, 0, d, sizeof(d));
	assert_string_equal(d, "rgb(250,250,250)");
}

static void clip(void **state)
{
	char out[64];
	(void)state;
	mf_flame_clip("abcdefghij", 70, out, sizeof(out));
	assert_string_equal(out, "abcdefghij");
	mf_flame_clip("abcdefghij", 50, out, sizeof(out));
	assert_string_equal(out, "abcde..");
	mf_flame_clip("abcdefghij", 20, out, sizeof(out));
	assert_string_equal(out, "");
	mf_flame_clip("abcdefghij", 0, out, sizeof(out));
	assert_string_equal(out, "");
	/* Characters, not bytes: é is two. */
	mf_flame_clip("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 35, out, sizeof(out));
	assert_string_equal(out, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	mf_flame_clip("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 28, out, sizeof(out));
	assert_string_equal(out, "\xc3\xa9\xc3\xa9..");
}

/* 3:1 before, 1:1 after: caller_a's leaf shrinks by 25 points, caller_b's grows by 25. */
static void diff_sign(void **state)
{
	static const char *const lb[] = {"prog;main;caller_a;qsort;cmp", "prog;main;caller_b;qsort;cmp"};
	static const uint64_t cb[] = {300, 100};
	static const char *const la[] = {"prog;main;caller_a;qsort;cmp", "prog;main;caller_b;qsort;cmp"};
	static const uint64_t ca[] = {50, 50};
	struct mf_fold fb, fa;
	struct mf_flame fl;
	struct mf_error e;
	size_t a, b;
	(void)state;
	mf_error_clear(&e);
	mkfold(&fb, lb, cb, 2);
	mkfold(&fa, la, ca, 2);
	assert_int_equal(mf_flame_diff(&fl, &fb, &fa, false, false, 0, &e), 0);
	assert_true(fl.diff);
	assert_int_equal(fl.total, 100); /* widths from after */
	a = node(&fl, "prog;main;caller_a;qsort;cmp");
	b = node(&fl, "prog;main;caller_b;qsort;cmp");
	assert_true(fl.nodes[a].self && fl.nodes[b].self);
	assert_true(fabs(fl.nodes[a].delta + 25) < 1e-9);
	assert_true(fabs(fl.nodes[b].delta - 25) < 1e-9);
	assert_true(fabs(fl.max_delta - 25) < 1e-9);
	assert_int_equal(fl.nodes[a].samples, 50);
	assert_int_equal(fl.nodes[a].before, 300);
	assert_int_equal(fl.nodes[a].after, 50);
	/* Only leaves carry a change: caller_a itself is white. */
	assert_false(fl.nodes[node(&fl, "prog;main;caller_a")].self);
	assert_true(fl.nodes[node(&fl, "prog;main;caller_a")].delta == 0);
	assert_int_equal(fl.nonly, 0);
	mf_flame_free(&fl);

	/* --absolute: samples, not points. */
	assert_int_equal(mf_flame_diff(&fl, &fb, &fa, true, false, 0, &e), 0);
	assert_true(fabs(fl.nodes[node(&fl, "prog;main;caller_a;qsort;cmp")].delta + 250) < 1e-9);
	assert_true(fabs(fl.nodes[node(&fl, "prog;main;caller_b;qsort;cmp")].delta + 50) < 1e-9);
	mf_flame_free(&fl);

	/* --negate: before's widths, the same change (what happened next). */
	assert_int_equal(mf_flame_diff(&fl, &fb, &fa, false, true, 0, &e), 0);
	assert_int_equal(fl.total, 400);
	assert_int_equal(fl.nodes[node(&fl, "prog;main;caller_a")].samples, 300);
	assert_true(fabs(fl.nodes[node(&fl, "prog;main;caller_a;qsort;cmp")].delta + 25) < 1e-9);
	mf_flame_free(&fl);
	mf_fold_free(&fb);
	mf_fold_free(&fa);
}

/* A stack only in before has no width in after's view: listed; one only in after shows, all red. */
static void diff_one_side(void **state)
{
	static const char *const lb[] = {"p;gone", "p;kept"};
	static const uint64_t cb[] = {1, 1};
	static const char *const la[] = {"p;kept", "p;new"};
	static const uint64_t ca[] = {1, 1};
	struct mf_fold fb, fa;
	struct mf_flame fl;
	struct mf_error e;
	size_t g;
	(void)state;
	mf_error_clear(&e);
	mkfold(&fb, lb, cb, 2);
	mkfold(&fa, la, ca, 2);
	assert_int_equal(mf_flame_diff(&fl, &fb, &fa, false, false, 0, &e), 0);
	assert_int_equal(fl.nonly, 1);
	assert_int_equal(fl.only[0], 0); /* before's "p;gone" */
	assert_int_equal(fl.only_samples[0], 1);
	g = node(&fl, "p;gone");
	assert_true(g != MF_FLAME_NONE);
	assert_false(fl.nodes[g].drawn);
	assert_int_equal(fl.dropped, 0); /* no width: not a dropped frame */
	assert_true(fl.nodes[node(&fl, "p;new")].delta > 0);
	assert_true(fabs(fl.nodes[node(&fl, "p;kept")].delta) < 1e-9);
	assert_int_equal(fl.nodes[node(&fl, "p")].before, 2);
	mf_flame_free(&fl);
	/* --negate: before's view, "p;new" (after's index 1) is the one without width. */
	assert_int_equal(mf_flame_diff(&fl, &fb, &fa, false, true, 0, &e), 0);
	assert_int_equal(fl.nonly, 1);
	assert_int_equal(fl.only[0], 1);
	mf_flame_free(&fl);
	mf_fold_free(&fb);
	mf_fold_free(&fa);
}

/* ---- pages of hand-made runs ------------------------------------------------------------------ */

#define FR(m, a, fl) ((struct mf_mframe){.mod = (m), .off = (a), .flags = (fl)})

static void sym(struct mf_mrun *run, uint32_t mod, uint64_t addr, const char *func, uint64_t start)
{
	struct mf_msym *y = mf_mrun_add_sym(run);
	assert_non_null(y);
	y->mod = mod;
	y->addr = addr;
	y->func = mf_mrun_str(run, func);
	y->func_start = start;
	y->func_size = 0x100;
}

/*
 * A profile of prog: main calls caller_a and caller_b (a ratio of a:b), each
 * calls qsort which calls cmp; with chains unless flat.  cmp's name may be hostile.
 */
static void mkrun(struct mf_mrun *run, int na, int nb, bool flat, const char *cmp)
{
	struct mf_mstream *s;
	uint32_t prog, libc;
	int i;
	mf_mrun_init(run);
	strcpy(run->measurement, "profile");
	run->argc = 1;
	run->argv = calloc(2, sizeof(char *));
	assert_non_null(run->argv);
	run->argv[0] = strdup("/usr/bin/prog");
	prog = mf_mrun_module(run, "/usr/bin/prog");
	libc = mf_mrun_module(run, "/lib/libc.so.6");
	s = mf_mrun_add_stream(run);
	strcpy(s->name, "task-clock");
	s->role = MF_ROLE_CPU;
	mf_mrun_thread(run, 10, 10, "prog");
	if (!flat)
		strcpy(run->call_graph, "fp");
	sym(run, prog, 0x1010, "main", 0x1000);
	sym(run, prog, 0x1110, "caller_a", 0x1100);
	sym(run, prog, 0x1210, "caller_b", 0x1200);
	sym(run, prog, 0x1300, cmp, 0x1300);
	sym(run, libc, 0x5010, "qsort", 0x5000);
	for (i = 0; i < na + nb; i++) {
		struct mf_msample *m = mf_mrun_add_sample(run);
		assert_non_null(m);
		m->pid = m->tid = 10;
		m->period = 1000000;
		m->mod = prog;
		m->off = m->vaddr = 0x1300;
		if (!flat)
			m->stack =
				mf_mrun_add_stack(run,
						  (struct mf_mframe[]){FR(prog, 0x1300, 0),
								       FR(libc, 0x5011, MF_FR_RETURN),
								       FR(prog, i < na ? 0x1111 : 0x1211, MF_FR_RETURN),
								       FR(prog, 0x1011, MF_FR_RETURN)},
						  4);
	}
	mf_mrun_finish(run);
	mf_mrun_sort_syms(run);
}

static char *page(const struct mf_mrun *run)
{
	struct mf_mreport_opts o;
	struct mf_error e;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	memset(&o, 0, sizeof(o));
	o.format = MF_MFMT_HTML;
	o.summary = (struct mf_cutoff){1, 100, 5};
	o.detail = (struct mf_cutoff){5, 90, 1};
	mf_error_clear(&e);
	assert_int_equal(mf_mreport_write(fp, run, &o, &e), 0);
	fclose(fp);
	return buf;
}

static void profile_page(void **state)
{
	struct mf_mrun run;
	char *out;
	(void)state;
	mkrun(&run, 30, 10, false, "cmp<script>&\"x'");
	out = page(&run);
	assert_non_null(strstr(out, "<title>mfstat measure profile: prog</title>"));
	assert_non_null(strstr(out, "<svg class=\"flame\""));
	/* Each frame's figures in its title, readable without script. */
	assert_non_null(strstr(out, "<title>caller_a (prog): 30 samples, 75.00%</title>"));
	assert_non_null(strstr(out, "<title>qsort (libc.so.6): 30 samples, 75.00%</title>"));
	/* The hostile name escaped everywhere, never raw. */
	assert_null(strstr(out, "cmp<script>"));
	assert_non_null(strstr(out, "cmp&lt;script&gt;&amp;&quot;x&#39; (prog): 30 samples, 75.00%"));
	assert_non_null(strstr(out, "data-n=\"cmp&lt;script&gt;&amp;&quot;x&#39;\""));
	/* Nothing loaded: one inline script (the zoom), no URL but the SVG namespace. */
	assert_null(strstr(out, "src="));
	assert_null(strstr(out, "<link"));
	assert_null(strstr(out, "https://"));
	assert_non_null(strstr(out, "<h2>Functions</h2>"));
	assert_non_null(strstr(out, "<h2>Load modules</h2>"));
	free(out);
	mf_mrun_free(&run);

	/* Without chains: the bar chart, and why. */
	mkrun(&run, 3, 1, true, "cmp");
	out = page(&run);
	assert_null(strstr(out, "<svg class=\"flame\""));
	assert_null(strstr(out, "<script"));
	assert_non_null(strstr(out, "<svg class=\"bars\""));
	assert_non_null(strstr(out, "run with -g for call chains"));
	assert_non_null(strstr(out, "<title>cmp (prog): 4 samples, 100.00%</title>"));
	free(out);
	mf_mrun_free(&run);
}

static void diff_page(void **state)
{
	struct mf_mrun before, after;
	struct mf_error e;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	(void)state;
	mkrun(&before, 30, 10, false, "cmp");
	mkrun(&after, 20, 20, false, "cmp");
	mf_error_clear(&e);
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	assert_int_equal(mf_mdiff_html(fp, &before, &after, false, false, &e), 0);
	fclose(fp);
	assert_non_null(strstr(buf, "<title>mfstat measure diff: prog</title>"));
	assert_non_null(strstr(buf, "<title>caller_a (prog): 75.00% \xe2\x86\x92 50.00% (-25.00 points)</title>"));
	assert_non_null(strstr(buf, "<title>cmp (prog): 25.00% \xe2\x86\x92 50.00% (+25.00 points)</title>"));
	assert_non_null(strstr(buf, "fill=\"rgb(20,20,255)\""));   /* caller_a's cmp, shrunk the most */
	assert_non_null(strstr(buf, "fill=\"rgb(255,20,20)\""));   /* caller_b's cmp, grown the most */
	assert_non_null(strstr(buf, "fill=\"rgb(250,250,250)\"")); /* unchanged parents */
	assert_non_null(strstr(buf, "<h2>Stacks only in BEFORE</h2>"));
	free(buf);
	mf_mrun_free(&before);
	mf_mrun_free(&after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layout),       cmocka_unit_test(min_width), cmocka_unit_test(colours),
		cmocka_unit_test(clip),         cmocka_unit_test(diff_sign), cmocka_unit_test(diff_one_side),
		cmocka_unit_test(profile_page), cmocka_unit_test(diff_page),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
