/* SPDX-License-Identifier: MIT */
/*
 * Reports of mfstat measure (caliper-measure.md §6): Caliper's text layout
 * (mreport_text.c), CSV tables and JSON (mreport_data.c), all from the run
 * model and the aggregate tables (aggregate.c).  Output is deterministic:
 * dates come from the run, numbers are formatted without the locale (integer
 * arithmetic or mf_fmt_g15), and everything is built in memory before one
 * write.  Here: the report context, what every format says the same way
 * about the run, the derived ratios and mf_mreport_write.
 */
#include "mreport_int.h"

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "mfstat/base/escape.h"
#include "mfstat/base/timefmt.h"
#include "mfstat/measure/flame.h"
#include "mfstat/measure/fold.h"

#include "mtable.h"

/* ---- descriptions of the run ------------------------------------------------------------- */

/* The largest 1, 2 or 5 times a power of ten that is at most v (at least 1). */
static uint64_t nice_down(double v)
{
	uint64_t p = 1;
	if (!(v >= 1))
		return 1;
	while ((double)p * 10 <= v)
		p *= 10;
	return (double)p * 5 <= v ? p * 5 : (double)p * 2 <= v ? p * 2 : p;
}

/* A clock period in ns as -s takes it: 500us, 2ms, 1s. */
static void clock_text(char *buf, size_t n, uint64_t ns)
{
	if (ns >= 1000000000 && ns % 1000000000 == 0)
		snprintf(buf, n, "%" PRIu64 "s", ns / 1000000000);
	else if (ns >= 1000000 && ns % 1000000 == 0)
		snprintf(buf, n, "%" PRIu64 "ms", ns / 1000000);
	else if (ns >= 1000 && ns % 1000 == 0)
		snprintf(buf, n, "%" PRIu64 "us", ns / 1000);
	else
		snprintf(buf, n, "%" PRIu64 "ns", ns);
}

bool mf_mreport_no_samples(const struct mf_mrun *run, char *buf, size_t n)
{
	const struct mf_mstream *s = run->nstreams ? &run->streams[0] : NULL;
	const struct mf_mcount *c = NULL;
	const char *prog = run->argc && run->argv[0] ? run->argv[0] : "the program";
	char cpu[48], per[48], rate[48];
	double cpu_ns = (run->user_s + run->sys_s) * 1e9;
	size_t i;

	if (n)
		buf[0] = '\0';
	if (run->nsamples)
		return false;
	if (!s) {
		snprintf(buf, n, "no samples: no event was sampled");
		return true;
	}
	for (i = 0; i < run->ncounts; i++)
		if (strcmp(run->counts[i].name, s->name) == 0 &&
		    (run->counts[i].status == MF_CNT_OK || run->counts[i].status == MF_CNT_SCALED))
			c = &run->counts[i];
	if (s->clock) {
		if (c)
			cpu_ns = (double)c->value;
		mf_fmt_fixed(cpu, sizeof(cpu), cpu_ns / 1e6, 3);
		clock_text(per, sizeof(per), s->period);
		/* Under two periods the variation and the start-up may well leave none. */
		if (cpu_ns < 2 * (double)s->period) {
			/* A tenth of the time it ran, 10us at the least (the kernel's default limit is 100000/s). */
			uint64_t r = nice_down(cpu_ns / 10 / 1000) * 1000;
			clock_text(rate, sizeof(rate), r < 10000 ? 10000 : r);
			snprintf(buf, n,
				 "no samples: %s ran %s ms of %s, under two sampling periods (%s each): it ran too "
				 "briefly for the rate; sample more often, say -s %s",
				 prog, cpu, s->name, per, rate);
		} else {
			snprintf(buf, n,
				 "no samples: %s ran %s ms of %s, more than the sampling period (%s), yet the run "
				 "holds none: lost, throttled or not decoded (see the warnings, Lost and Throttled)",
				 prog, cpu, s->name, per);
		}
		return true;
	}
	if (c && c->value == 0) {
		snprintf(buf, n, "no samples: %s never fired while %s ran (counted 0), so no -s rate can sample it",
			 s->name, prog);
	} else if (c && (double)c->value < 2 * (double)s->period) {
		snprintf(buf, n,
			 "no samples: %s fired %" PRIu64 " times, under two sampling periods (%" PRIu64
			 " events each): %s ran too briefly for the rate; sample more often, say -s %" PRIu64,
			 s->name, c->value, s->period, prog, nice_down((double)c->value / 10));
	} else if (c) {
		snprintf(buf, n,
			 "no samples: %s fired %" PRIu64 " times, more than the sampling period (%" PRIu64
			 " events), yet the run holds none: lost, throttled or not decoded (see the warnings, Lost "
			 "and Throttled)",
			 s->name, c->value, s->period);
	} else {
		mf_fmt_fixed(cpu, sizeof(cpu), cpu_ns / 1e6, 3);
		snprintf(buf, n,
			 "no samples: %s did not fire %" PRIu64
			 " times (one sampling period) in the %s ms of CPU "
			 "time %s ran: the event never fired, or %s ran too briefly for the rate; sample more "
			 "often, say -s %" PRIu64,
			 s->name, s->period, cpu, prog, prog, nice_down((double)s->period / 100));
	}
	return true;
}

void mf_mrep_func_label(struct mf_strbuf *sb, const struct mf_agg_row *f, bool with_mod)
{
	/* A chain's [unknown] end frame: its function and module have the same name, said once. */
	if (f->func && with_mod &&
	    !(f->modname && strcmp(f->func, "[unknown]") == 0 && strcmp(f->modname, f->func) == 0))
		mf_strbuf_printf(sb, "%s::%s", f->modname ? f->modname : "", f->func);
	else if (f->func)
		mf_strbuf_puts(sb, f->func);
	else
		mf_strbuf_printf(sb, "%s+0x%" PRIx64, f->modname ? f->modname : "", f->start);
}

static const struct {
	int sig;
	const char *name;
} signames[] = {
	{SIGHUP, "SIGHUP"},       {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
	{SIGTRAP, "SIGTRAP"},     {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
	{SIGKILL, "SIGKILL"},     {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
	{SIGPIPE, "SIGPIPE"},     {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"}, {SIGCHLD, "SIGCHLD"},
	{SIGCONT, "SIGCONT"},     {SIGSTOP, "SIGSTOP"}, {SIGTSTP, "SIGTSTP"}, {SIGTTIN, "SIGTTIN"},
	{SIGTTOU, "SIGTTOU"},     {SIGURG, "SIGURG"},   {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
	{SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGSYS, "SIGSYS"},
};

static const char *sig_name(int sig)
{
	size_t i;
	for (i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
		if (signames[i].sig == sig)
			return signames[i].name;
	return "unknown signal";
}

void mf_mrep_exit_text(char *buf, size_t n, int st)
{
	if (WIFEXITED(st))
		snprintf(buf, n, "exit %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, n, "killed by signal %d (%s)%s", WTERMSIG(st), sig_name(WTERMSIG(st)),
			 WCOREDUMP(st) ? ", core dumped" : "");
	else
		snprintf(buf, n, "wait status 0x%x", (unsigned)st);
}

void mf_mrep_command(struct mf_strbuf *sb, const struct mf_mrun *run)
{
	int i;
	for (i = 0; i < run->argc; i++) {
		const char *s = run->argv[i] ? run->argv[i] : "";
		if (i)
			mf_strbuf_putc(sb, ' ');
		if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-") ==
				  strlen(s)) {
			mf_strbuf_puts(sb, s);
			continue;
		}
		mf_strbuf_putc(sb, '\'');
		for (; *s; s++)
			if (*s == '\'')
				mf_strbuf_puts(sb, "'\\''");
			else
				mf_strbuf_putc(sb, *s);
		mf_strbuf_putc(sb, '\'');
	}
}

void mf_mrep_date(char *buf, size_t n, int64_t us)
{
	/* Whole seconds: the header is for people; run.csv keeps start_us exact. */
	int64_t s = us >= 0 ? us / 1000000 : -((-us + 999999) / 1000000);
	mf_time_format(s * 1000000, buf, n);
}

const char *mf_mrep_mode(const struct mf_mrun *run)
{
	return run->mode[0] ? run->mode : "precise";
}

const char *mf_mrep_line_size_source(const struct mf_mrep *x)
{
	if (x->o.line_size)
		return "--line-size";
	return x->run->line_size_source[0] ? x->run->line_size_source : "default";
}

/* ---- exact counts and derived ratios ------------------------------------------- */

static const struct mf_mcount *counted(const struct mf_mrun *run, const char *name)
{
	size_t i;
	for (i = 0; i < run->ncounts; i++)
		if (strcmp(run->counts[i].name, name) == 0)
			return run->counts[i].status == MF_CNT_OK || run->counts[i].status == MF_CNT_SCALED
				       ? &run->counts[i]
				       : NULL;
	return NULL;
}

static bool has_ci(const char *s, const char *needle)
{
	size_t n = strlen(needle), i, k;
	for (i = 0; s[i]; i++) {
		for (k = 0; k < n && s[i + k]; k++) {
			char c = s[i + k];
			if (c >= 'A' && c <= 'Z')
				c = (char)(c - 'A' + 'a');
			if (c != needle[k])
				break;
		}
		if (k == n)
			return true;
	}
	return false;
}

/* The exact count of ITLB misses: the ITLB stream's event counted, else a count named like one. */
static const struct mf_mcount *itlb_count(const struct mf_mrun *run)
{
	const struct mf_mcount *c;
	size_t i;
	for (i = 0; i < run->nstreams; i++)
		if (run->streams[i].role == MF_ROLE_ITLB && (c = counted(run, run->streams[i].name)))
			return c;
	for (i = 0; i < run->ncounts; i++)
		if (has_ci(run->counts[i].name, "itlb") && has_ci(run->counts[i].name, "miss") &&
		    (run->counts[i].status == MF_CNT_OK || run->counts[i].status == MF_CNT_SCALED))
			return &run->counts[i];
	return NULL;
}

static int worst(const struct mf_mcount *a, const struct mf_mcount *b)
{
	return a->status == MF_CNT_SCALED || (b && b->status == MF_CNT_SCALED) ? MF_CNT_SCALED : MF_CNT_OK;
}

size_t mf_mrep_derive(const struct mf_mrep *x, struct mf_mrep_derived *d)
{
	const struct mf_mrun *run = x->run;
	const struct mf_mcount *m, *ins, *tc, *pf;
	size_t n = 0;

	if (x->a.itlb && (m = itlb_count(run)) && (ins = counted(run, "instructions")) && ins->value > 0) {
		d[n].name = "itlb_misses_per_kilo_instruction";
		d[n].label = "ITLB misses per 1000 instructions";
		d[n].unit = "";
		snprintf(d[n].formula, sizeof(d[n].formula), "1000 * %s / instructions", m->name);
		d[n].v = 1000.0 * (double)m->value / (double)ins->value;
		d[n++].status = worst(m, ins);
	}
	if ((tc = counted(run, "task-clock")) && run->wall_s > 0) {
		d[n].name = "cpu_utilisation";
		d[n].label = "CPU utilisation";
		d[n].unit = "CPUs";
		snprintf(d[n].formula, sizeof(d[n].formula), "task-clock / wall time");
		d[n].v = (double)tc->value / (run->wall_s * 1e9);
		d[n++].status = worst(tc, NULL);
	}
	if ((pf = counted(run, "page-faults")) && run->wall_s > 0) {
		d[n].name = "page_faults_per_second";
		d[n].label = "Page faults per second";
		d[n].unit = "per s";
		snprintf(d[n].formula, sizeof(d[n].formula), "page-faults / wall time");
		d[n].v = (double)pf->value / run->wall_s;
		d[n++].status = worst(pf, NULL);
	}
	return n;
}

/* ---- the report context and the entry point ----------------------------------------------- */

static const struct mf_mreport_opts default_opts = {
	.format = MF_MFMT_TEXT,
	.summary = {1.0, 100.0, 5},
	.detail = {5.0, 90.0, 1},
};

int mf_mrep_open(struct mf_mrep *x, const struct mf_mrun *run, const struct mf_mreport_opts *o, struct mf_error *err)
{
	int rc;
	memset(x, 0, sizeof(*x));
	x->run = run;
	x->o = o ? *o : default_opts;
	x->line_size = x->o.line_size ? x->o.line_size : run->line_size ? run->line_size : 64;
	if (x->o.format < MF_MFMT_TEXT || x->o.format > MF_MFMT_JSON)
		return mf_error_set(err, MF_EINVAL, "", 0, 0, "unknown report format %d", x->o.format);
	rc = mf_agg_build(&x->a, run, x->line_size, !x->o.attribute_line, err);
	if (rc)
		return rc;
	if (x->o.children && x->a.funcs.n) {
		/* perf's --children: the function tables in inclusive order, the cumulative column following it. */
		size_t i;
		double cum = 0;
		if (!(x->order = mf_agg_by_inclusive(&x->a)) || !(x->cum = malloc(x->a.funcs.n * sizeof(*x->cum))))
			return mf_error_set(err, MF_ENOMEM, "", 0, 0, "out of memory while writing the report");
		for (i = 0; i < x->a.funcs.n; i++) {
			const struct mf_agg_row *r = &x->a.funcs.rows[x->order[i]];
			cum += isnan(r->pct) ? 0 : r->pct;
			x->cum[i] = isnan(r->pct) ? NAN : cum;
		}
	}
	return 0;
}

const struct mf_agg_row *mf_mrep_func(const struct mf_mrep *x, size_t i, double *cum)
{
	const struct mf_agg_row *r = &x->a.funcs.rows[x->order ? x->order[i] : i];
	if (cum)
		*cum = x->order ? x->cum[i] : r->cum;
	return r;
}

void mf_mrep_close(struct mf_mrep *x)
{
	free(x->order);
	free(x->cum);
	mf_agg_free(&x->a);
	mf_srccache_free(&x->src);
}

int mf_mrep_check(const struct mf_mrep *x, const struct mf_strbuf *sb, struct mf_error *err)
{
	if (x->nomem || sb->failed)
		return mf_error_set(err, MF_ENOMEM, "", 0, 0, "out of memory while writing the report");
	return 0;
}

/* The folded stacks (fold.h), written in one piece: a failed write names the reason. */
static int write_folded(FILE *fp, const struct mf_mrun *run, struct mf_error *err)
{
	struct mf_fold f;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int rc = mf_fold_build(&f, run, err);
	if (!rc) {
		if (!(mem = open_memstream(&buf, &len))) {
			rc = mf_error_set(err, MF_ENOMEM, "", 0, 0, "out of memory while writing the report");
		} else {
			rc = mf_fold_write(mem, &f);
			if (fclose(mem) || rc)
				rc = mf_error_set(err, MF_ENOMEM, "", 0, 0, "out of memory while writing the report");
		}
	}
	if (!rc && (fwrite(buf, 1, len, fp) != len || fflush(fp) != 0 || ferror(fp)))
		rc = mf_error_set(err, MF_EIO, "", 0, 0, "cannot write the report: %s", strerror(errno));
	free(buf);
	mf_fold_free(&f);
	return rc;
}

int mf_mreport_write(FILE *fp, const struct mf_mrun *run, const struct mf_mreport_opts *o, struct mf_error *err)
{
	struct mf_mrep x;
	struct mf_strbuf sb;
	int rc;

	if (o && o->format == MF_MFMT_FOLDED)
		return write_folded(fp, run, err);
	if (o && o->format == MF_MFMT_HTML)
		return mf_mreport_html(fp, run, o, err);
	mf_strbuf_init(&sb);
	if ((rc = mf_mrep_open(&x, run, o, err)) != 0) {
		mf_mrep_close(&x);
		return rc;
	}
	x.terminal = isatty(fileno(fp));
	switch (x.o.format) {
	case MF_MFMT_CSV: mf_mrep_csv(&x, &sb); break;
	case MF_MFMT_JSON: mf_mrep_json(&x, &sb); break;
	default: {
		/* Names in it (command, thread, functions, files, source lines) come from the
		 * program: no control character of theirs reaches a terminal (mf_escape_text). */
		struct mf_strbuf raw;
		mf_strbuf_init(&raw);
		mf_mrep_text(&x, &raw);
		mf_escape_text(&sb, mf_strbuf_str(&raw), MF_ESCAPE_TEXT_KEEP_NL | MF_ESCAPE_TEXT_KEEP_TAB);
		if (raw.failed)
			sb.failed = 1;
		mf_strbuf_free(&raw);
		break;
	}
	}
	rc = mf_mrep_check(&x, &sb, err);
	if (!rc && (fwrite(mf_strbuf_str(&sb), 1, sb.len, fp) != sb.len || fflush(fp) != 0 || ferror(fp)))
		rc = mf_error_set(err, MF_EIO, "", 0, 0, "cannot write the report: %s", strerror(errno));
	mf_strbuf_free(&sb);
	mf_mrep_close(&x);
	return rc;
}
