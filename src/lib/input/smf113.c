/* SPDX-License-Identifier: MIT */
/*
 * SMF deblocking (RDW streams and VBS blocks with spanned records) and the
 * decoding of type 113 records, subtypes 1 and 2.  Layout: smf113-layout.md;
 * section numbers below refer to it.  The offsets past the verified header
 * prefixes come from IBM's machine-readable map of the record ("Source A",
 * §4) and are kept in the LAYOUT table; every record is still cross-checked
 * (§5.3), so a layout the reference has not seen shows as a reported error,
 * never as silently wrong numbers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smf_int.h"

#define MAX_RECORD (1u << 20) /* a reassembled record larger than this is a broken chain */

/* The offsets past the verified prefixes, in one place (smf113-layout.md §4-§6, Source A). */
static const struct {
	/* identification section SMF113ID (§4, 40 bytes) */
	unsigned id_start, id_end, id_min_len;
	/* subtype 1 data header SMF113_1_CTR (§5.1, 78 bytes; read up to CSON) */
	unsigned s1_csof, s1_csln, s1_cson, s1_min_len;
	/* subtype 1 counter-set section SMF113_1_CSS (§5.2): CSType(2) CSFlags(2) CDOF(4) CDLN(2) CDON(2) */
	unsigned css1_type, css1_flags, css1_cdof, css1_cdln, css1_cdon, css1_len;
	/* subtype 2 data header SMF113_2_CTR (§6.1, 84 bytes; read up to CpuId) */
	unsigned s2_csln, s2_cson, s2_cdof, s2_cdln, s2_cdon, s2_cpsp, s2_type, s2_cpuid, s2_min_len;
	/* subtype 2 counter-set section SMF113_2_CSS (§6.2): CST(1) reserved(1) CSN(2) */
	unsigned css2_type, css2_csn, css2_len;
} LAYOUT = {
	/* One line per section of the table above (kept by hand). */
	/* clang-format off */
	24, 32, 40,
	52, 56, 58, 60,
	0, 2, 4, 8, 10, 12,
	28, 30, 32, 36, 38, 40, 44, 64, 66,
	0, 2, 4,
	/* clang-format on */
};

/* SMF113_1_Flags and SMF113_2_CF bits (§5.1, §6.1). */
enum {
	S1_LOST = 0x8000,    /* bit 0: the hardware lost counter data this interval */
	S1_MT_LOST = 0x2000, /* bit 2: MT-diagnostic counter data lost */
	S1_ZCBP = 0x1000,    /* bit 3: class 2 is a zCBP */
	S2_FIRST = 0x8000,   /* bit 0: first record of a collection run */
	S2_FINAL = 0x2000,   /* bit 2: final record */
	S2_LOST = 0x0800,    /* bit 4: the hardware lost counter data */
	S2_ZCBP = 0x0400,    /* bit 5: class 2 is a zCBP */
};

int64_t mf_tod_to_unix_us(uint64_t tod)
{
	/* TOD bit 51 is one microsecond; 0x7D91048BCA000000 is 1970-01-01 (§12.5). */
	return ((int64_t)(tod >> 12)) - (int64_t)(UINT64_C(0x7D91048BCA000000) >> 12);
}

/* EBCDIC (code page 037) to ASCII for the characters SMF identifiers use; others become '?'. */
static char ebcdic(unsigned char c)
{
	static const char upper[] = "ABCDEFGHI";
	if (c == 0x40)
		return ' ';
	if (c >= 0xC1 && c <= 0xC9)
		return upper[c - 0xC1];
	if (c >= 0xD1 && c <= 0xD9)
		return (char)('J' + (c - 0xD1));
	if (c >= 0xE2 && c <= 0xE9)
		return (char)('S' + (c - 0xE2));
	if (c >= 0x81 && c <= 0x89)
		return (char)('a' + (c - 0x81));
	if (c >= 0x91 && c <= 0x99)
		return (char)('j' + (c - 0x91));
	if (c >= 0xA2 && c <= 0xA9)
		return (char)('s' + (c - 0xA2));
	if (c >= 0xF0 && c <= 0xF9)
		return (char)('0' + (c - 0xF0));
	switch (c) {
	case 0x4B: return '.';
	case 0x5B: return '$';
	case 0x7B: return '#';
	case 0x7C: return '@';
	case 0x60: return '-';
	case 0x6D: return '_';
	default: return '?';
	}
}

void mf_smf_ebcdic(const unsigned char *p, size_t n, char *out)
{
	size_t i, end = 0;
	for (i = 0; i < n; i++) {
		out[i] = ebcdic(p[i]);
		if (out[i] != ' ')
			end = i + 1;
	}
	out[end] = '\0';
}

/* SMFxxTME: binary hundredths of a second since midnight (a leap second allowed). */
static bool time_ok(const unsigned char *p)
{
	return u32(p) <= 8640100;
}

/* SMFxxDTE: packed 0cyydddF, c 0-2, ddd 001-366. */
bool mf_smf_date_ok(const unsigned char *p)
{
	unsigned ddd;
	if (p[0] > 2 || (p[1] >> 4) > 9 || (p[1] & 15) > 9 || (p[2] >> 4) > 9 || (p[2] & 15) > 9 || (p[3] >> 4) > 9 ||
	    (p[3] & 15) != 15)
		return false;
	ddd = (p[2] >> 4) * 100u + (p[2] & 15) * 10u + (p[3] >> 4);
	return ddd >= 1 && ddd <= 366;
}

/* SMFxxTME and SMFxxDTE (checked by time_ok and date_ok) as microseconds, local time taken as UTC. */
static int64_t local_time(const unsigned char *tme, const unsigned char *dte)
{
	return mf_smf_date_us(dte) + (int64_t)u32(tme) * 10000;
}

int64_t mf_smf_date_us(const unsigned char *dte)
{
	int64_t year = 1900 + 100 * dte[0] + (dte[1] >> 4) * 10 + (dte[1] & 15);
	unsigned ddd = (dte[2] >> 4) * 100u + (dte[2] & 15) * 10u + (dte[3] >> 4);
	return (mf_days_from_civil(year, 1, 1) + ddd - 1) * INT64_C(86400000000);
}

/*
 * An SMF record header at offset 0 without a descriptor in front: flag, type, time, date.  That
 * is what an FTP binary transfer without `quote site rdw` gives (smf113-layout.md §1.3).
 */
static bool header_without_rdw(const unsigned char *b, size_t n)
{
	return n >= 14 && time_ok(b + 2) && mf_smf_date_ok(b + 6) && !mf_smf_date_ok(b + 10);
}

/* System ids (SMFxxSID) in ASCII: 4 characters A-Z, 0-9, @ # $. */
static bool ascii_sid(const unsigned char *p)
{
	int i;
	for (i = 0; i < 4; i++)
		if (!((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '@' || p[i] == '#' ||
		      p[i] == '$'))
			return false;
	return true;
}

int mf_smf_explain(const char *cbuf, size_t n, char *msg, size_t size)
{
	const unsigned char *b = (const unsigned char *)cbuf;
	size_t start = 0, j, records = 0, sids = 0, crlf = 0;

	/*
	 * ASCII (text) transfer: every byte went through an EBCDIC to ASCII table, each record
	 * ends with X'0D0A' and the system ids became ASCII (X'71', type 113, became X'C9').
	 * Look at the record starts (offset 0 and after each X'0D0A'): the SID sits at +10 without
	 * RDWs, +14 with them.
	 */
	for (;;) {
		if (start + 18 <= n) {
			records++;
			if (ascii_sid(b + start + 10) || ascii_sid(b + start + 14))
				sids++;
		}
		for (j = start; j + 1 < n && !(b[j] == 0x0D && b[j + 1] == 0x0A); j++)
			;
		if (j + 1 >= n)
			break;
		crlf++;
		start = j + 2;
	}
	if (crlf >= 1 && sids >= 1 && 2 * sids >= records) {
		snprintf(msg, size,
			 "this looks like an SMF dump transferred in ASCII (text) mode: its records end with X'0D0A' "
			 "and its system ids are ASCII text (type 113 records then show as type 201); transfer the "
			 "dump again in binary with RDWs kept (FTP: binary, then quote site rdw)");
		return 1;
	}
	if (header_without_rdw(b, n)) {
		snprintf(msg, size,
			 "this looks like an SMF dump without record descriptor words (an SMF record header at "
			 "offset 0, type %u): the record boundaries were lost in the transfer; transfer the dump "
			 "again in binary with RDWs kept (FTP: binary, then quote site rdw) or as VBS blocks",
			 b[1]);
		return 1;
	}
	return 0;
}

/* §1.4: a BDW followed by a plausible SDW means VBS blocks; a plausible RDW an RDW stream. */
int mf_smf_probe(const char *cbuf, size_t n, int *framing)
{
	const unsigned char *b = (const unsigned char *)cbuf;
	unsigned l0, l1;

	*framing = 0;
	if (n >= 4 && n < 8 && b[2] == 0 && b[3] == 0 && u16(b) >= 18) {
		/* Shorter than its own first descriptor says: a truncated record, reported as such. */
		*framing = SMF_RDW;
		return 50;
	}
	if (n < 8)
		return 0;
	if (header_without_rdw(b, n))
		return 0; /* a header where the descriptor should be (see mf_smf_explain) */
	l0 = u16(b);
	/* Descriptor bytes 2-3: zero, or a segment code in the low 2 bits of byte 2. */
	if ((b[2] & 0xFC) != 0 || b[3] != 0)
		return 0;
	l1 = u16(b + 4);
	if (b[2] == 0 && l0 >= 12 && !(b[0] & 0x80) && l1 >= 5 && l1 <= l0 - 4 && (b[6] & 0xFC) == 0 && b[7] == 0) {
		*framing = SMF_VBS;
		return 90;
	}
	if ((b[0] & 0x80) && b[2] == 0 && b[3] == 0 && n >= 12 && (b[8] & 0xFC) == 0 && b[9] == 0) {
		/* Extended BDW (bit 0 set, 31-bit length), as tape images have. */
		*framing = SMF_VBS;
		return 80;
	}
	if (l0 >= 18) {
		*framing = SMF_RDW;
		return 90;
	}
	return 0;
}

int mf_smfdec_init(struct mf_smfdec *d, struct mf_stream *st, const struct mf_kb *kb, struct mf_error *err)
{
	memset(d, 0, sizeof(*d));
	d->st = st;
	d->kb = kb;
	d->name = st->name;
	if (!mf_smf_probe(st->buf + st->pos, st->len - st->pos, &d->framing)) {
		char why[400];
		if (mf_smf_explain(st->buf + st->pos, st->len - st->pos, why, sizeof(why)))
			return mf_error_set(err, MF_EFORMAT, d->name, 0, 0, "not an SMF dump as mfstat reads it: %s",
					    why);
		return mf_error_set(err, MF_EFORMAT, d->name, 0, 0,
				    "not an SMF dump: no RDW or BDW at the start (transfer the dump in binary "
				    "with RDWs kept, or as VBS blocks)");
	}
	d->stats.framing = d->framing == SMF_VBS ? "VBS" : "RDW";
	return 0;
}

void mf_smfdec_free(struct mf_smfdec *d)
{
	free(d->rec);
	d->rec = NULL;
	mf_smf70_free(&d->rmf);
	mf_smf99t_free(&d->topo);
}

static int fail_at(struct mf_smfdec *d, struct mf_error *err, int code, long long off, long rec, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
static int fail_at(struct mf_smfdec *d, struct mf_error *err, int code, long long off, long rec, const char *fmt, ...)
{
	va_list ap;
	mf_error_set(err, code, d->name, 0, 0, "%s", "");
	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		err->offset = off;
		err->record = rec;
	}
	if (code == MF_EIO || code == MF_ENOMEM)
		d->dead = true;
	return code;
}

/* Makes n bytes available at st->pos; 1 ok, 0 the file ends first, <0 error. */
static int need(struct mf_smfdec *d, size_t n, struct mf_error *err)
{
	while (d->st->len - d->st->pos < n) {
		long got = mf_stream_fill(d->st, MAX_RECORD * 2, err);
		if (got < 0)
			return (int)got;
		if (got == 0 && d->st->eof)
			return 0;
	}
	return 1;
}

static int append(struct mf_smfdec *d, const unsigned char *p, size_t n)
{
	if (d->rec_len + n > MAX_RECORD)
		return -1;
	if (d->rec_len + n > d->rec_cap) {
		size_t cap = d->rec_cap ? d->rec_cap : 4096;
		unsigned char *nr;
		while (cap < d->rec_len + n)
			cap *= 2;
		nr = realloc(d->rec, cap);
		if (!nr)
			return -2;
		d->rec = nr;
		d->rec_cap = cap;
	}
	memcpy(d->rec + d->rec_len, p, n);
	d->rec_len += n;
	return 0;
}

/*
 * The next logical record: *rec points at it (RDW included), valid until the
 * next call.  Returns 1, 0 at the end, MF_EFORMAT for a bad segment (skipped;
 * reading goes on), MF_EIO when the file cannot be read further.
 */
static int next_logical(struct mf_smfdec *d, const unsigned char **rec, size_t *len, long long *off,
			struct mf_error *err)
{
	for (;;) {
		struct mf_stream *st = d->st;
		const unsigned char *p;
		long long here;
		unsigned seg, ll;
		int rc;

		if (d->framing == SMF_VBS && d->block_left == 0) {
			/* A new block: its BDW (§1.2). */
			size_t blen;
			rc = need(d, 4, err);
			if (rc < 0)
				return rc;
			here = st->base + (long long)st->pos;
			if (rc == 0) {
				if (st->len > st->pos)
					return fail_at(d, err, MF_EIO, here, d->recno + 1,
						       "truncated block descriptor at the end of the file");
				if (d->in_chain)
					return fail_at(d, err, MF_EIO, d->chain_off, d->recno + 1,
						       "the file ends inside a spanned record (broken segment chain)");
				return 0;
			}
			p = (const unsigned char *)st->buf + st->pos;
			if (p[0] & 0x80) {
				blen = u32(p) & 0x7FFFFFFFu;
			} else {
				if (p[2] || p[3])
					return fail_at(d, err, MF_EIO, here, d->recno + 1,
						       "bad block descriptor: bytes 2-3 are %02X%02X, not 0000", p[2],
						       p[3]);
				blen = u16(p);
			}
			if (blen < 8 || blen > MAX_RECORD)
				return fail_at(d, err, MF_EIO, here, d->recno + 1,
					       "bad block descriptor: block length %zu", blen);
			st->pos += 4;
			d->block_left = blen - 4;
		}
		rc = need(d, 4, err);
		if (rc < 0)
			return rc;
		here = st->base + (long long)st->pos;
		if (rc == 0) {
			if (d->framing == SMF_VBS || st->len > st->pos)
				return fail_at(d, err, MF_EIO, here, d->recno + 1,
					       "truncated record descriptor at the end of the file");
			if (d->in_chain)
				return fail_at(d, err, MF_EIO, d->chain_off, d->recno + 1,
					       "the file ends inside a spanned record (broken segment chain)");
			return 0;
		}
		p = (const unsigned char *)st->buf + st->pos;
		ll = u16(p);
		seg = p[2] & 3;
		if (p[0] == 0x0D && p[1] == 0x0A)
			return fail_at(d, err, MF_EIO, here, d->recno + 1,
				       "X'0D0A' where a record descriptor should be: the dump was transferred in ASCII "
				       "(text) mode; transfer it again in binary with RDWs kept (FTP: binary, then "
				       "quote "
				       "site rdw)");
		if ((p[2] & 0xFC) || p[3])
			return fail_at(d, err, MF_EIO, here, d->recno + 1,
				       "bad record descriptor: bytes 2-3 are %02X%02X (expected a segment code 0-3 and "
				       "0)",
				       p[2], p[3]);
		if (ll < 5)
			return fail_at(d, err, MF_EIO, here, d->recno + 1,
				       "bad record descriptor: length %u is shorter than the descriptor", ll);
		if (d->framing == SMF_VBS && ll > d->block_left)
			return fail_at(d, err, MF_EIO, here, d->recno + 1,
				       "segment length %u runs past the end of its block (%zu bytes left)", ll,
				       d->block_left);
		rc = need(d, ll, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return fail_at(d, err, MF_EIO, here, d->recno + 1,
				       "truncated record: its length (%u) runs past the end of the file", ll);
		p = (const unsigned char *)st->buf + st->pos;
		st->pos += ll;
		if (d->framing == SMF_VBS)
			d->block_left -= ll;
		/*
		 * A bad chain is one bad record: it takes a record number, is reported once, and
		 * the segment that showed it broken is read again as the start of the next record.
		 */
		if (seg == 0 || seg == 1)
			d->orphan = false;
		switch (seg) {
		case 0:
			if (d->in_chain) {
				d->in_chain = false;
				st->pos -= ll; /* read this record again on its own */
				if (d->framing == SMF_VBS)
					d->block_left += ll;
				d->recno++;
				return fail_at(d, err, MF_EFORMAT, d->chain_off, d->recno,
					       "broken segment chain: a spanned record has no last segment");
			}
			d->recno++;
			*rec = p;
			*len = ll;
			*off = here;
			return 1;
		case 1: /* first segment */
			if (d->in_chain) {
				d->in_chain = false;
				st->pos -= ll; /* read this segment again as a new chain */
				if (d->framing == SMF_VBS)
					d->block_left += ll;
				d->recno++;
				return fail_at(d, err, MF_EFORMAT, d->chain_off, d->recno,
					       "broken segment chain: a spanned record has no last segment");
			}
			d->in_chain = true;
			d->chain_off = here;
			d->rec_len = 0;
			{
				unsigned char rdw[4] = {0, 0, 0, 0};
				if (append(d, rdw, 4) || append(d, p + 4, ll - 4)) {
					d->in_chain = false;
					return fail_at(d, err, MF_ENOMEM, here, d->recno + 1,
						       "out of memory while reassembling a spanned record");
				}
			}
			continue;
		default: /* 3 middle, 2 last */
			if (!d->in_chain && d->orphan) {
				d->orphan = seg == 3; /* the rest of a record already counted bad */
				continue;
			}
			if (!d->in_chain) {
				d->recno++;
				d->orphan = seg == 3;
				return fail_at(d, err, MF_EFORMAT, here, d->recno,
					       "broken segment chain: a %s segment without a first one",
					       seg == 2 ? "last" : "middle");
			}
			{
				int a = append(d, p + 4, ll - 4);
				if (a == -1) {
					d->in_chain = false;
					d->recno++;
					d->orphan = seg == 3;
					return fail_at(d, err, MF_EFORMAT, d->chain_off, d->recno,
						       "broken segment chain: a spanned record longer than %u bytes",
						       MAX_RECORD);
				}
				if (a) {
					d->in_chain = false;
					return fail_at(d, err, MF_ENOMEM, here, d->recno + 1,
						       "out of memory while reassembling a spanned record");
				}
			}
			if (seg == 3)
				continue;
			d->in_chain = false;
			if (d->rec_len > 0xFFFF) {
				d->recno++;
				return fail_at(d, err, MF_EFORMAT, d->chain_off, d->recno,
					       "spanned record of %zu bytes: longer than an SMF record can be",
					       d->rec_len);
			}
			d->rec[0] = (unsigned char)(d->rec_len >> 8);
			d->rec[1] = (unsigned char)d->rec_len;
			d->stats.segments++;
			d->recno++;
			*rec = d->rec;
			*len = d->rec_len;
			*off = d->chain_off;
			return 1;
		}
	}
}

/* Architected set sizes for the version numbers (§7); test_smf.c checks them against families.tsv. */
unsigned mf_smf_set_size(unsigned cstype, unsigned cfvn, unsigned csvn)
{
	switch (cstype) {
	case 1: return 6;
	case 2: return cfvn == 1 ? 6 : 2;
	case 3: return csvn <= 5 ? 16 : 20;
	case 4: return csvn == 1 ? 32 : csvn == 2 ? 48 : csvn <= 5 ? 128 : 160;
	case 6: return csvn >= 4 ? 48 : 0;
	default: return 0;
	}
}

unsigned mf_smf_set_first(unsigned cstype)
{
	switch (cstype) {
	case 1: return 0;
	case 2: return 32;
	case 3: return 64;
	case 4: return 128;
	case 6: return 448;
	default: return 0;
	}
}

/* Checks that [off, off + n) lies inside the record. */
static bool inside(size_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off;
}

/* Adds counter number num with value v when the family defines it. */
static void put(struct mf_smf_record *r, unsigned num, uint64_t v)
{
	if (!r->family || num >= MF_MAX_COUNTER || r->family->dense[num] < 0 || r->n >= 512)
		return;
	r->num[r->n] = (uint16_t)num;
	r->val[r->n++] = v;
}

/* Machine type and version numbers: family, and the §7 cross-check. */
static int machine_of(struct mf_smfdec *d, struct mf_smf_record *r, const unsigned char *mt, struct mf_error *err)
{
	char t[5];
	unsigned i, type = 0;
	mf_smf_ebcdic(mt, 4, t);
	for (i = 0; i < 4; i++) {
		if (t[i] < '0' || t[i] > '9')
			return fail_at(d, err, MF_EFORMAT, r->offset, r->number,
				       "machine type is not 4 digits (EBCDIC bytes %02X%02X%02X%02X)", mt[0], mt[1],
				       mt[2], mt[3]);
		type = type * 10 + (unsigned)(t[i] - '0');
	}
	r->machine_type = type;
	r->machine = mf_kb_machine(d->kb, type);
	if (!r->machine)
		return fail_at(d, err, MF_EFORMAT, r->offset, r->number,
			       "unknown machine type %u (see mfstat machines)", type);
	r->family = r->machine->family;
	if (r->family->csvn && r->csvn != (unsigned)r->family->csvn)
		return fail_at(d, err, MF_EFORMAT, r->offset, r->number,
			       "counter version CSVN %u does not match machine type %u (%s has CSVN %d)", r->csvn, type,
			       r->family->display, r->family->csvn);
	if (r->family->cfvn_mask && (r->cfvn >= 32 || !(r->family->cfvn_mask & (1u << r->cfvn))))
		return fail_at(d, err, MF_EFORMAT, r->offset, r->number, "counter version CFVN %u is not valid for %s",
			       r->cfvn, r->family->display);
	return 0;
}

static int pool_of(unsigned cls, bool zcbp)
{
	switch (cls) {
	case 0: return MF_POOL_GCP;
	case 2: return zcbp ? MF_POOL_ZCBP : MF_POOL_ZAAP;
	case 4: return MF_POOL_ZIIP;
	default: return -1;
	}
}

/* The entries of a counter set of cdon counters that the family defines, cached per family and set. */
static const struct smf_setmap *setmap_of(struct mf_smfdec *d, const struct mf_family *fam, unsigned type,
					  unsigned cdon)
{
	struct smf_setmap *m;
	unsigned i, k;
	for (i = 0; i < d->nsetmap; i++)
		if (d->setmap[i].fam == fam && d->setmap[i].type == type && d->setmap[i].cdon == cdon)
			return &d->setmap[i];
	/* A full cache is recycled from the start: correctness does not depend on hits. */
	m = &d->setmap[d->nsetmap < 16 ? d->nsetmap++ : (d->nsetmap = 1, 0)];
	m->fam = fam;
	m->type = type;
	m->cdon = cdon;
	m->n = 0;
	for (k = 0; k < cdon && k < 512; k++) {
		unsigned num = mf_smf_set_first(type) + k;
		if (num < MF_MAX_COUNTER && fam->dense[num] >= 0)
			m->k[m->n++] = (uint16_t)k;
	}
	return m;
}

static const char *set_name(unsigned type)
{
	static const char *const names[] = {"?",        "basic", "problem-state", "crypto-activity",
					    "extended", "z/OS",  "MT-diagnostic"};
	return type <= 6 ? names[type] : "?";
}

/*
 * §5.3: a set whose counter count is not the architected one.  That z/OS always records the
 * architected count is one of the two facts no real record has confirmed yet (the end of
 * smf113-layout.md): say exactly what was found, so that the first such dump gets reported.
 */
static int bad_set_size(struct mf_smfdec *d, const struct mf_smf_record *r, struct mf_error *err, unsigned i,
			unsigned type, unsigned found, unsigned expected)
{
	return fail_at(d, err, MF_EFORMAT, r->offset, r->number,
		       "counter set %u (type %u, %s) has %u counters, %u expected for CFVN %u CSVN %u: the first "
		       "dump seen with this count; please report it to the mfstat developers with this message",
		       i + 1, type, set_name(type), found, expected, r->cfvn, r->csvn);
}

/* Validates every counter-set section of a subtype 1 record (§5.2, §5.3). */
static int check_sets(struct mf_smfdec *d, const unsigned char *rec, size_t len, const struct mf_smf_record *r,
		      uint32_t csof, unsigned csln, unsigned cson, struct mf_error *err)
{
	unsigned i;
	for (i = 0; i < cson; i++) {
		const unsigned char *s = rec + csof + (size_t)i * csln;
		unsigned type = u16(s + LAYOUT.css1_type), flags = u16(s + LAYOUT.css1_flags);
		uint32_t cdof = u32(s + LAYOUT.css1_cdof);
		unsigned cdln = u16(s + LAYOUT.css1_cdln), cdon = u16(s + LAYOUT.css1_cdon);
		bool lcds = (flags & 0x8000) != 0;
		if (type < 1 || type > 6)
			return fail_at(d, err, MF_EFORMAT, r->offset, r->number,
				       "counter set %u has type %u (expected 1-6)", i + 1, type);
		if (cdln != 4 && cdln != 8)
			return fail_at(d, err, MF_EFORMAT, r->offset, r->number,
				       "counter set %u has entries of %u bytes (expected 4 or 8)", i + 1, cdln);
		if ((cdln == 8) != lcds)
			return fail_at(d, err, MF_EFORMAT, r->offset, r->number,
				       "counter set %u: entry length %u disagrees with its long-counter flag", i + 1,
				       cdln);
		if (!inside(len, cdof, (uint64_t)cdln * cdon))
			return fail_at(d, err, MF_EFORMAT, r->offset, r->number,
				       "counter set %u: data at offset %u (%u x %u bytes) lies outside the record",
				       i + 1, (unsigned)cdof, cdon, cdln);
		if (type != 5 && cdon != mf_smf_set_size(type, r->cfvn, r->csvn))
			return bad_set_size(d, r, err, i, type, cdon, mf_smf_set_size(type, r->cfvn, r->csvn));
	}
	return 0;
}

static int decode_s1(struct mf_smfdec *d, const unsigned char *rec, size_t len, uint32_t dof, unsigned dln,
		     struct mf_smf_record *r, struct mf_error *err)
{
	const unsigned char *h = rec + dof;
	uint32_t csof;
	unsigned csln, cson, i, flags, cls;
	int rc;

	if (dln < LAYOUT.s1_min_len || !inside(len, dof, LAYOUT.s1_min_len))
		return fail_at(d, err, MF_EFORMAT, r->offset, r->number,
			       "subtype 1 data section of %u bytes is too short (at least %u expected)", dln,
			       LAYOUT.s1_min_len);
	r->cts_us = mf_tod_to_unix_us(u64(h));
	r->ctm_us = mf_tod_to_unix_us(u64(h + 8));
	r->cpu = u16(h + 16);
	cls = h[18];
	flags = u16(h + 50);
	r->lost = (flags & S1_LOST) != 0;
	r->mt_lost = (flags & S1_MT_LOST) != 0;
	r->proc_class = cls;
	r->pool = pool_of(cls, (flags & S1_ZCBP) != 0);
	if (r->pool < 0)
		return fail_at(d, err, MF_EFORMAT, r->offset, r->number, "unknown processor class %u", cls);
	r->cpsp = (double)u32(h + 20);
	r->cfvn = u16(h + 46);
	r->csvn = u16(h + 48);
	rc = machine_of(d, r, h + 24, err);
	if (rc)
		return rc;
	csof = u32(h + LAYOUT.s1_csof);
	csln = u16(h + LAYOUT.s1_csln);
	cson = u16(h + LAYOUT.s1_cson);
	if (csln < LAYOUT.css1_len || cson == 0 || cson > 16 || !inside(len, csof, (uint64_t)csln * cson))
		return fail_at(d, err, MF_EFORMAT, r->offset, r->number,
			       "counter-set sections (offset %u, %u x %u bytes) lie outside the record or are "
			       "implausible",
			       (unsigned)csof, cson, csln);
	rc = check_sets(d, rec, len, r, csof, csln, cson, err);
	if (rc)
		return rc;
	for (i = 0; i < cson; i++) {
		const unsigned char *s = rec + csof + (size_t)i * csln;
		unsigned type = u16(s + LAYOUT.css1_type);
		uint32_t cdof = u32(s + LAYOUT.css1_cdof);
		unsigned cdln = u16(s + LAYOUT.css1_cdln), cdon = u16(s + LAYOUT.css1_cdon), k;
		r->sets |= 1u << type;
		if (type == 5)
			continue; /* the z/OS counter set: IBM diagnostics, not in the formulas */
		{
			/* Only the counters the family defines (the others are architected spares). */
			const struct smf_setmap *m = setmap_of(d, r->family, type, cdon);
			unsigned first = mf_smf_set_first(type), j;
			const unsigned char *v = rec + cdof;
			for (j = 0; j < m->n && r->n < 512; j++) {
				k = m->k[j];
				r->num[r->n] = (uint16_t)(first + k);
				r->val[r->n++] = cdln == 8 ? u64(v + (size_t)k * 8) : u32(v + (size_t)k * 4);
			}
		}
	}
	return 0;
}

static int decode_s2(struct mf_smfdec *d, const unsigned char *rec, size_t len, uint32_t dof, unsigned dln,
		     struct mf_smf_record *r, struct mf_error *err)
{
	const unsigned char *h = rec + dof;
	uint32_t csof, cdof;
	unsigned csln, cson, cdln, cdon, cf, i, k, slot = 0, total = 0;
	int rc;

	if (dln < LAYOUT.s2_min_len || !inside(len, dof, LAYOUT.s2_min_len))
		return fail_at(d, err, MF_EFORMAT, r->offset, r->number,
			       "subtype 2 data section of %u bytes is too short (at least %u expected)", dln,
			       LAYOUT.s2_min_len);
	r->cts_us = mf_tod_to_unix_us(u64(h));
	r->ctm_us = mf_tod_to_unix_us(u64(h + 8));
	cf = u16(h + 18);
	r->first = (cf & S2_FIRST) != 0;
	r->final = (cf & S2_FINAL) != 0;
	r->lost = (cf & S2_LOST) != 0;
	r->proc_class = h[17];
	r->pool = pool_of(h[17], (cf & S2_ZCBP) != 0);
	if (r->pool < 0)
		return fail_at(d, err, MF_EFORMAT, r->offset, r->number, "unknown processor class %u", h[17]);
	r->cfvn = u16(h + 20);
	r->csvn = u16(h + 22);
	csof = u32(h + 24);
	csln = u16(h + LAYOUT.s2_csln);
	cson = u16(h + LAYOUT.s2_cson);
	cdof = u32(h + LAYOUT.s2_cdof);
	cdln = u16(h + LAYOUT.s2_cdln);
	cdon = u16(h + LAYOUT.s2_cdon);
	r->cpsp = (double)u32(h + LAYOUT.s2_cpsp);
	r->cpu = u16(h + LAYOUT.s2_cpuid);
	rc = machine_of(d, r, h + LAYOUT.s2_type, err);
	if (rc)
		return rc;
	if (csln < LAYOUT.css2_len || cson == 0 || cson > 16 || !inside(len, csof, (uint64_t)csln * cson))
		return fail_at(d, err, MF_EFORMAT, r->offset, r->number,
			       "counter-set sections (offset %u, %u x %u bytes) lie outside the record or are "
			       "implausible",
			       (unsigned)csof, cson, csln);
	if (cdln != 8 || !inside(len, cdof, (uint64_t)cdln * cdon))
		return fail_at(d, err, MF_EFORMAT, r->offset, r->number,
			       "counter data (offset %u, %u x %u bytes) lies outside the record or is not 8-byte",
			       (unsigned)cdof, cdon, cdln);
	for (i = 0; i < cson; i++) {
		const unsigned char *s = rec + csof + (size_t)i * csln;
		unsigned type = s[LAYOUT.css2_type], n = u16(s + LAYOUT.css2_csn);
		if (type < 1 || type > 4)
			return fail_at(d, err, MF_EFORMAT, r->offset, r->number,
				       "counter set %u has type %u (subtype 2 holds types 1-4)", i + 1, type);
		if (n > mf_smf_set_size(type, r->cfvn, r->csvn))
			return bad_set_size(d, r, err, i, type, n, mf_smf_set_size(type, r->cfvn, r->csvn));
		total += n;
	}
	if (total != cdon)
		return fail_at(d, err, MF_EFORMAT, r->offset, r->number,
			       "counter sets hold %u counters but the data section has %u", total, cdon);
	/* §6.3: counters of the sets in CSS order, contiguous. */
	for (i = 0; i < cson; i++) {
		const unsigned char *s = rec + csof + (size_t)i * csln;
		unsigned type = s[LAYOUT.css2_type], n = u16(s + LAYOUT.css2_csn);
		r->sets |= 1u << type;
		for (k = 0; k < n; k++, slot++)
			put(r, mf_smf_set_first(type) + k, u64(rec + cdof + (size_t)slot * 8));
	}
	/* Subtype 2 has no interval in the record: the reader takes it from consecutive CTMs. */
	return 0;
}

/* Decodes the type 113 record rec[0..len) at offset off. */
static int decode(struct mf_smfdec *d, const unsigned char *rec, size_t len, long long off, struct mf_smf_record *r,
		  struct mf_error *err)
{
	uint32_t iof, dof;
	unsigned sdl, iln, ion, dln, don, subtype;

	memset(r, 0, offsetof(struct mf_smf_record, num));
	r->type = 113;
	r->offset = off;
	r->number = d->recno;
	if (len < 52)
		return fail_at(d, err, MF_EFORMAT, off, d->recno, "type 113 record of %zu bytes is too short", len);
	if (u16(rec) != len)
		return fail_at(d, err, MF_EFORMAT, off, d->recno,
			       "record length field %u disagrees with its descriptor (%zu)", u16(rec), len);
	subtype = u16(rec + 22);
	r->subtype = (int)subtype;
	mf_smf_ebcdic(rec + 14, 4, r->system);
	if (time_ok(rec + 6) && mf_smf_date_ok(rec + 10)) {
		r->has_local = true;
		r->local_us = local_time(rec + 6, rec + 10);
	}
	sdl = u16(rec + 26);
	if (sdl < 24)
		return fail_at(d, err, MF_EFORMAT, off, d->recno,
			       "self-defining section of %u bytes (at least 24 expected)", sdl);
	iof = u32(rec + 36);
	iln = u16(rec + 40);
	ion = u16(rec + 42);
	dof = u32(rec + 44);
	dln = u16(rec + 48);
	don = u16(rec + 50);
	if (don != 1 || !inside(len, dof, dln))
		return fail_at(d, err, MF_EFORMAT, off, d->recno,
			       "data section (offset %u, %u x %u bytes) lies outside the record", (unsigned)dof, don,
			       dln);
	if (ion && !inside(len, iof, (uint64_t)iln * ion))
		return fail_at(d, err, MF_EFORMAT, off, d->recno,
			       "identification section (offset %u, %u bytes) lies outside the record", (unsigned)iof,
			       iln);
	if (subtype == 1) {
		int rc = decode_s1(d, rec, len, dof, dln, r, err);
		if (rc)
			return rc;
		if (ion && iln >= LAYOUT.id_min_len) {
			uint64_t s = u64(rec + iof + LAYOUT.id_start), e = u64(rec + iof + LAYOUT.id_end);
			if (s && e > s) {
				r->has_interval = true;
				r->start_us = mf_tod_to_unix_us(s);
				r->end_us = mf_tod_to_unix_us(e);
			}
		}
		return 0;
	}
	if (subtype == 2)
		return decode_s2(d, rec, len, dof, dln, r, err);
	return fail_at(d, err, MF_EFORMAT, off, d->recno, "type 113 subtype %u is not known (1 and 2 are)", subtype);
}

int mf_smfdec_next(struct mf_smfdec *d, struct mf_smf_record *r, struct mf_error *err)
{
	for (;;) {
		const unsigned char *rec = NULL;
		size_t len = 0;
		long long off = 0;
		int rc, type;
		if (d->dead)
			return 0;
		rc = next_logical(d, &rec, &len, &off, err);
		d->stats.bytes = (uint64_t)(d->st->base + (long long)d->st->pos);
		if (rc <= 0)
			return rc;
		d->stats.records++;
		if (len < 6) {
			d->stats.by_type[0]++;
			continue;
		}
		type = rec[5];
		d->stats.by_type[type]++;
		if (type == 70 && len >= 24 && u16(rec + 22) == 1) {
			d->stats.t70_1++;
			if (d->context) {
				memset(r, 0, offsetof(struct mf_smf_record, num));
				r->type = 70;
				r->raw = rec;
				r->raw_len = len;
				r->subtype = 1;
				r->offset = off;
				r->number = d->recno;
				if (mf_smf70_decode(rec, len, &d->rmf, d->why, sizeof(d->why)))
					r->bad = d->why;
				else
					r->rmf = &d->rmf;
				mf_smf_ebcdic(rec + 14, 4, r->system);
				return 1;
			}
		}
		if (type == 99 && len >= 24 && u16(rec + 22) == 14) {
			d->stats.t99_14++;
			if (d->context) {
				memset(r, 0, offsetof(struct mf_smf_record, num));
				r->type = 99;
				r->raw = rec;
				r->raw_len = len;
				r->subtype = 14;
				r->offset = off;
				r->number = d->recno;
				if (mf_smf99_14_decode(rec, len, &d->topo, d->why, sizeof(d->why)))
					r->bad = d->why;
				else
					r->topo = &d->topo;
				mf_smf_ebcdic(rec + 14, 4, r->system);
				return 1;
			}
		}
		if (type != 113 || d->only_context)
			continue;
		if (len >= 24) {
			unsigned st = u16(rec + 22);
			d->stats.t113[st == 1 || st == 2 ? st : 0]++;
		}
		return decode(d, rec, len, off, r, err) ? MF_EFORMAT : 1;
	}
}
