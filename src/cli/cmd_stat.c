/* SPDX-License-Identifier: MIT */
/* mfstat stat: count CPU-MF events while a command runs (or system-wide) and report the metrics. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "mfstat/serve/serve.h"

static const char stat_help[] =
	"Usage: mfstat stat [OPTIONS] -- COMMAND [ARGS]\n"
	"       mfstat stat -a [--duration SECONDS] [OPTIONS]\n"
	"\n"
	"On Linux on IBM Z, counts every authorized CPU-MF counter (cpum_cf PMU)\n"
	"while COMMAND runs, following its threads and children, or system-wide\n"
	"for SECONDS or until ^C (SIGINT), and reports every metric of the machine\n"
	"family.  Without CPU-MF counters it says why and exits 3 without running\n"
	"COMMAND.  The report goes to standard error, as perf stat's, with a command\n"
	"and system-wide alike, so COMMAND's standard output stays its own: -o -\n"
	"writes it to standard output, -o FILE to FILE.  System-wide, the cpus\n"
	"column is the number of CPUs counted.\n"
	"\n"
	"Exit status: COMMAND's own once the report is written (128+N when a signal\n"
	"N killed it), as perf stat; system-wide 0, or 130 when ^C ended the\n"
	"counting (the report is written first); else 1 data or write error,\n"
	"2 usage error, 3 nothing can be counted here (COMMAND not run).\n"
	"\n";
static const char stat_help2[] =
	"Options:\n"
	"  -a, --all-cpus     count system-wide, for --duration or until ^C (SIGINT):\n"
	"                     the first ^C ends the counting and the report is\n"
	"                     written; a second one ends mfstat at once, unreported\n"
	"  -C, --cpu LIST     count system-wide on these CPUs only (e.g. 0-3,8)\n"
	"  -I, --interval MS  report every MS milliseconds, one group per interval;\n"
	"                     with -f prom, rewrite -o FILE every MS milliseconds\n"
	"  --duration S       seconds to count system-wide (^C ends it earlier)\n"
	"  --machine F        family or machine type, when /proc/sysinfo does not say\n"
	"  --fallback         without CPU-MF counters, run COMMAND anyway and report\n"
	"                     what this machine can count: perf's generic hardware and\n"
	"                     software events (family linux_perf: CPI, CPUS_UTILIZED,\n"
	"                     FAULTS, ...; with -a on Intel also DRAM traffic from\n"
	"                     the memory controllers, family intel_uncore), with -I,\n"
	"                     -f and -o as for CPU-MF counters; the text report ends\n"
	"                     with perf stat's lines: task-clock in msec, the\n"
	"                     seconds elapsed, user and sys\n"
	"  --mem-peak GB/s    peak memory bandwidth, for DRAM_UTIL\n"
	"  -f, --format FMT   text (default), csv, json, prom (Prometheus text\n"
	"                     exposition 0.0.4) or openmetrics (OpenMetrics 1.0.0);\n"
	"                     without -f, what -o's name ends in (.txt .csv .json\n"
	"                     .prom); a -f the name contradicts is a warning\n"
	"  --derived          with -f prom or openmetrics: the metrics too, as gauges\n"
	"                     (percent as ratios 0-1), and mfstat_lspr_info{class}\n"
	"  -o, --output FILE  write the report to FILE (-: standard output; without\n"
	"                     -o it goes to standard error); with -f csv, FILE gets\n"
	"                     the raw counters in the canonical counter CSV, which\n"
	"                     'mfstat report FILE' turns into the same metrics;\n"
	"                     with -f prom, FILE is replaced atomically (a new file\n"
	"                     renamed over it), with -I every interval, the counts\n"
	"                     cumulative since the start (node_exporter's textfile\n"
	"                     collector: -o DIR/mfstat.prom)\n"
	"  --tables DIR       knowledge-base files that replace the built-in ones\n"
	"  -q, --quiet        no warnings on standard error (errors still); warnings\n"
	"                     are said there once, and are in the report only with\n"
	"                     -o FILE and in JSON's \"warnings\"\n"
	"  -h, --help         this help\n"
	"  --version          the version and the knowledge base's revision\n"
	"\n"
	"Environment: MFSTAT_SYSROOT=DIR reads sysfs/procfs below DIR and replays the\n"
	"counts in DIR/counts.tsv instead of counting (for tests and recorded systems).\n"
	"\n"
	"Examples:\n"
	"  # Linux on IBM Z (CPU-MF counters): the metrics of a build\n"
	"  mfstat stat -- make -j4\n"
	"  # Linux on IBM Z: the whole LPAR until ^C, raw counters to counters.csv\n"
	"  # (CSV from the name), then the metrics again from that file\n"
	"  mfstat stat -a -o counters.csv; mfstat report counters.csv\n"
	"  # any Linux: perf's generic events of a command, as JSON (from the name)\n"
	"  mfstat stat --fallback -o run.json -- sleep 1\n"
	"  # node_exporter's textfile collector: counters and metrics every 15 s\n"
	"  mfstat stat -a -I 15000 --derived \\\n"
	"      -o /var/lib/node_exporter/textfile/mfstat.prom\n";

/* A warning of the run: on standard error now (unless -q), and into the report (text footer, JSON). */
struct collect;
static void add_warning(struct collect *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * The canonical counter CSV of the samples (one per family counted): identity,
 * then the counters of every sample by short name; a counter a row's family
 * does not count is an empty field.
 */
static int write_counters_csv(FILE *fp, struct mf_sample *const *s, size_t ns)
{
	const char *cols[2 * MF_SAMPLE_MAX];
	size_t ncols = 0, i, k, c;
	for (k = 0; k < ns; k++)
		for (i = 0; i < s[k]->n; i++) {
			const char *name = s[k]->family->counters[s[k]->slot[i]].short_name;
			for (c = 0; c < ncols && strcmp(cols[c], name) != 0; c++)
				;
			if (c == ncols && ncols < sizeof(cols) / sizeof(cols[0]))
				cols[ncols++] = name;
		}
	fprintf(fp, "machine,cpsp,interval_seconds");
	for (c = 0; c < ncols; c++)
		fprintf(fp, ",%s", cols[c]);
	fputc('\n', fp);
	for (k = 0; k < ns; k++) {
		if (s[k]->machine)
			fprintf(fp, "%u", s[k]->machine->type);
		else
			fputs(s[k]->family->key, fp);
		fputc(',', fp);
		if (!isnan(s[k]->cpsp)) {
			char b[40];
			fwrite(b, 1, (size_t)mf_fmt_g15(s[k]->cpsp, b), fp); /* %.15g */
		}
		fprintf(fp, ",%.9f", s[k]->seconds);
		for (c = 0; c < ncols; c++) {
			fputc(',', fp);
			for (i = 0; i < s[k]->n; i++)
				if (strcmp(s[k]->family->counters[s[k]->slot[i]].short_name, cols[c]) == 0)
					fprintf(fp, "%" PRIu64, s[k]->value[i]);
		}
		fputc('\n', fp);
	}
	return ferror(fp) ? -1 : 0;
}

/* write_counters_csv into -o FILE through cli_open_out/cli_close_out: EXIT_OK or EXIT_DATA (said). */
static int save_counters_csv(const char *out, struct mf_sample *const *s, size_t ns)
{
	FILE *fp = cli_open_out(out);
	if (!fp)
		return EXIT_DATA;
	if (write_counters_csv(fp, s, ns)) {
		cli_close_out(fp, out);
		return EXIT_DATA;
	}
	return cli_close_out(fp, out);
}

/*
 * The command's status as mfstat's exit status, as perf stat and mfstat
 * measure give it: its exit status, or 128+N for a signal N; 0 for none.
 */
static int command_exit(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 0;
}

static void report_status(int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status))
		cli_warn("the command exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		cli_warn("the command was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
}

/*
 * Where the counts of a run go: up to two families (the CPU-MF family, or
 * linux_perf and intel_uncore for --fallback), and for each event its family
 * and dense slot; events with the same slot (one per memory controller) add up.
 */
struct collect {
	size_t nfam;
	const struct mf_family *fam[2];
	const struct mf_machine *machine[2];
	double cpsp[2];
	size_t n;
	const int *dest_fam;
	const int *dest_slot;
	uint64_t *prev; /* -I: the counts at the previous read, for deltas */
	struct mf_sample *s[2];
	struct mf_pipeline *pl; /* one sample per family (and interval, with -I) goes here */
	size_t nown;            /* warnings of ours in pl (said on standard error already) */
	const struct mf_perf_tick *tick;
	uint32_t cpus; /* system-wide: the CPUs counted (each sample sums them: its group's cpus); 0 for a command */
	int failed;
	char failure[512]; /* the pipeline's message when it failed (out of memory) */
	/* -f prom: the exposition of the counts so far, to out (each interval with -I) */
	bool prom;
	enum mf_prom_fmt prom_fmt;
	bool derived;
	int prom_failed; /* writing the exposition failed: said once, no more tries, exit 1 */
	const char *out;
	const struct mf_kb *kb;
	double mem_peak;
	struct mf_prom_machine mach;
	size_t nup;
	struct up_def {
		char set[24];
		int fam;    /* the family (0, 1) whose counters it covers */
		int set_no; /* enum mf_set, or -1: every counter of fam */
		bool up;    /* as probed: some of its counters can be counted */
		char reason[120];
	} up[MF_NSETS + 2];
};

/* The pipeline's failures (out of memory, naming what), said when the report is to be made. */
static void collect_diag(void *ctx, enum mf_pipeline_diag kind, const struct mf_error *e)
{
	struct collect *c = ctx;
	if (kind == MF_PIPELINE_FAILED && !c->failure[0])
		snprintf(c->failure, sizeof(c->failure), "%s", e->msg);
}

/* Fills c->s[] with the counts (deltas from c->prev when it is set) over [from, to] seconds. */
static void make_samples(struct collect *c, const struct mf_count *counts, double from, double to, bool dated)
{
	size_t f, i, k;
	for (f = 0; f < c->nfam; f++) {
		struct mf_sample *s = c->s[f];
		mf_sample_reset(s);
		s->family = c->fam[f];
		s->machine = c->machine[f];
		s->cpsp = c->cpsp[f];
		s->seconds = to - from;
		if (c->cpus > 1 && f == 0) /* the memory controllers (intel_uncore) are not counted per CPU */
			s->rollup_cpus = c->cpus;
		if (dated) {
			s->has_start = true;
			s->start_us = c->tick->start_us + (int64_t)llround(from * 1e6);
		}
	}
	for (i = 0; i < c->n; i++) {
		struct mf_sample *s = c->s[c->dest_fam[i]];
		uint64_t v;
		if (!counts[i].ok)
			continue;
		v = counts[i].value;
		if (c->prev) {
			v = v >= c->prev[i] ? v - c->prev[i] : 0;
			c->prev[i] = counts[i].value;
		}
		for (k = 0; k < s->n && s->slot[k] != (uint16_t)c->dest_slot[i]; k++)
			;
		if (k == s->n) {
			if (s->n == MF_SAMPLE_MAX)
				continue;
			s->slot[s->n] = (uint16_t)c->dest_slot[i];
			s->value[s->n++] = 0;
		}
		s->value[k] += v;
	}
}

/*
 * The up state of each counter set at this read: as probed, and down when none of its counters
 * could be read (the first one's reason), into u (c->nup entries).
 */
static void up_states(const struct collect *c, const struct mf_count *counts, struct mf_prom_up *u, char (*why)[160])
{
	size_t k, i;
	for (k = 0; k < c->nup; k++) {
		const struct up_def *d = &c->up[k];
		const char *first = NULL;
		bool ok = false;
		u[k].set = d->set;
		u[k].up = false;
		u[k].reason = d->reason;
		if (!d->up)
			continue;
		for (i = 0; i < c->n && !ok; i++) {
			const struct mf_family *f = c->fam[c->dest_fam[i]];
			if (c->dest_fam[i] != d->fam ||
			    (d->set_no >= 0 && f->counters[c->dest_slot[i]].set != d->set_no))
				continue;
			ok = counts[i].ok;
			if (!ok && !first)
				first = counts[i].why;
		}
		u[k].up = ok;
		if (!ok) {
			snprintf(why[k], sizeof(why[k]), "none of its counters could be read: %s",
				 first ? first : "none counted");
			u[k].reason = why[k];
		}
	}
}

/*
 * -f prom: the exposition of the counts so far (cumulative since the start, wall seconds) into
 * c->out, replaced whole (a new file renamed over it), or standard output.  final: the last one
 * (the data's own warnings said).  EXIT_OK or EXIT_DATA (said once: later writes are not tried).
 */
static int write_prom(struct collect *c, const struct mf_count *counts, double wall, bool final)
{
	struct mf_pipeline_opts po;
	struct mf_pipeline *pl;
	struct mf_report rep;
	struct mf_prom_opts o;
	struct mf_prom_up u[MF_NSETS + 2];
	char why[MF_NSETS + 2][160];
	struct mf_strbuf sb;
	struct mf_error e;
	uint64_t *prev = c->prev;
	size_t f, i;
	FILE *fp;
	int rc = EXIT_OK;

	if (c->prom_failed)
		return EXIT_DATA;
	c->prev = NULL; /* cumulative: a Prometheus counter never restarts */
	make_samples(c, counts, 0, wall, false);
	c->prev = prev;
	memset(&po, 0, sizeof(po));
	po.kb = c->kb;
	po.metrics.mem_peak_gbs = c->mem_peak;
	pl = mf_pipeline_new(&po);
	for (f = 0; pl && f < c->nfam; f++)
		if (mf_pipeline_add_sample(pl, c->s[f], &e))
			break;
	if (!pl || f < c->nfam || mf_pipeline_finish(pl, &rep)) {
		mf_pipeline_free(pl);
		cli_nomem("making the exposition");
		c->prom_failed = 1;
		return EXIT_DATA;
	}
	up_states(c, counts, u, why);
	memset(&o, 0, sizeof(o));
	o.fmt = c->prom_fmt;
	o.derived = c->derived;
	o.machine = &c->mach;
	o.up = u;
	o.nup = c->nup;
	mf_strbuf_init(&sb);
	if (mf_prom_report(&sb, &rep, &o)) {
		cli_nomem("making the exposition");
		rc = EXIT_DATA;
	}
	if (final)
		for (i = 0; i < rep.nwarnings; i++)
			cli_warn("%s", rep.warnings[i]);
	mf_pipeline_free(pl);
	if (!rc && !(fp = cli_open_out(c->out)))
		rc = EXIT_DATA;
	if (!rc) {
		fwrite(sb.buf ? sb.buf : "", 1, sb.len, fp);
		rc = cli_close_out(fp, c->out);
	}
	mf_strbuf_free(&sb);
	if (rc)
		c->prom_failed = 1;
	return rc;
}

static void add_warning(struct collect *c, const char *fmt, ...)
{
	va_list ap;
	char buf[700];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cli_warn("%s", buf);
	mf_pipeline_warn(c->pl, "%s", buf);
	c->nown++;
}

/* -I: each interval's counts become one sample per family (deltas of the cumulative reads). */
static void on_tick(void *vctx, const struct mf_count *counts, size_t n, double from, double to)
{
	struct collect *c = vctx;
	size_t f;
	(void)n;
	if (c->prom) {
		/* The counts are cumulative: the exposition of everything so far replaces the file. */
		(void)from;
		write_prom(c, counts, to, false);
		return;
	}
	make_samples(c, counts, from, to, true);
	for (f = 0; f < c->nfam && to > from; f++) {
		struct mf_error e;
		if (mf_pipeline_add_sample(c->pl, c->s[f], &e))
			c->failed = 1;
	}
}

/*
 * Sets up c for a run: a sample per family and the pipeline (by interval with
 * -I) that groups them.  EXIT_OK, or EXIT_DATA (said).
 */
static int collect_init(struct collect *c, const struct mf_kb *kb, double interval_ms, double mem_peak)
{
	struct mf_pipeline_opts po;
	size_t f;

	c->kb = kb;
	c->mem_peak = mem_peak;

	memset(&po, 0, sizeof(po));
	po.kb = kb;
	po.by = interval_ms > 0 ? MF_BY_INTERVAL : 0;
	po.metrics.mem_peak_gbs = mem_peak;
	po.diag = collect_diag;
	po.ctx = c;
	c->pl = mf_pipeline_new(&po);
	for (f = 0; f < c->nfam; f++)
		c->s[f] = malloc(sizeof(*c->s[f]));
	if (!c->pl || !c->s[0] || (c->nfam > 1 && !c->s[1])) {
		cli_nomem("setting up the counting");
		return EXIT_DATA;
	}
	return EXIT_OK;
}

static void collect_free(struct collect *c)
{
	size_t f;
	mf_pipeline_free(c->pl);
	for (f = 0; f < 2; f++)
		free(c->s[f]);
}

/* What perf stat prints of a run, after the fallback's text report (see perf_lines). */
struct perf_tail {
	char *const *cmd; /* the command, or NULL system-wide */
	double task_ms;   /* task-clock in msec, NaN when not counted */
	const struct mf_perf_times *times;
};

/* v with two decimals and thousands grouped by commas: 1,234.56. */
static void grouped(char *buf, size_t n, double v)
{
	char plain[64], *dot;
	size_t len, i, o = 0, intlen;
	snprintf(plain, sizeof(plain), "%.2f", v);
	dot = strchr(plain, '.');
	len = strlen(plain);
	intlen = dot ? (size_t)(dot - plain) : len;
	for (i = 0; i < len && o + 2 < n; i++) {
		if (i > 0 && i < intlen && plain[i - 1] != '-' && (intlen - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = plain[i];
	}
	buf[o] = '\0';
}

/*
 * perf stat's lines for the fallback's text report: task-clock in msec with
 * the CPUs utilized, the seconds elapsed and, for a command, its user and
 * system CPU seconds, in perf stat's layout (perf stat -e task-clock).
 */
static void perf_lines(FILE *fp, const struct perf_tail *t)
{
	char num[64];
	size_t i;
	fputs("\n Performance counter stats for '", fp);
	if (!t->cmd)
		fputs("system wide", fp);
	for (i = 0; t->cmd && t->cmd[i]; i++)
		fprintf(fp, "%s%s", i ? " " : "", t->cmd[i]);
	fputs("':\n\n", fp);
	if (isnan(t->task_ms)) {
		fprintf(fp, "%18s      %s\n", "<not counted>", "task-clock");
	} else {
		grouped(num, sizeof(num), t->task_ms);
		fprintf(fp, "%18s msec %-32s # %8.3f CPUs utilized\n", num, "task-clock",
			t->times->wall > 0 ? t->task_ms / 1000 / t->times->wall : 0.0);
	}
	fprintf(fp, "\n%18.9f seconds time elapsed\n", t->times->wall);
	if (t->cmd && !isnan(t->times->user_s))
		fprintf(fp, "\n%18.9f seconds user\n%18.9f seconds sys\n", t->times->user_s, t->times->sys_s);
	fputc('\n', fp);
}

static void perf_tail(FILE *fp, const void *ctx)
{
	perf_lines(fp, ctx);
}

/* cli_write_report, with perf stat's lines after a text report when tail is set. */
static int write_report(const char *out, const char *format, const struct mf_report *rep, const struct perf_tail *tail)
{
	if (!tail || strcmp(format, "text") != 0)
		return cli_write_report(out, format, rep);
	return cli_write_report_tail(out, format, rep, perf_tail, tail);
}

/*
 * After the run: the totals (without -I) into the pipeline, then the report
 * in format to out (NULL: standard error, "-": standard output), or with -f csv
 * -o FILE the raw counts to FILE and the report as text to standard error.
 * EXIT_OK or EXIT_DATA (said).
 */
static int finish_report(struct collect *c, const struct mf_count *counts, double wall, bool interval,
			 const char *format, const char *out, const struct perf_tail *tail)
{
	struct mf_report rep;
	struct mf_error e;
	size_t f, i;
	int rc;

	if (c->prom) {
		(void)interval;
		(void)tail;
		(void)format;
		return write_prom(c, counts, wall, true);
	}
	if (c->failed) {
		cli_err("%s", c->failure[0] ? c->failure : "out of memory while keeping the counts of each interval");
		return EXIT_DATA;
	}
	c->prev = NULL;
	make_samples(c, counts, 0, wall, false);
	if (out && strcmp(format, "csv") == 0) {
		/* -f csv -o FILE: the raw counts as canonical counter CSV; the report goes to standard output. */
		rc = save_counters_csv(out, c->s, c->nfam);
		if (rc)
			return rc;
		out = NULL;
		format = "text";
	}
	if (!out)
		out = cli_out_stderr; /* as perf stat: the command's own standard output stays its own */
	if (interval)
		tail = NULL; /* perf stat -I prints no totals either */
	for (f = 0; f < c->nfam && !interval; f++) {
		if (mf_pipeline_add_sample(c->pl, c->s[f], &e)) {
			cli_err("%s", e.msg);
			return EXIT_DATA;
		}
	}
	if (mf_pipeline_finish(c->pl, &rep)) {
		cli_err("%s", c->failure[0] ? c->failure : "out of memory while making the report");
		return EXIT_DATA;
	}
	/* Ours were said as they came; the data's own (doubts) now. */
	for (i = c->nown; i < rep.nwarnings; i++)
		cli_warn("%s", rep.warnings[i]);
	return write_report(out, format, &rep, tail);
}

/* Names the events that could not be opened, grouped by reason, in warnings. */
static void warn_not_counted(struct collect *col, const struct mf_count *c, size_t n, const char *what)
{
	size_t i, k;
	for (i = 0; i < n; i++) {
		char names[300];
		size_t used = 0, count = 0;
		bool first = true;
		if (c[i].ok)
			continue;
		for (k = 0; k < i; k++)
			if (!c[k].ok && strcmp(c[k].why, c[i].why) == 0)
				first = false;
		if (!first)
			continue; /* this reason was named with its first event */
		names[0] = '\0';
		for (k = i; k < n; k++) {
			if (c[k].ok || strcmp(c[k].why, c[i].why) != 0)
				continue;
			if (count < 6 && used < sizeof(names))
				used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", count ? ", " : "",
							 c[k].name);
			count++;
		}
		if (count > 6 && used < sizeof(names))
			snprintf(names + used, sizeof(names) - used, " and %zu more", count - 6);
		add_warning(col, "%zu %s not counted: %s: %s", count, what, names, c[i].why);
	}
}

/* The command line of stat. */
struct stat_opts {
	const char *machine, *format, *out, *tables;
	bool all, want_fallback, derived;
	double interval_ms, mem_peak, duration;
	int cpus[1024];
	size_t ncpus;
	char **cmd; /* the command to run, or NULL to count system-wide */
};

/*
 * System-wide: the CPUs counted, -C's or every online one (as mf_perf_run opens them: CPU 0
 * alone when the online list cannot be read); 0 for a command.
 */
static uint32_t cpus_counted(const struct mf_perf_sys *sys, const struct stat_opts *o)
{
	char buf[4096];
	long got;
	int n = -1;
	if (o->cmd)
		return 0;
	if (o->ncpus)
		return (uint32_t)o->ncpus;
	got = mf_perf_read_file(sys, "/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (got > 0)
		n = mf_cpu_list(buf, NULL, sizeof(o->cpus) / sizeof(o->cpus[0]));
	return n > 0 ? (uint32_t)n : 1;
}

/* -f prom: the exposition's settings; the machine and sets are the caller's. */
static void prom_setup(struct collect *c, const struct stat_opts *o)
{
	c->prom = mf_prom_format_name(o->format, &c->prom_fmt);
	c->derived = o->derived;
	c->out = o->out ? o->out : cli_out_stderr;
	c->mach.cfvn = c->mach.csvn = c->mach.auth = -1;
	c->mach.cpu_speed_mhz = NAN;
}

/*
 * Without CPU-MF: the generic events of the linux_perf family (and, system-wide
 * on Intel, the memory controllers' CAS counts of intel_uncore), reported by
 * the same writers, with -I, -f and -o as for CPU-MF counters.
 */
static int fallback(const struct mf_perf_sys *sys, const struct mf_kb *kb, const struct stat_opts *o, const char *why,
		    int *status, bool *interrupted)
{
	char *const *argv = o->cmd;
	double interval_ms = o->interval_ms;
	static const struct mf_perf_req req[] = {
		{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles", false, 0},
		{PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions", false, 0},
		{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "cache-references", false, 0},
		{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache-misses", false, 0},
		{PERF_TYPE_HW_CACHE,
		 PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
			 (PERF_COUNT_HW_CACHE_RESULT_MISS << 16),
		 "dTLB-load-misses", false, 0},
		{PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock", false, 0},
		{PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches", false, 0},
		{PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations", false, 0},
		{PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults", false, 0},
	};
	enum { N = sizeof(req) / sizeof(req[0]), MAXIMC = 16 };
	struct mf_perf_req all[N + 2 * MAXIMC];
	struct mf_count cnt[N + 2 * MAXIMC];
	int dest_fam[N + 2 * MAXIMC], dest_slot[N + 2 * MAXIMC];
	uint64_t prev[N + 2 * MAXIMC];
	struct mf_uncore_imc imc[MAXIMC];
	struct collect col;
	struct mf_perf_tick tick;
	struct mf_perf_times times;
	struct perf_tail tail;
	struct mf_error e;
	size_t nimc = 0, ntot = N, i;
	int rc = EXIT_OK;

	memset(&col, 0, sizeof(col));
	memset(cnt, 0, sizeof(cnt));
	memset(prev, 0, sizeof(prev));
	memcpy(all, req, sizeof(req));
	col.fam[0] = mf_kb_family(kb, "linux_perf");
	if (!col.fam[0] || col.fam[0]->ncounters < N) {
		cli_err("stat: the knowledge base has no linux_perf family with the %d generic events (--tables?)", N);
		return EXIT_DATA;
	}
	col.nfam = 1;
	col.cpsp[0] = col.cpsp[1] = NAN;
	for (i = 0; i < N; i++) {
		/* The family's counters are perf's names with '_' for '-'. */
		char name[48];
		size_t k;
		const struct mf_counter *c;
		snprintf(name, sizeof(name), "%s", req[i].name);
		for (k = 0; name[k]; k++)
			name[k] = name[k] == '-' ? '_' : (char)tolower((unsigned char)name[k]);
		c = mf_family_counter(col.fam[0], name, strlen(name));
		if (!c) {
			cli_err("stat: the linux_perf family has no counter %s (--tables?)", name);
			return EXIT_DATA;
		}
		dest_fam[i] = 0;
		dest_slot[i] = col.fam[0]->dense[c->number];
	}
	/* System-wide on Intel: the memory controllers too (uncore PMUs count only system-wide). */
	if (!argv) {
		const struct mf_family *unc = mf_kb_family(kb, "intel_uncore");
		const struct mf_counter *rd = unc ? mf_family_counter(unc, "cas_count_read", 14) : NULL;
		const struct mf_counter *wr = unc ? mf_family_counter(unc, "cas_count_write", 15) : NULL;
		nimc = rd && wr ? mf_uncore_probe(sys, imc, MAXIMC) : 0;
		if (nimc > MAXIMC)
			nimc = MAXIMC;
		for (i = 0; i < nimc; i++) {
			struct mf_perf_req r2 = {imc[i].type, imc[i].cas_read, "cas_count_read", true, imc[i].cpu};
			struct mf_perf_req w2 = {imc[i].type, imc[i].cas_write, "cas_count_write", true, imc[i].cpu};
			dest_fam[ntot] = 1;
			dest_slot[ntot] = unc->dense[rd->number];
			all[ntot++] = r2;
			dest_fam[ntot] = 1;
			dest_slot[ntot] = unc->dense[wr->number];
			all[ntot++] = w2;
		}
		if (nimc) {
			col.fam[1] = unc;
			col.nfam = 2;
		}
	}
	col.n = ntot;
	col.cpus = cpus_counted(sys, o);
	col.dest_fam = dest_fam;
	col.dest_slot = dest_slot;
	prom_setup(&col, o);
	col.mach.family = col.fam[0]->key;
	col.up[col.nup++] = (struct up_def){.set = "perf", .fam = 0, .set_no = -1, .up = true};
	if (nimc)
		col.up[col.nup++] = (struct up_def){.set = "intel_uncore", .fam = 1, .set_no = -1, .up = true};
	rc = collect_init(&col, kb, interval_ms, o->mem_peak);
	if (rc)
		goto done;
	memset(&tick, 0, sizeof(tick));
	tick.interval = interval_ms / 1000;
	tick.fn = on_tick;
	tick.ctx = &col;
	col.tick = &tick;
	col.prev = prev;
	add_warning(&col, "no CPU-MF counters (%s): counted Linux perf's generic events instead (family linux_perf)",
		    why);
	mf_error_clear(&e);
	if (mf_perf_run(sys, all, ntot, argv, o->duration, o->ncpus ? o->cpus : NULL, o->ncpus,
			interval_ms > 0 ? &tick : NULL, cnt, status, &times, &e)) {
		cli_diag(&e, "error");
		rc = cli_exit_for(e.code);
		goto done;
	}
	*interrupted = times.interrupted;
	warn_not_counted(&col, cnt, N, "generic events");
	if (nimc)
		warn_not_counted(&col, cnt + N, ntot - N, "memory-controller events");
	tail.cmd = argv;
	tail.times = &times;
	tail.task_ms = NAN;
	for (i = 0; i < N; i++)
		if (req[i].type == PERF_TYPE_SOFTWARE && req[i].config == PERF_COUNT_SW_TASK_CLOCK && cnt[i].ok)
			tail.task_ms = (double)cnt[i].value / 1e6;
	rc = finish_report(&col, cnt, times.wall, interval_ms > 0, o->format, o->out, &tail);
done:
	collect_free(&col);
	return rc;
}

/* With CPU-MF counters: every authorized counter of the family, reported by the family's metrics. */
static int count_cpumf(const struct mf_perf_sys *sys, const struct mf_kb *kb, const struct mf_cpumf_info *info,
		       const struct stat_opts *o, int *status, bool *interrupted)
{
	struct mf_perf_req *req = calloc(info->nevents, sizeof(*req));
	struct mf_count *cnt = calloc(info->nevents, sizeof(*cnt));
	int *dest_fam = calloc(info->nevents, sizeof(*dest_fam));
	int *dest_slot = calloc(info->nevents, sizeof(*dest_slot));
	uint64_t *prev = calloc(info->nevents, sizeof(*prev));
	struct mf_error e;
	struct mf_perf_tick tick;
	struct mf_perf_times times;
	struct collect col;
	size_t i;
	int rc;

	memset(&col, 0, sizeof(col));
	col.nfam = 1;
	prom_setup(&col, o);
	mf_exporter_machine(info, &col.mach);
	{
		struct mf_cpumf_set_state st[MF_NSETS];
		size_t k, ns = mf_cpumf_sets(info, st, MF_NSETS);
		for (k = 0; k < ns && k < MF_NSETS; k++) {
			struct up_def *d = &col.up[col.nup++];
			snprintf(d->set, sizeof(d->set), "%s", mf_set_name(st[k].set));
			d->fam = 0;
			d->set_no = st[k].set;
			d->up = st[k].up;
			snprintf(d->reason, sizeof(d->reason), "%s", st[k].reason);
		}
	}
	rc = collect_init(&col, kb, o->interval_ms, o->mem_peak);
	if (rc)
		goto done;
	if (!req || !cnt || !dest_fam || !dest_slot || !prev) {
		cli_nomem("setting up %zu events", info->nevents);
		rc = EXIT_DATA;
		goto done;
	}
	if (info->missing[0])
		add_warning(&col, "%s", info->missing);
	for (i = 0; i < info->nevents; i++) {
		req[i].type = (uint32_t)info->pmu_type;
		req[i].config = info->events[i].number;
		req[i].name = info->events[i].name;
		req[i].one_cpu = false;
		dest_slot[i] = info->events[i].slot;
	}
	col.fam[0] = info->family;
	col.machine[0] = info->machine;
	col.cpsp[0] = info->cpu_speed;
	if (isnan(col.cpsp[0]) && info->machine) {
		col.cpsp[0] = info->machine->nominal_mhz;
		add_warning(&col,
			    "CPU speed unknown (no cpu_speed= in /proc/service_levels): used the nominal "
			    "speed of machine type %u (%g MHz)",
			    info->machine->type, col.cpsp[0]);
	}
	col.n = info->nevents;
	col.cpus = cpus_counted(sys, o);
	col.dest_fam = dest_fam;
	col.dest_slot = dest_slot;
	col.prev = prev;
	memset(&tick, 0, sizeof(tick));
	tick.interval = o->interval_ms / 1000;
	tick.fn = on_tick;
	tick.ctx = &col;
	col.tick = &tick;
	mf_error_clear(&e);
	if (mf_perf_run(sys, req, info->nevents, o->cmd, o->duration, o->ncpus ? o->cpus : NULL, o->ncpus,
			o->interval_ms > 0 ? &tick : NULL, cnt, status, &times, &e)) {
		cli_diag(&e, "error");
		rc = cli_exit_for(e.code);
		goto done;
	}
	*interrupted = times.interrupted;
	warn_not_counted(&col, cnt, info->nevents, "counters");
	rc = finish_report(&col, cnt, times.wall, o->interval_ms > 0, o->format, o->out, NULL);
done:
	collect_free(&col);
	free(req), free(cnt), free(dest_fam), free(dest_slot), free(prev);
	return rc;
}

/* Parses stat's options into o: -1 to go on, else the exit status (help printed, or a usage error said). */
static int parse_opts(int argc, char **argv, struct stat_opts *o)
{
	static const struct option opts[] = {{"all-cpus", no_argument, NULL, 'a'},
					     {"duration", required_argument, NULL, 'd'},
					     {"cpu", required_argument, NULL, 'C'},
					     {"interval", required_argument, NULL, 'I'},
					     {"mem-peak", required_argument, NULL, 'M'},
					     {"machine", required_argument, NULL, 'm'},
					     {"fallback", no_argument, NULL, 'F'},
					     {"format", required_argument, NULL, 'f'},
					     {"output", required_argument, NULL, 'o'},
					     {"tables", required_argument, NULL, 'T'},
					     {"quiet", no_argument, NULL, 'q'},
					     {"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {"derived", no_argument, NULL, 'D'},
					     {NULL, 0, NULL, 0}};
	int c;

	memset(o, 0, sizeof(*o));
	o->format = NULL;
	o->mem_peak = NAN;
	o->duration = NAN;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:aC:I:d:f:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'a': o->all = true; break;
		case 'C': {
			int k = mf_cpu_list(optarg, o->cpus, sizeof(o->cpus) / sizeof(o->cpus[0]));
			if (k <= 0) {
				return cli_usage("stat", "stat: -C: '%s' is not a CPU list such as 0-3,8", optarg);
			}
			o->ncpus = (size_t)k;
			o->all = true;
			break;
		}
		case 'd': {
			char *end;
			o->duration = strtod(optarg, &end);
			if (end == optarg || *end || !(o->duration > 0)) {
				return cli_usage("stat", "stat: --duration takes seconds, not '%s'", optarg);
			}
			break;
		}
		case 'I':
			o->interval_ms = strtod(optarg, NULL);
			if (!(o->interval_ms >= 10)) {
				return cli_usage("stat", "stat: -I takes milliseconds, at least 10 (not '%s')", optarg);
			}
			break;
		case 'm': o->machine = optarg; break;
		case 'F': o->want_fallback = true; break;
		case 'D': o->derived = true; break;
		case 'M':
			if (!cli_mem_peak("stat", optarg, &o->mem_peak))
				return EXIT_USAGE;
			break;
		case 'f': o->format = optarg; break;
		case 'o': o->out = optarg; break;
		case 'T': o->tables = optarg; break;
		case 'q': cli_quiet = true; break;
		case 'h':
			fputs(stat_help, stdout);
			fputs(stat_help2, stdout);
			return EXIT_OK;
		case 'V': return cli_version();
		default: return cli_bad_option("stat", c, argv, opts);
		}
	}
	/* -o week.xlsx: a name no format has, never silently text. */
	if (cli_out_ext_check("stat", o->format, o->out, ".txt .csv .json .html .htm .prom",
			      "text, csv, json, prom or openmetrics") >= 0)
		return EXIT_USAGE;
	if (!o->format && o->out && mf_prom_file_name(o->out)) {
		o->format = "prom"; /* -o DIR/mfstat.prom: node_exporter's textfile collector */
	} else if (!o->format && o->out && strcmp(cli_out_format("stat", NULL, o->out, "text"), "html") == 0) {
		/* -o x.html: stat has no HTML report (mfstat report -f html makes one from -f csv's counters). */
		cli_warn(
			"stat: %s: stat writes no HTML: writing text (-f csv -o FILE, then mfstat report -f html "
			"FILE, gives the HTML page)",
			o->out);
		o->format = "text";
	} else {
		o->format = cli_out_format("stat", o->format, o->out, "text");
	}
	if (strcmp(o->format, "text") && strcmp(o->format, "csv") && strcmp(o->format, "json") &&
	    !mf_prom_format_name(o->format, NULL)) {
		return cli_usage("stat", "stat: -f must be text, csv, json, prom or openmetrics, not '%s'", o->format);
	}
	if (o->derived && !mf_prom_format_name(o->format, NULL)) {
		return cli_usage("stat",
				 "stat: --derived is for -f prom or openmetrics (the other formats always have the "
				 "metrics)");
	}
	if (mf_prom_format_name(o->format, NULL) && o->interval_ms > 0 && (!o->out || strcmp(o->out, "-") == 0)) {
		return cli_usage("stat",
				 "stat: -f %s -I rewrites a file every interval: give it with -o FILE (e.g. "
				 "/var/lib/node_exporter/textfile/mfstat.prom)",
				 o->format);
	}
	if (optind < argc)
		o->cmd = argv + optind;
	if (!o->all && !o->cmd) {
		return cli_usage("stat",
				 "stat: no command to run (mfstat stat -- COMMAND, or -a to count system-wide)");
	}
	return -1;
}

/*
 * -f prom -o FILE, before counting: FILE's directory must be one we may create a file in (the
 * exposition is a new file renamed over FILE), and FILE no directory.  0, or -1 (said).
 */
static int check_prom_out(const char *out)
{
	char dir[4096];
	const char *slash = strrchr(out, '/');
	struct stat st;
	if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
		cli_err("stat: -o %s is a directory: name the file to write in it (%s/mfstat.prom)", out, out);
		return -1;
	}
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == out ? 1 : (int)(slash - out), out);
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		cli_err("stat: -o %s: no directory %s to write the exposition in: nothing counted", out, dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		cli_err("stat: -o %s: cannot create files in %s (%s): nothing counted", out, dir, strerror(errno));
		return -1;
	}
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	const char *root = getenv("MFSTAT_SYSROOT");
	struct stat_opts *o = malloc(sizeof(*o));
	struct mf_kb *kb = NULL;
	struct mf_perf_sys *sys = NULL;
	struct mf_cpumf_info *info = NULL;
	const struct mf_family *fam = NULL;
	const struct mf_machine *m = NULL;
	int rc, status = 0, got;
	bool interrupted = false;

	if (!o) {
		cli_nomem("reading the options");
		return EXIT_DATA;
	}
	rc = parse_opts(argc, argv, o);
	if (rc >= 0)
		goto out;
	if (mf_prom_format_name(o->format, NULL) && o->out && strcmp(o->out, "-") != 0 && check_prom_out(o->out)) {
		rc = EXIT_DATA;
		goto out;
	}
	kb = cli_load_kb(o->tables);
	if (!kb) {
		rc = EXIT_DATA;
		goto out;
	}
	if (o->machine && (mf_kb_resolve(kb, o->machine, strlen(o->machine), &fam, &m) || fam == mf_kb_generic(kb))) {
		rc = cli_usage("stat", "stat: unknown machine '%s' (see mfstat machines)", o->machine);
		goto out;
	}
	if (fam && fam->named) {
		rc = cli_usage("stat",
			       "stat: --machine %s is not an IBM Z family: CPU-MF counters are counted as z10 ... z17 "
			       "(--fallback counts the generic events of linux_perf by itself)",
			       fam->display);
		goto out;
	}
	if (root) {
		struct mf_error e;
		if (mf_perf_sys_recorded(&sys, root, &e)) {
			cli_diag(&e, "error");
			rc = EXIT_DATA;
			goto out;
		}
	} else {
		sys = mf_perf_sys_real();
	}
	info = malloc(sizeof(*info));
	if (!info) {
		rc = EXIT_DATA;
		goto out;
	}
	got = mf_cpumf_probe(sys, kb, fam, o->all && !o->cmd, info);
	if (got && !o->want_fallback) {
		if (o->cmd)
			cli_err("stat: CPU-MF counters cannot be counted here: %s; the command was not run "
				"(--fallback runs it with the events this machine has)",
				info->why);
		else
			cli_err("stat: CPU-MF counters cannot be counted here: %s; nothing was counted "
				"(--fallback counts the events this machine has)",
				info->why);
		rc = cli_exit_for(got);
		goto out;
	}
	rc = got ? fallback(sys, kb, o, info->why, &status, &interrupted)
		 : count_cpumf(sys, kb, info, o, &status, &interrupted);
	/* The command's own status becomes mfstat's when the report was written (perf stat does the same). */
	if (rc == EXIT_OK && o->cmd) {
		report_status(status);
		rc = command_exit(status);
	}
	/* System-wide ended by ^C: reported, then 130 as perf stat -a (and a command ended by ^C) gives. */
	if (rc == EXIT_OK && interrupted)
		rc = 128 + SIGINT;
out:
	free(info);
	if (sys && root)
		mf_perf_sys_free(sys);
	mf_kb_free(kb);
	free(o);
	return rc;
}
