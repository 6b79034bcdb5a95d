/* SPDX-License-Identifier: MIT */
/*
 * Counting with perf_event_open on Linux, and the CPU-MF probe of Linux on Z
 * (linux-s390.md §2): the cpum_cf PMU in sysfs, its events, the counter
 * versions and authorization in /proc/service_levels, the machine type in
 * /proc/sysinfo.  Every file and system call goes through struct mf_sysif,
 * which a test replaces with a recorded IBM Z tree and recorded counts.
 */
#include "mfstat/stat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FAKE_FD_BASE 100000

struct mf_sysif {
	char *root; /* NULL: the real system */
	size_t ncounts;
	uint64_t *cfg, *val;
	size_t nfake;
	uint64_t fake_cfg[4096];
};

static struct mf_sysif real_sys;

struct mf_sysif *mf_sysif_real(void)
{
	return &real_sys;
}

static void path_of(const struct mf_sysif *s, const char *path, char *out, size_t n)
{
	snprintf(out, n, "%s%s", s->root ? s->root : "", path);
}

long mf_sysif_read_file(struct mf_sysif *s, const char *path, char *buf, size_t n)
{
	char p[4096];
	int fd;
	ssize_t got;
	size_t used = 0;
	path_of(s, path, p, sizeof(p));
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (used + 1 < n && (got = read(fd, buf + used, n - 1 - used)) > 0)
		used += (size_t)got;
	close(fd);
	buf[used] = '\0';
	return (long)used;
}

int mf_sysif_recorded(struct mf_sysif **out, const char *root, struct mf_error *err)
{
	struct mf_sysif *s = calloc(1, sizeof(*s));
	char path[4096], line[256];
	FILE *fp;
	*out = NULL;
	if (!s)
		return mf_error_set(err, MF_ENOMEM, root, 0, 0, "out of memory");
	s->root = strdup(root);
	snprintf(path, sizeof(path), "%s/counts.tsv", root);
	fp = fopen(path, "r");
	if (fp) {
		long ln = 0;
		struct stat sb;
		/* A recorded table is a small regular file: not a device, a FIFO, or lines without end. */
		if (fstat(fileno(fp), &sb) != 0 || !S_ISREG(sb.st_mode)) {
			fclose(fp);
			mf_sysif_free(s);
			return mf_error_set(err, MF_EIO, path, 0, 0, "not a regular file");
		}
		while (fgets(line, sizeof(line), fp)) {
			unsigned long long c, v;
			size_t n = strlen(line);
			ln++;
			if (n == sizeof(line) - 1 && line[n - 1] != '\n' && !feof(fp)) {
				fclose(fp);
				mf_sysif_free(s);
				return mf_error_set(err, MF_EFORMAT, path, ln, 0, "line longer than %zu bytes",
						    sizeof(line) - 2);
			}
			if (line[0] == '#' || sscanf(line, "%llu %llu", &c, &v) != 2)
				continue;
			s->cfg = realloc(s->cfg, (s->ncounts + 1) * sizeof(*s->cfg));
			s->val = realloc(s->val, (s->ncounts + 1) * sizeof(*s->val));
			if (!s->cfg || !s->val) {
				fclose(fp);
				mf_sysif_free(s);
				return mf_error_set(err, MF_ENOMEM, root, 0, 0, "out of memory");
			}
			s->cfg[s->ncounts] = c;
			s->val[s->ncounts++] = v;
		}
		fclose(fp);
	}
	*out = s;
	return 0;
}

void mf_sysif_free(struct mf_sysif *s)
{
	if (!s || s == &real_sys)
		return;
	free(s->root);
	free(s->cfg);
	free(s->val);
	free(s);
}

/* perf_event_open, or its recorded stand-in. */
static int sys_perf_open(struct mf_sysif *s, struct perf_event_attr *attr, pid_t pid, int cpu)
{
	long fd;
	if (s->root) {
		if (s->nfake >= sizeof(s->fake_cfg) / sizeof(s->fake_cfg[0]))
			return -EMFILE;
		s->fake_cfg[s->nfake] = attr->config;
		return FAKE_FD_BASE + (int)s->nfake++;
	}
	fd = syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

/* value, time enabled, time running */
static int sys_perf_read(struct mf_sysif *s, int fd, uint64_t v[3])
{
	if (s->root) {
		uint64_t cfg = s->fake_cfg[fd - FAKE_FD_BASE];
		size_t i;
		v[0] = 0;
		for (i = 0; i < s->ncounts; i++)
			if (s->cfg[i] == cfg)
				v[0] = s->val[i];
		v[1] = v[2] = 1000000;
		return 0;
	}
	return read(fd, v, 3 * sizeof(uint64_t)) == (ssize_t)(3 * sizeof(uint64_t)) ? 0 : -errno;
}

static void sys_perf_close(struct mf_sysif *s, int fd)
{
	if (!s->root)
		close(fd);
}

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

static int cmp_event(const void *a, const void *b)
{
	const struct mf_cpumf_event *x = a, *y = b;
	return (x->number > y->number) - (x->number < y->number);
}

int mf_cpumf_probe(struct mf_sysif *sys, const struct mf_kb *kb, const struct mf_family *force, bool system_wide,
		   struct mf_cpumf_info *info)
{
	char buf[16384], path[4096];
	long n;
	DIR *d;
	unsigned v, dropped = 0;

	memset(info, 0, sizeof(*info));
	info->paranoid = -99;
	info->cpu_speed = NAN;
	info->root = geteuid() == 0;
	if (mf_sysif_read_file(sys, "/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) > 0)
		info->paranoid = atoi(buf);
	n = mf_sysif_read_file(sys, "/sys/bus/event_source/devices/cpum_cf/type", buf, sizeof(buf));
	if (n <= 0) {
		snprintf(info->why, sizeof(info->why),
			 "no cpum_cf PMU in /sys/bus/event_source/devices: this is not Linux on IBM Z, the kernel "
			 "lacks CPU-MF counter support, or a container hides it");
		return MF_ENOTCOUNTED;
	}
	info->has_pmu = true;
	info->pmu_type = atoi(buf);
	/* Versions and authorization: "CPU-MF: Counter facility: version=3.7 authorization=002f". */
	if (mf_sysif_read_file(sys, "/proc/service_levels", buf, sizeof(buf)) > 0) {
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
		add_missing(info, "counter versions and authorization (no 'CPU-MF: Counter facility' line in "
				  "/proc/service_levels)");

	if (mf_sysif_read_file(sys, "/proc/sysinfo", buf, sizeof(buf)) > 0 &&
	    parse_uint_after(buf, "Type:", &v, 10) == 0)
		info->machine_type = v;
	else if (mf_sysif_read_file(sys, "/proc/cpuinfo", buf, sizeof(buf)) > 0 &&
		 parse_uint_after(buf, "machine =", &v, 10) == 0)
		info->machine_type = v;
	info->machine = info->machine_type ? mf_kb_machine(kb, info->machine_type) : NULL;
	if (isnan(info->cpu_speed) && !info->machine)
		add_missing(info, "CPU speed (no cpu_speed= in /proc/service_levels) and no known machine type for "
				  "its nominal speed: LPARCPU and AIU times are not available");
	info->family = force ? force : info->machine ? info->machine->family : NULL;
	if (!info->family) {
		snprintf(info->why, sizeof(info->why),
			 info->machine_type ? "machine type %u is not known (see mfstat machines): give --machine"
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
		add_missing(info, "the extended counter set is not authorized: sourcing, RNI, TLB and AIU metrics are not "
				  "available");
	if (!info->root && info->paranoid > (system_wide ? 0 : 2)) {
		snprintf(info->why, sizeof(info->why),
			 "perf_event_paranoid is %d: %s counting needs root or a value of %d or less "
			 "(sysctl kernel.perf_event_paranoid)",
			 info->paranoid, system_wide ? "system-wide" : "per-process", system_wide ? 0 : 2);
		return MF_ENOTCOUNTED;
	}
	/* The events: one sysfs file each, holding "event=0x<number>". */
	path_of(sys, "/sys/bus/event_source/devices/cpum_cf/events", path, sizeof(path));
	d = opendir(path);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)) && info->nevents < MF_CPUMF_MAX_EVENTS) {
			char rel[512];
			const struct mf_counter *c;
			struct mf_cpumf_event *e;
			if (de->d_name[0] == '.')
				continue;
			snprintf(rel, sizeof(rel), "/sys/bus/event_source/devices/cpum_cf/events/%s", de->d_name);
			if (mf_sysif_read_file(sys, rel, buf, sizeof(buf)) <= 0 ||
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
			 "the cpum_cf PMU lists no %s counters it may count (in /sys/bus/event_source/devices/cpum_cf/events)",
			 info->family->display);
		return MF_ENOTCOUNTED;
	}
	(void)dropped;
	return 0;
}

static void why_errno(int e, char *buf, size_t n)
{
	switch (e) {
	case ENOENT:
		snprintf(buf, n, "the kernel has no such event here (ENOENT: no hardware counter for it)");
		break;
	case EACCES:
	case EPERM:
		snprintf(buf, n, "permission denied (%s): perf_event_paranoid or a container blocks perf", strerror(e));
		break;
	case EOPNOTSUPP:
		snprintf(buf, n, "not supported by this PMU (EOPNOTSUPP)");
		break;
	case ENODEV:
		snprintf(buf, n, "no such device (ENODEV)");
		break;
	default:
		snprintf(buf, n, "%s", strerror(e));
		break;
	}
}

/* Parses a CPU list such as "0-3,8" into cpus (at most max); returns the count or -1. */
int mf_cpu_list(const char *s, int *cpus, size_t max)
{
	size_t n = 0;
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b;
		if (end == s || a < 0)
			return -1;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a)
				return -1;
		}
		for (; a <= b; a++) {
			if (n == max)
				return -1;
			cpus[n++] = (int)a;
		}
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return (int)n;
}

/* Reads every open counter (summed over its CPUs, scaled when multiplexed) into counts. */
static void read_counts(struct mf_sysif *sys, const int *fds, size_t n, size_t nc, struct mf_count *counts)
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
			if (sys_perf_read(sys, fds[i * nc + k], v)) {
				counts[i].ok = false;
				snprintf(counts[i].why, sizeof(counts[i].why), "read failed");
				break;
			}
			counts[i].enabled += v[1];
			counts[i].running += v[2];
			/* Scaled by enabled/running time when the kernel multiplexed the counter. */
			counts[i].value += v[2] && v[2] < v[1] ? (uint64_t)((double)v[0] * (double)v[1] / (double)v[2]) : v[0];
		}
	}
}

static double since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Sleeps until t seconds after t0 (or not at all when that is past). */
static void sleep_until(const struct timespec *t0, double t)
{
	double left = t - since(t0);
	struct timespec ts;
	if (left <= 0)
		return;
	ts.tv_sec = (time_t)left;
	ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int mf_perf_run(struct mf_sysif *sys, const struct mf_perf_req *req, size_t n, char *const argv[], double seconds,
		const int *cpus, size_t ncpus, struct mf_perf_tick *tick, struct mf_count *counts, int *status,
		double *wall, struct mf_error *err)
{
	int go[2] = {-1, -1}, fail[2] = {-1, -1};
	int all_cpus[1024];
	int *fds;
	pid_t pid = -1;
	size_t i, opened = 0, k, nc;
	struct timespec t0, t1;
	int first_errno = 0, rc = 0;
	struct sigaction old_int, old_quit;
	bool restore = false;

	*status = 0;
	*wall = NAN;
	if (!argv && !cpus) {
		/* System-wide on every online CPU. */
		char buf[4096];
		int got = -1;
		if (mf_sysif_read_file(sys, "/sys/devices/system/cpu/online", buf, sizeof(buf)) > 0)
			got = mf_cpu_list(buf, all_cpus, sizeof(all_cpus) / sizeof(all_cpus[0]));
		if (got <= 0) {
			all_cpus[0] = 0;
			got = 1;
		}
		cpus = all_cpus;
		ncpus = (size_t)got;
	}
	nc = argv ? 1 : ncpus;
	fds = malloc((n ? n : 1) * nc * sizeof(*fds));
	if (!fds)
		return mf_error_set(err, MF_ENOMEM, "stat", 0, 0, "out of memory");
	for (i = 0; i < n * nc; i++)
		fds[i] = -1;
	if (argv) {
		/* The child waits for the counters before it execs the command. */
		if (pipe2(go, O_CLOEXEC) || pipe2(fail, O_CLOEXEC)) {
			free(fds);
			return mf_error_set(err, MF_ENOEXEC, "stat", 0, 0, "pipe: %s", strerror(errno));
		}
		pid = fork();
		if (pid < 0) {
			rc = mf_error_set(err, MF_ENOEXEC, "stat", 0, 0, "fork: %s", strerror(errno));
			goto out;
		}
		if (pid == 0) {
			char c;
			int e;
			close(go[1]);
			close(fail[0]);
			if (read(go[0], &c, 1) != 1)
				_exit(127); /* the parent gave up: never run the command */
			execvp(argv[0], argv);
			e = errno;
			if (write(fail[1], &e, sizeof(e)) < 0)
				_exit(127);
			_exit(127);
		}
		close(go[0]);
		close(fail[1]);
		go[0] = fail[1] = -1;
		/*
		 * ^C or ^\ at the terminal goes to the command, which it may end;
		 * mfstat lives on to report its counts and its status, as perf stat.
		 */
		{
			struct sigaction ign;
			memset(&ign, 0, sizeof(ign));
			ign.sa_handler = SIG_IGN;
			sigemptyset(&ign.sa_mask);
			sigaction(SIGINT, &ign, &old_int);
			sigaction(SIGQUIT, &ign, &old_quit);
			restore = true;
		}
	}
	for (i = 0; i < n; i++) {
		struct perf_event_attr attr;
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = req[i].type;
		attr.config = req[i].config;
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		attr.inherit = 1;
		if (argv) {
			attr.disabled = 1;
			attr.enable_on_exec = 1;
		}
		snprintf(counts[i].name, sizeof(counts[i].name), "%s", req[i].name);
		counts[i].ok = false;
		for (k = 0; k < nc; k++) {
			int fd;
			if (!argv && req[i].one_cpu && k > 0)
				break;
			fd = sys_perf_open(sys, &attr, argv ? pid : -1, argv ? -1 : req[i].one_cpu ? req[i].cpu : cpus[k]);
			if (fd < 0) {
				if (!first_errno)
					first_errno = -fd;
				why_errno(-fd, counts[i].why, sizeof(counts[i].why));
				counts[i].ok = false;
				break; /* an event counts on all CPUs or not at all */
			}
			fds[i * nc + k] = fd;
			counts[i].ok = true;
		}
		if (counts[i].ok)
			opened++;
	}
	if (opened == 0) {
		char why[160];
		why_errno(first_errno, why, sizeof(why));
		rc = mf_error_set(err, MF_ENOTCOUNTED, "stat", 0, 0, "no event could be opened: %s", why);
		goto out; /* closing go makes the child exit without running the command */
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (tick) {
		struct timespec rt;
		clock_gettime(CLOCK_REALTIME, &rt);
		tick->start_us = (int64_t)rt.tv_sec * 1000000 + rt.tv_nsec / 1000;
	}
	if (argv) {
		int e = 0;
		ssize_t got;
		if (write(go[1], "g", 1) != 1) {
			rc = mf_error_set(err, MF_ENOEXEC, "stat", 0, 0, "cannot start the command");
			goto out;
		}
		close(go[1]);
		go[1] = -1;
		got = read(fail[0], &e, sizeof(e));
		if (got == (ssize_t)sizeof(e)) {
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			pid = -1;
			rc = mf_error_set(err, MF_ENOEXEC, argv[0], 0, 0, "cannot run the command: %s", strerror(e));
			goto out;
		}
		if (tick && tick->interval > 0) {
			/* -I: read every interval while the command runs, then once more at its end. */
			double t = 0;
			for (;;) {
				pid_t w;
				sleep_until(&t0, t + tick->interval);
				w = waitpid(pid, status, WNOHANG);
				if (w == pid) {
					pid = -1;
					break;
				}
				read_counts(sys, fds, n, nc, counts);
				tick->fn(tick->ctx, counts, n, t, since(&t0));
				t += tick->interval;
			}
			read_counts(sys, fds, n, nc, counts);
			*wall = since(&t0);
			tick->fn(tick->ctx, counts, n, t, *wall);
			goto out;
		}
		while (waitpid(pid, status, 0) < 0 && errno == EINTR)
			;
		pid = -1;
	} else if (tick && tick->interval > 0) {
		double t = 0;
		while (t + 1e-9 < seconds) {
			double next = t + tick->interval < seconds ? t + tick->interval : seconds;
			sleep_until(&t0, next);
			read_counts(sys, fds, n, nc, counts);
			tick->fn(tick->ctx, counts, n, t, since(&t0));
			t = next;
		}
		*wall = since(&t0);
		goto out;
	} else {
		sleep_until(&t0, seconds);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	read_counts(sys, fds, n, nc, counts);
out:
	for (i = 0; i < n * nc; i++)
		if (fds[i] >= 0)
			sys_perf_close(sys, fds[i]);
	if (go[1] >= 0)
		close(go[1]);
	if (fail[0] >= 0)
		close(fail[0]);
	if (pid > 0) {
		while (waitpid(pid, status, 0) < 0 && errno == EINTR)
			;
	}
	if (restore) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
	}
	free(fds);
	return rc;
}

/*
 * The config of a sysfs event such as "event=0x04,umask=0x03": each term is
 * placed where its format file says ("config:0-7", "config:8-15").
 */
static int event_config(struct mf_sysif *sys, const char *pmu, const char *event, uint64_t *config)
{
	char path[512], buf[256], fmt[128];
	char *save = NULL, *term;
	*config = 0;
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/events/%s", pmu, event);
	if (mf_sysif_read_file(sys, path, buf, sizeof(buf)) <= 0)
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
		if (mf_sysif_read_file(sys, path, fmt, sizeof(fmt)) <= 0)
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

size_t mf_uncore_probe(struct mf_sysif *sys, struct mf_uncore_imc *imc, size_t max)
{
	char path[4096], buf[256];
	DIR *d;
	struct dirent *de;
	size_t n = 0;

	path_of(sys, "/sys/bus/event_source/devices", path, sizeof(path));
	d = opendir(path);
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
		if (mf_sysif_read_file(sys, rel, buf, sizeof(buf)) <= 0)
			continue;
		u.type = (uint32_t)atoi(buf);
		snprintf(rel, sizeof(rel), "/sys/bus/event_source/devices/%s/cpumask", u.name);
		u.cpu = mf_sysif_read_file(sys, rel, buf, sizeof(buf)) > 0 ? atoi(buf) : 0;
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
