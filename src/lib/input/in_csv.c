/* SPDX-License-Identifier: MIT */
/*
 * Reader for the canonical counter CSV: a header naming identity columns and
 * counters (short names such as B0 and E143, or the family's Linux names),
 * then one row of unsigned 64-bit deltas per CPU and interval.  Rows are read
 * from large blocks without copying; counter fields are parsed as integers.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/text.h"
#include "mfstat/base/escape.h"
#include "reader_int.h"

#define MAX_LINE ((size_t)1 << 26) /* 64 MiB: beyond that it is not a counter CSV */
#define MAX_COLS 4096

static const uint64_t pow10_tab[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

enum colkind {
	COL_SYSTEM,
	COL_LPAR,
	COL_CPU,
	COL_POOL,
	COL_MACHINE,
	COL_CPSP,
	COL_START,
	COL_SECONDS,
	/* Where the engine ran, RMF busy and the local offset: what `mfstat export` carries over. */
	COL_POLARITY,
	COL_WEIGHT,
	COL_DRAWER,
	COL_CHIP,
	COL_RMF_BUSY,
	COL_UTC_OFFSET,
	COL_COUNTER
};

static const char *const id_names[] = {"system",
				       "lpar",
				       "cpu",
				       "pool",
				       "machine",
				       "cpsp",
				       "interval_start",
				       "interval_seconds",
				       "polarity",
				       "lpar_weight",
				       "drawer",
				       "chip",
				       "rmf_busy_seconds",
				       "utc_offset_minutes"};

struct col {
	int kind;
	int number; /* counter number for a short name, else -1 */
	char *name;
};

struct fammap {
	const struct mf_family *fam;
	int16_t *slot;                      /* per column: dense counter slot on fam, or -1 */
	long dup, dup_of;                   /* two columns naming the same counter on fam, or -1 */
	uint64_t full[MF_MAX_COUNTER / 64]; /* slots of all counter columns defined on fam */
};

struct csv {
	size_t ncols;
	struct col *cols;
	unsigned char *is_counter; /* per column, 1 for counter columns: the hot loops read only this */
	size_t machine_col;        /* index of the machine column when has_machine */
	size_t *idx;               /* fast path: column index of each identity field kept */
	bool has_machine;
	struct fammap maps[64];
	size_t nmaps;
	struct mf_linerd lines; /* lines.line: number of the line last read */
	struct mf_csvsplit sp;  /* the careful split; its fields are fs and fl */
	const char **fs;        /* field starts of the current row */
	size_t *fl;             /* field lengths */
	uint64_t *val;          /* counter values parsed while splitting */
	unsigned char *ok;      /* 1 when val[i] holds field i parsed cleanly */
	/* Caches: consecutive rows usually repeat these values. */
	char last_machine[32];
	size_t last_machine_len;
	const struct mf_family *lm_fam;
	const struct mf_machine *lm_machine;
	char last_start[48];
	size_t last_start_len;
	int64_t last_start_us;
	char last_num[2][24]; /* cpsp and interval_seconds as last parsed */
	size_t last_num_len[2];
	double last_num_val[2];
	unsigned long nominal_rows;
	const struct mf_machine *nominal_machine;
};

static bool is_id_char(unsigned char c)
{
	return isalnum(c) || c == '_';
}

static int probe(const char *buf, size_t n)
{
	const char *nl = memchr(buf, '\n', n);
	size_t len = nl ? (size_t)(nl - buf) : n, i;
	int commas = 0, known = 0;
	const char *f = buf;

	if (memchr(buf, '\0', len))
		return 0;
	if (mf_text_bom(buf, len))
		return probe(buf + 3, n - 3);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c < 0x20 && c != '\t' && c != '\r')
			return 0;
		if (c >= 0x80)
			return 0;
	}
	for (i = 0; i <= len; i++) {
		if (i == len || buf[i] == ',') {
			size_t fl = (size_t)(buf + i - f), k;
			const char *p = f;
			if (fl && *p == '"') {
				p++;
				fl = fl >= 2 ? fl - 2 : 0;
			}
			for (k = 0; k < sizeof(id_names) / sizeof(id_names[0]); k++)
				if (strlen(id_names[k]) == fl && strncasecmp(id_names[k], p, fl) == 0)
					known++;
			if (mf_short_counter_number(p, fl) >= 0)
				known++;
			if (i < len)
				commas++;
			f = buf + i + 1;
		}
	}
	if (known)
		return 80;
	return commas ? 20 : 0;
}

/* Points err at column col (1-based) of line text, showing a window around it. */
static int row_error(struct csv *c, struct mf_reader *r, struct mf_error *err, int code, const char *ls, const char *le,
		     const char *at, const char *fmt, ...) __attribute__((format(printf, 8, 9)));

static int row_error(struct csv *c, struct mf_reader *r, struct mf_error *err, int code, const char *ls, const char *le,
		     const char *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mf_error_vset_at(err, code, r->path, c->lines.line, ls, le, at, fmt, ap);
	va_end(ap);
	return code;
}

/* Reads the next raw row into [*ls, *le); returns 1, 0 at end, or an error. */
static int next_row(struct mf_reader *r, struct csv *c, const char **ls, const char **le, struct mf_error *err)
{
	return mf_stream_line(&r->st, r->path, &c->lines, ls, le, err);
}

static struct fammap *get_map(struct mf_reader *r, struct csv *c, const struct mf_family *fam)
{
	size_t i;
	struct fammap *m;

	for (i = 0; i < c->nmaps; i++)
		if (c->maps[i].fam == fam)
			return &c->maps[i];
	if (c->nmaps == sizeof(c->maps) / sizeof(c->maps[0]))
		return NULL;
	m = &c->maps[c->nmaps];
	m->slot = malloc(c->ncols * sizeof(*m->slot));
	if (!m->slot)
		return NULL;
	for (i = 0; i < c->ncols; i++) {
		const struct mf_counter *ctr = NULL;
		m->slot[i] = -1;
		if (c->cols[i].kind != COL_COUNTER)
			continue;
		if (c->cols[i].number >= 0)
			ctr = mf_family_counter_num(fam, (unsigned)c->cols[i].number);
		else
			ctr = mf_family_counter(fam, c->cols[i].name, strlen(c->cols[i].name));
		if (ctr)
			m->slot[i] = fam->dense[ctr->number];
	}
	m->dup = m->dup_of = -1;
	memset(m->full, 0, sizeof(m->full));
	for (i = 0; i < c->ncols; i++)
		if (m->slot[i] >= 0)
			m->full[m->slot[i] >> 6] |= UINT64_C(1) << (m->slot[i] & 63);
	for (i = 0; i < c->ncols && m->dup < 0; i++) {
		size_t j;
		for (j = 0; j < i && m->slot[i] >= 0; j++) {
			if (m->slot[j] == m->slot[i]) {
				m->dup = (long)i;
				m->dup_of = (long)j;
				break;
			}
		}
	}
	(void)r;
	m->fam = fam;
	c->nmaps++;
	return m;
}

static int open_csv(struct mf_reader *r, struct mf_error *err)
{
	struct csv *c = calloc(1, sizeof(*c));
	const char *ls, *le;
	const struct mf_kb *kb = r->opts.kb;
	long nf;
	size_t i, j;
	int rc;

	if (!c)
		return mf_error_nomem(err, r->path, 0, "opening the CSV reader");
	r->state = c;
	c->fs = malloc(MAX_COLS * sizeof(*c->fs));
	c->fl = malloc(MAX_COLS * sizeof(*c->fl));
	c->val = malloc(MAX_COLS * sizeof(*c->val));
	c->ok = calloc(MAX_COLS, 1);
	if (!c->fs || !c->fl || !c->val || !c->ok)
		return mf_error_nomem(err, r->path, 0, "opening the CSV reader");
	c->lines.max = MAX_LINE;
	c->lines.quotes = true;
	c->lines.unit = "row";
	c->lines.what = "not a counter CSV";
	c->sp.f = c->fs;
	c->sp.fl = c->fl;
	c->sp.max = MAX_COLS;
	/* Skip blank lines before the header. */
	do {
		rc = next_row(r, c, &ls, &le, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return mf_error_set(err, MF_EFORMAT, r->path, 0, 0, "empty file: no header line");
	} while (ls == le);
	if (memchr(ls, '\0', (size_t)(le - ls)))
		return row_error(c, r, err, MF_EFORMAT, ls, le, (const char *)memchr(ls, '\0', (size_t)(le - ls)),
				 "binary data (a NUL byte) in the header: not a counter CSV");
	ls += mf_text_bom(ls, (size_t)(le - ls));
	nf = mf_csvsplit(&c->sp, ls, le);
	if (nf == -1)
		return row_error(c, r, err, MF_EFORMAT, ls, le, c->sp.bad, "header: %s", c->sp.why);
	if (nf < 0)
		return mf_error_nomem(err, r->path, 1, "splitting the header");
	if ((size_t)nf > MAX_COLS)
		return row_error(c, r, err, MF_EFORMAT, ls, le, ls, "more than %d columns", MAX_COLS);
	c->ncols = (size_t)nf;
	c->cols = calloc(c->ncols, sizeof(*c->cols));
	c->is_counter = calloc(c->ncols + 1, 1);
	c->idx = calloc(c->ncols + 1, sizeof(*c->idx));
	if (!c->cols || !c->is_counter || !c->idx)
		return mf_error_nomem(err, r->path, 1, "reading the header's %zu columns", c->ncols);
	for (i = 0; i < c->ncols; i++) {
		const char *f = c->fs[i];
		size_t fl = c->fl[i], k;
		const char *at = c->fs[i] >= ls && c->fs[i] <= le ? c->fs[i] : ls;
		while (fl && (*f == ' ' || *f == '\t')) {
			f++;
			fl--;
		}
		while (fl && (f[fl - 1] == ' ' || f[fl - 1] == '\t'))
			fl--;
		c->cols[i].name = strndup(f, fl);
		if (!c->cols[i].name)
			return mf_error_nomem(err, r->path, 1, "reading the header's column names");
		c->cols[i].number = -1;
		if (fl == 0)
			return row_error(c, r, err, MF_EFORMAT, ls, le, at, "empty column name (column %zu)", i + 1);
		for (k = 0; k < fl; k++)
			if (!is_id_char((unsigned char)f[k]))
				return row_error(c, r, err, MF_EFORMAT, ls, le, at + k,
						 "invalid character in column name: not a counter CSV header");
		for (k = 0; k < sizeof(id_names) / sizeof(id_names[0]); k++) {
			if (strlen(id_names[k]) == fl && strncasecmp(id_names[k], f, fl) == 0) {
				c->cols[i].kind = (int)k;
				break;
			}
		}
		if (k == sizeof(id_names) / sizeof(id_names[0])) {
			int num = mf_short_counter_number(f, fl);
			c->cols[i].kind = COL_COUNTER;
			c->cols[i].number = num;
			if (!mf_kb_counter_known(kb, f, fl))
				return row_error(c, r, err, MF_EFORMAT, ls, le, at,
						 num >= 0 ? "counter %s is not defined on any machine family"
							  : "unknown column '%s' (not an identity column, a short "
							    "counter "
							    "name or a Linux counter name of any family)",
						 c->cols[i].name);
		}
		if (c->cols[i].kind == COL_MACHINE) {
			c->has_machine = true;
			c->machine_col = i;
		}
		c->is_counter[i] = c->cols[i].kind == COL_COUNTER;
		for (j = 0; j < i; j++) {
			if (strcasecmp(c->cols[j].name, c->cols[i].name) == 0 ||
			    (c->cols[i].number >= 0 && c->cols[j].number == c->cols[i].number))
				return row_error(c, r, err, MF_EFORMAT, ls, le, at, "column %s repeats column %zu (%s)",
						 c->cols[i].name, j + 1, c->cols[j].name);
		}
	}
	/* Without a machine only basic and problem-state counters have a meaning. */
	if (!c->has_machine && !r->opts.family) {
		const struct mf_family *g = mf_kb_generic(kb);
		struct fammap *m = get_map(r, c, g);
		if (!m)
			return mf_error_nomem(err, r->path, 1, "mapping the columns to counters");
		for (i = 0; i < c->ncols; i++) {
			if (c->cols[i].kind == COL_COUNTER && m->slot[i] < 0) {
				const char *at = c->fs[i] >= ls && c->fs[i] <= le ? c->fs[i] : ls;
				return row_error(c, r, err, MF_ENOMACHINE, ls, le, at,
						 "counter %s needs the machine family: add a machine column or give "
						 "--machine (without one only basic and problem-state counters are "
						 "read)",
						 c->cols[i].name);
			}
		}
	}
	return 0;
}

static int parse_double(const char *f, size_t fl, double *v)
{
	char tmp[64];
	char *end;
	if (fl == 0 || fl >= sizeof(tmp))
		return -1;
	memcpy(tmp, f, fl);
	tmp[fl] = '\0';
	if (!(isdigit((unsigned char)tmp[0]) || (tmp[0] == '.' && isdigit((unsigned char)tmp[1]))))
		return -1;
	*v = strtod(tmp, &end);
	return *end == '\0' && isfinite(*v) ? 0 : -1;
}

/* Parses up to 19 digits at p, eight at a time (SWAR); returns the end of the digits. */
static inline const char *parse_digits(const char *p, const char *f, uint64_t *out)
{
	uint64_t v = 0;
	for (;;) {
		uint64_t x, bad;
		unsigned n;
		memcpy(&x, p, 8);
		bad = ((x & UINT64_C(0xF0F0F0F0F0F0F0F0)) ^ UINT64_C(0x3030303030303030)) |
		      (((x + UINT64_C(0x0606060606060606)) & UINT64_C(0xF0F0F0F0F0F0F0F0)) ^
		       UINT64_C(0x3030303030303030));
		n = bad ? (unsigned)__builtin_ctzll(bad) / 8 : 8;
		if (n) {
			x -= UINT64_C(0x3030303030303030);
			if (n < 8)
				x <<= 8 * (8 - n);
			x = ((x & UINT64_C(0x0F0F0F0F0F0F0F0F)) * 2561) >> 8;
			x = ((x & UINT64_C(0x00FF00FF00FF00FF)) * 6553601) >> 16;
			x = ((x & UINT64_C(0x0000FFFF0000FFFF)) * UINT64_C(42949672960001)) >> 32;
			v = v * pow10_tab[n] + x;
			p += n;
		}
		if (n < 8 || p - f > 19)
			break;
	}
	*out = v;
	return p;
}

/* The identity columns `mfstat export` adds: where the engine ran, RMF busy, the local offset. */
static int place_field(struct mf_reader *r, struct csv *c, struct mf_sample *s, size_t i, const char *f, size_t fl,
		       const char *ls, const char *le, struct mf_error *err)
{
	uint64_t v;
	size_t k;
	switch (c->cols[i].kind) {
	case COL_POLARITY:
		s->polarity = mf_polarity_parse(f, fl);
		if (s->polarity < 0)
			return row_error(c, r, err, MF_EFORMAT, ls, le, f, "polarity must be VH, VM, VL or HZ");
		break;
	case COL_WEIGHT:
	case COL_DRAWER:
	case COL_CHIP:
		if (fl > 9 || mf_u64_parse(f, fl, &v, &k))
			return row_error(c, r, err, MF_EFORMAT, ls, le, f, "%s must be a whole number below 10^9",
					 id_names[c->cols[i].kind]);
		if (c->cols[i].kind == COL_WEIGHT)
			s->lpar_weight = (int32_t)v;
		else if (c->cols[i].kind == COL_DRAWER)
			s->drawer = (int32_t)v;
		else
			s->chip = (int32_t)v;
		break;
	case COL_RMF_BUSY:
		if (parse_double(f, fl, &s->rmf_busy_s))
			return row_error(c, r, err, MF_EFORMAT, ls, le, f,
					 "rmf_busy_seconds must be a number of seconds (0 or more)");
		break;
	case COL_UTC_OFFSET: {
		bool neg = fl && (f[0] == '-' || f[0] == '+');
		if (fl - neg > 4 || mf_u64_parse(f + neg, fl - neg, &v, &k) || v > 24 * 60)
			return row_error(c, r, err, MF_EFORMAT, ls, le, f,
					 "utc_offset_minutes must be whole minutes from -1440 to 1440 (local time "
					 "minus UTC)");
		s->has_offset = true;
		s->utc_offset_s = (int32_t)v * 60 * (f[0] == '-' ? -1 : 1);
		break;
	}
	default: break;
	}
	return 0;
}

/*
 * The hot path for rows without quotes: splits the row and parses counter
 * fields in the same pass.  A counter field of 1..19 plain digits is parsed
 * into c->val[i] with c->ok[i] = 1; anything else is left for the careful
 * path (c->ok[i] = 0).  Returns the field count like mf_csvsplit().
 */
/* One identity field of a row (non-empty). */
static int identity_field(struct mf_reader *r, struct csv *c, struct mf_sample *s, size_t i, const char *f, size_t fl,
			  const char *ls, const char *le, struct mf_error *err)
{
	/* A NUL would cut the name short: "a\0x" and "a\0y" would both be "a". */
	if (memchr(f, '\0', fl))
		return row_error(c, r, err, MF_EFORMAT, ls, le, (const char *)memchr(f, '\0', fl),
				 "binary data (a NUL byte) in a row");
	switch (c->cols[i].kind) {
	case COL_SYSTEM:
	case COL_LPAR: {
		/* A name that starts with ' was written with the formula guard: mf_csv_data_decode. */
		char *dec = NULL;
		size_t n = fl;
		uint32_t id;
		if (f[0] == '\'') {
			dec = malloc(fl);
			if (!dec)
				return mf_error_nomem(err, r->path, c->lines.line, "decoding a system or LPAR name");
			n = mf_csv_data_decode(f, fl, dec);
			f = dec;
		}
		id = n ? mf_strtab_intern(r->opts.strtab, f, n) : 0; /* a lone ': no name */
		free(dec);
		if (!id && n)
			return mf_error_nomem(err, r->path, c->lines.line,
					      c->cols[i].kind == COL_SYSTEM ? "keeping the system names"
									    : "keeping the LPAR names");
		if (c->cols[i].kind == COL_SYSTEM)
			s->system = id;
		else
			s->lpar = id;
		break;
	}
	case COL_CPU: {
		uint64_t v;
		size_t k;
		if (fl > 9)
			return row_error(c, r, err, MF_EFORMAT, ls, le, f, "cpu number too large");
		if (mf_u64_parse(f, fl, &v, &k))
			return row_error(c, r, err, MF_EFORMAT, ls, le, f + k,
					 "cpu must be a non-negative whole number");
		s->cpu = (int64_t)v;
		break;
	}
	case COL_POOL:
		s->pool = mf_pool_parse(f, fl);
		if (s->pool < 0)
			return row_error(c, r, err, MF_EFORMAT, ls, le, f,
					 "unknown pool '%.*s' (expected GCP, ZIIP, ZAAP, ZCBP, IFL, ICF or RMF pool 1, "
					 "3, 6)",
					 (int)(fl > 20 ? 20 : fl), f);
		break;
	case COL_MACHINE: break;
	case COL_CPSP:
		if (fl == c->last_num_len[0] && memcmp(f, c->last_num[0], fl) == 0) {
			s->cpsp = c->last_num_val[0];
			break;
		}
		if (parse_double(f, fl, &s->cpsp) || s->cpsp <= 0)
			return row_error(c, r, err, MF_EFORMAT, ls, le, f,
					 "cpsp must be a positive number (CPU speed in MHz)");
		if (fl < sizeof(c->last_num[0])) {
			memcpy(c->last_num[0], f, fl);
			c->last_num_len[0] = fl;
			c->last_num_val[0] = s->cpsp;
		}
		break;
	case COL_START:
		if (fl != c->last_start_len || memcmp(f, c->last_start, fl) != 0) {
			int64_t us;
			if (mf_time_parse(f, fl, &us))
				return row_error(c, r, err, MF_EFORMAT, ls, le, f,
						 "interval_start must be an ISO 8601 time such as "
						 "2025-03-01T10:15:00Z");
			if (fl < sizeof(c->last_start)) {
				memcpy(c->last_start, f, fl);
				c->last_start_len = fl;
			} else {
				c->last_start_len = 0;
			}
			c->last_start_us = us;
		}
		s->has_start = true;
		s->start_us = c->last_start_us;
		break;
	case COL_SECONDS:
		if (fl == c->last_num_len[1] && memcmp(f, c->last_num[1], fl) == 0) {
			s->seconds = c->last_num_val[1];
			break;
		}
		if (parse_double(f, fl, &s->seconds) || s->seconds <= 0)
			return row_error(c, r, err, MF_EFORMAT, ls, le, f,
					 "interval_seconds must be a positive number of seconds");
		if (fl < sizeof(c->last_num[1])) {
			memcpy(c->last_num[1], f, fl);
			c->last_num_len[1] = fl;
			c->last_num_val[1] = s->seconds;
		}
		break;
	default: return place_field(r, c, s, i, f, fl, ls, le, err);
	}
	return 0;
}

static long split_fast(struct csv *c, const char *ls, const char *le)
{
	const char *p = ls;
	size_t i = 0;

	for (;;) {
		const char *f = p;
		if (i == c->ncols)
			return (long)c->ncols + 1;
		c->fs[i] = f;
		if (c->is_counter[i]) {
			uint64_t v;
			size_t nd;
			/* The buffer has at least 8 readable bytes past its end, and *le is never a digit. */
			p = parse_digits(p, f, &v);
			nd = (size_t)(p - f);
			c->val[i] = v;
			c->ok[i] = (unsigned char)((nd - 1 < 19) & ((*p == ',') | (p == le)));
		}
		while (p < le && *p != ',')
			p++;
		c->fl[i] = (size_t)(p - f);
		i++;
		if (p >= le)
			return (long)i;
		p++;
	}
}

/* No speed in the data: the machine's nominal speed, said aloud (see README), unless --cpu-mhz gives one. */
static void finish_sample(const struct mf_reader *r, struct csv *c, struct mf_sample *s)
{
	s->line = c->lines.line;
	/*
	 * An LPAR with its weight or RMF busy time was joined from SMF type 70 when the row was
	 * made (mfstat export of a dump: type 113 records name no LPAR, and only the LPAR view gives
	 * a weight): the row is the same sample as the dump's, and its LPAR goes to the LPAR table.
	 */
	if (s->lpar && (s->lpar_weight >= 0 || !isnan(s->rmf_busy_s)))
		s->lpar_joined = true;
	if (isnan(s->cpsp) && s->machine && !(r->opts.cpu_mhz > 0)) {
		s->cpsp = s->machine->nominal_mhz;
		s->cpsp_nominal = true;
		c->nominal_rows++;
		c->nominal_machine = s->machine;
	}
}

/*
 * The hot path: a row without quotes whose machine is the one last seen, read
 * in one pass straight into the sample.  Returns 1 when the row was read, 0
 * when it needs the careful path (anything unusual, including every error,
 * which the careful path then reports precisely), or an error from an
 * identity field.
 */
static int fast_row(struct mf_reader *r, struct csv *c, struct mf_sample *s, const char *ls, const char *le,
		    struct mf_error *err)
{
	const struct mf_family *fam = r->opts.family;
	const struct mf_machine *mach = r->opts.machine;
	const struct fammap *map;
	const int16_t *slot;
	const char *p = ls;
	size_t i, k, nid = 0;
	bool empty = false;
	int rc;

	if (c->has_machine) {
		const char *f = ls, *e;
		for (i = 0; i < c->machine_col; i++) {
			f = memchr(f, ',', (size_t)(le - f));
			if (!f)
				return 0;
			f++;
		}
		e = memchr(f, ',', (size_t)(le - f));
		if (!e)
			e = le;
		if (e > f) {
			if ((size_t)(e - f) != c->last_machine_len || memcmp(f, c->last_machine, (size_t)(e - f)) != 0)
				return 0; /* the careful path resolves and caches it */
			fam = c->lm_fam;
			mach = c->lm_machine;
		}
	}
	if (!fam)
		fam = mf_kb_generic(r->opts.kb);
	map = get_map(r, c, fam);
	if (!map || map->dup >= 0)
		return 0;
	slot = map->slot;
	for (i = 0;; i++) {
		const char *f = p;
		if (i == c->ncols)
			return 0;
		if (c->is_counter[i]) {
			uint64_t v;
			size_t nd;
			p = parse_digits(p, f, &v);
			nd = (size_t)(p - f);
			if (p != le && *p != ',')
				return 0;
			if (nd) {
				if (nd > 19 || slot[i] < 0)
					return 0;
				s->slot[s->n] = (uint16_t)slot[i];
				s->value[s->n++] = v;
			} else {
				empty = true;
			}
		} else {
			while (p < le && *p != ',')
				p++;
			c->fs[nid] = f;
			c->fl[nid] = (size_t)(p - f);
			c->idx[nid++] = i;
		}
		if (p >= le)
			break;
		p++;
	}
	if (i + 1 != c->ncols)
		return 0;
	s->family = fam;
	s->machine = mach;
	if (!empty)
		s->present_bits = map->full; /* every counter column present: no bitmap to build */
	for (k = 0; k < nid; k++) {
		if (c->fl[k] == 0)
			continue;
		rc = identity_field(r, c, s, c->idx[k], c->fs[k], c->fl[k], ls, le, err);
		if (rc)
			return rc;
	}
	finish_sample(r, c, s);
	return 1;
}

static int next_csv(struct mf_reader *r, struct mf_sample *s, struct mf_error *err)
{
	struct csv *c = r->state;
	const struct mf_kb *kb = r->opts.kb;
	const char *ls, *le;
	const struct mf_family *fam;
	const struct mf_machine *mach;
	struct fammap *map;
	long nf;
	size_t i;
	int rc;

	do {
		rc = next_row(r, c, &ls, &le, err);
		if (rc == 0 && c->nominal_rows) {
			mf_reader_warn(r,
				       "%s: no cpsp value in %lu rows: used the nominal speed of machine type %u "
				       "(%g MHz)",
				       r->path, c->nominal_rows, c->nominal_machine->type,
				       c->nominal_machine->nominal_mhz);
			c->nominal_rows = 0;
		}
		if (rc <= 0)
			return rc;
	} while (ls == le);
	mf_sample_reset(s);
	if (!memchr(ls, '"', (size_t)(le - ls))) {
		rc = fast_row(r, c, s, ls, le, err);
		if (rc)
			return rc;
		mf_sample_reset(s);
		nf = split_fast(c, ls, le);
	} else {
		memset(c->ok, 0, c->ncols);
		c->sp.max = c->ncols;
		nf = mf_csvsplit(&c->sp, ls, le);
	}
	if (nf == -2)
		return mf_error_nomem(err, r->path, c->lines.line, "splitting a row");
	if (nf == -1)
		return row_error(c, r, err, MF_EFORMAT, ls, le, c->sp.bad, "%s", c->sp.why);
	if ((size_t)nf != c->ncols) {
		if (memchr(ls, '\0', (size_t)(le - ls)))
			return row_error(c, r, err, MF_EFORMAT, ls, le,
					 (const char *)memchr(ls, '\0', (size_t)(le - ls)),
					 "binary data (a NUL byte) in a row");
		if ((size_t)nf > c->ncols) {
			/* Count the fields of the row and point at the first extra one. */
			size_t k;
			const char *extra = mf_text_extra_field(ls, le, c->ncols, &k);
			return row_error(c, r, err, MF_EFORMAT, ls, le, extra,
					 "row has more fields than the header (%zu, header has %zu)", k, c->ncols);
		}
		return row_error(c, r, err, MF_EFORMAT, ls, le, le,
				 "row has fewer fields than the header (%ld, header has %zu)", nf, c->ncols);
	}
	/* The family: the row's machine column, else --machine, else none. */
	fam = r->opts.family;
	mach = r->opts.machine;
	if (c->has_machine) {
		for (i = 0; c->cols[i].kind != COL_MACHINE; i++)
			;
		if (c->fl[i]) {
			if (c->fl[i] != c->last_machine_len || memcmp(c->fs[i], c->last_machine, c->fl[i]) != 0) {
				const struct mf_family *f2;
				const struct mf_machine *m2;
				if (c->fl[i] >= sizeof(c->last_machine) ||
				    mf_kb_resolve(kb, c->fs[i], c->fl[i], &f2, &m2) != 0 || f2 == mf_kb_generic(kb))
					return row_error(c, r, err, MF_ENOMACHINE, ls, le, c->fs[i],
							 "unknown machine '%.*s' (expected a family such as z16 or a "
							 "machine type such as 3931; see mfstat machines)",
							 (int)(c->fl[i] > 40 ? 40 : c->fl[i]), c->fs[i]);
				memcpy(c->last_machine, c->fs[i], c->fl[i]);
				c->last_machine_len = c->fl[i];
				c->lm_fam = f2;
				c->lm_machine = m2;
			}
			fam = c->lm_fam;
			mach = c->lm_machine;
		}
	}
	if (!fam)
		fam = mf_kb_generic(kb);
	map = get_map(r, c, fam);
	if (!map)
		return mf_error_nomem(err, r->path, c->lines.line,
				      "mapping the columns to the counters of family %s (or more than 64 families)",
				      fam->key);
	if (map->dup >= 0)
		return row_error(c, r, err, MF_EFORMAT, ls, le, c->fs[map->dup],
				 "column %s repeats column %ld (%s): both are counter %s on %s", c->cols[map->dup].name,
				 map->dup_of + 1, c->cols[map->dup_of].name,
				 fam->counters[map->slot[map->dup]].short_name, fam->display);
	s->family = fam;
	s->machine = mach;
	for (i = 0; i < c->ncols; i++) {
		const char *f = c->fs[i];
		size_t fl = c->fl[i];
		if (c->is_counter[i]) {
			uint64_t v = 0;
			int slot;
			if (fl == 0)
				continue; /* an empty field: the counter is absent in this row */
			if (c->ok[i]) {
				v = c->val[i];
			} else {
				int prc = mf_u64_parse(f, fl, &v, NULL);
				if (prc == -1)
					goto bad_number;
				if (prc)
					return row_error(c, r, err, MF_EFORMAT, ls, le, f,
							 "value of %s does not fit in 64 bits", c->cols[i].name);
			}
			slot = map->slot[i];
			if (slot < 0) {
				if (fam == mf_kb_generic(kb))
					return row_error(c, r, err, MF_ENOMACHINE, ls, le, f,
							 "counter %s needs the machine family, and this row names none",
							 c->cols[i].name);
				return row_error(c, r, err, MF_ENOCOUNTER, ls, le, f, "counter %s does not exist on %s",
						 c->cols[i].name, fam->display);
			}
			s->slot[s->n] = (uint16_t)slot;
			s->value[s->n] = v;
			s->n++;
			continue;
		bad_number : {
			const char *what = "not a number";
			size_t k = 0;
			if (memchr(f, '\0', fl))
				return row_error(c, r, err, MF_EFORMAT, ls, le, (const char *)memchr(f, '\0', fl),
						 "binary data (a NUL byte) in a row");
			while (k < fl && (f[k] == ' ' || f[k] == '\t'))
				k++;
			if (k < fl && f[k] == '-')
				what = "a negative value (counters are unsigned deltas)";
			else if (k < fl && isdigit((unsigned char)f[k])) {
				size_t j = k;
				while (j < fl && isdigit((unsigned char)f[j]))
					j++;
				if (j < fl && (f[j] == '.' || f[j] == 'e' || f[j] == 'E'))
					what = "not an integer (counters are whole numbers)";
			}
			return row_error(c, r, err, MF_EFORMAT, ls, le, f, "%s: %s '%.*s'", c->cols[i].name, what,
					 (int)(fl > 40 ? 40 : fl), f);
		}
		}
		if (fl == 0)
			continue;
		rc = identity_field(r, c, s, i, f, fl, ls, le, err);
		if (rc)
			return rc;
	}
	finish_sample(r, c, s);
	return 1;
}

static void close_csv(struct mf_reader *r)
{
	struct csv *c = r->state;
	size_t i;

	for (i = 0; i < c->ncols && c->cols; i++)
		free(c->cols[i].name);
	for (i = 0; i < c->nmaps; i++)
		free(c->maps[i].slot);
	free(c->cols);
	free(c->is_counter);
	free(c->idx);
	free(c->fs);
	free(c->fl);
	free(c->val);
	free(c->ok);
	mf_csvsplit_free(&c->sp);
	free(c);
	r->state = NULL;
}

static long lines_csv(struct mf_reader *r)
{
	const struct csv *c = r->state;
	return c ? c->lines.line : 0;
}

const struct mf_reader_ops mf_csv_reader = {
	.lines = lines_csv,
	.name = "csv",
	.probe = probe,
	.open = open_csv,
	.next = next_csv,
	.close = close_csv,
};
