/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MRUN_H
#define MFSTAT_MRUN_H

/*
 * The run model of mfstat measure (mrun.c): struct mf_mrun, everything a
 * report needs, filled by a live run (mf_measure_collect) or loaded from a
 * run file (mfdb.h).  Reports read only the model.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a sampled event stream stands for. */
enum mf_mrole {
	MF_ROLE_CPU = 0,   /* CPU time: cycles or task-clock samples */
	MF_ROLE_ITLB = 1,  /* every sampled instruction-TLB miss */
	MF_ROLE_STLB = 2,  /* misses that also missed the second-level TLB (page walk) */
	MF_ROLE_FAULT = 3, /* page faults with their address (soft fills when on instruction fetch) */
	MF_ROLE_N
};

/* One sampled event stream (one perf event with a sample period). */
struct mf_mstream {
	char name[64]; /* e.g. "task-clock", "page-faults", "FRONTEND_RETIRED.ITLB_MISS" */
	int role;      /* enum mf_mrole */
	uint32_t type; /* perf_event_attr.type */
	uint64_t config, config1;
	int precise;     /* precise_ip used */
	uint64_t period; /* sample period (events, or ns for clocks) */
	bool clock;      /* period counts nanoseconds */
	uint64_t id;     /* the kernel's event id (PERF_EVENT_IOC_ID), as in PERF_SAMPLE_IDENTIFIER */
};

/* Status of an exact count. */
enum mf_mcount_status { MF_CNT_OK = 0, MF_CNT_SCALED, MF_CNT_NOT_COUNTED, MF_CNT_NOT_SUPPORTED };

/* One exact count of the whole run. */
struct mf_mcount {
	char name[64];  /* "instructions", "page-faults", "task-clock", ... */
	char unit[16];  /* "events", "ns" */
	uint64_t value; /* scaled by enabled/running when multiplexed */
	uint64_t enabled, running;
	int status;    /* enum mf_mcount_status */
	char why[160]; /* for not counted / not supported: why (e.g. "ENOENT: no hardware counter") */
};

/* A PT_LOAD segment of a module: file offset to ELF virtual address. */
struct mf_mload {
	uint64_t offset, vaddr, filesz;
};

#define MF_MOD_MAX_LOADS 8
#define MF_MOD_NONE UINT32_MAX

enum {
	MF_MOD_ELF = 1,     /* the ELF file was read: loads are the file's */
	MF_MOD_MISSING = 2, /* the file could not be opened (reason in note) */
	MF_MOD_CHANGED = 4, /* the file changed since the run (build id differs) */
	MF_MOD_SPECIAL = 8  /* [vdso], [anon], [heap], [stack], //anon: no file */
};

/* A load module: an executable, a shared library, the vDSO, anonymous memory. */
struct mf_mmod {
	const char *path; /* as the kernel named it ("/usr/lib/x86_64-linux-gnu/libc.so.6", "[vdso]") */
	const char *name; /* basename ("libc.so.6", "[vdso]") */
	uint8_t build_id[20];
	uint8_t build_id_len;
	uint32_t flags;
	uint32_t nloads; /* 0: offsets are not translated (vaddr = file offset) */
	struct mf_mload loads[MF_MOD_MAX_LOADS];
	const char *note; /* why symbols are missing, or NULL */
};

/* A thread seen in the run. */
struct mf_mthread {
	uint32_t pid, tid;
	const char *comm;
};

enum {
	MF_MS_IFETCH = 1, /* a page fault on instruction fetch (addr within 15 bytes after ip, in an executable map) */
	MF_MS_SKID = 2,   /* a non-precise hardware sample: the ip may be after the cause */
	MF_MS_KERNEL = 4  /* ip in the kernel (PERF_RECORD_MISC_KERNEL) */
};

/* One sample, with its module resolved. */
struct mf_msample {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t ip;     /* absolute address */
	uint64_t addr;   /* data address (page faults), else 0 */
	uint64_t period; /* events (or ns) this sample stands for */
	uint32_t stream; /* index in run->streams */
	uint32_t mod;    /* index in run->mods, or MF_MOD_NONE */
	uint64_t off;    /* file offset of ip in the module (ip - map start + pgoff) */
	uint64_t vaddr;  /* module-relative ELF virtual address (after mf_mrun_finish) */
	uint32_t flags;  /* MF_MS_* */
	uint32_t stack;  /* index in run->stacks (its call chain), or MF_STACK_NONE */
};

#define MF_STACK_NONE UINT32_MAX

enum {
	MF_FR_RETURN = 1, /* a return address: named by the byte before it (vaddr - 1), the call site */
	MF_FR_KERNEL = 2, /* a kernel address: mod is MF_MOD_NONE and off the absolute address */
	MF_FR_UNKNOWN = 4 /* the chain could not be followed past here: shown as "[unknown]", no address */
};

/* One frame of a call chain, resolved to its module like a sample's ip. */
struct mf_mframe {
	uint32_t mod;   /* index in run->mods, or MF_MOD_NONE (kernel, unmapped, unknown) */
	uint32_t flags; /* MF_FR_* */
	uint64_t off;   /* file offset in the module (absolute address when mod is MF_MOD_NONE) */
	uint64_t vaddr; /* module-relative ELF virtual address (after mf_mrun_finish) */
};

/* A distinct call chain: frames run->frames[first .. first + n), leaf first (the sampled ip is frame 0). */
struct mf_mstack {
	uint32_t first, n;
};

enum { MF_SYM_INLINE = 1 /* the address lies in code inlined from another function: line approximate */ };

/* A resolved address: the function that contains it and its source line. */
struct mf_msym {
	uint32_t mod;
	uint64_t addr;       /* module-relative ELF virtual address */
	const char *func;    /* symbol name, or NULL (stripped, JIT): reported as module+0xOFF */
	uint64_t func_start; /* module-relative, valid when func */
	uint64_t func_size;
	const char *file; /* source path, or NULL */
	uint32_t line;    /* 0 unknown */
	uint32_t flags;   /* MF_SYM_* */
};

/* One row of a DWARF line table near sampled code (for statements of a cache line). */
struct mf_msrc {
	uint32_t mod;
	uint64_t addr; /* module-relative */
	const char *file;
	uint32_t line;
	uint32_t flags; /* MF_SYM_INLINE */
};

/* Rungs of the fallback ladder (caliper-measure.md §4). */
enum mf_rung {
	MF_RUNG_PRECISE = 0,
	MF_RUNG_NONPRECISE = 1,
	MF_RUNG_COUNTING = 2,
	MF_RUNG_SOFTWARE = 3,
	MF_RUNG_USERONLY = 4, /* a modifier on the others; kept as a flag in run->user_only_forced */
	MF_RUNG_IMPOSSIBLE = 5
};

struct mf_mrun {
	/* what was measured */
	char measurement[16]; /* "itlb" or "profile" */
	int argc;
	char **argv; /* owned */
	int pid;
	int wait_status;  /* as from wait4; see exited/signalled macros */
	int64_t start_us; /* wall-clock start, microseconds since the epoch (UTC) */
	double wall_s, user_s, sys_s;

	/* where */
	char host[64];       /* host name */
	char arch[32];       /* uname -m */
	char cpu_model[128]; /* /proc/cpuinfo model name */
	char kernel[128];    /* uname -r */
	int ncpus;
	int vm; /* 1 yes (hypervisor flag), 0 no, -1 unknown */

	/* how */
	char spec_requested[160]; /* "10000, 5%, itlb_miss" as asked (defaults filled) */
	char spec_used[160];      /* what ran, after any fallback */
	char privilege[8];        /* "user" or "all" */
	uint64_t variation;       /* events (or ns) of variation, 0 none */
	uint64_t seed;            /* of the period redraws */
	uint32_t line_size;       /* bytes */
	char line_size_source[96];
	int rung;              /* enum mf_rung */
	bool user_only_forced; /* rung 4 applied on top */
	char mode[400];        /* "precise" or the fallback reason line(s) */
	char attribution[8];   /* "ip" or "line": the rule the run's report was made with */
	char database[4200];   /* the run file path, or "not saved (reason)" */

	/* how the kernel's records are laid out */
	uint64_t sample_type; /* perf_event_attr.sample_type of every sampled stream */
	bool sample_id_all;

	/* call chains (measure -g): "" none, "fp" (the kernel's frame-pointer walk) or "dwarf" (unwound) */
	char call_graph[8];
	uint32_t stack_size;    /* dwarf: bytes of user stack copied per sample */
	uint32_t max_stack;     /* deepest chain asked for (0: the kernel's limit) */
	uint64_t unwind_failed; /* dwarf: samples whose chain stops early (ends in an [unknown] frame) */

	/* what happened */
	uint64_t lost;         /* records lost (PERF_RECORD_LOST sums) */
	uint64_t lost_samples; /* PERF_RECORD_LOST_SAMPLES sums */
	uint64_t throttles, unthrottles;
	uint64_t unknown_records; /* records of types not used, counted */
	uint64_t unmapped;        /* samples whose ip is in no known mapping */
	bool incomplete;          /* the run file had no END section */

	size_t nwarnings;
	char **warnings; /* owned */

	size_t nstreams;
	struct mf_mstream *streams;
	size_t ncounts;
	struct mf_mcount *counts;
	size_t nmods;
	struct mf_mmod *mods;
	size_t nthreads;
	struct mf_mthread *threads;
	size_t nsamples;
	struct mf_msample *samples;
	size_t nstacks;
	struct mf_mstack *stacks; /* distinct chains (interned by mf_mrun_add_stack) */
	size_t nframes;
	struct mf_mframe *frames; /* the stacks' frames */
	size_t nsyms;
	struct mf_msym *syms; /* sorted by (mod, addr) after mf_mrun_sort_syms */
	size_t nsrc;
	struct mf_msrc *src; /* sorted by (mod, addr, line) after mf_mrun_sort_syms */

	/* work mf_symbolize did, counted so that tests bound its complexity without a clock */
	uint64_t sym_table_entries; /* symbol-table entries loaded, over the modules read */
	uint64_t sym_lookups;       /* addresses named through the symbol table */
	uint64_t sym_probes;        /* symbol and segment entries looked at to name them */

	/* private: allocation bookkeeping and ingest state */
	struct mf_mrun_priv *priv;
};

/* Initialises an empty run (zeroed, rung 0, attribution "ip", line size 64, vm -1). */
void mf_mrun_init(struct mf_mrun *run);
/* Frees everything the run owns; the run is left as after mf_mrun_init. */
void mf_mrun_free(struct mf_mrun *run);
/* A copy of s owned by the run (interned: equal strings share one copy); NULL on ENOMEM, NULL for NULL. */
const char *mf_mrun_str(struct mf_mrun *run, const char *s);
/* Appends a warning (printf style). */
void mf_mrun_warn(struct mf_mrun *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets argv (copied). */
int mf_mrun_set_argv(struct mf_mrun *run, int argc, char *const argv[]);

/* Appends and returns a zeroed element, or NULL on ENOMEM. */
struct mf_mstream *mf_mrun_add_stream(struct mf_mrun *run);
struct mf_mcount *mf_mrun_add_count(struct mf_mrun *run);
struct mf_msample *mf_mrun_add_sample(struct mf_mrun *run);
struct mf_msym *mf_mrun_add_sym(struct mf_mrun *run);
struct mf_msrc *mf_mrun_add_src(struct mf_mrun *run);
/*
 * The index of the stack of these n frames (leaf first), added if new: equal
 * chains share one index (compared by mod, flags and off).  MF_STACK_NONE on
 * ENOMEM or n == 0.
 */
uint32_t mf_mrun_add_stack(struct mf_mrun *run, const struct mf_mframe *frames, size_t n);
/* The address to name frame f by: its vaddr, less one for a return address (the call instruction). */
static inline uint64_t mf_mframe_lookup(const struct mf_mframe *f)
{
	return (f->flags & MF_FR_RETURN) && f->vaddr ? f->vaddr - 1 : f->vaddr;
}
/* The module of this path, added if new (name = basename; special when path starts with '[' or "//anon"); MF_MOD_NONE on ENOMEM. */
uint32_t mf_mrun_module(struct mf_mrun *run, const char *path);
/* The thread tid, added if new; comm replaced when given. */
struct mf_mthread *mf_mrun_thread(struct mf_mrun *run, uint32_t pid, uint32_t tid, const char *comm);
/* Index of the stream with this kernel id, or -1. */
int mf_mrun_stream_by_id(const struct mf_mrun *run, uint64_t id);

/* Module-relative ELF virtual address of a file offset in module m (identity without loads). */
uint64_t mf_mrun_vaddr(const struct mf_mrun *run, uint32_t mod, uint64_t off);
/* Sets every sample's and frame's vaddr from its off and its module's loads. */
void mf_mrun_finish(struct mf_mrun *run);
/* Sorts syms and src and drops duplicate syms (same mod and addr). */
void mf_mrun_sort_syms(struct mf_mrun *run);
/* The resolved address (mod, addr), or NULL (needs mf_mrun_sort_syms). */
const struct mf_msym *mf_mrun_sym(const struct mf_mrun *run, uint32_t mod, uint64_t addr);
/* Index of the first src row of mod at or after lo; *n gets the count of rows in [lo, hi). */
size_t mf_mrun_src_range(const struct mf_mrun *run, uint32_t mod, uint64_t lo, uint64_t hi, size_t *n);

/*
 * Adds the samples, counts, modules, threads and symbols of src to dst (runs
 * of one measurement, for `measure report DB...`): modules are matched by
 * path, streams by name, counts by name (summed), times summed, samples and
 * symbols re-indexed.  src is left as it was.  Returns 0 or MF_ENOMEM.
 */
int mf_mrun_merge(struct mf_mrun *dst, const struct mf_mrun *src);

/*
 * What identifies a run, as a string in buf: its measurement, the program's
 * pid, the host, the start time in microseconds, the seed of the period
 * redraws, and a hash of the command line and the wall, user and system
 * times, all stored in the run file.  Two run files with the same identity
 * hold the same run (a file given twice, a copy, the other byte order);
 * `measure report` counts such a run once.
 */
void mf_mrun_identity(const struct mf_mrun *run, char *buf, size_t n);

#endif
