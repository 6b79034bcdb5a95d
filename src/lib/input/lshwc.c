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
 * total); the first read is its own interval, counted from zero.  A Delta row
 * (lshwc -d) is already a delta.  The per-CPU rows of a read are held until the
 * read's summary row says which of the two they are.
 *
 * By default the samples are the Total/Delta rows (cpu none): per-CPU rows are
 * checked but not counted a second time.  With opts.per_cpu (--by cpu) the
 * samples are the per-CPU rows, and a read without them gives its summary row.
 *
 * Times: the CSV Date and Time are the measuring system's local time with no
 * zone; they are taken as UTC as written, without conversion.  JSON gives
 * time_epoch (UTC).  interval_start of a sample is the time of the read before
 * it; interval_seconds the time between the two reads; both are unknown for the
 * first read.
 *
 * Family: --machine; else the JSON "counter second" version (CSVN); else the
 * counters: basic and problem-state only is the generic family, otherwise the
 * one family that defines every named counter (several: the user must say
 * --machine).  An unnamed counter (Counter(n), U<n>, a JSON counter without a
 * name) that the family does not define is ignored with a warning; a named one
 * is an error.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "base/text.h"
#include "reader_int.h"

#define MAX_LINE       ((size_t)1 << 24) /* 16 MiB: far beyond any lshwc row */
#define MAX_JSON       ((size_t)1 << 28) /* 256 MiB: the document's bytes are held while it is read */
#define MAX_JSON_PIECE ((size_t)1 << 20) /* 1 MiB: one measurement, "meta" or "cpumcf info" parsed at once */
#define MAX_CPU        16383             /* CPU numbers; Linux on Z has far fewer */
#define MAX_VALUE      40                /* characters of one counter value: 20 digits, or 0x and 16 */
#define MAX_FIELDS     (3 + MF_MAX_COUNTER)
#define MAX_CANDIDATES 16

enum rowkind { ROW_CPU, ROW_TOTAL, ROW_DELTA };

/* A counter column of the CSV header, or a counter id seen in the JSON document. */
struct lcol {
	unsigned number;
	char *label;    /* CSV: the header field (CPU_CYCLES(0), B0, U300); JSON: the name or "id N" */
	char *name;     /* NAME of NAME(n), the short name of -s, the JSON name; NULL when unnamed */
	bool shortname; /* named by a -s short name (which is its number, not a Linux name) */
	long off;       /* CSV: offset of the header field in the header line */
	int slot;       /* dense slot on the family, or -1: ignored */
};

/* One row of the input (CSV line or JSON measurement), parsed. */
struct lrow {
	int kind;
	int64_t cpu;
	bool has_time;
	int64_t t_us;
	long line;   /* CSV line number; 0 for JSON */
	size_t meas; /* JSON: index in measurements */
	char *text;  /* CSV: a copy of the line, for messages about it later */
	size_t textlen, textcap;
	uint64_t *val; /* per column */
	unsigned char *has;
	uint32_t *foff; /* CSV: offset of each counter field in text */
};

/* The previous read of one CPU (index cpu + 1) or of the total (index 0). */
struct base {
	bool has, has_t;
	int64_t t_us;
	uint64_t *val;
	unsigned char *has_val;
};

struct json_top;

struct lshwc {
	bool json;
	size_t ncols;
	struct lcol *cols;
	int16_t idx_of[MF_MAX_COUNTER]; /* counter number -> column, or -1 */
	const struct mf_family *fam;
	char fam_from[96];
	uint32_t host;
	size_t ignored;

	/* CSV */
	char *hdr;
	size_t hdrlen;
	long hdr_line;
	struct mf_linerd lines; /* lines.line: the number of the line last read */
	struct mf_csvsplit sp;  /* the split of the row being read: */
	const char **fp;        /* its fields, */
	size_t *fl;
	const char **fat;       /* and where each starts in the row */
	char last_dt[24]; /* date and time of the last row, and their value */
	size_t last_dt_len;
	int64_t last_t;

	/* JSON: the document's bytes are held; measurements are parsed one at a time. */
	size_t meas_start;  /* offset of the first byte after the '[' of "measurements" */
	size_t meas_pos;    /* offset of the next measurement (or of the ']') */
	size_t next_meas;   /* index of the next measurement */
	size_t meas_off;    /* offset of the measurement last read */
	bool meas_done;
	struct json_top *top; /* while open_json walks the document */

	/* Reads: the per-CPU rows of the current read, then its summary row. */
	struct lrow *rows;
	size_t caprows, npend;
	size_t emit_pos, emit_end;
	bool emit_delta;
	bool reset_after;
	long carry; /* a row that starts the next read, or -1 */
	bool last_delta;
	bool eof;
	uint32_t *seen; /* seen[cpu] == gen: the CPU has a row in the current read */
	size_t nseen;
	uint32_t gen;
	struct base *bases;
	size_t nbases;

	unsigned long n_total, n_delta, n_cpu, orphans, nominal_rows;
	bool warned_totals, warned_name;
};

static void free_row(struct lrow *w)
{
	free(w->text);
	free(w->val);
	free(w->has);
	free(w->foff);
}

/* ---------------------------------------------------------------- errors */

static int verror(struct mf_reader *r, struct mf_error *err, int code, long line, const char *ls, const char *le,
                  const char *at, const char *fmt, va_list ap)
{
	long col = (long)(at - ls) + 1;

	mf_error_set(err, code, r->path, line, col, "%s", "");
	if (!err)
		return code;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	mf_error_set_text_at(err, ls, le, at);
	return code;
}

/* An error at byte at of the line [ls, le), line number line. */
static int line_error(struct mf_reader *r, struct mf_error *err, int code, long line, const char *ls, const char *le,
                      const char *at, const char *fmt, ...) __attribute__((format(printf, 8, 9)));
static int line_error(struct mf_reader *r, struct mf_error *err, int code, long line, const char *ls, const char *le,
                      const char *at, const char *fmt, ...)
{
	va_list ap;
	int rc;
	va_start(ap, fmt);
	rc = verror(r, err, code, line, ls, le, at, fmt, ap);
	va_end(ap);
	return rc;
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
		rc = verror(r, err, code, L->hdr_line, L->hdr, L->hdr + L->hdrlen, L->hdr + L->cols[c].off, fmt, ap);
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
		rc = verror(r, err, code, w->line, w->text, w->text + w->textlen, w->text + w->foff[c], fmt, ap);
	}
	va_end(ap);
	return rc;
}

static int oom(struct mf_reader *r, struct mf_error *err)
{
	return mf_error_set(err, MF_ENOMEM, r->path, 0, 0, "out of memory");
}

/* ---------------------------------------------------------------- helpers */

static int probe(const char *buf, size_t n)
{
	static const char *const heads[] = {"Date,Time,CPU,", "\"Date\",\"Time\",\"CPU\","};
	size_t i = 0, k;

	if (n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
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

/* Short name of counter number n: B0, P32, C64, E128, M448. */
static void short_name(unsigned n, char *buf, size_t len)
{
	char c = n < 32 ? 'B' : n < 64 ? 'P' : n < 128 ? 'C' : n < 448 ? 'E' : 'M';
	snprintf(buf, len, "%c%u", c, n);
}

/*
 * Parses a counter value: decimal, or 0x hexadecimal (lshwc -X).  Returns 0,
 * or -1 not a number, -2 too large, -3 negative, -4 hexadecimal without 0x.
 */
static int parse_value(const char *f, size_t fl, uint64_t *out)
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

static const char *value_problem(int rc)
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
static void *grow(void *p, size_t *cap, size_t need, size_t size)
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
	struct lrow *nr = grow(L->rows, &L->caprows, i + 1, sizeof(*L->rows));
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
	struct base *b = grow(L->bases, &L->nbases, i + 1, sizeof(*L->bases));
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

static int cmp_col(const void *a, const void *b)
{
	const struct lcol *x = a, *y = b;
	return (x->number > y->number) - (x->number < y->number);
}

/* Picks the family (see the top of the file) and binds every column to its slot. */
static int choose_family(struct mf_reader *r, struct lshwc *L, int csvn, int cfvn, struct mf_error *err)
{
	const struct mf_kb *kb = r->opts.kb;
	const struct mf_family *fam = r->opts.family;
	size_t i, k;

	if (fam) {
		snprintf(L->fam_from, sizeof(L->fam_from), "from --machine");
	} else if (csvn > 0) {
		for (k = 0; k < kb->nfamilies && !fam; k++)
			if (kb->families[k].csvn == csvn && &kb->families[k] != mf_kb_generic(kb))
				fam = &kb->families[k];
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
		const char **names = NULL;
		char(*sn)[8] = NULL;
		const struct mf_family *cand[MAX_CANDIDATES];
		size_t nn = 0, nc;
		bool high = false;

		for (i = 0; i < L->ncols; i++) {
			const struct lcol *c = &L->cols[i];
			bool known = false;
			if (!c->name)
				continue;
			for (k = 0; k < kb->nfamilies && !known; k++)
				known = mf_family_counter_num(&kb->families[k], c->number) != NULL;
			if (!known)
				return col_error(r, L, err, MF_EFORMAT, i,
				                 "counter %s (number %u) is not defined on any "
				                 "machine family",
				                 c->label, c->number);
			if (c->number >= 64)
				high = true;
		}
		if (!high) {
			fam = mf_kb_generic(kb);
			snprintf(L->fam_from, sizeof(L->fam_from), "basic and problem-state counters only");
			goto bind;
		}
		names = calloc(L->ncols, sizeof(*names));
		sn = calloc(L->ncols, sizeof(*sn));
		if (!names || !sn) {
			free(names);
			free(sn);
			return oom(r, err);
		}
		for (i = 0; i < L->ncols; i++) {
			if (!L->cols[i].name)
				continue;
			short_name(L->cols[i].number, sn[i], sizeof(sn[i]));
			names[nn++] = sn[i];
		}
		nc = mf_kb_families_for(kb, names, nn, cand, MAX_CANDIDATES);
		if (nc == 0) {
			/* Name the first counter that no family has together with those before it. */
			size_t j, upto = 0;
			for (j = 1; j <= nn; j++)
				if (mf_kb_families_for(kb, names, j, cand, MAX_CANDIDATES) == 0)
					break;
			for (i = 0; i < L->ncols; i++)
				if (L->cols[i].name && ++upto == j)
					break;
			free(names);
			free(sn);
			return col_error(r, L, err, MF_ENOMACHINE, i,
			                 "counter %s fits no machine family together with the counters before it; "
			                 "give --machine",
			                 L->cols[i].label);
		}
		free(names);
		free(sn);
		if (nc > 1 && nc <= MAX_CANDIDATES) {
			/* Long headers also give the Linux names: keep the families that agree. */
			size_t kept = 0;
			for (k = 0; k < nc; k++) {
				bool ok = true;
				for (i = 0; i < L->ncols && ok; i++) {
					const struct lcol *c = &L->cols[i];
					const struct mf_counter *ctr;
					if (!c->name || c->shortname)
						continue;
					ctr = mf_family_counter_num(cand[k], c->number);
					ok = ctr && strcasecmp(ctr->linux_name, c->name) == 0;
				}
				if (ok)
					cand[kept++] = cand[k];
			}
			if (kept)
				nc = kept;
		}
		if (nc > 1) {
			char list[256];
			size_t n = 0;
			list[0] = '\0';
			for (k = 0; k < nc && k < MAX_CANDIDATES; k++) {
				int w = snprintf(list + n, sizeof(list) - n, "%s%s", k ? ", " : "", cand[k]->display);
				if (w < 0 || (size_t)w >= sizeof(list) - n)
					break;
				n += (size_t)w;
			}
			return mf_error_set(err, MF_EUSAGE, r->path, 0, 0, "counters fit %s: give --machine", list);
		}
		fam = cand[0];
		snprintf(L->fam_from, sizeof(L->fam_from), "from the counters");
	}
bind:
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

/* ---------------------------------------------------------------- CSV */

/* Reads the next line into [*ls, *le) (without its line end); 1, 0 at the end, or an error. */
static int next_line(struct mf_reader *r, struct lshwc *L, const char **ls, const char **le, struct mf_error *err)
{
	return mf_stream_line(&r->st, r->path, &L->lines, ls, le, err);
}

/*
 * Splits [ls, le) at commas into L->fp/L->fl (L->fat: where each starts in the
 * row); a field may be quoted (lshwc -q).  Returns the field count (maxf + 1
 * when there are more), -1 with *bad at a malformed quote, or -2 when out of
 * memory.
 */
static long split_line(struct lshwc *L, const char *ls, const char *le, size_t maxf, const char **bad)
{
	long nf;

	L->sp.max = maxf;
	nf = mf_csvsplit(&L->sp, ls, le);
	if (nf == -1)
		*bad = L->sp.bad;
	return nf;
}

static bool all_digits(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

static int open_csv(struct mf_reader *r, struct lshwc *L, struct mf_error *err)
{
	static const char *const first[] = {"Date", "Time", "CPU"};
	const char *ls, *le, *bad = NULL;
	long nf;
	size_t i, j;
	int rc;

	L->fp = malloc((MAX_FIELDS + 1) * sizeof(*L->fp));
	L->fl = malloc((MAX_FIELDS + 1) * sizeof(*L->fl));
	L->fat = malloc((MAX_FIELDS + 1) * sizeof(*L->fat));
	if (!L->fp || !L->fl || !L->fat)
		return oom(r, err);
	L->lines.max = MAX_LINE;
	L->lines.unit = "line";
	L->lines.what = "not lshwc output";
	L->sp.f = L->fp;
	L->sp.fl = L->fl;
	L->sp.at = L->fat;
	do {
		rc = next_line(r, L, &ls, &le, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return mf_error_set(err, MF_EFORMAT, r->path, 0, 0, "empty file: no header line");
	} while (ls == le);
	if (le - ls >= 3 && memcmp(ls, "\xEF\xBB\xBF", 3) == 0)
		ls += 3;
	L->hdr = malloc((size_t)(le - ls) + 1);
	if (!L->hdr)
		return oom(r, err);
	memcpy(L->hdr, ls, (size_t)(le - ls));
	L->hdrlen = (size_t)(le - ls);
	L->hdr_line = L->lines.line;
	L->hdr[L->hdrlen] = '\0';
	ls = L->hdr;
	le = L->hdr + L->hdrlen;
	if (memchr(ls, '\0', L->hdrlen))
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, (const char *)memchr(ls, '\0', L->hdrlen),
		                  "binary data (a NUL byte) in the header: not lshwc output");
	nf = split_line(L, ls, le, MAX_FIELDS, &bad);
	if (nf == -2)
		return oom(r, err);
	if (nf == -1)
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, bad, "header: malformed quotes");
	if ((size_t)nf > MAX_FIELDS)
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, ls, "header: more than %d counter columns",
		                  MF_MAX_COUNTER);
	for (i = 0; i < 3; i++) {
		if (i >= (size_t)nf || L->fl[i] != strlen(first[i]) || strncasecmp(L->fp[i], first[i], L->fl[i]) != 0)
			return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, i < (size_t)nf ? L->fat[i] : le,
			                  "not an lshwc header: it must start Date,Time,CPU");
	}
	if (nf == 3)
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, le, "lshwc header without counter columns");
	L->ncols = (size_t)nf - 3;
	L->cols = calloc(L->ncols, sizeof(*L->cols));
	if (!L->cols)
		return oom(r, err);
	for (i = 0; i < L->ncols; i++) {
		struct lcol *c = &L->cols[i];
		const char *f = L->fp[i + 3], *at = L->fat[i + 3];
		size_t fl = L->fl[i + 3];
		const char *lp = memchr(f, '(', fl);
		long num = -1;
		c->off = (long)(at - ls);
		c->label = strndup(f, fl);
		if (!c->label)
			return oom(r, err);
		if (lp && fl >= 4 && f[fl - 1] == ')') {
			/* NAME(n): the sysfs name and the counter number; Counter(n) is unnamed. */
			size_t nl = (size_t)(lp - f), dl = fl - nl - 2, k;
			bool ok = nl > 0 && dl > 0 && dl <= 3 && all_digits(lp + 1, dl);
			for (k = 0; k < nl && ok; k++)
				ok = isalnum((unsigned char)f[k]) || f[k] == '_';
			if (ok)
				num = strtol(lp + 1, NULL, 10);
			if (ok && num < MF_MAX_COUNTER && !(nl == 7 && memcmp(f, "Counter", 7) == 0)) {
				c->name = strndup(f, nl);
				if (!c->name)
					return oom(r, err);
			}
		} else if (fl >= 2 && fl <= 4 && (f[0] == 'U' || f[0] == 'u') && all_digits(f + 1, fl - 1)) {
			num = strtol(f + 1, NULL, 10); /* -s: an unnamed counter */
		} else if ((num = mf_short_counter_number(f, fl)) >= 0) {
			c->name = strndup(f, fl);
			if (!c->name)
				return oom(r, err);
			c->shortname = true;
		}
		if (num < 0 || num >= MF_MAX_COUNTER)
			return line_error(
			        r, err, MF_EFORMAT, L->lines.line, ls, le, at,
			        "unknown column '%.*s' (lshwc counter columns are NAME(n), Counter(n), or with "
			        "-s short names such as B0, E143, U300)",
			        (int)(fl > 60 ? 60 : fl), f);
		c->number = (unsigned)num;
		for (j = 0; j < i; j++)
			if (L->cols[j].number == c->number)
				return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, at,
				                  "column %s repeats counter %u (column %zu, %s)", c->label, c->number,
				                  j + 4, L->cols[j].label);
	}
	return choose_family(r, L, 0, -1, err);
}

/* Parses Date and Time fields into microseconds (the local time as written, taken as UTC). */
static int row_time(struct mf_reader *r, struct lshwc *L, struct mf_error *err, const char *ls, const char *le,
                    struct lrow *w)
{
	const char *d = L->fp[0], *t = L->fp[1];
	size_t dl = L->fl[0], tl = L->fl[1];
	char buf[32];
	int64_t us;

	if (dl + tl < sizeof(L->last_dt) && L->last_dt_len == dl + tl && memcmp(L->last_dt, d, dl) == 0 &&
	    memcmp(L->last_dt + dl, t, tl) == 0) {
		w->has_time = true;
		w->t_us = L->last_t;
		return 0;
	}
	if (dl != 10 || !all_digits(d, 4) || d[4] != '-' || !all_digits(d + 5, 2) || d[7] != '-' ||
	    !all_digits(d + 8, 2))
		goto bad_date;
	if (tl != 8 || !all_digits(t, 2) || t[2] != ':' || !all_digits(t + 3, 2) || t[5] != ':' ||
	    !all_digits(t + 6, 2))
		goto bad_time;
	snprintf(buf, sizeof(buf), "%.10sT00:00:00Z", d);
	if (mf_time_parse(buf, strlen(buf), &us))
		goto bad_date;
	snprintf(buf, sizeof(buf), "%.10sT%.8sZ", d, t);
	if (mf_time_parse(buf, strlen(buf), &us))
		goto bad_time;
	memcpy(L->last_dt, d, dl);
	memcpy(L->last_dt + dl, t, tl);
	L->last_dt_len = dl + tl;
	L->last_t = us;
	w->has_time = true;
	w->t_us = us;
	return 0;
bad_date:
	return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, L->fat[0], "bad date '%.*s' (expected YYYY-MM-DD)",
	                  (int)(dl > 20 ? 20 : dl), d);
bad_time:
	return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, L->fat[1], "bad time '%.*s' (expected HH:MM:SS)",
	                  (int)(tl > 20 ? 20 : tl), t);
}

/* Reads and checks the next CSV row into w; 1, 0 at the end, or an error (the row is skipped). */
static int csv_row(struct mf_reader *r, struct lshwc *L, struct lrow *w, struct mf_error *err)
{
	const char *ls, *le, *bad = NULL, *f;
	size_t len, i, fl;
	uint64_t cpu;
	long nf;
	int rc;

	do {
		rc = next_line(r, L, &ls, &le, err);
		if (rc <= 0)
			return rc;
	} while (ls == le);
	len = (size_t)(le - ls);
	{
		char *nt = grow(w->text, &w->textcap, len + 1, 1);
		if (!nt)
			return oom(r, err);
		w->text = nt;
	}
	memcpy(w->text, ls, len);
	w->text[len] = '\0';
	w->textlen = len;
	w->line = L->lines.line;
	ls = w->text;
	le = ls + len;
	if (memchr(ls, '\0', len))
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, (const char *)memchr(ls, '\0', len),
		                  "binary data (a NUL byte) in a row");
	nf = split_line(L, ls, le, L->ncols + 3, &bad);
	if (nf == -2)
		return oom(r, err);
	if (nf == -1)
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, bad, "malformed quotes");
	if ((size_t)nf > L->ncols + 3) {
		const char *p, *extra = le;
		size_t k = 1;
		for (p = ls; p < le; p++)
			if (*p == ',' && ++k == L->ncols + 4)
				extra = p + 1;
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, extra,
		                  "row has more fields than the header (%zu, header has %zu)", k, L->ncols + 3);
	}
	if ((size_t)nf < L->ncols + 3)
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, le,
		                  "row has fewer fields than the header (%ld, header has %zu): a truncated line", nf,
		                  L->ncols + 3);
	rc = row_time(r, L, err, ls, le, w);
	if (rc)
		return rc;
	f = L->fp[2];
	fl = L->fl[2];
	if (fl == 5 && strncasecmp(f, "Total", 5) == 0) {
		w->kind = ROW_TOTAL;
		w->cpu = -1;
	} else if (fl == 5 && strncasecmp(f, "Delta", 5) == 0) {
		w->kind = ROW_DELTA;
		w->cpu = -1;
	} else if (fl >= 4 && fl <= 8 && strncasecmp(f, "CPU", 3) == 0 && mf_u64_parse(f + 3, fl - 3, &cpu, NULL) == 0 &&
	           cpu <= MAX_CPU) {
		w->kind = ROW_CPU;
		w->cpu = (int64_t)cpu;
	} else {
		return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, L->fat[2],
		                  "bad CPU label '%.*s' (expected CPU<n> with n up to %d, Total or Delta)",
		                  (int)(fl > 20 ? 20 : fl), f, MAX_CPU);
	}
	for (i = 0; i < L->ncols; i++) {
		const char *v = L->fp[i + 3];
		size_t vl = L->fl[i + 3];
		int prc = vl > MAX_VALUE ? -5 : parse_value(v, vl, &w->val[i]);
		if (prc)
			return line_error(r, err, MF_EFORMAT, L->lines.line, ls, le, L->fat[i + 3], "%s: %s '%.*s'",
			                  L->cols[i].label, value_problem(prc), (int)(vl > 40 ? 40 : vl), v);
		w->has[i] = 1;
		w->foff[i] = (uint32_t)(L->fat[i + 3] - ls);
	}
	return 1;
}

/* ---------------------------------------------------------------- JSON */

/* Line and column (1-based) of byte off of the document. */
static void json_where(struct mf_reader *r, size_t off, long *line, long *col, const char **ls, const char **le)
{
	const char *buf = r->st.buf, *p = buf, *end = buf + r->st.len, *nl;
	*line = 1;
	*ls = buf;
	if (off > r->st.len)
		off = r->st.len;
	while ((nl = memchr(p, '\n', (size_t)(buf + off - p))) != NULL) {
		(*line)++;
		p = nl + 1;
	}
	*ls = p;
	*col = (long)(buf + off - p) + 1;
	nl = memchr(p, '\n', (size_t)(end - p));
	*le = nl ? nl : end;
}

/* An error at byte off of the document: "file:line:col: JSON: what". */
static int json_fail_at(struct mf_reader *r, size_t off, struct mf_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int json_fail_at(struct mf_reader *r, size_t off, struct mf_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	long line, col;
	const char *ls, *le;
	json_where(r, off, &line, &col, &ls, &le);
	mf_error_set(err, code, r->path, line, col, "%s", "");
	if (!err)
		return code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	if (col <= 120)
		mf_error_set_text(err, ls, (size_t)(le - ls));
	return code;
}

/* jansson's error about the piece of the document starting at byte start. */
static int json_error(struct mf_reader *r, size_t start, const json_error_t *je, struct mf_error *err)
{
	if (json_error_code(je) == json_error_out_of_memory)
		return mf_error_set(err, MF_ENOMEM, r->path, 0, 0, "out of memory reading the lshwc JSON");
	return json_fail_at(r, start + (je->position > 0 ? (size_t)je->position - 1 : 0), err, MF_EFORMAT, "JSON: %s",
	                    je->text[0] ? je->text : "cannot be read");
}

static size_t json_ws(const char *b, size_t p, size_t end)
{
	while (p < end && (b[p] == ' ' || b[p] == '\t' || b[p] == '\r' || b[p] == '\n'))
		p++;
	return p;
}

#define MAX_JSON_DEPTH 2048 /* jansson's own limit */

/*
 * The end of the JSON value at b[p] (after blanks): strings, numbers and
 * words, objects and arrays by their brackets, without building anything.
 * Returns the offset past it, or 0 with *bad at what is wrong.
 */
static size_t json_skip(const char *b, size_t p, size_t end, size_t *bad)
{
	uint64_t arr[MAX_JSON_DEPTH / 64] = {0}; /* per depth: 1 for an array, 0 for an object */
	size_t depth = 0;
	p = json_ws(b, p, end);
	*bad = p;
	if (p >= end)
		return 0;
	do {
		char c = b[p];
		*bad = p;
		if (c == '"') {
			for (p++; p < end && b[p] != '"'; p++)
				if (b[p] == '\\')
					p++;
			if (p >= end)
				return 0;
			p++;
		} else if (c == '{' || c == '[') {
			if (depth == MAX_JSON_DEPTH)
				return 0;
			if (c == '[')
				arr[depth / 64] |= UINT64_C(1) << (depth % 64);
			else
				arr[depth / 64] &= ~(UINT64_C(1) << (depth % 64));
			depth++;
			p++;
		} else if (c == '}' || c == ']') {
			if (depth == 0 || ((arr[(depth - 1) / 64] >> ((depth - 1) % 64)) & 1) != (c == ']'))
				return 0;
			depth--;
			p++;
		} else if (c == ',' || c == ':' || c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			if (depth == 0)
				return 0;
			p++;
		} else {
			size_t q = p;
			while (p < end && (isalnum((unsigned char)b[p]) || b[p] == '-' || b[p] == '+' || b[p] == '.'))
				p++;
			if (p == q)
				return 0;
		}
		*bad = p;
	} while (depth > 0 && p < end);
	return depth ? 0 : p;
}

/*
 * A value at b[p] that json_skip found malformed at b[bad]: jansson's word
 * for it where jansson sees it in the first MAX_JSON_PIECE bytes, else ours.
 */
static int json_bad(struct mf_reader *r, size_t p, size_t bad, const char *where, struct mf_error *err)
{
	json_error_t je;
	size_t n;
	json_t *v;
	p = json_ws(r->st.buf, p, r->st.len);
	n = r->st.len - p;
	if (n > MAX_JSON_PIECE)
		n = MAX_JSON_PIECE;
	v = json_loadb(r->st.buf + p, n, JSON_DISABLE_EOF_CHECK, &je);
	if (v)
		json_decref(v);
	else if (json_error_code(&je) == json_error_out_of_memory || p + n == r->st.len ||
	         (size_t)je.position < n)
		return json_error(r, p, &je, err);
	return json_fail_at(r, bad, err, MF_EFORMAT, "JSON: malformed %s", where);
}

/* Parses the value b[p..q) (at most MAX_JSON_PIECE bytes) with jansson; *out is the caller's. */
static int json_piece(struct mf_reader *r, size_t p, size_t q, const char *what, json_t **out, struct mf_error *err)
{
	json_error_t je;
	p = json_ws(r->st.buf, p, q);
	if (q - p > MAX_JSON_PIECE)
		return json_fail_at(r, p, err, MF_EFORMAT, "JSON: %s larger than %zu MiB (the limit)", what,
		                    MAX_JSON_PIECE >> 20);
	*out = json_loadb(r->st.buf + p, q - p, JSON_REJECT_DUPLICATES, &je);
	if (!*out)
		return json_error(r, p, &je, err);
	return 0;
}

/* A member name at b[p] (*key, *klen: as written, escapes not undone); returns the offset past its ':', or 0. */
static size_t json_key(const char *b, size_t p, size_t end, const char **key, size_t *klen)
{
	size_t q;
	p = json_ws(b, p, end);
	if (p >= end || b[p] != '"')
		return 0;
	for (q = p + 1; q < end && b[q] != '"'; q++)
		if (b[q] == '\\')
			q++;
	if (q >= end)
		return 0;
	*key = b + p + 1;
	*klen = q - p - 1;
	q = json_ws(b, q + 1, end);
	if (q >= end || b[q] != ':')
		return 0;
	return q + 1;
}

static bool key_is(const char *k, size_t n, const char *want)
{
	return strlen(want) == n && memcmp(k, want, n) == 0;
}

/*
 * The next measurement from b[L->meas_pos]: *m (the caller's) and its index,
 * or 0 at the ']' that ends the array.
 */
static int json_next_meas(struct mf_reader *r, struct lshwc *L, json_t **m, struct mf_error *err)
{
	const char *b = r->st.buf;
	size_t end = r->st.len, p = json_ws(b, L->meas_pos, end), q, bad;
	int rc;
	if (L->meas_done)
		return 0;
	if (p < end && b[p] == ']' && L->next_meas == 0) {
		L->meas_done = true;
		return 0;
	}
	L->meas_done = true; /* until it is read: after an error the rest cannot be */
	q = json_skip(b, p, end, &bad);
	if (!q)
		return json_bad(r, p, bad, "measurement", err);
	rc = json_piece(r, p, q, "a measurement", m, err);
	if (rc)
		return rc;
	L->meas_done = false;
	L->meas_off = p;
	q = json_ws(b, q, end);
	if (q < end && b[q] == ']') {
		L->meas_done = true;
	} else if (q >= end || b[q] != ',') {
		json_decref(*m);
		return json_fail_at(r, q, err, MF_EFORMAT, "JSON: expected ',' or ']' after lshwc.measurements[%zu]",
		                    L->next_meas);
	}
	L->meas_pos = q + 1;
	return 1;
}

/* An integer member, or a string holding a decimal or 0x number (as lshwc -X might write). */
static int json_number(const json_t *v, uint64_t *out)
{
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);
		if (i < 0)
			return -3;
		*out = (uint64_t)i;
		return 0;
	}
	if (json_is_string(v))
		return parse_value(json_string_value(v), json_string_length(v), out);
	return -1;
}

/* "2025-06-16 19:24:06+0200" (mf_time_parse wants +02:00). */
static int json_time(const char *s, int64_t *us)
{
	char buf[48];
	size_t n = strlen(s);
	if (n >= sizeof(buf) - 2)
		return -1;
	memcpy(buf, s, n + 1);
	if (n > 5 && (s[n - 5] == '+' || s[n - 5] == '-') && all_digits(s + n - 4, 4)) {
		memmove(buf + n - 1, buf + n - 2, 3);
		buf[n - 2] = ':';
		n++;
	}
	return mf_time_parse(buf, n, us);
}

/*
 * Walks the members of the object at b[p] (a '{'); for each calls fn with the
 * member name and the bounds of its value.  Returns the offset past the '}'
 * or an error (<0, filled).
 */
typedef int (*member_fn)(struct mf_reader *r, struct lshwc *L, const char *key, size_t klen, size_t vp, size_t vq,
                         struct mf_error *err);

static long json_members(struct mf_reader *r, struct lshwc *L, size_t p, const char *where, member_fn fn,
                         struct mf_error *err)
{
	const char *b = r->st.buf;
	size_t end = r->st.len, bad;
	bool first = true;
	p = json_ws(b, p, end);
	if (p >= end || b[p] != '{')
		return json_fail_at(r, p, err, MF_EFORMAT, "not lshwc JSON output: %s is not an object", where);
	p++;
	for (;;) {
		const char *k;
		size_t kl, vq;
		int rc;
		p = json_ws(b, p, end);
		if (p < end && b[p] == '}' && first)
			return (long)p + 1;
		first = false;
		bad = p;
		p = json_key(b, p, end, &k, &kl);
		if (!p)
			return json_fail_at(r, bad, err, MF_EFORMAT, "JSON: expected a member name in %s", where);
		vq = json_skip(b, p, end, &bad);
		if (!vq)
			return json_bad(r, p, bad, where, err);
		rc = fn(r, L, k, kl, p, vq, err);
		if (rc)
			return rc;
		p = json_ws(b, vq, end);
		if (p < end && b[p] == '}')
			return (long)p + 1;
		if (p >= end || b[p] != ',')
			return json_fail_at(r, p, err, MF_EFORMAT, "JSON: expected ',' or '}' in %s", where);
		p++;
	}
}

struct json_top {
	bool lshwc, meta, info, meas;
	int csvn, cfvn;
};
static struct json_top *top_of(struct lshwc *L)
{
	return L->top;
}

/* A second member of a name read once (k: its name, after the opening quote). */
static int dup_member(struct mf_reader *r, const char *k, const char *what, struct mf_error *err)
{
	return json_fail_at(r, (size_t)(k - 1 - r->st.buf), err, MF_EFORMAT, "JSON: %s twice", what);
}

static int lshwc_member(struct mf_reader *r, struct lshwc *L, const char *k, size_t kl, size_t vp, size_t vq,
                        struct mf_error *err)
{
	struct json_top *t = top_of(L);
	json_t *info, *cs, *cf;
	int rc;
	if (key_is(k, kl, "measurements")) {
		size_t p = json_ws(r->st.buf, vp, vq);
		if (t->meas)
			return dup_member(r, k, "lshwc.measurements", err);
		t->meas = true;
		if (r->st.buf[p] != '[')
			return json_fail_at(r, p, err, MF_EFORMAT, "lshwc: \"measurements\" is not an array");
		L->meas_start = p + 1;
		return 0;
	}
	if (!key_is(k, kl, "cpumcf info"))
		return 0;
	if (t->info)
		return dup_member(r, k, "lshwc.\"cpumcf info\"", err);
	t->info = true;
	rc = json_piece(r, vp, vq, "\"cpumcf info\"", &info, err);
	if (rc)
		return rc;
	cs = json_object_get(info, "counter second");
	cf = json_object_get(info, "counter first");
	if (!json_is_object(info) || (cs && !json_is_integer(cs)) || (cf && !json_is_integer(cf))) {
		json_decref(info);
		return json_fail_at(r, vp, err, MF_EFORMAT,
		                    "lshwc.\"cpumcf info\": counter first and second must be whole numbers");
	}
	if (cs) {
		json_int_t v = json_integer_value(cs);
		if (v <= 0 || v > 255) {
			json_decref(info);
			return json_fail_at(r, vp, err, MF_ENOMACHINE,
			                    "cpumcf info: counter second version %" JSON_INTEGER_FORMAT
			                    " names no known machine family: give --machine",
			                    v);
		}
		t->csvn = (int)v;
	}
	if (cf && json_integer_value(cf) >= 0 && json_integer_value(cf) < 256)
		t->cfvn = (int)json_integer_value(cf);
	json_decref(info);
	return 0;
}

static int top_member(struct mf_reader *r, struct lshwc *L, const char *k, size_t kl, size_t vp, size_t vq,
                      struct mf_error *err)
{
	struct json_top *t = top_of(L);
	if (key_is(k, kl, "lshwc")) {
		long rc;
		if (t->lshwc)
			return dup_member(r, k, "lshwc", err);
		t->lshwc = true;
		rc = json_members(r, L, vp, "\"lshwc\"", lshwc_member, err);
		return rc < 0 ? (int)rc : 0;
	}
	if (key_is(k, kl, "meta")) {
		json_t *meta, *v;
		int rc;
		if (t->meta)
			return dup_member(r, k, "meta", err);
		t->meta = true;
		rc = json_piece(r, vp, vq, "\"meta\"", &meta, err);
		if (rc)
			return rc;
		v = json_is_object(meta) ? json_object_get(meta, "host") : NULL;
		if (json_is_string(v) && json_string_length(v) > 0) {
			L->host = mf_strtab_intern(r->opts.strtab, json_string_value(v), json_string_length(v));
			if (!L->host) {
				json_decref(meta);
				return oom(r, err);
			}
		}
		json_decref(meta);
	}
	return 0;
}

static int open_json(struct mf_reader *r, struct lshwc *L, struct mf_error *err)
{
	struct mf_stream *st = &r->st;
	struct json_top top = {false, false, false, false, 0, -1};
	size_t k, ncap = 0;
	long end;
	json_t *m;
	int rc;

	/* The document's bytes (so that the counters of every measurement are known first). */
	while (!st->eof) {
		long got = mf_stream_fill(st, MAX_JSON, err);
		if (got == MF_EFORMAT && st->len == st->cap)
			return mf_error_set(err, MF_EFORMAT, r->path, 0, 0, "JSON input larger than %zu MiB (the limit)",
			                    MAX_JSON >> 20);
		if (got < 0)
			return (int)got;
	}
	L->top = &top;
	end = json_members(r, L, st->pos, "the document", top_member, err);
	L->top = NULL;
	if (end < 0)
		return (int)end;
	if (json_ws(st->buf, (size_t)end, st->len) != st->len)
		return json_fail_at(r, json_ws(st->buf, (size_t)end, st->len), err, MF_EFORMAT,
		                    "JSON: text after the end of the document");
	if (!top.lshwc)
		return mf_error_set(err, MF_EFORMAT, r->path, 0, 0, "not lshwc JSON output: no \"lshwc\" object");
	if (!top.meas)
		return mf_error_set(err, MF_EFORMAT, r->path, 0, 0, "lshwc: \"measurements\" is missing or not an array");
	/* The counters: every id any measurement has (bad entries are reported with their row). */
	for (k = 0; k < MF_MAX_COUNTER; k++)
		L->idx_of[k] = -1;
	L->meas_pos = L->meas_start;
	while ((rc = json_next_meas(r, L, &m, err)) == 1) {
		json_t *ctrs = json_object_get(m, "counters");
		size_t c;
		L->next_meas++;
		for (c = 0; json_is_array(ctrs) && c < json_array_size(ctrs); c++) {
			json_t *e = json_array_get(ctrs, c), *id = json_object_get(e, "id"),
			       *nm = json_object_get(e, "name");
			json_int_t n;
			struct lcol *col;
			char lb[32];
			if (!json_is_integer(id))
				continue;
			n = json_integer_value(id);
			if (n < 0 || n >= MF_MAX_COUNTER || L->idx_of[n] >= 0)
				continue;
			col = grow(L->cols, &ncap, L->ncols + 1, sizeof(*L->cols));
			if (!col) {
				json_decref(m);
				return oom(r, err);
			}
			L->cols = col;
			col = &L->cols[L->ncols];
			L->idx_of[n] = (int16_t)L->ncols++;
			col->number = (unsigned)n;
			if (json_is_string(nm) && json_string_length(nm) > 0) {
				col->name = strdup(json_string_value(nm));
				snprintf(lb, sizeof(lb), " (id %u)", col->number);
				if (col->name) {
					size_t ll = strlen(col->name) + strlen(lb) + 1;
					col->label = malloc(ll);
					if (col->label)
						snprintf(col->label, ll, "%s%s", col->name, lb);
				}
			} else {
				snprintf(lb, sizeof(lb), "id %u", col->number);
				col->name = NULL;
				col->label = strdup(lb);
			}
			if (!col->label || (json_is_string(nm) && json_string_length(nm) > 0 && !col->name)) {
				json_decref(m);
				return oom(r, err);
			}
		}
		json_decref(m);
	}
	if (rc < 0)
		return rc;
	/* Read them again, one at a time, as rows. */
	L->meas_pos = L->meas_start;
	L->meas_done = false;
	L->next_meas = 0;
	if (L->ncols == 0)
		return mf_error_set(err, MF_EFORMAT, r->path, 0, 0, "lshwc: no measurement has counters");
	qsort(L->cols, L->ncols, sizeof(*L->cols), cmp_col);
	for (k = 0; k < L->ncols; k++)
		L->idx_of[L->cols[k].number] = (int16_t)k;
	return choose_family(r, L, top.csvn, top.cfvn, err);
}

/* The next measurement into w; 1, 0 at the end, or an error (the measurement is skipped). */
static int json_row_of(struct mf_reader *r, struct lshwc *L, struct lrow *w, json_t *m, size_t mi,
                       struct mf_error *err)
{
	json_t *cpu, *te, *dt, *ctrs;
	size_t c;

	w->meas = mi;
	w->line = 0;
#define JERR(...) mf_error_set(err, MF_EFORMAT, r->path, 0, 0, __VA_ARGS__)
	if (!json_is_object(m))
		return JERR("lshwc.measurements[%zu]: not an object", mi);
	cpu = json_object_get(m, "cpu");
	if (json_is_integer(cpu) && json_integer_value(cpu) >= 0 && json_integer_value(cpu) <= MAX_CPU) {
		w->kind = ROW_CPU;
		w->cpu = json_integer_value(cpu);
	} else if (json_is_string(cpu) && strcasecmp(json_string_value(cpu), "total") == 0) {
		w->kind = ROW_TOTAL;
		w->cpu = -1;
	} else if (json_is_string(cpu) && strcasecmp(json_string_value(cpu), "delta") == 0) {
		w->kind = ROW_DELTA;
		w->cpu = -1;
	} else {
		return JERR("lshwc.measurements[%zu].cpu: expected a CPU number up to %d, \"total\" or \"delta\"", mi,
		            MAX_CPU);
	}
	te = json_object_get(m, "time_epoch");
	dt = json_object_get(m, "date_time");
	w->has_time = false;
	w->t_us = 0;
	if (te) {
		if (!json_is_integer(te) || json_integer_value(te) < 0 || json_integer_value(te) > INT64_MAX / 1000000)
			return JERR("lshwc.measurements[%zu].time_epoch: expected seconds since 1970", mi);
		w->has_time = true;
		w->t_us = (int64_t)json_integer_value(te) * 1000000;
	} else if (dt) {
		if (!json_is_string(dt) || json_time(json_string_value(dt), &w->t_us))
			return JERR(
			        "lshwc.measurements[%zu].date_time: expected a time such as 2025-06-16 19:24:06+0200",
			        mi);
		w->has_time = true;
	}
	ctrs = json_object_get(m, "counters");
	if (!json_is_array(ctrs))
		return JERR("lshwc.measurements[%zu].counters: missing or not an array", mi);
	memset(w->has, 0, L->ncols);
	for (c = 0; c < json_array_size(ctrs); c++) {
		json_t *e = json_array_get(ctrs, c), *id = json_object_get(e, "id"), *val = json_object_get(e, "value");
		json_int_t n;
		int prc, ci;
		if (!json_is_object(e))
			return JERR("lshwc.measurements[%zu].counters[%zu]: not an object", mi, c);
		if (!json_is_integer(id) || json_integer_value(id) < 0 || json_integer_value(id) >= MF_MAX_COUNTER)
			return JERR("lshwc.measurements[%zu].counters[%zu].id: expected a counter number 0 to %d", mi,
			            c, MF_MAX_COUNTER - 1);
		n = json_integer_value(id);
		ci = L->idx_of[n];
		if (w->has[ci])
			return JERR("lshwc.measurements[%zu].counters[%zu]: counter %" JSON_INTEGER_FORMAT " twice", mi,
			            c, n);
		if (!val)
			return JERR("lshwc.measurements[%zu].counters[%zu]: no value", mi, c);
		prc = json_number(val, &w->val[ci]);
		if (prc)
			return JERR("lshwc.measurements[%zu].counters[%zu].value (%s): %s", mi, c, L->cols[ci].label,
			            value_problem(prc));
		w->has[ci] = 1;
	}
#undef JERR
	return 1;
}

static int json_row(struct mf_reader *r, struct lshwc *L, struct lrow *w, struct mf_error *err)
{
	json_t *m;
	int rc = json_next_meas(r, L, &m, err);
	if (rc <= 0)
		return rc;
	rc = json_row_of(r, L, w, m, L->next_meas++, err);
	json_decref(m);
	if (rc < 0 && err && err->line == 0) {
		/* Where the measurement starts. */
		const char *ls, *le;
		json_where(r, L->meas_off, &err->line, &err->col, &ls, &le);
	}
	return rc;
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

/* Turns row w into sample s: a delta row as it is, a cumulative one minus the read before. */
static int emit(struct mf_reader *r, struct lshwc *L, const struct lrow *w, bool delta, struct mf_sample *s,
                struct mf_error *err)
{
	struct base *b = get_base(L, w->kind == ROW_CPU ? (size_t)w->cpu + 1 : 0);
	size_t i;

	if (!b)
		return oom(r, err);
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
	if (s->machine && isnan(s->cpsp)) {
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
	uint32_t *ns = grow(L->seen, &L->nseen, (size_t)cpu + 1, sizeof(*L->seen));
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
			return emit(r, L, e, L->emit_delta, s, err);
		}
		if (L->reset_after && finish_read(L))
			return oom(r, err);
		if (L->eof) {
			if (L->npend) {
				close_orphans(r, L, -1);
				continue;
			}
			end_warnings(r, L);
			return 0;
		}
		if (ensure_row(L, L->npend))
			return oom(r, err);
		w = &L->rows[L->npend];
		rc = L->json ? json_row(r, L, w, err) : csv_row(r, L, w, err);
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
				return oom(r, err);
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
		return oom(r, err);
	r->state = L;
	L->carry = -1;
	L->gen = 1;
	i = r->st.pos;
	if (r->st.len - i >= 3 && memcmp(r->st.buf + i, "\xEF\xBB\xBF", 3) == 0)
		i += 3;
	while (i < r->st.len && strchr(" \t\r\n", r->st.buf[i]) && r->st.buf[i])
		i++;
	L->json = i < r->st.len && r->st.buf[i] == '{';
	if (L->json) {
		if (i > r->st.pos)
			r->st.pos = i; /* jansson does not take a byte order mark */
		return open_json(r, L, err);
	}
	return open_csv(r, L, err);
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

static void summary_lshwc(struct mf_reader *r, struct mf_strbuf *sb)
{
	struct lshwc *L = r->state;
	if (!L->fam)
		return;
	mf_strbuf_printf(
	        sb,
	        "%s: lshwc %s, family %s (%s): %lu Total, %lu Delta and %lu per-CPU rows; samples from the %s rows\n",
	        r->path, L->json ? "JSON" : "CSV", L->fam->display, L->fam_from, L->n_total, L->n_delta, L->n_cpu,
	        r->opts.per_cpu && L->n_cpu ? "per-CPU" : "Total and Delta");
}

const struct mf_reader_ops mf_lshwc_reader = {
        .name = "lshwc",
        .probe = probe,
        .open = open_lshwc,
        .next = next_lshwc,
        .close = close_lshwc,
        .summary = summary_lshwc,
};
