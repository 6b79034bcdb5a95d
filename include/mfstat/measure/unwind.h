/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MUNWIND_H
#define MFSTAT_MUNWIND_H

/*
 * DWARF unwinding of sampled user stacks after the fact (unwind.c, with
 * elfutils libdw): a sample's user registers and a copy of the top of its
 * stack (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER) are walked with the
 * call frame information of the mapped files, as perf does for
 * `--call-graph dwarf`.  The architecture comes from a table (perf register
 * numbering, the mask to ask for, DWARF numbering), so samples recorded on
 * another architecture unwind here too, given its binaries.  An unwinder is
 * for one thread at a time.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"

/* An architecture the unwinder knows. */
struct mf_unwind_arch {
	const char *name;   /* as uname -m says: "x86_64", "s390x", "aarch64" */
	uint16_t e_machine; /* ELF e_machine: EM_X86_64, EM_S390, EM_AARCH64 */
	uint64_t regs_mask; /* perf_event_attr.sample_regs_user to ask for */
	int sp_reg, pc_reg; /* perf register numbers of the stack pointer and the pc */
};

/* The table entry for a machine name (uname -m) or an ELF e_machine; NULL when unknown. */
const struct mf_unwind_arch *mf_unwind_arch_by_name(const char *machine);
const struct mf_unwind_arch *mf_unwind_arch_by_elf(uint16_t e_machine);

/* One mapping of the sampled process (from its MMAP2 records). */
struct mf_unwind_map {
	uint64_t start, len, pgoff;
	const char *path; /* the file ("[vdso]" and anonymous maps have none to read) */
	bool exec;
};

/* One sample to unwind. */
struct mf_unwind_sample {
	uint32_t pid, tid;
	uint64_t abi;                     /* PERF_SAMPLE_REGS_ABI_*: 0 (none) means no user registers */
	const uint64_t *regs;             /* popcount(regs_mask) values, in ascending perf register order */
	uint64_t regs_mask;               /* the mask they were recorded with */
	const unsigned char *stack;       /* the copied stack, starting at the sampled stack pointer */
	uint64_t stack_size;              /* valid bytes (the record's dyn_size): the caller checks stack holds them */
	bool other_endian;                /* stack bytes and the mapped files are in the other byte order */
	const struct mf_unwind_map *maps; /* the process's mappings at the sample (a session keeps a copy) */
	size_t nmaps;
	uint64_t maps_gen; /* changes whenever the process's mappings change (a cached session is rebuilt) */
};

struct mf_unwind;

/* An unwinder for samples of arch; sessions are cached per process. */
int mf_unwind_new(struct mf_unwind **out, const struct mf_unwind_arch *arch, struct mf_error *err);
/*
 * Unwinds s into ips (at most max): ips[0] is the sampled pc, the others
 * return addresses, outermost last; *n gets the count.  Returns 0 when the
 * walk reached the outermost frame (or max), 1 when it stopped early (memory
 * outside the copied stack and the files, no call frame information, a
 * loop): the caller ends the chain with an [unknown] frame; MF_ENOMEM.
 * Also 1, with nothing past ips[0]: a 32-bit (compat) task, no stack
 * pointer among the registers, no maps, no mapped file of the arch's
 * machine; with *n 0: abi 0 (no user registers) or no pc among them.  The
 * mapped files are read (their CFI, and words outside the copied stack):
 * unwind while they are the ones the process ran.
 */
int mf_unwind_sample(struct mf_unwind *u, const struct mf_unwind_sample *s, uint64_t *ips, size_t max, size_t *n);
/* Work done, for tests that bound it: sessions built, frames produced. */
void mf_unwind_counts(const struct mf_unwind *u, uint64_t *sessions, uint64_t *frames);
void mf_unwind_free(struct mf_unwind *u);

#endif
