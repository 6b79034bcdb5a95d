/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_SMF_INT_H
#define MFSTAT_SMF_INT_H

#include <string.h>

#include "mfstat/input/smf.h"
#include "reader_int.h"

/* The SMF deblocker and type 113 decoder over a reader stream.  Internal. */
struct mf_smfdec {
	struct mf_stream *st;
	const struct mf_kb *kb;
	const char *name;
	int framing;        /* SMF_RDW or SMF_VBS */
	size_t block_left;  /* VBS: bytes left in the current block */
	unsigned char *rec; /* reassembled spanned record */
	size_t rec_len, rec_cap;
	bool in_chain;
	bool orphan; /* the rest of a chain already reported bad: its segments are dropped */
	long long chain_off;
	long recno;
	bool dead;
	bool no_interval_warned;
	bool context;      /* also return type 70 subtype 1 and type 99 subtype 14 records, decoded */
	bool only_context; /* and skip type 113 (a first pass for the LPAR view) */
	struct mf_smf70 rmf;
	struct mf_smf99t topo;
	char why[300]; /* why the last context record could not be decoded */
	struct mf_smf_stats stats;
	/* Per family and counter set: the entries the family defines (most sets are sparse). */
	struct smf_setmap {
		const struct mf_family *fam;
		unsigned type, cdon;
		unsigned n;
		uint16_t k[512];
	} setmap[16];
	unsigned nsetmap;
};

enum { SMF_RDW = 1, SMF_VBS = 2 };

/* Big-endian loads (SMF is big-endian, whatever the host). */
static inline unsigned u16(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static inline uint32_t u32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t u64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* EBCDIC (code page 037) text of p[0..n) into out (n + 1 bytes), trailing blanks trimmed. */
void mf_smf_ebcdic(const unsigned char *p, size_t n, char *out);
/* A packed SMF date 0cyydddF (c 0-2, ddd 001-366)? */
bool mf_smf_date_ok(const unsigned char *p);
/* Midnight of that date (checked by mf_smf_date_ok), Unix microseconds. */
int64_t mf_smf_date_us(const unsigned char *dte);

/* Scores buf[0..n) as the start of an SMF dump (0 no, 90 yes); sets *framing. */
int mf_smf_probe(const char *buf, size_t n, int *framing);

/*
 * For a file that is not an SMF dump as read here but looks like one damaged in the transfer
 * (no RDWs, ASCII conversion): 1 with the diagnosis and the remedy in msg; else 0.
 */
int mf_smf_explain(const char *buf, size_t n, char *msg, size_t size);

/*
 * The architected size of counter set cstype (1 basic, 2 problem-state, 3
 * crypto, 4 extended, 6 MT-diagnostic) for counter versions cfvn and csvn,
 * and the number of its first counter.
 */
unsigned mf_smf_set_size(unsigned cstype, unsigned cfvn, unsigned csvn);
unsigned mf_smf_set_first(unsigned cstype);

int mf_smfdec_init(struct mf_smfdec *d, struct mf_stream *st, const struct mf_kb *kb, struct mf_error *err);
int mf_smfdec_next(struct mf_smfdec *d, struct mf_smf_record *rec, struct mf_error *err);
void mf_smfdec_free(struct mf_smfdec *d);

#endif
