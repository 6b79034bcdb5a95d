/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_PROBE_H
#define MFSTAT_PROBE_H

/*
 * mfstat measure before and around the run (caliper-measure.md §3, §4): what
 * perf_event_open allows here (the probe), which events a measurement opens
 * (the plan, down the fallback ladder), and the collection of one run.  All
 * go through the perf seam (mfstat/perf/perf.h), so tests script the kernel.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"
#include "mfstat/perf/perf.h"

struct mf_mrun;
struct mf_mfdb_writer;

/* What this machine allows, read through the perf seam (its own files, or a recorded tree's). */
struct mf_mprobe {
	int paranoid;  /* kernel.perf_event_paranoid, -99 unknown */
	long mlock_kb; /* kernel.perf_event_mlock_kb, -1 unknown */
	bool cap_perfmon, cap_sys_admin;
	bool root;
	char vendor[32]; /* GenuineIntel, AuthenticAMD, IBM/S390, ... */
	char model[128];
	char arch[32];
	int family, model_number;
	int vm;         /* hypervisor flag: 1 yes, 0 no, -1 unknown */
	bool cpu_pmu;   /* a core PMU (cpu, cpu_core, cpum_cf, armv8_pmuv3...) in sysfs */
	char pmus[512]; /* PMUs found, space-separated */
	uint32_t line_size;
	char line_size_source[96];
	int ncpus; /* online CPUs */
};

/*
 * Reads the probe facts through sys (/proc/..., /sys/...; this machine's own
 * also from uname and sysconf when sys->root is NULL).  Never fails:
 * unknowns stay unknown.
 */
void mf_mprobe_read(const struct mf_perf_sys *sys, struct mf_mprobe *p);

/* One event the plan opens. */
struct mf_mplan_ev {
	char name[64];
	int role; /* enum mf_mrole for sampled events, -1 for counted ones */
	uint32_t type;
	uint64_t config, config1;
	int precise;
	uint64_t period; /* 0 for counting */
	bool clock;      /* period in ns */
	bool want_addr;  /* PERF_SAMPLE_ADDR needed (page faults) */
	char unit[16];
};

/* What was asked: the merged -s specification and options. */
struct mf_mplan_req {
	char measurement[16]; /* itlb | profile */
	char event[64];       /* abstract name (events.tsv), or rHEX */
	uint64_t rate;        /* events (or ns for clocks) per sample; 0: the event's default */
	bool rate_clock;      /* rate was given as a time (500us, 1ms) */
	uint64_t variation;   /* absolute, 0 none */
	bool variation_clock; /* variation is a time (given as one, or a bare number beside a time rate) */
	double variation_pct; /* percent of rate when > 0 (then variation is derived) */
	bool all;             /* :all privilege asked */
	bool fallback_none;   /* --fallback none */
};

#define MF_MPLAN_MAX 8

struct mf_mplan {
	int rung;         /* enum mf_rung */
	bool user_only;   /* exclude_kernel forced (rung 4 on top of rung) */
	char reason[400]; /* "precise" or the fallback line(s), '\n' between two */
	int code;         /* 0 ok, MF_EUSAGE (unknown event), MF_ENOTCOUNTED (no rung works) */
	char error[400];  /* when code != 0 */
	size_t nsampled;
	struct mf_mplan_ev sampled[MF_MPLAN_MAX];
	size_t ncounted;
	struct mf_mplan_ev counted[MF_MPLAN_MAX];
	char used_spec[160];
	uint64_t variation;  /* absolute variation of sampled[0]'s period (below it) */
	char rate_note[512]; /* "" when the requested rate (and variation) were kept for the event
	                               sampled, else what could not be converted and what is used instead */
	/* set by the caller after mf_measure_plan, read by mf_measure_collect */
	uint64_t freq;       /* -F: samples a second (attr.freq); 0: the periods above */
	char call_graph[8];  /* "" none, "fp" (PERF_SAMPLE_CALLCHAIN) or "dwarf" (also user registers and stack) */
	uint32_t max_stack;  /* fp: sample_max_stack (0: the kernel's perf_event_max_stack) */
	uint32_t stack_size; /* dwarf: sample_stack_user, bytes (a multiple of 8) */
	uint64_t regs_mask;  /* dwarf: sample_regs_user (the architecture's, mfstat/measure/unwind.h) */
};

/*
 * The text of data/measure/events.tsv: DIR/measure/events.tsv when tables_dir
 * has one, else the embedded copy.  *text is the caller's (free); name gets
 * the file name for messages.  Returns 0, MF_EIO or MF_ENOMEM with err.
 */
int mf_measure_events_text(const char *tables_dir, char **text, size_t *len, char *name, size_t namelen,
			   struct mf_error *err);

/*
 * Chooses the events of a measurement by trial-opening the ladder's
 * candidates on this process (disabled, user only unless :all) through sys
 * (caliper-measure.md §4).  events_tsv is the text of data/measure/events.tsv
 * (name for messages).  The requested rate is kept when it converts to the
 * event sampled (a time for a clock, a count for the event asked for), else
 * that event's default is used and plan->rate_note says why.  Returns 0 with
 * plan filled (code 0), or fills
 * plan->code and plan->error when no rung works or --fallback none
 * forbids the step down.
 */
int mf_measure_plan(const struct mf_perf_sys *sys, const struct mf_mprobe *probe, const struct mf_mplan_req *req,
		    const char *events_tsv, size_t events_len, const char *events_name, struct mf_mplan *plan,
		    struct mf_error *err);

/*
 * Runs argv under the plan with the perf layer's runner: fork, open the
 * events on the child through sys (disabled, enable_on_exec, inherit; sampled
 * events per CPU with one ring buffer per CPU), let it exec, drain the rings
 * into db (RECORDS, when db is not NULL) and into run (mf_mrun_ingest), read
 * the exact counts, fill run (streams, counts, times, status).  ring_pages:
 * data pages per ring (power of two).  SIGTERM and SIGHUP are passed on to
 * the program.  Returns 0; MF_ENOEXEC with err when the program cannot be
 * run; MF_ENOTCOUNTED when the events cannot be opened or mapped; MF_EIO,
 * MF_ENOMEM or MF_EFORMAT when the run failed on the way.
 */
int mf_measure_collect(const struct mf_perf_sys *sys, const struct mf_mplan *plan, char *const argv[],
		       const struct mf_mprobe *probe, size_t ring_pages, struct mf_mfdb_writer *db, struct mf_mrun *run,
		       struct mf_error *err);

#endif
