/* SPDX-License-Identifier: MIT */
/* Duplicate samples: identities, a hash of the counters and the first place (dedup.h). */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE, mremap */
#include "mfstat/report/dedup.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mfstat/kb/kb.h"

/* A sample's identity. */
struct ident {
	uint32_t system, lpar;
	int64_t cpu;
	int64_t start_s; /* interval start, seconds */
	int64_t len_s;   /* length, seconds; -1 unknown */
	int32_t pool;
};

/*
 * An identity held, 32 bytes: the identity packed into a and b when its fields fit (start
 * from 1970 on, to 34 bits; length to 24 bits; pool to 4; system and LPAR ids to 24 bits each;
 * CPU to 16), and where the first copy was read packed into pos (a line or byte offset to 46
 * bits, the file's index to 16).  What does not fit is a wide entry, kept apart in full: then a
 * is WIDE | its index, and pos is POS_WIDE.  The entries are kept in the order added, packed
 * (d->ents); the hash table (d->slots) holds 8 bytes per slot: the high half of the identity's
 * hash and the entry's index + 1 (0: an empty slot), so that at most half full it costs 16
 * bytes per identity, not 64.
 */
struct entry {
	uint64_t a, b;
	uint64_t counters; /* hash of family, counter slots and values */
	uint64_t pos;
};

#define WIDE (UINT64_C(1) << 63)
#define POS_WIDE UINT64_MAX

struct wide {
	struct ident id;
	long long where; /* line (>= 0) or, as -2 - offset, a byte offset; -1 unknown */
	uint32_t file;   /* index into files, + 1 */
};

/* The time one CPU's intervals cover: [s, e) in seconds. */
struct run {
	int64_t s, e;
};

/*
 * One CPU (system, LPAR, CPU number) of the overlap check: its runs, sorted and apart, then
 * (past SORTED_MAX runs) the intervals that came out of time order, not yet merged.
 */
struct track {
	uint32_t system, lpar;
	int64_t cpu;
	struct run *runs; /* runs[0, nruns) sorted, runs[nruns, nruns + npend) pending; NULL while one run */
	struct run one;
	uint32_t nruns, cap;
	uint32_t npend;
	bool used;
	bool overlap;  /* two of its intervals overlap */
	uint32_t walk; /* ordered: its walk in d->walks, index + 1; 0 none yet */
};

/*
 * A CPU's walk of find_pair made as its intervals come, for a table that lets identities go
 * (mf_dedup_set_ordered): the intervals in start order, those of one start by their end, the
 * one reaching furthest, and the first pair found.  The intervals of the latest start wait in
 * same (they are walked by their end once a later start comes, or at the end).
 */
struct walk {
	struct run reach, a, b;
	bool has_reach, pair;
	struct run *same;
	uint32_t nsame, capsame;
};

struct mf_dedup {
	struct entry *ents; /* the identities, in the order added */
	size_t n, capents;
	uint64_t *slots; /* open addressing: hash >> 32 << 32 | index in ents + 1; 0 empty */
	size_t nslots;
	int64_t min_start, max_start; /* of the identities held (start_s), when n > 0 */
	struct wide *wide;
	size_t nwide, capwide;
	char **files;
	size_t nfiles, capfiles;
	uint64_t duplicates, conflicts;
	struct track *tracks; /* open addressing by CPU */
	size_t ntracks, ntslots;
	uint64_t steps; /* of the overlap check */
	bool ordered;   /* mf_dedup_set_ordered: identities of earlier starts are let go */
	struct walk *walks;
	size_t nwalks, capwalks;
	size_t most; /* the most identities held at once */
};

static void big_free(void *p, size_t bytes);

struct mf_dedup *mf_dedup_new(void)
{
	return calloc(1, sizeof(struct mf_dedup));
}

void mf_dedup_free(struct mf_dedup *d)
{
	size_t i;
	if (!d)
		return;
	for (i = 0; i < d->nfiles; i++)
		free(d->files[i]);
	free(d->files);
	free(d->wide);
	big_free(d->slots, d->nslots * sizeof(*d->slots));
	big_free(d->ents, d->capents * sizeof(*d->ents));
	for (i = 0; i < d->ntslots; i++)
		free(d->tracks[i].runs);
	free(d->tracks);
	for (i = 0; i < d->nwalks; i++)
		free(d->walks[i].same);
	free(d->walks);
	free(d);
}

uint64_t mf_dedup_duplicates(const struct mf_dedup *d)
{
	return d->duplicates;
}

uint64_t mf_dedup_conflicts(const struct mf_dedup *d)
{
	return d->conflicts;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static uint64_t key_hash(const struct ident *e)
{
	uint64_t h = mix64(e->system ^ ((uint64_t)e->lpar << 32));
	h = mix64(h ^ (uint64_t)e->cpu);
	h = mix64(h ^ (uint64_t)e->start_s);
	h = mix64(h ^ (uint64_t)e->len_s ^ ((uint64_t)(uint32_t)e->pool << 48));
	return h;
}

static bool ident_eq(const struct ident *a, const struct ident *b)
{
	return a->system == b->system && a->lpar == b->lpar && a->cpu == b->cpu && a->start_s == b->start_s &&
	       a->len_s == b->len_s && a->pool == b->pool;
}

/* The identity packed into *a, *b; false when a field does not fit. */
static bool pack_ident(const struct ident *id, uint64_t *a, uint64_t *b)
{
	if (id->start_s < 0 || id->start_s >= (INT64_C(1) << 34) || id->len_s < -1 ||
	    id->len_s + 1 >= (INT64_C(1) << 24) || id->pool < 0 || id->pool >= 16 || id->system >= (1u << 24) ||
	    id->lpar >= (1u << 24) || id->cpu < -1 || id->cpu + 1 >= (INT64_C(1) << 16))
		return false;
	*a = (uint64_t)id->start_s | (uint64_t)(id->len_s + 1) << 34 | (uint64_t)id->pool << 58;
	*b = (uint64_t)id->system | (uint64_t)id->lpar << 24 | (uint64_t)(id->cpu + 1) << 48;
	return true;
}

static void ident_of(const struct mf_dedup *d, const struct entry *e, struct ident *id)
{
	if (e->a & WIDE) {
		*id = d->wide[e->a & ~WIDE].id;
		return;
	}
	id->start_s = (int64_t)(e->a & ((UINT64_C(1) << 34) - 1));
	id->len_s = (int64_t)((e->a >> 34) & ((UINT64_C(1) << 24) - 1)) - 1;
	id->pool = (int32_t)((e->a >> 58) & 15);
	id->system = (uint32_t)(e->b & ((1u << 24) - 1));
	id->lpar = (uint32_t)((e->b >> 24) & ((1u << 24) - 1));
	id->cpu = (int64_t)(e->b >> 48) - 1;
}

/* Where the entry's first copy was read: *where (as in struct wide) and the file's index + 1. */
static void pos_of(const struct mf_dedup *d, const struct entry *e, long long *where, uint32_t *file)
{
	uint64_t kind = e->pos >> 62, v = (e->pos >> 16) & ((UINT64_C(1) << 46) - 1);
	if (e->pos == POS_WIDE) {
		*where = d->wide[e->a & ~WIDE].where;
		*file = d->wide[e->a & ~WIDE].file;
		return;
	}
	*file = (uint32_t)(e->pos & 0xffff);
	*where = kind == 1 ? (long long)v : kind == 2 ? -2 - (long long)v : -1;
}

/* Whether slot e holds identity k (kp: k packed into ka, kb). */
static bool holds_ident(const struct mf_dedup *d, const struct entry *e, const struct ident *k, bool kp, uint64_t ka,
			uint64_t kb)
{
	struct ident id;
	if (kp && !(e->a & WIDE))
		return e->a == ka && e->b == kb;
	if (!(e->a & WIDE))
		return false; /* packed, and k does not pack */
	ident_of(d, e, &id);
	return ident_eq(&id, k);
}

/* Slot contents for identity id first read at where in file (index + 1): 0 or MF_ENOMEM. */
static int make_entry(struct mf_dedup *d, const struct ident *id, uint64_t counters, long long where, uint32_t file,
		      struct entry *e)
{
	uint64_t v = where >= 0 ? (uint64_t)where : where <= -2 ? (uint64_t)(-2 - where) : 0;
	uint64_t kind = where >= 0 ? 1 : where <= -2 ? 2 : 3;
	e->counters = counters;
	if (pack_ident(id, &e->a, &e->b) && v < (UINT64_C(1) << 46) && file <= 0xffff) {
		e->pos = kind << 62 | v << 16 | file;
		return 0;
	}
	if (d->nwide == d->capwide) {
		size_t cap = d->capwide ? 2 * d->capwide : 16;
		struct wide *n = realloc(d->wide, cap * sizeof(*n));
		if (!n)
			return MF_ENOMEM;
		d->wide = n;
		d->capwide = cap;
	}
	d->wide[d->nwide].id = *id;
	d->wide[d->nwide].where = where;
	d->wide[d->nwide].file = file;
	e->a = WIDE | d->nwide++;
	e->b = 0;
	e->pos = POS_WIDE;
	return 0;
}

/*
 * Independent of the order of the counters: a sum of one hash per (slot, value), each a
 * multiply and a shift (a hundred counters a row: the full mix per counter was a seventh of
 * reading a CSV), the sum mixed once.
 */
static uint64_t counters_hash(const struct mf_sample *s)
{
	uint64_t h = 0;
	size_t i;
	for (i = 0; i < s->n; i++) {
		uint64_t x = (s->value[i] ^ ((uint64_t)s->slot[i] << 50)) * 0x9e3779b97f4a7c15ULL;
		h += (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ULL + s->slot[i];
	}
	return mix64(h ^ mix64((uint64_t)(uintptr_t)s->family + s->n));
}

/*
 * The table's memory, zeroed and present at once: a large table is mapped with its pages
 * populated, so no probe faults a page in later.  Pages faulted in one by one (calloc's, or
 * malloc's written while other threads run, -j) can be copy-on-write faults, each flushing every
 * CPU's TLB: a fifth of the time of reading a CSV file in two parts.
 */
#define SLOTS_MAPPED ((size_t)1 << 20)

static void *big_alloc(size_t bytes)
{
	void *p;
	if (bytes < SLOTS_MAPPED)
		return calloc(1, bytes ? bytes : 1);
		/* Huge pages first where they may be had: populated a fault each 2 MiB, not each 4 KiB. */
#if defined(MADV_HUGEPAGE) && defined(MADV_POPULATE_WRITE)
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	(void)madvise(p, bytes, MADV_HUGEPAGE);
	if (madvise(p, bytes, MADV_POPULATE_WRITE) == 0)
		return p;
	munmap(p, bytes);
#endif
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void big_free(void *p, size_t bytes)
{
	if (!p)
		return;
	if (bytes < SLOTS_MAPPED)
		free(p);
	else
		munmap(p, bytes);
}

/* The slot word of entry index i whose identity hashes to h. */
static uint64_t slot_word(uint64_t h, size_t i)
{
	return (h >> 32 << 32) | (uint64_t)(i + 1);
}

static struct entry *slot_entry(const struct mf_dedup *d, uint64_t w)
{
	return &d->ents[(uint32_t)w - 1];
}

/* The hash table made anew with nslots slots from the entries: 0 or MF_ENOMEM. */
static int grow_to(struct mf_dedup *d, size_t nslots)
{
	size_t i;
	uint64_t *s = big_alloc(nslots * sizeof(*s));
	if (!s)
		return MF_ENOMEM;
	for (i = 0; i < d->n; i++) {
		struct ident id;
		uint64_t h;
		size_t j;
		ident_of(d, &d->ents[i], &id);
		h = key_hash(&id);
		for (j = h & (nslots - 1); s[j]; j = (j + 1) & (nslots - 1))
			;
		s[j] = slot_word(h, i);
	}
	big_free(d->slots, d->nslots * sizeof(*d->slots));
	d->slots = s;
	d->nslots = nslots;
	return 0;
}

/*
 * Room for want entries in all: a reserve (exact) takes a quarter more, for an estimate a little
 * short, else the room doubles.  Large arrays are mapped without populating them: the entries
 * are written before they are read, so a page costs only once used (a reserve beyond the rows
 * costs nothing), and they grow by mremap, without a copy.  0 or MF_ENOMEM (the index + 1 of an
 * entry fits 32 bits).
 */
static int ents_room(struct mf_dedup *d, size_t want, bool exact)
{
	size_t cap = d->capents ? d->capents : 1024, bytes, old = d->capents * sizeof(*d->ents);
	void *e;
	if (want <= d->capents)
		return 0;
	if (want >= UINT32_MAX)
		return MF_ENOMEM;
	while (cap < want)
		cap *= 2;
	if (exact)
		cap = want + want / 4;
	if (cap >= UINT32_MAX)
		cap = UINT32_MAX - 1;
	bytes = cap * sizeof(*d->ents);
	if (bytes < SLOTS_MAPPED) {
		e = realloc(d->ents, bytes);
	} else if (d->ents && old >= SLOTS_MAPPED) {
		e = mremap(d->ents, old, bytes, MREMAP_MAYMOVE);
		e = e == MAP_FAILED ? NULL : e;
	} else {
		e = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		e = e == MAP_FAILED ? NULL : e;
#if defined(MADV_HUGEPAGE)
		if (e)
			(void)madvise(e, bytes, MADV_HUGEPAGE); /* filled in order: a fault each 2 MiB */
#endif
		if (e && d->n)
			memcpy(e, d->ents, d->n * sizeof(*d->ents));
		if (e)
			free(d->ents);
	}
	if (!e)
		return MF_ENOMEM;
	d->ents = e;
	d->capents = cap;
	return 0;
}

/* Room for one more identity: the table at most half full, an entry free.  0 or MF_ENOMEM. */
static int room_for_one(struct mf_dedup *d)
{
	if ((d->n + 1) * 2 > d->nslots && grow_to(d, d->nslots ? d->nslots * 2 : 1024))
		return MF_ENOMEM;
	return ents_room(d, d->n + 1, false);
}

int mf_dedup_reserve(struct mf_dedup *d, size_t n)
{
	size_t nslots = d->nslots ? d->nslots : 1024;
	while (nslots < 2 * (d->n + n))
		nslots *= 2;
	if (nslots > d->nslots && grow_to(d, nslots))
		return MF_ENOMEM;
	return ents_room(d, d->n + n, true);
}

/* The index + 1 of file in d->files, adding it; 0 on ENOMEM. */
static uint32_t file_id(struct mf_dedup *d, const char *file)
{
	if (!file)
		file = "-";
	if (d->nfiles && strcmp(d->files[d->nfiles - 1], file) == 0)
		return (uint32_t)d->nfiles;
	if (d->nfiles == d->capfiles) {
		size_t cap = d->capfiles ? d->capfiles * 2 : 8;
		char **n = realloc(d->files, cap * sizeof(*n));
		if (!n)
			return 0;
		d->files = n;
		d->capfiles = cap;
	}
	d->files[d->nfiles] = strdup(file);
	if (!d->files[d->nfiles])
		return 0;
	return (uint32_t)++d->nfiles;
}

/* Keeps the range of the starts held, so that tables of other times are known apart at once. */
static void note_start(struct mf_dedup *d, int64_t start)
{
	if (!d->n || start < d->min_start)
		d->min_start = start;
	if (!d->n || start > d->max_start)
		d->max_start = start;
}

/* Whether d may hold an identity that starts at start (within its range). */
static bool in_range(const struct mf_dedup *d, int64_t start)
{
	return d->n && start >= d->min_start && start <= d->max_start;
}

/* Whether the time ranges of a and b meet. */
static bool overlaps(const struct mf_dedup *a, const struct mf_dedup *b)
{
	return a->n && b->n && a->min_start <= b->max_start && b->min_start <= a->max_start;
}

static void place(char *buf, size_t n, long long where)
{
	if (where >= 0)
		snprintf(buf, n, "line %lld", where);
	else if (where <= -2)
		snprintf(buf, n, "offset 0x%llx", (unsigned long long)(-2 - where));
	else
		snprintf(buf, n, "an unknown place");
}

/* The identity of a sample (one with a system and a start). */
static void sample_ident(const struct mf_sample *s, struct ident *k)
{
	k->system = s->system;
	/* An LPAR joined from SMF type 70 is not the sample's own: the CSV made from the record has none. */
	k->lpar = s->lpar_joined ? 0 : s->lpar;
	k->cpu = s->cpu;
	k->pool = s->pool;
	/* To the second: an SMF record's start is its label rounded so; a CSV row made from it has either. */
	k->start_s = (s->start_us >= 0 ? s->start_us + 500000 : s->start_us - 499999) / 1000000;
	k->len_s = isnan(s->seconds) ? -1 : (int64_t)llround(s->seconds);
}

/* ---- Overlaps within one CPU (dedup.h) ---- */

/*
 * Identities are to the second (start and length each rounded), so two intervals that follow
 * each other may seem to share a second, or to leave one between them: sharing OVERLAP_MIN
 * seconds or more is an overlap, a gap of GAP_MAX or less joins two runs.
 */
#define OVERLAP_MIN 2
#define GAP_MAX 1

static void remap_entry(struct ident *e, const uint32_t *map, size_t nmap);

static uint64_t track_hash(uint32_t system, uint32_t lpar, int64_t cpu)
{
	return mix64(mix64(system ^ ((uint64_t)lpar << 32)) ^ (uint64_t)cpu);
}

static int tracks_grow(struct mf_dedup *d)
{
	size_t n = d->ntslots ? d->ntslots * 2 : 64, i, j;
	struct track *t = calloc(n, sizeof(*t));
	if (!t)
		return MF_ENOMEM;
	for (i = 0; i < d->ntslots; i++) {
		if (!d->tracks[i].used)
			continue;
		for (j = track_hash(d->tracks[i].system, d->tracks[i].lpar, d->tracks[i].cpu) & (n - 1); t[j].used;
		     j = (j + 1) & (n - 1))
			;
		t[j] = d->tracks[i]; /* runs is a pointer of its own or NULL (one): moves as it is */
	}
	free(d->tracks);
	d->tracks = t;
	d->ntslots = n;
	return 0;
}

/* The track of a CPU, made when new; NULL on ENOMEM.  Valid until the next call. */
static struct track *track_of(struct mf_dedup *d, uint32_t system, uint32_t lpar, int64_t cpu)
{
	size_t j;
	if ((d->ntracks + 1) * 2 > d->ntslots && tracks_grow(d))
		return NULL;
	for (j = track_hash(system, lpar, cpu) & (d->ntslots - 1); d->tracks[j].used; j = (j + 1) & (d->ntslots - 1))
		if (d->tracks[j].system == system && d->tracks[j].lpar == lpar && d->tracks[j].cpu == cpu)
			return &d->tracks[j];
	d->tracks[j].used = true;
	d->tracks[j].system = system;
	d->tracks[j].lpar = lpar;
	d->tracks[j].cpu = cpu;
	d->ntracks++;
	return &d->tracks[j];
}

static struct run *runs_of(struct track *t)
{
	return t->runs ? t->runs : &t->one;
}

/* Room for one more run or pending interval: 0 or MF_ENOMEM. */
static int runs_room(struct track *t)
{
	if (!t->runs && t->nruns < 1)
		return 0;
	if (!t->runs || t->nruns + t->npend == t->cap) {
		uint32_t cap = t->runs ? t->cap * 2 : 4;
		struct run *r = t->runs ? realloc(t->runs, cap * sizeof(*r)) : malloc(cap * sizeof(*r));
		if (!r)
			return MF_ENOMEM;
		if (!t->runs)
			r[0] = t->one;
		t->runs = r;
		t->cap = cap;
	}
	return 0;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/*
 * A CPU with more runs than this takes intervals that come out of time order as pending, merged
 * in one pass when there are as many pending as runs (track_flush): an insert into the sorted
 * runs moves the runs after it, and in random order that was quadratic (160,000 intervals of one
 * CPU with gaps: 6.4e9 steps).  Up to this many runs, an insert moves at most this many.
 */
#define SORTED_MAX 64

static int cmp_run(const void *pa, const void *pb);

/*
 * Merges the pending intervals of t into its runs: sorted, then taken with the runs in start
 * order (a run before an interval of the same start), each joining the run it meets as
 * track_add joins them.  Two intervals that share OVERLAP_MIN seconds or more are found in any
 * order they came in.  0 or MF_ENOMEM.
 */
static int track_flush(struct mf_dedup *d, struct track *t)
{
	struct run *r = runs_of(t), *p = r + t->nruns, *out, cur = {0, 0};
	size_t nr = t->nruns, np = t->npend, i = 0, j = 0, n = 0, lg = 1;
	bool have = false;
	if (!np)
		return 0;
	out = malloc((nr + np) * sizeof(*out));
	if (!out)
		return MF_ENOMEM;
	qsort(p, np, sizeof(*p), cmp_run);
	while ((size_t)1 << lg < np)
		lg++;
	d->steps += np * lg; /* the sort's comparisons, at most */
	while (i < nr || j < np) {
		struct run x = j >= np || (i < nr && r[i].s <= p[j].s) ? r[i++] : p[j++];
		d->steps++;
		if (have && x.s <= cur.e + GAP_MAX) {
			if (min64(x.e, cur.e) - x.s >= OVERLAP_MIN)
				t->overlap = true;
			cur.e = max64(cur.e, x.e);
			continue;
		}
		if (have)
			out[n++] = cur;
		cur = x;
		have = true;
	}
	out[n++] = cur;
	memcpy(r, out, n * sizeof(*r));
	free(out);
	t->nruns = (uint32_t)n;
	t->npend = 0;
	return 0;
}

/*
 * Adds the interval [s, e) (or a run of another table) to a CPU's runs, flagging the CPU when it
 * shares OVERLAP_MIN seconds or more with the time covered so far: 0 or MF_ENOMEM.  In time
 * order only the last run is looked at; otherwise the runs it meets are found by bisection, or
 * past SORTED_MAX runs it waits among the pending (track_flush).
 */
static int track_add(struct mf_dedup *d, struct track *t, int64_t s, int64_t e)
{
	struct run *r = runs_of(t);
	size_t lo = 0, hi = t->nruns, j;

	if (t->nruns && s >= r[t->nruns - 1].s) {
		struct run *last = &r[t->nruns - 1];
		d->steps++;
		if (s <= last->e + GAP_MAX) {
			if (min64(e, last->e) - s >= OVERLAP_MIN)
				t->overlap = true;
			last->e = max64(last->e, e);
			return 0;
		}
		lo = t->nruns;
		if (t->npend) {
			/* A new last run: the first pending interval moves to the end to make room. */
			if (runs_room(t))
				return MF_ENOMEM;
			r = runs_of(t);
			r[t->nruns + t->npend] = r[t->nruns];
			r[t->nruns].s = s;
			r[t->nruns].e = e;
			t->nruns++;
			return 0;
		}
	} else if (t->npend || t->nruns > SORTED_MAX) {
		if (runs_room(t))
			return MF_ENOMEM;
		r = runs_of(t);
		r[t->nruns + t->npend].s = s;
		r[t->nruns + t->npend].e = e;
		t->npend++;
		d->steps++;
		return t->npend >= t->nruns ? track_flush(d, t) : 0;
	} else {
		/* The first run that ends no more than GAP_MAX before s. */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			d->steps++;
			if (r[mid].e + GAP_MAX < s)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	/* Runs lo.. that start no more than GAP_MAX after e meet [s, e): joined into one. */
	for (j = lo; j < t->nruns && r[j].s <= e + GAP_MAX; j++) {
		d->steps++;
		if (min64(e, r[j].e) - max64(s, r[j].s) >= OVERLAP_MIN)
			t->overlap = true;
	}
	if (j > lo) {
		r[lo].s = min64(s, r[lo].s);
		r[lo].e = max64(e, r[j - 1].e);
		memmove(&r[lo + 1], &r[j], (t->nruns - j) * sizeof(*r));
		d->steps += t->nruns - j;
		t->nruns -= (uint32_t)(j - lo - 1);
		return 0;
	}
	if (runs_room(t))
		return MF_ENOMEM;
	r = runs_of(t);
	memmove(&r[lo + 1], &r[lo], (t->nruns - lo) * sizeof(*r));
	d->steps += t->nruns - lo;
	r[lo].s = s;
	r[lo].e = e;
	t->nruns++;
	return 0;
}

/* The runs of from's CPUs (names through map) added to into's: 0 or MF_ENOMEM. */
static int tracks_merge(struct mf_dedup *into, const struct mf_dedup *from, const uint32_t *map, size_t nmap)
{
	size_t i, k;
	for (i = 0; i < from->ntslots; i++) {
		struct track *src = &from->tracks[i], *dst;
		struct ident id;
		if (!src->used)
			continue;
		id.system = src->system;
		id.lpar = src->lpar;
		remap_entry(&id, map, nmap);
		dst = track_of(into, id.system, id.lpar, src->cpu);
		if (!dst)
			return MF_ENOMEM;
		dst->overlap |= src->overlap;
		for (k = 0; k < (size_t)src->nruns + src->npend; k++) {
			const struct run *r = src->runs ? &src->runs[k] : &src->one;
			if (track_add(into, dst, r->s, r->e))
				return MF_ENOMEM;
		}
	}
	return 0;
}

size_t mf_dedup_table_bytes(const struct mf_dedup *d)
{
	return d->nslots * sizeof(*d->slots) + d->capents * sizeof(*d->ents) + d->capwide * sizeof(*d->wide);
}

uint64_t mf_dedup_overlap_steps(const struct mf_dedup *d)
{
	return d->steps;
}

/* Orders CPUs by system and LPAR name, then number. */
static int cmp_track_names(const struct mf_strtab *tab, const struct track *a, const struct track *b)
{
	const char *x, *y;
	int c;
	x = mf_strtab_get(tab, a->system);
	y = mf_strtab_get(tab, b->system);
	if (x != y && (c = !x || !y ? (x ? 1 : -1) : strcmp(x, y)))
		return c;
	x = mf_strtab_get(tab, a->lpar);
	y = mf_strtab_get(tab, b->lpar);
	if (x != y && (c = !x || !y ? (x ? 1 : -1) : strcmp(x, y)))
		return c;
	return (a->cpu > b->cpu) - (a->cpu < b->cpu);
}

static int cmp_run(const void *pa, const void *pb)
{
	const struct run *a = pa, *b = pb;
	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	return (a->e > b->e) - (a->e < b->e);
}

/* The intervals of one CPU (whole names) held by d, its names through rev (NULL: d's are the whole's). */
static int collect(const struct mf_dedup *d, const uint32_t *rev, size_t nrev, const struct track *cpu, struct run **iv,
		   size_t *n, size_t *cap)
{
	uint32_t sys = cpu->system, lpar = cpu->lpar;
	size_t i;
	if (rev) {
		if ((sys && (sys >= nrev || !rev[sys])) || (lpar && (lpar >= nrev || !rev[lpar])))
			return 0; /* a name d never read */
		sys = sys ? rev[sys] : 0;
		lpar = lpar ? rev[lpar] : 0;
	}
	for (i = 0; i < d->n; i++) {
		struct ident id;
		ident_of(d, &d->ents[i], &id);
		if (id.system != sys || id.lpar != lpar || id.cpu != cpu->cpu || id.len_s <= 0)
			continue;
		if (*n == *cap) {
			size_t c = *cap ? *cap * 2 : 64;
			struct run *nv = realloc(*iv, c * sizeof(*nv));
			if (!nv)
				return MF_ENOMEM;
			*iv = nv;
			*cap = c;
		}
		(*iv)[(*n)++] = (struct run){id.start_s, id.start_s + id.len_s};
	}
	return 0;
}

/* One interval into a walk (find_pair's step). */
static void walk_step(struct walk *w, struct run x)
{
	if (!w->has_reach) {
		w->reach = x;
		w->has_reach = true;
	} else if (!w->pair) {
		if (min64(x.e, w->reach.e) - x.s >= OVERLAP_MIN) {
			w->pair = true;
			w->a = w->reach;
			w->b = x;
		} else if (x.e > w->reach.e) {
			w->reach = x;
		}
	}
}

/* The intervals of the latest start walked, by their end (as find_pair sorts them). */
static void walk_flush(struct walk *w)
{
	uint32_t i;
	if (w->nsame > 1)
		qsort(w->same, w->nsame, sizeof(*w->same), cmp_run);
	for (i = 0; i < w->nsame; i++)
		walk_step(w, w->same[i]);
	w->nsame = 0;
}

/* Ordered: the interval [s, e) of CPU t into its walk.  0 or MF_ENOMEM. */
static int walk_add(struct mf_dedup *d, struct track *t, int64_t s, int64_t e)
{
	struct walk *w;
	if (!t->walk) {
		if (d->nwalks == d->capwalks) {
			size_t cap = d->capwalks ? 2 * d->capwalks : 256;
			struct walk *n = realloc(d->walks, cap * sizeof(*n));
			if (!n)
				return MF_ENOMEM;
			d->walks = n;
			d->capwalks = cap;
		}
		memset(&d->walks[d->nwalks], 0, sizeof(*d->walks));
		t->walk = (uint32_t)++d->nwalks;
	}
	w = &d->walks[t->walk - 1];
	if (w->nsame && s > w->same[0].s)
		walk_flush(w);
	if (w->nsame == w->capsame) {
		uint32_t cap = w->capsame ? 2 * w->capsame : 2;
		struct run *n = realloc(w->same, cap * sizeof(*n));
		if (!n)
			return MF_ENOMEM;
		w->same = n;
		w->capsame = cap;
	}
	w->same[w->nsame++] = (struct run){s, e};
	return 0;
}

/* Two overlapping intervals of one CPU from every table, into out: 0 or MF_ENOMEM. */
static int find_pair(const struct mf_dedup *into, const struct mf_dedup_part *parts, size_t nparts,
		     const struct track *cpu, struct mf_dedup_overlap *out)
{
	struct run *iv = NULL;
	size_t n = 0, cap = 0, i, reach = 0, k;
	int rc = collect(into, NULL, 0, cpu, &iv, &n, &cap);
	for (k = 0; k < nparts && !rc; k++)
		rc = collect(parts[k].d, parts[k].rev, parts[k].nrev, cpu, &iv, &n, &cap);
	if (rc) {
		free(iv);
		return rc;
	}
	qsort(iv, n, sizeof(*iv), cmp_run);
	/* In start order an interval overlaps an earlier one exactly when it does the one reaching furthest. */
	for (i = 1; i < n && !out->pair; i++) {
		if (min64(iv[i].e, iv[reach].e) - iv[i].s >= OVERLAP_MIN) {
			out->pair = true;
			out->a_start_s = iv[reach].s;
			out->a_len_s = iv[reach].e - iv[reach].s;
			out->b_start_s = iv[i].s;
			out->b_len_s = iv[i].e - iv[i].s;
		} else if (iv[i].e > iv[reach].e) {
			reach = i;
		}
	}
	free(iv);
	return 0;
}

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return (a > b) - (a < b);
}

int mf_dedup_overlaps(struct mf_dedup *into, const struct mf_dedup_part *parts, size_t n, const struct mf_strtab *tab,
		      struct mf_dedup_overlap *out)
{
	const struct track *first = NULL;
	uint32_t *systems;
	size_t i, k, ns = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->cpu = -1;
	for (k = 0; k < n && !rc; k++)
		rc = tracks_merge(into, parts[k].d, parts[k].map, parts[k].nmap);
	for (i = 0; i < into->ntslots && !rc; i++)
		if (into->tracks[i].used)
			rc = track_flush(into, &into->tracks[i]);
	if (rc)
		return rc;
	systems = malloc((into->ntracks + 1) * sizeof(*systems));
	if (!systems)
		return MF_ENOMEM;
	for (i = 0; i < into->ntslots; i++) {
		const struct track *t = &into->tracks[i];
		if (!t->used || !t->overlap)
			continue;
		out->cpus++;
		systems[ns++] = t->system;
		if (!first || cmp_track_names(tab, t, first) < 0)
			first = t;
	}
	qsort(systems, ns, sizeof(*systems), cmp_u32);
	for (i = 0; i < ns; i++)
		out->systems += i == 0 || systems[i] != systems[i - 1];
	free(systems);
	if (!first)
		return 0;
	out->system = first->system;
	out->lpar = first->lpar;
	out->cpu = first->cpu;
	if (into->ordered) { /* the identities are gone: the walk made as they came */
		struct walk *w = first->walk ? &into->walks[first->walk - 1] : NULL;
		if (w) {
			walk_flush(w);
			if ((out->pair = w->pair)) {
				out->a_start_s = w->a.s;
				out->a_len_s = w->a.e - w->a.s;
				out->b_start_s = w->b.s;
				out->b_len_s = w->b.e - w->b.s;
			}
		}
		return 0;
	}
	return find_pair(into, parts, n, first, out);
}

void mf_dedup_prefetch(const struct mf_dedup *d, const struct mf_sample *s)
{
	struct ident k;
	if (!s->system || !s->has_start || !d->nslots)
		return;
	sample_ident(s, &k);
	__builtin_prefetch(&d->slots[key_hash(&k) & (d->nslots - 1)], 1);
	/* And the slot of its CPU's track (it straddles two cache lines), looked at when it is new. */
	if (k.cpu >= 0 && k.len_s > 0 && d->ntslots) {
		const struct track *t = &d->tracks[track_hash(k.system, k.lpar, k.cpu) & (d->ntslots - 1)];
		__builtin_prefetch(t, 1);
		__builtin_prefetch((const char *)(t + 1) - 1, 1);
	}
}

void mf_dedup_set_ordered(struct mf_dedup *d, bool ordered)
{
	d->ordered = ordered;
}

size_t mf_dedup_most_held(const struct mf_dedup *d)
{
	return d->most > d->n ? d->most : d->n;
}

/*
 * Lets go of every identity held (the per-CPU runs, the counts and the files stay): the slot of
 * each entry cleared (the table empties whole, so no probe chain is left broken), or the whole
 * table when the entries fill a good part of it.
 */
static void forget(struct mf_dedup *d)
{
	size_t i;
	if (d->n > d->most)
		d->most = d->n;
	if (d->n * 16 >= d->nslots) {
		memset(d->slots, 0, d->nslots * sizeof(*d->slots));
	} else {
		for (i = 0; i < d->n; i++) {
			struct ident id;
			uint64_t h, w;
			size_t j;
			ident_of(d, &d->ents[i], &id);
			h = key_hash(&id);
			w = slot_word(h, i);
			for (j = h & (d->nslots - 1); d->slots[j] != w; j = (j + 1) & (d->nslots - 1))
				;
			d->slots[j] = 0;
		}
	}
	d->n = 0;
	d->nwide = 0;
}

int mf_dedup_check(struct mf_dedup *d, const char *file, const struct mf_sample *s, struct mf_error *err)
{
	struct ident k;
	struct entry *e;
	uint64_t counters, ka = 0, kb = 0, h;
	uint32_t fid;
	bool kp;
	size_t j;

	if (!s->system || !s->has_start)
		return MF_DEDUP_KEEP;
	sample_ident(s, &k);
	/* In time order, a copy has the start of its first: the identities of earlier starts are done. */
	if (d->ordered && d->n && k.start_s > d->max_start)
		forget(d);
	counters = counters_hash(s);
	kp = pack_ident(&k, &ka, &kb);
	if (room_for_one(d))
		return MF_ENOMEM;
	h = key_hash(&k);
	for (j = h & (d->nslots - 1); d->slots[j]; j = (j + 1) & (d->nslots - 1)) {
		char first[64], when[48];
		long long where;
		uint32_t ffile;
		if ((d->slots[j] ^ h) >> 32)
			continue; /* another hash: another identity */
		e = slot_entry(d, d->slots[j]);
		if (!holds_ident(d, e, &k, kp, ka, kb))
			continue;
		if (e->counters == counters) {
			d->duplicates++;
			return MF_DEDUP_DUPLICATE;
		}
		d->conflicts++;
		pos_of(d, e, &where, &ffile);
		place(first, sizeof(first), where);
		mf_time_format(k.start_s * 1000000, when, sizeof(when));
		mf_error_set(err, MF_EFORMAT, file, s->line, 0,
			     "a second copy of a sample (same system, LPAR, CPU, pool and interval %s, %lld s) "
			     "with different counters; the first is at %s %s",
			     when, (long long)k.len_s, d->files[ffile - 1], first);
		if (err && s->line <= 0)
			err->offset = s->offset;
		return MF_EFORMAT;
	}
	fid = file_id(d, file);
	if (!fid || make_entry(d, &k, counters,
			       s->line > 0      ? s->line
			       : s->offset >= 0 ? -2 - s->offset
						: -1,
			       fid, &d->ents[d->n]))
		return MF_ENOMEM;
	d->slots[j] = slot_word(h, d->n);
	note_start(d, k.start_s);
	d->n++;
	if (k.cpu >= 0 && k.len_s > 0) {
		struct track *t = track_of(d, k.system, k.lpar, k.cpu);
		if (!t || track_add(d, t, k.start_s, k.start_s + k.len_s) ||
		    (d->ordered && walk_add(d, t, k.start_s, k.start_s + k.len_s)))
			return MF_ENOMEM;
	}
	return MF_DEDUP_KEEP;
}

/* Whether d holds identity k (any counters). */
static bool holds(const struct mf_dedup *d, const struct ident *k)
{
	uint64_t ka = 0, kb = 0, h;
	bool kp;
	size_t j;
	if (!d->nslots)
		return false;
	kp = pack_ident(k, &ka, &kb);
	h = key_hash(k);
	for (j = h & (d->nslots - 1); d->slots[j]; j = (j + 1) & (d->nslots - 1))
		if (!((d->slots[j] ^ h) >> 32) && holds_ident(d, slot_entry(d, d->slots[j]), k, kp, ka, kb))
			return true;
	return false;
}

/* Inserts identity k (known not to be in d) with its counters and its place in file. */
static int insert(struct mf_dedup *d, const struct ident *k, uint64_t counters, long long where, const char *file)
{
	uint32_t fid;
	uint64_t h;
	size_t j;
	if (room_for_one(d))
		return MF_ENOMEM;
	fid = file_id(d, file);
	if (!fid)
		return MF_ENOMEM;
	h = key_hash(k);
	for (j = h & (d->nslots - 1); d->slots[j]; j = (j + 1) & (d->nslots - 1))
		;
	if (make_entry(d, k, counters, where, fid, &d->ents[d->n]))
		return MF_ENOMEM;
	d->slots[j] = slot_word(h, d->n);
	note_start(d, k->start_s);
	d->n++;
	return 0;
}

/* e's name ids through map (ids from nmap on stay; 0 stays). */
static void remap_entry(struct ident *e, const uint32_t *map, size_t nmap)
{
	if (map && e->system < nmap)
		e->system = map[e->system];
	if (map && e->lpar < nmap)
		e->lpar = map[e->lpar];
}

/* Whether identity e (in the whole's names) of part k is in into or in a part before k. */
static bool seen_before(const struct mf_dedup *into, const struct mf_dedup_part *parts, size_t k, struct ident e)
{
	size_t j;
	remap_entry(&e, parts[k].map, parts[k].nmap);
	if (in_range(into, e.start_s) && holds(into, &e))
		return true;
	/* The parts before, each in its own names: back through their reverse maps. */
	for (j = 0; j < k; j++) {
		struct ident f = e;
		if (!in_range(parts[j].d, f.start_s))
			continue; /* another time: not there (most of a file in time order) */
		if ((f.system && (f.system >= parts[j].nrev || !parts[j].rev[f.system])) ||
		    (f.lpar && (f.lpar >= parts[j].nrev || !parts[j].rev[f.lpar])))
			continue; /* a name part j never read: not there */
		remap_entry(&f, parts[j].rev, parts[j].nrev);
		if (holds(parts[j].d, &f))
			return true;
	}
	return false;
}

int mf_dedup_parts_disjoint_share(const struct mf_dedup *into, const struct mf_dedup_part *parts, size_t n,
				  size_t share, size_t nshares)
{
	size_t k, i, total = 0, at = 0, from, to;
	/* The entries to look at: those of part 0 only when something was read before. */
	size_t first = into->n ? 0 : 1;
	for (k = first; k < n; k++)
		total += parts[k].d->n;
	from = total / nshares * share + (share < total % nshares ? share : total % nshares);
	to = from + total / nshares + (share < total % nshares ? 1 : 0);
	for (k = first; k < n && at < to; k++) {
		const struct mf_dedup *d = parts[k].d;
		size_t lo = from > at ? from - at : 0, hi = to - at < d->n ? to - at : d->n, j;
		/* A part whose times lie apart from those read before it holds nothing seen before. */
		bool apart = !d->n || !overlaps(into, d);
		for (j = 0; j < k && apart; j++)
			apart = !overlaps(parts[j].d, d);
		if (apart)
			lo = hi;
		for (i = lo; i < hi; i++) {
			struct ident id;
			ident_of(d, &d->ents[i], &id);
			if (seen_before(into, parts, k, id))
				return 0;
		}
		at += d->n;
	}
	return 1;
}

int mf_dedup_parts_disjoint(const struct mf_dedup *into, const struct mf_dedup_part *parts, size_t n)
{
	return mf_dedup_parts_disjoint_share(into, parts, n, 0, 1);
}

int mf_dedup_add_parts(struct mf_dedup *into, const struct mf_dedup_part *parts, size_t n)
{
	size_t k, i, total = 0;
	for (k = 0; k < n; k++)
		total += parts[k].d->n;
	if (mf_dedup_reserve(into, total))
		return MF_ENOMEM;
	for (k = 0; k < n; k++) {
		const struct mf_dedup *d = parts[k].d;
		for (i = 0; i < d->n; i++) {
			struct ident id;
			long long where;
			uint32_t file;
			ident_of(d, &d->ents[i], &id);
			pos_of(d, &d->ents[i], &where, &file);
			remap_entry(&id, parts[k].map, parts[k].nmap);
			if (where >= 0)
				where += parts[k].line_offset;
			if (insert(into, &id, d->ents[i].counters, where, d->files[file - 1]))
				return MF_ENOMEM;
		}
		if (tracks_merge(into, d, parts[k].map, parts[k].nmap))
			return MF_ENOMEM;
		into->duplicates += d->duplicates;
	}
	return 0;
}
