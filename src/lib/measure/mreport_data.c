/* SPDX-License-Identifier: MIT */
/*
 * The data writers of the measure reports (caliper-measure.md §6): every
 * table as CSV (one file each in a directory, or the function table alone)
 * and the whole report as one JSON document, through one emitter, so CSV
 * headings and JSON keys cannot disagree.
 */
#include "mreport_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "mfstat/base/escape.h"

/* ---- one emitter for CSV and JSON ---------------------------------------------------------- */

/*
 * One emitter writes both: a CSV table row, a CSV header (keys instead of
 * values), run.csv's key,value lines, or JSON object members.  The table
 * writers call it field by field with the column's key, so CSV headers and
 * JSON keys cannot disagree.
 */
struct em {
	struct mf_strbuf *sb;
	bool json, kv, header;
	size_t nf;          /* fields of the current row or object */
	const char *prefix; /* run.csv: prefix of the keys */
	unsigned csv_flags; /* MF_ESCAPE_CSV_TERMINAL for CSV on a terminal */
};

enum { F_NA, F_STR, F_U64, F_I64, F_NUM, F_BOOL };

/*
 * A text cell: RFC 4180 with the formula guard, on a terminal without control characters
 * (flags); numbers do not come here (include/mfstat/base/escape.h).
 */
static void csv_field(struct mf_strbuf *sb, const char *s, unsigned flags)
{
	mf_escape_csv(sb, s, MF_ESCAPE_CSV_TEXT | flags);
}

/* A JSON string, or null for NULL (include/mfstat/base/escape.h). */
static void json_str(struct mf_strbuf *sb, const char *s)
{
	mf_escape_json(sb, s);
}

static void em_field(struct em *e, const char *key, int type, const char *s, uint64_t u, int64_t i, double d)
{
	struct mf_strbuf *sb = e->sb;
	char b[48];

	if (type == F_NUM && (isnan(d) || isinf(d)))
		type = F_NA;
	if (type == F_STR && !s)
		type = F_NA;
	if (e->header) {
		if (e->nf++)
			mf_strbuf_putc(sb, ',');
		csv_field(sb, key, e->csv_flags);
		return;
	}
	if (e->json) {
		if (e->nf++)
			mf_strbuf_putc(sb, ',');
		json_str(sb, key);
		mf_strbuf_putc(sb, ':');
	} else if (e->kv) {
		if (e->prefix)
			mf_strbuf_puts(sb, e->prefix);
		csv_field(sb, key, e->csv_flags);
		mf_strbuf_putc(sb, ',');
	} else if (e->nf++) {
		mf_strbuf_putc(sb, ',');
	}
	switch (type) {
	case F_NA:
		if (e->json)
			mf_strbuf_puts(sb, "null");
		break;
	case F_STR:
		if (e->json)
			json_str(sb, s);
		else
			csv_field(sb, s, e->csv_flags);
		break;
	case F_U64: mf_strbuf_printf(sb, "%" PRIu64, u); break;
	case F_I64: mf_strbuf_printf(sb, "%" PRId64, i); break;
	case F_NUM: mf_strbuf_add(sb, b, (size_t)mf_fmt_g15(d == 0 ? 0.0 : d, b)); break;
	case F_BOOL: mf_strbuf_puts(sb, e->json ? (u ? "true" : "false") : (u ? "1" : "0")); break;
	}
	if (e->kv && !e->json)
		mf_strbuf_putc(sb, '\n');
}

static void em_str(struct em *e, const char *key, const char *s)
{
	em_field(e, key, F_STR, s, 0, 0, 0);
}

static void em_u64(struct em *e, const char *key, bool ok, uint64_t v)
{
	em_field(e, key, ok ? F_U64 : F_NA, NULL, v, 0, 0);
}

static void em_i64(struct em *e, const char *key, int64_t v)
{
	em_field(e, key, F_I64, NULL, 0, v, 0);
}

static void em_num(struct em *e, const char *key, double v)
{
	em_field(e, key, F_NUM, NULL, 0, 0, v);
}

static void em_bool(struct em *e, const char *key, bool v)
{
	em_field(e, key, F_BOOL, NULL, v, 0, 0);
}

static void em_addr(struct em *e, const char *key, uint64_t v)
{
	char b[24];
	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	em_str(e, key, b);
}

/* JSON: "key": followed by what the caller writes (an object or array). */
static void em_open(struct em *e, const char *key, char bracket)
{
	if (e->nf++)
		mf_strbuf_puts(e->sb, ",\n");
	json_str(e->sb, key);
	mf_strbuf_putc(e->sb, ':');
	mf_strbuf_putc(e->sb, bracket);
}

/* The numbers of a row after its identifying columns (§6 CSV); cum: its cumulative % in the listed order. */
static void em_classes(const struct mf_mrep *x, struct em *e, const struct mf_agg_row *r, double cum)
{
	const struct mf_agg *a = &x->a;
	em_num(e, "percent", r->pct);
	em_num(e, "cumulative_percent", cum);
	if (a->itlb) {
		em_u64(e, "sampled_misses", a->av_misses, r->misses);
		em_u64(e, "l2_fills", a->av_l2hpw, r->l2);
		em_u64(e, "hpw_fills", a->av_l2hpw, r->hpw);
		em_u64(e, "soft_fills", a->av_soft, r->soft);
		em_num(e, "pct_l2_fill", r->pct_l2);
		em_num(e, "pct_hpw_fill", r->pct_hpw);
		em_num(e, "pct_soft_fill", r->pct_soft);
		em_u64(e, "cpu_samples", a->av_cpu, r->cpu);
	} else {
		em_u64(e, "samples", true, r->cpu);
		em_u64(e, "estimated_events", true, r->events[MF_ROLE_CPU]);
	}
	em_bool(e, "approximate", r->approx);
}

static const struct mf_agg_row *fn_of(const struct mf_mrep *x, const struct mf_agg_row *r)
{
	return r->fn < x->a.funcs.n ? &x->a.funcs.rows[r->fn] : NULL;
}

static void em_funcname(struct em *e, const char *key, const struct mf_agg_row *f)
{
	struct mf_strbuf b;
	if (!f) {
		em_str(e, key, NULL);
		return;
	}
	if (f->func) {
		em_str(e, key, f->func);
		return;
	}
	mf_strbuf_init(&b);
	mf_mrep_func_label(&b, f, false);
	em_str(e, key, mf_strbuf_str(&b));
	mf_strbuf_free(&b);
}

enum { T_METRICS, T_THREADS, T_MODULES, T_FUNCTIONS, T_LINES, T_CACHE_LINES, T_CALLERS, T_N };

static const char *const table_names[T_N] = {"metrics", "threads",     "modules", "functions",
					     "lines",   "cache_lines", "callers"};

/* ---- the tables -------------------------------------------------------------------------------- */

static const char *status_word(int st)
{
	switch (st) {
	case MF_CNT_OK: return "ok";
	case MF_CNT_SCALED: return "scaled";
	case MF_CNT_NOT_COUNTED: return "not_counted";
	case MF_CNT_NOT_SUPPORTED: return "not_supported";
	default: return "";
	}
}

static const char *role_key(int role)
{
	switch (role) {
	case MF_ROLE_CPU: return "cpu";
	case MF_ROLE_ITLB: return "itlb";
	case MF_ROLE_STLB: return "stlb";
	case MF_ROLE_FAULT: return "fault";
	default: return "";
	}
}

static void metric_row(struct em *e, const struct mf_mcount *c, const struct mf_mrep_derived *d)
{
	if (d) {
		em_str(e, "name", d->name);
		em_num(e, "value", d->v);
		em_str(e, "unit", d->unit);
		em_str(e, "status", status_word(d->status));
		em_str(e, "event", d->formula);
		em_u64(e, "enabled", false, 0);
		em_u64(e, "running", false, 0);
		em_str(e, "note", NULL);
		return;
	}
	em_str(e, "name", c ? c->name : NULL);
	em_u64(e, "value", c && (c->status == MF_CNT_OK || c->status == MF_CNT_SCALED), c ? c->value : 0);
	em_str(e, "unit", c ? c->unit : NULL);
	em_str(e, "status", c ? status_word(c->status) : NULL);
	em_str(e, "event", c ? c->name : NULL);
	em_u64(e, "enabled", c != NULL, c ? c->enabled : 0);
	em_u64(e, "running", c != NULL, c ? c->running : 0);
	em_str(e, "note", c && c->why[0] ? c->why : NULL);
}

/*
 * A caller -> callee pair of the call chains (callers.csv, JSON "callers"):
 * the samples whose chain holds it, their share of the run's total, and of the
 * callee's inclusive samples (the part of its time that came through this caller).
 */
static void edge_row(const struct mf_mrep *x, struct em *e, const struct mf_agg_edge *g)
{
	const struct mf_agg_row *caller = g ? &x->a.funcs.rows[g->caller] : NULL;
	const struct mf_agg_row *callee = g ? &x->a.funcs.rows[g->callee] : NULL;
	uint64_t total = x->a.total.metric;
	em_funcname(e, "caller", caller);
	em_str(e, "caller_module", caller ? caller->modname : NULL);
	em_funcname(e, "callee", callee);
	em_str(e, "callee_module", callee ? callee->modname : NULL);
	em_u64(e, "samples", true, g ? g->samples : 0);
	em_u64(e, "estimated_events", true, g ? g->events : 0);
	em_num(e, "percent", g && total ? (double)g->samples / (double)total * 100.0 : NAN);
	em_num(e, "percent_of_callee", g && callee->incl ? (double)g->samples / (double)callee->incl * 100.0 : NAN);
}

static void table_row(const struct mf_mrep *x, struct em *e, int which, const struct mf_agg_row *r, double cum)
{
	const struct mf_agg_row *f;
	switch (which) {
	case T_THREADS:
		em_u64(e, "tid", true, r->tid);
		em_u64(e, "pid", true, r->pid);
		em_str(e, "comm", r->comm);
		break;
	case T_MODULES:
		em_str(e, "module", r->modname);
		em_str(e, "path", r->modpath);
		break;
	case T_FUNCTIONS:
		em_funcname(e, "function", r);
		em_str(e, "module", r->modname);
		em_str(e, "file", r->file);
		em_addr(e, "start_address", r->start);
		break;
	case T_LINES:
		f = fn_of(x, r);
		em_funcname(e, "function", f);
		em_str(e, "module", r->modname);
		em_str(e, "file", r->file);
		em_u64(e, "line", r->line != 0, r->line);
		em_addr(e, "address", r->addr);
		break;
	case T_CACHE_LINES:
		f = fn_of(x, r);
		em_funcname(e, "function", f);
		em_str(e, "module", r->modname);
		em_str(e, "file", r->file);
		em_u64(e, "line", r->line != 0, r->line);
		em_addr(e, "start_address", r->start);
		em_i64(e, "offset", f ? (int64_t)(r->start - f->start) : 0);
		break;
	}
	em_classes(x, e, r, cum);
	/* Always there (a stable schema), empty without call chains. */
	if (which == T_FUNCTIONS)
		em_num(e, "inclusive_percent", x->a.chains ? r->incl_pct : NAN);
}

static const struct mf_agg_table *table_of(const struct mf_mrep *x, int which)
{
	switch (which) {
	case T_THREADS: return &x->a.threads;
	case T_MODULES: return &x->a.mods;
	case T_FUNCTIONS: return &x->a.funcs;
	case T_LINES: return &x->a.lines;
	default: return &x->a.cls;
	}
}

/* Row i of table which (d: the derived metrics), or with e->header the table's keys (its CSV heading). */
static void emit_row(const struct mf_mrep *x, struct em *e, int which, size_t i, const struct mf_mrep_derived *d)
{
	static const struct mf_agg_row zero;
	double cum;
	const struct mf_agg_row *r;
	if (which == T_CALLERS) {
		edge_row(x, e, e->header ? NULL : &x->a.edges[i]);
	} else if (which == T_FUNCTIONS) {
		r = e->header ? &zero : mf_mrep_func(x, i, &cum);
		table_row(x, e, which, r, e->header ? 0 : cum);
	} else if (which != T_METRICS) {
		r = e->header ? &zero : &table_of(x, which)->rows[i];
		table_row(x, e, which, r, r->cum);
	} else if (e->header)
		metric_row(e, NULL, NULL);
	else if (i < x->run->ncounts)
		metric_row(e, &x->run->counts[i], NULL);
	else
		metric_row(e, NULL, &d[i - x->run->ncounts]);
}

/* Every row of one table: CSV with its header line, or JSON objects (the caller opened the array). */
static void emit_table(const struct mf_mrep *x, struct mf_strbuf *sb, bool json, int which)
{
	struct em e = {.sb = sb, .json = json, .csv_flags = x->terminal ? MF_ESCAPE_CSV_TERMINAL : 0};
	struct mf_mrep_derived d[MF_MREP_DERIVED_MAX];
	size_t i, n;

	if (which == T_METRICS)
		n = x->run->ncounts + mf_mrep_derive(x, d);
	else if (which == T_CALLERS)
		n = x->a.nedges;
	else
		n = table_of(x, which)->n;
	if (!json) {
		e.header = true;
		emit_row(x, &e, which, 0, d);
		mf_strbuf_putc(sb, '\n');
		e.header = false;
	}
	for (i = 0; i < n; i++) {
		e.nf = 0;
		if (json)
			mf_strbuf_puts(sb, i ? ",\n{" : "\n{");
		emit_row(x, &e, which, i, d);
		mf_strbuf_puts(sb, json ? "}" : "\n");
	}
}

/* ---- the run, its sampling and its fallback ---------------------------------------------------- */

static const char *vm_text(int vm)
{
	return vm > 0 ? "yes" : vm == 0 ? "no" : NULL;
}

static const char *fallback_reason(const struct mf_mrun *run)
{
	return run->rung == MF_RUNG_PRECISE && !run->user_only_forced ? NULL : mf_mrep_mode(run);
}

/* The run's settings and outcome (run.csv; JSON "run"). */
static void emit_run(const struct mf_mrep *x, struct em *e)
{
	const struct mf_mrun *run = x->run;
	struct mf_strbuf cmd;
	char b[64], why[600];
	size_t i;
	bool nos;

	mf_strbuf_init(&cmd);
	mf_mrep_command(&cmd, run);
	em_str(e, "measurement", run->measurement);
	em_str(e, "command", mf_strbuf_str(&cmd));
	mf_strbuf_free(&cmd);
	em_i64(e, "pid", run->pid);
	mf_mrep_exit_text(b, sizeof(b), run->wait_status);
	em_str(e, "exit_status", run->pid > 0 ? b : NULL);
	em_i64(e, "wait_status", run->wait_status);
	mf_mrep_date(b, sizeof(b), run->start_us);
	em_str(e, "start", b);
	em_i64(e, "start_us", run->start_us);
	em_num(e, "wall_s", run->wall_s);
	em_num(e, "user_s", run->user_s);
	em_num(e, "sys_s", run->sys_s);
	em_str(e, "host", run->host);
	em_str(e, "arch", run->arch);
	em_str(e, "cpu_model", run->cpu_model);
	em_str(e, "kernel", run->kernel);
	em_i64(e, "ncpus", run->ncpus);
	em_str(e, "virtual_machine", vm_text(run->vm));
	em_str(e, "database", run->database);
	em_str(e, "mode", mf_mrep_mode(run));
	em_str(e, "attribution", x->o.attribute_line ? "line" : "ip");
	em_str(e, "sort_metric", !x->a.itlb ? "samples" : x->a.by_cpu ? "cpu_samples" : "sampled_misses");
	em_str(e, "estimated_events_unit", x->a.clock ? "ns" : "events");
	em_u64(e, "data_faults", true, x->a.data_faults);
	em_u64(e, "skipped_samples", true, x->a.skipped);
	em_u64(e, "samples", true, run->nsamples);
	em_u64(e, "lost", true, run->lost);
	em_u64(e, "lost_samples", true, run->lost_samples);
	em_u64(e, "throttles", true, run->throttles);
	em_u64(e, "unthrottles", true, run->unthrottles);
	em_u64(e, "unknown_records", true, run->unknown_records);
	em_u64(e, "unmapped", true, run->unmapped);
	em_bool(e, "incomplete", run->incomplete);
	nos = mf_mreport_no_samples(run, why, sizeof(why));
	if (e->json) {
		em_open(e, "warnings", '[');
		for (i = 0; i < run->nwarnings; i++) {
			if (i)
				mf_strbuf_putc(e->sb, ',');
			json_str(e->sb, run->warnings[i]);
		}
		if (nos) {
			if (run->nwarnings)
				mf_strbuf_putc(e->sb, ',');
			json_str(e->sb, why);
		}
		mf_strbuf_putc(e->sb, ']');
	} else {
		for (i = 0; i < run->nwarnings; i++)
			em_str(e, "warning", run->warnings[i]);
		if (nos)
			em_str(e, "warning", why);
	}
}

static void emit_stream(struct em *e, const struct mf_mstream *s)
{
	em_str(e, "name", s->name);
	em_str(e, "role", role_key(s->role));
	em_u64(e, "period", true, s->period);
	em_bool(e, "clock", s->clock);
	em_i64(e, "precise", s->precise);
}

static void emit_sampling(const struct mf_mrep *x, struct em *e)
{
	const struct mf_mrun *run = x->run;
	size_t i;
	em_str(e, "spec_requested", run->spec_requested);
	em_str(e, "spec_used", run->spec_used);
	em_u64(e, "variation", true, run->variation);
	em_str(e, "variation_applied", run->variation ? "per wakeup" : NULL);
	em_u64(e, "seed", true, run->seed);
	em_str(e, "privilege", run->privilege);
	em_u64(e, "line_size", true, x->line_size);
	em_str(e, "line_size_source", mf_mrep_line_size_source(x));
	if (e->json) {
		em_open(e, "streams", '[');
		for (i = 0; i < run->nstreams; i++) {
			struct em s = {.sb = e->sb, .json = true};
			mf_strbuf_puts(e->sb, i ? ",{" : "{");
			emit_stream(&s, &run->streams[i]);
			mf_strbuf_putc(e->sb, '}');
		}
		mf_strbuf_putc(e->sb, ']');
		return;
	}
	for (i = 0; i < run->nstreams; i++) {
		char p[32];
		snprintf(p, sizeof(p), "stream_%zu_", i);
		e->prefix = p;
		emit_stream(e, &run->streams[i]);
		e->prefix = NULL;
	}
}

static void emit_fallback(const struct mf_mrep *x, struct em *e, const char *prefix)
{
	e->prefix = prefix;
	em_i64(e, "rung", x->run->rung);
	em_str(e, "reason", fallback_reason(x->run));
	em_bool(e, "user_only_forced", x->run->user_only_forced);
	e->prefix = NULL;
}

/* ---- the documents ----------------------------------------------------------------------------- */

static void write_run_csv(const struct mf_mrep *x, struct mf_strbuf *sb)
{
	struct em e = {.sb = sb, .kv = true};
	mf_strbuf_puts(sb, "key,value\n");
	emit_run(x, &e);
	emit_sampling(x, &e);
	emit_fallback(x, &e, "fallback_");
}

/* JSON: "key":{...} with what emit writes into the object. */
static void json_object(const struct mf_mrep *x, struct em *top, const char *key,
			void (*emit)(const struct mf_mrep *x, struct em *e))
{
	struct em sub = {.sb = top->sb, .json = true};
	em_open(top, key, '{');
	emit(x, &sub);
	mf_strbuf_putc(top->sb, '}');
}

static void emit_fallback_json(const struct mf_mrep *x, struct em *e)
{
	emit_fallback(x, e, NULL);
}

void mf_mrep_json(const struct mf_mrep *x, struct mf_strbuf *sb)
{
	struct em top = {.sb = sb, .json = true};
	int t;

	mf_strbuf_puts(sb, "{\"schema\":1,\n\"measurement\":");
	json_str(sb, x->run->measurement);
	top.nf = 2;
	json_object(x, &top, "run", emit_run);
	json_object(x, &top, "sampling", emit_sampling);
	json_object(x, &top, "fallback", emit_fallback_json);
	for (t = 0; t < T_N; t++) {
		em_open(&top, table_names[t], '[');
		emit_table(x, sb, true, t);
		mf_strbuf_puts(sb, "\n]");
	}
	mf_strbuf_puts(sb, "}\n");
}

void mf_mrep_csv(const struct mf_mrep *x, struct mf_strbuf *sb)
{
	emit_table(x, sb, false, T_FUNCTIONS);
}

/* ---- CSV files in a directory ------------------------------------------------------------------ */

/* mkdir -p: creates dir and its missing parents. */
static int make_dir(const char *dir, struct mf_error *err)
{
	char *p = strdup(dir), *s;
	struct stat st;
	if (!p)
		return mf_error_nomem(err, dir, 0, "making the directory");
	for (s = p + 1;; s++) {
		char c = *s;
		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			int e = errno;
			free(p);
			return mf_error_set(err, MF_EIO, dir, 0, 0, "cannot create directory: %s", strerror(e));
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return mf_error_set(err, MF_EIO, dir, 0, 0, "not a directory");
	return 0;
}

/*
 * dir/name, written under a new temporary name (mkstemp: O_EXCL, mode 0600,
 * as run.csv holds the command line) and renamed over name: a symbolic link
 * planted at dir/name is replaced, never followed, and a reader never sees a
 * half-written table.
 */
static int write_file(const char *dir, const char *name, const struct mf_strbuf *sb, struct mf_error *err)
{
	char path[4200], tmp[4300];
	FILE *fp;
	int fd, bad, e;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, name);
	if ((fd = mkstemp(tmp)) < 0)
		return mf_error_set(err, MF_EIO, path, 0, 0, "cannot create: %s", strerror(errno));
	if (!(fp = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		unlink(tmp);
		return mf_error_set(err, MF_EIO, path, 0, 0, "cannot create: %s", strerror(e));
	}
	errno = 0;
	bad = fwrite(mf_strbuf_str(sb), 1, sb->len, fp) != sb->len;
	bad |= fflush(fp) != 0;
	e = errno;
	bad |= fclose(fp) != 0;
	if (!e)
		e = errno;
	if (!bad && rename(tmp, path) != 0) {
		bad = 1;
		e = errno;
	}
	if (bad) {
		unlink(tmp);
		return mf_error_set(err, MF_EIO, path, 0, 0, "cannot write: %s", strerror(e ? e : EIO));
	}
	return 0;
}

/* run.csv, then the tables in the order of table_names. */
const char *mf_mreport_csv_name(size_t i)
{
	static const char *const names[] = {"run.csv",       "metrics.csv", "threads.csv",     "modules.csv",
					    "functions.csv", "lines.csv",   "cache_lines.csv", "callers.csv"};
	return i < sizeof(names) / sizeof(names[0]) ? names[i] : NULL;
}

int mf_mreport_csv_dir(const char *dir, const struct mf_mrun *run, const struct mf_mreport_opts *o,
		       struct mf_error *err)
{
	struct mf_mrep x;
	struct mf_strbuf sb;
	int rc, t;

	if (!dir || !*dir)
		return mf_error_set(err, MF_EINVAL, "", 0, 0, "no directory for the CSV tables");
	if ((rc = mf_mrep_open(&x, run, o, err)) != 0 || (rc = make_dir(dir, err)) != 0) {
		mf_mrep_close(&x);
		return rc;
	}
	mf_strbuf_init(&sb);
	write_run_csv(&x, &sb);
	if (!(rc = mf_mrep_check(&x, &sb, err)))
		rc = write_file(dir, mf_mreport_csv_name(0), &sb, err);
	for (t = 0; !rc && t < T_N; t++) {
		mf_strbuf_free(&sb);
		emit_table(&x, &sb, false, t);
		if (!(rc = mf_mrep_check(&x, &sb, err)))
			rc = write_file(dir, mf_mreport_csv_name((size_t)t + 1), &sb, err);
	}
	mf_strbuf_free(&sb);
	mf_mrep_close(&x);
	return rc;
}
