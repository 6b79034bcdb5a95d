/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_DEDUP_H
#define MFSTAT_DEDUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"
#include "mfstat/base/strtab.h"
#include "mfstat/input/sample.h"

/*
 * Duplicate samples across and within inputs: the same dump given twice (as
 * .smf and .gz), two dumps that overlap, or a dump and the CSV made from it.
 *
 * A sample is identified by its system, LPAR, CPU, pool, the interval it
 * belongs to (its start, to the second) and its length (to the second).  The
 * first sample of an identity is kept; a second copy with the same counters
 * (family, counter numbers and values) is a duplicate, to drop and count; a
 * second copy with different counters is a conflict, a data error naming
 * both places.  Only samples with a system name and an interval start are
 * checked: without them (perf stat output, a CSV without a system or
 * interval_start column) two samples of two machines or two runs cannot be
 * told from copies of one, so all of them are kept.
 *
 * Memory grows with the distinct samples, but holds only their identity, a
 * hash of their counters and where the first copy was read, never the rows:
 * 32 bytes each, plus 8 bytes a slot of a hash table kept at most half full
 * (mf_dedup_table_bytes).
 */

struct mf_dedup;

struct mf_dedup *mf_dedup_new(void);
void mf_dedup_free(struct mf_dedup *d);

enum {
	MF_DEDUP_KEEP = 0,     /* first copy (or a sample that is not checked): keep it */
	MF_DEDUP_DUPLICATE = 1 /* a copy of a sample seen before, same counters: drop it */
};

/*
 * Checks sample s, read from file (copied when needed).  Returns
 * MF_DEDUP_KEEP, MF_DEDUP_DUPLICATE, MF_EFORMAT for a copy with different
 * counters (err names this place and the first; drop the sample to keep the
 * first copy), or MF_ENOMEM.  Places are s->line or s->offset.
 */
int mf_dedup_check(struct mf_dedup *d, const char *file, const struct mf_sample *s, struct mf_error *err);

/*
 * Starts loading the slot where mf_dedup_check will look for s, so that a
 * reader that reads the next row before checking this one finds it in cache
 * (the table is far larger than the caches: each check was a miss).  Only a
 * hint: nothing changes.
 */
void mf_dedup_prefetch(const struct mf_dedup *d, const struct mf_sample *s);

/*
 * Reading one input in parts at once: each part has a table of its own, its
 * names in a string table of its own.  A part is described by its table, the
 * map of its name ids to the ids of the whole (map, nmap; ids from nmap on
 * stay), the reverse map (rev, nrev: an id of the whole to the part's, 0 for
 * a name the part never read) and its line offset (the lines of the parts
 * before it).
 */
struct mf_dedup_part {
	const struct mf_dedup *d;
	const uint32_t *map, *rev;
	size_t nmap, nrev;
	long line_offset;
};

/*
 * 1 when no identity of the parts is in into (the inputs read before) or in
 * an earlier part: then the parts give what reading the input whole gives;
 * else 0 (the input is to be read again whole).
 */
int mf_dedup_parts_disjoint(const struct mf_dedup *into, const struct mf_dedup_part *parts, size_t n);
/*
 * The same check over share `share` of `nshares` (0 <= share < nshares) of
 * the parts' identities, so that threads can each take a share (the tables
 * are only read): the parts are disjoint when every share says 1.
 */
int mf_dedup_parts_disjoint_share(const struct mf_dedup *into, const struct mf_dedup_part *parts, size_t n,
				  size_t share, size_t nshares);
/* Adds the identities of disjoint parts, in order, to into, with their per-CPU runs: 0 or MF_ENOMEM. */
int mf_dedup_add_parts(struct mf_dedup *into, const struct mf_dedup_part *parts, size_t n);

/* Makes room for n more identities at once (no growing on the way): 0 or MF_ENOMEM. */
int mf_dedup_reserve(struct mf_dedup *d, size_t n);

/*
 * Intervals that overlap within one CPU: two samples of the same system, LPAR
 * and CPU whose intervals [start, start + length) share 2 seconds or more
 * (identities are kept to the second, so adjacent intervals may seem to share
 * one) without being the same sample.  That is the same time of a CPU counted
 * twice, as when one system is read from two dumps whose intervals are
 * shifted: the duplicate check cannot see it, since no two samples are alike.
 *
 * Each table keeps, per CPU, the time its intervals cover as sorted runs (one
 * run while they follow each other), so a sample that comes in time order
 * costs one comparison, and memory grows with the CPUs and the gaps, not the
 * samples.  Past 64 runs, intervals out of time order wait (at most as many
 * as the runs) and are merged in one pass: O(N log N) in any order.  Samples without a CPU number, a length, a system or a start are
 * not checked: the CPUs of their rows cannot be told apart.
 */
struct mf_dedup_overlap {
	uint64_t cpus;    /* CPUs with overlapping intervals */
	uint64_t systems; /* the systems of those CPUs */
	/* The first such CPU, by system and LPAR name then CPU number, and two of its intervals. */
	uint32_t system, lpar;                          /* string-table ids (lpar 0: none) */
	int64_t cpu;                                    /* -1 when cpus is 0 */
	bool pair;                                      /* the two intervals below are known */
	int64_t a_start_s, a_len_s, b_start_s, b_len_s; /* a starts first; seconds */
};

/*
 * Adds the per-CPU runs of the parts (read in parts, not yet added with
 * mf_dedup_add_parts; n may be 0) to into's, then fills *out, naming the
 * first CPU by the names of tab.  Call it once, after the last input: into
 * keeps the parts' runs.  Returns 0 or MF_ENOMEM.
 */
int mf_dedup_overlaps(struct mf_dedup *into, const struct mf_dedup_part *parts, size_t n, const struct mf_strtab *tab,
		      struct mf_dedup_overlap *out);

/*
 * Bytes taken by d's table of identities: the hash table (8 bytes a slot, at
 * most half full: 16 to 32 bytes an identity) and the room for the entries
 * (32 bytes each; mf_dedup_reserve makes room for a quarter more than asked,
 * else it doubles; a large array's pages cost memory only once written).
 * For tests, never timed.
 */
size_t mf_dedup_table_bytes(const struct mf_dedup *d);

/* The steps of d's overlap check so far (runs compared or moved): work counted for tests, never timed. */
uint64_t mf_dedup_overlap_steps(const struct mf_dedup *d);

/*
 * For input known to come in time order (every sample's start at or after those before it: the
 * caller checks it and reads the input again without this when it does not): an identity is
 * let go as soon as a sample of a later start (to the second) is checked, since a copy of it
 * can only come with its own start.  The check stays exact; memory holds one start's
 * identities, not the input's.  The per-CPU runs of the overlap check are kept as always.
 */
void mf_dedup_set_ordered(struct mf_dedup *d, bool ordered);
/* The most identities d held at once: work counted for tests. */
size_t mf_dedup_most_held(const struct mf_dedup *d);

/* Second copies dropped as duplicates, and conflicts found, so far. */
uint64_t mf_dedup_duplicates(const struct mf_dedup *d);
uint64_t mf_dedup_conflicts(const struct mf_dedup *d);

#endif
