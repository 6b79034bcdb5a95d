/* SPDX-License-Identifier: MIT */
/*
 * Aggregation of a run's samples (caliper-measure.md §3 "Aggregator", §5).
 *
 * Identical samples are first summed into classes (hash table); each class
 * gets its keys once (thread, module, function, source line, cache line);
 * each table then sums the classes with equal keys of its level (hash table
 * again), and its rows are sorted by a total order, so the result does not
 * depend on the order the samples arrived in.
 */
#include "mfstat/measure/aggregate.h"
#include "mfstat/measure/run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * A class of identical samples (same thread, role, module, address and skid)
 * with their count and summed periods, and the keys of every level.  Samples
 * concentrate on few addresses, so the levels below work on distinct
 * addresses rather than on every sample (symbols are looked up once each).
 */
struct skey {
	uint32_t tid, pid;
	int role;
	uint32_t amod;
	bool skid;
	uint64_t vaddr;     /* module-relative (the ip for kernel and unknown samples) */
	uint64_t n, events; /* samples and the sum of their periods */

	const char *func; /* NULL: unnamed */
	uint64_t fstart, fsize;
	const struct mf_msym *fsym; /* the symbol that named the function, or NULL */
	const char *file;           /* the samples' own source line */
	uint32_t line;
	bool inl;        /* that line is in inlined code */
	uint64_t lstart; /* cache-line start */
	size_t fn;       /* its function's row (unsorted) */
};

static int cmp_str(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a)
		return -1;
	if (!b)
		return 1;
	return strcmp(a, b);
}

#define CMP(x, y)                                                                                                      \
	do {                                                                                                           \
		if ((x) != (y))                                                                                        \
			return (x) < (y) ? -1 : 1;                                                                     \
	} while (0)

static int key_thread(const void *pa, const void *pb)
{
	const struct skey *a = pa, *b = pb;
	CMP(a->tid, b->tid);
	return 0;
}

static int key_mod(const void *pa, const void *pb)
{
	const struct skey *a = pa, *b = pb;
	CMP(a->amod, b->amod);
	return 0;
}

static int key_func(const void *pa, const void *pb)
{
	const struct skey *a = pa, *b = pb;
	CMP(a->amod, b->amod);
	CMP(a->fstart, b->fstart);
	/* Unnamed code never shares a start with a named function in practice, but keep them apart. */
	return cmp_str(a->func, b->func);
}

static int key_line(const void *pa, const void *pb)
{
	const struct skey *a = pa, *b = pb;
	int c;
	CMP(a->fn, b->fn);
	if ((c = cmp_str(a->file, b->file)) != 0)
		return c;
	CMP(a->line, b->line);
	return 0;
}

static int key_cl(const void *pa, const void *pb)
{
	const struct skey *a = pa, *b = pb;
	CMP(a->fn, b->fn);
	CMP(a->lstart, b->lstart);
	return 0;
}

/* Sorted tables: metric descending, then address, then name (§3). */
static int row_metric(const struct mf_agg_row *a, const struct mf_agg_row *b)
{
	CMP(b->metric, a->metric);
	return 0;
}

static int row_thread(const void *pa, const void *pb)
{
	const struct mf_agg_row *a = pa, *b = pb;
	int c = row_metric(a, b);
	if (c)
		return c;
	CMP(a->tid, b->tid);
	return 0;
}

static int row_mod(const void *pa, const void *pb)
{
	const struct mf_agg_row *a = pa, *b = pb;
	int c = row_metric(a, b);
	if (c || (c = cmp_str(a->modname, b->modname)) != 0)
		return c;
	CMP(a->mod, b->mod);
	return 0;
}

static int row_func(const void *pa, const void *pb)
{
	const struct mf_agg_row *a = pa, *b = pb;
	int c = row_metric(a, b);
	if (c)
		return c;
	CMP(a->start, b->start);
	if ((c = cmp_str(a->func, b->func)) || (c = cmp_str(a->modname, b->modname)))
		return c;
	CMP(a->mod, b->mod);
	return 0;
}

/* Lines and cache lines of different functions: by module, then function start and name (not row ids,
 * which depend on the order the samples came in). */
static int same_func(const struct mf_agg_row *a, const struct mf_agg_row *b)
{
	int c;
	if ((c = cmp_str(a->modname, b->modname)))
		return c;
	CMP(a->mod, b->mod);
	CMP(a->fstart, b->fstart);
	return cmp_str(a->func, b->func);
}

static int row_line(const void *pa, const void *pb)
{
	const struct mf_agg_row *a = pa, *b = pb;
	int c = row_metric(a, b);
	if (c)
		return c;
	CMP(a->addr, b->addr);
	if ((c = cmp_str(a->file, b->file)))
		return c;
	CMP(a->line, b->line);
	return same_func(a, b);
}

static int row_cl(const void *pa, const void *pb)
{
	const struct mf_agg_row *a = pa, *b = pb;
	int c = row_metric(a, b);
	if (c)
		return c;
	CMP(a->start, b->start);
	return same_func(a, b);
}

/* Which samples the measurement uses: itlb every class but data faults, profile the CPU role. */
static bool wanted(struct mf_agg *a, const struct mf_msample *s, int *role)
{
	const struct mf_mrun *run = a->run;
	if (s->stream >= run->nstreams || run->streams[s->stream].role < 0 ||
	    run->streams[s->stream].role >= MF_ROLE_N) {
		a->skipped++;
		return false;
	}
	*role = run->streams[s->stream].role;
	if (!a->itlb) {
		if (*role != MF_ROLE_CPU) {
			a->skipped++;
			return false;
		}
		return true;
	}
	if (*role == MF_ROLE_FAULT && !(s->flags & MF_MS_IFETCH)) {
		/* §5: a fault on a data access is no instruction-TLB miss; only the header counts it. */
		a->data_faults++;
		return false;
	}
	return true;
}

/* The class of a sample: its module (pseudo modules for kernel and unmapped code) and address. */
static void class_of(const struct mf_agg *a, const struct mf_msample *s, int role, struct skey *k)
{
	const struct mf_mrun *run = a->run;
	memset(k, 0, sizeof(*k));
	k->tid = s->tid;
	k->pid = s->pid;
	k->role = role;
	k->skid = (s->flags & MF_MS_SKID) != 0;
	if (s->flags & MF_MS_KERNEL) {
		k->amod = a->mod_kernel;
		k->vaddr = s->ip;
	} else if (s->mod == MF_MOD_NONE || s->mod >= run->nmods) {
		k->amod = a->mod_unknown;
		k->vaddr = s->ip;
	} else {
		k->amod = s->mod;
		k->vaddr = s->vaddr;
	}
}

/* splitmix64's finalizer: every input bit reaches the low bits the tables index with. */
static uint64_t mix(uint64_t h)
{
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

static uint64_t class_hash(const struct skey *k)
{
	uint64_t h = mix(k->vaddr);
	h = mix(h ^ ((uint64_t)k->tid << 32 | k->amod));
	return mix(h ^ ((uint64_t)k->pid << 8 | (uint64_t)(k->role * 2 + k->skid)));
}

static bool class_eq(const struct skey *x, const struct skey *y)
{
	return x->vaddr == y->vaddr && x->tid == y->tid && x->pid == y->pid && x->amod == y->amod &&
	       x->role == y->role && x->skid == y->skid;
}

/* The classes: a dense array indexed by an open-addressing table of class index + 1 (at most half full). */
struct classes {
	struct skey *k;
	size_t n, cap;
	uint32_t *slot;
	size_t nslot;
	size_t last; /* the previous sample's class + 1: samples come in runs */
};

static int class_add(struct classes *c, const struct skey *k, uint64_t period)
{
	size_t j, i;
	struct skey *e;

	if (c->last && class_eq(&c->k[c->last - 1], k)) {
		e = &c->k[c->last - 1];
		goto found;
	}
	if ((c->n + 1) * 2 > c->nslot) {
		size_t ns = c->nslot ? c->nslot * 2 : 1024;
		uint32_t *s;
		if (ns > UINT32_MAX || !(s = calloc(ns, sizeof(*s))))
			return MF_ENOMEM;
		for (i = 0; i < c->n; i++) {
			for (j = class_hash(&c->k[i]) & (ns - 1); s[j]; j = (j + 1) & (ns - 1))
				;
			s[j] = (uint32_t)(i + 1);
		}
		free(c->slot);
		c->slot = s;
		c->nslot = ns;
	}
	for (j = class_hash(k) & (c->nslot - 1); c->slot[j]; j = (j + 1) & (c->nslot - 1))
		if (class_eq(&c->k[c->slot[j] - 1], k))
			break;
	if (!c->slot[j]) {
		if (c->n == c->cap) {
			size_t nc = c->cap ? c->cap * 2 : 256;
			struct skey *nk = realloc(c->k, nc * sizeof(*nk));
			if (!nk)
				return MF_ENOMEM;
			c->k = nk;
			c->cap = nc;
		}
		c->k[c->n] = *k;
		c->slot[j] = (uint32_t)++c->n;
	}
	c->last = c->slot[j];
	e = &c->k[c->last - 1];
found:
	e->n++;
	e->events += period;
	return 0;
}

/* Function, source line and cache line of a class (once per distinct address). */
static void class_keys(const struct mf_agg *a, struct skey *k)
{
	const struct mf_mrun *run = a->run;
	const struct mf_msym *own = NULL, *first = NULL;

	k->lstart = k->vaddr & ~(uint64_t)(a->line_size - 1);
	if (k->amod < run->nmods) {
		own = mf_mrun_sym(run, k->amod, k->vaddr);
		/* §3 --attribute line: the cache line and its samples belong to the function
		 * owning the line's first byte (Caliper's rule), else to the sample's own. */
		if (!a->attribute_ip)
			first = mf_mrun_sym(run, k->amod, k->lstart);
	}
	if (first && first->func)
		k->fsym = first;
	else if (own && own->func)
		k->fsym = own;
	if (k->fsym) {
		k->func = k->fsym->func;
		k->fstart = k->fsym->func_start;
		k->fsize = k->fsym->func_size;
	} else {
		/* No symbol: named module+0xOFF by the cache-line start, so it groups by line. */
		k->fstart = k->lstart;
	}
	if (own) {
		k->file = own->file;
		k->line = own->line;
		k->inl = (own->flags & MF_SYM_INLINE) != 0;
	}
}

/* Module name and path of an aggregation module id. */
static void mod_names(const struct mf_agg *a, uint32_t amod, const char **name, const char **path)
{
	const struct mf_mrun *run = a->run;
	if (amod == a->mod_kernel) {
		*name = *path = "[kernel.kallsyms]";
	} else if (amod >= run->nmods) {
		*name = *path = "[unknown]";
	} else {
		*name = run->mods[amod].name ? run->mods[amod].name : "";
		*path = run->mods[amod].path ? run->mods[amod].path : *name;
	}
}

static void add(struct mf_agg_row *r, const struct skey *k)
{
	r->samples[k->role] += k->n;
	r->events[k->role] += k->events;
	/* Only instruction-fetch faults get here (wanted() keeps data faults out). */
	if (k->role == MF_ROLE_FAULT) {
		r->ifetch_samples += k->n;
		r->ifetch_events += k->events;
	}
	if (k->skid)
		r->approx = true;
	if (k->vaddr < r->addr)
		r->addr = k->vaddr;
}

enum level { LV_THREAD, LV_MOD, LV_FUNC, LV_LINE, LV_CL };

static void ident(const struct mf_agg *a, enum level lv, struct mf_agg_row *r, const struct skey *k)
{
	size_t t;
	r->addr = UINT64_MAX;
	r->mod = k->amod;
	mod_names(a, k->amod, &r->modname, &r->modpath);
	switch (lv) {
	case LV_THREAD:
		r->tid = k->tid;
		r->pid = k->pid;
		for (t = 0; t < a->run->nthreads; t++)
			if (a->run->threads[t].tid == r->tid) {
				r->comm = a->run->threads[t].comm;
				if (a->run->threads[t].pid)
					r->pid = a->run->threads[t].pid;
				break;
			}
		break;
	case LV_MOD: break;
	case LV_FUNC:
		r->func = k->func;
		r->start = k->fstart;
		r->size = k->fsize;
		r->file_rank = -1;
		break;
	case LV_LINE:
		r->fn = k->fn;
		r->func = k->func;
		r->fstart = k->fstart;
		r->file = k->file;
		r->line = k->line;
		break;
	case LV_CL:
		r->fn = k->fn;
		r->func = k->func;
		r->fstart = k->fstart;
		r->start = k->lstart;
		break;
	}
}

/* A function's source file: its naming symbol's, preferring code not inlined, then the lowest address. */
static void func_file(struct mf_agg_row *r, const struct skey *k)
{
	int rank;
	if (!k->fsym || !k->fsym->file)
		return;
	rank = (k->fsym->flags & MF_SYM_INLINE) ? 0 : 1;
	if (rank > r->file_rank || (rank == r->file_rank && k->fsym->addr < r->file_addr)) {
		r->file = k->fsym->file;
		r->file_rank = rank;
		r->file_addr = k->fsym->addr;
	}
}

/* A hash of a class's key at a level (strings are compared, not hashed: equal keys share the address parts). */
static uint64_t level_hash(enum level lv, const struct skey *k)
{
	switch (lv) {
	case LV_THREAD: return mix(k->tid);
	case LV_MOD: return mix(k->amod);
	case LV_FUNC: return mix(mix(k->fstart) ^ k->amod);
	case LV_LINE: return mix(mix(k->fn) ^ k->line);
	default: return mix(mix(k->fn) ^ k->lstart);
	}
}

/* Sums the classes k into the rows of t, one row per distinct key of the level; sets k->fn for functions. */
static int group(struct mf_agg *a, enum level lv, struct skey *k, size_t n, int (*cmp)(const void *, const void *),
		 struct mf_agg_table *t)
{
	size_t i, j, nslot = 16, cap = 0, *slot, *rep = NULL;
	struct mf_agg_row *r;

	while (nslot < n * 2)
		nslot *= 2;
	if (!(slot = calloc(nslot, sizeof(*slot)))) /* row index + 1, 0 empty */
		return MF_ENOMEM;
	for (i = 0; i < n; i++) {
		for (j = level_hash(lv, &k[i]) & (nslot - 1); slot[j]; j = (j + 1) & (nslot - 1))
			if (cmp(&k[rep[slot[j] - 1]], &k[i]) == 0)
				break;
		if (!slot[j]) {
			if (t->n == cap) {
				size_t nc = cap ? cap * 2 : 16;
				struct mf_agg_row *nr = realloc(t->rows, nc * sizeof(*nr));
				size_t *np = realloc(rep, nc * sizeof(*np));
				if (nr)
					t->rows = nr;
				if (np)
					rep = np;
				if (!nr || !np) {
					free(slot);
					free(rep);
					return MF_ENOMEM;
				}
				cap = nc;
			}
			r = &t->rows[t->n];
			memset(r, 0, sizeof(*r));
			ident(a, lv, r, &k[i]);
			r->id = t->n;
			rep[t->n++] = i;
			slot[j] = t->n;
		}
		r = &t->rows[slot[j] - 1];
		if (lv == LV_CL && k[i].vaddr < r->addr) {
			/* The lowest sample's line: the cache line's statement when its first byte has none. */
			r->file = k[i].file;
			r->line = k[i].line;
		}
		add(r, &k[i]);
		if (lv == LV_FUNC) {
			k[i].fn = r->id;
			func_file(r, &k[i]);
		} else if (lv == LV_LINE && k[i].inl) {
			r->approx = true; /* §3: inlined code gives an approximate line */
		}
	}
	free(slot);
	free(rep);
	return 0;
}

/* The fill classes of §5 and the sort metric of one row. */
static void derive(const struct mf_agg *a, struct mf_agg_row *r)
{
	uint64_t itlb = r->samples[MF_ROLE_ITLB], stlb = r->samples[MF_ROLE_STLB];
	uint64_t e_itlb = r->events[MF_ROLE_ITLB], e_stlb = r->events[MF_ROLE_STLB];
	double e_l2 = 0, e_hpw = 0, sum = 0;
	bool any = false;

	r->misses = a->has_role[MF_ROLE_ITLB] ? itlb : r->ifetch_samples;
	r->hpw = stlb;
	/* L2 fills = ITLB misses - STLB misses of the row, clamped at 0 and marked (§5). */
	r->l2 = itlb >= stlb ? itlb - stlb : 0;
	r->l2_clamped = a->av_l2hpw && (itlb < stlb || e_itlb < e_stlb);
	r->soft = r->ifetch_samples;
	r->cpu = r->samples[MF_ROLE_CPU];
	if (r->l2_clamped)
		r->approx = true;

	/* % fill = class estimate / sum of the available estimates (estimate = sum of periods). */
	if (a->av_l2hpw) {
		e_l2 = e_itlb >= e_stlb ? (double)(e_itlb - e_stlb) : 0.0;
		e_hpw = (double)e_stlb;
		sum += e_l2 + e_hpw;
		any = true;
	}
	if (a->av_soft) {
		sum += (double)r->ifetch_events;
		any = true;
	}
	r->pct_l2 = r->pct_hpw = r->pct_soft = NAN;
	if (any && sum > 0) {
		if (a->av_l2hpw) {
			r->pct_l2 = e_l2 / sum * 100.0;
			r->pct_hpw = e_hpw / sum * 100.0;
		}
		if (a->av_soft)
			r->pct_soft = (double)r->ifetch_events / sum * 100.0;
	}
	if (!a->itlb)
		r->metric = r->cpu;
	else
		r->metric = a->by_cpu ? r->cpu : r->misses;
}

static void finish_table(const struct mf_agg *a, struct mf_agg_table *t, int (*cmp)(const void *, const void *))
{
	size_t i;
	double cum = 0;
	uint64_t total = a->total.metric;
	for (i = 0; i < t->n; i++)
		derive(a, &t->rows[i]);
	if (t->n)
		qsort(t->rows, t->n, sizeof(*t->rows), cmp);
	for (i = 0; i < t->n; i++) {
		struct mf_agg_row *r = &t->rows[i];
		if (total == 0) {
			r->pct = r->cum = NAN; /* §3: zero total is n/a */
			continue;
		}
		r->pct = (double)r->metric / (double)total * 100.0;
		cum += r->pct;
		r->cum = cum;
	}
}

/* A cache line's first statement: the symbol of its first byte, else its lowest sample's line. */
static void cl_line(const struct mf_agg *a, struct mf_agg_row *r, const struct mf_agg_row *f)
{
	const struct mf_msym *s;
	uint64_t lo = r->start;
	if (a->attribute_ip && f->func && f->start > lo)
		lo = f->start;
	if (f->mod < a->run->nmods && (s = mf_mrun_sym(a->run, f->mod, lo)) && s->line) {
		r->file = s->file;
		r->line = s->line;
		if (s->flags & MF_SYM_INLINE)
			r->approx = true; /* the line shown for it is approximate (§6) */
	}
}

/* ---- call chains: inclusive counts and caller -> callee edges ---------------------------- */

/* Whether a sample of this role counts in the sort metric (derive()). */
static bool in_metric(const struct mf_agg *a, int role)
{
	if (!a->itlb || a->by_cpu)
		return role == MF_ROLE_CPU;
	return a->has_role[MF_ROLE_ITLB] ? role == MF_ROLE_ITLB : role == MF_ROLE_FAULT;
}

/* The events of a row's sort metric. */
static uint64_t metric_events(const struct mf_agg *a, const struct mf_agg_row *r)
{
	if (!a->itlb || a->by_cpu)
		return r->events[MF_ROLE_CPU];
	return a->has_role[MF_ROLE_ITLB] ? r->events[MF_ROLE_ITLB] : r->ifetch_events;
}

/* The class of k (it exists: every counted sample made one). */
static const struct skey *class_find(const struct classes *c, const struct skey *k)
{
	size_t j;
	for (j = class_hash(k) & (c->nslot - 1); c->slot[j]; j = (j + 1) & (c->nslot - 1))
		if (class_eq(&c->k[c->slot[j] - 1], k))
			return &c->k[c->slot[j] - 1];
	return NULL;
}

/* An open-addressing map of 64-bit keys to row index + 1 (0 empty), grown at half full. */
struct imap {
	uint64_t *key;
	size_t *val;
	size_t n, nslot;
};

static void imap_free(struct imap *m)
{
	free(m->key);
	free(m->val);
}

static int imap_grow(struct imap *m)
{
	size_t ns = m->nslot ? m->nslot * 2 : 256, i, j;
	uint64_t *k = calloc(ns, sizeof(*k));
	size_t *v = calloc(ns, sizeof(*v));
	if (!k || !v) {
		free(k);
		free(v);
		return MF_ENOMEM;
	}
	for (i = 0; i < m->nslot; i++) {
		if (!m->val[i])
			continue;
		for (j = mix(m->key[i]) & (ns - 1); v[j]; j = (j + 1) & (ns - 1))
			;
		k[j] = m->key[i];
		v[j] = m->val[i];
	}
	imap_free(m);
	m->key = k;
	m->val = v;
	m->nslot = ns;
	return 0;
}

/* The chain pass's state. */
struct cgctx {
	struct mf_agg *a;
	struct imap fmap;   /* function key hash -> chain of candidates: probed by fkey compare */
	uint32_t *frame_fn; /* per run frame: function row + 1, 0 not yet classed */
	size_t *modrow;     /* per aggregation module id: mods row + 1 */
	struct imap emap;   /* (caller << 32 | callee) -> edge + 1 */
	size_t ecap;
};

/* The function row of key k (amod, fstart, func), added with self 0 when new; SIZE_MAX on ENOMEM. */
static size_t func_row(struct cgctx *g, const struct skey *k)
{
	struct mf_agg *a = g->a;
	struct mf_agg_table *t = &a->funcs;
	uint64_t h = level_hash(LV_FUNC, k);
	size_t j;
	struct mf_agg_row *r;

	for (j = mix(h) & (g->fmap.nslot - 1); g->fmap.val[j]; j = (j + 1) & (g->fmap.nslot - 1)) {
		r = &t->rows[g->fmap.val[j] - 1];
		if (g->fmap.key[j] == h && r->mod == k->amod && r->start == k->fstart && cmp_str(r->func, k->func) == 0)
			return g->fmap.val[j] - 1;
	}
	if ((g->fmap.n + 1) * 2 > g->fmap.nslot) {
		if (imap_grow(&g->fmap))
			return SIZE_MAX;
		return func_row(g, k);
	}
	r = realloc(t->rows, (t->n + 1) * sizeof(*r));
	if (!r)
		return SIZE_MAX;
	t->rows = r;
	r = &t->rows[t->n];
	memset(r, 0, sizeof(*r));
	ident(a, LV_FUNC, r, k);
	r->addr = k->vaddr;
	func_file(r, k);
	r->id = t->n;
	g->fmap.key[j] = h;
	g->fmap.val[j] = ++t->n;
	g->fmap.n++;
	return t->n - 1;
}

/* The module row of an aggregation module id, added when new; SIZE_MAX on ENOMEM. */
static size_t mod_row(struct cgctx *g, const struct skey *k)
{
	struct mf_agg_table *t = &g->a->mods;
	struct mf_agg_row *r;
	if (g->modrow[k->amod])
		return g->modrow[k->amod] - 1;
	r = realloc(t->rows, (t->n + 1) * sizeof(*r));
	if (!r)
		return SIZE_MAX;
	t->rows = r;
	r = &t->rows[t->n];
	memset(r, 0, sizeof(*r));
	ident(g->a, LV_MOD, r, k);
	r->addr = k->vaddr;
	r->id = t->n;
	g->modrow[k->amod] = ++t->n;
	return t->n - 1;
}

/* Function (and module, through *mod) of chain frame f, classed as a sample at its lookup address is. */
static size_t frame_row(struct cgctx *g, const struct mf_mframe *f, uint32_t *mod)
{
	const struct mf_agg *a = g->a;
	const struct mf_mrun *run = a->run;
	struct skey k;
	memset(&k, 0, sizeof(k));
	k.vaddr = mf_mframe_lookup(f);
	if (f->flags & MF_FR_UNKNOWN) {
		k.amod = a->mod_unknown;
		k.vaddr = 0;
		k.func = "[unknown]";
	} else if (f->flags & MF_FR_KERNEL) {
		k.amod = a->mod_kernel;
		class_keys(a, &k);
	} else {
		k.amod = f->mod == MF_MOD_NONE || f->mod >= run->nmods ? a->mod_unknown : f->mod;
		class_keys(a, &k);
	}
	*mod = k.amod;
	if (mod_row(g, &k) == SIZE_MAX)
		return SIZE_MAX;
	return func_row(g, &k);
}

static int cmp_size(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	return a < b ? -1 : a > b;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return a < b ? -1 : a > b;
}

/* Sorts v[0..n) and drops repeats; returns the new count. */
static size_t uniq(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *p = v;
	size_t i, m = 0;
	if (n < 2)
		return n;
	qsort(v, n, size, cmp);
	for (i = 1; i < n; i++)
		if (cmp(p + m * size, p + i * size) != 0 && ++m != i)
			memcpy(p + m * size, p + i * size, size);
	return m + 1;
}

static int edge_add(struct cgctx *g, uint64_t key, uint64_t period)
{
	struct mf_agg *a = g->a;
	size_t j;
	if ((g->emap.n + 1) * 2 > g->emap.nslot && imap_grow(&g->emap))
		return MF_ENOMEM;
	for (j = mix(key) & (g->emap.nslot - 1); g->emap.val[j]; j = (j + 1) & (g->emap.nslot - 1))
		if (g->emap.key[j] == key)
			break;
	if (!g->emap.val[j]) {
		if (a->nedges == g->ecap) {
			size_t nc = g->ecap ? g->ecap * 2 : 64;
			struct mf_agg_edge *ne = realloc(a->edges, nc * sizeof(*ne));
			if (!ne)
				return MF_ENOMEM;
			a->edges = ne;
			g->ecap = nc;
		}
		memset(&a->edges[a->nedges], 0, sizeof(a->edges[0]));
		a->edges[a->nedges].caller = (size_t)(key >> 32);
		a->edges[a->nedges].callee = (size_t)(key & 0xffffffffu);
		g->emap.key[j] = key;
		g->emap.val[j] = ++a->nedges;
		g->emap.n++;
	}
	a->edges[g->emap.val[j] - 1].samples++;
	a->edges[g->emap.val[j] - 1].events += period;
	return 0;
}

/*
 * The chain pass, before the tables are sorted (rows are at their ids): per
 * counted sample the distinct functions and modules of its chain get the
 * sample in incl, and the distinct adjacent pairs an edge.
 */
static int chain_pass(struct mf_agg *a, const struct classes *cl)
{
	const struct mf_mrun *run = a->run;
	struct cgctx g = {.a = a};
	size_t *fns = NULL, cap = 0, i, j, nf;
	uint32_t *mods = NULL;
	uint64_t *edges = NULL;
	int rc = MF_ENOMEM;

	if (imap_grow(&g.fmap) || !(g.frame_fn = calloc(run->nframes + 1, sizeof(*g.frame_fn))) ||
	    !(g.modrow = calloc(run->nmods + 2, sizeof(*g.modrow))))
		goto out;
	while (g.fmap.nslot < a->funcs.n * 2)
		if (imap_grow(&g.fmap))
			goto out;
	for (i = 0; i < a->funcs.n; i++) {
		struct skey k = {.amod = a->funcs.rows[i].mod,
				 .fstart = a->funcs.rows[i].start,
				 .func = a->funcs.rows[i].func};
		uint64_t h = level_hash(LV_FUNC, &k);
		for (j = mix(h) & (g.fmap.nslot - 1); g.fmap.val[j]; j = (j + 1) & (g.fmap.nslot - 1))
			;
		g.fmap.key[j] = h;
		g.fmap.val[j] = i + 1;
		g.fmap.n++;
	}
	for (i = 0; i < a->mods.n; i++)
		g.modrow[a->mods.rows[i].mod] = i + 1;

	for (i = 0; i < run->nsamples; i++) {
		const struct mf_msample *s = &run->samples[i];
		const struct mf_mstack *st = NULL;
		const struct skey *c;
		struct skey key;
		size_t n = 1, nm, ne = 0;
		int role;
		if (s->stream >= run->nstreams)
			continue;
		role = run->streams[s->stream].role;
		if (role < 0 || role >= MF_ROLE_N || !in_metric(a, role))
			continue;
		if (a->itlb && role == MF_ROLE_FAULT && !(s->flags & MF_MS_IFETCH))
			continue;
		class_of(a, s, role, &key);
		if (!(c = class_find(cl, &key)))
			continue;
		if (s->stack != MF_STACK_NONE && s->stack < run->nstacks) {
			st = &run->stacks[s->stack];
			if (st->n > 1 && (uint64_t)st->first + st->n <= run->nframes) {
				n = st->n;
				a->chains = true;
			} else {
				st = NULL;
			}
		}
		if (n > cap) {
			size_t nc = n < 64 ? 64 : n * 2;
			size_t *nf2 = realloc(fns, nc * sizeof(*fns));
			uint32_t *nm2;
			uint64_t *ne2;
			if (!nf2)
				goto out;
			fns = nf2;
			if (!(nm2 = realloc(mods, nc * sizeof(*mods))))
				goto out;
			mods = nm2;
			if (!(ne2 = realloc(edges, nc * sizeof(*edges))))
				goto out;
			edges = ne2;
			cap = nc;
		}
		fns[0] = c->fn;
		mods[0] = c->amod;
		for (j = 1; j < n; j++) {
			uint32_t fi = st->first + (uint32_t)j;
			if (!g.frame_fn[fi]) {
				uint32_t m;
				size_t r = frame_row(&g, &run->frames[fi], &m);
				if (r == SIZE_MAX)
					goto out;
				g.frame_fn[fi] = (uint32_t)r + 1;
			}
			fns[j] = g.frame_fn[fi] - 1;
			mods[j] = a->funcs.rows[fns[j]].mod;
		}
		for (j = 0; j + 1 < n; j++)
			if (fns[j + 1] != fns[j])
				edges[ne++] = (uint64_t)fns[j + 1] << 32 | fns[j];
		ne = uniq(edges, ne, sizeof(*edges), cmp_u64);
		for (j = 0; j < ne; j++)
			if (edge_add(&g, edges[j], s->period))
				goto out;
		nf = uniq(fns, n, sizeof(*fns), cmp_size);
		for (j = 0; j < nf; j++) {
			a->funcs.rows[fns[j]].incl++;
			a->funcs.rows[fns[j]].incl_events += s->period;
		}
		for (j = 0; j < n; j++)
			fns[j] = mods[j];
		nm = uniq(fns, n, sizeof(*fns), cmp_size);
		for (j = 0; j < nm; j++) {
			size_t r = g.modrow[fns[j]] - 1;
			a->mods.rows[r].incl++;
			a->mods.rows[r].incl_events += s->period;
		}
	}
	rc = 0;
out:
	imap_free(&g.fmap);
	imap_free(&g.emap);
	free(g.frame_fn);
	free(g.modrow);
	free(fns);
	free(mods);
	free(edges);
	return rc;
}

static const struct mf_agg *g_edge_agg;

/* Functions by name, then module, then start (unnamed code, NULL, first). */
static int name_order(const struct mf_agg_row *a, const struct mf_agg_row *b)
{
	int c;
	if ((c = cmp_str(a->func, b->func)) || (c = cmp_str(a->modname, b->modname)))
		return c;
	CMP(a->start, b->start);
	CMP(a->mod, b->mod);
	return 0;
}

static int cmp_edge(const void *pa, const void *pb)
{
	const struct mf_agg_edge *x = pa, *y = pb;
	const struct mf_agg_row *f = g_edge_agg->funcs.rows;
	int c;
	CMP(y->samples, x->samples);
	if ((c = name_order(&f[x->caller], &f[y->caller])) || (c = name_order(&f[x->callee], &f[y->callee])))
		return c;
	return 0;
}

static const struct mf_agg *g_incl_agg;

static int cmp_incl(const void *pa, const void *pb)
{
	size_t x = *(const size_t *)pa, y = *(const size_t *)pb;
	const struct mf_agg_row *f = g_incl_agg->funcs.rows;
	int c;
	CMP(f[y].incl, f[x].incl);
	CMP(f[y].metric, f[x].metric);
	if ((c = name_order(&f[x], &f[y])))
		return c;
	CMP(x, y);
	return 0;
}

size_t *mf_agg_by_inclusive(const struct mf_agg *a)
{
	size_t i, *o = malloc((a->funcs.n ? a->funcs.n : 1) * sizeof(*o));
	if (!o)
		return NULL;
	for (i = 0; i < a->funcs.n; i++)
		o[i] = i;
	g_incl_agg = a;
	if (a->funcs.n)
		qsort(o, a->funcs.n, sizeof(*o), cmp_incl);
	return o;
}

/* Inclusive shares after the sort; without chains a row's inclusive count is its own. */
static void finish_incl(struct mf_agg *a, struct mf_agg_table *t)
{
	size_t i;
	for (i = 0; i < t->n; i++) {
		struct mf_agg_row *r = &t->rows[i];
		if (!a->chains) {
			r->incl = r->metric;
			r->incl_events = metric_events(a, r);
			r->incl_pct = NAN;
		} else {
			r->incl_pct = a->total.metric ? (double)r->incl / (double)a->total.metric * 100.0 : NAN;
		}
	}
}

void mf_agg_free(struct mf_agg *a)
{
	free(a->threads.rows);
	free(a->mods.rows);
	free(a->funcs.rows);
	free(a->lines.rows);
	free(a->cls.rows);
	free(a->edges);
	memset(a, 0, sizeof(*a));
}

int mf_agg_build(struct mf_agg *a, const struct mf_mrun *run, uint32_t line_size, bool attribute_ip,
		 struct mf_error *err)
{
	struct skey *k = NULL;
	struct classes cl = {0};
	size_t i, n = 0, *remap = NULL;
	int rc = MF_ENOMEM;

	memset(a, 0, sizeof(*a));
	if (!line_size || (line_size & (line_size - 1)))
		return mf_error_set(err, MF_EINVAL, "", 0, 0, "line size %u is not a power of two", line_size);
	a->run = run;
	a->itlb = strcmp(run->measurement, "itlb") == 0;
	a->attribute_ip = attribute_ip;
	a->line_size = line_size;
	a->mod_unknown = (uint32_t)run->nmods;
	a->mod_kernel = (uint32_t)run->nmods + 1;
	for (i = 0; i < run->nstreams; i++) {
		int role = run->streams[i].role;
		if (role < 0 || role >= MF_ROLE_N)
			continue;
		if (role == MF_ROLE_CPU && !a->has_role[MF_ROLE_CPU])
			a->clock = run->streams[i].clock;
		a->has_role[role] = true;
	}
	a->av_misses = a->has_role[MF_ROLE_ITLB] || a->has_role[MF_ROLE_FAULT];
	a->av_l2hpw = a->has_role[MF_ROLE_ITLB] && a->has_role[MF_ROLE_STLB];
	a->av_soft = a->has_role[MF_ROLE_FAULT];
	a->av_cpu = a->has_role[MF_ROLE_CPU];

	a->total.addr = UINT64_MAX;
	for (i = 0; i < run->nsamples; i++) {
		struct skey c;
		int role;
		if (!wanted(a, &run->samples[i], &role))
			continue;
		class_of(a, &run->samples[i], role, &c);
		if (class_add(&cl, &c, run->samples[i].period))
			goto fail;
	}
	k = cl.k;
	n = cl.n;
	for (i = 0; i < n; i++) {
		class_keys(a, &k[i]);
		add(&a->total, &k[i]);
	}
	/* The sort metric needs the run's totals first: itlb without misses sorts by CPU samples. */
	derive(a, &a->total);
	if (a->itlb && a->total.misses == 0) {
		a->by_cpu = true;
		derive(a, &a->total);
	}

	if (group(a, LV_THREAD, k, n, key_thread, &a->threads) || group(a, LV_MOD, k, n, key_mod, &a->mods) ||
	    group(a, LV_FUNC, k, n, key_func, &a->funcs) || group(a, LV_LINE, k, n, key_line, &a->lines) ||
	    group(a, LV_CL, k, n, key_cl, &a->cls))
		goto fail;
	/* Call chains: inclusive counts (callers without samples of their own get rows) and edges. */
	if (run->nstacks && chain_pass(a, &cl))
		goto fail;
	for (i = 0; i < a->funcs.n; i++) {
		struct mf_agg_row *f = &a->funcs.rows[i];
		const struct mf_msym *s;
		/* The symbol at the function's own start names its file best, when resolved. */
		if (f->func && f->mod < run->nmods && (s = mf_mrun_sym(run, f->mod, f->start)) && s->file &&
		    !(s->flags & MF_SYM_INLINE))
			f->file = s->file;
	}
	for (i = 0; i < a->cls.n; i++) {
		struct mf_agg_row *r = &a->cls.rows[i];
		cl_line(a, r, &a->funcs.rows[r->fn]);
	}

	finish_table(a, &a->threads, row_thread);
	finish_table(a, &a->mods, row_mod);
	finish_table(a, &a->funcs, row_func);
	finish_table(a, &a->lines, row_line);
	finish_table(a, &a->cls, row_cl);
	/* Functions were sorted: point lines and cache lines at their new places. */
	if (a->funcs.n && !(remap = calloc(a->funcs.n, sizeof(*remap))))
		goto fail;
	for (i = 0; i < a->funcs.n; i++)
		remap[a->funcs.rows[i].id] = i;
	for (i = 0; i < a->lines.n; i++)
		a->lines.rows[i].fn = remap[a->lines.rows[i].fn];
	for (i = 0; i < a->cls.n; i++)
		a->cls.rows[i].fn = remap[a->cls.rows[i].fn];
	for (i = 0; i < a->nedges; i++) {
		a->edges[i].caller = remap[a->edges[i].caller];
		a->edges[i].callee = remap[a->edges[i].callee];
	}
	g_edge_agg = a;
	if (a->nedges)
		qsort(a->edges, a->nedges, sizeof(*a->edges), cmp_edge);
	finish_incl(a, &a->funcs);
	finish_incl(a, &a->mods);
	if (a->total.addr == UINT64_MAX)
		a->total.addr = 0;
	rc = 0;
fail:
	free(cl.k);
	free(cl.slot);
	free(remap);
	if (rc) {
		mf_agg_free(a);
		return mf_error_set(err, rc, "", 0, 0, "out of memory while aggregating %zu samples", run->nsamples);
	}
	return 0;
}
