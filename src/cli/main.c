/* SPDX-License-Identifier: MIT */
/* mfstat: the command-line front end.  Options and printing only. */
#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

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
	      "  export [OPTIONS] FILE...     counter files as summed counter CSV (-o OUT.csv.zst)\n"
	      "  db VERB [ARGS]               performance database: import info rollup prune sql\n"
	      "  counters [--machine F] [C]   list the counters of a family, or explain one\n"
	      "  metrics [--machine F] [M]    list the metrics, or show one with its formula\n"
	      "  machines [F]                 list the machine families, or show one\n"
	      "  smf list FILE...             list the records of SMF dumps (113, 70.1, 99.14)\n"
	      "  stat [OPTIONS] -- COMMAND    count CPU-MF events of a command (Linux on Z)\n"
	      "  serve [--listen ADDR:PORT]   serve every CPU's counters to Prometheus (/metrics)\n"
	      "  measure itlb|profile -- CMD  sample a program per function, line and cache line\n"
	      "  measure report RUNFILE...    report saved measure runs again\n"
	      "  measure probe                what this machine can sample, and how\n"
	      "  help COMMAND                 the help of a command (as COMMAND --help)\n"
	      "\n"
	      "Options for every command:\n"
	      "  --tables DIR   read knowledge-base files from DIR before the built-in ones\n"
	      "  -h, --help     help for the command\n"
	      "  --version      print the version and the knowledge base's revision\n"
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

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {{"report", cmd_report},   {"diff", cmd_diff},
		{"export", cmd_export},   {"counters", cmd_counters},
		{"metrics", cmd_metrics}, {"machines", cmd_machines},
		{"smf", cmd_smf},         {"stat", cmd_stat},
		{"measure", cmd_measure}, {"db", cmd_db},
		{"serve", cmd_serve}};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The command named cmd, or -1 (with the nearest name in *near, or NULL). */
static int find_command(const char *cmd, const char **near)
{
	const char *names[NCOMMANDS];
	size_t i;
	for (i = 0; i < NCOMMANDS; i++) {
		names[i] = commands[i].name;
		if (strcmp(cmd, commands[i].name) == 0)
			return (int)i;
	}
	*near = cli_nearest(cmd, strlen(cmd), names, NCOMMANDS);
	return -1;
}

static int run(int argc, char **argv, const char **usage_of)
{
	const char *cmd, *near = NULL;
	int k;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "help") == 0) {
		/* mfstat help CMD: the command's --help. */
		char *hargv[3];
		if (argc < 3) {
			usage(stdout);
			return EXIT_OK;
		}
		k = find_command(argv[2], &near);
		if (k < 0) {
			*usage_of = "";
			if (near)
				return cli_usage("", "help: unknown command '%s' (did you mean %s?)", argv[2], near);
			return cli_usage("", "help: unknown command '%s'", argv[2]);
		}
		hargv[0] = argv[2];
		hargv[1] = (char *)"--help";
		hargv[2] = NULL;
		return commands[k].fn(2, hargv);
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0)
		return cli_version();
	k = find_command(cmd, &near);
	if (k >= 0) {
		*usage_of = commands[k].name;
		return commands[k].fn(argc - 1, argv + 1);
	}
	*usage_of = "";
	{
		/* mfstat week.smf: a file where the command goes, most likely one to report on. */
		struct stat sb;
		if (stat(cmd, &sb) == 0 && !S_ISDIR(sb.st_mode))
			return cli_usage("", "'%s' is a file, not a command (did you mean mfstat report %s?)", cmd,
					 cmd);
	}
	if (near)
		return cli_usage("", "unknown command '%s' (did you mean %s?)", cmd, near);
	return cli_usage("", "unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
	const char *usage_of = NULL;
	int rc;
	/*
	 * Standard output, unless a terminal, in one 64 KiB buffer: a help text (report's is over
	 * 4 KiB) is then written by finish, whose fclose keeps the errno of a failed write ("No
	 * space left on device"); a write failing in the middle of printing leaves only the
	 * stream's error flag.
	 */
	static char outbuf[1 << 16]; /* glibc takes a size only with a buffer */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	rc = run(argc, argv, &usage_of);
	/* Every usage error ends with the same pointer to the help of the command at fault. */
	if (rc == EXIT_USAGE && usage_of)
		fprintf(stderr, "Try 'mfstat %s%s--help'.\n", usage_of, usage_of[0] ? " " : "");
	return finish(rc);
}
