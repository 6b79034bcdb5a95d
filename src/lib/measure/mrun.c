/* SPDX-License-Identifier: MIT */
/*
 * The run model of mfstat measure (mfstat/measure/run.h): growable arrays, interned
 * strings, module and thread tables, address translation and symbol look-up.
 */
#include "mfstat/measure/run.h"
#include "mfstat/base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrun_int.h"

struct mf_mrun_priv {
	/* interned strings: open addressing over owned copies */
	char **str;
	size_t nstr, cap;
	size_t *slot; /* index + 1, 0 empty */
	size_t nslot;
	/* capacities of the run's arrays */
	size_t cap_streams, cap_counts, cap_mods, cap_threads, cap_samples, cap_syms, cap_src;
	size_t cap_stacks, cap_frames;
	/* interned stacks: open addressing, index + 1, 0 empty */
	uint32_t *stslot;
	size_t nstslot;
	struct mf_mrun_decoder decoder;
};

void mf_mrun_init(struct mf_mrun *run)
{
	memset(run, 0, sizeof(*run));
	run->line_size = 64;
	run->vm = -1;
	run->rung = MF_RUNG_PRECISE;
	strcpy(run->attribution, "ip");
	strcpy(run->privilege, "user");
}

struct mf_mrun_decoder *mf_mrun_decoder(struct mf_mrun *run)
{
	if (!run->priv) {
		run->priv = calloc(1, sizeof(*run->priv));
		if (!run->priv)
			return NULL;
	}
	return &run->priv->decoder;
}

void mf_mrun_free(struct mf_mrun *run)
{
	size_t i;
	for (i = 0; i < (size_t)run->argc; i++)
		free(run->argv[i]);
	free(run->argv);
	for (i = 0; i < run->nwarnings; i++)
		free(run->warnings[i]);
	free(run->warnings);
	free(run->streams);
	free(run->counts);
	free(run->mods);
	free(run->threads);
	free(run->samples);
	free(run->syms);
	free(run->src);
	free(run->stacks);
	free(run->frames);
	if (run->priv) {
		free(run->priv->stslot);
		if (run->priv->decoder.state && run->priv->decoder.free_state)
			run->priv->decoder.free_state(run->priv->decoder.state);
		for (i = 0; i < run->priv->nstr; i++)
			free(run->priv->str[i]);
		free(run->priv->str);
		free(run->priv->slot);
		free(run->priv);
	}
	mf_mrun_init(run);
}

static int ensure_priv(struct mf_mrun *run)
{
	return mf_mrun_decoder(run) ? 0 : -1;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ULL;
	}
	return h;
}

static int rehash(struct mf_mrun_priv *p, size_t nslot)
{
	size_t *s = calloc(nslot, sizeof(*s));
	size_t i;
	if (!s)
		return -1;
	for (i = 0; i < p->nstr; i++) {
		size_t j = str_hash(p->str[i]) & (nslot - 1);
		while (s[j])
			j = (j + 1) & (nslot - 1);
		s[j] = i + 1;
	}
	free(p->slot);
	p->slot = s;
	p->nslot = nslot;
	return 0;
}

const char *mf_mrun_str(struct mf_mrun *run, const char *s)
{
	struct mf_mrun_priv *p;
	size_t j;
	char *copy;
	if (!s || ensure_priv(run))
		return NULL;
	p = run->priv;
	if ((p->nstr + 1) * 2 > p->nslot && rehash(p, p->nslot ? p->nslot * 2 : 64))
		return NULL;
	j = str_hash(s) & (p->nslot - 1);
	while (p->slot[j]) {
		if (strcmp(p->str[p->slot[j] - 1], s) == 0)
			return p->str[p->slot[j] - 1];
		j = (j + 1) & (p->nslot - 1);
	}
	if (p->nstr == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 64;
		char **ns = realloc(p->str, nc * sizeof(*ns));
		if (!ns)
			return NULL;
		p->str = ns;
		p->cap = nc;
	}
	copy = strdup(s);
	if (!copy)
		return NULL;
	p->str[p->nstr++] = copy;
	p->slot[j] = p->nstr;
	return copy;
}

void mf_mrun_warn(struct mf_mrun *run, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	char **nw;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	nw = realloc(run->warnings, (run->nwarnings + 1) * sizeof(*nw));
	if (!nw)
		return;
	run->warnings = nw;
	nw[run->nwarnings] = strdup(buf);
	if (nw[run->nwarnings])
		run->nwarnings++;
}

int mf_mrun_set_argv(struct mf_mrun *run, int argc, char *const argv[])
{
	int i;
	char **a = calloc((size_t)argc + 1, sizeof(*a));
	if (!a)
		return MF_ENOMEM;
	for (i = 0; i < argc; i++) {
		a[i] = strdup(argv[i] ? argv[i] : "");
		if (!a[i]) {
			while (i-- > 0)
				free(a[i]);
			free(a);
			return MF_ENOMEM;
		}
	}
	for (i = 0; i < run->argc; i++)
		free(run->argv[i]);
	free(run->argv);
	run->argv = a;
	run->argc = argc;
	return 0;
}

/* Grows *arr (of *n elements, capacity *cap) by one zeroed element. */
static void *grow(void *arrp, size_t *n, size_t *cap, size_t size)
{
	void **arr = arrp;
	char *base;
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		void *na = realloc(*arr, nc * size);
		if (!na)
			return NULL;
		*arr = na;
		*cap = nc;
	}
	base = *arr;
	memset(base + *n * size, 0, size);
	return base + (*n)++ * size;
}

#define ADD(run, field, capfield)                                                                                      \
	(ensure_priv(run) ? NULL : grow(&(run)->field, &(run)->n##field, &(run)->priv->capfield, sizeof(*(run)->field)))

struct mf_mstream *mf_mrun_add_stream(struct mf_mrun *run)
{
	return ADD(run, streams, cap_streams);
}

struct mf_mcount *mf_mrun_add_count(struct mf_mrun *run)
{
	return ADD(run, counts, cap_counts);
}

struct mf_msample *mf_mrun_add_sample(struct mf_mrun *run)
{
	struct mf_msample *s = ADD(run, samples, cap_samples);
	if (s)
		s->stack = MF_STACK_NONE;
	return s;
}

static uint64_t stack_hash(const struct mf_mframe *f, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;
	for (i = 0; i < n; i++) {
		h = (h ^ f[i].mod) * 0x100000001b3ull;
		h = (h ^ f[i].flags) * 0x100000001b3ull;
		h = (h ^ f[i].off) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h ^ n;
}

static bool stack_equal(const struct mf_mrun *run, uint32_t k, const struct mf_mframe *f, size_t n)
{
	const struct mf_mstack *st = &run->stacks[k];
	size_t i;
	if (st->n != n)
		return false;
	for (i = 0; i < n; i++) {
		const struct mf_mframe *g = &run->frames[st->first + i];
		if (g->mod != f[i].mod || g->flags != f[i].flags || g->off != f[i].off)
			return false;
	}
	return true;
}

static int stack_rehash(struct mf_mrun *run, size_t nslot)
{
	uint32_t *s = calloc(nslot, sizeof(*s));
	size_t i;
	if (!s)
		return -1;
	for (i = 0; i < run->nstacks; i++) {
		const struct mf_mstack *st = &run->stacks[i];
		size_t j = stack_hash(run->frames + st->first, st->n) & (nslot - 1);
		while (s[j])
			j = (j + 1) & (nslot - 1);
		s[j] = (uint32_t)i + 1;
	}
	free(run->priv->stslot);
	run->priv->stslot = s;
	run->priv->nstslot = nslot;
	return 0;
}

uint32_t mf_mrun_add_stack(struct mf_mrun *run, const struct mf_mframe *frames, size_t n)
{
	struct mf_mrun_priv *p;
	struct mf_mstack *st;
	size_t j, i;
	if (!n || n > UINT32_MAX || ensure_priv(run) || run->nstacks >= UINT32_MAX - 1)
		return MF_STACK_NONE;
	p = run->priv;
	if ((run->nstacks + 1) * 2 > p->nstslot && stack_rehash(run, p->nstslot ? p->nstslot * 2 : 256))
		return MF_STACK_NONE;
	j = stack_hash(frames, n) & (p->nstslot - 1);
	while (p->stslot[j]) {
		if (stack_equal(run, p->stslot[j] - 1, frames, n))
			return p->stslot[j] - 1;
		j = (j + 1) & (p->nstslot - 1);
	}
	if (run->nframes + n > UINT32_MAX)
		return MF_STACK_NONE;
	if (run->nframes + n > p->cap_frames) {
		size_t nc = p->cap_frames ? p->cap_frames : 256;
		struct mf_mframe *nf;
		while (nc < run->nframes + n)
			nc *= 2;
		if (!(nf = realloc(run->frames, nc * sizeof(*nf))))
			return MF_STACK_NONE;
		run->frames = nf;
		p->cap_frames = nc;
	}
	if (!(st = ADD(run, stacks, cap_stacks)))
		return MF_STACK_NONE;
	st->first = (uint32_t)run->nframes;
	st->n = (uint32_t)n;
	for (i = 0; i < n; i++) {
		run->frames[run->nframes + i] = frames[i];
		run->frames[run->nframes + i].vaddr =
			frames[i].mod == MF_MOD_NONE ? frames[i].off : mf_mrun_vaddr(run, frames[i].mod, frames[i].off);
	}
	run->nframes += n;
	p->stslot[j] = (uint32_t)run->nstacks;
	return (uint32_t)run->nstacks - 1;
}

struct mf_msym *mf_mrun_add_sym(struct mf_mrun *run)
{
	return ADD(run, syms, cap_syms);
}

struct mf_msrc *mf_mrun_add_src(struct mf_mrun *run)
{
	return ADD(run, src, cap_src);
}

uint32_t mf_mrun_module(struct mf_mrun *run, const char *path)
{
	size_t i;
	struct mf_mmod *m;
	const char *p, *slash;
	if (!(p = mf_mrun_str(run, path)))
		return MF_MOD_NONE;
	for (i = 0; i < run->nmods; i++)
		if (run->mods[i].path == p)
			return (uint32_t)i;
	if (!(m = ADD(run, mods, cap_mods)))
		return MF_MOD_NONE;
	m->path = p;
	slash = strrchr(p, '/');
	m->name = slash && p[0] == '/' ? mf_mrun_str(run, slash + 1) : p;
	if (!m->name)
		m->name = p;
	if (p[0] == '[' || strncmp(p, "//anon", 6) == 0 || p[0] == '\0')
		m->flags |= MF_MOD_SPECIAL;
	return (uint32_t)(run->nmods - 1);
}

struct mf_mthread *mf_mrun_thread(struct mf_mrun *run, uint32_t pid, uint32_t tid, const char *comm)
{
	size_t i;
	struct mf_mthread *t = NULL;
	for (i = run->nthreads; i-- > 0;)
		if (run->threads[i].tid == tid) {
			t = &run->threads[i];
			break;
		}
	if (!t) {
		if (!(t = ADD(run, threads, cap_threads)))
			return NULL;
		t->tid = tid;
	}
	t->pid = pid;
	if (comm)
		t->comm = mf_mrun_str(run, comm);
	return t;
}

int mf_mrun_stream_by_id(const struct mf_mrun *run, uint64_t id)
{
	size_t i;
	for (i = 0; i < run->nstreams; i++)
		if (run->streams[i].id == id)
			return (int)i;
	return -1;
}

uint64_t mf_mrun_vaddr(const struct mf_mrun *run, uint32_t mod, uint64_t off)
{
	const struct mf_mmod *m;
	uint32_t i;
	if (mod >= run->nmods)
		return off;
	m = &run->mods[mod];
	for (i = 0; i < m->nloads && i < MF_MOD_MAX_LOADS; i++) {
		const struct mf_mload *l = &m->loads[i];
		if (off >= l->offset && off - l->offset < (l->filesz ? l->filesz : 1))
			return off - l->offset + l->vaddr;
	}
	/* Past every segment's file bytes (e.g. .bss-adjacent code is impossible,
	 * but be total): use the first segment's translation. */
	if (m->nloads)
		return off - m->loads[0].offset + m->loads[0].vaddr;
	return off;
}

void mf_mrun_finish(struct mf_mrun *run)
{
	size_t i;
	for (i = 0; i < run->nsamples; i++) {
		struct mf_msample *s = &run->samples[i];
		s->vaddr = s->mod == MF_MOD_NONE ? s->ip : mf_mrun_vaddr(run, s->mod, s->off);
	}
	for (i = 0; i < run->nframes; i++) {
		struct mf_mframe *f = &run->frames[i];
		f->vaddr = f->mod == MF_MOD_NONE ? f->off : mf_mrun_vaddr(run, f->mod, f->off);
	}
}

static int cmp_sym(const void *a, const void *b)
{
	const struct mf_msym *x = a, *y = b;
	if (x->mod != y->mod)
		return x->mod < y->mod ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

static int cmp_src(const void *a, const void *b)
{
	const struct mf_msrc *x = a, *y = b;
	if (x->mod != y->mod)
		return x->mod < y->mod ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return 0;
}

void mf_mrun_sort_syms(struct mf_mrun *run)
{
	size_t i, k;
	if (run->nsyms > 1) {
		qsort(run->syms, run->nsyms, sizeof(*run->syms), cmp_sym);
		for (i = 1, k = 1; i < run->nsyms; i++)
			if (cmp_sym(&run->syms[k - 1], &run->syms[i]) != 0)
				run->syms[k++] = run->syms[i];
		run->nsyms = k;
	}
	if (run->nsrc > 1) {
		qsort(run->src, run->nsrc, sizeof(*run->src), cmp_src);
		for (i = 1, k = 1; i < run->nsrc; i++)
			if (cmp_src(&run->src[k - 1], &run->src[i]) != 0)
				run->src[k++] = run->src[i];
		run->nsrc = k;
	}
}

const struct mf_msym *mf_mrun_sym(const struct mf_mrun *run, uint32_t mod, uint64_t addr)
{
	size_t lo = 0, hi = run->nsyms;
	struct mf_msym key = {.mod = mod, .addr = addr};
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_sym(&run->syms[mid], &key);
		if (c == 0)
			return &run->syms[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

size_t mf_mrun_src_range(const struct mf_mrun *run, uint32_t mod, uint64_t lo, uint64_t hi, size_t *n)
{
	size_t a = 0, b = run->nsrc, first;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		const struct mf_msrc *r = &run->src[mid];
		if (r->mod < mod || (r->mod == mod && r->addr < lo))
			a = mid + 1;
		else
			b = mid;
	}
	first = a;
	while (a < run->nsrc && run->src[a].mod == mod && run->src[a].addr < hi)
		a++;
	*n = a - first;
	return first;
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ull;
	}
	return h;
}

void mf_mrun_identity(const struct mf_mrun *run, char *buf, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull, bits[3];
	int i;
	/* The command line, each argument with its terminating NUL (a NULL one as a lone 0xff). */
	for (i = 0; i < run->argc && run->argv; i++)
		h = run->argv[i] ? fnv1a(h, run->argv[i], strlen(run->argv[i]) + 1) : fnv1a(h, "\xff", 1);
	memcpy(&bits[0], &run->wall_s, 8);
	memcpy(&bits[1], &run->user_s, 8);
	memcpy(&bits[2], &run->sys_s, 8);
	h = fnv1a(h, bits, sizeof(bits));
	snprintf(buf, n, "%s run of pid %d on %.63s at %lld us, seed %llu, command and times %016llx", run->measurement,
		 run->pid, run->host, (long long)run->start_us, (unsigned long long)run->seed, (unsigned long long)h);
}

int mf_mrun_merge(struct mf_mrun *dst, const struct mf_mrun *src)
{
	uint32_t *mmap_ = NULL, *smap = NULL, *stmap = NULL;
	struct mf_mframe *fr = NULL;
	size_t i, j, maxn = 1;
	int rc = MF_ENOMEM;

	mmap_ = calloc(src->nmods + 1, sizeof(*mmap_));
	smap = calloc(src->nstreams + 1, sizeof(*smap));
	stmap = calloc(src->nstacks + 1, sizeof(*stmap));
	for (i = 0; i < src->nstacks; i++)
		maxn = src->stacks[i].n > maxn ? src->stacks[i].n : maxn;
	fr = malloc(maxn * sizeof(*fr));
	if (!mmap_ || !smap || !stmap || !fr)
		goto out;
	for (i = 0; i < src->nmods; i++) {
		const struct mf_mmod *m = &src->mods[i];
		struct mf_mmod *d;
		uint32_t k = mf_mrun_module(dst, m->path);
		if (k == MF_MOD_NONE)
			goto out;
		d = &dst->mods[k];
		if (!d->nloads && m->nloads) {
			d->nloads = m->nloads;
			memcpy(d->loads, m->loads, sizeof(d->loads));
			memcpy(d->build_id, m->build_id, sizeof(d->build_id));
			d->build_id_len = m->build_id_len;
		}
		d->flags |= m->flags;
		if (!d->note && m->note)
			d->note = mf_mrun_str(dst, m->note);
		mmap_[i] = k;
	}
	for (i = 0; i < src->nstreams; i++) {
		for (j = 0; j < dst->nstreams; j++)
			if (strcmp(dst->streams[j].name, src->streams[i].name) == 0 &&
			    dst->streams[j].role == src->streams[i].role)
				break;
		if (j == dst->nstreams) {
			struct mf_mstream *s = mf_mrun_add_stream(dst);
			if (!s)
				goto out;
			*s = src->streams[i];
		}
		smap[i] = (uint32_t)j;
	}
	for (i = 0; i < src->ncounts; i++) {
		const struct mf_mcount *c = &src->counts[i];
		for (j = 0; j < dst->ncounts; j++)
			if (strcmp(dst->counts[j].name, c->name) == 0)
				break;
		if (j == dst->ncounts) {
			struct mf_mcount *n = mf_mrun_add_count(dst);
			if (!n)
				goto out;
			*n = *c;
			continue;
		}
		if (c->status == MF_CNT_OK || c->status == MF_CNT_SCALED) {
			struct mf_mcount *d = &dst->counts[j];
			if (d->status == MF_CNT_OK || d->status == MF_CNT_SCALED) {
				d->value += c->value;
				d->enabled += c->enabled;
				d->running += c->running;
				if (c->status == MF_CNT_SCALED)
					d->status = MF_CNT_SCALED;
			} else {
				*d = *c;
			}
		}
	}
	for (i = 0; i < src->nthreads; i++) {
		const struct mf_mthread *t = &src->threads[i];
		if (!mf_mrun_thread(dst, t->pid, t->tid, t->comm))
			goto out;
	}
	for (i = 0; i < src->nstacks; i++) {
		const struct mf_mstack *st = &src->stacks[i];
		for (j = 0; j < st->n; j++) {
			fr[j] = src->frames[st->first + j];
			if (fr[j].mod != MF_MOD_NONE)
				fr[j].mod = fr[j].mod < src->nmods ? mmap_[fr[j].mod] : MF_MOD_NONE;
		}
		if ((stmap[i] = mf_mrun_add_stack(dst, fr, st->n)) == MF_STACK_NONE)
			goto out;
	}
	for (i = 0; i < src->nsamples; i++) {
		struct mf_msample *s = mf_mrun_add_sample(dst);
		if (!s)
			goto out;
		*s = src->samples[i];
		s->mod = s->mod == MF_MOD_NONE ? MF_MOD_NONE : mmap_[s->mod];
		s->stream = smap[s->stream < src->nstreams ? s->stream : 0];
		s->stack = s->stack < src->nstacks ? stmap[s->stack] : MF_STACK_NONE;
	}
	for (i = 0; i < src->nsyms; i++) {
		const struct mf_msym *y = &src->syms[i];
		struct mf_msym *d = mf_mrun_add_sym(dst);
		if (!d)
			goto out;
		*d = *y;
		d->mod = mmap_[y->mod < src->nmods ? y->mod : 0];
		d->func = mf_mrun_str(dst, y->func);
		d->file = mf_mrun_str(dst, y->file);
	}
	for (i = 0; i < src->nsrc; i++) {
		const struct mf_msrc *y = &src->src[i];
		struct mf_msrc *d = mf_mrun_add_src(dst);
		if (!d)
			goto out;
		*d = *y;
		d->mod = mmap_[y->mod < src->nmods ? y->mod : 0];
		d->file = mf_mrun_str(dst, y->file);
	}
	for (i = 0; i < src->nwarnings; i++)
		mf_mrun_warn(dst, "%s", src->warnings[i]);
	dst->lost += src->lost;
	dst->lost_samples += src->lost_samples;
	dst->throttles += src->throttles;
	dst->unthrottles += src->unthrottles;
	dst->unknown_records += src->unknown_records;
	dst->unmapped += src->unmapped;
	dst->unwind_failed += src->unwind_failed;
	if (!dst->call_graph[0])
		memcpy(dst->call_graph, src->call_graph, sizeof(dst->call_graph));
	dst->wall_s += src->wall_s;
	dst->user_s += src->user_s;
	dst->sys_s += src->sys_s;
	dst->incomplete |= src->incomplete;
	mf_mrun_sort_syms(dst);
	rc = 0;
out:
	free(mmap_);
	free(smap);
	free(stmap);
	free(fr);
	return rc;
}
