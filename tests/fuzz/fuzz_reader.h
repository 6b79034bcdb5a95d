/* SPDX-License-Identifier: MIT */
/* Shared body of the text-reader fuzz targets: read, group, compute, write every format. */
#ifndef MFSTAT_FUZZ_READER_H
#define MFSTAT_FUZZ_READER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mfstat/mfstat.h"

static struct mf_kb *kb;

static inline int fuzz_reader(const uint8_t *data, size_t size, const char *format)
{
	struct mf_reader_opts ro = {0};
	struct mf_reader *r = NULL;
	struct mf_strtab *tab;
	struct mf_grouper *g;
	struct mf_sample *s;
	struct mf_error e;
	int rc, rows = 0;

	if (!kb && mf_kb_load(NULL, &kb, &e) != 0)
		abort();
	tab = mf_strtab_new();
	g = mf_grouper_new(MF_BY_DEFAULT);
	s = malloc(sizeof(*s));
	if (!tab || !g || !s)
		abort();
	ro.kb = kb;
	ro.strtab = tab;
	ro.format = format;
	if (size && data[0] == 'Z')
		ro.family = mf_kb_family(kb, "z16"); /* also cover --machine */
	if (mf_reader_open_mem(&r, "fuzz", data, size, &ro, &e) == 0) {
		while ((rc = mf_reader_next(r, s, &e)) != 0 && rows < 100000) {
			if (rc == 1 && mf_grouper_add(g, s) != 0)
				abort();
			rows++;
		}
		{
			struct mf_strbuf sb;
			mf_strbuf_init(&sb);
			mf_reader_summary(r, &sb);
			mf_strbuf_free(&sb);
		}
		mf_reader_close(r);
	}
	{
		size_t n, i;
		struct mf_group *const *groups = mf_grouper_groups(g, tab, &n);
		struct mf_result *res = mf_results_new(groups, n);
		struct mf_report rep = {0};
		FILE *null = fopen("/dev/null", "w");
		if (!res || !null)
			abort();
		for (i = 0; i < n; i++)
			mf_metrics_compute(kb, groups[i], &res[i]);
		rep.kb = kb;
		rep.tab = tab;
		rep.by = MF_BY_DEFAULT;
		rep.ngroups = n;
		rep.results = res;
		mf_out_text(null, &rep);
		mf_out_csv(null, &rep);
		mf_out_json(null, &rep);
		mf_out_html(null, &rep);
		fclose(null);
		mf_results_free(res, n);
	}
	free(s);
	mf_grouper_free(g);
	mf_strtab_free(tab);
	return 0;
}

#endif
