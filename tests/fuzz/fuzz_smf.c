/* SPDX-License-Identifier: MIT */
/* Fuzz target: the SMF deblocker and type 113 decoder, through the reader and grouping. */
#include <stdint.h>
#include <stdlib.h>

#include "mfstat/mfstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct mf_kb *kb;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mf_reader_opts ro = {0};
	struct mf_reader *r = NULL;
	struct mf_strtab *tab;
	struct mf_grouper *g;
	struct mf_sample *s;
	struct mf_error e;
	struct mf_strbuf sb;
	int rc, n = 0;

	if (!kb && mf_kb_load(NULL, &kb, &e) != 0)
		abort();
	tab = mf_strtab_new();
	g = mf_grouper_new(MF_BY_DEFAULT);
	s = malloc(sizeof(*s));
	if (!tab || !g || !s)
		abort();
	ro.kb = kb;
	ro.strtab = tab;
	ro.format = "smf";
	mf_strbuf_init(&sb);
	if (mf_reader_open_mem(&r, "fuzz", data, size, &ro, &e) == 0) {
		/* Bad records are skipped, as --skip-bad-records does; stop after an unreadable rest. */
		while ((rc = mf_reader_next(r, s, &e)) != 0 && n++ < 100000) {
			if (rc == 1 && mf_grouper_add(g, s) != 0)
				abort();
			if (rc == MF_EIO)
				break;
		}
		mf_reader_summary(r, &sb);
		mf_reader_close(r);
	}
	{
		size_t k, ng;
		struct mf_group *const *groups = mf_grouper_groups(g, tab, &ng);
		struct mf_result *res = mf_results_new(groups, ng);
		if (!res)
			abort();
		for (k = 0; k < ng; k++)
			mf_metrics_compute(kb, groups[k], &res[k]);
		mf_results_free(res, ng);
	}
	mf_strbuf_free(&sb);
	free(s);
	mf_grouper_free(g);
	mf_strtab_free(tab);
	return 0;
}
