/* SPDX-License-Identifier: MIT */
/* mfstat serve's exposition: the counters of every CPU, read at each scrape, as Prometheus series. */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/live/percpu.h"
#include "mfstat/serve/serve.h"

/* One served event: its series name, help and counter set. */
struct xev {
	char name[128];
	const char *help;
	size_t set; /* index into sets */
};

/* One counter set (or "perf" for the generic events): up when some counter of it was read. */
struct xset {
	const char *name;
	bool probe_up;    /* the probe found counters of it here */
	char reason[160]; /* why not, when the probe says so */
	char now[200];    /* why not, at this scrape */
	bool up;
};

struct mf_exporter {
	struct mf_percpu pc;
	size_t nev;
	struct xev *ev;
	char (*cpu)[12]; /* the cpu label of each CPU of the list */
	size_t nsets;
	struct xset sets[MF_NSETS + 1];
	bool has_machine;
	struct mf_prom_machine machine;
	char why[200];
};

/* The generic hardware events of linux_perf that serve counts off IBM Z: (type, config, name). */
static const struct {
	uint32_t type;
	uint64_t config;
	const char *name;
} generic[] = {
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles"},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions"},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "cache_references"},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache_misses"},
	{PERF_TYPE_HW_CACHE,
	 PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16),
	 "dtlb_load_misses"},
};
#define NGENERIC (sizeof(generic) / sizeof(generic[0]))

static size_t set_index(struct mf_exporter *x, const char *name)
{
	for (size_t i = 0; i < x->nsets; i++)
		if (strcmp(x->sets[i].name, name) == 0)
			return i;
	x->sets[x->nsets].name = name;
	x->sets[x->nsets].probe_up = true;
	return x->nsets++;
}

int mf_exporter_new(struct mf_exporter **out, const struct mf_kb *kb, const struct mf_perf_sys *sys,
		    const struct mf_cpumf_info *info, const int *cpus, size_t ncpu, struct mf_error *err)
{
	struct mf_exporter *x = calloc(1, sizeof(*x));
	struct mf_percpu_event *pev = NULL;
	const struct mf_family *fam = info ? info->family : mf_kb_family(kb, "linux_perf");
	size_t n = info ? info->nevents : NGENERIC;
	int rc = 0;

	*out = NULL;
	if (!x)
		return mf_error_nomem(err, "serve", 0, "making the exporter");
	x->ev = calloc(n ? n : 1, sizeof(*x->ev));
	x->cpu = calloc(ncpu ? ncpu : 1, sizeof(*x->cpu));
	pev = calloc(n ? n : 1, sizeof(*pev));
	if (!x->ev || !x->cpu || !pev) {
		rc = mf_error_nomem(err, "serve", 0, "making the exporter for %zu events on %zu CPUs", n, ncpu);
		goto fail;
	}
	if (!fam) {
		rc = mf_error_set(err, MF_ETABLE, "serve", 0, 0,
				  "the knowledge base has no linux_perf family for the generic events (--tables?)");
		goto fail;
	}
	for (size_t k = 0; k < ncpu; k++)
		snprintf(x->cpu[k], sizeof(x->cpu[k]), "%d", cpus[k]);
	if (info) {
		struct mf_cpumf_set_state st[MF_NSETS];
		size_t ns = mf_cpumf_sets(info, st, MF_NSETS);
		for (size_t i = 0; i < ns && i < MF_NSETS; i++) {
			struct xset *s = &x->sets[x->nsets++];
			s->name = mf_set_name(st[i].set);
			s->probe_up = st[i].up;
			snprintf(s->reason, sizeof(s->reason), "%s", st[i].reason);
		}
		for (size_t i = 0; i < n; i++) {
			const struct mf_counter *c = &fam->counters[info->events[i].slot];
			mf_prom_counter_name(fam, c, x->ev[i].name, sizeof(x->ev[i].name));
			x->ev[i].help = c->desc && c->desc[0] ? c->desc : c->short_name;
			x->ev[i].set = set_index(x, mf_set_name(c->set));
			pev[i].type = (uint32_t)info->pmu_type;
			pev[i].config = info->events[i].number;
		}
		x->has_machine = true;
		mf_exporter_machine(info, &x->machine);
	} else {
		size_t perf = set_index(x, "perf");
		for (size_t i = 0; i < n; i++) {
			const struct mf_counter *c = mf_family_counter(fam, generic[i].name, strlen(generic[i].name));
			if (!c) {
				rc = mf_error_set(err, MF_ETABLE, "serve", 0, 0,
						  "the linux_perf family has no counter %s (--tables?)",
						  generic[i].name);
				goto fail;
			}
			mf_prom_counter_name(fam, c, x->ev[i].name, sizeof(x->ev[i].name));
			x->ev[i].help = c->desc && c->desc[0] ? c->desc : c->short_name;
			x->ev[i].set = perf;
			pev[i].type = generic[i].type;
			pev[i].config = generic[i].config;
		}
		x->machine.family = fam->key;
		x->machine.cfvn = x->machine.csvn = x->machine.auth = -1;
		x->machine.cpu_speed_mhz = NAN;
	}
	x->nev = n;
	rc = mf_percpu_open(&x->pc, sys, pev, n, cpus, ncpu, err);
	if (rc == MF_ENOTCOUNTED) {
		/* Served as mfstat_up 0 with the reason: not a failure of the exporter. */
		snprintf(x->why, sizeof(x->why), "%s", ncpu ? mf_perf_errno_text(x->pc.first_errno) : "no CPUs");
		rc = 0;
	}
	if (rc)
		goto fail;
	/* Only the generic events that opened make the machine known as linux_perf. */
	if (!info)
		x->has_machine = x->pc.nopen > 0;
	free(pev);
	*out = x;
	return 0;
fail:
	free(pev);
	mf_exporter_free(x);
	return rc;
}

size_t mf_exporter_open_count(const struct mf_exporter *x)
{
	return x->pc.nopen;
}

const char *mf_exporter_why(const struct mf_exporter *x)
{
	return x->why;
}

/* Each set's state at this scrape: up when some counter of it was read on some CPU. */
static void sets_now(struct mf_exporter *x)
{
	int open_err[MF_NSETS + 1] = {0}, read_err[MF_NSETS + 1] = {0};
	bool opened[MF_NSETS + 1] = {false};
	for (size_t s = 0; s < x->nsets; s++)
		x->sets[s].up = false;
	for (size_t e = 0; e < x->nev; e++) {
		size_t s = x->ev[e].set;
		for (size_t k = 0; k < x->pc.ncpu; k++) {
			const struct mf_percpu_cell *c = mf_percpu_at(&x->pc, e, k);
			if (c->fd < 0) {
				if (!open_err[s])
					open_err[s] = c->open_errno;
				continue;
			}
			opened[s] = true;
			if (c->ok)
				x->sets[s].up = true;
			else if (!read_err[s])
				read_err[s] = c->read_errno;
		}
	}
	for (size_t s = 0; s < x->nsets; s++) {
		struct xset *st = &x->sets[s];
		if (st->up)
			st->now[0] = '\0';
		else if (!st->probe_up)
			snprintf(st->now, sizeof(st->now), "%s", st->reason[0] ? st->reason : "not counted here");
		else if (!opened[s])
			snprintf(st->now, sizeof(st->now), "%s",
				 open_err[s] ? mf_perf_errno_text(open_err[s]) : "no counter of it opened");
		else
			snprintf(st->now, sizeof(st->now), "read failed: %s",
				 read_err[s] ? mf_perf_errno_text(read_err[s]) : "no count");
	}
}

void mf_exporter_scrape(struct mf_exporter *x, enum mf_prom_fmt fmt, struct mf_strbuf *out)
{
	struct mf_prom p;
	struct mf_prom_up up[MF_NSETS + 1];
	double t0 = mf_perf_now();

	out->len = 0;
	if (out->buf)
		out->buf[0] = '\0';
	mf_prom_init(&p, out, fmt);
	mf_percpu_read(&x->pc);
	sets_now(x);
	for (size_t s = 0; s < x->nsets; s++) {
		up[s].set = x->sets[s].name;
		up[s].up = x->sets[s].up;
		up[s].reason = x->sets[s].up ? NULL : x->sets[s].now;
	}
	if (x->pc.nopen == 0) {
		/* Nothing opened: nothing to serve but why. */
		mf_prom_up(&p, up, x->nsets);
		mf_prom_end(&p);
		return;
	}
	if (x->has_machine)
		mf_prom_machine(&p, &x->machine);
	mf_prom_up(&p, up, x->nsets);
	for (size_t e = 0; e < x->nev; e++) {
		bool any = false;
		for (size_t k = 0; k < x->pc.ncpu; k++) {
			const struct mf_percpu_cell *c = mf_percpu_at(&x->pc, e, k);
			const char *labels[] = {"cpu", x->cpu[k], "set", x->sets[x->ev[e].set].name, NULL};
			if (!c->ok)
				continue; /* a counter that cannot be read is absent, never 0 */
			if (!any)
				mf_prom_family(&p, x->ev[e].name, "counter", x->ev[e].help);
			any = true;
			mf_prom_sample_u64(&p, labels, c->value);
		}
	}
	mf_prom_family(&p, "mfstat_scrape_duration_seconds", "gauge",
		       "Seconds this scrape took to read every counter and write the exposition");
	mf_prom_sample(&p, NULL, mf_perf_now() - t0);
	mf_prom_end(&p);
}

void mf_exporter_free(struct mf_exporter *x)
{
	if (!x)
		return;
	mf_percpu_close(&x->pc);
	free(x->ev);
	free(x->cpu);
	free(x);
}

void mf_exporter_machine(const struct mf_cpumf_info *info, struct mf_prom_machine *m)
{
	m->family = info->family ? info->family->key : NULL;
	m->type = info->machine_type;
	m->model = info->machine ? info->machine->model : NULL;
	m->cfvn = info->has_versions ? (int)info->cfvn : -1;
	m->csvn = info->has_versions ? (int)info->csvn : -1;
	m->auth = info->has_versions ? (int)info->auth : -1;
	m->cpu_speed_mhz = info->cpu_speed;
}
