/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_SMF_H
#define MFSTAT_SMF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"
#include "mfstat/kb/kb.h"

/*
 * z/OS SMF dumps: RDW streams and VBS blocks (BDW + SDW, spanned records),
 * plain, gzip or zstd.  Type 113 records (CPU-MF counters) are decoded; every
 * other record is skipped and counted by type.  The layout follows
 * smf113-layout.md (corrected from IBM's machine-readable map of the record);
 * its offsets are kept in one table in smf113.c and every record is
 * cross-checked (see README, "SMF type 113").
 */

/*
 * SMF type 70 subtype 1 (RMF CPU activity), decoded as docs/smf70-layout.md
 * maps it: the interval, the machine, the system's own LPAR and logical CPUs,
 * and the PR/SM view of every LPAR of the machine.
 */
struct mf_smf70_lcpu {        /* one logical processor of one LPAR (PR/SM logical processor section) */
	unsigned address;     /* SMF70VPA: the logical CPU address (a core id with MT) */
	int pool;             /* enum mf_pool from the type name (SMF70CIX -> SMF70CIN); MF_POOL_NONE: other */
	char type[17];        /* the type name as recorded ("CP", "IIP", "IFL", ...), blanks trimmed */
	int polarity;         /* enum mf_polarity (SMF70POF bits 0-1) */
	bool dedicated;       /* SMF70BPS X'FFFF' */
	unsigned weight;      /* SMF70BPS (0 when dedicated) */
	uint64_t dispatch_us; /* SMF70PDT: dispatch time in the interval, microseconds */
	uint64_t online_us;   /* SMF70ONT: online time in the interval, microseconds (0: not present) */
};

struct mf_smf70_lpar {   /* one LPAR of the machine (PR/SM partition data section) */
	char name[9];    /* SMF70LPM, blanks trimmed */
	unsigned number; /* SMF70LPN */
	size_t first, n; /* its logical processors: lcpus[first .. first + n) */
};

struct mf_smf70_cpu { /* one logical CPU of the system that wrote the record (CPU data section) */
	unsigned id;  /* SMF70CID: the CPU address, as SMF 113's CpuId */
	int pool;     /* SMF70TYP 0 CP, 1 zAAP, 2 zIIP */
	bool online;  /* SMF70CNF bit 7: online at the end of the interval */
	bool invalid; /* SMF70CNF bit 6: reconfigured in the interval, its data not valid */
	long lcpu;    /* index of its logical processor in lcpus (the own LPAR's, same address), -1: none */
};

struct mf_smf70 {
	char system[9];         /* SMF70SID */
	int64_t start_us;       /* interval start, Unix microseconds UTC (local start - SMF70LGO) */
	int64_t end_us;         /* start + SMF70INT */
	int64_t local_start_us; /* the local start (SMF70DAT, SMF70IST) as if UTC */
	bool broken;            /* SMF70RAN: one interval split over several records (not joined) */
	bool mt;                /* the own LPAR runs with multithreading (SMF70MTID): addresses are cores */
	unsigned machine_type;  /* SMF70MOD as a decimal number (X'3931' -> 3931) */
	char model[17];         /* SMF70MDL */
	char serial[17];        /* SMF70CSC, leading zeros kept */
	unsigned own_number;    /* SMF70PTN */
	long own;               /* index of the own LPAR in lpars, -1 if not found */
	size_t ncpus, nlpars, nlcpus;
	struct mf_smf70_cpu *cpus;
	struct mf_smf70_lpar *lpars;
	struct mf_smf70_lcpu *lcpus;
	size_t capcpus, caplpars, caplcpus; /* the arrays are reused from record to record */
};

/*
 * Decodes the type 70 subtype 1 record rec[0..len) (RDW included) into r
 * (its arrays grow as needed and are kept for the next record).  Returns 0,
 * or -1 with why (at most n bytes) saying what is wrong and where.
 */
int mf_smf70_decode(const unsigned char *rec, size_t len, struct mf_smf70 *r, char *why, size_t n);
void mf_smf70_free(struct mf_smf70 *r);

/* SMF type 99 subtype 14 (HiperDispatch topology): where each logical CPU of the system sits. */
struct mf_smf99_cpu {
	unsigned cpu;    /* SMF99E_HD_TOPOCHG_CPU_INDEX: logical CPU (core with MT) number */
	unsigned type;   /* SMF99E_CP_CPUTYPE: 0 CP, 5 zIIP */
	int polarity;    /* enum mf_polarity (SMF99E_CP_POLAR) */
	unsigned levels; /* SMF99E_CP_CI_NLINUSE: container levels given, 0-5 */
	unsigned nl[5];  /* container id at nesting levels 1..5 */
	int32_t chip;    /* nesting level 1 container; -1 without topology */
	int32_t drawer;  /* the highest nesting level's container; -1 without topology */
};

struct mf_smf99t {
	char system[9];
	int64_t time_us; /* the topology's time (SMF99E_VCM_CURRTOPO_TOD), Unix microseconds UTC */
	size_t ncpus, capcpus;
	struct mf_smf99_cpu *cpus;
};

/* Decodes a type 99 subtype 14 record as mf_smf70_decode does type 70. */
int mf_smf99_14_decode(const unsigned char *rec, size_t len, struct mf_smf99t *t, char *why, size_t n);
void mf_smf99t_free(struct mf_smf99t *t);

/* One decoded type 113 record. */
struct mf_smf_record {
	int type;                     /* 113; with context records asked for, also 70 (rmf) and 99 (topo) */
	const struct mf_smf70 *rmf;   /* type 70 subtype 1: decoded (borrowed until the next call), or NULL */
	const struct mf_smf99t *topo; /* type 99 subtype 14: decoded, or NULL */
	const char *bad;              /* type 70 or 99: why it could not be decoded (then rmf/topo are NULL) */
	long long offset;             /* byte offset of the record in the (decompressed) file */
	const unsigned char *raw; /* type 70 and 99: the logical record, RDW included (borrowed until the next call) */
	size_t raw_len;           /* its bytes */
	long number;              /* 1-based number of the logical record in the file */
	int subtype;              /* 1 deltas, 2 cumulative */
	char system[9];           /* SMF system id, ASCII, blanks trimmed */
	unsigned cpu;             /* CpuId */
	int pool;                 /* enum mf_pool from the processor class (and the zCBP flag) */
	unsigned proc_class;      /* the raw class: 0 CP, 2 zAAP/zCBP, 4 zIIP */
	unsigned machine_type;    /* e.g. 3931 */
	const struct mf_family *family;
	const struct mf_machine *machine;
	unsigned cfvn, csvn;
	double cpsp;            /* MHz */
	int64_t cts_us, ctm_us; /* collection start, record time (Unix microseconds, UTC) */
	bool has_local;         /* the header's SMF113TME/DTE are valid: */
	int64_t local_us;       /* the local time the record was written, as if UTC (for --tz smf) */
	bool has_interval;
	int64_t start_us, end_us; /* interval (subtype 1: identification section) */
	bool lost;                /* the hardware lost counter data this interval */
	bool mt_lost;             /* subtype 1: MT-diagnostic counter data lost (its values are not usable) */
	bool first, final;        /* subtype 2 run markers */
	unsigned sets;            /* bit (1 << CSType) for each counter set present */
	size_t n;                 /* counters below (numbers the family defines) */
	uint16_t num[512];
	uint64_t val[512];
};

/* What a pass over an SMF file saw. */
struct mf_smf_stats {
	const char *framing;     /* "RDW", "VBS" */
	const char *compression; /* "none", "gzip", "zstd" */
	uint64_t records;        /* logical records */
	uint64_t bytes;          /* bytes of the (decompressed) file */
	uint64_t by_type[256];   /* records by SMF type */
	uint64_t t113[3];        /* type 113 by subtype: [1], [2], [0] other */
	uint64_t segments;       /* spanned records reassembled */
	uint64_t t70_1, t99_14;  /* type 70 subtype 1 and type 99 subtype 14 records */
};

struct mf_smf;

/* Opens an SMF file ("-" is standard input); the handle is the caller's. */
int mf_smf_open(struct mf_smf **out, const char *path, const struct mf_kb *kb, struct mf_error *err);

/*
 * The next type 113, type 70 subtype 1 or type 99 subtype 14 record (rec->type;
 * a type 70 or 99 record that cannot be decoded has rec->bad).  Returns 1, 0 at the end, MF_EFORMAT for a bad
 * record (err has its offset; the next call goes on after it), or MF_EIO for
 * a file that cannot be read further (a truncated record, a length running
 * past the end, a broken RDW chain).
 */
int mf_smf_next(struct mf_smf *h, struct mf_smf_record *rec, struct mf_error *err);

const struct mf_smf_stats *mf_smf_stats(const struct mf_smf *h);
void mf_smf_close(struct mf_smf *h);

/*
 * The local time offset z/OS used for a type 113 record (seconds east of UTC, into *off_s): the
 * header's local write time (SMF113TME/DTE) against the record's TOD write time (UTC), to the
 * quarter hour.  False when the record gives none (no valid local time, no TOD time, or over
 * 14 hours).  The offset of --tz smf and the default zone's time labels.
 */
bool mf_smf_record_offset(const struct mf_smf_record *rec, int32_t *off_s);

/* Converts a TOD clock value (bit 51 = 1 microsecond, epoch 1900) to Unix microseconds. */
int64_t mf_tod_to_unix_us(uint64_t tod);

#endif
