/* SPDX-License-Identifier: MIT */
/* mfstat report: read counter files, group, compute, write. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_term.h"

/* A bound on memory (1-2 KiB a group) that no real study reaches: a year of 15-minute
 * intervals of 50 CPUs is 1.75 million groups with --by interval,cpu. */
#define MAX_GROUPS_DEFAULT 2000000ULL

static const char report_help[] =
	"Usage: mfstat report [OPTIONS] FILE...\n"
	"       mfstat report [OPTIONS] --db FILE.db\n"
	"\n"
	"Computes the CPU-MF metrics (CPI, L1MP, sourcing, RNI, LPARCPU, TLB, AIU)\n"
	"and the LSPR workload class from counter deltas.  FILE - is standard input\n"
	"(also with no FILE, when standard input is not a terminal).\n"
	"\n"
	"Options:\n"
	"  --db FILE.db       read a performance database (mfstat db import) instead\n"
	"                     of input files: its samples, or the roll-ups once the\n"
	"                     samples of the period were pruned\n"
	"  --level LEVEL      with --db: auto (default: the samples when they hold\n"
	"                     the period, else the coarsest roll-up that answers),\n"
	"                     sample, hour, day or month\n"
	"  --input FORMAT     input format: csv, smf, perf (perf stat output) or\n"
	"                     lshwc (CSV or JSON); default: detected from the\n"
	"                     content; gzip and zstd files are read as well\n"
	"  -f, --format FMT   output format: text (default, or what -o's name ends in:\n"
	"                     .csv .json .html .txt .prom; another extension is an\n"
	"                     error), csv, json, html (one\n"
	"                     self-contained page with charts and findings), prom\n"
	"                     (Prometheus text exposition 0.0.4) or openmetrics\n"
	"                     (OpenMetrics 1.0.0, ends in # EOF): see --derived\n"
	"  -o, --output FILE  write the report to FILE instead of standard output\n"
	"                     (never to one of the inputs; FILE is replaced only\n"
	"                     when the report is complete)\n"
	"  --machine F        family (z10 z196 zEC12 z13 z14 z15 z16 z17) or machine\n"
	"                     type (e.g. 3931) for rows whose data names none; a\n"
	"                     type gives its nominal speed to rows without one\n"
	"  --cpu-mhz N        CPU speed in MHz (cpu_speed= in /proc/service_levels)\n"
	"                     for rows whose data give none (perf stat, lshwc)\n"
	"  --perf-tz ZONE     zone of the machine that ran perf stat, in which its\n"
	"                     '# started on' line is read (UTC, +hh:mm or a name);\n"
	"                     default: this machine's ($TZ, else /etc/localtime)\n"
	"  --by LIST          group by any of system,lpar,pool,cpu,file, where the\n"
	"                     engines ran (SMF type 70 and 99.14: polarity,\n"
	"                     lpar_weight, drawer, chip) and one time\n"
	"                     key: interval, hour, day, week (ISO, Monday first),\n"
	"                     month, hour-of-day (0-23 across days) or weekday\n"
	"                     (default system,lpar,pool,interval; \"\" = one group\n"
	"                     per machine family); calendar keys are cut in --tz\n";

/* The rest of the help (C17 promises string literals of 4095 characters, no more). */
static const char report_help_more[] =
	"  --derived          with -f prom or openmetrics: the metrics too, as gauges\n"
	"                     (percent as ratios 0-1), and mfstat_lspr_info{class};\n"
	"                     without it only the groups' summed counters, as\n"
	"                     mfstat_cpumf_<name>_total counters labelled family,\n"
	"                     set and the --by keys (default system,lpar,pool: a time\n"
	"                     key is refused, as Prometheus counters never restart)\n"
	"  --tz ZONE          UTC, +hh:mm, a name such as Europe/Berlin, local (this\n"
	"                     machine's: $TZ, else /etc/localtime), or smf (each\n"
	"                     record's own offset, z/OS's local time: the default\n"
	"                     when every sample has one, else UTC)\n"
	"  --from TIME        keep intervals starting at or after TIME (ISO 8601, UTC\n"
	"                     unless it gives an offset; a date alone is midnight in\n"
	"                     --tz)\n"
	"  --to TIME          keep intervals starting before TIME\n"
	"  --system LIST      keep these systems (comma-separated)\n"
	"  --pool LIST        keep these pools (GCP, ZIIP, ZAAP, ZCBP, IFL, ICF)\n"
	"  --hours H1-H2      keep intervals starting from H1:00 to before H2:00 in\n"
	"                     --tz (8-17: the prime shift; 22-6 wraps midnight)\n"
	"  --weekdays LIST    keep intervals starting on these days (Mon-Fri)\n"
	"  --sort METRIC      within each series (the groups that share every --by key\n"
	"                     but the time key) the groups by METRIC, highest first\n"
	"  --top N            with --sort: the first N groups of each series\n"
	"  --metrics LIST     these metric columns, in this order (any case; LSPR for\n"
	"                     the class); text: one table\n"
	"  --html-intervals W the interval tables of -f html: peaks (default: the\n"
	"                     busiest intervals of each series by LPARCPU), none or\n"
	"                     all\n"
	"  --skip-bad-rows    skip rows (CSV) or records (SMF) with bad data,\n"
	"                     counting them by reason; also --skip-bad-records\n"
	"  --tables DIR       knowledge-base files that replace or add to the built-in\n"
	"                     ones (a new family: see README)\n"
	"  --mem-peak GB/s    peak memory bandwidth, for DRAM_UTIL (intel_uncore)\n"
	"  -j, --jobs N       threads (default: the online CPUs; 1: one) for a large\n"
	"                     plain CSV file read in parts, several SMF dumps read at\n"
	"                     once, decompressing gzip and zstd, sorting and the\n"
	"                     metrics and CSV rows of many groups; the report is\n"
	"                     the same, byte for byte\n"
	"  --max-groups N     stop with an error beyond N groups (default 2000000,\n"
	"                     about 1-2 KiB of memory each; 0: no limit)\n"
	"  --no-pager         a text report to a terminal longer than the screen is\n"
	"                     not paged through $PAGER (default less -FRX): a line\n"
	"                     on standard error says how to see all its rows\n"
	"  -q, --quiet        no warnings and no progress line on standard error\n"
	"                     (errors still); a warning is said there once, and is in\n"
	"                     the report too only with -o FILE (the text footer), in\n"
	"                     JSON and in HTML\n"
	"  -v, --verbose      say why metrics are not available\n"
	"  -h, --help         this help\n"
	"  --version          the version and the knowledge base's revision\n"
	"\n"
	"Examples:\n"
	"  mfstat report --by system,pool dump.smf       # a dump per system and pool\n"
	"  mfstat report --by system,lpar,pool,polarity -o week.html *.smf.gz\n"
	"  mfstat report --by system,day --hours 8-17 --weekdays Mon-Fri \\\n"
	"      --tz Europe/Berlin --metrics LPARCPU,RNI,LSPR week.smf\n";

/* The command line of report. */
struct report_opts {
	const char *input, *format, *out, *tables, *db;
	int level; /* --level: enum mf_db_level, -1 auto */
	struct cli_inputs in;
	struct cli_period period;
	const char *sort, *metrics;
	unsigned long long top;
	bool skip, verbose, level_given;
	unsigned by;
	bool by_given; /* --by was given (not the default) */
	bool derived;  /* --derived: -f prom's metrics as gauges */
	bool no_pager; /* --no-pager */
	double mem_peak;
	unsigned long long max_groups;
	unsigned jobs;
	enum mf_html_rows html_rows;
	const char *const *files; /* the inputs: the operands, or "-" for a standard input not a terminal */
	size_t nfiles;
};

/* --html-intervals: 0, or -1 with the error said. */
static int parse_html_rows(const char *s, enum mf_html_rows *rows)
{
	static const char *const names[] = {"peaks", "none", "all"}; /* in enum mf_html_rows order */
	size_t i;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*rows = (enum mf_html_rows)i;
			return 0;
		}
	cli_err("report: --html-intervals must be none, peaks or all, not '%s'", s);
	return -1;
}

/* The --by key nearest to word[0..len) (a typing slip such as "systme"), or NULL. */
static const char *by_nearest(const char *word, size_t len)
{
	const char *names[32];
	size_t n = 0;
	unsigned bit;
	for (bit = 1; bit; bit <<= 1)
		if (mf_by_name(bit) && n < sizeof(names) / sizeof(names[0]))
			names[n++] = mf_by_name(bit);
	return len ? cli_nearest(word, len, names, n) : NULL;
}

/* Parses report's options into o: -1 to go on, else the exit status (help printed, or a usage error said). */
static int parse_opts(int argc, char **argv, struct report_opts *o)
{
	static const struct option opts[] = {{"input", required_argument, NULL, 'I'},
					     {"format", required_argument, NULL, 'f'},
					     {"output", required_argument, NULL, 'o'},
					     CLI_INPUT_OPTIONS,
					     {"by", required_argument, NULL, 'b'},
					     {"skip-bad-rows", no_argument, NULL, 's'},
					     {"skip-bad-records", no_argument, NULL, 's'},
					     {"tables", required_argument, NULL, 'T'},
					     {"quiet", no_argument, NULL, 'q'},
					     {"verbose", no_argument, NULL, 'v'},
					     {"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {"mem-peak", required_argument, NULL, 'M'},
					     {"max-groups", required_argument, NULL, 'G'},
					     {"jobs", required_argument, NULL, 'j'},
					     CLI_ZONE_SELECT_OPTIONS,
					     CLI_RANGE_OPTIONS,
					     {"sort", required_argument, NULL, 263},
					     {"top", required_argument, NULL, 264},
					     {"metrics", required_argument, NULL, 265},
					     {"html-intervals", required_argument, NULL, 266},
					     {"db", required_argument, NULL, 267},
					     {"level", required_argument, NULL, 268},
					     {"derived", no_argument, NULL, 269},
					     {"no-pager", no_argument, NULL, 270},
					     {NULL, 0, NULL, 0}};
	const char *by_s = NULL, *fmt_given;
	size_t i;
	int c;

	memset(o, 0, sizeof(*o));
	o->format = NULL;
	o->mem_peak = NAN;
	o->max_groups = MAX_GROUPS_DEFAULT;
	o->jobs = cli_jobs_default();
	o->by = MF_BY_DEFAULT;
	o->level = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:j:qvh", opts, NULL)) != -1) {
		if (cli_period_option(c, optarg, &o->period) || cli_inputs_option(c, optarg, &o->in))
			continue;
		switch (c) {
		case 'I': o->input = optarg; break;
		case 'f': o->format = optarg; break;
		case 'o': o->out = optarg; break;
		case 'b': by_s = optarg; break;
		case 's': o->skip = true; break;
		case 'T': o->tables = optarg; break;
		case 'q': cli_quiet = true; break;
		case 'v': o->verbose = true; break;
		case 263: o->sort = optarg; break;
		case 265: o->metrics = optarg; break;
		case 267: o->db = optarg; break;
		case 269: o->derived = true; break;
		case 270: o->no_pager = true; break;
		case 268:
			if (!cli_db_level("report", optarg, &o->level))
				return EXIT_USAGE;
			o->level_given = true;
			break;
		case 266:
			if (parse_html_rows(optarg, &o->html_rows))
				return EXIT_USAGE;
			break;
		case 264: {
			char *end;
			errno = 0;
			o->top = strtoull(optarg, &end, 10);
			if (end == optarg || *end || errno || optarg[0] == '-' || o->top == 0) {
				return cli_usage("report",
						 "report: --top takes a number of groups (1 or more), not '%s'",
						 optarg);
			}
			break;
		}
		case 'j':
			if (!cli_jobs("report", optarg, &o->jobs))
				return EXIT_USAGE;
			break;
		case 'G': {
			char *end;
			errno = 0;
			o->max_groups = strtoull(optarg, &end, 10);
			if (end == optarg || *end || errno || optarg[0] == '-') {
				return cli_usage("report",
						 "report: --max-groups takes a number of groups (0: no limit), not "
						 "'%s'",
						 optarg);
			}
			break;
		}
		case 'M':
			if (!cli_mem_peak("report", optarg, &o->mem_peak))
				return EXIT_USAGE;
			break;
		case 'h': printf("%s%s", report_help, report_help_more); return EXIT_OK;
		case 'V': return cli_version();
		default: return cli_bad_option("report", c, argv, opts);
		}
	}
	fmt_given = o->format;
	if (!o->format && o->out && mf_prom_file_name(o->out))
		o->format = "prom"; /* -o x.prom */
	o->format = cli_out_format("report", o->format, o->out, "text");
	if (!mf_writer_find(o->format) && !mf_prom_format_name(o->format, NULL)) {
		return cli_usage("report", "report: -f must be text, csv, json, html, prom or openmetrics, not '%s'",
				 o->format);
	}
	if (o->derived && !mf_prom_format_name(o->format, NULL)) {
		return cli_usage("report",
				 "report: --derived is for -f prom or openmetrics (the other formats always have the "
				 "metrics)");
	}
	if (o->input) {
		const char *const *f = mf_reader_formats();
		while (*f && strcmp(*f, o->input))
			f++;
		if (!*f) {
			return cli_usage("report", "report: --input must be csv, smf, perf or lshwc (not '%s')",
					 o->input);
		}
	}
	o->by_given = by_s != NULL;
	if (by_s) {
		size_t bad;
		int got = mf_by_parse(by_s, &o->by, &bad);
		if (got == -2) {
			return cli_usage("report",
					 "report: --by: '%s' is a second time key: give one of interval, hour, day, "
					 "week, "
					 "month, "
					 "hour-of-day or weekday",
					 by_s + bad);
		}
		if (got) {
			const char *item = by_s + bad, *near;
			size_t len = strcspn(item, ",");
			if ((near = by_nearest(item, len)) != NULL)
				return cli_usage("report", "report: --by: '%.*s' is not a key (did you mean '%s'?)",
						 (int)len, item, near);
			return cli_usage("report",
					 "report: --by: '%s' is not one of "
					 "system,lpar,pool,cpu,file,polarity,lpar_weight,drawer,chip,"
					 "interval,hour,day,week,month,hour-of-day,weekday",
					 by_s + bad);
		}
	}
	if (mf_prom_format_name(o->format, NULL) && !o->by_given) {
		o->by = MF_BY_DEFAULT & ~MF_BY_TIME; /* one series per system, LPAR and pool */
	} else if (mf_prom_format_name(o->format, NULL) && (o->by & MF_BY_TIME)) {
		return cli_usage("report",
				 "report: -f %s: --by %s has a time key: a Prometheus counter is one series that "
				 "never restarts, not one per interval (drop the time key; Prometheus's own "
				 "scrapes make the time series)",
				 o->format, by_s);
	}
	if (o->top && !o->sort) {
		return cli_usage("report", "report: --top needs --sort METRIC (the metric that ranks the groups)");
	}
	if (o->db && optind < argc) {
		return cli_usage("report",
				 "report: --db %s reads the database alone, not the input %s too (import it: "
				 "mfstat db import %s %s)",
				 o->db, argv[optind], o->db, argv[optind]);
	}
	if (o->level_given && !o->db)
		return cli_usage("report", "report: --level is the level of a database read with --db");
	if (o->db && o->input) {
		return cli_usage("report", "report: --input names the format of input files, not of --db %s", o->db);
	}
	if (o->db && o->out && cli_same_file(o->out, o->db)) {
		return cli_usage("report", "report: -o %s names the database %s: refusing to overwrite an input",
				 o->out, o->db);
	}
	if (optind >= argc && !o->db) {
		/* report < dump.smf: standard input, when it is not a terminal someone would type at. */
		if (!isatty(STDIN_FILENO)) {
			static const char *const stdin_only[] = {"-"};
			o->files = stdin_only;
			o->nfiles = 1;
			return -1;
		}
		return cli_usage("report", "report: no input files (give - to read standard input)");
	}
	o->files = (const char *const *)argv + optind;
	o->nfiles = (size_t)(argc - optind);
	for (i = (size_t)optind; o->out && i < (size_t)argc; i++) {
		if (cli_same_file(o->out, argv[i])) {
			return cli_usage("report", "report: -o %s names the input %s: refusing to overwrite an input",
					 o->out, argv[i]);
		}
	}
	/* -o week.xlsx: a name no format has, never silently text. */
	return cli_out_ext_check("report", fmt_given, o->out, ".txt .csv .json .html .htm .prom",
				 "text, csv, json, html, prom or openmetrics");
}

/*
 * --sort and --metrics against the knowledge base, before reading: each name as the knowledge
 * base spells it (*sort; the columns into *cols, the caller frees the array).  -1 to go on,
 * else the exit status.
 */
static int check_metrics(const struct mf_kb *kb, const struct report_opts *o, const char **sort, const char ***cols,
			 size_t *ncols)
{
	*sort = NULL;
	*cols = NULL;
	*ncols = 0;
	if (o->sort) {
		const char **one;
		size_t n;
		int rc = cli_metric_names("report", "--sort", kb, o->sort, false, &one, &n);
		if (rc >= 0)
			return rc;
		if (n != 1) {
			free(one);
			return cli_usage("report", "report: --sort takes one metric, not the list '%s'", o->sort);
		}
		*sort = one[0];
		free(one);
	}
	if (!o->metrics)
		return -1;
	return cli_metric_names("report", "--metrics", kb, o->metrics, true, cols, ncols);
}

/* -v: why each metric not available is not, per group. */
static void explain_unavailable(const struct mf_report *rep)
{
	/* Whether a sparse metric's column is left out (empty in every group): asked once per family
	 * and metric, not once per group (that was a pass over all groups each time). */
	struct memo {
		const struct mf_family *fam;
		signed char *empty; /* per metric: -1 not asked yet, else 0 or 1 */
	} memo[16];
	size_t nmemo = 0, i, j;
	memset(memo, 0, sizeof(memo));
	for (i = 0; i < rep->ngroups; i++) {
		const struct mf_result *r = &rep->results[i];
		const struct mf_family *fam = r->group->family;
		char where[300];
		mf_group_describe(r->group, rep->tab, where, sizeof(where));
		for (j = 0; j < fam->nreport; j++) {
			int m = fam->report[j];
			char why[200];
			if (m == MF_REPORT_LSPR) {
				if (r->lspr == MF_LSPR_NONE)
					fprintf(stderr, "mfstat: %s: LSPR n/a: %s\n", where,
						r->lspr_why == MF_LSPR_ONLY_EXCLUDED
							? "only zIIP, zAAP or zCBP engines, which the LSPR match "
							  "leaves out"
							: "L1MP or RNI not available");
				continue;
			}
			if (!isnan(r->value[m]))
				continue;
			{
				size_t k;
				signed char *e = NULL;
				for (k = 0; k < nmemo && memo[k].fam != fam; k++)
					;
				if (k == nmemo && nmemo < sizeof(memo) / sizeof(memo[0]) &&
				    (memo[k].empty = malloc(fam->nmetrics + 1)) != NULL) {
					memo[k].fam = fam;
					memset(memo[k].empty, -1, fam->nmetrics + 1);
					nmemo++;
				}
				if (k < nmemo)
					e = &memo[k].empty[m];
				if (e && *e < 0)
					*e = mf_report_key_sparse_empty(rep, fam->metrics[m].name);
				if (e ? *e : mf_report_key_sparse_empty(rep, fam->metrics[m].name))
					continue;
			}
			mf_na_explain(fam, &r->na[m], why, sizeof(why));
			fprintf(stderr, "mfstat: %s: %s n/a: %s\n", where, fam->metrics[m].name, why);
		}
	}
	for (i = 0; i < nmemo; i++)
		free(memo[i].empty);
}

/*
 * The default --by on perf stat and lshwc input alone (Linux, which names no system, LPAR or
 * pool): the text and HTML reports leave out those of the key columns that are empty in every
 * group (the groups are the same: an empty key groups nothing).
 */
static void drop_empty_ids(struct mf_report *rep)
{
	static const unsigned ids[] = {MF_BY_SYSTEM, MF_BY_LPAR, MF_BY_POOL};
	size_t i, k;
	for (i = 0; i < rep->ninputs; i++)
		if (strcmp(rep->inputs[i].format, "perf") && strcmp(rep->inputs[i].format, "lshwc"))
			return;
	for (k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
		bool empty = true;
		for (i = 0; i < rep->ngroups && empty; i++) {
			char buf[64];
			const char *s = mf_report_key_text(rep, rep->results[i].group, ids[k], buf, sizeof(buf));
			empty = !s || !*s;
		}
		if (empty && rep->ngroups)
			rep->by &= ~ids[k];
	}
}

/* -f prom or openmetrics: the groups' sums (and with --derived their metrics) as an exposition. */
static int write_prom(const struct report_opts *o, const struct mf_report *rep)
{
	struct mf_prom_opts po;
	struct mf_strbuf sb;
	FILE *fp;
	memset(&po, 0, sizeof(po));
	mf_prom_format_name(o->format, &po.fmt);
	po.derived = o->derived;
	po.family_label = true;
	mf_strbuf_init(&sb);
	/* Made whole first: an exposition that cannot be made leaves -o FILE as it was. */
	if (mf_prom_report(&sb, rep, &po)) {
		mf_strbuf_free(&sb);
		cli_nomem("making the exposition");
		return EXIT_DATA;
	}
	fp = cli_open_out(o->out);
	if (!fp) {
		mf_strbuf_free(&sb);
		return EXIT_DATA;
	}
	fwrite(sb.buf ? sb.buf : "", 1, sb.len, fp);
	mf_strbuf_free(&sb);
	return cli_close_out(fp, o->out);
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	struct mf_kb *kb = NULL;
	struct mf_pipeline *pl = NULL;
	struct mf_pipeline_opts po;
	struct cli_diag_state st = {0};
	struct mf_report rep;
	struct mf_tz *tz = NULL;
	struct mf_select sel;
	struct cli_progress prog;
	struct cli_page page;
	const char **cols = NULL, *sort = NULL;
	size_t ncols = 0;
	size_t i;
	int rc;

	rc = parse_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;
	rc = cli_pipeline_begin("report", &o.period, o.tables, &st, &tz, &sel, &kb, &po);
	if (rc >= 0)
		return rc;
	po.format = o.input;
	po.by = o.by;
	po.skip_bad = o.skip;
	po.max_groups = (size_t)o.max_groups;
	po.jobs = o.jobs;
	po.metrics.mem_peak_gbs = o.mem_peak;
	po.select = mf_select_active(&sel) ? &sel : NULL;
	po.keep_intervals = strcmp(o.format, "html") == 0; /* the page draws every series over its intervals */
	po.explain = o.verbose;                            /* -v says why metrics are not available */
	po.stream_csv = strcmp(o.format, "csv") == 0;      /* finished rows streamed where that gives the same bytes */
	rc = check_metrics(kb, &o, &sort, &cols, &ncols);
	if (rc >= 0)
		goto out;
	rc = EXIT_OK;
	po.sort = sort;
	po.top = (size_t)o.top;
	po.columns = cols;
	po.ncolumns = ncols;
	rc = cli_inputs_setup("report", kb, &o.in, &po);
	cli_progress_begin(&prog, &po);
	if (rc < 0 && o.db)
		rc = cli_read_db(&po, kb, o.db, o.level, &pl, &rep);
	else if (rc < 0)
		rc = cli_read(&po, o.files, o.nfiles, NULL, &pl, &rep);
	cli_progress_end(&prog);
	if (rc < 0)
		rc = cli_report_usable("report", pl, &rep);
	if (rc < 0) {
		/* Names of the knowledge base, but perhaps of no family read: say so, never an empty column. */
		const struct mf_report *one = &rep;
		if (sort)
			rc = cli_metrics_read("report", "--sort", kb, &sort, 1, &one, 1);
		if (rc < 0 && cols)
			rc = cli_metrics_read("report", "--metrics", kb, cols, ncols, &one, 1);
	}
	if (rc >= 0)
		goto out;
	rc = EXIT_OK;
	if (o.by_given && (o.by & MF_BY_LPAR) && !rep.nlpars) {
		/* --by lpar on SMF input without the LPAR view: say why the column is empty. */
		bool smf = false;
		for (i = 0; i < rep.ninputs; i++)
			smf |= strcmp(rep.inputs[i].format, "smf") == 0;
		if (smf)
			cli_warn(
				"report: --by lpar: SMF type 113 records name no LPAR, and the dumps hold no type 70 "
				"subtype 1 (RMF) records to take it from: the lpar column of their samples is empty");
	}
	if (!o.by_given && (!strcmp(o.format, "text") || !strcmp(o.format, "html")))
		drop_empty_ids(&rep);
	rep.html_rows = o.html_rows;
	if (o.verbose)
		explain_unavailable(&rep);
	for (i = 0; i < rep.nwarnings; i++)
		cli_warn("%s", rep.warnings[i]);
	if (mf_prom_format_name(o.format, NULL))
		rc = write_prom(&o, &rep);
	else if (strcmp(o.format, "text") || (o.out && strcmp(o.out, "-")))
		rc = cli_write_report(o.out, o.format, &rep);
	else {
		cli_page_begin(&page, o.no_pager); /* to a terminal: paged when longer than the screen */
		rc = cli_write_report(o.out, o.format, &rep);
		cli_page_end(&page, "report", "--sort METRIC --top N");
	}
out:
	cli_pipeline_done(pl);
	cli_inputs_free(&o.in);
	mf_kb_free(kb);
	mf_tz_free(tz);
	free(cols);
	return rc;
}
