/* SPDX-License-Identifier: MIT */
/* mfstat db VERB: the performance database's commands, a table of verbs. */
#include <string.h>

#include "cli.h"

static const char db_help[] =
	"Usage: mfstat db VERB [OPTIONS] FILE.db ...\n"
	"\n"
	"The performance database: one SQLite file that holds every sample imported\n"
	"once (docs/db.md).\n"
	"\n"
	"Verbs:\n"
	"  import FILE.db INPUT...  read inputs (anything report reads) into the database\n"
	"  info FILE.db             what the database holds\n"
	"\n"
	"See `mfstat db VERB --help`.\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} verbs[] = {{"import", cmd_db_import}, {"info", cmd_db_info}};
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
