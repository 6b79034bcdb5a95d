/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "mfstat/base/distance.h"

bool cli_quiet;
bool cli_stdout_reported;

/*
 * Writes prefix, the message and a newline to stderr.  Messages quote input
 * (names, lines of a file), so control characters are shown as \xNN: a file
 * cannot move the cursor, recolour or retitle the user's terminal.
 */
static void say(const char *prefix, const char *msg)
{
	struct mf_strbuf sb;
	mf_strbuf_init(&sb);
	mf_escape_text(&sb, msg, MF_ESCAPE_TEXT_KEEP_NL | MF_ESCAPE_TEXT_KEEP_TAB);
	if (!sb.failed) {
		fprintf(stderr, "%s%s\n", prefix, mf_strbuf_str(&sb));
	} else {
		/*
		 * No memory even for the message (it often says so): written byte by byte, every
		 * byte that is not printable ASCII as \xNN, so that it is never lost nor empty.
		 */
		const unsigned char *c;
		fputs(prefix, stderr);
		for (c = (const unsigned char *)msg; *c; c++)
			if ((*c >= 0x20 && *c < 0x7f) || *c == '\n' || *c == '\t')
				fputc(*c, stderr);
			else
				fprintf(stderr, "\\x%02x", *c);
		fputc('\n', stderr);
	}
	mf_strbuf_free(&sb);
}

static void vsay(const char *prefix, const char *fmt, va_list ap)
{
	char buf[4096];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	say(prefix, buf);
}

void cli_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay("mfstat: error: ", fmt, ap);
	va_end(ap);
}

void cli_nomem(const char *fmt, ...)
{
	char what[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	cli_err("out of memory while %s", what);
}

#ifndef MFSTAT_VERSION
#define MFSTAT_VERSION "0"
#endif

int cli_version(void)
{
	struct mf_kb *kb = cli_load_kb(NULL);
	const char *rev = NULL;
	size_t f, m;
	printf("mfstat %s\n", MFSTAT_VERSION);
	if (!kb)
		return EXIT_DATA;
	/* The IBM CPU MF formula deck the built-in knowledge base follows: its latest revision. */
	for (f = 0; f < kb->nfamilies; f++) {
		const struct mf_family *fam = &kb->families[f];
		if (!fam->lspr)
			continue;
		for (m = 0; m < fam->nmetrics; m++)
			if (!rev || strcmp(fam->metrics[m].revision, rev) > 0)
				rev = fam->metrics[m].revision;
	}
	printf("knowledge base: IBM CPU MF formulas revision %s, %zu families, %zu machine types\n", rev ? rev : "none",
	       kb->nfamilies, kb->nmachines);
	mf_kb_free(kb);
	return EXIT_OK;
}

unsigned cli_jobs_default(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}

bool cli_jobs(const char *cmd, const char *arg, unsigned *jobs)
{
	char *end;
	unsigned long v;
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (end == arg || *end || errno || arg[0] == '-' || v < 1 || v > 256) {
		cli_usage(cmd, "%s: -j takes a number of threads from 1 to 256, not '%s'", cmd, arg);
		return false;
	}
	*jobs = (unsigned)v;
	return true;
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay("mfstat: error: ", fmt, ap);
	va_end(ap);
	(void)cmd; /* main says "Try 'mfstat CMD --help'." after every usage error, once */
	return EXIT_USAGE;
}

const char *cli_nearest(const char *word, size_t len, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t bestd = 9, i, limit = len <= 4 ? 1 : 2;
	for (i = 0; i < n; i++) {
		size_t d = mf_name_distance(word, len, names[i], strlen(names[i]), false);
		/* A prefix of a longer name is what getopt would have taken had it been unique. */
		if (d < bestd) {
			bestd = d;
			best = names[i];
		}
	}
	return bestd <= limit ? best : NULL;
}

int cli_bad_option(const char *cmd, int c, char **argv, const struct option *opts)
{
	const char *arg = argv[optind - 1], *near;
	const char *names[64];
	size_t n = 0, len;
	char opt[64];

	for (; opts[n].name && n < 64; n++)
		names[n] = opts[n].name;
	/*
	 * A long option is the element before optind ("--tz" without its value, "--formt"); a short
	 * one is a letter of a cluster ("-by" is -b then -y), in the element at optind while the
	 * cluster goes on, else in the one before.
	 */
	if (strncmp(arg, "--", 2) != 0 || (c == '?' && optopt)) {
		const char *el = arg;
		if (argv[optind] && argv[optind][0] == '-' && argv[optind][1] != '-' && optopt > 0 && optopt < 256 &&
		    strchr(argv[optind] + 1, optopt))
			el = argv[optind];
		snprintf(opt, sizeof(opt), "-%c", optopt > 32 && optopt < 127 ? optopt : '?');
		if (c == ':')
			return cli_usage(cmd, "%s: option %s needs a value", cmd, opt);
		/* A long option written with one dash: -by for --by. */
		if (el[0] == '-' && el[1] != '-' && strlen(el) > 2) {
			size_t i;
			len = strcspn(el + 1, "=");
			for (i = 0; i < n; i++)
				if (strlen(names[i]) == len && strncmp(names[i], el + 1, len) == 0)
					return cli_usage(cmd, "%s: option %s is not known (did you mean --%s?)", cmd,
							 opt, names[i]);
		}
		return cli_usage(cmd, "%s: option %s is not known", cmd, opt);
	}
	/* A long option: its name without the value. */
	len = strcspn(arg, "=");
	snprintf(opt, sizeof(opt), "%.*s", (int)(len < 60 ? len : 60), arg);
	if (c == ':')
		return cli_usage(cmd, "%s: option %s needs a value", cmd, opt);
	{
		size_t k, hits = 0, used = 0;
		char list[256] = "";
		/* An abbreviation that fits several options. */
		for (k = 0; k < n; k++)
			if (len > 2 && strncmp(names[k], arg + 2, len - 2) == 0) {
				hits++;
				if (used < sizeof(list))
					used += (size_t)snprintf(list + used, sizeof(list) - used, "%s--%s",
								 hits > 1 ? ", " : "", names[k]);
			}
		if (hits > 1)
			return cli_usage(cmd, "%s: option %s is ambiguous (%s)", cmd, opt, list);
		if (len > 2 && (near = cli_nearest(arg + 2, len - 2, names, n)) != NULL)
			return cli_usage(cmd, "%s: option %s is not known (did you mean --%s?)", cmd, opt, near);
	}
	return cli_usage(cmd, "%s: option %s is not known", cmd, opt);
}

const char *cli_out_format(const char *cmd, const char *given, const char *out, const char *dflt)
{
	static const struct {
		const char *ext, *format;
	} exts[] = {{".html", "html"}, {".htm", "html"}, {".csv", "csv"}, {".json", "json"}, {".txt", "text"}};
	const char *named = NULL;
	size_t i, n = out ? strlen(out) : 0;
	for (i = 0; i < sizeof(exts) / sizeof(exts[0]) && out; i++) {
		size_t k = strlen(exts[i].ext);
		if (n > k && strcasecmp(out + n - k, exts[i].ext) == 0)
			named = exts[i].format;
	}
	if (!given)
		return named ? named : dflt;
	if (named && strcmp(named, given) != 0)
		cli_warn("%s: -f %s writes %s to %s, whose name says %s", cmd, given, given, out, named);
	return given;
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;
	if (cli_quiet)
		return;
	va_start(ap, fmt);
	vsay("mfstat: warning: ", fmt, ap);
	va_end(ap);
}

void cli_diag(const struct mf_error *e, const char *severity)
{
	char buf[2048];
	mf_error_format(e, buf, sizeof(buf));
	if (strcmp(severity, "error") != 0) {
		/* mf_error_format says "error:"; re-label for skipped rows. */
		char *p = strstr(buf, "error: ");
		if (p) {
			char line[4200];
			snprintf(line, sizeof(line), "%.*s%s: %s", (int)(p - buf), buf, severity, p + 7);
			say("mfstat: ", line);
			return;
		}
	}
	say("mfstat: ", buf);
}

struct mf_kb *cli_load_kb(const char *dir)
{
	struct mf_kb *kb = NULL;
	struct mf_error e;
	mf_error_clear(&e);
	if (mf_kb_load(dir, &kb, &e) != 0) {
		cli_diag(&e, "error");
		return NULL;
	}
	return kb;
}

/*
 * Output files are written through a temporary file in the same directory,
 * renamed over the target when complete: a failed or interrupted run leaves
 * the old file as it was.  Pending temporary files are removed at exit and on
 * SIGINT, SIGTERM and SIGHUP, so an error path that never reaches
 * cli_close_out leaves nothing behind either.
 */
#define MAX_PENDING 4

struct pending {
	FILE *fp;
	char *tmp;   /* the temporary file */
	char *final; /* what it becomes */
};

static struct pending pending[MAX_PENDING];
static volatile sig_atomic_t npending_sig;
static char *sig_paths[MAX_PENDING]; /* the temporary names, read by the signal handler */
static bool cleanup_installed;
static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction old_act[sizeof(caught) / sizeof(caught[0])];

static void sync_sig_paths(void)
{
	size_t i, n = 0;
	npending_sig = 0;
	for (i = 0; i < MAX_PENDING; i++)
		if (pending[i].tmp)
			sig_paths[n++] = pending[i].tmp;
	npending_sig = (sig_atomic_t)n;
}

static void on_signal(int sig)
{
	sig_atomic_t i;
	for (i = 0; i < npending_sig; i++)
		unlink(sig_paths[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void remove_pending(void)
{
	size_t i;
	for (i = 0; i < MAX_PENDING; i++) {
		if (!pending[i].tmp)
			continue;
		unlink(pending[i].tmp);
		free(pending[i].tmp);
		free(pending[i].final);
		pending[i].tmp = pending[i].final = NULL;
		pending[i].fp = NULL;
	}
	npending_sig = 0;
}

static void set_handlers(bool on)
{
	size_t i;
	for (i = 0; i < sizeof(caught) / sizeof(caught[0]); i++) {
		if (on) {
			struct sigaction sa;
			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = on_signal;
			sigemptyset(&sa.sa_mask);
			sigaction(caught[i], &sa, &old_act[i]);
		} else {
			sigaction(caught[i], &old_act[i], NULL);
		}
	}
}

/*
 * Whether a symbolic link may be followed for writing, by the kernel's
 * protected_symlinks rule: always, unless it sits in a sticky directory that
 * everyone may write (/tmp), where only a link of the user's own or of the
 * directory's owner is followed.  Someone else's link planted in /tmp is
 * never a way to make mfstat replace the user's files.
 */
static bool link_trusted(const char *path, const struct stat *lst)
{
	struct stat dst;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	bool ok;
	if (!dir)
		return false;
	ok = stat(dir, &dst) == 0 && (!(dst.st_mode & S_ISVTX) || !(dst.st_mode & S_IWOTH) ||
				      lst->st_uid == geteuid() || lst->st_uid == dst.st_uid);
	free(dir);
	return ok;
}

/* The file a path names, following symbolic links; NULL when it does not exist,
 * or with errno EPERM for a link that must not be followed (link_trusted). */
static char *resolve_target(const char *path, struct stat *st, bool *exists)
{
	struct stat lst;
	*exists = stat(path, st) == 0;
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		if (!link_trusted(path, &lst)) {
			errno = EPERM;
			return NULL;
		}
		if (*exists)
			return realpath(path, NULL);
	}
	return strdup(path);
}

FILE *cli_open_out(const char *path)
{
	struct stat st;
	bool exists;
	char *final, *tmp = NULL;
	const char *slash, *base;
	size_t i, slot, dirlen;
	unsigned attempt;
	int fd = -1;
	FILE *fp;

	if (!path || strcmp(path, "-") == 0)
		return stdout;
	final = resolve_target(path, &st, &exists);
	if (!final) {
		if (errno == EPERM)
			cli_err("%s: a symbolic link in a shared sticky directory, owned by someone else: "
				"refusing to write through it (remove it, or name another file)",
				path);
		else
			cli_err("%s: cannot create: %s", path, strerror(errno));
		return NULL;
	}
	for (slot = 0; slot < MAX_PENDING && pending[slot].tmp; slot++)
		;
	if ((exists && !S_ISREG(st.st_mode)) || slot == MAX_PENDING) {
		/* A device or a pipe (say /dev/null) is written in place: it cannot be replaced. */
		free(final);
		fp = fopen(path, "w");
		if (!fp)
			cli_err("%s: cannot create: %s", path, strerror(errno));
		return fp;
	}
	slash = strrchr(final, '/');
	base = slash ? slash + 1 : final;
	dirlen = slash ? (size_t)(slash - final) + 1 : 0;
	for (attempt = 0; attempt < 100 && fd < 0; attempt++) {
		size_t n = dirlen + strlen(base) + 48;
		free(tmp);
		tmp = malloc(n);
		if (!tmp)
			break;
		snprintf(tmp, n, "%.*s.%s.%ld.%u.tmp", (int)dirlen, final, base, (long)getpid(), attempt);
		/* 0666 less the umask, as for any file the user creates. */
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0 && tmp && exists && (errno == EACCES || errno == EPERM || errno == EROFS)) {
		/* A writable file in a directory we may not add to: in place, as before, and say so. */
		cli_warn("%s: cannot create a temporary file beside it (%s): writing it in place", path,
			 strerror(errno));
		free(tmp);
		free(final);
		fp = fopen(path, "w");
		if (!fp)
			cli_err("%s: cannot create: %s", path, strerror(errno));
		return fp;
	}
	if (fd < 0 || !(fp = fdopen(fd, "w"))) {
		cli_err("%s: cannot create: %s", path, strerror(errno ? errno : ENOMEM));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		free(final);
		return NULL;
	}
	if (!cleanup_installed) {
		atexit(remove_pending);
		cleanup_installed = true;
	}
	for (i = 0; i < MAX_PENDING && !pending[i].tmp; i++)
		;
	if (i == MAX_PENDING)
		set_handlers(true);
	pending[slot].fp = fp;
	pending[slot].tmp = tmp;
	pending[slot].final = final;
	sync_sig_paths();
	return fp;
}

int cli_close_out(FILE *fp, const char *path)
{
	int bad = ferror(fp), err = 0;
	size_t slot, i;

	if (fp == stdout) {
		if (fflush(stdout) != 0)
			bad = 1;
		err = errno;
	} else {
		for (slot = 0; slot < MAX_PENDING && pending[slot].fp != fp; slot++)
			;
		if (fflush(fp) != 0 || (slot < MAX_PENDING && fsync(fileno(fp)) != 0 && errno != EINVAL))
			bad = 1;
		err = errno;
		if (fclose(fp) != 0 && !bad) {
			bad = 1;
			err = errno;
		}
		if (slot < MAX_PENDING) {
			if (!bad && rename(pending[slot].tmp, pending[slot].final) != 0) {
				bad = 1;
				err = errno;
			}
			if (bad)
				unlink(pending[slot].tmp);
			free(pending[slot].tmp);
			free(pending[slot].final);
			pending[slot].tmp = pending[slot].final = NULL;
			pending[slot].fp = NULL;
			sync_sig_paths();
			for (i = 0; i < MAX_PENDING && !pending[i].tmp; i++)
				;
			if (i == MAX_PENDING)
				set_handlers(false);
		}
	}
	if (bad) {
		if (fp == stdout)
			cli_stdout_reported = true;
		cli_err("%s: write error: %s%s", path && strcmp(path, "-") ? path : "<stdout>",
			strerror(err ? err : EIO), fp != stdout ? " (the file was left as it was)" : "");
		return EXIT_DATA;
	}
	return EXIT_OK;
}

int cli_write_report(const char *out, const char *format, const struct mf_report *rep)
{
	return cli_write_report_tail(out, format, rep, NULL, NULL);
}

int cli_write_report_tail(const char *out, const char *format, const struct mf_report *rep,
			  void (*tail)(FILE *fp, const void *ctx), const void *ctx)
{
	const struct mf_writer *w = mf_writer_find(format);
	FILE *fp;
	int c, rc;
	if (!w) {
		return cli_usage("", "no writer for format '%s'", format);
	}
	fp = cli_open_out(out);
	if (!fp)
		return EXIT_DATA;
	c = w->write(fp, rep);
	if (c == MF_ENOMEM)
		cli_nomem("writing the %s report of %zu groups", format, rep->ngroups);
	if (!c && tail)
		tail(fp, ctx);
	rc = cli_close_out(fp, out);
	return c && !rc ? EXIT_DATA : rc;
}

bool cli_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (!a || !b || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
		return false;
	if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cli_exit_for(int code)
{
	switch (code) {
	case MF_OK: return EXIT_OK;
	case MF_EUSAGE:
	case MF_ENOEXEC: return EXIT_USAGE;
	case MF_ENOTCOUNTED: return EXIT_MEASURE;
	default: return EXIT_DATA;
	}
}

int cli_period_setup(const struct cli_period *o, const char *cmd, struct mf_tz **tz, struct mf_select *sel)
{
	struct mf_error e;
	int rc;

	memset(sel, 0, sizeof(*sel));
	*tz = NULL;
	/* Without --tz, each record's own offset (SMF's), UTC for data that gives none (tz_default). */
	rc = mf_tz_open(tz, o->tz ? o->tz : "smf", NULL, &e);
	if (rc) {
		if (rc == MF_EUSAGE)
			cli_err("%s: %s", cmd, e.msg);
		else
			cli_diag(&e, "error");
		return cli_exit_for(rc);
	}
	sel->tz = *tz;
	if (o->from && mf_select_parse_time(o->from, *tz, &sel->from_us)) {
		return cli_usage(cmd, "%s: --from: '%s' is not a time such as 2025-04-10 or 2025-04-10T08:00:00+02:00",
				 cmd, o->from);
	}
	sel->has_from = o->from != NULL;
	sel->from_local = o->from && mf_select_time_local(o->from, *tz);
	if (o->to && mf_select_parse_time(o->to, *tz, &sel->to_us)) {
		return cli_usage(cmd, "%s: --to: '%s' is not a time such as 2025-04-11 or 2025-04-10T17:00:00Z", cmd,
				 o->to);
	}
	sel->has_to = o->to != NULL;
	sel->to_local = o->to && mf_select_time_local(o->to, *tz);
	if (sel->has_from && sel->has_to && sel->from_local == sel->to_local && sel->to_us <= sel->from_us) {
		return cli_usage(cmd, "%s: --to %s is not after --from %s: nothing could be selected", cmd, o->to,
				 o->from);
	}
	if (o->hours && mf_select_parse_hours(o->hours, &sel->hours)) {
		return cli_usage(cmd,
				 "%s: --hours: '%s' is not a range of hours such as 8-17 (from 8:00 to 17:00) or 22-6",
				 cmd, o->hours);
	}
	if (o->weekdays && mf_select_parse_weekdays(o->weekdays, &sel->weekdays)) {
		return cli_usage(cmd, "%s: --weekdays: '%s' is not a list of days such as Mon-Fri or Sat,Sun", cmd,
				 o->weekdays);
	}
	if (o->pool && mf_select_parse_pools(o->pool, &sel->pools)) {
		return cli_usage(cmd, "%s: --pool: '%s' is not a list of pools (GCP, ZIIP, ZAAP, ZCBP, IFL, ICF)", cmd,
				 o->pool);
	}
	if (o->system && mf_select_parse_systems(o->system, sel)) {
		return cli_usage(cmd,
				 "%s: --system: '%s' is not a list of system names (1 to 15 characters each, at most "
				 "%d)",
				 cmd, o->system, MF_SELECT_MAX_SYSTEMS);
	}
	return -1;
}

bool cli_period_option(int c, const char *arg, struct cli_period *p)
{
	switch (c) {
	case CLI_OPT_TZ: p->tz = arg; return true;
	case CLI_OPT_FROM: p->from = arg; return true;
	case CLI_OPT_TO: p->to = arg; return true;
	case CLI_OPT_SYSTEM: p->system = arg; return true;
	case CLI_OPT_POOL: p->pool = arg; return true;
	case CLI_OPT_HOURS: p->hours = arg; return true;
	case CLI_OPT_WEEKDAYS: p->weekdays = arg; return true;
	default: return false;
	}
}

bool cli_mem_peak(const char *cmd, const char *arg, double *v)
{
	char *end;
	*v = strtod(arg, &end);
	if (end == arg || *end || !(*v > 0)) {
		cli_err("%s: --mem-peak takes the peak memory bandwidth in GB/s, not '%s'", cmd, arg);
		return false;
	}
	return true;
}

void cli_pipeline_diag(void *ctx, enum mf_pipeline_diag kind, const struct mf_error *e)
{
	struct cli_diag_state *st = ctx;
	switch (kind) {
	case MF_PIPELINE_SKIPPED:
		if (st->shown++ < CLI_MAX_SHOWN_SKIPS && !cli_quiet)
			cli_diag(e, "skipped");
		break;
	case MF_PIPELINE_ERROR: cli_diag(e, "error"); break;
	case MF_PIPELINE_FAILED: cli_err("%s%s", st->prefix ? st->prefix : "", e->msg); break;
	case MF_PIPELINE_HINT: fprintf(stderr, "mfstat: %s\n", e->msg); break;
	}
}

bool cli_inputs_option(int c, const char *arg, struct cli_inputs *in)
{
	switch (c) {
	case 'm': in->machine = arg; return true;
	case CLI_OPT_CPU_MHZ: in->cpu_mhz = arg; return true;
	case CLI_OPT_PERF_TZ: in->perf_tz = arg; return true;
	default: return false;
	}
}

/* --cpu-mhz: a decimal number of MHz from 1 to 100000 (no sign, exponent, hex, inf or nan). */
static bool parse_mhz(const char *s, double *v)
{
	size_t i, dots = 0, digits = 0;
	char *end;
	for (i = 0; s[i]; i++) {
		if (s[i] == '.')
			dots++;
		else if (isdigit((unsigned char)s[i]))
			digits++;
		else
			return false;
	}
	if (!digits || dots > 1)
		return false;
	*v = strtod(s, &end);
	return !*end && *v >= 1 && *v <= 100000;
}

int cli_inputs_setup(const char *cmd, const struct mf_kb *kb, struct cli_inputs *in, struct mf_pipeline_opts *po)
{
	struct mf_error e;
	int rc;

	in->zone = NULL;
	in->from[0] = '\0';
	if (in->machine && (mf_kb_resolve(kb, in->machine, strlen(in->machine), &po->family, &po->machine) != 0 ||
			    po->family == mf_kb_generic(kb)))
		return cli_usage(cmd, "%s: unknown machine '%s' (see mfstat machines)", cmd, in->machine);
	if (in->cpu_mhz && !parse_mhz(in->cpu_mhz, &po->cpu_mhz))
		return cli_usage(cmd,
				 "%s: --cpu-mhz takes the CPU speed in MHz, a number from 1 to 100000 such as 5200 "
				 "(cpu_speed= in /proc/service_levels), not '%s'",
				 cmd, in->cpu_mhz);
	if (in->perf_tz) {
		rc = mf_tz_open_wall(&in->zone, in->perf_tz, NULL, "--perf-tz", &e);
		if (rc == MF_EUSAGE)
			return cli_usage(cmd, "%s: %s", cmd, e.msg);
		if (rc) {
			cli_diag(&e, "error");
			return cli_exit_for(rc);
		}
		snprintf(in->from, sizeof(in->from), "from --perf-tz");
	} else {
		/* This machine's zone, as the C library takes it; unknown only matters to a perf file. */
		char where[300];
		rc = mf_tz_open_local(&in->zone, getenv("TZ"), NULL, NULL, where, sizeof(where), &e);
		if (rc)
			snprintf(in->from, sizeof(in->from), "%s", e.msg);
		else
			snprintf(in->from, sizeof(in->from),
				 "the zone of this machine%s%s; give --perf-tz ZONE when perf ran elsewhere",
				 strncmp(where, "no ", 3) ? ", from " : ": ", where);
	}
	po->perf_tz = in->zone;
	po->perf_tz_from = in->from;
	return -1;
}

void cli_inputs_free(struct cli_inputs *in)
{
	mf_tz_free(in->zone);
	in->zone = NULL;
}

/*
 * Before reading big inputs with threads (-j 2 and more, a file or the files together of 8 MiB
 * and more: what is read in parts or by a thread each): the heaps grow by 64 MiB at a time, not
 * by what each allocation lacks, for each growth is an mprotect call that stops the other
 * threads' page faults.  Reading an 877 MB CSV file in two parts spent 0.2 s less in the
 * kernel.  Only address space is taken (pages are still faulted in as they are used), but 64
 * MiB of it at the first allocation: small inputs and the other commands go without, so that
 * they run in little memory (`ulimit -v`).
 */
static void heap_pad_for(const struct mf_pipeline_opts *po, const char *const *files, size_t n)
{
#if defined(__GLIBC__) && defined(M_TOP_PAD)
	unsigned long long total = 0;
	size_t i;
	struct stat st;
	if (po->jobs < 2)
		return;
	for (i = 0; i < n; i++)
		if (strcmp(files[i], "-") != 0 && stat(files[i], &st) == 0 && S_ISREG(st.st_mode))
			total += (unsigned long long)st.st_size;
	if (total >= (8ull << 20))
		mallopt(M_TOP_PAD, 64 << 20);
#else
	(void)po;
	(void)files;
	(void)n;
#endif
}

int cli_read(const struct mf_pipeline_opts *po, const char *const *files, size_t n, const char *side,
	     struct mf_pipeline **pl, struct mf_report *rep)
{
	struct mf_error e;
	size_t i;
	int got;
	heap_pad_for(po, files, n);
	*pl = mf_pipeline_new(po);
	if (!*pl) {
		cli_nomem("setting up the reading of %zu input%s", n, n == 1 ? "" : "s");
		return EXIT_DATA;
	}
	/* The LPAR view first: type 70 records of any dump join the type 113 samples of every one. */
	for (i = 0; i < n; i++)
		mf_pipeline_prescan_file(*pl, files[i]);
	got = mf_pipeline_add_files(*pl, files, n, &e);
	if (got) /* a family that the data cannot name (several fit) is for the user to say: usage */
		return cli_exit_for(got);
	if (mf_pipeline_finish(*pl, rep)) /* said by the pipeline's diag, naming what it was making */
		return EXIT_DATA;
	if (rep->rows_skipped > CLI_MAX_SHOWN_SKIPS && !cli_quiet)
		cli_warn("%s%s%llu more rows skipped (not shown)", side ? side : "", side ? ": " : "",
			 (unsigned long long)(rep->rows_skipped - CLI_MAX_SHOWN_SKIPS));
	return -1;
}

int cli_report_usable(const char *cmd, const struct mf_report *rep)
{
	char text[1024];
	mf_report_left_out_text(rep, text, sizeof(text));
	if (rep->selected && rep->ngroups == 0 && text[0]) {
		cli_err("%s: nothing left after the selection: %s", cmd, text);
		return EXIT_DATA;
	}
	if (rep->rows_read == 0 && rep->nlpars) {
		/* Type 70 and 99 records alone: LPARs without counters, as a dump without type 113 is. */
		cli_err("%s: no SMF type 113 records in the inputs: type 70 and 99 records describe the "
			"LPARs, the counters are in type 113 records (give the dump that holds them too)",
			cmd);
		return EXIT_DATA;
	}
	return -1;
}

#if defined(__SANITIZE_ADDRESS__)
#define CLI_LEAK_CHECK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CLI_LEAK_CHECK 1
#endif
#endif

void cli_pipeline_done(struct mf_pipeline *pl)
{
	static struct mf_pipeline *kept[4]; /* reachable to the end: no leak to valgrind */
	static size_t nkept;
	const char *f = getenv("MFSTAT_FREE");
#ifdef CLI_LEAK_CHECK
	f = "1";
#endif
	if (!pl)
		return;
	if ((f && strcmp(f, "1") == 0) || nkept == sizeof(kept) / sizeof(kept[0]))
		mf_pipeline_free(pl);
	else
		kept[nkept++] = pl;
}

int cli_pipeline_begin(const char *cmd, const struct cli_period *period, const char *tables, struct cli_diag_state *ctx,
		       struct mf_tz **tz, struct mf_select *sel, struct mf_kb **kb, struct mf_pipeline_opts *po)
{
	int rc = cli_period_setup(period, cmd, tz, sel);
	*kb = NULL;
	if (rc >= 0) {
		mf_tz_free(*tz);
		*tz = NULL;
		return rc;
	}
	*kb = cli_load_kb(tables);
	if (!*kb) {
		mf_tz_free(*tz);
		*tz = NULL;
		return EXIT_DATA;
	}
	memset(po, 0, sizeof(*po));
	po->kb = *kb;
	po->tz = *tz;
	po->tz_default = !period->tz;
	po->diag = cli_pipeline_diag;
	po->ctx = ctx;
	return -1;
}
