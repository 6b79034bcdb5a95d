/* SPDX-License-Identifier: MIT */
/* mfstat db sql: the views that compute the knowledge base's metrics in SQL. */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "mfstat/db/views.h"

static const char db_sql_help[] =
	"Usage: mfstat db sql [OPTIONS]\n"
	"\n"
	"Prints the SQL (SQLite) that creates the views of the performance database:\n"
	"per family metrics_F_sample (every metric of the family and the LSPR class,\n"
	"per sample, with start_unix and start_iso for Grafana), metrics_F_hour,\n"
	"metrics_F_day and metrics_F_month (the same from the roll-ups' sums per system,\n"
	"LPAR, pool and local bucket, with bucket, bucket_unix and start_iso: they\n"
	"outlive db prune of the samples) and metrics_F_utc_hour (the samples still held\n"
	"summed per UTC hour), translated from the knowledge base's formulas (docs/db.md,\n"
	"\"Views\").\n"
	"\n"
	"Options:\n"
	"  -m, --machine F  the views of family F (or of machine type F) only\n"
	"  --tables DIR     knowledge-base files that replace the built-in ones\n"
	"  -h, --help       this help\n"
	"  --version        the version and the knowledge base's revision\n"
	"\n"
	"Examples:\n"
	"  mfstat db sql | sqlite3 perf.db\n"
	"  sqlite3 perf.db 'SELECT bucket, CPI, RNI, LSPR FROM metrics_z16_hour'\n";

int cmd_db_sql(int argc, char **argv)
{
	static const struct option opts[] = {{"machine", required_argument, NULL, 'm'},
					     {"tables", required_argument, NULL, 'T'},
					     {"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {NULL, 0, NULL, 0}};
	const char *machine = NULL, *tables = NULL;
	const struct mf_family *fam = NULL;
	const struct mf_machine *m;
	struct mf_strbuf out;
	struct mf_error e;
	struct mf_kb *kb;
	int c, rc = EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm': machine = optarg; break;
		case 'T': tables = optarg; break;
		case 'h': fputs(db_sql_help, stdout); return EXIT_OK;
		case 'V': return cli_version();
		default: return cli_bad_option("db sql", c, argv, opts);
		}
	}
	if (optind < argc)
		return cli_usage("db sql", "db sql: unexpected argument '%s'", argv[optind]);
	kb = cli_load_kb(tables);
	if (!kb)
		return EXIT_DATA;
	if (machine && mf_kb_resolve(kb, machine, strlen(machine), &fam, &m) != 0) {
		mf_kb_free(kb);
		return cli_usage("db sql", "db sql: unknown machine '%s' (see mfstat machines)", machine);
	}
	mf_strbuf_init(&out);
	mf_error_clear(&e);
	if (mf_db_views_sql(kb, fam, &out, &e) != 0) {
		cli_err("%s", e.msg);
		rc = EXIT_DATA;
	} else {
		fputs(mf_strbuf_str(&out), stdout);
	}
	mf_strbuf_free(&out);
	mf_kb_free(kb);
	return rc;
}
