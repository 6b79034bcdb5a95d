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

/* One decoded type 113 record. */
struct mf_smf_record {
	long long offset;      /* byte offset of the record in the (decompressed) file */
	long number;           /* 1-based number of the logical record in the file */
	int subtype;           /* 1 deltas, 2 cumulative */
	char system[9];        /* SMF system id, ASCII, blanks trimmed */
	unsigned cpu;          /* CpuId */
	int pool;              /* enum mf_pool from the processor class (and the zCBP flag) */
	unsigned proc_class;   /* the raw class: 0 CP, 2 zAAP/zCBP, 4 zIIP */
	unsigned machine_type; /* e.g. 3931 */
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
};

struct mf_smf;

/* Opens an SMF file ("-" is standard input); the handle is the caller's. */
int mf_smf_open(struct mf_smf **out, const char *path, const struct mf_kb *kb, struct mf_error *err);

/*
 * The next type 113 record.  Returns 1, 0 at the end, MF_EFORMAT for a bad
 * record (err has its offset; the next call goes on after it), or MF_EIO for
 * a file that cannot be read further (a truncated record, a length running
 * past the end, a broken RDW chain).
 */
int mf_smf_next(struct mf_smf *h, struct mf_smf_record *rec, struct mf_error *err);

const struct mf_smf_stats *mf_smf_stats(const struct mf_smf *h);
void mf_smf_close(struct mf_smf *h);

/* Converts a TOD clock value (bit 51 = 1 microsecond, epoch 1900) to Unix microseconds. */
int64_t mf_tod_to_unix_us(uint64_t tod);

#endif
