/* SPDX-License-Identifier: MIT */
/* The writers of `mfstat diff`: text, CSV (one row per group and metric), JSON and one HTML page. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mfstat/report/diff.h"
#include "mfstat/base/escape.h"
#include "mfstat/base/strbuf.h"

#define MAX_FINDINGS 12

/* The family that defines metric name for a group, before's first; NULL when neither does. */
static const struct mf_family *defining(const struct mf_diff_group *g, const char *name, int *m)
{
	const struct mf_result *side[2] = {g->before, g->after};
	size_t s;
	for (s = 0; s < 2; s++) {
		if (!side[s])
			continue;
		*m = mf_family_metric(side[s]->group->family, name);
		if (*m >= 0)
			return side[s]->group->family;
	}
	return NULL;
}

/* A value as the text report writes it: the metric's decimals, "n/a" when not available, "-" when not defined. */
static void fmt_value(char *buf, size_t n, bool defined, double v, int digits, bool sign)
{
	if (!defined)
		snprintf(buf, n, "-");
	else if (isnan(v))
		snprintf(buf, n, "n/a");
	else
		mf_fmt_metric(buf, n, v == 0 ? 0.0 : v, digits, sign);
}

static void fmt_percent(char *buf, size_t n, double p)
{
	if (isnan(p))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%+.1f%%", p == 0 ? 0.0 : p);
}

/* The period of one group ("2025-04-07T00:00:00Z"), empty when it has none. */
static void group_period(const struct mf_report *rep, const struct mf_result *r, char *start, char *end, size_t n)
{
	int64_t s, e;
	start[0] = end[0] = '\0';
	if (r && mf_group_period(r->group, &s, &e)) {
		mf_report_time(rep, r->group, s, start, n);
		mf_report_time(rep, r->group, e, end, n);
	}
}

static const char *lspr_text(int cls)
{
	const char *l = mf_lspr_name(cls);
	return l ? l : "n/a";
}

/* ---- Text ---- */

/* Writes s for a terminal (mf_escape_text), then suffix. */
static void put_esc(FILE *fp, const char *s, const char *suffix)
{
	struct mf_strbuf sb;
	mf_strbuf_init(&sb);
	mf_escape_text(&sb, s, 0);
	fprintf(fp, "%s%s", mf_strbuf_str(&sb), suffix);
	mf_strbuf_free(&sb);
}

static void text_finding(void *ctx, const char *text)
{
	FILE *fp = ctx;
	fputs("  ", fp);
	put_esc(fp, text, "\n");
}

#define TCOLS 6

/* One matched group: a line naming it, then a table of metric, unit, before, after, change, percent. */
static void text_group(FILE *fp, const struct mf_diff *d, const struct mf_diff_group *g)
{
	char cell[TCOLS][48], name[200];
	size_t w[TCOLS] = {6, 4, 6, 5, 6, 6}, k, c, pass;
	static const char *const head[TCOLS] = {"metric", "unit", "before", "after", "change", "change"};

	mf_diff_group_name(d, g, name, sizeof(name));
	put_esc(fp, name, ": ");
	put_esc(fp, g->before->group->family->display, " -> ");
	put_esc(fp, g->after->group->family->display, "");
	fprintf(fp, ", LSPR %s -> %s%s\n", lspr_text(g->lspr_before), lspr_text(g->lspr_after),
		g->lspr_moved ? " (moved)" : "");
	/* Pass 0 measures the columns, pass 1 prints. */
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			size_t total = 0;
			for (c = 0; c < TCOLS; c++) {
				fprintf(fp, c < 2 ? "%-*s" : "%*s", (int)w[c], c == TCOLS - 1 ? "%" : head[c]);
				fputs(c + 1 < TCOLS ? "  " : "\n", fp);
				total += w[c] + (c ? 2 : 0);
			}
			for (c = 0; c < total; c++)
				fputc('-', fp);
			fputc('\n', fp);
		}
		for (k = 0; k < d->nmetrics; k++) {
			const struct mf_diff_value *v = &g->values[k];
			int m = -1;
			const struct mf_family *fam = defining(g, d->metrics[k], &m);
			int dg = fam ? fam->metrics[m].digits : 3;
			if (!fam)
				continue;
			snprintf(cell[0], sizeof(cell[0]), "%s", d->metrics[k]);
			snprintf(cell[1], sizeof(cell[1]), "%s", fam->metrics[m].unit);
			fmt_value(cell[2], sizeof(cell[2]), v->in_before, v->before, dg, false);
			fmt_value(cell[3], sizeof(cell[3]), v->in_after, v->after, dg, false);
			fmt_value(cell[4], sizeof(cell[4]), v->in_before && v->in_after, v->delta, dg, true);
			fmt_percent(cell[5], sizeof(cell[5]), v->percent);
			for (c = 0; c < TCOLS; c++) {
				if (pass == 0 && strlen(cell[c]) > w[c])
					w[c] = strlen(cell[c]);
				if (pass == 1) {
					fprintf(fp, c < 2 ? "%-*s" : "%*s", (int)w[c], cell[c]);
					fputs(c + 1 < TCOLS ? "  " : "\n", fp);
				}
			}
		}
	}
}

/* "only before: SYSC / GCP (z15), SYSC / ZIIP (z15)" */
static void text_only(FILE *fp, const struct mf_diff *d, const char *label, const struct mf_diff_group *gs, size_t n)
{
	size_t i;
	if (!n)
		return;
	fprintf(fp, "only %s:", label);
	for (i = 0; i < n; i++) {
		const struct mf_result *r = gs[i].before ? gs[i].before : gs[i].after;
		char name[200];
		mf_diff_group_name(d, &gs[i], name, sizeof(name));
		fputs(i ? ", " : " ", fp);
		put_esc(fp, name, " (");
		put_esc(fp, r->group->family->display, ")");
	}
	fputc('\n', fp);
}

static void text_counts(FILE *fp, const char *label, const struct mf_report *rep)
{
	fprintf(fp, "%s: %llu row%s read from %zu file%s, %zu group%s, %llu row%s skipped\n", label,
		(unsigned long long)rep->rows_read, rep->rows_read == 1 ? "" : "s", rep->nfiles,
		rep->nfiles == 1 ? "" : "s", rep->ngroups, rep->ngroups == 1 ? "" : "s",
		(unsigned long long)rep->rows_skipped, rep->rows_skipped == 1 ? "" : "s");
}

int mf_diff_out_text(FILE *fp, const struct mf_diff *d)
{
	char line[1024];
	size_t i;

	mf_report_period_line(d->before, line, sizeof(line));
	fprintf(fp, "before: %s\n", line[0] ? line : "no interval times");
	mf_report_period_line(d->after, line, sizeof(line));
	fprintf(fp, "after:  %s\n\n", line[0] ? line : "no interval times");
	fputs("What moved most:\n", fp);
	if (!mf_diff_findings(d, MAX_FINDINGS, text_finding, fp))
		fputs("  no LSPR class moved, and no CPI, RNI, L1MP or LPARCPU by 1% or more\n", fp);
	for (i = 0; i < d->ngroups; i++) {
		fputc('\n', fp);
		text_group(fp, d, &d->groups[i]);
	}
	if (d->nonly_before || d->nonly_after)
		fputc('\n', fp);
	text_only(fp, d, "before", d->only_before, d->nonly_before);
	text_only(fp, d, "after", d->only_after, d->nonly_after);
	fputc('\n', fp);
	fprintf(fp, "%zu group%s matched, %zu only before, %zu only after\n", d->ngroups, d->ngroups == 1 ? "" : "s",
		d->nonly_before, d->nonly_after);
	text_counts(fp, "before", d->before);
	text_counts(fp, "after", d->after);
	return ferror(fp) ? MF_EIO : 0;
}

/* ---- CSV ---- */

/* A text cell: the formula guard, and on a terminal (tf MF_ESCAPE_CSV_TERMINAL) no control character. */
static void csv_str(FILE *fp, const char *s, unsigned tf)
{
	mf_escape_csv_file(fp, s, MF_ESCAPE_CSV_TEXT | tf);
}

static void csv_num(FILE *fp, double v)
{
	char b[40];
	if (!isnan(v) && !isinf(v))
		fwrite(b, 1, (size_t)mf_fmt_g15(v == 0 ? 0.0 : v, b), fp);
}

/* The key cells of --by (system, lpar, pool, cpu), each followed by a comma. */
static void csv_keys(FILE *fp, const struct mf_diff *d, const struct mf_diff_group *g, unsigned tf)
{
	const struct mf_result *r = g->before ? g->before : g->after;
	const struct mf_report *rep = g->before ? d->before : d->after;
	const char *text[3] = {mf_strtab_get(rep->tab, r->group->system), mf_strtab_get(rep->tab, r->group->lpar),
			       mf_pool_name(r->group->pool)};
	static const unsigned bit[3] = {MF_BY_SYSTEM, MF_BY_LPAR, MF_BY_POOL};
	size_t k;
	for (k = 0; k < 3; k++) {
		if (!(d->by & bit[k]))
			continue;
		csv_str(fp, text[k], tf);
		fputc(',', fp);
	}
	if (d->by & MF_BY_CPU) {
		if (r->group->cpu >= 0)
			fprintf(fp, "%lld", (long long)r->group->cpu);
		fputc(',', fp);
	}
}

/* The machine and period cells of both sides (empty for a side the group is not on). */
static void csv_sides(FILE *fp, const struct mf_diff *d, const struct mf_diff_group *g, unsigned tf)
{
	char s[48], e[48];
	csv_str(fp, g->before ? g->before->group->family->display : NULL, tf);
	fputc(',', fp);
	csv_str(fp, g->after ? g->after->group->family->display : NULL, tf);
	group_period(d->before, g->before, s, e, sizeof(s));
	fprintf(fp, ",%s,%s", s, e);
	group_period(d->after, g->after, s, e, sizeof(s));
	fprintf(fp, ",%s,%s,", s, e);
}

static void csv_group(FILE *fp, const struct mf_diff *d, const struct mf_diff_group *g, unsigned tf)
{
	size_t k;
	for (k = 0; k < d->nmetrics; k++) {
		bool defined_b = false, defined_a = false;
		double b = NAN, a = NAN;
		int m;
		if (g->values) {
			b = g->values[k].before;
			a = g->values[k].after;
			defined_b = g->values[k].in_before;
			defined_a = g->values[k].in_after;
		} else if (g->before) {
			defined_b = (m = mf_family_metric(g->before->group->family, d->metrics[k])) >= 0;
			b = defined_b ? g->before->value[m] : NAN;
		} else {
			defined_a = (m = mf_family_metric(g->after->group->family, d->metrics[k])) >= 0;
			a = defined_a ? g->after->value[m] : NAN;
		}
		if (!defined_b && !defined_a)
			continue;
		csv_keys(fp, d, g, tf);
		csv_str(fp, d->metrics[k], tf);
		fputc(',', fp);
		csv_sides(fp, d, g, tf);
		csv_num(fp, b);
		fputc(',', fp);
		csv_num(fp, a);
		fputc(',', fp);
		if (g->values) {
			csv_num(fp, g->values[k].delta);
			fputc(',', fp);
			csv_num(fp, g->values[k].percent);
		} else {
			fputc(',', fp);
		}
		fputs(",\n", fp);
	}
	csv_keys(fp, d, g, tf);
	fputs("LSPR,", fp);
	csv_sides(fp, d, g, tf);
	fprintf(fp, "%s,%s,,,%s\n", g->before ? lspr_text(g->lspr_before) : "",
		g->after ? lspr_text(g->lspr_after) : "",
		g->before && g->after ? (g->lspr_moved ? "true" : "false") : "");
}

int mf_diff_out_csv(FILE *fp, const struct mf_diff *d)
{
	static const struct {
		unsigned bit;
		const char *name;
	} keys[] = {{MF_BY_SYSTEM, "system"}, {MF_BY_LPAR, "lpar"}, {MF_BY_POOL, "pool"}, {MF_BY_CPU, "cpu"}};
	unsigned tf = isatty(fileno(fp)) ? MF_ESCAPE_CSV_TERMINAL : 0;
	size_t i;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (d->by & keys[i].bit)
			fprintf(fp, "%s,", keys[i].name);
	fputs("metric,before_machine,after_machine,before_period_start,before_period_end,after_period_start,"
	      "after_period_end,before,after,change,percent,moved\n",
	      fp);
	for (i = 0; i < d->ngroups; i++)
		csv_group(fp, d, &d->groups[i], tf);
	for (i = 0; i < d->nonly_before; i++)
		csv_group(fp, d, &d->only_before[i], tf);
	for (i = 0; i < d->nonly_after; i++)
		csv_group(fp, d, &d->only_after[i], tf);
	return ferror(fp) ? MF_EIO : 0;
}

/* ---- JSON ---- */

static void json_num(FILE *fp, double v)
{
	char b[40];
	if (isnan(v) || isinf(v))
		fputs("null", fp);
	else
		fwrite(b, 1, (size_t)mf_fmt_g15(v == 0 ? 0.0 : v, b), fp);
}

static void json_str(FILE *fp, const char *s)
{
	mf_escape_json_file(fp, s); /* NULL: null */
}

/* "system":..,"pool":.., the keys of --by, each followed by a comma. */
static void json_keys(FILE *fp, const struct mf_diff *d, const struct mf_diff_group *g)
{
	const struct mf_result *r = g->before ? g->before : g->after;
	const struct mf_report *rep = g->before ? d->before : d->after;
	const char *text[3] = {mf_strtab_get(rep->tab, r->group->system), mf_strtab_get(rep->tab, r->group->lpar),
			       mf_pool_name(r->group->pool)};
	static const unsigned bit[3] = {MF_BY_SYSTEM, MF_BY_LPAR, MF_BY_POOL};
	static const char *const name[3] = {"\"system\":", "\"lpar\":", "\"pool\":"};
	size_t k;
	for (k = 0; k < 3; k++) {
		if (!(d->by & bit[k]))
			continue;
		fputs(name[k], fp);
		json_str(fp, text[k]);
		fputc(',', fp);
	}
	if (d->by & MF_BY_CPU) {
		fputs("\"cpu\":", fp);
		if (r->group->cpu >= 0)
			fprintf(fp, "%lld,", (long long)r->group->cpu);
		else
			fputs("null,", fp);
	}
}

/* One side of a group: "period_start":..,"period_end":..,"machine":..,"metrics":{..} (the metrics its family defines). */
static void json_side(FILE *fp, const struct mf_diff *d, const struct mf_report *rep, const struct mf_result *r)
{
	char s[48], e[48];
	size_t k;
	bool first = true;
	group_period(rep, r, s, e, sizeof(s));
	fputs("\"period_start\":", fp);
	json_str(fp, s[0] ? s : NULL);
	fputs(",\"period_end\":", fp);
	json_str(fp, e[0] ? e : NULL);
	fputs(",\"machine\":", fp);
	json_str(fp, r->group->family->display);
	fputs(",\"metrics\":{", fp);
	for (k = 0; k < d->nmetrics; k++) {
		int m = mf_family_metric(r->group->family, d->metrics[k]);
		if (m < 0)
			continue;
		fputs(first ? "" : ",", fp);
		first = false;
		json_str(fp, d->metrics[k]);
		fputc(':', fp);
		json_num(fp, r->value[m]);
	}
	fputc('}', fp);
}

static void json_group(FILE *fp, const struct mf_diff *d, const struct mf_diff_group *g)
{
	size_t k;
	bool first = true;
	fputc('{', fp);
	json_keys(fp, d, g);
	fputs("\"before\":{", fp);
	json_side(fp, d, d->before, g->before);
	fputs("},\"after\":{", fp);
	json_side(fp, d, d->after, g->after);
	fputs("},\"change\":{", fp);
	for (k = 0; k < d->nmetrics; k++) {
		const struct mf_diff_value *v = &g->values[k];
		if (!v->in_before && !v->in_after)
			continue;
		fputs(first ? "" : ",", fp);
		first = false;
		json_str(fp, d->metrics[k]);
		fputs(":{\"delta\":", fp);
		json_num(fp, v->delta);
		fputs(",\"percent\":", fp);
		json_num(fp, v->percent);
		fputc('}', fp);
	}
	fputs("},\"lspr\":{\"before\":", fp);
	json_str(fp, mf_lspr_name(g->lspr_before));
	fputs(",\"after\":", fp);
	json_str(fp, mf_lspr_name(g->lspr_after));
	fprintf(fp, ",\"moved\":%s}}", g->lspr_moved ? "true" : "false");
}

static void json_only(FILE *fp, const struct mf_diff *d, const char *name, const struct mf_diff_group *gs, size_t n)
{
	size_t i;
	fprintf(fp, ",\"%s\":[", name);
	for (i = 0; i < n; i++) {
		const struct mf_result *r = gs[i].before ? gs[i].before : gs[i].after;
		fputs(i ? ",\n{" : "\n{", fp);
		json_keys(fp, d, &gs[i]);
		json_side(fp, d, gs[i].before ? d->before : d->after, r);
		fputs(",\"lspr\":", fp);
		json_str(fp, mf_lspr_name(r->lspr));
		fputc('}', fp);
	}
	fputs(n ? "\n]" : "]", fp);
}

/* "before":{"start":..,"end":..,"tz":..,"systems":..,"rows":..,"skipped_rows":..} */
static void json_period(FILE *fp, const char *name, const struct mf_report *rep)
{
	char s[48], e[48];
	bool any = mf_report_period(rep, s, e, sizeof(s));
	fprintf(fp, ",\"%s\":{\"start\":", name);
	json_str(fp, any ? s : NULL);
	fputs(",\"end\":", fp);
	json_str(fp, any ? e : NULL);
	fputs(",\"tz\":", fp);
	json_str(fp, rep->tz ? mf_tz_name(rep->tz) : "UTC");
	fprintf(fp, ",\"systems\":%zu,\"rows\":%llu,\"skipped_rows\":%llu}", rep->nsystems,
		(unsigned long long)rep->rows_read, (unsigned long long)rep->rows_skipped);
}

int mf_diff_out_json(FILE *fp, const struct mf_diff *d)
{
	size_t i;
	fputs("{\"schema\":1", fp);
	json_period(fp, "before", d->before);
	json_period(fp, "after", d->after);
	fputs(",\"groups\":[", fp);
	for (i = 0; i < d->ngroups; i++) {
		fputs(i ? ",\n" : "\n", fp);
		json_group(fp, d, &d->groups[i]);
	}
	fputs(d->ngroups ? "\n]" : "]", fp);
	json_only(fp, d, "only_before", d->only_before, d->nonly_before);
	json_only(fp, d, "only_after", d->only_after, d->nonly_after);
	fputs("}\n", fp);
	return ferror(fp) ? MF_EIO : 0;
}

/* ---- HTML ---- */

static const char html_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	"<title>mfstat diff</title>\n<style>\n"
	"body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:70em}\n"
	"table{border-collapse:collapse;margin:.5em 0 1.5em}\n"
	"th,td{border:1px solid #ccc;padding:.2em .6em;text-align:right}\n"
	"th{background:#f0f0f0}td.l,th.l{text-align:left}\n"
	"tr.big td{background:#fff3cd}.up{color:#8a3b00}.down{color:#00558a}.na{color:#888}\n"
	"li{margin:.3em 0}h2{margin-top:1.5em}\n"
	"</style></head><body>\n<h1>mfstat diff</h1>\n";

static void esc(struct mf_strbuf *sb, const char *s)
{
	mf_escape_xml(sb, s);
}

static void html_finding(void *ctx, const char *text)
{
	struct mf_strbuf *sb = ctx;
	mf_strbuf_puts(sb, "<li>");
	esc(sb, text);
	mf_strbuf_puts(sb, "</li>\n");
}

/* The two periods side by side. */
static void html_periods(struct mf_strbuf *sb, const struct mf_diff *d)
{
	const struct mf_report *side[2] = {d->before, d->after};
	char s[48], e[48];
	size_t k, row;
	static const char *const label[] = {"period", "time zone", "systems", "rows read", "files", "groups"};
	mf_strbuf_puts(sb, "<h2>The two periods</h2>\n<table><tr><th></th><th>before</th><th>after</th></tr>\n");
	for (row = 0; row < sizeof(label) / sizeof(label[0]); row++) {
		mf_strbuf_printf(sb, "<tr><th class=\"l\">%s</th>", label[row]);
		for (k = 0; k < 2; k++) {
			const struct mf_report *rep = side[k];
			mf_strbuf_puts(sb, "<td class=\"l\">");
			switch (row) {
			case 0:
				if (mf_report_period(rep, s, e, sizeof(s))) {
					esc(sb, s);
					mf_strbuf_puts(sb, " to ");
					esc(sb, e);
				} else {
					mf_strbuf_puts(sb, "no interval times");
				}
				break;
			case 1: esc(sb, rep->tz ? mf_tz_name(rep->tz) : "UTC"); break;
			case 2: mf_strbuf_printf(sb, "%zu", rep->nsystems); break;
			case 3: mf_strbuf_printf(sb, "%llu", (unsigned long long)rep->rows_read); break;
			case 4: mf_strbuf_printf(sb, "%zu", rep->nfiles); break;
			default: mf_strbuf_printf(sb, "%zu", rep->ngroups); break;
			}
			mf_strbuf_puts(sb, "</td>");
		}
		mf_strbuf_puts(sb, "</tr>\n");
	}
	mf_strbuf_puts(sb, "</table>\n");
}

static void html_group(struct mf_strbuf *sb, const struct mf_diff *d, const struct mf_diff_group *g)
{
	char name[200], a[48], b[48], c[48], p[48];
	size_t k;
	mf_diff_group_name(d, g, name, sizeof(name));
	mf_strbuf_puts(sb, "<h3>");
	esc(sb, name);
	mf_strbuf_puts(sb, ": ");
	esc(sb, g->before->group->family->display);
	mf_strbuf_puts(sb, " &#8594; ");
	esc(sb, g->after->group->family->display);
	mf_strbuf_printf(sb, ", LSPR %s &#8594; %s%s</h3>\n", lspr_text(g->lspr_before), lspr_text(g->lspr_after),
			 g->lspr_moved ? " <strong>(moved)</strong>" : "");
	mf_strbuf_puts(sb,
		       "<table><tr><th class=\"l\">metric</th><th class=\"l\">unit</th><th>before</th>"
		       "<th>after</th><th>change</th><th>%</th></tr>\n");
	for (k = 0; k < d->nmetrics; k++) {
		const struct mf_diff_value *v = &g->values[k];
		int m = -1;
		const struct mf_family *fam = defining(g, d->metrics[k], &m);
		int dg = fam ? fam->metrics[m].digits : 3;
		if (!fam)
			continue;
		fmt_value(b, sizeof(b), v->in_before, v->before, dg, false);
		fmt_value(a, sizeof(a), v->in_after, v->after, dg, false);
		fmt_value(c, sizeof(c), v->in_before && v->in_after, v->delta, dg, true);
		fmt_percent(p, sizeof(p), v->percent);
		mf_strbuf_printf(sb, "<tr%s><td class=\"l\" title=\"", fabs(v->percent) >= 5 ? " class=\"big\"" : "");
		esc(sb, fam->metrics[m].desc);
		mf_strbuf_puts(sb, "\">");
		esc(sb, d->metrics[k]);
		mf_strbuf_puts(sb, "</td><td class=\"l\">");
		esc(sb, fam->metrics[m].unit);
		mf_strbuf_printf(sb,
				 "</td><td>%s</td><td>%s</td><td class=\"%s\">%s</td><td class=\"%s\">%s</td></tr>\n",
				 b, a,
				 v->delta > 0   ? "up"
				 : v->delta < 0 ? "down"
						: "na",
				 c,
				 v->delta > 0   ? "up"
				 : v->delta < 0 ? "down"
						: "na",
				 p);
	}
	mf_strbuf_puts(sb, "</table>\n");
}

static void html_only(struct mf_strbuf *sb, const struct mf_diff *d, const char *label, const struct mf_diff_group *gs,
		      size_t n)
{
	size_t i;
	if (!n)
		return;
	mf_strbuf_printf(sb, "<h2>Only %s</h2>\n<ul>\n", label);
	for (i = 0; i < n; i++) {
		const struct mf_result *r = gs[i].before ? gs[i].before : gs[i].after;
		char name[200];
		mf_diff_group_name(d, &gs[i], name, sizeof(name));
		mf_strbuf_puts(sb, "<li>");
		esc(sb, name);
		mf_strbuf_puts(sb, " (");
		esc(sb, r->group->family->display);
		mf_strbuf_printf(sb, "), LSPR %s</li>\n", lspr_text(r->lspr));
	}
	mf_strbuf_puts(sb, "</ul>\n");
}

int mf_diff_out_html(FILE *fp, const struct mf_diff *d)
{
	struct mf_strbuf sb;
	size_t i;
	int rc;
	mf_strbuf_init(&sb);
	mf_strbuf_puts(&sb, html_head);
	mf_strbuf_puts(&sb, "<h2>What moved most, and why</h2>\n<ul>\n");
	if (!mf_diff_findings(d, MAX_FINDINGS, html_finding, &sb))
		mf_strbuf_puts(&sb, "<li>No LSPR class moved, and no CPI, RNI, L1MP or LPARCPU by 1% or more.</li>\n");
	mf_strbuf_puts(&sb, "</ul>\n");
	html_periods(&sb, d);
	mf_strbuf_printf(&sb, "<h2>Groups on both sides (%zu)</h2>\n", d->ngroups);
	for (i = 0; i < d->ngroups; i++)
		html_group(&sb, d, &d->groups[i]);
	html_only(&sb, d, "before", d->only_before, d->nonly_before);
	html_only(&sb, d, "after", d->only_after, d->nonly_after);
	mf_strbuf_puts(&sb, "</body></html>\n");
	if (sb.failed) {
		mf_strbuf_free(&sb);
		return MF_ENOMEM;
	}
	fwrite(mf_strbuf_str(&sb), 1, sb.len, fp);
	rc = ferror(fp) ? MF_EIO : 0;
	mf_strbuf_free(&sb);
	return rc;
}

int (*mf_diff_writer(const char *name))(FILE *fp, const struct mf_diff *d)
{
	static const struct {
		const char *name;
		int (*write)(FILE *fp, const struct mf_diff *d);
	} w[] = {{"text", mf_diff_out_text},
		 {"csv", mf_diff_out_csv},
		 {"json", mf_diff_out_json},
		 {"html", mf_diff_out_html}};
	size_t i;
	for (i = 0; name && i < sizeof(w) / sizeof(w[0]); i++)
		if (strcmp(w[i].name, name) == 0)
			return w[i].write;
	return NULL;
}
