/* SPDX-License-Identifier: MIT */
/* The read -> group -> compute pipeline of `mfstat report`, with its skip and duplicate counts. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE (the held samples of mf_pipeline_read_files) */
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/report/dedup.h"
#include "mfstat/report/group.h"
#include "mfstat/report/metrics.h"
#include "mfstat/report/pipeline.h"
#include "parts.h"
#include "rank.h"
#include "stream.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include "mfstat/input/reader.h"
#include "mfstat/input/sample.h"
#include "mfstat/base/shares.h"
#include "mfstat/base/strbuf.h"

struct mf_pipeline {
	/* The options, and those of every reader opened. */
	struct mf_pipeline_opts o;
	struct mf_reader_opts ro;

	/* Reading (add, drain, take_sample): the names, the rows read and what became of them. */
	struct mf_strtab *tab;
	struct mf_sample *s;
	struct mf_sample *s_ahead; /* the row read ahead (drain) */
	struct mf_error e_ahead;   /* and its error */
	struct mf_input *inputs;
	size_t ninputs, capinputs, nfiles;
	uint64_t rows;
	uint64_t left_out[MF_SELECT_NREASONS];
	struct mf_left_span left; /* what the samples left out cover (an empty selection says it) */
	uint8_t *left_sys;        /* by strtab id: a sample left out named this system */
	size_t nleft_sys;
	uint64_t no_offset;   /* --tz smf: samples without a local offset of their own */
	uint64_t with_offset; /* --tz smf: samples with one */
	struct mf_notes notes;
	struct mf_strbuf summary;
	uint8_t *seen; /* by strtab id: a kept sample named this system (see_system) */
	size_t nseen, nsystems;

	/* Duplicates: the table of the samples read, then (mf_pipeline_finish) what it found. */
	struct mf_dedup *dd;
	bool read_done;                  /* mf_pipeline_finish ran: the duplicate tables are gone */
	uint64_t duplicates;             /* and the duplicates they had dropped */
	struct mf_dedup_overlap overlap; /* and the intervals they saw overlap within one CPU */

	/*
	 * -j N (parts.c): the duplicate tables of the parts of the last file read in parts, not
	 * yet added to dd: they are added when another file is read (a file alone never pays for
	 * it); and the rows the parts read.
	 */
	struct mf_parts_pending pend;
	uint64_t part_rows; /* rows read by the threads of -j, merged or read again whole */

	/* SMF: the LPAR view (types 70 and 99.14), and the dumps held by mf_pipeline_read_files. */
	struct mf_lparmap *lpar;
	struct held *held, *held_last; /* SMF dumps read, not yet replayed */

	/* Grouping: the report's groups, and (keep_intervals) those of the interval and LPAR tables. */
	struct mf_grouper *grp;
	struct mf_grouper *igrp; /* keep_intervals: by series and interval; NULL when not kept (or dropped) */
	bool idropped;           /* igrp went beyond max_groups */
	struct mf_grouper *lgrp; /* keep_intervals: by system and LPAR, for the LPAR table */

	/* The results (finish): the report's, ranked (rank.c), by interval, by LPAR. */
	size_t ngroups;
	struct mf_result *res;
	struct mf_result *shown; /* --sort/--top: the results in the order shown (copies pointing into res) */
	struct mf_result *ires;
	size_t nires;
	struct mf_result *lres;
	size_t nlres;
	struct mf_lpar_row *lpar_rows;
	struct mf_tz *utc;  /* the zone reported when the default zone found no offset */
	uint64_t *expected; /* the report's cpus_expected, computed once for the notes and the writers */
	/*
	 * The metrics to compute per family of the knowledge base (mf_metrics_needed), made by
	 * the first compute_all; need NULL, or an entry NULL: all of them.
	 */
	unsigned char **need;
	bool need_made;
	struct mf_sum_layout *layouts; /* the sums the groups of --by keep (make_layouts) */
	size_t nlayouts;

	/*
	 * Streaming (stream_begin): the input in time order, the groups of closed intervals go
	 * to st as rows; a sample out of order stops it (STREAM_BROKEN) and the input is read
	 * again whole.  What the reading had made before is set back to the marks below.
	 */
	struct mf_stream *st;
	bool streaming;
	bool st_decided;     /* -j N: the rows a group were counted (stream_sample) */
	uint64_t st_decide;  /* after this many rows */
	bool st_any;         /* a sample was grouped: st_start is its start */
	int64_t st_start;    /* the latest start grouped */
	uint64_t st_closed;  /* groups finished into st */
	size_t st_most;      /* the most groups held at once */
	size_t st_batch;     /* groups held before closed ones are finished */
	size_t st_most_ids;  /* the most identities the duplicate table held (kept when it is freed) */
	size_t st_nwarnings; /* marks: notes' warnings, summary, inputs and files before the reading */
	size_t st_summary;
	size_t st_ninputs, st_nfiles;
};

/* take_sample's word that the input is not in time order: read it again whole. */
#define STREAM_BROKEN 1000

static void make_layouts(struct mf_pipeline *p);
static void compute_all(struct mf_pipeline *p, struct mf_group *const *groups, struct mf_result *res, size_t n);
static int stream_sample(struct mf_pipeline *p, const struct mf_sample *s, struct mf_error *e);

/* Counts the distinct systems of the samples kept. */
static int see_system(struct mf_pipeline *p, uint32_t id)
{
	int got = id ? mf_flag_mark(&p->seen, &p->nseen, id) : 0;
	if (got == 1)
		p->nsystems++;
	return got < 0 ? got : 0;
}

/* "system, LPAR, pool, interval and CPU": the keys of a --by, for messages. */
static void by_keys_text(unsigned by, char *buf, size_t size)
{
	static const struct {
		unsigned bit;
		const char *name;
	} keys[] = {{MF_BY_SYSTEM, "system"},
		    {MF_BY_LPAR, "LPAR"},
		    {MF_BY_POOL, "pool"},
		    {MF_BY_INTERVAL, "interval"},
		    {MF_BY_CPU, "CPU"}};
	size_t k, n = 0, used = 0;
	buf[0] = '\0';
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		n += (by & keys[k].bit) != 0;
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		if (!(by & keys[k].bit))
			continue;
		used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? (--n == 1 ? " and " : ", ") : "",
					 keys[k].name);
		if (!used || used >= size)
			break;
	}
	if (!buf[0])
		snprintf(buf, size, "machine family");
}

static void tell(struct mf_pipeline *p, enum mf_pipeline_diag kind, const struct mf_error *e)
{
	if (p->o.diag)
		p->o.diag(p->o.ctx, kind, e);
}

/* An error without a place in a file (out of memory, --max-groups): into err, and told. */
static int fail_plain(struct mf_pipeline *p, struct mf_error *err, int code, const char *msg)
{
	mf_error_clear(err);
	err->code = code;
	snprintf(err->msg, sizeof(err->msg), "%s", msg);
	tell(p, MF_PIPELINE_FAILED, err);
	return code;
}

/*
 * Out of memory: "out of memory while WHAT" (mf_error_nomem; WHAT names the file when there
 * is one) into err, and told as fail_plain tells.  Returns MF_ENOMEM.
 */
static int fail_nomem(struct mf_pipeline *p, struct mf_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_nomem(struct mf_pipeline *p, struct mf_error *err, const char *fmt, ...)
{
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	mf_error_nomem(err, NULL, 0, "%s", what);
	tell(p, MF_PIPELINE_FAILED, err);
	return MF_ENOMEM;
}

static void hint(struct mf_pipeline *p, const char *text)
{
	struct mf_error h;
	mf_error_clear(&h);
	snprintf(h.msg, sizeof(h.msg), "%s", text);
	tell(p, MF_PIPELINE_HINT, &h);
}

struct mf_pipeline *mf_pipeline_new(const struct mf_pipeline_opts *opts)
{
	struct mf_pipeline *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->o = *opts;
	mf_notes_init(&p->notes);
	mf_strbuf_init(&p->summary);
	p->tab = mf_strtab_new();
	p->grp = mf_grouper_new(opts->by);
	p->dd = mf_dedup_new();
	p->s = malloc(sizeof(*p->s));
	p->s_ahead = malloc(sizeof(*p->s_ahead));
	p->lpar = mf_lparmap_new();
	if (!p->tab || !p->grp || !p->dd || !p->s || !p->s_ahead || !p->lpar) {
		mf_pipeline_free(p);
		return NULL;
	}
	mf_grouper_set_max_groups(p->grp, opts->max_groups);
	mf_grouper_set_tz(p->grp, opts->tz);
	make_layouts(p);
	mf_grouper_set_layouts(p->grp, p->layouts, p->nlayouts);
	if (opts->keep_intervals && (opts->by & MF_BY_TIME) != MF_BY_INTERVAL) {
		p->igrp = mf_grouper_new((opts->by & ~(unsigned)MF_BY_TIME) | MF_BY_INTERVAL);
		if (!p->igrp) {
			mf_pipeline_free(p);
			return NULL;
		}
		mf_grouper_set_max_groups(p->igrp, opts->max_groups);
		mf_grouper_set_tz(p->igrp, opts->tz);
	}
	if (opts->keep_intervals) {
		p->lgrp = mf_grouper_new(MF_BY_SYSTEM | MF_BY_LPAR);
		if (!p->lgrp) {
			mf_pipeline_free(p);
			return NULL;
		}
		mf_grouper_set_max_groups(p->lgrp, opts->max_groups);
	}
	p->ro.kb = opts->kb;
	p->ro.format = opts->format;
	p->ro.family = opts->family;
	p->ro.machine = opts->machine;
	p->ro.strtab = p->tab;
	p->ro.per_cpu = (opts->by & MF_BY_CPU) != 0; /* lshwc: per-CPU rows instead of Total rows */
	p->ro.lpar = p->lpar;
	p->ro.jobs = opts->jobs;
	p->ro.cpu_mhz = opts->cpu_mhz;
	p->ro.perf_tz = opts->perf_tz;
	p->ro.perf_tz_from = opts->perf_tz_from;
	p->ro.progress = opts->progress;
	if (opts->sample_fn) { /* importing: one reader at a time, nothing grouped */
		p->o.jobs = 0;
		p->ro.jobs = 0;
		p->o.stream_csv = false;
		p->ro.smf_record_fn = opts->smf_record_fn;
		p->ro.smf_record_ctx = opts->sample_ctx;
	}
	return p;
}

/* Counts one skipped row or record and tells it. */
static void skipped(struct mf_pipeline *p, struct mf_input *in, const char *reason, const struct mf_error *e)
{
	mf_notes_skip(&p->notes, reason, e);
	in->skipped++;
	tell(p, MF_PIPELINE_SKIPPED, e);
}

static size_t ngroups_of(struct mf_grouper *g, const struct mf_strtab *tab);

/* Groups s: 0, or the code that stops (in e, and told). */
static int group_sample(struct mf_pipeline *p, const struct mf_sample *s, const char *file, struct mf_error *e)
{
	int got = see_system(p, s->system);
	if (!got && p->streaming && p->o.max_groups && p->st_closed >= p->o.max_groups)
		got = MF_ELIMIT; /* the groups finished count with those held */
	if (!got)
		got = mf_grouper_add(p->grp, s);
	if (!got && p->lgrp && s->lpar_joined)
		got = mf_grouper_add(p->lgrp, s);
	if (!got && p->igrp) {
		int igot = mf_grouper_add(p->igrp, s);
		if (igot == MF_ELIMIT) { /* the report goes on without them */
			mf_grouper_free(p->igrp);
			p->igrp = NULL;
			p->idropped = true;
		} else {
			got = igot;
		}
	}
	if (got == MF_ELIMIT) {
		char at[64] = "", keys[96], msg[512];
		if (s->line > 0)
			snprintf(at, sizeof(at), ":%ld", s->line);
		else if (s->offset >= 0)
			snprintf(at, sizeof(at), ": offset 0x%llx", (unsigned long long)s->offset);
		by_keys_text(p->o.by, keys, sizeof(keys));
		snprintf(msg, sizeof(msg),
			 "%s%s: more than %llu groups (--max-groups): every distinct %s makes a group; "
			 "group by fewer keys (for example --by system,pool) or raise --max-groups",
			 file, at, (unsigned long long)p->o.max_groups, keys);
		return fail_plain(p, e, got, msg);
	}
	if (got)
		return fail_nomem(p, e, "grouping the samples of %s (%zu groups)", file, ngroups_of(p->grp, p->tab));
	return 0;
}

/* One sample read from file: dedup, group.  0 to go on, else the code that stops. */
static int take_sample(struct mf_pipeline *p, bool smf, const char *file, struct mf_input *in, struct mf_sample *s,
		       struct mf_error *e)
{
	uint64_t w = s->rollup_rows ? s->rollup_rows : 1; /* a roll-up row: the samples it sums */
	int got;

	s->input = (uint32_t)p->ninputs + 1;
	if (p->o.select) {
		enum mf_select_why why = mf_select_check(p->o.select, s, p->tab);
		if (why != MF_SELECT_KEEP) {
			p->rows += w;
			in->samples += w;
			p->left_out[why] += w;
			mf_left_span_add(&p->left, s);
			if (s->system && mf_flag_mark(&p->left_sys, &p->nleft_sys, s->system) < 0)
				return fail_nomem(p, e, "noting the systems of %s", file);
			return 0;
		}
	}
	if (p->o.tz && mf_tz_per_record(p->o.tz)) {
		if (s->has_offset)
			p->with_offset += w;
		else
			p->no_offset += w;
	}
	if (p->streaming && (got = stream_sample(p, s, e)) != 0)
		return got;
	got = p->o.sample_fn ? p->o.sample_fn(p->o.sample_ctx, s, file, e) : mf_dedup_check(p->dd, file, s, e);

	if (got >= 0) {
		p->rows += w;
		in->samples += w;
	}
	if (got == MF_DEDUP_DUPLICATE) {
		in->duplicates++;
		return 0;
	}
	if (got == MF_EFORMAT && p->o.skip_bad) {
		skipped(p, in, e->msg, e);
		return 0;
	}
	if (got == MF_EFORMAT) {
		char text[128];
		tell(p, MF_PIPELINE_ERROR, e);
		snprintf(text, sizeof(text), "(use --skip-bad-%s to keep the first copy and count the others)",
			 smf ? "records" : "rows");
		hint(p, text);
		return got;
	}
	if (p->o.sample_fn) {
		if (got < 0)
			tell(p, MF_PIPELINE_ERROR, e);
		return got < 0 ? got : 0;
	}
	if (got == MF_ENOMEM)
		return fail_nomem(p, e, "checking the samples of %s for copies (%llu rows)", file,
				  (unsigned long long)in->samples);
	return group_sample(p, s, file, e);
}

/*
 * ---- Streaming the finest grain (stream.c) ----
 *
 * Where the CSV report gives the same bytes from rows finished early: --by of system and
 * interval (with any of LPAR, pool and CPU, nothing else), no --sort, --top, -v or
 * interval tables, one regular file of CSV, bad rows not skipped (nothing is told before the
 * end but the error that stops the run).  The file is read by one thread, also with -j N (whose
 * threads compute the metrics of each batch): streamed, a file in time order at the finest grain
 * is read about as fast as its parts are at once, in a fraction of their memory; with -j N a
 * coarser grouping (two rows or more a group in the first MFSTAT_STREAM_DECIDE_ROWS rows,
 * STREAM_DECIDE_ROWS) and a file out of order are read again, in parts.  Then, while every
 * sample starts
 * at or after the one before it, the groups held when a later start comes are all closed: past
 * st_batch of them they are computed and handed to the stream as rows, and the grouper starts
 * anew.  MFSTAT_STREAM=0 turns it off (the tests compare both ways), MFSTAT_STREAM_MEM sets the
 * bytes of rows kept in memory before a run is spilled, MFSTAT_STREAM_BATCH the groups held.
 */
#define STREAM_BATCH 16384
/* -j N: the rows read before the rows a group decide between streaming and parts (stream_sample). */
#define STREAM_DECIDE_ROWS 16384

static size_t env_size(const char *name, size_t dflt)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long n;
	if (!v || !*v)
		return dflt;
	n = strtoull(v, &end, 10);
	return *end || !n ? dflt : (size_t)n;
}

static bool stream_eligible(const struct mf_pipeline *p, const char *const *paths, size_t n)
{
	const unsigned need = MF_BY_SYSTEM | MF_BY_INTERVAL,
		       allowed = MF_BY_SYSTEM | MF_BY_LPAR | MF_BY_POOL | MF_BY_CPU | MF_BY_INTERVAL;
	const char *env = getenv("MFSTAT_STREAM");
	struct stat sb;
	if (!p->o.stream_csv || (env && strcmp(env, "0") == 0))
		return false;
	if (p->o.sort || p->o.top || p->o.explain || p->o.keep_intervals || p->o.skip_bad || !p->o.kb)
		return false;
	if ((p->o.by & need) != need || (p->o.by & ~allowed))
		return false;
	if (n != 1 || strcmp(paths[0], "-") == 0 || stat(paths[0], &sb) || !S_ISREG(sb.st_mode))
		return false;
	return !p->read_done && !p->rows && !p->ninputs && !p->held && !p->pend.n;
}

static int new_grouper(struct mf_pipeline *p)
{
	p->grp = mf_grouper_new(p->o.by);
	if (!p->grp)
		return MF_ENOMEM;
	/* The groups finished count with those held (group_sample refuses more once they are all). */
	mf_grouper_set_max_groups(p->grp, p->o.max_groups > p->st_closed ? p->o.max_groups - p->st_closed : 0);
	mf_grouper_set_tz(p->grp, p->o.tz);
	mf_grouper_set_layouts(p->grp, p->layouts, p->nlayouts);
	return 0;
}

static void stream_begin(struct mf_pipeline *p)
{
	p->st = mf_stream_new(p->o.kb, p->tab, p->o.by, p->o.columns, p->o.ncolumns, p->o.tz,
			      env_size("MFSTAT_STREAM_MEM", 0));
	if (!p->st)
		return; /* out of memory: the whole path */
	p->streaming = true;
	p->st_batch = env_size("MFSTAT_STREAM_BATCH", STREAM_BATCH);
	p->st_decide = env_size("MFSTAT_STREAM_DECIDE_ROWS", STREAM_DECIDE_ROWS);
	p->st_nwarnings = p->notes.nwarnings;
	p->st_summary = p->summary.len;
	p->st_ninputs = p->ninputs;
	p->st_nfiles = p->nfiles;
	mf_dedup_set_ordered(p->dd, true);
}

/* The groups held, all closed, finished into the stream; the grouper made anew.  0 or MF_ENOMEM. */
static int stream_flush(struct mf_pipeline *p)
{
	struct mf_group *const *groups;
	struct mf_result *res;
	size_t n;
	int rc;
	groups = mf_grouper_sort(p->grp, p->tab, 1, &n);
	if (n > p->st_most)
		p->st_most = n;
	if (!n)
		return 0;
	if (!(res = mf_results_new_na(groups, n, false)))
		return MF_ENOMEM;
	compute_all(p, groups, res, n);
	rc = mf_stream_add(p->st, groups, res, n);
	mf_results_free(res, n);
	p->st_closed += n;
	mf_grouper_free(p->grp);
	if (!rc)
		rc = new_grouper(p);
	return rc;
}

/* Streaming: s in time order (else STREAM_BROKEN), and the groups held finished when its start closes them. */
static int stream_sample(struct mf_pipeline *p, const struct mf_sample *s, struct mf_error *e)
{
	size_t n;
	int rc;
	if (!s->has_start || (p->st_any && s->start_us < p->st_start))
		return STREAM_BROKEN;
	if (p->st_any && s->start_us > p->st_start) {
		mf_grouper_list(p->grp, &n);
		/*
		 * With -j N, a coarser grouping than the finest (two rows or more a group in the first
		 * STREAM_DECIDE_ROWS rows) is read in parts instead: holding its groups takes little,
		 * and the threads read it faster (bench/csv.sh's coarse shapes: 0.86 s in parts, 1.36 s
		 * streamed); at the finest grain the parts gain little and hold every group.
		 */
		if (p->o.jobs >= 2 && !p->st_decided && p->rows >= p->st_decide) {
			p->st_decided = true;
			if (p->rows >= 2 * (p->st_closed + n))
				return STREAM_BROKEN;
		}
		if (n >= p->st_batch && (rc = stream_flush(p)) != 0)
			return fail_nomem(p, e, "finishing the groups of closed intervals");
	}
	p->st_any = true;
	p->st_start = s->start_us;
	return 0;
}

/* Only CSV is streamed: an input of another format, before anything is read, takes the whole path. */
static void stream_stop(struct mf_pipeline *p)
{
	if (!p->streaming)
		return;
	mf_stream_free(p->st);
	p->st = NULL;
	p->streaming = false;
	mf_dedup_set_ordered(p->dd, false);
}

/* Streaming given up: what the reading made is set back, for the input to be read again whole. */
static int stream_undo(struct mf_pipeline *p, struct mf_error *err)
{
	size_t i;
	mf_stream_free(p->st);
	p->st = NULL;
	p->streaming = false;
	p->st_any = false;
	p->st_closed = 0;
	p->rows = 0;
	memset(p->left_out, 0, sizeof(p->left_out));
	memset(&p->left, 0, sizeof(p->left));
	if (p->left_sys)
		memset(p->left_sys, 0, p->nleft_sys);
	p->no_offset = p->with_offset = 0;
	while (p->notes.nwarnings > p->st_nwarnings)
		free(p->notes.warnings[--p->notes.nwarnings]);
	if (p->summary.buf && p->summary.len > p->st_summary) {
		p->summary.len = p->st_summary;
		p->summary.buf[p->summary.len] = '\0';
	}
	for (i = p->st_ninputs; i < p->ninputs; i++)
		mf_input_free(&p->inputs[i]);
	p->ninputs = p->st_ninputs;
	p->nfiles = p->st_nfiles;
	free(p->seen);
	p->seen = NULL;
	p->nseen = p->nsystems = 0;
	mf_dedup_free(p->dd);
	mf_grouper_free(p->grp);
	p->grp = NULL;
	if (!(p->dd = mf_dedup_new()) || new_grouper(p))
		return fail_nomem(p, err, "starting the reading again");
	return 0;
}

/*
 * ---- One pass over SMF dumps (mf_pipeline_read_files) ----
 *
 * An SMF dump is read once: its type 70 and 99 records go into the LPAR view as they come, and
 * everything else its reading gives (each sample, compactly; each error; at its end its
 * warnings, summary and counts) is held, in order, until every input's records are in.  drain
 * then replays it as if the reader gave it then, joining each sample to the whole view: the
 * report, the messages and their order are those of a first pass and a second.
 */

/* Held events, back to back in chunks: a struct hev, then what its kind holds. */
/*
 * Chunks grow from 64 KiB to 4 MiB (a small dump takes little); those of 4 MiB are mapped on a
 * 2 MiB boundary and asked to be backed by huge pages (where the kernel gives them on request,
 * MADV_HUGEPAGE): filled 4 KiB page by 4 KiB page, each first write is a page fault, and on a
 * virtual machine those cost more than the copying (measured: the held samples of a 630 MB dump
 * took 115 ms more in 4 KiB pages).
 */
#define HCHUNK ((size_t)4 << 20)
#define HALIGN ((size_t)2 << 20)
#define HSMALL ((size_t)64 << 10)

struct hchunk {
	struct hchunk *next;
	size_t used, size; /* of data */
	size_t mapped;     /* the chunk's bytes mapped, from itself */
	_Alignas(8) unsigned char data[];
};

struct hev {
	int32_t got;   /* what mf_reader_next returned: 1 a sample, 0 the end, <0 an error */
	uint32_t n;    /* a sample's counters */
	uint32_t size; /* the event's bytes, this head included */
	uint32_t pad;
};

/* A sample's identity: every field before its counters (their values and slots follow, n each). */
#define HEAD_BYTES offsetof(struct mf_sample, slot)
#define ALIGN8(x) (((x) + 7) & ~(size_t)7)

struct held {
	char *name;
	struct hchunk *first, *last, *cur; /* cur and pos: the replay's place */
	size_t pos;
	size_t mapped; /* the bytes of its chunks (given back ones included) */
	uint64_t samples;
	bool ended; /* the reading came to its end (else it stopped at an error) */
	char **warnings;
	size_t nwarnings;
	struct mf_strbuf summary;
	struct mf_input in; /* mf_input_collect's, handed over when replayed */
	int collected;      /* its result */
	struct held *next;
};

static void held_free(struct held *h)
{
	size_t k;
	while (h->first) {
		struct hchunk *n = h->first->next;
		munmap(h->first, h->first->mapped);
		h->first = n;
	}
	for (k = 0; k < h->nwarnings; k++)
		free(h->warnings[k]);
	free(h->warnings);
	mf_strbuf_free(&h->summary);
	mf_input_free(&h->in);
	free(h->name);
	free(h);
}

/* Room for an event of size bytes at the end of h: its place, or NULL (out of memory). */
static unsigned char *held_room(struct held *h, size_t size)
{
	struct hchunk *c = h->last;
	unsigned char *at;
	if (!c || c->size - c->used < size) {
		/* Growing: a small dump takes little (64 KiB first, each chunk as large as those before). */
		size_t want = h->mapped < HCHUNK ? (h->mapped > HSMALL ? h->mapped : HSMALL) : HCHUNK;
		size_t cap = size > want - sizeof(*c) ? size : want - sizeof(*c);
		size_t align = want == HCHUNK ? HALIGN : HSMALL;
		size_t len = (sizeof(*c) + cap + align - 1) & ~(align - 1);
		unsigned char *m = mmap(NULL, len + (align == HALIGN ? HALIGN : 0), PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		if (align == HALIGN) {
			size_t lead = (HALIGN - (uintptr_t)m % HALIGN) % HALIGN; /* the mapping cut to the boundary */
			if (lead)
				munmap(m, lead);
			munmap(m + lead + len, HALIGN - lead);
			m += lead;
#ifdef MADV_HUGEPAGE
			(void)madvise(m, len, MADV_HUGEPAGE);
#endif
		}
		h->mapped += len;
		c = (struct hchunk *)m;
		c->mapped = len;
		cap = len - sizeof(*c);
		c->next = NULL;
		c->used = 0;
		c->size = cap;
		if (h->last)
			h->last->next = c;
		else
			h->first = c;
		h->last = c;
	}
	at = c->data + c->used;
	c->used += size;
	return at;
}

/*
 * A sample's counters, compactly: each value in 7-bit groups (low first, the top bit set on all
 * but the last), each slot as its distance from the one before, the same way (zigzag: slots
 * may come in any order).  A counter value takes 1 to 10 bytes, most slots one.
 */
static unsigned char *put_varint(unsigned char *at, uint64_t v)
{
	while (v >= 0x80) {
		*at++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*at++ = (unsigned char)v;
	return at;
}

static const unsigned char *get_varint(const unsigned char *at, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift = 0;
	while (*at & 0x80) {
		x |= (uint64_t)(*at++ & 0x7f) << shift;
		shift += 7;
	}
	*v = x | (uint64_t)*at++ << shift;
	return at;
}

/* The most a sample's counters take (10 bytes a value, 3 a slot). */
#define HELD_MAX_COUNTERS(n) ((n) * (10 + 3))

/* Holds what mf_reader_next gave: got, and s (got 1) or e (got < 0).  0 or MF_ENOMEM. */
static int held_add(struct held *h, int got, const struct mf_sample *s, const struct mf_error *e)
{
	struct hev ev = {got, 0, sizeof(struct hev), 0};
	unsigned char *at, *end;
	size_t i;
	if (got == 1) {
		ev.n = (uint32_t)s->n;
		ev.size = (uint32_t)ALIGN8(sizeof(ev) + ALIGN8(HEAD_BYTES) + HELD_MAX_COUNTERS(s->n));
	} else if (got < 0) {
		ev.size = (uint32_t)ALIGN8(sizeof(ev) + sizeof(*e));
	}
	if (!(at = held_room(h, ev.size)))
		return MF_ENOMEM;
	end = at + sizeof(ev);
	if (got == 1) {
		unsigned prev = 0;
		memcpy(end, s, HEAD_BYTES);
		end += ALIGN8(HEAD_BYTES);
		for (i = 0; i < s->n; i++) {
			int d = (int)s->slot[i] - (int)prev;
			end = put_varint(end, (uint64_t)(d >= 0 ? 2u * (unsigned)d : 2u * (unsigned)-d - 1u));
			end = put_varint(end, s->value[i]);
			prev = s->slot[i];
		}
		/* The room the counters did not take is given back (the event is the chunk's last). */
		h->last->used -= ev.size - ALIGN8((size_t)(end - at));
		ev.size = (uint32_t)ALIGN8((size_t)(end - at));
		h->samples++;
	} else if (got < 0) {
		memcpy(end, e, sizeof(*e));
	}
	memcpy(at, &ev, sizeof(ev));
	return 0;
}

/* The next held event, as mf_reader_next gives it; a sample is joined to the LPAR view now. */
static int held_next(struct mf_pipeline *p, struct held *h, struct mf_sample *s, struct mf_error *e)
{
	struct hev ev;
	const unsigned char *at;
	while (h->cur && h->pos == h->cur->used) { /* a chunk replayed is given back */
		struct hchunk *done = h->cur;
		h->cur = h->first = done->next;
		h->pos = 0;
		if (!h->first)
			h->last = NULL;
		munmap(done, done->mapped);
	}
	if (!h->cur)
		return 0;
	at = h->cur->data + h->pos;
	memcpy(&ev, at, sizeof(ev));
	h->pos += ev.size;
	at += sizeof(ev);
	if (ev.got == 1) {
		unsigned prev = 0;
		size_t i;
		memcpy(s, at, HEAD_BYTES);
		at += ALIGN8(HEAD_BYTES);
		for (i = 0; i < ev.n; i++) {
			uint64_t d, v;
			at = get_varint(at, &d);
			at = get_varint(at, &v);
			prev = (d & 1) ? prev - (unsigned)((d + 1) / 2) : prev + (unsigned)(d / 2);
			s->slot[i] = (uint16_t)prev;
			s->value[i] = v;
		}
		mf_lparmap_join(p->lpar, s);
	} else if (ev.got < 0) {
		memcpy(e, at, sizeof(*e));
	}
	return ev.got;
}

/*
 * Reads the SMF reader r of file to where drain would stop reading it, into a new held input at
 * the end of p's (nothing told).  0, or MF_ENOMEM (said in e).
 */
static int hold(struct mf_pipeline *p, struct mf_reader *r, const char *file, struct mf_error *e)
{
	struct held *h = calloc(1, sizeof(*h));
	struct mf_error re;
	size_t k;
	int got;
	if (!h || !(h->name = strdup(file))) {
		free(h);
		return fail_nomem(p, e, "keeping what %s gave for the LPAR view", file);
	}
	mf_strbuf_init(&h->summary);
	if (p->held_last)
		p->held_last->next = h;
	else
		p->held = h;
	p->held_last = h;
	for (;;) {
		got = mf_reader_next(r, p->s, &re);
		if (held_add(h, got, p->s, &re))
			return fail_nomem(p, e, "keeping the samples of %s for the LPAR view (%llu samples)", file,
					  (unsigned long long)h->samples);
		if (got == 0 || got == MF_EIO)
			break; /* drain stops there (an unreadable rest: skipped or not) */
		if (got < 0 && (!p->o.skip_bad || got == MF_ENOMEM || got == MF_ENODATA))
			return 0; /* drain stops at this error */
	}
	if (got == MF_EIO && !p->o.skip_bad)
		return 0;
	h->ended = true;
	if (mf_reader_nwarnings(r)) {
		h->warnings = calloc(mf_reader_nwarnings(r), sizeof(*h->warnings));
		if (!h->warnings)
			return fail_nomem(p, e, "keeping the warnings of %s", file);
		for (k = 0; k < mf_reader_nwarnings(r); k++) {
			if (!(h->warnings[k] = strdup(mf_reader_warning(r, k))))
				return fail_nomem(p, e, "keeping the warnings of %s", file);
			h->nwarnings++;
		}
	}
	mf_reader_summary(r, &h->summary);
	h->collected = mf_input_collect(&h->in, file, r);
	return 0;
}

/* Reads the opened reader r to its end, or replays the held input h (r NULL). */
static int drain_(struct mf_pipeline *p, struct mf_reader *r, struct held *h, const char *file, struct mf_error *e)
{
	bool smf = !r || strcmp(mf_reader_format(r), "smf") == 0;
	struct mf_input *in;
	struct mf_sample *cur = p->s, *next = p->s_ahead;
	size_t k;
	int got;

	if (p->ninputs == p->capinputs) {
		size_t cap = p->capinputs ? 2 * p->capinputs : 4;
		struct mf_input *n = realloc(p->inputs, cap * sizeof(*n));
		if (!n)
			return fail_nomem(p, e, "listing the inputs (%zu)", p->ninputs + 1);
		p->inputs = n;
		p->capinputs = cap;
	}
	in = &p->inputs[p->ninputs];
	memset(in, 0, sizeof(*in));
	/*
	 * One row ahead: the next row is read before this one is checked for duplicates, while the
	 * table's slot for this one is fetched into the cache.  Readers fill e completely when they
	 * fail: no clearing per row; the row ahead has its own, taken over after this row.
	 */
	got = r ? mf_reader_next(r, cur, e) : held_next(p, h, cur, e);
	for (;;) {
		if (got == 0)
			break;
		if (got == 1) {
			struct mf_sample *t;
			int ahead;
			mf_dedup_prefetch(p->dd, cur);
			ahead = r ? mf_reader_next(r, next, &p->e_ahead) : held_next(p, h, next, &p->e_ahead);
			got = take_sample(p, smf, file, in, cur, e);
			if (got)
				return got;
			t = cur;
			cur = next;
			next = t;
			got = ahead;
			if (got < 0)
				*e = p->e_ahead;
			continue;
		}
		/* A file with no data at all is not a bad record: skipping does not hide it. */
		if (!p->o.skip_bad || got == MF_ENOMEM || got == MF_ENODATA) {
			tell(p, MF_PIPELINE_ERROR, e);
			if (!p->o.skip_bad && got != MF_EIO && got != MF_ENOMEM && got != MF_ENODATA) {
				const char *what = smf ? "records" : "rows";
				char text[128];
				snprintf(text, sizeof(text), "(use --skip-bad-%s to skip bad %s and count them)", what,
					 what);
				hint(p, text);
			}
			/* MF_EUSAGE is for a file that cannot be opened as asked; mid-file it is bad data. */
			return got == MF_EUSAGE ? MF_EFORMAT : got;
		}
		/* With skipping on, even an unreadable rest of a file is counted, not fatal. */
		skipped(p, in, got == MF_EIO ? "the rest of the file cannot be read" : e->msg, e);
		if (got == MF_EIO)
			break;
		got = r ? mf_reader_next(r, cur, e) : held_next(p, h, cur, e);
	}
	if (r) {
		for (k = 0; k < mf_reader_nwarnings(r); k++)
			mf_notes_warn(&p->notes, "%s", mf_reader_warning(r, k));
		mf_reader_summary(r, &p->summary);
		got = mf_input_collect(in, file, r);
	} else {
		for (k = 0; k < h->nwarnings; k++)
			mf_notes_warn(&p->notes, "%s", h->warnings[k]);
		mf_strbuf_puts(&p->summary, mf_strbuf_str(&h->summary));
		got = h->collected;
		in->file = h->in.file;
		in->format = h->in.format;
		in->nrecords = h->in.nrecords;
		in->records = h->in.records;
		in->ndropped = h->in.ndropped;
		in->dropped = h->in.dropped;
		memset(&h->in, 0, sizeof(h->in));
	}
	p->ninputs++;
	if (got)
		return fail_nomem(p, e, "keeping the counts of %s", file);
	return 0;
}

static int drain(struct mf_pipeline *p, struct mf_reader *r, const char *file, struct mf_error *e)
{
	return drain_(p, r, NULL, file, e);
}

static size_t ngroups_of(struct mf_grouper *g, const struct mf_strtab *tab)
{
	size_t n = 0;
	(void)tab;
	if (g)
		mf_grouper_list(g, &n);
	return n;
}

/* What the parts of -j need of p. */
static struct mf_part_cfg part_cfg(const struct mf_pipeline *p)
{
	struct mf_part_cfg cfg = {p->o, p->ro, p->igrp != NULL, p->lgrp != NULL, p->layouts, p->nlayouts};
	return cfg;
}

/*
 * The parts' groups into p->grp by mf_grouper_take_sorted: 1 when taken, 0 when it does not
 * apply (p has groups: mf_grouper_take_ids takes them), or MF_ENOMEM.
 */
static int take_sorted(struct mf_pipeline *p, struct part *t, size_t nt, const struct mf_parts_pending *pend)
{
	struct mf_grouper **src = malloc(nt * sizeof(*src));
	const uint32_t **maps = malloc(nt * sizeof(*maps));
	size_t *nmaps = malloc(nt * sizeof(*nmaps)), i;
	int rc = MF_ENOMEM;
	if (src && maps && nmaps) {
		for (i = 0; i < nt; i++) {
			src[i] = t[i].grp;
			maps[i] = pend->dp[i].map;
			nmaps[i] = pend->dp[i].nmap;
		}
		rc = mf_grouper_take_sorted(p->grp, src, maps, nmaps, nt, p->tab);
	}
	free(src);
	free(maps);
	free(nmaps);
	return rc == 0 ? 1 : rc == 1 ? 0 : rc;
}

/*
 * Merges the parts, in their order, into p after the check that they give
 * what reading the file whole gives: 0, 1 when they do not (nothing merged),
 * or an error code (err told).
 */
static int merge_parts(struct mf_pipeline *p, struct part *t, size_t nt, const char *name, struct mf_error *err)
{
	struct mf_parts_pending pend = {NULL, NULL, 0};
	size_t i, k, total = ngroups_of(p->grp, p->tab);
	int rc = 0;
	size_t itotal = ngroups_of(p->igrp, p->tab), ltotal = ngroups_of(p->lgrp, p->tab);
	bool idrop = false;
	struct mf_input *in;
	int sorted;

	for (i = 0; i < nt; i++) {
		total += ngroups_of(t[i].grp, t[i].tab);
		itotal += ngroups_of(t[i].igrp, t[i].tab);
		ltotal += ngroups_of(t[i].lgrp, t[i].tab);
		idrop |= t[i].idropped;
	}
	/*
	 * --max-groups (a bound on the sum: exact when parts share no group) is said by the whole
	 * reading; so is dropping the interval groups, unless a part alone went beyond the limit
	 * (the whole reading then drops them too).
	 */
	if (p->o.max_groups &&
	    (total > p->o.max_groups || ltotal > p->o.max_groups || (!idrop && p->igrp && itotal > p->o.max_groups)))
		rc = 1;
	if (rc == 0 && p->ninputs == p->capinputs) {
		size_t cap = p->capinputs ? 2 * p->capinputs : 4;
		struct mf_input *n = realloc(p->inputs, cap * sizeof(*n));
		if (!n)
			rc = MF_ENOMEM;
		else {
			p->inputs = n;
			p->capinputs = cap;
		}
	}
	/* The parts' names in p's table, and their duplicate tables disjoint (from p's and from each other). */
	if (!rc)
		rc = mf_parts_map(p->tab, p->dd, p->o.jobs, t, nt, &pend);
	if (rc)
		return rc == 1 ? 1 : fail_nomem(p, err, "merging the %zu parts of %s read at once", nt, name);
	in = &p->inputs[p->ninputs];
	memset(in, 0, sizeof(*in));
	if (idrop && p->igrp) { /* the report goes on without them, as group_sample decides */
		mf_grouper_free(p->igrp);
		p->igrp = NULL;
		p->idropped = true;
	}
	/* The first input's parts, sorted in their threads, merge in order: no sort of them after. */
	sorted = take_sorted(p, t, nt, &pend);
	if (sorted < 0)
		rc = sorted;
	for (i = 0; i < nt && !rc; i++) {
		const uint32_t *map = pend.dp[i].map;
		size_t nmap = pend.dp[i].nmap;
		/* Groups one part alone has are moved, not added up (most of them, in a file in time order). */
		if (!sorted)
			rc = mf_grouper_take_ids(p->grp, t[i].grp, map, nmap);
		if (p->igrp && t[i].igrp && !rc)
			rc = mf_grouper_take_ids(p->igrp, t[i].igrp, map, nmap);
		if (p->lgrp && !rc)
			rc = mf_grouper_take_ids(p->lgrp, t[i].lgrp, map, nmap);
		for (k = 1; k < t[i].nkept && !rc; k++)
			if (t[i].kept[k])
				rc = see_system(p, map[k]);
		p->rows += t[i].rows;
		in->samples += t[i].rows;
		in->duplicates += t[i].duplicates;
		p->no_offset += t[i].no_offset;
		p->with_offset += t[i].with_offset;
		for (k = 0; k < MF_SELECT_NREASONS; k++)
			p->left_out[k] += t[i].left_out[k];
		mf_left_span_merge(&p->left, &t[i].left);
		for (k = 1; k < t[i].nleft_sys && k < nmap && !rc; k++)
			if (t[i].left_sys[k] && map[k] && mf_flag_mark(&p->left_sys, &p->nleft_sys, map[k]) < 0)
				rc = MF_ENOMEM;
	}
	/* The parts' duplicate tables wait (the pipeline owns them now): added only if another file follows. */
	p->pend = pend;
	for (i = 0; i < nt; i++)
		t[i].dd = NULL;
	if (t[0].whole) {
		/* What the reader of a whole file says, as drain says it. */
		size_t w;
		for (w = 0; w < mf_reader_nwarnings(t[0].r); w++)
			mf_notes_warn(&p->notes, "%s", mf_reader_warning(t[0].r, w));
		mf_reader_summary(t[0].r, &p->summary);
		if (!rc && mf_input_collect(in, name, t[0].r))
			rc = MF_ENOMEM;
	} else {
		in->file = strdup(name);
		in->format = "csv";
	}
	p->ninputs++;
	if (rc == MF_ELIMIT)
		return fail_plain(p, err, MF_ELIMIT, "more than --max-groups groups");
	if (rc || !in->file)
		return fail_nomem(p, err, "merging the %zu parts of %s read at once", nt, name);
	return 0;
}

/*
 * A plain CSV file read in parts at once: 0 when read, 1 when it is not for
 * parts (small, compressed, quoted fields, another format) or the parts did
 * not give what reading it whole gives (the caller reads it whole), or an
 * error code (err told).
 */
static int add_parts(struct mf_pipeline *p, const char *name, struct mf_error *err)
{
	struct mf_part_cfg cfg = part_cfg(p);
	struct part *t = NULL;
	size_t nt = 0, i;
	int rc = mf_parts_read(&cfg, name, (uint32_t)p->ninputs + 1, &t, &nt);

	if (rc == MF_ENOMEM)
		return fail_nomem(p, err, "starting %zu threads to read %s", nt, name);
	if (rc)
		return rc;
	for (i = 0; i < nt; i++)
		p->part_rows += t[i].rows;
	for (i = 0; i < nt; i++)
		if (t[i].fallback)
			break;
	rc = 1;
	if (i == nt)
		rc = merge_parts(p, t, nt, name, err);
	mf_parts_free(t, nt);
	return rc;
}

static int add(struct mf_pipeline *p, const char *name, const void *data, size_t len, bool mem, struct mf_error *err)
{
	struct mf_reader *r = NULL;
	int got;

	mf_error_clear(err);
	if (p->read_done)
		return fail_plain(p, err, MF_EUSAGE, "a file added after the report was made (mf_pipeline_finish)");
	p->nfiles++;
	if (mf_parts_pending_flush(&p->pend, p->dd))
		return fail_nomem(p, err, "adding the duplicate tables of the parts read before %s", name);
	if (!mem) {
		got = add_parts(p, name, err);
		if (got != 1)
			return got;
	}
	got = mem ? mf_reader_open_mem(&r, name, data, len, &p->ro, err) : mf_reader_open(&r, name, &p->ro, err);
	if (got) {
		tell(p, MF_PIPELINE_ERROR, err);
		return got;
	}
	if (!mem && strcmp(name, "-") == 0)
		mf_lparmap_set_streamed(p->lpar);
	if (!mem && strcmp(mf_reader_format(r), "csv") == 0)
		mf_parts_reserve_rows(p->dd, name, -1, 0, -1);
	got = drain(p, r, name, err);
	mf_reader_close(r);
	return got;
}

/*
 * The held inputs replayed in their order (each sample joined to the LPAR view, now whole),
 * after a first pass over paths[from..n) for the records that those inputs, not yet read, give
 * to the view.  0 or the first error's code (told).
 */
static void prescan(struct mf_pipeline *p, const char *name, const void *data, size_t len, bool mem);

static int settle(struct mf_pipeline *p, const char *const *paths, size_t from, size_t n, struct mf_error *err)
{
	size_t i;
	int rc = 0;
	for (i = from; i < n && p->held; i++)
		mf_pipeline_prescan_file(p, paths[i]);
	while (p->held) {
		struct held *h = p->held;
		p->held = h->next;
		if (!p->held)
			p->held_last = NULL;
		if (!rc) {
			h->cur = h->first;
			h->pos = 0;
			mf_error_clear(err);
			(void)mf_dedup_reserve(p->dd, h->samples); /* its table made once at its size */
			rc = drain_(p, NULL, h, h->name, err);
		}
		held_free(h);
	}
	return rc;
}

/*
 * One input of mf_pipeline_read_files, paths[i]: an SMF dump is held (read once, its LPAR view
 * records into the view); another input is read as add reads it, after the held ones are
 * replayed when there are any.  *settled: the inputs after i had their first pass (standard
 * input, an error, another format after held samples): read them with add.
 */
static int add_one(struct mf_pipeline *p, const char *const *paths, size_t i, size_t n, bool *settled,
		   struct mf_error *err)
{
	const char *name = paths[i];
	struct mf_reader_opts ro = p->ro;
	struct mf_reader *r = NULL;
	int got;

	if (strcmp(name, "-") == 0 || p->read_done) { /* standard input is read once, joined as it comes */
		*settled = true;
		if ((got = settle(p, paths, i + 1, n, err)) != 0)
			return got;
		return add(p, name, NULL, 0, false, err);
	}
	/* As add begins (the duplicate tables of parts are pending only after a file alone: none held). */
	mf_error_clear(err);
	p->nfiles++;
	if (mf_parts_pending_flush(&p->pend, p->dd))
		return fail_nomem(p, err, "adding the duplicate tables of the parts read before %s", name);
	if (!p->held && !p->streaming && (got = add_parts(p, name, err)) != 1)
		return got;
	ro.lpar_nojoin = true;
	got = mf_reader_open(&r, name, &ro, err);
	if (!got && strcmp(mf_reader_format(r), "smf") == 0) {
		stream_stop(p);
		got = hold(p, r, name, err);
		mf_reader_close(r);
		if (!got && !p->held_last->ended) {
			/* Stopped at an error: a first pass gives the rest of the view, this file's too. */
			*settled = true;
			return settle(p, paths, i, n, err);
		}
		return got;
	}
	if (p->held) { /* this input is not held: the held ones come first */
		struct mf_error opened = *err;
		int rc;
		*settled = true;
		if ((rc = settle(p, paths, i + 1, n, err)) != 0) {
			mf_reader_close(r);
			return rc;
		}
		*err = opened;
	}
	if (got) {
		tell(p, MF_PIPELINE_ERROR, err);
		return got;
	}
	if (strcmp(mf_reader_format(r), "csv") != 0)
		stream_stop(p);
	if (strcmp(mf_reader_format(r), "csv") == 0 && !p->streaming)
		mf_parts_reserve_rows(p->dd, name, -1, 0, -1);
	got = drain(p, r, name, err);
	mf_reader_close(r);
	return got;
}

int mf_pipeline_read_files(struct mf_pipeline *p, const char *const *paths, size_t n, struct mf_error *err)
{
	size_t i;
	bool settled = false;
	int rc = 0;
	if (p->o.jobs >= 2 && n >= 2) { /* SMF dumps may be read at once: a first pass finds the view */
		for (i = 0; i < n; i++)
			mf_pipeline_prescan_file(p, paths[i]);
		return mf_pipeline_add_files(p, paths, n, err);
	}
	if (stream_eligible(p, paths, n))
		stream_begin(p);
	for (i = 0; i < n && !rc; i++)
		rc = settled ? add(p, paths[i], NULL, 0, false, err) : add_one(p, paths, i, n, &settled, err);
	if (rc == STREAM_BROKEN) {
		/* Not in time order: read again whole, as if streaming had never begun. */
		if ((rc = stream_undo(p, err)) != 0)
			return rc;
		settled = false;
		for (i = 0; i < n && !rc; i++)
			rc = settled ? add(p, paths[i], NULL, 0, false, err) : add_one(p, paths, i, n, &settled, err);
	}
	if (!rc)
		rc = settle(p, paths, n, n, err);
	return rc;
}

/* The first pass over an SMF input: its type 70 and 99 records into the LPAR view. */
static void prescan(struct mf_pipeline *p, const char *name, const void *data, size_t len, bool mem)
{
	struct mf_reader_opts ro = p->ro;
	struct mf_reader *r = NULL;
	struct mf_error e;
	int got;
	ro.lpar_scan = true;
	ro.progress = NULL; /* a first pass: its bytes are read again */
	mf_error_clear(&e);
	got = mem ? mf_reader_open_mem(&r, name, data, len, &ro, &e) : mf_reader_open(&r, name, &ro, &e);
	if (got)
		return; /* the second pass says why */
	if (strcmp(mf_reader_format(r), "smf") == 0)
		while ((got = mf_reader_next(r, p->s, &e)) != 0 && got != MF_EIO && got != MF_ENOMEM &&
		       got != MF_ENODATA)
			;
	mf_reader_close(r);
}

void mf_pipeline_prescan_file(struct mf_pipeline *p, const char *path)
{
	if (strcmp(path, "-") != 0)
		prescan(p, path, NULL, 0, false);
}

void mf_pipeline_prescan_mem(struct mf_pipeline *p, const char *name, const void *data, size_t len)
{
	prescan(p, name, data, len, true);
}

/* Whether path is an SMF dump, a regular file (not standard input). */
static bool is_smf_file(const struct mf_pipeline *p, const char *path)
{
	struct mf_reader *r = NULL;
	struct mf_error e;
	struct stat st;
	bool smf = false;
	if (strcmp(path, "-") == 0 || stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	mf_error_clear(&e);
	if (!mf_reader_open(&r, path, &p->ro, &e))
		smf = strcmp(mf_reader_format(r), "smf") == 0;
	mf_reader_close(r);
	return smf;
}

/*
 * SMF dumps read at once, each by a thread into tables of its own, merged in
 * their order: each as mf_pipeline_add_file would read it, or read so when
 * its reading differs (an error, a sample also in an earlier file, records
 * of the LPAR view).
 */
static int add_whole_files(struct mf_pipeline *p, const char *const *paths, size_t n, struct mf_error *err)
{
	struct mf_part_cfg cfg = part_cfg(p);
	struct part *t = calloc(n, sizeof(*t));
	size_t i;
	int rc = 0, stop = 0;
	if (!t)
		return fail_nomem(p, err, "starting %zu threads to read SMF dumps", n);
	for (i = 0; i < n; i++) {
		t[i].name = paths[i];
		t[i].whole = true;
		t[i].lpar = mf_lparmap_new();
		if (!t[i].lpar)
			t[i].fallback = true;
		mf_part_init(&cfg, &t[i], (uint32_t)(p->ninputs + 1 + i));
		t[i].stop = &stop; /* beyond --max-groups only: the other dumps are read on their own */
	}
	mf_parts_run(t, n);
	for (i = 0; i < n; i++)
		p->part_rows += t[i].rows;
	for (i = 0; i < n && !rc; i++) {
		mf_error_clear(err);
		if (!t[i].fallback) {
			if (mf_parts_pending_flush(&p->pend, p->dd))
				rc = fail_nomem(p, err, "adding the duplicate tables of the parts read before %s",
						paths[i]);
			else if ((rc = merge_parts(p, &t[i], 1, paths[i], err)) == 0)
				p->nfiles++;
		}
		if (t[i].fallback || rc == 1)
			rc = add(p, paths[i], NULL, 0, false, err);
	}
	mf_parts_free(t, n);
	return rc;
}

int mf_pipeline_add_files(struct mf_pipeline *p, const char *const *paths, size_t n, struct mf_error *err)
{
	size_t i = 0;
	bool view = mf_lparmap_nintervals(p->lpar) || mf_lparmap_ntopos(p->lpar);
	while (i < n) {
		size_t k = 0;
		int rc;
		/* Consecutive SMF dumps, as many as there are threads, when no LPAR view is to be joined. */
		while (p->o.jobs >= 2 && !view && i + k < n && k < p->o.jobs && is_smf_file(p, paths[i + k]))
			k++;
		if (k >= 2) {
			rc = add_whole_files(p, paths + i, k, err);
			i += k;
		} else {
			rc = mf_pipeline_add_file(p, paths[i], err);
			i++;
		}
		if (rc)
			return rc;
	}
	return 0;
}

int mf_pipeline_add_file(struct mf_pipeline *p, const char *path, struct mf_error *err)
{
	return add(p, path, NULL, 0, false, err);
}

int mf_pipeline_add_mem(struct mf_pipeline *p, const char *name, const void *data, size_t len, struct mf_error *err)
{
	return add(p, name, data, len, true, err);
}

int mf_pipeline_add_source(struct mf_pipeline *p, const char *name, const char *format, mf_reader_source_fn *next,
			   void *ctx, const uint64_t *left_out, struct mf_error *err)
{
	struct mf_reader *r = NULL;
	size_t k;
	int got;

	mf_error_clear(err);
	if (p->read_done)
		return fail_plain(p, err, MF_EUSAGE, "a source added after the report was made (mf_pipeline_finish)");
	stream_stop(p);
	p->nfiles++;
	if (mf_parts_pending_flush(&p->pend, p->dd))
		return fail_nomem(p, err, "adding the duplicate tables of the parts read before %s", name);
	got = mf_reader_open_source(&r, name, format, next, ctx, &p->ro, err);
	if (got) {
		tell(p, MF_PIPELINE_ERROR, err);
		return got;
	}
	got = drain(p, r, name, err);
	mf_reader_close(r);
	if (!got && left_out)
		for (k = 1; k < MF_SELECT_NREASONS; k++) { /* read and left out, as take_sample counts them */
			p->left_out[k] += left_out[k];
			p->rows += left_out[k];
			p->inputs[p->ninputs - 1].samples += left_out[k];
		}
	return got;
}

int mf_pipeline_error(struct mf_pipeline *p, const struct mf_error *e)
{
	tell(p, MF_PIPELINE_ERROR, e);
	return e->code;
}

int mf_pipeline_add_sample(struct mf_pipeline *p, const struct mf_sample *s, struct mf_error *err)
{
	mf_error_clear(err);
	p->rows++;
	return group_sample(p, s, "counted", err);
}

void mf_pipeline_warn(struct mf_pipeline *p, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	mf_notes_warn(&p->notes, "%s", buf);
}

const struct mf_input *mf_pipeline_last_input(const struct mf_pipeline *p)
{
	return p->ninputs ? &p->inputs[p->ninputs - 1] : NULL;
}

void mf_pipeline_set_rollup(struct mf_pipeline *p, const char *level)
{
	if (p->ninputs)
		p->inputs[p->ninputs - 1].rollup = level;
}

const struct mf_strtab *mf_pipeline_strtab(const struct mf_pipeline *p)
{
	return p->tab;
}

unsigned long long mf_pipeline_skipped(const struct mf_pipeline *p)
{
	return p->notes.skipped;
}

bool mf_pipeline_stream_counts(const struct mf_pipeline *p, struct mf_pipeline_stream_counts *c)
{
	memset(c, 0, sizeof(*c));
	if (!p->st)
		return false;
	mf_stream_counts(p->st, &c->rows, &c->runs, &c->bytes);
	c->most_groups = p->st_most;
	c->most_identities = p->dd ? mf_dedup_most_held(p->dd) : p->st_most_ids;
	return true;
}

unsigned long long mf_pipeline_part_sorted(const struct mf_pipeline *p)
{
	return p->grp ? mf_grouper_runs_taken(p->grp) : 0;
}

unsigned long long mf_pipeline_part_rows(const struct mf_pipeline *p)
{
	return p->part_rows;
}

/* compute_all's work: share i of nt computes groups [n * i / nt, n * (i + 1) / nt). */
struct compute_work {
	const struct mf_pipeline *p;
	struct mf_group *const *groups;
	struct mf_result *res;
	size_t n, nt;
};

/* The metrics to compute of fam's groups (p->need), NULL for all. */
static const unsigned char *need_of(const struct mf_pipeline *p, const struct mf_family *fam)
{
	const struct mf_kb *kb = p->o.kb;
	if (!p->need || fam < kb->families || fam >= kb->families + kb->nfamilies)
		return NULL;
	return p->need[fam - kb->families];
}

/*
 * With --metrics, the metrics of each family that the columns, --sort and the notes read
 * (mf_metrics_needed): a z16 group with four columns computes 8 of its 23.  Every metric
 * when -v says why each unavailable one is, or for the HTML page (keep_intervals), which draws
 * and names metrics of its own.  Out of memory leaves them all to compute.
 */
static void make_need(struct mf_pipeline *p)
{
	const struct mf_kb *kb = p->o.kb;
	const char **names;
	size_t f, n = p->o.ncolumns;

	if (p->need_made)
		return;
	p->need_made = true;
	if (!kb || !p->o.columns || p->o.explain || p->o.keep_intervals || !kb->nfamilies)
		return;
	names = malloc((n + 1) * sizeof(*names));
	p->need = calloc(kb->nfamilies, sizeof(*p->need));
	if (!names || !p->need) {
		free(names);
		free(p->need);
		p->need = NULL;
		return;
	}
	memcpy(names, p->o.columns, n * sizeof(*names));
	if (p->o.sort)
		names[n++] = p->o.sort;
	for (f = 0; f < kb->nfamilies; f++)
		p->need[f] = mf_metrics_needed(&kb->families[f], names, n);
	free(names);
}

/*
 * With the metrics made (make_need), the counter sums the groups of --by keep: those the
 * metrics computed read (mf_metrics_layout), 9 of 98 for a z16 group with four columns.
 * Only p->grp and its parts' groupers: export, -v and the HTML page (no need made) read
 * every sum, and the LPAR view computes every metric.  Out of memory: every sum.
 */
static void make_layouts(struct mf_pipeline *p)
{
	size_t f;
	make_need(p);
	if (!p->need || !(p->layouts = calloc(p->o.kb->nfamilies, sizeof(*p->layouts))))
		return;
	for (f = 0; f < p->o.kb->nfamilies; f++)
		if (mf_metrics_layout(&p->o.kb->families[f], p->need[f], &p->layouts[p->nlayouts]))
			p->nlayouts++;
}

/*
 * How far ahead compute_share asks for the groups, and how much of each: the groups lie far
 * apart in memory (in the order they were first read, not the report's), and computing one
 * reads its whole block (keys, counts, sums, bitmaps, interval), a cache miss a line.
 */
#define COMPUTE_AHEAD 8
#define COMPUTE_LINES 8

static void compute_share(void *ctx, size_t i)
{
	const struct compute_work *w = ctx;
	size_t k, end = w->n * (i + 1) / w->nt;
	for (k = w->n * i / w->nt; k < end; k++) {
		if (k + COMPUTE_AHEAD < end) {
			const char *g = (const char *)w->groups[k + COMPUTE_AHEAD];
			size_t l;
			for (l = 0; l < COMPUTE_LINES; l++)
				__builtin_prefetch(g + 64 * l);
		}
		mf_metrics_compute_some(w->p->o.kb, w->groups[k], &w->p->o.metrics, need_of(w->p, w->groups[k]->family),
					&w->res[k]);
	}
}

/* The metrics of every group, with the threads of -j for many groups (each group's alone). */
static void compute_all(struct mf_pipeline *p, struct mf_group *const *groups, struct mf_result *res, size_t n)
{
	struct compute_work w = {p, groups, res, n, p->o.jobs < 64 ? p->o.jobs : 64};
	make_need(p);
	if (w.nt < 2 || n < 4096)
		w.nt = 1;
	mf_run_shares(w.nt, compute_share, &w);
}

/* keep_intervals: the results by series and interval (those of the report when --by is by interval). */
static int interval_results(struct mf_pipeline *p, struct mf_report *rep)
{
	struct mf_group *const *groups;
	if (!p->o.keep_intervals)
		return 0;
	rep->interval_by = (p->o.by & ~(unsigned)MF_BY_TIME) | MF_BY_INTERVAL;
	if (!p->igrp) {
		if (p->idropped) {
			mf_notes_warn(&p->notes,
				      "more than %llu groups by interval (--max-groups): the HTML "
				      "page draws the groups of --by instead",
				      (unsigned long long)p->o.max_groups);
			return 0;
		}
		rep->interval_results = p->res;
		rep->ninterval_results = p->ngroups;
		return 0;
	}
	mf_results_free(p->ires, p->nires);
	groups = mf_grouper_sort(p->igrp, p->tab, p->o.jobs, &p->nires);
	p->ires = mf_results_new_na(groups, p->nires, p->o.explain);
	if (!p->ires)
		return MF_ENOMEM;
	compute_all(p, groups, p->ires, p->nires);
	rep->interval_results = p->ires;
	rep->ninterval_results = p->nires;
	return 0;
}

static void lpar_warning(void *ctx, const char *msg)
{
	struct mf_pipeline *p = ctx;
	mf_notes_warn(&p->notes, "%s", msg);
}

/* mf_pipeline_finish's work: 0, or MF_ENOMEM with what it was making in *what. */
static int finish(struct mf_pipeline *p, struct mf_report *rep, const char **what)
{
	struct mf_group *const *groups;
	size_t i;

	mf_results_free(p->res, p->ngroups);
	p->res = NULL;
	if (!p->read_done) {
		/*
		 * No file comes after this: the duplicate tables, which grow with the rows read, are
		 * freed before the metrics are made, so that the report's memory does not come on top
		 * of theirs (the peak of a 1M-row file with 250k groups: 64 MB less).
		 */
		p->duplicates = mf_dedup_duplicates(p->dd);
		for (i = 0; i < p->pend.n; i++)
			p->duplicates += mf_dedup_duplicates(p->pend.dp[i].d);
		if (mf_dedup_overlaps(p->dd, p->pend.dp, p->pend.n, p->tab, &p->overlap)) {
			*what = "checking the intervals of each CPU for overlaps";
			return MF_ENOMEM;
		}
		mf_parts_pending_drop(&p->pend);
		p->st_most_ids = mf_dedup_most_held(p->dd);
		mf_dedup_free(p->dd);
		p->dd = NULL;
		p->read_done = true;
	}
	if (p->streaming) {
		/* The groups still held are closed too: every row is in the stream. */
		uint64_t rows, runs, bytes;
		int rc = stream_flush(p);
		if (rc) {
			*what = "finishing the groups of closed intervals";
			return MF_ENOMEM;
		}
		mf_stream_counts(p->st, &rows, &runs, &bytes);
		p->ngroups = (size_t)rows;
		memset(rep, 0, sizeof(*rep));
		rep->stream = p->st;
	} else {
		groups = mf_grouper_sort(p->grp, p->tab, p->o.jobs, &p->ngroups);
		p->res = mf_results_new_jobs(groups, p->ngroups, p->o.explain, p->o.jobs);
		if (!p->res) {
			*what = "computing the metrics of the groups";
			return MF_ENOMEM;
		}
		compute_all(p, groups, p->res, p->ngroups);
		memset(rep, 0, sizeof(*rep));
	}
	rep->kb = p->o.kb;
	rep->tab = p->tab;
	rep->jobs = p->o.jobs;
	rep->by = p->o.by;
	rep->ngroups = p->ngroups;
	rep->results = p->res;
	if (p->o.sort || p->o.top) {
		/* The period stays that of everything read, not of the groups shown. */
		mf_report_fix_period(rep);
		free(p->shown);
		if (mf_rank_results(p->res, p->ngroups, p->tab, p->o.sort, p->o.top, &p->shown, &rep->ngroups)) {
			*what = "sorting the groups (--sort, --top)";
			return MF_ENOMEM;
		}
		rep->results = p->shown;
		rep->groups_cut = p->ngroups - rep->ngroups;
	}
	if (interval_results(p, rep)) {
		*what = "computing the metrics of the groups by interval";
		return MF_ENOMEM;
	}
	rep->columns = p->o.columns;
	rep->ncolumns = p->o.ncolumns;
	rep->rows_read = p->rows;
	rep->ninputs = p->ninputs;
	rep->inputs = p->inputs;
	rep->duplicates = p->duplicates;
	rep->overlap = p->overlap;
	mf_lparmap_warnings(p->lpar, p->tab, lpar_warning, p);
	if (mf_lparmap_nintervals(p->lpar)) {
		free(p->lpar_rows);
		p->lpar_rows = NULL;
		if (mf_lparmap_table(p->lpar, p->tab, &p->lpar_rows, &rep->nlpars)) {
			*what = "making the LPAR table";
			return MF_ENOMEM;
		}
		rep->lpars = p->lpar_rows;
		if (p->lgrp) {
			struct mf_group *const *lg = mf_grouper_groups(p->lgrp, p->tab, &p->nlres);
			mf_results_free(p->lres, p->nlres);
			p->lres = mf_results_new_na(lg, p->nlres, p->o.explain);
			if (!p->lres) {
				*what = "computing the metrics of the LPARs";
				return MF_ENOMEM;
			}
			for (i = 0; i < p->nlres; i++)
				mf_metrics_compute(p->o.kb, lg[i], &p->o.metrics, &p->lres[i]);
			rep->lpar_results = p->lres;
			rep->nlpar_results = p->nlres;
		}
	}
	rep->tz = p->o.tz;
	rep->tz_default = p->o.tz_default && p->o.tz && mf_tz_per_record(p->o.tz);
	if (rep->tz_default && !p->with_offset) {
		/* The default zone, and no sample gave an offset: the report is in UTC, and says so. */
		struct mf_error e;
		if (!p->utc && mf_tz_open(&p->utc, "UTC", NULL, &e)) {
			*what = "opening the UTC zone";
			return MF_ENOMEM;
		}
		rep->tz = p->utc;
		if ((p->o.by & MF_BY_CALENDAR) || (p->o.select && (p->o.select->hours || p->o.select->weekdays ||
								   p->o.select->from_local || p->o.select->to_local)))
			mf_notes_warn(&p->notes,
				      "the input gives no local time offset, so calendar keys and --hours, --weekdays "
				      "and dates alone are in UTC; --tz ZONE cuts them in another zone");
	} else if (p->no_offset) {
		mf_notes_warn(&p->notes,
			      "%llu sample%s no local time offset of %s own (%s takes it from each record, "
			      "as SMF gives it): %s times are UTC; --tz ZONE puts every sample in one zone",
			      (unsigned long long)p->no_offset, p->no_offset == 1 ? " carries" : "s carry",
			      p->no_offset == 1 ? "its" : "their", rep->tz_default ? "the default zone" : "--tz smf",
			      p->no_offset == 1 ? "its" : "their");
	}
	free(p->expected);
	rep->cpus_expected = mf_report_expected(rep, &p->expected);
	mf_notes_report(&p->notes, rep);
	rep->rows_skipped = p->notes.skipped;
	rep->nreasons = p->notes.nreasons;
	rep->reason = (const char *const *)p->notes.reason;
	rep->reason_count = p->notes.reason_count;
	rep->nwarnings = p->notes.nwarnings;
	rep->warnings = (const char *const *)p->notes.warnings;
	rep->nfiles = p->nfiles;
	rep->input_summary = mf_strbuf_str(&p->summary);
	rep->metrics = p->o.metrics;
	rep->label_unit_us = mf_report_label_unit(rep);
	rep->nsystems = p->nsystems;
	rep->selected = p->o.select && mf_select_active(p->o.select);
	memcpy(rep->left_out, p->left_out, sizeof(rep->left_out));
	return 0;
}

int mf_pipeline_finish(struct mf_pipeline *p, struct mf_report *rep)
{
	const char *what = "making the report";
	struct mf_error e;
	if (finish(p, rep, &what) == 0)
		return 0;
	return fail_nomem(p, &e, "%s (%zu groups)", what, p->ngroups);
}

void mf_pipeline_free(struct mf_pipeline *p)
{
	size_t i;
	if (!p)
		return;
	mf_results_free(p->res, p->ngroups);
	mf_results_free(p->ires, p->nires);
	free(p->shown);
	mf_grouper_free(p->grp);
	mf_grouper_free(p->igrp);
	mf_dedup_free(p->dd);
	mf_parts_pending_drop(&p->pend);
	while (p->held) {
		struct held *h = p->held;
		p->held = h->next;
		held_free(h);
	}
	mf_lparmap_free(p->lpar);
	mf_results_free(p->lres, p->nlres);
	mf_grouper_free(p->lgrp);
	free(p->lpar_rows);
	free(p->expected);
	mf_strtab_free(p->tab);
	mf_tz_free(p->utc);
	if (p->need)
		for (i = 0; i < p->o.kb->nfamilies; i++)
			free(p->need[i]);
	free(p->need);
	free(p->layouts);
	mf_stream_free(p->st);
	free(p->s);
	free(p->s_ahead);
	free(p->seen);
	free(p->left_sys);
	for (i = 0; i < p->ninputs; i++)
		mf_input_free(&p->inputs[i]);
	free(p->inputs);
	mf_notes_free(&p->notes);
	mf_strbuf_free(&p->summary);
	free(p);
}

/* An instant of the samples left out, as the report writes times (mf_report_time): its zone, a sample's own offset with "smf". */
static void left_time(const struct mf_pipeline *p, int64_t us, bool has_off, int32_t off, char *buf, size_t n)
{
	const struct mf_tz *tz = p->o.tz;
	if (!tz || mf_tz_is_utc(tz))
		mf_time_format_at(us, 0, true, buf, n);
	else if (mf_tz_per_record(tz))
		mf_time_format_at(us, has_off ? off : 0, !has_off, buf, n);
	else
		mf_time_format_at(us, mf_tz_offset(tz, us), false, buf, n);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool mf_pipeline_left_out_span(const struct mf_pipeline *p, char *buf, size_t n)
{
	enum { SHOWN = 6 };
	const char **names = NULL;
	size_t i, k = 0, used = 0;
	char a[64], b[64];
	if (!n)
		return false;
	buf[0] = '\0';
	for (i = 1; i < p->nleft_sys; i++)
		k += p->left_sys[i] != 0;
	if (!p->left.any && !k)
		return false;
	if (p->left.any) {
		left_time(p, p->left.start_us, p->left.start_has_off, p->left.start_off, a, sizeof(a));
		left_time(p, p->left.end_us, p->left.end_has_off, p->left.end_off, b, sizeof(b));
		used = (size_t)snprintf(buf, n, "%s to %s", a, b);
	}
	if (k && used < n && (names = malloc(k * sizeof(*names))) != NULL) {
		size_t m = 0, j;
		for (i = 1; i < p->nleft_sys; i++)
			if (p->left_sys[i])
				names[m++] = mf_strtab_get(p->tab, (uint32_t)i);
		qsort(names, m, sizeof(*names), name_cmp);
		used += (size_t)snprintf(buf + used, n - used, "%s%s %s", used ? " (" : "",
					 m == 1 ? "system" : "systems", names[0]);
		for (j = 1; j < m && j < SHOWN && used < n; j++)
			used += (size_t)snprintf(buf + used, n - used, ", %s", names[j]);
		if (m > SHOWN && used < n)
			used += (size_t)snprintf(buf + used, n - used, " and %zu more", m - SHOWN);
		if (p->left.any && used < n)
			snprintf(buf + used, n - used, ")");
		free(names);
	}
	return true;
}

int mf_pipeline_left_out_add(struct mf_pipeline *p, const char *system, bool has_start, int64_t start_us,
			     double seconds, bool has_offset, int32_t utc_offset_s)
{
	uint32_t id;
	if (has_start) {
		struct mf_left_span one = {true,       start_us,     start_us,    has_offset,
					   has_offset, utc_offset_s, utc_offset_s};
		if (isfinite(seconds) && seconds > 0)
			one.end_us += (int64_t)(seconds * 1e6 + 0.5);
		mf_left_span_merge(&p->left, &one);
	}
	if (!system || !system[0])
		return 0;
	id = mf_strtab_intern(p->tab, system, strlen(system));
	return !id || mf_flag_mark(&p->left_sys, &p->nleft_sys, id) < 0 ? MF_ENOMEM : 0;
}
