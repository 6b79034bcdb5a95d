/* SPDX-License-Identifier: MIT */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "mfstat/report/group.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "mfstat/base/shares.h"

/*
 * The group blocks of a grouper are carved from chunks of fresh zeroed memory (an arena): no
 * malloc per group (its header, its clearing), a group of one sample written once, and blocks
 * made one after the other lie one after the other, so walking the list in order (growing the
 * table, merging, sorting) reads memory in order.  Blocks are freed with the arena, all at once:
 * a grouper that takes another's groups (-j parts) holds that one's arena too, counted, so either
 * may be freed first.
 */
struct chunk {
	struct chunk *next;
	size_t size; /* bytes of the chunk, this header included */
};

struct arena {
	size_t refs;          /* groupers holding it */
	struct chunk *chunks; /* the newest first */
	char *at, *end;       /* the free part of the newest */
	size_t next_size;     /* of the next chunk */
	size_t bytes;         /* of all chunks */
	size_t carved;        /* bytes handed out */
};

#define ARENA_FIRST ((size_t)64 << 10)
#define ARENA_MAX ((size_t)8 << 20) /* a multiple of the 2 MiB of a huge page */

/* A zeroed chunk of size bytes: mapped fresh where it can be (zero pages, huge ones when big). */
static struct chunk *chunk_new(size_t size)
{
	struct chunk *c;
#if defined(__linux__) && defined(MAP_ANONYMOUS)
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	if (size >= ((size_t)2 << 20)) {
		/* The chunk will be filled: huge pages, mapped in one call rather than a fault a page. Hints only. */
#if defined(MADV_HUGEPAGE)
		(void)madvise(m, size, MADV_HUGEPAGE);
#endif
#if defined(MADV_POPULATE_WRITE)
		(void)madvise(m, size, MADV_POPULATE_WRITE);
#endif
	}
	c = m;
#else
	c = calloc(1, size);
	if (!c)
		return NULL;
#endif
	c->size = size;
	return c;
}

/*
 * A hint that the large malloc'd block p of n bytes (not yet written) is to be filled: huge
 * pages for the whole 2 MiB pages within it, a fault each 2 MiB rather than each 4 KiB.
 */
static void huge_hint(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	uintptr_t huge = (uintptr_t)2 << 20, a = ((uintptr_t)p + huge - 1) & ~(huge - 1),
		  e = ((uintptr_t)p + n) & ~(huge - 1);
	if (p && n >= 2 * huge && e > a)
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

static void chunk_free(struct chunk *c)
{
#if defined(__linux__) && defined(MAP_ANONYMOUS)
	munmap(c, c->size);
#else
	free(c);
#endif
}

#define ARENA_ALIGN 16

/* n zeroed bytes (aligned to ARENA_ALIGN) that live until arena_free, or NULL. */
static void *arena_alloc(struct arena *a, size_t n)
{
	void *p;
	n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	if (!a->at || (size_t)(a->end - a->at) < n) {
		size_t head = (sizeof(struct chunk) + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
		size_t size = a->next_size ? a->next_size : ARENA_FIRST;
		struct chunk *c;
		if (n > SIZE_MAX / 2 - head)
			return NULL;
		while (size < head + n)
			size *= 2;
		if (!(c = chunk_new(size)))
			return NULL;
		c->next = a->chunks;
		a->chunks = c;
		a->at = (char *)c + head;
		a->end = (char *)c + size;
		a->bytes += size;
		if (a->next_size < ARENA_MAX)
			a->next_size = size * 2 < ARENA_MAX ? size * 2 : ARENA_MAX;
	}
	p = a->at;
	a->at += n;
	a->carved += n;
	return p;
}

/* Lets go of an arena: freed with its chunks when no grouper holds it. */
static void arena_put(struct arena *a)
{
	struct chunk *c, *next;
	if (!a || --a->refs)
		return;
	for (c = a->chunks; c; c = next) {
		next = c->next;
		chunk_free(c);
	}
	free(a);
}

struct mf_grouper {
	unsigned by;
	struct mf_group **slots; /* open addressing */
	size_t nslots;
	struct mf_group **list;
	size_t n, cap;
	struct mf_group *last;
	bool sorted;
	const struct mf_strtab *tab; /* for sorting */
	size_t max_groups;           /* 0: no limit */
	const struct mf_tz *tz;      /* calendar keys are cut in it; NULL: UTC */
	bool calendar;               /* by has a calendar key: cal */
	enum mf_cal cal;
	bool limit_hit;      /* find_or_add refused a new group: the limit, not memory */
	struct arena *arena; /* the blocks of the groups made here */
	struct arena **held; /* those of groups taken from other groupers */
	size_t nheld;
	const struct mf_sum_layout *layouts; /* borrowed (mf_grouper_set_layouts) */
	size_t nlayouts;
	const struct mf_family *lay_family; /* the family looked up last, and its layout */
	const struct mf_sum_layout *lay_last;
	size_t runs_taken; /* groups taken sorted by mf_grouper_take_sorted (not sorted again here) */
};

static const struct {
	const char *name;
	unsigned bit;
	int cal; /* enum mf_cal, or -1 */
} by_items[] = {
	{"system", MF_BY_SYSTEM, -1},
	{"lpar", MF_BY_LPAR, -1},
	{"pool", MF_BY_POOL, -1},
	{"interval", MF_BY_INTERVAL, -1},
	{"cpu", MF_BY_CPU, -1},
	{"file", MF_BY_FILE, -1},
	{"hour", MF_BY_HOUR, MF_CAL_HOUR},
	{"day", MF_BY_DAY, MF_CAL_DAY},
	{"week", MF_BY_WEEK, MF_CAL_WEEK},
	{"month", MF_BY_MONTH, MF_CAL_MONTH},
	{"hour-of-day", MF_BY_HOUR_OF_DAY, MF_CAL_HOUR_OF_DAY},
	{"weekday", MF_BY_WEEKDAY, MF_CAL_WEEKDAY},
	{"polarity", MF_BY_POLARITY, -1},
	{"lpar_weight", MF_BY_WEIGHT, -1},
	{"drawer", MF_BY_DRAWER, -1},
	{"chip", MF_BY_CHIP, -1},
};
#define NBY (sizeof(by_items) / sizeof(by_items[0]))

const char *mf_by_name(unsigned bit)
{
	size_t k;
	for (k = 0; k < NBY; k++)
		if (by_items[k].bit == bit)
			return by_items[k].name;
	return NULL;
}

int mf_by_calendar(unsigned by, enum mf_cal *cal)
{
	size_t k;
	for (k = 0; k < NBY; k++)
		if ((by & by_items[k].bit) && by_items[k].cal >= 0) {
			*cal = (enum mf_cal)by_items[k].cal;
			return 1;
		}
	return 0;
}

int mf_by_parse(const char *s, unsigned *by, size_t *bad)
{
	const char *p = s;

	*by = 0;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p), k;
		for (k = 0; k < NBY; k++)
			if (strlen(by_items[k].name) == len && strncasecmp(by_items[k].name, p, len) == 0)
				break;
		if (k == NBY) {
			*bad = (size_t)(p - s);
			return -1;
		}
		if ((by_items[k].bit & MF_BY_TIME) && (*by & MF_BY_TIME & ~by_items[k].bit)) {
			*bad = (size_t)(p - s);
			return -2;
		}
		*by |= by_items[k].bit;
		if (!e)
			break;
		p = e + 1;
		if (!*p) {
			*bad = (size_t)(p - s);
			return -1;
		}
	}
	return 0;
}

struct mf_grouper *mf_grouper_new(unsigned by)
{
	struct mf_grouper *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	if (!(g->arena = calloc(1, sizeof(*g->arena)))) {
		free(g);
		return NULL;
	}
	g->arena->refs = 1;
	g->by = by;
	g->calendar = mf_by_calendar(by, &g->cal) == 1;
	return g;
}

void mf_grouper_set_tz(struct mf_grouper *g, const struct mf_tz *tz)
{
	g->tz = tz;
}

void mf_grouper_set_layouts(struct mf_grouper *g, const struct mf_sum_layout *layouts, size_t n)
{
	g->layouts = layouts;
	g->nlayouts = n;
	g->lay_family = NULL;
	g->lay_last = NULL;
}

/* The layout of the groups of family fam in g, or NULL: all sums. */
static const struct mf_sum_layout *layout_of(struct mf_grouper *g, const struct mf_family *fam)
{
	size_t i;
	if (fam == g->lay_family)
		return g->lay_last;
	g->lay_family = fam;
	g->lay_last = NULL;
	for (i = 0; i < g->nlayouts; i++)
		if (g->layouts[i].family == fam) {
			g->lay_last = &g->layouts[i];
			break;
		}
	return g->lay_last;
}

/*
 * With a layout, after the sums: the sum over the rows of each row's largest value of a slot
 * not kept (a bound of those slots' sums), UINT64_MAX once it passed 2^64.
 */
static uint64_t *unkept_bound(struct mf_group *grp)
{
	return &grp->sum[grp->layout->nsums];
}

/* The number of sums a group keeps. */
static size_t nsums_of(const struct mf_group *grp)
{
	return grp->layout ? grp->layout->nsums : grp->family->ncounters;
}

uint64_t mf_group_sum(const struct mf_group *grp, size_t slot)
{
	size_t k;
	if (!grp->layout)
		return grp->sum[slot];
	k = grp->layout->index[slot];
	return k == MF_SUM_NONE ? 0 : grp->sum[k];
}

const uint64_t *mf_group_sums_by_slot(const struct mf_group *grp, const uint64_t *sums, uint64_t *buf)
{
	const struct mf_sum_layout *l = grp->layout;
	size_t i, n = grp->family->ncounters;
	if (!l)
		return sums;
	for (i = 0; i < n; i++)
		buf[i] = l->index[i] == MF_SUM_NONE ? 0 : sums[l->index[i]];
	return buf;
}

/* One interval of one system (system and LPAR) within a group. */
struct mf_interval {
	uint32_t system, lpar; /* 0 when the rows name none */
	int64_t start_us;
	bool has_start;
	bool has_offset; /* the local time offset of its first row that gave one (SMF) */
	int32_t utc_offset_s;
	int64_t sum_ns; /* over the rows that gave a length, nanoseconds: exact, so any order of adding gives the same */
	uint32_t nseconds;
	uint32_t nrows;
};

/* The mean length of an interval's rows, seconds (nseconds > 0). */
static double iv_len(const struct mf_interval *iv)
{
	return (double)iv->sum_ns / ((double)iv->nseconds * 1e9);
}

struct mf_cpu_id {
	uint32_t system, lpar;
	int64_t cpu;
};

/* The bookkeeping of a group's many intervals, made at its second. */
struct ivmore {
	size_t cap;      /* of intervals */
	size_t last;     /* the interval found last */
	uint32_t *ihash; /* index+1 by system and start, once there are many intervals */
	size_t ihash_size;
};

/*
 * A group as the grouper keeps it: the public part first (every struct
 * mf_group * the grouper hands out points at one of these), then the
 * bookkeeping of its intervals and distinct CPUs.
 */
struct group {
	struct mf_group pub;
	uint64_t hash;                 /* key_hash of the key: the table grows without reading keys again */
	struct mf_interval *intervals; /* &iv_first until a second interval arrives, then more->arr */
	struct mf_interval iv_first;
	struct ivmore *more; /* from a second interval on (a key with the interval never has one) */
	/*
	 * The distinct (system, LPAR, CPU), sorted.  While every CPU is of one system and LPAR
	 * (csys, clpar) and numbered below 2^32, cpu32 holds their numbers (4 bytes each, not 16:
	 * a z16 LPAR of 100 CPUs keeps 0.5 KB a group, not 2 KB); else cpus holds them whole.
	 * The first such number is kept inline, in cpu_one, until a second arrives: a group of one
	 * CPU (the finest grain) allocates nothing for it.
	 */
	size_t ncpus, capcpus;
	struct mf_cpu_id *cpus;
	uint32_t *cpu32;
	uint32_t csys, clpar;
	uint32_t cpu_one;
	uint32_t nintervals; /* below 2^32: the interval hash holds their indexes in 32 bits */
};

static struct group *priv(struct mf_group *g)
{
	return (struct group *)g;
}

static const struct group *cpriv(const struct mf_group *g)
{
	return (const struct group *)g;
}

void mf_grouper_set_max_groups(struct mf_grouper *g, size_t max)
{
	g->max_groups = max;
}

/* Frees what a group holds beside its block (the block is the arena's). */
static void group_free(struct mf_group *grp)
{
	struct group *p = priv(grp);
	free(grp->sum_lspr); /* sum is in the group's own block */
	if (p->more) {
		free(p->intervals);
		free(p->more->ihash);
		free(p->more);
	}
	free(p->cpus);
	free(p->cpu32);
}

void mf_grouper_free(struct mf_grouper *g)
{
	size_t i;
	if (!g)
		return;
	for (i = 0; i < g->n; i++)
		group_free(g->list[i]);
	free(g->list);
	free(g->slots);
	arena_put(g->arena);
	for (i = 0; i < g->nheld; i++)
		arena_put(g->held[i]);
	free(g->held);
	free(g);
}

/*
 * Zeroed memory written at once: calloc leaves fresh pages unwritten, so the first read maps the
 * shared zero page and the first write copies it, and with threads (-j) each such fault flushes
 * every CPU's TLB.
 */
static void *zalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p)
		memset(p, 0, n ? n : 1);
	return p;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

/* Clears the key fields g does not group on (unset: 0, -1, false). */
static void key_mask(const struct mf_grouper *g, struct mf_group *k)
{
	if (!(g->by & MF_BY_SYSTEM))
		k->system = 0;
	if (!(g->by & MF_BY_LPAR))
		k->lpar = 0;
	if (!(g->by & MF_BY_POOL))
		k->pool = MF_POOL_NONE;
	if (!(g->by & MF_BY_CPU))
		k->cpu = -1;
	if (!(g->by & MF_BY_INTERVAL))
		k->has_start = false;
	if (!k->has_start)
		k->start_us = 0;
	if (!(g->by & MF_BY_FILE))
		k->input = 0;
	if (!g->calendar)
		k->has_bucket = false;
	if (!k->has_bucket)
		k->bucket = 0;
	if (!(g->by & MF_BY_POLARITY))
		k->polarity = MF_POL_NONE;
	if (!(g->by & MF_BY_WEIGHT))
		k->lpar_weight = -1;
	if (!(g->by & MF_BY_DRAWER))
		k->drawer = -1;
	if (!(g->by & MF_BY_CHIP))
		k->chip = -1;
}

/* The calendar bucket of an interval start, in the grouper's zone (or the row's own offset). */
static int64_t bucket_of(const struct mf_grouper *g, const struct mf_sample *s)
{
	int32_t off = 0;
	if (g->tz && mf_tz_per_record(g->tz))
		off = s->has_offset ? s->utc_offset_s : 0;
	else if (g->tz)
		off = mf_tz_offset(g->tz, s->start_us);
	if (g->cal == MF_CAL_HOUR)
		return mf_cal_hour_key(s->start_us + (int64_t)off * 1000000, off);
	return mf_cal_key(g->cal, s->start_us + (int64_t)off * 1000000);
}

/* The key of a sample under the grouping, written into a group-shaped struct. */
static void make_key(const struct mf_grouper *g, const struct mf_sample *s, struct mf_group *k)
{
	k->family = s->family;
	k->system = s->system;
	k->lpar = s->lpar;
	k->pool = s->pool;
	k->cpu = s->cpu;
	k->has_start = s->has_start;
	k->start_us = s->start_us;
	k->input = s->input;
	k->has_bucket = g->calendar && s->has_start;
	k->bucket = k->has_bucket ? bucket_of(g, s) : 0;
	k->polarity = s->polarity;
	k->lpar_weight = s->lpar_weight;
	k->drawer = s->drawer;
	k->chip = s->chip;
	key_mask(g, k);
}

static uint64_t key_hash(const struct mf_group *k)
{
	uint64_t h = (uint64_t)(uintptr_t)k->family;
	h = mix(h, k->system);
	h = mix(h, k->lpar);
	h = mix(h, (uint64_t)k->pool);
	h = mix(h, (uint64_t)k->cpu);
	h = mix(h, (uint64_t)k->start_us + k->has_start);
	h = mix(h, k->input);
	h = mix(h, (uint64_t)k->bucket + k->has_bucket);
	h = mix(h, (uint64_t)(uint32_t)k->polarity | (uint64_t)(uint32_t)k->lpar_weight << 32);
	h = mix(h, (uint64_t)(uint32_t)k->drawer | (uint64_t)(uint32_t)k->chip << 32);
	return h;
}

static bool key_eq(const struct mf_group *a, const struct mf_group *b)
{
	return a->family == b->family && a->system == b->system && a->lpar == b->lpar && a->pool == b->pool &&
	       a->cpu == b->cpu && a->has_start == b->has_start && a->start_us == b->start_us && a->input == b->input &&
	       a->has_bucket == b->has_bucket && a->bucket == b->bucket && a->polarity == b->polarity &&
	       a->lpar_weight == b->lpar_weight && a->drawer == b->drawer && a->chip == b->chip;
}

static int rehash(struct mf_grouper *g, size_t nslots)
{
	struct mf_group **s = zalloc(nslots * sizeof(*s));
	size_t i;
	if (!s)
		return MF_ENOMEM;
	for (i = 0; i < g->n; i++) {
		size_t j = priv(g->list[i])->hash & (nslots - 1);
		while (s[j])
			j = (j + 1) & (nslots - 1);
		s[j] = g->list[i];
	}
	free(g->slots);
	g->slots = s;
	g->nslots = nslots;
	return 0;
}

/* The slots of a table for n groups: a power of two, at most half full. */
static size_t slots_for(size_t n)
{
	size_t want = 256;
	while (want < 2 * n + 2)
		want *= 2;
	return want;
}

/* The group of key k, or NULL with *slot the empty slot where it would go (g->slots made). */
static struct mf_group *lookup(struct mf_grouper *g, const struct mf_group *k, uint64_t h, size_t *slot)
{
	size_t j;
	for (j = h & (g->nslots - 1); g->slots[j]; j = (j + 1) & (g->nslots - 1))
		if (priv(g->slots[j])->hash == h && key_eq(g->slots[j], k))
			return g->slots[j];
	*slot = j;
	return NULL;
}

/* Room in g's list for one more group: 0 or MF_ENOMEM. */
static int list_room(struct mf_grouper *g)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 64;
		struct mf_group **nl = realloc(g->list, cap * sizeof(*nl));
		if (!nl)
			return MF_ENOMEM;
		g->list = nl;
		g->cap = cap;
	}
	return 0;
}

/* Lists grp (list_room done) in empty slot j; 0 or MF_ENOMEM (grp is listed either way). */
static int enlist(struct mf_grouper *g, struct mf_group *grp, size_t j)
{
	g->list[g->n++] = grp;
	g->slots[j] = grp;
	g->sorted = false;
	if (g->n * 2 > g->nslots && rehash(g, g->nslots * 2))
		return MF_ENOMEM;
	return 0;
}

static struct mf_group *find_or_add(struct mf_grouper *g, const struct mf_group *k)
{
	size_t j = 0;
	uint64_t h;
	struct mf_group *grp;
	struct group *p;
	const struct mf_sum_layout *lay;
	size_t nsums;

	if (g->last && key_eq(g->last, k))
		return g->last;
	if (!g->slots && rehash(g, slots_for(g->n))) /* none yet, or let go (mf_grouper_take_sorted) */
		return NULL;
	h = key_hash(k);
	if ((grp = lookup(g, k, h, &j)) != NULL)
		return g->last = grp;
	if (g->max_groups && g->n >= g->max_groups) {
		g->limit_hit = true;
		return NULL;
	}
	if (list_room(g))
		return NULL;
	/* One block, zeroed: the group, then its sums (those its layout keeps) and the three bitmaps. */
	lay = layout_of(g, k->family);
	nsums = lay ? lay->nsums + 1 : k->family->ncounters; /* with a layout, its bound after the sums */
	p = arena_alloc(g->arena, sizeof(*p) + (nsums + 3 * ((k->family->ncounters + 63) / 64)) * sizeof(uint64_t));
	if (!p)
		return NULL;
	p->hash = h;
	grp = &p->pub;
	grp->family = k->family;
	grp->system = k->system;
	grp->lpar = k->lpar;
	grp->pool = k->pool;
	grp->cpu = k->cpu;
	grp->has_start = k->has_start;
	grp->start_us = k->start_us;
	grp->input = k->input;
	grp->has_bucket = k->has_bucket;
	grp->bucket = k->bucket;
	grp->polarity = k->polarity;
	grp->lpar_weight = k->lpar_weight;
	grp->drawer = k->drawer;
	grp->chip = k->chip;
	grp->nwords = (k->family->ncounters + 63) / 64;
	grp->layout = lay;
	grp->sum = (uint64_t *)(p + 1);
	grp->present_all = grp->sum + nsums;
	grp->present_any = grp->present_all + grp->nwords;
	grp->overflow = grp->present_any + grp->nwords;
	memset(grp->present_all, 0xff, grp->nwords * sizeof(*grp->present_all));
	p->intervals = &p->iv_first;
	grp->cpsp_min = INFINITY;
	grp->cpsp_max = -INFINITY;
	if (enlist(g, grp, j))
		return NULL; /* listed: freed with g */
	return g->last = grp;
}

static uint64_t ihash_of(uint32_t system, uint32_t lpar, int64_t v)
{
	return mix(mix(mix(0x51ed27, system), lpar), (uint64_t)v);
}

static bool iv_is(const struct mf_interval *iv, uint32_t system, uint32_t lpar, int64_t start)
{
	return iv->start_us == start && iv->system == system && iv->lpar == lpar;
}

static int ihash_build(struct group *grp, size_t size)
{
	uint32_t *h = calloc(size, sizeof(*h));
	size_t i;
	if (!h)
		return MF_ENOMEM;
	for (i = 0; i < grp->nintervals; i++) {
		const struct mf_interval *iv = &grp->intervals[i];
		size_t j = ihash_of(iv->system, iv->lpar, iv->start_us) & (size - 1);
		while (h[j])
			j = (j + 1) & (size - 1);
		h[j] = (uint32_t)(i + 1);
	}
	free(grp->more->ihash);
	grp->more->ihash = h;
	grp->more->ihash_size = size;
	return 0;
}

/* The interval record of a sample within its group (one per system and start time). */
/*
 * Seconds are summed as integer nanoseconds (exact, independent of the order of the rows), in
 * an int64_t: 292 years.  A longer value (an lshwc run whose two reads are dated years 1 and
 * 9999, a CSV row's interval_seconds of 1e300) saturates at the range instead of overflowing:
 * the sum is then absurd but defined, and printed as what it is.
 */
static void add_ns(int64_t *sum, int64_t ns)
{
	if (__builtin_add_overflow(*sum, ns, sum))
		*sum = ns < 0 ? INT64_MIN : INT64_MAX;
}

static int64_t ns_of(double seconds)
{
	double ns = seconds * 1e9;
	if (!(ns < 9.2e18))
		return ns < 0 ? INT64_MIN : INT64_MAX; /* and NaN: callers pass only numbers */
	if (ns < -9.2e18)
		return INT64_MIN;
	return llround(ns);
}

static struct mf_interval *find_interval(struct group *grp, const struct mf_sample *s)
{
	struct mf_interval *iv;
	struct ivmore *m = grp->more;
	int64_t start = s->has_start ? s->start_us : INT64_MIN;
	size_t i, last = m ? m->last : 0;

	if (grp->nintervals && iv_is(&grp->intervals[last], s->system, s->lpar, start))
		return &grp->intervals[last];
	if (m && m->ihash) {
		size_t j;
		for (j = ihash_of(s->system, s->lpar, start) & (m->ihash_size - 1); m->ihash[j];
		     j = (j + 1) & (m->ihash_size - 1)) {
			i = m->ihash[j] - 1;
			if (iv_is(&grp->intervals[i], s->system, s->lpar, start)) {
				m->last = i;
				return &grp->intervals[i];
			}
		}
	} else {
		for (i = 0; i < grp->nintervals; i++) {
			if (iv_is(&grp->intervals[i], s->system, s->lpar, start)) {
				if (m)
					m->last = i;
				return &grp->intervals[i];
			}
		}
	}
	if (grp->nintervals == 0) {
		iv = &grp->iv_first; /* zeroed with the block */
		iv->system = s->system;
		iv->lpar = s->lpar;
		iv->start_us = start;
		iv->has_start = s->has_start;
		grp->nintervals = 1;
		return iv;
	}
	if (!m) {
		if (!(m = calloc(1, sizeof(*m))))
			return NULL;
		if (!(grp->intervals = malloc(4 * sizeof(*grp->intervals)))) {
			grp->intervals = &grp->iv_first;
			free(m);
			return NULL;
		}
		grp->intervals[0] = grp->iv_first;
		m->cap = 4;
		grp->more = m;
	} else if (grp->nintervals == m->cap) {
		size_t cap = m->cap * 2 + 2;
		struct mf_interval *n = cap < UINT32_MAX ? realloc(grp->intervals, cap * sizeof(*n)) : NULL;
		if (!n)
			return NULL;
		grp->intervals = n;
		m->cap = cap;
	}
	iv = &grp->intervals[grp->nintervals];
	memset(iv, 0, sizeof(*iv));
	iv->system = s->system;
	iv->lpar = s->lpar;
	iv->start_us = start;
	iv->has_start = s->has_start;
	m->last = grp->nintervals++;
	if (grp->nintervals > 16 && (grp->nintervals * 2 > m->ihash_size)) {
		if (ihash_build(grp, m->ihash_size ? m->ihash_size * 2 : 64))
			return NULL;
	} else if (m->ihash) {
		size_t j = ihash_of(s->system, s->lpar, start) & (m->ihash_size - 1);
		while (m->ihash[j])
			j = (j + 1) & (m->ihash_size - 1);
		m->ihash[j] = (uint32_t)grp->nintervals;
	}
	return &grp->intervals[m->last];
}

static int cmp_cpu(const struct mf_cpu_id *a, const struct mf_cpu_id *b)
{
	if (a->system != b->system)
		return a->system < b->system ? -1 : 1;
	if (a->lpar != b->lpar)
		return a->lpar < b->lpar ? -1 : 1;
	return (a->cpu > b->cpu) - (a->cpu < b->cpu);
}

/* The i-th distinct CPU of a group. */
static struct mf_cpu_id cpu_at(const struct group *grp, size_t i)
{
	struct mf_cpu_id id;
	if (grp->cpus)
		return grp->cpus[i];
	id.system = grp->csys;
	id.lpar = grp->clpar;
	id.cpu = grp->cpu32 ? grp->cpu32[i] : grp->cpu_one;
	return id;
}

/* From numbers of one system and LPAR to whole entries: 0 or MF_ENOMEM. */
static int widen_cpus(struct group *grp)
{
	size_t cap = grp->capcpus ? grp->capcpus : 8, i;
	struct mf_cpu_id *w = malloc(cap * sizeof(*w));
	if (!w)
		return MF_ENOMEM;
	for (i = 0; i < grp->ncpus; i++)
		w[i] = cpu_at(grp, i);
	free(grp->cpu32);
	grp->cpu32 = NULL;
	grp->cpus = w;
	grp->capcpus = cap;
	return 0;
}

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return (a > b) - (a < b);
}

static int cmp_cpu_q(const void *a, const void *b)
{
	return cmp_cpu(a, b);
}

/*
 * Adds x (size bytes) to the sorted set arr[0, *n) of capacity *cap unless it is there: 0 or
 * MF_ENOMEM.  Rows usually repeat the CPU order of the previous interval, so a value beyond the
 * last is appended at once.
 */
static int set_add(void **arr, size_t *n, size_t *cap, size_t size, const void *x,
		   int (*cmp)(const void *, const void *))
{
	char *a = *arr;
	size_t lo = 0, hi = *n;
	if (*n && cmp(a + (*n - 1) * size, x) < 0) {
		lo = *n;
	} else {
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (cmp(a + mid * size, x) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < *n && cmp(a + lo * size, x) == 0)
			return 0;
	}
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 8;
		char *na = realloc(a, c * size);
		if (!na)
			return MF_ENOMEM;
		*arr = a = na;
		*cap = c;
	}
	memmove(a + (lo + 1) * size, a + lo * size, (*n - lo) * size);
	memcpy(a + lo * size, x, size);
	(*n)++;
	return 0;
}

/* Adds a CPU to the group's sorted set of distinct CPUs. */
static int add_cpu(struct group *grp, const struct mf_sample *s)
{
	struct mf_cpu_id id = {s->system, s->lpar, s->cpu};
	void *arr;
	int rc;

	if (!grp->cpus && grp->ncpus == 0 && s->cpu >= 0 && s->cpu <= UINT32_MAX) {
		grp->csys = s->system;
		grp->clpar = s->lpar;
	}
	if (!grp->cpus && (s->system != grp->csys || s->lpar != grp->clpar || s->cpu < 0 || s->cpu > UINT32_MAX) &&
	    widen_cpus(grp))
		return MF_ENOMEM;
	if (!grp->cpus) {
		uint32_t c = (uint32_t)s->cpu;
		if (!grp->cpu32) {
			if (grp->ncpus == 0) {
				grp->cpu_one = c;
				grp->ncpus = 1;
				return 0;
			}
			if (grp->cpu_one == c)
				return 0;
			if (!(grp->cpu32 = malloc(8 * sizeof(*grp->cpu32))))
				return MF_ENOMEM;
			grp->cpu32[0] = grp->cpu_one;
			grp->capcpus = 8;
		}
		arr = grp->cpu32;
		rc = set_add(&arr, &grp->ncpus, &grp->capcpus, sizeof(c), &c, cmp_u32);
		grp->cpu32 = arr;
		return rc;
	}
	arr = grp->cpus;
	rc = set_add(&arr, &grp->ncpus, &grp->capcpus, sizeof(id), &id, cmp_cpu_q);
	grp->cpus = arr;
	return rc;
}

/*
 * Adds a sample's values to a group with a layout: the slots kept to their sums, the others to
 * the bound of their sums (their overflow); row gets the slots present in the sample.
 */
static void add_kept(struct group *p, const struct mf_sample *s, bool lspr, uint64_t *row)
{
	struct mf_group *grp = &p->pub;
	const uint16_t *index = grp->layout->index;
	uint64_t most = 0;
	size_t i;

	for (i = 0; i < s->n; i++) {
		unsigned slot = s->slot[i];
		size_t k = index[slot];
		if (k == MF_SUM_NONE) {
			if (s->value[i] > most)
				most = s->value[i];
			continue;
		}
		if (__builtin_add_overflow(grp->sum[k], s->value[i], &grp->sum[k]))
			grp->overflow[slot >> 6] |= UINT64_C(1) << (slot & 63);
		if (grp->sum_lspr && lspr && __builtin_add_overflow(grp->sum_lspr[k], s->value[i], &grp->sum_lspr[k]))
			grp->overflow[slot >> 6] |= UINT64_C(1) << (slot & 63);
	}
	if (__builtin_add_overflow(*unkept_bound(grp), most, unkept_bound(grp))) {
		/* A sum not kept may have passed 2^64: those of the row are taken as overflowing. */
		*unkept_bound(grp) = UINT64_MAX;
		for (i = 0; i < s->n; i++)
			if (index[s->slot[i]] == MF_SUM_NONE && s->value[i])
				grp->overflow[s->slot[i] >> 6] |= UINT64_C(1) << (s->slot[i] & 63);
	}
	if (s->present_bits)
		memcpy(row, s->present_bits, grp->nwords * sizeof(*row));
	else
		for (i = 0; i < s->n; i++)
			row[s->slot[i] >> 6] |= UINT64_C(1) << (s->slot[i] & 63);
}

int mf_grouper_add(struct mf_grouper *g, const struct mf_sample *s)
{
	struct mf_group key, *grp;
	struct mf_interval *iv;
	uint64_t row[MF_BITWORDS] = {0};
	uint64_t w = s->rollup_rows ? s->rollup_rows : 1; /* a roll-up row counts the samples it sums */
	bool lspr;
	size_t i;

	make_key(g, s, &key);
	grp = find_or_add(g, &key);
	if (!grp)
		return g->limit_hit ? MF_ELIMIT : MF_ENOMEM;
	lspr = !(s->family->lspr_exclude & (1u << s->pool));
	if (grp->rows == 0) {
		grp->machine = s->machine;
	} else if (grp->machine != s->machine) {
		grp->machine = NULL;
		grp->machine_mixed = true;
	}
	/*
	 * LSPR counts only some engines (cpumf-formulas.md, LSPR): sum[] holds all
	 * rows; sum_lspr[] is kept only once the group mixes counted and excluded
	 * engines, so pure groups pay for one sum.
	 */
	if (grp->rows > 0 && !grp->sum_lspr && (grp->rows_lspr == grp->rows) != lspr) {
		size_t ns = nsums_of(grp);
		grp->sum_lspr = calloc(ns ? ns : 1, sizeof(*grp->sum_lspr));
		if (!grp->sum_lspr)
			return MF_ENOMEM;
		if (grp->rows_lspr == grp->rows)
			memcpy(grp->sum_lspr, grp->sum, ns * sizeof(*grp->sum));
	}
	grp->rows += w;
	if (lspr)
		grp->rows_lspr += w;
	if (grp->layout) {
		add_kept(priv(grp), s, lspr, row);
	} else if (s->present_bits) {
		for (i = 0; i < s->n; i++) {
			unsigned slot = s->slot[i];
			if (__builtin_add_overflow(grp->sum[slot], s->value[i], &grp->sum[slot]))
				grp->overflow[slot >> 6] |= UINT64_C(1) << (slot & 63);
		}
		memcpy(row, s->present_bits, grp->nwords * sizeof(*row));
	} else {
		for (i = 0; i < s->n; i++) {
			unsigned slot = s->slot[i];
			if (__builtin_add_overflow(grp->sum[slot], s->value[i], &grp->sum[slot]))
				grp->overflow[slot >> 6] |= UINT64_C(1) << (slot & 63);
			row[slot >> 6] |= UINT64_C(1) << (slot & 63);
		}
	}
	if (grp->sum_lspr && lspr && !grp->layout)
		for (i = 0; i < s->n; i++)
			if (__builtin_add_overflow(grp->sum_lspr[s->slot[i]], s->value[i], &grp->sum_lspr[s->slot[i]]))
				grp->overflow[s->slot[i] >> 6] |= UINT64_C(1) << (s->slot[i] & 63);
	for (i = 0; i < grp->nwords; i++) {
		grp->present_all[i] &= row[i];
		grp->present_any[i] |= row[i];
	}
	if (!isnan(s->cpsp)) {
		if (s->cpsp < grp->cpsp_min)
			grp->cpsp_min = s->cpsp;
		if (s->cpsp > grp->cpsp_max)
			grp->cpsp_max = s->cpsp;
		grp->ncpsp += w;
		if (s->cpsp_nominal)
			grp->nnominal += w;
	}
	grp->user_only |= s->user_only;
	if (s->cpu < 0)
		grp->cpu_unknown = true;
	if (!isnan(s->rmf_busy_s)) {
		add_ns(&grp->rmf_busy_ns, s->rollup_rows ? s->rollup_busy_ns : ns_of(s->rmf_busy_s));
		grp->rmf_rows += w;
	}
	if (s->has_offset && !grp->has_offset) {
		grp->has_offset = true;
		grp->utc_offset_s = s->utc_offset_s;
	}
	iv = find_interval(priv(grp), s);
	if (!iv)
		return MF_ENOMEM;
	if (s->has_offset && !iv->has_offset) {
		iv->has_offset = true;
		iv->utc_offset_s = s->utc_offset_s;
	}
	iv->nrows += s->rollup_cpus ? s->rollup_cpus : 1;
	if (!isnan(s->seconds)) {
		add_ns(&iv->sum_ns, ns_of(s->seconds));
		iv->nseconds++;
	}
	if (s->cpu >= 0 && add_cpu(priv(grp), s))
		return MF_ENOMEM;
	return 0;
}

static int cmp_iv_start(const void *pa, const void *pb)
{
	const struct mf_interval *a = pa, *b = pb;
	return (a->start_us > b->start_us) - (a->start_us < b->start_us);
}

int mf_group_place_cmp(const struct mf_group *a, const struct mf_group *b)
{
	if (a->polarity != b->polarity)
		return a->polarity < b->polarity ? -1 : 1;
	if (a->lpar_weight != b->lpar_weight)
		return a->lpar_weight < b->lpar_weight ? -1 : 1;
	if (a->drawer != b->drawer)
		return a->drawer < b->drawer ? -1 : 1;
	if (a->chip != b->chip)
		return a->chip < b->chip ? -1 : 1;
	return 0;
}

/*
 * Sort entries carry the ranks of their names (in the order of the names, ranked once per sort),
 * so the comparison needs no context and compares integers, not strings.
 */
struct sort_entry {
	uint64_t k1; /* the ranks of the system (high half) and LPAR names; keyed: see sort_keys */
	uint64_t k2; /* keyed: the interval start */
	struct mf_group *g;
};

/* A name of the string table and its id, for ranking the names. */
struct named {
	const char *name;
	uint32_t id;
};

static int cmp_named(const void *pa, const void *pb)
{
	return mf_strtab_cmp_names(((const struct named *)pa)->name, ((const struct named *)pb)->name);
}

/*
 * The rank of every system and LPAR name of g's groups in the order of mf_strtab_cmp_names (equal names,
 * and no name, rank alike; no name first), indexed by id: an array the caller frees, or NULL
 * on ENOMEM.  Without tab every rank is 0, as every name is then unknown.
 */
static uint32_t *name_ranks(const struct mf_grouper *g, const struct mf_strtab *tab)
{
	uint32_t *rank, max = 0, r;
	struct named *nm;
	size_t i, n = 0;
	for (i = 0; i < g->n; i++) {
		if (g->list[i]->system > max)
			max = g->list[i]->system;
		if (g->list[i]->lpar > max)
			max = g->list[i]->lpar;
	}
	if (!(rank = calloc((size_t)max + 1, sizeof(*rank))))
		return NULL;
	if (!tab)
		return rank;
	/* Mark the ids in use (rank 1), then list them with their names. */
	for (i = 0; i < g->n; i++)
		rank[g->list[i]->system] = rank[g->list[i]->lpar] = 1;
	for (i = 0; i <= max; i++)
		n += rank[i];
	if (!(nm = malloc((n ? n : 1) * sizeof(*nm)))) {
		free(rank);
		return NULL;
	}
	for (i = 0, n = 0; i <= max; i++)
		if (rank[i]) {
			nm[n].name = mf_strtab_get(tab, (uint32_t)i);
			nm[n++].id = (uint32_t)i;
		}
	qsort(nm, n, sizeof(*nm), cmp_named);
	for (i = 0, r = 0; i < n; i++) {
		if (i == 0 ? nm[i].name != NULL : mf_strtab_cmp_names(nm[i - 1].name, nm[i].name) != 0)
			r++;
		rank[nm[i].id] = r;
	}
	free(nm);
	return rank;
}

/* The order of the groups after their family, input, system and LPAR. */
static int cmp_after_names(const struct mf_group *a, const struct mf_group *b)
{
	int c;
	if (a->pool != b->pool)
		return a->pool < b->pool ? -1 : 1;
	if ((c = mf_group_place_cmp(a, b)))
		return c;
	if (a->has_bucket != b->has_bucket)
		return a->has_bucket ? 1 : -1;
	if (a->bucket != b->bucket)
		return a->bucket < b->bucket ? -1 : 1;
	if (a->has_start != b->has_start)
		return a->has_start ? 1 : -1;
	if (a->start_us != b->start_us)
		return a->start_us < b->start_us ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return 0;
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct sort_entry *ea = pa, *eb = pb;
	const struct mf_group *a = ea->g, *b = eb->g;
	if (a->family != b->family)
		return strcmp(a->family->key, b->family->key);
	if (a->input != b->input)
		return a->input < b->input ? -1 : 1;
	if (ea->k1 != eb->k1)
		return ea->k1 < eb->k1 ? -1 : 1;
	return cmp_after_names(a, b);
}

/* cmp_group of entries with keys (sort_keys): two integers, the groups not read. */
static int cmp_keyed(const void *pa, const void *pb)
{
	const struct sort_entry *a = pa, *b = pb;
	if (a->k1 != b->k1)
		return a->k1 < b->k1 ? -1 : 1;
	return (a->k2 > b->k2) - (a->k2 < b->k2);
}

/*
 * Whether g's groups differ only in system, LPAR, pool and interval start, with fewer than 2^24
 * names ranked and pools within 2^16 of each other (the finest grain, and most groupings): then
 * e[i].k1 = the ranks of system and LPAR and the pool from the lowest, e[i].k2 = the start
 * (biased: unsigned order is signed order), so that cmp_keyed gives cmp_group's order.
 */
static bool sort_keys(const struct mf_grouper *g, const uint32_t *rank, struct sort_entry *e)
{
	const struct mf_group *f = g->n ? g->list[0] : NULL;
	int lo = f ? f->pool : 0, hi = lo;
	size_t i;
	for (i = 0; i < g->n; i++) {
		const struct mf_group *a = g->list[i];
		if (a->family != f->family || a->input != f->input || mf_group_place_cmp(a, f) != 0 ||
		    a->has_bucket != f->has_bucket || a->bucket != f->bucket || a->has_start != f->has_start ||
		    a->cpu != f->cpu || rank[a->system] >= (1u << 24) || rank[a->lpar] >= (1u << 24))
			return false;
		if (a->pool < lo)
			lo = a->pool;
		if (a->pool > hi)
			hi = a->pool;
	}
	if ((int64_t)hi - lo >= (1 << 16))
		return false;
	for (i = 0; i < g->n; i++) {
		const struct mf_group *a = g->list[i];
		e[i].k1 = (uint64_t)rank[a->system] << 40 | (uint64_t)rank[a->lpar] << 16 | (uint64_t)(a->pool - lo);
		e[i].k2 = (uint64_t)a->start_us ^ (UINT64_C(1) << 63);
	}
	return true;
}

/* cmp_group's order with the names looked up in tab (NULL: every name unknown), not ranked. */
static int cmp_group_named(const struct mf_strtab *tab, const struct mf_group *a, const struct mf_group *b)
{
	int c;
	if (a->family != b->family)
		return strcmp(a->family->key, b->family->key);
	if (a->input != b->input)
		return a->input < b->input ? -1 : 1;
	if (tab && a->system != b->system &&
	    (c = mf_strtab_cmp_names(mf_strtab_get(tab, a->system), mf_strtab_get(tab, b->system))) != 0)
		return c;
	if (tab && a->lpar != b->lpar &&
	    (c = mf_strtab_cmp_names(mf_strtab_get(tab, a->lpar), mf_strtab_get(tab, b->lpar))) != 0)
		return c;
	return cmp_after_names(a, b);
}

struct mf_group *const *mf_grouper_list(const struct mf_grouper *g, size_t *n)
{
	*n = g->n;
	return g->list;
}

/* The runs of sort_entries: run i of nr is e[n * i / nr, n * (i + 1) / nr). */
struct sort_work {
	struct sort_entry *e;
	size_t n, nr;
	int (*cmp)(const void *, const void *);
};

static void sort_share(void *ctx, size_t i)
{
	const struct sort_work *w = ctx;
	size_t from = w->n * i / w->nr, to = w->n * (i + 1) / w->nr;
	qsort(w->e + from, to - from, sizeof(*w->e), w->cmp);
}

/*
 * e[0, n) sorted with up to jobs threads: each sorts a run, then the runs are merged pairwise
 * (through tmp, n entries).  The order is total (no two groups share a key), so it is the order
 * of one qsort.  Returns the sorted array: e or tmp.
 */
static struct sort_entry *sort_entries(struct sort_entry *e, struct sort_entry *tmp, size_t n, size_t jobs,
				       int (*cmp)(const void *, const void *))
{
	struct {
		size_t from, to;
	} run[64];
	size_t nr = jobs < 64 ? jobs : 64, i, w;
	struct sort_work sw;
	if (!tmp || nr < 2 || n < 8192)
		nr = 1;
	sw.e = e;
	sw.n = n;
	sw.nr = nr;
	sw.cmp = cmp;
	mf_run_shares(nr, sort_share, &sw);
	for (i = 0; i < nr; i++) {
		run[i].from = n * i / nr;
		run[i].to = n * (i + 1) / nr;
	}
	/* Merge neighbouring runs until one is left. */
	while (nr > 1) {
		struct sort_entry *t;
		for (i = 0, w = 0; i < nr; i += 2, w++) {
			size_t a = run[i].from, ae = run[i].to, b, be, o = run[i].from;
			if (i + 1 == nr) {
				memcpy(tmp + a, e + a, (ae - a) * sizeof(*e));
				run[w] = run[i];
				continue;
			}
			b = run[i + 1].from;
			be = run[i + 1].to;
			while (a < ae && b < be)
				tmp[o++] = cmp(&e[b], &e[a]) < 0 ? e[b++] : e[a++];
			while (a < ae)
				tmp[o++] = e[a++];
			while (b < be)
				tmp[o++] = e[b++];
			run[w].from = run[i].from;
			run[w].to = run[i + 1].to;
		}
		nr = w;
		t = e;
		e = tmp;
		tmp = t;
	}
	return e;
}

struct mf_group *const *mf_grouper_sort(struct mf_grouper *g, const struct mf_strtab *tab, size_t jobs, size_t *n)
{
	if (!g->sorted && g->n) {
		struct sort_entry *e = malloc(g->n * sizeof(*e)), *tmp = NULL, *sorted;
		uint32_t *rank = name_ranks(g, tab);
		size_t i;
		huge_hint(e, g->n * sizeof(*e));
		if (e && rank) {
			if (jobs > 1 && g->n >= 8192)
				huge_hint(tmp = malloc(g->n * sizeof(*tmp)), g->n * sizeof(*tmp));
			bool keyed = sort_keys(g, rank, e);
			for (i = 0; i < g->n; i++) {
				e[i].g = g->list[i];
				if (!keyed)
					e[i].k1 = (uint64_t)rank[g->list[i]->system] << 32 | rank[g->list[i]->lpar];
			}
			sorted = sort_entries(e, tmp, g->n, jobs, keyed ? cmp_keyed : cmp_group);
			for (i = 0; i < g->n; i++)
				g->list[i] = sorted[i].g;
			free(tmp);
			g->sorted = true;
		}
		free(e);
		free(rank);
		/* Without memory to sort, the groups stay in order of first appearance. */
		g->last = NULL;
	}
	*n = g->n;
	return g->list;
}

struct mf_group *const *mf_grouper_groups(struct mf_grouper *g, const struct mf_strtab *tab, size_t *n)
{
	return mf_grouper_sort(g, tab, 1, n);
}

/* A span on the time line, in seconds from the group's earliest start. */
struct span {
	uint32_t system, lpar;
	double start, len;
};

static int cmp_span_system(const void *pa, const void *pb)
{
	const struct span *a = pa, *b = pb;
	if (a->system != b->system)
		return a->system < b->system ? -1 : 1;
	if (a->lpar != b->lpar)
		return a->lpar < b->lpar ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

static int cmp_span_start(const void *pa, const void *pb)
{
	const struct span *a = pa, *b = pb;
	return (a->start > b->start) - (a->start < b->start);
}

/*
 * Joins the spans of each system (sp sorted by system, then start): a span
 * starting at most a second before the end of the run so far is adjacent
 * and adds its length; one overlapping more extends the run to its end; one
 * after a gap starts a new run.  The runs replace sp[0..n); returns their count.
 */
static size_t join_systems(struct span *sp, size_t n)
{
	size_t i, out = 0;
	for (i = 0; i < n; i++) {
		struct span *run = out ? &sp[out - 1] : NULL;
		double end = run ? run->start + run->len : 0;
		if (run && run->system == sp[i].system && run->lpar == sp[i].lpar && sp[i].start <= end) {
			if (sp[i].start >= end - 1.0)
				run->len += sp[i].len;
			else if (sp[i].start + sp[i].len > end)
				run->len = sp[i].start + sp[i].len - run->start;
			continue;
		}
		sp[out++] = sp[i];
	}
	return out;
}

/* The length of the union of spans (sorted by start). */
static double union_length(const struct span *sp, size_t n)
{
	double total = 0, start = 0, end = 0;
	size_t i;
	for (i = 0; i < n; i++) {
		if (i == 0 || sp[i].start > end) {
			total += end - start;
			start = sp[i].start;
			end = sp[i].start + sp[i].len;
		} else if (sp[i].start + sp[i].len > end) {
			end = sp[i].start + sp[i].len;
		}
	}
	return n ? total + (end - start) : 0;
}

double mf_group_interval_seconds(const struct mf_group *group)
{
	const struct group *grp = cpriv(group);
	struct span *sp, *timed;
	double total = 0, untimed = 0;
	int64_t base = INT64_MAX;
	size_t i, n = 0, ntimed = 0;
	bool one_system = true;

	if (grp->nintervals == 0)
		return NAN;
	if (grp->nintervals == 1) /* the usual group of one interval of one system */
		return grp->intervals[0].nseconds ? iv_len(&grp->intervals[0]) : NAN;
	for (i = 0; i < grp->nintervals; i++) {
		const struct mf_interval *iv = &grp->intervals[i];
		if (iv->nseconds == 0)
			return NAN;
		if (iv->has_start && iv->start_us < base)
			base = iv->start_us;
		if (iv->system != grp->intervals[0].system || iv->lpar != grp->intervals[0].lpar)
			one_system = false;
	}
	sp = malloc(grp->nintervals * sizeof(*sp));
	if (!sp) {
		/* Without memory for the time line: the sum of the lengths, exact for one system. */
		for (i = 0; i < grp->nintervals; i++)
			total += iv_len(&grp->intervals[i]);
		return total;
	}
	/* Intervals without a start begin together: the longest of them counts. */
	for (i = 0; i < grp->nintervals; i++) {
		const struct mf_interval *iv = &grp->intervals[i];
		double len = iv_len(iv);
		if (!iv->has_start) {
			if (len > untimed)
				untimed = len;
			continue;
		}
		sp[n].system = iv->system;
		sp[n].lpar = iv->lpar;
		sp[n].start = (double)(iv->start_us - base) / 1e6;
		sp[n].len = len;
		n++;
	}
	timed = sp;
	ntimed = n;
	if (ntimed > 1) {
		qsort(timed, ntimed, sizeof(*timed), cmp_span_system);
		ntimed = join_systems(timed, ntimed);
		if (one_system) {
			/* One system: adjacent runs never overlap; their lengths add up exactly. */
			for (i = 0; i < ntimed; i++)
				total += timed[i].len;
			free(sp);
			return total + untimed;
		}
		qsort(timed, ntimed, sizeof(*timed), cmp_span_start);
	}
	total = union_length(timed, ntimed);
	free(sp);
	return total + untimed;
}

bool mf_group_period(const struct mf_group *group, int64_t *start_us, int64_t *end_us)
{
	const struct group *grp = cpriv(group);
	bool any = false;
	size_t i;
	for (i = 0; i < grp->nintervals; i++) {
		const struct mf_interval *iv = &grp->intervals[i];
		int64_t end;
		if (!iv->has_start)
			continue;
		end = iv->start_us + (iv->nseconds ? llround(iv_len(iv) * 1e6) : 0);
		if (!any || iv->start_us < *start_us)
			*start_us = iv->start_us;
		if (!any || end > *end_us)
			*end_us = end;
		any = true;
	}
	return any;
}

bool mf_group_offset_at(const struct mf_group *group, int64_t utc_us, int32_t *off_s)
{
	const struct group *grp = cpriv(group);
	const struct mf_interval *starts = NULL, *ends = NULL, *holds = NULL, *before = NULL;
	size_t i;
	for (i = 0; i < grp->nintervals && !starts; i++) {
		const struct mf_interval *iv = &grp->intervals[i];
		int64_t end;
		if (!iv->has_start || !iv->has_offset)
			continue;
		end = iv->start_us + (iv->nseconds ? llround(iv_len(iv) * 1e6) : 0);
		if (iv->start_us == utc_us)
			starts = iv;
		else if (end == utc_us)
			ends = iv;
		else if (iv->start_us < utc_us && utc_us < end)
			holds = iv;
		else if (iv->start_us < utc_us && (!before || iv->start_us > before->start_us))
			before = iv;
	}
	if (!starts)
		starts = ends ? ends : holds ? holds : before;
	if (starts) {
		*off_s = starts->utc_offset_s;
		return true;
	}
	if (group->has_offset) {
		*off_s = group->utc_offset_s;
		return true;
	}
	return false;
}

bool mf_group_interval_range(const struct mf_group *group, double *lo, double *hi)
{
	const struct group *grp = cpriv(group);
	bool any = false;
	size_t i;
	for (i = 0; i < grp->nintervals; i++) {
		const struct mf_interval *iv = &grp->intervals[i];
		double len;
		if (!iv->nseconds)
			continue;
		len = iv_len(iv);
		if (!any || len < *lo)
			*lo = len;
		if (!any || len > *hi)
			*hi = len;
		any = true;
	}
	return any;
}

uint64_t mf_group_cpus(const struct mf_group *group)
{
	const struct group *grp = cpriv(group);
	uint64_t most = 0;
	struct mf_interval *byst;
	size_t i, j;
	bool one_system = true;
	if (grp->ncpus)
		return grp->ncpus;
	for (i = 0; i < grp->nintervals; i++) {
		if (grp->intervals[i].nrows > most)
			most = grp->intervals[i].nrows;
		if (grp->intervals[i].system != grp->intervals[0].system ||
		    grp->intervals[i].lpar != grp->intervals[0].lpar)
			one_system = false;
	}
	if (one_system)
		return most;
	/* Several systems: their rows of the same start count together. */
	byst = malloc(grp->nintervals * sizeof(*byst));
	if (!byst)
		return most;
	memcpy(byst, grp->intervals, grp->nintervals * sizeof(*byst));
	qsort(byst, grp->nintervals, sizeof(*byst), cmp_iv_start);
	most = 0;
	for (i = 0; i < grp->nintervals; i = j) {
		uint64_t rows = 0;
		for (j = i; j < grp->nintervals && byst[j].start_us == byst[i].start_us; j++)
			rows += byst[j].nrows;
		if (rows > most)
			most = rows;
	}
	free(byst);
	return most;
}

/* A timed interval of a group, for mf_group_find_overlap. */
struct timed {
	uint32_t system, lpar;
	int64_t start_us, end_us;
	double seconds;
};

static int cmp_timed(const void *pa, const void *pb)
{
	const struct timed *a = pa, *b = pb;
	if (a->system != b->system)
		return a->system < b->system ? -1 : 1;
	if (a->lpar != b->lpar)
		return a->lpar < b->lpar ? -1 : 1;
	if (a->start_us != b->start_us)
		return a->start_us < b->start_us ? -1 : 1;
	return (a->end_us > b->end_us) - (a->end_us < b->end_us);
}

bool mf_group_find_overlap(const struct mf_group *group, struct mf_group_overlap *out)
{
	const struct group *grp = cpriv(group);
	struct timed *t;
	size_t i, n = 0, reach = 0;
	bool found = false;

	if (grp->nintervals < 2)
		return false;
	t = malloc(grp->nintervals * sizeof(*t));
	if (!t)
		return false;
	for (i = 0; i < grp->nintervals; i++) {
		const struct mf_interval *iv = &grp->intervals[i];
		if (!iv->has_start || !iv->nseconds)
			continue;
		t[n].system = iv->system;
		t[n].lpar = iv->lpar;
		t[n].start_us = iv->start_us;
		t[n].seconds = iv_len(iv);
		t[n].end_us = iv->start_us + llround(t[n].seconds * 1e6);
		n++;
	}
	qsort(t, n, sizeof(*t), cmp_timed);
	/*
	 * Per system, in start order: an interval overlaps an earlier one by more than a second
	 * exactly when it does so with the one that reaches furthest (the earlier ones start no
	 * later, so the overlap is up to the smaller end).
	 */
	for (i = 1; i < n && !found; i++) {
		int64_t end;
		if (t[i].system != t[reach].system || t[i].lpar != t[reach].lpar) {
			reach = i;
			continue;
		}
		end = t[i].end_us < t[reach].end_us ? t[i].end_us : t[reach].end_us;
		if (end - t[i].start_us > 1000000) {
			out->system = t[i].system;
			out->lpar = t[i].lpar;
			out->a_start_us = t[reach].start_us;
			out->a_seconds = t[reach].seconds;
			out->b_start_us = t[i].start_us;
			out->b_seconds = t[i].seconds;
			found = true;
		} else if (t[i].end_us > t[reach].end_us) {
			reach = i;
		}
	}
	free(t);
	return found;
}

int mf_grouper_merge(struct mf_grouper *g, const struct mf_group *src)
{
	return mf_grouper_merge_ids(g, src, NULL, 0);
}

/* A name id of src's string table in g's (map[id]); ids beyond the map, and 0, stay. */
static uint32_t remap(const uint32_t *map, size_t nmap, uint32_t id)
{
	return map && id < nmap ? map[id] : id;
}

/*
 * Adds add (src's sums or LSPR sums, by src's layout) to to (grp's, by grp's), marking the
 * slots that overflow; a slot src does not keep adds 0, one grp does not keep is left out.
 */
static void add_sums(struct mf_group *grp, uint64_t *to, const struct mf_group *src, const uint64_t *add)
{
	size_t i, n = grp->family->ncounters;
	if (!grp->layout && !src->layout) {
		for (i = 0; i < n; i++)
			if (__builtin_add_overflow(to[i], add[i], &to[i]))
				grp->overflow[i >> 6] |= UINT64_C(1) << (i & 63);
		return;
	}
	for (i = 0; i < n; i++) {
		size_t kd = grp->layout ? grp->layout->index[i] : i, ks = src->layout ? src->layout->index[i] : i;
		if (kd != MF_SUM_NONE && ks != MF_SUM_NONE && __builtin_add_overflow(to[kd], add[ks], &to[kd]))
			grp->overflow[i >> 6] |= UINT64_C(1) << (i & 63);
	}
}

/* The key of group src under g's grouping, its names through map. */
static void merge_key(const struct mf_grouper *g, const struct mf_group *src, const uint32_t *map, size_t nmap,
		      struct mf_group *key)
{
	memset(key, 0, sizeof(*key));
	key->family = src->family;
	key->system = remap(map, nmap, src->system);
	key->lpar = remap(map, nmap, src->lpar);
	key->pool = src->pool;
	key->cpu = src->cpu;
	key->has_start = src->has_start;
	key->start_us = src->start_us;
	key->input = src->input;
	key->has_bucket = src->has_bucket && g->calendar;
	key->bucket = src->bucket;
	key->polarity = src->polarity;
	key->lpar_weight = src->lpar_weight;
	key->drawer = src->drawer;
	key->chip = src->chip;
	key_mask(g, key);
}

/* Adds group src (its names through map) to grp, a group of the same key: 0 or MF_ENOMEM. */
static int merge_into(struct mf_group *grp, const struct mf_group *src, const uint32_t *map, size_t nmap)
{
	const struct group *sp = cpriv(src);
	struct mf_sample probe;
	size_t n = nsums_of(grp), i;

	if (grp->rows == 0)
		grp->machine = src->machine;
	else if (grp->machine != src->machine) {
		grp->machine = NULL;
		grp->machine_mixed = true;
	}
	grp->machine_mixed |= src->machine_mixed;
	/* The LSPR sums: kept apart once counted and excluded engines mix (see mf_grouper_add). */
	{
		bool src_pure_lspr = src->rows_lspr == src->rows, src_pure_excl = src->rows_lspr == 0;
		bool dst_pure_lspr = grp->rows_lspr == grp->rows, dst_pure_excl = grp->rows_lspr == 0;
		bool mixed = grp->rows > 0 && !((src_pure_lspr && dst_pure_lspr) || (src_pure_excl && dst_pure_excl));
		if ((mixed || src->sum_lspr) && !grp->sum_lspr) {
			grp->sum_lspr = calloc(n ? n : 1, sizeof(*grp->sum_lspr));
			if (!grp->sum_lspr)
				return MF_ENOMEM;
			if (grp->rows && dst_pure_lspr)
				memcpy(grp->sum_lspr, grp->sum, n * sizeof(*grp->sum));
		}
		if (grp->sum_lspr) {
			const uint64_t *add = src->sum_lspr ? src->sum_lspr : src_pure_lspr ? src->sum : NULL;
			if (add)
				add_sums(grp, grp->sum_lspr, src, add);
		}
	}
	add_sums(grp, grp->sum, src, src->sum);
	if (grp->layout) {
		/* The bound of the sums not kept (add_kept): src's, and what src kept that grp does not. */
		uint64_t more = src->layout ? src->sum[src->layout->nsums] : 0, most = 0;
		for (i = 0; i < grp->family->ncounters; i++)
			if (grp->layout->index[i] == MF_SUM_NONE && mf_group_sum(src, i) > most)
				most = mf_group_sum(src, i);
		if (__builtin_add_overflow(more, most, &more) ||
		    __builtin_add_overflow(*unkept_bound(grp), more, unkept_bound(grp))) {
			*unkept_bound(grp) = UINT64_MAX;
			for (i = 0; i < grp->family->ncounters; i++)
				if (grp->layout->index[i] == MF_SUM_NONE && (src->present_any[i >> 6] >> (i & 63) & 1))
					grp->overflow[i >> 6] |= UINT64_C(1) << (i & 63);
		}
	}
	for (i = 0; i < grp->nwords; i++) {
		grp->present_all[i] &= src->present_all[i];
		grp->present_any[i] |= src->present_any[i];
		grp->overflow[i] |= src->overflow[i];
	}
	grp->rows += src->rows;
	grp->rows_lspr += src->rows_lspr;
	if (src->ncpsp) {
		if (src->cpsp_min < grp->cpsp_min)
			grp->cpsp_min = src->cpsp_min;
		if (src->cpsp_max > grp->cpsp_max)
			grp->cpsp_max = src->cpsp_max;
	}
	grp->ncpsp += src->ncpsp;
	grp->nnominal += src->nnominal;
	grp->user_only |= src->user_only;
	grp->cpu_unknown |= src->cpu_unknown;
	add_ns(&grp->rmf_busy_ns, src->rmf_busy_ns);
	grp->rmf_rows += src->rmf_rows;
	if (src->has_offset && !grp->has_offset) {
		grp->has_offset = true;
		grp->utc_offset_s = src->utc_offset_s;
	}
	/* Intervals: the same start adds up (mean length), a new one is appended. */
	mf_sample_reset(&probe);
	for (i = 0; i < sp->nintervals; i++) {
		const struct mf_interval *si = &sp->intervals[i];
		struct mf_interval *iv;
		probe.system = remap(map, nmap, si->system);
		probe.lpar = remap(map, nmap, si->lpar);
		probe.has_start = si->has_start;
		probe.start_us = si->start_us;
		iv = find_interval(priv(grp), &probe);
		if (!iv)
			return MF_ENOMEM;
		if (si->has_offset && !iv->has_offset) {
			iv->has_offset = true;
			iv->utc_offset_s = si->utc_offset_s;
		}
		iv->nrows += si->nrows;
		add_ns(&iv->sum_ns, si->sum_ns);
		iv->nseconds += si->nseconds;
	}
	for (i = 0; i < sp->ncpus; i++) {
		struct mf_cpu_id id = cpu_at(sp, i);
		probe.system = remap(map, nmap, id.system);
		probe.lpar = remap(map, nmap, id.lpar);
		probe.cpu = id.cpu;
		if (add_cpu(priv(grp), &probe))
			return MF_ENOMEM;
	}
	return 0;
}

int mf_grouper_merge_ids(struct mf_grouper *g, const struct mf_group *src, const uint32_t *map, size_t nmap)
{
	struct mf_group key, *grp;
	merge_key(g, src, map, nmap, &key);
	grp = find_or_add(g, &key);
	if (!grp)
		return g->limit_hit ? MF_ELIMIT : MF_ENOMEM;
	return merge_into(grp, src, map, nmap);
}

/* A group's names (its own, its intervals' and CPUs') through map, key as given; 0 or MF_ENOMEM. */
static int rename_group(struct group *grp, const struct mf_group *key, const uint32_t *map, size_t nmap)
{
	size_t i;
	bool sorted = true;
	grp->pub.system = key->system;
	grp->pub.lpar = key->lpar;
	for (i = 0; i < grp->nintervals; i++) {
		grp->intervals[i].system = remap(map, nmap, grp->intervals[i].system);
		grp->intervals[i].lpar = remap(map, nmap, grp->intervals[i].lpar);
	}
	grp->csys = remap(map, nmap, grp->csys); /* numbers of one system and LPAR stay in order */
	grp->clpar = remap(map, nmap, grp->clpar);
	for (i = 0; grp->cpus && i < grp->ncpus; i++) {
		grp->cpus[i].system = remap(map, nmap, grp->cpus[i].system);
		grp->cpus[i].lpar = remap(map, nmap, grp->cpus[i].lpar);
		if (i && cmp_cpu(&grp->cpus[i - 1], &grp->cpus[i]) > 0)
			sorted = false;
	}
	if (!sorted && grp->cpus) /* the new ids order the systems otherwise */
		qsort(grp->cpus, grp->ncpus, sizeof(*grp->cpus), cmp_cpu_q);
	return grp->more && grp->more->ihash ? ihash_build(grp, grp->more->ihash_size) : 0;
}

/* g holds an arena too (once): 0 or MF_ENOMEM. */
static int hold(struct mf_grouper *g, struct arena *a)
{
	struct arena **h;
	size_t i;
	if (a == g->arena)
		return 0;
	for (i = 0; i < g->nheld; i++)
		if (g->held[i] == a)
			return 0;
	if (!(h = realloc(g->held, (g->nheld + 1) * sizeof(*h))))
		return MF_ENOMEM;
	g->held = h;
	g->held[g->nheld++] = a;
	a->refs++;
	return 0;
}

/* g holds the arenas of src's groups, so that they may move: 0 or MF_ENOMEM. */
static int hold_arenas(struct mf_grouper *g, const struct mf_grouper *src)
{
	size_t i;
	if (hold(g, src->arena))
		return MF_ENOMEM;
	for (i = 0; i < src->nheld; i++)
		if (hold(g, src->held[i]))
			return MF_ENOMEM;
	return 0;
}

int mf_grouper_take_ids(struct mf_grouper *g, struct mf_grouper *src, const uint32_t *map, size_t nmap)
{
	size_t i, kept = 0;
	int rc = 0;

	if (src->by != g->by || src->calendar != g->calendar || src->cal != g->cal || src->tz != g->tz) {
		for (i = 0; i < src->n && !rc; i++)
			rc = mf_grouper_merge_ids(g, src->list[i], map, nmap);
		return rc;
	}
	if (g->n == 0 && (!g->max_groups || src->n <= g->max_groups)) {
		/* Into an empty grouper under the same names: src's tables become g's as they are. */
		bool same = true;
		for (i = 1; i < nmap && same; i++)
			same = map[i] == i;
		if (same) {
			struct mf_grouper t = *g;
			size_t max = g->max_groups;
			*g = *src;
			g->max_groups = max;
			g->limit_hit = false;
			g->last = NULL;
			*src = t; /* g's empty tables, freed with src */
			src->last = NULL;
			return 0;
		}
	}
	if (hold_arenas(g, src))
		return MF_ENOMEM;
	{
		/* Room for every group of src at once: the table grows once, not by doubling. */
		size_t want = g->nslots ? g->nslots : 256;
		while (want < 2 * (g->n + src->n) + 2)
			want *= 2;
		if (want != g->nslots && rehash(g, want))
			return MF_ENOMEM;
	}
	for (i = 0; i < src->n; i++) {
		struct mf_group *sg = src->list[i], key;
		size_t j = 0;
		if (rc) {
			src->list[kept++] = sg;
			continue;
		}
		merge_key(g, sg, map, nmap, &key);
		uint64_t h = key_hash(&key);
		if (lookup(g, &key, h, &j) || (g->max_groups && g->n >= g->max_groups) || list_room(g)) {
			/* g has it (or no room): added up, and left to src */
			rc = mf_grouper_merge_ids(g, sg, map, nmap);
			src->list[kept++] = sg;
			continue;
		}
		rc = rename_group(priv(sg), &key, map, nmap);
		priv(sg)->hash = h;
		if (enlist(g, sg, j) && !rc)
			rc = MF_ENOMEM;
	}
	src->n = kept;
	free(src->slots);
	src->slots = NULL;
	src->nslots = 0;
	src->last = NULL;
	g->last = NULL;
	return rc;
}

/*
 * mf_grouper_take_sorted's renaming: the groups of the parts whose names change (not same[i]),
 * taken one after the other, under g's names, share i of ns renaming its ns-th of them.
 */
struct rename_work {
	const struct mf_grouper *g;
	struct mf_grouper *const *src;
	const uint32_t *const *maps;
	const size_t *nmaps;
	const bool *same;
	size_t n, total, ns;
	int *rc;
};

static void rename_share(void *ctx, size_t s)
{
	const struct rename_work *w = ctx;
	size_t from = w->total * s / w->ns, to = w->total * (s + 1) / w->ns, at = 0, i, k;
	for (i = 0; i < w->n && at < to; i++) {
		size_t n = w->same[i] ? 0 : w->src[i]->n;
		for (k = from > at ? from - at : 0; k < n && at + k < to; k++) {
			struct mf_group *sg = w->src[i]->list[k], key;
			merge_key(w->g, sg, w->maps[i], w->nmaps[i], &key);
			if (rename_group(priv(sg), &key, w->maps[i], w->nmaps[i]))
				w->rc[s] = MF_ENOMEM;
			priv(sg)->hash = key_hash(&key);
		}
		at += n;
	}
}

/*
 * mf_grouper_take_sorted's merge, cut into ns slices by key: slice s merges the groups of each
 * part p from cut[p * (ns + 1) + s] to cut[p * (ns + 1) + s + 1] (the groups of a key all in one
 * slice) into out from the sum of its parts' first cuts, and leaves those it adds to another in
 * its part's list from its cut on, kept[p * ns + s] of them.
 */
struct merge_work {
	const struct mf_strtab *tab;
	struct mf_grouper *const *src;
	size_t n, ns;
	const size_t *cut;
	struct mf_group **out;
	size_t *nout; /* by slice */
	size_t *kept;
	int *rc; /* by slice */
};

/* A slice's heap: parts by their next group, then by their order. */
struct run_heap {
	const struct mf_strtab *tab;
	struct mf_grouper *const *src;
	size_t *at, *end; /* by part: its next group, and the slice's end */
	size_t *idx;      /* the heap of parts with groups left */
	size_t n;
};

static bool run_before(const struct run_heap *h, size_t a, size_t b)
{
	int c = cmp_group_named(h->tab, h->src[a]->list[h->at[a]], h->src[b]->list[h->at[b]]);
	return c < 0 || (c == 0 && a < b);
}

static void run_down(struct run_heap *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i, t;
		if (l < h->n && run_before(h, h->idx[l], h->idx[m]))
			m = l;
		if (l + 1 < h->n && run_before(h, h->idx[l + 1], h->idx[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h->idx[i];
		h->idx[i] = h->idx[m];
		h->idx[m] = t;
		i = m;
	}
}

static void merge_share(void *ctx, size_t s)
{
	struct merge_work *w = ctx;
	struct run_heap h = {w->tab, w->src, NULL, NULL, NULL, 0};
	struct mf_group **out = w->out;
	size_t *mem = malloc(3 * w->n * sizeof(*mem)), p, i, nout = 0;
	int rc = 0;
	for (p = 0; p < w->n; p++)
		out += w->cut[p * (w->ns + 1) + s];
	if (!mem) {
		/* Without room for the heap: the slice's groups as they are, unsorted, and the error. */
		for (p = 0; p < w->n; p++)
			for (i = w->cut[p * (w->ns + 1) + s]; i < w->cut[p * (w->ns + 1) + s + 1]; i++)
				out[nout++] = w->src[p]->list[i];
		w->nout[s] = nout;
		w->rc[s] = MF_ENOMEM;
		return;
	}
	h.at = mem;
	h.end = mem + w->n;
	h.idx = mem + 2 * w->n;
	for (p = 0; p < w->n; p++) {
		h.at[p] = w->cut[p * (w->ns + 1) + s];
		h.end[p] = w->cut[p * (w->ns + 1) + s + 1];
		w->kept[p * w->ns + s] = 0;
		if (h.at[p] < h.end[p])
			h.idx[h.n++] = p;
	}
	for (i = h.n; i-- > 0;)
		run_down(&h, i);
	while (h.n) {
		struct mf_grouper *sp;
		struct mf_group *grp;
		p = h.idx[0];
		sp = w->src[p];
		grp = sp->list[h.at[p]++];
		if (h.at[p] + 8 < h.end[p])
			__builtin_prefetch(sp->list[h.at[p] + 8]);
		if (h.at[p] == h.end[p])
			h.idx[0] = h.idx[--h.n];
		run_down(&h, 0);
		/* A group of an earlier part with the same key comes just before: added up, in the parts' order. */
		if (nout && !rc && cmp_group_named(w->tab, out[nout - 1], grp) == 0) {
			rc = merge_into(out[nout - 1], grp, NULL, 0);
			/* freed with src, as mf_grouper_take_ids leaves it */
			sp->list[w->cut[p * (w->ns + 1) + s] + w->kept[p * w->ns + s]++] = grp;
			continue;
		}
		out[nout++] = grp;
	}
	free(mem);
	w->nout[s] = nout;
	w->rc[s] = rc;
}

/* The first group of src's sorted list[from, to) not before key. */
static size_t run_lower(const struct mf_strtab *tab, const struct mf_grouper *src, size_t from, size_t to,
			const struct mf_group *key)
{
	while (from < to) {
		size_t mid = from + (to - from) / 2;
		if (cmp_group_named(tab, src->list[mid], key) < 0)
			from = mid + 1;
		else
			to = mid;
	}
	return from;
}

int mf_grouper_take_sorted(struct mf_grouper *g, struct mf_grouper *const *src, const uint32_t *const *maps,
			   const size_t *nmaps, size_t n, const struct mf_strtab *tab)
{
	struct rename_work w = {g, src, maps, nmaps, NULL, n, 0, n < 64 ? n : 64, NULL};
	struct merge_work m = {tab, src, n, n < 64 ? n : 64, NULL, NULL, NULL, NULL, NULL};
	bool *same = NULL;
	struct mf_group **out = NULL;
	size_t *cut = NULL, i, p, s, total = 0, nout = 0, largest = 0;
	int rc = 0;

	if (g->n || n == 0)
		return 1;
	for (i = 0; i < n; i++) {
		if ((!src[i]->sorted && src[i]->n > 1) || src[i]->by != g->by || src[i]->calendar != g->calendar ||
		    src[i]->cal != g->cal || src[i]->tz != g->tz)
			return 1;
		total += src[i]->n;
		if (src[i]->n > src[largest]->n)
			largest = i;
	}
	if (g->max_groups && total > g->max_groups)
		return 1; /* groups the parts share may bring it below: find_or_add says */
	if (total < 65536)
		m.ns = 1;
	m.out = out = malloc((total ? total : 1) * sizeof(*out));
	huge_hint(out, (total ? total : 1) * sizeof(*out));
	m.cut = cut = malloc(n * (m.ns + 1) * sizeof(*cut));
	m.kept = calloc(n * m.ns, sizeof(*m.kept));
	m.nout = calloc(m.ns, sizeof(*m.nout));
	m.rc = calloc(m.ns, sizeof(*m.rc));
	w.rc = calloc(n, sizeof(*w.rc));
	w.same = same = calloc(n, sizeof(*same));
	if (!out || !cut || !m.kept || !m.nout || !m.rc || !w.rc || !same) {
		rc = MF_ENOMEM;
		goto out;
	}
	for (i = 0; i < n && !rc; i++)
		rc = hold_arenas(g, src[i]);
	if (rc)
		goto out;
	/*
	 * The parts' names become g's, with the threads of the parts (the names of the first part
	 * read into an empty table keep their ids), then their sorted runs merge into one, cut into
	 * slices at keys of the largest run, a thread a slice.
	 */
	for (i = 0; i < n; i++) {
		size_t k;
		same[i] = true;
		for (k = 1; k < nmaps[i] && same[i]; k++)
			same[i] = maps[i][k] == k;
		if (!same[i])
			w.total += src[i]->n;
	}
	mf_run_shares(w.total ? w.ns : 0, rename_share, &w);
	for (i = 0; i < n; i++)
		if (w.rc[i])
			rc = MF_ENOMEM;
	if (rc)
		goto out;
	for (p = 0; p < n; p++) {
		cut[p * (m.ns + 1)] = 0;
		cut[p * (m.ns + 1) + m.ns] = src[p]->n;
		for (s = 1; s < m.ns; s++) {
			const struct mf_group *key = src[largest]->list[src[largest]->n * s / m.ns];
			cut[p * (m.ns + 1) + s] = run_lower(tab, src[p], cut[p * (m.ns + 1) + s - 1], src[p]->n, key);
		}
	}
	mf_run_shares(m.ns, merge_share, &m);
	/* The slices one after the other, and each part's groups added to another's. */
	for (s = 0; s < m.ns; s++) {
		size_t from = 0;
		for (p = 0; p < n; p++)
			from += cut[p * (m.ns + 1) + s];
		memmove(out + nout, out + from, m.nout[s] * sizeof(*out));
		nout += m.nout[s];
		if (m.rc[s])
			rc = m.rc[s];
	}
	for (p = 0; p < n; p++) {
		size_t k = 0;
		for (s = 0; s < m.ns; s++) {
			memmove(src[p]->list + k, src[p]->list + cut[p * (m.ns + 1) + s],
				m.kept[p * m.ns + s] * sizeof(*src[p]->list));
			k += m.kept[p * m.ns + s];
		}
		src[p]->n = k;
		free(src[p]->slots);
		src[p]->slots = NULL;
		src[p]->nslots = 0;
		src[p]->last = NULL;
	}
	free(g->list);
	free(g->slots);
	g->list = out;
	g->n = nout;
	g->cap = total ? total : 1;
	g->slots = NULL; /* made when a group is looked up (find_or_add): after the report, never */
	g->nslots = 0;
	g->sorted = !rc;
	g->last = NULL;
	g->runs_taken += nout;
	out = NULL;
out:
	free(out);
	free(cut);
	free(m.kept);
	free(m.nout);
	free(m.rc);
	free(w.rc);
	free(same);
	return rc;
}

size_t mf_grouper_runs_taken(const struct mf_grouper *g)
{
	return g->runs_taken;
}

void mf_grouper_memory(const struct mf_grouper *g, struct mf_grouper_mem *m)
{
	const struct chunk *c;
	size_t i;
	memset(m, 0, sizeof(*m));
	m->groups = g->n;
	for (i = 0; i <= g->nheld; i++) {
		const struct arena *a = i ? g->held[i - 1] : g->arena;
		for (c = a->chunks; c; c = c->next)
			m->chunks++;
		m->arena_bytes += a->bytes;
		m->block_bytes += a->carved;
	}
	m->table_bytes = g->nslots * sizeof(*g->slots) + g->cap * sizeof(*g->list);
	for (i = 0; i < g->n; i++) {
		const struct group *p = cpriv(g->list[i]);
		if (p->pub.sum_lspr) {
			m->side_allocs++;
			m->side_bytes += (nsums_of(&p->pub) ? nsums_of(&p->pub) : 1) * sizeof(uint64_t);
		}
		if (p->more) {
			m->side_allocs += 2;
			m->side_bytes += sizeof(*p->more) + p->more->cap * sizeof(*p->intervals);
			if (p->more->ihash) {
				m->side_allocs++;
				m->side_bytes += p->more->ihash_size * sizeof(*p->more->ihash);
			}
		}
		if (p->cpus) {
			m->side_allocs++;
			m->side_bytes += p->capcpus * sizeof(*p->cpus);
		}
		if (p->cpu32) {
			m->side_allocs++;
			m->side_bytes += p->capcpus * sizeof(*p->cpu32);
		}
	}
}
