/* SPDX-License-Identifier: MIT */
/*
 * The one seam between mfstat and the kernel's counters: perf_event_open and
 * its ioctl, mmap and read, and the sysfs and procfs files, either this
 * machine's own or those of a recorded tree (with recorded counts), or, in
 * tests, scripted answers.
 */
#include "mfstat/perf/perf.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- this machine --------------------------------------------------------- */

static int real_open(void *ctx, struct perf_event_attr *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
	long fd;
	(void)ctx;
	fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
	return fd < 0 ? -errno : (int)fd;
}

static int real_ioctl(void *ctx, int fd, unsigned long req, unsigned long arg)
{
	(void)ctx;
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

static void *real_mmap(void *ctx, int fd, size_t len)
{
	void *p;
	(void)ctx;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void real_munmap(void *ctx, void *p, size_t len)
{
	(void)ctx;
	munmap(p, len);
}

static long real_read(void *ctx, int fd, void *buf, size_t n)
{
	ssize_t got;
	(void)ctx;
	got = read(fd, buf, n);
	return got < 0 ? -errno : (long)got;
}

static void real_close(void *ctx, int fd)
{
	(void)ctx;
	close(fd);
}

static struct mf_perf_sys real_sys = {NULL, NULL, real_open, real_ioctl, real_mmap, real_munmap, real_read, real_close};

struct mf_perf_sys *mf_perf_sys_real(void)
{
	return &real_sys;
}

/* ---- a recorded system ------------------------------------------------------ */

#define FAKE_FD_BASE 100000

/* A pretend descriptor: the counts.tsv line it reads (or -1: reads 0) and how often it was read. */
struct fake_fd {
	long line;
	uint64_t reads;
};

struct recorded {
	struct mf_perf_sys sys; /* first: the seam handed out is the recorded system */
	char *root;
	size_t ncounts;
	uint64_t *cfg, *val, *step;
	size_t nfake, cap;
	struct fake_fd *fake;
};

/* perf_event_open: a new pretend descriptor that remembers the counts.tsv line of its config. */
static int rec_open(void *ctx, struct perf_event_attr *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
	struct recorded *r = ctx;
	long line = -1;
	size_t i;
	(void)pid, (void)cpu, (void)group_fd, (void)flags;
	if (r->nfake >= 1u << 20)
		return -EMFILE;
	if (r->nfake == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		struct fake_fd *f = realloc(r->fake, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		r->fake = f;
		r->cap = cap;
	}
	/* The last line of a config wins, as it always has. */
	for (i = 0; i < r->ncounts; i++)
		if (r->cfg[i] == attr->config)
			line = (long)i;
	r->fake[r->nfake].line = line;
	r->fake[r->nfake].reads = 0;
	return FAKE_FD_BASE + (int)r->nfake++;
}

static int rec_ioctl(void *ctx, int fd, unsigned long req, unsigned long arg)
{
	(void)ctx, (void)fd, (void)req, (void)arg;
	return -ENOTTY;
}

static void *rec_mmap(void *ctx, int fd, size_t len)
{
	(void)ctx, (void)fd, (void)len;
	errno = ENODEV;
	return NULL;
}

static void rec_munmap(void *ctx, void *p, size_t len)
{
	(void)ctx, (void)p, (void)len;
}

/*
 * A count: value (from counts.tsv) plus its step for every earlier read of the descriptor, time
 * enabled, time running.
 */
static long rec_read(void *ctx, int fd, void *buf, size_t n)
{
	struct recorded *r = ctx;
	uint64_t v[3] = {0, 1000000, 1000000};
	struct fake_fd *f;
	if (fd < FAKE_FD_BASE || (size_t)(fd - FAKE_FD_BASE) >= r->nfake)
		return -EBADF;
	f = &r->fake[fd - FAKE_FD_BASE];
	if (f->line >= 0)
		v[0] = r->val[f->line] + r->step[f->line] * f->reads;
	f->reads++;
	if (n > sizeof(v))
		n = sizeof(v);
	memcpy(buf, v, n);
	return (long)n;
}

static void rec_close(void *ctx, int fd)
{
	(void)ctx, (void)fd;
}

/* Reads root/counts.tsv, when there is one, into r. */
static int read_counts_tsv(struct recorded *r, const char *root, struct mf_error *err)
{
	char path[4096], line[256];
	long ln = 0;
	struct stat sb;
	FILE *fp;
	snprintf(path, sizeof(path), "%s/counts.tsv", root);
	fp = fopen(path, "r");
	if (!fp)
		return 0;
	/* A recorded table is a small regular file: not a device, a FIFO, or lines without end. */
	if (fstat(fileno(fp), &sb) != 0 || !S_ISREG(sb.st_mode)) {
		fclose(fp);
		return mf_error_set(err, MF_EIO, path, 0, 0, "not a regular file");
	}
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long c, v, step = 0;
		size_t n = strlen(line);
		uint64_t *nc, *nv, *ns;
		ln++;
		if (n == sizeof(line) - 1 && line[n - 1] != '\n' && !feof(fp)) {
			fclose(fp);
			return mf_error_set(err, MF_EFORMAT, path, ln, 0, "line longer than %zu bytes",
					    sizeof(line) - 2);
		}
		if (line[0] == '#' || sscanf(line, "%llu %llu %llu", &c, &v, &step) < 2)
			continue;
		nc = realloc(r->cfg, (r->ncounts + 1) * sizeof(*r->cfg));
		if (nc)
			r->cfg = nc;
		nv = nc ? realloc(r->val, (r->ncounts + 1) * sizeof(*r->val)) : NULL;
		if (nv)
			r->val = nv;
		ns = nv ? realloc(r->step, (r->ncounts + 1) * sizeof(*r->step)) : NULL;
		if (ns)
			r->step = ns;
		if (!nc || !nv || !ns) {
			fclose(fp);
			return mf_error_nomem(err, root, 0, "reading the recorded counts");
		}
		r->cfg[r->ncounts] = c;
		r->step[r->ncounts] = step;
		r->val[r->ncounts++] = v;
	}
	fclose(fp);
	return 0;
}

int mf_perf_sys_recorded(struct mf_perf_sys **out, const char *root, struct mf_error *err)
{
	struct recorded *r = calloc(1, sizeof(*r));
	int rc;
	*out = NULL;
	if (!r || !(r->root = strdup(root))) {
		free(r);
		return mf_error_nomem(err, root, 0, "opening the recorded system");
	}
	r->sys.root = r->root;
	r->sys.ctx = r;
	r->sys.open = rec_open;
	r->sys.ioctl = rec_ioctl;
	r->sys.mmap = rec_mmap;
	r->sys.munmap = rec_munmap;
	r->sys.read = rec_read;
	r->sys.close = rec_close;
	rc = read_counts_tsv(r, root, err);
	if (rc) {
		mf_perf_sys_free(&r->sys);
		return rc;
	}
	*out = &r->sys;
	return 0;
}

void mf_perf_sys_free(struct mf_perf_sys *s)
{
	struct recorded *r = (struct recorded *)s;
	if (!s || s == &real_sys)
		return;
	free(r->root);
	free(r->cfg);
	free(r->val);
	free(r->step);
	free(r->fake);
	free(r);
}

/* ---- files ------------------------------------------------------------------- */

/* root + path into out; -ENAMETOOLONG when it does not fit. */
static int path_of(const struct mf_perf_sys *s, const char *path, char *out, size_t n)
{
	if ((size_t)snprintf(out, n, "%s%s", s->root ? s->root : "", path) >= n)
		return -ENAMETOOLONG;
	return 0;
}

long mf_perf_read_file(const struct mf_perf_sys *s, const char *path, char *buf, size_t n)
{
	char p[4096];
	int fd;
	ssize_t got;
	size_t used = 0;
	if (path_of(s, path, p, sizeof(p)))
		return -ENAMETOOLONG;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (used + 1 < n && (got = read(fd, buf + used, n - 1 - used)) > 0)
		used += (size_t)got;
	close(fd);
	buf[used] = '\0';
	return (long)used;
}

DIR *mf_perf_opendir(const struct mf_perf_sys *s, const char *path)
{
	char p[4096];
	if (path_of(s, path, p, sizeof(p))) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return opendir(p);
}

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
			if (cpus)
				cpus[n] = (int)a;
			n++;
		}
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return (int)n;
}

static const struct {
	int e;
	const char *name, *text;
} perf_errnos[] = {
	{ENOENT, "ENOENT", "ENOENT: the kernel has no such event here (no hardware counter for it)"},
	{ENODEV, "ENODEV", "ENODEV: no such PMU"},
	{ENXIO, "ENXIO", "ENXIO: no such device or address"},
	{EINVAL, "EINVAL", "EINVAL: invalid for this PMU"},
	{EOPNOTSUPP, "EOPNOTSUPP", "EOPNOTSUPP: not supported by this PMU"},
	{EACCES, "EACCES", "EACCES: not permitted (kernel.perf_event_paranoid, or a container blocks perf)"},
	{EPERM, "EPERM", "EPERM: not permitted (kernel.perf_event_paranoid, or a container blocks perf)"},
	{EBUSY, "EBUSY", "EBUSY: the counter is in use by someone else"},
	{EMFILE, "EMFILE", "EMFILE: too many open files"},
	{ENOSYS, "ENOSYS", "ENOSYS: this kernel has no perf_event_open"},
	{E2BIG, "E2BIG", "E2BIG: the event attributes are not what this kernel takes"},
	{ENOSPC, "ENOSPC", "ENOSPC: no room for another counter of this kind"},
};

const char *mf_perf_errno_name(int e)
{
	size_t i;
	for (i = 0; i < sizeof(perf_errnos) / sizeof(perf_errnos[0]); i++)
		if (perf_errnos[i].e == e)
			return perf_errnos[i].name;
	return "error";
}

const char *mf_perf_errno_text(int e)
{
	size_t i;
	for (i = 0; i < sizeof(perf_errnos) / sizeof(perf_errnos[0]); i++)
		if (perf_errnos[i].e == e)
			return perf_errnos[i].text;
	return strerror(e);
}
