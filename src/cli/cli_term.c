/* SPDX-License-Identifier: MIT */
/* Manners at a terminal: a long text through a pager, the progress of a long read (cli_term.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_term.h"

void cli_page_begin(struct cli_page *pg, bool no_pager)
{
	FILE *tmp;
	pg->saved = pg->held = -1;
	pg->no_pager = no_pager;
	if (!isatty(STDOUT_FILENO))
		return;
	tmp = tmpfile();
	if (!tmp)
		return; /* written straight to the terminal, as without a terminal */
	pg->held = dup(fileno(tmp));
	fclose(tmp);
	if (pg->held < 0)
		return;
	fflush(stdout);
	pg->saved = dup(STDOUT_FILENO);
	if (pg->saved < 0 || dup2(pg->held, STDOUT_FILENO) < 0) {
		if (pg->saved >= 0)
			close(pg->saved);
		close(pg->held);
		pg->saved = pg->held = -1;
	}
}

/* The rows of the terminal fd: TIOCGWINSZ, else $LINES, else 24. */
static unsigned long screen_rows(int fd)
{
	struct winsize ws;
	const char *l = getenv("LINES");
	char *end;
	unsigned long n;
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0)
		return ws.ws_row;
	if (l && *l) {
		n = strtoul(l, &end, 10);
		if (!*end && n > 0)
			return n;
	}
	return 24;
}

/* Whether the program cmd starts with (its first word) can be run: a path, or a name in $PATH. */
static bool runnable(const char *cmd)
{
	char word[4096], path[8192];
	const char *dirs = getenv("PATH"), *d;
	size_t n = strcspn(cmd, " \t\n");
	if (n == 0 || n >= sizeof(word))
		return false;
	memcpy(word, cmd, n);
	word[n] = '\0';
	if (strchr(word, '/'))
		return access(word, X_OK) == 0;
	for (d = dirs ? dirs : "/usr/bin:/bin"; d;) {
		const char *e = strchr(d, ':');
		size_t dl = e ? (size_t)(e - d) : strlen(d);
		snprintf(path, sizeof(path), "%.*s/%s", (int)dl, dl ? d : ".", word);
		if (access(path, X_OK) == 0)
			return true;
		d = e ? e + 1 : NULL;
	}
	return false;
}

/* Copies the held text to fd (errors, a closed pipe included, end the copy: the reader left). */
static void copy_held(int held, int fd)
{
	char buf[65536];
	off_t off = 0;
	ssize_t got;
	while ((got = pread(held, buf, sizeof(buf), off)) > 0) {
		ssize_t done = 0;
		while (done < got) {
			ssize_t w = write(fd, buf + done, (size_t)(got - done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return;
			done += w;
		}
		off += got;
	}
}

/* Runs pager (sh -c) with the held text on its standard input and waits for it. */
static void run_pager(const char *pager, int held)
{
	struct sigaction ign, old;
	int fds[2], status;
	pid_t pid;
	if (pipe(fds) != 0) {
		copy_held(held, STDOUT_FILENO);
		return;
	}
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		copy_held(held, STDOUT_FILENO);
		return;
	}
	if (pid == 0) {
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old); /* a pager quit early: EPIPE ends the copy, not mfstat */
	copy_held(held, fds[1]);
	close(fds[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGPIPE, &old, NULL);
}

void cli_page_end(struct cli_page *pg, const char *cmd, const char *hint)
{
	cli_page_end_to(pg, cmd, hint, "-o FILE");
}

void cli_page_end_to(struct cli_page *pg, const char *cmd, const char *hint, const char *to_file)
{
	char buf[65536];
	unsigned long rows = 0, screen;
	off_t off = 0;
	ssize_t got;
	char last = '\n';
	const char *pager = getenv("PAGER");

	if (pg->saved < 0)
		return;
	fflush(stdout);
	dup2(pg->saved, STDOUT_FILENO);
	close(pg->saved);
	pg->saved = -1;
	while ((got = pread(pg->held, buf, sizeof(buf), off)) > 0) {
		ssize_t i;
		for (i = 0; i < got; i++)
			rows += buf[i] == '\n';
		last = buf[got - 1];
		off += got;
	}
	rows += last != '\n';
	screen = screen_rows(STDOUT_FILENO);
	if (!pager)
		pager = "less -FRX";
	if (rows < screen) { /* it fits, with the prompt after it */
		copy_held(pg->held, STDOUT_FILENO);
	} else if (!pg->no_pager && *pager && strcmp(pager, "cat") && runnable(pager)) {
		run_pager(pager, pg->held);
	} else {
		copy_held(pg->held, STDOUT_FILENO);
		fprintf(stderr,
			"mfstat: %s: %lu rows, more than the terminal's %lu: to see them all, %s%s%s or a pager "
			"(| less%s)\n",
			cmd, rows, screen, hint ? hint : "", hint ? ", " : "", to_file,
			pg->no_pager ? ", or without --no-pager" : ", or PAGER=less");
	}
	close(pg->held);
	pg->held = -1;
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double (*cli_progress_clock)(void) = mono_now;

/* Bytes as B, KiB, MiB or GiB with one decimal into buf. */
static void human(double b, char *buf, size_t n)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	size_t u = 0;
	while (b >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		b /= 1024;
		u++;
	}
	snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

/* mf_progress.fn: the line, when it is time (any reading thread; one draws, the others go on). */
static void progress_fn(void *ctx, struct mf_progress *p)
{
	struct cli_progress *cp = ctx;
	double now, secs;
	unsigned long long bytes, total, samples;
	char line[256], b[32], t[32], r[32];
	int len;
	if (pthread_mutex_trylock(&cp->lock) != 0)
		return;
	now = cli_progress_clock();
	if (now - cp->start < cp->after || (cp->width && now - cp->last < 0.25)) {
		pthread_mutex_unlock(&cp->lock);
		return;
	}
	cp->last = now;
	secs = now - cp->start;
	bytes = atomic_load(&p->bytes);
	total = atomic_load(&p->total);
	samples = atomic_load(&p->samples);
	if (total && bytes > total)
		bytes = total; /* a file read again (in parts, then whole) */
	human((double)bytes, b, sizeof(b));
	human(secs > 0 ? (double)bytes / secs : 0, r, sizeof(r));
	if (total) {
		human((double)total, t, sizeof(t));
		len = snprintf(line, sizeof(line), "mfstat: reading %s of %s (%.0f%%), %llu samples, %s/s", b, t,
			       100.0 * (double)bytes / (double)total, samples, r);
	} else {
		len = snprintf(line, sizeof(line), "mfstat: reading %s, %llu samples, %s/s", b, samples, r);
	}
	if (len < 0)
		len = 0;
	if (len >= (int)sizeof(line))
		len = (int)sizeof(line) - 1;
	/* Spaces over the rest of a longer line before, then back to its start. */
	fprintf(stderr, "\r%s%*s", line, cp->width > len ? cp->width - len : 0, "");
	fflush(stderr);
	if (len > cp->width)
		cp->width = len;
	pthread_mutex_unlock(&cp->lock);
}

/* Spaces over the line shown, back to its start (cp->lock held). */
static void clear_line(struct cli_progress *cp)
{
	if (cp->width) {
		fprintf(stderr, "\r%*s\r", cp->width, "");
		fflush(stderr);
	}
	cp->width = 0;
}

/* mf_pipeline_opts.diag: the line cleared, then the command's own diagnostics. */
static void progress_diag(void *ctx, enum mf_pipeline_diag kind, const struct mf_error *e)
{
	struct cli_progress *cp = ctx;
	pthread_mutex_lock(&cp->lock);
	clear_line(cp);
	if (cp->diag)
		cp->diag(cp->diag_ctx, kind, e);
	pthread_mutex_unlock(&cp->lock);
}

void cli_progress_begin(struct cli_progress *cp, struct mf_pipeline_opts *po)
{
	const char *a = getenv("MFSTAT_PROGRESS_AFTER");
	char *end;
	memset(cp, 0, sizeof(*cp));
	if (cli_quiet || !isatty(STDERR_FILENO))
		return;
	cp->after = 2;
	if (a && *a) {
		double v = strtod(a, &end);
		if (!*end && v >= 0)
			cp->after = v;
	}
	pthread_mutex_init(&cp->lock, NULL);
	atomic_init(&cp->p.bytes, 0);
	atomic_init(&cp->p.total, 0);
	atomic_init(&cp->p.samples, 0);
	cp->p.fn = progress_fn;
	cp->p.ctx = cp;
	cp->start = cli_progress_clock();
	cp->on = true;
	po->progress = &cp->p;
	cp->diag = po->diag;
	cp->diag_ctx = po->ctx;
	po->diag = progress_diag;
	po->ctx = cp;
}

void cli_progress_end(struct cli_progress *cp)
{
	if (!cp->on)
		return;
	pthread_mutex_lock(&cp->lock);
	clear_line(cp);
	cp->on = false;
	pthread_mutex_unlock(&cp->lock); /* kept: the pipeline's diag still passes through cp */
}
