/* SPDX-License-Identifier: MIT */
/*
 * Kernel perf records (caliper-measure.md §3) decoded into the run model:
 * per-pid address spaces from MMAP/MMAP2, FORK and exec COMM (Symbolizer),
 * threads, samples with their stream, module and file offset (Aggregator
 * input), and the loss/throttle counts (§9).
 *
 * Records are read in this machine's byte order: they are the kernel's own,
 * copied verbatim into the run file.
 */
#include "mfstat/measure/record.h"
#include "mfstat/measure/run.h"
#include "mfstat/measure/unwind.h"

#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mrun_int.h"

/* ---- ingest state: per-process address spaces -------------------------- */

/* One mapping [start, end) of a file at pgoff (§3 Symbolizer). */
struct amap {
	uint64_t start, end;
	uint64_t pgoff;
	uint32_t mod;
	uint32_t prot;
};

struct aspace {
	uint32_t pid;
	size_t n, cap;
	struct amap *maps; /* sorted by start, never overlapping */
	uint64_t gen;      /* changed (from ingest.gens) whenever maps change */
	/* the maps as the unwinder takes them, made when first needed after a change */
	struct mf_unwind_map *umaps;
	size_t numaps, ucap;
	uint64_t ugen;
};

struct ingest {
	uint64_t offset; /* bytes given to earlier calls: error offsets count from the first byte ever */
	long records;    /* records decoded by earlier calls */
	size_t nas, cap;
	struct aspace *as;   /* sorted by pid */
	uint32_t kernel_mod; /* "[kernel.kallsyms]", or MF_MOD_NONE until a kernel sample */
	bool thread_known;   /* last_pid/last_tid are registered (saves a thread look-up per sample) */
	uint32_t last_pid, last_tid;
	uint64_t regs_mask;  /* sample_regs_user of the records (mf_mrun_ingest_regs) */
	mf_unwind_fn unwind; /* the user part of chains from registers and stacks, or NULL */
	struct mf_unwind *unwinder;
	uint64_t gens;            /* the last address-space generation given out */
	struct mf_mframe *frames; /* one chain being built (reused) */
	size_t fcap;
	uint64_t ips[MF_UNWIND_MAX_IPS];
};

/* Frees the ingest state (the run model calls it through mf_mrun_decoder's free_state). */
static void ingest_free(void *state)
{
	struct ingest *in = state;
	size_t i;
	for (i = 0; i < in->nas; i++) {
		free(in->as[i].maps);
		free(in->as[i].umaps);
	}
	free(in->as);
	free(in->frames);
	free(in);
}

/* Index of the first address space with pid >= the one given. */
static size_t as_lower(const struct ingest *in, uint32_t pid)
{
	size_t lo = 0, hi = in->nas;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (in->as[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct aspace *as_find(struct ingest *in, uint32_t pid)
{
	size_t i = as_lower(in, pid);
	return i < in->nas && in->as[i].pid == pid ? &in->as[i] : NULL;
}

/* The address space of pid, created empty if new; NULL on ENOMEM.  May move the others. */
static struct aspace *as_get(struct ingest *in, uint32_t pid)
{
	size_t i = as_lower(in, pid);
	if (i < in->nas && in->as[i].pid == pid)
		return &in->as[i];
	if (in->nas == in->cap) {
		size_t nc = in->cap ? in->cap * 2 : 8;
		struct aspace *na = realloc(in->as, nc * sizeof(*na));
		if (!na)
			return NULL;
		in->as = na;
		in->cap = nc;
	}
	memmove(&in->as[i + 1], &in->as[i], (in->nas - i) * sizeof(*in->as));
	memset(&in->as[i], 0, sizeof(*in->as));
	in->as[i].pid = pid;
	in->as[i].gen = ++in->gens;
	in->nas++;
	return &in->as[i];
}

static int as_reserve(struct aspace *a, size_t n)
{
	struct amap *nm;
	size_t nc;
	if (n <= a->cap)
		return 0;
	nc = a->cap ? a->cap : 8;
	while (nc < n)
		nc *= 2;
	if (!(nm = realloc(a->maps, nc * sizeof(*nm))))
		return -1;
	a->maps = nm;
	a->cap = nc;
	return 0;
}

/* Index of the first mapping ending after addr. */
static size_t map_first_after(const struct aspace *a, uint64_t addr)
{
	size_t lo = 0, hi = a->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The mapping of pid containing addr, or NULL. */
static const struct amap *map_lookup(struct ingest *in, uint32_t pid, uint64_t addr)
{
	const struct aspace *a = as_find(in, pid);
	size_t i;
	if (!a)
		return NULL;
	i = map_first_after(a, addr);
	return i < a->n && a->maps[i].start <= addr ? &a->maps[i] : NULL;
}

/*
 * Adds m to a, replacing whatever part of older mappings it overlaps: an
 * older mapping is trimmed on one side or split in two around it (a new
 * mmap over part of an old one, as ld.so does when it lays out a library).
 */
static int map_insert(struct aspace *a, const struct amap *m)
{
	size_t lo = map_first_after(a, m->start), hi = lo, k;
	struct amap piece[3];
	size_t np = 0;

	while (hi < a->n && a->maps[hi].start < m->end)
		hi++;
	if (lo < hi && a->maps[lo].start < m->start) {
		piece[np] = a->maps[lo];
		piece[np++].end = m->start;
	}
	piece[np++] = *m;
	if (lo < hi && a->maps[hi - 1].end > m->end) {
		piece[np] = a->maps[hi - 1];
		piece[np].pgoff += m->end - piece[np].start;
		piece[np++].start = m->end;
	}
	if (np > hi - lo && as_reserve(a, a->n + np - (hi - lo)))
		return -1;
	memmove(&a->maps[lo + np], &a->maps[hi], (a->n - hi) * sizeof(*a->maps));
	for (k = 0; k < np; k++)
		a->maps[lo + k] = piece[k];
	a->n = a->n - (hi - lo) + np;
	return 0;
}

/* ---- decoding records ------------------------------------------------- */

/* One record being decoded, for bounds checks and messages. */
struct rec {
	const unsigned char *p;
	size_t size;
	uint32_t type;
	uint16_t misc;
	long long off; /* absolute byte offset of the record */
	long index;    /* record number in the whole stream */
	const char *file;
	struct mf_error *err;
};

static const char *type_name(uint32_t type)
{
	static const char *const names[] = {
		[PERF_RECORD_MMAP] = "MMAP",
		[PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM",
		[PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK",
		[PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE",
		[PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX",
		[PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	};
	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}

static int rec_bad(const struct rec *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int rec_bad(const struct rec *r, const char *fmt, ...)
{
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	mf_error_set(r->err, MF_EFORMAT, r->file, 0, 0, "%s record (type %u, %zu bytes): %s", type_name(r->type),
		     r->type, r->size, what);
	if (r->err) {
		r->err->offset = r->off;
		r->err->record = r->index;
	}
	return MF_EFORMAT;
}

static int no_memory(const struct rec *r)
{
	mf_error_set(r->err, MF_ENOMEM, r->file, 0, 0, "out of memory while decoding kernel records");
	return MF_ENOMEM;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* The fixed part of a record: fixed bytes including the header must fit. */
static int need(const struct rec *r, size_t fixed)
{
	if (r->size < fixed)
		return rec_bad(r, "shorter than its fixed part of %zu bytes", fixed);
	return 0;
}

/* The NUL-terminated string at byte at of the record, or NULL when it is not terminated inside the record. */
static const char *rec_str(const struct rec *r, size_t at)
{
	if (at >= r->size || !memchr(r->p + at, '\0', r->size - at))
		return NULL;
	return (const char *)r->p + at;
}

/* sample_type bits this decoder understands (the kernel's order is in decode_sample). */
#define SUPPORTED_SAMPLE_TYPE                                                                                          \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |             \
	 PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |       \
	 PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT |                       \
	 PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_PAGE_SIZE |       \
	 PERF_SAMPLE_CODE_PAGE_SIZE)

static const char *sample_bit_name(unsigned bit)
{
	static const char *const names[] = {
		"IP",
		"TID",
		"TIME",
		"ADDR",
		"READ",
		"CALLCHAIN",
		"ID",
		"CPU",
		"PERIOD",
		"STREAM_ID",
		"RAW",
		"BRANCH_STACK",
		"REGS_USER",
		"STACK_USER",
		"WEIGHT",
		"DATA_SRC",
		"IDENTIFIER",
		"TRANSACTION",
		"REGS_INTR",
		"PHYS_ADDR",
		"AUX",
		"CGROUP",
		"DATA_PAGE_SIZE",
		"CODE_PAGE_SIZE",
		"WEIGHT_STRUCT",
	};
	return bit < sizeof(names) / sizeof(names[0]) ? names[bit] : NULL;
}

static int check_sample_type(uint64_t st, const char *file, struct mf_error *err)
{
	uint64_t extra = st & ~(uint64_t)SUPPORTED_SAMPLE_TYPE;
	unsigned bit = 0;
	const char *name;
	if (!extra)
		return 0;
	while (!(extra & ((uint64_t)1 << bit)))
		bit++;
	name = sample_bit_name(bit);
	if (name)
		return mf_error_set(err, MF_EINVAL, file, 0, 0,
				    "sample_type 0x%llx has PERF_SAMPLE_%s, which samples cannot carry here",
				    (unsigned long long)st, name);
	return mf_error_set(err, MF_EINVAL, file, 0, 0, "sample_type 0x%llx has unknown bit %u", (unsigned long long)st,
			    bit);
}

/* MMAP (assumed PROT_EXEC: the kernel reports only executable maps this way) and MMAP2. */
static int decode_mmap(struct mf_mrun *run, struct ingest *in, const struct rec *r)
{
	bool v2 = r->type == PERF_RECORD_MMAP2;
	size_t fixed = v2 ? 8 + 8 + 24 + 24 + 8 : 8 + 8 + 24;
	const unsigned char *p = r->p;
	const char *path;
	struct aspace *a;
	struct amap m;
	uint64_t len;
	uint8_t bid[20];
	uint8_t bid_len = 0;
	int rc;

	if ((rc = need(r, fixed + 1)) != 0)
		return rc;
	if (!(path = rec_str(r, fixed)))
		return rec_bad(r, "file name is not NUL-terminated");
	m.start = rd64(p + 16);
	len = rd64(p + 24);
	m.pgoff = rd64(p + 32);
	m.prot = PROT_EXEC | PROT_READ;
	if (v2) {
		if (r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			bid_len = p[40];
			if (bid_len > sizeof(bid))
				return rec_bad(r, "build id size %u is over 20", bid_len);
			memcpy(bid, p + 44, bid_len);
		}
		m.prot = rd32(p + 64);
	}
	if (len == 0)
		return 0;
	/* A mapping reaching the top of the address space keeps its last byte out. */
	m.end = m.start + len < m.start ? UINT64_MAX : m.start + len;
	if ((m.mod = mf_mrun_module(run, path)) == MF_MOD_NONE)
		return no_memory(r);
	if (bid_len && run->mods[m.mod].build_id_len == 0) {
		memcpy(run->mods[m.mod].build_id, bid, bid_len);
		run->mods[m.mod].build_id_len = bid_len;
	}
	if (!(a = as_get(in, rd32(p + 8))) || map_insert(a, &m))
		return no_memory(r);
	a->gen = ++in->gens;
	return 0;
}

/* The comm of thread tid, or NULL. */
static const char *thread_comm(const struct mf_mrun *run, uint32_t tid)
{
	size_t i;
	for (i = run->nthreads; i-- > 0;)
		if (run->threads[i].tid == tid)
			return run->threads[i].comm;
	return NULL;
}

static int decode_fork(struct mf_mrun *run, struct ingest *in, const struct rec *r)
{
	uint32_t pid, ppid, tid, ptid;
	int rc;
	if ((rc = need(r, 8 + 16 + 8)) != 0)
		return rc;
	pid = rd32(r->p + 8);
	ppid = rd32(r->p + 12);
	tid = rd32(r->p + 16);
	ptid = rd32(r->p + 20);
	/*
	 * A new thread shares its process's address space (pid == ppid); a new
	 * process starts with a copy of its parent's (§3 Symbolizer: FORK
	 * copies).
	 */
	if (pid != ppid) {
		struct aspace *child = as_get(in, pid), *parent;
		if (!child)
			return no_memory(r);
		child->n = 0;
		parent = as_find(in, ppid); /* after as_get, which may move the array */
		if (parent && parent->n) {
			if (as_reserve(child, parent->n))
				return no_memory(r);
			memcpy(child->maps, parent->maps, parent->n * sizeof(*parent->maps));
			child->n = parent->n;
		}
		child->gen = ++in->gens;
	}
	if (!mf_mrun_thread(run, pid, tid, thread_comm(run, ptid)))
		return no_memory(r);
	in->thread_known = false;
	return 0;
}

static int decode_comm(struct mf_mrun *run, struct ingest *in, const struct rec *r)
{
	const char *comm;
	uint32_t pid;
	int rc;
	if ((rc = need(r, 8 + 8 + 1)) != 0)
		return rc;
	if (!(comm = rec_str(r, 16)))
		return rec_bad(r, "comm is not NUL-terminated");
	pid = rd32(r->p + 8);
	/* exec replaced the process image: its maps follow as new MMAP2 records. */
	if (r->misc & PERF_RECORD_MISC_COMM_EXEC) {
		struct aspace *a = as_find(in, pid);
		if (a) {
			a->n = 0;
			a->gen = ++in->gens;
		}
	}
	if (!mf_mrun_thread(run, pid, rd32(r->p + 12), comm))
		return no_memory(r);
	in->thread_known = false;
	return 0;
}

static bool hardware_type(uint32_t type)
{
	/* Dynamic PMUs (cpu_core, ibs_fetch, ...) have types from PERF_TYPE_MAX up. */
	return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW ||
	       type >= PERF_TYPE_MAX;
}

/* x86's longest instruction: a fault this close after ip is the fetch of that instruction (§5). */
#define MAX_INSN_LEN 15

/* Room for n frames in in->frames; -1 on ENOMEM. */
static int frames_room(struct ingest *in, size_t n)
{
	struct mf_mframe *nf;
	size_t nc;
	if (n <= in->fcap)
		return 0;
	nc = in->fcap ? in->fcap : 64;
	while (nc < n)
		nc *= 2;
	if (!(nf = realloc(in->frames, nc * sizeof(*nf))))
		return -1;
	in->frames = nf;
	in->fcap = nc;
	return 0;
}

/* A user frame at address a of pid (frame n of the chain); false when a is in no mapping: then an [unknown] frame. */
static bool user_frame(struct ingest *in, uint32_t pid, uint64_t a, size_t n, struct mf_mframe *f)
{
	const struct amap *m = map_lookup(in, pid, a);
	memset(f, 0, sizeof(*f));
	f->mod = MF_MOD_NONE;
	if (!m) {
		f->flags = MF_FR_UNKNOWN;
		return false;
	}
	f->flags = n ? MF_FR_RETURN : 0;
	f->mod = m->mod;
	f->off = a - m->start + m->pgoff;
	return true;
}

/*
 * The call chain of a sample (PERF_SAMPLE_CALLCHAIN: nr addresses at ips,
 * leaf first) as frames resolved through pid's maps like the sample's ip:
 * context markers (PERF_CONTEXT_*) are not addresses, they say whether the
 * frames after them are the kernel's or the user's; the first address is the
 * sampled pc, the later ones return addresses; a user address in no mapping
 * (a frame-pointer walk through code without frame pointers reads junk) ends
 * the chain with an [unknown] frame.  A chain without addresses stands for the
 * sample's ip alone.  Sets smp->stack; -1 on ENOMEM.
 */
static int sample_chain(struct mf_mrun *run, struct ingest *in, struct mf_msample *smp, const unsigned char *ips,
			uint64_t nr, const uint64_t *uips, size_t nu, bool stopped)
{
	bool kernel = (smp->flags & MF_MS_KERNEL) != 0;
	size_t n = 0;
	uint64_t k;
	if (frames_room(in, (size_t)nr + nu + 2))
		return -1;
	for (k = 0; k < nr; k++) {
		uint64_t a = rd64(ips + 8 * k);
		struct mf_mframe *f = &in->frames[n];
		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			if (a == (uint64_t)PERF_CONTEXT_USER || a == (uint64_t)PERF_CONTEXT_GUEST_USER)
				kernel = false;
			else
				kernel = true; /* KERNEL, HV, GUEST, GUEST_KERNEL */
			continue;
		}
		if (!kernel && uips)
			continue; /* the user part comes from the unwinder */
		memset(f, 0, sizeof(*f));
		f->flags = n ? MF_FR_RETURN : 0;
		f->mod = MF_MOD_NONE;
		if (kernel) {
			f->flags |= MF_FR_KERNEL;
			f->off = a;
		} else {
			const struct amap *m = map_lookup(in, smp->pid, a);
			if (!m) {
				f->flags = MF_FR_UNKNOWN;
				n++;
				break;
			}
			f->mod = m->mod;
			f->off = a - m->start + m->pgoff;
		}
		n++;
	}
	if (uips) {
		/* The unwound user part: the pc, then return addresses; one in no mapping ends it. */
		bool ended = false;
		for (k = 0; k < nu && !ended; k++)
			ended = !user_frame(in, smp->pid, uips[k], n, &in->frames[n]), n++;
		if (stopped && !ended) {
			memset(&in->frames[n], 0, sizeof(in->frames[n]));
			in->frames[n].mod = MF_MOD_NONE;
			in->frames[n++].flags = MF_FR_UNKNOWN;
		}
		if (stopped || ended)
			run->unwind_failed++;
	}
	if (n == 0) {
		struct mf_mframe *f = &in->frames[0];
		memset(f, 0, sizeof(*f));
		f->mod = smp->flags & MF_MS_KERNEL ? MF_MOD_NONE : smp->mod;
		f->off = smp->flags & MF_MS_KERNEL ? smp->ip : smp->off;
		f->flags = smp->flags & MF_MS_KERNEL ? MF_FR_KERNEL : f->mod == MF_MOD_NONE ? MF_FR_UNKNOWN : 0;
		n = 1;
	}
	smp->stack = mf_mrun_add_stack(run, in->frames, n);
	return smp->stack == MF_STACK_NONE ? -1 : 0;
}

/*
 * Unwinds the user part of smp's chain from its registers and stack (regs in
 * the record's order, stack of size valid bytes) through in->unwind into
 * in->ips, *n of them: 0 when the walk ended, 1 when it stopped early, -1 on
 * ENOMEM.
 */
static int unwind_user(struct mf_mrun *run, struct ingest *in, const struct mf_msample *smp, uint64_t abi,
		       const unsigned char *regs, const unsigned char *stack, uint64_t size, size_t *n)
{
	struct aspace *a = as_find(in, smp->pid);
	struct mf_unwind_sample us;
	uint64_t rv[64];
	size_t nregs = (size_t)__builtin_popcountll(in->regs_mask), i;
	int rc;
	*n = 0;
	if (!a)
		return 1; /* no maps: nothing to unwind through */
	if (a->ugen != a->gen || !a->umaps) {
		if (a->n > a->ucap) {
			struct mf_unwind_map *nm = realloc(a->umaps, a->n * sizeof(*nm));
			if (!nm)
				return -1;
			a->umaps = nm;
			a->ucap = a->n;
		}
		for (i = 0; i < a->n; i++) {
			const struct amap *m = &a->maps[i];
			a->umaps[i] = (struct mf_unwind_map){.start = m->start,
							     .len = m->end - m->start,
							     .pgoff = m->pgoff,
							     .path = run->mods[m->mod].path,
							     .exec = (m->prot & PROT_EXEC) != 0};
		}
		a->numaps = a->n;
		a->ugen = a->gen;
	}
	for (i = 0; i < nregs; i++)
		rv[i] = rd64(regs + 8 * i);
	memset(&us, 0, sizeof(us));
	us.pid = smp->pid;
	us.tid = smp->tid;
	us.abi = abi;
	us.regs = rv;
	us.regs_mask = in->regs_mask;
	us.stack = stack;
	us.stack_size = size;
	us.maps = a->umaps;
	us.nmaps = a->numaps;
	us.maps_gen = a->gen;
	rc = in->unwind(in->unwinder, &us, in->ips, MF_UNWIND_MAX_IPS, n);
	if (*n > MF_UNWIND_MAX_IPS)
		*n = MF_UNWIND_MAX_IPS;
	return rc == MF_ENOMEM ? -1 : rc != 0 ? 1 : 0;
}

static int decode_sample(struct mf_mrun *run, struct ingest *in, const struct rec *r)
{
	uint64_t st = run->sample_type, id = 0, ip = 0, time = 0, addr = 0, period = 0, nr = 0;
	uint32_t pid = 0, tid = 0;
	bool have_id = false, have_period = false;
	const unsigned char *chain = NULL, *regs = NULL, *ustack = NULL;
	uint64_t abi = 0, ustack_size = 0, dyn_size = 0;
	const unsigned char *p = r->p;
	size_t at = sizeof(struct perf_event_header);
	const struct mf_mstream *s;
	struct mf_msample *smp;
	int stream;

	/*
	 * Fields in the order the kernel writes them (perf_output_sample in
	 * kernel/events/core.c; the uapi comment has the same order for the
	 * bits used here).  The u64 fields are counted first; RAW is variable.
	 */
#define NEED(n)                                                                                                        \
	do {                                                                                                           \
		if (r->size - at < (n))                                                                                \
			return rec_bad(r, "ends at byte %zu, inside the fields of sample_type 0x%llx", r->size,        \
				       (unsigned long long)st);                                                        \
	} while (0)
#define SKIP(n)                                                                                                        \
	do {                                                                                                           \
		NEED(n);                                                                                               \
		at += (n);                                                                                             \
	} while (0)
#define TAKE64(v)                                                                                                      \
	do {                                                                                                           \
		NEED(8);                                                                                               \
		(v) = rd64(p + at);                                                                                    \
		at += 8;                                                                                               \
	} while (0)
	if (st & PERF_SAMPLE_IDENTIFIER) {
		TAKE64(id);
		have_id = true;
	}
	if (st & PERF_SAMPLE_IP)
		TAKE64(ip);
	if (st & PERF_SAMPLE_TID) {
		NEED(8);
		pid = rd32(p + at);
		tid = rd32(p + at + 4);
		at += 8;
	}
	if (st & PERF_SAMPLE_TIME)
		TAKE64(time);
	if (st & PERF_SAMPLE_ADDR)
		TAKE64(addr);
	if (st & PERF_SAMPLE_ID) {
		uint64_t v;
		TAKE64(v);
		if (!have_id)
			id = v;
		have_id = true;
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		SKIP(8);
	if (st & PERF_SAMPLE_CPU)
		SKIP(8);
	if (st & PERF_SAMPLE_PERIOD) {
		TAKE64(period);
		have_period = true;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		/* u64 nr, then nr addresses and context markers, leaf first. */
		TAKE64(nr);
		if (nr > (r->size - at) / 8)
			return rec_bad(r, "call chain of %llu entries runs past the record", (unsigned long long)nr);
		chain = p + at;
		at += (size_t)nr * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		/* u32 size, then the bytes (IBS register dumps): not decoded here. */
		uint32_t raw;
		NEED(4);
		raw = rd32(p + at);
		at += 4;
		NEED(raw);
		at += raw;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		/* u64 abi, then one u64 per bit of sample_regs_user; none when abi is NONE (no user context). */
		TAKE64(abi);
		regs = p + at;
		if (abi != PERF_SAMPLE_REGS_ABI_NONE)
			SKIP((size_t)__builtin_popcountll(in->regs_mask) * 8);
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		/* u64 size, size bytes, then u64 dyn_size, which is left out when size is 0. */
		TAKE64(ustack_size);
		if (ustack_size) {
			if (ustack_size > r->size - at)
				return rec_bad(r, "user stack of %llu bytes runs past the record",
					       (unsigned long long)ustack_size);
			ustack = p + at;
			at += (size_t)ustack_size;
			TAKE64(dyn_size);
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		SKIP(8);
	if (st & PERF_SAMPLE_DATA_SRC)
		SKIP(8);
	/* The kernel writes these three in this order (the brief's list had them reversed). */
	if (st & PERF_SAMPLE_PHYS_ADDR)
		SKIP(8);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		SKIP(8);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		SKIP(8);
#undef TAKE64
#undef SKIP
#undef NEED
	/*
	 * Samples carry no sample_id trailer and the kernel pads RAW inside its
	 * own size, so the fields fill the record exactly.  Bytes left over mean
	 * the records were written with another sample_type than the run says:
	 * decoding them would misread every field after the difference.
	 */
	if (at != r->size)
		return rec_bad(r, "%zu bytes left after the fields of sample_type 0x%llx", r->size - at,
			       (unsigned long long)st);

	if (have_id)
		stream = mf_mrun_stream_by_id(run, id);
	else
		stream = run->nstreams == 1 ? 0 : -1;
	if (stream < 0) {
		/* Not silent: the report shows unknown records. */
		run->unknown_records++;
		return 0;
	}
	s = &run->streams[stream];

	if (st & PERF_SAMPLE_TID && !(in->thread_known && in->last_pid == pid && in->last_tid == tid)) {
		if (!mf_mrun_thread(run, pid, tid, NULL))
			return no_memory(r);
		in->thread_known = true;
		in->last_pid = pid;
		in->last_tid = tid;
	}
	if (!(smp = mf_mrun_add_sample(run)))
		return no_memory(r);
	smp->pid = pid;
	smp->tid = tid;
	smp->time = time;
	smp->ip = ip;
	smp->addr = addr;
	smp->period = have_period ? period : s->period;
	smp->stream = (uint32_t)stream;
	smp->mod = MF_MOD_NONE;

	if ((r->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
		if (in->kernel_mod == MF_MOD_NONE)
			in->kernel_mod = mf_mrun_module(run, "[kernel.kallsyms]");
		if (in->kernel_mod == MF_MOD_NONE) {
			run->nsamples--;
			return no_memory(r);
		}
		smp->flags |= MF_MS_KERNEL;
		smp->mod = in->kernel_mod;
		smp->off = ip;
	} else {
		const struct amap *m = map_lookup(in, pid, ip);
		if (m) {
			smp->mod = m->mod;
			smp->off = ip - m->start + m->pgoff;
		} else {
			run->unmapped++;
		}
	}
	if (s->role == MF_ROLE_FAULT && (st & PERF_SAMPLE_ADDR) && addr >= ip && addr - ip < MAX_INSN_LEN) {
		/* §5: a fault on the bytes of the faulting instruction, in an executable map, is its fetch. */
		const struct amap *m = map_lookup(in, pid, addr);
		if (m && (m->prot & PROT_EXEC))
			smp->flags |= MF_MS_IFETCH;
	}
	if (hardware_type(s->type) && s->precise == 0)
		smp->flags |= MF_MS_SKID;
	if (chain) {
		size_t nu = 0;
		int urc = -1;
		if (in->unwind && abi != PERF_SAMPLE_REGS_ABI_NONE && ustack && dyn_size) {
			if ((urc = unwind_user(run, in, smp, abi, regs, ustack,
					       dyn_size < ustack_size ? dyn_size : ustack_size, &nu)) < 0)
				return no_memory(r);
		}
		if (sample_chain(run, in, smp, chain, nr, urc >= 0 ? in->ips : NULL, nu, urc == 1))
			return no_memory(r);
	}
	return 0;
}

static int decode(struct mf_mrun *run, struct ingest *in, const struct rec *r)
{
	int rc;
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: return decode_mmap(run, in, r);
	case PERF_RECORD_FORK: return decode_fork(run, in, r);
	case PERF_RECORD_COMM: return decode_comm(run, in, r);
	case PERF_RECORD_SAMPLE: return decode_sample(run, in, r);
	case PERF_RECORD_EXIT:
		/* pid, ppid, tid, ptid, time: the thread stays in the report. */
		return need(r, 8 + 16 + 8);
	case PERF_RECORD_LOST:
		if ((rc = need(r, 8 + 16)) == 0)
			run->lost += rd64(r->p + 16);
		return rc;
	case PERF_RECORD_LOST_SAMPLES:
		if ((rc = need(r, 8 + 8)) == 0)
			run->lost_samples += rd64(r->p + 8);
		return rc;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		/* time, id, stream_id */
		if ((rc = need(r, 8 + 24)) != 0)
			return rc;
		if (r->type == PERF_RECORD_THROTTLE)
			run->throttles++;
		else
			run->unthrottles++;
		return 0;
	default: run->unknown_records++; return 0;
	}
}

/* The run's ingest state, made on first use; NULL on ENOMEM. */
static struct ingest *ingest_state(struct mf_mrun *run)
{
	struct mf_mrun_decoder *rs = mf_mrun_decoder(run);
	struct ingest *in;
	if (!rs)
		return NULL;
	if (!rs->state) {
		if (!(in = calloc(1, sizeof(*in))))
			return NULL;
		in->kernel_mod = MF_MOD_NONE;
		rs->state = in;
		rs->free_state = ingest_free;
	}
	return rs->state;
}

int mf_mrun_ingest_regs(struct mf_mrun *run, uint64_t regs_mask)
{
	struct ingest *in = ingest_state(run);
	if (!in)
		return MF_ENOMEM;
	in->regs_mask = regs_mask;
	return 0;
}

int mf_mrun_ingest_unwind(struct mf_mrun *run, mf_unwind_fn fn, struct mf_unwind *u)
{
	struct ingest *in = ingest_state(run);
	if (!in)
		return MF_ENOMEM;
	in->unwind = fn;
	in->unwinder = u;
	return 0;
}

int mf_mrun_ingest(struct mf_mrun *run, const void *bytes, size_t n, const char *file, struct mf_error *err)
{
	const unsigned char *b = bytes;
	struct ingest *in = ingest_state(run);
	size_t pos = 0;
	int rc = 0;

	if (!in)
		return mf_error_set(err, MF_ENOMEM, file, 0, 0, "out of memory while decoding kernel records");
	if ((rc = check_sample_type(run->sample_type, file, err)) != 0)
		return rc;

	while (pos < n) {
		struct perf_event_header h;
		struct rec r = {.p = b + pos,
				.off = (long long)(in->offset + pos),
				.index = in->records,
				.file = file,
				.err = err};
		if (n - pos < sizeof(h)) {
			rc = mf_error_set(err, MF_EFORMAT, file, 0, 0,
					  "only %zu bytes left after the last record, less than a record header",
					  n - pos);
			if (err) {
				err->offset = r.off;
				err->record = r.index;
			}
			break;
		}
		memcpy(&h, b + pos, sizeof(h));
		r.type = h.type;
		r.misc = h.misc;
		r.size = h.size;
		if (h.size < sizeof(h)) {
			rc = rec_bad(&r, "size is smaller than the 8-byte record header");
			break;
		}
		if (h.size > n - pos) {
			rc = rec_bad(&r, "runs past the end of the data (%zu bytes left)", n - pos);
			break;
		}
		if ((rc = decode(run, in, &r)) != 0)
			break;
		pos += h.size;
		in->records++;
	}
	/* Offsets stay relative to the first byte ever given, whatever happened here. */
	in->offset += n;
	return rc;
}
