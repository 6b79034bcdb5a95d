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
 * With --rmf and --topology it adds SMF 70.1 (RMF CPU activity) and SMF 99.14 (HiperDispatch
 * topology) records as docs/smf70-layout.md lays them out, whose dispatch times are the busy
 * time the 113 counters imply (tools/README.md describes the model).
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
		/* type 70 filler is always subtype 2 (crypto): a random 70.1 would read as a broken
		 * CPU activity record.  x stays as it was, so the rest of the stream is unchanged. */
		sty = ty == 70 ? 2 : 3 + (unsigned)((x >> 8) % 2);
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
	fputs("Usage: mfstat-gensmf [OPTIONS] -o DUMP.smf [--csv EXPECTED.csv]\n"
	      "(installed as mfstat-gensmf; build/gensmf in a build tree)\n"
	      "Writes a synthetic, deterministic SMF dump with type 113 (CPU-MF counter) records and,\n"
	      "with --csv, the same counter deltas in mfstat's canonical counter CSV: one row per\n"
	      "(system, cpu, interval), ordered by interval, system, cpu.  The first record is a type 2\n"
	      "dump header, the last a type 3 trailer; types 30, 70 (subtype 2) and 72 are mixed in.\n"
	      "With --rmf and --topology it also writes SMF 70.1 (RMF CPU activity) and 99.14\n"
	      "(HiperDispatch topology) records that match the counters (tools/README.md).\n"
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
	fputs("\nRMF and topology records (tools/README.md describes the model):\n"
	      "  --his-offset-seconds S  HIS (113) interval boundaries S seconds after the RMF ones\n"
	      "                        (0..86400, default 0: aligned)\n"
	      "  --rmf                 one SMF 70.1 record per system and RMF interval, after the 113\n"
	      "                        records of the last HIS interval it covers; no --zcbp\n"
	      "  --rmf-interval-seconds S  RMF interval length, 1..5999, a multiple of\n"
	      "                        --interval-seconds or a divisor of it (default: the same)\n"
	      "  --rmf-busy-factor F   SMF70PDT = F x the busy time the B0 counters give (default 1.0)\n"
	      "  --lpars N             extra LPARs LPX1, LPX2, ... without records of their own: 2 IFLs\n"
	      "                        each, LPX1 also a CP (default 0)\n"
	      "  --lpar-change-at K    from RMF interval K (0-based) on, SYSA's LPAR is named LPMOVED\n"
	      "                        (default: never)\n"
	      "  --topology            one SMF 99.14 record per system at --start: polarity, chip and\n"
	      "                        drawer of each cpu; no --zcbp\n",
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

/* The command line. */
struct opts {
	uint64_t systems, cpus, ziips, intervals, secs, seed, jitter_ms, lost_n, zcbps, mt_lost_n;
	int have_ziip, subtype, quiet;
	int rmf, topology;                              /* --rmf, --topology */
	uint64_t rmf_secs, his_off, lpars, lpar_change; /* lpar_change UINT64_MAX: never */
	double busy_factor;
	int64_t utc_off_min, t0;
	const char *start, *out_name, *csv_name;
	int famlist[64], nfam;
};

/* The long option name of argument a (and its value): exits on an unknown one. */
static const char *option_value(int argc, char **argv, int *i, char *name)
{
	static const char *const known[] = {
		"--output",      "--csv",        "--systems",
		"--cpus",        "--ziip",       "--family",
		"--families",    "--intervals",  "--interval-seconds",
		"--start",       "--subtype",    "--framing",
		"--block-size",  "--jitter-ms",  "--lost",
		"--other-ratio", "--utc-offset", "--seed",
		"--zcbp",        "--mt-lost",
	};
	static const char *const known_rmf[] = {"--rmf-interval-seconds", "--rmf-busy-factor", "--lpars",
						"--lpar-change-at", "--his-offset-seconds"};
	const char *a = argv[*i], *eqval;
	size_t kn = 0, kr = 0;
	if (!strcmp(a, "-o")) {
		strcpy(name, "--output");
		return opt_value(NULL, argc, argv, i, a);
	}
	eqval = opt_split(a, name);
	while (kn < sizeof known / sizeof known[0] && strcmp(known[kn], name) != 0)
		kn++;
	while (kr < sizeof known_rmf / sizeof known_rmf[0] && strcmp(known_rmf[kr], name) != 0)
		kr++;
	if (kn == sizeof known / sizeof known[0] && kr == sizeof known_rmf / sizeof known_rmf[0])
		bad("unknown option", name);
	return opt_value(eqval, argc, argv, i, name);
}

static void set_families(struct opts *o, const char *val)
{
	o->nfam = 0;
	for (const char *p = val;;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		int k = family_index(p, n);
		if (k < 0 || o->nfam == 64)
			bad("bad --families", val);
		o->famlist[o->nfam++] = k;
		if (!e)
			break;
		p = e + 1;
	}
}

/* One option with a value (the option table's names). */
static void set_option(struct opts *o, const char *name, const char *val)
{
	if (!strcmp(name, "--output"))
		o->out_name = val;
	else if (!strcmp(name, "--csv"))
		o->csv_name = val;
	else if (!strcmp(name, "--systems"))
		o->systems = parse_u64(name, val, 1, 702);
	else if (!strcmp(name, "--cpus"))
		o->cpus = parse_u64(name, val, 1, 256);
	else if (!strcmp(name, "--ziip")) {
		o->ziips = parse_u64(name, val, 0, 256);
		o->have_ziip = 1;
	} else if (!strcmp(name, "--family")) {
		int k = family_index(val, strlen(val));
		if (k < 0)
			bad("unknown family", val);
		o->famlist[0] = k;
		o->nfam = 1;
	} else if (!strcmp(name, "--families"))
		set_families(o, val);
	else if (!strcmp(name, "--intervals"))
		o->intervals = parse_u64(name, val, 1, 10000000);
	else if (!strcmp(name, "--interval-seconds"))
		o->secs = parse_u64(name, val, 1, 86400);
	else if (!strcmp(name, "--start"))
		o->start = val;
	else if (!strcmp(name, "--subtype")) {
		if (!strcmp(val, "1"))
			o->subtype = 1;
		else if (!strcmp(val, "2"))
			o->subtype = 2;
		else if (!strcmp(val, "both"))
			o->subtype = 3;
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
		o->jitter_ms = parse_u64(name, val, 0, 499);
	else if (!strcmp(name, "--lost"))
		o->lost_n = parse_u64(name, val, 0, UINT32_MAX);
	else if (!strcmp(name, "--mt-lost"))
		o->mt_lost_n = parse_u64(name, val, 0, UINT32_MAX);
	else if (!strcmp(name, "--zcbp"))
		o->zcbps = parse_u64(name, val, 0, 256);
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
		long long off = strtoll(val, &end, 10);
		if (!*val || *end || errno || off < -1439 || off > 1439)
			bad("bad --utc-offset (minutes, -1439..1439)", val);
		o->utc_off_min = off;
	} else if (!strcmp(name, "--seed"))
		o->seed = parse_u64(name, val, 0, UINT64_MAX);
	else if (!strcmp(name, "--rmf-interval-seconds"))
		o->rmf_secs = parse_u64(name, val, 1, 5999);
	else if (!strcmp(name, "--rmf-busy-factor")) {
		char *end;
		errno = 0;
		double r = strtod(val, &end);
		if (!*val || *end || errno || !(r >= 0 && r <= 100))
			bad("bad --rmf-busy-factor (0..100)", val);
		o->busy_factor = r;
	} else if (!strcmp(name, "--lpars"))
		o->lpars = parse_u64(name, val, 0, 254);
	else if (!strcmp(name, "--lpar-change-at"))
		o->lpar_change = parse_u64(name, val, 0, 100000000);
	else if (!strcmp(name, "--his-offset-seconds"))
		o->his_off = parse_u64(name, val, 0, 86400);
	else
		bad("unknown option", name);
}

/* ---------------------------------------------------------------- SMF 70.1 and 99.14 sizes */

/* Section lengths of an SMF 70.1 record as written (z/OS 3.1 values of docs/smf70-layout.md; the
 * partition section with the 3 pad bytes after SMF70_BOOSTINFO). */
enum { L70HDR = 100, L70PRO = 104, L70CTL = 404, L70CPU = 92, L70BCT = 84, L70BPD = 96, L70CIS = 24, N70CIS = 3 };

#define CEC_SERIAL "00000000000A1B2C" /* SMF70CSC of the one machine every system runs on */

/* LPARs of the machine: one per system, then the --lpars extras (LPX1, LPX2, ...). */
static uint64_t lpar_count(const struct opts *o)
{
	return o->systems + o->lpars;
}

/* Logical processors of all LPARs: every system's cpus, 2 IFLs per extra LPAR, and LPX1's CP. */
static uint64_t lproc_count(const struct opts *o)
{
	return o->systems * o->cpus + 2 * o->lpars + (o->lpars > 0);
}

static uint64_t rec70_len(const struct opts *o)
{
	return L70HDR + L70PRO + L70CTL + L70CPU * o->cpus + L70BCT * lpar_count(o) + L70BPD * lproc_count(o) +
	       L70CIS * N70CIS;
}

/* The RMF options: consistent, and records that fit (exits on a bad combination). */
static void check_rmf(struct opts *o)
{
	char msg[160];
	if (!o->rmf && (o->rmf_secs || o->lpars || o->lpar_change != UINT64_MAX || o->busy_factor != 1.0))
		bad("--rmf-interval-seconds, --rmf-busy-factor, --lpars and --lpar-change-at need --rmf", NULL);
	if ((o->rmf || o->topology) && o->zcbps)
		bad("--rmf and --topology do not model zCBPs: --zcbp must be 0 with them", NULL);
	if (!o->rmf)
		return;
	if (!o->rmf_secs) {
		if (o->secs > 5999)
			bad("the RMF interval (default: --interval-seconds) must be at most 5999 s "
			    "(SMF70INT is mmsstttF): give --rmf-interval-seconds",
			    NULL);
		o->rmf_secs = o->secs;
	}
	if (o->rmf_secs % o->secs != 0 && o->secs % o->rmf_secs != 0)
		bad("--rmf-interval-seconds must be a multiple of --interval-seconds, or --interval-seconds a "
		    "multiple of it",
		    NULL);
	if (o->intervals * o->secs < o->rmf_secs)
		bad("the run (--intervals x --interval-seconds) is shorter than one RMF interval", NULL);
	if (lpar_count(o) > 255)
		bad("--systems plus --lpars is more than 255 LPARs (SMF70LPN is one byte)", NULL);
	if (rec70_len(o) > MAXREC) {
		snprintf(msg, sizeof msg,
			 "an SMF 70.1 record would be %llu bytes, more than %u: fewer --systems, --cpus or --lpars",
			 (unsigned long long)rec70_len(o), (unsigned)MAXREC);
		bad(msg, NULL);
	}
}

/* Parses the command line into o (exits on a bad one); returns 1 when --help was asked for. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->systems = 1, o->cpus = 4, o->ziips = 1, o->intervals = 96, o->secs = 900, o->seed = 1;
	o->subtype = 1;
	o->busy_factor = 1.0, o->lpar_change = UINT64_MAX;
	o->start = "2025-03-04T00:00:00Z";
	o->famlist[0] = 6; /* z16 */
	o->nfam = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char name[OPT_NAME_MAX];
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return 1;
		if (!strcmp(a, "--scds")) {
			use_scds = 1;
			continue;
		}
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o->quiet = 1;
			continue;
		}
		if (!strcmp(a, "--rmf")) {
			o->rmf = 1;
			continue;
		}
		if (!strcmp(a, "--topology")) {
			o->topology = 1;
			continue;
		}
		const char *val = option_value(argc, argv, &i, name);
		set_option(o, name, val);
	}
	if (!o->out_name)
		bad("no output file (-o FILE)", NULL);
	if (!o->have_ziip)
		o->ziips = o->cpus > 1 ? 1 : 0;
	if (o->ziips > o->cpus)
		bad("--ziip is larger than --cpus", NULL);
	if (o->zcbps > o->cpus - o->ziips)
		bad("--zcbp and --ziip add up to more than --cpus", NULL);
	if (parse_iso(o->start, 1971, 2099, &o->t0))
		bad("bad --start (expected YYYY-MM-DDTHH:MM:SSZ, 1971-2042)", o->start);
	/* the 64-bit TOD clock (STCK) wraps on 2042-09-17 */
	if (o->t0 + (int64_t)(o->his_off + o->intervals * o->secs) + 120 > days_from_civil(2042, 9, 17) * 86400)
		bad("the intervals reach past 2042-09-16 (the end of the STCK format)", NULL);
	check_rmf(o);
	return 0;
}

/* Opens out (standard output for "-") into o. */
static int open_output(struct obuf *o, const char *name)
{
	o->name = name;
	if (!strcmp(name, "-"))
		o->f = stdout;
	else if (!(o->f = fopen(name, "wb"))) {
		fprintf(stderr, PROG ": %s: %s\n", name, strerror(errno));
		return 1;
	}
	return 0;
}

/* What a run generates from: systems, cpus, the counters each family defines and the CSV columns. */
struct gen {
	const struct opts *o;
	struct sysinfo *sys;
	unsigned *sysfam;
	struct cpu *cs;
	struct prof *pr;
	int64_t *bnd;
	int *kind;
	uint64_t *cum, *v;
	unsigned short cols[NV];
	unsigned ncols;
	int64_t T0, S, J;
	uint64_t cell, rows, mt_cell;
	/* --rmf: per (system, cpu): B0 of the last HIS interval, busy cycles gathered for the RMF
	 * interval rj, its SMF70PDT; nr RMF intervals from R0 (--start) */
	uint64_t *b0, *pdt;
	double *acc;
	uint64_t rj, nr;
	int64_t R0;
};

/* per family: defined counters, and the CSV columns (defined and recorded in the subtype the CSV describes) */
static unsigned char def[NFAM][NV], col[NFAM][NV];

static void setup_columns(struct gen *g)
{
	int csv_subtype = g->o->subtype == 2 ? 2 : 1;
	unsigned char ucol[NV] = {0};
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
	/* the CSV header: the union of the families' columns, by counter number */
	for (uint64_t s = 0; s < g->o->systems; s++)
		for (unsigned n = 0; n < NV; n++)
			ucol[n] |= col[g->sysfam[s]][n];
	g->ncols = 0;
	for (unsigned n = 0; n < NV; n++)
		if (ucol[n])
			g->cols[g->ncols++] = (unsigned short)n;
	if (g->o->csv_name) {
		char *p = (char *)csv.b;
		/* utc_offset_minutes: the local offset the SMF records carry, so that the CSV is the dump's twin */
		p += sprintf(p, "system,cpu,pool,machine,cpsp,interval_start,interval_seconds,utc_offset_minutes");
		for (unsigned j = 0; j < g->ncols; j++) {
			*p++ = ',';
			p = put_ctr_name(p, g->cols[j]);
		}
		*p++ = '\n';
		csv.n = (size_t)(p - (char *)csv.b);
	}
}

/* Systems and their cpus; 0, or 1 out of memory (said). */
static int setup_systems(struct gen *g)
{
	const struct opts *o = g->o;
	uint64_t systems = o->systems, cpus = o->cpus;
	g->sys = calloc(systems, sizeof *g->sys);
	g->sysfam = calloc(systems, sizeof *g->sysfam);
	g->cs = calloc(systems * cpus, sizeof *g->cs);
	g->pr = calloc(systems, sizeof *g->pr);
	g->bnd = calloc(systems * cpus, sizeof *g->bnd);
	g->kind = calloc(cpus, sizeof *g->kind);
	g->cum = o->subtype & 2 ? calloc(systems * cpus * NV, sizeof *g->cum) : NULL;
	g->v = calloc(NV, sizeof *g->v);
	if (!g->sys || !g->sysfam || !g->cs || !g->pr || !g->bnd || !g->kind || !g->v ||
	    ((o->subtype & 2) && !g->cum)) {
		fputs(PROG ": out of memory\n", stderr);
		return 1;
	}
	if (o->rmf) {
		g->b0 = calloc(systems * cpus, sizeof *g->b0);
		g->pdt = calloc(systems * cpus, sizeof *g->pdt);
		g->acc = calloc(systems * cpus, sizeof *g->acc);
		if (!g->b0 || !g->pdt || !g->acc) {
			fputs(PROG ": out of memory\n", stderr);
			return 1;
		}
		g->nr = o->intervals * o->secs / o->rmf_secs;
	}
	g->R0 = o->t0 * 1000000;
	g->T0 = (o->t0 + (int64_t)o->his_off) * 1000000; /* HIS boundaries: --his-offset-seconds after RMF's */
	g->S = (int64_t)o->secs * 1000000, g->J = (int64_t)o->jitter_ms * 1000;
	for (uint64_t c = 0; c < cpus; c++)
		g->kind[c] = c >= cpus - o->ziips ? K_ZIIP : c >= cpus - o->ziips - o->zcbps ? K_ZCBP : K_GCP;
	for (uint64_t s = 0; s < systems; s++) {
		struct sysinfo *y = &g->sys[s];
		g->sysfam[s] = (unsigned)o->famlist[s % (uint64_t)o->nfam];
		y->f = &families[g->sysfam[s]];
		if (s < 26)
			snprintf(y->sid, sizeof y->sid, "SYS%c", (char)('A' + s));
		else
			snprintf(y->sid, sizeof y->sid, "SZ%c%c", (char)('A' + (s - 26) / 26),
				 (char)('A' + (s - 26) % 26));
		snprintf(y->seq, sizeof y->seq, "00000000000%05X", (unsigned)(0x2A0B1 + 0x1357 * g->sysfam[s]));
		y->cts_us = g->T0 - 1000000; /* the HIS run started 1 s before the first boundary */
		for (uint64_t c = 0; c < cpus; c++)
			cpu_init(&g->cs[s * cpus + c], c >= cpus - o->ziips, c == 0 && s % 2 == 0);
	}
	return 0;
}

static void free_gen(struct gen *g)
{
	free(g->sys);
	free(g->sysfam);
	free(g->cs);
	free(g->pr);
	free(g->bnd);
	free(g->kind);
	free(g->cum);
	free(g->v);
	free(g->b0);
	free(g->pdt);
	free(g->acc);
}

/* A boundary: the interval end, moved by up to +-J. */
static int64_t boundary(const struct gen *g, int64_t t)
{
	return t + (g->J ? (int64_t)(rnd() % (uint64_t)(2 * g->J + 1)) - g->J : 0);
}

/* The boundary before the first interval, and the subtype-2 baseline (values since the run
 * started); generated whatever the subtype so that the data does not depend on it */
static void baseline(struct gen *g)
{
	const struct opts *o = g->o;
	for (uint64_t s = 0; s < o->systems; s++) {
		make_profile(&g->pr[s], class_cycle[(s + 3) % 4]);
		const struct family *f = g->sys[s].f;
		for (uint64_t c = 0; c < o->cpus; c++) {
			size_t k = s * o->cpus + c;
			g->bnd[k] = boundary(g, g->T0);
			gen_row(g->v, f, &g->cs[k], &g->pr[s],
				(double)f->cpsp * (double)(g->bnd[k] - g->sys[s].cts_us));
			if (o->subtype & 2) {
				uint64_t *cu = g->cum + k * NV;
				memcpy(cu, g->v, NV * sizeof *g->v);
				size_t len = rec113_2(&g->sys[s], def[g->sysfam[s]], (unsigned)c, g->kind[c],
						      g->sys[s].cts_us, g->bnd[k], 0x8000, cu);
				emit113(len, g->bnd[k], g->sys[s].sid);
			}
		}
	}
}

/* The CSV row of one cpu's interval [a, b) starting at ts. */
static void csv_row(struct gen *g, const struct sysinfo *y, unsigned fi, uint64_t c, const char *ts, int64_t a,
		    int64_t b, int mt_lost)
{
	const struct family *f = y->f;
	g->rows++;
	if (csv.n > OUTBUF - 16384)
		ob_flush(&csv);
	char *p = (char *)csv.b + csv.n;
	memcpy(p, y->sid, 4);
	p += 4;
	*p++ = ',';
	p = putu(p, c);
	p += sprintf(p, ",%s,%s,%u,", kind_pool[g->kind[c]], f->type, f->cpsp);
	memcpy(p, ts, 20);
	p += 20;
	*p++ = ',';
	p = put_secs(p, b - a);
	p += sprintf(p, ",%lld", (long long)(utc_offset_us / 60000000));
	const unsigned char *cl = col[fi];
	for (unsigned j = 0; j < g->ncols; j++) {
		unsigned n = g->cols[j];
		*p++ = ',';
		if (cl[n] && !(mt_lost && n >= 448 && n < 496))
			p = putu(p, g->v[n]);
	}
	*p++ = '\n';
	csv.n = (size_t)(p - (char *)csv.b);
}

/* One cpu's interval ending near Tend: its records and CSV row. */
static void one_cpu(struct gen *g, uint64_t s, uint64_t c, const char *ts, int64_t Tend, int last)
{
	const struct opts *o = g->o;
	const struct sysinfo *y = &g->sys[s];
	const struct family *f = y->f;
	unsigned fi = g->sysfam[s];
	size_t k = s * o->cpus + c;
	int64_t a = g->bnd[k];
	int64_t b = boundary(g, Tend);
	gen_row(g->v, f, &g->cs[k], &g->pr[s], (double)f->cpsp * (double)(b - a));
	if (g->b0)
		g->b0[k] = g->v[0]; /* RMF sees the real busy time, also of an interval flagged as lost */
	int lost = o->lost_n && ++g->cell % o->lost_n == 0;
	if (lost) { /* undercounted: a reader that keeps it gets other numbers */
		for (unsigned n = 0; n < NV; n++)
			g->v[n] /= 2;
		g->v[1] = g->v[1] * 2 / 3;
	}
	int mt_lost = 0;
	if (o->subtype & 1) {
		mt_lost = o->mt_lost_n && f->mt_n && ++g->mt_cell % o->mt_lost_n == 0;
		size_t len = rec113_1(y, def[fi], (unsigned)c, g->kind[c], a, b, lost, mt_lost, g->v);
		emit113(len, b, y->sid);
	}
	if (o->subtype & 2) {
		uint64_t *cu = g->cum + k * NV;
		for (unsigned n = 0; n < NV; n++)
			cu[n] += g->v[n];
		unsigned cf = (last ? 0x2000 : 0x4000) | (lost ? 0x0800 : 0);
		size_t len = rec113_2(y, def[fi], (unsigned)c, g->kind[c], a, b, cf, cu);
		emit113(len, b, y->sid);
	}
	g->bnd[k] = b;
	if (o->csv_name && !lost)
		csv_row(g, y, fi, c, ts, a, b, mt_lost);
}

/* ---------------------------------------------------------------- SMF 70.1 and 99.14 records */

static uint64_t bytes70, bytes99, nrec70, nrec99;

/* Packed decimal: the digits d (an odd number of them), then the sign X'F'. */
static void put_packed(unsigned char *p, const char *d)
{
	size_t n = strlen(d);
	for (size_t i = 0; i < n; i += 2, p++)
		*p = (unsigned char)((unsigned)(d[i] - '0') << 4 | (i + 1 < n ? (unsigned)(d[i + 1] - '0') : 0xFu));
}

/* A triplet: offset from the RDW (4), length of one section (2), number of sections (2). */
static void triplet(unsigned char *p, size_t off, unsigned len, uint64_t num)
{
	put32(p, (uint32_t)off);
	put16(p + 4, len);
	put16(p + 6, (unsigned)num);
}

/* 1-based indexes into the CPU-identification name sections, and polarity codes (SMF70POI, SMF99E_CP_POLAR) */
enum { CIX_CP = 1, CIX_IIP = 2, CIX_IFL = 3 };
enum { POL_HZ = 0, POL_VL = 1, POL_VM = 2, POL_VH = 3 };

/* Polarity of cpu c of a system.  GCPs in address order: the first half (rounded down) VH, the
 * next one VM, the rest VL.  zIIPs: the first VM, the rest VL. */
static unsigned cpu_polarity(const struct gen *g, uint64_t c)
{
	uint64_t ngcp = g->o->cpus - g->o->ziips;
	if (g->kind[c] == K_ZIIP)
		return c == ngcp ? POL_VM : POL_VL;
	return c < ngcp / 2 ? POL_VH : c == ngcp / 2 ? POL_VM : POL_VL;
}

/* Weight (SMF70BPS) of cpu c of system s: GCPs 100*(s+1)+200, zIIPs 100. */
static unsigned cpu_weight(const struct gen *g, uint64_t s, uint64_t c)
{
	return g->kind[c] == K_ZIIP ? 100 : (unsigned)(100 * (s + 1) + 200);
}

/* One PR/SM logical processor data section (SMF70BPD); EDT = PDT, all times in microseconds. */
static void lproc(unsigned char *e, uint64_t pdt, uint64_t vpa, unsigned weight, unsigned pol, unsigned cix,
		  uint64_t ont)
{
	put64(e, pdt);
	put16(e + 8, (unsigned)vpa);
	put16(e + 10, weight);
	e[13] = (unsigned char)(pol << 6);
	put16(e + 14, cix);
	put64(e + 16, pdt);
	put64(e + 40, ont);
}

/* The partition data sections of every LPAR of the machine and their logical processor sections,
 * at bct and bpd, for RMF interval j. */
static void rec70_lpars(const struct gen *g, unsigned char *r, size_t bct, size_t bpd, uint64_t j)
{
	const struct opts *o = g->o;
	uint64_t cpus = o->cpus, ont = o->rmf_secs * 1000000, skip = 0;
	for (uint64_t q = 0; q < lpar_count(o); q++) {
		unsigned char *e = r + bct + L70BCT * q;
		char name[16];
		uint64_t n = 0;
		if (q < o->systems) {
			if (q == 0 && j >= o->lpar_change)
				strcpy(name, "LPMOVED");
			else
				snprintf(name, sizeof name, "LP%s", g->sys[q].sid);
			for (; n < cpus; n++)
				lproc(r + bpd + L70BPD * (skip + n), g->pdt[q * cpus + n], n, cpu_weight(g, q, n),
				      cpu_polarity(g, n), g->kind[n] == K_ZIIP ? CIX_IIP : CIX_CP, ont);
			ebc(e + 20, "PLEX1", 8);       /* SMF70SPN */
			ebc(e + 28, g->sys[q].sid, 8); /* SMF70STN */
			put16(e + 56, 0x2000);         /* SMF70PFL: vertically polarised */
		} else {
			uint64_t x = q - o->systems;
			snprintf(name, sizeof name, "LPX%u", (unsigned)(x + 1));
			if (x == 0) { /* LPX1: a CP at address 0, busy 25% */
				lproc(r + bpd + L70BPD * skip, ont / 4, 0, 10, POL_VL, CIX_CP, ont);
				n++;
			}
			for (int i = 0; i < 2; i++, n++) /* two IFLs, busy 40% each */
				lproc(r + bpd + L70BPD * (skip + n), ont / 5 * 2, n, 50, POL_HZ, CIX_IFL, ont);
		}
		ebc(e, name, 8);
		e[8] = (unsigned char)(q + 1); /* SMF70LPN */
		put16(e + 10, (unsigned)n);    /* SMF70BDN */
		put32(e + 12, (uint32_t)skip); /* SMF70BDS */
		skip += n;
	}
}

/* The SMF 70.1 record of system s for RMF interval j, into rec; returns its length.  The sections
 * follow the header in triplet order, contiguous. */
static size_t rec70_1(const struct gen *g, uint64_t s, uint64_t j)
{
	static const char *const cis_name[N70CIS] = {"CP", "IIP", "IFL"};
	const struct opts *o = g->o;
	const struct sysinfo *y = &g->sys[s];
	unsigned char *r = rec, *p, *c;
	uint64_t cpus = o->cpus, rsec = o->rmf_secs, ont = rsec * 1000000;
	size_t pro = L70HDR, ctl = pro + L70PRO, cpu = ctl + L70CTL, bct = cpu + L70CPU * cpus;
	size_t bpd = bct + L70BCT * lpar_count(o), cis = bpd + L70BPD * lproc_count(o), len = cis + L70CIS * N70CIS;
	int64_t a = g->R0 + (int64_t)(j * ont), b = a + (int64_t)ont;
	char d[16];

	memset(r, 0, len);
	std_header(r, 70, 1, 1, b, y->sid, "RMF");
	put16(r + 24, 9); /* SMF70TRN */
	triplet(r + 28, pro, L70PRO, 1);
	triplet(r + 36, ctl, L70CTL, 1);
	triplet(r + 44, cpu, L70CPU, cpus);
	/* 52 ASID data area, 84 logical core, 92 tenant resource group sections: absent (all zero) */
	triplet(r + 60, bct, L70BCT, lpar_count(o));
	triplet(r + 68, bpd, L70BPD, lproc_count(o));
	triplet(r + 76, cis, L70CIS, N70CIS);

	/* product section SMF70PRO: times of the interval start in local time */
	p = r + pro;
	put_packed(p, "031"); /* SMF70MFV */
	ebc(p + 2, "RMF", 8);
	{
		int64_t sec = (a + utc_offset_us) / 1000000 % 86400;
		unsigned char tme[4];
		snprintf(d, sizeof d, "0%02u%02u%02u", (unsigned)(sec / 3600), (unsigned)(sec / 60 % 60),
			 (unsigned)(sec % 60));
		put_packed(p + 10, d);   /* SMF70IST */
		tme_dte(a, tme, p + 14); /* SMF70DAT */
		snprintf(d, sizeof d, "%02u%02u000", (unsigned)(rsec / 60), (unsigned)(rsec % 60));
		put_packed(p + 18, d); /* SMF70INT */
	}
	put32(p + 24, (uint32_t)rsec); /* SMF70SAM: one sample a second */
	put16(p + 30, 0x1000);         /* SMF70FLA: interval synchronised */
	put_packed(p + 36, "0001000"); /* SMF70CYC: 1000 ms */
	ebc(p + 40, "ZV030100", 8);
	p[48] = 3;
	p[49] = (unsigned char)(0x10 | (o->ziips ? 0x04 : 0)); /* z/Architecture, zIIPs installed */
	p[50] = (unsigned char)(s + 1);                        /* SMF70PTN */
	put64(p + 60, (uint64_t)utc_offset_us << 12);          /* SMF70LGO, signed */
	put16(p + 76, (unsigned)rsec);                         /* SMF70OIL */
	put64(p + 80, tod_of_us(b));                           /* SMF70GIE */
	ebc(p + 88, "PLEX1", 8);
	ebc(p + 96, y->sid, 8);

	/* CPU control section SMF70CTL */
	c = r + ctl;
	put16(c, (unsigned)strtoul(y->f->type, NULL, 16)); /* SMF70MOD */
	ebc(c + 8, "A01", 16);                             /* SMF70MDL */
	put16(c + 64, (unsigned)o->ziips);                 /* SMF70SUP */
	ebc(c + 78, CEC_SERIAL, 16);                       /* SMF70CSC */
	c[94] = 0xC0;                                      /* SMF70HHF: HiperDispatch supported, active */
	ebc(c + 340, y->f->type, 4);                       /* SMF70CPC_TYPE */

	/* CPU data sections SMF70CPU: wait = interval - dispatch time */
	for (uint64_t k = 0; k < cpus; k++) {
		unsigned char *e = r + cpu + L70CPU * k;
		uint64_t busy = g->pdt[s * cpus + k];
		put64(e, (busy < ont ? ont - busy : 0) << 12); /* SMF70WAT */
		put16(e + 8, (unsigned)k);                     /* SMF70CID */
		e[10] = 0x09;                                  /* SMF70CNF: complete interval, online */
		e[15] = g->kind[k] == K_ZIIP ? 2 : 0;          /* SMF70TYP */
	}

	rec70_lpars(g, r, bct, bpd, j);

	/* CPU-identification name sections SMF70CIS; CTN: the most logical processors of the type in one LPAR */
	{
		uint64_t gcps = cpus - o->ziips;
		uint64_t ctn[N70CIS] = {gcps > 0 || !o->lpars ? gcps : 1, o->ziips, o->lpars ? 2 : 0};
		for (unsigned i = 0; i < N70CIS; i++) {
			ebc(r + cis + L70CIS * i, cis_name[i], 16);
			put16(r + cis + L70CIS * i + 16, (unsigned)ctn[i]);
		}
	}
	put16(r, (unsigned)len);
	return len;
}

/* After HIS interval k of every system: adds each cpu's busy cycles to the RMF intervals the
 * interval overlaps (canonical, un-jittered times; prorated when it overlaps only part of one),
 * and writes the 70.1 records of every RMF interval that ends by the HIS interval's end.
 * SMF70PDT = round(busy factor x cycles / CPSP) microseconds. */
static void rmf_after(struct gen *g, uint64_t k)
{
	const struct opts *o = g->o;
	uint64_t n = o->systems * o->cpus;
	int64_t H = (int64_t)o->secs, RL = (int64_t)o->rmf_secs;
	int64_t hs = (int64_t)(o->his_off + k * o->secs), he = hs + H; /* seconds after --start */
	while (g->rj < g->nr) {
		int64_t rs = (int64_t)g->rj * RL, re = rs + RL;
		if (rs >= he)
			break;
		int64_t ov = (re < he ? re : he) - (rs > hs ? rs : hs);
		if (ov > 0)
			for (uint64_t i = 0; i < n; i++)
				g->acc[i] += ov == H ? (double)g->b0[i] : (double)g->b0[i] * (double)ov / (double)H;
		if (re > he)
			break;
		for (uint64_t i = 0; i < n; i++) {
			double us = o->busy_factor * g->acc[i] / (double)g->sys[i / o->cpus].f->cpsp;
			g->pdt[i] = (uint64_t)(us + 0.5);
			g->acc[i] = 0;
		}
		for (uint64_t s = 0; s < o->systems; s++) {
			size_t len = rec70_1(g, s, g->rj);
			emit(rec, len);
			bytes70 += len;
			nrec70++;
		}
		g->rj++;
	}
}

/* The SMF 99.14 record of system s at --start: header, self-defining section, product section,
 * the S14 triplet map as the data section, the header data section, one processor entry per cpu. */
static size_t rec99_14(const struct gen *g, uint64_t s)
{
	const struct opts *o = g->o;
	const struct sysinfo *y = &g->sys[s];
	unsigned char *r = rec, *p;
	size_t pro = 44, map = pro + 32, hdr = map + 48, cpu = hdr + 32, len = cpu + 24 * o->cpus;

	memset(r, 0, len);
	std_header(r, 99, 1, 14, g->R0, y->sid, "SRM");
	put32(r + 24, 16); /* SMF99_SDEF_LEN */
	triplet(r + 28, pro, 32, 1);
	triplet(r + 36, map, 48, 1);
	p = r + pro;
	put16(p, 1);
	ebc(p + 2, "01", 2);
	ebc(p + 4, "SRM", 8);
	ebc(p + 12, "SP7.3.0", 8);
	ebc(p + 20, y->sid, 8);
	/* S14 map: header data, processor data; node and MPWQ sections absent */
	triplet(r + map, hdr, 32, 1);
	triplet(r + map + 16, cpu, 24, o->cpus);
	p = r + hdr;
	put32(p, 1);                          /* SMF99E_VCM_SMF_SEQU */
	p[4] = 0x80;                          /* topology changed */
	put16(p + 18, (unsigned)o->cpus - 1); /* SMF99E_VCM_MAXCPUIDFORIPL */
	put64(p + 24, tod_of_us(g->R0));      /* SMF99E_VCM_CURRTOPO_TOD */
	for (uint64_t k = 0; k < o->cpus; k++) {
		unsigned char *e = r + cpu + 24 * k;
		put16(e, (unsigned)k);
		e[8] = g->kind[k] == K_ZIIP ? 5 : 0;
		e[9] = (unsigned char)cpu_polarity(g, k);
		e[16] = 2;                      /* NLINUSE */
		e[18] = (unsigned char)(k / 4); /* NL1: chip */
		e[19] = (unsigned char)(k / 8); /* NL2: drawer */
	}
	put16(r, (unsigned)len);
	return len;
}

static void topology(const struct gen *g)
{
	for (uint64_t s = 0; s < g->o->systems; s++) {
		size_t len = rec99_14(g, s);
		emit(rec, len);
		bytes99 += len;
		nrec99++;
	}
}

static void intervals(struct gen *g)
{
	const struct opts *o = g->o;
	for (uint64_t iv = 0; iv < o->intervals; iv++) {
		char ts[21];
		fmt_iso(o->t0 + (int64_t)(o->his_off + iv * o->secs), ts);
		int64_t Tend = g->T0 + (int64_t)(iv + 1) * g->S;
		int last = iv + 1 == o->intervals;
		for (uint64_t s = 0; s < o->systems; s++) {
			make_profile(&g->pr[s], class_cycle[(iv + s) % 4]);
			for (uint64_t c = 0; c < o->cpus; c++)
				one_cpu(g, s, c, ts, Tend, last);
		}
		if (o->rmf)
			rmf_after(g, iv);
	}
}

/* A type 2 dump header or type 3 trailer. */
static void dump_marker(unsigned type, int64_t t, const char *sid)
{
	size_t len = std_header(rec, type, 0, 0, t, sid, "");
	put16(rec, (unsigned)len);
	emit(rec, len);
}

/* Flushes and closes out; 0, or 1 on a write error (said). */
static int close_output(struct obuf *o)
{
	ob_flush(o);
	if (fflush(o->f) != 0 || (o->f != stdout && fclose(o->f) != 0)) {
		fprintf(stderr, PROG ": %s: write error: %s\n", o->name, strerror(errno));
		return 1;
	}
	return 0;
}

static void summary(const struct gen *g)
{
	uint64_t total = bytes113 + bytes_other + bytes70 + bytes99 + 36;
	fprintf(stderr,
		PROG
		": %llu type-113 records (%llu bytes), %llu other records (%llu bytes), "
		"%.1f%% of the record bytes not 113",
		(unsigned long long)nrec113, (unsigned long long)bytes113, (unsigned long long)nrec_other,
		(unsigned long long)bytes_other, 100.0 * (double)(total - bytes113) / (double)total);
	if (nrec70 || nrec99)
		fprintf(stderr, "; %llu SMF 70.1 records (%llu bytes), %llu SMF 99.14 records (%llu bytes)",
			(unsigned long long)nrec70, (unsigned long long)bytes70, (unsigned long long)nrec99,
			(unsigned long long)bytes99);
	if (framing == FR_VBS)
		fprintf(stderr, "; %llu blocks, %llu segments", (unsigned long long)nblocks,
			(unsigned long long)nsegments);
	if (g->o->csv_name)
		fprintf(stderr, "; %llu CSV rows", (unsigned long long)g->rows);
	fputc('\n', stderr);
}

int main(int argc, char **argv)
{
	struct opts o;
	struct gen g;
	int rc = 1;

	if (parse_opts(argc, argv, &o)) {
		usage(stdout);
		return 0;
	}
	utc_offset_us = o.utc_off_min * 60 * 1000000;
	init_ebcdic();
	rng_seed(&R, o.seed);
	rng_seed(&R2, o.seed ^ 0x5DEECE66Du);
	memset(&g, 0, sizeof(g));
	g.o = &o;
	smf.b = malloc(OUTBUF);
	csv.b = o.csv_name ? malloc(OUTBUF) : NULL;
	if (!smf.b || (o.csv_name && !csv.b)) {
		fputs(PROG ": out of memory\n", stderr);
		return 1;
	}
	if (open_output(&smf, o.out_name) || (o.csv_name && open_output(&csv, o.csv_name)))
		return 1;
	if (setup_systems(&g))
		goto out;
	setup_columns(&g);
	int64_t dump_t = g.T0 + (int64_t)o.intervals * g.S + 60000000;
	dump_marker(2, dump_t, g.sys[0].sid);
	if (o.topology)
		topology(&g);
	baseline(&g);
	intervals(&g);
	dump_marker(3, dump_t, g.sys[0].sid);
	if (framing == FR_VBS)
		block_close();
	if (close_output(&smf) || (o.csv_name && close_output(&csv)))
		goto out;
	if (!o.quiet)
		summary(&g);
	rc = 0;
out:
	free_gen(&g);
	free(smf.b);
	free(csv.b);
	return rc;
}
