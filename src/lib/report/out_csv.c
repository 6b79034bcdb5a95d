/* SPDX-License-Identifier: MIT */
/* CSV writer: one tidy table, one row per group (README "CSV output"). */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mfstat/base/escape.h"
#include "mfstat/base/shares.h"
#include "mfstat/report/output.h"
#include "mfstat/base/strbuf.h"
#include "stream.h"

/*
 * A text cell (RFC 4180, with the formula guard; flags has MF_ESCAPE_CSV_TERMINAL when the CSV
 * goes to a terminal: include/mfstat/base/escape.h).
 */
static void csv_str(struct mf_strbuf *sb, const char *s, unsigned flags)
{
	mf_escape_csv(sb, s, MF_ESCAPE_CSV_TEXT | flags);
}

static void csv_num(struct mf_strbuf *sb, double v)
{
	if (!isnan(v) && !isinf(v)) {
		char b[40];
		mf_strbuf_add(sb, b, (size_t)mf_fmt_g15(v == 0 ? 0.0 : v, b));
	}
}

/* What every row needs, computed once. */
struct rows {
	const struct mf_report *rep;
	const char **keys;
	size_t nkeys;
	const int *map;
	const uint64_t *expected;
	unsigned extra[MF_EXTRA_KEYS_MAX];
	size_t nextra;
	unsigned text_flags; /* MF_ESCAPE_CSV_TERMINAL on a terminal, else 0 */
};

/* An instant of a row into buf and sb: with t's offsets (a streamed row), else as mf_report_time. */
static void csv_time(struct mf_strbuf *sb, const struct mf_report *rep, const struct mf_group *g,
		     const struct mf_row_times *t, int64_t us, int32_t off, char *buf, size_t n)
{
	if (t && t->offs) {
		bool utc = !rep->tz || mf_tz_is_utc(rep->tz);
		mf_time_format_at(us, utc ? 0 : off, utc, buf, n);
	} else {
		mf_report_time(rep, g, us, buf, n);
	}
	mf_strbuf_puts(sb, buf);
}

/*
 * Appends the row of group g with its result r and its expected CPUs to sb: every row of both
 * paths, the groups held (t NULL: the times from the group) and the rows streamed (stream.c).
 */
static void write_row(struct mf_strbuf *sb, const struct rows *w, const struct mf_group *g, const struct mf_result *r,
		      uint64_t expected, const struct mf_row_times *t)
{
	const struct mf_report *rep = w->rep;
	const int *map = w->map;
	const unsigned *extra = w->extra;
	size_t nkeys = w->nkeys, nextra = w->nextra, k;
	unsigned tf = w->text_flags;
	char tbuf[48], sbuf[48];
	int64_t ps, pe;
	bool period;
	csv_str(sb, mf_strtab_get(rep->tab, g->system), tf);
	mf_strbuf_putc(sb, ',');
	csv_str(sb, mf_strtab_get(rep->tab, g->lpar), tf);
	mf_strbuf_putc(sb, ',');
	csv_str(sb, mf_pool_name(g->pool), tf);
	mf_strbuf_putc(sb, ',');
	if (g->cpu >= 0)
		mf_strbuf_u64(sb, (uint64_t)g->cpu);
	for (k = 0; k < nextra; k++) {
		const char *v = mf_report_key_text(rep, g, extra[k], tbuf, sizeof(tbuf));
		mf_strbuf_putc(sb, ',');
		if (v)
			csv_str(sb, v, tf);
	}
	mf_strbuf_putc(sb, ',');
	if (g->has_start)
		csv_time(sb, rep, g, t, g->start_us, t ? t->off_start : 0, sbuf, sizeof(sbuf));
	mf_strbuf_putc(sb, ',');
	if (t) {
		period = t->has_period;
		ps = t->ps;
		pe = t->pe;
	} else {
		period = mf_group_period(g, &ps, &pe);
	}
	if (period) {
		/* a group of one interval starts its period there: the same time, formatted once */
		if (g->has_start && ps == g->start_us && (!t || t->off_ps == t->off_start))
			mf_strbuf_puts(sb, sbuf);
		else
			csv_time(sb, rep, g, t, ps, t ? t->off_ps : 0, tbuf, sizeof(tbuf));
		mf_strbuf_putc(sb, ',');
		csv_time(sb, rep, g, t, pe, t ? t->off_pe : 0, tbuf, sizeof(tbuf));
	} else {
		mf_strbuf_putc(sb, ',');
	}
	mf_strbuf_putc(sb, ',');
	csv_num(sb, r->interval);
	mf_strbuf_putc(sb, ',');
	csv_str(sb, g->family->display, tf);
	mf_strbuf_putc(sb, ',');
	mf_strbuf_u64(sb, r->cpus);
	mf_strbuf_putc(sb, ',');
	mf_strbuf_u64(sb, expected);
	for (k = 0; k < nkeys; k++) {
		int idx = map[(size_t)(g->family - rep->kb->families) * nkeys + k];
		mf_strbuf_putc(sb, ',');
		if (idx == MF_REPORT_LSPR) {
			const char *l = mf_lspr_name(r->lspr);
			if (l)
				mf_strbuf_puts(sb, l);
		} else if (idx >= 0) {
			csv_num(sb, r->value[idx]);
		}
	}
	mf_strbuf_putc(sb, '\n');
}

/*
 * Appends the rows of groups [from, to) to sb.  A row reads its group's keys, counts and
 * first interval (the first five cache lines of its block, mf_group and what follows it),
 * asked for ROWS_AHEAD rows ahead.
 */
#define ROWS_AHEAD 8
static void write_rows(struct mf_strbuf *sb, const struct rows *w, size_t from, size_t to)
{
	const struct mf_report *rep = w->rep;
	size_t i;
	for (i = from; i < to; i++) {
		if (i + ROWS_AHEAD < rep->ngroups) {
			/* the groups lie far apart in memory: ask for the one written ROWS_AHEAD rows on */
			const char *a = (const char *)rep->results[i + ROWS_AHEAD].group;
			__builtin_prefetch(a);
			__builtin_prefetch(a + 64);
			__builtin_prefetch(a + 128);
			__builtin_prefetch(a + 192);
			__builtin_prefetch(a + 256);
		}
		write_row(sb, w, rep->results[i].group, &rep->results[i], w->expected[i], NULL);
	}
}

/*
 * The rows with the threads of -j, for many groups: blocks of BLOCK_ROWS rows are formatted into
 * memory by whichever thread is free and written in order by the thread whose block is next, so
 * the bytes are those of one thread.  At most AHEAD blocks per thread wait to be written: the
 * memory stays small and is reused, not faulted in afresh.
 */
#define BLOCK_ROWS 512
#define AHEAD 4

struct block {
	struct mf_strbuf sb; /* kept from block to block: its memory is reused */
	bool ready;
};

struct conveyor {
	const struct rows *w;
	FILE *out;
	size_t n, nblocks, nslots;
	size_t next;    /* the next block to format */
	size_t written; /* blocks written */
	bool writing;   /* a thread is writing blocks */
	int rc;
	struct block *slot; /* block b in slot[b % nslots] */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* Formats block b into its slot (the lock not held). */
static void format_block(struct conveyor *c, size_t b, struct block *k)
{
	size_t from = b * BLOCK_ROWS, to = from + BLOCK_ROWS < c->n ? from + BLOCK_ROWS : c->n;
	k->sb.len = 0;
	write_rows(&k->sb, c->w, from, to);
}

static void *conveyor_run(void *arg)
{
	struct conveyor *c = arg;
	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct block *k;
		size_t b;
		/* Write what is ready, in order, one thread at a time. */
		if (!c->writing && c->written < c->nblocks && c->slot[c->written % c->nslots].ready) {
			c->writing = true;
			while (c->written < c->nblocks && (k = &c->slot[c->written % c->nslots])->ready) {
				pthread_mutex_unlock(&c->lock);
				if (k->sb.failed)
					c->rc = MF_ENOMEM;
				else if (!c->rc && fwrite(k->sb.buf, 1, k->sb.len, c->out) != k->sb.len)
					c->rc = MF_EIO;
				pthread_mutex_lock(&c->lock);
				k->ready = false;
				c->written++;
			}
			c->writing = false;
			pthread_cond_broadcast(&c->cond);
			continue;
		}
		if (c->written == c->nblocks)
			break;
		/* Else format the next block, if its slot is free. */
		if (c->next < c->nblocks && c->next < c->written + c->nslots) {
			b = c->next++;
			k = &c->slot[b % c->nslots];
			pthread_mutex_unlock(&c->lock);
			format_block(c, b, k);
			pthread_mutex_lock(&c->lock);
			k->ready = true;
			pthread_cond_broadcast(&c->cond);
			continue;
		}
		pthread_cond_wait(&c->cond, &c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* The rows by one thread, a block at a time through one buffer. */
static int write_serial(FILE *fp, const struct rows *w)
{
	struct mf_strbuf sb;
	size_t n = w->rep->ngroups, from;
	int rc = 0;
	mf_strbuf_init(&sb);
	for (from = 0; from < n && !rc; from += BLOCK_ROWS) {
		sb.len = 0;
		write_rows(&sb, w, from, from + BLOCK_ROWS < n ? from + BLOCK_ROWS : n);
		if (sb.failed)
			rc = MF_ENOMEM;
		else if (fwrite(sb.buf, 1, sb.len, fp) != sb.len)
			rc = MF_EIO;
	}
	mf_strbuf_free(&sb);
	return rc;
}

static void conveyor_share(void *ctx, size_t i)
{
	(void)i;
	conveyor_run(ctx);
}

static int write_all_rows(FILE *fp, const struct rows *w)
{
	size_t n = w->rep->ngroups, nt = w->rep->jobs < 64 ? w->rep->jobs : 64, i;
	struct conveyor c;
	if (nt < 2 || n < 4096)
		return write_serial(fp, w);
	memset(&c, 0, sizeof(c));
	c.w = w;
	c.out = fp;
	c.n = n;
	c.nblocks = (n + BLOCK_ROWS - 1) / BLOCK_ROWS;
	c.nslots = AHEAD * nt;
	c.slot = calloc(c.nslots, sizeof(*c.slot));
	if (!c.slot)
		return write_serial(fp, w);
	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.cond, NULL);
	/* Every share runs the conveyor until the last block is written. */
	mf_run_shares(nt, conveyor_share, &c);
	pthread_mutex_destroy(&c.lock);
	pthread_cond_destroy(&c.cond);
	for (i = 0; i < c.nslots; i++)
		mf_strbuf_free(&c.slot[i].sb);
	free(c.slot);
	return c.rc;
}

/* The streamed rows (stream.c), in order, a block at a time through one buffer. */
struct streamed {
	const struct rows *w;
	FILE *fp;
	struct mf_strbuf sb;
	size_t n;
};

static int streamed_put(struct streamed *s)
{
	int rc = 0;
	if (s->sb.failed)
		rc = MF_ENOMEM;
	else if (fwrite(s->sb.buf, 1, s->sb.len, s->fp) != s->sb.len)
		rc = MF_EIO;
	s->sb.len = 0;
	s->n = 0;
	return rc;
}

static int streamed_row(void *ctx, const struct mf_group *g, const struct mf_result *r, uint64_t expected,
			const struct mf_row_times *t)
{
	struct streamed *s = ctx;
	write_row(&s->sb, s->w, g, r, expected, t);
	return ++s->n == BLOCK_ROWS ? streamed_put(s) : 0;
}

static int write_streamed(FILE *fp, const struct rows *w)
{
	struct streamed s = {w, fp, {0}, 0};
	int rc;
	mf_strbuf_init(&s.sb);
	rc = mf_stream_each(w->rep->stream, streamed_row, &s);
	if (!rc)
		rc = streamed_put(&s);
	mf_strbuf_free(&s.sb);
	return rc;
}

int mf_out_csv(FILE *fp, const struct mf_report *rep)
{
	size_t nkeys, k;

	const char **keys = mf_report_keys(rep, &nkeys);
	int *map = keys ? mf_report_key_map(rep, keys, nkeys) : NULL;
	uint64_t *own = NULL;
	const uint64_t *expected = rep->stream ? NULL : mf_report_expected(rep, &own);
	unsigned extra[MF_EXTRA_KEYS_MAX];
	size_t nextra;
	int rc;

	if (!keys || !map || (!expected && !rep->stream)) {
		free(keys);
		free(map);
		free(own);
		return MF_ENOMEM;
	}

	nextra = mf_report_extra_keys(rep, extra);
	fputs("system,lpar,pool,cpu", fp);
	for (k = 0; k < nextra; k++)
		fprintf(fp, ",%s", mf_by_name(extra[k]));
	fputs(",interval_start,period_start,period_end,interval_seconds,machine,cpus,cpus_expected", fp);
	for (k = 0; k < nkeys; k++) {
		fputc(',', fp);
		fputs(keys[k], fp);
	}
	fputc('\n', fp);
	{
		struct rows w = {rep, keys, nkeys, map, expected, {0}, nextra, 0};
		/* A terminal would act on control characters in names: shown as \xNN there, kept in files. */
		if (isatty(fileno(fp)))
			w.text_flags = MF_ESCAPE_CSV_TERMINAL;
		memcpy(w.extra, extra, sizeof(extra));
		rc = rep->stream ? write_streamed(fp, &w) : write_all_rows(fp, &w);
	}
	free(keys);
	free(map);
	free(own);
	return rc ? rc : ferror(fp) ? MF_EIO : 0;
}
