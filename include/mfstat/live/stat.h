/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_STAT_H
#define MFSTAT_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"
#include "mfstat/kb/kb.h"
#include "mfstat/perf/perf.h"

/*
 * Counting CPU-MF (and, for --fallback, generic and uncore) events on Linux
 * for `mfstat stat`.  Every file and perf call goes through the perf seam
 * (mfstat/perf/perf.h), so tests run the Linux on Z paths on any machine against
 * a recorded tree (mf_perf_sys_recorded).
 */

#define MF_CPUMF_MAX_EVENTS 512

struct mf_cpumf_event {
	char name[64];
	unsigned number; /* the counter number (the event config) */
	int slot;        /* dense slot on the family, or -1 */
};

struct mf_cpumf_info {
	bool has_pmu;
	int pmu_type;
	int paranoid; /* kernel.perf_event_paranoid, or -99 unknown */
	bool root;    /* root, or CAP_PERFMON or CAP_SYS_ADMIN: perf_event_paranoid does not apply */
	bool has_versions;
	unsigned cfvn, csvn, auth;
	unsigned machine_type; /* from /proc/sysinfo, 0 unknown */
	double cpu_speed;      /* MHz from /proc/service_levels, NaN unknown */
	const struct mf_family *family;
	const struct mf_machine *machine;
	size_t nevents;
	struct mf_cpumf_event events[MF_CPUMF_MAX_EVENTS];
	char missing[400]; /* facts that could not be found, named */
	char why[400];     /* why counting is impossible, when it is */
};

/*
 * Finds out whether CPU-MF counters can be counted and which: the cpum_cf
 * PMU, its events, the machine type and speed, the counter versions and
 * authorization, perf_event_paranoid.  force names the family (--machine).
 * Returns 0 when counting is possible, MF_ENOTCOUNTED with info->why when not.
 */
int mf_cpumf_probe(const struct mf_perf_sys *sys, const struct mf_kb *kb, const struct mf_family *force,
		   bool system_wide, struct mf_cpumf_info *info);

/* Whether a counter set of the family can be counted here, and if not why (for mfstat_up). */
struct mf_cpumf_set_state {
	int set; /* enum mf_set */
	bool up;
	char reason[120]; /* when not up: "not authorized (authorization 0x2f)", ... */
};

/*
 * The state of every counter set the probed family has (after a successful mf_cpumf_probe): up
 * when at least one of its counters is among info->events.  Fills at most max and returns how
 * many sets there are.
 */
size_t mf_cpumf_sets(const struct mf_cpumf_info *info, struct mf_cpumf_set_state *out, size_t max);

/* One counted event of a run. */
struct mf_count {
	char name[64];
	uint64_t value; /* scaled when multiplexed */
	uint64_t enabled, running;
	bool ok;
	char why[120]; /* why it could not be counted */
};

/*
 * Runs argv (or, when argv is NULL, counts system-wide for seconds on cpus,
 * or on every online CPU when cpus is NULL) with the events open, following
 * threads and children; system-wide counts are summed over the CPUs.  Fills counts[0..n), the
 * child's wait status and the times.  Returns 0, or MF_ENOTCOUNTED
 * with err when nothing could be opened (the command is then not run), or
 * MF_ENOEXEC when the command could not be started (pipe, fork or exec
 * failed), or MF_ENOMEM.  While the command runs the
 * caller ignores SIGINT and SIGQUIT (restored before returning), so ^C at the
 * terminal ends the command and the caller still gets its counts and status.
 *
 * System-wide, seconds that are not a positive number (NaN, 0, infinity) count
 * until SIGINT; with seconds too, a SIGINT ends the counting early.  The first
 * SIGINT while counting ends the wait (times->interrupted set) and the counts
 * are read as usual; the handler is installed once (SA_RESETHAND) and the
 * caller's disposition is back before returning, so a second SIGINT acts as
 * it would without mfstat (by default it ends the process).
 */
struct mf_perf_req {
	uint32_t type;
	uint64_t config;
	const char *name;
	bool one_cpu; /* system-wide runs: count on cpu only (an uncore PMU's CPU) */
	int cpu;
};

/*
 * Interval reads (-I): fn is called every interval seconds, and once more at
 * the end, with the counts so far (cumulative) and the interval's bounds in
 * seconds after the start; start_us is set to the wall-clock start (UTC).
 */
struct mf_perf_tick {
	double interval;
	void (*fn)(void *ctx, const struct mf_count *counts, size_t n, double from, double to);
	void *ctx;
	int64_t start_us;
};

/* How long a run took: wall-clock seconds, and the command's CPU seconds (NaN system-wide). */
struct mf_perf_times {
	double wall, user_s, sys_s;
	bool interrupted; /* system-wide: a SIGINT ended the counting */
};

int mf_perf_run(const struct mf_perf_sys *sys, const struct mf_perf_req *req, size_t n, char *const argv[],
		double seconds, const int *cpus, size_t ncpus, struct mf_perf_tick *tick, struct mf_count *counts,
		int *status, struct mf_perf_times *times, struct mf_error *err);

/* An Intel integrated memory controller PMU with its DRAM CAS events (for --fallback). */
struct mf_uncore_imc {
	char name[48]; /* uncore_imc_0 ... */
	uint32_t type;
	int cpu;                      /* the CPU its events are opened on (first of its cpumask) */
	uint64_t cas_read, cas_write; /* event configs, from the events and format files */
};

/*
 * Finds the uncore_imc_* PMUs that have cas_count_read and cas_count_write
 * (sysfs, through the seam).  Fills at most max and returns how many there
 * are; 0 on machines without them (AMD, virtual machines, other vendors).
 */
size_t mf_uncore_probe(const struct mf_perf_sys *sys, struct mf_uncore_imc *imc, size_t max);

#endif
