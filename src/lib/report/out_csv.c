/* SPDX-License-Identifier: MIT */
/* CSV writer: one tidy table, one row per group (README "CSV output"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/base/escape.h"
#include "mfstat/report/output.h"
#include "mfstat/base/strbuf.h"

/* A text cell (RFC 4180, with the formula guard: include/mfstat/base/escape.h). */
static void csv_str(FILE *fp, const char *s)
{
	mf_escape_csv_file(fp, s, MF_ESCAPE_CSV_TEXT);
}

static void csv_num(FILE *fp, double v)
{
	if (!isnan(v) && !isinf(v)) {
		char b[40];
		fwrite(b, 1, (size_t)mf_fmt_g15(v == 0 ? 0.0 : v, b), fp);
	}
}

int mf_out_csv(FILE *fp, const struct mf_report *rep)
{
	size_t nkeys, i, k;
	const char **keys = mf_report_keys(rep, &nkeys);
	int *map = keys ? mf_report_key_map(rep, keys, nkeys) : NULL;
	uint64_t *expected = malloc((rep->ngroups + 1) * sizeof(*expected));
	char tbuf[48];
	int64_t ps, pe;
	unsigned extra[MF_EXTRA_KEYS_MAX];
	size_t nextra;

	if (!keys || !map || !expected) {
		free(keys);
		free(map);
		free(expected);
		return MF_ENOMEM;
	}
	mf_report_cpus_expected(rep, expected);
	nextra = mf_report_extra_keys(rep, extra);
	fputs("system,lpar,pool,cpu", fp);
	for (k = 0; k < nextra; k++)
		fprintf(fp, ",%s", mf_by_name(extra[k]));
	fputs(",interval_start,period_start,period_end,interval_seconds,machine,cpus,cpus_expected", fp);
	for (k = 0; k < nkeys; k++) {
		fputc(',', fp);
		fputs(keys[k], fp);
	}
	fputc('\n', fp);
	for (i = 0; i < rep->ngroups; i++) {
		const struct mf_result *r = &rep->results[i];
		const struct mf_group *g = r->group;
		csv_str(fp, mf_strtab_get(rep->tab, g->system));
		fputc(',', fp);
		csv_str(fp, mf_strtab_get(rep->tab, g->lpar));
		fputc(',', fp);
		csv_str(fp, mf_pool_name(g->pool));
		fputc(',', fp);
		if (g->cpu >= 0)
			fprintf(fp, "%lld", (long long)g->cpu);
		for (k = 0; k < nextra; k++) {
			const char *v = mf_report_key_text(rep, g, extra[k], tbuf, sizeof(tbuf));
			fputc(',', fp);
			if (v)
				csv_str(fp, v);
		}
		fputc(',', fp);
		if (g->has_start) {
			mf_report_time(rep, g, g->start_us, tbuf, sizeof(tbuf));
			fputs(tbuf, fp);
		}
		fputc(',', fp);
		if (mf_group_period(g, &ps, &pe)) {
			mf_report_time(rep, g, ps, tbuf, sizeof(tbuf));
			fputs(tbuf, fp);
			fputc(',', fp);
			mf_report_time(rep, g, pe, tbuf, sizeof(tbuf));
			fputs(tbuf, fp);
		} else {
			fputc(',', fp);
		}
		fputc(',', fp);
		csv_num(fp, r->interval);
		fputc(',', fp);
		csv_str(fp, g->family->display);
		fprintf(fp, ",%llu,%llu", (unsigned long long)mf_group_cpus(g), (unsigned long long)expected[i]);
		for (k = 0; k < nkeys; k++) {
			int idx = map[(size_t)(g->family - rep->kb->families) * nkeys + k];
			fputc(',', fp);
			if (idx == MF_REPORT_LSPR) {
				const char *l = mf_lspr_name(r->lspr);
				if (l)
					fputs(l, fp);
			} else if (idx >= 0) {
				csv_num(fp, r->value[idx]);
			}
		}
		fputc('\n', fp);
	}
	free(keys);
	free(map);
	free(expected);
	return ferror(fp) ? MF_EIO : 0;
}
