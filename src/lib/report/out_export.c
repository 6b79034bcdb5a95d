/* SPDX-License-Identifier: MIT */
/* mfstat export: groups written back as canonical counter CSV (see mfstat/report/export.h). */
#include "mfstat/report/export.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mfstat/base/escape.h"
#include "mfstat/base/strbuf.h"
#include "mfstat/base/error.h"
#include "mfstat/base/timefmt.h"

/* Which optional identity columns some group has a value for. */
struct cols {
	bool system, lpar, pool, cpu, polarity, weight, drawer, chip, machine, cpsp, start, seconds, offset, rmf;
};

/* A counter column: its name, and its slot on each family (looked up once per family). */
struct ccol {
	const char *name;
};

struct fam_slots {
	const struct mf_family *fam;
	int *slot; /* per counter column, or -1 */
};

struct exp {
	struct ccol *c;
	size_t nc, capc;
	struct fam_slots *fs;
	size_t nfs;
};

/* The name a counter is written under: IBM's short name, or a named family's own. */
static const char *counter_name(const struct mf_family *fam, const struct mf_counter *ctr)
{
	if (fam->named || !ctr->short_name)
		return ctr->linux_name ? ctr->linux_name : ctr->short_name;
	return ctr->short_name;
}

static int add_counter_col(struct exp *x, const char *name)
{
	size_t i;
	for (i = 0; i < x->nc; i++)
		if (strcasecmp(x->c[i].name, name) == 0)
			return 0;
	if (x->nc == x->capc) {
		size_t cap = x->capc ? 2 * x->capc : 64;
		struct ccol *n = realloc(x->c, cap * sizeof(*n));
		if (!n)
			return MF_ENOMEM;
		x->c = n;
		x->capc = cap;
	}
	x->c[x->nc++].name = name;
	return 0;
}

/* The family's slot of each counter column. */
static const struct fam_slots *slots_of(struct exp *x, const struct mf_family *fam)
{
	struct fam_slots *n;
	size_t i, k;
	for (i = 0; i < x->nfs; i++)
		if (x->fs[i].fam == fam)
			return &x->fs[i];
	n = realloc(x->fs, (x->nfs + 1) * sizeof(*n));
	if (!n)
		return NULL;
	x->fs = n;
	n = &x->fs[x->nfs];
	n->fam = fam;
	n->slot = malloc((x->nc + 1) * sizeof(*n->slot));
	if (!n->slot)
		return NULL;
	for (k = 0; k < x->nc; k++) {
		n->slot[k] = -1;
		for (i = 0; i < fam->ncounters; i++)
			if (strcasecmp(counter_name(fam, &fam->counters[i]), x->c[k].name) == 0) {
				n->slot[k] = (int)i;
				break;
			}
	}
	x->nfs++;
	return n;
}

/* Per family met, which of its counters already have their column (the column pass). */
struct seen {
	struct {
		const struct mf_family *fam;
		unsigned char *done; /* per counter of the family */
	} * f;
	size_t n;
	size_t last; /* the entry of the last family asked: groups come in runs of a family */
};

static unsigned char *seen_of(struct seen *s, const struct mf_family *fam)
{
	size_t i;
	void *n;
	if (s->n && s->f[s->last].fam == fam)
		return s->f[s->last].done;
	for (i = 0; i < s->n; i++)
		if (s->f[i].fam == fam) {
			s->last = i;
			return s->f[i].done;
		}
	n = realloc(s->f, (s->n + 1) * sizeof(*s->f));
	if (!n)
		return NULL;
	s->f = n;
	s->f[s->n].fam = fam;
	s->f[s->n].done = calloc(fam->ncounters + 1, 1);
	if (!s->f[s->n].done)
		return NULL;
	s->last = s->n++;
	return s->f[s->last].done;
}

static bool bit(const uint64_t *w, size_t slot)
{
	return (w[slot >> 6] >> (slot & 63)) & 1;
}

/*
 * A system or LPAR name: valid UTF-8, never taken for a formula, and read back
 * as the same bytes (MF_ESCAPE_CSV_DATA: a name that starts with ' or a formula
 * character, or holds bytes that are not UTF-8, gets a ' and escapes that
 * in_csv.c undoes); on a terminal, control characters as \xNN.
 */
static void cell_text(struct mf_strbuf *sb, const char *s, unsigned flags)
{
	mf_escape_csv(sb, s, MF_ESCAPE_CSV_DATA | flags);
}

/* Nanoseconds as seconds with up to nine decimals, exact: 900, 899.999876. */
static void put_ns(struct mf_strbuf *sb, int64_t ns)
{
	char frac[16];
	size_t k;
	if (ns < 0) {
		mf_strbuf_putc(sb, '-');
		ns = -ns;
	}
	mf_strbuf_i64(sb, ns / 1000000000);
	if (ns % 1000000000 == 0)
		return;
	/* ".%09d" without its trailing zeros */
	ns %= 1000000000;
	frac[0] = '.';
	for (k = 9; k >= 1; k--) {
		frac[k] = (char)('0' + ns % 10);
		ns /= 10;
	}
	k = 10;
	while (frac[k - 1] == '0')
		k--;
	mf_strbuf_add(sb, frac, k);
}

/* A double that reads back to the same value, in the shortest of %.15g to %.17g. */
static void put_double(struct mf_strbuf *sb, double v)
{
	char b[40];
	mf_strbuf_add(sb, b, (size_t)mf_fmt_roundtrip(v, b));
}

static bool group_cpsp(const struct mf_group *g, double *v)
{
	if (g->rows == 0 || g->ncpsp != g->rows || g->cpsp_min != g->cpsp_max || g->nnominal)
		return false;
	*v = g->cpsp_min;
	return true;
}

static bool group_start(const struct mf_group *g, int64_t *us)
{
	int64_t end;
	if (g->has_start) {
		*us = g->start_us;
		return true;
	}
	return mf_group_period(g, us, &end);
}

static void header(struct mf_strbuf *sb, const struct cols *c, const struct exp *x)
{
	static const char *const names[] = {"system",
					    "lpar",
					    "pool",
					    "cpu",
					    "polarity",
					    "lpar_weight",
					    "drawer",
					    "chip",
					    "machine",
					    "cpsp",
					    "interval_start",
					    "interval_seconds",
					    "utc_offset_minutes",
					    "rmf_busy_seconds"};
	const bool on[] = {c->system, c->lpar,    c->pool, c->cpu,   c->polarity, c->weight, c->drawer,
			   c->chip,   c->machine, c->cpsp, c->start, c->seconds,  c->offset, c->rmf};
	bool first = true;
	size_t i;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!on[i])
			continue;
		if (!first)
			mf_strbuf_putc(sb, ',');
		mf_strbuf_puts(sb, names[i]);
		first = false;
	}
	for (i = 0; i < x->nc; i++) {
		if (!first)
			mf_strbuf_putc(sb, ',');
		mf_strbuf_puts(sb, x->c[i].name);
		first = false;
	}
	mf_strbuf_putc(sb, '\n');
}

/* One field separator, but none before the first field. */
#define SEP()                                                                                                          \
	do {                                                                                                           \
		if (!first)                                                                                            \
			mf_strbuf_putc(sb, ',');                                                                       \
		first = false;                                                                                         \
	} while (0)

static int row(struct mf_strbuf *sb, const struct cols *c, struct exp *x, const struct mf_group *g,
	       const struct mf_strtab *tab, unsigned flags, struct mf_export_stats *st)
{
	const struct fam_slots *fs = slots_of(x, g->family);
	bool first = true, partial = false, over = false;
	double v;
	int64_t us;
	size_t i;

	if (!fs)
		return MF_ENOMEM;
	if (c->system) {
		SEP();
		cell_text(sb, g->system ? mf_strtab_get(tab, g->system) : NULL, flags);
	}
	if (c->lpar) {
		SEP();
		cell_text(sb, g->lpar ? mf_strtab_get(tab, g->lpar) : NULL, flags);
	}
	if (c->pool) {
		SEP();
		if (g->pool != MF_POOL_NONE)
			mf_strbuf_puts(sb, mf_pool_name(g->pool));
	}
	if (c->cpu) {
		SEP();
		if (g->cpu >= 0)
			mf_strbuf_i64(sb, g->cpu);
	}
	if (c->polarity) {
		SEP();
		if (g->polarity != MF_POL_NONE)
			mf_strbuf_puts(sb, mf_polarity_name(g->polarity));
	}
	if (c->weight) {
		SEP();
		if (g->lpar_weight >= 0)
			mf_strbuf_i64(sb, g->lpar_weight);
	}
	if (c->drawer) {
		SEP();
		if (g->drawer >= 0)
			mf_strbuf_i64(sb, g->drawer);
	}
	if (c->chip) {
		SEP();
		if (g->chip >= 0)
			mf_strbuf_i64(sb, g->chip);
	}
	if (c->machine) {
		SEP();
		if (g->machine)
			mf_strbuf_u64(sb, g->machine->type);
		else if (g->family->ncounters && strcmp(g->family->key, "generic") != 0)
			mf_strbuf_puts(sb, g->family->display);
	}
	if (c->cpsp) {
		SEP();
		if (group_cpsp(g, &v))
			put_double(sb, v);
		else if (g->ncpsp && g->nnominal != g->rows && st)
			st->mixed_cpsp++;
	}
	if (c->start) {
		SEP();
		if (group_start(g, &us)) {
			char t[48];
			mf_time_format(us, t, sizeof(t));
			mf_strbuf_puts(sb, t);
		}
	}
	if (c->seconds) {
		SEP();
		v = mf_group_interval_seconds(g);
		if (!isnan(v))
			put_ns(sb, llround(v * 1e9));
	}
	if (c->offset) {
		SEP();
		if (g->has_offset)
			mf_strbuf_i64(sb, g->utc_offset_s / 60);
	}
	if (c->rmf) {
		SEP();
		if (g->rows && g->rmf_rows == g->rows)
			put_ns(sb, g->rmf_busy_ns);
	}
	for (i = 0; i < x->nc; i++) {
		int s = fs->slot[i];
		SEP();
		if (s < 0 || !bit(g->present_any, (size_t)s))
			continue;
		if (!bit(g->present_all, (size_t)s)) {
			partial = true;
			continue;
		}
		if (bit(g->overflow, (size_t)s)) {
			over = true;
			continue;
		}
		mf_strbuf_u64(sb, mf_group_sum(g, s));
	}
	mf_strbuf_putc(sb, '\n');
	if (st) {
		st->rows++;
		st->partial += partial;
		st->overflow += over;
		st->merged += g->rows > 1;
	}
	return 0;
}

int mf_export_csv(struct mf_group *const *groups, size_t n, const struct mf_strtab *tab, bool terminal,
		  int (*put)(void *ctx, const char *s, size_t len), void *ctx, struct mf_export_stats *stats)
{
	struct exp x;
	struct cols c;
	struct seen seen = {0};
	struct mf_strbuf sb;
	size_t i, k;
	int rc = 0;

	memset(&x, 0, sizeof(x));
	memset(&c, 0, sizeof(c));
	if (stats)
		memset(stats, 0, sizeof(*stats));
	/* The columns: the identity fields some group has, the counters some group's rows had. */
	for (i = 0; i < n && !rc; i++) {
		const struct mf_group *g = groups[i];
		const struct mf_family *fam = g->family;
		unsigned char *done;
		double v;
		int64_t us;
		c.system |= g->system != 0;
		c.lpar |= g->lpar != 0;
		c.pool |= g->pool != MF_POOL_NONE;
		c.cpu |= g->cpu >= 0;
		c.polarity |= g->polarity != MF_POL_NONE;
		c.weight |= g->lpar_weight >= 0;
		c.drawer |= g->drawer >= 0;
		c.chip |= g->chip >= 0;
		c.machine |= g->machine || strcmp(fam->key, "generic") != 0;
		c.cpsp |= group_cpsp(g, &v);
		c.start |= group_start(g, &us);
		c.seconds |= !isnan(mf_group_interval_seconds(g));
		c.offset |= g->has_offset;
		c.rmf |= g->rows && g->rmf_rows == g->rows;
		/* Each counter of a family is looked up among the columns once, at the first group
		 * that has it: the columns keep the order of first appearance. */
		done = seen_of(&seen, fam);
		if (!done) {
			rc = MF_ENOMEM;
			break;
		}
		for (k = 0; k < fam->ncounters && !rc; k++)
			if (!done[k] && bit(g->present_any, k)) {
				done[k] = 1;
				rc = add_counter_col(&x, counter_name(fam, &fam->counters[k]));
			}
	}
	for (i = 0; i < seen.n; i++)
		free(seen.f[i].done);
	free(seen.f);
	/* No group at all (a file of a header only): still a counter CSV that report reads. */
	if (n == 0)
		c.system = c.lpar = c.pool = c.cpu = c.machine = c.cpsp = c.start = c.seconds = true;
	mf_strbuf_init(&sb);
	if (!rc) {
		header(&sb, &c, &x);
		for (i = 0; i < n && !rc; i++) {
			rc = row(&sb, &c, &x, groups[i], tab, terminal ? MF_ESCAPE_CSV_TERMINAL : 0, stats);
			if (!rc && sb.failed)
				rc = MF_ENOMEM;
			if (!rc && (sb.len >= 1 << 16 || i + 1 == n)) {
				rc = put(ctx, mf_strbuf_str(&sb), sb.len);
				sb.len = 0;
			}
		}
		if (!rc && sb.failed)
			rc = MF_ENOMEM;
		if (!rc && n == 0)
			rc = put(ctx, mf_strbuf_str(&sb), sb.len);
	}
	mf_strbuf_free(&sb);
	for (i = 0; i < x.nfs; i++)
		free(x.fs[i].slot);
	free(x.fs);
	free(x.c);
	return rc;
}
