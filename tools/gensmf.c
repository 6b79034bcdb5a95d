/* SPDX-License-Identifier: MIT */
/*
 * gensmf: writes a synthetic, deterministic z/OS SMF dump holding type 113 (CPU-MF counter)
 * records, subtype 1 and/or 2, framed as an RDW stream or as VBS blocks, with records of other
 * types mixed in; and the same counter deltas as mfstat's canonical counter CSV, so that
 * `mfstat report dump.smf` can be checked against `mfstat report expected.csv`.
 *
 *   cc -O2 -std=c17 -Wall -Wextra -Wpedantic -o gensmf tools/gensmf.c
 *   ./gensmf --systems 2 --cpus 4 --ziip 1 --framing vbs -o dump.smf --csv expected.csv
 *
 * The record layout is the one of shared/reference/smf113-layout.md (sections 1-7) exactly,
 * including its inferred [I] parts; tools/README.md lists the choices.  The counter values follow
 * the z16 model of gen_common.h (shared with bench/gencsv.c), with every family's sourcing
 * counters (the ones its formulas in data/metrics/<family>.tsv use) filled so that they add up
 * to at most L1M = B2 + B4.
 * Records are built in memory and written in large blocks.
 */
#define PROG "gensmf"
#include "gen_common.h"

#define NV 512       /* counter numbers 0..511 */
#define X 511        /* a slot no family defines: writes to it are dropped */
#define MAXREC 32756 /* largest SMF record incl. the RDW */

/* ---------------------------------------------------------------- families */

/* The counters each family defines, in the order of data/counters/<family>.tsv. */
/* clang-format off */
static const unsigned short ctr_z10[] = {
	0,   1,   2,   3,   4,   5,   32,  33,  34,  35,  36,  37,  64,  65,  66,  67,  68,  69,  70,  71,
	72,  73,  74,  75,  76,  77,  78,  79,  128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139,
	140, 141, 142, 145, 146, 147,
};
static const unsigned short ctr_z196[] = {
	0,   1,   2,   3,   4,   5,   32,  33,  34,  35,  36,  37,  64,  65,  66,  67,  68,  69,
	70,  71,  72,  73,  74,  75,  76,  77,  78,  79,  128, 129, 130, 131, 133, 134, 135, 136,
	137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 150, 152, 153, 155,
};
static const unsigned short ctr_zec12[] = {
	0,   1,   2,   3,   4,   5,   32,  33,  34,  35,  36,  37,  64,  65,  66,  67,  68,  69,  70,  71,  72,
	73,  74,  75,  76,  77,  78,  79,  128, 129, 130, 131, 132, 133, 135, 137, 138, 139, 140, 141, 142, 143,
	144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 177, 178, 179,
};
static const unsigned short ctr_z13[] = {
	0,   1,   2,   3,   4,   5,   32,  33,  34,  35,  36,  37,  64,  65,  66,  67,  68,  69,  70,  71,
	72,  73,  74,  75,  76,  77,  78,  79,  128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139,
	140, 141, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160,
	161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 218,
	219, 220, 448, 449,
};
static const unsigned short ctr_z14[] = {
	0,   1,   2,   3,   4,   5,   32,  33,  34,  35,  36,  37,  64,  65,  66,  67,  68,  69,  70,  71,
	72,  73,  74,  75,  76,  77,  78,  79,  128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139,
	140, 141, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 162, 163,
	164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 224, 225, 226, 232, 243, 244, 245, 448,
	449,
};
static const unsigned short ctr_z15[] = {
	0,   1,   2,   3,   4,   5,   32,  33,  64,  65,  66,  67,  68,  69,  70,  71,  72,  73,  74,  75,
	76,  77,  78,  79,  80,  81,  82,  83,  128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139,
	140, 141, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 162, 163,
	164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 224, 225, 226, 232, 243, 244, 245, 247,
	252, 264, 265, 448, 449,
};
static const unsigned short ctr_z17[] = {
	0,   1,   2,   3,   4,   5,   32,  33,  64,  65,  66,  67,  68,  69,  70,  71,  72,  73,  74,  75,
	76,  77,  78,  79,  80,  81,  82,  83,  128, 129, 130, 131, 132, 134, 135, 137, 138, 139, 140, 141,
	143, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163,
	164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 202, 203, 204, 205,
	206, 225, 226, 232, 244, 245, 246, 248, 253, 256, 265, 266, 267, 268, 269, 270, 272, 273, 274, 276,
	277, 278, 279, 448, 449,
};
/* clang-format on */

/* Where a family keeps the non-sourcing extended counters of the model (X: not on this family). */
struct emap {
	unsigned short dw, dc, iw, ic; /* TLB writes (= misses) and miss cycles, data and instruction */
	unsigned short pte, crste, crste_hp, hpage, gpage, busy, roexcl;
	unsigned short txc, txnc, ab_nc, ab_c, ab_cs; /* transactions ended / aborted */
	unsigned short bcd, vxbcd, dec, lht;          /* decimal, last host translations */
	unsigned short dfl_acc, dfl_cyc, dfl_cc, dfl_ccf, sortl;
	unsigned short e143;           /* the finite-CPI cycles counter (z13+) */
	unsigned short l1i_inv, l2cst; /* z10 L1I invalidates, L2C stores sent */
	unsigned char nnpa;            /* 1: NNPA 267-270 (z16), 2: and 272-279 (z17) */
	unsigned char thr;             /* z17 E202-E206 */
};

struct family {
	const char *name, *type, *model;
	unsigned cpsp, csvn, cfvn, crypto_n, ext_n, mt_n;
	const unsigned short *ctr;
	size_t nctr;
	double fin_coef; /* > 0: FINITE_CPI = (B3+B5)/B1 * coef (z10-zEC12) */
	double fin_add;  /* FINITE_CPI = E143/B1 + add (z13+) */
	double nest;     /* scales the beyond-L2 shares so that the family's RNI formula gives about
	                  * the RNI of the z16 model (IBM calibrates RNI per family) */
	struct split sp[NCAT];
	struct emap m;
};

/* clang-format off */
#define CTRS(a) a, sizeof a / sizeof a[0]
#define NOTX X, X, X, X, X
#define NODEC X, X, X, X
#define NODFL X, X, X, X, X

/* z16 and z17 use the z16 split of gen_common.h; z17 has no I-side memory counters (E180-E183). */
#define SP_Z14                                                                                         \
	{                                                                                              \
		{1, 1, {133}, {136}, {1}, {1}}, {2, 2, {144, 146}, {162, 164}, {0.85, 0.15}, {0.85, 0.15}}, \
		{6,                                                                                    \
		 5,                                                                                    \
		 {147, 149, 156, 150, 152, 158},                                                       \
		 {165, 167, 174, 168, 170},                                                            \
		 {0.30, 0.05, 0.30, 0.20, 0.05, 0.10},                                                 \
		 {0.30, 0.05, 0.35, 0.25, 0.05}},                                                      \
		{3, 3, {153, 155, 157}, {171, 173, 175}, {0.5, 0.1, 0.4}, {0.5, 0.1, 0.4}},             \
		{4, 4, {145, 148, 151, 154}, {163, 166, 169, 172}, {0.35, 0.30, 0.20, 0.15},           \
		 {0.35, 0.30, 0.20, 0.15}},                                                            \
	}

static const struct family families[] = {
	{"z10", "2097", "E64", 4400, 1, 1, 16, 32, 0, CTRS(ctr_z10), 0.84, 0, 2.5,
	 {
		 {1, 1, {129}, {128}, {1}, {1}}, /* L1.5 */
		 {1, 1, {131}, {130}, {1}, {1}}, /* L2 local (on book) */
		 {1, 1, {131}, {130}, {1}, {1}},
		 {1, 1, {133}, {132}, {1}, {1}}, /* L2 remote */
		 {1, 1, {134}, {135}, {1}, {1}}, /* local memory */
	 },
	 {139, 146, 138, 145, 140, 141, 142, X, X, X, 136, NOTX, NODEC, NODFL, X, 137, 147, 0, 0}},
	{"z196", "2817", "M80", 5200, 2, 1, 16, 48, 0, CTRS(ctr_z196), 0.65, 0, 2.4,
	 {
		 {1, 1, {128}, {129}, {1}, {1}},
		 {1, 1, {150}, {153}, {1}, {1}},
		 {2, 2, {135, 152}, {136, 155}, {0.6, 0.4}, {0.6, 0.4}},
		 {2, 2, {138, 134}, {139, 143}, {0.6, 0.4}, {0.6, 0.4}},
		 {1, 1, {141}, {142}, {1}, {1}},
	 },
	 {144, 130, 145, 131, 146, 148, 147, 140, X, X, 137, NOTX, NODEC, NODFL, X, X, 133, 0, 0}},
	{"zEC12", "2827", "HA1", 5500, 3, 1, 16, 128, 0, CTRS(ctr_zec12), 0.57, 0, 1.6,
	 {
		 {2, 1, {132, 130}, {131}, {0.9, 0.1}, {1}},
		 {2, 2, {144, 150}, {153, 159}, {0.85, 0.15}, {0.85, 0.15}},
		 {3, 3, {147, 145, 151}, {156, 154, 160}, {0.5, 0.4, 0.1}, {0.5, 0.4, 0.1}},
		 {3, 3, {148, 146, 152}, {157, 155, 161}, {0.5, 0.4, 0.1}, {0.5, 0.4, 0.1}},
		 {1, 1, {135}, {137}, {1}, {1}},
	 },
	 {133, 128, 140, 129, 141, 143, 142, 139, X, X, 138, 158, 149, 177, 178, 179, NODEC, NODFL, X, X, X,
	  0, 0}},
	{"z13", "2964", "NE1", 5000, 4, 1, 16, 128, 48, CTRS(ctr_z13), 0, 0, 1.6,
	 {
		 {1, 1, {133}, {136}, {1}, {1}},
		 {2, 2, {144, 145}, {162, 163}, {0.85, 0.15}, {0.85, 0.15}},
		 {3, 3, {146, 147, 148}, {164, 165, 166}, {0.5, 0.15, 0.35}, {0.5, 0.15, 0.35}},
		 {9,
		  9,
		  {149, 150, 151, 152, 153, 154, 155, 156, 157},
		  {167, 168, 169, 170, 171, 172, 173, 174, 175},
		  {0.25, 0.05, 0.20, 0.10, 0.02, 0.08, 0.15, 0.03, 0.12},
		  {0.25, 0.05, 0.20, 0.10, 0.02, 0.08, 0.15, 0.03, 0.12}},
		 {4, 4, {158, 159, 160, 161}, {176, 177, 178, 179}, {0.3, 0.25, 0.15, 0.3}, {0.3, 0.25, 0.15, 0.3}},
	 },
	 {129, 130, 134, 135, 137, 139, 138, 131, 132, X, 128, 140, 141, 218, 219, 220, NODEC, NODFL, 143, X, X,
	  0, 0}},
	{"z14", "3906", "M05", 5200, 5, 3, 16, 128, 48, CTRS(ctr_z14), 0, 0.18, 1.6, SP_Z14,
	 {129, 130, 134, 135, 137, 138, X, 131, 132, 139, 128, 140, 141, 243, 244, 245, 224, 225, 226, 232,
	  NODFL, 143, X, X, 0, 0}},
	{"z15", "8561", "T01", 5200, 6, 3, 20, 160, 48, CTRS(ctr_z15), 0, 0.15, 1.35, SP_Z14,
	 {129, 130, 134, 135, 137, 138, X, 131, 132, 139, 128, 140, 141, 243, 244, 245, 224, 225, 226, 232, 247,
	  252, 264, 265, X, 143, X, X, 0, 0}},
	{"z16", "3931", "A01", 5200, 7, 3, 20, 160, 48, CTRS(ctr_z16), 0, 0, 1.0,
	 {
		 SP_Z16_L2,
		 SP_Z16_L3,
		 SP_Z16_L4L,
		 SP_Z16_L4R,
		 SP_Z16_MEM,
	 },
	 {129, 130, 134, 135, 137, 138, X, 131, 132, 139, 128, 140, 141, 244, 245, 246, 224, 225, 226, 232, 248,
	  253, 265, 266, 256, 143, X, X, 1, 0}},
	{"z17", "9175", "ME1", 5500, 8, 3, 20, 160, 48, CTRS(ctr_z17), 0, 0, 0.9,
	 {
		 SP_Z16_L2,
		 SP_Z16_L3,
		 SP_Z16_L4L,
		 SP_Z16_L4R,
		 {4, 0, {156, 157, 158, 159}, {0}, {0.45, 0.25, 0.20, 0.10}, {0}},
	 },
	 {129, 130, 134, 135, 137, 138, X, 131, 132, 139, 128, 140, 141, 244, 245, 246, 224, 225, 226, 232, 248,
	  253, 265, 266, 256, 143, X, X, 2, 1}},
};
/* clang-format on */
#define NFAM (sizeof families / sizeof families[0])

/* Counter sets as written: CSType, first counter number, size. */
struct cset {
	unsigned type, first, n;
};

static unsigned fam_sets(const struct family *f, int subtype, struct cset *s)
{
	unsigned k = 0;
	s[k++] = (struct cset){1, 0, 6};
	s[k++] = (struct cset){2, 32, f->cfvn == 1 ? 6 : 2};
	s[k++] = (struct cset){3, 64, f->crypto_n};
	s[k++] = (struct cset){4, 128, f->ext_n};
	if (subtype == 1 && f->mt_n)
		s[k++] = (struct cset){6, 448, f->mt_n};
	return k;
}

/* ---------------------------------------------------------------- PRNG (gen_common.h) */

static rng_t R2; /* the other record types (independent of the counter data; R: gen_common.h) */

/* ---------------------------------------------------------------- value model (gen_common.h) */

/* One interval of one cpu: fills v (all NV slots) with deltas for `cycles` elapsed cycles. */
static void gen_row(uint64_t *v, const struct family *f, const struct cpu *c, const struct prof *p, double cycles)
{
	const struct emap *m = &f->m;
	memset(v, 0, NV * sizeof *v);

	struct core k;
	gen_core(&k, c, p, cycles, f->nest);
	gen_basic(v, &k, f->fin_coef, f->fin_add, m->e143);

	/* problem state (P34-P37 exist with CFVN 1 only) */
	double prb = gen_prb(v, &k, c);
	double pm = clampd(prb + U(-0.05, 0.05), 0.2, 0.9);
	v[34] = u64((double)v[2] * pm);
	v[35] = u64((double)v[3] * pm);
	v[36] = u64((double)v[4] * pm);
	v[37] = u64((double)v[5] * pm);

	gen_sourcing(v, &k, f->sp);

	/* TLB */
	double dmiss = (double)k.B1 * U(0.0003, 0.0015), imiss = (double)k.B1 * U(0.00004, 0.0003);
	v[m->dw] = u64(dmiss);
	v[m->dc] = u64(dmiss * U(60, 160));
	v[m->iw] = u64(imiss);
	v[m->ic] = u64(imiss * U(50, 140));
	v[m->roexcl] = u64((double)k.B4 * U(0.05, 0.15));
	v[m->hpage] = u64((dmiss + imiss) * U(0.10, 0.30));
	v[m->gpage] = rnd() % 4 == 0 ? rnd() % 50 : 0;
	v[m->pte] = u64((dmiss + imiss) * U(0.60, 0.80));
	v[m->crste] = u64((dmiss + imiss) * U(0.05, 0.15));
	v[m->crste_hp] = u64((dmiss + imiss) * U(0.02, 0.08));
	v[m->busy] = u64(k.b0 * U(0.01, 0.08));
	v[m->l1i_inv] = u64((double)k.B2 * U(0.01, 0.05));
	v[m->l2cst] = u64((double)k.B1 * U(0.01, 0.04));
	double tx = (double)k.B1 * U(0.0, 2e-6);
	v[m->txc] = u64(tx * U(0.1, 0.3));
	v[m->txnc] = u64(tx * U(0.7, 0.9));
	v[m->ab_nc] = u64((double)v[m->txnc] * U(0.01, 0.05));
	v[m->ab_c] = u64((double)v[m->txc] * U(0.005, 0.02));
	v[m->ab_cs] = v[m->ab_c] / 20;

	/* crypto (C80-C83 exist with CSVN 6 and later only) */
	gen_crypto(v, &k, c);

	/* decimal, compression, sort */
	v[m->dec] = u64((double)k.B1 * c->dec * U(0.8, 1.2));
	v[m->bcd] = u64((double)k.B1 * c->dec * U(0.02, 0.10));
	v[m->vxbcd] = u64((double)k.B1 * c->dec * U(0.05, 0.30));
	v[m->lht] = rnd() % 8 == 0 ? rnd() % 2000 : 0;
	double dfl = c->ziip ? 0 : (double)(rnd() % 30000);
	v[m->dfl_cc] = u64(dfl);
	v[m->dfl_ccf] = u64(dfl * U(0.98, 1.0));
	v[m->dfl_cyc] = u64(dfl * U(8000, 40000));
	v[m->dfl_acc] = u64((double)v[m->dfl_cyc] * U(0.01, 0.05));
	v[m->sortl] = c->ziip ? 0 : rnd() % 3000;

	/* AI accelerator */
	if (m->nnpa && c->aiu && rnd() % 4 != 0) {
		double inv = gen_nnpa(v, &k);
		if (m->nnpa == 2) {
			double loc = U(0.80, 0.97);
			v[272] = u64(inv * loc);
			v[273] = u64(inv * (1 - loc) * U(0.9, 1.0));
			v[274] = u64(inv * U(0.0, 0.02));
			v[276] = u64(inv * U(2, 20));
			v[277] = u64(inv * U(0.99, 1.0));
			v[278] = u64(inv * U(0.0, 0.01));
			v[279] = u64((double)v[278] * U(0.0, 0.3));
		}
	}
	if (m->thr) {
		double same = c->ziip ? U(0.55, 0.80) : U(0.95, 1.0);
		v[202] = u64(k.b0 * same);
		v[203] = k.B0 - v[202];
		v[204] = u64((double)k.B1 * same * U(0.98, 1.02));
		v[205] = k.B1 > v[204] ? k.B1 - v[204] : 0;
		v[206] = u64((double)k.B1 * U(0.002, 0.01));
	}

	gen_mt(v, &k, c);
	v[X] = 0;
}

/* ---------------------------------------------------------------- output buffers */

#define OUTBUF (8u << 20)

struct obuf {
	FILE *f;
	const char *name;
	unsigned char *b;
	size_t n;
};

static struct obuf smf, csv;

static void ob_flush(struct obuf *o)
{
	if (o->n && fwrite(o->b, 1, o->n, o->f) != o->n) {
		fprintf(stderr, PROG ": %s: write error: %s\n", o->name, strerror(errno));
		exit(1);
	}
	o->n = 0;
}

static inline void ob_put(struct obuf *o, const void *p, size_t n)
{
	if (o->n + n > OUTBUF)
		ob_flush(o);
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

/* ---------------------------------------------------------------- framing */

enum { FR_RDW, FR_VBS };
static int framing = FR_RDW;
static size_t block_size = 27998;
static unsigned char blk[32768];
static size_t blen; /* bytes in the open block, BDW included; 0: none open */
static uint64_t nblocks, nsegments;

static inline void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

static inline void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static inline void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static void block_close(void)
{
	if (blen > 4) {
		put16(blk, (unsigned)blen);
		blk[2] = blk[3] = 0;
		ob_put(&smf, blk, blen);
		nblocks++;
	}
	blen = 0;
}

static void segment(const unsigned char *d, size_t n, unsigned code)
{
	put16(blk + blen, (unsigned)(n + 4));
	blk[blen + 2] = (unsigned char)code;
	blk[blen + 3] = 0;
	memcpy(blk + blen + 4, d, n);
	blen += n + 4;
	nsegments++;
}

static uint64_t bytes113, bytes_other, nrec113, nrec_other;

/* Writes one logical record (r starts with its RDW, len includes it). */
static void emit(const unsigned char *r, size_t len)
{
	if (framing == FR_RDW) {
		ob_put(&smf, r, len);
		return;
	}
	/* VBS: the data after the RDW goes out as segments; a record that does not fit the rest of
	 * the block fills it and continues in the next block (spanned). */
	const unsigned char *d = r + 4;
	size_t rem = len - 4;
	int first = 1;
	for (;;) {
		if (blen == 0)
			blen = 4;
		size_t space = block_size - blen;
		if (space < 5) { /* no room for an SDW and one byte */
			block_close();
			continue;
		}
		if (rem + 4 <= space) {
			segment(d, rem, first ? 0 : 2);
			return;
		}
		size_t n = space - 4;
		segment(d, n, first ? 1 : 3);
		d += n;
		rem -= n;
		first = 0;
		block_close();
	}
}

/* ---------------------------------------------------------------- time, EBCDIC, packed */

/* STCK/TOD: bit 51 = 1 microsecond, epoch 1900-01-01 */
static inline uint64_t tod_of_us(int64_t unix_us)
{
	return ((uint64_t)unix_us << 12) + 0x7D91048BCA000000u;
}

/* ASCII -> EBCDIC code page 037, printable characters */
static unsigned char e037[128];

static void init_ebcdic(void)
{
	static const char *from = " .<(+|&!$*);-/,%_>?`:#@'=\"";
	static const unsigned char to[] = {0x40, 0x4B, 0x4C, 0x4D, 0x4E, 0x4F, 0x50, 0x5A, 0x5B,
					   0x5C, 0x5D, 0x5E, 0x60, 0x61, 0x6B, 0x6C, 0x6D, 0x6E,
					   0x6F, 0x79, 0x7A, 0x7B, 0x7C, 0x7D, 0x7E, 0x7F};
	memset(e037, 0x40, sizeof e037);
	for (size_t i = 0; from[i]; i++)
		e037[(unsigned char)from[i]] = to[i];
	for (int i = 0; i < 10; i++)
		e037['0' + i] = (unsigned char)(0xF0 + i);
	for (int i = 0; i < 26; i++) {
		unsigned hi = i < 9 ? 0xC1 + (unsigned)i : i < 18 ? 0xD1 + (unsigned)i - 9 : 0xE2 + (unsigned)i - 18;
		e037['A' + i] = (unsigned char)hi;
		e037['a' + i] = (unsigned char)(hi - 0x40);
	}
}

/* s in EBCDIC, blank-padded (or cut) to n bytes */
static void ebc(unsigned char *p, const char *s, size_t n)
{
	size_t i = 0;
	for (; i < n && s[i]; i++)
		p[i] = e037[(unsigned char)s[i] & 0x7F];
	for (; i < n; i++)
		p[i] = 0x40;
}

static int64_t utc_offset_us; /* local time = UTC + offset */

/* TME (binary 1/100 s since local midnight) and DTE (packed 0cyydddF) of a UTC time */
static void tme_dte(int64_t unix_us, unsigned char *tme, unsigned char *dte)
{
	int64_t l = unix_us + utc_offset_us;
	int64_t days = l / 86400000000, y;
	int64_t in_day = l % 86400000000;
	unsigned m, d;
	put32(tme, (uint32_t)(in_day / 10000));
	civil_from_days(days, &y, &m, &d);
	unsigned doy = (unsigned)(days - days_from_civil(y, 1, 1)) + 1;
	unsigned c = (unsigned)(y / 100 - 19), yy = (unsigned)(y % 100);
	dte[0] = (unsigned char)c;
	dte[1] = (unsigned char)((yy / 10) << 4 | yy % 10);
	dte[2] = (unsigned char)((doy / 100) << 4 | (doy / 10 % 10));
	dte[3] = (unsigned char)((doy % 10) << 4 | 0xF);
}

/* ---------------------------------------------------------------- records */

static unsigned char rec[MAXREC + 64];

/* Standard header. With subtypes: 24 bytes (FLG X'5E', WID, STY); without (types 2, 3): 18 bytes. */
static size_t std_header(unsigned char *r, unsigned rty, int subtypes, unsigned sty, int64_t t_us, const char *sid,
			 const char *wid)
{
	r[2] = r[3] = 0;
	r[4] = subtypes ? 0x5E : 0x1E;
	r[5] = (unsigned char)rty;
	tme_dte(t_us, r + 6, r + 10);
	ebc(r + 14, sid, 4);
	if (!subtypes)
		return 18;
	ebc(r + 18, wid, 4);
	put16(r + 22, sty);
	return 24;
}

struct sysinfo {
	const struct family *f;
	char sid[5];
	char seq[17];
	int64_t cts_us; /* HIS collection run start */
};

/* Header, self-defining, product and identification sections of a 113 record: 112 bytes.
 * Returns the offset of the data section.  Section layouts: smf113-layout.md §4 (Source A). */
static size_t hdr113(unsigned char *r, const struct sysinfo *s, unsigned sty, int64_t istart, int64_t iend,
		     unsigned dln)
{
	std_header(r, 113, 1, sty, iend, s->sid, "");
	r[24] = r[25] = 0;
	put16(r + 26, 24); /* SDL */
	/* self-defining section at 28: SOF/SLN/SON, IOF/ILN/ION, DOF/DLN/DON */
	put32(r + 28, 52);
	put16(r + 32, 20);
	put16(r + 34, 1);
	put32(r + 36, 72);
	put16(r + 40, 40);
	put16(r + 42, 1);
	put32(r + 44, 112);
	put16(r + 48, dln);
	put16(r + 50, 1);
	/* product section SMF113SSS at 52, 20 bytes: 2 unnamed bytes, RVN@2, PNM@4, OSL@12 */
	r[52] = r[53] = 0;
	ebc(r + 54, "01", 2);
	ebc(r + 56, "HIS", 8);
	ebc(r + 64, "SP7.3.0", 8);
	/* identification section SMF113ID at 72: JBN, RST, RSD, STP, INTERVALSTART, INTERVALEND */
	ebc(r + 72, "HIS", 8);
	{
		unsigned char tme[4], dte[4];
		tme_dte(s->cts_us, tme, dte);
		memcpy(r + 80, tme, 4);
		memcpy(r + 84, dte, 4);
	}
	ebc(r + 88, "HIS", 8);
	put64(r + 96, tod_of_us(istart));
	put64(r + 104, tod_of_us(iend));
	return 112;
}

static int use_scds;

/* Kinds of cpu: processor class 0, 4, or 2 with the zCBP flag (SMF113_1_Flags bit 3, SMF113_2_CF bit 5). */
enum { K_GCP, K_ZIIP, K_ZCBP };
static const char *const kind_pool[] = {"GCP", "ZIIP", "ZCBP"};

static unsigned kind_class(int kind)
{
	return kind == K_ZIIP ? 4 : kind == K_ZCBP ? 2 : 0;
}

/* subtype 1: deltas v of one cpu over [istart, iend]; lost: X'8000', mt_lost: X'2000' */
static size_t rec113_1(const struct sysinfo *s, const unsigned char *def, unsigned cpuid, int kind, int64_t istart,
		       int64_t iend, int lost, int mt_lost, const uint64_t *v)
{
	const struct family *f = s->f;
	unsigned char *r = rec;
	size_t dof = hdr113(r, s, 1, istart, iend, 78);
	unsigned char *h = r + dof;
	struct cset cs[6];
	unsigned ns = fam_sets(f, 1, cs);
	size_t csof = dof + 78;

	put64(h + 0, tod_of_us(s->cts_us));
	put64(h + 8, tod_of_us(iend));
	put16(h + 16, cpuid);
	h[18] = (unsigned char)kind_class(kind);
	h[19] = 0;
	put32(h + 20, f->cpsp);
	ebc(h + 24, f->type, 4);
	ebc(h + 28, f->model, 16);
	put16(h + 44, 1);
	put16(h + 46, f->cfvn);
	put16(h + 48, f->csvn);
	put16(h + 50, (lost ? 0x8000 : 0) | (mt_lost ? 0x2000 : 0) | (kind == K_ZCBP ? 0x1000 : 0));
	put32(h + 52, (uint32_t)csof);
	put16(h + 56, 12);
	put16(h + 58, ns);
	ebc(h + 60, s->seq, 16);
	put16(h + 76, cpuid);

	size_t p = csof + 12 * ns;
	for (unsigned k = 0; k < ns; k++) {
		unsigned char *e = r + csof + 12 * k;
		const unsigned first = cs[k].first, n = cs[k].n;
		int w = 8;
		if (use_scds) {
			w = 4;
			for (unsigned j = 0; j < n; j++)
				if (def[first + j] && v[first + j] > 0xFFFFFFFFu) {
					w = 8;
					break;
				}
		}
		put16(e, cs[k].type);
		put16(e + 2, w == 8 ? 0x8000 : 0);
		put32(e + 4, (uint32_t)p);
		put16(e + 8, (unsigned)w);
		put16(e + 10, n);
		unsigned char *q = r + p;
		if (w == 8)
			for (unsigned j = 0; j < n; j++, q += 8)
				put64(q, def[first + j] ? v[first + j] : 0);
		else
			for (unsigned j = 0; j < n; j++, q += 4)
				put32(q, def[first + j] ? (uint32_t)v[first + j] : 0);
		p += (size_t)w * n;
	}
	put16(r, (unsigned)p);
	return p;
}

/* subtype 2: cumulative values cum of one cpu at iend */
static size_t rec113_2(const struct sysinfo *s, const unsigned char *def, unsigned cpuid, int kind, int64_t istart,
		       int64_t iend, unsigned cf, const uint64_t *cum)
{
	const struct family *f = s->f;
	unsigned char *r = rec;
	size_t dof = hdr113(r, s, 2, istart, iend, 84);
	unsigned char *h = r + dof;
	struct cset cs[6];
	unsigned ns = fam_sets(f, 2, cs), total = 0;
	for (unsigned k = 0; k < ns; k++)
		total += cs[k].n;
	size_t csof = dof + 84, cdof = csof + 4 * ns;

	put64(h + 0, tod_of_us(s->cts_us));
	put64(h + 8, tod_of_us(iend));
	h[16] = (unsigned char)cpuid;
	h[17] = (unsigned char)kind_class(kind);
	put16(h + 18, cf | (kind == K_ZCBP ? 0x0400 : 0));
	put16(h + 20, f->cfvn);
	put16(h + 22, f->csvn);
	put32(h + 24, (uint32_t)csof);
	put16(h + 28, 4);
	put16(h + 30, ns);
	put32(h + 32, (uint32_t)cdof);
	put16(h + 36, 8);
	put16(h + 38, total);
	put32(h + 40, f->cpsp);
	ebc(h + 44, f->type, 4);
	ebc(h + 48, f->model, 16);
	put16(h + 64, cpuid);
	h[66] = h[67] = 0;
	ebc(h + 68, s->seq, 16);

	unsigned char *q = r + cdof;
	for (unsigned k = 0; k < ns; k++) {
		/* SMF113_2_CSS: CST is one byte, then a reserved byte, then CSN (2 bytes) */
		r[csof + 4 * k] = (unsigned char)cs[k].type;
		r[csof + 4 * k + 1] = 0;
		put16(r + csof + 4 * k + 2, cs[k].n);
		for (unsigned j = 0; j < cs[k].n; j++, q += 8) {
			unsigned n = cs[k].first + j;
			put64(q, def[n] ? cum[n] : 0);
		}
	}
	size_t len = (size_t)(q - r);
	put16(r, (unsigned)len);
	return len;
}

/* ---------------------------------------------------------------- other record types */

static double other_ratio = 0.2;

static void emit_other(int64_t t_us, const char *sid)
{
	static const unsigned char types[3] = {30, 70, 72};
	static const unsigned char st30[4] = {2, 3, 4, 5};
	uint64_t x = rnd_r(&R2);
	unsigned ty = types[x % 3], sty;
	const char *wid;
	if (ty == 30) {
		sty = st30[(x >> 8) % 4];
		wid = "JES2";
	} else {
		sty = ty == 70 ? 1 + (unsigned)((x >> 8) % 2) : 3 + (unsigned)((x >> 8) % 2);
		wid = "RMF";
	}
	size_t pay = 100 + (size_t)((x >> 16) % 2901);
	size_t h = std_header(rec, ty, 1, sty, t_us, sid, wid);
	size_t len = h + pay;
	for (size_t i = h; i < len; i += 8) {
		uint64_t w = rnd_r(&R2);
		memcpy(rec + i, &w, 8); /* rec has room past MAXREC */
	}
	put16(rec, (unsigned)len);
	emit(rec, len);
	bytes_other += len;
	nrec_other++;
}

static void emit113(size_t len, int64_t t_us, const char *sid)
{
	emit(rec, len);
	bytes113 += len;
	nrec113++;
	while ((double)bytes_other < other_ratio * (double)bytes113)
		emit_other(t_us, sid);
}

/* ---------------------------------------------------------------- decimal output */

/* seconds with up to 6 decimals, no trailing zeros */
static char *put_secs(char *p, int64_t us)
{
	p = putu(p, (uint64_t)(us / 1000000));
	unsigned frac = (unsigned)(us % 1000000);
	if (frac) {
		char d[6];
		for (int i = 5; i >= 0; i--, frac /= 10)
			d[i] = (char)('0' + frac % 10);
		int n = 6;
		while (d[n - 1] == '0')
			n--;
		*p++ = '.';
		memcpy(p, d, (size_t)n);
		p += n;
	}
	return p;
}

/* ---------------------------------------------------------------- options */

static void usage(FILE *f)
{
	fputs("Usage: gensmf [OPTIONS] -o DUMP.smf [--csv EXPECTED.csv]\n"
	      "Writes a synthetic, deterministic SMF dump with type 113 (CPU-MF counter) records and,\n"
	      "with --csv, the same counter deltas in mfstat's canonical counter CSV: one row per\n"
	      "(system, cpu, interval), ordered by interval, system, cpu.  The first record is a type 2\n"
	      "dump header, the last a type 3 trailer; types 30, 70 and 72 are mixed in.\n"
	      "\n"
	      "  -o, --output FILE     the SMF dump ('-': standard output); required\n"
	      "  --csv FILE            the expected counter deltas as CSV\n"
	      "  --systems N           systems SYSA, SYSB, ..., SYSZ, SZAA, SZAB, ... (default 1,\n"
	      "                        at most 702)\n"
	      "  --cpus N              cpus per system, numbered 0.. (default 4, at most 256)\n"
	      "  --ziip N              how many of them are zIIPs (class 4), the highest numbers\n"
	      "                        (default 1, 0 with one cpu)\n"
	      "  --zcbp N              how many are zCBPs (class 2 with the zCBP flag), the numbers\n"
	      "                        below the zIIPs (default 0)\n"
	      "  --family F            z10 z196 zec12 z13 z14 z15 z16 z17 (default z16)\n"
	      "  --families LIST       comma-separated families, system i gets entry i mod count\n"
	      "  --intervals N         intervals per cpu (default 96)\n"
	      "  --interval-seconds S  interval length (default 900)\n"
	      "  --start ISO           first interval start, YYYY-MM-DDTHH:MM:SSZ\n"
	      "                        (default 2025-03-04T00:00:00Z)\n"
	      "  --subtype 1|2|both    113 subtypes to write (default 1).  Subtype 2 holds cumulative\n"
	      "                        values; its first record per cpu only seeds the baseline.  With\n"
	      "                        'both' the CSV describes the subtype-1 data only (subtype 2 gives\n"
	      "                        the same deltas, without the MT-diagnostic counters)\n"
	      "  --framing rdw|vbs     RDW stream (default) or VBS blocks with BDW/SDW, spanned records\n"
	      "  --block-size B        VBS maximum block size incl. the BDW (default 27998, 9..32760)\n"
	      "  --scds                write a subtype-1 counter set with 4-byte values (SCDS) when all\n"
	      "                        its values fit; 8-byte (LCDS) sets otherwise and by default\n"
	      "  --jitter-ms M         each cpu's interval boundaries move by up to +-M ms (0..499,\n"
	      "                        default 0); interval_seconds is then each record's own length\n"
	      "  --lost N              flag every Nth (system, cpu, interval) as lost counter data; it\n"
	      "                        gets no CSV row (default 0: none)\n"
	      "  --mt-lost N           flag every Nth subtype-1 record of a family with MT-diagnostic\n"
	      "                        counters as lost MT-diagnostic data (X'2000'); its CSV row has\n"
	      "                        no MT-diagnostic counters (default 0: none)\n"
	      "  --other-ratio R       bytes of other record types per byte of type 113 (default 0.2;\n"
	      "                        9 makes about 90% of the bytes non-113)\n"
	      "  --utc-offset MIN      local time (SMF TME/DTE) minus UTC in minutes (default 0)\n"
	      "  --seed N              PRNG seed (default 1)\n"
	      "  -q, --quiet           no summary on standard error\n"
	      "  -h, --help            this help\n",
	      f);
}

static int family_index(const char *s, size_t n)
{
	for (size_t i = 0; i < NFAM; i++) {
		const char *name = families[i].name;
		if (strlen(name) != n)
			continue;
		size_t k = 0;
		while (k < n && (s[k] | 0x20) == (name[k] | 0x20))
			k++;
		if (k == n)
			return (int)i;
	}
	return -1;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
	uint64_t systems = 1, cpus = 4, ziips = 1, intervals = 96, secs = 900, seed = 1, jitter_ms = 0, lost_n = 0;
	uint64_t zcbps = 0, mt_lost_n = 0;
	int have_ziip = 0, subtype = 1, quiet = 0;
	int64_t utc_off_min = 0;
	const char *start = "2025-03-04T00:00:00Z", *out_name = NULL, *csv_name = NULL;
	int famlist[64], nfam = 1;
	famlist[0] = 6; /* z16 */

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--scds")) {
			use_scds = 1;
			continue;
		}
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			quiet = 1;
			continue;
		}
		char name[OPT_NAME_MAX];
		if (!strcmp(a, "-o")) {
			strcpy(name, "--output");
			val = opt_value(NULL, argc, argv, &i, a);
		} else {
			const char *eqval = opt_split(a, name);
			static const char *const known[] = {
				"--output",      "--csv",        "--systems",
				"--cpus",        "--ziip",       "--family",
				"--families",    "--intervals",  "--interval-seconds",
				"--start",       "--subtype",    "--framing",
				"--block-size",  "--jitter-ms",  "--lost",
				"--other-ratio", "--utc-offset", "--seed",
				"--zcbp",        "--mt-lost",
			};
			size_t kn = 0;
			while (kn < sizeof known / sizeof known[0] && strcmp(known[kn], name) != 0)
				kn++;
			if (kn == sizeof known / sizeof known[0])
				bad("unknown option", name);
			val = opt_value(eqval, argc, argv, &i, name);
		}

		if (!strcmp(name, "--output"))
			out_name = val;
		else if (!strcmp(name, "--csv"))
			csv_name = val;
		else if (!strcmp(name, "--systems"))
			systems = parse_u64(name, val, 1, 702);
		else if (!strcmp(name, "--cpus"))
			cpus = parse_u64(name, val, 1, 256);
		else if (!strcmp(name, "--ziip")) {
			ziips = parse_u64(name, val, 0, 256);
			have_ziip = 1;
		} else if (!strcmp(name, "--family")) {
			int k = family_index(val, strlen(val));
			if (k < 0)
				bad("unknown family", val);
			famlist[0] = k;
			nfam = 1;
		} else if (!strcmp(name, "--families")) {
			nfam = 0;
			for (const char *p = val;;) {
				const char *e = strchr(p, ',');
				size_t n = e ? (size_t)(e - p) : strlen(p);
				int k = family_index(p, n);
				if (k < 0 || nfam == 64)
					bad("bad --families", val);
				famlist[nfam++] = k;
				if (!e)
					break;
				p = e + 1;
			}
		} else if (!strcmp(name, "--intervals"))
			intervals = parse_u64(name, val, 1, 10000000);
		else if (!strcmp(name, "--interval-seconds"))
			secs = parse_u64(name, val, 1, 86400);
		else if (!strcmp(name, "--start"))
			start = val;
		else if (!strcmp(name, "--subtype")) {
			if (!strcmp(val, "1"))
				subtype = 1;
			else if (!strcmp(val, "2"))
				subtype = 2;
			else if (!strcmp(val, "both"))
				subtype = 3;
			else
				bad("bad --subtype (1, 2 or both)", val);
		} else if (!strcmp(name, "--framing")) {
			if (!strcmp(val, "rdw"))
				framing = FR_RDW;
			else if (!strcmp(val, "vbs"))
				framing = FR_VBS;
			else
				bad("bad --framing (rdw or vbs)", val);
		} else if (!strcmp(name, "--block-size"))
			block_size = (size_t)parse_u64(name, val, 9, 32760);
		else if (!strcmp(name, "--jitter-ms"))
			jitter_ms = parse_u64(name, val, 0, 499);
		else if (!strcmp(name, "--lost"))
			lost_n = parse_u64(name, val, 0, UINT32_MAX);
		else if (!strcmp(name, "--mt-lost"))
			mt_lost_n = parse_u64(name, val, 0, UINT32_MAX);
		else if (!strcmp(name, "--zcbp"))
			zcbps = parse_u64(name, val, 0, 256);
		else if (!strcmp(name, "--other-ratio")) {
			char *end;
			errno = 0;
			double r = strtod(val, &end);
			if (!*val || *end || errno || !(r >= 0 && r <= 1000))
				bad("bad --other-ratio (0..1000)", val);
			other_ratio = r;
		} else if (!strcmp(name, "--utc-offset")) {
			char *end;
			errno = 0;
			long long o = strtoll(val, &end, 10);
			if (!*val || *end || errno || o < -1439 || o > 1439)
				bad("bad --utc-offset (minutes, -1439..1439)", val);
			utc_off_min = o;
		} else if (!strcmp(name, "--seed"))
			seed = parse_u64(name, val, 0, UINT64_MAX);
		else
			bad("unknown option", name);
	}
	if (!out_name)
		bad("no output file (-o FILE)", NULL);
	if (!have_ziip)
		ziips = cpus > 1 ? 1 : 0;
	if (ziips > cpus)
		bad("--ziip is larger than --cpus", NULL);
	if (zcbps > cpus - ziips)
		bad("--zcbp and --ziip add up to more than --cpus", NULL);
	int64_t t0;
	if (parse_iso(start, 1971, 2099, &t0))
		bad("bad --start (expected YYYY-MM-DDTHH:MM:SSZ, 1971-2042)", start);
	/* the 64-bit TOD clock (STCK) wraps on 2042-09-17 */
	if (t0 + (int64_t)(intervals * secs) + 120 > days_from_civil(2042, 9, 17) * 86400)
		bad("the intervals reach past 2042-09-16 (the end of the STCK format)", NULL);
	utc_offset_us = utc_off_min * 60 * 1000000;

	init_ebcdic();
	rng_seed(&R, seed);
	rng_seed(&R2, seed ^ 0x5DEECE66Du);

	smf.b = malloc(OUTBUF);
	csv.b = csv_name ? malloc(OUTBUF) : NULL;
	if (!smf.b || (csv_name && !csv.b)) {
		fputs(PROG ": out of memory\n", stderr);
		return 1;
	}
	smf.name = out_name;
	if (!strcmp(out_name, "-"))
		smf.f = stdout;
	else if (!(smf.f = fopen(out_name, "wb"))) {
		fprintf(stderr, PROG ": %s: %s\n", out_name, strerror(errno));
		return 1;
	}
	if (csv_name) {
		csv.name = csv_name;
		if (!strcmp(csv_name, "-"))
			csv.f = stdout;
		else if (!(csv.f = fopen(csv_name, "wb"))) {
			fprintf(stderr, PROG ": %s: %s\n", csv_name, strerror(errno));
			return 1;
		}
	}

	/* per family: defined counters, and the CSV columns (defined and recorded in the subtype
	 * the CSV describes) */
	static unsigned char def[NFAM][NV], col[NFAM][NV];
	int csv_subtype = subtype == 2 ? 2 : 1;
	for (size_t fi = 0; fi < NFAM; fi++) {
		const struct family *f = &families[fi];
		struct cset cs[6];
		unsigned ns = fam_sets(f, csv_subtype, cs);
		for (size_t j = 0; j < f->nctr; j++)
			def[fi][f->ctr[j]] = 1;
		for (unsigned k = 0; k < ns; k++)
			for (unsigned j = 0; j < cs[k].n; j++)
				col[fi][cs[k].first + j] = def[fi][cs[k].first + j];
	}

	/* systems and cpus */
	struct sysinfo *sys = calloc(systems, sizeof *sys);
	unsigned *sysfam = calloc(systems, sizeof *sysfam);
	struct cpu *cs = calloc(systems * cpus, sizeof *cs);
	struct prof *pr = calloc(systems, sizeof *pr);
	int64_t *bnd = calloc(systems * cpus, sizeof *bnd);
	int *kind = calloc(cpus, sizeof *kind);
	uint64_t *cum = subtype & 2 ? calloc(systems * cpus * NV, sizeof *cum) : NULL;
	uint64_t *v = calloc(NV, sizeof *v);
	if (!sys || !sysfam || !cs || !pr || !bnd || !kind || !v || ((subtype & 2) && !cum)) {
		fputs(PROG ": out of memory\n", stderr);
		return 1;
	}
	int64_t T0 = t0 * 1000000, S = (int64_t)secs * 1000000, J = (int64_t)jitter_ms * 1000;
	for (uint64_t c = 0; c < cpus; c++)
		kind[c] = c >= cpus - ziips ? K_ZIIP : c >= cpus - ziips - zcbps ? K_ZCBP : K_GCP;
	for (uint64_t s = 0; s < systems; s++) {
		struct sysinfo *y = &sys[s];
		sysfam[s] = (unsigned)famlist[s % (uint64_t)nfam];
		y->f = &families[sysfam[s]];
		if (s < 26)
			snprintf(y->sid, sizeof y->sid, "SYS%c", (char)('A' + s));
		else
			snprintf(y->sid, sizeof y->sid, "SZ%c%c", (char)('A' + (s - 26) / 26),
				 (char)('A' + (s - 26) % 26));
		snprintf(y->seq, sizeof y->seq, "00000000000%05X", (unsigned)(0x2A0B1 + 0x1357 * sysfam[s]));
		y->cts_us = T0 - 1000000; /* the HIS run started 1 s before the first boundary */
		for (uint64_t c = 0; c < cpus; c++)
			cpu_init(&cs[s * cpus + c], c >= cpus - ziips, c == 0 && s % 2 == 0);
	}

	/* CSV header: the union of the families' columns, by counter number */
	unsigned char ucol[NV] = {0};
	unsigned short cols[NV];
	unsigned ncols = 0;
	for (uint64_t s = 0; s < systems; s++)
		for (unsigned n = 0; n < NV; n++)
			ucol[n] |= col[sysfam[s]][n];
	for (unsigned n = 0; n < NV; n++)
		if (ucol[n])
			cols[ncols++] = (unsigned short)n;
	if (csv_name) {
		char *p = (char *)csv.b;
		p += sprintf(p, "system,cpu,pool,machine,cpsp,interval_start,interval_seconds");
		for (unsigned j = 0; j < ncols; j++) {
			*p++ = ',';
			p = put_ctr_name(p, cols[j]);
		}
		*p++ = '\n';
		csv.n = (size_t)(p - (char *)csv.b);
	}

	/* type 2 dump header */
	int64_t dump_t = T0 + (int64_t)intervals * S + 60000000;
	{
		size_t len = std_header(rec, 2, 0, 0, dump_t, sys[0].sid, "");
		put16(rec, (unsigned)len);
		emit(rec, len);
	}

	/* the boundary before the first interval, and the subtype-2 baseline (values since the run
	 * started); generated whatever the subtype so that the data does not depend on it */
	for (uint64_t s = 0; s < systems; s++) {
		make_profile(&pr[s], class_cycle[(s + 3) % 4]);
		const struct family *f = sys[s].f;
		for (uint64_t c = 0; c < cpus; c++) {
			size_t k = s * cpus + c;
			bnd[k] = T0 + (J ? (int64_t)(rnd() % (uint64_t)(2 * J + 1)) - J : 0);
			gen_row(v, f, &cs[k], &pr[s], (double)f->cpsp * (double)(bnd[k] - sys[s].cts_us));
			if (subtype & 2) {
				uint64_t *cu = cum + k * NV;
				memcpy(cu, v, NV * sizeof *v);
				size_t len = rec113_2(&sys[s], def[sysfam[s]], (unsigned)c, kind[c], sys[s].cts_us,
						      bnd[k], 0x8000, cu);
				emit113(len, bnd[k], sys[s].sid);
			}
		}
	}

	uint64_t cell = 0, rows = 0, mt_cell = 0;
	for (uint64_t iv = 0; iv < intervals; iv++) {
		char ts[21];
		fmt_iso(t0 + (int64_t)(iv * secs), ts);
		int64_t Tend = T0 + (int64_t)(iv + 1) * S;
		int last = iv + 1 == intervals;
		for (uint64_t s = 0; s < systems; s++) {
			const struct sysinfo *y = &sys[s];
			const struct family *f = y->f;
			unsigned fi = sysfam[s];
			make_profile(&pr[s], class_cycle[(iv + s) % 4]);
			for (uint64_t c = 0; c < cpus; c++) {
				size_t k = s * cpus + c;
				int64_t a = bnd[k];
				int64_t b = Tend + (J ? (int64_t)(rnd() % (uint64_t)(2 * J + 1)) - J : 0);
				gen_row(v, f, &cs[k], &pr[s], (double)f->cpsp * (double)(b - a));
				int lost = lost_n && ++cell % lost_n == 0;
				if (lost) { /* undercounted: a reader that keeps it gets other numbers */
					for (unsigned n = 0; n < NV; n++)
						v[n] /= 2;
					v[1] = v[1] * 2 / 3;
				}
				int mt_lost = 0;
				if (subtype & 1) {
					mt_lost = mt_lost_n && f->mt_n && ++mt_cell % mt_lost_n == 0;
					size_t len = rec113_1(y, def[fi], (unsigned)c, kind[c], a, b, lost, mt_lost, v);
					emit113(len, b, y->sid);
				}
				if (subtype & 2) {
					uint64_t *cu = cum + k * NV;
					for (unsigned n = 0; n < NV; n++)
						cu[n] += v[n];
					unsigned cf = (last ? 0x2000 : 0x4000) | (lost ? 0x0800 : 0);
					size_t len = rec113_2(y, def[fi], (unsigned)c, kind[c], a, b, cf, cu);
					emit113(len, b, y->sid);
				}
				bnd[k] = b;
				if (!csv_name || lost)
					continue;
				rows++;
				if (csv.n > OUTBUF - 16384)
					ob_flush(&csv);
				char *p = (char *)csv.b + csv.n;
				memcpy(p, y->sid, 4);
				p += 4;
				*p++ = ',';
				p = putu(p, c);
				p += sprintf(p, ",%s,%s,%u,", kind_pool[kind[c]], f->type, f->cpsp);
				memcpy(p, ts, 20);
				p += 20;
				*p++ = ',';
				p = put_secs(p, b - a);
				const unsigned char *cl = col[fi];
				for (unsigned j = 0; j < ncols; j++) {
					unsigned n = cols[j];
					*p++ = ',';
					if (cl[n] && !(mt_lost && n >= 448 && n < 496))
						p = putu(p, v[n]);
				}
				*p++ = '\n';
				csv.n = (size_t)(p - (char *)csv.b);
			}
		}
	}

	/* type 3 dump trailer */
	{
		size_t len = std_header(rec, 3, 0, 0, dump_t, sys[0].sid, "");
		put16(rec, (unsigned)len);
		emit(rec, len);
	}
	if (framing == FR_VBS)
		block_close();
	ob_flush(&smf);
	if (fflush(smf.f) != 0 || (smf.f != stdout && fclose(smf.f) != 0)) {
		fprintf(stderr, PROG ": %s: write error: %s\n", out_name, strerror(errno));
		return 1;
	}
	if (csv_name) {
		ob_flush(&csv);
		if (fflush(csv.f) != 0 || (csv.f != stdout && fclose(csv.f) != 0)) {
			fprintf(stderr, PROG ": %s: write error: %s\n", csv_name, strerror(errno));
			return 1;
		}
	}
	if (!quiet) {
		uint64_t total = bytes113 + bytes_other + 36;
		fprintf(stderr,
			PROG
			": %llu type-113 records (%llu bytes), %llu other records (%llu bytes), "
			"%.1f%% of the record bytes not 113",
			(unsigned long long)nrec113, (unsigned long long)bytes113, (unsigned long long)nrec_other,
			(unsigned long long)bytes_other, 100.0 * (double)(total - bytes113) / (double)total);
		if (framing == FR_VBS)
			fprintf(stderr, "; %llu blocks, %llu segments", (unsigned long long)nblocks,
				(unsigned long long)nsegments);
		if (csv_name)
			fprintf(stderr, "; %llu CSV rows", (unsigned long long)rows);
		fputc('\n', stderr);
	}
	free(sys);
	free(sysfam);
	free(cs);
	free(pr);
	free(bnd);
	free(kind);
	free(cum);
	free(v);
	free(smf.b);
	free(csv.b);
	return 0;
}
