/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MAGGREGATE_H
#define MFSTAT_MAGGREGATE_H

/*
 * The aggregator of mfstat measure (caliper-measure.md §3 "Aggregator"):
 * the samples of a run summed by thread, load module, function, source line
 * and cache line, with the itlb fill classes of §5 derived per row.  The
 * report writers are built on it; a program can build the tables itself.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"
#include "mfstat/measure/run.h"

/*
 * One row of a table.  Which identity fields apply depends on the table:
 * threads (tid, pid, comm), modules (mod, modname, modpath), functions (mod,
 * func, start, size, file), lines (fn, func, fstart, file, line, addr),
 * cache lines (fn, func, fstart, start, file, line of the first statement).
 */
struct mf_agg_row {
	uint32_t tid, pid;
	const char *comm;
	uint32_t mod;        /* run->mods index, or the aggregate's mod_unknown / mod_kernel */
	const char *modname; /* basename, "[unknown]", "[kernel.kallsyms]" */
	const char *modpath; /* the module's path (same as modname for the two pseudo modules) */
	const char *func;    /* bare symbol name (lines, cache lines: their function's); NULL: unnamed */
	uint64_t start;      /* functions: symbol start (unnamed: cache-line start); cache lines: line start */
	uint64_t size;       /* functions: symbol size (0 unknown) */
	const char *file;    /* source path or NULL */
	uint32_t line;       /* 0 unknown */
	uint64_t addr;       /* lowest sampled module-relative address (ties) */
	size_t fn;           /* lines and cache lines: index of their function in mf_agg.funcs */
	uint64_t fstart;     /* lines and cache lines: their function's start */

	/* sums over the row's samples, per enum mf_mrole */
	uint64_t samples[MF_ROLE_N];
	uint64_t events[MF_ROLE_N];             /* sum of periods */
	uint64_t ifetch_samples, ifetch_events; /* FAULT samples on instruction fetch */
	bool approx;                            /* skid, inlined line (lines only) or a clamped estimate */

	/* derived (§5); the count columns are valid only when the aggregate says they are available */
	uint64_t misses;                  /* Sampled ITLB Misses */
	uint64_t l2, hpw, soft;           /* ITLB L2 / HPW / Soft fills (samples) */
	uint64_t cpu;                     /* CPU samples */
	bool l2_clamped;                  /* ITLB - STLB was negative here: L2 shown as ~0 */
	double pct_l2, pct_hpw, pct_soft; /* % fill, NAN when n/a */
	uint64_t metric;                  /* the sort metric: misses or CPU samples */
	double pct, cum;                  /* % of the run's total metric and cumulative, NAN when the total is 0 */

	/*
	 * Inclusive (functions and modules, when mf_agg.chains): the samples of the
	 * sort metric whose call chain holds the row at least once (a recursive
	 * function counts once per sample, as perf's --children does), their
	 * periods, and their % of the run's total metric (NAN without chains or
	 * with a zero total).  Without chains incl is the row's own metric.
	 */
	uint64_t incl, incl_events;
	double incl_pct;

	/* private to aggregate.c */
	size_t id;
	uint64_t file_addr;
	int file_rank;
};

struct mf_agg_table {
	size_t n;
	struct mf_agg_row *rows; /* sorted: metric descending, ties by address then name */
};

/* A caller -> callee pair of functions adjacent on sampled chains (each pair once per sample). */
struct mf_agg_edge {
	size_t caller, callee; /* indices in mf_agg.funcs */
	uint64_t samples;      /* samples of the sort metric whose chain holds the pair */
	uint64_t events;       /* their periods */
};

struct mf_agg {
	const struct mf_mrun *run;
	bool itlb; /* measurement "itlb" (else profile) */
	bool attribute_ip;
	uint32_t line_size;
	uint32_t mod_unknown, mod_kernel; /* pseudo module ids (run->nmods, run->nmods + 1) */

	bool has_role[MF_ROLE_N]; /* the run has a stream of the role */
	bool av_misses;           /* an ITLB stream, or instruction-fetch faults */
	bool av_l2hpw;            /* both ITLB and STLB streams */
	bool av_soft;             /* a FAULT stream */
	bool av_cpu;              /* a CPU stream */
	bool by_cpu;              /* itlb without sampled misses: sorted by CPU samples */
	bool clock;               /* the (first) CPU stream counts nanoseconds */

	uint64_t data_faults; /* FAULT samples not on instruction fetch: not misses, left out */
	uint64_t skipped;     /* samples of no stream, or of a role the measurement does not use */

	struct mf_agg_row total;
	struct mf_agg_table threads, mods, funcs, lines, cls;

	/*
	 * Call chains: some counted sample has one.  Then each sample's chain adds
	 * to the inclusive counts of every distinct function and module on it
	 * (frame 0 is the sample's own function; the callers are named by
	 * mf_mframe_lookup and classed to functions as samples are, so a function
	 * seen only as a caller gets a row with self 0, and a frame flagged
	 * MF_FR_UNKNOWN the function "[unknown]" of module [unknown]), and each
	 * adjacent pair of distinct functions an edge.  Recursion (a function
	 * calling itself) makes no edge.
	 */
	bool chains;
	size_t nedges;
	struct mf_agg_edge *edges; /* samples descending, ties by caller then callee (name, module, start) */
};

/*
 * Builds the tables of run (syms sorted) for cache lines of line_size bytes
 * (a power of two) and the given attribution.  Returns 0, MF_EINVAL (bad line
 * size) or MF_ENOMEM; err is filled.  a is valid for mf_agg_free either way.
 */
int mf_agg_build(struct mf_agg *a, const struct mf_mrun *run, uint32_t line_size, bool attribute_ip,
		 struct mf_error *err);
void mf_agg_free(struct mf_agg *a);

/*
 * The function rows in inclusive order (perf's --children): incl descending,
 * then self metric descending, then by name (module, start); malloc'd array of
 * a->funcs.n indices, NULL on ENOMEM (or an empty table).
 */
size_t *mf_agg_by_inclusive(const struct mf_agg *a);

#endif
