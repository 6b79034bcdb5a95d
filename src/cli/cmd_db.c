/* SPDX-License-Identifier: MIT */
/* mfstat db VERB: the performance database's commands, a table of verbs. */
#include <string.h>

#include "cli.h"

static const char db_help[] =
	"Usage: mfstat db VERB [OPTIONS] [FILE.db] ...\n"
	"\n"
	"The performance database (docs/db.md): one SQLite file that holds the counters\n"
	"of every sample imported, once, with their hour, day and month roll-ups.\n"
	"\n"
	"Verbs:\n"
	"  import FILE.db INPUT...  read inputs (anything report reads) into the database\n"
	"  info FILE.db             what the database holds\n"
	"  rollup FILE.db           recompute the hour, day and month sums from the samples\n"
	"  prune FILE.db            age each level of the database out on its own schedule\n"
	"  sql                      print the SQL views that compute every metric and the\n"
	"                           LSPR class from the stored counters\n"
	"\n"
	"See `mfstat db VERB --help`; mfstat report --db FILE.db reports from a database.\n"
	"\n"
	"Examples:\n"
	"  mfstat db import perf.db SYS1.SMF.D250301.bin SYS1.SMF.D250302.bin\n"
	"  mfstat db info perf.db\n"
	"  mfstat report --db perf.db --by system,month\n"
	"  mfstat db sql | sqlite3 perf.db          # create the views in a database\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} verbs[] = {{"import", cmd_db_import},
	     {"info", cmd_db_info},
	     {"rollup", cmd_db_rollup},
	     {"prune", cmd_db_prune},
	     {"sql", cmd_db_sql}};
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
		return cli_usage("db", "db: expected a verb: 'mfstat db import'");
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
