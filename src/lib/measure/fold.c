/* SPDX-License-Identifier: MIT */
/*
 * Folded stacks (mfstat/measure/fold.h): the run's distinct chains are named
 * once each (frame by frame, through the run's symbols), the counted samples
 * are tallied per (program name, chain), and the named sequences are sorted
 * frame by frame (so the stacks below one frame stay together) and merged:
 * two chains that differ only in addresses inside functions become one.
 */
#include "mfstat/measure/fold.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A tally: the samples of one program name and one chain (or, without a chain, one function). */
struct tally {
	const char *comm;
	uint32_t stack;            /* run stack, or MF_STACK_NONE: then leaf is the sample's own frame */
	struct mf_fold_frame leaf; /* without a chain */
	uint64_t samples, events;
};

struct ctx {
	const struct mf_mrun *run;
	struct mf_fold *f;
	char **modnames; /* "[MODULE]" per run module, made when first needed */
};

static const char *keep(struct ctx *c, char *s)
{
	char **n;
	if (!s)
		return NULL;
	n = realloc(c->f->owned, (c->f->nowned + 1) * sizeof(*n));
	if (!n) {
		free(s);
		return NULL;
	}
	c->f->owned = n;
	n[c->f->nowned++] = s;
	return s;
}

/* "[MODULE]": the name of code in a module without a symbol for it. */
static const char *unnamed(struct ctx *c, uint32_t mod)
{
	const char *base;
	char *s;
	size_t len;
	if (c->modnames[mod])
		return c->modnames[mod];
	base = c->run->mods[mod].name ? c->run->mods[mod].name : "";
	len = strlen(base) + 3;
	if (!(s = malloc(len)))
		return NULL;
	snprintf(s, len, "[%s]", base);
	return c->modnames[mod] = (char *)keep(c, s);
}

/* Names the code at (mod, addr); kernel says the address is the kernel's. */
static int name_at(struct ctx *c, uint32_t mod, uint64_t addr, bool kernel, bool unknown, struct mf_fold_frame *out)
{
	const struct mf_mrun *run = c->run;
	const struct mf_msym *y;
	if (unknown || (mod == MF_MOD_NONE && !kernel) || (mod != MF_MOD_NONE && mod >= run->nmods)) {
		out->name = out->modname = "[unknown]";
		return 0;
	}
	if (mod == MF_MOD_NONE) {
		out->name = out->modname = "[kernel.kallsyms]";
		return 0;
	}
	out->modname = run->mods[mod].name ? run->mods[mod].name : "";
	y = mf_mrun_sym(run, mod, addr);
	if (y && y->func) {
		out->name = y->func;
		return 0;
	}
	return (out->name = unnamed(c, mod)) ? 0 : -1;
}

static bool counted(const struct mf_mrun *run, const struct mf_msample *s)
{
	int role;
	if (s->stream >= run->nstreams)
		return false;
	role = run->streams[s->stream].role;
	if (strcmp(run->measurement, "itlb") == 0)
		return role == MF_ROLE_ITLB || (role == MF_ROLE_FAULT && (s->flags & MF_MS_IFETCH));
	return role == MF_ROLE_CPU;
}

static const char *comm_of(const struct mf_mrun *run, const struct mf_msample *s, const char **last_comm,
			   uint32_t *last_tid)
{
	size_t i;
	if (*last_comm && *last_tid == s->tid)
		return *last_comm;
	*last_tid = s->tid;
	*last_comm = "[unknown]";
	for (i = run->nthreads; i-- > 0;)
		if (run->threads[i].tid == s->tid) {
			if (run->threads[i].comm)
				*last_comm = run->threads[i].comm;
			break;
		}
	return *last_comm;
}

static int cmp_tally(const void *pa, const void *pb)
{
	const struct tally *a = pa, *b = pb;
	int c = strcmp(a->comm, b->comm);
	if (c)
		return c;
	if (a->stack != b->stack)
		return a->stack < b->stack ? -1 : 1;
	if (a->leaf.name != b->leaf.name)
		return (uintptr_t)a->leaf.name < (uintptr_t)b->leaf.name ? -1 : 1;
	return a->leaf.modname == b->leaf.modname                        ? 0
	       : (uintptr_t)a->leaf.modname < (uintptr_t)b->leaf.modname ? -1
									 : 1;
}

static const struct mf_fold *g_sort;

static int cmp_stack(const void *pa, const void *pb)
{
	const struct mf_fold_stack *a = pa, *b = pb;
	const struct mf_fold_frame *fa = g_sort->frames + a->first, *fb = g_sort->frames + b->first;
	size_t i, n = a->n < b->n ? a->n : b->n;
	for (i = 0; i < n; i++) {
		int c = strcmp(fa[i].name, fb[i].name);
		if (c)
			return c;
	}
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (i = 0; i < n; i++) {
		int c = strcmp(fa[i].modname, fb[i].modname);
		if (c)
			return c;
	}
	return 0;
}

static bool same_stack(const struct mf_fold *f, const struct mf_fold_stack *a, const struct mf_fold_stack *b)
{
	size_t i;
	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (strcmp(f->frames[a->first + i].name, f->frames[b->first + i].name) ||
		    strcmp(f->frames[a->first + i].modname, f->frames[b->first + i].modname))
			return false;
	return true;
}

/* Frames of run stack k, leaf first, named (cached per stack). */
static int name_stack(struct ctx *c, uint32_t k, struct mf_fold_frame **cache)
{
	const struct mf_mstack *st = &c->run->stacks[k];
	struct mf_fold_frame *fr;
	uint32_t i;
	if (cache[k])
		return 0;
	if (!(fr = malloc((st->n ? st->n : 1) * sizeof(*fr))))
		return -1;
	for (i = 0; i < st->n; i++) {
		const struct mf_mframe *m = &c->run->frames[st->first + i];
		if (name_at(c, m->mod, mf_mframe_lookup(m), (m->flags & MF_FR_KERNEL) != 0,
			    (m->flags & MF_FR_UNKNOWN) != 0, &fr[i])) {
			free(fr);
			return -1;
		}
	}
	cache[k] = fr;
	return 0;
}

int mf_fold_build(struct mf_fold *f, const struct mf_mrun *run, struct mf_error *err)
{
	struct ctx c = {.run = run, .f = f};
	struct tally *t = NULL;
	struct mf_fold_frame **cache = NULL;
	size_t nt = 0, i, j, nfr = 0;
	const char *last_comm = NULL;
	uint32_t last_tid = 0;
	int rc = MF_ENOMEM;

	memset(f, 0, sizeof(*f));
	c.modnames = calloc(run->nmods + 1, sizeof(*c.modnames));
	cache = calloc(run->nstacks + 1, sizeof(*cache));
	t = malloc((run->nsamples ? run->nsamples : 1) * sizeof(*t));
	if (!c.modnames || !cache || !t)
		goto out;
	for (i = 0; i < run->nsamples; i++) {
		const struct mf_msample *s = &run->samples[i];
		struct tally *x;
		if (!counted(run, s))
			continue;
		x = &t[nt++];
		memset(x, 0, sizeof(*x));
		x->comm = comm_of(run, s, &last_comm, &last_tid);
		x->samples = 1;
		x->events = s->period;
		if (s->stack < run->nstacks) {
			x->stack = s->stack;
			f->chains = true;
		} else {
			x->stack = MF_STACK_NONE;
			if (name_at(&c, s->mod, s->vaddr, (s->flags & MF_MS_KERNEL) != 0, false, &x->leaf))
				goto out;
		}
	}
	/* One tally per (comm, chain). */
	qsort(t, nt, sizeof(*t), cmp_tally);
	for (i = 0, j = 0; i < nt; i++) {
		if (j && cmp_tally(&t[j - 1], &t[i]) == 0) {
			t[j - 1].samples += t[i].samples;
			t[j - 1].events += t[i].events;
		} else {
			t[j++] = t[i];
		}
	}
	nt = j;
	for (i = 0; i < nt; i++) {
		if (t[i].stack != MF_STACK_NONE) {
			if (name_stack(&c, t[i].stack, cache))
				goto out;
			nfr += 1 + run->stacks[t[i].stack].n;
		} else {
			nfr += 2;
		}
	}
	f->frames = malloc((nfr ? nfr : 1) * sizeof(*f->frames));
	f->stacks = malloc((nt ? nt : 1) * sizeof(*f->stacks));
	if (!f->frames || !f->stacks)
		goto out;
	for (i = 0; i < nt; i++) {
		struct mf_fold_stack *st = &f->stacks[f->n++];
		st->first = f->nframes;
		f->frames[f->nframes].name = t[i].comm;
		f->frames[f->nframes++].modname = "";
		if (t[i].stack != MF_STACK_NONE) {
			const struct mf_mstack *rs = &run->stacks[t[i].stack];
			for (j = rs->n; j-- > 0;)
				f->frames[f->nframes++] = cache[t[i].stack][j];
		} else {
			f->frames[f->nframes++] = t[i].leaf;
		}
		st->n = f->nframes - st->first;
		st->samples = t[i].samples;
		st->events = t[i].events;
		f->samples += st->samples;
		f->events += st->events;
	}
	/* Sorted by names; chains that name the same functions merge. */
	g_sort = f;
	qsort(f->stacks, f->n, sizeof(*f->stacks), cmp_stack);
	g_sort = NULL;
	for (i = 0, j = 0; i < f->n; i++) {
		if (j && same_stack(f, &f->stacks[j - 1], &f->stacks[i])) {
			f->stacks[j - 1].samples += f->stacks[i].samples;
			f->stacks[j - 1].events += f->stacks[i].events;
		} else {
			f->stacks[j++] = f->stacks[i];
		}
	}
	f->n = j;
	rc = 0;
out:
	if (cache)
		for (i = 0; i < run->nstacks; i++)
			free(cache[i]);
	free(cache);
	free(c.modnames);
	free(t);
	if (rc)
		mf_error_set(err, rc, NULL, 0, 0, "out of memory folding %zu samples", run->nsamples);
	return rc;
}

void mf_fold_free(struct mf_fold *f)
{
	size_t i;
	for (i = 0; i < f->nowned; i++)
		free(f->owned[i]);
	free(f->owned);
	free(f->frames);
	free(f->stacks);
	memset(f, 0, sizeof(*f));
}

void mf_fold_put_name(FILE *fp, const char *name)
{
	const unsigned char *p;
	for (p = (const unsigned char *)name; *p; p++)
		putc(*p == ';' ? ':' : *p < 0x20 || *p == 0x7f ? '?' : *p, fp);
}

int mf_fold_write(FILE *fp, const struct mf_fold *f)
{
	size_t i, j;
	for (i = 0; i < f->n; i++) {
		const struct mf_fold_stack *st = &f->stacks[i];
		for (j = 0; j < st->n; j++) {
			if (j)
				putc(';', fp);
			mf_fold_put_name(fp, f->frames[st->first + j].name);
		}
		fprintf(fp, " %" PRIu64 "\n", st->samples);
	}
	return ferror(fp) ? MF_EIO : 0;
}
