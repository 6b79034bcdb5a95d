/* SPDX-License-Identifier: MIT */
/* Shared body of the text-reader fuzz targets: read, group, compute, write every format. */
#ifndef MFSTAT_FUZZ_READER_H
#define MFSTAT_FUZZ_READER_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/mfstat.h"

static struct mf_kb *kb;

/* Read through the library pipeline with bad rows skipped (as --skip-bad-rows), then every writer. */
static inline int fuzz_reader(const uint8_t *data, size_t size, const char *format)
{
	struct mf_pipeline_opts o = {0};
	struct mf_pipeline *p;
	struct mf_report rep;
	struct mf_error e;
	FILE *null;

	if (!kb && mf_kb_load(NULL, &kb, &e) != 0)
		abort();
	o.kb = kb;
	o.format = format;
	o.by = MF_BY_DEFAULT;
	o.skip_bad = true;
	o.metrics.mem_peak_gbs = NAN;
	if (size && data[0] == 'Z')
		o.family = mf_kb_family(kb, "z16"); /* also cover --machine */
	if (size && data[0] == 'T' && mf_kb_resolve(kb, "3931", 4, &o.family, &o.machine) != 0)
		abort(); /* --machine TYPE: its nominal speed where the data give none */
	if (size > 1 && data[1] == 'C')
		o.cpu_mhz = 5000; /* --cpu-mhz */
	/* perf's '# started on' read in a zone (--perf-tz): one without files, a fixed offset. */
	{
		static struct mf_tz *tz;
		if (!tz && mf_tz_open(&tz, "+05:30", NULL, &e) != 0)
			abort();
		o.perf_tz = tz;
		o.perf_tz_from = "from --perf-tz";
	}
	p = mf_pipeline_new(&o);
	if (!p)
		abort();
	/* SMF: the first pass of the LPAR view, as mfstat report does for a file (types 70 and 99.14). */
	if (format && strcmp(format, "smf") == 0)
		mf_pipeline_prescan_mem(p, "fuzz", data, size);
	/* Errors that stop the pipeline (no data, a bad header) still leave a report to write. */
	if (mf_pipeline_add_mem(p, "fuzz", data, size, &e) == MF_ENOMEM)
		abort();
	null = fopen("/dev/null", "w");
	if (!null || mf_pipeline_finish(p, &rep) != 0)
		abort();
	mf_out_text(null, &rep);
	mf_out_csv(null, &rep);
	mf_out_json(null, &rep);
	mf_out_html(null, &rep);
	fclose(null);
	mf_pipeline_free(p);
	return 0;
}

#endif
