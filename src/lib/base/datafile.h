/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_BASE_DATAFILE_H
#define MFSTAT_BASE_DATAFILE_H

#include <stddef.h>

#include "mfstat/base/error.h"

/*
 * The files of data/: the copy in an overlay directory (--tables DIR) when
 * it has one, else the one embedded at build time.
 */

/*
 * Reads the whole file path into *text (malloc'd, NUL-terminated, the
 * caller's to free) and its length into *len.  Returns 0; 1 when the file
 * does not exist (err untouched); MF_EIO when it cannot be opened or read, or
 * MF_ENOMEM, with err naming path.
 */
int mf_datafile_read_path(const char *path, char **text, size_t *len, struct mf_error *err);

/* The embedded copy of data/rel (rel like "measure/events.tsv"), or NULL. */
const char *mf_datafile_embedded(const char *rel, size_t *len);

#endif
