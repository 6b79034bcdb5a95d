/* SPDX-License-Identifier: MIT */
/* Per-CPU counting that stays open (live/percpu.c) and serve's exposition (serve/exporter.c), on a scripted seam. */
#include "testutil.h"

#include <errno.h>
#include <linux/perf_event.h>

#include "mfstat/live/percpu.h"
#include "mfstat/serve/serve.h"

MF_TEST_KB_FIXTURE()

/* Scripted kernel answers: which opens fail, what each read returns. */
struct script {
	int fail_errno; /* opens of fail_config fail with this (0: none fail) */
	uint64_t fail_config;
	int fail_cpu;        /* ... on this CPU only, or -1 on every CPU */
	int read_errno;      /* every read fails with this (0: reads succeed) */
	bool multiplexed;    /* running = enabled / 4 */
	bool backwards;      /* each read's raw count is lower than the last */
	bool single_only;    /* answer a group read with the leader's count alone (as a recorded tree) */
	bool refuse_members; /* opens into a group fail with EINVAL (a group that would not fit) */
	size_t nfd, closed, reads;
	struct {
		uint64_t config;
		int cpu;
		uint64_t reads;
		int leader; /* index of the group leader's fd, or its own */
		bool group; /* PERF_FORMAT_GROUP */
	} fd[256];
};

static int s_open(void *ctx, struct perf_event_attr *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
	struct script *s = ctx;
	(void)group_fd, (void)flags;
	assert_int_equal(pid, -1); /* system-wide: every CPU's count, not a task's */
	assert_true(attr->read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
	if (s->fail_errno && attr->config == s->fail_config && (s->fail_cpu < 0 || s->fail_cpu == cpu))
		return -s->fail_errno;
	if (group_fd >= 0 && s->refuse_members)
		return -EINVAL;
	assert_true(s->nfd < 256);
	if (group_fd >= 0) /* a member: of a leader on the same CPU */
		assert_int_equal(s->fd[group_fd - 10].cpu, cpu);
	s->fd[s->nfd].config = attr->config;
	s->fd[s->nfd].cpu = cpu;
	s->fd[s->nfd].reads = 0;
	s->fd[s->nfd].leader = group_fd >= 0 ? group_fd - 10 : (int)s->nfd;
	s->fd[s->nfd].group = (attr->read_format & PERF_FORMAT_GROUP) != 0;
	return 10 + (int)s->nfd++;
}

/* The count of descriptor index i at its next read: config c on cpu k reads 1000*c + k, plus 100 per read (or minus, backwards). */
static uint64_t count_of(struct script *s, size_t i)
{
	s->fd[i].reads++;
	return 1000 * s->fd[i].config + (uint64_t)s->fd[i].cpu +
	       (s->backwards ? 1000000 - 100 * s->fd[i].reads : 100 * s->fd[i].reads);
}

static long s_read(void *ctx, int fd, void *buf, size_t n)
{
	struct script *s = ctx;
	uint64_t v[3 + 256];
	size_t i = (size_t)(fd - 10), used = 3;
	assert_true(i < s->nfd);
	s->reads++;
	if (s->read_errno)
		return -s->read_errno;
	v[1] = 4000;
	v[2] = s->multiplexed ? 1000 : 4000;
	if (s->fd[i].group && !s->single_only) {
		/* PERF_FORMAT_GROUP: nr, times, then the leader's count and its members' in order. */
		for (size_t j = 0; j < s->nfd; j++)
			if (s->fd[j].leader == (int)i)
				v[used++] = count_of(s, j);
		v[0] = used - 3;
	} else {
		v[0] = count_of(s, i);
	}
	if (n < used * sizeof(uint64_t))
		return -ENOSPC;
	memcpy(buf, v, used * sizeof(uint64_t));
	return (long)(used * sizeof(uint64_t));
}

static void s_close(void *ctx, int fd)
{
	struct script *s = ctx;
	(void)fd;
	s->closed++;
}

static int s_ioctl(void *ctx, int fd, unsigned long req, unsigned long arg)
{
	(void)ctx, (void)fd, (void)req, (void)arg;
	return -ENOTTY;
}

static struct mf_perf_sys scripted(struct script *s)
{
	struct mf_perf_sys sys = {NULL, s, s_open, s_ioctl, NULL, NULL, s_read, s_close};
	return sys;
}

static const struct mf_percpu_event ev2[] = {{10, 0}, {10, 1}};
static const int cpus3[] = {0, 2, 5};

static void test_open_read_close(void **state)
{
	struct script s = {.fail_cpu = -1};
	struct mf_perf_sys sys = scripted(&s);
	struct mf_percpu p;
	struct mf_error e;
	(void)state;
	assert_int_equal(mf_percpu_open(&p, &sys, ev2, 2, cpus3, 3, &e), 0);
	assert_int_equal(p.nopen, 6);
	assert_int_equal(mf_percpu_read(&p), 6);
	/* event 1 on the CPU at index 2 (cpu 5), first read */
	assert_true(mf_percpu_at(&p, 1, 2)->ok);
	assert_int_equal(mf_percpu_at(&p, 1, 2)->value, 1000 + 5 + 100);
	assert_int_equal(mf_percpu_at(&p, 0, 1)->value, 2 + 100);
	/* a second read advances, cumulative */
	mf_percpu_read(&p);
	assert_int_equal(mf_percpu_at(&p, 1, 2)->value, 1000 + 5 + 200);
	mf_percpu_close(&p);
	assert_int_equal(s.closed, 6);
}

static void test_open_failures(void **state)
{
	struct script s = {.fail_errno = EOPNOTSUPP, .fail_config = 1, .fail_cpu = 2};
	struct mf_perf_sys sys = scripted(&s);
	struct mf_percpu p;
	struct mf_error e;
	(void)state;
	/* one cell fails: the others count */
	assert_int_equal(mf_percpu_open(&p, &sys, ev2, 2, cpus3, 3, &e), 0);
	assert_int_equal(p.nopen, 5);
	assert_int_equal(mf_percpu_at(&p, 1, 1)->fd, -1);
	assert_int_equal(mf_percpu_at(&p, 1, 1)->open_errno, EOPNOTSUPP);
	assert_int_equal(mf_percpu_read(&p), 5);
	assert_false(mf_percpu_at(&p, 1, 1)->ok);
	mf_percpu_close(&p);
	assert_int_equal(s.closed, 5);

	/* nothing opens: MF_ENOTCOUNTED naming the errno */
	memset(&s, 0, sizeof(s));
	s.fail_errno = ENOENT;
	s.fail_config = 0;
	s.fail_cpu = -1;
	assert_int_equal(mf_percpu_open(&p, &sys, ev2, 1, cpus3, 3, &e), MF_ENOTCOUNTED);
	assert_non_null(strstr(e.msg, "ENOENT"));
	assert_int_equal(p.nopen, 0);
	mf_percpu_close(&p);
}

static void test_read_failure_scaling_monotonic(void **state)
{
	struct script s = {.fail_cpu = -1, .multiplexed = true};
	struct mf_perf_sys sys = scripted(&s);
	struct mf_percpu p;
	struct mf_error e;
	uint64_t before;
	(void)state;
	assert_int_equal(mf_percpu_open(&p, &sys, ev2, 2, cpus3, 1, &e), 0);
	mf_percpu_read(&p);
	/* multiplexed: running a quarter of enabled, so the count is scaled by 4 */
	assert_int_equal(mf_percpu_at(&p, 1, 0)->value, 4 * (1000 + 100));
	/* a failing read: not ok, the errno kept, the value not lost */
	s.read_errno = EIO;
	assert_int_equal(mf_percpu_read(&p), 0);
	assert_false(mf_percpu_at(&p, 1, 0)->ok);
	assert_int_equal(mf_percpu_at(&p, 1, 0)->read_errno, EIO);
	/* reads that would go backwards keep the highest value */
	s.read_errno = 0;
	s.multiplexed = false;
	s.backwards = true;
	mf_percpu_read(&p);
	before = mf_percpu_at(&p, 1, 0)->value;
	mf_percpu_read(&p);
	assert_true(mf_percpu_at(&p, 1, 0)->ok);
	assert_int_equal(mf_percpu_at(&p, 1, 0)->value, before);
	mf_percpu_close(&p);
}

/* One read per CPU (the group), whatever the number of events; members refused by the group are read alone; a seam
 * that answers a group read with one count (a recorded tree) is read per descriptor. */
static void test_groups(void **state)
{
	static const struct mf_percpu_event ev3[] = {{10, 0}, {10, 1}, {10, 2}};
	struct script s = {.fail_cpu = -1};
	struct mf_perf_sys sys = scripted(&s);
	struct mf_percpu p;
	struct mf_error e;
	(void)state;
	assert_int_equal(mf_percpu_open(&p, &sys, ev3, 3, cpus3, 3, &e), 0);
	assert_int_equal(mf_percpu_read(&p), 9);
	assert_int_equal(s.reads, 3); /* one per CPU */
	assert_true(mf_percpu_at(&p, 2, 1)->grouped);
	assert_int_equal(mf_percpu_at(&p, 2, 1)->value, 2000 + 2 + 100);
	assert_int_equal(mf_percpu_at(&p, 0, 2)->value, 5 + 100);
	mf_percpu_read(&p);
	assert_int_equal(mf_percpu_at(&p, 1, 2)->value, 1000 + 5 + 200);
	mf_percpu_close(&p);
	assert_int_equal(s.closed, 9);

	/* the group refuses members: each alone, one read each */
	memset(&s, 0, sizeof(s));
	s.fail_cpu = -1;
	s.refuse_members = true;
	assert_int_equal(mf_percpu_open(&p, &sys, ev3, 3, cpus3, 3, &e), 0);
	assert_int_equal(p.nopen, 9);
	assert_int_equal(mf_percpu_read(&p), 9);
	assert_int_equal(s.reads, 9);
	assert_int_equal(mf_percpu_at(&p, 2, 1)->value, 2000 + 2 + 100);
	mf_percpu_close(&p);

	/* a leader whose open fails: the next event leads */
	memset(&s, 0, sizeof(s));
	s.fail_errno = ENOENT;
	s.fail_config = 0;
	s.fail_cpu = -1;
	assert_int_equal(mf_percpu_open(&p, &sys, ev3, 3, cpus3, 3, &e), 0);
	assert_int_equal(mf_percpu_read(&p), 6);
	assert_int_equal(s.reads, 3);
	assert_false(mf_percpu_at(&p, 0, 0)->ok);
	assert_int_equal(mf_percpu_at(&p, 2, 0)->value, 2000 + 0 + 100);
	mf_percpu_close(&p);

	/* one count for a group read: from then on each descriptor is read alone, the values right after the first */
	memset(&s, 0, sizeof(s));
	s.fail_cpu = -1;
	s.single_only = true;
	assert_int_equal(mf_percpu_open(&p, &sys, ev3, 3, cpus3, 1, &e), 0);
	mf_percpu_read(&p);
	assert_int_equal(mf_percpu_at(&p, 2, 0)->value, 2000 + 100);
	s.reads = 0;
	mf_percpu_read(&p);
	assert_int_equal(s.reads, 3);
	assert_false(mf_percpu_at(&p, 0, 0)->grouped);
	assert_int_equal(mf_percpu_at(&p, 2, 0)->value, 2000 + 200);
	mf_percpu_close(&p);
}

/* This machine's kernel: software events of CPU 0 as one group, read with one read(2) per scrape and
 * advancing.  Skipped where system-wide counting is not allowed (not root, perf_event_paranoid). */
static void test_real_kernel_group(void **state)
{
	static const struct mf_percpu_event sw[] = {{PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
						    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
						    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS}};
	static const int cpu0[] = {0};
	struct mf_percpu p;
	struct mf_error e;
	uint64_t first;
	(void)state;
	if (mf_percpu_open(&p, mf_perf_sys_real(), sw, 3, cpu0, 1, &e) != 0) {
		mf_percpu_close(&p);
		skip();
	}
	assert_int_equal(p.nopen, 3);
	assert_true(mf_percpu_at(&p, 2, 0)->grouped);
	assert_int_equal(mf_percpu_read(&p), 3);
	assert_int_equal(p.reads, 1);
	first = mf_percpu_at(&p, 0, 0)->value;
	for (volatile long i = 0; i < 3000000; i++)
		;
	assert_int_equal(mf_percpu_read(&p), 3);
	assert_int_equal(p.reads, 2);
	assert_true(mf_percpu_at(&p, 0, 0)->ok);
	assert_true(mf_percpu_at(&p, 0, 0)->value > first); /* cpu-clock of CPU 0 runs */
	mf_percpu_close(&p);
}

/* The exposition off IBM Z: generic events where they open, else only mfstat_up 0 with the reason. */
static void test_exporter_generic(void **state)
{
	struct script s = {.fail_cpu = -1};
	struct mf_perf_sys sys = scripted(&s);
	struct mf_exporter *x = NULL;
	struct mf_strbuf out;
	struct mf_error e;
	const char *t;
	(void)state;
	mf_strbuf_init(&out);
	assert_int_equal(mf_exporter_new(&x, kb, &sys, NULL, cpus3, 2, &e), 0);
	mf_exporter_scrape(x, MF_PROM_TEXT, &out);
	t = mf_strbuf_str(&out);
	assert_non_null(strstr(t, "mfstat_perf_cycles_total{cpu=\"0\",set=\"perf\"} 100\n"));
	assert_non_null(strstr(t, "mfstat_perf_instructions_total{cpu=\"2\",set=\"perf\"} 1102\n"));
	assert_non_null(strstr(t, "mfstat_up{set=\"perf\"} 1\n"));
	assert_non_null(strstr(t, "family=\"linux_perf\""));
	assert_non_null(strstr(t, "# TYPE mfstat_scrape_duration_seconds gauge\n"));
	assert_null(strstr(t, "# EOF"));
	mf_exporter_scrape(x, MF_PROM_OPENMETRICS, &out);
	t = mf_strbuf_str(&out);
	assert_non_null(strstr(t, "mfstat_perf_cycles_total{cpu=\"0\",set=\"perf\"} 200\n"));
	assert_non_null(strstr(t, "\n# EOF\n"));
	mf_exporter_free(x);

	mf_strbuf_free(&out);
}

/* A seam where every open fails with ENOENT, as hardware events do in this VM. */
static int enoent_open(void *ctx, struct perf_event_attr *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
	(void)ctx, (void)attr, (void)pid, (void)cpu, (void)group_fd, (void)flags;
	return -ENOENT;
}

static void test_exporter_nothing_opens(void **state)
{
	struct script s = {.fail_cpu = -1};
	struct mf_perf_sys sys = scripted(&s);
	struct mf_exporter *x = NULL;
	struct mf_strbuf out;
	struct mf_error e;
	const char *t;
	(void)state;
	sys.open = enoent_open;
	mf_strbuf_init(&out);
	assert_int_equal(mf_exporter_new(&x, kb, &sys, NULL, cpus3, 3, &e), 0);
	assert_int_equal(mf_exporter_open_count(x), 0);
	mf_exporter_scrape(x, MF_PROM_TEXT, &out);
	t = mf_strbuf_str(&out);
	assert_string_equal(t,
			    "# HELP mfstat_up 1 when the counter set could be read, 0 when not (the reason label "
			    "says why)\n# TYPE mfstat_up gauge\nmfstat_up{set=\"perf\",reason=\"ENOENT: the kernel "
			    "has no such event here (no hardware counter for it)\"} 0\n");
	mf_exporter_free(x);
	mf_strbuf_free(&out);
}

/* Reads failing on every CPU: the set is up 0 with the reason, its counters absent (never 0). */
static void test_exporter_read_failure(void **state)
{
	struct script s = {.fail_cpu = -1};
	struct mf_perf_sys sys = scripted(&s);
	struct mf_exporter *x = NULL;
	struct mf_strbuf out;
	struct mf_error e;
	const char *t;
	(void)state;
	mf_strbuf_init(&out);
	assert_int_equal(mf_exporter_new(&x, kb, &sys, NULL, cpus3, 3, &e), 0);
	s.read_errno = EIO;
	mf_exporter_scrape(x, MF_PROM_TEXT, &out);
	t = mf_strbuf_str(&out);
	assert_non_null(strstr(t, "mfstat_up{set=\"perf\",reason=\"read failed: "));
	assert_null(strstr(t, "mfstat_perf_cycles_total"));
	s.read_errno = 0;
	mf_exporter_scrape(x, MF_PROM_TEXT, &out);
	t = mf_strbuf_str(&out);
	assert_non_null(strstr(t, "mfstat_up{set=\"perf\"} 1\n"));
	assert_non_null(strstr(t, "mfstat_perf_cycles_total{cpu=\"5\",set=\"perf\"} 105\n"));
	mf_exporter_free(x);
	mf_strbuf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_read_close),
		cmocka_unit_test(test_open_failures),
		cmocka_unit_test(test_read_failure_scaling_monotonic),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_real_kernel_group),
		cmocka_unit_test(test_exporter_generic),
		cmocka_unit_test(test_exporter_nothing_opens),
		cmocka_unit_test(test_exporter_read_failure),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
