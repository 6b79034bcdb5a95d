/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_CLI_H
#define MFSTAT_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "mfstat/mfstat.h"

/* Exit statuses (README "Exit status"). */
enum { EXIT_OK = 0, EXIT_DATA = 1, EXIT_USAGE = 2, EXIT_MEASURE = 3 };

extern bool cli_quiet;
/* Set when cli_close_out has reported a write error on standard output (main says it once). */
extern bool cli_stdout_reported;

/* Prints "mfstat: error: ..." to stderr. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * An allocation that failed: "mfstat: error: out of memory while WHAT" (WHAT from fmt: what it
 * was allocating for), the form of every out-of-memory message (mf_error_nomem).
 */
void cli_nomem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A usage error: prints "mfstat: error: ..." to stderr and returns EXIT_USAGE; main then adds
 * "Try 'mfstat CMD --help'." (as for every exit status 2).  cmd is the command ("report",
 * "smf list"), or "" for mfstat itself.
 */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * getopt_long's '?' or ':' (c) as a usage error naming the option as written (the letter of a
 * cluster such as -by, the long name without its value), with the nearest option when there
 * is one (--formt: did you mean --format?; -by: did you mean --by?) or the options an
 * abbreviation fits.  name is the command as the message starts ("report", "smf list").
 */
struct option;
int cli_bad_option(const char *name, int c, char **argv, const struct option *opts);
/* The name in names nearest to word[0..len) (an edit or two away), or NULL. */
const char *cli_nearest(const char *word, size_t len, const char *const *names, size_t n);
/*
 * The output format: -f (given, or NULL) when given, with a warning when -o's extension names
 * another (.html .htm .csv .json .txt); else the one -o's extension names; else dflt.
 */
const char *cli_out_format(const char *cmd, const char *given, const char *out, const char *dflt);
/*
 * -o FILE without -f: FILE's extension (".xlsx" in "week.xlsx"; none in "out", ".profile" or
 * "run.2025") must be one of exts (space-separated, any case, e.g. ".txt .csv .json"), else the
 * usage error naming the extensions and the formats of -f (formats: NULL for a command without -f).
 * -1 to go on, else EXIT_USAGE.
 */
int cli_out_ext_check(const char *cmd, const char *given, const char *out, const char *exts, const char *formats);
/* -j: the online CPUs (at most 256); cli_jobs parses -j N (1-256), saying the usage error. */
unsigned cli_jobs_default(void);
bool cli_jobs(const char *cmd, const char *arg, unsigned *jobs);
/* Skipped rows shown one by one; the rest are counted in one line. */
#define CLI_MAX_SHOWN_SKIPS 10

/* The state of cli_pipeline_diag: a prefix of FAILED messages ("diff: before: ", or NULL), rows shown. */
struct cli_diag_state {
	const char *prefix;
	unsigned long long shown;
};
/* The pipeline's diagnostics (mf_pipeline_opts.diag, ctx a struct cli_diag_state): at most
 * CLI_MAX_SHOWN_SKIPS skipped rows, unless -q. */
void cli_pipeline_diag(void *ctx, enum mf_pipeline_diag kind, const struct mf_error *e);

/*
 * How the inputs are read, shared by report, export and diff: --machine F (family or type),
 * --cpu-mhz N (the CPU speed of rows whose data give none) and --perf-tz ZONE (the zone of perf
 * stat's '# started on' line; else this machine's, from $TZ or /etc/localtime).
 */
struct cli_inputs {
	const char *machine, *cpu_mhz, *perf_tz; /* as given, or NULL */
	struct mf_tz *zone;                      /* perf's zone (cli_inputs_setup); NULL when unknown */
	char from[600];                          /* where it came from, or why it is unknown */
};
enum { CLI_OPT_CPU_MHZ = 300, CLI_OPT_PERF_TZ };
#define CLI_INPUT_OPTIONS                                                                                              \
	{"machine", required_argument, NULL, 'm'}, {"cpu-mhz", required_argument, NULL, CLI_OPT_CPU_MHZ},              \
	{                                                                                                              \
		"perf-tz", required_argument, NULL, CLI_OPT_PERF_TZ                                                    \
	}
/* Takes getopt's option c ('m' or one of the codes above) into in: true when taken. */
bool cli_inputs_option(int c, const char *arg, struct cli_inputs *in);
/*
 * Checks the options of in and puts them into po: the family and type of --machine, the speed
 * of --cpu-mhz, perf's zone (in->zone, the caller's: cli_inputs_free).  -1 to go on, else the
 * usage error's status (said).
 */
int cli_inputs_setup(const char *cmd, const struct mf_kb *kb, struct cli_inputs *in, struct mf_pipeline_opts *po);
void cli_inputs_free(struct cli_inputs *in);

/*
 * A command's reading of files: a pipeline (*pl, the caller's), the first pass of the LPAR view
 * over every file, the files, the report into *rep, and the count of skipped rows not shown
 * (side, "before" or "after", prefixes it, or NULL).  -1 to go on, else the exit status (said).
 */
int cli_read(const struct mf_pipeline_opts *po, const char *const *files, size_t n, const char *side,
	     struct mf_pipeline **pl, struct mf_report *rep);

/*
 * cli_read over the performance database db_path (report --db): the level that answers
 * (mf_db_choose: its samples, or a roll-up level when the samples of the period were pruned),
 * or level (enum mf_db_level, --level; -1: the one that answers), as the one input, selected by
 * po->select.  Returns -1 to go on, else the exit status.
 */
/* --level of report --db and diff --db: auto (*level -1), sample, hour, day or month.  1, or 0 with the usage error said. */
int cli_db_level(const char *cmd, const char *s, int *level);
int cli_read_db(const struct mf_pipeline_opts *po, const struct mf_kb *kb, const char *db_path, int level,
		struct mf_pipeline **pl, struct mf_report *rep);

/* A report and an export need samples: the selection left some (else the message says what the
 * data covers: its period and systems, from pl), and SMF 70 and 99 records alone are no counters.
 * -1 to go on, else EXIT_DATA (said). */
int cli_report_usable(const char *cmd, const struct mf_pipeline *pl, const struct mf_report *rep);

/*
 * The end of a command that read data: the pipeline's tables are freed only
 * under a leak checker (an ASan build) or with MFSTAT_FREE=1 in the
 * environment.  Otherwise the process ends with them and the kernel takes
 * their pages back at once: freeing a quarter of a million groups one by one
 * took a tenth of a second.
 */
void cli_pipeline_done(struct mf_pipeline *pl);

/* mfstat --version (every command): the version and the knowledge base's revision.  EXIT_OK. */
int cli_version(void);
/* Prints "mfstat: warning: ..." to stderr unless -q. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints a diagnostic about input with its position and caret. */
void cli_diag(const struct mf_error *e, const char *severity);
/* Loads the knowledge base (embedded, overlaid by dir); prints and returns NULL on error. */
struct mf_kb *cli_load_kb(const char *dir);
/*
 * A file to be written, found by cli_target_walk: the real directory that holds
 * it (an O_PATH descriptor) and its name there.  The walk follows symbolic
 * links itself, every hop (at most 40, as the kernel), and refuses, with EPERM,
 * any link in a sticky directory everyone may write (/tmp) that is neither the
 * user's nor the directory owner's (the kernel's protected_symlinks rule,
 * whatever the machine's setting): as FILE itself, in a chain of links, or as
 * a directory on the way.
 */
struct cli_target {
	int dirfd;   /* the directory (O_PATH), -1 when none */
	char *name;  /* the file's name in it */
	bool exists; /* whether it exists; then st is its lstat */
	bool magic;  /* name is a link of /proc to what has no path (a pipe): st is its target's */
	struct stat st;
	int hops;         /* symbolic links followed */
	char hop[4096];   /* EPERM: the link refused, as reached */
	long hop_uid;     /* its owner */
	bool hop_is_path; /* it is the path as given */
};
/*
 * Walks path (follow_last: a link at the last component is followed too, else
 * it is the file).  0, or -1 with errno (EPERM: a link refused; ELOOP; ENOENT
 * for a missing directory, EISDIR when path names a directory...) and nothing
 * to free.  cli_target_free releases t.
 */
int cli_target_walk(const char *path, bool follow_last, struct cli_target *t);
void cli_target_free(struct cli_target *t);
/* Says why the walk of path failed, in the -o messages' style, tail appended. */
void cli_target_say(const char *path, const struct cli_target *t, int err, const char *tail);
/* True when a and b (walked as cli_target_walk does) name the same file, or the same new name in one directory. */
bool cli_same_target(const char *a, bool follow_a, const char *b, bool follow_b);
/*
 * A new file that is to replace t->name in t->dirfd (whatever is there, a
 * symbolic link itself included, never followed): unnamed where the file system
 * allows (O_TMPFILE), else a named temporary file beside it that is removed at
 * exit and on any signal that ends mfstat.  mode is the new file's (less the
 * umask); keep_attrs gives it the mode and, where allowed, the owner of the
 * regular file it replaces.  Takes over t's directory and name (t is left to
 * free), sets *fd (the caller closes it, before the commit) and returns a slot
 * for cli_replace_commit or cli_replace_abort; -1 with errno (EMFILE: no slot).
 */
int cli_replace_begin(struct cli_target *t, mode_t mode, bool keep_attrs, int *fd);
/* Syncs the new file and puts it in place of the old (rename): 0, or -1 with errno, the old file as it was. */
int cli_replace_commit(int slot);
/* Drops the new file: the old one stays as it was. */
void cli_replace_abort(int slot);

/*
 * Opens -o FILE (or stdout for NULL / "-"); prints and returns NULL on error.
 * FILE is walked by cli_target_walk (following links, someone else's link in
 * /tmp refused); a regular file is written through cli_replace_begin, keeping
 * the mode and owner of the file it replaces; a device or FIFO in place.
 */
FILE *cli_open_out(const char *path);
/* Closes what cli_open_out opened and puts it in place; on a write error
 * reports it, drops the new file and returns EXIT_DATA (else 0). */
int cli_close_out(FILE *fp, const char *path);
/*
 * Writes rep to out (NULL or "-": standard output) in format text, csv, json
 * or html through cli_open_out/cli_close_out.  Returns EXIT_OK or EXIT_DATA
 * (the error said).
 */
int cli_write_report(const char *out, const char *format, const struct mf_report *rep);
/*
 * The out of cli_open_out, cli_close_out and cli_write_report that means standard error: where
 * mfstat stat writes its report without -o (as perf stat and mfstat measure do).
 */
extern const char cli_out_stderr[];
/*
 * Where warnings go, one rule for every command: always on standard error as "mfstat: warning:"
 * lines (cli_warn; none with -q); a report carries them too only where it is written to a file
 * (-o FILE) or carries them as data (JSON's "warnings", the HTML page): true then.  A text report
 * on standard output or standard error does not repeat them.  cli_write_report applies it.
 */
bool cli_report_carries_warnings(const char *out, const char *format);
/* The same, calling tail(fp, ctx) after a report written without error (lines of its own after it). */
int cli_write_report_tail(const char *out, const char *format, const struct mf_report *rep,
			  void (*tail)(FILE *fp, const void *ctx), const void *ctx);
/*
 * The exit status for a library code, the one place codes become statuses:
 * 0 EXIT_OK; MF_EUSAGE (asked for what cannot be done as asked) and
 * MF_ENOEXEC (the program cannot be run) EXIT_USAGE; MF_ENOTCOUNTED (nothing
 * could be counted or sampled here) EXIT_MEASURE; every other code EXIT_DATA.
 */
int cli_exit_for(int code);

/* The planner's options as given: time zone and selection (report, diff). */
struct cli_period {
	const char *tz, *from, *to, *system, *pool, *hours, *weekdays;
};

/* The planner's options, shared by report and diff (getopt codes from 256; a command's own start at CLI_OPT_NEXT). */
enum {
	CLI_OPT_TZ = 256,
	CLI_OPT_FROM,
	CLI_OPT_TO,
	CLI_OPT_SYSTEM,
	CLI_OPT_POOL,
	CLI_OPT_HOURS,
	CLI_OPT_WEEKDAYS,
	CLI_OPT_NEXT
};
#define CLI_ZONE_SELECT_OPTIONS                                                                                        \
	{"tz", required_argument, NULL, CLI_OPT_TZ}, {"system", required_argument, NULL, CLI_OPT_SYSTEM},              \
		{"pool", required_argument, NULL, CLI_OPT_POOL}, {"hours", required_argument, NULL, CLI_OPT_HOURS},    \
	{                                                                                                              \
		"weekdays", required_argument, NULL, CLI_OPT_WEEKDAYS                                                  \
	}
#define CLI_RANGE_OPTIONS                                                                                              \
	{"from", required_argument, NULL, CLI_OPT_FROM},                                                               \
	{                                                                                                              \
		"to", required_argument, NULL, CLI_OPT_TO                                                              \
	}

/* Takes getopt's option c with its argument into p when it is one of the planner's: true when taken. */
bool cli_period_option(int c, const char *arg, struct cli_period *p);

/*
 * The start every command that reads data through a pipeline shares (report, export, diff):
 * the period (*tz, *sel), the knowledge base (*kb, tables or the built-in one) and the pipeline
 * options that do not depend on the command (kb, zone, diagnostics to cli_pipeline_diag with
 * ctx); the command adds its own.  -1 to go on, else the exit status (said; *tz and *kb freed
 * and NULL).
 */
int cli_pipeline_begin(const char *cmd, const struct cli_period *period, const char *tables, struct cli_diag_state *ctx,
		       struct mf_tz **tz, struct mf_select *sel, struct mf_kb **kb, struct mf_pipeline_opts *po);

/* Parses --mem-peak GB/s into *v: true, or false with the usage error said (cmd names the command). */
bool cli_mem_peak(const char *cmd, const char *arg, double *v);

/*
 * Turns the options into a zone (*tz, the caller's; UTC when --tz is not
 * given) and a selection (sel, its tz set).  Returns -1 to go on, else the
 * exit status with the error said (cmd names the subcommand).
 */
int cli_period_setup(const struct cli_period *o, const char *cmd, struct mf_tz **tz, struct mf_select *sel);

/*
 * The metric names of option opt of cmd (--metrics LIST, or --sort NAME with lspr false: the
 * LSPR class ranks nothing), given in any case, as the knowledge base spells them, in order:
 * *names (the caller frees the array; the names are kb's), *n of them.  An empty name, a name
 * given twice or one no family defines (with the nearest names) is a usage error: it is known
 * before reading.  -1 to go on, else the exit status (said).
 */
int cli_metric_names(const char *cmd, const char *opt, const struct mf_kb *kb, const char *list, bool lspr,
		     const char ***names, size_t *n);
/*
 * The names of cli_metric_names against the families of the data read (the groups of
 * reps[0..nreps)): a name none of them defines is a data error (it depends on the data: a
 * z16 metric asked of z15 data), saying which families do; one that only some lack is a
 * warning naming them.  -1 to go on, else EXIT_DATA (said).
 */
int cli_metrics_read(const char *cmd, const char *opt, const struct mf_kb *kb, const char *const *names, size_t n,
		     const struct mf_report *const *reps, size_t nreps);
/*
 * What to add to "'NAME' is not a metric of FAM" into buf: with fam, for a metric of other
 * families, ", only on z16, z17"; else the nearest metrics (of fam, or every family when NULL;
 * LSPR too when lspr), ": did you mean CPI?" or ": did you mean one of L2P, L3P?"; "" when none.
 */
void cli_metric_hint(const struct mf_kb *kb, const struct mf_family *fam, const char *name, bool lspr, char *buf,
		     size_t n);

/* True when paths a and b name the same existing file (device and inode). */
bool cli_same_file(const char *a, const char *b);

int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_counters(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_machines(int argc, char **argv);
int cmd_smf(int argc, char **argv);
/* mfstat db rollup and db prune (argv[0] the verb): cmd_db_levels.c. */
int cmd_db_rollup(int argc, char **argv);
int cmd_db_prune(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_measure(int argc, char **argv);
/* mfstat db: the performance database (cmd_db.c), its verbs in a table. */
int cmd_db(int argc, char **argv);
/* mfstat db import and db info (argv[0] the verb): cmd_db_import.c. */
int cmd_db_import(int argc, char **argv);
int cmd_db_info(int argc, char **argv);
int cmd_db_sql(int argc, char **argv);

#endif
