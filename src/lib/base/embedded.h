/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_EMBEDDED_H
#define MFSTAT_EMBEDDED_H

#include <stddef.h>

/* The files of data/, embedded at build time (cmake/EmbedData.cmake). */
struct mf_embedded_file {
	const char *path; /* relative to data/, e.g. "metrics/z16.tsv" */
	const char *data; /* NUL-terminated */
	size_t len;
};

extern const struct mf_embedded_file mf_embedded_files[];

#endif
