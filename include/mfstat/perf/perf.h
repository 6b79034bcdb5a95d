/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_PERF_H
#define MFSTAT_PERF_H

/*
 * The perf layer: the one seam between mfstat and the kernel's counters
 * (perf_event_open, sysfs, procfs), and the one runner that forks a program,
 * holds it until its counters are open, lets it exec and waits for it.
 * `stat` (live) and `measure` both count through these, so tests can run
 * either against a recorded tree or scripted kernel answers.
 */

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"

/* ---- the seam ----------------------------------------------------------- */

struct perf_event_attr;

/*
 * Every perf call and every sysfs or procfs file goes through one of these.
 * Calls return what the system call does, but failures as -errno.  A test
 * fills one with its own functions (scripted kernel answers) and root.
 */
struct mf_perf_sys {
	const char *root; /* files are read below root (a recorded tree); NULL: this machine's own */
	void *ctx;        /* passed to every call */
	int (*open)(void *ctx, struct perf_event_attr *attr, int pid, int cpu, int group_fd, unsigned long flags);
	int (*ioctl)(void *ctx, int fd, unsigned long req, unsigned long arg);
	void *(*mmap)(void *ctx, int fd, size_t len); /* NULL on failure, errno set */
	void (*munmap)(void *ctx, void *p, size_t len);
	long (*read)(void *ctx, int fd, void *buf, size_t n);
	void (*close)(void *ctx, int fd);
};

/* This machine: the real system calls and files.  Borrowed, never freed (do not change it). */
struct mf_perf_sys *mf_perf_sys_real(void);

/*
 * A recorded system: files are read below root (root/sys/..., root/proc/...),
 * perf_event_open succeeds, and reading a counter returns the value that
 * root/counts.tsv gives for its config ("config<TAB>value[<TAB>step]" lines;
 * a config not listed reads 0, a missing file lists none), plus step for
 * every earlier read of the same descriptor (counts that advance between
 * reads, as a live system's do), with enabled = running time; the ring
 * buffers cannot be mapped.  Caller's; free with
 * mf_perf_sys_free.
 */
int mf_perf_sys_recorded(struct mf_perf_sys **out, const char *root, struct mf_error *err);
/* Frees a recorded system; the real one and NULL are left alone. */
void mf_perf_sys_free(struct mf_perf_sys *s);

/* Reads a whole small file (path as /proc/..., /sys/...) into buf, NUL-ended; returns its length or -errno. */
/*
 * What an errno value of perf_event_open (or of its ioctls) means: its
 * symbolic name ("ENOENT"; "error" for a value not listed), and the name with
 * its meaning for perf ("ENOENT: the kernel has no such event here (no
 * hardware counter for it)"; strerror's text for a value not listed).  Static
 * strings.
 */
const char *mf_perf_errno_name(int e);
const char *mf_perf_errno_text(int e);

long mf_perf_read_file(const struct mf_perf_sys *s, const char *path, char *buf, size_t n);
/* Opens a directory (path as /sys/...) through the seam; NULL with errno set. */
DIR *mf_perf_opendir(const struct mf_perf_sys *s, const char *path);

/*
 * Parses a Linux CPU list ("0-3,8") into cpus; returns the count, or -1 when
 * malformed or longer than max.  cpus NULL only counts (max still applies).
 */
int mf_cpu_list(const char *s, int *cpus, size_t max);

/* ---- the runner ----------------------------------------------------------- */

/* Seconds on the monotonic clock. */
double mf_perf_now(void);
/* Sleeps until the monotonic clock reads t (at once when that is past). */
void mf_perf_sleep_until(double t);

/*
 * One program run under counters.  The caller sets argv and forward_term;
 * mf_perf_child_run fills the rest.
 */
struct mf_perf_child {
	char *const *argv;
	bool forward_term;    /* pass SIGTERM and SIGHUP on to the program while it runs */
	int pid;              /* the program, from the fork on */
	int pidfd;            /* while it runs: a pidfd of it (readable once it exits), or -1 (kernels before 5.3) */
	int status;           /* its wait status */
	int exec_errno;       /* exec failed with this errno (then MF_ENOEXEC), else 0 */
	int64_t start_us;     /* wall-clock time it was let go, microseconds since the epoch (UTC) */
	double t0;            /* the same on the monotonic clock (mf_perf_now) */
	double wall;          /* seconds from t0 to its exit */
	double user_s, sys_s; /* its CPU times and its children's */
};

/*
 * What a caller does around the run.  open is called once, with the program
 * forked (ch->pid) but held before exec: it opens the counters on it.  While
 * the program runs, when wait is set, the runner calls wait (block until
 * there is work: a sleep, a poll that may include ch->pidfd), then, unless
 * the program has exited meanwhile, tick (the work of one round: reading
 * counters, draining rings).  Each returns 0 or a code with err set.
 */
struct mf_perf_hooks {
	void *ctx;
	int (*open)(void *ctx, struct mf_perf_child *ch, struct mf_error *err);
	int (*wait)(void *ctx, struct mf_perf_child *ch, struct mf_error *err);
	int (*tick)(void *ctx, struct mf_perf_child *ch, struct mf_error *err);
};

/*
 * Forks ch->argv[0], calls hooks->open, then lets the program exec (the
 * counters opened with enable_on_exec start there) and waits for it, calling
 * wait and tick while it runs.  SIGINT and SIGQUIT are ignored meanwhile (^C
 * at the terminal ends the program, and the caller lives on to report), and
 * SIGTERM and SIGHUP passed on when ch->forward_term; all restored before
 * returning.  Returns 0 with ch->status set (whatever the program's own
 * status); MF_ENOEXEC with err when the program cannot be started (pipe,
 * fork or exec failed; ch->exec_errno for exec); open's code, the program
 * never run; MF_EIO when waiting failed, or wait's or tick's code, the
 * program then killed.
 */
int mf_perf_child_run(struct mf_perf_child *ch, const struct mf_perf_hooks *hooks, struct mf_error *err);

#endif
