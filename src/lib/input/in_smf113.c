/* SPDX-License-Identifier: MIT */
/*
 * Reader for SMF dumps: type 113 records become samples of the common model.
 * Subtype 1 holds deltas; subtype 2 cumulative values, differenced here per
 * system, collection run and CPU (smf113-layout.md §6.4).  CPUs close an
 * interval at slightly different moments, so interval starts are snapped to
 * the first start seen for that interval of that system.
 *
 * Both subtypes of one system: an interval is never counted twice.  Subtype 1
 * (IBM's recommendation) is used from a system's first subtype 1 record on;
 * its later subtype 2 records are counted and skipped.  Subtype 2 intervals
 * read before that (a dump that starts with subtype 2 only) stay, and the
 * subtype 1 intervals of the same CPU that they already cover are dropped and
 * counted.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/base/strbuf.h"
#include "base/io.h"
#include "smf_int.h"

enum {
	DROP_LOST,        /* the hardware lost counter data */
	DROP_BASELINE,    /* first subtype 2 record of a run: only the baseline */
	DROP_DECREASING,  /* a cumulative counter went down */
	DROP_ORDER,       /* a subtype 2 record older than the previous one of its CPU */
	DROP_S2_WITH_S1,  /* subtype 2 of a system that also writes subtype 1 */
	DROP_NO_INTERVAL, /* no interval times */
	DROP_S1_COVERED,  /* subtype 1 of an interval already taken from subtype 2 */
	NDROPS
};

static const char *const drop_text[NDROPS] = {
	"intervals with lost counter data (hardware flag)",
	"subtype 2 records that start a collection run (baseline only)",
	"subtype 2 intervals with a decreasing counter (reset)",
	"subtype 2 records out of time order",
	"subtype 2 records of systems that also write subtype 1",
	"subtype 1 records without interval times",
	"subtype 1 intervals already counted from subtype 2 records",
};

struct baseline {
	uint32_t system;
	int64_t cts, ctm;
	unsigned cpu;
	const struct mf_family *family;
	size_t n;
	uint16_t num[512];
	uint64_t val[512];
	struct baseline *next;
};

struct sysinfo {
	uint32_t system;
	bool has_s1;
	uint64_t s2_before_s1;
	struct s2cov {
		unsigned cpu;
		int64_t end_us; /* end of the last subtype 2 interval of this CPU */
	} * cov;
	size_t ncov, capcov;
	int64_t starts[64]; /* canonical interval starts, most recent first */
	size_t nstarts;
	uint64_t intervals;
	struct sysinfo *next;
};

struct smfstate {
	struct mf_smfdec dec;
	struct mf_smf_record rec;
	struct baseline *base[256];
	struct sysinfo *sys;
	uint64_t drops[NDROPS];
	uint64_t bad_records;
	uint64_t mt_lost;     /* subtype 1 intervals whose MT-diagnostic counters were left out */
	uint64_t bad_context; /* type 70 subtype 1 or 99 subtype 14 records that could not be decoded */
	long long bad_context_off;
	int bad_context_type;
	char bad_context_why[300];
	bool at_end; /* the end-of-file checks have run */
};

static int probe(const char *buf, size_t n)
{
	int framing;
	return mf_smf_probe(buf, n, &framing);
}

static int open_smf(struct mf_reader *r, struct mf_error *err)
{
	struct smfstate *s = calloc(1, sizeof(*s));
	if (!s)
		return mf_error_nomem(err, r->path, 0, "opening the SMF reader");
	r->state = s;
	if (mf_smfdec_init(&s->dec, &r->st, r->opts.kb, err))
		return MF_EFORMAT;
	s->dec.context = r->opts.lpar != NULL;
	s->dec.only_context = r->opts.lpar && r->opts.lpar_scan;
	s->dec.stats.compression = mf_source_compression(r->st.src);
	return 0;
}

static struct sysinfo *sys_of(struct smfstate *s, uint32_t system)
{
	struct sysinfo *y;
	for (y = s->sys; y; y = y->next)
		if (y->system == system)
			return y;
	y = calloc(1, sizeof(*y));
	if (!y)
		return NULL;
	y->system = system;
	y->next = s->sys;
	s->sys = y;
	return y;
}

/* The CPU's subtype 2 coverage entry (created when add); NULL if none (or out of memory with add). */
static struct s2cov *cov_of(struct sysinfo *y, unsigned cpu, bool add)
{
	size_t i;
	for (i = 0; i < y->ncov; i++)
		if (y->cov[i].cpu == cpu)
			return &y->cov[i];
	if (!add)
		return NULL;
	if (y->ncov == y->capcov) {
		size_t cap = y->capcov ? y->capcov * 2 : 16;
		struct s2cov *n = realloc(y->cov, cap * sizeof(*n));
		if (!n)
			return NULL;
		y->cov = n;
		y->capcov = cap;
	}
	y->cov[y->ncov].cpu = cpu;
	y->cov[y->ncov].end_us = INT64_MIN;
	return &y->cov[y->ncov++];
}

/* Types of the records read, as "2, 3, 30" (at most a line). */
static void types_text(const struct mf_smf_stats *st, char *buf, size_t n)
{
	size_t t, k = 0;
	buf[0] = '\0';
	for (t = 0; t < 256 && k + 8 < n; t++)
		if (st->by_type[t])
			k += (size_t)snprintf(buf + k, n - k, "%s%zu", k ? ", " : "", t);
}

/* End of the file: what a whole dump shows (no type 113 at all, a missing trailer, lost MT data). */
static int at_end(struct mf_reader *r, struct smfstate *s, struct mf_error *err)
{
	const struct mf_smf_stats *st = &s->dec.stats;
	char types[200];
	if (s->at_end)
		return 0;
	s->at_end = true;
	if (r->opts.lpar_scan)
		return 0; /* the first pass: the second says it all */
	if (st->by_type[113] == 0 && r->opts.lpar && (st->t70_1 || st->t99_14))
		mf_reader_warn(r,
			       "%s: no type 113 records, only the LPAR view's (type 70 subtype 1, type 99 subtype 14): "
			       "they join the type 113 samples of the other inputs",
			       r->path);
	if (s->bad_context)
		mf_reader_warn(r,
			       "%s: %" PRIu64
			       " SMF type 70 subtype 1 or type 99 subtype 14 record%s could not be read (first: type "
			       "%d "
			       "at byte offset %lld: %s): %s no LPAR view",
			       r->path, s->bad_context, s->bad_context == 1 ? "" : "s", s->bad_context_type,
			       s->bad_context_off, s->bad_context_why, s->bad_context == 1 ? "it gives" : "they give");
	if (s->mt_lost)
		mf_reader_warn(r,
			       "%s: %" PRIu64
			       " subtype 1 interval%s flagged lost MT-diagnostic counter data: "
			       "their MT-diagnostic counters are left out",
			       r->path, s->mt_lost, s->mt_lost == 1 ? "" : "s");
	if (st->by_type[2] > st->by_type[3])
		mf_reader_warn(r,
			       "%s: the dump has an IFASMFDP header record (type 2) but no trailer record (type 3): "
			       "it may be cut short",
			       r->path);
	/* A dump of the LPAR view's records only (type 70 and 99 beside the type 113 of another file) is input too. */
	if (st->by_type[113] == 0 && s->bad_records == 0 && !(r->opts.lpar && (st->t70_1 || st->t99_14))) {
		types_text(st, types, sizeof(types));
		return mf_error_set(err, MF_ENODATA, r->path, 0, 0,
				    "no SMF type 113 records in %s (%" PRIu64 " record%s of type%s %s): %s", r->path,
				    st->records, st->records == 1 ? "" : "s", strchr(types, ',') ? "s" : "",
				    types[0] ? types : "none",
				    st->by_type[0xC9]
					    ? "type 201 is what type 113 becomes in an ASCII (text) transfer: "
					      "transfer the dump again in binary with RDWs kept"
					    : "check that SMF collects type 113 and the dump selects it");
	}
	return 0;
}

/*
 * The canonical start of the interval that begins at start_us: a start seen
 * before within a quarter of the interval (at most a minute), else this one,
 * rounded to the second, as a new interval.
 */
static int64_t snap(struct sysinfo *y, int64_t start_us, double seconds)
{
	double tol = isnan(seconds) ? 60e6 : seconds * 1e6 / 4;
	size_t i;
	if (tol > 60e6)
		tol = 60e6;
	for (i = 0; i < y->nstarts; i++)
		if (fabs((double)(start_us - y->starts[i])) <= tol)
			return y->starts[i];
	start_us = (start_us >= 0 ? start_us + 500000 : start_us - 500000) / 1000000 * 1000000;
	memmove(&y->starts[1], &y->starts[0], (sizeof(y->starts) / sizeof(y->starts[0]) - 1) * sizeof(y->starts[0]));
	y->starts[0] = start_us;
	if (y->nstarts < sizeof(y->starts) / sizeof(y->starts[0]))
		y->nstarts++;
	y->intervals++;
	return start_us;
}

static struct baseline **base_slot(struct smfstate *s, uint32_t system, int64_t cts, unsigned cpu)
{
	struct baseline **b = &s->base[(system * 31u + cpu + (unsigned)cts) & 255u];
	for (; *b; b = &(*b)->next)
		if ((*b)->system == system && (*b)->cts == cts && (*b)->cpu == cpu)
			return b;
	return b;
}

static void set_baseline(struct baseline *b, const struct mf_smf_record *rec)
{
	b->ctm = rec->ctm_us;
	b->family = rec->family;
	b->n = rec->n;
	memcpy(b->num, rec->num, rec->n * sizeof(rec->num[0]));
	memcpy(b->val, rec->val, rec->n * sizeof(rec->val[0]));
}

static void fill_identity(struct mf_reader *r, const struct mf_smf_record *rec, struct mf_sample *smp, uint32_t system)
{
	mf_sample_reset(smp);
	smp->family = rec->family;
	smp->machine = rec->machine;
	smp->system = system;
	smp->cpu = rec->cpu;
	smp->pool = rec->pool;
	smp->cpsp = rec->cpsp > 0 ? rec->cpsp : NAN;
	smp->offset = rec->offset;
	smp->has_offset = mf_smf_record_offset(rec, &smp->utc_offset_s);
	(void)r;
}

bool mf_smf_record_offset(const struct mf_smf_record *rec, int32_t *off_s)
{
	/*
	 * The local offset z/OS used: the header's local write time against the
	 * record's TOD write time (UTC), to the quarter hour (offsets are whole
	 * quarters; the TOD clock may run some leap seconds apart).
	 */
	if (rec->has_local && rec->ctm_us) {
		int64_t d = rec->local_us - rec->ctm_us, q = INT64_C(900000000);
		int64_t quarters = (d >= 0 ? d + q / 2 : d - q / 2) / q;
		if (quarters >= -14 * 4 && quarters <= 14 * 4) {
			*off_s = (int32_t)(quarters * 900);
			return true;
		}
	}
	return false;
}

static int next_smf(struct mf_reader *r, struct mf_sample *smp, struct mf_error *err)
{
	struct smfstate *s = r->state;
	struct mf_smf_record *rec = &s->rec;

	for (;;) {
		uint32_t system;
		struct sysinfo *y;
		int rc = mf_smfdec_next(&s->dec, rec, err);
		size_t i;
		if (rc == 0)
			return at_end(r, s, err);
		if (rc < 0) {
			/* The count --skip-bad-records reports too: a record that ends the reading is one. */
			if (rc == MF_EFORMAT || rc == MF_EIO)
				s->bad_records++;
			return rc;
		}
		if (rec->type != 113) {
			/* The LPAR view's records (dec.context): into the map, never a sample. */
			int arc = 0;
			if (r->opts.smf_record_fn && !r->opts.lpar_scan) {
				int frc = r->opts.smf_record_fn(r->opts.smf_record_ctx, rec, err);
				if (frc)
					return frc;
			}
			if (rec->bad) {
				if (!s->bad_context++) {
					s->bad_context_off = rec->offset;
					s->bad_context_type = rec->type;
					snprintf(s->bad_context_why, sizeof(s->bad_context_why), "%s", rec->bad);
				}
			} else if (rec->rmf) {
				arc = mf_lparmap_add_rmf(r->opts.lpar, r->opts.strtab, rec->rmf);
			} else if (rec->topo) {
				arc = mf_lparmap_add_topo(r->opts.lpar, r->opts.strtab, rec->topo);
			}
			if (arc)
				return mf_error_nomem(err, r->path, 0,
						      "keeping the LPAR view (SMF type 70 and 99 records)");
			continue;
		}
		system = mf_strtab_intern(r->opts.strtab, rec->system, strlen(rec->system));
		y = sys_of(s, system);
		if (!y || (rec->system[0] && !system))
			return mf_error_nomem(err, r->path, 0, "keeping the systems read");
		if (rec->subtype == 1) {
			double seconds;
			struct s2cov *cv;
			if (!y->has_s1 && y->s2_before_s1)
				mf_reader_warn(r,
					       "%s: system %s: %" PRIu64
					       " CPU intervals before its first subtype 1 record "
					       "(record %ld) are taken from subtype 2, the later ones from subtype 1",
					       r->path, rec->system, y->s2_before_s1, rec->number);
			y->has_s1 = true;
			if (rec->lost) {
				s->drops[DROP_LOST]++;
				continue;
			}
			if (!rec->has_interval) {
				s->drops[DROP_NO_INTERVAL]++;
				continue;
			}
			/* An interval that this CPU's subtype 2 records already gave (most of it): not twice. */
			cv = cov_of(y, rec->cpu, false);
			if (cv && cv->end_us - rec->start_us > (rec->end_us - rec->start_us) / 2) {
				s->drops[DROP_S1_COVERED]++;
				continue;
			}
			fill_identity(r, rec, smp, system);
			seconds = (double)(rec->end_us - rec->start_us) / 1e6;
			smp->seconds = seconds;
			smp->has_start = true;
			smp->start_us = snap(y, rec->start_us, seconds);
			if (rec->mt_lost)
				s->mt_lost++;
			for (i = 0; i < rec->n; i++) {
				/* Lost MT-diagnostic data: the set is absent for this interval, the rest stands. */
				if (rec->mt_lost && rec->num[i] >= 448 && rec->num[i] < 496)
					continue;
				smp->slot[smp->n] = (uint16_t)rec->family->dense[rec->num[i]];
				smp->value[smp->n++] = rec->val[i];
			}
			if (r->opts.lpar && !r->opts.lpar_nojoin)
				mf_lparmap_join(r->opts.lpar, smp);
			return 1;
		}
		/* Subtype 2: cumulative; differenced per (system, run, CPU). */
		{
			struct baseline **bp = base_slot(s, system, rec->cts_us, rec->cpu), *b = *bp;
			bool bad = false;
			if (y->has_s1) {
				s->drops[DROP_S2_WITH_S1]++;
				continue;
			}
			if (!b) {
				b = calloc(1, sizeof(*b));
				if (!b)
					return mf_error_nomem(err, r->path, 0,
							      "keeping the baselines of subtype 2 records");
				b->system = system;
				b->cts = rec->cts_us;
				b->cpu = rec->cpu;
				*bp = b;
				set_baseline(b, rec);
				s->drops[DROP_BASELINE]++;
				continue;
			}
			if (rec->first) {
				set_baseline(b, rec);
				s->drops[DROP_BASELINE]++;
				continue;
			}
			if (rec->ctm_us <= b->ctm) {
				s->drops[DROP_ORDER]++;
				continue;
			}
			if (rec->lost) {
				s->drops[DROP_LOST]++;
				set_baseline(b, rec);
				continue;
			}
			fill_identity(r, rec, smp, system);
			for (i = 0; i < rec->n && !bad; i++) {
				size_t k;
				/* Same family and counter layout within a run: match by position, else by number. */
				if (b->family != rec->family) {
					bad = true;
					break;
				}
				k = i < b->n && b->num[i] == rec->num[i] ? i : b->n;
				if (k == b->n)
					for (k = 0; k < b->n && b->num[k] != rec->num[i]; k++)
						;
				if (k == b->n)
					continue; /* a counter new in this record: no delta yet */
				if (rec->val[i] < b->val[k]) {
					bad = true;
					break;
				}
				smp->slot[smp->n] = (uint16_t)rec->family->dense[rec->num[i]];
				smp->value[smp->n++] = rec->val[i] - b->val[k];
			}
			if (bad) {
				s->drops[DROP_DECREASING]++;
				set_baseline(b, rec);
				continue;
			}
			{
				struct s2cov *cv = cov_of(y, rec->cpu, true);
				if (!cv)
					return mf_error_nomem(err, r->path, 0, "keeping the CPUs of subtype 2 records");
				cv->end_us = rec->ctm_us;
			}
			smp->seconds = (double)(rec->ctm_us - b->ctm) / 1e6;
			smp->has_start = true;
			smp->start_us = snap(y, b->ctm, smp->seconds);
			set_baseline(b, rec);
			y->s2_before_s1++;
			if (r->opts.lpar && !r->opts.lpar_nojoin)
				mf_lparmap_join(r->opts.lpar, smp);
			return 1;
		}
	}
}

static void close_smf(struct mf_reader *r)
{
	struct smfstate *s = r->state;
	size_t i;
	for (i = 0; i < 256; i++) {
		struct baseline *b = s->base[i], *n;
		for (; b; b = n) {
			n = b->next;
			free(b);
		}
	}
	while (s->sys) {
		struct sysinfo *n = s->sys->next;
		free(s->sys->cov);
		free(s->sys);
		s->sys = n;
	}
	mf_smfdec_free(&s->dec);
	free(s);
	r->state = NULL;
}

static void summary_smf(struct mf_reader *r, struct mf_strbuf *sb)
{
	struct smfstate *s = r->state;
	const struct mf_smf_stats *st = &s->dec.stats;
	uint64_t other = 0, intervals = 0;
	struct sysinfo *y;
	size_t t, i;

	for (t = 0; t < 256; t++)
		if (t != 113)
			other += st->by_type[t];
	for (y = s->sys; y; y = y->next)
		intervals += y->intervals;
	mf_strbuf_printf(sb, "%s: SMF dump, %s framing, compression %s: %" PRIu64 " records, %" PRIu64 " bytes\n",
			 r->path, st->framing, st->compression ? st->compression : "none", st->records, st->bytes);
	mf_strbuf_printf(sb, "  type 113: %" PRIu64 " subtype 1, %" PRIu64 " subtype 2", st->t113[1], st->t113[2]);
	if (st->t113[0])
		mf_strbuf_printf(sb, ", %" PRIu64 " other subtypes", st->t113[0]);
	if (st->segments)
		mf_strbuf_printf(sb, " (%" PRIu64 " spanned records reassembled)", st->segments);
	mf_strbuf_printf(sb, "\n  other records: %" PRIu64, other);
	for (t = 0, i = 0; t < 256; t++) {
		if (t == 113 || !st->by_type[t])
			continue;
		mf_strbuf_printf(sb, "%stype %zu: %" PRIu64, i++ ? ", " : " (", t, st->by_type[t]);
	}
	mf_strbuf_printf(sb, "%s\n  intervals: %" PRIu64 "\n", i ? ")" : "", intervals);
	if (st->t70_1 || st->t99_14)
		mf_strbuf_printf(sb,
				 "  LPAR view: %" PRIu64 " type 70 subtype 1 (RMF CPU activity), %" PRIu64
				 " type 99 subtype 14 (topology)%s\n",
				 st->t70_1, st->t99_14, s->bad_context ? ", some not readable (see the warning)" : "");
	for (i = 0; i < NDROPS; i++)
		if (s->drops[i])
			mf_strbuf_printf(sb, "  dropped %" PRIu64 ": %s\n", s->drops[i], drop_text[i]);
	if (s->mt_lost)
		mf_strbuf_printf(sb,
				 "  MT-diagnostic counters left out: %" PRIu64
				 " interval%s with lost MT-diagnostic data\n",
				 s->mt_lost, s->mt_lost == 1 ? "" : "s");
	if (s->bad_records)
		mf_strbuf_printf(sb, "  bad records: %" PRIu64 " (see the messages above)\n", s->bad_records);
}

/* The counts of summary_smf, one by one (mf_reader_counts). */
static void counts_smf(struct mf_reader *r, mf_count_fn *fn, void *ctx)
{
	struct smfstate *s = r->state;
	const struct mf_smf_stats *st = &s->dec.stats;
	static const char *const sub[3] = {"type 113 other subtypes", "type 113 subtype 1", "type 113 subtype 2"};
	char what[32];
	size_t t;

	for (t = 1; t < 4; t++)
		if (st->t113[t % 3])
			fn(ctx, MF_COUNT_RECORDS, sub[t % 3], st->t113[t % 3]);
	for (t = 0; t < 256; t++) {
		if (t == 113 || !st->by_type[t])
			continue;
		snprintf(what, sizeof(what), "type %zu", t);
		fn(ctx, MF_COUNT_RECORDS, what, st->by_type[t]);
	}
	/* Bad records are errors, or skipped and counted by the caller (--skip-bad-records). */
	for (t = 0; t < NDROPS; t++)
		if (s->drops[t])
			fn(ctx, MF_COUNT_DROPPED, drop_text[t], s->drops[t]);
}

const struct mf_reader_ops mf_smf_reader = {
	.name = "smf",
	.probe = probe,
	.open = open_smf,
	.next = next_smf,
	.close = close_smf,
	.summary = summary_smf,
	.counts = counts_smf,
};

/* The record-level API used by `mfstat smf list`. */
struct mf_smf {
	struct mf_reader *r;
	struct mf_strtab *tab;
};

int mf_smf_open(struct mf_smf **out, const char *path, const struct mf_kb *kb, struct mf_error *err)
{
	struct mf_reader_opts ro = {0};
	struct mf_smf *h = calloc(1, sizeof(*h));
	int rc;
	*out = NULL;
	if (!h)
		return mf_error_nomem(err, path, 0, "opening the SMF reader");
	h->tab = mf_strtab_new();
	ro.kb = kb;
	ro.format = "smf";
	ro.strtab = h->tab;
	rc = h->tab ? mf_reader_open(&h->r, path, &ro, err) : mf_error_nomem(err, path, 0, "opening the SMF reader");
	if (rc) {
		mf_smf_close(h);
		return rc;
	}
	/* The listing shows the LPAR view's records too (type 70 subtype 1, type 99 subtype 14). */
	((struct smfstate *)h->r->state)->dec.context = true;
	*out = h;
	return 0;
}

int mf_smf_next(struct mf_smf *h, struct mf_smf_record *rec, struct mf_error *err)
{
	struct smfstate *s = h->r->state;
	return mf_smfdec_next(&s->dec, rec, err);
}

const struct mf_smf_stats *mf_smf_stats(const struct mf_smf *h)
{
	const struct smfstate *s = h->r->state;
	return &s->dec.stats;
}

void mf_smf_close(struct mf_smf *h)
{
	if (!h)
		return;
	mf_reader_close(h->r);
	mf_strtab_free(h->tab);
	free(h);
}
