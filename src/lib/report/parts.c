/* SPDX-License-Identifier: MIT */
/* The -j parts of the report pipeline: cutting a CSV file, reading parts at once, the check that they give what one reading gives. */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parts.h"

#include "mfstat/base/shares.h"
#include "mfstat/input/sample.h"

/* Below this a file is read in one piece: threads cost more than they give. */
#define PART_MIN ((size_t)4 << 20)

/* Sets flag id of a growing array of flags; returns whether it was clear, or MF_ENOMEM. */
int mf_flag_mark(uint8_t **flags, size_t *n, uint32_t id)
{
	if (id >= *n) {
		size_t size = (size_t)id * 2 + 64;
		uint8_t *f = realloc(*flags, size);
		if (!f)
			return MF_ENOMEM;
		memset(f + *n, 0, size - *n);
		*flags = f;
		*n = size;
	}
	if ((*flags)[id])
		return 0;
	(*flags)[id] = 1;
	return 1;
}

void mf_left_span_add(struct mf_left_span *x, const struct mf_sample *s)
{
	struct mf_left_span one; /* the sample's own span, merged */
	if (!s->has_start)
		return;
	one.any = true;
	one.start_us = s->start_us;
	one.end_us = s->start_us + (isfinite(s->seconds) && s->seconds > 0 ? (int64_t)(s->seconds * 1e6 + 0.5) : 0);
	one.start_has_off = one.end_has_off = s->has_offset;
	one.start_off = one.end_off = s->utc_offset_s;
	mf_left_span_merge(x, &one);
}

void mf_left_span_merge(struct mf_left_span *x, const struct mf_left_span *y)
{
	if (!y->any)
		return;
	if (!x->any || y->start_us < x->start_us) {
		x->start_us = y->start_us;
		x->start_has_off = y->start_has_off;
		x->start_off = y->start_off;
	}
	if (!x->any || y->end_us > x->end_us) {
		x->end_us = y->end_us;
		x->end_has_off = y->end_has_off;
		x->end_off = y->end_off;
	}
	x->any = true;
}

void mf_part_free(struct part *t)
{
	free(t->left_sys);
	mf_grouper_free(t->grp);
	mf_grouper_free(t->igrp);
	mf_grouper_free(t->lgrp);
	mf_dedup_free(t->dd);
	mf_strtab_free(t->tab);
	free(t->s);
	free(t->s_ahead);
	free(t->kept);
	mf_reader_close(t->r);
	mf_lparmap_free(t->lpar);
}

/* Whether another part said stop: this one then ends where it is, left to the whole reading. */
static bool stopped(struct part *t)
{
	if (!t->stop || !__atomic_load_n(t->stop, __ATOMIC_RELAXED))
		return false;
	t->fallback = true;
	return true;
}

/* Tells the other parts to stop: always beyond --max-groups (limit), else for the parts of one file. */
static void stop_parts(struct part *t, bool limit)
{
	if (t->stop && (limit || t->stop_all))
		__atomic_store_n(t->stop, 1, __ATOMIC_RELAXED);
}

/*
 * Groups s into the part's tables, each bounded by --max-groups as the whole reading's are:
 * 0, or nonzero when the part is to be read whole (out of memory, or beyond the limit: every
 * part then stops, and the whole reading stops at the row where the limit is passed, so that
 * -j N says what -j 1 says with the memory of at most max_groups groups a part).  The interval
 * groups beyond the limit are dropped, as the whole reading drops them.
 */
static int part_group(struct part *t, const struct mf_sample *s)
{
	int got = mf_grouper_add(t->grp, s);
	if (!got && t->lgrp && s->lpar_joined)
		got = mf_grouper_add(t->lgrp, s);
	if (!got && t->igrp) {
		int igot = mf_grouper_add(t->igrp, s);
		if (igot == MF_ELIMIT) {
			mf_grouper_free(t->igrp);
			t->igrp = NULL;
			t->idropped = true;
		} else {
			got = igot;
		}
	}
	if (got == MF_ELIMIT)
		stop_parts(t, true);
	return got;
}

/* A worker: reads its part as drain and take_sample read a whole file, into its own tables. */
static void part_run(struct part *t)
{
	const struct mf_part_cfg *p = t->p;
	struct mf_reader_opts ro = p->ro;
	struct mf_reader *r = NULL;
	struct mf_error e;
	struct mf_sample *cur = t->s, *next = t->s_ahead;
	int got, dup;

	ro.strtab = t->tab;
	ro.lpar = t->lpar;
	if (!t->whole)
		ro.format = "csv";
	mf_error_clear(&e);
	if (stopped(t))
		return;
	if (t->reserve)
		mf_parts_reserve_rows(t->dd, NULL, t->fd, t->off, t->len);
	if (t->whole ? mf_reader_open(&r, t->name, &ro, &e)
		     : mf_reader_open_range(&r, t->name, t->head, t->hlen, t->fd, t->off, t->len, &ro, &e)) {
		t->fallback = true;
		return;
	}
	/* One row ahead, as drain reads (a part's errors are not said: the whole reading says them). */
	got = mf_reader_next(r, cur, &e);
	while (!t->fallback && got != 0) {
		struct mf_sample *s = cur;
		int ahead;
		if (stopped(t))
			break;
		if (got != 1) {
			t->fallback = true; /* errors and skipping are said exactly by the whole reading */
			break;
		}
		mf_dedup_prefetch(t->dd, s);
		ahead = mf_reader_next(r, next, &e);
		cur = next;
		next = s;
		got = ahead;
		s->input = t->input;
		if (p->o.select) {
			enum mf_select_why why = mf_select_check(p->o.select, s, t->tab);
			if (why != MF_SELECT_KEEP) {
				t->rows++;
				t->left_out[why]++;
				mf_left_span_add(&t->left, s);
				if (s->system && mf_flag_mark(&t->left_sys, &t->nleft_sys, s->system) < 0)
					t->fallback = true;
				continue;
			}
		}
		if (p->o.tz && mf_tz_per_record(p->o.tz)) {
			if (s->has_offset)
				t->with_offset++;
			else
				t->no_offset++;
		}
		if ((dup = mf_dedup_check(t->dd, t->name, s, &e)) == MF_DEDUP_DUPLICATE) {
			t->rows++;
			t->duplicates++;
			continue;
		}
		if (dup != MF_DEDUP_KEEP) {
			t->fallback = true;
			break;
		}
		t->rows++;
		if ((s->system && mf_flag_mark(&t->kept, &t->nkept, s->system) < 0) || part_group(t, s))
			t->fallback = true;
	}
	if (t->fallback)
		stop_parts(t, false);
	if (t->whole) {
		/* A whole file's warnings are its own: kept with its reader.  Records of the LPAR view
		 * that the first pass did not see would join otherwise: read it alone. */
		if (mf_lparmap_nintervals(t->lpar) || mf_lparmap_ntopos(t->lpar))
			t->fallback = true;
		t->r = r;
		return;
	}
	if (mf_reader_nwarnings(r))
		t->fallback = true; /* a reader's warning counts rows of the whole file */
	t->lines = mf_reader_lines(r) - 1;
	mf_reader_close(r);
	if (!t->fallback) {
		/* The part's groups sorted here, in its thread: the merge keeps their order (mf_grouper_take_sorted). */
		size_t n;
		(void)mf_grouper_sort(t->grp, t->tab, 1, &n);
	}
}

/*
 * Room in the duplicate table for the rows of a plain CSV file (path, or fd) from byte off for
 * len bytes (-1: to its end), estimated from the lines of its first 64 KiB, so that the table is
 * made once at its size rather than doubled and copied as it fills.  Nothing for a compressed
 * file or one that cannot be read: the table then grows as before.
 */
static int column_of(const char *head, size_t len, const char *name);

void mf_parts_reserve_rows(struct mf_dedup *dd, const char *path, int fd, long long off, long long len)
{
	char buf[1 << 16];
	struct stat st;
	ssize_t got;
	size_t lines = 0, i;
	int own = -1;
	if (fd < 0) {
		if (!path || strcmp(path, "-") == 0 || (own = fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			return;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (got = pread(fd, buf, sizeof(buf), (off_t)off)) > 4 &&
	    !((unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b) &&
	    !((unsigned char)buf[0] == 0x28 && (unsigned char)buf[1] == 0xb5 && (unsigned char)buf[2] == 0x2f)) {
		if (len < 0)
			len = (long long)st.st_size - off;
		const char *nl = memchr(buf, '\n', (size_t)got);
		for (i = 0; i < (size_t)got; i++)
			lines += buf[i] == '\n';
		/* From the header (a whole file): only rows with a system and a start are checked. */
		if (off == 0 && (!nl || column_of(buf, (size_t)(nl - buf), "system") < 0 ||
				 column_of(buf, (size_t)(nl - buf), "interval_start") < 0))
			lines = 0;
		/* A sample of fewer than 16 lines says too little about the rest. */
		if (lines >= 16)
			(void)mf_dedup_reserve(dd, (size_t)((double)len * (double)lines / (double)got));
	}
	if (own >= 0)
		close(own);
}

/* A part's own tables, like the pipeline's; a table that cannot be made leaves the part to the whole reading. */
void mf_part_init(const struct mf_part_cfg *p, struct part *t, uint32_t input)
{
	t->p = p;
	t->input = input;
	t->tab = mf_strtab_new();
	t->grp = mf_grouper_new(p->o.by);
	t->igrp = p->igrp ? mf_grouper_new((p->o.by & ~(unsigned)MF_BY_TIME) | MF_BY_INTERVAL) : NULL;
	t->lgrp = p->lgrp ? mf_grouper_new(MF_BY_SYSTEM | MF_BY_LPAR) : NULL;
	t->dd = mf_dedup_new();
	t->s = malloc(sizeof(*t->s));
	t->s_ahead = malloc(sizeof(*t->s_ahead));
	if (!t->tab || !t->grp || (p->igrp && !t->igrp) || (p->lgrp && !t->lgrp) || !t->dd || !t->s || !t->s_ahead)
		t->fallback = true;
	if (t->grp) {
		mf_grouper_set_tz(t->grp, p->o.tz);
		mf_grouper_set_max_groups(t->grp, p->o.max_groups);
		mf_grouper_set_layouts(t->grp, p->layouts, p->nlayouts); /* the same as the pipeline's: they merge */
	}
	if (t->igrp) {
		mf_grouper_set_tz(t->igrp, p->o.tz);
		mf_grouper_set_max_groups(t->igrp, p->o.max_groups);
	}
	if (t->lgrp)
		mf_grouper_set_max_groups(t->lgrp, p->o.max_groups);
}

static void part_share(void *ctx, size_t i)
{
	struct part *t = ctx;
	if (!t[i].fallback) /* a part whose tables could not be made is left to the whole reading */
		part_run(&t[i]);
}

/* Reads the parts at once, a thread each, and waits for them. */
void mf_parts_run(struct part *t, size_t n)
{
	mf_run_shares(n, part_share, t);
}

/* The name ids of tab mapped to the string table into (map[0] = 0); NULL on ENOMEM. */
static uint32_t *name_map(struct mf_strtab *into, const struct mf_strtab *tab, size_t *n)
{
	size_t cap = 64, k;
	uint32_t *map = malloc(cap * sizeof(*map));
	const char *name;
	if (!map)
		return NULL;
	map[0] = 0;
	for (k = 1; (name = mf_strtab_get(tab, (uint32_t)k)) != NULL; k++) {
		if (k == cap) {
			uint32_t *nm = realloc(map, (cap *= 2) * sizeof(*map));
			if (!nm) {
				free(map);
				return NULL;
			}
			map = nm;
		}
		map[k] = mf_strtab_intern(into, name, strlen(name));
		if (!map[k]) {
			free(map);
			return NULL;
		}
	}
	*n = k;
	return map;
}

/* The reverse of map (an id of into's table to the part's, 0 where the part has none). */
static uint32_t *reverse_map(const uint32_t *map, size_t nmap, size_t *nrev)
{
	size_t k, n = 1;
	uint32_t *rev;
	for (k = 1; k < nmap; k++)
		if (map[k] + 1 > n)
			n = map[k] + 1;
	rev = calloc(n, sizeof(*rev));
	if (!rev)
		return NULL;
	for (k = 1; k < nmap; k++)
		rev[map[k]] = (uint32_t)k;
	*nrev = n;
	return rev;
}

/* parts_disjoint's work: share i of ns checks its share of the parts' identities. */
struct disjoint_work {
	const struct mf_dedup *into;
	const struct mf_dedup_part *parts;
	size_t n, ns;
	int disjoint[64];
};

static void disjoint_share(void *ctx, size_t i)
{
	struct disjoint_work *w = ctx;
	w->disjoint[i] = mf_dedup_parts_disjoint_share(w->into, w->parts, w->n, i, w->ns);
}

/* mf_dedup_parts_disjoint with the threads of -j (the tables are only read). */
static int parts_disjoint(const struct mf_dedup *dd, unsigned jobs, const struct mf_dedup_part *dp, size_t nt)
{
	struct disjoint_work w = {dd, dp, nt, jobs < 64 ? jobs : 64, {0}};
	size_t i;
	int all = 1;
	if (w.ns < 1)
		w.ns = 1;
	mf_run_shares(w.ns, disjoint_share, &w);
	for (i = 0; i < w.ns; i++)
		all &= w.disjoint[i];
	return all;
}

int mf_parts_pending_flush(struct mf_parts_pending *pend, struct mf_dedup *dd)
{
	int rc = pend->n ? mf_dedup_add_parts(dd, pend->dp, pend->n) : 0;
	mf_parts_pending_drop(pend);
	return rc;
}

void mf_parts_pending_drop(struct mf_parts_pending *pend)
{
	size_t i;
	for (i = 0; i < pend->n; i++) {
		mf_dedup_free((struct mf_dedup *)pend->dp[i].d);
		free(pend->maps[2 * i]);
		free(pend->maps[2 * i + 1]);
	}
	free(pend->dp);
	free(pend->maps);
	pend->dp = NULL;
	pend->maps = NULL;
	pend->n = 0;
}

int mf_parts_map(struct mf_strtab *tab, const struct mf_dedup *dd, unsigned jobs, const struct part *t, size_t nt,
		 struct mf_parts_pending *pend)
{
	struct mf_dedup_part *dp = calloc(nt, sizeof(*dp));
	uint32_t **maps = calloc(2 * nt, sizeof(*maps));
	long offset = 0;
	size_t i;
	int rc = 0;

	pend->dp = NULL;
	pend->maps = NULL;
	pend->n = 0;
	if (!dp || !maps)
		rc = MF_ENOMEM;
	for (i = 0; i < nt && !rc; i++) {
		dp[i].d = t[i].dd;
		dp[i].line_offset = offset;
		offset += t[i].lines;
		if (!(maps[2 * i] = name_map(tab, t[i].tab, &dp[i].nmap)) ||
		    !(maps[2 * i + 1] = reverse_map(maps[2 * i], dp[i].nmap, &dp[i].nrev)))
			rc = MF_ENOMEM;
		dp[i].map = maps[2 * i];
		dp[i].rev = maps[2 * i + 1];
	}
	if (!rc && !parts_disjoint(dd, jobs, dp, nt))
		rc = 1;
	if (rc) {
		if (maps)
			for (i = 0; i < 2 * nt; i++)
				free(maps[i]);
		free(maps);
		free(dp);
		return rc;
	}
	pend->dp = dp;
	pend->maps = maps;
	pend->n = nt;
	return 0;
}

/* The column named name in a header line (0-based; names as the reader takes them), or -1. */
static int column_of(const char *head, size_t len, const char *name)
{
	size_t want = strlen(name);
	const char *p = head, *end = head + len;
	int col = 0;
	while (p < end && *p != '\n' && *p != '\r') {
		const char *f = p, *e;
		size_t n;
		while (p < end && *p != ',' && *p != '\n' && *p != '\r')
			p++;
		for (e = p; e > f && (e[-1] == ' ' || e[-1] == '"'); e--)
			;
		while (f < e && (*f == ' ' || *f == '"'))
			f++;
		n = (size_t)(e - f);
		if (n == want && strncasecmp(f, name, want) == 0)
			return col;
		col++;
		if (p < end && *p == ',')
			p++;
	}
	return -1;
}

/* Field col of the line at l (up to eol): its text in *f, *n; false when a quote comes first. */
static bool line_field(const char *l, const char *eol, int col, const char **f, size_t *n)
{
	const char *p = l;
	int c;
	for (c = 0; c < col; c++) {
		while (p < eol && *p != ',' && *p != '"')
			p++;
		if (p == eol || *p == '"')
			return false;
		p++;
	}
	*f = p;
	while (p < eol && *p != ',' && *p != '"')
		p++;
	if (p < eol && *p == '"')
		return false;
	*n = (size_t)(p - *f);
	return true;
}

/*
 * A cut between intervals: from the line that starts at end, the start of the first line whose
 * interval_start (column col) differs from that line's, so that in a file in time order each
 * interval is read by one part and the parts' times do not overlap.  end itself when no such
 * line comes within a few MiB (or a quote is in the way): the cut stays where it was.
 */
static long long interval_cut(int fd, long long end, long long size, int col)
{
	enum { WIN = 1 << 20, WINDOWS = 8 };
	char *buf = malloc(WIN), first[64];
	size_t nfirst = 0;
	bool have = false;
	long long at = end, found = end;
	int w;
	if (!buf)
		return end;
	for (w = 0; w < WINDOWS && at < size; w++) {
		ssize_t got = pread(fd, buf, WIN, (off_t)at);
		const char *l = buf, *stop, *eol;
		if (got <= 0)
			break;
		stop = buf + got;
		while ((eol = memchr(l, '\n', (size_t)(stop - l))) != NULL) {
			const char *f;
			size_t n;
			if (!line_field(l, eol, col, &f, &n) || n > sizeof(first))
				goto out;
			if (!have) {
				memcpy(first, f, n);
				nfirst = n;
				have = true;
			} else if (n != nfirst || memcmp(f, first, n) != 0) {
				found = at + (l - buf);
				goto out;
			}
			l = eol + 1;
		}
		if (l == buf)
			break; /* a line longer than the window */
		at += l - buf;
	}
out:
	free(buf);
	return found;
}

/*
 * A plain CSV file read in parts at once: 0 when read (whether the parts give what reading it
 * whole gives is the caller's check), 1 when it is not for parts (small, compressed, another
 * format), or MF_ENOMEM (*nt parts could not be started).
 */
int mf_parts_read(const struct mf_part_cfg *p, const char *name, uint32_t input, struct part **tp, size_t *ntp)
{
	struct stat st;
	char head[1 << 16], win[1 << 12];
	const char *hend;
	long long size, at;
	size_t nt, i;
	ssize_t got;
	struct part *t;
	int fd, scol, stop = 0;
	bool checked; /* rows have what the duplicate check needs: a system and an interval start */

	if (p->o.jobs < 2 || (p->o.format && strcmp(p->o.format, "csv") != 0) || strcmp(name, "-") == 0)
		return 1;
	*ntp = 0;
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size < 2 * PART_MIN ||
	    (got = pread(fd, head, sizeof(head), 0)) < 4) {
		close(fd);
		return 1;
	}
	size = (long long)st.st_size;
	/* Compressed files (gzip, zstd) are read whole; so is a header longer than the window. */
	if ((head[0] == 0x1f && (unsigned char)head[1] == 0x8b) ||
	    (head[0] == 0x28 && (unsigned char)head[1] == 0xb5 && head[2] == 0x2f) ||
	    !(hend = memchr(head, '\n', (size_t)got))) {
		close(fd);
		return 1;
	}
	hend++;
	{
		/* Only a counter CSV (what the reader would detect) is cut. */
		struct mf_reader *r = NULL;
		struct mf_error e;
		bool csv = false;
		mf_error_clear(&e);
		if (!mf_reader_open_mem(&r, name, head, (size_t)(hend - head), &p->ro, &e))
			csv = strcmp(mf_reader_format(r), "csv") == 0;
		mf_reader_close(r);
		if (!csv) {
			close(fd);
			return 1;
		}
	}
	at = hend - head;
	scol = column_of(head, (size_t)(hend - head), "interval_start");
	checked = scol >= 0 && column_of(head, (size_t)(hend - head), "system") >= 0;
	nt = p->o.jobs;
	if ((long long)nt > (size - at) / (long long)PART_MIN)
		nt = (size_t)((size - at) / (long long)PART_MIN);
	if (nt < 2) {
		close(fd);
		return 1;
	}
	*ntp = nt;
	t = calloc(nt, sizeof(*t));
	if (!t) {
		close(fd);
		return MF_ENOMEM;
	}
	for (i = 0; i < nt; i++) {
		long long end = i + 1 == nt ? size : at + (size - at) / (long long)(nt - i);
		/*
		 * The part ends after the first '\n' from end on.  A '\n' inside a quoted field ends
		 * a part in the middle of it: that part's last row is then unterminated, an error,
		 * and the file is read whole.
		 */
		while (end < size) {
			const char *nl;
			got = pread(fd, win, sizeof(win), (off_t)end);
			if (got <= 0) {
				end = size;
				break;
			}
			if ((nl = memchr(win, '\n', (size_t)got)) != NULL) {
				end += nl - win + 1;
				break;
			}
			end += got;
		}
		if (scol >= 0 && end < size)
			end = interval_cut(fd, end, size, scol);
		t[i].name = name;
		t[i].head = head;
		t[i].hlen = (size_t)(hend - head);
		t[i].fd = fd;
		t[i].off = at;
		t[i].len = end - at;
		mf_part_init(p, &t[i], input);
		t[i].stop = &stop;
		t[i].stop_all = true;
		t[i].reserve = checked; /* the part's thread makes its table (its pages faulted in at once) */
		at = end;
	}
	mf_parts_run(t, nt);
	for (i = 0; i < nt; i++) { /* the header, the file and stop are this function's */
		t[i].head = NULL;
		t[i].fd = -1;
		t[i].stop = NULL;
	}
	close(fd);
	*tp = t;
	return 0;
}

void mf_parts_free(struct part *t, size_t nt)
{
	size_t i;
	for (i = 0; i < nt; i++)
		mf_part_free(&t[i]);
	free(t);
}
