/* SPDX-License-Identifier: MIT */
/* mfstat export: read counter files like report, group, write the groups back as counter CSV. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mfstat/base/zout.h"
#include "mfstat/report/export.h"

/* The finest identity: one row per sample (README "Scaling out: mfstat export"). */
#define EXPORT_BY_DEFAULT (MF_BY_SYSTEM | MF_BY_LPAR | MF_BY_POOL | MF_BY_CPU | MF_BY_INTERVAL | MF_BY_PLACE)

static const char export_help[] =
	"Usage: mfstat export [OPTIONS] FILE... [-o OUT.csv[.zst|.gz]]\n"
	"       mfstat export [OPTIONS] --db FILE.db [-o OUT.csv[.zst|.gz]]\n"
	"\n"
	"Reads counter files as report does (duplicates dropped, the selection\n"
	"applied), groups the rows and writes one row of summed counter deltas per\n"
	"group as the canonical counter CSV that report reads.  With the default\n"
	"grouping, report of the export prints what report of the files prints, for\n"
	"any --by: export each file on its own (GNU parallel, a batch system, Spark)\n"
	"and report all the exports together.  FILE - is standard input.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE  write the CSV to FILE (default: standard output; -\n"
	"                     too); a name ending in .zst or .gz is compressed;\n"
	"                     FILE is replaced only when the export is complete\n"
	"  --by LIST          group by these keys, as report's --by (no file);\n"
	"                     default: system,lpar,pool,cpu,interval and where the\n"
	"                     engines ran (polarity,lpar_weight,drawer,chip), the\n"
	"                     finest: one row per sample\n"
	"  --db FILE.db       read the samples of a performance database (mfstat db\n"
	"                     import), instead of input files\n"
	"  --input FORMAT     input format: csv, smf, perf or lshwc (default: detected)\n"
	"  --machine F        family or machine type for rows whose data names none\n"
	"  --cpu-mhz N        CPU speed in MHz for rows whose data give none\n"
	"  --perf-tz ZONE     zone of perf stat's '# started on' line (as for report)\n"
	"  --tz ZONE          time zone of --hours, --weekdays, a --from date and the\n"
	"                     calendar keys: UTC, +hh:mm, a name, or smf (default:\n"
	"                     smf when every sample carries an offset, else UTC)\n"
	"  --from TIME        keep intervals starting at or after TIME\n"
	"  --to TIME          keep intervals starting before TIME\n"
	"  --system LIST      keep these systems (comma-separated)\n"
	"  --pool LIST        keep these pools (GCP, ZIIP, ZAAP, ZCBP, IFL, ICF)\n"
	"  --hours H1-H2      keep intervals starting from H1:00 to before H2:00\n"
	"  --weekdays LIST    keep intervals starting on these days (Mon-Fri)\n"
	"  --skip-bad-rows    skip rows (CSV) or records (SMF) with bad data,\n"
	"                     counting them by reason; also --skip-bad-records\n"
	"  --tables DIR       knowledge-base files that replace the built-in ones\n"
	"  -j, --jobs N       threads reading the inputs (as for report)\n"
	"  --max-groups N     stop with an error beyond N groups (default 2000000;\n"
	"                     0: no limit)\n"
	"  -q, --quiet        no warnings on standard error\n"
	"  -h, --help         this help\n"
	"  --version          the version and the knowledge base's revision\n"
	"\n"
	"Examples:\n"
	"  mfstat export dump.smf -o dump.csv.zst     # a dump as counter CSV\n"
	"  parallel mfstat export -o {.}.csv.zst {} ::: dumps/*.smf\n"
	"  mfstat report --by system,day dumps/*.csv.zst\n"
	"  mfstat export --by system,pool,interval --system SYSA -o - week.smf\n";

struct export_opts {
	const char *input, *out, *tables, *db;
	struct cli_inputs in;
	struct cli_period period;
	bool skip;
	unsigned by;
	unsigned long long max_groups;
	unsigned jobs;
};

static int parse_opts(int argc, char **argv, struct export_opts *o)
{
	static const struct option opts[] = {{"input", required_argument, NULL, 'I'},
					     {"output", required_argument, NULL, 'o'},
					     CLI_INPUT_OPTIONS,
					     {"by", required_argument, NULL, 'b'},
					     {"skip-bad-rows", no_argument, NULL, 's'},
					     {"skip-bad-records", no_argument, NULL, 's'},
					     {"tables", required_argument, NULL, 'T'},
					     {"quiet", no_argument, NULL, 'q'},
					     {"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {"max-groups", required_argument, NULL, 'G'},
					     {"jobs", required_argument, NULL, 'j'},
					     {"db", required_argument, NULL, 267},
					     CLI_ZONE_SELECT_OPTIONS,
					     CLI_RANGE_OPTIONS,
					     {NULL, 0, NULL, 0}};
	const char *by_s = NULL;
	size_t i;
	int c;

	memset(o, 0, sizeof(*o));
	o->max_groups = 2000000ULL;
	o->jobs = cli_jobs_default();
	o->by = EXPORT_BY_DEFAULT;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:j:qh", opts, NULL)) != -1) {
		if (cli_period_option(c, optarg, &o->period) || cli_inputs_option(c, optarg, &o->in))
			continue;
		switch (c) {
		case 'j':
			if (!cli_jobs("export", optarg, &o->jobs))
				return EXIT_USAGE;
			break;
		case 'I': o->input = optarg; break;
		case 267: o->db = optarg; break;
		case 'o': o->out = optarg; break;
		case 'b': by_s = optarg; break;
		case 's': o->skip = true; break;
		case 'T': o->tables = optarg; break;
		case 'q': cli_quiet = true; break;
		case 'G': {
			char *end;
			errno = 0;
			o->max_groups = strtoull(optarg, &end, 10);
			if (end == optarg || *end || errno || optarg[0] == '-')
				return cli_usage("export",
						 "export: --max-groups takes a number of groups (0: no limit), not "
						 "'%s'",
						 optarg);
			break;
		}
		case 'h': fputs(export_help, stdout); return EXIT_OK;
		case 'V': return cli_version();
		default: return cli_bad_option("export", c, argv, opts);
		}
	}
	if (o->input) {
		const char *const *f = mf_reader_formats();
		while (*f && strcmp(*f, o->input))
			f++;
		if (!*f)
			return cli_usage("export", "export: --input must be csv, smf, perf or lshwc (not '%s')",
					 o->input);
	}
	if (by_s) {
		size_t bad;
		int got = mf_by_parse(by_s, &o->by, &bad);
		if (got == -2)
			return cli_usage("export",
					 "export: --by: '%s' is a second time key: give one of interval, hour, day, "
					 "week, month, hour-of-day or weekday",
					 by_s + bad);
		if (got)
			return cli_usage("export",
					 "export: --by: '%s' is not one of "
					 "system,lpar,pool,cpu,polarity,lpar_weight,drawer,chip,"
					 "interval,hour,day,week,month,hour-of-day,weekday",
					 by_s + bad);
		if (o->by & MF_BY_FILE)
			return cli_usage("export",
					 "export: --by: file is not a key of an export (export each file on its own "
					 "and report the exports with --by file)");
	}
	if (o->db && optind < argc)
		return cli_usage("export",
				 "export: --db %s reads the database alone, not the input %s too (import it: "
				 "mfstat db import %s %s)",
				 o->db, argv[optind], o->db, argv[optind]);
	if (o->db && o->input)
		return cli_usage("export", "export: --input names the format of input files, not of --db %s", o->db);
	if (o->db && o->out && cli_same_file(o->out, o->db))
		return cli_usage("export", "export: -o %s names the database %s: refusing to overwrite an input",
				 o->out, o->db);
	if (optind >= argc && !o->db)
		return cli_usage("export", "export: no input files (give - to read standard input)");
	for (i = (size_t)optind; o->out && i < (size_t)argc; i++)
		if (cli_same_file(o->out, argv[i]))
			return cli_usage("export", "export: -o %s names the input %s: refusing to overwrite an input",
					 o->out, argv[i]);
	/* -o week.xlsx: export writes CSV (compressed as .gz or .zst), never silently under another name. */
	return cli_out_ext_check("export", NULL, o->out, ".csv .gz .zst", NULL);
}

static int put_zout(void *ctx, const char *s, size_t len)
{
	return mf_zout_write(ctx, s, len);
}

/* Writes the groups of rep to out (NULL or "-": standard output), compressed as its name says. */
static int write_export(const char *out, const struct mf_report *rep, struct mf_export_stats *st)
{
	struct mf_group **groups = malloc((rep->ngroups + 1) * sizeof(*groups));
	struct mf_zout *z = NULL;
	FILE *fp = NULL;
	size_t i;
	enum mf_zout_kind kind;
	int got, rc;

	if (!groups) {
		cli_nomem("listing %zu groups to export", rep->ngroups);
		return EXIT_DATA;
	}
	for (i = 0; i < rep->ngroups; i++)
		groups[i] = (struct mf_group *)rep->results[i].group;
	fp = cli_open_out(out);
	if (!fp) {
		free(groups);
		return EXIT_DATA;
	}
	kind = out && strcmp(out, "-") ? mf_zout_kind_for(out) : MF_ZOUT_PLAIN;
	z = mf_zout_new(fp, kind);
	/* On a terminal, names keep no control character (the terminal would act on it); a file keeps them. */
	got = z ? mf_export_csv(groups, rep->ngroups, rep->tab, kind == MF_ZOUT_PLAIN && isatty(fileno(fp)), put_zout,
				z, st)
		: MF_ENOMEM;
	if (!got)
		got = mf_zout_finish(z);
	if (got == MF_ENOMEM)
		cli_nomem("writing the export of %zu groups", rep->ngroups);
	mf_zout_free(z);
	free(groups);
	rc = cli_close_out(fp, out);
	return got && !rc ? EXIT_DATA : rc;
}

int cmd_export(int argc, char **argv)
{
	struct export_opts o;
	struct mf_kb *kb = NULL;
	struct mf_pipeline *pl = NULL;
	struct mf_pipeline_opts po;
	struct cli_diag_state st = {0};
	struct mf_report rep;
	struct mf_export_stats xs;
	struct mf_tz *tz = NULL;
	struct mf_select sel;
	size_t i;
	int rc;

	rc = parse_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;
	rc = cli_pipeline_begin("export", &o.period, o.tables, &st, &tz, &sel, &kb, &po);
	if (rc >= 0)
		return rc;
	po.format = o.input;
	po.by = o.by;
	po.skip_bad = o.skip;
	po.max_groups = (size_t)o.max_groups;
	po.jobs = o.jobs;
	po.select = mf_select_active(&sel) ? &sel : NULL;
	rc = cli_inputs_setup("export", kb, &o.in, &po);
	if (rc < 0 && o.db)
		rc = cli_read_db(&po, kb, o.db, MF_DB_SAMPLE, &pl, &rep);
	else if (rc < 0)
		rc = cli_read(&po, (const char *const *)argv + optind, (size_t)(argc - optind), NULL, &pl, &rep);
	if (rc < 0)
		rc = cli_report_usable("export", pl, &rep);
	if (rc >= 0)
		goto out;
	for (i = 0; i < rep.nwarnings; i++)
		cli_warn("%s", rep.warnings[i]);
	rc = write_export(o.out, &rep, &xs);
	if (rc == EXIT_OK) {
		if (xs.partial)
			cli_warn(
				"export: %zu group%s had a counter in some of their rows only: written empty (not "
				"available), as the report of the inputs says",
				xs.partial, xs.partial == 1 ? "" : "s");
		if (xs.overflow)
			cli_warn("export: %zu group%s summed a counter beyond 64 bits: written empty", xs.overflow,
				 xs.overflow == 1 ? "" : "s");
		if (xs.mixed_cpsp)
			cli_warn("export: %zu group%s mixed CPU speeds: cpsp written empty", xs.mixed_cpsp,
				 xs.mixed_cpsp == 1 ? "" : "s");
	}
out:
	cli_pipeline_done(pl);
	cli_inputs_free(&o.in);
	mf_kb_free(kb);
	mf_tz_free(tz);
	return rc;
}
