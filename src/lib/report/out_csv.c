/* SPDX-License-Identifier: MIT */
/* CSV writer: one tidy table, one row per group (README "CSV output"). */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
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

/* What every row needs, computed once. */
struct rows {
	const struct mf_report *rep;
	const char **keys;
	size_t nkeys;
	const int *map;
	const uint64_t *expected;
	unsigned extra[MF_EXTRA_KEYS_MAX];
	size_t nextra;
};

/* Writes the rows of groups [from, to). */
static void write_rows(FILE *fp, const struct rows *w, size_t from, size_t to)
{
	const struct mf_report *rep = w->rep;
	const int *map = w->map;
	const uint64_t *expected = w->expected;
	const unsigned *extra = w->extra;
	size_t nkeys = w->nkeys, nextra = w->nextra, i, k;
	char tbuf[48];
	int64_t ps, pe;
	for (i = from; i < to; i++) {
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
		fprintf(fp, ",%llu,%llu", (unsigned long long)r->cpus, (unsigned long long)expected[i]);
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
}

/* One thread's rows, into a buffer of its own. */
struct row_share {
	const struct rows *w;
	size_t from, to;
	char *buf;
	size_t len;
	bool failed;
	pthread_t thread;
};

static void *rows_run(void *arg)
{
	struct row_share *r = arg;
	FILE *fp = open_memstream(&r->buf, &r->len);
	if (!fp) {
		r->failed = true;
		return NULL;
	}
	write_rows(fp, r->w, r->from, r->to);
	if (ferror(fp))
		r->failed = true;
	if (fclose(fp))
		r->failed = true;
	return NULL;
}

/*
 * The rows, with the threads of -j for many groups: each formats a share into memory, and the
 * shares are written in order, so the bytes are those of one thread.
 */
static int write_all_rows(FILE *fp, const struct rows *w)
{
	struct row_share share[64];
	size_t n = w->rep->ngroups, nt = w->rep->jobs < 64 ? w->rep->jobs : 64, i;
	int rc = 0;
	if (nt < 2 || n < 4096) {
		write_rows(fp, w, 0, n);
		return 0;
	}
	memset(share, 0, sizeof(share));
	for (i = 0; i < nt; i++) {
		share[i].w = w;
		share[i].from = n * i / nt;
		share[i].to = n * (i + 1) / nt;
		if (pthread_create(&share[i].thread, NULL, rows_run, &share[i]) != 0) {
			share[i].thread = 0;
			rows_run(&share[i]);
		}
	}
	for (i = 0; i < nt; i++) {
		if (share[i].thread)
			pthread_join(share[i].thread, NULL);
		if (share[i].failed)
			rc = MF_ENOMEM;
		else if (!rc)
			fwrite(share[i].buf, 1, share[i].len, fp);
		free(share[i].buf);
	}
	return rc;
}

int mf_out_csv(FILE *fp, const struct mf_report *rep)
{
	size_t nkeys, k;
	const char **keys = mf_report_keys(rep, &nkeys);
	int *map = keys ? mf_report_key_map(rep, keys, nkeys) : NULL;
	uint64_t *expected = malloc((rep->ngroups + 1) * sizeof(*expected));
	unsigned extra[MF_EXTRA_KEYS_MAX];
	size_t nextra;
	int rc;

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
	{
		struct rows w = {rep, keys, nkeys, map, expected, {0}, nextra};
		memcpy(w.extra, extra, sizeof(extra));
		rc = write_all_rows(fp, &w);
	}
	free(keys);
	free(map);
	free(expected);
	return rc ? rc : ferror(fp) ? MF_EIO : 0;
}
