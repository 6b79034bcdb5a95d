/* SPDX-License-Identifier: MIT */
/* Prometheus and OpenMetrics text exposition: the series' names and a writer of families and samples. */
#include "mfstat/report/prom.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

bool mf_prom_format_name(const char *name, enum mf_prom_fmt *fmt)
{
	enum mf_prom_fmt f;
	if (name && strcmp(name, "prom") == 0)
		f = MF_PROM_TEXT;
	else if (name && strcmp(name, "openmetrics") == 0)
		f = MF_PROM_OPENMETRICS;
	else
		return false;
	if (fmt)
		*fmt = f;
	return true;
}

bool mf_prom_file_name(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return n > 5 && strcasecmp(path + n - 5, ".prom") == 0;
}

const char *mf_prom_content_type(enum mf_prom_fmt fmt)
{
	return fmt == MF_PROM_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
					  : "text/plain; version=0.0.4; charset=utf-8";
}

/* Appends s in lower case, every character outside [a-z0-9] as '_' (runs of them as one), to buf at *used. */
static void put_lower(char *buf, size_t n, size_t *used, const char *s)
{
	/* The names this writes all start with a prefix ending in '_'. */
	bool under = true;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char o;
		if (isalnum(c))
			o = (char)tolower(c);
		else if (under)
			continue;
		else
			o = '_';
		under = o == '_';
		if (*used + 1 < n)
			buf[*used] = o;
		(*used)++;
	}
}

static size_t finish(char *buf, size_t n, size_t used)
{
	/* A trailing '_' of a name that ended in punctuation goes. */
	size_t end = used;
	if (end > 0 && end < n && buf[end - 1] == '_')
		end--;
	if (n)
		buf[end < n ? end : n - 1] = '\0';
	return end;
}

static void put_raw(char *buf, size_t n, size_t *used, const char *s)
{
	for (; *s; s++) {
		if (*used + 1 < n)
			buf[*used] = *s;
		(*used)++;
	}
}

size_t mf_prom_counter_name(const struct mf_family *fam, const struct mf_counter *c, char *buf, size_t n)
{
	size_t used = 0;
	put_raw(buf, n, &used, "mfstat_");
	if (!fam->named)
		put_raw(buf, n, &used, "cpumf_");
	else {
		put_raw(buf, n, &used, strcmp(fam->key, "linux_perf") == 0 ? "perf" : fam->key);
		put_raw(buf, n, &used, "_");
	}
	put_lower(buf, n, &used, c->linux_name && c->linux_name[0] ? c->linux_name : c->short_name);
	return finish(buf, n, used);
}

bool mf_prom_metric_is_percent(const struct mf_metric *m)
{
	return m->unit && m->unit[0] == '%';
}

/* A time unit's factor to seconds ("s", "ms", "us", "ns"), 0 for another unit. */
static double time_unit(const char *unit)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
	for (size_t i = 0; unit && i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(unit, units[i].unit) == 0)
			return units[i].scale;
	return 0;
}

/* Whether the name in buf (len bytes, all there) ends in the token "_tok". */
static bool ends_in(const char *buf, size_t len, size_t n, const char *tok)
{
	size_t k = strlen(tok);
	return len < n && len > k + 1 && buf[len - k - 1] == '_' && memcmp(buf + len - k, tok, k) == 0;
}

double mf_prom_metric_scale(const struct mf_metric *m)
{
	double t;
	if (mf_prom_metric_is_percent(m))
		return 0.01;
	t = time_unit(m->unit);
	return t > 0 ? t : 1;
}

size_t mf_prom_metric_name(const struct mf_metric *m, char *out, size_t outn)
{
	/* Made whole here, then cut to out: a unit word is rewritten at the end of the whole name. */
	char buf[512];
	size_t n = sizeof(buf), used = 0;
	put_raw(buf, n, &used, "mfstat_");
	put_lower(buf, n, &used, m->name);
	used = finish(buf, n, used);
	/* Prometheus's base units, not abbreviations: TASK_MS (ms) is mfstat_task_seconds (the value
	 * scaled, mf_prom_metric_scale), FAULTS_PER_S mfstat_faults_per_second. */
	if (time_unit(m->unit) > 0) {
		static const char *const toks[] = {"ms", "us", "ns", "s"};
		for (size_t i = 0; i < sizeof(toks) / sizeof(toks[0]); i++)
			if (ends_in(buf, used, n, toks[i])) {
				used -= strlen(toks[i]);
				put_raw(buf, n, &used, "seconds");
				break;
			}
	} else if (ends_in(buf, used, n, "per_s")) {
		used -= 1;
		put_raw(buf, n, &used, "second");
	}
	if (mf_prom_metric_is_percent(m))
		put_raw(buf, n, &used, "_ratio");
	buf[used < n ? used : n - 1] = '\0';
	if (outn)
		snprintf(out, outn, "%s", buf);
	return used;
}

void mf_prom_escape_label(struct mf_strbuf *out, const char *s)
{
	const char *run = s;
	for (; *s; s++) {
		const char *esc = *s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : *s == '\n' ? "\\n" : NULL;
		if (!esc)
			continue;
		mf_strbuf_add(out, run, (size_t)(s - run));
		mf_strbuf_puts(out, esc);
		run = s + 1;
	}
	mf_strbuf_add(out, run, (size_t)(s - run));
}

/* The help text in one line: backslash and newline escaped (both formats). */
static void escape_help(struct mf_strbuf *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			mf_strbuf_puts(out, "\\\\");
		else if (*s == '\n')
			mf_strbuf_puts(out, "\\n");
		else
			mf_strbuf_putc(out, *s);
	}
}

void mf_prom_number(struct mf_strbuf *out, double v)
{
	char b[40];
	if (isnan(v)) {
		mf_strbuf_puts(out, "NaN");
		return;
	}
	if (isinf(v)) {
		mf_strbuf_puts(out, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	if (v == 0) {
		mf_strbuf_putc(out, '0');
		return;
	}
	mf_strbuf_add(out, b, (size_t)mf_fmt_roundtrip(v, b));
}

void mf_prom_init(struct mf_prom *p, struct mf_strbuf *out, enum mf_prom_fmt fmt)
{
	p->out = out;
	p->fmt = fmt;
	p->family = NULL;
	p->type = "gauge";
}

/* The family's sample name: counters with _total, info families with _info. */
static const char *suffix_of(const char *type)
{
	return strcmp(type, "counter") == 0 ? "_total" : strcmp(type, "info") == 0 ? "_info" : "";
}

void mf_prom_family(struct mf_prom *p, const char *name, const char *type, const char *help)
{
	/* The text format names a counter family by its samples' name and knows no info type. */
	const char *shown = p->fmt == MF_PROM_TEXT ? suffix_of(type) : "";
	const char *ty = p->fmt == MF_PROM_TEXT && strcmp(type, "info") == 0 ? "gauge" : type;
	p->family = name;
	p->type = type;
	mf_strbuf_printf(p->out, "# HELP %s%s ", name, shown);
	escape_help(p->out, help);
	mf_strbuf_printf(p->out, "\n# TYPE %s%s %s\n", name, shown, ty);
}

static void sample_head(struct mf_prom *p, const char *const *labels)
{
	mf_strbuf_puts(p->out, p->family);
	mf_strbuf_puts(p->out, suffix_of(p->type));
	if (labels && labels[0]) {
		mf_strbuf_putc(p->out, '{');
		for (size_t i = 0; labels[i]; i += 2) {
			if (i)
				mf_strbuf_putc(p->out, ',');
			mf_strbuf_puts(p->out, labels[i]);
			mf_strbuf_puts(p->out, "=\"");
			mf_prom_escape_label(p->out, labels[i + 1] ? labels[i + 1] : "");
			mf_strbuf_putc(p->out, '"');
		}
		mf_strbuf_putc(p->out, '}');
	}
	mf_strbuf_putc(p->out, ' ');
}

void mf_prom_sample(struct mf_prom *p, const char *const *labels, double v)
{
	sample_head(p, labels);
	mf_prom_number(p->out, v);
	mf_strbuf_putc(p->out, '\n');
}

void mf_prom_sample_u64(struct mf_prom *p, const char *const *labels, uint64_t v)
{
	sample_head(p, labels);
	mf_strbuf_u64(p->out, v);
	mf_strbuf_putc(p->out, '\n');
}

void mf_prom_machine(struct mf_prom *p, const struct mf_prom_machine *m)
{
	const char *labels[16];
	char type[16], cfvn[16], csvn[16], auth[16];
	size_t n = 0;
	if (m->type) {
		snprintf(type, sizeof(type), "%u", m->type);
		labels[n++] = "type", labels[n++] = type;
	}
	if (m->family)
		labels[n++] = "family", labels[n++] = m->family;
	if (m->model)
		labels[n++] = "model", labels[n++] = m->model;
	if (m->cfvn >= 0) {
		snprintf(cfvn, sizeof(cfvn), "%d", m->cfvn);
		labels[n++] = "cfvn", labels[n++] = cfvn;
	}
	if (m->csvn >= 0) {
		snprintf(csvn, sizeof(csvn), "%d", m->csvn);
		labels[n++] = "csvn", labels[n++] = csvn;
	}
	if (m->auth >= 0) {
		snprintf(auth, sizeof(auth), "0x%x", (unsigned)m->auth);
		labels[n++] = "auth", labels[n++] = auth;
	}
	labels[n] = NULL;
	mf_prom_family(p, "mfstat_machine", "info",
		       "The machine mfstat counts on: type, family, model, CPU-MF counter facility (cfvn) and set "
		       "(csvn) "
		       "versions, authorized counter sets");
	mf_prom_sample(p, labels, 1);
	if (!isnan(m->cpu_speed_mhz)) {
		mf_prom_family(p, "mfstat_cpumf_cpu_speed_hertz", "gauge",
			       "CPU speed the CPU-MF facility reports (cycles per second)");
		mf_prom_sample(p, NULL, m->cpu_speed_mhz * 1e6);
	}
}

void mf_prom_up(struct mf_prom *p, const struct mf_prom_up *u, size_t n)
{
	mf_prom_family(p, "mfstat_up", "gauge",
		       "1 when the counter set could be read, 0 when not (the reason label says why)");
	for (size_t i = 0; i < n; i++) {
		const char *labels[] = {"set", u[i].set, u[i].up ? NULL : "reason",
					u[i].reason ? u[i].reason : "unknown", NULL};
		mf_prom_sample(p, labels, u[i].up ? 1 : 0);
	}
}

void mf_prom_end(struct mf_prom *p)
{
	if (p->fmt == MF_PROM_OPENMETRICS)
		mf_strbuf_puts(p->out, "# EOF\n");
}
