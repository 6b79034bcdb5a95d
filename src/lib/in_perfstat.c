/* SPDX-License-Identifier: MIT */
/*
 * Reader for `perf stat` output on Linux on Z: the human-readable form
 * (values with thousands separators, "# metric" comments, <not counted>,
 * the elapsed-time line) and the -x SEP form, with -I interval timestamps
 * and -A per-CPU rows (linux-s390.md §6).  perf prints one line per event,
 * so the whole output is read first, the family is named from the events
 * (unless --machine says it), then one sample per interval and CPU is made.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "reader_int.h"

#define MAX_INPUT ((size_t)256 << 20)

struct pline {
	long line;
	double ts;      /* -I timestamp, or NAN */
	long cpu;       /* -A CPU, or -1 */
	int event;      /* index into names */
	bool counted;
	uint64_t value;
};

struct pstate {
	char *text;            /* the whole input, NUL-terminated */
	struct pline *lines;
	size_t nlines, cap;
	char **names;          /* distinct event names, upper case, modifiers removed */
	size_t nnames;
	long *name_line;       /* first line of each name */
	double elapsed;
	bool user_only;
	int64_t base_us;       /* "# started on" time, or 0 */
	bool has_base;
	const struct mf_family *fam;
	int16_t *slot;         /* per name: dense slot on fam */
	size_t next;           /* next line to turn into samples */
	double prev_ts;
	unsigned long ignored;
	char ignored_names[160];
	unsigned long not_counted;
};

/* Generic perf events that are not CPU-MF counters: counted and left out. */
static const char *const software_events[] = {"task-clock", "cpu-clock", "context-switches", "cs",
					      "cpu-migrations", "migrations", "page-faults", "faults",
					      "minor-faults", "major-faults", "duration_time", "user_time",
					      "system_time", "alignment-faults", "emulation-faults", NULL};

/* Does the token look like a CPU-MF event name (UPPER_CASE with an underscore, or cpum_cf/...)? */
static bool looks_like_event(const char *t, size_t n)
{
	size_t i, upper = 0, under = 0;
	if (n > 8 && strncasecmp(t, "cpum_cf/", 8) == 0)
		return true;
	for (i = 0; i < n; i++) {
		if (isupper((unsigned char)t[i]))
			upper++;
		else if (t[i] == '_')
			under++;
		else if (!isdigit((unsigned char)t[i]) && t[i] != ':')
			return false;
	}
	return upper >= 2 && under >= 1;
}

static int probe(const char *buf, size_t n)
{
	const char *p = buf, *end = buf + n;
	int lines = 0;

	if (memchr(buf, '\0', n))
		return 0;
	if (memmem(buf, n, "Performance counter stats", 25) || memmem(buf, n, "seconds time elapsed", 20))
		return 85;
	/* Up to 8 lines: a count (or <not counted>) followed, somewhere, by an event name. */
	while (p < end && lines < 8) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *q = p;
		bool count = false;
		if (p < le && *p != '#') {
			while (q < le) {
				const char *t;
				while (q < le && (isspace((unsigned char)*q) || *q == ',' || *q == ';' || *q == '|'))
					q++;
				t = q;
				while (q < le && !isspace((unsigned char)*q) && *q != ',' && *q != ';' && *q != '|')
					q++;
				if (q == t)
					break;
				if (isdigit((unsigned char)*t) || *t == '<')
					count = true;
				else if (count && looks_like_event(t, (size_t)(q - t)))
					return 60;
			}
			lines++;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

static int perr(struct mf_reader *r, struct mf_error *err, int code, long line, long col, const char *ls,
		const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static int perr(struct mf_reader *r, struct mf_error *err, int code, long line, long col, const char *ls,
		const char *fmt, ...)
{
	va_list ap;
	mf_error_set(err, code, r->path, line, col, "%s", "");
	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		if (ls) {
			const char *e = strchr(ls, '\n');
			mf_error_set_text(err, ls, e ? (size_t)(e - ls) : strlen(ls));
		}
	}
	return code;
}

/* The event name without the PMU prefix and modifiers, upper case; sets *user for :u or /u. */
static void normalise(const char *ev, size_t len, char *out, size_t n, bool *user)
{
	size_t i, k = 0;
	const char *p = ev, *e = ev + len;
	*user = false;
	if (len > 8 && strncasecmp(ev, "cpum_cf/", 8) == 0) {
		const char *slash;
		p = ev + 8;
		slash = memchr(p, '/', (size_t)(e - p));
		if (slash) {
			const char *m;
			for (m = slash + 1; m < e; m++)
				if (*m == 'u')
					*user = true;
			e = slash;
		}
	}
	{
		const char *colon = memchr(p, ':', (size_t)(e - p));
		if (colon) {
			const char *m;
			for (m = colon + 1; m < e; m++)
				if (*m == 'u')
					*user = true;
			e = colon;
		}
	}
	for (i = 0; p + i < e && k + 1 < n; i++)
		out[k++] = (char)toupper((unsigned char)p[i]);
	out[k] = '\0';
	/* perf's generic hardware events map to the basic counters on s390. */
	if (strcmp(out, "CYCLES") == 0 || strcmp(out, "CPU-CYCLES") == 0)
		snprintf(out, n, "CPU_CYCLES");
	else if (strcmp(out, "INSTRUCTIONS") == 0)
		snprintf(out, n, "INSTRUCTIONS");
}

static int add_name(struct pstate *s, const char *name, long line)
{
	size_t i;
	for (i = 0; i < s->nnames; i++)
		if (strcmp(s->names[i], name) == 0)
			return (int)i;
	if ((s->nnames & 63) == 0) {
		char **nn = realloc(s->names, (s->nnames + 64) * sizeof(*nn));
		long *nl = realloc(s->name_line, (s->nnames + 64) * sizeof(*nl));
		if (nn)
			s->names = nn;
		if (nl)
			s->name_line = nl;
		if (!nn || !nl)
			return -1;
	}
	s->names[s->nnames] = strdup(name);
	if (!s->names[s->nnames])
		return -1;
	s->name_line[s->nnames] = line;
	return (int)s->nnames++;
}

/* Parses a count: digits with optional thousands separators (human form) or plain digits. */
static int parse_count(const char *p, size_t len, bool seps, uint64_t *v)
{
	uint64_t x = 0;
	size_t i, digits = 0;
	for (i = 0; i < len; i++) {
		unsigned d = (unsigned)p[i] - '0';
		if (d <= 9) {
			if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, d, &x))
				return -1;
			digits++;
		} else if (!(seps && (p[i] == ',' || p[i] == '.' || p[i] == '\'') && digits)) {
			return -1;
		}
	}
	*v = x;
	return digits ? 0 : -1;
}

static bool is_software(const char *ev, size_t len)
{
	size_t i;
	for (i = 0; software_events[i]; i++)
		if (strlen(software_events[i]) <= len && strncasecmp(ev, software_events[i], strlen(software_events[i])) == 0 &&
		    (len == strlen(software_events[i]) || ev[strlen(software_events[i])] == ':' ||
		     ev[strlen(software_events[i])] == '/'))
			return true;
	return false;
}

static int add_line(struct pstate *s, const struct pline *pl)
{
	if (s->nlines == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct pline *n = realloc(s->lines, cap * sizeof(*n));
		if (!n)
			return -1;
		s->lines = n;
		s->cap = cap;
	}
	s->lines[s->nlines++] = *pl;
	return 0;
}

static void note_ignored(struct pstate *s, const char *ev, size_t len)
{
	s->ignored++;
	if (strlen(s->ignored_names) + len + 3 < sizeof(s->ignored_names) &&
	    !strstr(s->ignored_names, ev)) {
		if (s->ignored_names[0])
			strcat(s->ignored_names, ", ");
		strncat(s->ignored_names, ev, len);
	}
}

/*
 * The common end of both line forms: a count (or <not counted>) and an event.
 * Software events are counted and left out; the rest joins the lines.
 */
static int add_event(struct mf_reader *r, struct pstate *s, struct pline *pl, const char *cnt, size_t cl,
		     const char *ev, size_t el, bool seps, const char *ls, struct mf_error *err)
{
	char name[128];
	bool user;
	if (is_software(ev, el)) {
		note_ignored(s, ev, el);
		return 0;
	}
	if (cl && cnt[0] == '<') {
		pl->counted = false;
		s->not_counted++;
	} else if (parse_count(cnt, cl, seps, &pl->value)) {
		return perr(r, err, MF_EFORMAT, pl->line, (long)(cnt - ls) + 1, ls, "count '%.*s' is not a number",
			    (int)(cl > 30 ? 30 : cl), cnt);
	}
	normalise(ev, el, name, sizeof(name), &user);
	if (user)
		s->user_only = true;
	pl->event = add_name(s, name, pl->line);
	if (pl->event < 0 || add_line(s, pl))
		return mf_error_set(err, MF_ENOMEM, r->path, pl->line, 0, "out of memory");
	return 0;
}

/* One line of -x output: [ts] [CPUn] value unit event ... */
static int parse_x(struct mf_reader *r, struct pstate *s, const char *ls, const char *le, char sep, long ln,
		   struct mf_error *err)
{
	const char *f[16];
	size_t fl[16], nf = 0, i = 0;
	const char *p = ls;
	struct pline pl = {ln, NAN, -1, -1, true, 0};

	while (nf < 16) {
		const char *q = memchr(p, sep, (size_t)(le - p));
		f[nf] = p;
		fl[nf++] = q ? (size_t)(q - p) : (size_t)(le - p);
		if (!q)
			break;
		p = q + 1;
	}
	/* A leading timestamp (-I) has a decimal point; a leading CPUn is -A. */
	if (nf > 3 && fl[0] && memchr(f[0], '.', fl[0]) && isdigit((unsigned char)f[0][0]) && fl[1] &&
	    (isdigit((unsigned char)f[1][0]) || f[1][0] == '<' || strncmp(f[1], "CPU", 3) == 0)) {
		char tmp[40];
		char *end;
		snprintf(tmp, sizeof(tmp), "%.*s", (int)(fl[0] < 39 ? fl[0] : 39), f[0]);
		pl.ts = strtod(tmp, &end);
		if (*end)
			return perr(r, err, MF_EFORMAT, ln, 1, ls, "bad interval timestamp '%s'", tmp);
		i++;
	}
	if (nf > i + 3 && fl[i] > 3 && strncmp(f[i], "CPU", 3) == 0) {
		char *end;
		char tmp[24];
		snprintf(tmp, sizeof(tmp), "%.*s", (int)(fl[i] - 3 < 20 ? fl[i] - 3 : 20), f[i] + 3);
		pl.cpu = strtol(tmp, &end, 10);
		if (*end || !tmp[0])
			return perr(r, err, MF_EFORMAT, ln, (long)(f[i] - ls) + 1, ls, "bad CPU field");
		i++;
	}
	if (nf < i + 3)
		return perr(r, err, MF_EFORMAT, ln, (long)(le - ls) + 1, ls,
			    "truncated line: expected value%cunit%cevent", sep, sep);
	if (fl[i + 2] == 0) {
		/* A metric-only line (no event): perf's own derived values. */
		return 0;
	}
	return add_event(r, s, &pl, f[i], fl[i], f[i + 2], fl[i + 2], false, ls, err);
}

/* One line of the human form: [ts] [CPUn] value event [# metric]. */
static int parse_human(struct mf_reader *r, struct pstate *s, const char *ls, const char *le, long ln,
		       struct mf_error *err)
{
	const char *tok[8];
	size_t tl[8], nt = 0, i = 0;
	const char *p = ls, *hash = memchr(ls, '#', (size_t)(le - ls));
	const char *end = hash ? hash : le;
	struct pline pl = {ln, NAN, -1, -1, true, 0};

	while (p < end && nt < 8) {
		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p >= end)
			break;
		tok[nt] = p;
		if (*p == '<') { /* "<not counted>" is one token */
			const char *gt = memchr(p, '>', (size_t)(end - p));
			p = gt ? gt + 1 : end;
		} else {
			while (p < end && !isspace((unsigned char)*p))
				p++;
		}
		tl[nt] = (size_t)(p - tok[nt]);
		nt++;
	}
	if (nt == 0)
		return 0;
	/* "N seconds time elapsed", "N seconds user/sys" */
	if (nt >= 3 && strncmp(tok[1], "seconds", 7) == 0) {
		if (nt >= 4 && strncmp(tok[2], "time", 4) == 0 && strncmp(tok[3], "elapsed", 7) == 0) {
			char tmp[40];
			snprintf(tmp, sizeof(tmp), "%.*s", (int)(tl[0] < 39 ? tl[0] : 39), tok[0]);
			s->elapsed = strtod(tmp, NULL);
		}
		return 0;
	}
	if (nt >= 2 && strncmp(tok[0], "Performance", 11) == 0)
		return 0;
	if (nt >= 3 && memchr(tok[0], '.', tl[0]) && isdigit((unsigned char)tok[0][0]) &&
	    (isdigit((unsigned char)tok[1][0]) || tok[1][0] == '<' || strncmp(tok[1], "CPU", 3) == 0)) {
		char tmp[40];
		snprintf(tmp, sizeof(tmp), "%.*s", (int)(tl[0] < 39 ? tl[0] : 39), tok[0]);
		pl.ts = strtod(tmp, NULL);
		i++;
	}
	if (nt > i + 1 && tl[i] > 3 && strncmp(tok[i], "CPU", 3) == 0 && isdigit((unsigned char)tok[i][3])) {
		pl.cpu = strtol(tok[i] + 3, NULL, 10);
		i++;
	}
	if (nt < i + 2)
		return perr(r, err, MF_EFORMAT, ln, (long)(le - ls) + 1, ls,
			    "truncated line: expected a count and an event name");
	return add_event(r, s, &pl, tok[i], tl[i], tok[i + 1], tl[i + 1], true, ls, err);
}

/* "# started on Mon Nov 22 06:19:00 2026" */
static void started_on(struct pstate *s, const char *ls, const char *le)
{
	const char *p = memmem(ls, (size_t)(le - ls), "started on ", 11);
	struct tm tm;
	char buf[64];
	if (!p)
		return;
	p += 11;
	snprintf(buf, sizeof(buf), "%.*s", (int)(le - p < 63 ? le - p : 63), p);
	memset(&tm, 0, sizeof(tm));
	if (strptime(buf, "%a %b %d %H:%M:%S %Y", &tm)) {
		s->base_us = (int64_t)timegm(&tm) * 1000000;
		s->has_base = true;
	}
}

static int open_perf(struct mf_reader *r, struct mf_error *err)
{
	struct pstate *s = calloc(1, sizeof(*s));
	const char *p, *end;
	long ln = 0;
	char sep = 0;
	int rc;

	if (!s)
		return mf_error_set(err, MF_ENOMEM, r->path, 0, 0, "out of memory");
	r->state = s;
	s->elapsed = NAN;
	s->prev_ts = 0;
	/* The whole output: perf prints one line per event, samples need all of an interval. */
	while (!r->st.eof) {
		long got = mf_stream_fill(&r->st, MAX_INPUT, err);
		if (got < 0)
			return (int)got;
	}
	s->text = malloc(r->st.len - r->st.pos + 1);
	if (!s->text)
		return mf_error_set(err, MF_ENOMEM, r->path, 0, 0, "out of memory");
	memcpy(s->text, r->st.buf + r->st.pos, r->st.len - r->st.pos);
	s->text[r->st.len - r->st.pos] = '\0';
	if (memchr(s->text, '\0', r->st.len - r->st.pos))
		return mf_error_set(err, MF_EFORMAT, r->path, 0, 0, "binary data (a NUL byte): not perf stat output");
	for (p = s->text, end = s->text + strlen(s->text); p < end;) {
		const char *nl = strchr(p, '\n');
		const char *le = nl ? nl : end;
		ln++;
		if (le > p && le[-1] == '\r')
			le--;
		if (p < le && *p == '#') {
			started_on(s, p, le);
		} else if (p < le) {
			/* The -x separator: the first of ',' ';' '\t' '|' on a line that is not human form. */
			if (!sep && !memmem(p, (size_t)(le - p), "   ", 3)) {
				const char *q;
				for (q = p; q < le && !sep; q++)
					if (*q == ',' || *q == ';' || *q == '|' || *q == '\t')
						sep = *q;
			}
			rc = sep ? parse_x(r, s, p, le, sep, ln, err) : parse_human(r, s, p, le, ln, err);
			if (rc)
				return rc;
		}
		p = nl ? nl + 1 : end;
	}
	if (s->nlines == 0)
		return mf_error_set(err, MF_EFORMAT, r->path, 0, 0, "no CPU-MF counter lines in the perf stat output");
	/* The family: --machine, else the one family that defines every event. */
	s->fam = r->opts.family;
	if (!s->fam) {
		const struct mf_family *fit[16];
		size_t n = mf_kb_families_for(r->opts.kb, (const char *const *)s->names, s->nnames, fit, 16), i, basic = 1;
		for (i = 0; i < s->nnames; i++)
			if (!mf_family_counter(mf_kb_generic(r->opts.kb), s->names[i], strlen(s->names[i])))
				basic = 0;
		if (basic) {
			s->fam = mf_kb_generic(r->opts.kb);
		} else if (n == 1) {
			s->fam = fit[0];
		} else if (n == 0) {
			for (i = 0; i < s->nnames; i++) {
				const struct mf_family *one[1];
				if (mf_kb_families_for(r->opts.kb, (const char *const *)&s->names[i], 1, one, 1) == 0)
					return perr(r, err, MF_EFORMAT, s->name_line[i], 0, NULL,
						    "unknown event %s: not a CPU-MF counter of any machine family", s->names[i]);
			}
			return perr(r, err, MF_EFORMAT, 0, 0, NULL,
				    "the events mix machine families (no family has them all): give --machine");
		} else {
			char list[200];
			size_t used = 0;
			for (i = 0; i < n && i < 16; i++)
				used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
							 fit[i]->display);
			return perr(r, err, MF_EUSAGE, 0, 0, NULL,
				    "the events fit several machine families (%s): give --machine", list);
		}
	}
	s->slot = malloc(s->nnames * sizeof(*s->slot));
	if (!s->slot)
		return mf_error_set(err, MF_ENOMEM, r->path, 0, 0, "out of memory");
	{
		size_t i;
		for (i = 0; i < s->nnames; i++) {
			const struct mf_counter *c = mf_family_counter(s->fam, s->names[i], strlen(s->names[i]));
			if (!c)
				return perr(r, err, MF_ENOCOUNTER, s->name_line[i], 0, NULL, "event %s is not a %s counter",
					    s->names[i], s->fam->display);
			s->slot[i] = s->fam->dense[c->number];
		}
	}
	if (s->user_only)
		mf_reader_warn(r, "%s: user-space only counts (:u): metrics describe problem state only", r->path);
	if (s->ignored)
		mf_reader_warn(r, "%s: %lu lines of events that are not CPU-MF counters left out (%s)", r->path,
			       s->ignored, s->ignored_names);
	if (s->not_counted)
		mf_reader_warn(r, "%s: %lu counts were <not counted> or <not supported>: those counters are absent",
			       r->path, s->not_counted);
	if (!s->has_base && s->nlines && !isnan(s->lines[0].ts))
		mf_reader_warn(r, "%s: no '# started on' line: interval starts count from 1970-01-01T00:00:00Z", r->path);
	return 0;
}

/* The next sample: all lines of one interval (timestamp) and CPU. */
static int next_perf(struct mf_reader *r, struct mf_sample *smp, struct mf_error *err)
{
	struct pstate *s = r->state;
	size_t i, first;
	double ts;
	long cpu;
	bool found = false;

	(void)err;
	/* Skip lines already used (marked by event = -1). */
	while (s->next < s->nlines && s->lines[s->next].event < 0)
		s->next++;
	if (s->next >= s->nlines)
		return 0;
	first = s->next;
	ts = s->lines[first].ts;
	cpu = s->lines[first].cpu;
	mf_sample_reset(smp);
	smp->family = s->fam;
	smp->cpu = cpu;
	smp->line = s->lines[first].line;
	smp->user_only = s->user_only;
	/* The lines of this interval: up to the first line with another timestamp. */
	for (i = first; i < s->nlines; i++) {
		struct pline *pl = &s->lines[i];
		if (pl->event < 0)
			continue;
		if (!(isnan(ts) ? isnan(pl->ts) : pl->ts == ts))
			break;
		if (pl->cpu != cpu)
			continue;
		if (pl->counted && smp->n < MF_SAMPLE_MAX) {
			smp->slot[smp->n] = (uint16_t)s->slot[pl->event];
			smp->value[smp->n++] = pl->value;
		}
		pl->event = -1;
		found = true;
	}
	(void)found;
	if (isnan(ts)) {
		smp->seconds = s->elapsed > 0 ? s->elapsed : NAN;
	} else {
		/* -I: each timestamp closes an interval that began at the previous one. */
		double prev = 0;
		for (i = first; i-- > 0;) {
			if (s->lines[i].ts < ts) {
				prev = s->lines[i].ts;
				break;
			}
		}
		smp->seconds = ts - prev > 0 ? ts - prev : NAN;
		smp->has_start = true;
		smp->start_us = s->base_us + (int64_t)llround(prev * 1e6);
	}
	return 1;
}

static void close_perf(struct mf_reader *r)
{
	struct pstate *s = r->state;
	size_t i;
	for (i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->name_line);
	free(s->lines);
	free(s->slot);
	free(s->text);
	free(s);
	r->state = NULL;
}

const struct mf_reader_ops mf_perf_reader = {
	.name = "perf",
	.probe = probe,
	.open = open_perf,
	.next = next_perf,
	.close = close_perf,
};
