/* SPDX-License-Identifier: MIT */
/*
 * SMF type 70 subtype 1 (RMF CPU activity) and type 99 subtype 14
 * (HiperDispatch topology) decoding.  The records are built here byte by byte
 * from the tables of docs/smf70-layout.md, with local big-endian, EBCDIC and
 * packed-decimal helpers, independently of every other writer in the tree
 * (tools/gensmf.c, tests/unit/smfbuild.h).
 */
#include "testutil.h"

/* ---- byte helpers ------------------------------------------------------- */

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

/* EBCDIC code page 037 for the characters these records use. */
static unsigned char ebcdic_char(char c)
{
	if (c >= 'A' && c <= 'I')
		return (unsigned char)(0xC1 + (c - 'A'));
	if (c >= 'J' && c <= 'R')
		return (unsigned char)(0xD1 + (c - 'J'));
	if (c >= 'S' && c <= 'Z')
		return (unsigned char)(0xE2 + (c - 'S'));
	if (c >= '0' && c <= '9')
		return (unsigned char)(0xF0 + (c - '0'));
	if (c == ' ')
		return 0x40;
	fail_msg("no EBCDIC for '%c' in the test helper", c);
	return 0;
}

/* s as EBCDIC into p[0..width), blank-padded. */
static void put_ebcdic(unsigned char *p, const char *s, size_t width)
{
	size_t i, n = strlen(s);
	assert_true(n <= width);
	for (i = 0; i < width; i++)
		p[i] = i < n ? ebcdic_char(s[i]) : 0x40;
}

/*
 * Packed decimal of the digit string s (digits only) followed by the sign
 * nibble X'F', right-aligned in p[0..width) with leading zero nibbles:
 * put_packed(p, "0125100", 4) gives X'0125100F'.
 */
static void put_packed(unsigned char *p, const char *s, size_t width)
{
	size_t n = strlen(s), nibbles = 2 * width, i;
	assert_true(n + 1 <= nibbles);
	memset(p, 0, width);
	for (i = 0; i < n; i++) {
		size_t pos = nibbles - 1 - n + i; /* nibble position of digit i */
		unsigned d = (unsigned)(s[i] - '0');
		assert_true(d <= 9);
		p[pos / 2] |= (unsigned char)(pos % 2 ? d : d << 4);
	}
	p[width - 1] |= 0x0F;
}

/* TOD clock value (epoch 1900, bit 51 = 1 microsecond) of Unix microseconds. */
#define TOD_1970_US UINT64_C(2208988800000000)
static uint64_t tod_of_unix_us(int64_t us)
{
	return ((uint64_t)us + TOD_1970_US) << 12;
}

/* ---- SMF 70.1 record builder ------------------------------------------- */

/* Polarity codes as recorded in SMF70POF bits 0-1 and SMF99E_CP_POLAR. */
enum { POL_HZ = 0, POL_VL = 1, POL_VM = 2, POL_VH = 3 };

struct lp70 { /* one PR/SM logical processor data section */
	unsigned vpa;
	unsigned cix; /* 1-based into the CIS names, 0: none */
	unsigned bps; /* 0xFFFF: dedicated */
	unsigned pol; /* POL_* */
	uint64_t pdt, ont;
};

struct part70 { /* one PR/SM partition data section */
	const char *name;
	unsigned lpn, bds, bdn;
	unsigned pfl; /* SMF70PFL: X'2000' vertical polarisation */
};

struct cpu70 { /* one CPU data section */
	unsigned cid, typ, cnf;
};

struct spec70 {
	const char *sid;
	unsigned sty, trn;
	/* section lengths (0: z/OS 3.1's) */
	unsigned prl, ccl, cpl, bcl, bvl, cnl;
	const char *ist, *dat, *intv; /* packed digit strings */
	int64_t lgo_us;               /* local - GMT */
	int64_t gie_us;               /* SMF70GIE as Unix microseconds (0: none) */
	unsigned ptn, ran;
	unsigned mod;
	const char *mdl, *csc;
	size_t ncpus, nparts, nlps, ncis;
	const struct cpu70 *cpus;
	const struct part70 *parts;
	const struct lp70 *lps;
	const char *const *cis;
};

/* Where the builder put things, for the error cases that patch a record. */
struct where70 {
	size_t len, prs, ccs, cps, bcs, bvs, cns;
};

/* z/OS 3.1 lengths and the fields' mapped extent per section. */
enum {
	PRL_31 = 104,
	CCL_31 = 404,
	CPL_31 = 92,
	BCL_31 = 84,
	BVL_31 = 96,
	CNL_31 = 24,
	SCRATCH = 1024,
	TRAILER = 0xA5, /* bytes beyond the mapped fields of a longer, future section */
};

static unsigned char scratch[SCRATCH];

/* Starts a section whose known fields end at known: zeros up to there, junk after. */
static unsigned char *section(size_t known)
{
	memset(scratch, 0, known);
	memset(scratch + known, TRAILER, SCRATCH - known);
	return scratch;
}

/* Appends the first len bytes of the scratch section at rec + *at. */
static void emit(unsigned char *rec, size_t *at, size_t len)
{
	assert_true(len <= SCRATCH);
	memcpy(rec + *at, scratch, len);
	*at += len;
}

static void triplet(unsigned char *rec, const struct spec70 *s, unsigned k, size_t off, unsigned len, unsigned num)
{
	unsigned char *t = rec + 28 + 8 * k;
	if (k >= s->trn)
		return;
	if (num == 0)
		off = len = 0;
	put32(t, (uint32_t)off);
	put16(t + 4, len);
	put16(t + 6, num);
}

/* Builds the record of s into rec (cap bytes); returns its length. */
static size_t build70(unsigned char *rec, size_t cap, const struct spec70 *s, struct where70 *w)
{
	unsigned prl = s->prl ? s->prl : PRL_31, ccl = s->ccl ? s->ccl : CCL_31, cpl = s->cpl ? s->cpl : CPL_31;
	unsigned bcl = s->bcl ? s->bcl : BCL_31, bvl = s->bvl ? s->bvl : BVL_31, cnl = s->cnl ? s->cnl : CNL_31;
	size_t at = 28 + 8 * (size_t)s->trn, i;
	unsigned char *p;
	char cpc[8];
	struct where70 dummy;

	if (!w)
		w = &dummy;
	memset(w, 0, sizeof(*w));
	memset(rec, 0, cap);
	assert_true(at + prl + ccl + s->ncpus * cpl + s->nparts * bcl + s->nlps * bvl + s->ncis * cnl <= cap);

	/* 1.1 standard header */
	rec[4] = 0x5F; /* new format, subtypes used, version bits, PR/SM */
	rec[5] = 70;
	put32(rec + 6, 5220000u); /* 14:30:00.00 in 1/100 s */
	put_packed(rec + 10, s->dat, 4);
	put_ebcdic(rec + 14, s->sid, 4);
	put_ebcdic(rec + 18, "RMF", 4);
	put16(rec + 22, s->sty);
	put16(rec + 24, s->trn);

	/* 2. product section */
	w->prs = at;
	p = section(PRL_31);
	put_packed(p + 0, "790", 2);
	put_ebcdic(p + 2, "RMF", 8);
	put_packed(p + 10, s->ist, 4);
	put_packed(p + 14, s->dat, 4);
	put_packed(p + 18, s->intv, 4);
	put32(p + 24, 900);
	put16(p + 30, 0x1000); /* interval synchronised */
	put_packed(p + 36, "1000", 4);
	put_ebcdic(p + 40, "Z3010000", 8);
	p[48] = 3;
	p[49] = 0x15;
	p[50] = (unsigned char)s->ptn;
	p[51] = 0x91;
	put64(p + 52, UINT64_C(0xDDEEFF0011223344));
	put64(p + 60, (uint64_t)s->lgo_us << 12); /* two's complement for west of Greenwich */
	put16(p + 74, s->ran);
	put16(p + 76, 900);
	put16(p + 78, 0);
	if (s->gie_us)
		put64(p + 80, tod_of_unix_us(s->gie_us));
	put_ebcdic(p + 88, "PLEX1", 8);
	put_ebcdic(p + 96, s->sid, 8);
	emit(rec, &at, prl);
	triplet(rec, s, 0, w->prs, prl, 1);

	/* 3. CPU control section */
	w->ccs = at;
	p = section(CCL_31);
	put16(p + 0, s->mod);
	p[2] = 0;
	p[3] = 12;   /* physical processors */
	p[5] = 0x80; /* STSI available; bit 4 off: SMF70MDL is the model */
	put16(p + 6, 0);
	put_ebcdic(p + 8, s->mdl, 16);
	put16(p + 24, 900); /* Diagnose samples */
	put16(p + 26, 0);
	put32(p + 32, 1500);
	put32(p + 36, 1200);
	put_ebcdic(p + 48, "A01", 16); /* HWM, not valid here (STF bit 4 off) */
	put16(p + 64, 2);
	put_ebcdic(p + 74, "02", 4);
	put_ebcdic(p + 78, s->csc, 16);
	p[94] = 0xC0; /* HiperDispatch supported and active */
	put_ebcdic(p + 116, "708", 16);
	put_ebcdic(p + 132, "708", 16);
	put32(p + 148, 11000);
	put32(p + 204, 11000);
	p[216] = 100;
	put16(p + 218, 200);
	snprintf(cpc, sizeof(cpc), "%04X", s->mod & 0xFFFFu);
	put_ebcdic(p + 340, cpc, 4);
	put_ebcdic(p + 344, "708", 16);
	emit(rec, &at, ccl);
	triplet(rec, s, 1, w->ccs, ccl, 1);

	/* 4. CPU data sections */
	w->cps = at;
	for (i = 0; i < s->ncpus; i++) {
		const struct cpu70 *c = &s->cpus[i];
		p = section(CPL_31);
		put64(p + 0, (UINT64_C(600000000) + i) << 12); /* wait */
		put16(p + 8, c->cid);
		p[10] = (unsigned char)c->cnf;
		p[12] = 0x0A;
		p[13] = 0x1B;
		p[14] = (unsigned char)(0x20 + i);
		p[15] = (unsigned char)c->typ;
		put32(p + 16, 4711);
		put64(p + 32, UINT64_C(1000) << 12); /* parked */
		put64(p + 40, 123456);
		put64(p + 48, 654321);
		put32(p + 88, 17);
		emit(rec, &at, cpl);
	}
	triplet(rec, s, 2, w->cps, cpl, (unsigned)s->ncpus);
	triplet(rec, s, 3, 0, 0, 0); /* no ASID data area */

	/* 5. partition data sections */
	w->bcs = at;
	for (i = 0; i < s->nparts; i++) {
		const struct part70 *q = &s->parts[i];
		p = section(84);
		put_ebcdic(p + 0, q->name, 8);
		p[8] = (unsigned char)q->lpn;
		p[9] = 0;
		put16(p + 10, q->bdn);
		put32(p + 12, q->bds);
		put32(p + 16, q->bdn * 900);
		put_ebcdic(p + 20, "PLEX1", 8);
		put_ebcdic(p + 28, q->name, 8);
		put32(p + 40, 65536);
		put16(p + 56, q->pfl);
		emit(rec, &at, bcl);
	}
	triplet(rec, s, 4, w->bcs, bcl, (unsigned)s->nparts);

	/* 6. logical processor data sections */
	w->bvs = at;
	for (i = 0; i < s->nlps; i++) {
		const struct lp70 *l = &s->lps[i];
		p = section(BVL_31);
		put64(p + 0, l->pdt);
		put16(p + 8, l->vpa);
		put16(p + 10, l->bps);
		p[12] = 0x80;                                               /* wait completion */
		p[13] = (unsigned char)(l->pol << 6 | (i == 1 ? 0x20 : 0)); /* one with "polarity changed" */
		put16(p + 14, l->cix);
		put64(p + 16, l->pdt - l->pdt / 50); /* effective dispatch */
		put32(p + 24, 900 * 77);
		put16(p + 28, 1);
		put16(p + 30, 999);
		put64(p + 40, l->ont);
		put64(p + 48, l->ont / 3); /* wait state */
		put32(p + 64, l->bps == 0xFFFF ? 0 : l->bps * 900u * 4096u / 10u);
		put64(p + 80, 0);
		p[88] = 0;
		p[89] = 3;
		p[90] = 1;
		p[91] = 2;
		p[92] = (unsigned char)(i % 4);
		emit(rec, &at, bvl);
	}
	triplet(rec, s, 5, w->bvs, bvl, (unsigned)s->nlps);

	/* 6.3 CPU-identification name sections (only with the 7th triplet) */
	w->cns = at;
	if (s->trn > 6) {
		for (i = 0; i < s->ncis; i++) {
			p = section(CNL_31);
			put_ebcdic(p + 0, s->cis[i], 16);
			put16(p + 16, (unsigned)(2 + i));
			put32(p + 20, (uint32_t)((2 + i) * 900));
			emit(rec, &at, cnl);
		}
		triplet(rec, s, 6, w->cns, cnl, (unsigned)s->ncis);
	}
	triplet(rec, s, 7, 0, 0, 0); /* logical core data: none (no MT) */
	triplet(rec, s, 8, 0, 0, 0); /* tenant resource groups: none */
	triplet(rec, s, 9, 0, 0, 0); /* z/OS 3.2 workload classification: none */

	put16(rec + 0, (unsigned)at);
	put16(rec + 2, 0);
	w->len = at;
	return at;
}

/* ---- the reference configuration (case 1) ------------------------------ */

/* CIS entries: CIX 1 CP, 2 AAP, 3 IFL, 4 ICF, 5 IIP. */
static const char *const cis_std[] = {"CP", "AAP", "IFL", "ICF", "IIP"};
enum { CIX_CP = 1, CIX_AAP, CIX_IFL, CIX_ICF, CIX_IIP };

#define MIN15 UINT64_C(900000000) /* 15 minutes in microseconds */

static const struct lp70 lps_std[] = {
	/* PROD1 (LPN 1): sections 0-2 */
	{0, CIX_CP, 300, POL_VH, 811111, MIN15},
	{1, CIX_CP, 300, POL_VM, 422222, MIN15 - 1000},
	{2, CIX_IIP, 100, POL_VL, 33333, MIN15},
	/* SYSALP (LPN 2, own): sections 3-7 */
	{0, CIX_CP, 400, POL_VH, 877777, MIN15},
	{1, CIX_CP, 400, POL_VM, 544444, MIN15},
	{2, CIX_CP, 400, POL_VL, 12345, 450000000},
	{3, CIX_IIP, 100, POL_VM, 222222, MIN15},
	{4, CIX_IIP, 100, POL_VL, 1111, 300000000},
	/* LINUX1 (LPN 3): sections 8-10 */
	{0, CIX_IFL, 50, POL_HZ, 700001, MIN15},
	{1, CIX_IFL, 50, POL_HZ, 700002, MIN15},
	{2, CIX_CP, 0xFFFF, POL_HZ, 899999, MIN15},
};

static const struct part70 parts_std[] = {
	{"PROD1", 1, 0, 3, 0x2000},
	{"SYSALP", 2, 3, 5, 0x2000},
	{"LINUX1", 3, 8, 3, 0x0000},
};

/*
 * CNF: X'08' complete interval, X'01' online at end, X'02' data invalid, X'04' varied.  CPU 3 came
 * online in the interval (online, not complete), CPU 4 was reconfigured (complete, invalid, offline).
 */
static const struct cpu70 cpus_std[] = {
	{0, 0, 0x09}, {1, 0, 0x09}, {2, 0, 0x09}, {3, 2, 0x05}, {4, 2, 0x0A},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* 2025 day 100 = 2025-04-10; 00:00:00Z = 1744243200 */
#define DAY_US INT64_C(1744243200000000)
#define HOUR_US INT64_C(3600000000)
#define START_UTC (DAY_US + 12 * HOUR_US + 30 * 60 * INT64_C(1000000)) /* 2025-04-10T12:30:00Z */
#define START_LOCAL (DAY_US + 14 * HOUR_US + 30 * 60 * INT64_C(1000000))

static struct spec70 spec_std(void)
{
	struct spec70 s;
	memset(&s, 0, sizeof(s));
	s.sid = "SYSA";
	s.sty = 1;
	s.trn = 9;
	s.ist = "0143000";
	s.dat = "0125100";
	s.intv = "1500000";
	s.lgo_us = 2 * HOUR_US;
	s.gie_us = START_UTC + 15 * 60 * INT64_C(1000000);
	s.ptn = 2;
	s.mod = 0x3931;
	s.mdl = "708";
	s.csc = "00000000000A1B2C";
	s.cpus = cpus_std;
	s.ncpus = N(cpus_std);
	s.parts = parts_std;
	s.nparts = N(parts_std);
	s.lps = lps_std;
	s.nlps = N(lps_std);
	s.cis = cis_std;
	s.ncis = N(cis_std);
	return s;
}

static unsigned char rec[16384];

static int expect_polarity(unsigned pol)
{
	switch (pol) {
	case POL_VH: return MF_POL_VH;
	case POL_VM: return MF_POL_VM;
	case POL_VL: return MF_POL_VL;
	default: return MF_POL_HZ;
	}
}

static int expect_pool(const char *type)
{
	static const struct {
		const char *name;
		int pool;
	} map[] = {{"CP", MF_POOL_GCP},
		   {"IIP", MF_POOL_ZIIP},
		   {"IFL", MF_POOL_IFL},
		   {"ICF", MF_POOL_ICF},
		   {"AAP", MF_POOL_ZAAP}};
	size_t i;
	for (i = 0; i < N(map); i++)
		if (strcmp(map[i].name, type) == 0)
			return map[i].pool;
	return MF_POOL_NONE;
}

/* Checks every decoded lcpu against the spec (cis: the names it should resolve to, or NULL). */
static void check_lcpus(const struct mf_smf70 *r, const struct spec70 *s, const char *const *cis)
{
	size_t i;
	assert_int_equal(r->nlcpus, s->nlps);
	for (i = 0; i < s->nlps; i++) {
		const struct lp70 *l = &s->lps[i];
		const struct mf_smf70_lcpu *d = &r->lcpus[i];
		const char *type = cis && l->cix ? cis[l->cix - 1] : "";
		assert_int_equal(d->address, l->vpa);
		assert_string_equal(d->type, type);
		assert_int_equal(d->pool, expect_pool(type));
		assert_int_equal(d->polarity, expect_polarity(l->pol));
		assert_int_equal(d->dedicated, l->bps == 0xFFFF);
		assert_int_equal(d->weight, l->bps == 0xFFFF ? 0 : l->bps);
		assert_int_equal(d->dispatch_us, l->pdt);
		assert_int_equal(d->online_us, l->ont);
	}
}

static void check_lpars(const struct mf_smf70 *r, const struct spec70 *s)
{
	size_t i;
	assert_int_equal(r->nlpars, s->nparts);
	for (i = 0; i < s->nparts; i++) {
		assert_string_equal(r->lpars[i].name, s->parts[i].name);
		assert_int_equal(r->lpars[i].number, s->parts[i].lpn);
		assert_int_equal(r->lpars[i].first, s->parts[i].bds);
		assert_int_equal(r->lpars[i].n, s->parts[i].bdn);
	}
}

/* The own CPUs of the reference record: addresses 0-4 -> lcpus 3-7 (SYSALP's slice). */
static void check_cpus_std(const struct mf_smf70 *r)
{
	size_t i;
	assert_int_equal(r->ncpus, 5);
	for (i = 0; i < 5; i++) {
		assert_int_equal(r->cpus[i].id, i);
		assert_int_equal(r->cpus[i].pool, i < 3 ? MF_POOL_GCP : MF_POOL_ZIIP);
		assert_int_equal(r->cpus[i].online, i < 4);
		assert_int_equal(r->cpus[i].invalid, i == 4);
		assert_int_equal(r->cpus[i].lcpu, (long)(3 + i));
		assert_int_equal(r->lcpus[r->cpus[i].lcpu].address, r->cpus[i].id);
	}
}

static void decode_ok(const unsigned char *p, size_t len, struct mf_smf70 *r)
{
	char why[256] = "";
	int rc = mf_smf70_decode(p, len, r, why, sizeof(why));
	if (rc != 0)
		fail_msg("mf_smf70_decode: %d (%s)", rc, why);
}

/* ---- case 1: a z/OS 3.1-shaped record ---------------------------------- */

static void smf70_zos31(void **state)
{
	struct spec70 s = spec_std();
	struct mf_smf70 r;
	size_t len;
	(void)state;
	memset(&r, 0, sizeof(r));
	len = build70(rec, sizeof(rec), &s, NULL);
	assert_int_equal(len, 100 + 104 + 404 + 5 * 92 + 3 * 84 + 11 * 96 + 5 * 24);
	decode_ok(rec, len, &r);

	assert_string_equal(r.system, "SYSA");
	assert_int_equal(r.machine_type, 3931);
	assert_string_equal(r.model, "708");
	assert_string_equal(r.serial, "00000000000A1B2C");
	assert_false(r.broken);
	assert_false(r.mt);
	assert_int_equal(r.own_number, 2);
	assert_int_equal(r.own, 1);
	assert_string_equal(r.lpars[r.own].name, "SYSALP");
	assert_int_equal(r.ncpus, 5);
	assert_int_equal(r.nlpars, 3);
	assert_int_equal(r.nlcpus, 11);
	check_lpars(&r, &s);
	check_lcpus(&r, &s, cis_std);
	check_cpus_std(&r);

	/* spelled out for the reader, beyond the table-driven checks */
	assert_int_equal(r.lcpus[2].pool, MF_POOL_ZIIP);
	assert_string_equal(r.lcpus[2].type, "IIP");
	assert_int_equal(r.lcpus[2].polarity, MF_POL_VL);
	assert_int_equal(r.lcpus[5].polarity, MF_POL_VL);
	assert_int_equal(r.lcpus[5].weight, 400);
	assert_int_equal(r.lcpus[5].dispatch_us, 12345);
	assert_int_equal(r.lcpus[5].online_us, 450000000);
	assert_int_equal(r.lcpus[8].pool, MF_POOL_IFL);
	assert_int_equal(r.lcpus[8].weight, 50);
	assert_true(r.lcpus[10].dedicated);
	assert_int_equal(r.lcpus[10].weight, 0);
	assert_int_equal(r.lcpus[10].pool, MF_POOL_GCP);
	assert_false(r.lcpus[9].dedicated);
	mf_smf70_free(&r);
}

/* Every pool name, in an order that is not the literature's pool numbering, and unknown ones. */
static void smf70_pool_names(void **state)
{
	static const char *const cis[] = {"IIP", "ICF", "SAP", "AAP", "IFL", "CP"};
	static const struct lp70 lps[] = {
		{0, 6, 10, POL_HZ, 1, 2},   {1, 4, 20, POL_HZ, 3, 4},  {2, 1, 30, POL_HZ, 5, 6},
		{3, 5, 40, POL_HZ, 7, 8},   {4, 2, 50, POL_HZ, 9, 10}, {5, 3, 60, POL_HZ, 11, 12},
		{6, 0, 70, POL_HZ, 13, 14},
	};
	static const struct part70 parts[] = {{"CEC1LP", 2, 0, 7, 0}};
	static const struct cpu70 cpus[] = {{0, 0, 0x09}, {4, 1, 0x09}, {2, 2, 0x09}};
	struct spec70 s = spec_std();
	struct mf_smf70 r;
	size_t len;
	(void)state;
	memset(&r, 0, sizeof(r));
	s.lps = lps;
	s.nlps = N(lps);
	s.parts = parts;
	s.nparts = N(parts);
	s.cpus = cpus;
	s.ncpus = N(cpus);
	s.cis = cis;
	s.ncis = N(cis);
	len = build70(rec, sizeof(rec), &s, NULL);
	decode_ok(rec, len, &r);
	check_lpars(&r, &s);
	check_lcpus(&r, &s, cis);
	assert_int_equal(r.lcpus[0].pool, MF_POOL_GCP);
	assert_int_equal(r.lcpus[1].pool, MF_POOL_ZAAP);
	assert_int_equal(r.lcpus[2].pool, MF_POOL_ZIIP);
	assert_int_equal(r.lcpus[3].pool, MF_POOL_IFL);
	assert_int_equal(r.lcpus[4].pool, MF_POOL_ICF);
	assert_int_equal(r.lcpus[5].pool, MF_POOL_NONE);
	assert_string_equal(r.lcpus[5].type, "SAP");
	assert_int_equal(r.lcpus[6].pool, MF_POOL_NONE);
	assert_string_equal(r.lcpus[6].type, "");
	/* SMF70TYP 0, 1, 2 of the own CPUs; each linked by address */
	assert_int_equal(r.own, 0);
	assert_int_equal(r.cpus[0].pool, MF_POOL_GCP);
	assert_int_equal(r.cpus[1].pool, MF_POOL_ZAAP);
	assert_int_equal(r.cpus[2].pool, MF_POOL_ZIIP);
	assert_int_equal(r.cpus[0].lcpu, 0);
	assert_int_equal(r.cpus[1].lcpu, 4);
	assert_int_equal(r.cpus[2].lcpu, 2);
	mf_smf70_free(&r);
}

/* SMF70PTN names no partition: own is -1 and no own CPU has a logical processor. */
static void smf70_own_missing(void **state)
{
	struct spec70 s = spec_std();
	struct mf_smf70 r;
	size_t len, i;
	(void)state;
	memset(&r, 0, sizeof(r));
	s.ptn = 9;
	len = build70(rec, sizeof(rec), &s, NULL);
	decode_ok(rec, len, &r);
	assert_int_equal(r.own_number, 9);
	assert_int_equal(r.own, -1);
	assert_int_equal(r.ncpus, 5);
	for (i = 0; i < r.ncpus; i++)
		assert_int_equal(r.cpus[i].lcpu, -1);
	check_lcpus(&r, &s, cis_std);
	mf_smf70_free(&r);
}

/* ---- case 2: interval times -------------------------------------------- */

static void smf70_times_east(void **state)
{
	struct spec70 s = spec_std();
	struct mf_smf70 r;
	size_t len;
	(void)state;
	memset(&r, 0, sizeof(r));
	len = build70(rec, sizeof(rec), &s, NULL);
	/* the bytes the layout note prescribes */
	assert_memory_equal(rec + 100 + 10, "\x01\x43\x00\x0F", 4);
	assert_memory_equal(rec + 100 + 14, "\x01\x25\x10\x0F", 4);
	assert_memory_equal(rec + 100 + 18, "\x15\x00\x00\x0F", 4);
	assert_memory_equal(rec + 100 + 60, "\x00\x00\x1A\xD2\x74\x80\x00\x00", 8); /* 7.2e9 us << 12 */
	decode_ok(rec, len, &r);
	assert_int_equal(r.start_us, START_UTC);
	assert_int_equal(r.start_us, INT64_C(1744288200000000));
	assert_int_equal(r.end_us, START_UTC + 15 * 60 * INT64_C(1000000));
	assert_int_equal(r.local_start_us, START_LOCAL);
	mf_smf70_free(&r);
}

static void smf70_times_west(void **state)
{
	struct spec70 s = spec_std();
	struct mf_smf70 r;
	size_t len;
	(void)state;
	memset(&r, 0, sizeof(r));
	s.lgo_us = -5 * HOUR_US;
	s.gie_us = START_LOCAL + 5 * HOUR_US + 15 * 60 * INT64_C(1000000);
	/* an interval of 14:59.999 too: milliseconds count */
	s.intv = "1459999";
	len = build70(rec, sizeof(rec), &s, NULL);
	assert_memory_equal(rec + 100 + 60, "\xFF\xFF\xBC\xF1\xDC\xC0\x00\x00", 8); /* -1.8e10 us << 12 */
	decode_ok(rec, len, &r);
	assert_int_equal(r.local_start_us, START_LOCAL);
	assert_int_equal(r.start_us, START_LOCAL + 5 * HOUR_US); /* 2025-04-10T19:30:00Z */
	assert_int_equal(r.start_us, INT64_C(1744313400000000));
	assert_int_equal(r.end_us, r.start_us + INT64_C(899999000));
	mf_smf70_free(&r);
}

/* Day 001 and 366, a 19yy century nibble, a midnight start. */
static void smf70_times_dates(void **state)
{
	struct spec70 s = spec_std();
	struct mf_smf70 r;
	size_t len;
	(void)state;
	memset(&r, 0, sizeof(r));
	s.lgo_us = 0;
	s.gie_us = 0;
	s.ist = "0000000";
	s.dat = "0124366"; /* 2024-12-31 */
	len = build70(rec, sizeof(rec), &s, NULL);
	decode_ok(rec, len, &r);
	assert_int_equal(r.start_us, INT64_C(1735603200000000));
	assert_int_equal(r.local_start_us, INT64_C(1735603200000000));
	s.dat = "0099001"; /* 1999-01-01, century nibble 0 */
	s.ist = "0235959";
	len = build70(rec, sizeof(rec), &s, NULL);
	decode_ok(rec, len, &r);
	assert_int_equal(r.start_us, INT64_C(915148800000000) + INT64_C(86399000000));
	mf_smf70_free(&r);
}

/* ---- case 3: short, long and older records ------------------------------- */

static void smf70_short_sections(void **state)
{
	struct spec70 s = spec_std();
	struct mf_smf70 r;
	size_t len;
	(void)state;
	memset(&r, 0, sizeof(r));
	s.bvl = 88; /* no SMF70LPF, MAXNL, CORDLx */
	s.cpl = 80; /* no warning-track fields */
	s.bcl = 81; /* A's mapping */
	len = build70(rec, sizeof(rec), &s, NULL);
	assert_int_equal(len, 100 + 104 + 404 + 5 * 80 + 3 * 81 + 11 * 88 + 5 * 24);
	decode_ok(rec, len, &r);
	assert_string_equal(r.system, "SYSA");
	assert_int_equal(r.machine_type, 3931);
	assert_int_equal(r.own, 1);
	assert_int_equal(r.start_us, START_UTC);
	check_lpars(&r, &s);
	check_lcpus(&r, &s, cis_std);
	check_cpus_std(&r);
	mf_smf70_free(&r);
}

static void smf70_long_sections(void **state)
{
	struct spec70 s = spec_std();
	struct mf_smf70 r;
	size_t len;
	(void)state;
	memset(&r, 0, sizeof(r));
	s.trn = 10; /* z/OS 3.2: a workload classification triplet at offset 100 */
	s.prl = 120;
	s.ccl = 460;
	s.cpl = 100;
	s.bcl = 96;
	s.bvl = 104;
	s.cnl = 32;
	len = build70(rec, sizeof(rec), &s, NULL);
	assert_int_equal(len, 108 + 120 + 460 + 5 * 100 + 3 * 96 + 11 * 104 + 5 * 32);
	assert_int_equal(rec[108 + 120 + 460 + 5 * 100 + 3 * 96 + 103], TRAILER);
	decode_ok(rec, len, &r);
	assert_string_equal(r.system, "SYSA");
	assert_int_equal(r.machine_type, 3931);
	assert_string_equal(r.model, "708");
	assert_string_equal(r.serial, "00000000000A1B2C");
	assert_int_equal(r.own, 1);
	assert_int_equal(r.start_us, START_UTC);
	assert_int_equal(r.end_us, START_UTC + 15 * 60 * INT64_C(1000000));
	check_lpars(&r, &s);
	check_lcpus(&r, &s, cis_std);
	check_cpus_std(&r);
	mf_smf70_free(&r);
}

/* Expects -1 with a why that contains one of the words (separated by '|'). */
static void expect_bad(const unsigned char *p, size_t len, const char *words)
{
	struct mf_smf70 r;
	char why[256];
	char list[256], *w, *save = NULL;
	int found = 0;
	memset(&r, 0, sizeof(r));
	memset(why, 0, sizeof(why));
	assert_int_equal(mf_smf70_decode(p, len, &r, why, sizeof(why)), -1);
	print_message("  why: %s\n", why);
	assert_true(why[0] != 0);
	snprintf(list, sizeof(list), "%s", words);
	for (w = strtok_r(list, "|", &save); w; w = strtok_r(NULL, "|", &save))
		if (strstr(why, w))
			found = 1;
	if (!found)
		fail_msg("why \"%s\" names none of %s", why, words);
	mf_smf70_free(&r);
}

/*
 * SMF70TRN = 6: no CPU-identification section, so no type names.  With SMF70CIX 0 ("no information")
 * every logical processor decodes with pool MF_POOL_NONE and an empty type.  A non-zero CIX that no
 * CIS section resolves makes the decoder refuse the whole record (what smf70.c does today; pinned
 * here so that a change is deliberate).
 */
static void smf70_no_cis(void **state)
{
	struct lp70 lps[N(lps_std)];
	struct spec70 s = spec_std();
	struct mf_smf70 r;
	size_t len, i;
	(void)state;
	memset(&r, 0, sizeof(r));
	memcpy(lps, lps_std, sizeof(lps));
	for (i = 0; i < N(lps); i++)
		lps[i].cix = 0;
	s.lps = lps;
	s.trn = 6;
	len = build70(rec, sizeof(rec), &s, NULL);
	assert_int_equal(len, 76 + 104 + 404 + 5 * 92 + 3 * 84 + 11 * 96);
	decode_ok(rec, len, &r);
	assert_int_equal(r.own, 1);
	assert_int_equal(r.machine_type, 3931);
	assert_int_equal(r.start_us, START_UTC);
	check_lpars(&r, &s);
	check_lcpus(&r, &s, NULL); /* pool MF_POOL_NONE, type "" */
	for (i = 0; i < r.nlcpus; i++) {
		assert_int_equal(r.lcpus[i].pool, MF_POOL_NONE);
		assert_string_equal(r.lcpus[i].type, "");
	}
	check_cpus_std(&r);
	mf_smf70_free(&r);
}

static void smf70_cix_unresolved(void **state)
{
	struct spec70 s = spec_std();
	struct where70 w;
	size_t len, i;
	(void)state;
	/* TRN 6 and CIX 1..5: no type names in the record, so no pool; the rest decodes */
	s.trn = 6;
	len = build70(rec, sizeof(rec), &s, NULL);
	{
		struct mf_smf70 r;
		memset(&r, 0, sizeof(r));
		decode_ok(rec, len, &r);
		for (i = 0; i < r.nlcpus; i++) {
			assert_int_equal(r.lcpus[i].pool, MF_POOL_NONE);
			assert_string_equal(r.lcpus[i].type, "");
		}
		assert_int_equal(r.nlpars, 3);
		mf_smf70_free(&r);
	}
	/* TRN 9: CIX 6 with 5 CIS sections */
	s.trn = 9;
	len = build70(rec, sizeof(rec), &s, &w);
	put16(rec + w.bvs + 4 * 96 + 14, 6);
	expect_bad(rec, len, "index|CIX");
}

/* SMF70RAN 1: a broken record; SMF70MTID of the own partition non-zero: MT, no address links. */
static void smf70_broken_mt(void **state)
{
	struct spec70 s = spec_std();
	struct where70 w;
	struct mf_smf70 r;
	size_t len, i;
	(void)state;
	memset(&r, 0, sizeof(r));
	s.ran = 1;
	len = build70(rec, sizeof(rec), &s, &w);
	decode_ok(rec, len, &r);
	assert_true(r.broken);
	assert_false(r.mt);
	s.ran = 0;
	len = build70(rec, sizeof(rec), &s, &w);
	rec[w.bcs + 84 + 59] = 2; /* SYSALP: SMF70MTID 2 */
	decode_ok(rec, len, &r);
	assert_false(r.broken);
	assert_true(r.mt);
	assert_int_equal(r.own, 1);
	for (i = 0; i < r.ncpus; i++)
		assert_int_equal(r.cpus[i].lcpu, -1);
	/* MTID of another partition does not count */
	len = build70(rec, sizeof(rec), &s, &w);
	rec[w.bcs + 59] = 2; /* PROD1 */
	decode_ok(rec, len, &r);
	assert_false(r.mt);
	check_cpus_std(&r);
	mf_smf70_free(&r);
}

/* One struct over several records: big, small, bad, big again. */
static void smf70_reuse(void **state)
{
	static const struct lp70 lps[] = {{7, CIX_IIP, 25, POL_VM, 5, 6}};
	static const struct part70 parts[] = {{"SMALL", 4, 0, 1, 0x2000}};
	static const struct cpu70 cpus[] = {{7, 2, 0x09}};
	struct spec70 s = spec_std(), t = spec_std();
	struct mf_smf70 r;
	char why[256];
	size_t len;
	(void)state;
	memset(&r, 0, sizeof(r));
	len = build70(rec, sizeof(rec), &s, NULL);
	decode_ok(rec, len, &r);
	assert_int_equal(r.nlcpus, 11);

	t.sid = "SYSB";
	t.ptn = 4;
	t.lps = lps;
	t.nlps = 1;
	t.parts = parts;
	t.nparts = 1;
	t.cpus = cpus;
	t.ncpus = 1;
	len = build70(rec, sizeof(rec), &t, NULL);
	decode_ok(rec, len, &r);
	assert_string_equal(r.system, "SYSB");
	assert_int_equal(r.ncpus, 1);
	assert_int_equal(r.nlpars, 1);
	assert_int_equal(r.own, 0);
	check_lcpus(&r, &t, cis_std);
	assert_int_equal(r.cpus[0].lcpu, 0);

	rec[22 + 1] = 2; /* subtype 2 */
	assert_int_equal(mf_smf70_decode(rec, len, &r, why, sizeof(why)), -1);

	len = build70(rec, sizeof(rec), &s, NULL);
	decode_ok(rec, len, &r);
	assert_string_equal(r.system, "SYSA");
	check_lpars(&r, &s);
	check_lcpus(&r, &s, cis_std);
	check_cpus_std(&r);
	mf_smf70_free(&r);
	mf_smf70_free(&r); /* twice is harmless */
}

/* ---- case 4: errors ------------------------------------------------------ */

static void smf70_bad_triplet(void **state)
{
	struct spec70 s = spec_std();
	struct where70 w;
	size_t len;
	(void)state;
	len = build70(rec, sizeof(rec), &s, &w);
	/* one logical processor section more than the record holds (and the CIS after it) */
	put16(rec + 68 + 6, 11 + 2);
	expect_bad(rec, len, "68|SMF70BV|logical processor");
	/* the CPU-identification sections run 1 byte past the end */
	len = build70(rec, sizeof(rec), &s, &w);
	put32(rec + 76, (uint32_t)(w.cns + 1));
	expect_bad(rec, len, "76|SMF70CN|identification");
	/* the partition sections: 3 x 84 bytes from 50 bytes before the end */
	len = build70(rec, sizeof(rec), &s, &w);
	put32(rec + 60, (uint32_t)(len - 50));
	expect_bad(rec, len, "60|SMF70BC|partition");
}

static void smf70_bad_partition(void **state)
{
	struct spec70 s = spec_std();
	struct where70 w;
	size_t len;
	(void)state;
	len = build70(rec, sizeof(rec), &s, &w);
	/* LINUX1: BDS 8 + BDN 4 > 11 logical processor sections */
	put16(rec + w.bcs + 2 * 84 + 10, 4);
	expect_bad(rec, len, "BDN|BDS|LINUX1|partition");
	/* PROD1: BDS past every section */
	len = build70(rec, sizeof(rec), &s, &w);
	put32(rec + w.bcs + 12, 12);
	expect_bad(rec, len, "BDN|BDS|PROD1|partition");
}

static void smf70_bad_short(void **state)
{
	struct spec70 s = spec_std();
	size_t len;
	(void)state;
	len = build70(rec, sizeof(rec), &s, NULL);
	(void)len;
	/* shorter than the standard header */
	put16(rec, 20);
	expect_bad(rec, 20, "20|28|short|header");
	/* the standard header, but not the 9 triplets SMF70TRN announces */
	put16(rec, 60);
	expect_bad(rec, 60, "60|100|triplet|TRN|short|header");
}

static void smf70_bad_subtype(void **state)
{
	struct spec70 s = spec_std();
	size_t len;
	(void)state;
	s.sty = 2;
	len = build70(rec, sizeof(rec), &s, NULL);
	expect_bad(rec, len, "subtype|STY|2");
	/* and a record that is not type 70 at all */
	s.sty = 1;
	len = build70(rec, sizeof(rec), &s, NULL);
	rec[5] = 72;
	expect_bad(rec, len, "type|72|RTY");
}

static void smf70_bad_date(void **state)
{
	struct spec70 s = spec_std();
	struct where70 w;
	size_t len;
	(void)state;
	len = build70(rec, sizeof(rec), &s, &w);
	rec[w.prs + 16] = 0xA0; /* X'0125A00F': a digit nibble of 10 */
	expect_bad(rec, len, "DAT|date|114");
	len = build70(rec, sizeof(rec), &s, &w);
	rec[w.prs + 17] = 0x0C; /* X'0125100C': sign nibble not F */
	expect_bad(rec, len, "DAT|date|114");
	s.dat = "0125367"; /* day 367 */
	len = build70(rec, sizeof(rec), &s, &w);
	expect_bad(rec, len, "DAT|date|114");
	/* a start time of 14:60:00 and an interval of 15:6x */
	s.dat = "0125100";
	s.ist = "0146000";
	len = build70(rec, sizeof(rec), &s, &w);
	expect_bad(rec, len, "IST|time|110");
	s.ist = "0143000";
	len = build70(rec, sizeof(rec), &s, &w);
	rec[w.prs + 19] = 0x6A; /* X'156A000F' */
	expect_bad(rec, len, "INT|interval|118");
}

/* ---- case 5: SMF 99 subtype 14 ----------------------------------------- */

struct cpu99 {
	unsigned cpu, type, pol, levels, flags;
	unsigned nl[5];
};

static const struct cpu99 cpus99[] = {
	{0, 0, POL_VH, 3, 0x00, {2, 5, 1, 0, 0}}, {1, 0, POL_VM, 3, 0x00, {3, 6, 1, 0, 0}},
	{2, 0, POL_VL, 3, 0x00, {4, 7, 2, 0, 0}}, {3, 5, POL_VM, 3, 0x00, {2, 5, 1, 0, 0}},
	{4, 5, POL_VL, 3, 0x00, {8, 9, 3, 0, 0}}, {5, 0, POL_HZ, 3, 0x80, {6, 4, 2, 0, 0}},
};

#define TOPO_US INT64_C(1744288496789012) /* 2025-04-10T12:34:56.789012Z */

/* Offsets of the SMF 99.14 record the builder makes. */
enum { R99_PROD = 44, R99_MAP = 76, R99_HDR = 124, R99_CPU = 156, R99_CPULEN = 24 };

static size_t build99(unsigned char *p, size_t cap, const struct cpu99 *c, size_t n, const char *sid)
{
	size_t at, i;
	memset(p, 0, cap);
	assert_true(R99_CPU + n * R99_CPULEN <= cap);
	/* 8.1 header */
	p[4] = 0x5E;
	p[5] = 99;
	put32(p + 6, 5229678u);
	put_packed(p + 10, "0125100", 4);
	put_ebcdic(p + 14, sid, 4);
	put_ebcdic(p + 18, "SRM", 4);
	put16(p + 22, 14);
	put32(p + 24, 16);
	/* 8.2 self-defining section */
	put32(p + 28, R99_PROD);
	put16(p + 32, 32);
	put16(p + 34, 1);
	put32(p + 36, R99_MAP);
	put16(p + 40, 48);
	put16(p + 42, 1);
	/* product section */
	put16(p + R99_PROD + 0, 1);
	put_ebcdic(p + R99_PROD + 2, "01", 2);
	put_ebcdic(p + R99_PROD + 4, "SRM", 8);
	put_ebcdic(p + R99_PROD + 12, "Z3010000", 8);
	put_ebcdic(p + R99_PROD + 20, sid, 8);
	put32(p + R99_PROD + 28, 0);
	/* 8.3 subtype-14 triplet map */
	put32(p + R99_MAP + 0, R99_HDR);
	put16(p + R99_MAP + 4, 32);
	put16(p + R99_MAP + 6, 1);
	memset(p + R99_MAP + 8, 0xEE, 8); /* not mapped */
	put32(p + R99_MAP + 16, R99_CPU);
	put16(p + R99_MAP + 20, R99_CPULEN);
	put16(p + R99_MAP + 22, (unsigned)n);
	/* node, MPWQ and MPWQ helper node: none */
	/* 8.4 header data section */
	put32(p + R99_HDR + 0, 4242);
	p[R99_HDR + 4] = 0x80;
	p[R99_HDR + 5] = 0xC0;
	p[R99_HDR + 11] = 4;
	put32(p + R99_HDR + 12, 5 * 256);
	put16(p + R99_HDR + 16, 8);
	put16(p + R99_HDR + 18, 15);
	put32(p + R99_HDR + 20, 7);
	put64(p + R99_HDR + 24, tod_of_unix_us(TOPO_US));
	/* 8.5 processor data sections */
	at = R99_CPU;
	for (i = 0; i < n; i++) {
		unsigned char *e = p + at;
		size_t k;
		put16(e + 0, c[i].cpu);
		memset(e + 2, 0xDD, 6); /* not mapped */
		e[8] = (unsigned char)c[i].type;
		e[9] = (unsigned char)(0xA4 | c[i].pol); /* other MISC bits set: only X'03' counts */
		e[10] = 0x77;                            /* older-style NL2, NL1: not the containers */
		e[11] = 0x66;
		put32(e + 12, 1000000);
		e[16] = (unsigned char)c[i].levels;
		e[17] = (unsigned char)c[i].flags;
		for (k = 0; k < 5; k++)
			e[18 + k] = (unsigned char)c[i].nl[k];
		e[23] = 0xCC; /* the unmapped 24th byte */
		at += R99_CPULEN;
	}
	put16(p, (unsigned)at);
	return at;
}

static void smf99_topology(void **state)
{
	struct mf_smf99t t;
	char why[256] = "";
	size_t len, i;
	(void)state;
	memset(&t, 0, sizeof(t));
	len = build99(rec, sizeof(rec), cpus99, N(cpus99), "SYSA");
	assert_int_equal(len, 156 + 6 * 24);
	if (mf_smf99_14_decode(rec, len, &t, why, sizeof(why)) != 0)
		fail_msg("mf_smf99_14_decode: %s", why);
	assert_string_equal(t.system, "SYSA");
	assert_int_equal(t.time_us, TOPO_US);
	assert_int_equal(t.time_us, mf_tod_to_unix_us(tod_of_unix_us(TOPO_US)));
	assert_int_equal(t.ncpus, 6);
	for (i = 0; i < N(cpus99); i++) {
		const struct cpu99 *c = &cpus99[i];
		const struct mf_smf99_cpu *d = &t.cpus[i];
		assert_int_equal(d->cpu, c->cpu);
		assert_int_equal(d->type, c->type);
		assert_int_equal(d->polarity, expect_polarity(c->pol));
		if (c->flags & 0x80) {
			assert_int_equal(d->chip, -1);
			assert_int_equal(d->drawer, -1);
			assert_int_equal(d->levels, 0); /* smf70.c: no levels without topology */
			continue;
		}
		assert_int_equal(d->levels, 3);
		assert_int_equal(d->nl[0], c->nl[0]);
		assert_int_equal(d->nl[1], c->nl[1]);
		assert_int_equal(d->nl[2], c->nl[2]);
		assert_int_equal(d->chip, (int32_t)c->nl[0]);
		assert_int_equal(d->drawer, (int32_t)c->nl[2]);
	}
	assert_int_equal(t.cpus[0].polarity, MF_POL_VH);
	assert_int_equal(t.cpus[1].polarity, MF_POL_VM);
	assert_int_equal(t.cpus[2].polarity, MF_POL_VL);
	assert_int_equal(t.cpus[5].polarity, MF_POL_HZ); /* code 0: horizontal (smf70.c) */
	assert_int_equal(t.cpus[3].type, 5);
	assert_int_equal(t.cpus[4].chip, 8);
	assert_int_equal(t.cpus[4].drawer, 3);
	mf_smf99t_free(&t);
}

/* Fewer levels in use: the drawer is the highest one given; none: no topology. */
static void smf99_levels(void **state)
{
	static const struct cpu99 c[] = {
		{0, 0, POL_VH, 2, 0x00, {4, 1, 9, 9, 9}},
		{1, 0, POL_VM, 5, 0x00, {1, 2, 3, 4, 5}},
		{2, 5, POL_VL, 0, 0x00, {0, 0, 0, 0, 0}},
	};
	struct mf_smf99t t;
	char why[256] = "";
	size_t len;
	(void)state;
	memset(&t, 0, sizeof(t));
	len = build99(rec, sizeof(rec), c, N(c), "SYSB");
	if (mf_smf99_14_decode(rec, len, &t, why, sizeof(why)) != 0)
		fail_msg("mf_smf99_14_decode: %s", why);
	assert_string_equal(t.system, "SYSB");
	assert_int_equal(t.ncpus, 3);
	assert_int_equal(t.cpus[0].levels, 2);
	assert_int_equal(t.cpus[0].chip, 4);
	assert_int_equal(t.cpus[0].drawer, 1);
	assert_int_equal(t.cpus[1].levels, 5);
	assert_int_equal(t.cpus[1].chip, 1);
	assert_int_equal(t.cpus[1].drawer, 5);
	assert_int_equal(t.cpus[1].nl[4], 5);
	assert_int_equal(t.cpus[2].levels, 0);
	assert_int_equal(t.cpus[2].chip, -1);
	assert_int_equal(t.cpus[2].drawer, -1);
	mf_smf99t_free(&t);
}

static void expect_bad99(const unsigned char *p, size_t len, const char *what)
{
	struct mf_smf99t t;
	char why[256];
	memset(&t, 0, sizeof(t));
	memset(why, 0, sizeof(why));
	assert_int_equal(mf_smf99_14_decode(p, len, &t, why, sizeof(why)), -1);
	print_message("  %s: %s\n", what, why);
	assert_true(why[0] != 0);
	mf_smf99t_free(&t);
}

static void smf99_bad(void **state)
{
	size_t len;
	(void)state;
	len = build99(rec, sizeof(rec), cpus99, N(cpus99), "SYSA");
	rec[23] = 13;
	expect_bad99(rec, len, "subtype 13");
	len = build99(rec, sizeof(rec), cpus99, N(cpus99), "SYSA");
	put16(rec + R99_MAP + 22, 7); /* one processor entry more than the record holds */
	expect_bad99(rec, len, "processor entries past the end");
	len = build99(rec, sizeof(rec), cpus99, N(cpus99), "SYSA");
	put32(rec + 36, (uint32_t)len - 20); /* the triplet map runs past the end */
	expect_bad99(rec, len, "map past the end");
	len = build99(rec, sizeof(rec), cpus99, N(cpus99), "SYSA");
	put16(rec, 30);
	expect_bad99(rec, 30, "shorter than the self-defining section");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(smf70_zos31),          cmocka_unit_test(smf70_pool_names),
		cmocka_unit_test(smf70_own_missing),    cmocka_unit_test(smf70_times_east),
		cmocka_unit_test(smf70_times_west),     cmocka_unit_test(smf70_times_dates),
		cmocka_unit_test(smf70_short_sections), cmocka_unit_test(smf70_long_sections),
		cmocka_unit_test(smf70_no_cis),         cmocka_unit_test(smf70_cix_unresolved),
		cmocka_unit_test(smf70_broken_mt),      cmocka_unit_test(smf70_reuse),
		cmocka_unit_test(smf70_bad_triplet),    cmocka_unit_test(smf70_bad_partition),
		cmocka_unit_test(smf70_bad_short),      cmocka_unit_test(smf70_bad_subtype),
		cmocka_unit_test(smf70_bad_date),       cmocka_unit_test(smf99_topology),
		cmocka_unit_test(smf99_levels),         cmocka_unit_test(smf99_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
