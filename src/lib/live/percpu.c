/* SPDX-License-Identifier: MIT */
/* Per-CPU counting that stays open (for mfstat serve): open on every CPU, read often, close. */
#include "mfstat/live/percpu.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

int mf_percpu_open(struct mf_percpu *p, const struct mf_perf_sys *sys, const struct mf_percpu_event *ev, size_t nev,
		   const int *cpus, size_t ncpu, struct mf_error *err)
{
	memset(p, 0, sizeof(*p));
	p->sys = sys;
	p->nev = nev;
	p->ncpu = ncpu;
	p->cpus = malloc((ncpu ? ncpu : 1) * sizeof(*p->cpus));
	p->cell = calloc(nev && ncpu ? nev * ncpu : 1, sizeof(*p->cell));
	if (!p->cpus || !p->cell) {
		free(p->cpus), free(p->cell);
		p->cpus = NULL, p->cell = NULL;
		return mf_error_nomem(err, "percpu", 0, "opening %zu events on %zu CPUs", nev, ncpu);
	}
	if (ncpu)
		memcpy(p->cpus, cpus, ncpu * sizeof(*cpus));
	for (size_t e = 0; e < nev; e++) {
		struct perf_event_attr attr;
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = ev[e].type;
		attr.config = ev[e].config;
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		for (size_t k = 0; k < ncpu; k++) {
			struct mf_percpu_cell *c = &p->cell[e * ncpu + k];
			int fd = sys->open(sys->ctx, &attr, -1, cpus[k], -1, PERF_FLAG_FD_CLOEXEC);
			if (fd < 0) {
				c->fd = -1;
				c->open_errno = -fd;
				if (!p->first_errno)
					p->first_errno = -fd;
				continue;
			}
			c->fd = fd;
			p->nopen++;
		}
	}
	if (p->nopen == 0)
		return mf_error_set(err, MF_ENOTCOUNTED, "percpu", 0, 0, "no event could be opened on any CPU: %s",
				    nev && ncpu ? mf_perf_errno_text(p->first_errno) : "no events or no CPUs");
	return 0;
}

size_t mf_percpu_read(struct mf_percpu *p)
{
	size_t got = 0, n = p->nev * p->ncpu;
	for (size_t i = 0; i < n; i++) {
		struct mf_percpu_cell *c = &p->cell[i];
		uint64_t v[3], val;
		long r;
		if (c->fd < 0)
			continue;
		r = p->sys->read(p->sys->ctx, c->fd, v, sizeof(v));
		if (r != (long)sizeof(v)) {
			c->ok = false;
			c->read_errno = r < 0 ? (int)-r : EIO;
			continue;
		}
		/* Scaled by enabled/running time when the kernel multiplexed the counter. */
		val = v[2] && v[2] < v[1] ? (uint64_t)((double)v[0] * (double)v[1] / (double)v[2]) : v[0];
		if (v[2] == 0 && v[1] > 0) {
			/* Never scheduled: no count to give (absent, not 0). */
			c->ok = false;
			c->read_errno = EBUSY;
			continue;
		}
		if (val > c->value)
			c->value = val; /* monotonic: a lower scaled estimate keeps the last */
		c->ok = true;
		c->read_errno = 0;
		got++;
	}
	return got;
}

void mf_percpu_close(struct mf_percpu *p)
{
	size_t n = p->nev * p->ncpu;
	if (p->cell)
		for (size_t i = 0; i < n; i++)
			if (p->cell[i].fd >= 0)
				p->sys->close(p->sys->ctx, p->cell[i].fd);
	free(p->cell);
	free(p->cpus);
	p->cell = NULL;
	p->cpus = NULL;
	p->nopen = 0;
}
