/* SPDX-License-Identifier: MIT */
/*
 * Reader for `perf stat` output on Linux on Z: the human-readable form
 * (values with thousands separators, unit columns such as "msec" and "ns",
 * "# metric" comments, <not counted>, the elapsed-time line) and the -x SEP
 * form, with -I interval timestamps (padded with blanks by perf before late
 * 2022) and -A per-CPU rows (linux-s390.md §6).  perf prints one line per
 * event, so the whole output is read first, the family is named from the
 * events (unless --machine says it), then one sample per interval and CPU is
 * made.  Events that are not CPU-MF counters of any family (task-clock,
 * page-faults, branches, tracepoints, other PMUs, names no table has) are
 * left out, counted and named in a warning; duration_time gives the run's
 * length when perf printed no "seconds time elapsed" line (-x).
 *
 * Time: perf stat -o FILE begins the file with "# started on" and ctime(3) of
 * the start: the local time of the machine that ran perf, without a zone.  It is
 * read in the zone opts.perf_tz (--perf-tz, else the reading machine's), and
 * a warning says which zone that was and the start in UTC.  It dates the run
 * (without -I) or its first interval (-I; each -I timestamp is seconds since
 * the start).  perf writes no CPU speed: with --machine TYPE the type's
 * nominal speed is taken (said), with --cpu-mhz the given one.
 */
#include "mfstat/base/tz.h"
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/text.h"
#include "reader_int.h"

#define MAX_INPUT ((size_t)256 << 20)

struct pline {
	long line;
	double ts; /* -I timestamp, or NAN */
	long cpu;  /* -A CPU, or -1 */
	int event; /* index into names */
	bool counted;
	uint64_t value;
};

struct pstate {
	char *text; /* the whole input, NUL-terminated */
	struct pline *lines;
	size_t nlines, cap;
	char **names; /* distinct event names, upper case, modifiers removed */
	size_t nnames;
	long *name_line; /* first line of each name */
	double elapsed;  /* "N seconds time elapsed", or NAN */
	double duration; /* duration_time in seconds (no -I), or NAN */
	bool user_only;
	int64_t base_us; /* "# started on" time (UTC), or 0 */
	bool has_base;
	int64_t local_us;  /* the "# started on" time as written (local, as if UTC) */
	long base_line;    /* its line */
	char started[40];  /* its text, for the warning */
	char sep;          /* the -x separator, or 0 for the human form */
	bool form_known;   /* sep decided (from the first line with a count) */
	long ccerror_line; /* first DFLT_CCERROR line (z15 counter 265 before Linux 5.8), or 0 */
	const struct mf_family *fam;
	int16_t *slot; /* per name: dense slot on fam */
	size_t next;   /* next line to turn into samples */
	double prev_ts;
	unsigned long ignored; /* lines of events that are not CPU-MF counters */
	char ignored_names[160];
	unsigned long not_counted; /* CPU-MF lines with <not counted> or <not supported> */
	char not_counted_names[160];
	unsigned *seen_gen; /* per name: gen of the sample that last had it (a repeat is an error) */
	long *seen_line;    /* per name: the line it was on then */
	unsigned gen;
};

/* perf's own event names that are not CPU-MF counters: only to recognise the format. */
static const char *const perf_events[] = {"task-clock",  "cpu-clock",     "context-switches", "cpu-migrations",
					  "page-faults", "minor-faults",  "major-faults",     "duration_time",
					  "user_time",   "system_time",   "cycles",           "instructions",
					  "branches",    "branch-misses", "cache-references", "cache-misses",
					  NULL};

static bool is_perf_event(const char *t, size_t n)
{
	size_t i;
	for (i = 0; perf_events[i]; i++) {
		size_t k = strlen(perf_events[i]);
		if (k <= n && strncmp(t, perf_events[i], k) == 0 && (k == n || t[k] == ':'))
			return true;
	}
	return false;
}

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

/* perf stat's own lines that are not counts: its header and the elapsed time's trailer, as it writes them. */
static bool perf_prose(const char *p, size_t n)
{
	if (n >= 29 && memcmp(p, "Performance counter stats for", 29) == 0)
		return true;
	return n && isdigit((unsigned char)*p) &&
	       (memmem(p, n, " seconds time elapsed", 21) || memmem(p, n, " seconds user", 13) ||
		memmem(p, n, " seconds sys", 12));
}

/*
 * A count line: a count (or <not counted>) among the first three fields (after perf's interval
 * time and CPU), followed, somewhere, by an event name: 2; 1 for a count followed by a name
 * mfstat does not take for an event (INSTRUCTIONS, a PMU's own), else 0.
 */
static int count_line(const char *q, const char *le)
{
	bool count = false;
	int fields = 0;
	while (q < le) {
		const char *t;
		while (q < le && (isspace((unsigned char)*q) || *q == ',' || *q == ';' || *q == '|'))
			q++;
		t = q;
		while (q < le && !isspace((unsigned char)*q) && *q != ',' && *q != ';' && *q != '|')
			q++;
		if (q == t)
			break;
		fields++;
		if (!count && fields <= 3 && (isdigit((unsigned char)*t) || *t == '<'))
			count = true;
		else if (count && (looks_like_event(t, (size_t)(q - t)) || is_perf_event(t, (size_t)(q - t))))
			return 2;
	}
	return count ? 1 : 0;
}

/*
 * perf stat output: of its first 8 lines that are not blank nor '#' comments, at least one counts
 * an event and each is a count or perf's own header or trailer (a README or other prose that
 * quotes perf output, or names its header, is not perf output).
 */
static int probe(const char *buf, size_t n)
{
	const char *p, *end = buf + n;
	int lines = 0, counts = 0;
	bool header = false;

	if (memchr(buf, '\0', n))
		return 0;
	/* A UTF-8 byte order mark (a file saved by a Windows editor) is not part of the text. */
	p = buf += mf_text_bom(buf, n);
	n = (size_t)(end - buf);
	while (p < end && lines < 8) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *q = p;
		while (q < le && isspace((unsigned char)*q))
			q++;
		if (q < le && *q != '#') {
			int kind = count_line(q, le);
			if (kind) {
				counts += kind == 2;
			} else if (perf_prose(q, (size_t)(le - q))) {
				header = true;
			} else {
				return 0; /* prose */
			}
			lines++;
		}
		p = nl ? nl + 1 : end;
	}
	if (!counts)
		return 0;
	return header || (n > 13 && memcmp(buf, "# started on ", 13) == 0) ? 85 : 60;
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

/*
 * The event name without the PMU prefix and modifiers, upper case; sets
 * *user for :u or /u.  cpum_cf/event=0x80/ becomes the short name E128.
 */
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
		if (e - p > 6 && strncmp(p, "event=", 6) == 0) {
			char num[24], *end;
			unsigned long v;
			snprintf(num, sizeof(num), "%.*s", (int)(e - p - 6 < 23 ? e - p - 6 : 23), p + 6);
			v = strtoul(num, &end, 0);
			if (end != num && !*end && v < MF_MAX_COUNTER) {
				mf_short_counter_name((unsigned)v, out, n); /* what cpum_cf/event=0x../ counts */
				return;
			}
		}
	} else {
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

/*
 * Parses a count: plain digits, or in the human form digits grouped in
 * thousands (1-3 digits, then groups of exactly 3, each after the same
 * separator: ',' '.' or '\'' as the locale has it).  "1,,2" or "12,34" is
 * not a count.
 */
static int parse_count(const char *p, size_t len, bool seps, uint64_t *v)
{
	char digits[32];
	size_t i, nd = 0, group = 0;
	char sep = 0;
	bool zeros = false;

	if (!seps)
		return mf_u64_parse(p, len, v, NULL) ? -1 : 0;
	for (i = 0; i < len; i++) {
		if (isdigit((unsigned char)p[i])) {
			if (nd == sizeof(digits))
				return -1;     /* far more than 64 bits */
			if (nd || p[i] != '0') /* leading zeros are not kept */
				digits[nd++] = p[i];
			zeros |= p[i] == '0';
			if (++group > 3 && sep)
				return -1;
		} else if ((p[i] == ',' || p[i] == '.' || p[i] == '\'') && group >= 1 &&
			   (sep ? p[i] == sep && group == 3 : group <= 3)) {
			sep = p[i];
			group = 0;
		} else {
			return -1;
		}
	}
	if (sep && group != 3)
		return -1;
	if (nd == 0 && zeros)
		digits[nd++] = '0';
	return mf_u64_parse(digits, nd, v, NULL) ? -1 : 0;
}

/*
 * Is name (normalised) a CPU-MF counter: of the --machine family, of the
 * basic and problem-state sets every family has, or of some machine family?
 */
static bool cpumf_name(const struct mf_reader *r, const char *name)
{
	const struct mf_kb *kb = r->opts.kb;
	const char *one[1] = {name};
	if (r->opts.family && mf_family_counter(r->opts.family, name, strlen(name)))
		return true;
	if (mf_family_counter(mf_kb_generic(kb), name, strlen(name)))
		return true;
	return mf_kb_families_for(kb, one, 1, NULL, 0) > 0;
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

/* Adds ev to a ", "-separated list of names (once; "..." when the list is full). */
static void list_name(char *list, size_t size, const char *ev, size_t len)
{
	size_t used = strlen(list);
	char one[80];
	snprintf(one, sizeof(one), "%.*s", (int)(len < 79 ? len : 79), ev);
	{
		/* Already listed? Compare whole items. */
		const char *p = list;
		size_t k = strlen(one);
		while ((p = strstr(p, one)) != NULL) {
			if ((p == list || p[-1] == ' ') && (p[k] == ',' || p[k] == '\0'))
				return;
			p += k;
		}
	}
	if (used + strlen(one) + 6 < size) {
		snprintf(list + used, size - used, "%s%s", used ? ", " : "", one);
	} else if (used + 5 < size && (used < 3 || strcmp(list + used - 3, "...") != 0)) {
		snprintf(list + used, size - used, ", ...");
	}
}

/* Does the text [p, p + n) begin with word w (followed by the end or a blank)? */
static bool word_is(const char *p, size_t n, const char *w)
{
	size_t k = strlen(w);
	return n == k && strncmp(p, w, k) == 0;
}

/*
 * The common end of both line forms: a count (or <not counted>), its unit
 * (may be empty) and an event.  Events that are not CPU-MF counters are
 * counted and left out (duration_time noted as the run's length); the rest
 * joins the lines.
 */
static int add_event(struct mf_reader *r, struct pstate *s, struct pline *pl, const char *cnt, size_t cl,
		     const char *unit, size_t ul, const char *ev, size_t el, bool seps, const char *ls,
		     struct mf_error *err)
{
	char name[128];
	bool user;
	normalise(ev, el, name, sizeof(name), &user);
	if (strcmp(name, "DFLT_CCERROR") == 0) {
		/* Linux before 5.8 named z15 counter 265 so; the family is checked at the end. */
		if (!s->ccerror_line)
			s->ccerror_line = pl->line;
		snprintf(name, sizeof(name), "E265");
	} else if (!cpumf_name(r, name)) {
		uint64_t ns;
		if (strcmp(name, "DURATION_TIME") == 0 && isnan(pl->ts) && pl->cpu < 0 && cl && cnt[0] != '<' &&
		    (ul == 0 || word_is(unit, ul, "ns")) && parse_count(cnt, cl, seps, &ns) == 0) {
			s->duration = (double)ns / 1e9; /* used, when there is no elapsed line */
			return 0;
		}
		s->ignored++;
		list_name(s->ignored_names, sizeof(s->ignored_names), ev, el);
		return 0;
	}
	if (cl && cnt[0] == '<') {
		pl->counted = false;
		s->not_counted++;
		list_name(s->not_counted_names, sizeof(s->not_counted_names), ev, el);
	} else if (parse_count(cnt, cl, seps, &pl->value)) {
		return perr(r, err, MF_EFORMAT, pl->line, (long)(cnt - ls) + 1, ls, "count '%.*s' is not a number",
			    (int)(cl > 30 ? 30 : cl), cnt);
	}
	if (user)
		s->user_only = true;
	pl->event = add_name(s, name, pl->line);
	if (pl->event < 0 || add_line(s, pl))
		return mf_error_nomem(err, r->path, pl->line, "keeping the events read");
	return 0;
}

/*
 * An aggregation id of perf stat --per-socket, --per-die, --per-core or
 * --per-node (S0, S0-D0, S0-D0-C3, N0): those layouts are not read.
 */
static bool aggregation_id(const char *p, size_t n)
{
	size_t i = 1;
	if (n < 2 || (p[0] != 'S' && p[0] != 'N') || !isdigit((unsigned char)p[1]))
		return false;
	while (i < n && (isdigit((unsigned char)p[i]) ||
			 ((p[i] == '-') && i + 2 < n + 1 && (p[i + 1] == 'D' || p[i + 1] == 'C'))))
		i += p[i] == '-' ? 2 : 1;
	return i == n;
}

#define AGGREGATION_MSG                                                                                                \
	"'%.*s' is an aggregation id of perf stat --per-socket, --per-die, --per-core or --per-node, which "           \
	"mfstat does not read: count without them (per CPU with -A)"

/* Skips blanks at both ends of [*p, *p + *n). */
static void trim(const char **p, size_t *n)
{
	while (*n && (**p == ' ' || **p == '\t'))
		(*p)++, (*n)--;
	while (*n && ((*p)[*n - 1] == ' ' || (*p)[*n - 1] == '\t'))
		(*n)--;
}

/*
 * One line of -x output: [ts] [CPUn] value unit event ...  perf before late
 * 2022 pads the -I timestamp with blanks ("     1.000123456,..."); fields are
 * taken without blanks around them.
 */
static int parse_x(struct mf_reader *r, struct pstate *s, const char *ls, const char *le, char sep, long ln,
		   struct mf_error *err)
{
	const char *f[16];
	size_t fl[16], nf = 0, i = 0, k;
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
	for (k = 0; k < nf; k++)
		if (sep != ' ' && sep != '\t')
			trim(&f[k], &fl[k]);
	/* A leading timestamp (-I) has a decimal point; a leading CPUn is -A. */
	if (nf > 3 && fl[0] && memchr(f[0], '.', fl[0]) && isdigit((unsigned char)f[0][0]) && fl[1] &&
	    (isdigit((unsigned char)f[1][0]) || f[1][0] == '<' || strncmp(f[1], "CPU", 3) == 0 ||
	     aggregation_id(f[1], fl[1]))) {
		char tmp[40];
		char *end;
		snprintf(tmp, sizeof(tmp), "%.*s", (int)(fl[0] < 39 ? fl[0] : 39), f[0]);
		pl.ts = strtod(tmp, &end);
		/* Seconds since the start, bounded like the elapsed time: microseconds stay in 64 bits. */
		if (*end || !(pl.ts >= 0 && pl.ts <= 1e9))
			return perr(r, err, MF_EFORMAT, ln, (long)(f[0] - ls) + 1, ls,
				    "bad interval timestamp '%s' (seconds from 0 to 1e9)", tmp);
		i++;
	}
	if (nf > i && aggregation_id(f[i], fl[i]))
		return perr(r, err, MF_EFORMAT, ln, (long)(f[i] - ls) + 1, ls, AGGREGATION_MSG, (int)fl[i], f[i]);
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
	return add_event(r, s, &pl, f[i], fl[i], f[i + 1], fl[i + 1], f[i + 2], fl[i + 2], false, ls, err);
}

/*
 * One line of the human form: [ts] [CPUn] value [unit] event [# metric]
 * [(NN.NN%)] [( +- N% )].  The unit column ("msec" before task-clock, "ns"
 * before duration_time) is there when two words follow the count.
 */
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
		if (p >= end || *p == '(') /* "(50.00%)" multiplexing, "( +- 1.2% )" variation */
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
	if (nt >= 3 && memchr(tok[0], '.', tl[0]) && isdigit((unsigned char)tok[0][0]) &&
	    (isdigit((unsigned char)tok[1][0]) || tok[1][0] == '<' || strncmp(tok[1], "CPU", 3) == 0 ||
	     aggregation_id(tok[1], tl[1]))) {
		char tmp[40];
		char *tend;
		snprintf(tmp, sizeof(tmp), "%.*s", (int)(tl[0] < 39 ? tl[0] : 39), tok[0]);
		pl.ts = strtod(tmp, &tend);
		if (*tend || !(pl.ts >= 0 && pl.ts <= 1e9))
			return perr(r, err, MF_EFORMAT, ln, (long)(tok[0] - ls) + 1, ls,
				    "bad interval timestamp '%s' (seconds from 0 to 1e9)", tmp);
		i++;
	}
	if (nt > i && aggregation_id(tok[i], tl[i]))
		return perr(r, err, MF_EFORMAT, ln, (long)(tok[i] - ls) + 1, ls, AGGREGATION_MSG,
			    (int)(tl[i] > 30 ? 30 : tl[i]), tok[i]);
	if (nt > i + 1 && tl[i] > 3 && strncmp(tok[i], "CPU", 3) == 0 && isdigit((unsigned char)tok[i][3])) {
		pl.cpu = strtol(tok[i] + 3, NULL, 10);
		i++;
	}
	if (nt < i + 2)
		return perr(r, err, MF_EFORMAT, ln, (long)(le - ls) + 1, ls,
			    "truncated line: expected a count and an event name");
	if (nt == i + 2)
		return add_event(r, s, &pl, tok[i], tl[i], "", 0, tok[i + 1], tl[i + 1], true, ls, err);
	if (nt == i + 3)
		return add_event(r, s, &pl, tok[i], tl[i], tok[i + 1], tl[i + 1], tok[i + 2], tl[i + 2], true, ls, err);
	return perr(r, err, MF_EFORMAT, ln, (long)(tok[i + 3] - ls) + 1, ls,
		    "unexpected '%.*s' after the event name (expected a count, a unit, an event and a # comment)",
		    (int)(tl[i + 3] > 30 ? 30 : tl[i + 3]), tok[i + 3]);
}

/*
 * "# started on Mon Nov 22 06:19:00 2026" (ctime(3): English names, the day
 * padded with a blank): the wall-clock time as written into s->local_us.  A
 * comment that says "started on" but no such time, or a second one (perf stat
 * --append: runs one after the other in one file), is an error at its line.
 */
static int started_on(struct mf_reader *r, struct pstate *s, const char *ls, const char *le, long ln,
		      struct mf_error *err)
{
	const char *p = memmem(ls, (size_t)(le - ls), "started on ", 11), *rest;
	struct tm tm;
	char buf[64];
	size_t n;
	if (!p)
		return 0;
	p += 11;
	n = (size_t)(le - p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	snprintf(buf, sizeof(buf), "%.*s", (int)(n < 63 ? n : 63), p);
	memset(&tm, 0, sizeof(tm));
	rest = n < 63 ? strptime(buf, "%a %b %d %H:%M:%S %Y", &tm) : NULL;
	if (!rest || *rest || tm.tm_year < 70 || tm.tm_year > 8000)
		return perr(r, err, MF_EFORMAT, ln, (long)(p - ls) + 1, ls,
			    "'# started on' is not followed by a time such as 'Mon Nov 23 19:38:27 2026' "
			    "(ctime, as perf stat -o writes it)");
	if (s->has_base)
		return perr(r, err, MF_EFORMAT, ln, 1, ls,
			    "a second '# started on' line (the first is on line %ld): several perf runs in one file "
			    "(perf stat --append); give each run its own file",
			    s->base_line);
	s->local_us =
		mf_days_from_civil(tm.tm_year + 1900, (unsigned)tm.tm_mon + 1, (unsigned)tm.tm_mday) * 86400000000LL +
		((int64_t)tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec) * 1000000;
	s->has_base = true;
	s->base_line = ln;
	snprintf(s->started, sizeof(s->started), "%.*s", (int)n, p);
	return 0;
}

/*
 * The "# started on" time into UTC: read in opts.perf_tz, said in a warning
 * (the zone, its offset then, where the zone came from, the start in UTC; a
 * time the zone skipped or had twice).  No zone and a reason it is unknown:
 * MF_EUSAGE, for the user to say --perf-tz.
 */
static int date_run(struct mf_reader *r, struct pstate *s, struct mf_error *err)
{
	const struct mf_tz *tz = r->opts.perf_tz;
	const char *name = tz ? mf_tz_name(tz) : "UTC";
	const char *from = r->opts.perf_tz_from ? r->opts.perf_tz_from : "no zone given";
	char when[48], off[16], note[160] = "";
	int32_t o = 0;

	if (!tz && r->opts.perf_tz_from)
		return perr(r, err, MF_EUSAGE, s->base_line, 0, NULL,
			    "'# started on %s' is the local time of the machine that ran perf, but the zone of this "
			    "machine is unknown (%s): give --perf-tz ZONE",
			    s->started, r->opts.perf_tz_from);
	s->base_us = s->local_us;
	if (tz) {
		int32_t before = mf_tz_offset(tz, s->local_us - 86400000000LL);
		int32_t after = mf_tz_offset(tz, s->local_us + 86400000000LL);
		s->base_us = mf_tz_utc_of_local(tz, s->local_us);
		o = mf_tz_offset(tz, s->base_us);
		if (s->base_us + (int64_t)o * 1000000 != s->local_us) {
			snprintf(note, sizeof(note),
				 "; no clock in %s showed that time (it was put forward over it): is it the zone of "
				 "the machine that ran perf?",
				 name);
		} else {
			int32_t other = before != o ? before : after;
			if (other != o && mf_tz_offset(tz, s->local_us - (int64_t)other * 1000000) == other) {
				char oo[16];
				mf_tz_offset_text(other, oo, sizeof(oo));
				snprintf(note, sizeof(note),
					 "; clocks in %s showed that time twice (they were put back over it): the "
					 "first, not the one at %s, was taken",
					 name, oo);
			}
		}
	}
	/* The offset it had then, unless the zone is that offset ("+05:30"). */
	mf_tz_offset_text(o, off, sizeof(off) - 2);
	if (strcmp(off, name) == 0)
		off[0] = '\0';
	else
		strcat(off, ", ");
	mf_time_format(s->base_us, when, sizeof(when));
	mf_reader_warn(r,
		       "%s: '# started on %s' is the local time of the machine that ran perf, read in %s (%s%s): the "
		       "run started at %s%s",
		       r->path, s->started, name, off, from, when, note);
	return 0;
}

/*
 * Lines that carry no count in either form: the "Performance counter stats
 * for 'COMMAND':" title (whose command may hold any separator), and "N
 * seconds time elapsed" (with -r "N +- D seconds time elapsed ( +- P% )"),
 * "N seconds user", "N seconds sys".  Returns 1 when [ls, le) is one, 0 when
 * not, or an error for an elapsed time that is not a number of seconds.
 */
static int summary_line(struct mf_reader *r, struct pstate *s, const char *ls, const char *le, long ln,
			struct mf_error *err)
{
	const char *p = ls, *sec;
	while (p < le && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(le - p) >= 25 && memcmp(p, "Performance counter stats", 25) == 0)
		return 1;
	sec = memmem(p, (size_t)(le - p), " seconds ", 9);
	if (!sec)
		return 0;
	if (memmem(sec, (size_t)(le - sec), " seconds time elapsed", 21) == sec) {
		/* "N" or "N +- D" before it; N a decimal number (a ',' for the point in some locales). */
		char tmp[40], *end;
		size_t n = strcspn(p, " "), words = 0, i;
		double v;
		const char *q;
		for (q = p; q < sec; q++)
			words += q[0] != ' ' && (q == p || q[-1] == ' ');
		if (words != 1 && !(words == 3 && memmem(p, (size_t)(sec - p), " +- ", 4)))
			return 0;
		snprintf(tmp, sizeof(tmp), "%.*s", (int)(n < 39 ? n : 39), p);
		if (!strchr(tmp, '.') && strchr(tmp, ',') == strrchr(tmp, ',') && strchr(tmp, ','))
			*strchr(tmp, ',') = '.';
		for (i = 0; tmp[i] && (isdigit((unsigned char)tmp[i]) || tmp[i] == '.'); i++)
			;
		v = strtod(tmp, &end);
		if (n >= 39 || tmp[i] || *end || !isdigit((unsigned char)tmp[0]) || !(v >= 0 && v <= 1e9))
			return perr(r, err, MF_EFORMAT, ln, (long)(p - ls) + 1, ls,
				    "elapsed time '%.*s' is not a number of seconds (0 to 1e9)", (int)(n < 39 ? n : 39),
				    p);
		s->elapsed = v;
		return 1;
	}
	if (!isdigit((unsigned char)*p))
		return 0;
	{
		/* The words before " seconds" are a number, or "N +- D". */
		const char *q = p;
		while (q < sec &&
		       (isdigit((unsigned char)*q) || *q == '.' || *q == ',' || *q == ' ' || *q == '+' || *q == '-'))
			q++;
		if (q != sec)
			return 0;
	}
	return memmem(sec, (size_t)(le - sec), " seconds user", 13) == sec ||
	       memmem(sec, (size_t)(le - sec), " seconds sys", 12) == sec;
}

/*
 * The -x separator, from the first line with a count: a tab, or the first
 * of ',' ';' '|' in the first blank-delimited word unless that word is a
 * number with thousands separators (the human form); 0 for the human form.
 */
static char detect_sep(const char *ls, const char *le)
{
	const char *p = ls, *w;
	size_t n, i;
	bool number = true;
	for (w = ls; w < le; w++)
		if (*w == '\t')
			return '\t';
	while (p < le && *p == ' ')
		p++;
	if (p < le && *p == '<') { /* <not counted>: the separator follows the '>' */
		const char *gt = memchr(p, '>', (size_t)(le - p));
		return gt && gt + 1 < le && (gt[1] == ',' || gt[1] == ';' || gt[1] == '|') ? gt[1] : 0;
	}
	w = p;
	while (p < le && *p != ' ')
		p++;
	n = (size_t)(p - w);
	/* A -x line has its event name before any blank; a human count is digits and separators only. */
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)w[i]) && w[i] != '.' && w[i] != ',' && w[i] != '\'')
			number = false;
	for (i = 0; i < n; i++) {
		if (w[i] == ';' || w[i] == '|')
			return w[i];
		if (w[i] == ',' && !number)
			return ',';
	}
	return 0;
}

/* Reads the lines of s->text (len bytes): counts into s->lines, the rest into s. */
static int read_lines(struct mf_reader *r, struct pstate *s, size_t len, struct mf_error *err)
{
	struct mf_lines cur;
	const char *p, *le;
	int rc = 0;

	mf_lines_init(&cur, s->text, len);
	while (mf_lines_next(&cur, &p, &le)) {
		long ln = cur.line;
		if (p < le && *p == '#') {
			rc = started_on(r, s, p, le, ln, err);
			if (rc)
				return rc;
		} else if (p < le && (rc = summary_line(r, s, p, le, ln, err)) < 0) {
			return rc;
		} else if (p < le && !rc) {
			if (!s->form_known) {
				s->sep = detect_sep(p, le);
				s->form_known = true;
			}
			rc = s->sep ? parse_x(r, s, p, le, s->sep, ln, err) : parse_human(r, s, p, le, ln, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* The family from the events (mf_kb_infer_family); DFLT_CCERROR names z15. */
static int infer_family(struct mf_reader *r, struct pstate *s, struct mf_error *err)
{
	struct mf_family_fit fit;
	size_t i;

	mf_kb_infer_family(r->opts.kb, (const char *const *)s->names, NULL, s->nnames, &fit);
	if (s->ccerror_line) {
		/* DFLT_CCERROR names the family: z15, if the other events are z15 counters too. */
		for (i = 0; i < fit.n && i < MF_FIT_MAX && strcmp(fit.fam[i]->key, "z15") != 0; i++)
			;
		if (fit.generic || i == fit.n || i == MF_FIT_MAX)
			return perr(r, err, MF_EFORMAT, s->ccerror_line, 0, NULL,
				    "event DFLT_CCERROR is z15 counter 265 (its name before Linux 5.8), but the other "
				    "events are not all z15 counters");
		s->fam = fit.fam[i];
	} else if (fit.n == 1) {
		s->fam = fit.fam[0];
	} else if (fit.n == 0) {
		return perr(r, err, MF_EFORMAT, 0, 0, NULL,
			    "the events mix machine families (no family has them all): give --machine");
	} else {
		return perr(r, err, MF_EUSAGE, 0, 0, NULL,
			    "the events fit several machine families (%s): give --machine", fit.list);
	}
	return 0;
}

static int open_perf(struct mf_reader *r, struct mf_error *err)
{
	struct pstate *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return mf_error_nomem(err, r->path, 0, "opening the perf stat reader");
	r->state = s;
	s->elapsed = NAN;
	s->duration = NAN;
	s->prev_ts = 0;
	/* The whole output: perf prints one line per event, samples need all of an interval. */
	while (!r->st.eof) {
		long got = mf_stream_fill(&r->st, MAX_INPUT, err);
		/* The buffer full at the limit: the input is too large, whatever its lines. */
		if (got == MF_EFORMAT && r->st.len == r->st.cap)
			return mf_error_set(err, MF_EFORMAT, r->path, 0, 0,
					    "perf stat output larger than %zu MiB (the limit)", MAX_INPUT >> 20);
		if (got < 0)
			return (int)got;
	}
	r->st.pos += mf_text_bom(r->st.buf + r->st.pos, r->st.len - r->st.pos); /* as probe */
	s->text = malloc(r->st.len - r->st.pos + 1);
	if (!s->text)
		return mf_error_nomem(err, r->path, 0, "reading %zu bytes of perf stat output", r->st.len - r->st.pos);
	memcpy(s->text, r->st.buf + r->st.pos, r->st.len - r->st.pos);
	s->text[r->st.len - r->st.pos] = '\0';
	if (memchr(s->text, '\0', r->st.len - r->st.pos))
		return mf_error_set(err, MF_EFORMAT, r->path, 0, 0, "binary data (a NUL byte): not perf stat output");
	rc = read_lines(r, s, r->st.len - r->st.pos, err);
	if (rc)
		return rc;
	if (s->nlines == s->not_counted) {
		/* Nothing to report: say what the file has and what to collect instead. */
		char has[400];
		size_t used = 0;
		has[0] = '\0';
		if (s->not_counted)
			used += (size_t)snprintf(has + used, sizeof(has) - used,
						 "; perf could not count %s (<not supported> "
						 "or <not counted>)",
						 s->not_counted_names);
		if (s->ignored && used < sizeof(has))
			snprintf(has + used, sizeof(has) - used, "; %s %s", s->ignored_names,
				 strchr(s->ignored_names, ',') ? "are not CPU-MF counters" : "is not a CPU-MF counter");
		return mf_error_set(err, MF_EFORMAT, r->path, 0, 0,
				    "the perf stat output has no CPU-MF counter values%s: on Linux on IBM Z, count the "
				    "cpum_cf events (perf stat -e "
				    "CPU_CYCLES,INSTRUCTIONS,L1I_DIR_WRITES,L1D_DIR_WRITES,... "
				    "or mfstat stat -- COMMAND)",
				    has);
	}
	/* The family: --machine, else the one family that defines every event. */
	s->fam = r->opts.family;
	if (s->fam && s->ccerror_line && strcmp(s->fam->key, "z15") != 0)
		return perr(r, err, MF_ENOCOUNTER, s->ccerror_line, 0, NULL,
			    "event DFLT_CCERROR is not a %s counter (it is the name Linux before 5.8 gave z15 counter "
			    "265)",
			    s->fam->display);
	if (!s->fam) {
		rc = infer_family(r, s, err);
		if (rc)
			return rc;
	}
	s->slot = malloc(s->nnames * sizeof(*s->slot));
	if (!s->slot)
		return mf_error_nomem(err, r->path, 0, "mapping %zu events to counters", s->nnames);
	{
		size_t i;
		for (i = 0; i < s->nnames; i++) {
			const struct mf_counter *c = mf_family_counter(s->fam, s->names[i], strlen(s->names[i]));
			if (!c)
				return perr(r, err, MF_ENOCOUNTER, s->name_line[i], 0, NULL,
					    "event %s is not a %s counter", s->names[i], s->fam->display);
			s->slot[i] = s->fam->dense[c->number];
		}
	}
	if (isnan(s->elapsed) && s->duration > 0)
		s->elapsed = s->duration;
	if (s->has_base) {
		rc = date_run(r, s, err);
		if (rc)
			return rc;
	}
	if (r->opts.machine && r->opts.family == s->fam && !(r->opts.cpu_mhz > 0))
		mf_reader_warn(r,
			       "%s: no CPU speed in perf stat output: used the nominal speed of machine type %u "
			       "(%g MHz) (--cpu-mhz N gives the real one: cpu_speed= in /proc/service_levels)",
			       r->path, r->opts.machine->type, r->opts.machine->nominal_mhz);
	if (s->user_only)
		mf_reader_warn(r, "%s: user-space only counts (:u): metrics describe problem state only", r->path);
	if (s->ignored)
		mf_reader_warn(r, "%s: %lu line%s of events that are not CPU-MF counters left out (%s)", r->path,
			       s->ignored, s->ignored == 1 ? "" : "s", s->ignored_names);
	if (s->not_counted)
		mf_reader_warn(r, "%s: %lu count%s <not counted> or <not supported> (%s): those counters are absent",
			       r->path, s->not_counted, s->not_counted == 1 ? " was" : "s were", s->not_counted_names);
	if (!s->has_base && s->nlines && !isnan(s->lines[0].ts))
		mf_reader_warn(r, "%s: no '# started on' line: interval starts count from 1970-01-01T00:00:00Z",
			       r->path);
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
	long dup_line = 0, dup_first = 0;
	int dup_event = -1;

	/* Skip lines already used (marked by event = -1). */
	while (s->next < s->nlines && s->lines[s->next].event < 0)
		s->next++;
	if (s->next >= s->nlines)
		return 0;
	if (!s->seen_gen) {
		s->seen_gen = calloc(s->nnames, sizeof(*s->seen_gen));
		s->seen_line = calloc(s->nnames, sizeof(*s->seen_line));
		if (!s->seen_gen || !s->seen_line)
			return mf_error_nomem(err, r->path, 0, "checking %zu events for repeats", s->nnames);
	}
	s->gen++;
	first = s->next;
	ts = s->lines[first].ts;
	cpu = s->lines[first].cpu;
	mf_sample_reset(smp);
	smp->family = s->fam;
	/* --machine TYPE: its nominal speed (perf writes none), unless --cpu-mhz gives one (reader.c). */
	if (r->opts.machine && r->opts.family == s->fam) {
		smp->machine = r->opts.machine;
		if (!(r->opts.cpu_mhz > 0)) {
			smp->cpsp = r->opts.machine->nominal_mhz;
			smp->cpsp_nominal = true;
		}
	}
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
		/* The same event twice in one interval and CPU: which count is meant is unknown. */
		if (s->seen_gen[pl->event] == s->gen && !dup_line) {
			dup_line = pl->line;
			dup_first = s->seen_line[pl->event];
			dup_event = pl->event;
		}
		s->seen_gen[pl->event] = s->gen;
		s->seen_line[pl->event] = pl->line;
		if (pl->counted && smp->n < MF_SAMPLE_MAX) {
			smp->slot[smp->n] = (uint16_t)s->slot[pl->event];
			smp->value[smp->n++] = pl->value;
		}
		pl->event = -1;
		found = true;
	}
	(void)found;
	if (dup_line) {
		char where[48] = "";
		if (cpu >= 0)
			snprintf(where, sizeof(where), " for CPU %ld", cpu);
		return perr(r, err, MF_EFORMAT, dup_line, 0, NULL,
			    "event %s twice in one %s%s (first on line %ld): counts are not added up",
			    s->names[dup_event], isnan(ts) ? "run" : "interval", where, dup_first);
	}
	if (isnan(ts)) {
		smp->seconds = s->elapsed > 0 ? s->elapsed : NAN;
		/* The whole run: it started when the '# started on' line says. */
		smp->has_start = s->has_base;
		smp->start_us = s->base_us;
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
	free(s->seen_gen);
	free(s->seen_line);
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
