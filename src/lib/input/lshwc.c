/* SPDX-License-Identifier: MIT */
/*
 * Reader for the output of s390-tools lshwc (cpumf/lshwc.c, man page lshwc.8):
 *
 *   CSV   Date,Time,CPU,NAME(n),...    long headers (unnamed counters: Counter(n))
 *         Date,Time,CPU,B0,P32,E128... short headers (-s; unnamed counters: U<n>)
 *         then per read: one row per CPU (CPU<n>, with -a) and a summary row,
 *         Total, or with -d Delta after the first read.  Values are decimal or
 *         0x hexadecimal (-X); quoted fields (-q) are accepted.
 *   JSON  {"meta":{...,"host":...},"lshwc":{"cpumcf info":{"counter first",
 *         "counter second","authorization"},"measurements":[{"date_time",
 *         "time_epoch","cpu":n|"total"|"delta","counters":[{"name","id","value"}]}]}}
 *
 * Values count from the start of the measurement (cumulative).  A cumulative
 * row is differenced against the read before it of the same CPU (or of the
 * total).  The first cumulative read of each CPU (or of the total) has no read
 * before it: its values count from when lshwc switched the counters on, over a
 * time no row gives, so it is no interval.  It is the base of the next read,
 * makes no sample, and is counted and named in the summary as dropped (the
 * Total row of lshwc -d, before its Delta rows, too).  A Delta row (lshwc -d)
 * is already a delta.  The per-CPU rows of a read are held until the read's
 * summary row says which of the two they are.
 *
 * By default the samples are the Total/Delta rows (cpu none): per-CPU rows are
 * checked but not counted a second time.  With opts.per_cpu (--by cpu) the
 * samples are the per-CPU rows, and a read without them gives its summary row.
 *
 * Times: the CSV Date and Time are the measuring system's local time with no
 * zone; they are taken as UTC as written, without conversion.  JSON gives
 * time_epoch (UTC).  interval_start of a sample is the time of the read before
 * it; interval_seconds the time between the two reads; both are unknown for a
 * Delta row with no read before it (a file cut at its start).
 *
 * Family: --machine; else the JSON "counter second" version (CSVN); else the
 * counters: basic and problem-state only is the generic family, otherwise the
 * one family that defines every named counter (several: the user must say
 * --machine).  An unnamed counter (Counter(n), U<n>, a JSON counter without a
 * name) that the family does not define is ignored with a warning; a named one
 * is an error.
 *
 * This file is the differencing core (the reads, the deltas, the restarts
 * and the samples) and the family choice; in_lshwc_csv.c and in_lshwc_json.c
 * read the two forms into columns and rows (lshwc_int.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>

#include "base/text.h"
#include "lshwc_int.h"

static void free_row(struct lrow *w)
{
	free(w->text);
	free(w->val);
	free(w->has);
	free(w->foff);
}

/* ---------------------------------------------------------------- errors */

int mf_lshwc_verror(struct mf_reader *r, struct mf_error *err, int code, long line, const char *ls, const char *le,
		    const char *at, const char *fmt, va_list ap)
{
	return mf_error_vset_at(err, code, r->path, line, ls, le, at, fmt, ap);
}

/* An error about counter column c: at its header field (CSV), or naming the file (JSON). */
static int col_error(struct mf_reader *r, struct lshwc *L, struct mf_error *err, int code, size_t c, const char *fmt,
		     ...) __attribute__((format(printf, 6, 7)));
static int col_error(struct mf_reader *r, struct lshwc *L, struct mf_error *err, int code, size_t c, const char *fmt,
		     ...)
{
	va_list ap;
	int rc;
	va_start(ap, fmt);
	if (L->json) {
		rc = mf_error_set(err, code, r->path, 0, 0, "%s", "");
		if (err)
			vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	} else {
		rc = mf_lshwc_verror(r, err, code, L->hdr_line, L->hdr, L->hdr + L->hdrlen, L->hdr + L->cols[c].off,
				     fmt, ap);
	}
	va_end(ap);
	return rc;
}

/* An error about a stored row, at its counter column c (CSV) or naming its measurement (JSON). */
static int row_error(struct mf_reader *r, struct lshwc *L, struct mf_error *err, int code, const struct lrow *w,
		     size_t c, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static int row_error(struct mf_reader *r, struct lshwc *L, struct mf_error *err, int code, const struct lrow *w,
		     size_t c, const char *fmt, ...)
{
	va_list ap;
	int rc;
	va_start(ap, fmt);
	if (L->json) {
		char pre[96];
		int n = snprintf(pre, sizeof(pre), "lshwc.measurements[%zu]: ", w->meas);
		rc = mf_error_set(err, code, r->path, 0, 0, "%s", pre);
		if (err && n > 0 && (size_t)n < sizeof(err->msg))
			vsnprintf(err->msg + n, sizeof(err->msg) - (size_t)n, fmt, ap);
	} else {
		rc = mf_lshwc_verror(r, err, code, w->line, w->text, w->text + w->textlen, w->text + w->foff[c], fmt,
				     ap);
	}
	va_end(ap);
	return rc;
}

int mf_lshwc_oom(struct mf_reader *r, struct mf_error *err, const char *what)
{
	return mf_error_nomem(err, r->path, 0, "%s", what);
}

/* ---------------------------------------------------------------- helpers */

static int probe(const char *buf, size_t n)
{
	static const char *const heads[] = {"Date,Time,CPU,", "\"Date\",\"Time\",\"CPU\","};
	size_t i = 0, k;

	i = mf_text_bom(buf, n);
	for (k = 0; k < 2; k++)
		if (n - i >= strlen(heads[k]) && memcmp(buf + i, heads[k], strlen(heads[k])) == 0)
			return 90;
	while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
		i++;
	if (i == n || buf[i] != '{')
		return 0;
	/* A JSON object with an "lshwc" member (after "meta", which is short). */
	for (; i + 7 <= n; i++) {
		if (memcmp(buf + i, "\"lshwc\"", 7) == 0) {
			size_t j = i + 7;
			while (j < n && (buf[j] == ' ' || buf[j] == '\t' || buf[j] == '\r' || buf[j] == '\n'))
				j++;
			if (j < n && buf[j] == ':')
				return 90;
		}
	}
	return 0;
}

/*
 * Parses a counter value: decimal, or 0x hexadecimal (lshwc -X).  Returns 0,
 * or -1 not a number, -2 too large, -3 negative, -4 hexadecimal without 0x.
 */
int mf_lshwc_parse_value(const char *f, size_t fl, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (fl == 0)
		return -1;
	if (f[0] == '-')
		return -3;
	if (fl > 2 && f[0] == '0' && (f[1] == 'x' || f[1] == 'X')) {
		for (i = 2; i < fl; i++) {
			unsigned d;
			if (!isxdigit((unsigned char)f[i]))
				return -1;
			d = isdigit((unsigned char)f[i]) ? (unsigned)(f[i] - '0')
							 : (unsigned)(tolower((unsigned char)f[i]) - 'a' + 10);
			if (v >> 60)
				return -2;
			v = v << 4 | d;
		}
		*out = v;
		return 0;
	}
	switch (mf_u64_parse(f, fl, out, NULL)) {
	case 0: return 0;
	case -2: return -2;
	default:
		/* Hexadecimal digits only (lshwc -x): not to be read as decimal. */
		for (i = 0; i < fl; i++)
			if (!isxdigit((unsigned char)f[i]))
				return -1;
		return -4;
	}
}

const char *mf_lshwc_value_problem(int rc)
{
	switch (rc) {
	case -2: return "does not fit in 64 bits";
	case -3: return "a negative value";
	case -4: return "hexadecimal without 0x (lshwc -x output cannot be told from decimal: use -X)";
	case -5: return "too long for a counter value";
	default: return "not a number";
	}
}

/* Grows array p of *cap elements to hold need; returns the array (maybe moved), or NULL (p unchanged). */
void *mf_lshwc_grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t nc;
	void *np;
	if (need <= *cap)
		return p;
	nc = *cap ? *cap : 8;
	while (nc < need)
		nc *= 2;
	np = realloc(p, nc * size);
	if (!np)
		return NULL;
	memset((char *)np + *cap * size, 0, (nc - *cap) * size);
	*cap = nc;
	return np;
}

/* Makes room for row slot i with its per-column arrays. */
static int ensure_row(struct lshwc *L, size_t i)
{
	struct lrow *w;
	struct lrow *nr = mf_lshwc_grow(L->rows, &L->caprows, i + 1, sizeof(*L->rows));
	if (!nr)
		return -1;
	L->rows = nr;
	w = &L->rows[i];
	if (!w->val) {
		w->val = calloc(L->ncols ? L->ncols : 1, sizeof(*w->val));
		w->has = calloc(L->ncols ? L->ncols : 1, 1);
		w->foff = calloc(L->ncols ? L->ncols : 1, sizeof(*w->foff));
		if (!w->val || !w->has || !w->foff)
			return -1;
	}
	return 0;
}

static struct base *get_base(struct lshwc *L, size_t i)
{
	struct base *b = mf_lshwc_grow(L->bases, &L->nbases, i + 1, sizeof(*L->bases));
	if (!b)
		return NULL;
	L->bases = b;
	b = &L->bases[i];
	if (!b->val) {
		b->val = calloc(L->ncols ? L->ncols : 1, sizeof(*b->val));
		b->has_val = calloc(L->ncols ? L->ncols : 1, 1);
		if (!b->val || !b->has_val)
			return NULL;
	}
	return b;
}

/* ---------------------------------------------------------------- family */

/*
 * The family from the named counters (mf_kb_infer_family): their short names,
 * and their Linux names from long headers to choose between families.
 */
static int infer_family(struct mf_reader *r, struct lshwc *L, const struct mf_family **fam, struct mf_error *err)
{
	const struct mf_kb *kb = r->opts.kb;
	const char **names = calloc(L->ncols ? L->ncols : 1, sizeof(*names));
	const char **linux = calloc(L->ncols ? L->ncols : 1, sizeof(*linux));
	char(*sn)[8] = calloc(L->ncols ? L->ncols : 1, sizeof(*sn));
	struct mf_family_fit *fit = malloc(sizeof(*fit));
	size_t i, nn = 0;
	int rc = 0;

	if (!names || !linux || !sn || !fit) {
		rc = mf_lshwc_oom(r, err, "matching the counters to a machine family");
		goto out;
	}
	for (i = 0; i < L->ncols; i++) {
		const struct lcol *c = &L->cols[i];
		if (!c->name)
			continue;
		mf_short_counter_name(c->number, sn[i], sizeof(sn[i]));
		if (!mf_kb_counter_known(kb, sn[i], strlen(sn[i]))) {
			rc = col_error(r, L, err, MF_EFORMAT, i,
				       "counter %s (number %u) is not defined on any machine family", c->label,
				       c->number);
			goto out;
		}
		linux[nn] = c->shortname ? NULL : c->name;
		names[nn++] = sn[i];
	}
	mf_kb_infer_family(kb, names, linux, nn, fit);
	if (fit->n == 0) {
		/* Name the first counter that no family has together with those before it. */
		size_t upto = 0;
		for (i = 0; i < L->ncols; i++)
			if (L->cols[i].name && upto++ == fit->misfit)
				break;
		rc = col_error(r, L, err, MF_ENOMACHINE, i,
			       "counter %s fits no machine family together with the counters before it; "
			       "give --machine",
			       L->cols[i].label);
	} else if (fit->n > 1) {
		rc = mf_error_set(err, MF_EUSAGE, r->path, 0, 0, "counters fit %s: give --machine", fit->list);
	} else {
		*fam = fit->fam[0];
		snprintf(L->fam_from, sizeof(L->fam_from), "%s",
			 fit->generic ? "basic and problem-state counters only" : "from the counters");
	}
out:
	free(names);
	free(linux);
	free(sn);
	free(fit);
	return rc;
}

/* Picks the family (see the top of the file) and binds every column to its slot. */
int mf_lshwc_choose_family(struct mf_reader *r, struct lshwc *L, int csvn, int cfvn, struct mf_error *err)
{
	const struct mf_kb *kb = r->opts.kb;
	const struct mf_family *fam = r->opts.family;
	size_t i;

	if (fam) {
		snprintf(L->fam_from, sizeof(L->fam_from), "from --machine");
	} else if (csvn > 0) {
		fam = mf_kb_family_by_csvn(kb, csvn);
		if (!fam)
			return mf_error_set(err, MF_ENOMACHINE, r->path, 0, 0,
					    "cpumcf info: counter second version %d names no known machine family: "
					    "give --machine",
					    csvn);
		snprintf(L->fam_from, sizeof(L->fam_from), "from counter second version %d", csvn);
		if (cfvn >= 0 && (cfvn >= 32 || !(fam->cfvn_mask & (1u << cfvn))))
			mf_reader_warn(r, "%s: counter first version %d is not one %s has; read as %s anyway", r->path,
				       cfvn, fam->display, fam->display);
	} else {
		int rc = infer_family(r, L, &fam, err);
		if (rc)
			return rc;
	}
	L->fam = fam;
	for (i = 0; i < L->ncols; i++) {
		struct lcol *c = &L->cols[i];
		const struct mf_counter *ctr = mf_family_counter_num(fam, c->number);
		c->slot = -1;
		if (ctr) {
			c->slot = fam->dense[c->number];
			if (c->name && !c->shortname && strcasecmp(ctr->linux_name, c->name) != 0 && !L->warned_name) {
				L->warned_name = true;
				mf_reader_warn(r, "%s: counter %s is %s on %s; read by its number", r->path, c->label,
					       ctr->linux_name, fam->display);
			}
		} else if (c->name) {
			return col_error(r, L, err, MF_ENOCOUNTER, i, "counter %s (number %u) does not exist on %s",
					 c->label, c->number, fam->display);
		} else {
			L->ignored++;
		}
	}
	if (L->ignored)
		mf_reader_warn(r, "%s: %zu unnamed counter%s that %s does not define %s ignored", r->path, L->ignored,
			       L->ignored == 1 ? "" : "s", fam->display, L->ignored == 1 ? "was" : "were");
	return 0;
}

bool mf_lshwc_all_digits(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

/* ---------------------------------------------------------------- reads */

static void set_base(struct lshwc *L, struct base *b, const struct lrow *w, bool delta)
{
	size_t i;
	for (i = 0; i < L->ncols; i++) {
		if (!w->has[i])
			continue;
		if (delta && b->has && b->has_val[i])
			b->val[i] += w->val[i];
		else
			b->val[i] = w->val[i];
		b->has_val[i] = 1;
	}
	b->has = true;
	b->has_t = w->has_time;
	b->t_us = w->t_us;
}

/*
 * Turns row w into sample s: a delta row as it is, a cumulative one minus the
 * read before.  Returns 1, or 0 for the first cumulative read of its CPU (or
 * of the total), which only becomes the base of the next (counted), or an error.
 */
static int emit(struct mf_reader *r, struct lshwc *L, const struct lrow *w, bool delta, struct mf_sample *s,
		struct mf_error *err)
{
	struct base *b = get_base(L, w->kind == ROW_CPU ? (size_t)w->cpu + 1 : 0);
	size_t i;

	if (!b)
		return mf_lshwc_oom(r, err, "keeping the first read of each CPU");
	if (!delta && !b->has) {
		/* Counts since the counters were switched on, over a time no row gives: no interval. */
		set_base(L, b, w, false);
		if (w->kind == ROW_CPU)
			L->first_cpu++;
		else
			L->first_total++;
		return 0;
	}
	if (!delta && b->has) {
		for (i = 0; i < L->ncols; i++) {
			if (w->has[i] && L->cols[i].slot >= 0 && b->has_val[i] && w->val[i] < b->val[i]) {
				uint64_t prev = b->val[i];
				set_base(L, b, w, false); /* later reads count from this one */
				return row_error(r, L, err, MF_EFORMAT, w, i,
						 "%s: cumulative value %" PRIu64 " is below %" PRIu64
						 " of the read before "
						 "(counters reset, or rows out of order)",
						 L->cols[i].label, w->val[i], prev);
			}
		}
	}
	mf_sample_reset(s);
	s->family = L->fam;
	s->machine = r->opts.family == L->fam ? r->opts.machine : NULL;
	s->system = L->host;
	s->cpu = w->kind == ROW_CPU ? w->cpu : -1;
	s->line = w->line;
	for (i = 0; i < L->ncols; i++) {
		uint64_t v;
		if (!w->has[i] || L->cols[i].slot < 0)
			continue;
		v = w->val[i];
		if (!delta && b->has && b->has_val[i])
			v -= b->val[i];
		s->slot[s->n] = (uint16_t)L->cols[i].slot;
		s->value[s->n++] = v;
	}
	if (b->has && b->has_t && w->has_time) {
		double sec = (double)(w->t_us - b->t_us) / 1e6;
		s->has_start = true;
		s->start_us = b->t_us;
		if (sec > 0)
			s->seconds = sec;
	}
	if (s->machine && isnan(s->cpsp) && !(r->opts.cpu_mhz > 0)) {
		s->cpsp = s->machine->nominal_mhz;
		s->cpsp_nominal = true;
		L->nominal_rows++;
	}
	set_base(L, b, w, delta);
	return 1;
}

static void emit_range(struct lshwc *L, size_t from, size_t to, bool delta)
{
	L->emit_pos = from;
	L->emit_end = to;
	L->emit_delta = delta;
	L->reset_after = true;
}

/* Per-CPU rows with no summary row after them (not lshwc's own output): by the last mode seen. */
static void close_orphans(struct mf_reader *r, struct lshwc *L, long carry)
{
	if (r->opts.per_cpu) {
		emit_range(L, 0, L->npend, L->last_delta);
	} else {
		L->orphans += L->npend;
		emit_range(L, 0, 0, false);
	}
	L->carry = carry;
}

static int mark_seen(struct lshwc *L, int64_t cpu)
{
	uint32_t *ns = mf_lshwc_grow(L->seen, &L->nseen, (size_t)cpu + 1, sizeof(*L->seen));
	if (!ns)
		return -1;
	L->seen = ns;
	L->seen[cpu] = L->gen;
	return 0;
}

static int finish_read(struct lshwc *L)
{
	L->reset_after = false;
	L->emit_pos = L->emit_end = 0;
	L->gen++;
	L->npend = 0;
	if (L->carry >= 0) {
		struct lrow tmp = L->rows[0];
		L->rows[0] = L->rows[L->carry];
		L->rows[L->carry] = tmp;
		L->npend = 1;
		L->carry = -1;
		return mark_seen(L, L->rows[0].cpu);
	}
	return 0;
}

static void end_warnings(struct mf_reader *r, struct lshwc *L)
{
	if (L->orphans) {
		mf_reader_warn(r,
			       "%s: %lu per-CPU rows without a Total or Delta row after them were not read (--by cpu "
			       "reads per-CPU rows)",
			       r->path, L->orphans);
		L->orphans = 0;
	}
	if (L->nominal_rows) {
		const struct mf_machine *m = r->opts.machine;
		mf_reader_warn(r,
			       "%s: no CPU speed in lshwc data: used the nominal speed of machine type %u (%g MHz) "
			       "for %lu rows",
			       r->path, m->type, m->nominal_mhz, L->nominal_rows);
		L->nominal_rows = 0;
	}
}

static int next_lshwc(struct mf_reader *r, struct mf_sample *s, struct mf_error *err)
{
	struct lshwc *L = r->state;
	struct lrow *w;
	int rc;

	for (;;) {
		if (L->emit_pos < L->emit_end) {
			const struct lrow *e = &L->rows[L->emit_pos++];
			rc = emit(r, L, e, L->emit_delta, s, err);
			if (rc)
				return rc;
			continue; /* a first read: the base of the next, no sample */
		}
		if (L->reset_after && finish_read(L))
			return mf_lshwc_oom(r, err, "keeping the reads of each CPU");
		if (L->eof) {
			if (L->npend) {
				close_orphans(r, L, -1);
				continue;
			}
			end_warnings(r, L);
			return 0;
		}
		if (ensure_row(L, L->npend))
			return mf_lshwc_oom(r, err, "keeping the rows of a read");
		w = &L->rows[L->npend];
		rc = L->json ? mf_lshwc_json_row(r, L, w, err) : mf_lshwc_csv_row(r, L, w, err);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			L->eof = true;
			continue;
		}
		if (w->kind == ROW_CPU) {
			L->n_cpu++;
			if (L->npend &&
			    (w->has_time != L->rows[0].has_time || (w->has_time && w->t_us != L->rows[0].t_us) ||
			     ((size_t)w->cpu < L->nseen && L->seen[w->cpu] == L->gen))) {
				/* A new read began without a summary row for the last one. */
				close_orphans(r, L, (long)L->npend);
				continue;
			}
			if (mark_seen(L, w->cpu))
				return mf_lshwc_oom(r, err, "keeping the CPUs of a read");
			L->npend++;
			continue;
		}
		if (w->kind == ROW_TOTAL)
			L->n_total++;
		else
			L->n_delta++;
		L->last_delta = w->kind == ROW_DELTA;
		if (r->opts.per_cpu && L->npend) {
			emit_range(L, 0, L->npend, L->last_delta);
		} else {
			if (r->opts.per_cpu && !L->warned_totals) {
				L->warned_totals = true;
				mf_reader_warn(r,
					       "%s: per-CPU rows asked for, but a read has only its %s row (lshwc "
					       "without -a): read it with cpu none",
					       r->path, w->kind == ROW_TOTAL ? "Total" : "Delta");
			}
			emit_range(L, L->npend, L->npend + 1, L->last_delta);
		}
		L->carry = -1;
	}
}

/* ---------------------------------------------------------------- open, close */

static int open_lshwc(struct mf_reader *r, struct mf_error *err)
{
	struct lshwc *L = calloc(1, sizeof(*L));
	size_t i;

	if (!L)
		return mf_lshwc_oom(r, err, "opening the lshwc reader");
	r->state = L;
	L->carry = -1;
	L->gen = 1;
	i = r->st.pos;
	i += mf_text_bom(r->st.buf + i, r->st.len - i);
	while (i < r->st.len && strchr(" \t\r\n", r->st.buf[i]) && r->st.buf[i])
		i++;
	L->json = i < r->st.len && r->st.buf[i] == '{';
	if (L->json) {
		if (i > r->st.pos)
			r->st.pos = i; /* jansson does not take a byte order mark */
		return mf_lshwc_open_json(r, L, err);
	}
	return mf_lshwc_open_csv(r, L, err);
}

static void close_lshwc(struct mf_reader *r)
{
	struct lshwc *L = r->state;
	size_t i;

	for (i = 0; i < L->ncols && L->cols; i++) {
		free(L->cols[i].label);
		free(L->cols[i].name);
	}
	free(L->cols);
	mf_lshwc_json_free(L);
	for (i = 0; i < L->caprows; i++)
		free_row(&L->rows[i]);
	free(L->rows);
	for (i = 0; i < L->nbases; i++) {
		free(L->bases[i].val);
		free(L->bases[i].has_val);
	}
	free(L->bases);
	free(L->seen);
	free(L->hdr);
	free(L->fp);
	free(L->fl);
	free(L->fat);
	mf_csvsplit_free(&L->sp);
	free(L);
	r->state = NULL;
}

/* What a first cumulative read is, as the summary and the JSON inputs name its rows. */
static const char *const first_text[2] = {
	"the Total row of the first read (baseline only: counts since the counters were switched on, not an "
	"interval)",
	"per-CPU rows of each CPU's first read (baseline only: counts since the counters were switched on, not "
	"an interval)",
};

static void summary_lshwc(struct mf_reader *r, struct mf_strbuf *sb)
{
	struct lshwc *L = r->state;
	if (!L->fam)
		return;
	mf_strbuf_printf(sb,
			 "%s: lshwc %s, family %s (%s): %lu Total, %lu Delta and %lu per-CPU rows; samples from the %s "
			 "rows\n",
			 r->path, L->json ? "JSON" : "CSV", L->fam->display, L->fam_from, L->n_total, L->n_delta,
			 L->n_cpu, r->opts.per_cpu && L->n_cpu ? "per-CPU" : "Total and Delta");
	if (L->first_total)
		mf_strbuf_printf(sb, "  dropped %lu: %s\n", L->first_total, first_text[0]);
	if (L->first_cpu)
		mf_strbuf_printf(sb, "  dropped %lu: %s\n", L->first_cpu, first_text[1]);
}

/* The counts of summary_lshwc that are not in the samples (mf_reader_counts). */
static void counts_lshwc(struct mf_reader *r, mf_count_fn *fn, void *ctx)
{
	struct lshwc *L = r->state;
	if (L->first_total)
		fn(ctx, MF_COUNT_DROPPED, first_text[0], L->first_total);
	if (L->first_cpu)
		fn(ctx, MF_COUNT_DROPPED, first_text[1], L->first_cpu);
}

const struct mf_reader_ops mf_lshwc_reader = {
	.name = "lshwc",
	.probe = probe,
	.open = open_lshwc,
	.next = next_lshwc,
	.close = close_lshwc,
	.summary = summary_lshwc,
	.counts = counts_lshwc,
};
