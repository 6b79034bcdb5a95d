/* SPDX-License-Identifier: MIT */
/*
 * Counting with perf_event_open on Linux, and the CPU-MF probe of Linux on Z
 * (linux-s390.md §2): the cpum_cf PMU in sysfs, its events, the counter
 * versions and authorization in /proc/service_levels, the machine type in
 * /proc/sysinfo.  Every file and system call goes through the perf seam
 * (struct mf_perf_sys), which a test replaces with a recorded IBM Z tree and
 * recorded counts; a command runs under the perf layer's runner.
 */
#include "mfstat/live/stat.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

static int parse_uint_after(const char *text, const char *key, unsigned *out, int base)
{
	const char *p = strstr(text, key);
	char *end;
	unsigned long v;
	if (!p)
		return -1;
	p += strlen(key);
	while (*p == ' ' || *p == '\t')
		p++;
	v = strtoul(p, &end, base);
	if (end == p)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static void add_missing(struct mf_cpumf_info *info, const char *what)
{
	size_t n = strlen(info->missing);
	snprintf(info->missing + n, sizeof(info->missing) - n, "%s%s", n ? "; " : "", what);
}

/* Counter set of a counter number and its authorization bit (linux-s390.md §2). */
static unsigned auth_bit(unsigned number)
{
	if (number < 32)
		return 0x02;
	if (number < 64)
		return 0x04;
	if (number < 128)
		return 0x08;
	if (number < 448)
		return 0x01;
	return 0x20;
}

/*
 * Whether this process may count beyond perf_event_paranoid: root, or CAP_PERFMON (38) or
 * CAP_SYS_ADMIN (21) in its effective set (a systemd unit's AmbientCapabilities=CAP_PERFMON), as
 * the kernel's perfmon_capable() decides.  This process's own, never the recorded tree's.
 */
static bool perf_privileged(void)
{
	char line[256];
	bool yes = geteuid() == 0;
	FILE *fp = yes ? NULL : fopen("/proc/self/status", "r");
	while (fp && fgets(line, sizeof(line), fp)) {
		unsigned long long eff;
		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			yes = (eff >> 38 & 1) || (eff >> 21 & 1);
			break;
		}
	}
	if (fp)
		fclose(fp);
	return yes;
}

static int cmp_event(const void *a, const void *b)
{
	const struct mf_cpumf_event *x = a, *y = b;
	return (x->number > y->number) - (x->number < y->number);
}

int mf_cpumf_probe(const struct mf_perf_sys *sys, const struct mf_kb *kb, const struct mf_family *force,
		   bool system_wide, struct mf_cpumf_info *info)
{
	char buf[16384];
	long n;
	DIR *d;
	unsigned v, dropped = 0;

	memset(info, 0, sizeof(*info));
	info->paranoid = -99;
	info->cpu_speed = NAN;
	info->root = perf_privileged();
	if (mf_perf_read_file(sys, "/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) > 0)
		info->paranoid = atoi(buf);
	n = mf_perf_read_file(sys, "/sys/bus/event_source/devices/cpum_cf/type", buf, sizeof(buf));
	if (n <= 0) {
		snprintf(info->why, sizeof(info->why),
			 "no cpum_cf PMU in /sys/bus/event_source/devices: this is not Linux on IBM Z, the kernel "
			 "lacks CPU-MF counter support, or a container hides it");
		return MF_ENOTCOUNTED;
	}
	info->has_pmu = true;
	info->pmu_type = atoi(buf);
	/* Versions and authorization: "CPU-MF: Counter facility: version=3.7 authorization=002f". */
	if (mf_perf_read_file(sys, "/proc/service_levels", buf, sizeof(buf)) > 0) {
		const char *cf = strstr(buf, "Counter facility:");
		if (cf && parse_uint_after(cf, "version=", &info->cfvn, 10) == 0) {
			const char *dot = strchr(strstr(cf, "version="), '.');
			if (dot && parse_uint_after(dot, ".", &info->csvn, 10) == 0 &&
			    parse_uint_after(cf, "authorization=", &info->auth, 16) == 0)
				info->has_versions = true;
		}
		if (parse_uint_after(buf, "cpu_speed=", &v, 10) == 0 && v)
			info->cpu_speed = v;
	}
	if (!info->has_versions)
		add_missing(info,
			    "counter versions and authorization (no 'CPU-MF: Counter facility' line in "
			    "/proc/service_levels)");

	if (mf_perf_read_file(sys, "/proc/sysinfo", buf, sizeof(buf)) > 0 &&
	    parse_uint_after(buf, "Type:", &v, 10) == 0)
		info->machine_type = v;
	else if (mf_perf_read_file(sys, "/proc/cpuinfo", buf, sizeof(buf)) > 0 &&
		 parse_uint_after(buf, "machine =", &v, 10) == 0)
		info->machine_type = v;
	info->machine = info->machine_type ? mf_kb_machine(kb, info->machine_type) : NULL;
	if (isnan(info->cpu_speed) && !info->machine)
		add_missing(info,
			    "CPU speed (no cpu_speed= in /proc/service_levels) and no known machine type for "
			    "its nominal speed: LPARCPU and AIU times are not available");
	info->family = force ? force : info->machine ? info->machine->family : NULL;
	if (!info->family) {
		snprintf(info->why, sizeof(info->why),
			 info->machine_type
				 ? "machine type %u is not known (see mfstat machines): give --machine"
				 : "machine type not found in /proc/sysinfo or /proc/cpuinfo: give --machine",
			 info->machine_type);
		return MF_ENOTCOUNTED;
	}
	if (!info->machine_type)
		add_missing(info, "machine type (no Type: in /proc/sysinfo)");
	if (info->has_versions && !(info->auth & 0x02)) {
		snprintf(info->why, sizeof(info->why),
			 "the basic counter set is not authorized for this LPAR or guest (authorization %04x): "
			 "authorize it in the LPAR activation profile, or in z/VM",
			 info->auth);
		return MF_ENOTCOUNTED;
	}
	if (info->has_versions && !(info->auth & 0x01))
		add_missing(info,
			    "the extended counter set is not authorized: sourcing, RNI, TLB and AIU metrics are not "
			    "available");
	if (!info->root && info->paranoid > (system_wide ? 0 : 2)) {
		snprintf(info->why, sizeof(info->why),
			 "perf_event_paranoid is %d: %s counting needs root, CAP_PERFMON or a value of %d or less "
			 "(sysctl kernel.perf_event_paranoid)",
			 info->paranoid, system_wide ? "system-wide" : "per-process", system_wide ? 0 : 2);
		return MF_ENOTCOUNTED;
	}
	/* The events: one sysfs file each, holding "event=0x<number>". */
	d = mf_perf_opendir(sys, "/sys/bus/event_source/devices/cpum_cf/events");
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)) && info->nevents < MF_CPUMF_MAX_EVENTS) {
			char rel[512];
			const struct mf_counter *c;
			struct mf_cpumf_event *e;
			if (de->d_name[0] == '.')
				continue;
			snprintf(rel, sizeof(rel), "/sys/bus/event_source/devices/cpum_cf/events/%s", de->d_name);
			if (mf_perf_read_file(sys, rel, buf, sizeof(buf)) <= 0 ||
			    parse_uint_after(buf, "event=", &v, 16) != 0)
				continue;
			c = mf_family_counter_num(info->family, v);
			if (!c || (info->has_versions && !(info->auth & auth_bit(v)))) {
				dropped++;
				continue;
			}
			e = &info->events[info->nevents++];
			snprintf(e->name, sizeof(e->name), "%.63s", de->d_name);
			e->number = v;
			e->slot = info->family->dense[v];
		}
		closedir(d);
	}
	/* Counter order, whatever the directory order. */
	qsort(info->events, info->nevents, sizeof(info->events[0]), cmp_event);
	if (info->nevents == 0) {
		snprintf(info->why, sizeof(info->why),
			 "the cpum_cf PMU lists no %s counters it may count (in "
			 "/sys/bus/event_source/devices/cpum_cf/events)",
			 info->family->display);
		return MF_ENOTCOUNTED;
	}
	(void)dropped;
	return 0;
}

size_t mf_cpumf_sets(const struct mf_cpumf_info *info, struct mf_cpumf_set_state *out, size_t max)
{
	static const unsigned bit[MF_NSETS] = {[MF_SET_BASIC] = 0x02,
					       [MF_SET_PROBLEM] = 0x04,
					       [MF_SET_CRYPTO] = 0x08,
					       [MF_SET_EXTENDED] = 0x01,
					       [MF_SET_MTDIAG] = 0x20};
	size_t n = 0;
	if (!info->family)
		return 0;
	for (int set = 0; set < MF_NSETS; set++) {
		struct mf_cpumf_set_state st = {.set = set, .up = false, .reason = ""};
		if (info->family->set_size[set] <= 0)
			continue;
		for (size_t i = 0; i < info->nevents && !st.up; i++)
			st.up = info->family->counters[info->events[i].slot].set == set;
		if (!st.up && info->has_versions && !(info->auth & bit[set]))
			snprintf(st.reason, sizeof(st.reason), "not authorized (authorization 0x%x)", info->auth);
		else if (!st.up)
			snprintf(st.reason, sizeof(st.reason), "the cpum_cf PMU lists none of its counters");
		if (n < max)
			out[n] = st;
		n++;
	}
	return n;
}

/* Reads every open counter (summed over its CPUs, scaled when multiplexed) into counts. */
static void read_counts(const struct mf_perf_sys *sys, const int *fds, size_t n, size_t nc, struct mf_count *counts)
{
	size_t i, k;
	for (i = 0; i < n; i++) {
		if (!counts[i].ok)
			continue;
		counts[i].value = counts[i].enabled = counts[i].running = 0;
		for (k = 0; k < nc; k++) {
			uint64_t v[3];
			if (fds[i * nc + k] < 0)
				continue; /* an event opened on one CPU only */
			if (sys->read(sys->ctx, fds[i * nc + k], v, sizeof(v)) != (long)sizeof(v)) {
				counts[i].ok = false;
				snprintf(counts[i].why, sizeof(counts[i].why), "read failed");
				break;
			}
			counts[i].enabled += v[1];
			counts[i].running += v[2];
			/* Scaled by enabled/running time when the kernel multiplexed the counter. */
			counts[i].value +=
				v[2] && v[2] < v[1] ? (uint64_t)((double)v[0] * (double)v[1] / (double)v[2]) : v[0];
		}
	}
}

/* One counting run: its events, their descriptors ([event * nc + cpu]) and how to report. */
struct counting {
	const struct mf_perf_sys *sys;
	const struct mf_perf_req *req;
	size_t n, nc;
	const int *cpus;
	int *fds;
	struct mf_count *counts;
	struct mf_perf_tick *tick;
	double t,
		end; /* -I: the start of the interval being counted (seconds after t0); the end of a system-wide run */
	double t0;
};

/*
 * Opens every event, on the program pid (disabled until it execs) or on the
 * CPUs; an event counts on all its CPUs or not at all.  Returns 0, or
 * MF_ENOTCOUNTED when no event could be opened.
 */
static int open_counters(struct counting *c, int pid, struct mf_error *err)
{
	size_t i, k, opened = 0;
	int first_errno = 0;
	for (i = 0; i < c->n; i++) {
		const struct mf_perf_req *r = &c->req[i];
		struct mf_count *cnt = &c->counts[i];
		struct perf_event_attr attr;
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = r->type;
		attr.config = r->config;
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		attr.inherit = 1;
		if (pid >= 0) {
			attr.disabled = 1;
			attr.enable_on_exec = 1;
		}
		snprintf(cnt->name, sizeof(cnt->name), "%s", r->name);
		cnt->ok = false;
		for (k = 0; k < c->nc; k++) {
			int fd;
			if (pid < 0 && r->one_cpu && k > 0)
				break;
			fd = c->sys->open(c->sys->ctx, &attr, pid,
					  pid >= 0     ? -1
					  : r->one_cpu ? r->cpu
						       : c->cpus[k],
					  -1, PERF_FLAG_FD_CLOEXEC);
			if (fd < 0) {
				if (!first_errno)
					first_errno = -fd;
				snprintf(cnt->why, sizeof(cnt->why), "%s", mf_perf_errno_text(-fd));
				cnt->ok = false;
				break; /* an event counts on all CPUs or not at all */
			}
			c->fds[i * c->nc + k] = fd;
			cnt->ok = true;
		}
		if (cnt->ok)
			opened++;
	}
	if (opened == 0) {
		char why[160];
		snprintf(why, sizeof(why), "%s", mf_perf_errno_text(first_errno));
		return mf_error_set(err, MF_ENOTCOUNTED, "stat", 0, 0, "no event could be opened: %s", why);
	}
	return 0;
}

/* The runner's hooks for a command: open on it; with -I sleep to the next interval, then read and report. */
static int hook_open(void *ctx, struct mf_perf_child *ch, struct mf_error *err)
{
	return open_counters(ctx, ch->pid, err);
}

static int hook_wait(void *ctx, struct mf_perf_child *ch, struct mf_error *err)
{
	struct counting *c = ctx;
	(void)err;
	c->tick->start_us = ch->start_us;
	mf_perf_sleep_until(ch->t0 + c->t + c->tick->interval);
	return 0;
}

static int hook_tick(void *ctx, struct mf_perf_child *ch, struct mf_error *err)
{
	struct counting *c = ctx;
	(void)err;
	read_counts(c->sys, c->fds, c->n, c->nc, c->counts);
	c->tick->fn(c->tick->ctx, c->counts, c->n, c->t, mf_perf_now() - ch->t0);
	c->t += c->tick->interval;
	return 0;
}

/* Runs the command argv with the events on it; then reads them (-I: once more, for the last interval). */
static int count_command(struct counting *c, char *const argv[], int *status, struct mf_perf_times *times,
			 struct mf_error *err)
{
	struct mf_perf_child ch;
	struct mf_perf_hooks h = {c, hook_open, NULL, NULL};
	bool ticks = c->tick && c->tick->interval > 0;
	int rc;
	memset(&ch, 0, sizeof(ch));
	ch.argv = argv;
	if (ticks) {
		h.wait = hook_wait;
		h.tick = hook_tick;
	}
	rc = mf_perf_child_run(&ch, &h, err);
	*status = ch.status;
	if (rc == MF_ENOEXEC && ch.exec_errno)
		mf_error_set(err, MF_ENOEXEC, argv[0], 0, 0, "cannot run the command: %s", strerror(ch.exec_errno));
	if (rc)
		return rc;
	if (c->tick)
		c->tick->start_us = ch.start_us;
	read_counts(c->sys, c->fds, c->n, c->nc, c->counts);
	times->wall = ch.wall;
	times->user_s = ch.user_s;
	times->sys_s = ch.sys_s;
	if (ticks)
		c->tick->fn(c->tick->ctx, c->counts, c->n, c->t, times->wall);
	return 0;
}

/* Set by the SIGINT handler of a system-wide count: the wait ends. */
static volatile sig_atomic_t stop_counting;

static void on_sigint(int sig)
{
	(void)sig;
	stop_counting = 1;
}

/*
 * Sleeps until t (mf_perf_now seconds; infinity: for ever) or a SIGINT,
 * whichever comes first.  SIGINT is blocked except inside pselect, so a
 * signal between the test and the sleep is not lost.  True when interrupted.
 */
static bool sleep_until_sigint(double t)
{
	sigset_t block, old;
	bool stop;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &old);
	for (;;) {
		double left = t - mf_perf_now();
		struct timespec ts;
		if (stop_counting || left <= 0)
			break;
		if (left > 3600)
			left = 3600;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		pselect(0, NULL, NULL, NULL, &ts, &old);
	}
	stop = stop_counting != 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return stop;
}

/*
 * Counts system-wide on the CPUs for seconds, or until SIGINT when seconds is
 * not positive (-I: read and report every interval); a SIGINT ends either
 * early, as perf stat -a does.
 */
static int count_cpus(struct counting *c, double seconds, struct mf_perf_times *times, struct mf_error *err)
{
	struct sigaction act, old;
	double end = seconds > 0 ? seconds : INFINITY;
	int rc = open_counters(c, -1, err);
	if (rc)
		return rc;
	stop_counting = 0;
	memset(&act, 0, sizeof(act));
	act.sa_handler = on_sigint;
	act.sa_flags = SA_RESETHAND; /* a second ^C before the handler is taken back acts as without it */
	sigemptyset(&act.sa_mask);
	sigaction(SIGINT, &act, &old);
	c->t0 = mf_perf_now();
	if (c->tick) {
		struct timespec rt;
		clock_gettime(CLOCK_REALTIME, &rt);
		c->tick->start_us = (int64_t)rt.tv_sec * 1000000 + rt.tv_nsec / 1000;
	}
	if (c->tick && c->tick->interval > 0) {
		while (c->t + 1e-9 < end && !times->interrupted) {
			double next = c->t + c->tick->interval < end ? c->t + c->tick->interval : end;
			times->interrupted = sleep_until_sigint(c->t0 + next);
			read_counts(c->sys, c->fds, c->n, c->nc, c->counts);
			c->tick->fn(c->tick->ctx, c->counts, c->n, c->t, mf_perf_now() - c->t0);
			c->t = next;
		}
	} else {
		times->interrupted = sleep_until_sigint(c->t0 + end);
		read_counts(c->sys, c->fds, c->n, c->nc, c->counts);
	}
	times->wall = mf_perf_now() - c->t0;
	sigaction(SIGINT, &old, NULL);
	return 0;
}

int mf_perf_run(const struct mf_perf_sys *sys, const struct mf_perf_req *req, size_t n, char *const argv[],
		double seconds, const int *cpus, size_t ncpus, struct mf_perf_tick *tick, struct mf_count *counts,
		int *status, struct mf_perf_times *times, struct mf_error *err)
{
	struct counting c;
	int all_cpus[1024];
	size_t i;
	int rc;

	*status = 0;
	times->wall = times->user_s = times->sys_s = NAN;
	times->interrupted = false;
	if (!argv && !cpus) {
		/* System-wide on every online CPU. */
		char buf[4096];
		int got = -1;
		if (mf_perf_read_file(sys, "/sys/devices/system/cpu/online", buf, sizeof(buf)) > 0)
			got = mf_cpu_list(buf, all_cpus, sizeof(all_cpus) / sizeof(all_cpus[0]));
		if (got <= 0) {
			all_cpus[0] = 0;
			got = 1;
		}
		cpus = all_cpus;
		ncpus = (size_t)got;
	}
	memset(&c, 0, sizeof(c));
	c.sys = sys;
	c.req = req;
	c.n = n;
	c.nc = argv ? 1 : ncpus;
	c.cpus = cpus;
	c.counts = counts;
	c.tick = tick;
	c.fds = malloc((n ? n : 1) * c.nc * sizeof(*c.fds));
	if (!c.fds)
		return mf_error_nomem(err, "stat", 0, "opening %zu events on %zu CPUs", n, c.nc);
	for (i = 0; i < n * c.nc; i++)
		c.fds[i] = -1;
	rc = argv ? count_command(&c, argv, status, times, err) : count_cpus(&c, seconds, times, err);
	for (i = 0; i < n * c.nc; i++)
		if (c.fds[i] >= 0)
			sys->close(sys->ctx, c.fds[i]);
	free(c.fds);
	return rc;
}

/*
 * The config of a sysfs event such as "event=0x04,umask=0x03": each term is
 * placed where its format file says ("config:0-7", "config:8-15").
 */
static int event_config(const struct mf_perf_sys *sys, const char *pmu, const char *event, uint64_t *config)
{
	char path[512], buf[256], fmt[128];
	char *save = NULL, *term;
	*config = 0;
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/events/%s", pmu, event);
	if (mf_perf_read_file(sys, path, buf, sizeof(buf)) <= 0)
		return -1;
	for (term = strtok_r(buf, ",\n", &save); term; term = strtok_r(NULL, ",\n", &save)) {
		char *eq = strchr(term, '=');
		unsigned lo, hi;
		uint64_t v;
		if (!eq)
			return -1;
		*eq = '\0';
		v = strtoull(eq + 1, NULL, 0);
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/%s", pmu, term);
		if (mf_perf_read_file(sys, path, fmt, sizeof(fmt)) <= 0)
			return -1;
		if (sscanf(fmt, "config:%u-%u", &lo, &hi) != 2) {
			if (sscanf(fmt, "config:%u", &lo) != 1)
				return -1;
			hi = lo;
		}
		if (hi < lo || hi > 63)
			return -1;
		if (hi - lo < 63)
			v &= (UINT64_C(1) << (hi - lo + 1)) - 1;
		*config |= v << lo;
	}
	return 0;
}

size_t mf_uncore_probe(const struct mf_perf_sys *sys, struct mf_uncore_imc *imc, size_t max)
{
	char buf[256];
	DIR *d;
	struct dirent *de;
	size_t n = 0;

	d = mf_perf_opendir(sys, "/sys/bus/event_source/devices");
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct mf_uncore_imc u;
		char rel[512];
		if (strncmp(de->d_name, "uncore_imc", 10) != 0)
			continue;
		memset(&u, 0, sizeof(u));
		snprintf(u.name, sizeof(u.name), "%.47s", de->d_name);
		snprintf(rel, sizeof(rel), "/sys/bus/event_source/devices/%s/type", u.name);
		if (mf_perf_read_file(sys, rel, buf, sizeof(buf)) <= 0)
			continue;
		u.type = (uint32_t)atoi(buf);
		snprintf(rel, sizeof(rel), "/sys/bus/event_source/devices/%s/cpumask", u.name);
		u.cpu = mf_perf_read_file(sys, rel, buf, sizeof(buf)) > 0 ? atoi(buf) : 0;
		if (event_config(sys, u.name, "cas_count_read", &u.cas_read) ||
		    event_config(sys, u.name, "cas_count_write", &u.cas_write))
			continue;
		if (n < max)
			imc[n] = u;
		n++;
	}
	closedir(d);
	return n;
}
