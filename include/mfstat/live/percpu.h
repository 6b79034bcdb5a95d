/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_PERCPU_H
#define MFSTAT_PERCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"
#include "mfstat/perf/perf.h"

/*
 * Counting that stays open: every event on each CPU of a list (system-wide, pid -1), read as
 * often as wanted (an exporter reads them at every scrape), closed at the end.  Every call goes
 * through the perf seam, so tests run it on a recorded tree or scripted kernel answers.
 *
 * A value is cumulative since the event was opened; when the kernel multiplexed the counter it
 * is scaled by time enabled / time running, and it never goes backwards (a scaled estimate
 * lower than the last one read keeps the last one).
 *
 * On this machine's own seam the events of a CPU are one perf group (the first that opens leads,
 * PERF_FORMAT_GROUP), read with one read(2): reading a counter of another CPU costs the kernel
 * an interrupt of that CPU, so a scrape costs one per CPU instead of one per counter.  An event
 * the group refuses is opened alone.  A recorded tree (sys->root set), whose reads answer one
 * count per descriptor, is read a descriptor at a time.
 */

struct mf_percpu_event {
	uint32_t type;   /* perf_event_attr type (the cpum_cf PMU's, PERF_TYPE_HARDWARE, ...) */
	uint64_t config; /* and config */
};

/* One event on one CPU. */
struct mf_percpu_cell {
	int fd;         /* -1: not open (open_errno says why) */
	int open_errno; /* why perf_event_open failed, 0 when open */
	int read_errno; /* why the last read failed (EIO for a short read), 0 when it succeeded */
	bool ok;        /* value holds a count read at the last mf_percpu_read */
	bool grouped;   /* read through its CPU's group leader */
	uint64_t value; /* cumulative, scaled, monotonic */
};

struct mf_percpu {
	const struct mf_perf_sys *sys;
	size_t nev, ncpu;
	int *cpus;                   /* the CPUs, as given */
	struct mf_percpu_cell *cell; /* [event * ncpu + cpu index] */
	size_t nopen;                /* cells open */
	int first_errno;             /* the first open failure, 0 when none */
	/* Per CPU: the group's leader descriptor (-1: none), and its members' events in group order. */
	int *leader;
	size_t *ngroup;
	size_t *member; /* [cpu index * nev + i] */
	uint64_t *buf;  /* a group read: nr, time enabled, time running, nr values */
	size_t reads;   /* read(2) calls made (for tests and benchmarks) */
};

/*
 * Opens each event on each CPU (a failure leaves that cell closed, with its errno).  Returns 0
 * when at least one cell opened, MF_ENOTCOUNTED (err naming the first errno) when none did,
 * MF_ENOMEM.  p is then the caller's to mf_percpu_close, whatever the result.
 */
int mf_percpu_open(struct mf_percpu *p, const struct mf_perf_sys *sys, const struct mf_percpu_event *ev, size_t nev,
		   const int *cpus, size_t ncpu, struct mf_error *err);

/* Reads every open cell; a failed read leaves that cell !ok (the value kept) until a later read
 * succeeds.  Returns how many cells were read. */
size_t mf_percpu_read(struct mf_percpu *p);

/* The cell of event e on the CPU at index k of the list. */
static inline const struct mf_percpu_cell *mf_percpu_at(const struct mf_percpu *p, size_t e, size_t k)
{
	return &p->cell[e * p->ncpu + k];
}

/* Closes every open cell and frees p's memory (p itself is the caller's). */
void mf_percpu_close(struct mf_percpu *p);

#endif
