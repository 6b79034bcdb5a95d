/* SPDX-License-Identifier: MIT */
/* The LPAR view: SMF type 70 subtype 1 and type 99 subtype 14 joined to type 113 samples (lpar.h). */
#include "mfstat/input/lpar.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/base/timefmt.h"

/* One logical CPU of the own LPAR in one RMF interval. */
struct rcpu {
	unsigned id;
	int pool;
	int polarity;
	int32_t weight;    /* -1 unknown, 0 dedicated */
	double dispatch_s; /* NaN: no logical processor data */
};

struct rinterval {
	int64_t start_us, end_us;
	bool broken;   /* split over several records (SMF70RAN): counted, not joined */
	uint32_t lpar; /* strtab id of the own LPAR's name, 0 unknown */
	size_t ncpus;
	struct rcpu *cpus;
};

struct topo {
	int64_t time_us;
	size_t ncpus;
	struct mf_smf99_cpu *cpus;
};

/* What did not line up: HIS length against RMF length, per system. */
struct misalign {
	double his_s, rmf_s;
	uint64_t samples;
	int64_t first_us;
};

struct rsys {
	uint32_t system;
	struct rinterval *iv; /* sorted by start */
	size_t niv, capiv;
	struct topo *topo; /* sorted by time */
	size_t ntopo, captopo;
	uint64_t samples, joined, outside; /* samples seen, joined, outside every RMF interval */
	int64_t first_outside_us;
	struct misalign mis[4];
	size_t nmis;
	uint64_t mis_more;
	struct rsys *next;
};

/* One LPAR of one machine, accumulated (the table). */
struct lrow {
	struct mf_lpar_row row;
	struct lrow *next;
};

/* A machine interval already counted in the table (the same interval from several systems). */
struct seen {
	char serial[17];
	bool used;
	int64_t start_us;
};

static uint64_t seen_hash(const char *serial, int64_t start_us)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *serial; serial++)
		h = (h ^ (unsigned char)*serial) * 1099511628211ULL;
	h ^= (uint64_t)start_us;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

struct mf_lparmap {
	struct rsys *sys;
	struct rsys *last;
	size_t nintervals, ntopos;
	uint64_t broken, duplicates;
	bool streamed; /* an input was read once only (standard input): no first pass */
	struct lrow *rows;
	struct seen *seen; /* open addressing by serial and start */
	size_t nseen, capseen;
};

struct mf_lparmap *mf_lparmap_new(void)
{
	return calloc(1, sizeof(struct mf_lparmap));
}

void mf_lparmap_free(struct mf_lparmap *m)
{
	if (!m)
		return;
	while (m->sys) {
		struct rsys *n = m->sys->next;
		size_t i;
		for (i = 0; i < m->sys->niv; i++)
			free(m->sys->iv[i].cpus);
		for (i = 0; i < m->sys->ntopo; i++)
			free(m->sys->topo[i].cpus);
		free(m->sys->iv);
		free(m->sys->topo);
		free(m->sys);
		m->sys = n;
	}
	while (m->rows) {
		struct lrow *n = m->rows->next;
		free(m->rows);
		m->rows = n;
	}
	free(m->seen);
	free(m);
}

void mf_lparmap_set_streamed(struct mf_lparmap *m)
{
	m->streamed = true;
}

size_t mf_lparmap_nintervals(const struct mf_lparmap *m)
{
	return m->nintervals;
}

size_t mf_lparmap_ntopos(const struct mf_lparmap *m)
{
	return m->ntopos;
}

static struct rsys *sys_find(struct mf_lparmap *m, uint32_t system, bool add)
{
	struct rsys *y;
	if (m->last && m->last->system == system)
		return m->last;
	for (y = m->sys; y; y = y->next)
		if (y->system == system)
			return m->last = y;
	if (!add)
		return NULL;
	y = calloc(1, sizeof(*y));
	if (!y)
		return NULL;
	y->system = system;
	y->next = m->sys;
	m->sys = y;
	return m->last = y;
}

/* Tolerance when two interval boundaries are the same: 5 s, or 1 % of the length. */
static int64_t tol_us(int64_t len_us)
{
	int64_t t = len_us / 100;
	return t > 5000000 ? t : 5000000;
}

/* The table: the LPARs of r's machine, counted once per machine interval. */
static int table_add(struct mf_lparmap *m, const struct mf_smf70 *r, uint32_t system)
{
	size_t i, p;
	double secs = (double)(r->end_us - r->start_us) / 1e6;
	bool again;
	if ((m->nseen + 1) * 2 > m->capseen) {
		size_t cap = m->capseen ? m->capseen * 2 : 64, k;
		struct seen *ns = calloc(cap, sizeof(*ns));
		if (!ns)
			return MF_ENOMEM;
		for (k = 0; k < m->capseen; k++)
			if (m->seen[k].used) {
				size_t j = seen_hash(m->seen[k].serial, m->seen[k].start_us) & (cap - 1);
				while (ns[j].used)
					j = (j + 1) & (cap - 1);
				ns[j] = m->seen[k];
			}
		free(m->seen);
		m->seen = ns;
		m->capseen = cap;
	}
	for (i = seen_hash(r->serial, r->start_us) & (m->capseen - 1); m->seen[i].used; i = (i + 1) & (m->capseen - 1))
		if (m->seen[i].start_us == r->start_us && strcmp(m->seen[i].serial, r->serial) == 0)
			break;
	again = m->seen[i].used;
	if (!again) {
		memcpy(m->seen[i].serial, r->serial, sizeof(r->serial));
		m->seen[i].start_us = r->start_us;
		m->seen[i].used = true;
		m->nseen++;
	}
	for (p = 0; p < r->nlpars; p++) {
		const struct mf_smf70_lpar *lp = &r->lpars[p];
		struct lrow *w;
		size_t k;
		bool newest;
		if (strcmp(lp->name, "PHYSICAL") == 0 || !lp->name[0])
			continue;
		for (w = m->rows; w; w = w->next)
			if (strcmp(w->row.name, lp->name) == 0 && strcmp(w->row.serial, r->serial) == 0)
				break;
		if (!w) {
			w = calloc(1, sizeof(*w));
			if (!w)
				return MF_ENOMEM;
			memcpy(w->row.serial, r->serial, sizeof(r->serial));
			memcpy(w->row.name, lp->name, sizeof(lp->name));
			for (k = 0; k < MF_NPOOLS; k++)
				w->row.weight[k] = -1;
			w->row.first_us = r->start_us;
			w->row.last_us = r->end_us;
			w->next = m->rows;
			m->rows = w;
		}
		w->row.machine_type = r->machine_type;
		w->row.number = lp->number;
		if ((long)p == r->own)
			w->row.system = system;
		/* The same machine interval read from another system's record: names and owners only. */
		if (again)
			continue;
		/* Weights and logical processors are the latest interval's, whatever the reading order. */
		newest = r->end_us >= w->row.last_us;
		if (r->start_us < w->row.first_us)
			w->row.first_us = r->start_us;
		if (r->end_us > w->row.last_us)
			w->row.last_us = r->end_us;
		w->row.seconds += secs;
		if (newest) {
			memset(w->row.lcpus, 0, sizeof(w->row.lcpus));
			for (k = 0; k < MF_NPOOLS; k++) {
				w->row.weight[k] = -1;
				w->row.dedicated[k] = false;
			}
		}
		for (k = lp->first; k < lp->first + lp->n; k++) {
			const struct mf_smf70_lcpu *l = &r->lcpus[k];
			if (newest) {
				w->row.lcpus[l->pool][l->polarity]++;
				w->row.weight[l->pool] = l->dedicated ? 0 : (int32_t)l->weight;
				w->row.dedicated[l->pool] = l->dedicated;
			}
			w->row.dispatch_s[l->pool] += (double)l->dispatch_us / 1e6;
		}
	}
	return 0;
}

int mf_lparmap_add_rmf(struct mf_lparmap *m, struct mf_strtab *tab, const struct mf_smf70 *r)
{
	uint32_t system = mf_strtab_intern(tab, r->system, strlen(r->system));
	struct rsys *y = system || !r->system[0] ? sys_find(m, system, true) : NULL;
	struct rinterval *iv;
	size_t lo, hi, i;

	if (!y)
		return MF_ENOMEM;
	/* Sorted insert (records come mostly in time order); the same start again is a copy. */
	lo = 0;
	hi = y->niv;
	if (y->niv && y->iv[y->niv - 1].start_us < r->start_us) {
		lo = y->niv;
	} else {
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (y->iv[mid].start_us < r->start_us)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < y->niv && y->iv[lo].start_us == r->start_us) {
			m->duplicates++;
			return 0;
		}
	}
	if (y->niv == y->capiv) {
		size_t cap = y->capiv ? y->capiv * 2 : 16;
		struct rinterval *n = realloc(y->iv, cap * sizeof(*n));
		if (!n)
			return MF_ENOMEM;
		y->iv = n;
		y->capiv = cap;
	}
	memmove(&y->iv[lo + 1], &y->iv[lo], (y->niv - lo) * sizeof(*y->iv));
	iv = &y->iv[lo];
	memset(iv, 0, sizeof(*iv));
	y->niv++;
	iv->start_us = r->start_us;
	iv->end_us = r->end_us;
	if (r->broken) {
		/* Kept as a placeholder, so that reading it again (the first pass, a copy) counts it once. */
		iv->broken = true;
		m->broken++;
		return 0;
	}
	m->nintervals++;
	if (r->own >= 0) {
		const char *name = r->lpars[r->own].name;
		iv->lpar = mf_strtab_intern(tab, name, strlen(name));
	}
	iv->cpus = calloc(r->ncpus ? r->ncpus : 1, sizeof(*iv->cpus));
	if (!iv->cpus)
		return MF_ENOMEM;
	iv->ncpus = r->ncpus;
	for (i = 0; i < r->ncpus; i++) {
		struct rcpu *c = &iv->cpus[i];
		c->id = r->cpus[i].id;
		c->pool = r->cpus[i].pool;
		c->polarity = MF_POL_NONE;
		c->weight = -1;
		c->dispatch_s = NAN;
		if (r->cpus[i].lcpu >= 0) {
			const struct mf_smf70_lcpu *l = &r->lcpus[r->cpus[i].lcpu];
			c->polarity = l->polarity;
			c->weight = l->dedicated ? 0 : (int32_t)l->weight;
			if (!r->cpus[i].invalid)
				c->dispatch_s = (double)l->dispatch_us / 1e6;
		}
	}
	return table_add(m, r, system);
}

static int cmp_topo(const void *pa, const void *pb)
{
	const struct topo *a = pa, *b = pb;
	return (a->time_us > b->time_us) - (a->time_us < b->time_us);
}

int mf_lparmap_add_topo(struct mf_lparmap *m, struct mf_strtab *tab, const struct mf_smf99t *t)
{
	uint32_t system = mf_strtab_intern(tab, t->system, strlen(t->system));
	struct rsys *y = system || !t->system[0] ? sys_find(m, system, true) : NULL;
	struct topo *tp;
	size_t i;
	if (!y)
		return MF_ENOMEM;
	for (i = 0; i < y->ntopo; i++)
		if (y->topo[i].time_us == t->time_us)
			return 0; /* read before */
	if (y->ntopo == y->captopo) {
		size_t cap = y->captopo ? y->captopo * 2 : 4;
		struct topo *n = realloc(y->topo, cap * sizeof(*n));
		if (!n)
			return MF_ENOMEM;
		y->topo = n;
		y->captopo = cap;
	}
	tp = &y->topo[y->ntopo];
	tp->time_us = t->time_us;
	tp->ncpus = t->ncpus;
	tp->cpus = malloc((t->ncpus ? t->ncpus : 1) * sizeof(*tp->cpus));
	if (!tp->cpus)
		return MF_ENOMEM;
	memcpy(tp->cpus, t->cpus, t->ncpus * sizeof(*tp->cpus));
	y->ntopo++;
	m->ntopos++;
	qsort(y->topo, y->ntopo, sizeof(*y->topo), cmp_topo);
	return 0;
}

static const struct rcpu *cpu_in(const struct rinterval *iv, int64_t cpu)
{
	size_t i;
	for (i = 0; i < iv->ncpus; i++)
		if ((int64_t)iv->cpus[i].id == cpu)
			return &iv->cpus[i];
	return NULL;
}

static void note_misaligned(struct rsys *y, double his_s, double rmf_s, int64_t start_us)
{
	size_t i;
	for (i = 0; i < y->nmis; i++)
		if (fabs(y->mis[i].his_s - his_s) < 1 && fabs(y->mis[i].rmf_s - rmf_s) < 1) {
			y->mis[i].samples++;
			return;
		}
	if (y->nmis == sizeof(y->mis) / sizeof(y->mis[0])) {
		y->mis_more++;
		return;
	}
	y->mis[y->nmis].his_s = his_s;
	y->mis[y->nmis].rmf_s = rmf_s;
	y->mis[y->nmis].samples = 1;
	y->mis[y->nmis++].first_us = start_us;
}

/* Drawer and chip from the topology in force at the end of the sample (else the first one). */
static void join_topo(const struct rsys *y, struct mf_sample *s, int64_t end_us)
{
	const struct topo *tp = NULL;
	size_t i;
	if (!y->ntopo || s->cpu < 0)
		return;
	for (i = 0; i < y->ntopo && (!s->has_start || y->topo[i].time_us <= end_us); i++)
		tp = &y->topo[i];
	if (!tp)
		tp = &y->topo[0];
	for (i = 0; i < tp->ncpus; i++)
		if ((int64_t)tp->cpus[i].cpu == s->cpu) {
			s->drawer = tp->cpus[i].drawer;
			s->chip = tp->cpus[i].chip;
			if (s->polarity == MF_POL_NONE)
				s->polarity = tp->cpus[i].polarity;
			return;
		}
}

int mf_lparmap_join(struct mf_lparmap *m, struct mf_sample *s)
{
	struct rsys *y;
	int64_t a, b, len, best_ov = 0, covered = 0;
	const struct rinterval *best = NULL;
	double busy = 0;
	bool busy_ok = true;
	size_t lo, hi, i;

	/* Systems without RMF data are kept too: the warnings name them beside those with it. */
	if (!s->system || (y = sys_find(m, s->system, true)) == NULL)
		return 0;
	y->samples++;
	if (!s->has_start || isnan(s->seconds) || s->seconds <= 0) {
		join_topo(y, s, 0);
		return 0;
	}
	a = s->start_us;
	len = (int64_t)llround(s->seconds * 1e6);
	b = a + len;
	/* The first interval ending after a. */
	lo = 0;
	hi = y->niv;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (y->iv[mid].end_us <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < y->niv && y->iv[i].start_us < b; i++) {
		const struct rinterval *iv = &y->iv[i];
		int64_t s0 = iv->start_us > a ? iv->start_us : a, e0 = iv->end_us < b ? iv->end_us : b;
		const struct rcpu *c;
		if (e0 <= s0 || iv->broken)
			continue;
		covered += e0 - s0;
		if (e0 - s0 > best_ov) {
			best_ov = e0 - s0;
			best = iv;
		}
		c = cpu_in(iv, s->cpu);
		if (c && !isnan(c->dispatch_s))
			busy += c->dispatch_s * (double)(e0 - s0) / (double)(iv->end_us - iv->start_us);
		else
			busy_ok = false;
	}
	join_topo(y, s, b);
	if (!best) {
		/* Counted whether or not RMF data came yet (standard input): told only if some did. */
		if (!y->outside)
			y->first_outside_us = a;
		y->outside++;
		return 0;
	}
	y->joined++;
	if (!s->lpar && best->lpar) {
		s->lpar = best->lpar;
		s->lpar_joined = true;
	}
	{
		const struct rcpu *c = cpu_in(best, s->cpu);
		if (c) {
			if (c->polarity != MF_POL_NONE) /* else what type 99 subtype 14 said stands */
				s->polarity = c->polarity;
			s->lpar_weight = c->weight;
		}
	}
	if (busy_ok && covered >= len - tol_us(len))
		s->rmf_busy_s = busy * (double)len / (double)covered;
	{
		int64_t blen = best->end_us - best->start_us, t = tol_us(len < blen ? len : blen);
		if (llabs(best->start_us - a) > t || llabs(blen - len) > t)
			note_misaligned(y, (double)len / 1e6, (double)blen / 1e6, a);
	}
	return 1;
}

struct named_sys {
	const char *name;
	struct rsys *y;
};

static int cmp_sys(const void *pa, const void *pb)
{
	const struct named_sys *a = pa, *b = pb;
	return strcmp(a->name, b->name);
}

void mf_lparmap_warnings(struct mf_lparmap *m, const struct mf_strtab *tab, void (*fn)(void *ctx, const char *msg),
			 void *ctx)
{
	struct rsys *y;
	char msg[600], t1[48], t2[48];
	size_t with = 0;
	for (y = m->sys; y; y = y->next)
		if (y->niv)
			with++;
	if (m->broken) {
		snprintf(msg, sizeof(msg),
			 "%" PRIu64
			 " SMF type 70 subtype 1 record%s split over several records (SMF70RAN) %s not "
			 "joined: their intervals have no LPAR view",
			 m->broken, m->broken == 1 ? "" : "s", m->broken == 1 ? "is" : "are");
		fn(ctx, msg);
	}
	/* Systems by name, so that the warnings come in an order a reader expects. */
	{
		struct named_sys *v;
		struct rsys *prev = NULL;
		size_t nsys = 0, k;
		for (y = m->sys; y; y = y->next)
			nsys++;
		v = malloc((nsys ? nsys : 1) * sizeof(*v));
		if (v) {
			for (k = 0, y = m->sys; y; y = y->next, k++) {
				v[k].y = y;
				v[k].name = mf_strtab_get(tab, y->system) ? mf_strtab_get(tab, y->system) : "";
			}
			qsort(v, nsys, sizeof(*v), cmp_sys);
			for (k = 0; k < nsys; k++) {
				v[k].y->next = NULL;
				if (prev)
					prev->next = v[k].y;
				else
					m->sys = v[k].y;
				prev = v[k].y;
			}
			m->last = NULL;
			free(v);
		}
	}
	for (y = m->sys; y; y = y->next) {
		const char *name = mf_strtab_get(tab, y->system);
		size_t i, k;
		if (!name)
			name = "(no name)";
		/* The LPAR a system runs in changes: name the first interval of each new one. */
		for (i = 1, k = 0; i < y->niv; i++) {
			if (y->iv[i].broken)
				continue;
			if (y->iv[k].broken || y->iv[i].lpar == y->iv[k].lpar) {
				k = i;
				continue;
			}
			mf_time_format(y->iv[i].start_us, t1, sizeof(t1));
			snprintf(msg, sizeof(msg),
				 "system %s ran in LPAR %s, then in LPAR %s from the interval starting %s", name,
				 mf_strtab_get(tab, y->iv[k].lpar) ? mf_strtab_get(tab, y->iv[k].lpar) : "?",
				 mf_strtab_get(tab, y->iv[i].lpar) ? mf_strtab_get(tab, y->iv[i].lpar) : "?", t1);
			fn(ctx, msg);
			k = i;
		}
		for (i = 0; i < y->nmis; i++) {
			mf_time_format(y->mis[i].first_us, t1, sizeof(t1));
			snprintf(msg, sizeof(msg),
				 "system %s: HIS intervals of %.0f s and RMF intervals of %.0f s do not line up "
				 "(%" PRIu64
				 " sample%s, first at %s): RMF busy is apportioned by the time they overlap",
				 name, y->mis[i].his_s, y->mis[i].rmf_s, y->mis[i].samples,
				 y->mis[i].samples == 1 ? "" : "s", t1);
			fn(ctx, msg);
		}
		if (y->outside && y->niv) {
			mf_time_format(y->first_outside_us, t2, sizeof(t2));
			snprintf(msg, sizeof(msg),
				 "system %s: %" PRIu64
				 " sample%s outside every RMF (SMF type 70) interval of the system, "
				 "first at %s: no LPAR view for them%s",
				 name, y->outside, y->outside == 1 ? "" : "s", t2,
				 m->streamed ? " (standard input is read once: RMF records that follow their samples "
					       "join none of them; give the dump as a file)"
					     : "");
			fn(ctx, msg);
		}
		if (!y->niv && y->samples && with) {
			snprintf(msg, sizeof(msg),
				 "system %s has no SMF type 70 records (other systems have): its lpar, polarity and "
				 "RMF busy are empty",
				 name);
			fn(ctx, msg);
		}
	}
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct mf_lpar_row *a = pa, *b = pb;
	int c = strcmp(a->serial, b->serial);
	return c ? c : strcmp(a->name, b->name);
}

int mf_lparmap_table(const struct mf_lparmap *m, const struct mf_strtab *tab, struct mf_lpar_row **rows, size_t *n)
{
	const struct lrow *w;
	size_t k = 0;
	(void)tab;
	for (w = m->rows; w; w = w->next)
		k++;
	*rows = malloc((k ? k : 1) * sizeof(**rows));
	*n = 0;
	if (!*rows)
		return MF_ENOMEM;
	for (w = m->rows; w; w = w->next)
		(*rows)[(*n)++] = w->row;
	qsort(*rows, *n, sizeof(**rows), cmp_row);
	return 0;
}
