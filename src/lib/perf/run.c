/* SPDX-License-Identifier: MIT */
/*
 * The one runner of a program under counters, for `stat` and `measure`: fork,
 * hold the child until the caller has opened its counters (enable_on_exec
 * starts them at exec), let it exec, wait for it while the caller reads or
 * drains, and hand back its status and times.
 */
#include "mfstat/perf/perf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double mf_perf_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void mf_perf_sleep_until(double t)
{
	double left = t - mf_perf_now();
	struct timespec ts;
	if (left <= 0)
		return;
	ts.tv_sec = (time_t)left;
	ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * The program being run, for the SIGTERM/SIGHUP forwarder: a signal handler
 * can reach nothing else.  Set only while one program runs.
 */
static volatile sig_atomic_t child_pid;

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

struct saved_signals {
	bool set, term;
	struct sigaction intr, quit, term_, hup;
};

/* ^C and ^\ go to the program, which they may end; the caller lives on to report. */
static void hold_signals(struct saved_signals *s, pid_t pid, bool forward)
{
	struct sigaction ign, fwd;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &s->intr);
	sigaction(SIGQUIT, &ign, &s->quit);
	if (forward) {
		memset(&fwd, 0, sizeof(fwd));
		fwd.sa_handler = forward_signal;
		sigemptyset(&fwd.sa_mask);
		child_pid = pid;
		sigaction(SIGTERM, &fwd, &s->term_);
		sigaction(SIGHUP, &fwd, &s->hup);
	}
	s->set = true;
	s->term = forward;
}

static void restore_signals(struct saved_signals *s)
{
	if (!s->set)
		return;
	if (s->term) {
		child_pid = 0;
		sigaction(SIGTERM, &s->term_, NULL);
		sigaction(SIGHUP, &s->hup, NULL);
	}
	sigaction(SIGINT, &s->intr, NULL);
	sigaction(SIGQUIT, &s->quit, NULL);
	s->set = false;
}

/* The child: waits for the go byte, then becomes the program; an exec failure goes back through fail. */
static void child(char *const argv[], int go, int fail)
{
	char b;
	int e;
	if (read(go, &b, 1) != 1)
		_exit(127); /* the parent gave up: never run the program */
	execvp(argv[0], argv);
	e = errno;
	if (write(fail, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Waits for the program to exit, calling the hooks meanwhile. */
static int wait_loop(struct mf_perf_child *ch, const struct mf_perf_hooks *h, struct rusage *ru, struct mf_error *err)
{
	int rc = 0;
	if (!h->wait) {
		while (wait4(ch->pid, &ch->status, 0, ru) < 0)
			if (errno != EINTR)
				return mf_error_set(err, MF_EIO, ch->argv[0], 0, 0, "wait4: %s", strerror(errno));
		return 0;
	}
	for (;;) {
		pid_t w;
		rc = h->wait(h->ctx, ch, err);
		if (rc)
			return rc;
		w = wait4(ch->pid, &ch->status, WNOHANG, ru);
		if (w == ch->pid)
			return 0;
		if (w < 0 && errno != EINTR && errno != EAGAIN)
			return mf_error_set(err, MF_EIO, ch->argv[0], 0, 0, "wait4: %s", strerror(errno));
		if (h->tick && (rc = h->tick(h->ctx, ch, err)) != 0)
			return rc;
	}
}

/* Lets the program go: its start times, the go byte, and whether it could exec. */
static int release(struct mf_perf_child *ch, int *go, int fail, struct mf_error *err)
{
	struct timespec rt;
	ssize_t got;
	int e = 0;
	clock_gettime(CLOCK_REALTIME, &rt);
	ch->start_us = (int64_t)rt.tv_sec * 1000000 + rt.tv_nsec / 1000;
	ch->t0 = mf_perf_now();
	if (write(*go, "g", 1) != 1)
		return mf_error_set(err, MF_ENOEXEC, ch->argv[0], 0, 0, "cannot start the program: %s",
				    strerror(errno));
	close(*go);
	*go = -1;
	do
		got = read(fail, &e, sizeof(e));
	while (got < 0 && errno == EINTR);
	if (got == (ssize_t)sizeof(e)) {
		while (waitpid(ch->pid, &ch->status, 0) < 0 && errno == EINTR)
			;
		ch->pid = -1;
		ch->exec_errno = e;
		return mf_error_set(err, MF_ENOEXEC, ch->argv[0], 0, 0, "cannot run %s: %s", ch->argv[0], strerror(e));
	}
	return 0;
}

int mf_perf_child_run(struct mf_perf_child *ch, const struct mf_perf_hooks *h, struct mf_error *err)
{
	int go[2] = {-1, -1}, fail[2] = {-1, -1}, rc;
	struct saved_signals sig;
	struct rusage ru;
	bool released = false;

	memset(&sig, 0, sizeof(sig));
	memset(&ru, 0, sizeof(ru));
	ch->pid = -1;
	ch->pidfd = -1;
	ch->status = 0;
	ch->exec_errno = 0;
	ch->wall = ch->user_s = ch->sys_s = 0;
	if (pipe2(go, O_CLOEXEC) || pipe2(fail, O_CLOEXEC)) {
		rc = mf_error_set(err, MF_ENOEXEC, ch->argv[0], 0, 0, "cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	ch->pid = fork();
	if (ch->pid < 0) {
		rc = mf_error_set(err, MF_ENOEXEC, ch->argv[0], 0, 0, "cannot fork: %s", strerror(errno));
		goto out;
	}
	if (ch->pid == 0) {
		close(go[1]);
		close(fail[0]);
		child(ch->argv, go[0], fail[1]);
	}
	close(go[0]);
	close(fail[1]);
	go[0] = fail[1] = -1;
	rc = h->open ? h->open(h->ctx, ch, err) : 0;
	if (rc)
		goto out; /* closing go makes the child exit without running the program */
	hold_signals(&sig, ch->pid, ch->forward_term);
	rc = release(ch, &go[1], fail[0], err);
	if (rc)
		goto out;
	released = true;
	ch->pidfd = (int)syscall(SYS_pidfd_open, ch->pid, 0);
	rc = wait_loop(ch, h, &ru, err);
	if (rc) {
		/* Waiting or the caller's work failed: the program does not run on unwatched. */
		kill(ch->pid, SIGKILL);
		while (wait4(ch->pid, &ch->status, 0, &ru) < 0 && errno == EINTR)
			;
	}
	ch->wall = mf_perf_now() - ch->t0;
	ch->user_s = tv_s(ru.ru_utime);
	ch->sys_s = tv_s(ru.ru_stime);
out:
	if (go[1] >= 0)
		close(go[1]);
	if (!released && ch->pid > 0) {
		while (waitpid(ch->pid, &ch->status, 0) < 0 && errno == EINTR)
			;
	}
	if (ch->pidfd >= 0)
		close(ch->pidfd);
	ch->pidfd = -1;
	restore_signals(&sig);
	if (go[0] >= 0)
		close(go[0]);
	if (fail[0] >= 0)
		close(fail[0]);
	if (fail[1] >= 0)
		close(fail[1]);
	return rc;
}
