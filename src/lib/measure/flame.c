/* SPDX-License-Identifier: MIT */
/*
 * The layout of flame graphs (mfstat/measure/flame.h).  The folded stacks
 * come sorted frame by frame by name, so the stacks through one frame are
 * neighbours: one pass keeps the path of the previous stack, shares its
 * common prefix and opens new frames for the rest.  A frame's x is the
 * samples of the stacks before the first stack through it.
 */
#include "mfstat/measure/flame.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/base/escape.h"

/* One stack of the layout: its frames (from one of the folds), the view's samples, and both sides'. */
struct ent {
	const struct mf_fold_frame *fr;
	size_t n;
	uint64_t w, before, after;
	int side;     /* diff: 0 before's fold, 1 after's (where fr comes from) */
	size_t index; /* the stack's index in that fold */
};

static int nomem(struct mf_error *err)
{
	return mf_error_set(err, MF_ENOMEM, "", 0, 0, "out of memory while laying out the flame graph");
}

static int push(struct mf_flame *fl, size_t *cap, const struct mf_flame_node *nd)
{
	if (fl->n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct mf_flame_node *p = realloc(fl->nodes, c * sizeof(*p));
		if (!p)
			return -1;
		fl->nodes = p;
		*cap = c;
	}
	fl->nodes[fl->n++] = *nd;
	return 0;
}

/* Lays out the entries (sorted by names frame by frame); delta per entry from the totals. */
static int layout(struct mf_flame *fl, const struct ent *e, size_t ne, double min_frac, struct mf_error *err)
{
	size_t cap = 0, *path = NULL, plen = 0, maxn = 0, i, j;
	uint64_t cum = 0;

	for (i = 0; i < ne; i++) {
		if (e[i].n > maxn)
			maxn = e[i].n;
		fl->total += e[i].w;
	}
	if (maxn && !(path = malloc(maxn * sizeof(*path))))
		return nomem(err);
	for (i = 0; i < ne; i++) {
		size_t k = 0;
		while (k < plen && k < e[i].n && strcmp(fl->nodes[path[k]].name, e[i].fr[k].name) == 0)
			k++;
		plen = k;
		for (j = k; j < e[i].n; j++) {
			struct mf_flame_node nd;
			memset(&nd, 0, sizeof(nd));
			nd.name = e[i].fr[j].name;
			nd.modname = e[i].fr[j].modname ? e[i].fr[j].modname : "";
			nd.depth = (uint32_t)j + 1;
			nd.parent = j ? path[j - 1] : MF_FLAME_NONE;
			nd.x = cum;
			if (push(fl, &cap, &nd)) {
				free(path);
				return nomem(err);
			}
			path[j] = fl->n - 1;
			plen = j + 1;
			if (nd.depth > fl->depth)
				fl->depth = nd.depth;
		}
		for (j = 0; j < e[i].n; j++) {
			struct mf_flame_node *nd = &fl->nodes[path[j]];
			nd->samples += e[i].w;
			nd->before += e[i].before;
			nd->after += e[i].after;
		}
		if (fl->diff && e[i].n) {
			struct mf_flame_node *leaf = &fl->nodes[path[e[i].n - 1]];
			double d;
			if (fl->absolute)
				d = (double)e[i].after - (double)e[i].before;
			else
				d = (fl->total_after ? 100.0 * (double)e[i].after / (double)fl->total_after : 0) -
				    (fl->total_before ? 100.0 * (double)e[i].before / (double)fl->total_before : 0);
			leaf->self = true;
			leaf->delta += d;
		}
		cum += e[i].w;
	}
	free(path);
	for (i = 0; i < fl->n; i++) {
		struct mf_flame_node *nd = &fl->nodes[i];
		bool parent_drawn = nd->parent == MF_FLAME_NONE || fl->nodes[nd->parent].drawn;
		nd->drawn = parent_drawn && nd->samples > 0 && fl->total &&
			    (double)nd->samples >= min_frac * (double)fl->total;
		if (!nd->drawn && nd->samples > 0)
			fl->dropped++;
		if (fl->diff && nd->drawn && fabs(nd->delta) > fl->max_delta)
			fl->max_delta = fabs(nd->delta);
	}
	return 0;
}

int mf_flame_build(struct mf_flame *fl, const struct mf_fold *f, double min_frac, struct mf_error *err)
{
	struct ent *e;
	size_t i;
	int rc;
	memset(fl, 0, sizeof(*fl));
	if (!f->n)
		return 0;
	if (!(e = calloc(f->n, sizeof(*e))))
		return nomem(err);
	for (i = 0; i < f->n; i++) {
		e[i].fr = f->frames + f->stacks[i].first;
		e[i].n = f->stacks[i].n;
		e[i].w = f->stacks[i].samples;
		e[i].index = i;
	}
	rc = layout(fl, e, f->n, min_frac, err);
	free(e);
	return rc;
}

/* Stacks by their names frame by frame, a prefix first: the fold's own order, modules aside. */
static int cmp_names(const struct ent *a, const struct ent *b)
{
	size_t i, n = a->n < b->n ? a->n : b->n;
	for (i = 0; i < n; i++) {
		int c = strcmp(a->fr[i].name, b->fr[i].name);
		if (c)
			return c;
	}
	return a->n < b->n ? -1 : a->n > b->n;
}

static int cmp_ent(const void *pa, const void *pb)
{
	const struct ent *a = pa, *b = pb;
	int c = cmp_names(a, b);
	if (c)
		return c;
	if (a->side != b->side)
		return a->side < b->side ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

int mf_flame_diff(struct mf_flame *fl, const struct mf_fold *before, const struct mf_fold *after, bool absolute,
		  bool negate, double min_frac, struct mf_error *err)
{
	size_t n = before->n + after->n, i, m = 0, cap = 0;
	struct ent *e;
	int rc;

	memset(fl, 0, sizeof(*fl));
	fl->diff = true;
	fl->absolute = absolute;
	fl->negate = negate;
	fl->total_before = before->samples;
	fl->total_after = after->samples;
	if (!n)
		return 0;
	if (!(e = calloc(n, sizeof(*e))))
		return nomem(err);
	for (i = 0; i < n; i++) {
		const struct mf_fold *f = i < before->n ? before : after;
		size_t k = i < before->n ? i : i - before->n;
		e[i].fr = f->frames + f->stacks[k].first;
		e[i].n = f->stacks[k].n;
		e[i].side = f == after;
		e[i].index = k;
		if (f == after)
			e[i].after = f->stacks[k].samples;
		else
			e[i].before = f->stacks[k].samples;
	}
	qsort(e, n, sizeof(*e), cmp_ent);
	/* Merge the stacks of equal names (either side; the first keeps its frames). */
	for (i = 0; i < n; i++) {
		if (m && cmp_names(&e[m - 1], &e[i]) == 0) {
			e[m - 1].before += e[i].before;
			e[m - 1].after += e[i].after;
			continue;
		}
		e[m++] = e[i];
	}
	for (i = 0; i < m; i++) {
		e[i].w = negate ? e[i].before : e[i].after;
		if (!e[i].w && (negate ? e[i].after : e[i].before)) {
			/* Listed below the graph: the index into the side that has it. */
			if (fl->nonly == cap) {
				size_t c = cap ? cap * 2 : 16;
				size_t *p = realloc(fl->only, c * sizeof(*p));
				uint64_t *q;
				if (p)
					fl->only = p;
				q = p ? realloc(fl->only_samples, c * sizeof(*q)) : NULL;
				if (!q) {
					free(e);
					return nomem(err);
				}
				fl->only_samples = q;
				cap = c;
			}
			fl->only_samples[fl->nonly] = negate ? e[i].after : e[i].before;
			fl->only[fl->nonly++] = i;
		}
	}
	rc = layout(fl, e, m, min_frac, err);
	/* only[] held entry indexes: turn them into the side's fold indexes. */
	for (i = 0; i < fl->nonly; i++) {
		const struct ent *x = &e[fl->only[i]];
		const struct mf_fold *side = negate ? after : before;
		size_t k;
		if ((x->side == 1) == (side == after)) {
			fl->only[i] = x->index;
			continue;
		}
		/* The merged entry took the other side's frames: find this side's stack by its names. */
		for (k = 0; k < side->n; k++) {
			struct ent y = {.fr = side->frames + side->stacks[k].first, .n = side->stacks[k].n};
			if (cmp_names(&y, x) == 0)
				break;
		}
		fl->only[i] = k;
	}
	free(e);
	return rc;
}

void mf_flame_free(struct mf_flame *fl)
{
	free(fl->nodes);
	free(fl->only);
	free(fl->only_samples);
	memset(fl, 0, sizeof(*fl));
}

/* FNV-1a, 32 bits: the same on every host and in every run. */
static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

void mf_flame_colour(const char *name, const char *modname, char *buf, size_t n)
{
	uint32_t hn = hash(name ? name : "");
	if (!modname || !*modname || strcmp(modname, "[unknown]") == 0) {
		snprintf(buf, n, "hsl(0,0%%,%u%%)", 72 + (unsigned)(hn % 12));
		return;
	}
	if (strcmp(modname, "[kernel.kallsyms]") == 0) {
		snprintf(buf, n, "hsl(30,80%%,%u%%)", 55 + (unsigned)(hn % 20));
		return;
	}
	snprintf(buf, n, "hsl(%u,65%%,%u%%)", (unsigned)(hash(modname) % 360), 55 + (unsigned)(hn % 25));
}

void mf_flame_diff_colour(double delta, double max, char *buf, size_t n)
{
	double r = max > 0 ? fabs(delta) / max : 0;
	unsigned c;
	if (!(r > 0)) {
		snprintf(buf, n, "rgb(250,250,250)");
		return;
	}
	if (r > 1)
		r = 1;
	/* From a pale tint at the smallest change to the full colour at the largest. */
	c = (unsigned)lround(220 - 200 * r);
	if (delta > 0)
		snprintf(buf, n, "rgb(255,%u,%u)", c, c);
	else
		snprintf(buf, n, "rgb(%u,%u,255)", c, c);
}

void mf_flame_clip(const char *name, double width_px, char *out, size_t n)
{
	size_t len = strlen(name), fit, chars = 0, i = 0, cut = 0;
	if (n < 3) {
		if (n)
			out[0] = '\0';
		return;
	}
	out[0] = '\0';
	if (!(width_px > 0))
		return;
	fit = (size_t)(width_px / 7);
	if (fit < 3)
		return;
	/* Count characters (a byte that starts no valid sequence counts as one). */
	while (i < len) {
		size_t l = mf_utf8_decode(name + i, len - i, NULL);
		if (!l)
			l = 1;
		if (chars == fit - 2)
			cut = i;
		chars++;
		i += l;
	}
	if (chars <= fit) {
		snprintf(out, n, "%s", name);
		return;
	}
	if (cut + 3 > n)
		cut = n - 3; /* never: labels are short; keep within out */
	memcpy(out, name, cut);
	memcpy(out + cut, "..", 3);
}
