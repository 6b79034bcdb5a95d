/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MEASURE_H
#define MFSTAT_MEASURE_H

/*
 * mfstat measure: Caliper-style sampling of a program on Linux
 * (caliper-measure.md).  The pieces, one public header each in
 * include/mfstat/measure/:
 *
 *   run.h         the run model, struct mf_mrun (mrun.c): everything a
 *                 report needs, filled by a live run or loaded from a run
 *                 file; reports read only the model
 *   record.h      kernel records: drain a perf mmap ring buffer (ring.c),
 *                 decode records into a run (decode.c)
 *   mfdb.h        the run file (.mfdb, mfdb.c): write while running, load
 *   symbolize.h   ELF and DWARF (symbolize.c): load segments, functions,
 *                 source lines of the sampled addresses
 *   aggregate.h   thread -> module -> function -> line -> cache line
 *                 (aggregate.c)
 *   fold.h        call chains as folded stacks, named root first (fold.c)
 *   unwind.h      DWARF unwinding of sampled user stacks (unwind.c)
 *   report.h      text, CSV and JSON reports in Caliper's shape
 *   probe.h       what perf_event_open allows here and the fallback ladder
 *                 (pe_probe.c); open the events on the program (the perf
 *                 layer runs it), drain the rings, read the counts
 *                 (pe_collect.c)
 *   measure.h     this header, which includes all of them
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mfstat/base/error.h"

/* The parts of measure, one header each (measure.h includes them all). */
#include "mfstat/measure/run.h"
#include "mfstat/measure/record.h"
#include "mfstat/measure/mfdb.h"
#include "mfstat/measure/symbolize.h"
#include "mfstat/measure/aggregate.h"
#include "mfstat/measure/fold.h"
#include "mfstat/measure/report.h"

/* ---- probe, plan and collection (pe_probe.c, pe_collect.c) ------------- */

#include "mfstat/measure/probe.h"

#endif
