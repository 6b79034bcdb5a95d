/* SPDX-License-Identifier: MIT */
/*
 * Test helper: builds SMF type 113 records and frames them as an RDW stream
 * or VBS blocks, written here from smf113-layout.md independently of the
 * parser (tools/gensmf.c is a third, independent writer), but for the set
 * sizes: those are the decoder's, which test_smf.c checks against the sizes
 * in families.tsv.
 */
#ifndef MFSTAT_TEST_SMFBUILD_H
#define MFSTAT_TEST_SMFBUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input/smf_int.h"

struct bbuf {
	unsigned char *p;
	size_t n, cap;
};

static inline void bb_grow(struct bbuf *b, size_t extra)
{
	if (b->n + extra > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		while (cap < b->n + extra)
			cap *= 2;
		b->p = realloc(b->p, cap);
		b->cap = cap;
	}
}

static inline void bb_bytes(struct bbuf *b, const void *p, size_t n)
{
	bb_grow(b, n);
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static inline void bb_be(struct bbuf *b, uint64_t v, int width)
{
	int i;
	bb_grow(b, (size_t)width);
	for (i = width - 1; i >= 0; i--)
		b->p[b->n++] = (unsigned char)(v >> (8 * i));
}

static inline void bb_set(struct bbuf *b, size_t off, uint64_t v, int width)
{
	int i;
	for (i = width - 1; i >= 0; i--)
		b->p[off + (size_t)(width - 1 - i)] = (unsigned char)(v >> (8 * i));
}

/* EBCDIC 037 for A-Z, 0-9 and blank; blank-padded to width. */
static inline void bb_ebcdic(struct bbuf *b, const char *s, size_t width)
{
	size_t i, n = strlen(s);
	for (i = 0; i < width; i++) {
		char c = i < n ? s[i] : ' ';
		unsigned char e = 0x40;
		if (c >= 'A' && c <= 'I')
			e = (unsigned char)(0xC1 + (c - 'A'));
		else if (c >= 'J' && c <= 'R')
			e = (unsigned char)(0xD1 + (c - 'J'));
		else if (c >= 'S' && c <= 'Z')
			e = (unsigned char)(0xE2 + (c - 'S'));
		else if (c >= '0' && c <= '9')
			e = (unsigned char)(0xF0 + (c - '0'));
		bb_bytes(b, &e, 1);
	}
}

static inline uint64_t tod_of(int64_t unix_us)
{
	return ((uint64_t)unix_us << 12) + UINT64_C(0x7D91048BCA000000);
}

/* The architected set sizes and first counters are the decoder's (smf113.c). */
static inline unsigned sb_set_size(unsigned type, unsigned cfvn, unsigned csvn)
{
	return mf_smf_set_size(type, cfvn, csvn);
}

static inline unsigned sb_first(unsigned type)
{
	return mf_smf_set_first(type);
}

struct sb_rec {
	int subtype;
	const char *sid;
	unsigned cpu, cls, type, cfvn, csvn, cpsp;
	int64_t start_us, end_us; /* subtype 1 interval; subtype 2: end_us is CTM */
	int64_t cts_us;
	unsigned flags;      /* subtype 1 Flags / subtype 2 CF */
	const uint64_t *val; /* by counter number, 512 entries */
	int short_values;    /* subtype 1: 4-byte counters */
	int bad_set_size;    /* make the extended set one counter short */
};

/* One complete type 113 record, RDW included. */
static inline void sb_record(struct bbuf *out, const struct sb_rec *r)
{
	struct bbuf b = {0};
	unsigned types[5] = {1, 2, 3, 4, 6}, nsets = r->subtype == 1 && r->csvn >= 4 ? 5 : 4, i, k;
	size_t css, data, total = 0;
	char mt[8];
	snprintf(mt, sizeof(mt), "%04u", r->type);
	/* header (§2) */
	bb_be(&b, 0, 2);
	bb_be(&b, 0, 2);
	bb_be(&b, 0x5E, 1);
	bb_be(&b, 113, 1);
	bb_be(&b, 2970000, 4);
	bb_be(&b, 0x0125063F, 4);
	bb_ebcdic(&b, r->sid, 4);
	bb_ebcdic(&b, "", 4);
	bb_be(&b, (uint64_t)r->subtype, 2);
	bb_be(&b, 0, 2);
	bb_be(&b, 24, 2);
	/* self-defining section (§3): product at 52 (20 bytes), identification at 72, data at 112 */
	bb_be(&b, 52, 4), bb_be(&b, 20, 2), bb_be(&b, 1, 2);
	bb_be(&b, 72, 4), bb_be(&b, 40, 2), bb_be(&b, 1, 2);
	bb_be(&b, 112, 4), bb_be(&b, r->subtype == 1 ? 78 : 84, 2), bb_be(&b, 1, 2);
	/* product section (§4, Source A): 2 unnamed bytes, RVN, PNM, OSL */
	bb_be(&b, 0, 2), bb_ebcdic(&b, "01", 2), bb_ebcdic(&b, "HIS", 8), bb_ebcdic(&b, "SP730", 8);
	bb_ebcdic(&b, "HIS", 8), bb_be(&b, 0, 4), bb_be(&b, 0, 4), bb_ebcdic(&b, "HIS", 8);
	bb_be(&b, r->subtype == 1 ? tod_of(r->start_us) : 0, 8);
	bb_be(&b, r->subtype == 1 ? tod_of(r->end_us) : 0, 8);
	for (i = 0; i < nsets; i++)
		total += sb_set_size(types[i], r->cfvn, r->csvn);
	if (r->subtype == 1) {
		unsigned w = r->short_values ? 4 : 8;
		css = 112 + 78;
		data = css + 12 * nsets;
		bb_be(&b, tod_of(r->cts_us), 8), bb_be(&b, tod_of(r->end_us), 8);
		bb_be(&b, r->cpu, 2), bb_be(&b, r->cls, 1), bb_be(&b, 0, 1), bb_be(&b, r->cpsp, 4);
		bb_ebcdic(&b, mt, 4), bb_ebcdic(&b, "A01", 16);
		bb_be(&b, 1, 2), bb_be(&b, r->cfvn, 2), bb_be(&b, r->csvn, 2), bb_be(&b, r->flags, 2);
		bb_be(&b, css, 4), bb_be(&b, 12, 2), bb_be(&b, nsets, 2);
		bb_ebcdic(&b, "0000000000012345", 16), bb_be(&b, r->cpu, 2);
		for (i = 0; i < nsets; i++) {
			unsigned n = sb_set_size(types[i], r->cfvn, r->csvn);
			if (types[i] == 4 && r->bad_set_size)
				n--;
			bb_be(&b, types[i], 2), bb_be(&b, w == 8 ? 0x8000 : 0, 2);
			bb_be(&b, data, 4), bb_be(&b, w, 2), bb_be(&b, n, 2);
			data += (size_t)n * w;
		}
		for (i = 0; i < nsets; i++) {
			unsigned n = sb_set_size(types[i], r->cfvn, r->csvn);
			if (types[i] == 4 && r->bad_set_size)
				n--;
			for (k = 0; k < n; k++)
				bb_be(&b, r->val[sb_first(types[i]) + k], (int)w);
		}
	} else {
		css = 112 + 84;
		data = css + 4 * nsets;
		bb_be(&b, tod_of(r->cts_us), 8), bb_be(&b, tod_of(r->end_us), 8);
		bb_be(&b, r->cpu & 0xFF, 1), bb_be(&b, r->cls, 1), bb_be(&b, r->flags, 2);
		bb_be(&b, r->cfvn, 2), bb_be(&b, r->csvn, 2);
		bb_be(&b, css, 4), bb_be(&b, 4, 2), bb_be(&b, nsets, 2);
		bb_be(&b, data, 4), bb_be(&b, 8, 2), bb_be(&b, total, 2);
		bb_be(&b, r->cpsp, 4), bb_ebcdic(&b, mt, 4), bb_ebcdic(&b, "A01", 16), bb_be(&b, r->cpu, 2);
		bb_be(&b, 0, 2), bb_ebcdic(&b, "0000000000012345", 16); /* reserved, MachSeqCode at 68 */
		/* §6.2: CST (1 byte), reserved (1 byte), CSN (2 bytes) */
		for (i = 0; i < nsets; i++)
			bb_be(&b, types[i], 1), bb_be(&b, 0, 1), bb_be(&b, sb_set_size(types[i], r->cfvn, r->csvn), 2);
		for (i = 0; i < nsets; i++)
			for (k = 0; k < sb_set_size(types[i], r->cfvn, r->csvn); k++)
				bb_be(&b, r->val[sb_first(types[i]) + k], 8);
	}
	bb_set(&b, 0, b.n, 2);
	bb_bytes(out, b.p, b.n);
	free(b.p);
}

/* A record of another type (standard header, filler payload). */
static inline void sb_other(struct bbuf *out, unsigned type, size_t len)
{
	struct bbuf b = {0};
	bb_be(&b, len, 2), bb_be(&b, 0, 2), bb_be(&b, 0x5E, 1), bb_be(&b, type, 1);
	while (b.n < len)
		bb_be(&b, 0xA5, 1);
	bb_bytes(out, b.p, b.n);
	free(b.p);
}

/* Re-frames an RDW stream as VBS blocks of at most blksize bytes, spanning records. */
static inline void sb_vbs(struct bbuf *out, const struct bbuf *rdw, size_t blksize)
{
	size_t pos = 0, blk = 0, used = 0;
	while (pos < rdw->n) {
		size_t ll = (size_t)rdw->p[pos] << 8 | rdw->p[pos + 1], done = 4;
		int first = 1;
		while (done < ll) {
			size_t room, take;
			unsigned code;
			if (used == 0 || blksize - used < 5 + 4) {
				if (used)
					bb_set(out, blk, used, 2);
				blk = out->n;
				bb_be(out, 0, 4);
				used = 4;
			}
			room = blksize - used - 4;
			take = ll - done < room ? ll - done : room;
			code = first && done + take == ll ? 0 : first ? 1 : done + take == ll ? 2 : 3;
			bb_be(out, take + 4, 2), bb_be(out, code, 1), bb_be(out, 0, 1);
			bb_bytes(out, rdw->p + pos + done, take);
			used += take + 4;
			done += take;
			first = 0;
		}
		pos += ll;
	}
	if (used)
		bb_set(out, blk, used, 2);
}

#endif
