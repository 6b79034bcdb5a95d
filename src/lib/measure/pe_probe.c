/* SPDX-License-Identifier: MIT */
/*
 * What perf_event_open allows on this machine, and the fallback ladder of
 * mfstat measure (caliper-measure.md §3 "Probe", §4).  Every perf call and
 * file goes through the perf seam (struct mf_perf_sys) so the ladder can be
 * tested against scripted kernel answers, the probe against a recorded tree.
 */
#include "mfstat/measure/measure.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/datafile.h"
#include "base/tsv.h"

/* ---- probe -------------------------------------------------------------- */

/* The value of "key : value" in /proc/cpuinfo-like text, first occurrence. */
static bool field_of(const char *text, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key);
	const char *p = text;
	while (p && *p) {
		if (strncmp(p, key, kl) == 0 && (p[kl] == ' ' || p[kl] == '\t' || p[kl] == ':')) {
			const char *v = strchr(p, ':'), *e;
			size_t len;
			if (!v)
				return false;
			v++;
			while (*v == ' ' || *v == '\t')
				v++;
			e = strchr(v, '\n');
			len = e ? (size_t)(e - v) : strlen(v);
			if (len >= n)
				len = n - 1;
			memcpy(out, v, len);
			out[len] = '\0';
			return true;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

/* Copies s into dst of n bytes, cut to fit. */
static void cpy(char *dst, size_t n, const char *s)
{
	size_t l = strlen(s);
	if (l >= n)
		l = n - 1;
	memcpy(dst, s, l);
	dst[l] = '\0';
}

static bool is_core_pmu(const char *name)
{
	return strcmp(name, "cpu") == 0 || strcmp(name, "cpu_core") == 0 || strcmp(name, "cpu_atom") == 0 ||
	       strcmp(name, "cpum_cf") == 0 || strcmp(name, "cpum_sf") == 0 || strncmp(name, "armv", 4) == 0 ||
	       strncmp(name, "arm_cortex", 10) == 0 || strncmp(name, "power", 5) == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void mf_mprobe_read(const struct mf_perf_sys *sys, struct mf_mprobe *p)
{
	char buf[65536], val[256], path[4200];
	bool here = !sys->root; /* this machine's own files: uname and sysconf may fill gaps */
	DIR *d;
	int i;
	struct utsname u;

	memset(p, 0, sizeof(*p));
	p->paranoid = -99;
	p->mlock_kb = -1;
	p->vm = -1;
	if (mf_perf_read_file(sys, "/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) > 0)
		p->paranoid = atoi(buf);
	if (mf_perf_read_file(sys, "/proc/sys/kernel/perf_event_mlock_kb", buf, sizeof(buf)) > 0)
		p->mlock_kb = atol(buf);
	if (mf_perf_read_file(sys, "/proc/self/status", buf, sizeof(buf)) > 0 &&
	    field_of(buf, "CapEff", val, sizeof(val))) {
		unsigned long long cap = strtoull(val, NULL, 16);
		p->cap_perfmon = (cap >> 38) & 1;
		p->cap_sys_admin = (cap >> 21) & 1;
	}
	if (mf_perf_read_file(sys, "/proc/self/status", buf, sizeof(buf)) > 0 && field_of(buf, "Uid", val, sizeof(val)))
		p->root = atoi(val) == 0;
	if (mf_perf_read_file(sys, "/proc/cpuinfo", buf, sizeof(buf)) > 0) {
		if (field_of(buf, "vendor_id", val, sizeof(val)))
			cpy(p->vendor, sizeof(p->vendor), val);
		if (field_of(buf, "model name", val, sizeof(val)) || field_of(buf, "machine", val, sizeof(val)))
			cpy(p->model, sizeof(p->model), val);
		if (field_of(buf, "cpu family", val, sizeof(val)))
			p->family = atoi(val);
		if (field_of(buf, "model", val, sizeof(val)))
			p->model_number = atoi(val);
		if (field_of(buf, "flags", val, sizeof(val)) || field_of(buf, "features", val, sizeof(val))) {
			char flags[65536];
			/* the flags line is long: take it whole */
			const char *f = strstr(buf, "\nflags");
			snprintf(flags, sizeof(flags), "%s", f ? f : val);
			{
				char *e = strchr(flags + 1, '\n');
				if (e)
					*e = '\0';
			}
			p->vm = strstr(flags, " hypervisor") != NULL;
		}
	}
	if (mf_perf_read_file(sys, "/proc/sys/kernel/arch", buf, sizeof(buf)) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		cpy(p->arch, sizeof(p->arch), buf);
	} else if (here && uname(&u) == 0) {
		cpy(p->arch, sizeof(p->arch), u.machine);
	}
	d = mf_perf_opendir(sys, "/sys/bus/event_source/devices");
	if (d) {
		struct dirent *de;
		char *names[256];
		size_t n = 0, k, used = 0;
		while ((de = readdir(d)) && n < 256) {
			if (de->d_name[0] == '.')
				continue;
			names[n] = strdup(de->d_name);
			if (names[n])
				n++;
		}
		closedir(d);
		qsort(names, n, sizeof(*names), cmp_str);
		for (k = 0; k < n; k++) {
			if (is_core_pmu(names[k]))
				p->cpu_pmu = true;
			if (used + strlen(names[k]) + 2 < sizeof(p->pmus))
				used += (size_t)snprintf(p->pmus + used, sizeof(p->pmus) - used, "%s%s",
							 used ? " " : "", names[k]);
			free(names[k]);
		}
	}
	/* Line size: the instruction cache's coherency line size, then sysconf, then 64 (§9). */
	for (i = 0; i < 8 && !p->line_size; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		if (mf_perf_read_file(sys, path, buf, sizeof(buf)) <= 0)
			continue;
		if (strncmp(buf, "Instruction", 11) != 0)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/coherency_line_size", i);
		if (mf_perf_read_file(sys, path, buf, sizeof(buf)) > 0 && atoi(buf) > 0) {
			p->line_size = (uint32_t)atoi(buf);
			snprintf(p->line_size_source, sizeof(p->line_size_source),
				 "cpu0/cache/index%d/coherency_line_size (instruction cache)", i);
		}
	}
	if (!p->line_size && here) {
		long ls = sysconf(_SC_LEVEL1_ICACHE_LINESIZE);
		if (ls > 0) {
			p->line_size = (uint32_t)ls;
			snprintf(p->line_size_source, sizeof(p->line_size_source),
				 "sysconf(_SC_LEVEL1_ICACHE_LINESIZE)");
		}
	}
	if (!p->line_size) {
		p->line_size = 64;
		snprintf(p->line_size_source, sizeof(p->line_size_source), "default (no cache information)");
	}
	if (mf_perf_read_file(sys, "/sys/devices/system/cpu/online", buf, sizeof(buf)) > 0)
		p->ncpus = mf_cpu_list(buf, NULL, 1 << 20); /* "0-3,8": 5 CPUs; -1 when malformed */
	if (p->ncpus <= 0 && here)
		p->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (p->ncpus <= 0)
		p->ncpus = 1;
}

/* ---- events.tsv ----------------------------------------------------------- */

int mf_measure_events_text(const char *tables_dir, char **text, size_t *len, char *name, size_t namelen,
			   struct mf_error *err)
{
	const char *data;

	*text = NULL;
	*len = 0;
	if (tables_dir) {
		char path[4096];
		int rc;
		snprintf(path, sizeof(path), "%s/measure/events.tsv", tables_dir);
		rc = mf_datafile_read_path(path, text, len, err);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			snprintf(name, namelen, "%s", path);
			return 0;
		}
	}
	data = mf_datafile_embedded("measure/events.tsv", len);
	if (!data)
		return mf_error_set(err, MF_ETABLE, "measure/events.tsv", 0, 0, "table file missing");
	*text = malloc(*len + 1);
	if (!*text)
		return mf_error_nomem(err, "data/measure/events.tsv", 0, "loading the event table");
	memcpy(*text, data, *len + 1);
	snprintf(name, namelen, "data/measure/events.tsv");
	return 0;
}

struct ev_row {
	char name[64];
	char vendor[16];
	int role; /* -1 count */
	uint32_t type;
	uint64_t config, config1;
	int precise;
	bool clock;
	uint64_t period;
};

#define MAX_ROWS 128

static int parse_u64(const char *s, uint64_t *v)
{
	char *e;
	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &e, 0);
	return (*e || errno) ? -1 : 0;
}

static int load_rows(const char *text, size_t len, const char *name, struct ev_row *rows, size_t *n,
		     struct mf_error *err)
{
	static const char *const cols[] = {"name",    "vendor", "role",   "type",        "config", "config1",
					   "precise", "clock",  "period", "description", NULL};
	struct mf_tsv *t = malloc(sizeof(*t));
	int rc;
	*n = 0;
	if (!t)
		return mf_error_nomem(err, name, 0, "loading the event table");
	rc = mf_tsv_open(t, name, text, len, cols, err);
	while (rc == 0 && (rc = mf_tsv_next(t, err)) == 1) {
		struct ev_row *r = &rows[*n];
		const char *role = t->fz[2], *type = t->fz[3];
		uint64_t v;
		rc = 0;
		if (*n == MAX_ROWS) {
			rc = mf_tsv_fail(t, err, 0, 0, MF_ETABLE, "too many events (at most %d)", MAX_ROWS);
			break;
		}
		memset(r, 0, sizeof(*r));
		snprintf(r->name, sizeof(r->name), "%s", t->fz[0]);
		snprintf(r->vendor, sizeof(r->vendor), "%s", t->fz[1]);
		if (strcmp(role, "cpu") == 0)
			r->role = MF_ROLE_CPU;
		else if (strcmp(role, "itlb") == 0)
			r->role = MF_ROLE_ITLB;
		else if (strcmp(role, "stlb") == 0)
			r->role = MF_ROLE_STLB;
		else if (strcmp(role, "fault") == 0)
			r->role = MF_ROLE_FAULT;
		else if (strcmp(role, "count") == 0)
			r->role = -1;
		else {
			rc = mf_tsv_fail(t, err, 2, 0, MF_ETABLE, "role '%s' is not cpu, itlb, stlb, fault or count",
					 role);
			break;
		}
		if (strcmp(type, "hardware") == 0)
			r->type = PERF_TYPE_HARDWARE;
		else if (strcmp(type, "hw_cache") == 0)
			r->type = PERF_TYPE_HW_CACHE;
		else if (strcmp(type, "software") == 0)
			r->type = PERF_TYPE_SOFTWARE;
		else if (strcmp(type, "raw") == 0)
			r->type = PERF_TYPE_RAW;
		else {
			rc = mf_tsv_fail(t, err, 3, 0, MF_ETABLE,
					 "type '%s' is not hardware, hw_cache, software or raw", type);
			break;
		}
		if (parse_u64(t->fz[4], &r->config)) {
			rc = mf_tsv_fail(t, err, 4, 0, MF_ETABLE, "config '%s' is not a number", t->fz[4]);
			break;
		}
		if (parse_u64(t->fz[5], &r->config1)) {
			rc = mf_tsv_fail(t, err, 5, 0, MF_ETABLE, "config1 '%s' is not a number", t->fz[5]);
			break;
		}
		if (parse_u64(t->fz[6], &v) || v > 3) {
			rc = mf_tsv_fail(t, err, 6, 0, MF_ETABLE, "precise '%s' is not 0 to 3", t->fz[6]);
			break;
		}
		r->precise = (int)v;
		if (strcmp(t->fz[7], "yes") && strcmp(t->fz[7], "no")) {
			rc = mf_tsv_fail(t, err, 7, 0, MF_ETABLE, "clock '%s' is not yes or no", t->fz[7]);
			break;
		}
		r->clock = strcmp(t->fz[7], "yes") == 0;
		if (parse_u64(t->fz[8], &r->period)) {
			rc = mf_tsv_fail(t, err, 8, 0, MF_ETABLE, "period '%s' is not a number", t->fz[8]);
			break;
		}
		(*n)++;
	}
	free(t);
	return rc < 0 ? rc : 0;
}

/* ---- the ladder ------------------------------------------------------------ */

static void ev_from_row(struct mf_mplan_ev *e, const struct ev_row *r, uint64_t period, int precise)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", r->name);
	e->role = r->role;
	e->type = r->type;
	e->config = r->config;
	e->config1 = r->config1;
	e->precise = precise;
	e->period = period;
	e->clock = r->clock;
	e->want_addr = r->role == MF_ROLE_FAULT;
	snprintf(e->unit, sizeof(e->unit), "%s", r->clock ? "ns" : "events");
}

/* Opens e on this process, disabled, and closes it: 0 or -errno. */
static int trial(const struct mf_perf_sys *sys, const struct mf_mplan_ev *e, bool sampling, bool user_only)
{
	struct perf_event_attr a;
	int fd;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = e->type;
	a.config = e->config;
	a.config1 = e->config1;
	a.disabled = 1;
	a.exclude_kernel = user_only;
	a.exclude_hv = 1;
	a.precise_ip = (unsigned)e->precise & 3;
	if (sampling) {
		a.sample_period = e->period ? e->period : 1;
		a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_PERIOD | (e->want_addr ? PERF_SAMPLE_ADDR : 0);
	}
	fd = sys->open(sys->ctx, &a, 0, -1, -1, 0);
	if (fd < 0)
		return fd;
	sys->close(sys->ctx, fd);
	return 0;
}

static const char *vendor_key(const struct mf_mprobe *p)
{
	if (strcmp(p->vendor, "GenuineIntel") == 0)
		return "intel";
	if (strcmp(p->vendor, "AuthenticAMD") == 0 || strcmp(p->vendor, "HygonGenuine") == 0)
		return "amd";
	return "";
}

static void fmt_rate(char *out, size_t n, uint64_t rate, bool clock)
{
	if (clock && rate % 1000000 == 0)
		snprintf(out, n, "%" PRIu64 "ms", rate / 1000000);
	else if (clock && rate % 1000 == 0)
		snprintf(out, n, "%" PRIu64 "us", rate / 1000);
	else if (clock)
		snprintf(out, n, "%" PRIu64 "ns", rate);
	else
		snprintf(out, n, "%" PRIu64, rate);
}

static void fmt_spec(char *out, size_t n, uint64_t rate, bool clock, const struct mf_mplan_req *req, uint64_t variation,
		     const char *ev, bool user_only)
{
	char r[32], v[32];
	fmt_rate(r, sizeof(r), rate, clock);
	if (req->variation_pct > 0)
		snprintf(v, sizeof(v), "%g%%", req->variation_pct);
	else
		fmt_rate(v, sizeof(v), variation, clock);
	snprintf(out, n, "%s, %s, %s:%s", r, v, ev, user_only ? "user" : "all");
}

static int add_sampled(struct mf_mplan *plan, const struct ev_row *r, uint64_t period, int precise)
{
	if (plan->nsampled == MF_MPLAN_MAX)
		return -1;
	ev_from_row(&plan->sampled[plan->nsampled++], r, period, precise);
	return 0;
}

/*
 * The period to sample row r with (issue 12 item 12).  The requested rate is
 * kept when it converts to r: a time (500us) when r is a clock, a count when r
 * is the event asked for (a clock event counts nanoseconds).  Otherwise (a
 * count meant for cycles on the task-clock fallback, a time for an event that
 * counts events) r's default rate is used and plan->rate_note says so; the
 * note is rewritten on every call, so it describes the last event chosen.
 * The variation follows: a percentage always applies; a variation in the
 * rate's unit converts with the rate, else it becomes 5 % of the period.
 */
static uint64_t rate_for(struct mf_mplan *plan, const struct mf_mplan_req *req, const struct ev_row *r, bool requested)
{
	char given[32], used[32];
	uint64_t period = r->period;
	bool rate_ok = !req->rate || (req->rate_clock ? r->clock : requested);
	bool var_ok = req->variation_pct > 0 || !req->variation || (req->variation_clock ? r->clock : requested);

	plan->rate_note[0] = '\0';
	if (req->rate && rate_ok)
		period = req->rate;
	if (req->variation_pct > 0)
		plan->variation = (uint64_t)((double)period * req->variation_pct / 100.0);
	else if (var_ok)
		plan->variation = req->variation;
	else
		plan->variation = period / 20;
	if (plan->variation >= period) {
		plan->variation = period ? period - 1 : 0;
		if (var_ok && req->variation_pct <= 0) {
			fmt_rate(given, sizeof(given), req->variation, r->clock);
			fmt_rate(used, sizeof(used), period, r->clock);
			snprintf(plan->rate_note, sizeof(plan->rate_note),
				 "-s: variation %s is not below the rate %s of %s: using %" PRIu64, given, used,
				 r->name, plan->variation);
		}
	}
	if (!rate_ok) {
		fmt_rate(given, sizeof(given), req->rate, req->rate_clock);
		fmt_rate(used, sizeof(used), r->period, r->clock);
		if (req->rate_clock)
			snprintf(plan->rate_note, sizeof(plan->rate_note),
				 "-s: rate %s is a time, but %s counts events: sampling every %s events (its default); "
				 "give the rate as a count",
				 given, r->name, used);
		else
			snprintf(plan->rate_note, sizeof(plan->rate_note),
				 "-s: rate %s counts %s events and cannot be converted for %s: sampling every %s (its "
				 "default); give the rate as a time (e.g. 500us) to set it",
				 given, req->event, r->name, used);
	}
	if (!var_ok) {
		size_t n = strlen(plan->rate_note);
		fmt_rate(given, sizeof(given), req->variation, req->variation_clock);
		snprintf(plan->rate_note + n, sizeof(plan->rate_note) - n,
			 "%s-s: variation %s cannot be converted for %s: using 5%%", n ? "; " : "", given, r->name);
	}
	return period;
}

static void add_counted(struct mf_mplan *plan, const struct ev_row *rows, size_t nrows, const char *name)
{
	size_t i;
	for (i = 0; i < nrows && plan->ncounted < MF_MPLAN_MAX; i++)
		if (strcmp(rows[i].name, name) == 0 && strcmp(rows[i].vendor, "any") == 0) {
			ev_from_row(&plan->counted[plan->ncounted], &rows[i], 0, 0);
			plan->counted[plan->ncounted].role = -1;
			/* counts carry their own names as perf spells them */
			snprintf(plan->counted[plan->ncounted].name, sizeof(plan->counted[0].name), "%s",
				 strcmp(name, "task_clock") == 0    ? "task-clock"
				 : strcmp(name, "page_faults") == 0 ? "page-faults"
				 : strcmp(name, "itlb_misses") == 0 ? "iTLB-load-misses"
								    : name);
			plan->ncounted++;
			return;
		}
}

static const struct ev_row *find_row(const struct ev_row *rows, size_t n, const char *name, const char *vendor)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (strcmp(rows[i].name, name) == 0 && strcmp(rows[i].vendor, vendor) == 0)
			return &rows[i];
	return NULL;
}

static int impossible(struct mf_mplan *plan, const char *fmt, const char *a, int e, const struct mf_mprobe *pr)
{
	/* A message longer than the buffer is cut, which is all right for a diagnostic. */
	if ((size_t)snprintf(plan->error, sizeof(plan->error), fmt, a, mf_perf_errno_name(e), pr->paranoid) >=
	    sizeof(plan->error))
		plan->error[sizeof(plan->error) - 2] = '.';
	plan->code = MF_ENOTCOUNTED;
	return 0;
}

/* Steps down: with --fallback none that is exit 3 with the same reason. */
static bool step_down(struct mf_mplan *plan, const struct mf_mplan_req *req, const char *line)
{
	size_t used = strlen(plan->reason);
	if (used && strcmp(plan->reason, "precise") != 0)
		snprintf(plan->reason + used, sizeof(plan->reason) - used, "\n%s", line);
	else
		snprintf(plan->reason, sizeof(plan->reason), "%s", line);
	if (req->fallback_none) {
		plan->code = MF_ENOTCOUNTED;
		snprintf(plan->error, sizeof(plan->error), "%s (--fallback none)", line);
		return false;
	}
	return true;
}

/* One planning: what was asked, the candidate rows, and what the ladder found so far. */
struct planning {
	const struct mf_perf_sys *sys;
	const struct mf_mprobe *probe;
	const struct mf_mplan_req *req;
	struct mf_mplan *plan;
	const struct ev_row *set[4]; /* the requested event's rows (Intel's ITLB_MISS and STLB_MISS) */
	size_t nset;
	const struct ev_row *tc, *pf; /* task_clock and page_faults */
	uint64_t rate;
	bool user_only, itlb;
	int hw_err; /* -errno of the hardware event's last refusal */
	char hwname[64];
};

/* A rung's outcome: the sampled events are chosen, try the next rung, or stop (plan->code says why). */
enum { STEP_CHOSEN = 1, STEP_NEXT = 0, STEP_STOP = -1 };

/* The requested event's rows: the vendor's first, else the generic ones.  STEP_STOP when there are none. */
static int pick_set(struct planning *pl, const struct ev_row *rows, size_t nrows, const char *events_name)
{
	const char *vk = vendor_key(pl->probe), *ev = pl->req->event;
	size_t i;
	for (i = 0; i < nrows && pl->nset < 4; i++)
		if (strcmp(rows[i].name, ev) == 0 && vk[0] && strcmp(rows[i].vendor, vk) == 0 && rows[i].role >= 0)
			pl->set[pl->nset++] = &rows[i];
	if (!pl->nset)
		for (i = 0; i < nrows && pl->nset < 4; i++)
			if (strcmp(rows[i].name, ev) == 0 && strcmp(rows[i].vendor, "any") == 0 && rows[i].role >= 0)
				pl->set[pl->nset++] = &rows[i];
	if (pl->nset)
		return STEP_NEXT;
	pl->plan->code = MF_EUSAGE;
	snprintf(pl->plan->error, sizeof(pl->plan->error),
		 "unknown sampling event '%s' (%s names the events: itlb_miss, cycles, task_clock, page_faults...)", ev,
		 events_name);
	return STEP_STOP;
}

/* Rung 4, first: :all asked, the kernel side only when the kernel lets us (§4). */
static int rung_user_only(struct planning *pl)
{
	struct mf_mplan_ev probe_ev;
	char line[300];
	int e;
	ev_from_row(&probe_ev, pl->tc, 0, 0);
	e = trial(pl->sys, &probe_ev, false, false);
	if (e != -EACCES && e != -EPERM)
		return STEP_NEXT;
	pl->user_only = true;
	pl->plan->user_only = true;
	if (pl->probe->paranoid > 1)
		snprintf(line, sizeof(line), "fallback: kernel.perf_event_paranoid=%d allows user space only",
			 pl->probe->paranoid);
	else
		snprintf(line, sizeof(line),
			 "fallback: kernel events refused (%s) without CAP_PERFMON; user space only",
			 mf_perf_errno_name(-e));
	return step_down(pl->plan, pl->req, line) ? STEP_NEXT : STEP_STOP;
}

/* A software event asked for by name: nothing to fall back from. */
static int software_requested(struct planning *pl)
{
	size_t i;
	for (i = 0; i < pl->nset; i++) {
		const struct ev_row *r = pl->set[i];
		struct mf_mplan_ev ev;
		int e;
		ev_from_row(&ev, r, i == 0 ? pl->rate : r->period, 0);
		e = trial(pl->sys, &ev, true, pl->user_only);
		if (e) {
			impossible(pl->plan,
				   "measurement impossible: perf_event_open refused %s (%s, perf_event_paranoid=%d); "
				   "lower it, grant CAP_PERFMON or allow the call in seccomp",
				   r->name, -e, pl->probe);
			return STEP_STOP;
		}
		add_sampled(pl->plan, r, i == 0 ? pl->rate : r->period, 0);
	}
	if (!pl->plan->reason[0])
		snprintf(pl->plan->reason, sizeof(pl->plan->reason), "software event as requested");
	return STEP_CHOSEN;
}

/* The highest precise_ip the hardware event opens with, from the row's maximum down to 0; -1 when none. */
static int best_precise(struct planning *pl, bool *precise_refused)
{
	struct mf_mplan_ev ev;
	int p, e;
	for (p = pl->set[0]->precise; p >= 0; p--) {
		ev_from_row(&ev, pl->set[0], pl->rate, p);
		e = trial(pl->sys, &ev, true, pl->user_only);
		if (e == 0)
			return p;
		if (e == -EINVAL && p > 0)
			continue; /* the next precise level (§4) */
		if ((e == -EOPNOTSUPP || e == -EBUSY || e == -EMFILE) && p > 0) {
			*precise_refused = true;
			pl->hw_err = e;
			p = 1; /* straight to non-precise */
			continue;
		}
		pl->hw_err = e;
		break;
	}
	return -1;
}

/* Rungs 0 and 1: the hardware set, precise when it can be. */
static int rungs_hardware(struct planning *pl)
{
	struct mf_mplan *plan = pl->plan;
	struct mf_mplan_ev ev;
	bool precise_refused = false;
	char line[300];
	size_t i;
	int got;
	snprintf(pl->hwname, sizeof(pl->hwname), "%s", pl->set[0]->name);
	got = best_precise(pl, &precise_refused);
	if (got < 0)
		return STEP_NEXT;
	/* the other members of the set (Intel's STLB_MISS) at the same level; keep those that opened */
	for (i = 1; i < pl->nset; i++) {
		ev_from_row(&ev, pl->set[i], pl->rate, got);
		if (trial(pl->sys, &ev, true, pl->user_only) != 0)
			break;
	}
	pl->nset = i;
	for (i = 0; i < pl->nset; i++)
		add_sampled(plan, pl->set[i], pl->rate, got);
	if (got > 0) {
		plan->rung = MF_RUNG_PRECISE;
		if (!plan->reason[0])
			snprintf(plan->reason, sizeof(plan->reason), "precise");
	} else {
		plan->rung = MF_RUNG_NONPRECISE;
		if (precise_refused || pl->set[0]->precise > 0) {
			snprintf(line, sizeof(line),
				 "fallback: precise sampling not supported (%s); addresses may skid",
				 mf_perf_errno_name(pl->hw_err ? -pl->hw_err : EOPNOTSUPP));
			if (!step_down(plan, pl->req, line))
				return STEP_STOP;
		}
	}
	if (pl->itlb) /* soft fills come from page faults (§5) */
		add_sampled(plan, pl->pf, pl->pf->period, 0);
	return STEP_CHOSEN;
}

/* Rung 2: the counter counts but cannot interrupt. */
static int rung_counting(struct planning *pl)
{
	struct mf_mplan *plan = pl->plan;
	struct mf_mplan_ev ev;
	int e;
	if (pl->hw_err != -EOPNOTSUPP)
		return STEP_NEXT;
	ev_from_row(&ev, pl->set[0], 0, 0);
	e = trial(pl->sys, &ev, false, pl->user_only);
	if (e) {
		pl->hw_err = e;
		return STEP_NEXT;
	}
	plan->rung = MF_RUNG_COUNTING;
	if (!step_down(plan, pl->req,
		       "fallback: hardware counters cannot interrupt; totals exact, placement from task-clock samples"))
		return STEP_STOP;
	add_sampled(plan, pl->tc, rate_for(plan, pl->req, pl->tc, false), 0);
	if (pl->itlb)
		add_sampled(plan, pl->pf, pl->pf->period, 0);
	if (plan->ncounted < MF_MPLAN_MAX) {
		ev_from_row(&plan->counted[plan->ncounted], pl->set[0], 0, 0);
		plan->counted[plan->ncounted++].role = -1;
	}
	return STEP_CHOSEN;
}

/* Trial-opens a software event of rung 3 and adds it; STEP_STOP when refused. */
static int add_software(struct planning *pl, const struct ev_row *r, uint64_t period, const char *name)
{
	struct mf_mplan_ev ev;
	int e;
	ev_from_row(&ev, r, period, 0);
	e = trial(pl->sys, &ev, true, pl->user_only);
	if (e) {
		impossible(pl->plan,
			   "measurement impossible: perf_event_open refused %s (%s, perf_event_paranoid=%d); lower it, "
			   "grant CAP_PERFMON or allow the call in seccomp",
			   name, -e, pl->probe);
		return STEP_STOP;
	}
	add_sampled(pl->plan, r, period, 0);
	return STEP_CHOSEN;
}

/* Rung 3: software events. */
static int rung_software(struct planning *pl)
{
	const char *what = pl->itlb ? "task-clock and page-faults" : "task-clock";
	int e = pl->hw_err;
	char line[300];
	pl->plan->rung = MF_RUNG_SOFTWARE;
	if (e == -EACCES || e == -EPERM)
		snprintf(line, sizeof(line), "fallback: hardware events refused (%s: %s); sampling software events %s",
			 pl->hwname, mf_perf_errno_name(-e), what);
	else if (e == -EBUSY || e == -EMFILE)
		snprintf(line, sizeof(line), "fallback: hardware counters busy (%s: %s); sampling software events %s",
			 pl->hwname, mf_perf_errno_name(-e), what);
	else
		snprintf(line, sizeof(line),
			 "fallback: no hardware counters (%s: %s, hypervisor: %s); sampling software events %s",
			 pl->hwname, mf_perf_errno_name(e ? -e : ENOENT),
			 pl->probe->vm == 1   ? "yes"
			 : pl->probe->vm == 0 ? "no"
					      : "unknown",
			 what);
	if (!step_down(pl->plan, pl->req, line))
		return STEP_STOP;
	if (add_software(pl, pl->tc, rate_for(pl->plan, pl->req, pl->tc, false), "task-clock") < 0)
		return STEP_STOP;
	if (pl->itlb && add_software(pl, pl->pf, pl->pf->period, "page-faults") < 0)
		return STEP_STOP;
	return STEP_CHOSEN;
}

/* The exact counts of the whole run (those the machine lacks say so at collection), and the spec used. */
static void finish_plan(struct planning *pl, const struct ev_row *rows, size_t nrows)
{
	struct mf_mplan *plan = pl->plan;
	add_counted(plan, rows, nrows, "task_clock");
	add_counted(plan, rows, nrows, "page_faults");
	add_counted(plan, rows, nrows, "instructions");
	add_counted(plan, rows, nrows, "cycles");
	if (pl->itlb)
		add_counted(plan, rows, nrows, "itlb_misses");
	plan->user_only = pl->user_only;
	if (plan->nsampled) {
		const struct mf_mplan_ev *s0 = &plan->sampled[0];
		fmt_spec(plan->used_spec, sizeof(plan->used_spec), s0->period, s0->clock, pl->req, plan->variation,
			 plan->rung == MF_RUNG_SOFTWARE || plan->rung == MF_RUNG_COUNTING ? "task_clock"
											  : pl->req->event,
			 pl->user_only);
	}
}

int mf_measure_plan(const struct mf_perf_sys *sys, const struct mf_mprobe *probe, const struct mf_mplan_req *req,
		    const char *events_tsv, size_t events_len, const char *events_name, struct mf_mplan *plan,
		    struct mf_error *err)
{
	struct ev_row *rows = calloc(MAX_ROWS, sizeof(*rows));
	struct planning pl;
	size_t nrows = 0;
	int rc, step;

	memset(plan, 0, sizeof(*plan));
	plan->rung = MF_RUNG_PRECISE;
	if (!rows)
		return mf_error_nomem(err, events_name, 0, "planning the events to sample");
	rc = load_rows(events_tsv, events_len, events_name, rows, &nrows, err);
	if (rc)
		goto out;
	memset(&pl, 0, sizeof(pl));
	pl.sys = sys;
	pl.probe = probe;
	pl.req = req;
	pl.plan = plan;
	pl.user_only = !req->all;
	pl.itlb = strcmp(req->measurement, "itlb") == 0;
	pl.tc = find_row(rows, nrows, "task_clock", "any");
	pl.pf = find_row(rows, nrows, "page_faults", "any");
	if (!pl.tc || !pl.pf) {
		rc = mf_error_set(err, MF_ETABLE, events_name, 0, 0, "task_clock and page_faults must be defined");
		goto out;
	}
	if (pick_set(&pl, rows, nrows, events_name) < 0)
		goto out;
	pl.rate = rate_for(plan, req, pl.set[0], true);
	if (req->all && rung_user_only(&pl) < 0)
		goto out;
	if (pl.set[0]->type == PERF_TYPE_SOFTWARE) {
		step = software_requested(&pl);
	} else {
		step = rungs_hardware(&pl);
		if (step == STEP_NEXT)
			step = rung_counting(&pl);
		if (step == STEP_NEXT)
			step = rung_software(&pl);
	}
	if (step == STEP_CHOSEN)
		finish_plan(&pl, rows, nrows);
out:
	free(rows);
	return rc;
}
