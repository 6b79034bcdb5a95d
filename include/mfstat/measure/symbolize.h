/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MSYMBOLIZE_H
#define MFSTAT_MSYMBOLIZE_H

/*
 * The symbolizer of mfstat measure (symbolize.c): ELF and DWARF (libdwfl),
 * module load segments, functions and source lines of the sampled addresses.
 */

#include "mfstat/base/error.h"
#include "mfstat/measure/run.h"

/*
 * Reads every module of run that has a file (ELF load segments, build id)
 * through libdwfl, sets the samples' vaddr (mf_mrun_finish), and resolves
 * into run->syms: every sampled address, and the first byte of each sampled
 * address's cache line for line sizes 32, 64, 128, 256 and run->line_size,
 * and every call-chain frame's address (mf_mframe_lookup: a return address's
 * call site);
 * into run->src: the DWARF line rows of each sampled function and of the
 * 256-byte block around each sampled address.  Source lines (and inlining)
 * are read only in modules that hold at least MF_SYM_LINES_MIN_PERMILLE
 * thousandths of the run's samples; below that their functions are named
 * but the DWARF is not opened (a system library's separate debug file costs
 * a tenth of a second to open, for a few samples of start-up code).  The vDSO is read from this
 * process's own image (same kernel).  A module that cannot be read keeps
 * nloads 0, gets MF_MOD_MISSING and a note; its addresses stay unresolved
 * (reported as module+0xOFF).  Results are cached per module and address.
 * Returns 0 or MF_ENOMEM.
 */
int mf_symbolize(struct mf_mrun *run, struct mf_error *err);

/* Source lines are read in a module with at least this many thousandths of the samples (1 %). */
#define MF_SYM_LINES_MIN_PERMILLE 10

#endif
