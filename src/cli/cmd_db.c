/* SPDX-License-Identifier: MIT */
/* mfstat db VERB: the performance database's commands, a table of verbs. */
#include <string.h>

#include "cli.h"

static const char db_help[] =
	"Usage: mfstat db VERB [OPTIONS] [ARGS]\n"
	"\n"
	"The performance database (docs/db.md): one SQLite file that holds the counters\n"
	"of every sample once.\n"
	"\n"
	"Verbs:\n"
	"  sql [--machine F]   print the SQL views that compute every metric and the LSPR\n"
	"                      class from the stored counters (per sample and per hour)\n"
	"  rollup FILE.db      recompute the hour, day and month sums from the samples\n"
	"  prune FILE.db       age each level of the database out on its own schedule\n"
	"\n"
	"Options:\n"
	"  -m, --machine F     db sql: the views of family F only (default: every family)\n"
	"  --tables DIR        knowledge-base files that replace the built-in ones\n"
	"  -h, --help          this help (mfstat db VERB --help: the verb's)\n"
	"  --version           the version and the knowledge base's revision\n"
	"\n"
	"Examples:\n"
	"  mfstat db sql | sqlite3 perf.db          # create the views in a database\n"
	"  mfstat db sql --machine z16 > views.sql\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} verbs[] = {{"sql", cmd_db_sql}, {"rollup", cmd_db_rollup}, {"prune", cmd_db_prune}};
#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

int cmd_db(int argc, char **argv)
{
	const char *names[NVERBS], *near;
	size_t i;

	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		fputs(db_help, stdout);
		return EXIT_OK;
	}
	if (argc >= 2 && strcmp(argv[1], "--version") == 0)
		return cli_version();
	if (argc < 2)
		return cli_usage("db", "db: expected a verb: 'mfstat db sql'");
	for (i = 0; i < NVERBS; i++) {
		names[i] = verbs[i].name;
		if (strcmp(argv[1], verbs[i].name) == 0)
			return verbs[i].fn(argc - 1, argv + 1);
	}
	near = cli_nearest(argv[1], strlen(argv[1]), names, NVERBS);
	if (near)
		return cli_usage("db", "db: unknown verb '%s' (did you mean %s?)", argv[1], near);
	return cli_usage("db", "db: unknown verb '%s' (see mfstat db --help)", argv[1]);
}
