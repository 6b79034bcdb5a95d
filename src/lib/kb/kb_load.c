/* SPDX-License-Identifier: MIT */
/* Knowledge base loader: families, counters, metrics, machines, LSPR table (the queries are in kb.c). */
#include "mfstat/kb/kb.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "base/datafile.h"
#include "base/text.h"
#include "base/tsv.h"
#include "kb_int.h"

struct kb_priv {
	struct mf_arena arena;
};

struct loader {
	struct mf_kb *kb;
	struct mf_arena *a;
	const char *dir;
	struct mf_error *err;
	const char *order[256]; /* every name of the report lists, in file order */
	size_t norder;
};

/* Reads a table: the overlay directory's copy if it has one, else the embedded one. */
enum { FROM_BOTH, FROM_EMBEDDED, FROM_DIR };

static int load_file_from(struct loader *L, const char *rel, bool required, const char **text, size_t *len,
			  const char **name, int from)
{
	const char *data;

	*text = NULL;
	*len = 0;
	if (L->dir && from != FROM_EMBEDDED) {
		char path[4096];
		char *buf;
		size_t n;
		int rc;
		snprintf(path, sizeof(path), "%s/%s", L->dir, rel);
		rc = mf_datafile_read_path(path, &buf, &n, L->err);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			*text = mf_arena_strndup(L->a, buf, n);
			free(buf);
			*name = mf_arena_strdup(L->a, path);
			if (!*text || !*name)
				return mf_error_nomem(L->err, path, 0, "loading the knowledge-base file");
			*len = n;
			return 0;
		}
	}
	if (from != FROM_DIR && (data = mf_datafile_embedded(rel, len))) {
		char nm[300];
		snprintf(nm, sizeof(nm), "data/%s", rel);
		*text = data;
		*name = mf_arena_strdup(L->a, nm);
		return *name ? 0 : mf_error_nomem(L->err, nm, 0, "loading the knowledge-base file");
	}
	if (required)
		return mf_error_set(L->err, MF_ETABLE, rel, 0, 0, "table file missing%s%s", L->dir ? " in " : "",
				    L->dir ? L->dir : "");
	return 0;
}

static int load_file(struct loader *L, const char *rel, bool required, const char **text, size_t *len,
		     const char **name)
{
	return load_file_from(L, rel, required, text, len, name, FROM_BOTH);
}

typedef int row_fn(struct loader *L, struct mf_tsv *t, void *ctx);

/*
 * The one row loop of the tables: checks the header of text (name for the
 * messages) against cols, and calls row for every row with as many fields as
 * cols names.  Returns 0 or the first error.
 */
static int each_row(struct loader *L, const char *name, const char *text, size_t len, const char *const *cols,
		    row_fn *row, void *ctx)
{
	struct mf_tsv *t = malloc(sizeof(*t));
	size_t ncols = 0;
	int rc;

	if (!t)
		return mf_error_nomem(L->err, name, 0, "loading the knowledge-base table");
	while (cols[ncols])
		ncols++;
	rc = mf_tsv_open(t, name, text, len, cols, L->err);
	while (rc == 0 && (rc = mf_tsv_next(t, L->err)) == 1) {
		if (t->nf != ncols)
			rc = mf_tsv_fail(t, L->err, t->nf - 1, t->flen[t->nf - 1], MF_ETABLE,
					 "expected %zu fields, found %zu", ncols, t->nf);
		else
			rc = row(L, t, ctx);
	}
	free(t);
	return rc < 0 ? rc : 0;
}

/*
 * Reads table rel (load_file) row by row (each_row); *name is the name it is
 * known by in messages.  An optional table that is absent has no rows.
 */
static int load_table(struct loader *L, const char *rel, bool required, const char *const *cols, row_fn *row, void *ctx,
		      const char **name)
{
	const char *text;
	size_t len;
	int rc = load_file(L, rel, required, &text, &len, name);

	if (rc || !text)
		return rc;
	return each_row(L, *name, text, len, cols, row, ctx);
}

static int parse_uint(const char *s, long max, long *out)
{
	uint64_t v;
	if (mf_u64_parse(s, strlen(s), &v, NULL) || v > (uint64_t)max)
		return -1;
	*out = (long)v;
	return 0;
}

static bool is_ident(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

static int set_of_number(unsigned n)
{
	if (n < 32)
		return MF_SET_BASIC;
	if (n < 64)
		return MF_SET_PROBLEM;
	if (n < 128)
		return MF_SET_CRYPTO;
	if (n < 448)
		return MF_SET_EXTENDED;
	return MF_SET_MTDIAG;
}

static int cmp_counter(const void *a, const void *b)
{
	const struct mf_counter *x = a, *y = b;
	return (x->number > y->number) - (x->number < y->number);
}

/*
 * A full arena array of n elements of size each, moved to one of twice its
 * capacity (first when empty); *cap is updated.  Doubling keeps loading linear:
 * copying the array for every row was quadratic in time and arena memory.
 * Returns the new array, or NULL when out of memory.
 */
static void *arena_grow(struct loader *L, void *old, size_t n, size_t size, size_t *cap, size_t first)
{
	size_t ncap = *cap ? *cap * 2 : first;
	void *p = mf_arena_alloc(L->a, ncap * size);
	if (!p)
		return NULL;
	if (n)
		memcpy(p, old, n * size);
	*cap = ncap;
	return p;
}

struct counters_ctx {
	struct mf_family *fam;
	size_t cap; /* room in fam->counters (grown by doubling) */
};

static int counter_row(struct loader *L, struct mf_tsv *t, void *vctx)
{
	struct counters_ctx *ctx = vctx;
	struct mf_family *fam = ctx->fam;
	struct mf_counter *c;
	long num;
	int set = -1, k;
	size_t i;

	if (parse_uint(t->fz[0], MF_MAX_COUNTER - 1, &num))
		return mf_tsv_fail(t, L->err, 0, 0, MF_ETABLE, "counter number must be 0..%d", MF_MAX_COUNTER - 1);
	if (fam->named) {
		/* Families of any vendor: counters are names; the number is only an id. */
		if (!is_ident(t->fz[1]) || mf_short_counter_number(t->fz[1], t->flen[1]) >= 0)
			return mf_tsv_fail(t, L->err, 1, 0, MF_ETABLE,
					   "counter name '%s' must be a name that does not look like B0 or E143",
					   t->fz[1]);
	} else if (mf_short_counter_number(t->fz[1], t->flen[1]) != num || !isupper((unsigned char)t->fz[1][0])) {
		return mf_tsv_fail(t, L->err, 1, 0, MF_ETABLE, "short name '%s' does not match counter number %ld",
				   t->fz[1], num);
	}
	if (!is_ident(t->fz[2]) || isdigit((unsigned char)t->fz[2][0]))
		return mf_tsv_fail(t, L->err, 2, 0, MF_ETABLE, "Linux name must be a name ([A-Z0-9_])");
	for (k = 0; k <= MF_NSETS; k++)
		if (strcmp(t->fz[3], mf_set_name(k)) == 0)
			set = k;
	if (fam->named ? set != MF_SET_OTHER : (set < 0 || set != set_of_number((unsigned)num))) {
		if (fam->named)
			return mf_tsv_fail(t, L->err, 3, 0, MF_ETABLE, "set must be other for a named counter");
		return mf_tsv_fail(t, L->err, 3, 0, MF_ETABLE, "set must be %s for counter %ld",
				   mf_set_name(set_of_number((unsigned)num)), num);
	}
	if (t->flen[4] == 0)
		return mf_tsv_fail(t, L->err, 4, 0, MF_ETABLE, "empty description");
	for (i = 0; i < fam->ncounters; i++) {
		if (fam->counters[i].number == (unsigned)num || strcasecmp(fam->counters[i].linux_name, t->fz[2]) == 0)
			return mf_tsv_fail(t, L->err, fam->counters[i].number == (unsigned)num ? 0 : 2, 0, MF_ETABLE,
					   "counter %ld or name %s defined twice", num, t->fz[2]);
	}
	if (mf_short_counter_number(t->fz[2], t->flen[2]) >= 0)
		return mf_tsv_fail(t, L->err, 2, 0, MF_ETABLE, "a Linux name must not look like a short name");
	if (fam->named && strcasecmp(t->fz[1], t->fz[2]) != 0)
		return mf_tsv_fail(t, L->err, 2, 0, MF_ETABLE,
				   "a named counter has one name: columns short and "
				   "linux must be the same");
	if (fam->ncounters == ctx->cap) {
		void *grown = arena_grow(L, fam->counters, fam->ncounters, sizeof(*fam->counters), &ctx->cap, 64);
		if (!grown)
			return mf_error_nomem(L->err, t->name, t->line, "loading the counters");
		fam->counters = grown;
	}
	c = &fam->counters[fam->ncounters++];
	c->number = (unsigned)num;
	c->set = set;
	c->short_name = mf_arena_strdup(L->a, t->fz[1]);
	c->linux_name = mf_arena_strdup(L->a, t->fz[2]);
	c->desc = mf_arena_strdup(L->a, t->fz[4]);
	if (!c->short_name || !c->linux_name || !c->desc)
		return mf_error_nomem(L->err, t->name, t->line, "loading the counters");
	return 0;
}

static int load_counters(struct loader *L, struct mf_family *fam)
{
	static const char *const cols[] = {"number", "short", "linux", "set", "description", NULL};
	struct counters_ctx ctx = {fam, 0};
	char rel[128];
	const char *name;
	size_t i;
	int rc;

	snprintf(rel, sizeof(rel), "counters/%s.tsv", fam->key);
	fam->counters = NULL;
	rc = load_table(L, rel, true, cols, counter_row, &ctx, &name);
	if (rc)
		return rc;
	if (fam->ncounters == 0)
		return mf_error_set(L->err, MF_ETABLE, name, 0, 0, "no counters defined");
	qsort(fam->counters, fam->ncounters, sizeof(*fam->counters), cmp_counter);
	for (i = 0; i < MF_MAX_COUNTER; i++)
		fam->dense[i] = -1;
	for (i = 0; i < fam->ncounters; i++)
		fam->dense[fam->counters[i].number] = (int16_t)i;
	return 0;
}

struct bind_ctx {
	const struct mf_family *fam;
	const struct name_hash *metrics; /* exact names -> metric index */
};

static int bind_name(void *vctx, const char *name, size_t len, int *kind, int *index)
{
	struct bind_ctx *ctx = vctx;
	const struct mf_counter *c;
	long m;

	if (len == 4 && memcmp(name, "CPSP", 4) == 0) {
		*kind = MF_REF_VAR;
		*index = MF_VAR_CPSP;
		return 0;
	}
	if (len == 8 && memcmp(name, "INTERVAL", 8) == 0) {
		*kind = MF_REF_VAR;
		*index = MF_VAR_INTERVAL;
		return 0;
	}
	if (len == 8 && memcmp(name, "RMF_BUSY", 8) == 0) {
		*kind = MF_REF_VAR;
		*index = MF_VAR_RMF_BUSY;
		return 0;
	}
	if (len == 12 && memcmp(name, "MEM_PEAK_GBS", 12) == 0) {
		*kind = MF_REF_VAR;
		*index = MF_VAR_MEM_PEAK_GBS;
		return 0;
	}
	m = mf_kb_name_find(ctx->metrics, name, len, false);
	if (m >= 0) {
		*kind = MF_REF_METRIC;
		*index = (int)m;
		return 0;
	}
	/* Counters by short or Linux name, exactly as the tables spell them. */
	c = mf_family_counter(ctx->fam, name, len);
	if (c && (strncmp(c->short_name, name, len) == 0 || strncmp(c->linux_name, name, len) == 0)) {
		*kind = MF_REF_COUNTER;
		*index = ctx->fam->dense[c->number];
		return 0;
	}
	return -1;
}

static bool valid_revision(const char *s)
{
	/* YYYY-MM or YYYY-MM-DD */
	size_t n = strlen(s), i;
	if (n != 7 && n != 10)
		return false;
	for (i = 0; i < n; i++) {
		bool dash = i == 4 || i == 7;
		if (dash ? s[i] != '-' : !isdigit((unsigned char)s[i]))
			return false;
	}
	return true;
}

struct raw_metric {
	struct mf_metric m;
	long formula_col;
	const char *line_text;
	size_t line_len;
};

/* The metrics read so far for one family (a later file's definition replaces an earlier one). */
struct metrics_ctx {
	struct raw_metric **list;
	size_t *n, *cap;
	struct name_hash *names;
};

static int metric_row(struct loader *L, struct mf_tsv *t, void *vctx)
{
	struct metrics_ctx *ctx = vctx;
	struct raw_metric r;
	long digits;
	char *fl, *save = NULL, *tok;
	size_t i;

	memset(&r, 0, sizeof(r));
	if (!is_ident(t->fz[0]))
		return mf_tsv_fail(t, L->err, 0, 0, MF_ETABLE, "metric name must be a name ([A-Za-z0-9_])");
	if (strcmp(t->fz[0], "CPSP") == 0 || strcmp(t->fz[0], "INTERVAL") == 0 ||
	    strcmp(t->fz[0], "MEM_PEAK_GBS") == 0 || strcmp(t->fz[0], "RMF_BUSY") == 0 ||
	    strcmp(t->fz[0], "LSPR") == 0 || mf_short_counter_number(t->fz[0], t->flen[0]) >= 0)
		return mf_tsv_fail(t, L->err, 0, 0, MF_ETABLE, "'%s' is a reserved name", t->fz[0]);
	if (t->flen[1] == 0)
		return mf_tsv_fail(t, L->err, 1, 0, MF_ETABLE, "empty unit");
	if (parse_uint(t->fz[2], 9, &digits))
		return mf_tsv_fail(t, L->err, 2, 0, MF_ETABLE, "digits must be 0..9");
	fl = t->fz[3];
	if (strcmp(fl, "-") != 0) {
		for (tok = strtok_r(fl, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (strcmp(tok, "nonneg") == 0)
				r.m.flags |= MF_METRIC_NONNEG;
			else if (strncmp(tok, "max=", 4) == 0) {
				char *end;
				errno = 0;
				r.m.max = strtod(tok + 4, &end);
				if (end == tok + 4 || *end || isnan(r.m.max))
					return mf_tsv_fail(t, L->err, 3, (size_t)(tok - fl), MF_ETABLE,
							   "max= needs a number, as in max=16");
				if (errno == ERANGE || isinf(r.m.max))
					return mf_tsv_fail(t, L->err, 3, (size_t)(tok - fl) + 4, MF_ETABLE,
							   "max=%s is out of the range of a double", tok + 4);
				r.m.flags |= MF_METRIC_MAX;
			} else if (strcmp(tok, "aux") == 0)
				r.m.flags |= MF_METRIC_AUX;
			else if (strcmp(tok, "sparse") == 0)
				r.m.flags |= MF_METRIC_SPARSE;
			else
				return mf_tsv_fail(t, L->err, 3, (size_t)(tok - fl), MF_ETABLE,
						   "unknown flag '%s' (known: nonneg, max=N, aux, sparse, or - for "
						   "none)",
						   tok);
		}
	}
	if (!valid_revision(t->fz[4]))
		return mf_tsv_fail(t, L->err, 4, 0, MF_ETABLE, "revision must be a date YYYY-MM or YYYY-MM-DD");
	if (t->flen[5] == 0 || t->flen[6] == 0)
		return mf_tsv_fail(t, L->err, t->flen[5] ? 6 : 5, 0, MF_ETABLE, "empty %s",
				   t->flen[5] ? "description" : "formula");
	r.m.name = mf_arena_strdup(L->a, t->fz[0]);
	r.m.unit = mf_arena_strdup(L->a, t->fz[1]);
	r.m.digits = (int)digits;
	r.m.revision = mf_arena_strdup(L->a, t->fz[4]);
	r.m.formula = mf_arena_strdup(L->a, t->fz[5]);
	r.m.desc = mf_arena_strdup(L->a, t->fz[6]);
	r.m.file = t->name;
	r.m.line = t->line;
	r.formula_col = (long)(t->f[5] - t->line_start) + 1;
	r.line_text = t->line_start;
	r.line_len = (size_t)(t->line_end - t->line_start);
	if (!r.m.name || !r.m.unit || !r.m.revision || !r.m.formula || !r.m.desc)
		return mf_error_nomem(L->err, t->name, t->line, "loading the metrics");
	/* A later definition of the same name (a family file) replaces the common one. */
	{
		long at = mf_kb_name_find(ctx->names, r.m.name, strlen(r.m.name), false);
		i = at >= 0 ? (size_t)at : *ctx->n;
	}
	if (i < *ctx->n && strcmp((*ctx->list)[i].m.file, t->name) == 0)
		return mf_tsv_fail(t, L->err, 0, 0, MF_ETABLE, "metric %s defined twice in this file", r.m.name);
	if (i == *ctx->n && *ctx->n == MF_MAX_METRICS)
		return mf_tsv_fail(t, L->err, 0, 0, MF_ETABLE, "more than %d metrics in one family", MF_MAX_METRICS);
	if (i == *ctx->n) {
		if (mf_kb_name_add(ctx->names, r.m.name, i))
			return mf_error_nomem(L->err, t->name, t->line, "indexing the metric names");
		if (*ctx->n == *ctx->cap) {
			size_t ncap = *ctx->cap ? *ctx->cap * 2 : 32;
			struct raw_metric *nl = realloc(*ctx->list, ncap * sizeof(*nl));
			if (!nl)
				return mf_error_nomem(L->err, t->name, t->line, "loading the metrics");
			*ctx->list = nl;
			*ctx->cap = ncap;
		}
		(*ctx->n)++;
	}
	(*ctx->list)[i] = r;
	return 0;
}

static int read_metric_file(struct loader *L, const char *rel, bool required, struct raw_metric **list, size_t *n,
			    size_t *cap, struct name_hash *names)
{
	static const char *const cols[] = {"name",     "unit",    "digits",      "flags",
					   "revision", "formula", "description", NULL};
	struct metrics_ctx ctx = {list, n, cap, names};
	const char *name;

	return load_table(L, rel, required, cols, metric_row, &ctx, &name);
}

static int metric_error(struct loader *L, const struct raw_metric *r, long col, int code, const char *msg)
{
	mf_error_set(L->err, code, r->m.file, r->m.line, col, "%s", msg);
	mf_error_set_text(L->err, r->line_text, r->line_len);
	return code;
}

/* A cycle: names the metrics on it, from the one reached twice. */
static int cycle_error(struct loader *L, const struct mf_family *fam, const struct raw_metric *raw, const size_t *stack,
		       size_t depth, size_t from)
{
	char msg[480];
	size_t len, k, shown = 0, count = depth - from;

	len = (size_t)snprintf(msg, sizeof(msg), "metric %s depends on itself: ", fam->metrics[stack[from]].name);
	for (k = from; k < depth && shown < 8 && len < sizeof(msg) - 120; k++, shown++)
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%.60s -> ", fam->metrics[stack[k]].name);
	if (shown < count)
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, "... (%zu metrics in the cycle) -> ", count);
	snprintf(msg + len, sizeof(msg) - len, "%.60s", fam->metrics[stack[from]].name);
	return metric_error(L, &raw[stack[from]], raw[stack[from]].formula_col, MF_ETABLE, msg);
}

/*
 * The evaluation order (each metric after those its formula uses): a
 * depth-first search with an explicit stack, so a chain of any length (up to
 * MF_MAX_METRICS) costs no call depth.  Rejects cycles.  Linear in the number
 * of metrics and references.
 */
static int order_metrics(struct loader *L, struct mf_family *fam, const struct raw_metric *raw)
{
	size_t n = fam->nmetrics, on = 0, root;
	unsigned char *state = calloc(n ? n : 1, 1); /* 0 new, 1 on the stack, 2 done */
	size_t *stack = malloc((n ? n : 1) * sizeof(*stack));
	size_t *next = malloc((n ? n : 1) * sizeof(*next)); /* per stacked metric: its next reference */
	int rc = 0;

	if (!state || !stack || !next) {
		rc = mf_error_nomem(L->err, raw[0].m.file, 0, "ordering %zu metrics", n);
		goto out;
	}
	for (root = 0; root < n && !rc; root++) {
		size_t depth = 0;
		if (state[root])
			continue;
		stack[depth++] = root;
		state[root] = 1;
		next[0] = 0;
		while (depth && !rc) {
			size_t i = stack[depth - 1];
			const struct mf_expr *e = fam->metrics[i].expr;
			int kind, index;
			if (next[depth - 1] == mf_expr_nrefs(e)) {
				state[i] = 2;
				fam->order[on++] = i;
				depth--;
				continue;
			}
			mf_expr_ref(e, next[depth - 1]++, &kind, &index);
			if (kind != MF_REF_METRIC || state[index] == 2)
				continue;
			if (state[index] == 1) {
				size_t from = depth - 1;
				while (stack[from] != (size_t)index)
					from--;
				rc = cycle_error(L, fam, raw, stack, depth, from);
				break;
			}
			state[index] = 1;
			next[depth] = 0;
			stack[depth++] = (size_t)index;
		}
	}
out:
	free(state);
	free(stack);
	free(next);
	return rc;
}

static int load_metrics(struct loader *L, struct mf_family *fam, bool common)
{
	struct raw_metric *raw = NULL;
	size_t n = 0, cap = 0, i;
	char rel[128];
	struct bind_ctx ctx;
	struct name_hash names = {0};
	struct name_hash *index;
	int rc = 0;

	if (common)
		rc = read_metric_file(L, "metrics/common.tsv", true, &raw, &n, &cap, &names);
	snprintf(rel, sizeof(rel), "metrics/%s.tsv", fam->key);
	if (!rc)
		rc = read_metric_file(L, rel, !common, &raw, &n, &cap, &names);
	if (rc)
		goto out;
	fam->metrics = mf_arena_alloc(L->a, (n ? n : 1) * sizeof(*fam->metrics));
	fam->order = mf_arena_alloc(L->a, (n ? n : 1) * sizeof(*fam->order));
	index = mf_arena_alloc(L->a, sizeof(*index));
	if (!fam->metrics || !fam->order || !index) {
		rc = mf_error_nomem(L->err, rel, 0, "loading %zu metrics", n);
		goto out;
	}
	fam->nmetrics = n;
	for (i = 0; i < n; i++)
		fam->metrics[i] = raw[i].m;
	/* The family keeps the name index for mf_family_metric; the arena owns its slots. */
	*index = names;
	index->e = names.cap ? mf_arena_alloc(L->a, names.cap * sizeof(*names.e)) : NULL;
	if (names.cap && !index->e) {
		rc = mf_error_nomem(L->err, rel, 0, "indexing %zu metric names", n);
		goto out;
	}
	if (names.cap)
		memcpy(index->e, names.e, names.cap * sizeof(*names.e));
	fam->metric_index = index;
	ctx.fam = fam;
	ctx.metrics = index;
	for (i = 0; i < n; i++) {
		struct mf_error e;
		mf_error_clear(&e);
		rc = mf_expr_compile(fam->metrics[i].formula, bind_name, &ctx, &fam->metrics[i].expr, &e);
		if (rc) {
			char msg[700];
			snprintf(msg, sizeof(msg), "%s: %s (in formula of %s for family %s)", "formula", e.msg,
				 fam->metrics[i].name, fam->display);
			rc = metric_error(L, &raw[i], raw[i].formula_col + e.col - 1, rc == MF_ENOMEM ? rc : MF_ETABLE,
					  msg + strlen("formula: "));
			goto out;
		}
	}
	if (n)
		rc = order_metrics(L, fam, raw);
out:
	free(raw);
	mf_kb_name_hash_free(&names);
	return rc;
}

/*
 * The reported metrics of a family: the names of reports/NAME.txt the family
 * defines, in that file's order (LSPR for the workload class), or with "-"
 * every metric not flagged aux, in the order of the family's files.
 */
static int load_report(struct loader *L, struct mf_family *fam, const char *report)
{
	size_t i, n = 0;

	fam->idx_l1mp = mf_family_metric(fam, "L1MP");
	fam->idx_rni = mf_family_metric(fam, "RNI");
	fam->idx_lparcpu = mf_family_metric(fam, "LPARCPU");
	fam->report = mf_arena_alloc(L->a, (fam->nmetrics + 1) * sizeof(int));
	if (!fam->report)
		return mf_error_nomem(L->err, "", 0, "listing the reported metrics of family %s", fam->key);
	if (strcmp(report, "-") == 0) {
		for (i = 0; i < fam->nmetrics; i++)
			if (!(fam->metrics[i].flags & MF_METRIC_AUX))
				fam->report[n++] = (int)i;
		if (fam->lspr)
			fam->report[n++] = MF_REPORT_LSPR;
	} else {
		char rel[200];
		const char *text, *name, *p, *le;
		struct mf_lines cur;
		size_t len;
		int rc;
		/* Each metric (and LSPR, the last slot) at most once: fam->report has one slot each. */
		bool *listed;
		snprintf(rel, sizeof(rel), "reports/%s.txt", report);
		rc = load_file(L, rel, true, &text, &len, &name);
		if (rc)
			return rc;
		listed = mf_arena_alloc(L->a, (fam->nmetrics + 1) * sizeof(*listed));
		if (!listed)
			return mf_error_nomem(L->err, name, 0, "listing the reported metrics of family %s", fam->key);
		memset(listed, 0, (fam->nmetrics + 1) * sizeof(*listed));
		mf_lines_init(&cur, text, len);
		while (mf_lines_next(&cur, &p, &le)) {
			char nm[128];
			size_t k = (size_t)(le - p);
			if (k == 0 || p[0] == '#')
				continue;
			snprintf(nm, sizeof(nm), "%.*s", (int)(k < 127 ? k : 127), p);
			if (!is_ident(nm)) {
				mf_error_set(L->err, MF_ETABLE, name, cur.line, 1, "expected one metric name per line");
				mf_error_set_text(L->err, p, k);
				return MF_ETABLE;
			}
			{
				size_t o;
				for (o = 0; o < L->norder && strcmp(L->order[o], nm) != 0; o++)
					;
				if (o == L->norder && L->norder < sizeof(L->order) / sizeof(L->order[0]))
					L->order[L->norder++] = mf_arena_strdup(L->a, nm);
			}
			{
				bool lspr = strcmp(nm, "LSPR") == 0;
				int idx = lspr ? -1 : mf_family_metric(fam, nm);
				size_t slot = lspr ? fam->nmetrics : (size_t)idx;
				if (lspr || idx >= 0) {
					if (listed[slot]) {
						mf_error_set(L->err, MF_ETABLE, name, cur.line, 1, "%s is listed twice",
							     nm);
						mf_error_set_text(L->err, p, k);
						return MF_ETABLE;
					}
					listed[slot] = true;
					if (!lspr || fam->lspr)
						fam->report[n++] = lspr ? MF_REPORT_LSPR : idx;
				}
			}
		}
	}
	fam->nreport = n;
	/* Each metric's place in the report: mf_family_report_key in one lookup. */
	fam->report_at = mf_arena_alloc(L->a, (fam->nmetrics + 1) * sizeof(*fam->report_at));
	if (!fam->report_at)
		return mf_error_nomem(L->err, "", 0, "listing the reported metrics of family %s", fam->key);
	for (i = 0; i < fam->nmetrics; i++)
		fam->report_at[i] = -1;
	fam->lspr_at = -1;
	for (i = 0; i < n; i++) {
		if (fam->report[i] == MF_REPORT_LSPR)
			fam->lspr_at = (int)i;
		else
			fam->report_at[fam->report[i]] = (int)i;
	}
	return 0;
}

static int topology_row(struct loader *L, struct mf_tsv *t, void *vctx)
{
	size_t *cap = vctx; /* per family: room in its topology array (grown by doubling) */
	struct mf_family *fam = (struct mf_family *)mf_kb_family(L->kb, t->fz[0]);
	struct mf_topology *nt;
	size_t f;

	if (!fam)
		return mf_tsv_fail(t, L->err, 0, 0, MF_ETABLE, "unknown family '%s'", t->fz[0]);
	f = (size_t)(fam - L->kb->families);
	if (fam->ntopology == cap[f]) {
		void *grown = arena_grow(L, fam->topology, fam->ntopology, sizeof(*fam->topology), &cap[f], 16);
		if (!grown)
			return mf_error_nomem(L->err, t->name, t->line, "loading the topology");
		fam->topology = grown;
	}
	nt = &fam->topology[fam->ntopology];
	nt->item = mf_arena_strdup(L->a, t->fz[1]);
	nt->value = mf_arena_strdup(L->a, t->fz[2]);
	if (!nt->item || !nt->value)
		return mf_error_nomem(L->err, t->name, t->line, "loading the topology");
	fam->ntopology++;
	return 0;
}

static int load_topology(struct loader *L)
{
	static const char *const cols[] = {"family", "item", "value", NULL};
	size_t cap[64] = {0};
	const char *name;

	return load_table(L, "topology.tsv", false, cols, topology_row, cap, &name);
}

struct machines_ctx {
	size_t cap;
	uint64_t seen[65536 / 64]; /* types listed so far: a linear scan per row was quadratic */
};

static int machine_row(struct loader *L, struct mf_tsv *t, void *vctx)
{
	struct machines_ctx *ctx = vctx;
	const struct mf_family *fam;
	struct mf_machine *m;
	long type, mhz;

	if (parse_uint(t->fz[0], 65535, &type))
		return mf_tsv_fail(t, L->err, 0, 0, MF_ETABLE, "machine type must be a number 0..65535");
	if (ctx->seen[type / 64] & (UINT64_C(1) << (type % 64)))
		return mf_tsv_fail(t, L->err, 0, 0, MF_ETABLE, "machine type %ld listed twice", type);
	ctx->seen[type / 64] |= UINT64_C(1) << (type % 64);
	fam = mf_kb_family(L->kb, t->fz[1]);
	if (!fam)
		return mf_tsv_fail(t, L->err, 1, 0, MF_ETABLE, "unknown family '%s'", t->fz[1]);
	if (parse_uint(t->fz[3], 100000, &mhz) || mhz == 0)
		return mf_tsv_fail(t, L->err, 3, 0, MF_ETABLE, "nominal_mhz must be a whole number of MHz");
	if (L->kb->nmachines == ctx->cap) {
		void *grown = arena_grow(L, L->kb->machines, L->kb->nmachines, sizeof(*L->kb->machines), &ctx->cap, 32);
		if (!grown)
			return mf_error_nomem(L->err, t->name, t->line, "loading the machine types");
		L->kb->machines = grown;
	}
	m = &L->kb->machines[L->kb->nmachines++];
	m->type = (unsigned)type;
	m->family = fam;
	m->model = mf_arena_strdup(L->a, t->fz[2]);
	m->nominal_mhz = (double)mhz;
	return 0;
}

static int load_machines(struct loader *L)
{
	static const char *const cols[] = {"type", "family", "model", "nominal_mhz", NULL};
	struct machines_ctx *ctx = calloc(1, sizeof(*ctx));
	const char *name;
	int rc;

	if (!ctx)
		return mf_error_nomem(L->err, "machines.tsv", 0, "loading the machine types");
	rc = load_table(L, "machines.tsv", true, cols, machine_row, ctx, &name);
	free(ctx);
	return rc;
}

/* One bound of "[lo,hi)" style interval notation. */
static int parse_interval(const char *s, double *lo, double *hi, bool *lo_incl, bool *hi_incl)
{
	char *end;
	size_t n = strlen(s);

	if (n < 5 || (s[0] != '[' && s[0] != '(') || (s[n - 1] != ']' && s[n - 1] != ')'))
		return -1;
	*lo_incl = s[0] == '[';
	*hi_incl = s[n - 1] == ']';
	if (strncmp(s + 1, "-inf,", 5) == 0) {
		*lo = -INFINITY;
		end = (char *)s + 5;
	} else {
		*lo = strtod(s + 1, &end);
		if (end == s + 1 || *end != ',')
			return -1;
	}
	end++;
	if (strncmp(end, "inf", 3) == 0 && end + 3 == s + n - 1) {
		*hi = INFINITY;
	} else {
		char *e2;
		*hi = strtod(end, &e2);
		if (e2 == end || e2 != s + n - 1)
			return -1;
	}
	return *lo <= *hi ? 0 : -1;
}

static int lspr_row(struct loader *L, struct mf_tsv *t, void *vctx)
{
	struct mf_lspr_rule *r;
	int k;

	(void)vctx;
	if (L->kb->nlspr == 64)
		return mf_tsv_fail(t, L->err, 0, 0, MF_ETABLE, "more than 64 rules");
	r = &L->kb->lspr[L->kb->nlspr];
	for (k = 0; k < 2; k++) {
		if (parse_interval(t->fz[k], &r->lo[k], &r->hi[k], &r->lo_incl[k], &r->hi_incl[k]))
			return mf_tsv_fail(t, L->err, (size_t)k, 0, MF_ETABLE,
					   "expected an interval such as [3,6] or (1.0,inf)");
	}
	r->cls = MF_LSPR_NONE;
	for (k = MF_LSPR_LOW; k <= MF_LSPR_HIGH; k++)
		if (strcmp(t->fz[2], mf_lspr_name(k)) == 0)
			r->cls = k;
	if (r->cls == MF_LSPR_NONE)
		return mf_tsv_fail(t, L->err, 2, 0, MF_ETABLE, "class must be LOW, AVERAGE or HIGH");
	L->kb->nlspr++;
	return 0;
}

static int load_lspr(struct loader *L)
{
	static const char *const cols[] = {"l1mp", "rni", "class", NULL};
	const char *name;

	L->kb->lspr = mf_arena_alloc(L->a, 64 * sizeof(*L->kb->lspr));
	if (!L->kb->lspr)
		return mf_error_nomem(L->err, "lspr.tsv", 0, "loading the LSPR table");
	return load_table(L, "lspr.tsv", true, cols, lspr_row, NULL, &name);
}

static int parse_pools(const char *s, unsigned *mask)
{
	char buf[128], *save = NULL, *tok;
	int p;

	*mask = 0;
	if (strcmp(s, "-") == 0)
		return 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (p = 1; p < MF_NPOOLS; p++)
			if (strcasecmp(tok, mf_pool_name(p)) == 0)
				break;
		if (p == MF_NPOOLS)
			return -1;
		*mask |= 1u << p;
	}
	return 0;
}

struct fam_row {
	char report[64];
	bool common;
	long line;
	const char *file;
};

static int family_row(struct loader *L, struct mf_tsv *t, void *vctx)
{
	struct fam_row *rows = vctx;
	struct mf_family *fam;
	long v;
	int k;
	char *p;
	size_t slot;

	/* The overlay may replace an embedded family by key. */
	for (slot = 0; slot < L->kb->nfamilies; slot++)
		if (strcmp(L->kb->families[slot].key, t->fz[0]) == 0 && rows[slot].file != t->name)
			break;
	if (slot == L->kb->nfamilies && L->kb->nfamilies == 64)
		return mf_tsv_fail(t, L->err, 0, 0, MF_ETABLE, "more than 64 families");
	for (p = t->fz[0]; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_'))
			break;
	if (*p || t->flen[0] == 0 || !isalpha((unsigned char)t->fz[0][0]))
		return mf_tsv_fail(t, L->err, 0, (size_t)(p - t->fz[0]), MF_ETABLE,
				   "family key must be lowercase letters, digits and _");
	if (slot == L->kb->nfamilies && (mf_kb_family(L->kb, t->fz[0]) || mf_kb_family(L->kb, t->fz[1])))
		return mf_tsv_fail(t, L->err, 0, 0, MF_ETABLE, "family %s listed twice", t->fz[0]);
	fam = &L->kb->families[slot];
	memset(fam, 0, sizeof(*fam));
	rows[slot].file = t->name;
	fam->key = mf_arena_strdup(L->a, t->fz[0]);
	fam->display = mf_arena_strdup(L->a, t->fz[1]);
	fam->description = mf_arena_strdup(L->a, t->fz[12]);
	if (strcmp(t->fz[2], "yes") && strcmp(t->fz[2], "no"))
		return mf_tsv_fail(t, L->err, 2, 0, MF_ETABLE, "common must be yes or no");
	rows[slot].common = strcmp(t->fz[2], "yes") == 0;
	if (strcmp(t->fz[3], "ibm") && strcmp(t->fz[3], "named"))
		return mf_tsv_fail(t, L->err, 3, 0, MF_ETABLE,
				   "counters must be ibm (numbered B0, E143, ...) or named (any names)");
	fam->named = strcmp(t->fz[3], "named") == 0;
	if (strcmp(t->fz[4], "-") == 0)
		fam->csvn = 0;
	else if (parse_uint(t->fz[4], 255, &v) == 0)
		fam->csvn = (int)v;
	else
		return mf_tsv_fail(t, L->err, 4, 0, MF_ETABLE, "csvn must be a number or -");
	if (strcmp(t->fz[5], "-") != 0) {
		char *save = NULL, *tok;
		for (tok = strtok_r(t->fz[5], ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (parse_uint(tok, 31, &v))
				return mf_tsv_fail(t, L->err, 5, 0, MF_ETABLE, "cfvn must be numbers like 1,3 or -");
			fam->cfvn_mask |= 1u << v;
		}
	}
	for (k = 0; k < 3; k++) {
		if (parse_uint(t->fz[6 + k], 320, &v))
			return mf_tsv_fail(t, L->err, (size_t)(6 + k), 0, MF_ETABLE, "set size must be a number");
		fam->set_size[MF_SET_CRYPTO + k] = (int)v;
	}
	fam->set_size[MF_SET_BASIC] = 6;
	fam->set_size[MF_SET_PROBLEM] = (fam->cfvn_mask & 2u) ? 6 : (fam->cfvn_mask ? 2 : 6);
	if (!is_ident(t->fz[9]) && strcmp(t->fz[9], "-") != 0)
		return mf_tsv_fail(t, L->err, 9, 0, MF_ETABLE, "report must be a report list name or -");
	snprintf(rows[slot].report, sizeof(rows[0].report), "%s", t->fz[9]);
	if (strcmp(t->fz[10], "yes") && strcmp(t->fz[10], "no"))
		return mf_tsv_fail(t, L->err, 10, 0, MF_ETABLE, "lspr must be yes or no");
	fam->lspr = strcmp(t->fz[10], "yes") == 0;
	if (parse_pools(t->fz[11], &fam->lspr_exclude))
		return mf_tsv_fail(t, L->err, 11, 0, MF_ETABLE, "lspr_exclude must be pools such as ZIIP,ZAAP or -");
	rows[slot].line = t->line;
	if (!fam->key || !fam->display || !fam->description)
		return mf_error_nomem(L->err, t->name, t->line, "loading the families");
	if (slot == L->kb->nfamilies)
		L->kb->nfamilies++;
	return 0;
}

/*
 * Reads the rows of one families.tsv.  A row whose family is already known
 * (the overlay naming an embedded family) replaces it; a new one is added.
 */
static int parse_families(struct loader *L, const char *text, size_t len, const char *name, struct fam_row *rows)
{
	static const char *const cols[] = {"family", "display",      "common",      "counters",    "csvn",
					   "cfvn",   "crypto_size",  "ext_size",    "mtdiag_size", "report",
					   "lspr",   "lspr_exclude", "description", NULL};

	return each_row(L, name, text, len, cols, family_row, rows);
}

static int load_families(struct loader *L)
{
	const char *text, *name;
	size_t len, i;
	int rc;
	struct fam_row *rows = calloc(64, sizeof(*rows));

	L->kb->families = mf_arena_alloc(L->a, 64 * sizeof(*L->kb->families));
	if (!rows || !L->kb->families) {
		free(rows);
		return mf_error_nomem(L->err, "families.tsv", 0, "loading the families");
	}
	/* The embedded families, then the overlay's rows (which may add or replace families). */
	rc = load_file_from(L, "families.tsv", true, &text, &len, &name, FROM_EMBEDDED);
	if (!rc)
		rc = parse_families(L, text, len, name, rows);
	if (!rc && L->dir) {
		rc = load_file_from(L, "families.tsv", false, &text, &len, &name, FROM_DIR);
		if (!rc && text)
			rc = parse_families(L, text, len, name, rows);
	}
	if (rc)
		goto out;
	if (L->kb->nfamilies == 0) {
		rc = mf_error_set(L->err, MF_ETABLE, name, 0, 0, "no families defined");
		goto out;
	}
	for (i = 0; i < L->kb->nfamilies && !rc; i++) {
		struct mf_family *fam = &L->kb->families[i];
		rc = load_counters(L, fam);
		if (!rc)
			rc = load_metrics(L, fam, rows[i].common);
		if (!rc)
			rc = load_report(L, fam, rows[i].report);
		if (!rc && fam->lspr && (fam->idx_l1mp < 0 || fam->idx_rni < 0))
			rc = mf_error_set(L->err, MF_ETABLE, rows[i].file, rows[i].line, 0,
					  "family %s uses LSPR but defines no L1MP or RNI metric", fam->key);
	}
out:
	free(rows);
	return rc;
}

static const char *report_name(const struct mf_family *fam, size_t j)
{
	return fam->report[j] == MF_REPORT_LSPR ? "LSPR" : fam->metrics[fam->report[j]].name;
}

static int build_keys(struct loader *L)
{
	struct mf_kb *kb = L->kb;
	struct name_hash reported = {0}, keys = {0};
	size_t i, j, k, cap = 0;
	int rc = 0;

	for (i = 0; i < kb->nfamilies; i++)
		cap += kb->families[i].nreport;
	kb->keys = mf_arena_alloc(L->a, (cap + 1) * sizeof(*kb->keys));
	if (!kb->keys)
		return mf_error_nomem(L->err, "", 0, "indexing the metric names of %zu families", kb->nfamilies);
	/* Every name some family reports (hashed: a family may report 100,000 metrics). */
	for (i = 0; i < kb->nfamilies && !rc; i++) {
		const struct mf_family *fam = &kb->families[i];
		for (j = 0; j < fam->nreport && !rc; j++) {
			const char *nm = report_name(fam, j);
			if (mf_kb_name_find(&reported, nm, strlen(nm), false) < 0 && mf_kb_name_add(&reported, nm, 0))
				rc = -1;
		}
	}
	/*
	 * The report lists' order first (names some family reports), then the
	 * names of families that report their own metric list, in file order.
	 */
	for (k = 0; k < L->norder && !rc; k++) {
		const char *nm = L->order[k];
		if (!nm || mf_kb_name_find(&reported, nm, strlen(nm), false) < 0 ||
		    mf_kb_name_find(&keys, nm, strlen(nm), false) >= 0)
			continue;
		if (mf_kb_name_add(&keys, nm, 0))
			rc = -1;
		kb->keys[kb->nkeys++] = nm;
	}
	for (i = 0; i < kb->nfamilies && !rc; i++) {
		const struct mf_family *fam = &kb->families[i];
		for (j = 0; j < fam->nreport && !rc; j++) {
			const char *nm = report_name(fam, j);
			if (mf_kb_name_find(&keys, nm, strlen(nm), false) >= 0)
				continue;
			if (mf_kb_name_add(&keys, nm, 0))
				rc = -1;
			kb->keys[kb->nkeys++] = nm;
		}
	}
	mf_kb_name_hash_free(&reported);
	mf_kb_name_hash_free(&keys);
	if (rc)
		return mf_error_nomem(L->err, "", 0, "indexing the metric names of %zu families", kb->nfamilies);
	/* Keep LSPR last, where it reads as the conclusion of the row. */
	for (k = 0; k < kb->nkeys; k++) {
		if (strcmp(kb->keys[k], "LSPR") == 0) {
			const char *l = kb->keys[k];
			memmove(&kb->keys[k], &kb->keys[k + 1], (kb->nkeys - k - 1) * sizeof(*kb->keys));
			kb->keys[kb->nkeys - 1] = l;
			break;
		}
	}
	return 0;
}

int mf_kb_load(const char *dir, struct mf_kb **out, struct mf_error *err)
{
	struct mf_kb *kb;
	struct kb_priv *priv;
	struct loader L;
	int rc;

	*out = NULL;
	kb = calloc(1, sizeof(*kb));
	priv = calloc(1, sizeof(*priv));
	if (!kb || !priv) {
		free(kb);
		free(priv);
		return mf_error_nomem(err, "", 0, "loading the knowledge base");
	}
	mf_arena_init(&priv->arena);
	kb->priv = priv;
	memset(&L, 0, sizeof(L));
	L.kb = kb;
	L.a = &priv->arena;
	L.dir = dir;
	L.err = err;
	kb->source = dir ? mf_arena_strdup(L.a, dir) : "embedded";
	rc = 0;
	if (dir) {
		struct stat st;
		if (stat(dir, &st) != 0)
			rc = mf_error_set(err, MF_EIO, dir, 0, 0, "tables directory: %s", strerror(errno));
		else if (!S_ISDIR(st.st_mode))
			rc = mf_error_set(err, MF_EIO, dir, 0, 0, "tables directory: not a directory");
	}
	if (!rc)
		rc = load_families(&L);
	if (!rc)
		rc = load_machines(&L);
	if (!rc)
		rc = load_lspr(&L);
	if (!rc)
		rc = load_topology(&L);
	if (!rc)
		rc = build_keys(&L);
	if (!rc && !mf_kb_generic(kb))
		rc = mf_error_set(err, MF_ETABLE, "families.tsv", 0, 0, "the family 'generic' must be defined");
	if (rc) {
		mf_kb_free(kb);
		return rc;
	}
	*out = kb;
	return 0;
}

void mf_kb_free(struct mf_kb *kb)
{
	size_t i, j;
	struct kb_priv *priv;

	if (!kb)
		return;
	for (i = 0; i < kb->nfamilies; i++)
		for (j = 0; j < kb->families[i].nmetrics; j++)
			mf_expr_free(kb->families[i].metrics[j].expr);
	priv = kb->priv;
	if (priv)
		mf_arena_free(&priv->arena);
	free(priv);
	free(kb);
}
