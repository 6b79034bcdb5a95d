/* SPDX-License-Identifier: MIT */
/* Per-CPU counting that stays open (for mfstat serve): open on every CPU, read often, close. */
#include "mfstat/live/percpu.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

/* Opens event e on the CPU at index k, in its group when there is one; the cell says how. */
static void open_cell(struct mf_percpu *p, const struct mf_percpu_event *ev, size_t e, size_t k, bool group)
{
	struct mf_percpu_cell *c = &p->cell[e * p->ncpu + k];
	struct perf_event_attr attr;
	int fd;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = ev[e].type;
	attr.config = ev[e].config;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (group && p->leader[k] < 0)
		attr.read_format |= PERF_FORMAT_GROUP; /* the leader: its read gives the whole group */
	fd = p->sys->open(p->sys->ctx, &attr, -1, p->cpus[k], group ? p->leader[k] : -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && group && p->leader[k] >= 0) {
		/* Refused as a member (the group would not fit the PMU): alone, then. */
		open_cell(p, ev, e, k, false);
		return;
	}
	if (fd < 0) {
		c->fd = -1;
		c->open_errno = -fd;
		if (!p->first_errno)
			p->first_errno = -fd;
		return;
	}
	c->fd = fd;
	c->open_errno = 0;
	p->nopen++;
	if (group) {
		if (p->leader[k] < 0)
			p->leader[k] = fd;
		c->grouped = true;
		p->member[k * p->nev + p->ngroup[k]++] = e;
	}
}

int mf_percpu_open(struct mf_percpu *p, const struct mf_perf_sys *sys, const struct mf_percpu_event *ev, size_t nev,
		   const int *cpus, size_t ncpu, struct mf_error *err)
{
	size_t n1 = nev ? nev : 1, c1 = ncpu ? ncpu : 1;
	bool group = sys->root == NULL; /* a recorded tree answers a read with one count */
	memset(p, 0, sizeof(*p));
	p->sys = sys;
	p->nev = nev;
	p->ncpu = ncpu;
	p->cpus = malloc(c1 * sizeof(*p->cpus));
	p->cell = calloc(n1 * c1, sizeof(*p->cell));
	p->leader = malloc(c1 * sizeof(*p->leader));
	p->ngroup = calloc(c1, sizeof(*p->ngroup));
	p->member = malloc(n1 * c1 * sizeof(*p->member));
	p->buf = malloc((3 + n1) * sizeof(*p->buf));
	if (!p->cpus || !p->cell || !p->leader || !p->ngroup || !p->member || !p->buf) {
		free(p->cell);
		p->cell = NULL; /* nothing open to close */
		mf_percpu_close(p);
		return mf_error_nomem(err, "percpu", 0, "opening %zu events on %zu CPUs", nev, ncpu);
	}
	for (size_t k = 0; k < ncpu; k++) {
		p->cpus[k] = cpus[k];
		p->leader[k] = -1;
	}
	for (size_t k = 0; k < ncpu; k++)
		for (size_t e = 0; e < nev; e++)
			open_cell(p, ev, e, k, group);
	if (p->nopen == 0)
		return mf_error_set(err, MF_ENOTCOUNTED, "percpu", 0, 0, "no event could be opened on any CPU: %s",
				    nev && ncpu ? mf_perf_errno_text(p->first_errno) : "no events or no CPUs");
	return 0;
}

/* A count read (value, time enabled, time running) into cell c: scaled, monotonic. */
static void take(struct mf_percpu_cell *c, uint64_t v, uint64_t enabled, uint64_t running)
{
	uint64_t val;
	if (running == 0 && enabled > 0) {
		/* Never scheduled: no count to give (absent, not 0). */
		c->ok = false;
		c->read_errno = EBUSY;
		return;
	}
	/* Scaled by enabled/running time when the kernel multiplexed the counter. */
	val = running && running < enabled ? (uint64_t)((double)v * (double)enabled / (double)running) : v;
	if (val > c->value)
		c->value = val; /* monotonic: a lower scaled estimate keeps the last */
	c->ok = true;
	c->read_errno = 0;
}

static void fail(struct mf_percpu_cell *c, long r)
{
	c->ok = false;
	c->read_errno = r < 0 ? (int)-r : EIO;
}

/* One CPU's group with one read; false when the answer is not a group's (then read one by one). */
static bool read_group(struct mf_percpu *p, size_t k, size_t *got)
{
	size_t n = p->ngroup[k], want = (3 + n) * sizeof(uint64_t);
	const size_t *m = &p->member[k * p->nev];
	long r = p->sys->read(p->sys->ctx, p->leader[k], p->buf, want);
	p->reads++;
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			fail(&p->cell[m[i] * p->ncpu + k], r);
		return true;
	}
	if ((size_t)r != want || p->buf[0] != n)
		return false;
	for (size_t i = 0; i < n; i++)
		take(&p->cell[m[i] * p->ncpu + k], p->buf[3 + i], p->buf[1], p->buf[2]);
	*got += n;
	return true;
}

size_t mf_percpu_read(struct mf_percpu *p)
{
	size_t got = 0;
	for (size_t k = 0; k < p->ncpu; k++) {
		bool grouped = p->ngroup[k] > 0 && read_group(p, k, &got);
		if (p->ngroup[k] > 0 && !grouped) {
			/* Not a group's answer: read each descriptor from now on. */
			for (size_t i = 0; i < p->ngroup[k]; i++)
				p->cell[p->member[k * p->nev + i] * p->ncpu + k].grouped = false;
			p->ngroup[k] = 0;
		}
		for (size_t e = 0; e < p->nev; e++) {
			struct mf_percpu_cell *c = &p->cell[e * p->ncpu + k];
			uint64_t v[3];
			long r;
			if (c->fd < 0 || c->grouped)
				continue;
			r = p->sys->read(p->sys->ctx, c->fd, v, sizeof(v));
			p->reads++;
			if (r != (long)sizeof(v)) {
				fail(c, r);
				continue;
			}
			take(c, v[0], v[1], v[2]);
			got++;
		}
	}
	return got;
}

void mf_percpu_close(struct mf_percpu *p)
{
	size_t n = p->nev * p->ncpu;
	if (p->cell)
		for (size_t i = n; i-- > 0;)
			if (p->cell[i].fd >= 0)
				p->sys->close(p->sys->ctx, p->cell[i].fd); /* members before their leader */
	free(p->cell);
	free(p->cpus);
	free(p->leader);
	free(p->ngroup);
	free(p->member);
	free(p->buf);
	p->cell = NULL;
	p->cpus = NULL;
	p->leader = NULL;
	p->ngroup = NULL;
	p->member = NULL;
	p->buf = NULL;
	p->nopen = 0;
}
