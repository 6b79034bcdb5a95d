/* SPDX-License-Identifier: MIT */
/* mfstat measure: Caliper's itlb and profile measurements (caliper-measure.md). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_term.h"
#include "mfstat/measure/unwind.h"
#include "mfstat/measure/diff.h"
#include "mfstat/measure/flame.h"

static void measure_usage(FILE *fp)
{
	fputs("Usage: mfstat measure itlb|profile [OPTIONS] [--] PROGRAM [ARGS...]\n"
	      "       mfstat measure report [OPTIONS] RUNFILE...\n"
	      "       mfstat measure diff [OPTIONS] BEFORE.mfdb AFTER.mfdb\n"
	      "       mfstat measure probe [-f text|json]\n"
	      "\n"
	      "Samples a program's instruction-TLB misses (itlb) or its CPU time (profile)\n"
	      "with perf_event_open and reports them per thread, load module, function,\n"
	      "source line and cache line, in HP Caliper's layout.  Every run is saved to a\n"
	      "run file that `measure report` reads again without re-running.\n"
	      "\n"
	      "Options:\n"
	      "  -o, --output FILE          write the report to FILE ('-': standard output); by\n"
	      "                             default itlb and profile write it to standard error,\n"
	      "                             as perf stat does, leaving standard output to the\n"
	      "                             program; measure report writes to standard output.\n"
	      "                             itlb and profile check that FILE can be written\n"
	      "                             before the program runs (else exit 1, not run)\n"
	      "  -f, --format text|csv|json|folded|html\n"
	      "                             text (default), csv (the function table), json,\n"
	      "                             folded (one line per call chain, root first:\n"
	      "                             prog;main;work 123, as FlameGraph reads) or html\n"
	      "                             (one self-contained page: a flame graph of the call\n"
	      "                             chains, a bar chart of the top functions without\n"
	      "                             -g, the module and function summaries and the\n"
	      "                             hottest source lines); without -f, what -o's name\n"
	      "                             ends in (.txt .csv .json .html; another extension,\n"
	      "                             such as .xlsx, is a usage error); a -f the name\n"
	      "                             contradicts is a warning\n"
	      "  --csv DIR                  also write every table as CSV files in DIR (each\n"
	      "                             renamed into place: a link there is not followed)\n"
	      "  -d, --database FILE        the run file, a new file, mode 0600 (default\n"
	      "                             .mfstat/MEASUREMENT-TIME-PID.mfdb: .mfstat must be\n"
	      "                             your own directory that no one else can write, or\n"
	      "                             the run is refused).  An existing FILE, a symbolic\n"
	      "                             link included, is refused before the program runs\n"
	      "                             (exit 2) unless --force; a run that fails leaves\n"
	      "                             nothing at FILE\n"
	      "  --force                    -d FILE may replace an existing regular file (or a\n"
	      "                             symbolic link, itself replaced, never followed):\n"
	      "                             the run is written beside it and takes its place\n"
	      "                             only when saved, so a run that fails leaves it as\n"
	      "                             it was.  Never the program being run (exit 2)\n",
	      fp);
	fputs("  -s, --sampling RATE[,VARIATION[,EVENT]]\n"
	      "                             events per sample (or a time: 500us, 1ms), its\n"
	      "                             variation (events, time or %), the event; empty\n"
	      "                             fields keep the default (itlb: 10000,5%,itlb_miss;\n"
	      "                             profile: 1000000,5%,cycles); EVENT may end in :user\n"
	      "                             (default) or :all.  When the event falls back to\n"
	      "                             task-clock a time is kept; a count, which cannot be\n"
	      "                             converted, gives task-clock's 1ms with a warning.\n"
	      "                             A run without samples says why and which -s\n"
	      "                             would sample it\n"
	      "  -F HZ                      samples a second (perf's -F: the kernel adjusts the\n"
	      "                             period), instead of a rate in -s\n"
	      "  -g                         call chains: the same as --call-graph fp\n"
	      "  --call-graph fp[,N]|dwarf[,SIZE]\n"
	      "                             record each sample's call chain: fp, the kernel's\n"
	      "                             frame-pointer walk, at most N frames (1 to 127, the\n"
	      "                             kernel's perf_event_max_stack); dwarf, SIZE bytes of\n"
	      "                             user stack (default 8192, at most 65528) unwound\n"
	      "                             after the run with the binaries' call frame\n"
	      "                             information (code without frame pointers).  Chains\n"
	      "                             are kept in the run file, the stacks are not\n"
	      "  --summary-cutoff P[,CUM[,MIN]]  summary rows (default 1,100,5)\n"
	      "  --detail-cutoff P[,CUM[,MIN]]   functions with details (default 5,90,1)\n"
	      "  --line-size N|auto         cache-line bytes (a power of two; auto: from the CPU)\n"
	      "  --attribute ip|line        ip (default): each sample goes to the function,\n"
	      "                             source line and module of its own address; line:\n"
	      "                             Caliper's rule, a cache line's samples go to the\n"
	      "                             function owning its first byte, which can be a\n"
	      "                             neighbour (a two-thread -O1 program: 75% to the C\n"
	      "                             runtime's frame_dummy, its second hot function gone)\n"
	      "                             measure report: the rule the run was made with\n",
	      fp);
	fputs("  --children                 sort the function tables by inclusive share (the\n"
	      "                             samples whose call chain holds the function), as\n"
	      "                             perf report --children; the summary cutoff's percent\n"
	      "                             then applies to the inclusive share\n"
	      "  --absolute                 measure diff: compare sample counts, not shares\n"
	      "  --negate                   measure diff -f html: widths from BEFORE (where the\n"
	      "                             time went), not AFTER\n"
	      "  --fallback auto|none       none: exit 3 instead of any step down the ladder\n"
	      "  --tables DIR               knowledge-base files (measure/events.tsv) from DIR\n"
	      "  --no-pager                 measure report and diff: a text report to a terminal\n"
	      "                             longer than the screen is not paged through $PAGER\n"
	      "                             (default less -FRX)\n"
	      "  -q, --quiet                no warnings and no fallback line on stderr\n"
	      "  -h, --help                 this help\n"
	      "  --version                  the version and the knowledge base's revision\n"
	      "\n"
	      "measure report reads regular files only, and counts a run given more than once\n"
	      "(the same file, a copy) once, with a warning.  Function Details of code\n"
	      "without source lines (a library without debug information) show only its\n"
	      "hottest cache lines (by --detail-cutoff) and say how many were left out.\n"
	      "\n"
	      "measure diff compares two runs of one measurement: per load module, function\n"
	      "(matched by module basename and name) and call chain (by its folded names)\n"
	      "the samples and shares before and after and the change in points, largest\n"
	      "first, rows of one run only marked; text shows rows by --summary-cutoff\n"
	      "(P: points of change), csv and json all of them; -f folded writes\n"
	      "difffolded.pl's 'stack before after' lines, BEFORE scaled to AFTER's total\n"
	      "(its -n) unless --absolute; -f html draws a differential flame graph:\n"
	      "AFTER's widths, each stack's change on its leaf, red grew, blue shrank.\n"
	      "\n"
	      "Exit status: the program's own status when it ran and failed (a signal is\n"
	      "128+N), else 0; 1 data error (a damaged run file, a write error); 2 usage\n"
	      "error, a program that cannot be run or an unsafe .mfstat; 3 measurement\n"
	      "impossible.\n",
	      fp);
	fputs("\n"
	      "Examples:\n"
	      "  # where a program spends its CPU time (any Linux: software events where\n"
	      "  # there is no PMU), the report to prof.txt\n"
	      "  mfstat measure profile -o prof.txt -- ./myprog 10\n"
	      "  # that run again from its run file, as JSON (from the name)\n"
	      "  mfstat measure report -o prof.json .mfstat/latest-profile\n"
	      "  # instruction-TLB misses every 1000 (L2 and page-walk fills need Intel's\n"
	      "  # PMU; elsewhere page faults on instruction fetch)\n"
	      "  mfstat measure itlb -s 1000 -- ./myprog 10\n"
	      "  # what changed between two runs, as difffolded.pl pairs\n"
	      "  mfstat measure diff -f folded before.mfdb after.mfdb > diff.folded\n",
	      fp);
}

struct mopts {
	const char *out, *csv_dir, *db, *tables;
	const char *format_given; /* -f as given, or NULL */
	int format;
	bool line_size_auto;
	uint32_t line_size;
	struct mf_mreport_opts ro;
	bool fallback_none;
	/* -s, merged field by field */
	char rate[32], var[32], event[80];
	bool any_collect_option;
	bool attribute_set;
	bool force;    /* --force: -d FILE may replace an existing file */
	bool absolute; /* measure diff --absolute */
	bool negate;   /* measure diff --negate (-f html) */
	bool no_pager; /* --no-pager: measure report and diff's text to a terminal not paged */
	/* -g, --call-graph, -F */
	char call_graph[8];
	uint32_t max_stack, stack_size;
	uint64_t freq;
};

/* --call-graph fp[,N]|dwarf[,SIZE] (-g: fp).  0, or -1 said (usage). */
static int parse_call_graph(struct mopts *o, const char *s)
{
	const char *comma = strchr(s, ',');
	size_t len = comma ? (size_t)(comma - s) : strlen(s);
	unsigned long v = 0;
	char *e;
	if (len == 2 && strncmp(s, "fp", 2) == 0) {
		snprintf(o->call_graph, sizeof(o->call_graph), "fp");
		o->max_stack = 0;
		if (comma) {
			errno = 0;
			v = strtoul(comma + 1, &e, 10);
			if (!comma[1] || *e || errno || comma[1] == '-' || v < 1 || v > 127) {
				cli_err("--call-graph: depth '%s' is not a number of frames from 1 to 127 (the "
					"kernel's perf_event_max_stack)",
					comma + 1);
				return -1;
			}
			o->max_stack = (uint32_t)v;
		}
		return 0;
	}
	if (len == 5 && strncmp(s, "dwarf", 5) == 0) {
		snprintf(o->call_graph, sizeof(o->call_graph), "dwarf");
		o->stack_size = 8192;
		if (comma) {
			errno = 0;
			v = strtoul(comma + 1, &e, 10);
			if (!comma[1] || *e || errno || comma[1] == '-' || v < 8 || v > 65528) {
				cli_err("--call-graph: stack size '%s' is not a number of bytes from 8 to 65528",
					comma + 1);
				return -1;
			}
			o->stack_size = (uint32_t)((v + 7) & ~7ul); /* the kernel takes multiples of 8 */
		}
		return 0;
	}
	cli_err("--call-graph: '%s' is not fp[,N] or dwarf[,SIZE]", s);
	return -1;
}

/* Splits buf at commas into at most three fields; returns how many, or -1 when there are more. */
static int split3(char *buf, char *f[3])
{
	char *p = buf;
	int n = 0;
	while (n < 3) {
		f[n++] = p;
		p = strchr(p, ',');
		if (!p)
			return n;
		*p++ = '\0';
	}
	return -1;
}

static int parse_cutoff(const char *s, struct mf_cutoff *c, const char *opt)
{
	char buf[128], *f[3] = {0};
	int n;
	snprintf(buf, sizeof(buf), "%s", s);
	n = split3(buf, f);
	if (n < 0) {
		cli_err("%s: '%s' has more than three fields", opt, s);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char *e;
		double v;
		if (!*f[i])
			continue;
		errno = 0;
		v = strtod(f[i], &e);
		if (*e || errno || v < 0 || (i < 2 && v > 100) || (i == 2 && v != (unsigned)v)) {
			cli_err("%s: '%s' is not a %s", opt, f[i],
				i == 2 ? "whole number of rows" : "percentage from 0 to 100");
			return -1;
		}
		if (i == 0)
			c->pct = v;
		else if (i == 1)
			c->cum = v;
		else
			c->min = (unsigned)v;
	}
	return 0;
}

/* -s RATE[,VARIATION[,EVENT]]: empty fields keep the lower layer; a later -s replaces what it gives. */
static int merge_spec(struct mopts *o, const char *s)
{
	char buf[200], *f[3] = {0};
	int n;
	snprintf(buf, sizeof(buf), "%s", s);
	n = split3(buf, f);
	if (n < 0) {
		cli_err("-s: '%s' has more than three fields (RATE,VARIATION,EVENT)", s);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char *t = f[i];
		while (*t == ' ')
			t++;
		for (char *e = t + strlen(t); e > t && e[-1] == ' ';)
			*--e = '\0';
		if (!*t)
			continue;
		if (i == 0)
			snprintf(o->rate, sizeof(o->rate), "%s", t);
		else if (i == 1)
			snprintf(o->var, sizeof(o->var), "%s", t);
		else
			snprintf(o->event, sizeof(o->event), "%s", t);
	}
	return 0;
}

/* "10000", "500us", "1ms", "2s" -> events or ns. */
static int parse_amount(const char *s, uint64_t *v, bool *is_time)
{
	char *e;
	double d;
	errno = 0;
	d = strtod(s, &e);
	if (e == s || errno || d < 0)
		return -1;
	*is_time = true;
	if (strcmp(e, "ns") == 0)
		;
	else if (strcmp(e, "us") == 0)
		d *= 1e3;
	else if (strcmp(e, "ms") == 0)
		d *= 1e6;
	else if (strcmp(e, "s") == 0)
		d *= 1e9;
	else if (*e == '\0') {
		*is_time = false;
		if (d != (double)(uint64_t)d)
			return -1;
	} else
		return -1;
	if (d > 1e18)
		return -1;
	*v = (uint64_t)d;
	return 0;
}

static int build_req(const struct mopts *o, const char *measurement, struct mf_mplan_req *req, char *requested,
		     size_t rn)
{
	const char *def_rate = strcmp(measurement, "itlb") == 0 ? "10000" : "1000000";
	const char *def_event = strcmp(measurement, "itlb") == 0 ? "itlb_miss" : "cycles";
	const char *var = o->var[0] ? o->var : "5%";
	const char *rate;
	char ev[80];
	char *colon;
	uint64_t r = 0;
	bool t = false;

	memset(req, 0, sizeof(*req));
	if (o->freq && (o->rate[0] || o->var[0])) {
		cli_err("-F %" PRIu64
			": a frequency replaces the rate and variation of -s (-s %s%s%s): give one of them",
			o->freq, o->rate, o->var[0] ? "," : "", o->var);
		return -1;
	}
	snprintf(req->measurement, sizeof(req->measurement), "%s", measurement);
	snprintf(ev, sizeof(ev), "%s", o->event[0] ? o->event : def_event);
	colon = strrchr(ev, ':');
	if (colon) {
		if (strcmp(colon, ":all") == 0)
			req->all = true;
		else if (strcmp(colon, ":user") != 0) {
			cli_err("-s: event '%s': the privilege suffix is :user or :all", ev);
			return -1;
		}
		*colon = '\0';
	}
	snprintf(req->event, sizeof(req->event), "%.63s", ev);
	/* No rate given: the sampled event's own default (rate 0), shown as such unless it is the default event. */
	rate = o->rate[0] ? o->rate : strcmp(req->event, def_event) == 0 ? def_rate : "default";
	if (o->rate[0]) {
		if (parse_amount(rate, &r, &t) || r < 1) {
			cli_err("-s: rate '%s' is not a whole number of events (>= 1) or a time such as 500us or 1ms",
				rate);
			return -1;
		}
		req->rate = r;
		req->rate_clock = t;
	}
	if (var[strlen(var) - 1] == '%') {
		char *e;
		double p = strtod(var, &e);
		if (e == var || *e != '%' || p < 0 || p >= 100) {
			cli_err("-s: variation '%s' is not a percentage below 100", var);
			return -1;
		}
		req->variation_pct = p;
		req->variation = (uint64_t)((double)r * p / 100.0);
	} else {
		uint64_t v;
		bool vt;
		if (parse_amount(var, &v, &vt)) {
			cli_err("-s: variation '%s' is not a whole number of events, a time such as 50us, or a "
				"percentage",
				var);
			return -1;
		}
		/* A bare number beside a time rate is in the rate's unit (nanoseconds); a time beside a count is not. */
		if (o->rate[0] && vt && !t) {
			cli_err("-s: variation '%s' is a time but the rate '%s' a count of events: give both alike",
				var, rate);
			return -1;
		}
		if (o->rate[0] && v >= r) {
			cli_err("-s: variation '%s' must be below the rate %s", var, rate);
			return -1;
		}
		req->variation = v;
		req->variation_clock = vt || t;
	}
	req->fallback_none = o->fallback_none;
	if (o->freq)
		snprintf(requested, rn, "-F %" PRIu64 ", none, %s:%s", o->freq, req->event, req->all ? "all" : "user");
	else
		snprintf(requested, rn, "%s, %s, %s:%s", rate, var, req->event, req->all ? "all" : "user");
	return 0;
}

/*
 * --csv DIR: no one else's link in a shared sticky directory on the way to DIR
 * (cli_target_walk; the tables themselves replace what is at their names).  0,
 * or -1 said, tail appended to the message.
 */
static int check_csv_dir(const char *dir, const char *tail)
{
	struct cli_target t;
	int err;
	if (!dir)
		return 0;
	if (cli_target_walk(dir, true, &t) == 0) {
		cli_target_free(&t);
		return 0;
	}
	err = errno;
	if (err != EPERM && err != ELOOP)
		return 0; /* a missing DIR is made; other errors are said when the tables are written */
	cli_target_say(dir, &t, err, tail);
	return -1;
}

/*
 * An output of -o or of --csv DIR (its tables replace, never follow, what is
 * at their names) that would overwrite file, a run file read or written
 * (follow: a link at file is followed, as for an input): said, as cmd's usage
 * error (exit 2), with what file is ("the input", "the run file"); -1 when
 * none does.
 */
static int output_overwrites(const char *cmd, const struct mopts *o, const char *file, const char *what, bool follow)
{
	const char *name;
	char path[4400];
	bool input = strcmp(what, "the input") == 0;
	size_t i;
	if (!file)
		return -1;
	if (o->out && cli_same_target(o->out, true, file, follow))
		return cli_usage("measure", "%s: -o %s names %s %s: refusing to overwrite %s", cmd, o->out, what, file,
				 input ? "an input" : "it");
	for (i = 0; o->csv_dir && (name = mf_mreport_csv_name(i)) != NULL; i++) {
		snprintf(path, sizeof(path), "%s/%s", o->csv_dir, name);
		if (cli_same_target(path, false, file, follow))
			return cli_usage("measure",
					 "%s: --csv %s writes %s, which names %s %s: refusing to overwrite %s", cmd,
					 o->csv_dir, path, what, file, input ? "an input" : "it");
	}
	return -1;
}

/* The name of a measure format (MF_MFMT_*), as -f takes it. */
static const char *format_name(int format)
{
	return format == MF_MFMT_CSV      ? "csv"
	       : format == MF_MFMT_JSON   ? "json"
	       : format == MF_MFMT_FOLDED ? "folded"
	       : format == MF_MFMT_HTML   ? "html"
					  : "text";
}

/*
 * The report: to -o FILE ("-": standard output); with no -o, a live run
 * (itlb, profile) writes it to standard error as perf stat does, so the
 * program's own standard output stays the program's, and `measure report`
 * writes it to standard output.
 */
static int write_reports(const struct mopts *o, const struct mf_mrun *run, bool live)
{
	struct mf_mreport_opts ro;
	struct cli_page page;
	struct mf_error e;
	FILE *fp;
	int rc;
	mf_error_clear(&e);
	if (check_csv_dir(o->csv_dir, ""))
		return EXIT_DATA;
	if (o->csv_dir && mf_mreport_csv_dir(o->csv_dir, run, &o->ro, &e) != 0) {
		cli_diag(&e, "error");
		return EXIT_DATA;
	}
	/*
	 * The run's warnings were said on standard error (cli_warn, not with -q): a report to standard
	 * output or error does not repeat them in its header; one written to -o FILE, or as JSON or
	 * HTML data, carries them (cli_report_carries_warnings, as report and stat do).
	 */
	ro = o->ro;
	ro.no_warnings =
		!cli_report_carries_warnings(live && !o->out ? cli_out_stderr : o->out, format_name(o->ro.format));
	if (live && !o->out) {
		if (mf_mreport_write(stderr, run, &ro, &e) != 0) {
			cli_diag(&e, "error");
			return EXIT_DATA;
		}
		return EXIT_OK;
	}
	/* measure report's text to a terminal: paged when longer than the screen (cli_term.h). */
	page.saved = page.held = -1;
	if (!live && o->ro.format == MF_MFMT_TEXT && (!o->out || strcmp(o->out, "-") == 0))
		cli_page_begin(&page, o->no_pager);
	fp = cli_open_out(o->out);
	if (!fp) {
		cli_page_end(&page, "measure report", NULL);
		return EXIT_DATA;
	}
	rc = mf_mreport_write(fp, run, &ro, &e);
	if (rc) {
		cli_diag(&e, "error");
		if (fp != stdout)
			fclose(fp);
		cli_page_end(&page, "measure report", NULL);
		return EXIT_DATA;
	}
	rc = cli_close_out(fp, o->out);
	cli_page_end(&page, "measure report", "--summary-cutoff, --detail-cutoff");
	return rc;
}

static int status_exit(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 0;
}

/*
 * .mfstat, where run files go by default: accepted only as a real directory
 * (not a symbolic link) owned by this user that no one else can write;
 * created 0700.  Returns an open descriptor of it; -1 when it is unsafe (why
 * says so: the run is refused); -2 when it cannot be made (why says so: the
 * run goes on unsaved, as before).
 */
static int mfstat_dir(char *why, size_t n)
{
	struct stat st;
	int dfd;
	if (mkdir(".mfstat", 0700) != 0 && errno != EEXIST) {
		snprintf(why, n, "cannot create .mfstat: %s", strerror(errno));
		return -2;
	}
	if ((dfd = open(".mfstat", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		int e = errno;
		if (lstat(".mfstat", &st) == 0 && S_ISLNK(st.st_mode)) {
			snprintf(why, n, ".mfstat is a symbolic link");
			return -1;
		}
		if (e == ENOTDIR) {
			snprintf(why, n, ".mfstat is not a directory");
			return -1;
		}
		snprintf(why, n, "cannot open .mfstat: %s", strerror(e));
		return -2;
	}
	if (fstat(dfd, &st) != 0) {
		snprintf(why, n, "cannot read .mfstat: %s", strerror(errno));
		close(dfd);
		return -2;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, n, ".mfstat belongs to uid %ld, not to you (uid %ld)", (long)st.st_uid, (long)geteuid());
		close(dfd);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, n, ".mfstat can be written by others (mode %04o; chmod go-w .mfstat)",
			 (unsigned)(st.st_mode & 07777));
		close(dfd);
		return -1;
	}
	return dfd;
}

/*
 * A new run file in .mfstat: itlb-20261123T101500Z-1234.mfdb, or with -2, -3...
 * when the name is taken.  Created with O_EXCL and O_NOFOLLOW, mode 0600 (it
 * holds the command line): nothing already there, a planted symbolic link
 * least of all, is ever opened.  Returns the descriptor (name, path set) or -1
 * with why set.
 */
static int new_run_file(int dfd, const char *measurement, char *name, size_t nn, char *path, size_t pn, char *why,
			size_t wn)
{
	time_t t = time(NULL);
	struct tm tm;
	char ts[32];
	int k, fd;
	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm);
	for (k = 1; k <= 100; k++) {
		char sfx[16] = "";
		if (k > 1)
			snprintf(sfx, sizeof(sfx), "-%d", k);
		snprintf(name, nn, "%s-%s-%ld%s.mfdb", measurement, ts, (long)getpid(), sfx);
		snprintf(path, pn, ".mfstat/%s", name);
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST) {
			snprintf(why, wn, "cannot create %s: %s", path, strerror(errno));
			return -1;
		}
	}
	snprintf(why, wn, "cannot create a run file in .mfstat: %s and 99 other names are taken", path);
	return -1;
}

/* .mfstat/latest-itlb -> name, replaced at once: a new link under a free name, renamed over the old. */
static void link_latest(int dfd, const char *measurement, const char *name)
{
	char tmp[128], link[64];
	int k;
	snprintf(link, sizeof(link), "latest-%s", measurement);
	for (k = 0; k < 100; k++) {
		snprintf(tmp, sizeof(tmp), ".latest-%s.%ld.%d", measurement, (long)getpid(), k);
		if (symlinkat(name, dfd, tmp) == 0)
			break;
		if (errno != EEXIST) {
			cli_warn("cannot link .mfstat/%s: %s", link, strerror(errno));
			return;
		}
	}
	if (k == 100) {
		cli_warn("cannot link .mfstat/%s: no free temporary name", link);
		return;
	}
	if (renameat(dfd, tmp, dfd, link) != 0) {
		cli_warn("cannot link .mfstat/%s: %s", link, strerror(errno));
		unlinkat(dfd, tmp, 0);
	}
}

/* Says every step down the ladder (never silent, §4) unless -q, and hardware rates that interrupt too often. */
static void say_plan(const struct mf_mplan *plan)
{
	size_t i;
	if (!cli_quiet && strcmp(plan->reason, "precise") != 0) {
		const char *line = plan->reason, *nl;
		do {
			nl = strchr(line, '\n');
			fprintf(stderr, "mfstat: %.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
			line = nl ? nl + 1 : NULL;
		} while (line);
	}
	for (i = 0; i < plan->nsampled; i++)
		if (plan->sampled[i].type != 1 /* software */ && plan->sampled[i].period < 1000 &&
		    !plan->sampled[i].clock)
			cli_warn("a hardware rate under 1000 (%" PRIu64
				 ") makes the kernel interrupt nearly every event",
				 plan->sampled[i].period);
}

/* What was measured, where and how: the run's header, before it runs. */
static void describe_run(struct mf_mrun *run, const struct mopts *o, const char *measurement, int argc, char **argv,
			 const struct mf_mprobe *probe, const struct mf_mplan *plan, const struct mf_mplan_req *req,
			 const char *requested)
{
	struct utsname u;
	snprintf(run->measurement, sizeof(run->measurement), "%s", measurement);
	mf_mrun_set_argv(run, argc, argv);
	if (uname(&u) == 0) {
		snprintf(run->host, sizeof(run->host), "%.63s", u.nodename);
		snprintf(run->kernel, sizeof(run->kernel), "%.127s", u.release);
	}
	snprintf(run->arch, sizeof(run->arch), "%s", probe->arch);
	snprintf(run->cpu_model, sizeof(run->cpu_model), "%s", probe->model);
	run->ncpus = probe->ncpus;
	run->vm = probe->vm;
	snprintf(run->spec_requested, sizeof(run->spec_requested), "%s", requested);
	snprintf(run->spec_used, sizeof(run->spec_used), "%s", plan->used_spec);
	snprintf(run->privilege, sizeof(run->privilege), "%s", plan->user_only ? "user" : "all");
	run->variation = plan->nsampled ? plan->variation : 0;
	run->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if (o->line_size) {
		run->line_size = o->line_size;
		snprintf(run->line_size_source, sizeof(run->line_size_source), "--line-size");
	} else {
		run->line_size = probe->line_size;
		snprintf(run->line_size_source, sizeof(run->line_size_source), "%s", probe->line_size_source);
	}
	run->rung = plan->rung;
	run->user_only_forced = plan->user_only && req->all;
	snprintf(run->mode, sizeof(run->mode), "%s", plan->reason);
	snprintf(run->attribution, sizeof(run->attribution), "%s", o->ro.attribute_line ? "line" : "ip");
}

/*
 * Where a run is saved: -d FILE, or a new file in .mfstat.  A new file (O_EXCL)
 * is created, in .mfstat or at -d FILE, and removed if the run fails; with
 * -d FILE --force the run is written to a new file beside FILE that takes its
 * place only when the run is saved (cli_replace_begin), so a failed run leaves
 * FILE as it was.
 */
struct runfile {
	int dfd;      /* .mfstat, or -d FILE's directory; -1 (-2 with why: .mfstat cannot be used) */
	int slot;     /* -d FILE --force: the replacement (cli_replace_*), else -1 */
	bool created; /* name in dfd is the new file of this run (dev, ino): removed if the run fails */
	bool latest;  /* in .mfstat: latest-MEASUREMENT links to it */
	dev_t dev;
	ino_t ino;
	struct mf_mfdb_writer *db;
	char path[4096], name[256], why[640];
};

/* What a file is, for messages: "a directory", "a FIFO"... */
static const char *file_kind(mode_t m)
{
	return S_ISDIR(m)    ? "a directory"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISLNK(m)  ? "a symbolic link"
			     : "a regular file";
}

/* The file execvp would run for prog (PATH searched when it has no slash): its stat; false if none. */
static bool find_program(const char *prog, struct stat *st)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[4200];
	if (strchr(prog, '/'))
		return stat(prog, st) == 0;
	if (!path)
		path = "/bin:/usr/bin";
	for (p = path;; p = end + 1) {
		size_t len;
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p);
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, p, len ? "/" : "", prog);
		if (stat(buf, st) == 0 && S_ISREG(st->st_mode) && access(buf, X_OK) == 0)
			return true;
		if (!*end)
			return false;
	}
}

/*
 * -d FILE before the program runs: a link on the way that is someone else's in
 * a shared sticky directory (exit 1); the program being run, even with --force;
 * an existing FILE, a symbolic link included, without --force; with --force
 * anything but a regular file or a symbolic link (exit 2).  -1 to go on.
 */
static int check_database(const struct mopts *o, const char *prog)
{
	struct cli_target t;
	struct stat ps, fs;
	int rc = -1;
	if (!o->db)
		return -1;
	if (cli_target_walk(o->db, false, &t) != 0) {
		int err = errno;
		if (err != EPERM && err != ELOOP)
			return -1; /* said when the run file is created: the run goes on unsaved, as before */
		cli_target_say(o->db, &t, err, "; nothing was run");
		return EXIT_DATA;
	}
	if (t.exists && find_program(prog, &ps) &&
	    ((t.st.st_dev == ps.st_dev && t.st.st_ino == ps.st_ino) ||
	     (fstatat(t.dirfd, t.name, &fs, 0) == 0 && fs.st_dev == ps.st_dev && fs.st_ino == ps.st_ino)))
		rc = cli_usage("measure",
			       "measure: -d %s is the program %s: refusing to overwrite it, even with --force (name "
			       "another run file); nothing was run",
			       o->db, prog);
	else if (t.exists && !o->force)
		rc = cli_usage("measure",
			       "measure: -d %s exists%s: refusing to replace it (give --force to replace it, or name a "
			       "new file); nothing was run",
			       o->db, S_ISLNK(t.st.st_mode) ? " (a symbolic link, which is never followed)" : "");
	else if (t.exists && !S_ISREG(t.st.st_mode) && !S_ISLNK(t.st.st_mode))
		rc = cli_usage("measure",
			       "measure: -d %s is %s: --force replaces only a regular file or a symbolic link; nothing "
			       "was run",
			       o->db, file_kind(t.st.st_mode));
	cli_target_free(&t);
	return rc;
}

/* Drops the run file of a run that failed: what was at -d FILE before stays as it was. */
static void discard_run_file(struct runfile *f)
{
	struct stat st;
	if (f->db)
		mf_mfdb_abandon(f->db);
	f->db = NULL;
	if (f->slot >= 0)
		cli_replace_abort(f->slot);
	f->slot = -1;
	/* Ours only: a file someone put there meanwhile stays. */
	if (f->created && fstatat(f->dfd, f->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == f->dev &&
	    st.st_ino == f->ino)
		unlinkat(f->dfd, f->name, 0);
	f->created = f->latest = false;
	f->path[0] = '\0';
}

/* -d FILE: a new file, or with --force the replacement of FILE.  The descriptor, or -1 with f->why set. */
static int open_database(struct runfile *f, const struct mopts *o)
{
	struct cli_target t;
	int fd, err;
	if (cli_target_walk(o->db, false, &t) != 0) {
		snprintf(f->why, sizeof(f->why), "cannot create %s: %s", o->db, strerror(errno));
		return -1;
	}
	if (o->force) {
		if ((f->slot = cli_replace_begin(&t, 0600, false, &fd)) < 0) {
			err = errno;
			snprintf(f->why, sizeof(f->why), "cannot create a file beside %s: %s", o->db, strerror(err));
			fd = -1;
		}
	} else if ((fd = openat(t.dirfd, t.name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		err = errno;
		snprintf(f->why, sizeof(f->why), "cannot create %s: %s", o->db,
			 err == EEXIST ? "it exists now (not replaced without --force)" : strerror(err));
	} else {
		struct stat st;
		fstat(fd, &st);
		f->dev = st.st_dev;
		f->ino = st.st_ino;
		f->created = true;
		f->dfd = t.dirfd;
		snprintf(f->name, sizeof(f->name), "%s", t.name);
		t.dirfd = -1;
	}
	cli_target_free(&t);
	return fd;
}

/* Creates the run file; when it cannot be, says why (the run goes on, not saved) and leaves path empty. */
static void open_run_file(struct runfile *f, const struct mopts *o, const char *measurement, struct mf_mrun *run)
{
	char *why = f->why;
	struct mf_error e;
	struct stat st;
	int fd = -1;
	mf_error_clear(&e);
	f->path[0] = '\0';
	if (o->db) {
		snprintf(f->path, sizeof(f->path), "%s", o->db);
		fd = open_database(f, o);
	} else if (f->dfd >= 0) {
		fd = new_run_file(f->dfd, measurement, f->name, sizeof(f->name), f->path, sizeof(f->path), why,
				  sizeof(f->why));
		if (fd >= 0 && fstat(fd, &st) == 0) {
			f->dev = st.st_dev;
			f->ino = st.st_ino;
			f->created = f->latest = true;
		}
	}
	if (fd >= 0 && mf_mfdb_create_fd(&f->db, fd, f->path, &e) != 0) {
		snprintf(why, sizeof(f->why), "%s", e.msg);
		discard_run_file(f);
	}
	if (f->db) {
		snprintf(run->database, sizeof(run->database), "%s", f->path);
	} else {
		snprintf(run->database, sizeof(run->database), "not saved (%s)", why);
		cli_warn("run file not saved: %s", why);
		f->path[0] = '\0';
	}
}

/* A run file that could not be saved after all: dropped, and said. */
static void not_saved(struct runfile *f, struct mf_mrun *run, const char *why)
{
	cli_warn("run file not saved: %s", why);
	snprintf(run->database, sizeof(run->database), "not saved (%s)", why);
	discard_run_file(f);
}

/* Saves the symbolized run to its file (the latest-MEASUREMENT link too), then reloads it when it was saved. */
static void save_run(struct runfile *f, const char *measurement, struct mf_mrun *run)
{
	struct mf_error e;
	mf_error_clear(&e);
	if (f->db) {
		if (mf_mfdb_put_run(f->db, run, &e) || mf_mfdb_put_symbols(f->db, run, &e)) {
			not_saved(f, run, e.msg);
		} else {
			int rc = mf_mfdb_close(f->db, &e);
			f->db = NULL;
			if (rc) {
				not_saved(f, run, e.msg);
			} else if (f->slot >= 0) {
				rc = cli_replace_commit(f->slot);
				f->slot = -1;
				if (rc) {
					char why[600];
					snprintf(why, sizeof(why),
						 "cannot put it in place of %.250s: %s (%.250s is as it was)", f->path,
						 strerror(errno), f->path);
					not_saved(f, run, why);
				}
			} else if (f->latest) {
				link_latest(f->dfd, measurement, f->name);
			}
		}
		f->created = false; /* saved: kept whatever comes */
	}
	/* Report from the saved file when there is one, so `measure report` gives the same bytes. */
	if (f->path[0] && strcmp(run->database, f->path) == 0) {
		struct mf_mrun saved;
		int st = run->wait_status;
		mf_mrun_init(&saved);
		if (mf_mfdb_load(f->path, &saved, &e) == 0) {
			mf_mrun_free(run);
			*run = saved;
			run->wait_status = st;
		} else {
			cli_diag(&e, "warning");
			mf_mrun_free(&saved);
		}
	}
}

/* The run's own warnings (from said on), then the report; the program's failure becomes mfstat's status. */
struct said {
	const struct mf_mrun *run;
	size_t said;
};

static void warn_one(void *ctx, const char *msg)
{
	const struct said *sd = ctx;
	size_t i;
	for (i = 0; i < sd->said && i < sd->run->nwarnings; i++)
		if (strcmp(sd->run->warnings[i], msg) == 0)
			return; /* said when it arose */
	cli_warn("%s", msg);
}

/*
 * The report's warnings (the text header's Warning: lines: samples lost, throttling, counts
 * multiplexed, the run's own, why it has no samples), said once on standard error (not with -q),
 * but the first said of the run's own warnings, said when they arose.  The report carries them
 * too only where write_reports says.
 */
static int say_warnings(const struct mopts *o, const struct mf_mrun *run, size_t said)
{
	struct said sd = {run, said};
	struct mf_error e;
	if (cli_quiet)
		return EXIT_OK;
	mf_error_clear(&e);
	if (mf_mreport_warnings(run, &o->ro, warn_one, &sd, &e) != 0) {
		cli_diag(&e, "error");
		return EXIT_DATA;
	}
	return EXIT_OK;
}

static int report_run(const struct mopts *o, const struct mf_mrun *run, size_t said, const char *prog)
{
	int ex;
	if ((ex = say_warnings(o, run, said)) != EXIT_OK)
		return ex;
	ex = write_reports(o, run, true);
	if (ex == EXIT_OK && status_exit(run->wait_status) != 0) {
		if (WIFSIGNALED(run->wait_status))
			fprintf(stderr, "mfstat: %s was killed by signal %d (%s)\n", prog, WTERMSIG(run->wait_status),
				strsignal(WTERMSIG(run->wait_status)));
		else
			fprintf(stderr, "mfstat: %s exited with status %d\n", prog, WEXITSTATUS(run->wait_status));
		ex = status_exit(run->wait_status);
	}
	return ex;
}

/*
 * The format: -f as given (a warning when -o's name says another), else what
 * -o's name ends in (.txt .csv .json .html), else text.
 */
static int out_format(const char *given, const char *out)
{
	const char *f = cli_out_format("measure", given, out, "text");
	return strcmp(f, "csv") == 0      ? MF_MFMT_CSV
	       : strcmp(f, "json") == 0   ? MF_MFMT_JSON
	       : strcmp(f, "folded") == 0 ? MF_MFMT_FOLDED
	       : strcmp(f, "html") == 0   ? MF_MFMT_HTML
					  : MF_MFMT_TEXT;
}

/*
 * -o FILE of itlb and profile, checked before the program runs (the report is
 * written after it, through a temporary file beside FILE): FILE is not a
 * directory, its directory exists and takes a new file (tried: root passes
 * every permission test but not a missing or read-only directory, or
 * /proc), or else FILE itself can be written in place.  A device or a FIFO
 * is left to cli_open_out.  0, or -1 with the reason said.
 */
static int check_output(const char *out)
{
	struct stat st;
	char dir[4096], probe[4200];
	const char *slash;
	int fd, err;

	if (!out || strcmp(out, "-") == 0)
		return 0;
	{
		/* No one else's link in a shared sticky directory on the way (cli_open_out refuses it). */
		struct cli_target t;
		if (cli_target_walk(out, true, &t) == 0)
			cli_target_free(&t);
		else if (errno == EPERM || errno == ELOOP) {
			cli_target_say(out, &t, errno, "; nothing was run");
			return -1;
		}
	}
	if (stat(out, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			cli_err("measure: -o %s is a directory, not a file for the report; nothing was run", out);
			return -1;
		}
		if (!S_ISREG(st.st_mode))
			return 0;
	}
	slash = strrchr(out, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == out)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - out), out);
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		err = errno;
		cli_err("measure: -o %s cannot be written: %s %s; nothing was run", out, dir,
			stat(dir, &st) == 0 ? "is not a directory"
			: err == ENOTDIR    ? "lies below something that is not a directory"
					    : "does not exist");
		return -1;
	}
	snprintf(probe, sizeof(probe), "%s/.mfstat-check-%ld.tmp", dir, (long)getpid());
	fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		close(fd);
		unlink(probe);
		return 0;
	}
	err = errno;
	/* A directory that takes no new file: an existing FILE is written in place (cli_open_out). */
	if (access(out, F_OK) == 0 && (fd = open(out, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)) >= 0) {
		close(fd);
		return 0;
	}
	cli_err("measure: -o %s cannot be written: no new file can be made in %s (%s); nothing was run", out, dir,
		strerror(err));
	return -1;
}

/* The kernel's limit of a file in /proc/sys/kernel (-1 when it cannot be read). */
static long long kernel_limit(const char *name)
{
	char path[128];
	long long v = -1;
	FILE *fp;
	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	if ((fp = fopen(path, "r")) != NULL) {
		if (fscanf(fp, "%lld", &v) != 1)
			v = -1;
		fclose(fp);
	}
	return v;
}

/* -g, --call-graph and -F into the plan; an exit status when they cannot be had, else -1. */
static int plan_chains(const struct mopts *o, const struct mf_mprobe *probe, struct mf_mplan *plan)
{
	long long lim;
	if (o->freq && (lim = kernel_limit("perf_event_max_sample_rate")) > 0 && o->freq > (uint64_t)lim)
		return cli_usage("measure",
				 "-F %" PRIu64
				 ": above the kernel's kernel.perf_event_max_sample_rate of %lld; "
				 "nothing was run",
				 o->freq, lim);
	if (o->max_stack && (lim = kernel_limit("perf_event_max_stack")) > 0 && o->max_stack > (uint64_t)lim)
		return cli_usage("measure",
				 "--call-graph fp,%u: deeper than the kernel's kernel.perf_event_max_stack of %lld "
				 "(perf_event_open would fail with EOVERFLOW); nothing was run",
				 o->max_stack, lim);
	plan->freq = o->freq;
	snprintf(plan->call_graph, sizeof(plan->call_graph), "%s", o->call_graph);
	plan->max_stack = o->max_stack;
	plan->stack_size = o->stack_size;
	if (strcmp(o->call_graph, "dwarf") == 0) {
		const struct mf_unwind_arch *arch = mf_unwind_arch_by_name(probe->arch);
		if (!arch) {
			cli_err("measure: --call-graph dwarf: no unwinder for %s (its registers are not known); -g "
				"(frame pointers) works everywhere",
				probe->arch);
			return cli_exit_for(MF_ENOTCOUNTED);
		}
		plan->regs_mask = arch->regs_mask;
	}
	return -1;
}

static int do_collect(struct mopts *o, const char *measurement, int argc, char **argv)
{
	struct mf_mprobe probe;
	struct mf_mplan_req req;
	struct mf_mplan plan;
	struct mf_mrun run;
	struct mf_error e;
	struct runfile f;
	char requested[160], evname[300];
	char *events = NULL;
	size_t evlen = 0, said;
	int rc, ex;

	mf_error_clear(&e);
	memset(&f, 0, sizeof(f));
	f.dfd = f.slot = -1;
	if (build_req(o, measurement, &req, requested, sizeof(requested)))
		return EXIT_USAGE;
	/* A report that cannot be written is found out now, not after the program ran. */
	if (check_output(o->out) || check_csv_dir(o->csv_dir, "; nothing was run"))
		return EXIT_DATA;
	/* -d FILE: no existing file unless --force, never the program; no report over it. */
	if ((ex = check_database(o, argv[0])) >= 0 ||
	    (ex = output_overwrites("measure", o, o->db, "the run file", false)) >= 0)
		return ex;
	/* An unsafe .mfstat is refused before anything runs. */
	if (!o->db && (f.dfd = mfstat_dir(f.why, sizeof(f.why))) == -1) {
		return cli_usage("measure",
				 "%s: refusing to save run files there, so nothing is run (fix it, or give -d FILE)",
				 f.why);
	}
	if (mf_measure_events_text(o->tables, &events, &evlen, evname, sizeof(evname), &e)) {
		cli_diag(&e, "error");
		return EXIT_DATA;
	}
	mf_mprobe_read(mf_perf_sys_real(), &probe);
	rc = mf_measure_plan(mf_perf_sys_real(), &probe, &req, events, evlen, evname, &plan, &e);
	free(events);
	if (rc) {
		cli_diag(&e, "error");
		return EXIT_DATA;
	}
	if (plan.code) {
		cli_err("%s", plan.error);
		return cli_exit_for(plan.code);
	}
	say_plan(&plan);
	if ((ex = plan_chains(o, &probe, &plan)) >= 0)
		return ex;

	mf_mrun_init(&run);
	/* A rate that could not be converted for the event sampled: said now, and in the report's header. */
	if (plan.rate_note[0]) {
		cli_warn("%s", plan.rate_note);
		mf_mrun_warn(&run, "%s", plan.rate_note);
	}
	said = run.nwarnings;
	describe_run(&run, o, measurement, argc, argv, &probe, &plan, &req, requested);
	if (plan.freq) {
		/* -F: the kernel sets each period (stored per sample); no variation is drawn. */
		const char *ev = strrchr(plan.used_spec, ',');
		snprintf(run.spec_used, sizeof(run.spec_used), "-F %" PRIu64 ", none,%s", plan.freq, ev ? ev + 1 : "");
		run.variation = 0;
	}
	open_run_file(&f, o, measurement, &run);

	/* dwarf: about 8 KiB a sample; 4 MiB rings hold about 500 between drains. */
	rc = mf_measure_collect(mf_perf_sys_real(), &plan, argv, &probe,
				strcmp(plan.call_graph, "dwarf") == 0 ? 1024 : 64, f.db, &run, &e);
	if (rc) {
		cli_err("%s", e.msg);
		discard_run_file(&f);
		if (f.dfd >= 0)
			close(f.dfd);
		mf_mrun_free(&run);
		/* Once the program can be run, any failure of the run is a measurement that could not be made. */
		return cli_exit_for(rc == MF_ENOEXEC ? rc : MF_ENOTCOUNTED);
	}
	if (mf_symbolize(&run, &e) != 0) {
		cli_diag(&e, "error");
		discard_run_file(&f);
		if (f.dfd >= 0)
			close(f.dfd);
		mf_mrun_free(&run);
		return EXIT_DATA;
	}
	save_run(&f, measurement, &run);
	if (f.dfd >= 0)
		close(f.dfd);
	/* -o .mfstat/latest-profile: now the run just saved, which the report must not replace. */
	if (f.path[0] && (ex = output_overwrites("measure", o, f.path, "the run file", false)) >= 0) {
		mf_mrun_free(&run);
		return ex;
	}
	ex = report_run(o, &run, said, argv[0]);
	mf_mrun_free(&run);
	return ex;
}

/*
 * measure report RUNFILE...: the runs summed.  A run given more than once (the
 * same file twice, a copy, latest-profile beside the file it points at) is
 * counted once, with a warning: runs are told apart by mf_mrun_identity.
 */
static int do_report(struct mopts *o, int argc, char **argv)
{
	struct mf_mrun run, one;
	struct mf_error e;
	bool mixed = false;
	char(*ids)[400] = NULL;
	int *first = NULL;
	int i, j, ex, nruns = 0, ndup = 0;
	if (argc < 1) {
		return cli_usage("measure", "measure report: no run file given (see mfstat measure --help)");
	}
	if (o->any_collect_option) {
		return cli_usage("measure",
				 "measure report: -s, -F, -g, --call-graph, -d, --force and --fallback only apply when "
				 "measuring");
	}
	/* -o or a --csv table naming a run file read (the same device and inode, through any link). */
	for (i = 0; i < argc; i++)
		if ((ex = output_overwrites("measure report", o, argv[i], "the input", true)) >= 0)
			return ex;
	if (!(ids = calloc((size_t)argc, sizeof(*ids))) || !(first = calloc((size_t)argc, sizeof(*first)))) {
		free(ids);
		cli_nomem("listing %d run files", argc);
		return EXIT_DATA;
	}
	mf_mrun_init(&run);
	ex = EXIT_OK;
	for (i = 0; i < argc && ex == EXIT_OK; i++) {
		mf_error_clear(&e);
		mf_mrun_init(&one);
		if (mf_mfdb_load(argv[i], &one, &e) != 0) {
			cli_diag(&e, "error");
			ex = EXIT_DATA;
		} else {
			mf_mrun_identity(&one, ids[nruns], sizeof(ids[nruns]));
			for (j = 0; j < nruns && strcmp(ids[j], ids[nruns]) != 0; j++)
				;
			if (j < nruns) {
				cli_warn(
					"%s (argument %d) holds the same run as %s (argument %d): counted once; the "
					"run: %s",
					argv[i], i + 1, argv[first[j]], first[j] + 1, ids[j]);
				ndup++;
			} else if (nruns == 0) {
				run = one;
				first[nruns++] = i;
				continue;
			} else if (strcmp(one.measurement, run.measurement) != 0) {
				cli_err("%s: a %s run cannot be merged with %s runs", argv[i], one.measurement,
					run.measurement);
				ex = EXIT_USAGE;
			} else {
				if (strcmp(one.attribution, run.attribution) != 0)
					mixed = true;
				if (mf_mrun_merge(&run, &one) != 0) {
					cli_nomem("merging the run file %s", argv[i]);
					ex = EXIT_DATA;
				}
				first[nruns++] = i;
			}
		}
		mf_mrun_free(&one);
	}
	free(ids);
	free(first);
	if (ex != EXIT_OK) {
		mf_mrun_free(&run);
		return ex;
	}
	if (nruns > 1)
		mf_mrun_warn(&run, "%d run files merged: counts, samples and times are sums%s", nruns,
			     ndup ? "; runs given more than once counted once" : "");
	/*
	 * Without --attribute, re-report with the rule the run's report was made with, so a re-report is the
	 * same report.  Run files made before ip became the default say "line" (Caliper's rule, which can give
	 * a function's time to its neighbour): say so, since their samples hold exact addresses and
	 * --attribute ip re-attributes them.  Runs made with different rules merge under the default, ip.
	 */
	if (!o->attribute_set) {
		o->ro.attribute_line = !mixed && strcmp(run.attribution, "line") == 0;
		if (mixed)
			cli_warn("the run files were reported with different --attribute rules: using ip, the default");
		else if (o->ro.attribute_line)
			cli_warn(
				"%s made with --attribute line, so reported with it (Caliper's rule, mfstat's default "
				"before ip): a cache line's samples go to the function owning its first byte, which "
				"can "
				"be a neighbour; --attribute ip gives each sample to its own function",
				nruns > 1 ? "the run files were" : "the run file was");
	}
	/* The saved runs' warnings: said once on standard error; the report carries them only where
	 * write_reports says (a file, JSON or HTML). */
	if ((ex = say_warnings(o, &run, 0)) != EXIT_OK) {
		mf_mrun_free(&run);
		return ex;
	}
	ex = write_reports(o, &run, false);
	mf_mrun_free(&run);
	return ex;
}

/*
 * measure diff BEFORE AFTER: the change from one run to the other (diff.h),
 * to -o FILE or standard output.
 */
static int do_diff(const struct mopts *o, int argc, char **argv)
{
	struct mf_mrun r[2];
	struct mf_mdiff_opts d;
	struct mf_error e;
	struct cli_page page;
	FILE *fp;
	int i, ex = EXIT_OK;

	if (argc != 2)
		return cli_usage("measure", "measure diff: give two run files, BEFORE and AFTER (%d given)", argc);
	if (o->any_collect_option)
		return cli_usage("measure", "measure diff: -s, -d, --force and --fallback only apply when measuring");
	if (o->csv_dir)
		return cli_usage("measure", "measure diff: --csv DIR only applies to reports (use -f csv)");
	if (o->ro.children)
		return cli_usage("measure", "measure diff: --children only applies to reports");
	if (o->negate && o->format != MF_MFMT_HTML)
		return cli_usage("measure", "measure diff: --negate only applies to -f html (BEFORE's widths)");
	for (i = 0; i < 2; i++)
		if ((ex = output_overwrites("measure diff", o, argv[i], "the input", true)) >= 0)
			return ex;
	ex = EXIT_OK;
	for (i = 0; i < 2; i++)
		mf_mrun_init(&r[i]);
	for (i = 0; i < 2 && ex == EXIT_OK; i++) {
		mf_error_clear(&e);
		if (mf_mfdb_load(argv[i], &r[i], &e) != 0) {
			cli_diag(&e, "error");
			ex = EXIT_DATA;
		}
	}
	if (ex == EXIT_OK && strcmp(r[0].measurement, r[1].measurement) != 0) {
		cli_err("measure diff: %s holds a run of measurement %s, %s one of %s: runs of different "
			"measurements cannot be compared",
			argv[0], r[0].measurement, argv[1], r[1].measurement);
		ex = EXIT_USAGE;
	}
	if (ex == EXIT_OK && o->format == MF_MFMT_HTML) {
		/* The differential flame graph (flame.h). */
		mf_error_clear(&e);
		if (!(fp = cli_open_out(o->out))) {
			ex = EXIT_DATA;
		} else if (mf_mdiff_html(fp, &r[0], &r[1], o->absolute, o->negate, &e) != 0) {
			cli_diag(&e, "error");
			if (fp != stdout)
				fclose(fp);
			ex = EXIT_DATA;
		} else {
			ex = cli_close_out(fp, o->out);
		}
	} else if (ex == EXIT_OK) {
		memset(&d, 0, sizeof(d));
		d.format = o->format;
		d.absolute = o->absolute;
		d.summary = o->ro.summary;
		d.before_name = argv[0];
		d.after_name = argv[1];
		mf_error_clear(&e);
		page.saved = page.held = -1;
		if (o->format == MF_MFMT_TEXT && (!o->out || strcmp(o->out, "-") == 0))
			cli_page_begin(&page, o->no_pager); /* to a terminal: paged when longer than the screen */
		if (!(fp = cli_open_out(o->out))) {
			ex = EXIT_DATA;
		} else if (mf_mdiff_write(fp, &r[0], &r[1], &d, &e) != 0) {
			cli_diag(&e, "error");
			if (fp != stdout)
				fclose(fp);
			ex = EXIT_DATA;
		} else {
			ex = cli_close_out(fp, o->out);
		}
		cli_page_end(&page, "measure diff", "--summary-cutoff");
	}
	for (i = 0; i < 2; i++)
		mf_mrun_free(&r[i]);
	return ex;
}

static int do_probe(const struct mopts *o)
{
	struct mf_mprobe p;
	struct mf_mplan plan;
	struct mf_mplan_req req;
	struct mf_error e;
	char *events = NULL, evname[300];
	size_t evlen;
	const char *ms[2] = {"itlb", "profile"};
	int k;
	mf_error_clear(&e);
	mf_mprobe_read(mf_perf_sys_real(), &p);
	if (mf_measure_events_text(o->tables, &events, &evlen, evname, sizeof(evname), &e)) {
		cli_diag(&e, "error");
		return EXIT_DATA;
	}
	if (o->format == MF_MFMT_JSON) {
		/* vendor, arch and the PMU names come from the system's files: escaped like any text. */
		printf("{\"schema\":1,\"paranoid\":%d,\"mlock_kb\":%ld,\"cap_perfmon\":%s,\"cap_sys_admin\":%s,"
		       "\"vendor\":",
		       p.paranoid, p.mlock_kb, p.cap_perfmon ? "true" : "false", p.cap_sys_admin ? "true" : "false");
		mf_escape_json_file(stdout, p.vendor);
		fputs(",\"arch\":", stdout);
		mf_escape_json_file(stdout, p.arch);
		printf(",\"vm\":%s,\"cpu_pmu\":%s,\"pmus\":",
		       p.vm == 1   ? "true"
		       : p.vm == 0 ? "false"
				   : "null",
		       p.cpu_pmu ? "true" : "false");
		mf_escape_json_file(stdout, p.pmus);
		printf(",\"line_size\":%u,\"ncpus\":%d,\"measurements\":{", p.line_size, p.ncpus);
	} else
		printf("perf_event_paranoid  %d\nperf_event_mlock_kb  %ld\nCAP_PERFMON          %s\nCAP_SYS_ADMIN      "
		       "  "
		       "%s\nCPU                  %s %s (%s)\nvirtual machine      %s\ncore PMU             %s\nPMUs    "
		       "    "
		       "         %s\nline size            %u (%s)\nonline CPUs          %d\n",
		       p.paranoid, p.mlock_kb, p.cap_perfmon ? "yes" : "no", p.cap_sys_admin ? "yes" : "no", p.vendor,
		       p.model, p.arch,
		       p.vm == 1   ? "yes"
		       : p.vm == 0 ? "no"
				   : "unknown",
		       p.cpu_pmu ? "yes" : "no", p.pmus, p.line_size, p.line_size_source, p.ncpus);
	for (k = 0; k < 2; k++) {
		struct mopts d;
		char requested[160];
		memset(&d, 0, sizeof(d));
		if (build_req(&d, ms[k], &req, requested, sizeof(requested)))
			break;
		mf_measure_plan(mf_perf_sys_real(), &p, &req, events, evlen, evname, &plan, &e);
		if (o->format == MF_MFMT_JSON) {
			printf("%s\"%s\":{\"rung\":%d,\"exit\":%d,\"reason\":", k ? "," : "", ms[k], plan.rung,
			       cli_exit_for(plan.code));
			mf_escape_json_file(stdout, plan.code ? plan.error : plan.reason);
			fputs(",\"used\":", stdout);
			mf_escape_json_file(stdout, plan.used_spec);
			putchar('}');
		} else {
			printf("%-20s rung %d: %s\n", ms[k], plan.rung, plan.code ? plan.error : plan.reason);
		}
	}
	if (o->format == MF_MFMT_JSON)
		printf("}}\n");
	free(events);
	return EXIT_OK;
}

int cmd_measure(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, 'f'},
		{"csv", required_argument, NULL, 1},
		{"database", required_argument, NULL, 'd'},
		{"sampling", required_argument, NULL, 's'},
		{"summary-cutoff", required_argument, NULL, 2},
		{"detail-cutoff", required_argument, NULL, 3},
		{"line-size", required_argument, NULL, 4},
		{"attribute", required_argument, NULL, 5},
		{"fallback", required_argument, NULL, 6},
		{"tables", required_argument, NULL, 7},
		{"force", no_argument, NULL, 8},
		{"call-graph", required_argument, NULL, 20},
		{"children", no_argument, NULL, 40},
		{"absolute", no_argument, NULL, 41},
		{"negate", no_argument, NULL, 42},
		{"no-pager", no_argument, NULL, 43},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct mopts o;
	const char *sub;
	int c;

	if (argc < 2) {
		measure_usage(stderr);
		return EXIT_USAGE;
	}
	sub = argv[1];
	if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
		measure_usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(sub, "itlb") && strcmp(sub, "profile") && strcmp(sub, "report") && strcmp(sub, "probe") &&
	    strcmp(sub, "diff")) {
		/* The message as before diff came (existing goldens); --help lists diff. */
		return cli_usage("measure", "measure: unknown measurement '%s' (itlb, profile, report or probe)", sub);
	}
	memset(&o, 0, sizeof(o));
	o.ro.summary = (struct mf_cutoff){1, 100, 5};
	o.ro.detail = (struct mf_cutoff){5, 90, 1};
	argc--;
	argv++;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:f:d:s:gF:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': o.out = optarg; break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "csv") && strcmp(optarg, "json") &&
			    strcmp(optarg, "folded") && strcmp(optarg, "html")) {
				return cli_usage("measure", "-f: unknown format '%s' (text, csv, json, folded or html)",
						 optarg);
			}
			o.format_given = optarg;
			break;
		case 1: o.csv_dir = optarg; break;
		case 'd':
			o.db = optarg;
			o.any_collect_option = true;
			break;
		case 's':
			if (merge_spec(&o, optarg))
				return EXIT_USAGE;
			o.any_collect_option = true;
			break;
		case 2:
			if (parse_cutoff(optarg, &o.ro.summary, "--summary-cutoff"))
				return EXIT_USAGE;
			break;
		case 3:
			if (parse_cutoff(optarg, &o.ro.detail, "--detail-cutoff"))
				return EXIT_USAGE;
			break;
		case 4:
			if (strcmp(optarg, "auto") == 0) {
				o.line_size = 0;
			} else {
				char *e;
				unsigned long v = strtoul(optarg, &e, 10);
				if (*e || v < 8 || v > 4096 || (v & (v - 1))) {
					return cli_usage("measure",
							 "--line-size: '%s' is not a power of two from 8 to 4096, or "
							 "auto",
							 optarg);
				}
				o.line_size = (uint32_t)v;
			}
			break;
		case 5:
			o.attribute_set = true;
			if (strcmp(optarg, "line") == 0)
				o.ro.attribute_line = true;
			else if (strcmp(optarg, "ip") == 0)
				o.ro.attribute_line = false;
			else {
				return cli_usage("measure", "--attribute: '%s' is not line or ip", optarg);
			}
			break;
		case 6:
			if (strcmp(optarg, "auto") == 0)
				o.fallback_none = false;
			else if (strcmp(optarg, "none") == 0)
				o.fallback_none = true;
			else {
				return cli_usage("measure", "--fallback: '%s' is not auto or none", optarg);
			}
			o.any_collect_option = true;
			break;
		case 7: o.tables = optarg; break;
		case 8:
			o.force = true;
			o.any_collect_option = true;
			break;
		case 'g':
			if (parse_call_graph(&o, "fp"))
				return EXIT_USAGE;
			o.any_collect_option = true;
			break;
		case 20:
			if (parse_call_graph(&o, optarg))
				return EXIT_USAGE;
			o.any_collect_option = true;
			break;
		case 'F': {
			char *e;
			unsigned long long v;
			errno = 0;
			v = strtoull(optarg, &e, 10);
			if (!*optarg || *e || errno || optarg[0] == '-' || v < 1 || v > 1000000000ULL) {
				return cli_usage("measure", "-F: '%s' is not a number of samples a second (>= 1)",
						 optarg);
			}
			o.freq = v;
			o.any_collect_option = true;
			break;
		}
		case 40: o.ro.children = true; break;
		case 41: o.absolute = true; break;
		case 42: o.negate = true; break;
		case 43: o.no_pager = true; break;
		case 'q': cli_quiet = true; break;
		case 'h': measure_usage(stdout); return EXIT_OK;
		case 'V': return cli_version();
		default: return cli_bad_option("measure", c, argv, opts);
		}
	}
	/* -o week.xlsx: a name no format has is refused before any overwrite check or run, never silently text. */
	if (cli_out_ext_check("measure", o.format_given, o.out, ".txt .csv .json .html .htm",
			      "text, csv, json, folded or html") >= 0)
		return EXIT_USAGE;
	o.format = out_format(o.format_given, o.out);
	o.ro.format = o.format;
	o.ro.line_size = o.line_size;
	if (strcmp(sub, "probe") == 0)
		return do_probe(&o);
	if (strcmp(sub, "diff") == 0)
		return do_diff(&o, argc - optind, argv + optind);
	if (o.absolute)
		return cli_usage("measure", "measure %s: --absolute only applies to measure diff", sub);
	if (strcmp(sub, "report") == 0)
		return do_report(&o, argc - optind, argv + optind);
	if (o.force && !o.db)
		return cli_usage("measure", "measure %s: --force replaces an existing -d FILE: give -d FILE too", sub);
	if (optind >= argc) {
		return cli_usage("measure",
				 "measure %s: no program given (mfstat measure %s [OPTIONS] -- PROGRAM [ARGS])", sub,
				 sub);
	}
	return do_collect(&o, sub, argc - optind, argv + optind);
}
