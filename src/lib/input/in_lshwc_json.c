/* SPDX-License-Identifier: MIT */
/*
 * The JSON output of lshwc (see lshwc.c): the document's bytes are held, the
 * counter ids of every measurement gathered first, then one measurement at a
 * time is parsed with jansson and checked for the differencing core.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "lshwc_int.h"

static int cmp_col(const void *a, const void *b)
{
	const struct lcol *x = a, *y = b;
	return (x->number > y->number) - (x->number < y->number);
}

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
		return mf_error_nomem(err, r->path, 0, "reading the lshwc JSON");
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
	else if (json_error_code(&je) == json_error_out_of_memory || p + n == r->st.len || (size_t)je.position < n)
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
		return mf_lshwc_parse_value(json_string_value(v), json_string_length(v), out);
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
	if (n > 5 && (s[n - 5] == '+' || s[n - 5] == '-') && mf_lshwc_all_digits(s + n - 4, 4)) {
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
				return mf_lshwc_oom(r, err, "keeping the host name");
			}
		}
		json_decref(meta);
	}
	return 0;
}

int mf_lshwc_open_json(struct mf_reader *r, struct lshwc *L, struct mf_error *err)
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
			return mf_error_set(err, MF_EFORMAT, r->path, 0, 0,
					    "JSON input larger than %zu MiB (the limit)", MAX_JSON >> 20);
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
		return mf_error_set(err, MF_EFORMAT, r->path, 0, 0,
				    "lshwc: \"measurements\" is missing or not an array");
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
			col = mf_lshwc_grow(L->cols, &ncap, L->ncols + 1, sizeof(*L->cols));
			if (!col) {
				json_decref(m);
				return mf_lshwc_oom(r, err, "reading the counters of a measurement");
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
				return mf_lshwc_oom(r, err, "reading the counter names of a measurement");
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
	return mf_lshwc_choose_family(r, L, top.csvn, top.cfvn, err);
}

/* The next measurement into w; 1, 0 at the end, or an error (the measurement is skipped). */
static int json_row_of(struct mf_reader *r, struct lshwc *L, struct lrow *w, json_t *m, size_t mi, struct mf_error *err)
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
				    mf_lshwc_value_problem(prc));
		w->has[ci] = 1;
	}
#undef JERR
	return 1;
}

int mf_lshwc_json_row(struct mf_reader *r, struct lshwc *L, struct lrow *w, struct mf_error *err)
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
