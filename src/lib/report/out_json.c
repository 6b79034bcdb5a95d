/* SPDX-License-Identifier: MIT */
/* JSON writer, schema 1 (README "JSON output"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/base/escape.h"
#include "mfstat/report/output.h"
#include "mfstat/base/strbuf.h"

/* Writes s as a JSON string (include/mfstat/base/escape.h). */
static void json_str(FILE *fp, const char *s)
{
	mf_escape_json_file(fp, s);
}

static void json_num(FILE *fp, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", fp);
	else {
		char b[40];
		fwrite(b, 1, (size_t)mf_fmt_g15(v == 0 ? 0.0 : v, b), fp);
	}
}

static void json_opt_str(FILE *fp, const char *s)
{
	if (s)
		json_str(fp, s);
	else
		fputs("null", fp);
}

/* The columns of the groups: metric keys, their index per family, CPUs expected per group. */
struct cols {
	const char **keys;
	size_t nkeys;
	int *map;
	const uint64_t *expected;
	uint64_t *own; /* expected when computed here */
	unsigned extra[MF_EXTRA_KEYS_MAX];
	size_t nextra;
};

static void put_period(FILE *fp, const struct mf_report *rep)
{
	char start[48], end[48];
	fputs("{\"schema\":1,\"period\":", fp);
	if (mf_report_period(rep, start, end, sizeof(start))) {
		fputs("{\"start\":", fp);
		json_str(fp, start);
		fputs(",\"end\":", fp);
		json_str(fp, end);
	} else {
		fputs("{\"start\":null,\"end\":null", fp);
	}
	fputs(",\"tz\":", fp);
	json_str(fp, rep->tz ? mf_tz_name(rep->tz) : "UTC");
	fprintf(fp, ",\"systems\":%zu}", rep->nsystems);
}

/*
 * "units": each metric key once, with its unit from the knowledge base (that of the first
 * family of the report defining it, as the text header takes it); null for a key without one
 * (LSPR, a count).  The groups' "metrics" carry bare numbers.
 */
static void put_units(FILE *fp, const struct mf_report *rep, const struct cols *c)
{
	const struct mf_family *fams[64];
	size_t nfam = mf_report_families(rep, fams, 64), k, f;
	if (nfam > 64)
		nfam = 64;
	fputs(",\"units\":{", fp);
	for (k = 0; k < c->nkeys; k++) {
		const char *unit = NULL;
		for (f = 0; f < nfam && !unit; f++) {
			int idx = c->map[(size_t)(fams[f] - rep->kb->families) * c->nkeys + k];
			if (idx >= 0 && fams[f]->metrics[idx].unit && fams[f]->metrics[idx].unit[0])
				unit = fams[f]->metrics[idx].unit;
		}
		if (k)
			fputc(',', fp);
		json_str(fp, c->keys[k]);
		fputc(':', fp);
		json_opt_str(fp, unit);
	}
	fputc('}', fp);
}

/* The keys of group i: system, LPAR, pool, CPU, file and calendar bucket, interval and period. */
static void put_group_keys(FILE *fp, const struct mf_report *rep, const struct cols *c, const struct mf_group *g)
{
	char tbuf[48];
	int64_t ps, pe;
	size_t k;
	fputs("{\"system\":", fp);
	json_opt_str(fp, mf_strtab_get(rep->tab, g->system));
	fputs(",\"lpar\":", fp);
	json_opt_str(fp, mf_strtab_get(rep->tab, g->lpar));
	fputs(",\"pool\":", fp);
	json_opt_str(fp, mf_pool_name(g->pool));
	fputs(",\"cpu\":", fp);
	if (g->cpu >= 0)
		fprintf(fp, "%lld", (long long)g->cpu);
	else
		fputs("null", fp);
	for (k = 0; k < c->nextra; k++) {
		fputc(',', fp);
		json_str(fp, mf_by_name(c->extra[k]));
		fputc(':', fp);
		if (c->extra[k] & (MF_BY_WEIGHT | MF_BY_DRAWER | MF_BY_CHIP)) {
			/* Numbers, not strings: null when unknown. */
			const char *v = mf_report_key_text(rep, g, c->extra[k], tbuf, sizeof(tbuf));
			fputs(v ? v : "null", fp);
		} else {
			json_opt_str(fp, mf_report_key_text(rep, g, c->extra[k], tbuf, sizeof(tbuf)));
		}
	}
	fputs(",\"interval_start\":", fp);
	if (g->has_start) {
		mf_report_time(rep, g, g->start_us, tbuf, sizeof(tbuf));
		json_str(fp, tbuf);
	} else {
		fputs("null", fp);
	}
	if (mf_group_period(g, &ps, &pe)) {
		mf_report_time(rep, g, ps, tbuf, sizeof(tbuf));
		fputs(",\"period_start\":", fp);
		json_str(fp, tbuf);
		mf_report_time(rep, g, pe, tbuf, sizeof(tbuf));
		fputs(",\"period_end\":", fp);
		json_str(fp, tbuf);
	} else {
		fputs(",\"period_start\":null,\"period_end\":null", fp);
	}
}

static void put_group(FILE *fp, const struct mf_report *rep, const struct cols *c, size_t i)
{
	const struct mf_result *r = &rep->results[i];
	const struct mf_group *g = r->group;
	bool first = true;
	size_t k;
	put_group_keys(fp, rep, c, g);
	fputs(",\"interval_seconds\":", fp);
	json_num(fp, r->interval);
	fputs(",\"machine\":", fp);
	json_str(fp, g->family->display);
	fprintf(fp, ",\"cpus\":%llu,\"cpus_expected\":%llu,\"metrics\":{", (unsigned long long)mf_group_cpus(g),
		(unsigned long long)c->expected[i]);
	for (k = 0; k < c->nkeys; k++) {
		int idx = c->map[(size_t)(g->family - rep->kb->families) * c->nkeys + k];
		if (idx == -1)
			continue; /* not defined on this family: absent */
		if (!first)
			fputc(',', fp);
		first = false;
		json_str(fp, c->keys[k]);
		fputc(':', fp);
		if (idx == MF_REPORT_LSPR)
			json_opt_str(fp, mf_lspr_name(r->lspr));
		else
			json_num(fp, r->value[idx]);
	}
	fputs("}}", fp);
}

/* Counts: rows, skipped, duplicates, what --top and a selection left out. */
static void put_counts(FILE *fp, const struct mf_report *rep)
{
	bool first = true;
	size_t k;
	fprintf(fp, ",\"rows\":%llu,\"skipped_rows\":%llu", (unsigned long long)rep->rows_read,
		(unsigned long long)rep->rows_skipped);
	fprintf(fp, ",\"duplicates\":%llu", (unsigned long long)rep->duplicates);
	if (rep->groups_cut)
		fprintf(fp, ",\"groups_not_shown\":%llu", (unsigned long long)rep->groups_cut);
	if (!rep->selected)
		return;
	fputs(",\"left_out\":{", fp);
	for (k = 1; k < MF_SELECT_NREASONS; k++) {
		if (!rep->left_out[k])
			continue;
		fprintf(fp, "%s\"%s\":%llu", first ? "" : ",", mf_select_key((enum mf_select_why)k),
			(unsigned long long)rep->left_out[k]);
		first = false;
	}
	fputc('}', fp);
}

/* The warnings, then every reason something read was dropped. */
static void put_warnings(FILE *fp, const struct mf_report *rep)
{
	size_t i, k, nw = 0;
	fputs(",\"warnings\":[", fp);
	for (i = 0; i < rep->nwarnings; i++) {
		if (nw++)
			fputc(',', fp);
		json_str(fp, rep->warnings[i]);
	}
	for (i = 0; i < rep->nreasons; i++) {
		struct mf_strbuf sb;
		mf_strbuf_init(&sb);
		mf_strbuf_printf(&sb, "skipped %llu: %s", (unsigned long long)rep->reason_count[i], rep->reason[i]);
		if (nw++)
			fputc(',', fp);
		json_str(fp, mf_strbuf_str(&sb));
		mf_strbuf_free(&sb);
	}
	for (i = 0; i < rep->ninputs; i++) {
		for (k = 0; k < rep->inputs[i].ndropped; k++) {
			struct mf_strbuf sb;
			mf_strbuf_init(&sb);
			mf_strbuf_printf(&sb, "%s: dropped %llu: %s", rep->inputs[i].file,
					 (unsigned long long)rep->inputs[i].dropped[k].n,
					 rep->inputs[i].dropped[k].what);
			if (nw++)
				fputc(',', fp);
			json_str(fp, mf_strbuf_str(&sb));
			mf_strbuf_free(&sb);
		}
	}
	fputc(']', fp);
}

/* What was read from each input: format, samples, records by kind, what was dropped. */
static void put_input(FILE *fp, const struct mf_input *in)
{
	bool smf = strcmp(in->format, "smf") == 0;
	size_t k, nw = 0;
	fputs("{\"file\":", fp);
	json_str(fp, in->file);
	fputs(",\"format\":", fp);
	json_str(fp, in->format);
	fprintf(fp, ",\"samples\":%llu,\"records\":{", (unsigned long long)in->samples);
	for (k = 0; k < in->nrecords; k++) {
		if (k)
			fputc(',', fp);
		json_str(fp, in->records[k].what);
		fprintf(fp, ":%llu", (unsigned long long)in->records[k].n);
	}
	fputs("},\"dropped\":{", fp);
	if (in->skipped) {
		fprintf(fp, "\"bad %s skipped\":%llu", smf ? "records" : "rows", (unsigned long long)in->skipped);
		nw++;
	}
	if (in->duplicates)
		fprintf(fp, "%s\"duplicate samples\":%llu", nw++ ? "," : "", (unsigned long long)in->duplicates);
	for (k = 0; k < in->ndropped; k++) {
		if (nw++)
			fputc(',', fp);
		json_str(fp, in->dropped[k].what);
		fprintf(fp, ":%llu", (unsigned long long)in->dropped[k].n);
	}
	fputs("}}", fp);
}

/*
 * "lpars": every LPAR of the machines in the SMF type 70 records (only when there are some):
 * weights and logical processors by pool and polarity, dispatch time per pool, the seconds of
 * RMF intervals read.
 */
static void put_lpars(FILE *fp, const struct mf_report *rep)
{
	size_t i, p, k;
	char b[40];
	if (!rep->nlpars)
		return;
	fputs(",\"lpars\":[", fp);
	for (i = 0; i < rep->nlpars; i++) {
		const struct mf_lpar_row *row = &rep->lpars[i];
		bool first = true;
		fputs(i ? ",\n{\"serial\":" : "\n{\"serial\":", fp);
		json_str(fp, row->serial);
		fprintf(fp, ",\"machine_type\":%u,\"name\":", row->machine_type);
		json_str(fp, row->name);
		fprintf(fp, ",\"number\":%u,\"system\":", row->number);
		json_opt_str(fp, row->system ? mf_strtab_get(rep->tab, row->system) : NULL);
		fputs(",\"rmf_seconds\":", fp);
		fwrite(b, 1, (size_t)mf_fmt_g15(row->seconds, b), fp); /* %.15g */
		fputs(",\"pools\":{", fp);
		for (p = 0; p < MF_NPOOLS; p++) {
			unsigned n = 0;
			for (k = 0; k < MF_POL_COUNT; k++)
				n += row->lcpus[p][k];
			if (!n || !mf_pool_name((int)p))
				continue;
			fputs(first ? "" : ",", fp);
			first = false;
			json_str(fp, mf_pool_name((int)p));
			fprintf(fp, ":{\"weight\":%d,\"dedicated\":%s,\"dispatch_seconds\":", (int)row->weight[p],
				row->dedicated[p] ? "true" : "false");
			fwrite(b, 1, (size_t)mf_fmt_g15(row->dispatch_s[p], b), fp); /* %.15g */
			fputs(",\"logical_processors\":{", fp);
			for (k = 1; k < MF_POL_COUNT; k++)
				fprintf(fp, "%s\"%s\":%u", k > 1 ? "," : "", mf_polarity_name((int)k),
					row->lcpus[p][k]);
			fputs("}}", fp);
		}
		fputs("}}", fp);
	}
	fputs("\n]", fp);
}

int mf_out_json(FILE *fp, const struct mf_report *rep)
{
	struct cols c;
	size_t i;

	memset(&c, 0, sizeof(c));
	c.keys = mf_report_keys(rep, &c.nkeys);
	c.map = c.keys ? mf_report_key_map(rep, c.keys, c.nkeys) : NULL;
	c.expected = mf_report_expected(rep, &c.own);
	c.nextra = mf_report_extra_keys(rep, c.extra);
	if (!c.keys || !c.map || !c.expected) {
		free(c.keys);
		free(c.map);
		free(c.own);
		return MF_ENOMEM;
	}
	put_period(fp, rep);
	put_units(fp, rep, &c);
	fputs(",\"groups\":[", fp);
	for (i = 0; i < rep->ngroups; i++) {
		fputs(i ? ",\n" : "\n", fp);
		put_group(fp, rep, &c, i);
	}
	fprintf(fp, "%s]", rep->ngroups ? "\n" : "");
	put_lpars(fp, rep);
	put_counts(fp, rep);
	put_warnings(fp, rep);
	fputs(",\"inputs\":[", fp);
	for (i = 0; i < rep->ninputs; i++) {
		fputs(i ? ",\n" : "\n", fp);
		put_input(fp, &rep->inputs[i]);
	}
	fprintf(fp, "%s]}\n", rep->ninputs ? "\n" : "");
	free(c.keys);
	free(c.map);
	free(c.own);
	return ferror(fp) ? MF_EIO : 0;
}
