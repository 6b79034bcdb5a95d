/* SPDX-License-Identifier: MIT */
/*
 * The fallback ladder of mfstat measure (caliper-measure.md §4) against
 * scripted kernel answers, and the probe on fake /proc and /sys trees.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <sys/stat.h>

#include "testutil.h"

/* A scripted kernel: the first rule that matches an open decides its errno. */
struct rule {
	int type;         /* -1 any */
	long long config; /* -1 any */
	int precise;      /* -1 any */
	int sampling;     /* -1 any, 0 counting, 1 sampling */
	int kernel;       /* -1 any, 1 kernel included (exclude_kernel = 0) */
	int err;          /* errno to fail with, 0 success */
};

struct script {
	const struct rule *rules;
	size_t n;
	int opens;
};

static int fake_open(void *ctx, struct perf_event_attr *a, int pid, int cpu, int group_fd, unsigned long flags)
{
	struct script *s = ctx;
	size_t i;
	(void)pid, (void)cpu, (void)group_fd, (void)flags;
	s->opens++;
	for (i = 0; i < s->n; i++) {
		const struct rule *r = &s->rules[i];
		if (r->type >= 0 && (int)a->type != r->type)
			continue;
		if (r->config >= 0 && (long long)a->config != r->config)
			continue;
		if (r->precise >= 0 && (int)a->precise_ip != r->precise)
			continue;
		if (r->sampling >= 0 && (a->sample_period != 0) != r->sampling)
			continue;
		if (r->kernel >= 0 && (!a->exclude_kernel) != r->kernel)
			continue;
		return r->err ? -r->err : 3;
	}
	return 3;
}

static int fake_ioctl(void *ctx, int fd, unsigned long req, unsigned long arg)
{
	(void)ctx, (void)fd, (void)req, (void)arg;
	return 0;
}

static void *fake_mmap(void *ctx, int fd, size_t len)
{
	(void)ctx, (void)fd, (void)len;
	return NULL;
}

static void fake_munmap(void *ctx, void *p, size_t len)
{
	(void)ctx, (void)p, (void)len;
}

static long fake_read(void *ctx, int fd, void *buf, size_t n)
{
	(void)ctx, (void)fd, (void)buf, (void)n;
	return -EIO;
}

static void fake_close(void *ctx, int fd)
{
	(void)ctx, (void)fd;
}

/* The seam of a scripted kernel: the rules decide each open; files are this machine's (the plan reads none). */
static struct mf_perf_sys scripted(struct script *s)
{
	struct mf_perf_sys sys = {NULL, s, fake_open, fake_ioctl, fake_mmap, fake_munmap, fake_read, fake_close};
	return sys;
}

static struct mf_mprobe vm_probe(const char *vendor, int paranoid)
{
	struct mf_mprobe p;
	memset(&p, 0, sizeof(p));
	snprintf(p.vendor, sizeof(p.vendor), "%s", vendor);
	p.paranoid = paranoid;
	p.vm = 1;
	p.ncpus = 2;
	p.line_size = 64;
	return p;
}

/* Plans measurement with the -s fields given (NULL: default) against the rules. */
static void plan_with(const struct rule *rules, size_t n, const struct mf_mprobe *probe, const char *measurement,
		      const char *event, bool all, bool none, struct mf_mplan *plan)
{
	struct script s = {rules, n, 0};
	struct mf_perf_sys sys = scripted(&s);
	struct mf_mplan_req req;
	struct mf_error e;
	char *text = NULL, name[300];
	size_t len;
	memset(&req, 0, sizeof(req));
	snprintf(req.measurement, sizeof(req.measurement), "%s", measurement);
	snprintf(req.event, sizeof(req.event), "%s",
		 event                              ? event
		 : strcmp(measurement, "itlb") == 0 ? "itlb_miss"
						    : "cycles");
	req.variation_pct = 5;
	req.all = all;
	req.fallback_none = none;
	mf_error_clear(&e);
	assert_int_equal(mf_measure_events_text(NULL, &text, &len, name, sizeof(name), &e), 0);
	assert_int_equal(mf_measure_plan(&sys, probe, &req, text, len, name, plan, &e), 0);
	free(text);
}

/* Plans with a request built by the caller (rates, variations). */
static void plan_req(const struct rule *rules, size_t n, const struct mf_mprobe *probe, struct mf_mplan_req *req,
		     struct mf_mplan *plan)
{
	struct script s = {rules, n, 0};
	struct mf_perf_sys sys = scripted(&s);
	struct mf_error e;
	char *text = NULL, name[300];
	size_t len;
	mf_error_clear(&e);
	assert_int_equal(mf_measure_events_text(NULL, &text, &len, name, sizeof(name), &e), 0);
	assert_int_equal(mf_measure_plan(&sys, probe, req, text, len, name, plan, &e), 0);
	free(text);
}

static struct mf_mplan_req rate_req(const char *measurement, const char *event, uint64_t rate, bool rate_clock)
{
	struct mf_mplan_req req;
	memset(&req, 0, sizeof(req));
	snprintf(req.measurement, sizeof(req.measurement), "%s", measurement);
	snprintf(req.event, sizeof(req.event), "%s", event);
	req.rate = rate;
	req.rate_clock = rate_clock;
	req.variation_pct = 5;
	return req;
}

#define HW_ANY(err)                                                                                                    \
	{PERF_TYPE_HARDWARE, -1, -1, -1, -1, err}, {PERF_TYPE_HW_CACHE, -1, -1, -1, -1, err},                          \
	{                                                                                                              \
		PERF_TYPE_RAW, -1, -1, -1, -1, err                                                                     \
	}

static void test_vm_profile_software(void **state)
{
	static const struct rule r[] = {HW_ANY(ENOENT)};
	struct mf_mprobe p = vm_probe("GenuineIntel", 2);
	struct mf_mplan plan;
	(void)state;
	plan_with(r, 3, &p, "profile", NULL, false, false, &plan);
	assert_int_equal(plan.code, 0);
	assert_int_equal(plan.rung, MF_RUNG_SOFTWARE);
	assert_string_equal(plan.reason,
			    "fallback: no hardware counters (cycles: ENOENT, hypervisor: yes); "
			    "sampling software events task-clock");
	assert_int_equal(plan.nsampled, 1);
	assert_string_equal(plan.sampled[0].name, "task_clock");
	assert_int_equal(plan.sampled[0].role, MF_ROLE_CPU);
	assert_true(plan.sampled[0].clock);
	assert_int_equal(plan.sampled[0].period, 1000000);
	assert_true(plan.user_only);
	assert_string_equal(plan.used_spec, "1ms, 5%, task_clock:user");
	/* counts: task-clock, page-faults, instructions, cycles */
	assert_int_equal(plan.ncounted, 4);
	assert_string_equal(plan.counted[0].name, "task-clock");
}

static void test_vm_itlb_software(void **state)
{
	static const struct rule enodev[] = {HW_ANY(ENODEV)}, enxio[] = {HW_ANY(ENXIO)};
	const struct rule *sets[] = {enodev, enxio};
	const char *names[] = {"ENODEV", "ENXIO"};
	struct mf_mprobe p = vm_probe("AuthenticAMD", 1);
	struct mf_mplan plan;
	char want[300];
	int k;
	(void)state;
	for (k = 0; k < 2; k++) {
		plan_with(sets[k], 3, &p, "itlb", NULL, false, false, &plan);
		assert_int_equal(plan.code, 0);
		assert_int_equal(plan.rung, MF_RUNG_SOFTWARE);
		snprintf(want, sizeof(want),
			 "fallback: no hardware counters (itlb_miss: %s, hypervisor: yes); sampling software events "
			 "task-clock and page-faults",
			 names[k]);
		assert_string_equal(plan.reason, want);
		assert_int_equal(plan.nsampled, 2);
		assert_int_equal(plan.sampled[1].role, MF_ROLE_FAULT);
		assert_true(plan.sampled[1].want_addr);
		assert_int_equal(plan.sampled[1].period, 1);
		assert_int_equal(plan.ncounted, 5); /* + iTLB-load-misses */
	}
}

static void test_intel_precise(void **state)
{
	static const struct rule ok[] = {{-1, -1, -1, -1, -1, 0}};
	static const struct rule einval3[] = {{PERF_TYPE_RAW, -1, 3, -1, -1, EINVAL}};
	struct mf_mprobe p = vm_probe("GenuineIntel", 2);
	struct mf_mplan plan;
	(void)state;
	p.vm = 0;
	plan_with(ok, 1, &p, "itlb", NULL, false, false, &plan);
	assert_int_equal(plan.rung, MF_RUNG_PRECISE);
	assert_string_equal(plan.reason, "precise");
	assert_int_equal(plan.nsampled, 3); /* ITLB_MISS, STLB_MISS, page faults */
	assert_int_equal(plan.sampled[0].role, MF_ROLE_ITLB);
	assert_int_equal(plan.sampled[0].type, PERF_TYPE_RAW);
	assert_int_equal(plan.sampled[0].config1, 0x14);
	assert_int_equal(plan.sampled[1].role, MF_ROLE_STLB);
	assert_int_equal(plan.sampled[1].config1, 0x15);
	assert_int_equal(plan.sampled[0].precise, 3);
	assert_string_equal(plan.used_spec, "10000, 5%, itlb_miss:user");
	/* EINVAL at precise 3: the next level */
	plan_with(einval3, 1, &p, "itlb", NULL, false, false, &plan);
	assert_int_equal(plan.rung, MF_RUNG_PRECISE);
	assert_int_equal(plan.sampled[0].precise, 2);
	assert_int_equal(plan.sampled[1].precise, 2);
}

static void test_nonprecise(void **state)
{
	static const struct rule r[] = {{PERF_TYPE_HARDWARE, -1, 3, -1, -1, EOPNOTSUPP},
					{PERF_TYPE_HARDWARE, -1, 2, -1, -1, EOPNOTSUPP},
					{PERF_TYPE_HARDWARE, -1, 1, -1, -1, EOPNOTSUPP}};
	struct mf_mprobe p = vm_probe("IBM/S390", 2);
	struct mf_mplan plan;
	(void)state;
	plan_with(r, 3, &p, "profile", NULL, false, false, &plan);
	assert_int_equal(plan.code, 0);
	assert_int_equal(plan.rung, MF_RUNG_NONPRECISE);
	assert_string_equal(plan.reason, "fallback: precise sampling not supported (EOPNOTSUPP); addresses may skid");
	assert_int_equal(plan.sampled[0].precise, 0);
	assert_string_equal(plan.sampled[0].name, "cycles");
	/* --fallback none: the same step is exit 3 with the same reason */
	plan_with(r, 3, &p, "profile", NULL, false, true, &plan);
	assert_int_equal(plan.code, MF_ENOTCOUNTED);
	assert_string_equal(plan.error,
			    "fallback: precise sampling not supported (EOPNOTSUPP); addresses may skid "
			    "(--fallback none)");
}

static void test_counting_only(void **state)
{
	static const struct rule r[] = {{PERF_TYPE_HARDWARE, -1, -1, 1, -1, EOPNOTSUPP}};
	struct mf_mprobe p = vm_probe("GenuineIntel", 2);
	struct mf_mplan plan;
	(void)state;
	plan_with(r, 1, &p, "profile", NULL, false, false, &plan);
	assert_int_equal(plan.rung, MF_RUNG_COUNTING);
	assert_string_equal(plan.reason,
			    "fallback: hardware counters cannot interrupt; totals exact, placement from task-clock "
			    "samples");
	assert_string_equal(plan.sampled[0].name, "task_clock");
	/* the hardware event is still counted exactly */
	assert_string_equal(plan.counted[0].name, "cycles");
}

/*
 * -s RATE on the event actually sampled (issue 12 item 12): a time is kept
 * when that event is a clock (-s 250us on the task-clock fallback stays
 * 250us, it became 1ms before); a count meant for cycles cannot become
 * nanoseconds, nor a time cycles: the event's default with a note, never
 * silently.
 */
static void test_rates(void **state)
{
	static const struct rule vm[] = {HW_ANY(ENOENT)}, pmu[] = {{-1, -1, -1, -1, -1, 0}};
	static const struct rule no_irq[] = {{PERF_TYPE_HARDWARE, -1, -1, 1, -1, EOPNOTSUPP}};
	struct mf_mprobe p = vm_probe("GenuineIntel", 2);
	struct mf_mplan_req req;
	struct mf_mplan plan;
	(void)state;

	/* a time on the software fallback: kept, the variation 5 % of it */
	req = rate_req("profile", "cycles", 250000, true);
	plan_req(vm, 3, &p, &req, &plan);
	assert_int_equal(plan.rung, MF_RUNG_SOFTWARE);
	assert_int_equal(plan.sampled[0].period, 250000);
	assert_int_equal(plan.variation, 12500);
	assert_string_equal(plan.rate_note, "");
	assert_string_equal(plan.used_spec, "250us, 5%, task_clock:user");
	/* the same for itlb (page faults keep every fault) and on the counting-only rung */
	req = rate_req("itlb", "itlb_miss", 250000, true);
	plan_req(vm, 3, &p, &req, &plan);
	assert_int_equal(plan.sampled[0].period, 250000);
	assert_int_equal(plan.sampled[1].period, 1);
	assert_string_equal(plan.rate_note, "");
	req = rate_req("profile", "cycles", 250000, true);
	plan_req(no_irq, 1, &p, &req, &plan);
	assert_int_equal(plan.rung, MF_RUNG_COUNTING);
	assert_int_equal(plan.sampled[0].period, 250000);
	assert_string_equal(plan.rate_note, "");

	/* a count of cycles on the fallback: task-clock's default, said */
	req = rate_req("profile", "cycles", 5000, false);
	plan_req(vm, 3, &p, &req, &plan);
	assert_int_equal(plan.sampled[0].period, 1000000);
	assert_int_equal(plan.variation, 50000);
	assert_string_equal(plan.rate_note,
			    "-s: rate 5000 counts cycles events and cannot be converted for "
			    "task_clock: sampling every 1ms (its default); give the rate as a time "
			    "(e.g. 500us) to set it");
	/* an absolute variation in the same unit goes with it: 5 % instead, said too */
	req.variation_pct = 0;
	req.variation = 100;
	plan_req(vm, 3, &p, &req, &plan);
	assert_int_equal(plan.variation, 50000);
	assert_non_null(strstr(plan.rate_note, "; -s: variation 100 cannot be converted for task_clock: using 5%"));
	assert_string_equal(plan.used_spec, "1ms, 50us, task_clock:user");
	/* a time rate with a time variation: both kept */
	req = rate_req("profile", "cycles", 250000, true);
	req.variation_pct = 0;
	req.variation = 50000;
	req.variation_clock = true;
	plan_req(vm, 3, &p, &req, &plan);
	assert_int_equal(plan.sampled[0].period, 250000);
	assert_int_equal(plan.variation, 50000);
	assert_string_equal(plan.rate_note, "");

	/* with a PMU: a count for cycles is kept, a time is not (cycles count events) */
	req = rate_req("profile", "cycles", 5000, false);
	plan_req(pmu, 1, &p, &req, &plan);
	assert_true(plan.rung == MF_RUNG_PRECISE || plan.rung == MF_RUNG_NONPRECISE);
	assert_int_equal(plan.sampled[0].period, 5000);
	assert_string_equal(plan.rate_note, "");
	req = rate_req("profile", "cycles", 250000, true);
	plan_req(pmu, 1, &p, &req, &plan);
	assert_int_equal(plan.sampled[0].period, 1000000);
	assert_string_equal(plan.rate_note,
			    "-s: rate 250us is a time, but cycles counts events: sampling every "
			    "1000000 events (its default); give the rate as a count");

	/* a variation not below the rate is clamped, and said */
	req = rate_req("profile", "cycles", 0, false);
	req.variation_pct = 0;
	req.variation = 2000000;
	plan_req(pmu, 1, &p, &req, &plan);
	assert_int_equal(plan.sampled[0].period, 1000000);
	assert_int_equal(plan.variation, 999999);
	assert_string_equal(plan.rate_note,
			    "-s: variation 2000000 is not below the rate 1000000 of cycles: using 999999");

	/* task_clock asked for by name: a count is its own unit, nanoseconds */
	req = rate_req("profile", "task_clock", 2000000, false);
	plan_req(vm, 3, &p, &req, &plan);
	assert_int_equal(plan.sampled[0].period, 2000000);
	assert_string_equal(plan.rate_note, "");
	/* no rate: the sampled event's own default (task-clock 1ms for itlb too, not itlb_miss's 10000) */
	req = rate_req("itlb", "task_clock", 0, false);
	plan_req(vm, 3, &p, &req, &plan);
	assert_int_equal(plan.sampled[0].period, 1000000);
	assert_string_equal(plan.rate_note, "");
}

static void test_user_only(void **state)
{
	static const struct rule r[] = {{-1, -1, -1, -1, 1, EACCES}, HW_ANY(ENOENT)};
	struct mf_mprobe p = vm_probe("GenuineIntel", 2);
	struct mf_mplan plan;
	(void)state;
	plan_with(r, 4, &p, "profile", NULL, true, false, &plan);
	assert_int_equal(plan.code, 0);
	assert_true(plan.user_only);
	assert_string_equal(plan.reason,
			    "fallback: kernel.perf_event_paranoid=2 allows user space only\n"
			    "fallback: no hardware counters (cycles: ENOENT, hypervisor: yes); "
			    "sampling software events task-clock");
	assert_string_equal(plan.used_spec, "1ms, 5%, task_clock:user");
	/* EPERM, paranoid 1 (no CAP_PERFMON) */
	{
		static const struct rule r2[] = {{-1, -1, -1, -1, 1, EPERM}};
		p.paranoid = 1;
		plan_with(r2, 1, &p, "profile", NULL, true, false, &plan);
		assert_true(plan.user_only);
		assert_string_equal(plan.reason,
				    "fallback: kernel events refused (EPERM) without CAP_PERFMON; user space only");
		assert_int_equal(plan.rung, MF_RUNG_PRECISE);
		plan_with(r2, 1, &p, "profile", NULL, true, true, &plan);
		assert_int_equal(plan.code, MF_ENOTCOUNTED);
	}
	/* :all allowed: kernel included */
	{
		static const struct rule ok[] = {{-1, -1, -1, -1, -1, 0}};
		plan_with(ok, 1, &p, "profile", NULL, true, false, &plan);
		assert_false(plan.user_only);
		assert_string_equal(plan.used_spec, "1000000, 5%, cycles:all");
	}
}

static void test_impossible(void **state)
{
	static const struct rule eacces[] = {{-1, -1, -1, -1, -1, EACCES}};
	static const struct rule eperm[] = {HW_ANY(ENOENT), {PERF_TYPE_SOFTWARE, -1, -1, -1, -1, EPERM}};
	static const struct rule enosys[] = {{-1, -1, -1, -1, -1, ENOSYS}};
	static const struct rule pf[] = {HW_ANY(ENOENT),
					 {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, -1, -1, -1, EACCES}};
	struct mf_mprobe p = vm_probe("GenuineIntel", 3);
	struct mf_mplan plan;
	(void)state;
	plan_with(eacces, 1, &p, "profile", NULL, false, false, &plan);
	assert_int_equal(plan.code, MF_ENOTCOUNTED);
	/* hardware refused first (EACCES names the step), then task-clock too */
	assert_string_equal(plan.error,
			    "measurement impossible: perf_event_open refused task-clock (EACCES, "
			    "perf_event_paranoid=3); lower it, grant CAP_PERFMON or allow the call in seccomp");
	assert_string_equal(plan.reason,
			    "fallback: hardware events refused (cycles: EACCES); sampling software events "
			    "task-clock");
	plan_with(eperm, 4, &p, "profile", NULL, false, false, &plan);
	assert_int_equal(plan.code, MF_ENOTCOUNTED);
	assert_non_null(strstr(plan.error, "(EPERM, perf_event_paranoid=3)"));
	plan_with(enosys, 1, &p, "itlb", NULL, false, false, &plan);
	assert_int_equal(plan.code, MF_ENOTCOUNTED);
	assert_non_null(strstr(plan.error, "refused task-clock (ENOSYS"));
	plan_with(pf, 4, &p, "itlb", NULL, false, false, &plan);
	assert_int_equal(plan.code, MF_ENOTCOUNTED);
	assert_non_null(strstr(plan.error, "refused page-faults (EACCES"));
}

static void test_busy_and_none(void **state)
{
	static const struct rule busy[] = {HW_ANY(EBUSY)};
	static const struct rule emfile[] = {HW_ANY(EMFILE)};
	static const struct rule enoent[] = {HW_ANY(ENOENT)};
	struct mf_mprobe p = vm_probe("GenuineIntel", 2);
	struct mf_mplan plan;
	(void)state;
	plan_with(busy, 3, &p, "profile", NULL, false, false, &plan);
	assert_int_equal(plan.rung, MF_RUNG_SOFTWARE);
	assert_string_equal(plan.reason,
			    "fallback: hardware counters busy (cycles: EBUSY); sampling software events "
			    "task-clock");
	plan_with(emfile, 3, &p, "itlb", NULL, false, false, &plan);
	assert_int_equal(plan.rung, MF_RUNG_SOFTWARE);
	assert_non_null(strstr(plan.reason, "(itlb_miss: EMFILE)"));
	plan_with(enoent, 3, &p, "itlb", NULL, false, true, &plan);
	assert_int_equal(plan.code, MF_ENOTCOUNTED);
	assert_string_equal(plan.error,
			    "fallback: no hardware counters (itlb_miss: ENOENT, hypervisor: yes); sampling "
			    "software events task-clock and page-faults (--fallback none)");
}

static void test_events(void **state)
{
	static const struct rule ok[] = {{-1, -1, -1, -1, -1, 0}};
	struct mf_mprobe p = vm_probe("GenuineIntel", 2);
	struct mf_mplan plan;
	(void)state;
	plan_with(ok, 1, &p, "profile", "no_such_event", false, false, &plan);
	assert_int_equal(plan.code, MF_EUSAGE);
	assert_non_null(strstr(plan.error, "unknown sampling event 'no_such_event'"));
	/* a software event by name: no ladder */
	plan_with(ok, 1, &p, "profile", "task_clock", false, false, &plan);
	assert_int_equal(plan.code, 0);
	assert_int_equal(plan.rung, MF_RUNG_PRECISE);
	assert_string_equal(plan.reason, "software event as requested");
	/* AMD: the generic ITLB event, one stream (no STLB split) */
	p = vm_probe("AuthenticAMD", 2);
	plan_with(ok, 1, &p, "itlb", NULL, false, false, &plan);
	assert_int_equal(plan.rung, MF_RUNG_PRECISE);
	assert_int_equal(plan.sampled[0].type, PERF_TYPE_HW_CACHE);
	assert_int_equal(plan.nsampled, 2); /* + page faults */
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[4096], dir[4096], *slash;
	FILE *fp;
	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = dir + strlen(root) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void test_probe_tree(void **state)
{
	char root[] = "/tmp/mfstat-probe-XXXXXX";
	struct mf_perf_sys *sys = NULL;
	struct mf_mprobe p;
	struct mf_error e;
	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "/proc/sys/kernel/perf_event_paranoid", "2\n");
	put(root, "/proc/sys/kernel/perf_event_mlock_kb", "516\n");
	put(root, "/proc/self/status", "Name:\tx\nUid:\t1000\t1000\t1000\t1000\nCapEff:\t0000004000000000\n");
	put(root, "/proc/cpuinfo",
	    "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
	    "model name\t: Intel(R) Xeon(R) Platinum\nflags\t\t: fpu vme hypervisor lahf_lm\n\n");
	put(root, "/sys/bus/event_source/devices/cpu/type", "4\n");
	put(root, "/sys/bus/event_source/devices/software/type", "1\n");
	put(root, "/sys/devices/system/cpu/cpu0/cache/index0/type", "Data\n");
	put(root, "/sys/devices/system/cpu/cpu0/cache/index1/type", "Instruction\n");
	put(root, "/sys/devices/system/cpu/cpu0/cache/index1/coherency_line_size", "128\n");
	put(root, "/sys/devices/system/cpu/online", "0-3,8\n");
	put(root, "/proc/sys/kernel/arch", "x86_64\n");
	assert_int_equal(mf_perf_sys_recorded(&sys, root, &e), 0);
	mf_mprobe_read(sys, &p);
	mf_perf_sys_free(sys);
	assert_int_equal(p.paranoid, 2);
	assert_int_equal(p.mlock_kb, 516);
	assert_true(p.cap_perfmon);
	assert_false(p.cap_sys_admin);
	assert_false(p.root);
	assert_string_equal(p.vendor, "GenuineIntel");
	assert_string_equal(p.model, "Intel(R) Xeon(R) Platinum");
	assert_int_equal(p.family, 6);
	assert_int_equal(p.model_number, 143);
	assert_int_equal(p.vm, 1);
	assert_true(p.cpu_pmu);
	assert_string_equal(p.pmus, "cpu software");
	assert_int_equal(p.line_size, 128);
	assert_non_null(strstr(p.line_size_source, "index1"));
	assert_int_equal(p.ncpus, 5);
	assert_string_equal(p.arch, "x86_64");

	/* A VM without a core PMU and without cache information */
	{
		char root2[] = "/tmp/mfstat-probe-XXXXXX";
		assert_non_null(mkdtemp(root2));
		put(root2, "/proc/cpuinfo", "vendor_id\t: AuthenticAMD\nflags\t\t: fpu vme\n");
		put(root2, "/sys/bus/event_source/devices/software/type", "1\n");
		assert_int_equal(mf_perf_sys_recorded(&sys, root2, &e), 0);
		mf_mprobe_read(sys, &p);
		mf_perf_sys_free(sys);
		assert_int_equal(p.vm, 0);
		assert_false(p.cpu_pmu);
		assert_int_equal(p.line_size, 64);
		assert_string_equal(p.line_size_source, "default (no cache information)");
		assert_int_equal(p.paranoid, -99);
		assert_int_equal(p.ncpus, 1);
	}
}

/* The recorded seam: files below its root, counts from counts.tsv, no ring buffers. */
static void test_recorded_seam(void **state)
{
	char root[] = "/tmp/mfstat-seam-XXXXXX", buf[64], path[5000];
	struct mf_perf_sys *sys = NULL;
	struct perf_event_attr a;
	struct mf_error e;
	uint64_t v[4];
	DIR *d;
	int fd5, fd9;
	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "/sys/bus/event_source/devices/cpum_cf/type", "10\n");
	put(root, "/counts.tsv", "# config\tvalue\n0\t3000\n5\t7\n");
	mf_error_clear(&e);
	assert_int_equal(mf_perf_sys_recorded(&sys, root, &e), 0);
	assert_string_equal(sys->root, root);
	assert_int_equal(mf_perf_read_file(sys, "/sys/bus/event_source/devices/cpum_cf/type", buf, sizeof(buf)), 3);
	assert_string_equal(buf, "10\n");
	/* a short buffer gets what fits, NUL-ended */
	assert_int_equal(mf_perf_read_file(sys, "/sys/bus/event_source/devices/cpum_cf/type", buf, 2), 1);
	assert_string_equal(buf, "1");
	assert_int_equal(mf_perf_read_file(sys, "/proc/sysinfo", buf, sizeof(buf)), -ENOENT);
	memset(path, 'x', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	assert_int_equal(mf_perf_read_file(sys, path, buf, sizeof(buf)), -ENAMETOOLONG);
	d = mf_perf_opendir(sys, "/sys/bus/event_source/devices");
	assert_non_null(d);
	closedir(d);
	/* counters read their recorded values; one not listed reads 0; enabled = running */
	memset(&a, 0, sizeof(a));
	a.config = 5;
	fd5 = sys->open(sys->ctx, &a, 0, -1, -1, 0);
	a.config = 9;
	fd9 = sys->open(sys->ctx, &a, -1, 1, -1, 0);
	assert_true(fd5 >= 0 && fd9 >= 0 && fd5 != fd9);
	assert_int_equal(sys->read(sys->ctx, fd5, v, 3 * sizeof(uint64_t)), 3 * sizeof(uint64_t));
	assert_int_equal(v[0], 7);
	assert_true(v[1] == v[2] && v[1] > 0);
	assert_int_equal(sys->read(sys->ctx, fd9, v, sizeof(v)), 3 * sizeof(uint64_t));
	assert_int_equal(v[0], 0);
	assert_int_equal(sys->read(sys->ctx, 3, v, sizeof(v)), -EBADF);
	assert_null(sys->mmap(sys->ctx, fd5, 4096));
	sys->close(sys->ctx, fd5);
	mf_perf_sys_free(sys);

	/* counts.tsv must be a regular file of short lines */
	{
		char root2[] = "/tmp/mfstat-seam-XXXXXX", line[400];
		assert_non_null(mkdtemp(root2));
		snprintf(path, sizeof(path), "%s/counts.tsv", root2);
		assert_int_equal(mkdir(path, 0755), 0);
		assert_int_equal(mf_perf_sys_recorded(&sys, root2, &e), MF_EIO);
		assert_null(sys);
		assert_string_equal(e.msg, "not a regular file");
		rmdir(path);
		memset(line, '1', sizeof(line) - 2);
		line[sizeof(line) - 2] = '\n';
		line[sizeof(line) - 1] = '\0';
		put(root2, "/counts.tsv", line);
		assert_int_equal(mf_perf_sys_recorded(&sys, root2, &e), MF_EFORMAT);
		assert_int_equal(e.line, 1);
	}
	/* the real system reads this machine's own files */
	assert_null(mf_perf_sys_real()->root);
	mf_perf_sys_free(mf_perf_sys_real()); /* left alone */
	assert_non_null(mf_perf_sys_real()->open);
}

static void test_events_table_errors(void **state)
{
	static const struct rule ok[] = {{-1, -1, -1, -1, -1, 0}};
	struct script s = {ok, 1, 0};
	struct mf_perf_sys sys = scripted(&s);
	struct mf_mprobe p = vm_probe("GenuineIntel", 2);
	struct mf_mplan_req req;
	struct mf_mplan plan;
	struct mf_error e;
	const char *bad =
		"name\tvendor\trole\ttype\tconfig\tconfig1\tprecise\tclock\tperiod\tdescription\n"
		"cycles\tany\tcpu\tweird\t0\t0\t3\tno\t1000\tx\n";
	char buf[1024];
	(void)state;
	memset(&req, 0, sizeof(req));
	strcpy(req.measurement, "profile");
	strcpy(req.event, "cycles");
	mf_error_clear(&e);
	assert_int_equal(mf_measure_plan(&sys, &p, &req, bad, strlen(bad), "t/measure/events.tsv", &plan, &e),
			 MF_ETABLE);
	mf_error_format(&e, buf, sizeof(buf));
	assert_non_null(strstr(buf, "t/measure/events.tsv:2:"));
	assert_non_null(strstr(buf, "type 'weird'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vm_profile_software), cmocka_unit_test(test_vm_itlb_software),
		cmocka_unit_test(test_intel_precise),       cmocka_unit_test(test_nonprecise),
		cmocka_unit_test(test_counting_only),       cmocka_unit_test(test_rates),
		cmocka_unit_test(test_user_only),           cmocka_unit_test(test_impossible),
		cmocka_unit_test(test_busy_and_none),       cmocka_unit_test(test_events),
		cmocka_unit_test(test_probe_tree),          cmocka_unit_test(test_events_table_errors),
		cmocka_unit_test(test_recorded_seam),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
