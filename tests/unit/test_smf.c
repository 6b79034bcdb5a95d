/* SPDX-License-Identifier: MIT */
/* SMF: deblocking (RDW, VBS, spanned), type 113 decoding, subtype 2 differencing, bad data. */
#include <math.h>

#include "pipeline.h"
#include "smfbuild.h"

MF_TEST_KB_FIXTURE()

static uint64_t vals[512];
#define T0 INT64_C(1741046400000000) /* 2025-03-04T00:00:00Z */

static void fill_vals(uint64_t seed)
{
	unsigned i;
	for (i = 0; i < 512; i++)
		vals[i] = 1000 + i * 7 + seed;
	vals[0] = 900000000000ULL + seed; /* cycles */
	vals[1] = 300000000000ULL;        /* instructions */
}

static struct sb_rec s1(const char *sid, unsigned cpu, int64_t start, double secs)
{
	struct sb_rec r = {1, sid, cpu, 0, 3931, 3, 7, 5200, start, start + (int64_t)(secs * 1e6), T0, 0, vals, 0, 0};
	return r;
}

/* Reads a dump from memory through the smf reader; returns the samples' count, fills stats. */
struct run {
	struct mf_strtab *tab;
	struct mf_reader *r;
	struct mf_sample s;
	struct mf_error e;
};

static int open_run(struct run *run, const struct bbuf *b)
{
	struct mf_reader_opts ro = {0};
	memset(run, 0, sizeof(*run));
	run->tab = mf_strtab_new();
	ro.kb = kb;
	ro.strtab = run->tab;
	mf_error_clear(&run->e);
	return mf_reader_open_mem(&run->r, "t.smf", b->p, b->n, &ro, &run->e);
}

static void close_run(struct run *run)
{
	mf_reader_close(run->r);
	mf_strtab_free(run->tab);
}

static uint64_t sample_value(const struct mf_sample *s, unsigned num)
{
	size_t i;
	for (i = 0; i < s->n; i++)
		if (s->slot[i] == (uint16_t)s->family->dense[num])
			return s->value[i];
	return UINT64_MAX;
}

static void rdw_stream(void **state)
{
	struct bbuf b = {0};
	struct sb_rec r;
	struct run run;
	(void)state;
	fill_vals(0);
	sb_other(&b, 2, 18);
	r = s1("SYSA", 3, T0, 900.25);
	r.cls = 4;
	sb_record(&b, &r);
	sb_other(&b, 70, 300);
	sb_other(&b, 3, 18);
	assert_int_equal(open_run(&run, &b), 0);
	assert_string_equal(mf_reader_format(run.r), "smf");
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_string_equal(mf_strtab_get(run.tab, run.s.system), "SYSA");
	assert_int_equal(run.s.cpu, 3);
	assert_int_equal(run.s.pool, MF_POOL_ZIIP);
	assert_string_equal(run.s.family->key, "z16");
	assert_true(run.s.cpsp == 5200);
	assert_true(fabs(run.s.seconds - 900.25) < 1e-9);
	assert_int_equal(run.s.start_us, T0);
	assert_true(sample_value(&run.s, 0) == vals[0]);
	assert_true(sample_value(&run.s, 33) == vals[33]);
	assert_true(sample_value(&run.s, 143) == vals[143]);
	assert_true(sample_value(&run.s, 449) == vals[449]);
	assert_true(sample_value(&run.s, 133) == UINT64_MAX); /* z16 has no E133: not in the sample */
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 0);
	{
		struct mf_strbuf sb;
		mf_strbuf_init(&sb);
		mf_reader_summary(run.r, &sb);
		assert_non_null(strstr(mf_strbuf_str(&sb), "4 records"));
		assert_non_null(strstr(mf_strbuf_str(&sb), "type 113: 1 subtype 1, 0 subtype 2"));
		if (!strstr(mf_strbuf_str(&sb), "other records: 3 (type 2: 1, type 3: 1, type 70: 1)"))
			fail_msg("summary: %s", mf_strbuf_str(&sb));
		mf_strbuf_free(&sb);
	}
	close_run(&run);
	free(b.p);
}

/* Offsets of the segment descriptors of a VBS buffer, in order; returns their count. */
static size_t vbs_segments(const struct bbuf *v, size_t *off, size_t max)
{
	size_t pos = 0, n = 0;
	while (pos + 4 <= v->n) {
		size_t blen = (size_t)v->p[pos] << 8 | v->p[pos + 1], q = pos + 4;
		while (q + 4 <= pos + blen && n < max) {
			off[n++] = q;
			q += (size_t)v->p[q] << 8 | v->p[q + 1];
		}
		pos += blen;
	}
	return n;
}

/*
 * --skip-bad-records on VBS: a broken chain is one bad record with its own number, reported
 * once (not once per segment), and the records after it keep their numbers; the reader's count
 * of bad records is the number of errors it returned.
 */
static void vbs_bad_chains(void **state)
{
	struct bbuf rdw = {0}, vbs = {0};
	struct sb_rec r;
	struct run run;
	size_t off[256], nseg, k, rec = 0, first[8] = {0}, last[8] = {0};
	long bad_rec[8];
	int nbad = 0, good = 0, rc;
	(void)state;
	fill_vals(0);
	for (k = 0; k < 5; k++) {
		r = s1("SYSA", (unsigned)k, T0, 900);
		sb_record(&rdw, &r);
	}
	sb_vbs(&vbs, &rdw, 600);
	nseg = vbs_segments(&vbs, off, 256);
	for (k = 0; k < nseg; k++) {
		unsigned code = vbs.p[off[k] + 2];
		if (code == 0 || code == 1)
			first[++rec] = k;
		last[rec] = k;
	}
	assert_int_equal(rec, 5);
	assert_true(last[2] - first[2] >= 2); /* record 2 spans a first, middles and a last segment */
	/* Record 2 loses its first segment (middle, middle..., last without a first). */
	vbs.p[off[first[2]] + 2] = 3;
	/* Record 4 loses its last segment: record 5's first segment breaks its chain. */
	vbs.p[off[last[4]] + 2] = 3;
	assert_int_equal(open_run(&run, &vbs), 0);
	while ((rc = mf_reader_next(run.r, &run.s, &run.e)) != 0) {
		if (rc == 1) {
			good++;
			continue;
		}
		assert_int_equal(rc, MF_EFORMAT);
		assert_true(nbad < 8);
		bad_rec[nbad++] = run.e.record;
	}
	assert_int_equal(nbad, 2);
	assert_int_equal(bad_rec[0], 2);
	assert_int_equal(bad_rec[1], 4);
	assert_int_equal(good, 3);
	{
		struct mf_strbuf sb;
		mf_strbuf_init(&sb);
		mf_reader_summary(run.r, &sb);
		if (!strstr(mf_strbuf_str(&sb), "bad records: 2 "))
			fail_msg("summary: %s", mf_strbuf_str(&sb));
		mf_strbuf_free(&sb);
	}
	close_run(&run);
	/* A complete segment inside a chain: the chain is bad, the complete record is read. */
	vbs.n = 0;
	rdw.n = 0;
	r = s1("SYSA", 0, T0, 900);
	sb_record(&rdw, &r);
	sb_other(&rdw, 2, 18);
	r = s1("SYSA", 1, T0, 900);
	sb_record(&rdw, &r);
	sb_vbs(&vbs, &rdw, 600);
	nseg = vbs_segments(&vbs, off, 256);
	/* The first record's last segment becomes a middle one; the type 2 record follows it. */
	for (k = 0; k < nseg && vbs.p[off[k] + 2] != 2; k++)
		;
	vbs.p[off[k] + 2] = 3;
	assert_int_equal(open_run(&run, &vbs), 0);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), MF_EFORMAT);
	assert_int_equal(run.e.record, 1);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_int_equal(run.s.cpu, 1);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 0);
	{
		struct mf_strbuf sb;
		mf_strbuf_init(&sb);
		mf_reader_summary(run.r, &sb);
		if (!strstr(mf_strbuf_str(&sb), "type 2: 1") || !strstr(mf_strbuf_str(&sb), "bad records: 1 "))
			fail_msg("summary: %s", mf_strbuf_str(&sb));
		mf_strbuf_free(&sb);
	}
	close_run(&run);
	free(rdw.p);
	free(vbs.p);
}

/* The same records as VBS blocks, spanned over small blocks, give the same samples. */
static void vbs_spanned(void **state)
{
	size_t blk[] = {27998, 4096, 600, 64};
	size_t t;
	(void)state;
	for (t = 0; t < sizeof(blk) / sizeof(blk[0]); t++) {
		struct bbuf rdw = {0}, vbs = {0};
		struct run a, c;
		struct sb_rec r;
		int ra, rc;
		unsigned cpu;
		fill_vals(t);
		sb_other(&rdw, 2, 18);
		for (cpu = 0; cpu < 3; cpu++) {
			r = s1("SYSB", cpu, T0, 900);
			r.short_values = cpu == 1;
			sb_record(&rdw, &r);
			sb_other(&rdw, 30, 1000 + cpu);
		}
		sb_vbs(&vbs, &rdw, blk[t]);
		assert_int_equal(open_run(&a, &rdw), 0);
		assert_int_equal(open_run(&c, &vbs), 0);
		for (;;) {
			ra = mf_reader_next(a.r, &a.s, &a.e);
			rc = mf_reader_next(c.r, &c.s, &c.e);
			if (rc < 0)
				fail_msg("block size %zu: %s at 0x%llx", blk[t], c.e.msg,
					 (unsigned long long)c.e.offset);
			assert_int_equal(ra, rc);
			if (ra == 0)
				break;
			assert_int_equal(a.s.n, c.s.n);
			assert_memory_equal(a.s.value, c.s.value, a.s.n * sizeof(a.s.value[0]));
			if (c.s.cpu != 1) /* cpu 1 has 4-byte counters */
				assert_true(sample_value(&c.s, 1) == vals[1]);
		}
		close_run(&a);
		close_run(&c);
		free(rdw.p);
		free(vbs.p);
	}
}

/* Every bad-data case names the offset and what is wrong; never a crash. */
static void bad_data(void **state)
{
	struct bbuf good = {0}, b = {0};
	struct sb_rec r;
	struct run run;
	size_t len;
	(void)state;
	fill_vals(0);
	r = s1("SYSA", 0, T0, 900);
	sb_record(&good, &r);
	len = good.n;

	/* Truncated: the record's length runs past the end of the file. */
	bb_bytes(&b, good.p, len - 10);
	assert_int_equal(open_run(&run, &b), 0);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), MF_EIO);
	assert_non_null(strstr(run.e.msg, "runs past the end of the file"));
	assert_int_equal(run.e.offset, 0);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 0);
	close_run(&run);

	/* CSVN that does not match the machine type. */
	b.n = 0;
	r.csvn = 4;
	sb_record(&b, &r);
	bb_bytes(&b, good.p, len);
	assert_int_equal(open_run(&run, &b), 0);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), MF_EFORMAT);
	assert_non_null(strstr(run.e.msg, "CSVN 4 does not match machine type 3931"));
	assert_int_equal(run.e.record, 1);
	/* ... and the next record is read (skipping). */
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	close_run(&run);
	r.csvn = 7;

	/* A set size that does not match the versions. */
	b.n = 0;
	r.bad_set_size = 1;
	sb_record(&b, &r);
	assert_int_equal(open_run(&run, &b), 0);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), MF_EFORMAT);
	/* Item 4: the set, the count found, the count expected, and that this dump is the first seen. */
	assert_non_null(strstr(run.e.msg,
			       "counter set 4 (type 4, extended) has 159 counters, 160 expected for CFVN 3 "
			       "CSVN 7: the first dump seen with this count; please report it"));
	close_run(&run);
	r.bad_set_size = 0;

	/* Data section offset outside the record. */
	b.n = 0;
	bb_bytes(&b, good.p, len);
	bb_set(&b, 44, 60000, 4);
	assert_int_equal(open_run(&run, &b), 0);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), MF_EFORMAT);
	assert_non_null(strstr(run.e.msg, "data section (offset 60000"));
	close_run(&run);

	/* Unknown machine type. */
	b.n = 0;
	r.type = 1234;
	sb_record(&b, &r);
	assert_int_equal(open_run(&run, &b), 0);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), MF_EFORMAT);
	assert_non_null(strstr(run.e.msg, "unknown machine type 1234"));
	close_run(&run);
	r.type = 3931;

	/* VBS: a last segment without a first one, then a good record. */
	{
		struct bbuf rdw = {0}, vbs = {0};
		sb_other(&rdw, 2, 18);
		bb_bytes(&rdw, good.p, len);
		sb_vbs(&vbs, &rdw, 27998);
		/* Turn the record's complete segment (code 0) into a last segment (code 2). */
		vbs.p[4 + 18 + 2] = 2;
		assert_int_equal(open_run(&run, &vbs), 0);
		assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), MF_EFORMAT);
		assert_non_null(strstr(run.e.msg, "last segment without a first one"));
		assert_int_equal(run.e.offset, 4 + 18);
		assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 0);
		close_run(&run);
		/* A first segment followed by a complete record: the chain is broken. */
		vbs.n = 0;
		rdw.n = 0;
		bb_bytes(&rdw, good.p, len);
		bb_bytes(&rdw, good.p, len);
		sb_vbs(&vbs, &rdw, 600);
		/* Cut the first record's chain: its second segment becomes a complete record. */
		vbs.p[600 + 4 + 2] = 0;
		assert_int_equal(open_run(&run, &vbs), 0);
		assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), MF_EFORMAT);
		assert_non_null(strstr(run.e.msg, "broken segment chain"));
		close_run(&run);
		free(rdw.p);
		free(vbs.p);
	}
	/* The lost-data flag drops the interval, counted. */
	b.n = 0;
	r.flags = 0x8000;
	sb_record(&b, &r);
	assert_int_equal(open_run(&run, &b), 0);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 0);
	{
		struct mf_strbuf sb;
		mf_strbuf_init(&sb);
		mf_reader_summary(run.r, &sb);
		assert_non_null(strstr(mf_strbuf_str(&sb), "dropped 1: intervals with lost counter data"));
		mf_strbuf_free(&sb);
	}
	close_run(&run);
	free(good.p);
	free(b.p);
}

/*
 * A spanned record that never ends: a first segment, then middle segments past the 1 MiB a
 * reassembled record may have (README, Reliability).  The reader stops the chain at the limit
 * with an error naming it, memory stays near the limit, and the complete record after the rest
 * of the chain is read.  The blocks are written byte by byte: BDW (length, 0), SDW (length,
 * segment code 1 first, 3 middle, 0), then the data.
 */
static void vbs_endless_chain(void **state)
{
	struct bbuf b = {0}, good = {0}, rdw = {0}, tail = {0};
	struct sb_rec r;
	struct run run;
	unsigned char blk[8 + 32000];
	unsigned k;
	int rc, errors = 0, samples = 0;
	(void)state;
	memset(blk, 0x40, sizeof(blk));
	for (k = 0; k < 40; k++) { /* 40 x 32,000 bytes: 1.28 MB, over the 1,048,576 */
		blk[0] = (unsigned char)(sizeof(blk) >> 8);
		blk[1] = (unsigned char)(sizeof(blk) & 0xff);
		blk[2] = blk[3] = 0;
		blk[4] = (unsigned char)((sizeof(blk) - 4) >> 8);
		blk[5] = (unsigned char)((sizeof(blk) - 4) & 0xff);
		blk[6] = k == 0 ? 1 : 3;
		blk[7] = 0;
		bb_bytes(&b, blk, sizeof(blk));
	}
	fill_vals(0);
	r = s1("SYSA", 0, T0, 900);
	sb_record(&good, &r);
	bb_bytes(&rdw, good.p, good.n);
	sb_vbs(&tail, &rdw, 27998);
	bb_bytes(&b, tail.p, tail.n);
	assert_int_equal(open_run(&run, &b), 0);
	while ((rc = mf_reader_next(run.r, &run.s, &run.e)) != 0) {
		if (rc == 1) {
			samples++;
			continue;
		}
		assert_int_equal(rc, MF_EFORMAT);
		if (!errors++)
			assert_non_null(strstr(run.e.msg, "a spanned record longer than 1048576 bytes"));
		assert_true(errors < 40);
	}
	assert_int_equal(errors, 1);
	assert_true(samples >= 1);
	close_run(&run);
	free(b.p);
	free(good.p);
	free(rdw.p);
	free(tail.p);
}

/* Subtype 2: baseline, deltas, a decreasing counter, lost data, a new run. */
static void subtype2(void **state)
{
	struct bbuf b = {0};
	struct sb_rec r;
	struct run run;
	static uint64_t v[6][512];
	int i;
	(void)state;
	for (i = 0; i < 6; i++) {
		unsigned k;
		for (k = 0; k < 512; k++)
			v[i][k] = 1000000 + (uint64_t)i * (k + 1) * 10;
	}
	v[3][1] = 5; /* instructions go down: a reset */
	for (i = 0; i < 6; i++) {
		r = s1("SYSC", 7, 0, 0);
		r.subtype = 2;
		r.val = v[i];
		r.cts_us = i < 5 ? T0 : T0 + 5000000000LL;
		r.end_us = T0 + (int64_t)i * 900000000 + (i == 2 ? 250000 : 0);
		r.flags = i == 0 || i == 5 ? 0x8000 : 0x4000;
		sb_record(&b, &r);
	}
	assert_int_equal(open_run(&run, &b), 0);
	/* Record 0 seeds; record 1 gives the first delta over 900 s. */
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_int_equal(run.s.start_us, T0);
	assert_true(fabs(run.s.seconds - 900) < 1e-9);
	assert_true(sample_value(&run.s, 0) == 10);     /* (1 - 0) * (0 + 1) * 10 */
	assert_true(sample_value(&run.s, 128) == 1290); /* (1 - 0) * 129 * 10 */
	/* Record 2 (0.25 s late): delta against record 1, interval 900.25 s. */
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_true(fabs(run.s.seconds - 900.25) < 1e-9);
	assert_true(sample_value(&run.s, 0) == 10);
	/* Record 3 decreases B1: dropped and the baseline reset; record 4 differs from record 3. */
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_true(fabs(run.s.seconds - 900) < 1e-9);
	assert_true(sample_value(&run.s, 0) == 10);
	assert_true(sample_value(&run.s, 1) == 1000000 + 4 * 2 * 10 - 5);
	/* Record 5 starts a new run (another CTS): baseline only. */
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 0);
	{
		struct mf_strbuf sb;
		mf_strbuf_init(&sb);
		mf_reader_summary(run.r, &sb);
		assert_non_null(strstr(mf_strbuf_str(&sb), "type 113: 0 subtype 1, 6 subtype 2"));
		assert_non_null(strstr(mf_strbuf_str(&sb), "dropped 2: subtype 2 records that start a collection run"));
		assert_non_null(strstr(mf_strbuf_str(&sb), "dropped 1: subtype 2 intervals with a decreasing counter"));
		mf_strbuf_free(&sb);
	}
	close_run(&run);
	free(b.p);
}

/* CPUs that close an interval a fraction of a second apart form one interval group. */
static void jitter(void **state)
{
	struct bbuf b = {0};
	struct sb_rec r;
	struct pipe p;
	unsigned cpu;
	int iv;
	(void)state;
	fill_vals(0);
	for (iv = 0; iv < 3; iv++)
		for (cpu = 0; cpu < 4; cpu++) {
			int64_t j =
				(int64_t)((cpu * 137 + (unsigned)iv * 71) % 400) * 1000 - 200000; /* -0.2 .. +0.2 s */
			r = s1("SYSJ", cpu, T0 + iv * INT64_C(900000000) + j, 900 + (double)cpu * 0.01);
			sb_record(&b, &r);
		}
	{
		/* Through the CSV-free pipeline helper: feed the dump as the "CSV" text. */
		struct mf_reader_opts ro = {0};
		struct mf_reader *rd;
		struct mf_sample *s = malloc(sizeof(*s));
		struct mf_error e;
		size_t n, i;
		memset(&p, 0, sizeof(p));
		p.kb = kb;
		p.tab = mf_strtab_new();
		p.g = mf_grouper_new(MF_BY_DEFAULT);
		ro.kb = kb;
		ro.strtab = p.tab;
		assert_int_equal(mf_reader_open_mem(&rd, "j.smf", b.p, b.n, &ro, &e), 0);
		while (mf_reader_next(rd, s, &e) == 1)
			assert_int_equal(mf_grouper_add(p.g, s), 0);
		mf_reader_close(rd);
		free(s);
		p.groups = mf_grouper_groups(p.g, p.tab, &n);
		p.n = n;
		assert_int_equal(n, 3);
		p.res = mf_results_new(p.groups, n);
		for (i = 0; i < n; i++) {
			mf_metrics_compute(kb, p.groups[i], NULL, &p.res[i]);
			assert_int_equal(mf_group_cpus(p.groups[i]), 4);
			/* INTERVAL: the mean of the records' own lengths, 900.015 s. */
			assert_true(fabs(p.res[i].interval - 900.015) < 1e-9);
			assert_int_equal(p.groups[i]->start_us % 1000000, 0);
		}
		pipe_free(&p);
	}
	free(b.p);
}

/* The record-level API of `mfstat smf list`. */
static void list_api(void **state)
{
	struct bbuf b = {0};
	struct sb_rec r;
	char path[] = "/tmp/mfstat-smf-XXXXXX";
	int fd = mkstemp(path);
	struct mf_smf *h;
	struct mf_smf_record *rec = malloc(sizeof(*rec));
	struct mf_error e;
	(void)state;
	fill_vals(0);
	sb_other(&b, 2, 18);
	r = s1("SYSL", 5, T0, 900);
	sb_record(&b, &r);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b.p, b.n), (ssize_t)b.n);
	close(fd);
	assert_int_equal(mf_smf_open(&h, path, kb, &e), 0);
	assert_int_equal(mf_smf_next(h, rec, &e), 1);
	assert_int_equal(rec->offset, 18);
	assert_int_equal(rec->number, 2);
	assert_string_equal(rec->system, "SYSL");
	assert_int_equal(rec->machine_type, 3931);
	assert_int_equal(rec->sets, (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 6));
	assert_int_equal(mf_smf_next(h, rec, &e), 0);
	assert_string_equal(mf_smf_stats(h)->framing, "RDW");
	mf_smf_close(h);
	unlink(path);
	free(rec);
	free(b.p);
}

/*
 * Records written byte by byte from the tables of smf113-layout.md (§2-§6, Source A), with
 * neither smfbuild.h nor gensmf: every field at the offset the reference gives it.
 */
static void be(unsigned char *p, uint64_t v, int width)
{
	int i;
	for (i = 0; i < width; i++)
		p[i] = (unsigned char)(v >> (8 * (width - 1 - i)));
}

/* EBCDIC (037) for the digits and capitals the records use. */
static void ebc_ref(unsigned char *p, const char *s, size_t width)
{
	static const char from[] = " 0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	static const unsigned char to[] = {0x40, 0xF0, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8, 0xF9, 0xC1, 0xC2,
					   0xC3, 0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xD1, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6,
					   0xD7, 0xD8, 0xD9, 0xE2, 0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9};
	size_t i;
	for (i = 0; i < width; i++) {
		char c = i < strlen(s) ? s[i] : ' ';
		p[i] = to[strchr(from, c) - from];
	}
}

/* Header §2, self-defining section §3, product section §4 (20 bytes), ID section §4 (40 bytes). */
static size_t ref_head(unsigned char *r, unsigned subtype, unsigned dln, int64_t istart, int64_t iend)
{
	be(r + 4, 0x5E, 1);                              /* SMF113FLG */
	be(r + 5, 113, 1);                               /* SMF113RTY */
	be(r + 6, 2970000, 4);                           /* SMF113TME 08:15:00.00 */
	be(r + 10, 0x0125100F, 4);                       /* SMF113DTE 2025.100 */
	ebc_ref(r + 14, "SYSR", 4);                      /* SMF113SID */
	ebc_ref(r + 18, "", 4);                          /* SMF113WID */
	be(r + 22, subtype, 2);                          /* SMF113STP */
	be(r + 26, 24, 2);                               /* SMF113SDL */
	be(r + 28, 52, 4);                               /* SMF113SOF */
	be(r + 32, 20, 2);                               /* SMF113SLN */
	be(r + 34, 1, 2);                                /* SMF113SON */
	be(r + 36, 72, 4);                               /* SMF113IOF */
	be(r + 40, 40, 2);                               /* SMF113ILN */
	be(r + 42, 1, 2);                                /* SMF113ION */
	be(r + 44, 112, 4);                              /* SMF113DOF */
	be(r + 48, dln, 2);                              /* SMF113DLN */
	be(r + 50, 1, 2);                                /* SMF113DON */
	ebc_ref(r + 52 + 2, "01", 2);                    /* SMF113RVN at +2 */
	ebc_ref(r + 52 + 4, "HIS", 8);                   /* SMF113PNM at +4 */
	ebc_ref(r + 52 + 12, "SP730", 8);                /* SMF113OSL at +12 */
	ebc_ref(r + 72, "HIS", 8);                       /* SMF113JBN */
	ebc_ref(r + 72 + 16, "HIS", 8);                  /* SMF113STP (step name) */
	be(r + 72 + 24, istart ? tod_of(istart) : 0, 8); /* SMF113INTERVALSTART */
	be(r + 72 + 32, iend ? tod_of(iend) : 0, 8);     /* SMF113INTERVALEND */
	return 112;
}

/* A z16 subtype 2 record: basic (6) and problem-state (2) sets; value of counter n is base + n. */
static size_t ref_s2(unsigned char *r, unsigned cpu, unsigned cls, unsigned cf, int64_t ctm, uint64_t base)
{
	static const unsigned first[] = {0, 32}, csn[] = {6, 2};
	size_t d = ref_head(r, 2, 84, 0, 0), css = d + 84, cds = css + 2 * 4, len = cds + 8 * 8, k, j, slot = 0;
	unsigned char *h = r + d;
	be(h + 0, tod_of(T0 - 1000000), 8);      /* SMF113_2_CTS */
	be(h + 8, tod_of(ctm), 8);               /* SMF113_2_CTM */
	be(h + 16, cpu & 0xFF, 1);               /* SMF113_2_CPU# (deprecated) */
	be(h + 17, cls, 1);                      /* SMF113_2_CpuProcClass */
	be(h + 18, cf, 2);                       /* SMF113_2_CF */
	be(h + 20, 3, 2);                        /* SMF113_2_CTRVN1 */
	be(h + 22, 7, 2);                        /* SMF113_2_CTRVN2 */
	be(h + 24, css, 4);                      /* SMF113_2_CSOF */
	be(h + 28, 4, 2);                        /* SMF113_2_CSLN */
	be(h + 30, 2, 2);                        /* SMF113_2_CSON */
	be(h + 32, cds, 4);                      /* SMF113_2_CDOF */
	be(h + 36, 8, 2);                        /* SMF113_2_CDLN */
	be(h + 38, 8, 2);                        /* SMF113_2_CDON: counters of all sets */
	be(h + 40, 5200, 4);                     /* SMF113_2_CPSP */
	ebc_ref(h + 44, "3931", 4);              /* SMF113_2_MachType */
	ebc_ref(h + 48, "A01", 16);              /* SMF113_2_MachModel */
	be(h + 64, cpu, 2);                      /* SMF113_2_CpuId */
	ebc_ref(h + 68, "00000000000ABCDE", 16); /* SMF113_2_MachSeqCode at 68 */
	for (k = 0; k < 2; k++) {
		be(r + css + 4 * k, k + 1, 1);      /* SMF113_2_CST: one byte */
		be(r + css + 4 * k + 2, csn[k], 2); /* SMF113_2_CSN at +2 */
		for (j = 0; j < csn[k]; j++, slot++)
			be(r + cds + 8 * slot, base + first[k] + j, 8); /* SMF113_2_CR */
	}
	be(r, len, 2); /* SMF113LEN = RDW LL; SMF113SEG 0 */
	return len;
}

/* A z16 subtype 1 record: basic (6, SCDS) and MT-diagnostic (48, LCDS) sets; counter n is base + n. */
static size_t ref_s1(unsigned char *r, unsigned cpu, unsigned cls, unsigned flags, int64_t start, uint64_t base)
{
	static const unsigned type[] = {1, 6}, first[] = {0, 448}, cdon[] = {6, 48}, cdln[] = {4, 8};
	size_t d = ref_head(r, 1, 78, start, start + 900000000), css = d + 78, cd = css + 2 * 12, k, j;
	unsigned char *h = r + d;
	be(h + 0, tod_of(T0 - 1000000), 8);      /* SMF113_1_CTS */
	be(h + 8, tod_of(start + 900000000), 8); /* SMF113_1_CTM */
	be(h + 16, cpu, 2);                      /* SMF113_1_CpuId */
	be(h + 18, cls, 1);                      /* SMF113_1_CpuProcClass */
	be(h + 20, 5200, 4);                     /* SMF113_1_CpuSpeed */
	ebc_ref(h + 24, "3931", 4);              /* SMF113_1_MachType */
	ebc_ref(h + 28, "A01", 16);              /* SMF113_1_MachModel */
	be(h + 44, 1, 2);                        /* SMF113_1_CtrVersion0 */
	be(h + 46, 3, 2);                        /* SMF113_1_CtrVersion1 */
	be(h + 48, 7, 2);                        /* SMF113_1_CtrVersion2 */
	be(h + 50, flags, 2);                    /* SMF113_1_Flags */
	be(h + 52, css, 4);                      /* SMF113_1_CSOF */
	be(h + 56, 12, 2);                       /* SMF113_1_CSLN */
	be(h + 58, 2, 2);                        /* SMF113_1_CSON */
	ebc_ref(h + 60, "00000000000ABCDE", 16); /* SMF113_1_MachSeqCode */
	be(h + 76, cpu, 2);                      /* SMF113_1_CoreId */
	for (k = 0; k < 2; k++) {
		unsigned char *e = r + css + 12 * k;
		be(e + 0, type[k], 2);                   /* SMF113_1_CSType */
		be(e + 2, cdln[k] == 8 ? 0x8000 : 0, 2); /* SMF113_1_CSFlags: CSUseLCDS */
		be(e + 4, cd, 4);                        /* SMF113_1_CDOF */
		be(e + 8, cdln[k], 2);                   /* SMF113_1_CDLN */
		be(e + 10, cdon[k], 2);                  /* SMF113_1_CDON */
		for (j = 0; j < cdon[k]; j++, cd += cdln[k])
			be(r + cd, base + first[k] + j, (int)cdln[k]);
	}
	be(r, cd, 2);
	return cd;
}

static const char *summary_of(struct run *run, struct mf_strbuf *sb)
{
	mf_strbuf_init(sb);
	mf_reader_summary(run->r, sb);
	return mf_strbuf_str(sb);
}

/* Item 1-3: subtype 2 from the reference's table alone; the zCBP flag of CF. */
static void reference_subtype2(void **state)
{
	static unsigned char buf[3 * 512];
	struct bbuf b = {0};
	struct run run;
	struct mf_strbuf sb;
	size_t n = 0;
	(void)state;
	n += ref_s2(buf + n, 9, 2, 0x8000 | 0x0400, T0, 1000);             /* first record of the run, zCBP */
	n += ref_s2(buf + n, 9, 2, 0x4000 | 0x0400, T0 + 900000000, 5000); /* intermediate */
	/* The counter-set section bytes exactly as the table has them: CST, reserved, CSN. */
	{
		static const unsigned char css[] = {0x01, 0x00, 0x00, 0x06, 0x02, 0x00, 0x00, 0x02};
		assert_memory_equal(buf + 112 + 84, css, sizeof(css));
	}
	bb_bytes(&b, buf, n);
	assert_int_equal(open_run(&run, &b), 0);
	assert_string_equal(mf_reader_format(run.r), "smf");
	if (mf_reader_next(run.r, &run.s, &run.e) != 1)
		fail_msg("subtype 2 record not read: %s", run.e.msg);
	assert_string_equal(mf_strtab_get(run.tab, run.s.system), "SYSR");
	assert_int_equal(run.s.cpu, 9);
	assert_int_equal(run.s.pool, MF_POOL_ZCBP);
	assert_string_equal(run.s.family->key, "z16");
	assert_true(fabs(run.s.seconds - 900) < 1e-9);
	assert_true(sample_value(&run.s, 0) == 4000);
	assert_true(sample_value(&run.s, 5) == 4000);
	assert_true(sample_value(&run.s, 33) == 4000);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 0);
	assert_non_null(strstr(summary_of(&run, &sb), "type 113: 0 subtype 1, 2 subtype 2"));
	mf_strbuf_free(&sb);
	close_run(&run);
	free(b.p);
}

/* Item 3: subtype 1 from the table: zCBP (X'1000') and lost MT-diagnostic data (X'2000'). */
/*
 * The local offset of a record (for --tz smf), from its header's local write
 * time, SMF113TME/DTE (§2: binary 1/100 s since midnight, packed 0cyydddF),
 * against its TOD write time SMF113_1_CTM (§5), built byte by byte: the
 * header says 08:15:00.00 on 2025 day 100 (April 10); CTM 06:15:03Z is
 * +02:00, CTM 13:15:02Z is -05:00 (the seconds are the write delay).
 */
static void reference_local_time(void **state)
{
	static unsigned char buf[2 * 1024];
	const int64_t apr10 = INT64_C(1744243200000000); /* 2025-04-10T00:00:00Z */
	struct bbuf b = {0};
	struct run run;
	size_t n = 0;
	(void)state;
	n += ref_s1(buf + n, 0, 0, 0, apr10 + INT64_C(21603000000), 100); /* CTM = start + 900 s = 06:15:03Z */
	n += ref_s1(buf + n, 1, 0, 0, apr10 + INT64_C(46802000000), 100); /* 13:15:02Z */
	bb_bytes(&b, buf, n);
	assert_int_equal(open_run(&run, &b), 0);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_true(run.s.has_offset);
	assert_int_equal(run.s.utc_offset_s, 2 * 3600);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_true(run.s.has_offset);
	assert_int_equal(run.s.utc_offset_s, -5 * 3600);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 0);
	close_run(&run);
	free(b.p);
}

static void reference_subtype1(void **state)
{
	static unsigned char buf[3 * 1024];
	struct bbuf b = {0};
	struct run run;
	struct mf_strbuf sb;
	size_t n = 0;
	(void)state;
	n += ref_s1(buf + n, 4, 2, 0x1000, T0, 100); /* zCBP */
	n += ref_s1(buf + n, 5, 2, 0x0000, T0, 100); /* zAAP */
	n += ref_s1(buf + n, 6, 0, 0x2000, T0, 100); /* MT-diagnostic data lost */
	bb_bytes(&b, buf, n);
	assert_int_equal(open_run(&run, &b), 0);
	if (mf_reader_next(run.r, &run.s, &run.e) != 1)
		fail_msg("subtype 1 record not read: %s", run.e.msg);
	assert_int_equal(run.s.cpu, 4);
	assert_int_equal(run.s.pool, MF_POOL_ZCBP);
	assert_true(fabs(run.s.seconds - 900) < 1e-9);
	assert_int_equal(run.s.start_us, T0);
	assert_true(sample_value(&run.s, 1) == 101);
	assert_true(sample_value(&run.s, 449) == 549);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_int_equal(run.s.pool, MF_POOL_ZAAP);
	/* The interval with lost MT-diagnostic data stays, without its MT-diagnostic counters. */
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_int_equal(run.s.cpu, 6);
	assert_int_equal(run.s.pool, MF_POOL_GCP);
	assert_true(sample_value(&run.s, 0) == 100);
	assert_true(sample_value(&run.s, 448) == UINT64_MAX);
	assert_true(sample_value(&run.s, 449) == UINT64_MAX);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 0);
	assert_non_null(strstr(summary_of(&run, &sb),
			       "MT-diagnostic counters left out: 1 interval with lost MT-diagnostic data"));
	mf_strbuf_free(&sb);
	assert_int_equal(mf_reader_nwarnings(run.r), 1);
	assert_non_null(strstr(mf_reader_warning(run.r, 0), "1 subtype 1 interval flagged lost MT-diagnostic"));
	close_run(&run);
	free(b.p);
}

/* Both subtypes of one system: every interval counted once. */
static void both_subtypes(void **state)
{
	struct bbuf b = {0};
	struct sb_rec r;
	struct run run;
	struct mf_strbuf sb;
	static uint64_t cum[4][512];
	int iv, k, got = 0;
	(void)state;
	fill_vals(0);
	for (iv = 0; iv < 4; iv++)
		for (k = 0; k < 512; k++)
			cum[iv][k] = (uint64_t)(iv + 1) * vals[k];
	/* Interleaved as HIS writes them: subtype 2 baseline, then per interval subtype 1 and 2. */
	r = s1("SYSM", 0, 0, 0);
	r.subtype = 2, r.val = cum[0], r.end_us = T0, r.flags = 0x8000;
	sb_record(&b, &r);
	for (iv = 1; iv < 4; iv++) {
		r = s1("SYSM", 0, T0 + (iv - 1) * INT64_C(900000000), 900);
		sb_record(&b, &r);
		r.subtype = 2, r.val = cum[iv], r.flags = 0x4000;
		sb_record(&b, &r);
	}
	assert_int_equal(open_run(&run, &b), 0);
	while (mf_reader_next(run.r, &run.s, &run.e) == 1) {
		assert_true(sample_value(&run.s, 449) == vals[449]); /* from subtype 1: it has the MT set */
		got++;
	}
	assert_int_equal(got, 3);
	assert_non_null(
		strstr(summary_of(&run, &sb), "dropped 3: subtype 2 records of systems that also write subtype 1"));
	mf_strbuf_free(&sb);
	close_run(&run);

	/* Subtype 2 alone for two intervals, then both (a dump where subtype 1 is switched on late):
	 * the intervals subtype 2 gave are not taken again from subtype 1. */
	b.n = 0;
	r = s1("SYSM", 0, 0, 0);
	r.subtype = 2, r.val = cum[0], r.end_us = T0, r.flags = 0x8000;
	sb_record(&b, &r);
	for (iv = 1; iv < 3; iv++) {
		r.val = cum[iv], r.end_us = T0 + iv * INT64_C(900000000), r.flags = 0x4000;
		sb_record(&b, &r);
	}
	for (iv = 0; iv < 3; iv++) {
		r = s1("SYSM", 0, T0 + iv * INT64_C(900000000), 900);
		sb_record(&b, &r);
	}
	assert_int_equal(open_run(&run, &b), 0);
	got = 0;
	while (mf_reader_next(run.r, &run.s, &run.e) == 1) {
		assert_int_equal(run.s.start_us, T0 + got * INT64_C(900000000));
		got++;
	}
	assert_int_equal(got, 3); /* two from subtype 2, the third from subtype 1 */
	assert_non_null(strstr(summary_of(&run, &sb), "dropped 2: subtype 1 intervals already counted from subtype 2"));
	mf_strbuf_free(&sb);
	assert_int_equal(mf_reader_nwarnings(run.r), 1);
	assert_non_null(strstr(mf_reader_warning(run.r, 0), "2 CPU intervals before its first subtype 1 record"));
	close_run(&run);
	free(b.p);
}

/* Item 8: a dump without type 113 is an error; a header without trailer a warning. */
static void no_113_and_no_trailer(void **state)
{
	struct bbuf b = {0};
	struct sb_rec r;
	struct run run;
	(void)state;
	sb_other(&b, 2, 18);
	sb_other(&b, 30, 200);
	sb_other(&b, 30, 300);
	sb_other(&b, 70, 300);
	sb_other(&b, 3, 18);
	assert_int_equal(open_run(&run, &b), 0);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), MF_ENODATA);
	assert_string_equal(run.e.msg,
			    "no SMF type 113 records in t.smf (5 records of types 2, 3, 30, 70): check "
			    "that SMF collects type 113 and the dump selects it");
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 0);
	assert_int_equal(mf_reader_nwarnings(run.r), 0);
	close_run(&run);

	b.n = 0;
	fill_vals(0);
	sb_other(&b, 2, 18);
	r = s1("SYSA", 0, T0, 900);
	sb_record(&b, &r);
	assert_int_equal(open_run(&run, &b), 0);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 0);
	assert_int_equal(mf_reader_nwarnings(run.r), 1);
	assert_string_equal(mf_reader_warning(run.r, 0),
			    "t.smf: the dump has an IFASMFDP header record (type 2) but "
			    "no trailer record (type 3): it may be cut short");
	close_run(&run);
	free(b.p);
}

/* The decoder's set sizes are those of families.tsv, for every counter version a family has. */
static void set_sizes_match_families(void **state)
{
	size_t f;
	unsigned cfvn, checked = 0;
	(void)state;
	for (f = 0; f < kb->nfamilies; f++) {
		const struct mf_family *fam = &kb->families[f];
		unsigned problem = 0;
		if (fam->csvn <= 0 || fam->named)
			continue;
		for (cfvn = 0; cfvn < 32; cfvn++) {
			unsigned csvn = (unsigned)fam->csvn;
			if (!(fam->cfvn_mask & (1u << cfvn)))
				continue;
			assert_int_equal(mf_smf_set_size(1, cfvn, csvn), fam->set_size[MF_SET_BASIC]);
			assert_int_equal(mf_smf_set_size(3, cfvn, csvn), fam->set_size[MF_SET_CRYPTO]);
			assert_int_equal(mf_smf_set_size(4, cfvn, csvn), fam->set_size[MF_SET_EXTENDED]);
			assert_int_equal(mf_smf_set_size(6, cfvn, csvn), fam->set_size[MF_SET_MTDIAG]);
			if (mf_smf_set_size(2, cfvn, csvn) > problem)
				problem = mf_smf_set_size(2, cfvn, csvn);
			checked++;
		}
		/* The family's problem-state set is the largest any of its versions has. */
		assert_int_equal(problem, fam->set_size[MF_SET_PROBLEM]);
	}
	assert_true(checked >= 8);
	assert_int_equal(mf_smf_set_first(3), 64);
	assert_int_equal(mf_smf_set_first(6), 448);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rdw_stream),
		cmocka_unit_test(vbs_spanned),
		cmocka_unit_test(vbs_bad_chains),
		cmocka_unit_test(vbs_endless_chain),
		cmocka_unit_test(bad_data),
		cmocka_unit_test(subtype2),
		cmocka_unit_test(jitter),
		cmocka_unit_test(list_api),
		cmocka_unit_test(reference_subtype2),
		cmocka_unit_test(reference_subtype1),
		cmocka_unit_test(reference_local_time),
		cmocka_unit_test(both_subtypes),
		cmocka_unit_test(no_113_and_no_trailer),
		cmocka_unit_test(set_sizes_match_families),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
