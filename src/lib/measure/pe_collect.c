/* SPDX-License-Identifier: MIT */
/*
 * The collector of mfstat measure (caliper-measure.md §3 "Collector"): the
 * perf layer's runner forks the program; its hooks here open the plan's
 * events on it before it execs and drain one ring buffer per CPU while it
 * runs; then the exact counts are read.
 */
#include "mfstat/measure/measure.h"
#include "mfstat/measure/unwind.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CPUS 1024
#define SAMPLE_TYPE                                                                                                    \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |             \
	 PERF_SAMPLE_PERIOD)

struct ring {
	int fd; /* the CPU's first sampled event, which owns the buffer */
	void *base;
	size_t len;
	size_t data_size; /* its data area (rings can differ when the mlock limit ran out part way) */
};

struct collector {
	const struct mf_perf_sys *sys;
	const struct mf_mplan *plan;
	struct mf_mrun *run;
	struct mf_mfdb_writer *db;
	struct mf_error *err;
	size_t ncpus;
	size_t ring_pages, page; /* data pages per ring asked for; the page size */
	size_t data_size;
	struct ring *rings;
	int *sfd;        /* sampled fds, [cpu * nsampled + j] */
	uint64_t *canon; /* kernel id -> canonical id (the stream's), pairs */
	size_t ncanon;
	int cfd[MF_MPLAN_MAX];
	/* one drain round */
	unsigned char *round;
	size_t rlen, rcap;
	unsigned char *sorted;
	size_t scap;
	struct recpos {
		uint64_t time;
		size_t off;
		uint16_t size;
	} * pos;
	size_t pcap;
	uint64_t rng;
	uint64_t drain_errors;
	int ingest_rc;
};

static int round_sink(void *ctx, const void *bytes, size_t n)
{
	struct collector *c = ctx;
	if (c->rlen + n > c->rcap) {
		size_t nc = c->rcap ? c->rcap : 1 << 20;
		unsigned char *nb;
		while (nc < c->rlen + n)
			nc *= 2;
		nb = realloc(c->round, nc);
		if (!nb)
			return MF_ENOMEM;
		c->round = nb;
		c->rcap = nc;
	}
	memcpy(c->round + c->rlen, bytes, n);
	c->rlen += n;
	return 0;
}

static int cmp_pos(const void *a, const void *b)
{
	const struct recpos *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/*
 * Orders one round's records by time across the CPUs' rings (a sample must
 * come after the MMAP2 of its code) and replaces each per-CPU event id by its
 * stream's id, so the run file names one id per stream.  Records are copied
 * otherwise unchanged.
 */
static int flush_round(struct collector *c)
{
	size_t off = 0, n = 0, i, w = 0;
	int rc = 0;
	if (!c->rlen)
		return 0;
	while (off + sizeof(struct perf_event_header) <= c->rlen) {
		struct perf_event_header h;
		memcpy(&h, c->round + off, sizeof(h));
		if (h.size < sizeof(h) || off + h.size > c->rlen)
			break;
		if (n == c->pcap) {
			size_t nc = c->pcap ? c->pcap * 2 : 4096;
			struct recpos *np = realloc(c->pos, nc * sizeof(*np));
			if (!np)
				return MF_ENOMEM;
			c->pos = np;
			c->pcap = nc;
		}
		c->pos[n].off = off;
		c->pos[n].size = h.size;
		/* SAMPLE: identifier, ip, pid/tid, time; others: the sample_id_all trailer ends tid, time, identifier */
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 32)
			c->pos[n].time = get64(c->round + off + sizeof(h) + 24);
		else if (h.size >= sizeof(h) + 24)
			c->pos[n].time = get64(c->round + off + h.size - 16);
		else
			c->pos[n].time = 0;
		n++;
		off += h.size;
	}
	qsort(c->pos, n, sizeof(*c->pos), cmp_pos);
	if (c->scap < c->rlen) {
		unsigned char *nb = realloc(c->sorted, c->rlen);
		if (!nb)
			return MF_ENOMEM;
		c->sorted = nb;
		c->scap = c->rlen;
	}
	for (i = 0; i < n; i++) {
		unsigned char *r = c->sorted + w;
		struct perf_event_header h;
		size_t idoff, k;
		memcpy(r, c->round + c->pos[i].off, c->pos[i].size);
		memcpy(&h, r, sizeof(h));
		idoff = h.type == PERF_RECORD_SAMPLE ? sizeof(h) : (size_t)h.size - 8;
		if (h.size >= sizeof(h) + 8) {
			uint64_t id = get64(r + idoff);
			for (k = 0; k < c->ncanon; k++)
				if (c->canon[2 * k] == id) {
					memcpy(r + idoff, &c->canon[2 * k + 1], 8);
					break;
				}
		}
		w += c->pos[i].size;
	}
	if (c->db)
		rc = mf_mfdb_put_records(c->db, c->sorted, w, c->err);
	if (!rc && !c->ingest_rc) {
		c->ingest_rc = mf_mrun_ingest(c->run, c->sorted, w, "perf ring buffer", c->err);
		if (c->ingest_rc)
			mf_mrun_warn(c->run, "records could not be decoded: %s", c->err->msg);
	}
	c->rlen = 0;
	return rc;
}

static uint64_t next_rand(uint64_t *s)
{
	/* xorshift64*: a reproducible stream from the stored seed */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* Draws new periods in [RATE - VAR, RATE + VAR] for the sampled events (§2: applied per wakeup). */
static void redraw_periods(struct collector *c)
{
	size_t cpu, j;
	uint64_t var = c->run->variation;
	if (!var || c->plan->freq)
		return;
	for (j = 0; j < c->plan->nsampled; j++) {
		uint64_t base = c->plan->sampled[j].period, p, v;
		if (base <= 1 || c->plan->sampled[j].role == MF_ROLE_FAULT)
			continue;
		/* run->variation belongs to the first stream's rate; the others keep its share */
		v = (uint64_t)((double)var * (double)base / (double)c->plan->sampled[0].period);
		if (v >= base)
			v = base - 1;
		if (!v)
			continue;
		p = base - v + next_rand(&c->rng) % (2 * v + 1);
		if (p == 0)
			p = 1;
		for (cpu = 0; cpu < c->ncpus; cpu++) {
			int fd = c->sfd[cpu * c->plan->nsampled + j];
			if (fd >= 0)
				c->sys->ioctl(c->sys->ctx, fd, PERF_EVENT_IOC_PERIOD, (unsigned long)(uintptr_t)&p);
		}
	}
}

static int drain_all(struct collector *c)
{
	size_t cpu;
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		struct ring *r = &c->rings[cpu];
		long got;
		if (!r->base)
			continue;
		got = mf_ring_drain(r->base, r->data_size, round_sink, c, c->err);
		if (got < 0) {
			if (got == MF_ENOMEM)
				return mf_error_nomem(c->err, "", 0, "reading the ring buffer of CPU %zu", cpu);
			c->drain_errors++;
		}
	}
	{
		int rc = flush_round(c);
		if (rc == MF_ENOMEM && (!c->err || c->err->code != MF_ENOMEM))
			return mf_error_nomem(c->err, "", 0, "sorting the records read from the ring buffers");
		return rc;
	}
}

static void fill_attr(struct perf_event_attr *a, const struct mf_mplan_ev *e, bool user_only)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = e->type;
	a->config = e->config;
	a->config1 = e->config1;
	a->precise_ip = (unsigned)e->precise & 3;
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->inherit = 1;
	a->exclude_kernel = user_only;
	a->exclude_hv = 1;
}

static void close_all(struct collector *c)
{
	size_t i;
	if (c->rings)
		for (i = 0; i < c->ncpus; i++)
			if (c->rings[i].base)
				c->sys->munmap(c->sys->ctx, c->rings[i].base, c->rings[i].len);
	if (c->sfd)
		for (i = 0; i < c->ncpus * c->plan->nsampled; i++)
			if (c->sfd[i] >= 0)
				c->sys->close(c->sys->ctx, c->sfd[i]);
	for (i = 0; i < c->plan->ncounted; i++)
		if (c->cfd[i] >= 0)
			c->sys->close(c->sys->ctx, c->cfd[i]);
	free(c->rings);
	free(c->sfd);
	free(c->canon);
	free(c->round);
	free(c->sorted);
	free(c->pos);
}

/* The streams of the plan's sampled events, in its order. */
static int add_streams(struct mf_mrun *run, const struct mf_mplan *plan, struct mf_error *err)
{
	size_t j;
	run->sample_type = SAMPLE_TYPE;
	if (plan->call_graph[0])
		run->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (strcmp(plan->call_graph, "dwarf") == 0)
		run->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	run->sample_id_all = true;
	snprintf(run->call_graph, sizeof(run->call_graph), "%s", plan->call_graph);
	run->max_stack = plan->call_graph[0] ? plan->max_stack : 0;
	run->stack_size = strcmp(plan->call_graph, "dwarf") == 0 ? plan->stack_size : 0;
	if (run->sample_type & PERF_SAMPLE_REGS_USER && mf_mrun_ingest_regs(run, plan->regs_mask))
		return mf_error_nomem(err, "", 0, "setting up the call chains");
	for (j = 0; j < plan->nsampled; j++) {
		const struct mf_mplan_ev *ev = &plan->sampled[j];
		struct mf_mstream *s = mf_mrun_add_stream(run);
		if (!s)
			return mf_error_nomem(err, "", 0, "adding the sampled event %s", ev->name);
		snprintf(s->name, sizeof(s->name), "%s", ev->name);
		s->role = ev->role;
		s->type = ev->type;
		s->config = ev->config;
		s->config1 = ev->config1;
		s->precise = ev->precise;
		s->period = ev->period;
		s->clock = ev->clock;
	}
	return 0;
}

/* Maps the ring buffer of cpu on fd, its first sampled event; halves down to 8 pages when the mlock limit refuses (§3). */
static int map_ring(struct collector *c, size_t cpu, int fd, struct mf_error *err)
{
	size_t pages = c->data_size ? c->data_size / c->page : c->ring_pages;
	void *base;
	/* Halved down to 8 pages while the mlock limit refuses (a dwarf run asks for 4 MiB). */
	for (;;) {
		base = c->sys->mmap(c->sys->ctx, fd, (1 + pages) * c->page);
		if (base || pages <= 8)
			break;
		pages = pages / 2 < 8 ? 8 : pages / 2;
	}
	if (!base)
		return mf_error_set(err, MF_ENOTCOUNTED, "", 0, 0,
				    "measurement impossible: cannot map the ring buffer of CPU %zu: %s "
				    "(kernel.perf_event_mlock_kb)",
				    cpu, strerror(errno));
	if (pages != c->ring_pages && (!c->data_size || pages * c->page < c->data_size))
		mf_mrun_warn(c->run, "ring buffers reduced to %zu pages: the mlock limit refused %zu", pages,
			     c->ring_pages);
	c->rings[cpu].fd = fd;
	c->rings[cpu].base = base;
	c->rings[cpu].len = (1 + pages) * c->page;
	c->rings[cpu].data_size = pages * c->page;
	c->data_size = pages * c->page; /* the next CPU starts from this size */
	return 0;
}

/* Opens sampled event j on cpu of the program pid: the first owns the CPU's ring, the others write to it. */
static int open_sampled(struct collector *c, int pid, size_t cpu, size_t j, struct mf_error *err)
{
	const struct mf_mplan_ev *ev = &c->plan->sampled[j];
	struct mf_mrun *run = c->run;
	struct perf_event_attr a;
	uint64_t id = 0;
	int fd, r;
	fill_attr(&a, ev, c->plan->user_only);
	if (c->plan->freq) {
		a.freq = 1;
		a.sample_freq = c->plan->freq;
	} else {
		a.sample_period = ev->period ? ev->period : 1;
	}
	a.sample_type = run->sample_type;
	a.sample_id_all = 1;
	if (a.sample_type & PERF_SAMPLE_CALLCHAIN) {
		/* The kernel's part only when the kernel is sampled; 0: its perf_event_max_stack. */
		a.exclude_callchain_kernel = c->plan->user_only;
		a.sample_max_stack = (uint16_t)c->plan->max_stack;
	}
	if (a.sample_type & PERF_SAMPLE_REGS_USER) {
		a.sample_regs_user = c->plan->regs_mask;
		a.sample_stack_user = c->plan->stack_size;
	}
	if (j == 0) {
		a.mmap = 1;
		a.mmap2 = 1;
		a.comm = 1;
		a.comm_exec = 1;
		a.task = 1;
		a.watermark = 1;
	}
	fd = c->sys->open(c->sys->ctx, &a, pid, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		if (j == 0 && cpu > 0 && fd == -ENODEV) /* an offline CPU: nothing runs there */
			return 1;
		if (fd == -EOVERFLOW && a.sample_max_stack)
			return mf_error_set(err, MF_ENOTCOUNTED, "", 0, 0,
					    "measurement impossible: --call-graph fp,%u is deeper than the kernel "
					    "allows (kernel.perf_event_max_stack, EOVERFLOW)",
					    c->plan->max_stack);
		return mf_error_set(err, MF_ENOTCOUNTED, "", 0, 0,
				    "measurement impossible: cannot open %s on CPU %zu (%s)", ev->name, cpu,
				    mf_perf_errno_text(-fd));
	}
	c->sfd[cpu * c->plan->nsampled + j] = fd;
	if (j == 0) {
		if ((r = map_ring(c, cpu, fd, err)) != 0)
			return r;
	} else {
		r = c->sys->ioctl(c->sys->ctx, fd, PERF_EVENT_IOC_SET_OUTPUT,
				  (unsigned long)c->sfd[cpu * c->plan->nsampled]);
		if (r < 0)
			return mf_error_set(err, MF_ENOTCOUNTED, "", 0, 0,
					    "measurement impossible: cannot join %s to the ring of CPU %zu (%s)",
					    ev->name, cpu, mf_perf_errno_text(-r));
	}
	if (c->sys->ioctl(c->sys->ctx, fd, PERF_EVENT_IOC_ID, (unsigned long)(uintptr_t)&id) == 0) {
		if (cpu == 0)
			run->streams[j].id = id;
		c->canon[2 * c->ncanon] = id;
		c->canon[2 * c->ncanon + 1] = run->streams[j].id;
		c->ncanon++;
	}
	return 0;
}

/*
 * The runner's open hook: the sampled events one per CPU (an inherited
 * per-task event cannot be mmapped), one ring per CPU; the exact counts one
 * per-task fd each, following children (a missing event is reported, not fatal).
 */
static int hook_open(void *ctx, struct mf_perf_child *ch, struct mf_error *err)
{
	struct collector *c = ctx;
	const struct mf_mplan *plan = c->plan;
	size_t cpu, j;
	int rc;
	for (cpu = 0; cpu < c->ncpus; cpu++)
		for (j = 0; j < plan->nsampled; j++) {
			rc = open_sampled(c, ch->pid, cpu, j, err);
			if (rc > 0)
				break;
			if (rc < 0)
				return rc;
		}
	for (j = 0; j < plan->ncounted; j++) {
		struct perf_event_attr a;
		struct mf_mcount *cnt = mf_mrun_add_count(c->run);
		if (!cnt)
			return mf_error_nomem(err, "", 0, "adding %zu counted events", plan->ncounted);
		snprintf(cnt->name, sizeof(cnt->name), "%s", plan->counted[j].name);
		snprintf(cnt->unit, sizeof(cnt->unit), "%s", plan->counted[j].unit);
		fill_attr(&a, &plan->counted[j], plan->user_only);
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
		c->cfd[j] = c->sys->open(c->sys->ctx, &a, ch->pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (c->cfd[j] < 0) {
			cnt->status = MF_CNT_NOT_SUPPORTED;
			snprintf(cnt->why, sizeof(cnt->why), "%s", mf_perf_errno_text(-c->cfd[j]));
			c->cfd[j] = -1;
		}
	}
	return 0;
}

/* The runner's wait hook: until a ring has data or the program exits (without a pidfd, kernels before 5.3: 50 ms). */
static int hook_wait(void *ctx, struct mf_perf_child *ch, struct mf_error *err)
{
	struct collector *c = ctx;
	struct pollfd pf[MAX_CPUS + 1];
	nfds_t n = 0;
	size_t cpu;
	for (cpu = 0; cpu < c->ncpus; cpu++)
		if (c->rings[cpu].base) {
			pf[n].fd = c->rings[cpu].fd;
			pf[n].events = POLLIN;
			n++;
		}
	if (ch->pidfd >= 0) {
		pf[n].fd = ch->pidfd;
		pf[n].events = POLLIN;
		n++;
	}
	if (poll(pf, n, ch->pidfd >= 0 ? 1000 : 50) < 0 && errno != EINTR)
		return mf_error_set(err, MF_EIO, "", 0, 0, "poll: %s", strerror(errno));
	return 0;
}

/* The runner's tick hook: drain the rings, then draw new sample periods. */
static int hook_tick(void *ctx, struct mf_perf_child *ch, struct mf_error *err)
{
	struct collector *c = ctx;
	int rc;
	(void)ch, (void)err;
	rc = drain_all(c);
	if (!rc)
		redraw_periods(c);
	return rc;
}

/* Counts arrive when the threads that made them exit: read after the wait (§3 step 5). */
static void read_counts(struct collector *c)
{
	const struct mf_mplan *plan = c->plan;
	struct mf_mrun *run = c->run;
	size_t j;
	for (j = 0; j < plan->ncounted; j++) {
		struct mf_mcount *cnt = &run->counts[run->ncounts - plan->ncounted + j];
		uint64_t v[4];
		long got;
		if (c->cfd[j] < 0)
			continue;
		got = c->sys->read(c->sys->ctx, c->cfd[j], v, sizeof(v));
		if (got < (long)(3 * sizeof(uint64_t))) {
			cnt->status = MF_CNT_NOT_COUNTED;
			snprintf(cnt->why, sizeof(cnt->why), "the count could not be read (%s)",
				 got < 0 ? strerror((int)-got) : "short read");
			continue;
		}
		cnt->enabled = v[1];
		cnt->running = v[2];
		if (v[2] == 0) {
			cnt->status = MF_CNT_NOT_COUNTED;
			snprintf(cnt->why, sizeof(cnt->why), "never scheduled on a counter");
		} else if (v[2] < v[1]) {
			cnt->status = MF_CNT_SCALED;
			cnt->value = (uint64_t)((long double)v[0] * (long double)v[1] / (long double)v[2]);
		} else {
			cnt->status = MF_CNT_OK;
			cnt->value = v[0];
		}
	}
}

/* -F: the kernel chose each sample's period; a stream's is their mean (the plan's when it has no samples). */
static void mean_periods(struct mf_mrun *run)
{
	size_t i;
	for (i = 0; i < run->nstreams; i++) {
		long double sum = 0;
		uint64_t n = 0;
		size_t k;
		for (k = 0; k < run->nsamples; k++)
			if (run->samples[k].stream == i) {
				sum += run->samples[k].period;
				n++;
			}
		if (n)
			run->streams[i].period = (uint64_t)(sum / n + 0.5L);
	}
}

int mf_measure_collect(const struct mf_perf_sys *sys, const struct mf_mplan *plan, char *const argv[],
		       const struct mf_mprobe *probe, size_t ring_pages, struct mf_mfdb_writer *db, struct mf_mrun *run,
		       struct mf_error *err)
{
	struct collector c;
	struct mf_perf_child ch;
	struct mf_perf_hooks hooks = {NULL, hook_open, hook_wait, hook_tick};
	struct mf_unwind *unw = NULL;
	size_t j, ns = plan->nsampled ? plan->nsampled : 1;
	int rc;

	memset(&c, 0, sizeof(c));
	for (j = 0; j < MF_MPLAN_MAX; j++)
		c.cfd[j] = -1;
	c.sys = sys;
	c.plan = plan;
	c.run = run;
	c.db = db;
	c.err = err;
	c.ncpus = probe->ncpus > 0 ? (size_t)probe->ncpus : 1;
	if (c.ncpus > MAX_CPUS)
		c.ncpus = MAX_CPUS;
	c.rng = run->seed ? run->seed : 0x9e3779b97f4a7c15ULL;
	c.ring_pages = ring_pages == 0 || (ring_pages & (ring_pages - 1)) ? 64 : ring_pages;
	c.page = (size_t)sysconf(_SC_PAGESIZE);
	rc = add_streams(run, plan, err);
	if (rc)
		return rc;
	if (db)
		mf_mfdb_records_layout(db, run->sample_type, plan->regs_mask);
	/* dwarf: each drained round is unwound as it is decoded, while the binaries are there. */
	if (run->sample_type & PERF_SAMPLE_REGS_USER) {
		const struct mf_unwind_arch *arch = mf_unwind_arch_by_name(probe->arch);
		if (!arch)
			return mf_error_set(err, MF_ENOTCOUNTED, "", 0, 0,
					    "measurement impossible: --call-graph dwarf: no unwinder for %s",
					    probe->arch);
		if ((rc = mf_unwind_new(&unw, arch, err)) != 0)
			return rc;
		if (mf_mrun_ingest_unwind(run, mf_unwind_sample, unw)) {
			mf_unwind_free(unw);
			return mf_error_nomem(err, "", 0, "setting up the unwinder");
		}
	}
	c.rings = calloc(c.ncpus, sizeof(*c.rings));
	c.sfd = malloc(c.ncpus * ns * sizeof(*c.sfd));
	c.canon = calloc(2 * c.ncpus * ns, sizeof(*c.canon));
	if (!c.rings || !c.sfd || !c.canon) {
		rc = mf_error_nomem(err, "", 0, "setting up the sampling on %zu CPUs", (size_t)c.ncpus);
		goto out;
	}
	for (j = 0; j < c.ncpus * plan->nsampled; j++)
		c.sfd[j] = -1;

	/* The program gets ^C and ^\; SIGTERM and SIGHUP are passed on to it. */
	memset(&ch, 0, sizeof(ch));
	ch.argv = argv;
	ch.forward_term = true;
	hooks.ctx = &c;
	rc = mf_perf_child_run(&ch, &hooks, err);
	if (rc)
		goto out;
	run->pid = ch.pid;
	run->start_us = ch.start_us;
	run->wall_s = ch.wall;
	run->user_s = ch.user_s;
	run->sys_s = ch.sys_s;
	run->wait_status = ch.status;
	rc = drain_all(&c);
	if (c.drain_errors)
		mf_mrun_warn(run,
			     "%" PRIu64 " ring buffer reads found a damaged record and skipped the rest of that read",
			     c.drain_errors);
	read_counts(&c);
	if (plan->freq)
		mean_periods(run);
out:
	close_all(&c);
	if (unw) {
		mf_mrun_ingest_unwind(run, NULL, NULL);
		mf_unwind_free(unw);
	}
	return rc;
}
