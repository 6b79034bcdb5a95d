/* SPDX-License-Identifier: MIT */
/*
 * SMF type 70 subtype 1 (RMF CPU activity) and type 99 subtype 14 (HiperDispatch
 * topology), decoded as docs/smf70-layout.md maps them.  Every section is found
 * through its triplet and every field is read only when its section is long
 * enough to hold it, so records of older and newer releases (shorter or longer
 * sections) decode alike.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/input/sample.h"
#include "smf_int.h"

/* The offsets this reader uses (docs/smf70-layout.md). */
enum {
	R70_TRN = 24,      /* number of triplets */
	R70_TRIPLETS = 28, /* first triplet: product section */
	T_PRODUCT = 0,     /* triplet indexes */
	T_CONTROL = 1,
	T_CPU = 2,
	T_PARTITION = 4,
	T_LPROC = 5,
	T_CIS = 6,
	T_CORE = 7,
	/* product section */
	PR_IST = 10,
	PR_DAT = 14,
	PR_INT = 18,
	PR_PTN = 50,
	PR_LGO = 60,
	PR_RAN = 74,
	/* CPU control section */
	CC_MOD = 0,
	CC_MDL = 8,
	CC_CSC = 78,
	/* CPU data section */
	CPU_CID = 8,
	CPU_CNF = 10,
	CPU_TYP = 15,
	/* partition data section */
	PA_LPM = 0,
	PA_LPN = 8,
	PA_BDN = 10,
	PA_BDS = 12,
	PA_MTID = 59,
	/* logical processor data section */
	LP_PDT = 0,
	LP_VPA = 8,
	LP_BPS = 10,
	LP_POF = 13,
	LP_CIX = 14,
	LP_ONT = 40,
	/* CPU-identification name section */
	CIS_CIN = 0
};

static int fail(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	if (n) {
		va_start(ap, fmt);
		vsnprintf(why, n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* A section array located by its triplet: offset, length of one, number. */
struct tri {
	uint32_t off;
	unsigned len, num;
};

static bool inside(size_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off;
}

static int triplet(const unsigned char *rec, size_t len, size_t at, struct tri *t, const char *what, char *why,
		   size_t n)
{
	t->off = u32(rec + at);
	t->len = u16(rec + at + 4);
	t->num = u16(rec + at + 6);
	if (t->num && (t->len == 0 || !inside(len, t->off, (uint64_t)t->len * t->num)))
		return fail(why, n,
			    "%s sections (triplet at offset %zu: offset %u, %u x %u bytes) lie outside the record",
			    what, at, (unsigned)t->off, t->num, t->len);
	return 0;
}

/*
 * 0hhmmssF as four bytes: X'0h' X'hm' X'ms' X'sF' (one digit per nibble, a zero nibble first):
 * hours are nibbles 1-2, minutes 3-4, seconds 5-6, the sign nibble 7.
 */
/* The eight nibbles of a packed field p[0..4): 1 when the first seven are digits and the last the sign F. */
static int nibbles(const unsigned char *p, unsigned d[8])
{
	unsigned i;
	for (i = 0; i < 4; i++) {
		d[2 * i] = p[i] >> 4;
		d[2 * i + 1] = p[i] & 15;
	}
	for (i = 0; i < 7; i++)
		if (d[i] > 9)
			return 0;
	return d[7] == 15;
}

static int64_t hms_seconds(const unsigned char *p)
{
	unsigned d[8];
	if (!nibbles(p, d) || d[0] != 0)
		return -1;
	{
		unsigned h = d[1] * 10 + d[2], m = d[3] * 10 + d[4], s = d[5] * 10 + d[6];
		if (h > 23 || m > 59 || s > 60)
			return -1;
		return (int64_t)h * 3600 + m * 60 + s;
	}
}

/* SMF70INT mmsstttF: milliseconds, or -1. */
static int64_t mst_ms(const unsigned char *p)
{
	unsigned d[8];
	if (!nibbles(p, d))
		return -1;
	{
		unsigned m = d[0] * 10 + d[1], s = d[2] * 10 + d[3], t = d[4] * 100 + d[5] * 10 + d[6];
		if (s > 59)
			return -1;
		return ((int64_t)m * 60 + s) * 1000 + t;
	}
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap;
	void *np;
	if (need <= c)
		return p;
	while (c < need)
		c = c ? c * 2 : 16;
	np = realloc(p, c * size);
	if (np)
		*cap = c;
	return np;
}

static int pool_of_name(const char *name)
{
	static const struct {
		const char *name;
		int pool;
	} names[] = {{"CP", MF_POOL_GCP},  {"IIP", MF_POOL_ZIIP},  {"AAP", MF_POOL_ZAAP}, {"IFL", MF_POOL_IFL},
		     {"ICF", MF_POOL_ICF}, {"ZIIP", MF_POOL_ZIIP}, {"ZAAP", MF_POOL_ZAAP}};
	size_t i;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(names[i].name, name) == 0)
			return names[i].pool;
	return MF_POOL_NONE;
}

/* SMF70POI / SMF99E_CP_POLAR: 3 vertical high, 2 medium, 1 low, 0 horizontal (or not indicated). */
static int polarity_of(unsigned code)
{
	static const int pol[4] = {MF_POL_HZ, MF_POL_VL, MF_POL_VM, MF_POL_VH};
	return pol[code & 3];
}

void mf_smf70_free(struct mf_smf70 *r)
{
	if (!r)
		return;
	free(r->cpus);
	free(r->lpars);
	free(r->lcpus);
	memset(r, 0, sizeof(*r));
}

static int decode_lprocs(const unsigned char *rec, const struct tri *lp, const struct tri *cis, struct mf_smf70 *r,
			 char *why, size_t n)
{
	unsigned i;
	struct mf_smf70_lcpu *l = grow(r->lcpus, &r->caplcpus, lp->num ? lp->num : 1, sizeof(*l));
	if (!l)
		return fail(why, n, "out of memory while decoding %u logical processors", lp->num);
	r->lcpus = l;
	r->nlcpus = lp->num;
	for (i = 0; i < lp->num; i++) {
		const unsigned char *e = rec + lp->off + (size_t)i * lp->len;
		unsigned cix;
		memset(&l[i], 0, sizeof(l[i]));
		if (lp->len < LP_CIX + 2)
			return fail(why, n,
				    "logical processor sections of %u bytes are too short (at least %u expected)",
				    lp->len, LP_CIX + 2);
		l[i].dispatch_us = u64(e + LP_PDT);
		l[i].address = u16(e + LP_VPA);
		l[i].weight = u16(e + LP_BPS);
		l[i].dedicated = l[i].weight == 0xFFFF;
		if (l[i].dedicated)
			l[i].weight = 0;
		l[i].polarity = polarity_of(e[LP_POF] >> 6);
		if (lp->len >= LP_ONT + 8)
			l[i].online_us = u64(e + LP_ONT);
		cix = u16(e + LP_CIX);
		l[i].pool = MF_POOL_NONE;
		if (cix >= 1 && cix <= cis->num && cis->len >= 16) {
			mf_smf_ebcdic(rec + cis->off + (size_t)(cix - 1) * cis->len + CIS_CIN, 16, l[i].type);
			l[i].pool = pool_of_name(l[i].type);
		} else if (cix > cis->num && cis->num) {
			return fail(why, n,
				    "logical processor section %u (offset %zu): processor type index %u beyond the %u "
				    "CPU-identification sections",
				    i + 1, (size_t)(e - rec), cix, cis->num);
		}
	}
	return 0;
}

static int decode_partitions(const unsigned char *rec, const struct tri *pa, const struct tri *lp, struct mf_smf70 *r,
			     char *why, size_t n)
{
	unsigned i;
	struct mf_smf70_lpar *p = grow(r->lpars, &r->caplpars, pa->num ? pa->num : 1, sizeof(*p));
	if (!p)
		return fail(why, n, "out of memory while decoding %u partitions", pa->num);
	r->lpars = p;
	r->nlpars = pa->num;
	r->own = -1;
	r->mt = false;
	if (pa->num && pa->len < PA_BDS + 4)
		return fail(why, n, "partition data sections of %u bytes are too short (at least %u expected)", pa->len,
			    PA_BDS + 4);
	for (i = 0; i < pa->num; i++) {
		const unsigned char *e = rec + pa->off + (size_t)i * pa->len;
		uint32_t bds = u32(e + PA_BDS);
		unsigned bdn = u16(e + PA_BDN);
		mf_smf_ebcdic(e + PA_LPM, 8, p[i].name);
		p[i].number = e[PA_LPN];
		if ((uint64_t)bds + bdn > lp->num)
			return fail(why, n,
				    "partition %s (section %u, offset %zu): logical processors %u to %u, but the "
				    "record has %u",
				    p[i].name, i + 1, (size_t)(e - rec), (unsigned)bds + 1, (unsigned)bds + bdn,
				    lp->num);
		p[i].first = bds;
		p[i].n = bdn;
		if (p[i].number == r->own_number && r->own < 0 && strcmp(p[i].name, "PHYSICAL") != 0) {
			r->own = (long)i;
			r->mt = pa->len > PA_MTID && e[PA_MTID] != 0;
		}
	}
	return 0;
}

static int decode_cpus(const unsigned char *rec, const struct tri *cp, struct mf_smf70 *r, char *why, size_t n)
{
	unsigned i;
	struct mf_smf70_cpu *c = grow(r->cpus, &r->capcpus, cp->num ? cp->num : 1, sizeof(*c));
	if (!c)
		return fail(why, n, "out of memory while decoding %u CPUs", cp->num);
	r->cpus = c;
	r->ncpus = cp->num;
	if (cp->num && cp->len < CPU_TYP + 1)
		return fail(why, n, "CPU data sections of %u bytes are too short (at least %u expected)", cp->len,
			    CPU_TYP + 1);
	for (i = 0; i < cp->num; i++) {
		const unsigned char *e = rec + cp->off + (size_t)i * cp->len;
		static const int pools[3] = {MF_POOL_GCP, MF_POOL_ZAAP, MF_POOL_ZIIP};
		size_t k;
		c[i].id = u16(e + CPU_CID);
		c[i].pool = e[CPU_TYP] < 3 ? pools[e[CPU_TYP]] : MF_POOL_NONE;
		c[i].online = (e[CPU_CNF] & 0x01) != 0;
		c[i].invalid = (e[CPU_CNF] & 0x02) != 0;
		c[i].lcpu = -1;
		/* Its logical processor: the own LPAR's with the same address (not with MT: those are cores). */
		if (r->own >= 0 && !r->mt) {
			const struct mf_smf70_lpar *o = &r->lpars[r->own];
			for (k = o->first; k < o->first + o->n; k++)
				if (r->lcpus[k].address == c[i].id) {
					c[i].lcpu = (long)k;
					break;
				}
		}
	}
	return 0;
}

int mf_smf70_decode(const unsigned char *rec, size_t len, struct mf_smf70 *r, char *why, size_t n)
{
	struct tri t[8];
	unsigned trn, k;
	const unsigned char *pr, *cc;
	int64_t secs, ms, lgo_us;
	static const char *const names[8] = {"product",
					     "CPU control",
					     "CPU data",
					     "ASID data",
					     "PR/SM partition data",
					     "PR/SM logical processor data",
					     "CPU-identification name",
					     "logical core data"};

	r->ncpus = r->nlpars = r->nlcpus = 0;
	r->own = -1;
	if (len < R70_TRIPLETS + 8 * 6)
		return fail(why, n, "type 70 record of %zu bytes is too short (at least %d expected)", len,
			    R70_TRIPLETS + 8 * 6);
	if (u16(rec) != len)
		return fail(why, n, "record length field %u disagrees with its descriptor (%zu)", u16(rec), len);
	if (rec[5] != 70 || u16(rec + 22) != 1)
		return fail(why, n, "not a type 70 subtype 1 record (type %u subtype %u)", rec[5], u16(rec + 22));
	mf_smf_ebcdic(rec + 14, 4, r->system);
	trn = u16(rec + R70_TRN);
	if (trn < 6)
		return fail(why, n, "%u triplets at offset 24 (at least 6 expected: product to logical processor data)",
			    trn);
	memset(t, 0, sizeof(t));
	for (k = 0; k < 8 && k < trn; k++) {
		if (R70_TRIPLETS + 8 * (k + 1) > len)
			break;
		if (triplet(rec, len, R70_TRIPLETS + 8 * k, &t[k], names[k], why, n))
			return -1;
		/* A section inside the header and its triplets is a broken triplet. */
		if (t[k].num && t[k].off < R70_TRIPLETS + 8 * (size_t)trn)
			return fail(why, n, "%s sections at offset %u overlap the header (%u bytes with its triplets)",
				    names[k], (unsigned)t[k].off, R70_TRIPLETS + 8 * trn);
	}
	/* Product section: the interval. */
	if (t[T_PRODUCT].num != 1 || t[T_PRODUCT].len < PR_LGO + 8)
		return fail(why, n, "product section (offset %u, %u x %u bytes): one of at least %d bytes expected",
			    (unsigned)t[T_PRODUCT].off, t[T_PRODUCT].num, t[T_PRODUCT].len, PR_LGO + 8);
	pr = rec + t[T_PRODUCT].off;
	if (!mf_smf_date_ok(pr + PR_DAT))
		return fail(why, n, "interval start date SMF70DAT at offset %u is not a packed date 0cyydddF",
			    (unsigned)t[T_PRODUCT].off + PR_DAT);
	secs = hms_seconds(pr + PR_IST);
	if (secs < 0)
		return fail(why, n, "interval start time SMF70IST at offset %u is not a packed time 0hhmmssF",
			    (unsigned)t[T_PRODUCT].off + PR_IST);
	ms = mst_ms(pr + PR_INT);
	if (ms <= 0)
		return fail(why, n, "interval length SMF70INT at offset %u is not a packed length mmsstttF above zero",
			    (unsigned)t[T_PRODUCT].off + PR_INT);
	lgo_us = (int64_t)u64(pr + PR_LGO) >> 12; /* signed TOD units: bit 51 is a microsecond */
	if (lgo_us < -INT64_C(15) * 3600000000 || lgo_us > INT64_C(15) * 3600000000)
		return fail(why, n, "local time offset SMF70LGO at offset %u is beyond 15 hours",
			    (unsigned)t[T_PRODUCT].off + PR_LGO);
	r->local_start_us = mf_smf_date_us(pr + PR_DAT) + secs * 1000000;
	r->start_us = r->local_start_us - lgo_us;
	r->end_us = r->start_us + ms * 1000;
	r->own_number = pr[PR_PTN];
	r->broken = t[T_PRODUCT].len >= PR_RAN + 2 && u16(pr + PR_RAN) != 0;
	/* CPU control section: the machine. */
	r->machine_type = 0;
	r->model[0] = r->serial[0] = '\0';
	if (t[T_CONTROL].num >= 1 && t[T_CONTROL].len >= CC_MDL + 16) {
		unsigned mod;
		cc = rec + t[T_CONTROL].off;
		mod = u16(cc + CC_MOD);
		/* X'3931' reads as the decimal 3931: four hex digits that are decimal digits. */
		r->machine_type =
			((mod >> 12) & 15) * 1000 + ((mod >> 8) & 15) * 100 + ((mod >> 4) & 15) * 10 + (mod & 15);
		mf_smf_ebcdic(cc + CC_MDL, 16, r->model);
		if (t[T_CONTROL].len >= CC_CSC + 16)
			mf_smf_ebcdic(cc + CC_CSC, 16, r->serial);
	}
	if (decode_lprocs(rec, &t[T_LPROC], &t[T_CIS], r, why, n) ||
	    decode_partitions(rec, &t[T_PARTITION], &t[T_LPROC], r, why, n) || decode_cpus(rec, &t[T_CPU], r, why, n))
		return -1;
	return 0;
}

/* ---- SMF 99 subtype 14 ---- */

enum {
	R99_TID = 22,
	R99_SDEF = 28,   /* self-defining section: POF PLN PON, DOF DLN DON */
	S14_CPU = 16,    /* processor triplet in the S14 map */
	S14_HDR = 0,     /* header data triplet */
	HD_TOPO_TOD = 24 /* in the header data section */
};

void mf_smf99t_free(struct mf_smf99t *t)
{
	if (!t)
		return;
	free(t->cpus);
	memset(t, 0, sizeof(*t));
}

int mf_smf99_14_decode(const unsigned char *rec, size_t len, struct mf_smf99t *t, char *why, size_t n)
{
	struct tri data, cpu, hdr;
	const unsigned char *map;
	unsigned i;
	struct mf_smf99_cpu *c;

	t->ncpus = 0;
	t->time_us = 0;
	if (len < R99_SDEF + 16)
		return fail(why, n, "type 99 record of %zu bytes is too short (at least %d expected)", len,
			    R99_SDEF + 16);
	if (u16(rec) != len)
		return fail(why, n, "record length field %u disagrees with its descriptor (%zu)", u16(rec), len);
	if (rec[5] != 99 || u16(rec + R99_TID) != 14)
		return fail(why, n, "not a type 99 subtype 14 record (type %u subtype %u)", rec[5], u16(rec + R99_TID));
	mf_smf_ebcdic(rec + 14, 4, t->system);
	if (triplet(rec, len, R99_SDEF + 8, &data, "data", why, n))
		return -1;
	if (data.num < 1 || data.len < S14_CPU + 8)
		return fail(why, n, "data section (offset %u, %u x %u bytes): a subtype 14 map of %d bytes expected",
			    (unsigned)data.off, data.num, data.len, S14_CPU + 8);
	map = rec + data.off;
	if (triplet(rec, len, (size_t)(map - rec) + S14_HDR, &hdr, "header data", why, n) ||
	    triplet(rec, len, (size_t)(map - rec) + S14_CPU, &cpu, "processor data", why, n))
		return -1;
	if (hdr.num >= 1 && hdr.len >= HD_TOPO_TOD + 8) {
		uint64_t tod = u64(rec + hdr.off + HD_TOPO_TOD);
		if (tod)
			t->time_us = mf_tod_to_unix_us(tod);
	}
	if (cpu.num && cpu.len < 23)
		return fail(why, n, "processor data sections of %u bytes are too short (23 expected)", cpu.len);
	c = grow(t->cpus, &t->capcpus, cpu.num ? cpu.num : 1, sizeof(*c));
	if (!c)
		return fail(why, n, "out of memory while decoding %u CPUs of the topology", cpu.num);
	t->cpus = c;
	t->ncpus = cpu.num;
	for (i = 0; i < cpu.num; i++) {
		const unsigned char *e = rec + cpu.off + (size_t)i * cpu.len;
		unsigned k;
		memset(&c[i], 0, sizeof(c[i]));
		c[i].cpu = u16(e);
		c[i].type = e[8];
		c[i].polarity = polarity_of(e[9] & 3);
		c[i].levels = e[16] > 5 ? 5 : e[16];
		for (k = 0; k < 5; k++)
			c[i].nl[k] = e[18 + k];
		if ((e[17] & 0x80) || c[i].levels == 0) {
			c[i].levels = 0;
			c[i].chip = c[i].drawer = -1;
		} else {
			c[i].chip = (int32_t)c[i].nl[0];
			c[i].drawer = (int32_t)c[i].nl[c[i].levels - 1];
		}
	}
	return 0;
}
