/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_SMF_INT_H
#define MFSTAT_SMF_INT_H

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
