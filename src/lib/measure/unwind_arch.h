/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MUNWIND_ARCH_H
#define MFSTAT_MUNWIND_ARCH_H

/*
 * The unwinder's architecture table (unwind_arch.c), private to unwind.c and
 * its unit test: how the perf registers of PERF_SAMPLE_REGS_USER map to the
 * DWARF register numbers libdw's backend for that machine unwinds with.
 */

#include <stdbool.h>
#include <stdint.h>

#include "mfstat/measure/unwind.h"

#define MF_UNWIND_MAX_DWARF 32

struct mf_unwind_arch_desc {
	struct mf_unwind_arch pub; /* first: a pointer to pub is a pointer to the entry */
	unsigned ndwarf;           /* DWARF registers 0 .. ndwarf-1 are passed to libdw */
	unsigned dwarf_sp;         /* the DWARF number of the stack pointer */
	/* the perf register that holds DWARF register i, or -1 (left undefined) */
	int8_t perf_of_dwarf[MF_UNWIND_MAX_DWARF];
	/* the pc is not among the DWARF registers: passed with dwfl_thread_state_register_pc */
	bool pc_separate;
};

/* The entry of a public arch pointer (one of the table's). */
const struct mf_unwind_arch_desc *mf_unwind_arch_desc(const struct mf_unwind_arch *a);

/*
 * The value of perf register r in regs, recorded with mask (popcount(mask)
 * values in ascending register order): true and *val, or false when r is not
 * in the mask.
 */
bool mf_unwind_perf_reg(const uint64_t *regs, uint64_t mask, int r, uint64_t *val);

#endif
