/* SPDX-License-Identifier: MIT */
/* mfstat diff: two periods, files or machines compared (options and printing; the work is mf_diff's). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_term.h"
#include "mfstat/report/diff.h"

static const char diff_help[] =
	"Usage: mfstat diff [OPTIONS] BEFORE AFTER\n"
	"       mfstat diff [OPTIONS] -- BEFORE-FILE... -- AFTER-FILE...\n"
	"       mfstat diff [OPTIONS] --before FROM/TO --after FROM/TO INPUT\n"
	"       mfstat diff [OPTIONS] --before FROM/TO --after FROM/TO --db FILE.db\n"
	"\n"
	"Compares two periods, two sets of files or two machines (a migration): the\n"
	"groups of each side are matched on their keys (not their machine family),\n"
	"and every metric is shown before, after, with its change and percent change,\n"
	"with the LSPR class before and after.  BEFORE, AFTER and INPUT are a file or\n"
	"a comma-separated list of files.  After --, each argument is one file, its\n"
	"name taken whole (it may hold a comma), and a second -- separates BEFORE's\n"
	"files from AFTER's (two files without it are BEFORE and AFTER; with --before\n"
	"and --after they are INPUT's).  Sides with no group in common are an error\n"
	"(exit status 1).\n"
	"\n"
	"Options:\n"
	"  --before FROM/TO   the period before, from INPUT (ISO 8601 times, UTC unless\n"
	"                     they give an offset, as mfstat report takes them; a date\n"
	"                     alone is midnight in --tz)\n"
	"  --after FROM/TO    the period after, from INPUT\n"
	"  --level LEVEL      with --db: auto, sample, hour, day or month (report)\n"
	"  --db FILE.db       with --before and --after: the two periods from a\n"
	"                     performance database (mfstat db import), not INPUT\n"
	"  --by LIST          match on any of system,lpar,pool,cpu (default\n"
	"                     system,pool; no time key: each side is one period)\n"
	"  --metrics LIST     the metrics to compare, in this order (any case;\n"
	"                     default: every metric the families report)\n"
	"  -f, --format FMT   text (default, or what -o's name ends in: .csv .json\n"
	"                     .html .txt), csv (one row per group and metric), json\n"
	"                     or html (one page, the findings first)\n"
	"  -o, --output FILE  write to FILE instead of standard output (never to an\n"
	"                     input; replaced only when complete)\n"
	"  --tz ZONE          time zone: UTC, +hh:mm, a name or smf (default: smf\n"
	"                     when every sample carries an offset, else UTC)\n"
	"  --system LIST      keep these systems on both sides\n"
	"  --pool LIST        keep these pools on both sides\n"
	"  --hours H1-H2      keep intervals starting in these hours (8-17)\n"
	"  --weekdays LIST    keep intervals starting on these days (Mon-Fri)\n"
	"  --machine F        family or machine type for rows whose data names none\n"
	"  --cpu-mhz N        CPU speed in MHz for rows whose data give none\n"
	"  --perf-tz ZONE     zone of perf stat's '# started on' line (as for report)\n"
	"  --tables DIR       knowledge-base files that replace or add to the built-in\n"
	"                     ones\n"
	"  --mem-peak GB/s    peak memory bandwidth, for DRAM_UTIL (intel_uncore)\n"
	"  -j, --jobs N       threads reading the inputs (as for report)\n"
	"  --skip-bad-rows    skip rows or records with bad data, counting them\n"
	"  --no-pager         a text comparison to a terminal longer than the screen\n"
	"                     is not paged through $PAGER (default less -FRX)\n"
	"  -q, --quiet        no warnings on standard error\n"
	"  -h, --help         this help\n"
	"  --version          the version and the knowledge base's revision\n"
	"\n"
	"Examples:\n"
	"  mfstat diff z15-week.smf z16-week.smf          # before and after a migration\n"
	"  mfstat diff --before 2025-04-07/2025-04-14 --after 2025-04-14/2025-04-21 \\\n"
	"      --by system w1.smf,w2.smf                    # two weeks of the same dumps\n"
	"  mfstat diff -o migration.html old.csv new.csv  # one page, findings first\n"
	"  mfstat diff -- 'q1,2024.csv' 'q2,2024.csv' -- q1-2025.csv  # names with commas\n";

struct diff_opts {
	const char *format, *out, *tables, *metrics, *before, *after, *db;
	const struct mf_kb *kb; /* for --db */
	struct cli_inputs in;
	struct cli_period period;
	bool skip, level_given;
	bool no_pager; /* --no-pager */
	int level;     /* --level: enum mf_db_level, -1 auto */
	unsigned by;
	unsigned jobs;
	double mem_peak;
	char **sides[2];    /* the files of each side, NULL-terminated */
	const char **names; /* --metrics as the knowledge base spells them */
	size_t nnames;
};

/* The pipeline's diagnostics of a side, their FAILED messages named "diff: before: " or "after". */
struct diag_state {
	struct cli_diag_state diag; /* first: the pipeline's ctx */
	const char *side;
};

/* A comma-separated list of files as an array (NULL-terminated; the strings point into one copy in [0]'s block). */
static char **split_files(const char *s)
{
	size_t n = 1, i = 0;
	const char *p;
	char *copy, **v, *tok, *save = NULL;
	for (p = s; *p; p++)
		n += *p == ',';
	copy = strdup(s);
	v = calloc(n + 2, sizeof(*v));
	if (!copy || !v) {
		free(copy);
		free(v);
		return NULL;
	}
	v[0] = copy; /* kept for free_files, even when the list is empty */
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		v[1 + i++] = tok;
	return v;
}

static void free_files(char **v)
{
	if (v)
		free(v[0]);
	free(v);
}

/* --by for diff: the keys without a time key or file.  -1 to go on, else the exit status. */
static int parse_by(const char *s, unsigned *by)
{
	size_t bad;
	int got = mf_by_parse(s, by, &bad);
	if (got == 0 && (*by & (MF_BY_TIME | MF_BY_FILE)) == 0)
		return -1;
	if (got == -1) {
		cli_err("diff: --by: '%s' is not one of system,lpar,pool,cpu", s + bad);
	} else {
		cli_err("diff: --by: '%s' has a time key or file: the groups of the two sides are matched on "
			"system, lpar, pool and cpu (each side is one period)",
			s);
	}
	return EXIT_USAGE;
}

/* argv[from..to) as a side's list, each name whole (NULL-terminated after the unused [0]). */
static char **whole_files(char **argv, int from, int to)
{
	char **v = calloc((size_t)(to - from) + 2, sizeof(*v));
	int i;
	if (!v)
		return NULL;
	v[0] = strdup(""); /* what free_files frees */
	if (!v[0]) {
		free(v);
		return NULL;
	}
	for (i = from; i < to; i++)
		v[1 + i - from] = argv[i];
	return v;
}

/*
 * The sides after `--`: every argument one file, whole (a name may hold a comma); a second `--`
 * separates BEFORE's files from AFTER's, else two arguments are BEFORE and AFTER.  With --before
 * and --after, all of them are INPUT's.  -1 to go on, else the exit status.
 */
static int take_whole(int argc, char **argv, struct diff_opts *o)
{
	int sep = -1, i, k;
	for (i = optind; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			if (sep >= 0 || o->before)
				return cli_usage("diff",
						 o->before ? "diff: with --before and --after, the files after -- "
							     "are INPUT's: no second --"
							   : "diff: more than two lists after -- (BEFORE -- AFTER)");
			sep = i;
		}
	if (o->before) {
		if (argc == optind)
			return cli_usage("diff", "diff: no INPUT file after --");
		o->sides[0] = whole_files(argv, optind, argc);
		o->sides[1] = whole_files(argv, optind, argc);
	} else if (sep >= 0) {
		if (sep == optind || sep == argc - 1)
			return cli_usage("diff", "diff: %s names no file (-- BEFORE... -- AFTER...)",
					 sep == optind ? "BEFORE" : "AFTER");
		o->sides[0] = whole_files(argv, optind, sep);
		o->sides[1] = whole_files(argv, sep + 1, argc);
	} else if (argc - optind == 2) {
		o->sides[0] = whole_files(argv, optind, optind + 1);
		o->sides[1] = whole_files(argv, optind + 1, argc);
	} else {
		return cli_usage("diff",
				 "diff: after --, give BEFORE and AFTER (one file each), or BEFORE's "
				 "files, --, AFTER's files");
	}
	for (k = 0; k < 2; k++)
		if (!o->sides[k]) {
			cli_nomem("keeping the file names of the diff");
			return EXIT_DATA;
		}
	return -1;
}

/*
 * Checks what follows the options; the sides into o->sides.  whole: the options ended with `--`.
 * -1 to go on, else the exit status.
 */
static int take_inputs(int argc, char **argv, struct diff_opts *o, bool whole)
{
	int need = o->before ? 1 : 2, k, dashes = 0, rc;
	size_t i;
	if ((o->before != NULL) != (o->after != NULL)) {
		return cli_usage("diff",
				 "diff: --before and --after go together (or give two inputs, BEFORE and AFTER)");
	}
	if (o->level_given && !o->db)
		return cli_usage("diff", "diff: --level is the level of a database read with --db");
	if (o->db) {
		if (!o->before)
			return cli_usage("diff",
					 "diff: --db %s needs --before FROM/TO and --after FROM/TO (the two "
					 "periods of the database to compare)",
					 o->db);
		if (argc > optind)
			return cli_usage("diff",
					 "diff: --db %s reads the database alone, not the input %s too (import it: "
					 "mfstat db import %s %s)",
					 o->db, argv[optind], o->db, argv[optind]);
		if (o->out && cli_same_file(o->out, o->db))
			return cli_usage("diff", "diff: -o %s names the database %s: refusing to overwrite an input",
					 o->out, o->db);
		return -1;
	}
	if (whole) {
		if ((rc = take_whole(argc, argv, o)) >= 0)
			return rc;
	} else if (argc - optind != need) {
		return cli_usage(
			"diff",
			need == 1 ? "diff: with --before and --after give one input (a file or a comma-separated list)"
				  : "diff: give two inputs, BEFORE and AFTER (each a file or a comma-separated list), "
				    "or one with --before FROM/TO --after FROM/TO");
	}
	for (k = 0; k < 2; k++) {
		const char *arg = whole ? NULL : argv[optind + (need == 2 ? k : 0)];
		if (!whole)
			o->sides[k] = split_files(arg);
		if (!o->sides[k]) {
			cli_nomem("splitting the file list of %s", k ? "AFTER" : "BEFORE");
			return EXIT_DATA;
		}
		if (!o->sides[k][1]) {
			return cli_usage("diff", "diff: %s names no file", k ? "AFTER" : "BEFORE");
		}
		for (i = 1; o->sides[k][i]; i++) {
			dashes += strcmp(o->sides[k][i], "-") == 0;
			/* A name with a comma taken for a list: say how to give it whole. */
			if (arg && strchr(arg, ',') && access(o->sides[k][i], F_OK) != 0 && access(arg, F_OK) == 0)
				return cli_usage("diff",
						 "diff: %s '%s' is read as a comma-separated list, and '%s' does not "
						 "exist; to give the file '%s', put the files after --: mfstat diff "
						 "[OPTIONS] -- BEFORE... -- AFTER...",
						 need == 1 ? "INPUT"
						 : k       ? "AFTER"
							   : "BEFORE",
						 arg, o->sides[k][i], arg);
			if (o->out && cli_same_file(o->out, o->sides[k][i])) {
				return cli_usage("diff",
						 "diff: -o %s names the input %s: refusing to overwrite an input",
						 o->out, o->sides[k][i]);
			}
		}
	}
	if (dashes > 1) {
		return cli_usage("diff", "diff: standard input (-) can be read only once");
	}
	return -1;
}

/* Parses diff's options into o: -1 to go on, else the exit status. */
static int parse_opts(int argc, char **argv, struct diff_opts *o)
{
	static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
					     {"output", required_argument, NULL, 'o'},
					     CLI_INPUT_OPTIONS,
					     {"by", required_argument, NULL, 'b'},
					     {"skip-bad-rows", no_argument, NULL, 's'},
					     {"skip-bad-records", no_argument, NULL, 's'},
					     {"tables", required_argument, NULL, 'T'},
					     {"quiet", no_argument, NULL, 'q'},
					     {"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {"mem-peak", required_argument, NULL, 'M'},
					     CLI_ZONE_SELECT_OPTIONS,
					     {"metrics", required_argument, NULL, 265},
					     {"before", required_argument, NULL, 266},
					     {"after", required_argument, NULL, 267},
					     {"db", required_argument, NULL, 268},
					     {"level", required_argument, NULL, 269},
					     {"jobs", required_argument, NULL, 'j'},
					     {"no-pager", no_argument, NULL, 270},
					     {NULL, 0, NULL, 0}};
	const char *last_arg = NULL;
	int c;

	memset(o, 0, sizeof(*o));
	o->format = NULL;
	o->mem_peak = NAN;
	o->by = MF_BY_SYSTEM | MF_BY_POOL;
	o->level = -1;
	o->jobs = cli_jobs_default();
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:j:qh", opts, NULL)) != -1) {
		last_arg = optarg;
		if (cli_period_option(c, optarg, &o->period) || cli_inputs_option(c, optarg, &o->in))
			continue;
		switch (c) {
		case 'f': o->format = optarg; break;
		case 'o': o->out = optarg; break;
		case 'b':
			if (parse_by(optarg, &o->by) >= 0)
				return EXIT_USAGE;
			break;
		case 's': o->skip = true; break;
		case 'T': o->tables = optarg; break;
		case 'q': cli_quiet = true; break;
		case 265: o->metrics = optarg; break;
		case 270: o->no_pager = true; break;
		case 266: o->before = optarg; break;
		case 267: o->after = optarg; break;
		case 268: o->db = optarg; break;
		case 269:
			if (!cli_db_level("diff", optarg, &o->level))
				return EXIT_USAGE;
			o->level_given = true;
			break;
		case 'j':
			if (!cli_jobs("diff", optarg, &o->jobs))
				return EXIT_USAGE;
			break;
		case 'M':
			if (!cli_mem_peak("diff", optarg, &o->mem_peak))
				return EXIT_USAGE;
			break;
		case 'h': fputs(diff_help, stdout); return EXIT_OK;
		case 'V': return cli_version();
		default: return cli_bad_option("diff", c, argv, opts);
		}
	}
	o->format = cli_out_format("diff", o->format, o->out, "text");
	if (!mf_diff_writer(o->format)) {
		return cli_usage("diff", "diff: -f must be text, csv, json or html, not '%s'", o->format);
	}
	/* `--` ended the options (getopt put it just before the arguments), unless it was -o's file. */
	return take_inputs(argc, argv, o,
			   optind > 1 && strcmp(argv[optind - 1], "--") == 0 && argv[optind - 1] != last_arg);
}

/*
 * The selection of one side: the common one, with --before or --after's range
 * for side k when given.  -1 to go on, else the exit status.
 */
static int side_select(const struct diff_opts *o, int k, const struct mf_tz *tz, struct mf_select *sel)
{
	const char *range = k ? o->after : o->before;
	if (!range)
		return -1;
	if (mf_diff_parse_range(range, tz, &sel->from_us, &sel->to_us)) {
		return cli_usage("diff",
				 "diff: --%s: '%s' is not a range FROM/TO such as 2025-04-07/2025-04-10 or "
				 "2025-04-07T08:00:00Z/2025-04-07T17:00:00Z (TO after FROM)",
				 k ? "after" : "before", range);
	}
	sel->has_from = sel->has_to = true;
	{
		const char *slash = strchr(range, '/');
		char from[64];
		snprintf(from, sizeof(from), "%.*s", (int)(slash - range), range);
		sel->from_local = mf_select_time_local(from, tz);
		sel->to_local = mf_select_time_local(slash + 1, tz);
	}
	return -1;
}

/* Runs the pipeline of side k over its files into *rep.  Returns 0, else the exit status (said). */
static int run_side(const struct diff_opts *o, int k, const struct mf_pipeline_opts *base, const struct mf_select *sel,
		    struct mf_pipeline **pl, struct mf_report *rep, struct diag_state *st)
{
	struct mf_pipeline_opts po = *base;
	char text[1024];
	size_t i, n;
	int got;

	st->side = k ? "after" : "before";
	st->diag.prefix = k ? "diff: after: " : "diff: before: ";
	po.ctx = &st->diag;
	po.select = mf_select_active(sel) ? sel : NULL;
	if (o->db) {
		got = cli_read_db(&po, o->kb, o->db, o->level, pl, rep);
	} else {
		for (n = 0; o->sides[k][n + 1]; n++)
			;
		got = cli_read(&po, (const char *const *)o->sides[k] + 1, n, st->side, pl, rep);
	}
	if (got >= 0)
		return got;
	mf_report_left_out_text(rep, text, sizeof(text));
	if (rep->ngroups == 0) {
		cli_err("diff: nothing to compare %s%s%s", k ? "after" : "before", text[0] ? ": " : " (no data)", text);
		return EXIT_DATA;
	}
	for (i = 0; i < rep->nwarnings; i++)
		cli_warn("%s: %s", st->side, rep->warnings[i]);
	return 0;
}

/* "system and pool": the keys groups are matched on, in words. */
static void by_words(unsigned by, char *buf, size_t n)
{
	static const struct {
		unsigned bit;
		const char *name;
	} keys[] = {{MF_BY_SYSTEM, "system"}, {MF_BY_LPAR, "LPAR"}, {MF_BY_POOL, "pool"}, {MF_BY_CPU, "CPU"}};
	size_t k, left = 0, used = 0;
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		left += (by & keys[k].bit) != 0;
	buf[0] = '\0';
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		if (!(by & keys[k].bit))
			continue;
		mf_buf_appendf(buf, n, &used, "%s%s", used ? (left == 1 ? " and " : ", ") : "", keys[k].name);
		left--;
	}
	if (!used)
		snprintf(buf, n, "nothing (all data)");
}

/* "SYSA / GCP (z15), SYSA / ZIIP (z15)": the keys of one side's groups, the first few. */
static void side_keys(const struct mf_diff *d, const struct mf_diff_group *gs, size_t n, char *buf, size_t len)
{
	enum { SHOWN = 6 };
	size_t i, used = 0;
	buf[0] = '\0';
	for (i = 0; i < n && i < SHOWN; i++) {
		const struct mf_result *r = gs[i].before ? gs[i].before : gs[i].after;
		char name[200];
		mf_diff_group_name(d, &gs[i], name, sizeof(name));
		mf_buf_appendf(buf, len, &used, "%s%s (%s)", i ? ", " : "", name, r->group->family->display);
	}
	if (n > SHOWN)
		mf_buf_appendf(buf, len, &used, " and %zu more", n - SHOWN);
}

/* Both sides read, compared and written.  Returns the exit status. */
static int compare(const struct diff_opts *o, const struct mf_pipeline_opts *base, const struct mf_select *sel)
{
	struct mf_pipeline *pl[2] = {NULL, NULL};
	struct mf_report rep[2];
	struct diag_state st[2];
	struct mf_select side[2];
	struct mf_diff *d = NULL;
	struct mf_error e;
	int k, rc = EXIT_OK, got;
	struct cli_page page;
	FILE *fp;

	memset(st, 0, sizeof(st));
	for (k = 0; k < 2 && rc == EXIT_OK; k++) {
		side[k] = *sel;
		rc = side_select(o, k, sel->tz, &side[k]);
		rc = rc >= 0 ? rc : run_side(o, k, base, &side[k], &pl[k], &rep[k], &st[k]);
	}
	if (rc != EXIT_OK)
		goto out;
	if (o->names) {
		/* Names of the knowledge base, but perhaps of no family of either side: say so, never a silent gap. */
		const struct mf_report *both[2] = {&rep[0], &rep[1]};
		got = cli_metrics_read("diff", "--metrics", base->kb, o->names, o->nnames, both, 2);
		if (got >= 0) {
			rc = got;
			goto out;
		}
	}
	got = mf_diff_new(&rep[0], &rep[1], o->metrics, &d, &e);
	if (got) {
		cli_err("diff: %s", e.msg);
		rc = cli_exit_for(got);
		goto out;
	}
	if (d->ngroups == 0) {
		/* Nothing matched: not "nothing moved", but nothing compared. */
		char keys[64], b[1600], a[1600];
		by_words(d->by, keys, sizeof(keys));
		side_keys(d, d->only_before, d->nonly_before, b, sizeof(b));
		side_keys(d, d->only_after, d->nonly_after, a, sizeof(a));
		cli_err("diff: no group matches between the sides (matched on %s): before has %s; after has %s", keys,
			b, a);
		fputs("mfstat: (--by chooses the keys: --by pool matches the pools of systems named otherwise)\n",
		      stderr);
		rc = EXIT_DATA;
		goto out;
	}
	/* Text to a terminal: paged when longer than the screen (cli_term.h), as report's. */
	page.saved = page.held = -1;
	if (strcmp(o->format, "text") == 0 && (!o->out || strcmp(o->out, "-") == 0))
		cli_page_begin(&page, o->no_pager);
	fp = cli_open_out(o->out);
	if (!fp) {
		cli_page_end(&page, "diff", NULL);
		rc = EXIT_DATA;
		goto out;
	}
	got = mf_diff_writer(o->format)(fp, d);
	if (got == MF_ENOMEM)
		cli_nomem("writing the %s comparison", o->format);
	rc = cli_close_out(fp, o->out);
	cli_page_end(&page, "diff", "--metrics LIST");
	if (got && !rc)
		rc = EXIT_DATA;
out:
	mf_diff_free(d);
	cli_pipeline_done(pl[0]);
	cli_pipeline_done(pl[1]);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o;
	struct mf_pipeline_opts po;
	struct mf_kb *kb = NULL;
	struct mf_tz *tz = NULL;
	struct mf_select sel;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		goto out;
	rc = cli_pipeline_begin("diff", &o.period, o.tables, NULL, &tz, &sel, &kb, &po);
	if (rc >= 0)
		goto out;
	if (o.metrics) {
		/* Before reading: a name of no family is a usage error, with the nearest names. */
		rc = cli_metric_names("diff", "--metrics", kb, o.metrics, true, &o.names, &o.nnames);
		if (rc >= 0)
			goto out;
	}
	po.by = o.by;
	po.skip_bad = o.skip;
	po.jobs = o.jobs;
	po.metrics.mem_peak_gbs = o.mem_peak;
	rc = cli_inputs_setup("diff", kb, &o.in, &po);
	o.kb = kb;
	if (rc < 0)
		rc = compare(&o, &po, &sel);
out:
	free_files(o.sides[0]);
	free_files(o.sides[1]);
	free(o.names);
	cli_inputs_free(&o.in);
	mf_kb_free(kb);
	mf_tz_free(tz);
	return rc;
}
