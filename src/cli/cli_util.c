/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
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
#include "mfstat/base/inbytes.h"

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
	printf("mfstat %s\n", MFSTAT_VERSION);
	if (!kb)
		return EXIT_DATA;
	/* The IBM CPU MF formula deck the built-in knowledge base follows: its latest revision. */
	printf("knowledge base: IBM CPU MF formulas revision %s, %zu families, %zu machine types\n", mf_kb_revision(kb),
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

int cli_out_ext_check(const char *cmd, const char *given, const char *out, const char *exts, const char *formats)
{
	const char *base, *dot, *p, *e;
	size_t len, i;
	bool letter = false;
	if (given || !out || strcmp(out, "-") == 0)
		return -1;
	base = strrchr(out, '/');
	base = base ? base + 1 : out;
	dot = strrchr(base, '.');
	if (!dot || dot == base)
		return -1; /* no extension, or a hidden file's name */
	len = strlen(dot + 1);
	for (i = 0; i < len; i++) {
		if (!isalnum((unsigned char)dot[1 + i]))
			return -1; /* "run.2025-03": not an extension */
		letter |= isalpha((unsigned char)dot[1 + i]) != 0;
	}
	if (!len || len > 8 || !letter)
		return -1;
	for (p = exts; *p; p = *e ? e + 1 : e) {
		e = strchr(p, ' ');
		if (!e)
			e = p + strlen(p);
		if ((size_t)(e - p) == len + 1 && strncasecmp(p, dot, len + 1) == 0)
			return -1;
	}
	if (!formats)
		return cli_usage(cmd, "%s: -o %s: %s writes no %s file: end the name in one of %s", cmd, out, cmd, dot,
				 exts);
	return cli_usage(cmd, "%s: -o %s: %s writes no %s file: end the name in one of %s, or give -f (%s) to keep it",
			 cmd, out, cmd, dot, exts, formats);
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
 * Where a file is written: cli_target_walk resolves the path itself, one
 * component at a time, following symbolic links as the kernel would (at most
 * MAX_HOPS of them, relative targets from the link's own directory) but
 * applying the kernel's protected_symlinks rule at every link on the way,
 * whatever /proc/sys/fs/protected_symlinks says: a link that sits in a sticky
 * directory everyone may write (/tmp) is followed only when it is the user's
 * own or the directory owner's.  Someone else's link planted in /tmp is never
 * a way to make mfstat replace the user's files: neither as the file itself,
 * nor as a link in a chain (my.csv -> /tmp/x -> ...), nor as a directory
 * (/tmp/their-link/out.csv).  The walk ends with a descriptor of the real
 * directory that holds the file (O_PATH), so what is created later is created
 * there, whatever is renamed meanwhile.
 */
#define MAX_HOPS 40 /* symbolic links followed in one path, the kernel's limit */

static bool link_trusted(int dirfd, const struct stat *lst)
{
	struct stat dst;
	if (fstat(dirfd, &dst) != 0)
		return false;
	return !(dst.st_mode & S_ISVTX) || !(dst.st_mode & S_IWOTH) || lst->st_uid == geteuid() ||
	       lst->st_uid == dst.st_uid;
}

/* where (the directories walked so far, for messages) after one more component. */
static void where_push(char *where, size_t n, const char *name)
{
	size_t len = strlen(where);
	snprintf(where + len, n - len, "%s%s", len && where[len - 1] != '/' ? "/" : "", name);
}

static void where_pop(char *where, size_t n)
{
	size_t len = strlen(where);
	char *slash;
	if (!len || strcmp(where, "..") == 0 || (len > 2 && strcmp(where + len - 3, "/..") == 0)) {
		where_push(where, n, "..");
		return;
	}
	if (strcmp(where, "/") == 0)
		return;
	slash = strrchr(where, '/');
	if (!slash)
		where[0] = '\0';
	else
		slash[slash == where] = '\0';
}

void cli_target_free(struct cli_target *t)
{
	if (t->dirfd >= 0)
		close(t->dirfd);
	t->dirfd = -1;
	free(t->name);
	t->name = NULL;
}

int cli_target_walk(const char *path, bool follow_last, struct cli_target *t)
{
	char where[PATH_MAX] = "", name[NAME_MAX + 1], target[PATH_MAX];
	char *rest = NULL, *p;
	int dfd, nfd, err = 0;

	memset(t, 0, sizeof(*t));
	t->dirfd = -1;
	if (!*path) {
		errno = ENOENT;
		return -1;
	}
	if (!(rest = strdup(path))) {
		errno = ENOMEM;
		return -1;
	}
	if (path[0] == '/')
		snprintf(where, sizeof(where), "/");
	dfd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		err = errno;
		goto fail;
	}
	p = rest;
	for (;;) {
		struct stat st;
		size_t len;
		bool last;
		while (*p == '/')
			p++;
		if (!*p) { /* the path names a directory ("/tmp/", "..") */
			err = EISDIR;
			goto fail;
		}
		len = strcspn(p, "/");
		if (len > NAME_MAX) {
			err = ENAMETOOLONG;
			goto fail;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		last = *p == '\0';
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
			if (last) {
				err = EISDIR;
				goto fail;
			}
			if (name[1]) {
				if ((nfd = openat(dfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
					err = errno;
					goto fail;
				}
				close(dfd);
				dfd = nfd;
				where_pop(where, sizeof(where));
			}
			continue;
		}
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			if (errno == ENOENT && last)
				break; /* a new file */
			err = errno;
			goto fail;
		}
		if (S_ISLNK(st.st_mode) && (!last || follow_last)) {
			ssize_t n;
			char *next;
			if (++t->hops > MAX_HOPS) {
				err = ELOOP;
				goto fail;
			}
			if (!link_trusted(dfd, &st)) {
				snprintf(t->hop, sizeof(t->hop), "%s", where);
				where_push(t->hop, sizeof(t->hop), name);
				t->hop_uid = (long)st.st_uid;
				t->hop_is_path = t->hops == 1 && last;
				err = EPERM;
				goto fail;
			}
			n = readlinkat(dfd, name, target, sizeof(target));
			if (n < 0 || (size_t)n >= sizeof(target)) {
				err = n < 0 ? errno : ENAMETOOLONG;
				goto fail;
			}
			if (n == 0) {
				err = ENOENT;
				goto fail;
			}
			target[n] = '\0';
			/*
			 * A link of /proc (/dev/stdout -> /proc/self/fd/1 -> "pipe:[1234]") is the kernel's:
			 * its text names nothing, what it opens is the file.  For any other link the text
			 * names what the kernel would follow.
			 */
			if (target[0] != '/' && fstatat(dfd, target, &st, AT_SYMLINK_NOFOLLOW) != 0 &&
			    fstatat(dfd, name, &st, 0) == 0) {
				if (!last) {
					err = ENOTDIR;
					goto fail;
				}
				t->exists = t->magic = true;
				t->st = st;
				break;
			}
			/* The link's text takes its place in what is left of the path. */
			if (!(next = malloc((size_t)n + strlen(p) + 1))) {
				err = ENOMEM;
				goto fail;
			}
			memcpy(next, target, (size_t)n);
			strcpy(next + n, p);
			free(rest);
			rest = p = next;
			if (target[0] == '/') {
				close(dfd);
				if ((dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
					err = errno;
					goto fail;
				}
				snprintf(where, sizeof(where), "/");
			}
			continue;
		}
		if (last) {
			t->exists = true;
			t->st = st;
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			err = ENOTDIR;
			goto fail;
		}
		if ((nfd = openat(dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			err = errno;
			goto fail;
		}
		close(dfd);
		dfd = nfd;
		where_push(where, sizeof(where), name);
	}
	free(rest);
	if (!(t->name = strdup(name))) {
		close(dfd);
		errno = ENOMEM;
		return -1;
	}
	t->dirfd = dfd;
	return 0;
fail:
	free(rest);
	if (dfd >= 0)
		close(dfd);
	errno = err;
	return -1;
}

void cli_target_say(const char *path, const struct cli_target *t, int err, const char *tail)
{
	if (err == EPERM && t->hop[0] && t->hop_is_path)
		cli_err("%s: a symbolic link in a shared sticky directory, owned by someone else: refusing to write "
			"through it (remove it, or name another file)%s",
			path, tail);
	else if (err == EPERM && t->hop[0])
		cli_err("%s: on the way, %s is a symbolic link in a shared sticky directory, owned by someone else "
			"(uid %ld): refusing to write through it (remove it, or name another file)%s",
			path, t->hop, t->hop_uid, tail);
	else if (err == ELOOP)
		cli_err("%s: cannot create: more than %d symbolic links on the way (a loop?)%s", path, MAX_HOPS, tail);
	else
		cli_err("%s: cannot create: %s%s", path, strerror(err), tail);
}

bool cli_same_target(const char *a, bool follow_a, const char *b, bool follow_b)
{
	struct cli_target ta, tb;
	struct stat da, db;
	bool same = false;
	if (!a || !b || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
		return false;
	if (cli_target_walk(a, follow_a, &ta) != 0)
		return false;
	if (cli_target_walk(b, follow_b, &tb) == 0) {
		if (ta.exists && tb.exists)
			same = ta.st.st_dev == tb.st.st_dev && ta.st.st_ino == tb.st.st_ino;
		else
			same = !ta.exists && !tb.exists && fstat(ta.dirfd, &da) == 0 && fstat(tb.dirfd, &db) == 0 &&
			       da.st_dev == db.st_dev && da.st_ino == db.st_ino && strcmp(ta.name, tb.name) == 0;
		cli_target_free(&tb);
	}
	cli_target_free(&ta);
	return same;
}

/*
 * Files that replace another (every -o FILE, measure -d FILE --force) are
 * written to a new file in the same directory and put in place only when
 * complete, so a failed or interrupted run leaves the old file as it was:
 *
 * - where the file system allows, an unnamed file (O_TMPFILE), linked under a
 *   temporary name and renamed over the target at the end: until then it has
 *   no name, so nothing is left behind whatever ends the process, SIGKILL
 *   included;
 * - elsewhere a named temporary file .NAME.PID.N.tmp (O_EXCL), removed at exit
 *   and on every signal that ends the process (SIGINT, SIGTERM, SIGHUP,
 *   SIGQUIT, SIGPIPE, SIGALRM, SIGVTALRM, SIGPROF, SIGUSR1, SIGUSR2, SIGXCPU,
 *   SIGXFSZ; one ignored when mfstat started stays ignored), so that only
 *   SIGKILL can leave one.
 *
 * A file that is replaced keeps its mode (a 0600 report stays 0600) and, where
 * the user may give it (root), its owner and group.
 *
 * MFSTAT_TEST_NO_TMPFILE=1, read only by the tests, makes the named temporary
 * file the only way (as on a file system without O_TMPFILE), so that path is
 * tested too.
 */
#define MAX_PENDING 4

struct pending {
	bool used;
	FILE *fp;   /* cli_open_out's stream, or NULL */
	int dirfd;  /* the directory of the file */
	char *name; /* the file to replace, in dirfd */
	char *tmp;  /* the named temporary file in dirfd, or NULL for an unnamed one */
	int keep;   /* our own descriptor of the new file: synced, and linked when unnamed */
};

static struct pending pending[MAX_PENDING];
/* What the signal handler removes: the named temporary files, set with the signals blocked. */
static volatile sig_atomic_t npending_sig;
static int sig_dirfd[MAX_PENDING];
static const char *sig_tmp[MAX_PENDING];
static volatile sig_atomic_t owner_pid; /* a child forked before exec (measure) removes nothing */
static bool cleanup_installed, handlers_on;
static const int caught[] = {SIGINT,    SIGTERM, SIGHUP,  SIGQUIT, SIGPIPE, SIGALRM,
			     SIGVTALRM, SIGPROF, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ};
#define NCAUGHT (sizeof(caught) / sizeof(caught[0]))
static struct sigaction old_act[NCAUGHT];

static void block_caught(sigset_t *old)
{
	sigset_t set;
	size_t i;
	sigemptyset(&set);
	for (i = 0; i < NCAUGHT; i++)
		sigaddset(&set, caught[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void sync_sig_paths(void)
{
	size_t i, n = 0;
	npending_sig = 0;
	for (i = 0; i < MAX_PENDING; i++)
		if (pending[i].used && pending[i].tmp) {
			sig_dirfd[n] = pending[i].dirfd;
			sig_tmp[n++] = pending[i].tmp;
		}
	npending_sig = (sig_atomic_t)n;
}

static void on_signal(int sig)
{
	sig_atomic_t i;
	for (i = 0; i < npending_sig && getpid() == (pid_t)owner_pid; i++)
		unlinkat(sig_dirfd[i], sig_tmp[i], 0);
	signal(sig, SIG_DFL);
	raise(sig); /* delivered, by default, once the handler returns */
}

static void set_handlers(bool on)
{
	size_t i;
	if (on == handlers_on)
		return;
	handlers_on = on;
	for (i = 0; i < NCAUGHT; i++) {
		if (on) {
			struct sigaction sa;
			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = on_signal;
			sigemptyset(&sa.sa_mask);
			sigaction(caught[i], &sa, &old_act[i]);
			/* Ignored when mfstat started (nohup, trap '' XFSZ): stays ignored. */
			if (old_act[i].sa_handler == SIG_IGN)
				sigaction(caught[i], &old_act[i], NULL);
		} else {
			sigaction(caught[i], &old_act[i], NULL);
		}
	}
}

/* Frees slot (signals blocked by the caller); the handlers go when no slot is left. */
static void release(int slot)
{
	struct pending *p = &pending[slot];
	size_t i;
	if (p->keep >= 0)
		close(p->keep);
	if (p->dirfd >= 0)
		close(p->dirfd);
	free(p->name);
	free(p->tmp);
	memset(p, 0, sizeof(*p));
	p->keep = p->dirfd = -1;
	sync_sig_paths();
	for (i = 0; i < MAX_PENDING && !pending[i].used; i++)
		;
	if (i == MAX_PENDING)
		set_handlers(false);
}

void cli_replace_abort(int slot)
{
	sigset_t old;
	if (slot < 0 || slot >= MAX_PENDING || !pending[slot].used)
		return;
	block_caught(&old);
	if (pending[slot].tmp)
		unlinkat(pending[slot].dirfd, pending[slot].tmp, 0);
	release(slot);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void remove_pending(void)
{
	int i;
	if (getpid() != (pid_t)owner_pid)
		return;
	for (i = 0; i < MAX_PENDING; i++)
		cli_replace_abort(i);
}

static bool tmpfile_allowed(void)
{
	const char *s = getenv("MFSTAT_TEST_NO_TMPFILE"); /* the tests' seam, see above */
	return !s || !*s || strcmp(s, "0") == 0;
}

/* The temporary name number k for name: .NAME.PID.K.tmp (NAME cut so that it fits NAME_MAX). */
static char *tmp_name(const char *name, unsigned k)
{
	char *s = malloc(NAME_MAX + 1);
	if (s)
		snprintf(s, NAME_MAX + 1, ".%.200s.%ld.%u.tmp", name, (long)getpid(), k);
	return s;
}

int cli_replace_begin(struct cli_target *t, mode_t mode, bool keep_attrs, int *fdp)
{
	struct pending *p;
	sigset_t old;
	char *tmp = NULL;
	int slot, fd = -1, keep = -1, err;
	unsigned k;

	for (slot = 0; slot < MAX_PENDING && pending[slot].used; slot++)
		;
	if (slot == MAX_PENDING) {
		errno = EMFILE;
		return -1;
	}
	if (tmpfile_allowed()) {
		char proc[64];
		struct stat st;
		/* Unnamed; linked at the end by AT_EMPTY_PATH (root) or through /proc/self/fd. */
		fd = openat(t->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (fd >= 0 &&
		    ((geteuid() != 0 && stat(proc, &st) != 0) || (keep = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0)) {
			close(fd);
			fd = -1;
		}
	}
	for (k = 0; fd < 0 && k < 100; k++) {
		free(tmp);
		if (!(tmp = tmp_name(t->name, k))) {
			errno = ENOMEM;
			return -1;
		}
		/* 0666 less the umask for a report, as for any file the user creates. */
		fd = openat(t->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd >= 0 && keep < 0 && (keep = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		err = errno;
		close(fd);
		unlinkat(t->dirfd, tmp, 0);
		fd = -1;
		errno = err;
	}
	if (fd < 0) {
		err = errno;
		free(tmp);
		errno = err;
		return -1;
	}
	if (keep_attrs && t->exists && S_ISREG(t->st.st_mode)) {
		/* The owner first (a change of owner clears set-id bits), then the mode. */
		if (t->st.st_uid != geteuid() || t->st.st_gid != getegid())
			(void)!fchown(fd, t->st.st_uid, t->st.st_gid);
		(void)fchmod(fd, t->st.st_mode & 07777);
	}
	block_caught(&old);
	p = &pending[slot];
	p->used = true;
	p->fp = NULL;
	p->dirfd = t->dirfd;
	p->name = t->name;
	p->tmp = tmp;
	p->keep = keep;
	t->dirfd = -1;
	t->name = NULL;
	sync_sig_paths();
	owner_pid = (sig_atomic_t)getpid();
	if (!cleanup_installed) {
		atexit(remove_pending);
		cleanup_installed = true;
	}
	set_handlers(true);
	sigprocmask(SIG_SETMASK, &old, NULL);
	*fdp = fd;
	return slot;
}

/* Links the unnamed file of p under a new temporary name: 0 (p->tmp set), or -1 with errno. */
static int link_unnamed(struct pending *p)
{
	char proc[64];
	unsigned k;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", p->keep);
	for (k = 0; k < 100; k++) {
		int rc;
		if (!(p->tmp = tmp_name(p->name, k))) {
			errno = ENOMEM;
			return -1;
		}
		rc = linkat(p->keep, "", p->dirfd, p->tmp, AT_EMPTY_PATH);
		if (rc != 0 && errno != EEXIST)
			rc = linkat(AT_FDCWD, proc, p->dirfd, p->tmp, AT_SYMLINK_FOLLOW);
		if (rc == 0)
			return 0;
		free(p->tmp);
		p->tmp = NULL;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

int cli_replace_commit(int slot)
{
	struct pending *p;
	sigset_t old;
	int rc = 0, err = 0;
	if (slot < 0 || slot >= MAX_PENDING || !pending[slot].used) {
		errno = EINVAL;
		return -1;
	}
	p = &pending[slot];
	/* On the disk before it takes the old file's place (a device or pipe cannot: EINVAL). */
	if (fsync(p->keep) != 0 && errno != EINVAL) {
		err = errno;
		cli_replace_abort(slot);
		errno = err;
		return -1;
	}
	block_caught(&old);
	if (!p->tmp && link_unnamed(p) != 0) {
		rc = -1;
		err = errno;
	}
	if (!rc && renameat(p->dirfd, p->tmp, p->dirfd, p->name) != 0) {
		rc = -1;
		err = errno;
		unlinkat(p->dirfd, p->tmp, 0);
	}
	release(slot);
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return rc;
}

/* FILE written in place (a device, a FIFO, or a directory that takes no new file), as the shell's > does. */
static FILE *open_in_place(const char *path, const struct cli_target *t)
{
	FILE *fp = NULL;
	int fd = openat(t->dirfd, t->name,
			O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC | (t->magic ? 0 : O_NOFOLLOW), 0666);
	if (fd >= 0 && !(fp = fdopen(fd, "w")))
		close(fd);
	if (!fp)
		cli_err("%s: cannot create: %s", path, strerror(errno));
	return fp;
}

FILE *cli_open_out(const char *path)
{
	struct cli_target t;
	FILE *fp;
	int fd, slot, err;

	if (path == cli_out_stderr)
		return stderr;
	if (!path || strcmp(path, "-") == 0)
		return stdout;
	if (cli_target_walk(path, true, &t) != 0) {
		cli_target_say(path, &t, errno, "");
		return NULL;
	}
	if (t.exists && (!S_ISREG(t.st.st_mode) || t.magic)) {
		/* A device or a pipe (say /dev/null, /dev/stdout) is written in place: it cannot be replaced. */
		fp = open_in_place(path, &t);
		cli_target_free(&t);
		return fp;
	}
	slot = cli_replace_begin(&t, 0666, true, &fd);
	if (slot < 0) {
		err = errno;
		if (err == EMFILE || (t.exists && (err == EACCES || err == EPERM || err == EROFS))) {
			/* A writable file in a directory we may not add to: in place, as before, and say so. */
			if (err != EMFILE)
				cli_warn("%s: cannot create a temporary file beside it (%s): writing it in place", path,
					 strerror(err));
			fp = open_in_place(path, &t);
		} else {
			cli_err("%s: cannot create: %s", path, strerror(err));
			fp = NULL;
		}
		cli_target_free(&t);
		return fp;
	}
	if (!(fp = fdopen(fd, "w"))) {
		cli_err("%s: cannot create: %s", path, strerror(errno));
		close(fd);
		cli_replace_abort(slot);
		return NULL;
	}
	pending[slot].fp = fp;
	return fp;
}

int cli_close_out(FILE *fp, const char *path)
{
	int bad = ferror(fp), err = 0, slot;

	if (fp == stderr) /* a report on standard error: nowhere to say its write error */
		return fflush(stderr) != 0 || bad ? EXIT_DATA : EXIT_OK;
	if (fp == stdout) {
		if (fflush(stdout) != 0)
			bad = 1;
		err = errno;
	} else {
		for (slot = 0; slot < MAX_PENDING && !(pending[slot].used && pending[slot].fp == fp); slot++)
			;
		if (fflush(fp) != 0)
			bad = 1;
		err = errno;
		if (fclose(fp) != 0 && !bad) {
			bad = 1;
			err = errno;
		}
		if (slot < MAX_PENDING) {
			if (bad)
				cli_replace_abort(slot);
			else if (cli_replace_commit(slot) != 0) {
				bad = 1;
				err = errno;
			}
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

const char cli_out_stderr[] = "<stderr>";

bool cli_report_carries_warnings(const char *out, const char *format)
{
	if (strcmp(format, "json") == 0 || strcmp(format, "html") == 0)
		return true; /* data, and a page (a document, written to a file whatever its name) */
	return out && out != cli_out_stderr && strcmp(out, "-") != 0;
}

int cli_write_report(const char *out, const char *format, const struct mf_report *rep)
{
	return cli_write_report_tail(out, format, rep, NULL, NULL);
}

int cli_write_report_tail(const char *out, const char *format, const struct mf_report *rep,
			  void (*tail)(FILE *fp, const void *ctx), const void *ctx)
{
	const struct mf_writer *w = mf_writer_find(format);
	struct mf_report r;
	FILE *fp;
	int c, rc;
	if (!w) {
		return cli_usage("", "no writer for format '%s'", format);
	}
	r = *rep;
	if (!cli_report_carries_warnings(out, format))
		r.nwarnings = 0; /* said on standard error (cli_warn), not again in the report */
	fp = cli_open_out(out);
	if (!fp)
		return EXIT_DATA;
	c = w->write(fp, &r);
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
	if (o->tz && strcasecmp(o->tz, "local") == 0) {
		/* --tz local: this machine's zone, as the C library takes it ($TZ, else /etc/localtime). */
		char where[300];
		rc = mf_tz_open_local(tz, getenv("TZ"), NULL, NULL, where, sizeof(where), &e);
	} else {
		rc = mf_tz_open(tz, o->tz ? o->tz : "smf", NULL, &e);
	}
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
	if (in->perf_tz && strcasecmp(in->perf_tz, "local") != 0) {
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
	int got;
	heap_pad_for(po, files, n);
	*pl = mf_pipeline_new(po);
	if (!*pl) {
		cli_nomem("setting up the reading of %zu input%s", n, n == 1 ? "" : "s");
		return EXIT_DATA;
	}
	/* Type 70 records of any dump join the type 113 samples of every one: each dump read once. */
	got = mf_pipeline_read_files(*pl, files, n, &e);
	if (getenv("MFSTAT_TEST_BYTES_READ")) /* the tests' seam: the input bytes read, each once */
		fprintf(stderr, "mfstat: %llu bytes of input read\n", mf_input_bytes_read());
	if (got) /* a family that the data cannot name (several fit) is for the user to say: usage */
		return cli_exit_for(got);
	if (mf_pipeline_finish(*pl, rep)) /* said by the pipeline's diag, naming what it was making */
		return EXIT_DATA;
	if (getenv("MFSTAT_TEST_STREAM")) { /* the tests' seam: what streaming held and spilled */
		struct mf_pipeline_stream_counts c;
		if (mf_pipeline_stream_counts(*pl, &c))
			fprintf(stderr,
				"mfstat: streamed %llu rows, at most %zu groups and %zu identities held, %llu runs "
				"spilled (%llu bytes)\n",
				(unsigned long long)c.rows, c.most_groups, c.most_identities,
				(unsigned long long)c.runs, (unsigned long long)c.bytes);
		else
			fprintf(stderr, "mfstat: not streamed\n");
	}
	if (rep->rows_skipped > CLI_MAX_SHOWN_SKIPS && !cli_quiet)
		cli_warn("%s%s%llu more rows skipped (not shown)", side ? side : "", side ? ": " : "",
			 (unsigned long long)(rep->rows_skipped - CLI_MAX_SHOWN_SKIPS));
	return -1;
}

int cli_db_level(const char *cmd, const char *s, int *level)
{
	int l;
	if (strcmp(s, "auto") == 0) {
		*level = -1;
		return 1;
	}
	for (l = 0; l < MF_DB_NLEVELS; l++)
		if (strcmp(s, mf_db_level_name(l)) == 0) {
			*level = l;
			return 1;
		}
	cli_usage(cmd, "%s: --level must be auto, sample, hour, day or month, not '%s'", cmd, s);
	return 0;
}

int cli_read_db(const struct mf_pipeline_opts *po, const struct mf_kb *kb, const char *db_path, int level,
		struct mf_pipeline **pl, struct mf_report *rep)
{
	struct mf_db_ask ask = {po->by, po->select, po->tz, level};
	struct mf_db_choice choice;
	struct mf_db *db = NULL;
	struct mf_error e;
	int got;
	mf_error_clear(&e);
	*pl = NULL;
	got = mf_db_open(&db, db_path, MF_DB_READ, &e);
	if (got) {
		cli_diag(&e, "error");
		return cli_exit_for(got);
	}
	*pl = mf_pipeline_new(po);
	if (!*pl) {
		mf_db_close(db);
		cli_nomem("setting up the reading of %s", db_path);
		return EXIT_DATA;
	}
	got = mf_db_report_read(*pl, db, kb, &ask, &choice, &e); /* errors told by the pipeline's diag */
	mf_db_close(db);
	if (got)
		return cli_exit_for(got);
	if (mf_pipeline_finish(*pl, rep))
		return EXIT_DATA;
	if (rep->rows_skipped > CLI_MAX_SHOWN_SKIPS && !cli_quiet)
		cli_warn("%llu more rows skipped (not shown)",
			 (unsigned long long)(rep->rows_skipped - CLI_MAX_SHOWN_SKIPS));
	return -1;
}

int cli_report_usable(const char *cmd, const struct mf_pipeline *pl, const struct mf_report *rep)
{
	char text[1024], span[1024];
	mf_report_left_out_text(rep, text, sizeof(text));
	if (rep->selected && rep->ngroups == 0 && text[0]) {
		/* What the data holds, so the next try can aim: its period and systems. */
		if (pl && mf_pipeline_left_out_span(pl, span, sizeof(span)))
			cli_err("%s: nothing left after the selection: %s; the data covers %s", cmd, text, span);
		else
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
