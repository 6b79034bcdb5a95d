/* SPDX-License-Identifier: MIT */
/* mfstat: the command-line front end.  Options and printing only. */
#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>

#include "cli.h"

#ifndef MFSTAT_VERSION
#define MFSTAT_VERSION "0"
#endif

static void usage(FILE *fp)
{
	fputs("Usage: mfstat COMMAND [OPTIONS] [ARGS]\n"
	      "\n"
	      "Turns IBM Z CPU Measurement Facility counters into CPI, L1MP, sourcing,\n"
	      "RNI and the LSPR workload class.\n"
	      "\n"
	      "Commands:\n"
	      "  report [OPTIONS] FILE...     metrics from counter CSV or SMF dumps (- is stdin)\n"
	      "  diff [OPTIONS] BEFORE AFTER  compare two periods, files or machines (migration)\n"
	      "  counters [--machine F] [C]   list the counters of a family, or explain one\n"
	      "  metrics [--machine F] [M]    list the metrics, or show one with its formula\n"
	      "  machines [F]                 list the machine families, or show one\n"
	      "  smf list FILE...             list the type 113 records of SMF dumps\n"
	      "  stat [OPTIONS] -- COMMAND    count CPU-MF events of a command (Linux on Z)\n"
	      "  measure itlb|profile -- CMD  sample a program per function, line and cache line\n"
	      "  measure report RUNFILE...    report saved measure runs again\n"
	      "\n"
	      "Options for every command:\n"
	      "  --tables DIR   read knowledge-base files from DIR before the built-in ones\n"
	      "  -h, --help     help for the command\n"
	      "  --version      print the version\n"
	      "\n"
	      "Exit status: 0 ok, 1 data error, 2 usage error, 3 measurement impossible.\n"
	      "See mfstat(1) and `mfstat COMMAND --help`.\n",
	      fp);
}

/*
 * Standard output is checked once, here, for every command: a full disk,
 * /dev/full or a closed descriptor is exit 1 with "write error", never a
 * silent 0 (unless cli_close_out already said so).  A closed standard output
 * that nothing was written to is not an error.
 */
static int finish(int rc)
{
	bool pending = __fpending(stdout) != 0, failed = ferror(stdout) != 0;
	int err = 0;
	if (fclose(stdout) != 0) {
		err = errno;
		if (pending || err != EBADF)
			failed = true;
	}
	if (failed && !cli_stdout_reported) {
		cli_err("write error on standard output: %s", strerror(err ? err : EIO));
		if (rc == EXIT_OK)
			rc = EXIT_DATA;
	}
	return rc;
}

static int run(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("mfstat %s\n", MFSTAT_VERSION);
		return EXIT_OK;
	}
	if (strcmp(cmd, "report") == 0)
		return cmd_report(argc - 1, argv + 1);
	if (strcmp(cmd, "diff") == 0)
		return cmd_diff(argc - 1, argv + 1);
	if (strcmp(cmd, "counters") == 0)
		return cmd_counters(argc - 1, argv + 1);
	if (strcmp(cmd, "metrics") == 0)
		return cmd_metrics(argc - 1, argv + 1);
	if (strcmp(cmd, "machines") == 0)
		return cmd_machines(argc - 1, argv + 1);
	if (strcmp(cmd, "smf") == 0)
		return cmd_smf(argc - 1, argv + 1);
	if (strcmp(cmd, "stat") == 0)
		return cmd_stat(argc - 1, argv + 1);
	if (strcmp(cmd, "measure") == 0)
		return cmd_measure(argc - 1, argv + 1);
	cli_err("unknown command '%s' (see mfstat --help)", cmd);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	return finish(run(argc, argv));
}
