/* SPDX-License-Identifier: MIT */
/*
 * The run file of mfstat measure, .mfdb (caliper-measure.md §3 "Database").
 *
 * A 24-byte header, then sections, each 8-byte aligned:
 *
 *   header   "MFSTATDB", u32 0x01020304 (byte-order tag), u16 major 1, u16 minor 0,
 *            u64 total length (0 until the writer closes the file)
 *   section  u32 type, u32 flags (0), u64 payload length, u32 CRC-32 of the payload,
 *            u32 reserved (0), payload, zero padding to 8 bytes
 *
 * Every integer is in the writer's byte order; a reader that finds the tag
 * reversed swaps each integer it reads.  Payloads are sequences of
 * fixed-width fields: strings are a u32 length and the bytes (no NUL; length
 * 0xffffffff stands for NULL), doubles are their IEEE-754 bits in a u64,
 * booleans a u8.  RUN is one record; EVENT, COUNT, MODULE, SYMBOLS and SOURCE
 * are a list of elements, each a u32 byte length and its fields, so that a
 * later minor version can append fields (a reader skips what it does not
 * know) and a reader never needs a count to size an allocation.  RECORDS are
 * kernel records verbatim, whole records only, at most 1 MiB a section,
 * except that SAMPLE records lose their CALLCHAIN, REGS_USER and STACK_USER
 * fields (RUN gives the layout as stored, then as recorded): minor 1 stores
 * the chains resolved, STACKS a list of the distinct chains (u32 frames, then
 * per frame u32 module, u64 file offset, u8 MF_FR_* flags, leaf first) and
 * CHAINS a u32 count and per sample of the records, in their order, the u32
 * index of its stack or 0xffffffff.
 *
 * The loader checks everything against the bytes it has before it allocates
 * or reads: a length larger than what is left is an error, never a read or
 * an allocation.
 */
#include "mfstat/measure/mfdb.h"
#include "mfstat/measure/record.h"
#include "mfstat/measure/run.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define MFDB_MAGIC "MFSTATDB"
#define MFDB_TAG 0x01020304u
#define MFDB_TAG_SWAPPED 0x04030201u
#define MFDB_MAJOR 1
#define MFDB_MINOR 1
#define MFDB_HDR 24 /* file header bytes */
#define SEC_HDR 24  /* section header bytes */
#define RECORDS_MAX (1u << 20)
#define NSTR_NULL UINT32_MAX
#define IOBUF (1u << 20)

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define FUZZING 1
#else
#define FUZZING 0
#endif

enum {
	SEC_RUN = 1,
	SEC_PROBE = 2, /* reserved */
	SEC_EVENT = 3,
	SEC_COUNT = 4,
	SEC_RECORDS = 5,
	SEC_MODULE = 6,
	SEC_SYMBOLS = 7,
	SEC_SOURCE = 8,
	SEC_VDSO = 9, /* reserved */
	SEC_END = 10,
	SEC_STACKS = 11, /* minor 1: the distinct call chains */
	SEC_CHAINS = 12, /* minor 1: each sample's chain */
	SEC_NTYPES
};

static const char *const sec_names[SEC_NTYPES] = {"type 0",  "RUN",    "PROBE", "EVENT", "COUNT",  "RECORDS", "MODULE",
						  "SYMBOLS", "SOURCE", "VDSO",  "END",   "STACKS", "CHAINS"};

/* Sample fields the writer cuts out of SAMPLE records: chains are stored resolved (STACKS, CHAINS). */
#define CUT_SAMPLE_TYPE (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

static const char *sec_name(uint32_t type, char *buf, size_t n)
{
	if (type < SEC_NTYPES)
		return sec_names[type];
	snprintf(buf, n, "type %u", type);
	return buf;
}

/* ---- byte order --------------------------------------------------------- */

static void st16(unsigned char *b, uint16_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap16(v);
	memcpy(b, &v, 2);
}

static void st32(unsigned char *b, uint32_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap32(v);
	memcpy(b, &v, 4);
}

static void st64(unsigned char *b, uint64_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap64(v);
	memcpy(b, &v, 8);
}

static uint16_t ld16(const unsigned char *b, bool swap)
{
	uint16_t v;
	memcpy(&v, b, 2);
	return swap ? __builtin_bswap16(v) : v;
}

static uint32_t ld32(const unsigned char *b, bool swap)
{
	uint32_t v;
	memcpy(&v, b, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static uint64_t ld64(const unsigned char *b, bool swap)
{
	uint64_t v;
	memcpy(&v, b, 8);
	return swap ? __builtin_bswap64(v) : v;
}

/* ---- payload encoding (writer) ------------------------------------------ */

struct enc {
	unsigned char *p;
	size_t n, cap;
	bool swap;
	bool oom;
};

static void enc_bytes(struct enc *e, const void *src, size_t n)
{
	if (e->oom)
		return;
	if (e->cap - e->n < n) {
		size_t nc = e->cap ? e->cap : 4096;
		unsigned char *np;
		while (nc - e->n < n) {
			if (nc > SIZE_MAX / 2) {
				e->oom = true;
				return;
			}
			nc *= 2;
		}
		np = realloc(e->p, nc);
		if (!np) {
			e->oom = true;
			return;
		}
		e->p = np;
		e->cap = nc;
	}
	if (n)
		memcpy(e->p + e->n, src, n);
	e->n += n;
}

static void enc_u8(struct enc *e, uint8_t v)
{
	enc_bytes(e, &v, 1);
}

static void enc_u32(struct enc *e, uint32_t v)
{
	unsigned char b[4];
	st32(b, v, e->swap);
	enc_bytes(e, b, 4);
}

static void enc_u64(struct enc *e, uint64_t v)
{
	unsigned char b[8];
	st64(b, v, e->swap);
	enc_bytes(e, b, 8);
}

static void enc_i32(struct enc *e, int v)
{
	enc_u32(e, (uint32_t)v);
}

static void enc_f64(struct enc *e, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, 8);
	enc_u64(e, bits);
}

/* A string of at most max bytes (the size of a fixed array), or NULL. */
static void enc_strn(struct enc *e, const char *s, size_t max)
{
	size_t len;
	if (!s) {
		enc_u32(e, NSTR_NULL);
		return;
	}
	len = strnlen(s, max);
	if (len >= NSTR_NULL)
		len = NSTR_NULL - 1;
	enc_u32(e, (uint32_t)len);
	enc_bytes(e, s, len);
}

#define enc_fstr(e, arr) enc_strn((e), (arr), sizeof(arr))
#define enc_str(e, s) enc_strn((e), (s), SIZE_MAX)

/* Starts an element: a u32 length patched by enc_end. */
static size_t enc_begin(struct enc *e)
{
	size_t at = e->n;
	enc_u32(e, 0);
	return at;
}

static void enc_end(struct enc *e, size_t at)
{
	if (!e->oom)
		st32(e->p + at, (uint32_t)(e->n - at - 4), e->swap);
}

/* ---- writer ------------------------------------------------------------- */

struct mf_mfdb_writer {
	FILE *fp;
	char *path;
	char *iobuf;
	uint64_t pos;               /* bytes written: the offset of the next section */
	int failed;                 /* errno of the first write that failed (sticky), or 0 */
	struct enc pay;             /* the payload being built (reused) */
	uint64_t rec_st, regs_mask; /* layout of the SAMPLE records given (mf_mfdb_records_layout) */
	unsigned char *cut;         /* records with the CUT_SAMPLE_TYPE fields removed (reused) */
	size_t cutcap;
};

/* Test-only (not in the public header): write the other byte order from now on. */
int mf_mfdb_writer_swap_for_test(struct mf_mfdb_writer *w);

static int io_fail(struct mf_mfdb_writer *w, int errnum, struct mf_error *err)
{
	if (!w->failed)
		w->failed = errnum ? errnum : EIO;
	return mf_error_set(err, MF_EIO, w->path, 0, 0, "cannot write %s: %s", w->path, strerror(w->failed));
}

static int wr(struct mf_mfdb_writer *w, const void *p, size_t n, struct mf_error *err)
{
	if (w->failed)
		return io_fail(w, w->failed, err);
	errno = 0;
	if (n && fwrite(p, 1, n, w->fp) != n)
		return io_fail(w, errno, err);
	w->pos += n;
	return 0;
}

static void header_bytes(unsigned char *h, uint64_t length, bool swap)
{
	memcpy(h, MFDB_MAGIC, 8);
	st32(h + 8, MFDB_TAG, swap);
	st16(h + 12, MFDB_MAJOR, swap);
	st16(h + 14, MFDB_MINOR, swap);
	st64(h + 16, length, swap);
}

static int write_section(struct mf_mfdb_writer *w, uint32_t type, const void *pay, size_t len, struct mf_error *err)
{
	static const unsigned char zero[8];
	unsigned char h[SEC_HDR];
	bool swap = w->pay.swap;
	int rc;
	st32(h, type, swap);
	st32(h + 4, 0, swap);
	st64(h + 8, len, swap);
	st32(h + 16, (uint32_t)crc32_z(0, pay, len), swap);
	st32(h + 20, 0, swap);
	if ((rc = wr(w, h, sizeof(h), err)) || (rc = wr(w, pay, len, err)))
		return rc;
	return wr(w, zero, (8 - len % 8) % 8, err);
}

/* Writes the payload built in w->pay as a section of this type, and empties it. */
static int flush_payload(struct mf_mfdb_writer *w, uint32_t type, struct mf_error *err)
{
	int rc;
	if (w->pay.oom) {
		w->pay.oom = false;
		w->pay.n = 0;
		return mf_error_set(err, MF_ENOMEM, w->path, 0, 0, "out of memory while building the %s section",
				    sec_names[type]);
	}
	rc = write_section(w, type, w->pay.p, w->pay.n, err);
	w->pay.n = 0;
	return rc;
}

static void writer_free(struct mf_mfdb_writer *w)
{
	free(w->cut);
	free(w->pay.p);
	free(w->iobuf);
	free(w->path);
	free(w);
}

int mf_mfdb_create_fd(struct mf_mfdb_writer **out, int fd, const char *path, struct mf_error *err)
{
	struct mf_mfdb_writer *w;
	unsigned char h[MFDB_HDR];
	int rc;
	*out = NULL;
	if (!(w = calloc(1, sizeof(*w))) || !(w->path = strdup(path)) || !(w->iobuf = malloc(IOBUF))) {
		if (w)
			writer_free(w);
		close(fd);
		return mf_error_nomem(err, path, 0, "starting the run file");
	}
	if (!(w->fp = fdopen(fd, "wb"))) {
		rc = mf_error_set(err, MF_EIO, path, 0, 0, "cannot create %s: %s", path, strerror(errno));
		close(fd);
		writer_free(w);
		return rc;
	}
	/* Records arrive in small pieces while the program runs: write in large blocks. */
	setvbuf(w->fp, w->iobuf, _IOFBF, IOBUF);
	header_bytes(h, 0, false);
	if ((rc = wr(w, h, sizeof(h), err))) {
		mf_mfdb_abandon(w);
		return rc;
	}
	*out = w;
	return 0;
}

int mf_mfdb_create(struct mf_mfdb_writer **out, const char *path, struct mf_error *err)
{
	struct stat st;
	int fd;
	*out = NULL;
	/* Never through a symbolic link: one planted at path would make the run overwrite its target. */
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		int e = errno;
		if (e == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			return mf_error_set(err, MF_EIO, path, 0, 0,
					    "cannot create %s: it is a symbolic link (not followed)", path);
		return mf_error_set(err, MF_EIO, path, 0, 0, "cannot create %s: %s", path, strerror(e));
	}
	/* The run file holds the program's command line: the owner's alone, also when it existed. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077))
		(void)fchmod(fd, st.st_mode & 07700);
	return mf_mfdb_create_fd(out, fd, path, err);
}

int mf_mfdb_writer_swap_for_test(struct mf_mfdb_writer *w)
{
	unsigned char h[MFDB_HDR];
	if (w->pos != MFDB_HDR || fseek(w->fp, 0, SEEK_SET) != 0)
		return MF_EINVAL;
	w->pay.swap = true;
	header_bytes(h, 0, true);
	if (fwrite(h, 1, sizeof(h), w->fp) != sizeof(h))
		return MF_EIO;
	return 0;
}

/* Size of the whole kernel record at p (perf_event_header.size), given at least 8 bytes. */
static size_t record_size(const unsigned char *p)
{
	uint16_t size;
	memcpy(&size, p + 6, 2);
	return size;
}

void mf_mfdb_records_layout(struct mf_mfdb_writer *w, uint64_t sample_type, uint64_t regs_mask)
{
	w->rec_st = sample_type;
	w->regs_mask = regs_mask;
}

/*
 * Copies the SAMPLE record r (size bytes, w->rec_st's layout) to out without
 * its CALLCHAIN, REGS_USER and STACK_USER fields; returns the new size, or 0
 * when the fields do not fit the record (then it is stored as it is: decoding
 * it says what is wrong).
 */
static size_t cut_sample(const struct mf_mfdb_writer *w, const unsigned char *r, size_t size, unsigned char *out)
{
	uint64_t st = w->rec_st, v;
	size_t at = 8, o = 8, k;
	static const uint64_t before[] = {PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,   PERF_SAMPLE_TID,
					  PERF_SAMPLE_TIME,       PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
					  PERF_SAMPLE_STREAM_ID,  PERF_SAMPLE_CPU,  PERF_SAMPLE_PERIOD};
	struct perf_event_header h;
	if (st & (PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK))
		return 0;
	for (k = 0; k < sizeof(before) / sizeof(before[0]); k++)
		if (st & before[k])
			at += 8;
	if (at > size)
		return 0;
	memcpy(out, r, at);
	o = at;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (size - at < 8)
			return 0;
		memcpy(&v, r + at, 8);
		if (v > (size - at - 8) / 8)
			return 0;
		at += 8 + (size_t)v * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t raw;
		if (size - at < 4)
			return 0;
		memcpy(&raw, r + at, 4);
		if (raw > size - at - 4)
			return 0;
		memcpy(out + o, r + at, 4 + (size_t)raw);
		o += 4 + raw;
		at += 4 + raw;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		if (size - at < 8)
			return 0;
		memcpy(&v, r + at, 8);
		at += 8;
		if (v != PERF_SAMPLE_REGS_ABI_NONE) {
			size_t nr = (size_t)__builtin_popcountll(w->regs_mask) * 8;
			if (nr > size - at)
				return 0;
			at += nr;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		if (size - at < 8)
			return 0;
		memcpy(&v, r + at, 8);
		at += 8;
		if (v) {
			if (v > size - at || size - at - v < 8)
				return 0;
			at += (size_t)v + 8;
		}
	}
	memcpy(out + o, r + at, size - at);
	o += size - at;
	memcpy(&h, out, sizeof(h));
	h.size = (uint16_t)o;
	memcpy(out, &h, sizeof(h));
	return o;
}

/* bytes with every SAMPLE record cut (cut_sample) into w->cut; NULL on ENOMEM. */
static const unsigned char *cut_records(struct mf_mfdb_writer *w, const unsigned char *p, size_t *n)
{
	size_t at = 0, o = 0, size, got;
	if (w->cutcap < *n) {
		unsigned char *nb = realloc(w->cut, *n);
		if (!nb)
			return NULL;
		w->cut = nb;
		w->cutcap = *n;
	}
	while (at < *n) {
		struct perf_event_header h;
		if (*n - at < sizeof(h))
			break;
		memcpy(&h, p + at, sizeof(h));
		size = h.size;
		if (size < sizeof(h) || size > *n - at)
			break;
		got = h.type == PERF_RECORD_SAMPLE ? cut_sample(w, p + at, size, w->cut + o) : 0;
		if (!got) {
			memcpy(w->cut + o, p + at, size);
			got = size;
		}
		o += got;
		at += size;
	}
	/* A damaged tail goes on as it is: put_records says what is wrong with it. */
	memcpy(w->cut + o, p + at, *n - at);
	*n = o + (*n - at);
	return w->cut;
}

int mf_mfdb_put_records(struct mf_mfdb_writer *w, const void *bytes, size_t n, struct mf_error *err)
{
	const unsigned char *p = bytes;
	size_t start = 0, at = 0;
	int rc;
	if ((w->rec_st & CUT_SAMPLE_TYPE) && n && !(p = cut_records(w, p, &n)))
		return mf_error_nomem(err, w->path, 0, "saving %zu bytes of kernel records", n);
	/* Sections hold whole records, so a loader can pass each to mf_mrun_ingest on its own. */
	while (at < n) {
		size_t size;
		if (n - at < 8 || (size = record_size(p + at)) < 8 || size > n - at)
			return mf_error_set(err, MF_EINVAL, w->path, 0, 0,
					    "kernel records to save: the record at byte %zu of %zu is cut short or has "
					    "a bad size",
					    at, n);
		if (at + size - start > RECORDS_MAX) {
			if ((rc = write_section(w, SEC_RECORDS, p + start, at - start, err)))
				return rc;
			start = at;
		}
		at += size;
	}
	if (at > start)
		return write_section(w, SEC_RECORDS, p + start, at - start, err);
	return 0;
}

int mf_mfdb_put_run(struct mf_mfdb_writer *w, const struct mf_mrun *run, struct mf_error *err)
{
	struct enc *e = &w->pay;
	size_t i, at;
	int rc;

	/* RUN: every setting of the run; what ingesting the records recomputes is not stored. */
	enc_fstr(e, run->measurement);
	enc_u32(e, run->argc > 0 ? (uint32_t)run->argc : 0);
	for (i = 0; run->argc > 0 && i < (size_t)run->argc; i++)
		enc_str(e, run->argv ? run->argv[i] : NULL);
	enc_i32(e, run->pid);
	enc_i32(e, run->wait_status);
	enc_u64(e, (uint64_t)run->start_us);
	enc_f64(e, run->wall_s);
	enc_f64(e, run->user_s);
	enc_f64(e, run->sys_s);
	enc_fstr(e, run->host);
	enc_fstr(e, run->arch);
	enc_fstr(e, run->cpu_model);
	enc_fstr(e, run->kernel);
	enc_i32(e, run->ncpus);
	enc_i32(e, run->vm);
	enc_fstr(e, run->spec_requested);
	enc_fstr(e, run->spec_used);
	enc_fstr(e, run->privilege);
	enc_u64(e, run->variation);
	enc_u64(e, run->seed);
	enc_u32(e, run->line_size);
	enc_fstr(e, run->line_size_source);
	enc_i32(e, run->rung);
	enc_u8(e, run->user_only_forced);
	enc_fstr(e, run->mode);
	enc_fstr(e, run->attribution);
	enc_fstr(e, run->database);
	/* The layout of the records as stored: the chains' fields are cut out of them. */
	enc_u64(e, run->sample_type & ~(w->rec_st & CUT_SAMPLE_TYPE));
	enc_u8(e, run->sample_id_all);
	enc_u32(e, (uint32_t)run->nwarnings);
	for (i = 0; i < run->nwarnings; i++)
		enc_str(e, run->warnings[i]);
	/* Minor 1: the layout as recorded, and how chains were taken. */
	enc_u64(e, run->sample_type);
	enc_fstr(e, run->call_graph);
	enc_u32(e, run->stack_size);
	enc_u32(e, run->max_stack);
	enc_u64(e, run->unwind_failed);
	if ((rc = flush_payload(w, SEC_RUN, err)))
		return rc;

	for (i = 0; i < run->nstreams; i++) {
		const struct mf_mstream *s = &run->streams[i];
		at = enc_begin(e);
		enc_fstr(e, s->name);
		enc_i32(e, s->role);
		enc_u32(e, s->type);
		enc_u64(e, s->config);
		enc_u64(e, s->config1);
		enc_i32(e, s->precise);
		enc_u64(e, s->period);
		enc_u8(e, s->clock);
		enc_u64(e, s->id);
		enc_end(e, at);
	}
	if ((rc = flush_payload(w, SEC_EVENT, err)))
		return rc;

	for (i = 0; i < run->ncounts; i++) {
		const struct mf_mcount *c = &run->counts[i];
		at = enc_begin(e);
		enc_fstr(e, c->name);
		enc_fstr(e, c->unit);
		enc_u64(e, c->value);
		enc_u64(e, c->enabled);
		enc_u64(e, c->running);
		enc_i32(e, c->status);
		enc_fstr(e, c->why);
		enc_end(e, at);
	}
	return flush_payload(w, SEC_COUNT, err);
}

int mf_mfdb_put_symbols(struct mf_mfdb_writer *w, const struct mf_mrun *run, struct mf_error *err)
{
	struct enc *e = &w->pay;
	size_t i, at;
	uint32_t k;
	int rc;

	/* Modules in index order: the loader maps stored indices to its own. */
	for (i = 0; i < run->nmods; i++) {
		const struct mf_mmod *m = &run->mods[i];
		uint32_t bl = m->build_id_len < sizeof(m->build_id) ? m->build_id_len : sizeof(m->build_id);
		uint32_t nl = m->nloads < MF_MOD_MAX_LOADS ? m->nloads : MF_MOD_MAX_LOADS;
		at = enc_begin(e);
		enc_str(e, m->path ? m->path : "");
		enc_u32(e, bl);
		enc_bytes(e, m->build_id, bl);
		enc_u32(e, m->flags);
		enc_str(e, m->note);
		enc_u32(e, nl);
		for (k = 0; k < nl; k++) {
			enc_u64(e, m->loads[k].offset);
			enc_u64(e, m->loads[k].vaddr);
			enc_u64(e, m->loads[k].filesz);
		}
		enc_end(e, at);
	}
	if ((rc = flush_payload(w, SEC_MODULE, err)))
		return rc;

	for (i = 0; i < run->nsyms; i++) {
		const struct mf_msym *s = &run->syms[i];
		at = enc_begin(e);
		enc_u32(e, s->mod);
		enc_u64(e, s->addr);
		enc_str(e, s->func);
		enc_u64(e, s->func_start);
		enc_u64(e, s->func_size);
		enc_str(e, s->file);
		enc_u32(e, s->line);
		enc_u32(e, s->flags);
		enc_end(e, at);
	}
	if ((rc = flush_payload(w, SEC_SYMBOLS, err)))
		return rc;

	for (i = 0; i < run->nsrc; i++) {
		const struct mf_msrc *s = &run->src[i];
		at = enc_begin(e);
		enc_u32(e, s->mod);
		enc_u64(e, s->addr);
		enc_str(e, s->file);
		enc_u32(e, s->line);
		enc_u32(e, s->flags);
		enc_end(e, at);
	}
	if ((rc = flush_payload(w, SEC_SOURCE, err)))
		return rc;
	if (!run->nstacks)
		return 0;

	/* STACKS: each distinct chain, leaf first; CHAINS: each sample's, in record order. */
	for (i = 0; i < run->nstacks; i++) {
		const struct mf_mstack *st = &run->stacks[i];
		at = enc_begin(e);
		enc_u32(e, st->n);
		for (k = 0; k < st->n; k++) {
			const struct mf_mframe *f = &run->frames[st->first + k];
			enc_u32(e, f->mod);
			enc_u64(e, f->off);
			enc_u8(e, (uint8_t)f->flags);
		}
		enc_end(e, at);
	}
	if ((rc = flush_payload(w, SEC_STACKS, err)))
		return rc;
	enc_u32(e, (uint32_t)run->nsamples);
	for (i = 0; i < run->nsamples; i++)
		enc_u32(e, run->samples[i].stack);
	return flush_payload(w, SEC_CHAINS, err);
}

int mf_mfdb_close(struct mf_mfdb_writer *w, struct mf_error *err)
{
	unsigned char len[8];
	int rc;
	if (!w)
		return mf_error_set(err, MF_EINVAL, "", 0, 0, "no run file to close");
	/* After a failed write the file stays unfinished: no END, length 0. */
	if ((rc = write_section(w, SEC_END, NULL, 0, err)))
		goto out;
	st64(len, w->pos, w->pay.swap);
	errno = 0;
	if (fflush(w->fp) != 0 || fseek(w->fp, 16, SEEK_SET) != 0 || fwrite(len, 1, 8, w->fp) != 8 ||
	    fflush(w->fp) != 0) {
		rc = io_fail(w, errno, err);
		goto out;
	}
out:
	errno = 0;
	if (fclose(w->fp) != 0 && !rc)
		rc = io_fail(w, errno, err);
	writer_free(w);
	return rc;
}

void mf_mfdb_abandon(struct mf_mfdb_writer *w)
{
	if (!w)
		return;
	fclose(w->fp);
	writer_free(w);
}

/* ---- payload decoding (loader) ------------------------------------------ */

struct dec {
	const unsigned char *p;
	size_t n, i;
	uint64_t base; /* file offset of p[0], for messages */
	bool swap;
	bool bad; /* a read went past the end: sticky */
};

static const unsigned char *dec_take(struct dec *d, size_t k)
{
	const unsigned char *r;
	if (d->bad || d->n - d->i < k) {
		d->bad = true;
		return NULL;
	}
	r = d->p + d->i;
	d->i += k;
	return r;
}

static uint8_t dec_u8(struct dec *d)
{
	const unsigned char *b = dec_take(d, 1);
	return b ? b[0] : 0;
}

static uint32_t dec_u32(struct dec *d)
{
	const unsigned char *b = dec_take(d, 4);
	return b ? ld32(b, d->swap) : 0;
}

static uint64_t dec_u64(struct dec *d)
{
	const unsigned char *b = dec_take(d, 8);
	return b ? ld64(b, d->swap) : 0;
}

static int dec_i32(struct dec *d)
{
	return (int)dec_u32(d);
}

static double dec_f64(struct dec *d)
{
	uint64_t bits = dec_u64(d);
	double v;
	memcpy(&v, &bits, 8);
	return v;
}

static size_t dec_left(const struct dec *d)
{
	return d->bad ? 0 : d->n - d->i;
}

/* A string into a fixed array: cut to fit (a newer writer may allow longer ones). */
static void dec_fstr(struct dec *d, char *dst, size_t cap)
{
	uint32_t len = dec_u32(d);
	const unsigned char *b;
	size_t k;
	dst[0] = '\0';
	if (len == NSTR_NULL || !(b = dec_take(d, len)))
		return;
	k = len < cap - 1 ? len : cap - 1;
	memcpy(dst, b, k);
	dst[k] = '\0';
}

/*
 * A string as a malloc'd copy in *out (NULL for a stored NULL).  Returns 0,
 * or MF_ENOMEM; a string running past the payload sets d->bad (the length is
 * checked before anything is allocated).
 */
static int dec_dup(struct dec *d, char **out)
{
	uint32_t len = dec_u32(d);
	const unsigned char *b;
	*out = NULL;
	if (len == NSTR_NULL || !(b = dec_take(d, len)))
		return 0;
	if (!(*out = malloc((size_t)len + 1)))
		return MF_ENOMEM;
	memcpy(*out, b, len);
	(*out)[len] = '\0';
	return 0;
}

/* A string interned in the run (NULL for a stored NULL). */
static int dec_istr(struct dec *d, struct mf_mrun *run, const char **out)
{
	char small[256], *s = small;
	const unsigned char *b;
	uint32_t len = dec_u32(d);
	*out = NULL;
	if (len == NSTR_NULL || !(b = dec_take(d, len)))
		return 0;
	/* Symbol and file names are short: no allocation for the copy that gets its NUL. */
	if (len >= sizeof(small) && !(s = malloc((size_t)len + 1)))
		return MF_ENOMEM;
	memcpy(s, b, len);
	s[len] = '\0';
	*out = mf_mrun_str(run, s);
	if (s != small)
		free(s);
	return *out ? 0 : MF_ENOMEM;
}

/* ---- loader ------------------------------------------------------------- */

struct sec {
	uint32_t type;
	uint64_t off; /* file offset of the section header */
	const unsigned char *pay;
	uint64_t len;
};

struct loader {
	const unsigned char *data;
	size_t n;
	const char *name;
	struct mf_mrun *run;
	struct mf_error *err;
	bool swap;
	bool have[SEC_NTYPES];
	struct sec one[SEC_NTYPES]; /* the single sections (every type but RECORDS) */
	struct sec *recs;
	size_t nrecs, caprecs;
	uint32_t *modmap; /* stored module index -> the run's */
	size_t nmodmap;
	bool decoded;    /* the records were decoded (this byte order, with a RUN section) */
	uint32_t *stmap; /* stored stack index -> the run's */
	size_t nstmap;
};

static int lerr(struct loader *L, int code, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int lerr(struct loader *L, int code, uint64_t off, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	mf_error_set(L->err, code, L->name, 0, 0, "%s", msg);
	if (L->err)
		L->err->offset = (long long)off;
	return code;
}

static int oom(struct loader *L)
{
	return lerr(L, MF_ENOMEM, 0, "out of memory while loading the run file");
}

static struct dec sec_dec(const struct loader *L, const struct sec *s)
{
	struct dec d = {.p = s->pay, .n = (size_t)s->len, .base = s->off + SEC_HDR, .swap = L->swap};
	return d;
}

/* The error for a payload that ends inside a field. */
static int truncated(struct loader *L, const struct sec *s, const struct dec *d, const char *what)
{
	return lerr(L, MF_EFORMAT, d->base + d->i, "section %s at offset 0x%llx: %s is cut short (payload byte %zu)",
		    sec_names[s->type], (unsigned long long)s->off, what, (size_t)(d->base + d->i - s->off - SEC_HDR));
}

/*
 * The next length-prefixed element of a list payload into el: 1, 0 at the
 * end of the payload, or MF_EFORMAT for a length past the payload.
 */
static int next_elem(struct loader *L, const struct sec *s, struct dec *d, struct dec *el)
{
	uint64_t at = d->base + d->i;
	uint32_t len;
	if (d->i == d->n)
		return 0;
	len = dec_u32(d);
	if (d->bad || len > dec_left(d))
		return lerr(L, MF_EFORMAT, at,
			    "section %s at offset 0x%llx: the element at payload byte %llu runs past the payload",
			    sec_names[s->type], (unsigned long long)s->off,
			    (unsigned long long)(at - s->off - SEC_HDR));
	*el = (struct dec){.p = d->p + d->i, .n = len, .base = d->base + d->i, .swap = d->swap};
	d->i += len;
	return 1;
}

static int load_run(struct loader *L, const struct sec *s)
{
	struct mf_mrun *run = L->run;
	struct dec d = sec_dec(L, s);
	uint32_t argc, nw, i;
	char **argv, **nwarn;
	int rc = 0;

	dec_fstr(&d, run->measurement, sizeof(run->measurement));
	argc = dec_u32(&d);
	/* Each argument takes at least its 4-byte length: bound the array by the bytes left. */
	if (d.bad || argc > dec_left(&d) / 4 || argc > INT32_MAX - 1)
		return truncated(L, s, &d, "argv");
	if (!(argv = calloc((size_t)argc + 1, sizeof(*argv))))
		return oom(L);
	for (i = 0; i < argc && !rc; i++) {
		rc = dec_dup(&d, &argv[i]);
		if (!rc && !argv[i] && !(argv[i] = strdup("")))
			rc = MF_ENOMEM;
	}
	for (i = 0; i < (uint32_t)(run->argc > 0 ? run->argc : 0); i++)
		free(run->argv[i]);
	free(run->argv);
	run->argv = argv;
	run->argc = (int)argc;
	if (rc) {
		/* Keep the model consistent: only the arguments read belong to argc. */
		for (i = 0; i < argc && argv[i]; i++)
			;
		run->argc = (int)i;
		return oom(L);
	}
	run->pid = dec_i32(&d);
	run->wait_status = dec_i32(&d);
	run->start_us = (int64_t)dec_u64(&d);
	run->wall_s = dec_f64(&d);
	run->user_s = dec_f64(&d);
	run->sys_s = dec_f64(&d);
	dec_fstr(&d, run->host, sizeof(run->host));
	dec_fstr(&d, run->arch, sizeof(run->arch));
	dec_fstr(&d, run->cpu_model, sizeof(run->cpu_model));
	dec_fstr(&d, run->kernel, sizeof(run->kernel));
	run->ncpus = dec_i32(&d);
	run->vm = dec_i32(&d);
	dec_fstr(&d, run->spec_requested, sizeof(run->spec_requested));
	dec_fstr(&d, run->spec_used, sizeof(run->spec_used));
	dec_fstr(&d, run->privilege, sizeof(run->privilege));
	run->variation = dec_u64(&d);
	run->seed = dec_u64(&d);
	run->line_size = dec_u32(&d);
	dec_fstr(&d, run->line_size_source, sizeof(run->line_size_source));
	run->rung = dec_i32(&d);
	run->user_only_forced = dec_u8(&d) != 0;
	dec_fstr(&d, run->mode, sizeof(run->mode));
	dec_fstr(&d, run->attribution, sizeof(run->attribution));
	dec_fstr(&d, run->database, sizeof(run->database));
	run->sample_type = dec_u64(&d);
	run->sample_id_all = dec_u8(&d) != 0;
	nw = dec_u32(&d);
	if (d.bad || nw > dec_left(&d) / 4)
		return truncated(L, s, &d, "the run's settings");
	if (!(nwarn = realloc(run->warnings, (run->nwarnings + nw + 1) * sizeof(*nwarn))))
		return oom(L);
	run->warnings = nwarn;
	for (i = 0; i < nw; i++) {
		char *w;
		if (dec_dup(&d, &w))
			return oom(L);
		if (d.bad)
			return truncated(L, s, &d, "warnings");
		if (!w && !(w = strdup("")))
			return oom(L);
		run->warnings[run->nwarnings++] = w;
	}
	/* Minor 1: the recorded layout (the records are stored without the chains' fields), how chains were taken. */
	if (dec_left(&d) > 0) {
		(void)dec_u64(&d);
		dec_fstr(&d, run->call_graph, sizeof(run->call_graph));
		run->stack_size = dec_u32(&d);
		run->max_stack = dec_u32(&d);
		run->unwind_failed = dec_u64(&d);
		if (d.bad)
			return truncated(L, s, &d, "the run's call-chain settings");
	}
	/* Anything after is from a newer minor version: skipped. */
	return 0;
}

static int load_events(struct loader *L, const struct sec *s)
{
	struct dec d = sec_dec(L, s), el;
	int rc;
	while ((rc = next_elem(L, s, &d, &el)) > 0) {
		struct mf_mstream *m = mf_mrun_add_stream(L->run);
		if (!m)
			return oom(L);
		dec_fstr(&el, m->name, sizeof(m->name));
		m->role = dec_i32(&el);
		m->type = dec_u32(&el);
		m->config = dec_u64(&el);
		m->config1 = dec_u64(&el);
		m->precise = dec_i32(&el);
		m->period = dec_u64(&el);
		m->clock = dec_u8(&el) != 0;
		m->id = dec_u64(&el);
		if (el.bad)
			return truncated(L, s, &el, "an event stream");
	}
	return rc;
}

static int load_counts(struct loader *L, const struct sec *s)
{
	struct dec d = sec_dec(L, s), el;
	int rc;
	while ((rc = next_elem(L, s, &d, &el)) > 0) {
		struct mf_mcount *c = mf_mrun_add_count(L->run);
		if (!c)
			return oom(L);
		dec_fstr(&el, c->name, sizeof(c->name));
		dec_fstr(&el, c->unit, sizeof(c->unit));
		c->value = dec_u64(&el);
		c->enabled = dec_u64(&el);
		c->running = dec_u64(&el);
		c->status = dec_i32(&el);
		dec_fstr(&el, c->why, sizeof(c->why));
		if (el.bad)
			return truncated(L, s, &el, "a count");
	}
	return rc;
}

/*
 * The records of every RECORDS section, in file order, through
 * mf_mrun_ingest.  Each section holds whole records (the writer splits on
 * record boundaries), so passing them one by one decodes the same stream as
 * their concatenation, without a copy.
 */
static int load_records(struct loader *L)
{
	uint64_t base = 0, total = 0;
	size_t i;
	int rc;
	for (i = 0; i < L->nrecs; i++)
		total += L->recs[i].len;
	if (!total) {
		L->decoded = !L->swap && L->have[SEC_RUN]; /* no samples: CHAINS must say so */
		return 0;
	}
	if (L->swap) {
		mf_mrun_warn(L->run,
			     "the run file was written on a host of the other byte order: its %llu bytes of kernel "
			     "records were not decoded (no samples, threads or mappings)",
			     (unsigned long long)total);
		return 0;
	}
	if (!L->have[SEC_RUN]) {
		/* Without the sample layout the records cannot be decoded. */
		mf_mrun_warn(L->run,
			     "the run file has no RUN section: its %llu bytes of kernel records were not decoded",
			     (unsigned long long)total);
		return 0;
	}
	for (i = 0; i < L->nrecs; i++) {
		const struct sec *s = &L->recs[i];
		if (!s->len)
			continue;
		rc = mf_mrun_ingest(L->run, s->pay, (size_t)s->len, L->name, L->err);
		if (rc == MF_EINVAL) {
			/* A sample layout the decoder does not know: the RUN section's, so the file's fault. */
			const struct sec *r = &L->one[SEC_RUN];
			char msg[sizeof(L->err->msg)] = "";
			if (L->err)
				snprintf(msg, sizeof(msg), "%s", L->err->msg);
			return lerr(L, MF_EFORMAT, r->off, "section RUN at offset 0x%llx: %.440s",
				    (unsigned long long)r->off, msg);
		}
		if (rc < 0) {
			struct mf_error *e = L->err;
			/* The ingest offset counts from the first record byte: make it a file offset. */
			if (e && e->offset >= 0 && (uint64_t)e->offset >= base &&
			    (uint64_t)e->offset - base <= s->len) {
				char msg[sizeof(e->msg)];
				uint64_t off = s->off + SEC_HDR + ((uint64_t)e->offset - base);
				snprintf(msg, sizeof(msg), "%s", e->msg);
				snprintf(e->msg, sizeof(e->msg), "section RECORDS at offset 0x%llx: %.440s",
					 (unsigned long long)s->off, msg);
				e->offset = (long long)off;
			}
			if (e)
				snprintf(e->file, sizeof(e->file), "%s", L->name);
			return rc;
		}
		base += s->len;
	}
	L->decoded = true;
	return 0;
}

static int load_modules(struct loader *L, const struct sec *s)
{
	struct dec d = sec_dec(L, s), el;
	int rc;
	while ((rc = next_elem(L, s, &d, &el)) > 0) {
		struct mf_mmod *m;
		char *path, *note;
		uint32_t idx, bl, nl, k, *nm;
		const unsigned char *bid;
		if (dec_dup(&el, &path))
			return oom(L);
		bl = dec_u32(&el);
		if (el.bad || bl > sizeof(m->build_id)) {
			free(path);
			return el.bad ? truncated(L, s, &el, "a module")
				      : lerr(L, MF_EFORMAT, el.base,
					     "section MODULE at offset 0x%llx: build id of %u bytes (at most 20)",
					     (unsigned long long)s->off, bl);
		}
		bid = dec_take(&el, bl);
		/*
		 * The records made the modules they map in encounter order, the
		 * same order the writer's run had; match by path, add the rest.
		 */
		idx = el.bad ? MF_MOD_NONE : mf_mrun_module(L->run, path ? path : "");
		free(path);
		if (el.bad)
			return truncated(L, s, &el, "a module");
		if (idx == MF_MOD_NONE)
			return oom(L);
		m = &L->run->mods[idx];
		if (bl) {
			memcpy(m->build_id, bid, bl);
			m->build_id_len = (uint8_t)bl;
		}
		m->flags = dec_u32(&el);
		if (dec_dup(&el, &note))
			return oom(L);
		if (note) {
			m->note = mf_mrun_str(L->run, note);
			free(note);
			if (!m->note)
				return oom(L);
		}
		nl = dec_u32(&el);
		if (!el.bad && nl > MF_MOD_MAX_LOADS)
			return lerr(L, MF_EFORMAT, el.base,
				    "section MODULE at offset 0x%llx: %u load segments (at most %d)",
				    (unsigned long long)s->off, nl, MF_MOD_MAX_LOADS);
		for (k = 0; k < nl && !el.bad; k++) {
			m->loads[k].offset = dec_u64(&el);
			m->loads[k].vaddr = dec_u64(&el);
			m->loads[k].filesz = dec_u64(&el);
		}
		if (el.bad)
			return truncated(L, s, &el, "a module");
		m->nloads = nl;
		if (!(nm = realloc(L->modmap, (L->nmodmap + 1) * sizeof(*nm))))
			return oom(L);
		L->modmap = nm;
		L->modmap[L->nmodmap++] = idx;
	}
	return rc;
}

/* The run's index of a stored module index. */
static int map_mod(struct loader *L, const struct sec *s, const struct dec *el, uint32_t *mod)
{
	if (*mod == MF_MOD_NONE)
		return 0;
	if (*mod >= L->nmodmap)
		return lerr(L, MF_EFORMAT, el->base,
			    "section %s at offset 0x%llx: module %u does not exist (the MODULE section has %zu)",
			    sec_names[s->type], (unsigned long long)s->off, *mod, L->nmodmap);
	*mod = L->modmap[*mod];
	return 0;
}

static int load_syms(struct loader *L, const struct sec *s)
{
	struct dec d = sec_dec(L, s), el;
	int rc;
	while ((rc = next_elem(L, s, &d, &el)) > 0) {
		struct mf_msym *y = mf_mrun_add_sym(L->run);
		if (!y)
			return oom(L);
		y->mod = dec_u32(&el);
		y->addr = dec_u64(&el);
		if (dec_istr(&el, L->run, &y->func))
			return oom(L);
		y->func_start = dec_u64(&el);
		y->func_size = dec_u64(&el);
		if (dec_istr(&el, L->run, &y->file))
			return oom(L);
		y->line = dec_u32(&el);
		y->flags = dec_u32(&el);
		if (el.bad)
			return truncated(L, s, &el, "a symbol");
		if ((rc = map_mod(L, s, &el, &y->mod)))
			return rc;
	}
	return rc;
}

static int load_src(struct loader *L, const struct sec *s)
{
	struct dec d = sec_dec(L, s), el;
	int rc;
	while ((rc = next_elem(L, s, &d, &el)) > 0) {
		struct mf_msrc *r = mf_mrun_add_src(L->run);
		if (!r)
			return oom(L);
		r->mod = dec_u32(&el);
		r->addr = dec_u64(&el);
		if (dec_istr(&el, L->run, &r->file))
			return oom(L);
		r->line = dec_u32(&el);
		r->flags = dec_u32(&el);
		if (el.bad)
			return truncated(L, s, &el, "a source row");
		if ((rc = map_mod(L, s, &el, &r->mod)))
			return rc;
	}
	return rc;
}

/* STACKS: the distinct chains, frames' modules mapped like the symbols'. */
static int load_stacks(struct loader *L, const struct sec *s)
{
	struct dec d = sec_dec(L, s), el;
	struct mf_mframe *fr = NULL;
	size_t cap = 0;
	int rc;
	while ((rc = next_elem(L, s, &d, &el)) > 0) {
		uint32_t n = dec_u32(&el), k, *nm;
		/* Each frame takes 13 bytes: bound the count by the element before allocating. */
		if (el.bad || n == 0 || n > dec_left(&el) / 13) {
			rc = el.bad ? truncated(L, s, &el, "a stack")
				    : lerr(L, MF_EFORMAT, el.base,
					   "section STACKS at offset 0x%llx: a stack of %u frames in an element of %zu "
					   "bytes",
					   (unsigned long long)s->off, n, el.n);
			break;
		}
		if (n > cap) {
			struct mf_mframe *nf = realloc(fr, (size_t)n * sizeof(*fr));
			if (!nf) {
				rc = oom(L);
				break;
			}
			fr = nf;
			cap = n;
		}
		for (k = 0; k < n; k++) {
			memset(&fr[k], 0, sizeof(fr[k]));
			fr[k].mod = dec_u32(&el);
			fr[k].off = dec_u64(&el);
			fr[k].flags = dec_u8(&el);
			if ((rc = map_mod(L, s, &el, &fr[k].mod)))
				break;
		}
		if (rc)
			break;
		/* Grown by doubling: at 0, 16, 32, 64, ... stacks. */
		if (L->nstmap % 16 == 0 && (L->nstmap < 16 || (L->nstmap & (L->nstmap - 1)) == 0)) {
			size_t nc = L->nstmap < 16 ? 16 : L->nstmap * 2;
			if (!(nm = realloc(L->stmap, nc * sizeof(*nm)))) {
				rc = oom(L);
				break;
			}
			L->stmap = nm;
		}
		if ((L->stmap[L->nstmap++] = mf_mrun_add_stack(L->run, fr, n)) == MF_STACK_NONE) {
			rc = oom(L);
			break;
		}
	}
	free(fr);
	return rc;
}

/* CHAINS: a u32 count, one per sample of the records, then each sample's stored stack index (or UINT32_MAX). */
static int load_chains(struct loader *L, const struct sec *s)
{
	struct dec d = sec_dec(L, s);
	uint32_t n = dec_u32(&d), i;
	if (d.bad || n > dec_left(&d) / 4)
		return truncated(L, s, &d, "the chains");
	/* Records not decoded (the other byte order): no samples to give chains to. */
	if (!L->decoded)
		return 0;
	if (n != L->run->nsamples)
		return lerr(L, MF_EFORMAT, s->off,
			    "section CHAINS at offset 0x%llx: %u chains for the %zu samples of the records",
			    (unsigned long long)s->off, n, L->run->nsamples);
	for (i = 0; i < n; i++) {
		uint64_t at = d.base + d.i;
		uint32_t k = dec_u32(&d);
		if (k != MF_STACK_NONE && k >= L->nstmap)
			return lerr(L, MF_EFORMAT, at,
				    "section CHAINS at offset 0x%llx: sample %u has stack %u (the STACKS section has "
				    "%zu)",
				    (unsigned long long)s->off, i, k, L->nstmap);
		L->run->samples[i].stack = k == MF_STACK_NONE ? MF_STACK_NONE : L->stmap[k];
	}
	return 0;
}

static int add_section(struct loader *L, const struct sec *s)
{
	if (s->type == SEC_RECORDS) {
		if (L->nrecs == L->caprecs) {
			size_t nc = L->caprecs ? L->caprecs * 2 : 16;
			struct sec *nr = realloc(L->recs, nc * sizeof(*nr));
			if (!nr)
				return oom(L);
			L->recs = nr;
			L->caprecs = nc;
		}
		L->recs[L->nrecs++] = *s;
		return 0;
	}
	if (s->type == 0 || s->type >= SEC_NTYPES || s->type == SEC_PROBE || s->type == SEC_VDSO)
		return 0; /* reserved or from a newer writer: skipped (forward compatibility, §3) */
	if (L->have[s->type])
		return lerr(L, MF_EFORMAT, s->off,
			    "section %s at offset 0x%llx: a second %s section (the first is at 0x%llx)",
			    sec_names[s->type], (unsigned long long)s->off, sec_names[s->type],
			    (unsigned long long)L->one[s->type].off);
	L->have[s->type] = true;
	L->one[s->type] = *s;
	return 0;
}

static int load(struct loader *L)
{
	const unsigned char *b = L->data;
	size_t n = L->n;
	uint64_t length, pos, limit, stop;
	uint32_t tag;
	uint16_t major;
	bool finished, got_end = false, cut = false;
	char cutmsg[160] = "";
	int rc;

	/* The header (§3). */
	if (n < 8 || memcmp(b, MFDB_MAGIC, 8) != 0)
		return lerr(L, MF_EFORMAT, 0, "not an mfstat run file");
	if (n < MFDB_HDR) {
		L->run->incomplete = true;
		return lerr(L, MF_EFORMAT, n,
			    "run file is incomplete (the header is cut short at %zu bytes): the run "
			    "did not finish",
			    n);
	}
	tag = ld32(b + 8, false);
	if (tag == MFDB_TAG)
		L->swap = false;
	else if (tag == MFDB_TAG_SWAPPED)
		L->swap = true;
	else
		return lerr(L, MF_EFORMAT, 8, "not an mfstat run file (byte-order tag 0x%08x)", tag);
	major = ld16(b + 12, L->swap);
	if (major != MFDB_MAJOR)
		return lerr(L, MF_EFORMAT, 12, "run file version %u.x; this mfstat reads %d.x", major, MFDB_MAJOR);
	length = ld64(b + 16, L->swap);

	/*
	 * A finished file (length set and present) must be whole: a section
	 * running past its end is damage.  In an unfinished one (length 0:
	 * the writer stopped; or longer than the file: it was cut) the last
	 * section may be partial: it is ignored, the rest loads.
	 */
	finished = length != 0 && length <= n;
	limit = finished ? length : n;
	pos = MFDB_HDR;
	while (pos < limit) {
		struct sec s;
		uint32_t crc;
		char tbuf[24];
		if (limit - pos < SEC_HDR) {
			if (finished)
				return lerr(L, MF_EFORMAT, pos,
					    "section at offset 0x%llx: the header runs past the end of "
					    "the file (%llu bytes)",
					    (unsigned long long)pos, (unsigned long long)limit);
			cut = true;
			snprintf(cutmsg, sizeof(cutmsg), "; the section header at offset 0x%llx is cut short (ignored)",
				 (unsigned long long)pos);
			break;
		}
		s.type = ld32(b + pos, L->swap);
		s.len = ld64(b + pos + 8, L->swap);
		crc = ld32(b + pos + 16, L->swap);
		s.off = pos;
		if (s.len > limit - pos - SEC_HDR) {
			if (finished)
				return lerr(L, MF_EFORMAT, pos,
					    "section %s at offset 0x%llx: its %llu bytes run past the end of the file "
					    "(%llu bytes)",
					    sec_name(s.type, tbuf, sizeof(tbuf)), (unsigned long long)pos,
					    (unsigned long long)s.len, (unsigned long long)limit);
			cut = true;
			snprintf(cutmsg, sizeof(cutmsg), "; the %s section at offset 0x%llx is cut short (ignored)",
				 sec_name(s.type, tbuf, sizeof(tbuf)), (unsigned long long)pos);
			break;
		}
		s.pay = b + pos + SEC_HDR;
		/* Fuzzing builds let damaged payloads through, to reach the decoders behind the CRC. */
		if ((uint32_t)crc32_z(0, s.pay, (size_t)s.len) != crc && !FUZZING)
			return lerr(L, MF_EFORMAT, pos, "section %s at offset 0x%llx: CRC mismatch",
				    sec_name(s.type, tbuf, sizeof(tbuf)), (unsigned long long)pos);
		/* Past the padding: the next section (a file cut in the padding just ends here). */
		pos += SEC_HDR + s.len;
		pos += (8 - pos % 8) % 8;
		if (s.type == SEC_END) {
			got_end = true;
			break;
		}
		if ((rc = add_section(L, &s)))
			return rc;
	}
	stop = pos < limit ? pos : limit;
	if (got_end && length && length != pos)
		return lerr(L, MF_EFORMAT, 16,
			    "the header gives a length of %llu bytes but the END section ends at %llu",
			    (unsigned long long)length, (unsigned long long)pos);
	if (!got_end || !length)
		L->run->incomplete = true;

	/* Settings, streams and counts first: decoding the records needs them. */
	if (L->have[SEC_RUN] && (rc = load_run(L, &L->one[SEC_RUN])))
		return rc;
	if (L->have[SEC_EVENT] && (rc = load_events(L, &L->one[SEC_EVENT])))
		return rc;
	if (L->have[SEC_COUNT] && (rc = load_counts(L, &L->one[SEC_COUNT])))
		return rc;
	if ((rc = load_records(L)))
		return rc;
	if (L->have[SEC_MODULE] && (rc = load_modules(L, &L->one[SEC_MODULE])))
		return rc;
	if (L->have[SEC_SYMBOLS] && (rc = load_syms(L, &L->one[SEC_SYMBOLS])))
		return rc;
	if (L->have[SEC_SOURCE] && (rc = load_src(L, &L->one[SEC_SOURCE])))
		return rc;
	if (L->have[SEC_STACKS] && (rc = load_stacks(L, &L->one[SEC_STACKS])))
		return rc;
	if (L->have[SEC_CHAINS] && (rc = load_chains(L, &L->one[SEC_CHAINS])))
		return rc;
	mf_mrun_finish(L->run);
	mf_mrun_sort_syms(L->run);

	/* §3: without END, report the complete sections marked incomplete, exit 1. */
	if (!got_end) {
		char lenmsg[96] = "";
		if (length > n)
			snprintf(lenmsg, sizeof(lenmsg), "; the file has %zu of the %llu bytes its header gives", n,
				 (unsigned long long)length);
		return lerr(L, MF_EFORMAT, stop, "run file is incomplete (no END section): the run did not finish%s%s",
			    lenmsg, cut ? cutmsg : "");
	}
	if (!length)
		return lerr(L, MF_EFORMAT, 16,
			    "run file is incomplete (the header's length is 0): the run did not "
			    "finish");
	return 0;
}

int mf_mfdb_load_mem(const void *data, size_t n, const char *name, struct mf_mrun *run, struct mf_error *err)
{
	struct loader L;
	int rc;
	memset(&L, 0, sizeof(L));
	L.data = n ? data : (const unsigned char *)"";
	L.n = n;
	L.name = name ? name : "run file";
	L.run = run;
	L.err = err;
	rc = load(&L);
	free(L.recs);
	free(L.modmap);
	free(L.stmap);
	return rc;
}

int mf_mfdb_load(const char *path, struct mf_mrun *run, struct mf_error *err)
{
	struct stat st;
	unsigned char *buf;
	size_t n, got = 0;
	void *map;
	int fd, rc;

	/*
	 * Only a regular file: its size bounds every section length before anything is allocated.  A pipe,
	 * FIFO or device (/dev/zero) has no size to check against and could feed an allocation without end;
	 * O_NONBLOCK keeps the open of a FIFO without a writer from waiting.
	 */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return mf_error_set(err, MF_EIO, path, 0, 0, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0) {
		rc = mf_error_set(err, MF_EIO, path, 0, 0, "cannot read %s: %s", path, strerror(errno));
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		rc = mf_error_set(err, MF_EFORMAT, path, 0, 0,
				  "%s is not a regular file (a %s): a run file is read from a file of known size", path,
				  S_ISDIR(st.st_mode)    ? "directory"
				  : S_ISFIFO(st.st_mode) ? "pipe or FIFO"
				  : S_ISCHR(st.st_mode)  ? "character device"
				  : S_ISBLK(st.st_mode)  ? "block device"
				  : S_ISSOCK(st.st_mode) ? "socket"
							 : "special file");
		if (err)
			err->offset = 0;
		return rc;
	}
	if (st.st_size <= 0) {
		close(fd);
		return mf_mfdb_load_mem(NULL, 0, path, run, err);
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return mf_error_set(err, MF_ENOMEM, path, 0, 0, "%s: %lld bytes do not fit in memory", path,
				    (long long)st.st_size);
	}
	n = (size_t)st.st_size;
	map = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map != MAP_FAILED) {
		close(fd);
		rc = mf_mfdb_load_mem(map, n, path, run, err);
		munmap(map, n);
		return rc;
	}
	/* mmap refused (a file system without it, an address-space limit): read the size fstat gave, no more. */
	if (!(buf = malloc(n))) {
		close(fd);
		return mf_error_set(err, MF_ENOMEM, path, 0, 0, "out of memory while reading %s (%zu bytes)", path, n);
	}
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0) {
			rc = mf_error_set(err, MF_EIO, path, 0, 0, "cannot read %s at byte %zu: %s", path, got,
					  strerror(errno));
			if (err)
				err->offset = (long long)got;
			free(buf);
			close(fd);
			return rc;
		}
		if (r == 0)
			break; /* shrank while read: what was there is checked as a cut file */
		got += (size_t)r;
	}
	close(fd);
	rc = mf_mfdb_load_mem(buf, got, path, run, err);
	free(buf);
	return rc;
}
