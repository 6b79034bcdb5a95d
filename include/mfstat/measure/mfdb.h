/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MFDB_H
#define MFSTAT_MFDB_H

/*
 * The run file of mfstat measure (.mfdb, mfdb.c): written while running,
 * loaded to report.
 */

#include "mfstat/base/error.h"
#include "mfstat/measure/run.h"

struct mf_mfdb_writer;

/*
 * Creates path (truncating a regular file, mode 0600: a run file holds the
 * program's command line) and writes the file header.  A symbolic link at
 * path is never followed: MF_EIO saying so.
 */
int mf_mfdb_create(struct mf_mfdb_writer **out, const char *path, struct mf_error *err);
/* The same on fd, already open for writing (taken over: closed on error too); path names it in messages. */
int mf_mfdb_create_fd(struct mf_mfdb_writer **out, int fd, const char *path, struct mf_error *err);
/*
 * The layout of the kernel records to come: their sample_type and, with
 * PERF_SAMPLE_REGS_USER, the sample_regs_user they were taken with.  SAMPLE
 * records are stored without their CALLCHAIN, REGS_USER and STACK_USER fields
 * (the RUN section gives the layout as stored): the chains are stored
 * resolved, by mf_mfdb_put_symbols.
 */
void mf_mfdb_records_layout(struct mf_mfdb_writer *w, uint64_t sample_type, uint64_t regs_mask);
/* Appends kernel records as RECORDS sections of at most 1 MiB each. */
int mf_mfdb_put_records(struct mf_mfdb_writer *w, const void *bytes, size_t n, struct mf_error *err);
/* Writes RUN, EVENT and COUNT sections from run (everything but records and symbols). */
int mf_mfdb_put_run(struct mf_mfdb_writer *w, const struct mf_mrun *run, struct mf_error *err);
/*
 * Writes MODULE, SYMBOLS and SOURCE sections from run, and when it has call
 * chains STACKS (the distinct chains) and CHAINS (each sample's, in record
 * order: the loader checks there is one per sample of the records).
 */
int mf_mfdb_put_symbols(struct mf_mfdb_writer *w, const struct mf_mrun *run, struct mf_error *err);
/* Writes END, sets the total length in the header, closes.  Frees w even on error. */
int mf_mfdb_close(struct mf_mfdb_writer *w, struct mf_error *err);
/* Closes and frees without END (a run that failed); the file stays, unfinished. */
void mf_mfdb_abandon(struct mf_mfdb_writer *w);

/*
 * Loads a run file into run (initialised by the caller).  It must be a
 * regular file (a pipe, FIFO or device is refused with MF_EFORMAT before any
 * read): every section length is checked against its size before anything
 * is allocated.  Then the settings,
 * streams and counts, then the records through mf_mrun_ingest, then modules,
 * symbols and source rows, then the call chains (STACKS, CHAINS: a file
 * without them, minor version 0, leaves every sample's stack MF_STACK_NONE),
 * then mf_mrun_finish and mf_mrun_sort_syms.
 * Errors (MF_EFORMAT, MF_EIO) name the file, the byte offset and the
 * section.  A file without END loads what is complete, sets run->incomplete
 * and returns MF_EFORMAT with err set, so the caller can report and exit 1.
 */
int mf_mfdb_load(const char *path, struct mf_mrun *run, struct mf_error *err);
/* The same from memory (fuzzing, tests); name is used in messages. */
int mf_mfdb_load_mem(const void *data, size_t n, const char *name, struct mf_mrun *run, struct mf_error *err);

#endif
