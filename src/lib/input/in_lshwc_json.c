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

/* The bytes of numbers and words (true, 1e-5) as json_skip takes them: ASCII letters, digits, - + . */
static const bool word_char[256] = {
	['+'] = 1, ['-'] = 1, ['.'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
	['7'] = 1, ['8'] = 1, ['9'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1,
	['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1,
	['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['a'] = 1,
	['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1,
	['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
	['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

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
			/* To the first quote after an even run of backslashes (each \ escapes what follows it). */
			const char *s = b + p + 1, *q;
			for (;;) {
				size_t k = 0;
				q = memchr(s, '"', (size_t)(b + end - s));
				if (!q)
					return 0;
				while (q - k > b + p + 1 && q[-1 - (long)k] == '\\')
					k++;
				if (!(k & 1))
					break;
				s = q + 1;
			}
			p = (size_t)(q - b) + 1;
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
			while (p < end && word_char[(unsigned char)b[p]])
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

/* ---- measurements of lshwc's own shape, read without jansson ---------------------------------- */

/*
 * jansson builds a tree of allocations for each measurement, and each was read
 * twice (the ids first, then the rows): a 256 MiB document of small
 * measurements, a 21 KB zstd file, was a minute's work.  A measurement of
 * lshwc's own shape is read here in one pass over its bytes, allocating
 * nothing: an object of the members "cpu", "time_epoch", "date_time" and
 * "counters", each at most once, "counters" an array of objects of the
 * members "name", "id" and "value", each at most once; the values integers of
 * up to 18 digits (no fraction, no exponent) or strings of printable ASCII
 * without escapes.  That is JSON that jansson reads to the same values.
 * Anything else (another member, a second one of a name, an escape, a real,
 * null, a measurement over MAX_JSON_PIECE) goes to jansson as before, and so
 * does a measurement whose values are wrong, for json_row_of to word the error.
 */
enum { FV_NONE, FV_INT, FV_STR, FV_ARRAY };

struct fval {
	int kind;
	int64_t i;
	const char *s; /* FV_STR: not NUL-terminated */
	size_t n;
};

struct fctr {
	struct fval name, id, value;
};

struct json_fast {
	struct fval cpu, te, dt, counters;
	struct fctr *c;
	size_t nc, cap;
};

void mf_lshwc_json_free(struct lshwc *L)
{
	if (L->fast)
		free(L->fast->c);
	free(L->fast);
	L->fast = NULL;
}

/* A string at b[p] (its '"'): printable ASCII, no escape.  Returns the offset past it, or 0. */
static size_t fast_str(const char *b, size_t p, size_t lim, struct fval *v)
{
	size_t q;
	for (q = p + 1; q < lim; q++) {
		unsigned char c = (unsigned char)b[q];
		if (c == '"') {
			v->kind = FV_STR;
			v->s = b + p + 1;
			v->n = q - p - 1;
			return q + 1;
		}
		if (c < 0x20 || c > 0x7E || c == '\\')
			return 0;
	}
	return 0;
}

/* An integer at b[p]: -?(0|[1-9][0-9]*), 18 digits at most, no fraction or exponent.  The offset past it, or 0. */
static size_t fast_int(const char *b, size_t p, size_t lim, struct fval *v)
{
	size_t q = p, d;
	int64_t x = 0;
	if (q < lim && b[q] == '-')
		q++;
	for (d = q; q < lim && b[q] >= '0' && b[q] <= '9' && q - d < 19; q++)
		x = x * 10 + (b[q] - '0');
	if (q == d || q - d > 18 || (b[d] == '0' && q - d > 1))
		return 0;
	if (q < lim && (b[q] == '.' || b[q] == 'e' || b[q] == 'E' || (b[q] >= '0' && b[q] <= '9')))
		return 0;
	v->kind = FV_INT;
	v->i = b[p] == '-' ? -x : x;
	return q;
}

/* A member's value at b[p]: a string or an integer into v, which must not have one yet. */
static size_t fast_scalar(const char *b, size_t p, size_t lim, struct fval *v)
{
	if (!v || v->kind != FV_NONE || p >= lim)
		return 0;
	if (b[p] == '"')
		return fast_str(b, p, lim, v);
	if (b[p] == '-' || (b[p] >= '0' && b[p] <= '9'))
		return fast_int(b, p, lim, v);
	return 0;
}

/* A member name at b[p] and its ':' into *key; the offset of the value after it, or 0. */
static size_t fast_key(const char *b, size_t p, size_t lim, struct fval *key)
{
	key->kind = FV_NONE;
	if (p >= lim || b[p] != '"' || !(p = fast_str(b, p, lim, key)))
		return 0;
	p = json_ws(b, p, lim);
	if (p >= lim || b[p] != ':')
		return 0;
	return json_ws(b, p + 1, lim);
}

/* After a member at b[p]: 1 with *p past the '}' that ends the object, 2 past a ',', 0 for anything else. */
static int fast_next(const char *b, size_t *p, size_t lim, char close)
{
	size_t q = json_ws(b, *p, lim);
	if (q < lim && (b[q] == close || b[q] == ',')) {
		*p = q + 1;
		return b[q] == close ? 1 : 2;
	}
	return 0;
}

/* A member's value at b[p] for fast_object: the offset past it, or 0. */
typedef size_t (*fast_member_fn)(const char *b, size_t p, size_t lim, const struct fval *key, void *ctx);

/* An object at b[p] (its '{'), each member's value read by member: the offset past it, or 0. */
static size_t fast_object(const char *b, size_t p, size_t lim, fast_member_fn member, void *ctx)
{
	int more;
	if (p >= lim || b[p] != '{')
		return 0;
	p = json_ws(b, p + 1, lim);
	if (p < lim && b[p] == '}')
		return p + 1;
	do {
		struct fval key;
		if (!(p = fast_key(b, p, lim, &key)) || !(p = member(b, p, lim, &key, ctx)) ||
		    !(more = fast_next(b, &p, lim, '}')))
			return 0;
		if (more == 2)
			p = json_ws(b, p, lim);
	} while (more == 2);
	return p;
}

/* A member of a counter entry: "name", "id" and "value" kept, any other scalar skipped. */
static size_t ctr_member(const char *b, size_t p, size_t lim, const struct fval *key, void *ctx)
{
	struct fctr *c = ctx;
	return fast_scalar(b, p, lim,
			   key_is(key->s, key->n, "name")    ? &c->name
			   : key_is(key->s, key->n, "id")    ? &c->id
			   : key_is(key->s, key->n, "value") ? &c->value
							     : NULL);
}

/* A counter entry at b[p] (its '{') into c; the offset past it, or 0. */
static size_t fast_ctr(const char *b, size_t p, size_t lim, struct fctr *c)
{
	memset(c, 0, sizeof(*c));
	return fast_object(b, p, lim, ctr_member, c);
}

/* The "counters" array at b[p] (its '[') into f; the offset past it, or 0. */
static size_t fast_ctrs(const char *b, size_t p, size_t lim, struct json_fast *f)
{
	int more;
	if (f->counters.kind != FV_NONE || p >= lim || b[p] != '[')
		return 0;
	f->counters.kind = FV_ARRAY;
	p = json_ws(b, p + 1, lim);
	if (p < lim && b[p] == ']')
		return p + 1;
	do {
		if (p >= lim || b[p] != '{')
			return 0;
		if (f->nc == f->cap) {
			size_t cap = f->cap ? 2 * f->cap : 64;
			struct fctr *nc = realloc(f->c, cap * sizeof(*nc));
			if (!nc)
				return 0; /* jansson reads it, or says it is out of memory */
			f->c = nc;
			f->cap = cap;
		}
		if (!(p = fast_ctr(b, p, lim, &f->c[f->nc])))
			return 0;
		f->nc++;
		if (!(more = fast_next(b, &p, lim, ']')))
			return 0;
		if (more == 2)
			p = json_ws(b, p, lim);
	} while (more == 2);
	return p;
}

/* A member of a measurement: "counters", "cpu", "time_epoch" and "date_time" kept. */
static size_t meas_member(const char *b, size_t p, size_t lim, const struct fval *key, void *ctx)
{
	struct json_fast *f = ctx;
	if (key_is(key->s, key->n, "counters"))
		return fast_ctrs(b, p, lim, f);
	return fast_scalar(b, p, lim,
			   key_is(key->s, key->n, "cpu")          ? &f->cpu
			   : key_is(key->s, key->n, "time_epoch") ? &f->te
			   : key_is(key->s, key->n, "date_time")  ? &f->dt
								  : NULL);
}

/* The measurement at b[p] (after blanks) into f: the offset past it, or 0 to leave it to jansson. */
static size_t fast_meas(const char *b, size_t p, size_t end, struct json_fast *f)
{
	size_t lim = end - p > MAX_JSON_PIECE ? p + MAX_JSON_PIECE : end;
	f->cpu.kind = f->te.kind = f->dt.kind = f->counters.kind = FV_NONE;
	f->nc = 0;
	return fast_object(b, p, lim, meas_member, f);
}

/*
 * The next measurement from b[L->meas_pos]: 1 with *m (jansson's, the
 * caller's), or with *m NULL and L->fast holding it when fast_meas took it;
 * 0 at the ']' that ends the array.
 */
static int json_next_meas(struct mf_reader *r, struct lshwc *L, json_t **m, struct mf_error *err)
{
	const char *b = r->st.buf;
	size_t end = r->st.len, p = json_ws(b, L->meas_pos, end), q, bad;
	int rc;
	*m = NULL;
	if (L->meas_done)
		return 0;
	if (p < end && b[p] == ']' && L->next_meas == 0) {
		L->meas_done = true;
		return 0;
	}
	L->meas_done = true; /* until it is read: after an error the rest cannot be */
	if (!L->fast)
		L->fast = calloc(1, sizeof(*L->fast)); /* without it, jansson reads them all */
	q = L->fast ? fast_meas(b, p, end, L->fast) : 0;
	if (!q) {
		q = json_skip(b, p, end, &bad);
		if (!q)
			return json_bad(r, p, bad, "measurement", err);
		rc = json_piece(r, p, q, "a measurement", m, err);
		if (rc)
			return rc;
	}
	L->meas_done = false;
	L->meas_off = p;
	L->meas_end = q;
	q = json_ws(b, q, end);
	if (q < end && b[q] == ']') {
		L->meas_done = true;
	} else if (q >= end || b[q] != ',') {
		if (*m)
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

/* A column for counter id n (named name[0..len), or unnamed when len is 0): 0, or -1 out of memory. */
static int add_id(struct lshwc *L, size_t *ncap, unsigned n, const char *name, size_t len)
{
	struct lcol *col = mf_lshwc_grow(L->cols, ncap, L->ncols + 1, sizeof(*L->cols));
	char lb[32];
	if (!col)
		return -1;
	L->cols = col;
	col = &L->cols[L->ncols];
	L->idx_of[n] = (int16_t)L->ncols++;
	col->number = n;
	col->name = NULL;
	if (len) {
		col->name = strndup(name, len);
		snprintf(lb, sizeof(lb), " (id %u)", n);
		if (col->name) {
			size_t ll = len + strlen(lb) + 1;
			col->label = malloc(ll);
			if (col->label)
				snprintf(col->label, ll, "%s%s", col->name, lb);
		}
	} else {
		snprintf(lb, sizeof(lb), "id %u", n);
		col->label = strdup(lb);
	}
	return !col->label || (len && !col->name) ? -1 : 0;
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
		json_t *ctrs = m ? json_object_get(m, "counters") : NULL;
		size_t c;
		L->next_meas++;
		for (c = 0; !m && c < L->fast->nc; c++) { /* read by fast_meas */
			const struct fctr *e = &L->fast->c[c];
			if (e->id.kind == FV_INT && e->id.i >= 0 && e->id.i < MF_MAX_COUNTER &&
			    L->idx_of[e->id.i] < 0 &&
			    add_id(L, &ncap, (unsigned)e->id.i, e->name.s, e->name.kind == FV_STR ? e->name.n : 0))
				return mf_lshwc_oom(r, err, "reading the counter names of a measurement");
		}
		for (c = 0; json_is_array(ctrs) && c < json_array_size(ctrs); c++) {
			json_t *e = json_array_get(ctrs, c), *id = json_object_get(e, "id"),
			       *nm = json_object_get(e, "name");
			json_int_t n;
			if (!json_is_integer(id))
				continue;
			n = json_integer_value(id);
			if (n < 0 || n >= MF_MAX_COUNTER || L->idx_of[n] >= 0)
				continue;
			if (add_id(L, &ncap, (unsigned)n, json_is_string(nm) ? json_string_value(nm) : NULL,
				   json_is_string(nm) ? json_string_length(nm) : 0)) {
				json_decref(m);
				return mf_lshwc_oom(r, err, "reading the counter names of a measurement");
			}
		}
		if (m)
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

/* json_row_of for a measurement read by fast_meas: 1, or 0 when it is wrong (json_row_of words how). */
static int fast_row_of(struct lshwc *L, struct lrow *w, const struct json_fast *f, size_t mi)
{
	size_t c;
	w->meas = mi;
	w->line = 0;
	if (f->cpu.kind == FV_INT && f->cpu.i >= 0 && f->cpu.i <= MAX_CPU) {
		w->kind = ROW_CPU;
		w->cpu = f->cpu.i;
	} else if (f->cpu.kind == FV_STR && f->cpu.n == 5 && strncasecmp(f->cpu.s, "total", 5) == 0) {
		w->kind = ROW_TOTAL;
		w->cpu = -1;
	} else if (f->cpu.kind == FV_STR && f->cpu.n == 5 && strncasecmp(f->cpu.s, "delta", 5) == 0) {
		w->kind = ROW_DELTA;
		w->cpu = -1;
	} else {
		return 0;
	}
	w->has_time = false;
	w->t_us = 0;
	if (f->te.kind != FV_NONE) {
		if (f->te.kind != FV_INT || f->te.i < 0 || f->te.i > INT64_MAX / 1000000)
			return 0;
		w->has_time = true;
		w->t_us = f->te.i * 1000000;
	} else if (f->dt.kind != FV_NONE) {
		char t[48];
		if (f->dt.kind != FV_STR || f->dt.n >= sizeof(t))
			return 0;
		memcpy(t, f->dt.s, f->dt.n);
		t[f->dt.n] = '\0';
		if (json_time(t, &w->t_us))
			return 0;
		w->has_time = true;
	}
	if (f->counters.kind != FV_ARRAY)
		return 0;
	memset(w->has, 0, L->ncols);
	for (c = 0; c < f->nc; c++) {
		const struct fctr *e = &f->c[c];
		int ci;
		if (e->id.kind != FV_INT || e->id.i < 0 || e->id.i >= MF_MAX_COUNTER)
			return 0;
		ci = L->idx_of[e->id.i];
		if (w->has[ci])
			return 0;
		if (e->value.kind == FV_INT && e->value.i >= 0)
			w->val[ci] = (uint64_t)e->value.i;
		else if (e->value.kind != FV_STR || mf_lshwc_parse_value(e->value.s, e->value.n, &w->val[ci]))
			return 0;
		w->has[ci] = 1;
	}
	return 1;
}

int mf_lshwc_json_row(struct mf_reader *r, struct lshwc *L, struct lrow *w, struct mf_error *err)
{
	json_t *m;
	int rc = json_next_meas(r, L, &m, err);
	if (rc <= 0)
		return rc;
	if (!m) {
		if (fast_row_of(L, w, L->fast, L->next_meas)) {
			L->next_meas++;
			return 1;
		}
		/* Something in it is wrong: jansson's reading of it says what. */
		rc = json_piece(r, L->meas_off, L->meas_end, "a measurement", &m, err);
		if (rc)
			return rc;
	}
	rc = json_row_of(r, L, w, m, L->next_meas++, err);
	json_decref(m);
	if (rc < 0 && err && err->line == 0) {
		/* Where the measurement starts. */
		const char *ls, *le;
		json_where(r, L->meas_off, &err->line, &err->col, &ls, &le);
	}
	return rc;
}
