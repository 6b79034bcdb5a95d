/* SPDX-License-Identifier: MIT */
/* Streaming the finest grain: closed groups as compact rows in sorted runs, merged at the end (stream.h). */
#define _GNU_SOURCE /* pread, pwrite, mkstemp */
#include "stream.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * A finished row: what the CSV writer and the notes read of a group and its result, and the
 * values of the columns (ncols doubles after it).  The keys are those of a --by of system,
 * LPAR, pool, CPU and interval (pipeline.c allows no other).
 */
struct srow {
	int64_t start_us, cpu, ps, pe;
	double interval;
	uint64_t cpus;
	uint32_t system, lpar;
	int32_t pool;
	uint32_t series; /* index into the series table */
	int32_t off_start, off_ps, off_pe;
	uint16_t fam; /* index into kb->families */
	int8_t lspr;
	uint8_t has_period;
	/* double col[ncols] follows */
};

/* A series of cpus_expected (same family, system, LPAR, pool and CPU): its most CPUs and the rows below it. */
struct series {
	uint32_t system, lpar;
	int32_t pool;
	uint16_t fam;
	int64_t cpu;
	uint64_t most, at_most, rows; /* most CPUs, rows with it, rows */
	int64_t first_at_most;        /* start of the first row with the most */
	bool below;                   /* a row has fewer: the first such */
	int64_t below_start;
	uint64_t below_cpus;
};

/* A row the notes name first (per kind): its row, group and result, whole. */
struct cand {
	bool has;
	struct srow row;
	struct mf_group g;
	struct mf_result r;
	double *values;
	double worst; /* busy finding: the difference */
};

struct run {
	uint64_t off; /* file runs: byte offset; memory runs: row index */
	uint64_t n;   /* rows */
};

struct mf_stream {
	/* The report's setup (knowledge base, names, --by, --metrics, zone) as the writers' helpers take it. */
	struct mf_report rep;
	size_t ncols, rowsize, maxmetrics;
	int *map;      /* column k of family f: map[f * ncols + k], a metric index, MF_REPORT_LSPR or -1 */
	bool bymetric; /* no --metrics: col[] is the family's metrics; map by kb->keys */
	unsigned char *key_sparse, *key_value; /* by kb key: a row's family has it sparse; not empty */
	size_t limit;

	unsigned char *buf;  /* rows held, in memory runs */
	size_t nbuf, capbuf; /* rows */
	struct run *mruns;
	size_t nmruns, capmruns;

	int fd;       /* the temporary file, unlinked; -1 before the first spill */
	bool nospill; /* it could not be made or written: the rows stay in memory */
	uint64_t fbytes;
	struct run *fruns;
	size_t nfruns, capfruns;

	uint64_t rows;
	struct series *ser; /* dense, in order of first appearance */
	size_t nser;
	uint32_t *slots; /* open addressing: index + 1 into ser; 0 empty */
	size_t nslots;

	struct cand doubt[MF_NOTE_DOUBTS];
	struct mf_group_overlap busy_ov;
	bool busy_has_ov;
	size_t doubt_count[MF_NOTE_DOUBTS];
	struct cand finding;
	size_t finding_count;
	struct mf_group tmpl; /* a group's public part with its key fields unset: the rows' groups start from it */
	bool has_tmpl;
	struct mf_group fewer_g; /* mf_stream_note_facts' */

	unsigned char *fams; /* by family index: a row of it */
	bool has_range, has_period;
	double lo, hi;
	int64_t pstart, pend;
};

static struct srow *row_at(const struct mf_stream *st, const unsigned char *base, size_t i)
{
	return (struct srow *)(void *)(base + i * st->rowsize);
}

static double *cols_of(struct srow *r)
{
	return (double *)(void *)(r + 1);
}

struct mf_stream *mf_stream_new(const struct mf_kb *kb, const struct mf_strtab *tab, unsigned by,
				const char *const *columns, size_t ncolumns, const struct mf_tz *tz, size_t mem_limit)
{
	struct mf_stream *st = calloc(1, sizeof(*st));
	const char **keys = NULL;
	size_t f, nkeys = 0, k;
	if (!st)
		return NULL;
	st->fd = -1;
	st->limit = mem_limit ? mem_limit : MF_STREAM_MEM_DEFAULT;
	st->rep.kb = kb;
	st->rep.tab = tab;
	st->rep.columns = columns;
	st->rep.ncolumns = ncolumns;
	st->rep.by = by;
	st->rep.tz = tz;
	for (f = 0; f < kb->nfamilies; f++)
		if (kb->families[f].nmetrics > st->maxmetrics)
			st->maxmetrics = kb->families[f].nmetrics;
	if (columns) {
		/* --metrics: the columns are known, a row keeps their values. */
		keys = mf_report_keys(&st->rep, &nkeys);
		st->ncols = nkeys;
		st->map = keys ? mf_report_key_map(&st->rep, keys, nkeys) : NULL;
		free(keys);
	} else {
		/*
		 * Every metric: which columns the report has depends on the families read and on the
		 * sparse metrics without a value (mf_report_keys), known at the end; a row keeps every
		 * metric of its family, and each key of the knowledge base whether it is sparse and empty.
		 */
		st->bymetric = true;
		st->ncols = st->maxmetrics;
		st->map = mf_report_key_map(&st->rep, kb->keys, kb->nkeys);
		st->key_sparse = calloc(kb->nkeys + 1, 1);
		st->key_value = calloc(kb->nkeys + 1, 1);
		if (!st->key_sparse || !st->key_value) {
			free(st->map);
			st->map = NULL;
		}
	}
	st->rowsize = sizeof(struct srow) + st->ncols * sizeof(double);
	st->fams = calloc(kb->nfamilies + 1, 1);
	for (k = 0; k < MF_NOTE_DOUBTS; k++)
		st->doubt[k].values = malloc((st->maxmetrics + 1) * sizeof(double));
	st->finding.values = malloc((st->maxmetrics + 1) * sizeof(double));
	if (!st->map || !st->fams || !st->finding.values) {
		mf_stream_free(st);
		return NULL;
	}
	for (k = 0; k < MF_NOTE_DOUBTS; k++)
		if (!st->doubt[k].values) {
			mf_stream_free(st);
			return NULL;
		}
	return st;
}

void mf_stream_free(struct mf_stream *st)
{
	size_t k;
	if (!st)
		return;
	if (st->fd >= 0)
		close(st->fd);
	free(st->buf);
	free(st->mruns);
	free(st->fruns);
	free(st->ser);
	free(st->slots);
	free(st->map);
	free(st->key_sparse);
	free(st->key_value);
	free(st->fams);
	for (k = 0; k < MF_NOTE_DOUBTS; k++)
		free(st->doubt[k].values);
	free(st->finding.values);
	free(st);
}

/* ---- The order: that of mf_grouper_sort (cmp_group) for the keys a stream has ---- */

static int cmp_row(const struct mf_stream *st, const struct srow *a, const struct srow *b)
{
	int c;
	if (a->fam != b->fam)
		return strcmp(st->rep.kb->families[a->fam].key, st->rep.kb->families[b->fam].key);
	if (a->system != b->system && (c = mf_strtab_cmp_names(mf_strtab_get(st->rep.tab, a->system),
							       mf_strtab_get(st->rep.tab, b->system))) != 0)
		return c;
	if (a->lpar != b->lpar &&
	    (c = mf_strtab_cmp_names(mf_strtab_get(st->rep.tab, a->lpar), mf_strtab_get(st->rep.tab, b->lpar))) != 0)
		return c;
	if (a->pool != b->pool)
		return a->pool < b->pool ? -1 : 1;
	if (a->start_us != b->start_us)
		return a->start_us < b->start_us ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return 0;
}

/* ---- Series (cpus_expected) ---- */

static uint64_t series_hash(uint16_t fam, uint32_t system, uint32_t lpar, int32_t pool, int64_t cpu)
{
	uint64_t v[] = {fam, system, lpar, (uint64_t)(uint32_t)pool, (uint64_t)cpu}, h = 0x9e3779b97f4a7c15ULL;
	size_t k;
	for (k = 0; k < 5; k++) {
		h = (h ^ v[k]) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 29;
	}
	return h;
}

/* The series table: dense (a row keeps its series' index), its hash slots index + 1, at most half full. */
static int series_grow(struct mf_stream *st)
{
	size_t cap = st->nslots ? 2 * st->nslots : 1024, i;
	uint32_t *slots = calloc(cap, sizeof(*slots));
	struct series *n = realloc(st->ser, cap / 2 * sizeof(*n));
	if (!slots || !n) {
		free(slots);
		if (n)
			st->ser = n;
		return MF_ENOMEM;
	}
	st->ser = n;
	for (i = 0; i < st->nser; i++) {
		const struct series *s = &st->ser[i];
		size_t j;
		for (j = series_hash(s->fam, s->system, s->lpar, s->pool, s->cpu) & (cap - 1); slots[j];
		     j = (j + 1) & (cap - 1))
			;
		slots[j] = (uint32_t)i + 1;
	}
	free(st->slots);
	st->slots = slots;
	st->nslots = cap;
	return 0;
}

/*
 * The row's series, its rows and most CPUs counted.  The rows of a series come in their
 * report order (their starts, the input in time order), so the first row below the most is
 * known as they come: when the most rises, the rows that had it fall below it.
 */
static int see_series(struct mf_stream *st, struct srow *r)
{
	struct series *s = NULL;
	size_t j;
	if (2 * (st->nser + 1) > st->nslots && series_grow(st))
		return MF_ENOMEM;
	for (j = series_hash(r->fam, r->system, r->lpar, r->pool, r->cpu) & (st->nslots - 1); st->slots[j];
	     j = (j + 1) & (st->nslots - 1)) {
		s = &st->ser[st->slots[j] - 1];
		if (s->fam == r->fam && s->system == r->system && s->lpar == r->lpar && s->pool == r->pool &&
		    s->cpu == r->cpu)
			break;
		s = NULL;
	}
	if (!s) {
		st->slots[j] = (uint32_t)st->nser + 1;
		s = &st->ser[st->nser++];
		memset(s, 0, sizeof(*s));
		s->fam = r->fam;
		s->system = r->system;
		s->lpar = r->lpar;
		s->pool = r->pool;
		s->cpu = r->cpu;
		s->most = r->cpus;
		s->first_at_most = r->start_us;
	} else if (r->cpus > s->most) {
		if (!s->below || s->first_at_most < s->below_start) {
			s->below = true;
			s->below_start = s->first_at_most;
			s->below_cpus = s->most;
		}
		s->most = r->cpus;
		s->at_most = 0;
		s->first_at_most = r->start_us;
	} else if (r->cpus < s->most && !s->below) {
		s->below = true;
		s->below_start = r->start_us;
		s->below_cpus = r->cpus;
	}
	if (r->cpus == s->most)
		s->at_most++;
	s->rows++;
	r->series = (uint32_t)(s - st->ser);
	return 0;
}

/* ---- Runs ---- */

/* A source of rows in order: a run in memory or in the file (read a block at a time). */
struct source {
	const unsigned char *at; /* the current row */
	uint64_t left;           /* rows after the current one */
	/* file runs */
	unsigned char *blk;
	size_t nblk, iblk;   /* rows in blk, index of the current */
	uint64_t off, fleft; /* next byte to read, rows not yet read */
	size_t blkrows;      /* rows a block holds */
};

#define BLOCK_BYTES ((size_t)256 << 10)
/* The read blocks of all file runs together stay under this (each at least BLOCK_MIN_ROWS rows). */
#define READ_BYTES ((size_t)32 << 20)
#define BLOCK_MIN_ROWS 16

static int src_fill(const struct mf_stream *st, struct source *s)
{
	size_t want = s->blkrows, bytes, got = 0;
	if (!want)
		want = 1;
	if (want > s->fleft)
		want = (size_t)s->fleft;
	bytes = want * st->rowsize;
	while (got < bytes) {
		ssize_t r = pread(st->fd, s->blk + got, bytes - got, (off_t)(s->off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return MF_EIO;
		got += (size_t)r;
	}
	s->off += bytes;
	s->fleft -= want;
	s->nblk = want;
	s->iblk = 0;
	s->at = s->blk;
	return 0;
}

/* Moves s to its next row: 1 when there is one, 0 at its end, or MF_EIO. */
static int src_next(const struct mf_stream *st, struct source *s)
{
	if (!s->blk) {
		if (!s->left)
			return 0;
		s->left--;
		s->at += st->rowsize;
		return 1;
	}
	if (++s->iblk < s->nblk) {
		s->at += st->rowsize;
		return 1;
	}
	if (!s->fleft)
		return 0;
	return src_fill(st, s) ? MF_EIO : 1;
}

/* A heap of sources by their current row. */
static bool src_less(const struct mf_stream *st, const struct source *a, const struct source *b)
{
	return cmp_row(st, (const struct srow *)(const void *)a->at, (const struct srow *)(const void *)b->at) < 0;
}

static void sift_down(const struct mf_stream *st, struct source **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && src_less(st, h[l], h[m]))
			m = l;
		if (l + 1 < n && src_less(st, h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct source *t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/*
 * Merges the file runs (with_file) and the memory runs, calling emit for each row in order.
 * 0, the first nonzero emit return, MF_ENOMEM or MF_EIO.
 */
static int merge(const struct mf_stream *st, bool with_file, int (*emit)(void *ctx, const struct srow *r), void *ctx)
{
	size_t nf = with_file ? st->nfruns : 0, ns = nf + st->nmruns, i, n = 0;
	struct source *src = calloc(ns ? ns : 1, sizeof(*src));
	struct source **h = calloc(ns ? ns : 1, sizeof(*h));
	/* Many runs (a tiny MFSTAT_STREAM_MEM) share READ_BYTES of blocks, each of 16 rows at least. */
	size_t blkrows = (nf && READ_BYTES / nf < BLOCK_BYTES ? READ_BYTES / nf : BLOCK_BYTES) / st->rowsize;
	int rc = 0;
	if (blkrows < BLOCK_MIN_ROWS)
		blkrows = BLOCK_MIN_ROWS;
	if (!src || !h) {
		free(src);
		free(h);
		return MF_ENOMEM;
	}
	for (i = 0; i < nf && !rc; i++) {
		struct source *s = &src[i];
		if (!st->fruns[i].n)
			continue;
		s->blkrows = blkrows;
		if (!(s->blk = malloc(blkrows * st->rowsize))) {
			rc = MF_ENOMEM;
			break;
		}
		s->off = st->fruns[i].off;
		s->fleft = st->fruns[i].n;
		if ((rc = src_fill(st, s)) == 0)
			h[n++] = s;
	}
	for (i = 0; i < st->nmruns && !rc; i++) {
		struct source *s = &src[nf + i];
		if (!st->mruns[i].n)
			continue;
		s->at = st->buf + st->mruns[i].off * st->rowsize;
		s->left = st->mruns[i].n - 1;
		h[n++] = s;
	}
	for (i = n; i-- > 0;)
		sift_down(st, h, n, i);
	while (n && !rc) {
		int more;
		if ((rc = emit(ctx, (const struct srow *)(const void *)h[0]->at)) != 0)
			break;
		more = src_next(st, h[0]);
		if (more < 0) {
			rc = more;
			break;
		}
		if (!more)
			h[0] = h[--n];
		sift_down(st, h, n, 0);
	}
	for (i = 0; i < ns; i++)
		free(src[i].blk);
	free(src);
	free(h);
	return rc;
}

/* The spill's writing: rows gathered into a block, written at the file's end. */
struct spill {
	struct mf_stream *st;
	unsigned char *blk;
	size_t used;
	uint64_t rows;
};

static int spill_flush(struct spill *sp)
{
	size_t done = 0;
	while (done < sp->used) {
		ssize_t w = pwrite(sp->st->fd, sp->blk + done, sp->used - done, (off_t)(sp->st->fbytes + done));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return MF_EIO;
		done += (size_t)w;
	}
	sp->st->fbytes += sp->used;
	sp->used = 0;
	return 0;
}

static int spill_row(void *ctx, const struct srow *r)
{
	struct spill *sp = ctx;
	memcpy(sp->blk + sp->used, r, sp->st->rowsize);
	sp->used += sp->st->rowsize;
	sp->rows++;
	return sp->used + sp->st->rowsize > BLOCK_BYTES ? spill_flush(sp) : 0;
}

/* The temporary file, made and unlinked at once (nothing is left behind, whatever ends the run). */
static int open_tmp(struct mf_stream *st)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(path, sizeof(path), "%s/mfstat-stream-XXXXXX", dir);
	st->fd = mkstemp(path);
	if (st->fd < 0)
		return MF_EIO;
	unlink(path);
	return 0;
}

/*
 * The memory runs merged into one run at the end of the temporary file.  Where no temporary file
 * can be made or written (no writable $TMPDIR, a full disk), the rows stay in memory from then
 * on: the report is the same, its memory that of the rows.  0 or MF_ENOMEM.
 */
static int spill(struct mf_stream *st)
{
	struct spill sp = {st, NULL, 0, 0};
	uint64_t off = st->fbytes;
	int rc;
	if (st->fd < 0 && open_tmp(st)) {
		st->nospill = true;
		return 0;
	}
	if (st->nfruns == st->capfruns) {
		size_t cap = st->capfruns ? 2 * st->capfruns : 16;
		struct run *n = realloc(st->fruns, cap * sizeof(*n));
		if (!n)
			return MF_ENOMEM;
		st->fruns = n;
		st->capfruns = cap;
	}
	if (!(sp.blk = malloc(BLOCK_BYTES + st->rowsize)))
		return MF_ENOMEM;
	rc = merge(st, false, spill_row, &sp);
	if (!rc)
		rc = spill_flush(&sp);
	free(sp.blk);
	if (rc == MF_EIO) { /* the runs in memory are whole: kept there */
		st->fbytes = off;
		st->nospill = true;
		return 0;
	}
	if (rc)
		return rc;
	st->fruns[st->nfruns].off = off;
	st->fruns[st->nfruns++].n = sp.rows;
	st->nbuf = 0;
	st->nmruns = 0;
	return 0;
}

/* ---- Adding closed groups ---- */

static void keep_cand(struct mf_stream *st, struct cand *c, const struct srow *row, const struct mf_group *g,
		      const struct mf_result *r)
{
	c->has = true;
	c->row = *row;
	c->g = *g;
	c->r = *r;
	c->r.group = &c->g;
	c->r.na = NULL;
	memcpy(c->values, r->value, g->family->nmetrics * sizeof(double));
	c->r.value = c->values;
	(void)st;
}

static int32_t offset_at(struct mf_stream *st, const struct mf_group *g, int64_t us)
{
	return st->rep.tz ? mf_report_offset(&st->rep, g, us) : 0;
}

int mf_stream_add(struct mf_stream *st, struct mf_group *const *groups, const struct mf_result *res, size_t n)
{
	size_t i, k;
	int rc;
	if (!n)
		return 0;
	if (!st->nospill && (st->nbuf + n) * st->rowsize > st->limit && st->nbuf && (rc = spill(st)) != 0)
		return rc;
	if (st->nbuf + n > st->capbuf) {
		size_t cap = st->capbuf ? st->capbuf : 4096;
		unsigned char *nb;
		while (cap < st->nbuf + n)
			cap *= 2;
		if (!(nb = realloc(st->buf, cap * st->rowsize)))
			return MF_ENOMEM;
		st->buf = nb;
		st->capbuf = cap;
	}
	if (st->nmruns == st->capmruns) {
		size_t cap = st->capmruns ? 2 * st->capmruns : 16;
		struct run *nr = realloc(st->mruns, cap * sizeof(*nr));
		if (!nr)
			return MF_ENOMEM;
		st->mruns = nr;
		st->capmruns = cap;
	}
	st->mruns[st->nmruns].off = st->nbuf;
	st->mruns[st->nmruns++].n = n;
	if (!st->has_tmpl) {
		st->tmpl = *groups[0];
		st->tmpl.sum = st->tmpl.sum_lspr = NULL;
		st->tmpl.present_all = st->tmpl.present_any = st->tmpl.overflow = NULL;
		st->tmpl.layout = NULL;
		st->has_tmpl = true;
	}
	for (i = 0; i < n; i++) {
		const struct mf_group *g = groups[i];
		const struct mf_result *r = &res[i];
		struct srow *row = row_at(st, st->buf, st->nbuf++);
		size_t f = (size_t)(g->family - st->rep.kb->families);
		double *col = cols_of(row), lo, hi, d;
		memset(row, 0, sizeof(*row));
		row->fam = (uint16_t)f;
		row->system = g->system;
		row->lpar = g->lpar;
		row->pool = g->pool;
		row->cpu = g->cpu;
		row->start_us = g->start_us;
		row->interval = r->interval;
		row->cpus = r->cpus;
		row->lspr = (int8_t)r->lspr;
		row->has_period = mf_group_period(g, &row->ps, &row->pe);
		row->off_start = offset_at(st, g, g->start_us);
		if (row->has_period) {
			row->off_ps = offset_at(st, g, row->ps);
			row->off_pe = offset_at(st, g, row->pe);
			if (!st->has_period || row->ps < st->pstart)
				st->pstart = row->ps;
			if (!st->has_period || row->pe > st->pend)
				st->pend = row->pe;
			st->has_period = true;
		}
		if (st->bymetric) {
			size_t nk = st->rep.kb->nkeys;
			for (k = 0; k < st->ncols; k++)
				col[k] = k < g->family->nmetrics ? r->value[k] : NAN;
			/* mf_report_key_sparse_empty's facts, row by row. */
			for (k = 0; k < nk; k++) {
				int idx = st->map[f * nk + k];
				if (idx < 0 || st->key_value[k])
					continue;
				if (!(g->family->metrics[idx].flags & MF_METRIC_SPARSE) || !isnan(r->value[idx]))
					st->key_value[k] = 1;
				else
					st->key_sparse[k] = 1;
			}
		} else {
			for (k = 0; k < st->ncols; k++) {
				int idx = st->map[f * st->ncols + k];
				col[k] = idx >= 0 ? r->value[idx] : NAN;
			}
		}
		st->fams[f] = 1;
		if (mf_group_interval_range(g, &lo, &hi)) {
			if (!st->has_range || lo < st->lo)
				st->lo = lo;
			if (!st->has_range || hi > st->hi)
				st->hi = hi;
			st->has_range = true;
		}
		if ((rc = see_series(st, row)) != 0)
			return rc;
		/* The notes' first rows: of each kind the least in the report's order. */
		for (k = 0; k < MF_NOTE_DOUBTS; k++) {
			struct cand *c = &st->doubt[k];
			if (!(r->doubts & mf_note_doubt_bit(k)))
				continue;
			st->doubt_count[k]++;
			if (c->has && cmp_row(st, row, &c->row) >= 0)
				continue;
			keep_cand(st, c, row, g, r);
			if (k == MF_NOTE_DOUBTS - 1)
				st->busy_has_ov = mf_group_find_overlap(g, &st->busy_ov);
		}
		if (mf_note_finding_first(r, &d)) {
			struct cand *c = &st->finding;
			if (!c->has || fabs(d) > fabs(c->worst) ||
			    (fabs(d) == fabs(c->worst) && cmp_row(st, row, &c->row) < 0)) {
				keep_cand(st, c, row, g, r);
				c->worst = d;
			}
			st->finding_count++;
		}
	}
	st->rows += n;
	return 0;
}

void mf_stream_counts(const struct mf_stream *st, uint64_t *rows, uint64_t *runs, uint64_t *bytes)
{
	*rows = st->rows;
	*runs = st->nfruns;
	*bytes = st->fbytes;
}

/* A group of the row's keys (the template's other fields): for the writer and the notes' words. */
static void group_of(const struct mf_stream *st, const struct srow *row, struct mf_group *g)
{
	*g = st->tmpl;
	g->family = &st->rep.kb->families[row->fam];
	g->system = row->system;
	g->lpar = row->lpar;
	g->pool = row->pool;
	g->cpu = row->cpu;
	g->has_start = true;
	g->start_us = row->start_us;
}

bool mf_stream_note_facts(const struct mf_stream *st, struct mf_note_facts *f)
{
	struct mf_stream *m = (struct mf_stream *)st; /* fewer_g is kept for the caller */
	const struct series *first = NULL;
	struct srow a, b;
	size_t k, i;
	memset(f, 0, sizeof(*f));
	for (k = 0; k < MF_NOTE_DOUBTS; k++) {
		f->doubt_count[k] = st->doubt_count[k];
		f->doubt_first[k] = st->doubt[k].has ? &st->doubt[k].r : NULL;
	}
	f->busy_has_ov = st->busy_has_ov;
	f->busy_ov = st->busy_ov;
	f->finding_count = st->finding_count;
	f->finding = st->finding.has ? &st->finding.r : NULL;
	/* Rows below their series' most, the first in the report's order. */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (i = 0; i < st->nser; i++) {
		const struct series *s = &st->ser[i];
		f->fewer_count += s->rows - s->at_most;
		if (!s->below)
			continue;
		b.fam = s->fam;
		b.system = s->system;
		b.lpar = s->lpar;
		b.pool = s->pool;
		b.cpu = s->cpu;
		b.start_us = s->below_start;
		if (!first || cmp_row(st, &b, &a) < 0) {
			first = s;
			a = b;
		}
	}
	if (first) {
		group_of(st, &a, &m->fewer_g);
		f->fewer_group = &m->fewer_g;
		f->fewer_cpus = first->below_cpus;
		f->fewer_expected = first->most;
	}
	return true;
}

size_t mf_stream_families(const struct mf_stream *st, const struct mf_family **out, size_t max)
{
	size_t f, n = 0;
	for (f = 0; f < st->rep.kb->nfamilies; f++)
		if (st->fams[f]) {
			if (n < max)
				out[n] = &st->rep.kb->families[f];
			n++;
		}
	return n;
}

bool mf_stream_key_sparse_empty(const struct mf_stream *st, const char *key)
{
	size_t k;
	if (!st->bymetric)
		return false;
	for (k = 0; k < st->rep.kb->nkeys; k++)
		if (strcmp(st->rep.kb->keys[k], key) == 0)
			return st->key_sparse[k] && !st->key_value[k];
	return false;
}

bool mf_stream_interval_range(const struct mf_stream *st, double *lo, double *hi)
{
	if (st->has_range) {
		*lo = st->lo;
		*hi = st->hi;
	}
	return st->has_range;
}

bool mf_stream_period(const struct mf_stream *st, int64_t *start, int64_t *end)
{
	if (st->has_period) {
		*start = st->pstart;
		*end = st->pend;
	}
	return st->has_period;
}

/* mf_stream_each's rows to its caller. */
struct each {
	const struct mf_stream *st;
	int (*row)(void *ctx, const struct mf_group *g, const struct mf_result *r, uint64_t expected,
		   const struct mf_row_times *t);
	void *ctx;
	double *values;
};

static int each_row(void *ctx, const struct srow *row)
{
	struct each *e = ctx;
	const struct mf_stream *st = e->st;
	const double *col = cols_of((struct srow *)row);
	struct mf_group g;
	struct mf_result r;
	struct mf_row_times t;
	size_t k;
	group_of(st, row, &g);
	memset(&r, 0, sizeof(r));
	r.group = &g;
	r.value = e->values;
	r.lspr = row->lspr;
	r.interval = row->interval;
	r.cpus = row->cpus;
	if (st->bymetric)
		r.value = (double *)col; /* the family's metrics, by index */
	else
		for (k = 0; k < st->ncols; k++) {
			int idx = st->map[(size_t)row->fam * st->ncols + k];
			if (idx >= 0)
				e->values[idx] = col[k];
		}
	t.has_period = row->has_period;
	t.ps = row->ps;
	t.pe = row->pe;
	t.offs = true;
	t.off_start = row->off_start;
	t.off_ps = row->off_ps;
	t.off_pe = row->off_pe;
	return e->row(e->ctx, &g, &r, st->ser[row->series].most, &t);
}

int mf_stream_each(const struct mf_stream *st,
		   int (*row)(void *ctx, const struct mf_group *g, const struct mf_result *r, uint64_t expected,
			      const struct mf_row_times *t),
		   void *ctx)
{
	struct each e = {st, row, ctx, malloc((st->maxmetrics + 1) * sizeof(double))};
	int rc;
	if (!e.values)
		return MF_ENOMEM;
	rc = merge(st, true, each_row, &e);
	free(e.values);
	return rc;
}
