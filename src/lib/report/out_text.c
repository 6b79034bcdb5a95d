/* SPDX-License-Identifier: MIT */
/*
 * Text writer: aligned tables a person reads at a glance.  The first table
 * holds the workload view (CPI, misses, where they were sourced, RNI, busy,
 * LSPR class); the second the remaining metrics of the same groups.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/base/escape.h"
#include "mfstat/report/output.h"
#include "mfstat/base/strbuf.h"

static const char *const headline[] = {"CPI",  "PRBSTATE", "L1MP", "L15P", "L2LP",    "L2RP", "L2P", "L3P",
				       "L4LP", "L4RP",     "MEMP", "RNI",  "LPARCPU", "LSPR", NULL};

struct table {
	size_t ncols, nrows;
	char **cell; /* nrows x ncols, row 0 and 1 are the header (name, unit) */
	bool *right; /* per column: right-aligned */
};

static bool is_headline(const char *k)
{
	size_t i;
	for (i = 0; headline[i]; i++)
		if (strcmp(headline[i], k) == 0)
			return true;
	return false;
}

/* A name from the input for the table: control characters shown as \xNN (mf_escape_text). */
static char *text_dup(const char *s)
{
	struct mf_strbuf sb;
	char *d;
	mf_strbuf_init(&sb);
	mf_escape_text(&sb, s, 0);
	d = strdup(mf_strbuf_str(&sb));
	mf_strbuf_free(&sb);
	return d;
}

/* prefix, the count when not 0 with ": ", then text escaped, and a newline (text's own when it ends in one). */
static void put_text(FILE *fp, const char *prefix, unsigned long long count, const char *text, unsigned flags)
{
	struct mf_strbuf sb;
	const char *t;
	size_t n;
	mf_strbuf_init(&sb);
	mf_escape_text(&sb, text, flags);
	t = mf_strbuf_str(&sb);
	n = strlen(t);
	if (count)
		fprintf(fp, "%s%llu: %s%s", prefix, count, t, n && t[n - 1] == '\n' ? "" : "\n");
	else
		fprintf(fp, "%s%s%s", prefix, t, n && t[n - 1] == '\n' ? "" : "\n");
	mf_strbuf_free(&sb);
}

static char *dupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *dupf(const char *fmt, ...)
{
	va_list ap;
	char buf[256];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return strdup(buf);
}

static void print_table(FILE *fp, const struct table *t)
{
	size_t *w = calloc(t->ncols ? t->ncols : 1, sizeof(*w));
	size_t r, c;
	if (!w)
		return;
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			const char *s = t->cell[r * t->ncols + c];
			size_t n = s ? strlen(s) : 0;
			if (n > w[c])
				w[c] = n;
		}
	for (r = 0; r < t->nrows; r++) {
		struct mf_strbuf sb;
		mf_strbuf_init(&sb);
		for (c = 0; c < t->ncols; c++) {
			const char *s = t->cell[r * t->ncols + c];
			size_t n = s ? strlen(s) : 0;
			if (c)
				mf_strbuf_puts(&sb, "  ");
			if (t->right[c])
				mf_strbuf_pad(&sb, ' ', w[c] - n);
			if (s)
				mf_strbuf_puts(&sb, s);
			if (!t->right[c] && c + 1 < t->ncols)
				mf_strbuf_pad(&sb, ' ', w[c] - n);
		}
		/* No trailing blanks. */
		while (sb.len && sb.buf[sb.len - 1] == ' ')
			sb.buf[--sb.len] = '\0';
		fprintf(fp, "%s\n", mf_strbuf_str(&sb));
		if (r == 1) {
			size_t total = 0;
			for (c = 0; c < t->ncols; c++)
				total += w[c] + (c ? 2 : 0);
			mf_strbuf_free(&sb);
			mf_strbuf_pad(&sb, '-', total);
			fprintf(fp, "%s\n", mf_strbuf_str(&sb));
		}
		mf_strbuf_free(&sb);
	}
	free(w);
}

static void free_table(struct table *t)
{
	size_t i;
	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cell[i]);
	free(t->cell);
	free(t->right);
}

/* The text of a group's key column (MF_BY_* bit), "-" when the group has none. */
static char *key_cell(const struct mf_report *rep, const struct mf_group *g, unsigned bit)
{
	const char *s = NULL;
	char tbuf[48];
	switch (bit) {
	case MF_BY_SYSTEM: s = mf_strtab_get(rep->tab, g->system); return s ? text_dup(s) : strdup("-");
	case MF_BY_LPAR: s = mf_strtab_get(rep->tab, g->lpar); return s ? text_dup(s) : strdup("-");
	case MF_BY_POOL: s = mf_pool_name(g->pool); return strdup(s ? s : "-");
	case MF_BY_CPU: return g->cpu >= 0 ? dupf("%lld", (long long)g->cpu) : strdup("-");
	case MF_BY_INTERVAL:
		if (!g->has_start)
			return strdup("-");
		mf_report_label(rep, g, g->start_us, tbuf, sizeof(tbuf));
		return strdup(tbuf);
	default: s = mf_report_key_text(rep, g, bit, tbuf, sizeof(tbuf)); return s ? text_dup(s) : strdup("-");
	}
}

/* Builds one table of the given keys; returns -1 on ENOMEM. */
static int build(const struct mf_report *rep, const char **keys, size_t nkeys, struct table *t)
{
	unsigned idbit[5 + MF_EXTRA_KEYS_MAX] = {MF_BY_SYSTEM, MF_BY_LPAR, MF_BY_POOL};
	size_t nid = 0, nbits = 3, i, k, c;
	uint64_t *own;
	const uint64_t *expected = mf_report_expected(rep, &own);

	/* The key columns: system, LPAR, pool, then the file and calendar bucket, interval and CPU. */
	nbits += mf_report_extra_keys(rep, idbit + nbits);
	idbit[nbits++] = MF_BY_INTERVAL;
	idbit[nbits++] = MF_BY_CPU;
	for (k = 0; k < nbits; k++)
		if (rep->by & idbit[k])
			idbit[nid++] = idbit[k];
	t->ncols = nid + 2 + nkeys; /* ids, machine, cpus, metrics */
	t->nrows = rep->ngroups + 2;
	t->cell = calloc(t->ncols * t->nrows, sizeof(*t->cell));
	t->right = calloc(t->ncols, sizeof(*t->right));
	if (!t->cell || !t->right || !expected) {
		free(own);
		return -1;
	}
	c = 0;
	for (k = 0; k < nid; k++)
		t->cell[c++] = strdup(mf_by_name(idbit[k]));
	t->cell[c++] = strdup("machine");
	t->right[c] = true;
	t->cell[c++] = strdup("cpus");
	for (k = 0; k < nkeys; k++, c++) {
		const struct mf_family *fam = NULL;
		t->cell[c] = strdup(keys[k]);
		t->right[c] = true;
		/* The unit from the first family that defines the key. */
		for (i = 0; i < rep->ngroups && !fam; i++) {
			int idx = mf_report_column_index(rep, rep->results[i].group->family, keys[k]);
			if (idx >= 0)
				fam = rep->results[i].group->family;
			if (idx >= 0)
				t->cell[t->ncols + c] = strdup(fam->metrics[idx].unit);
			if (idx == MF_REPORT_LSPR) {
				t->right[c] = false;
				break;
			}
		}
	}
	for (i = 0; i < rep->ngroups; i++) {
		const struct mf_result *r = &rep->results[i];
		const struct mf_group *g = r->group;
		char **row = &t->cell[(i + 2) * t->ncols];
		for (c = 0; c < nid; c++)
			row[c] = key_cell(rep, g, idbit[c]);
		row[c++] = strdup(g->family->display);
		/* An interval short of its system's CPUs (lost data): "3 of 4", not a dip in load. */
		if (mf_group_cpus(g) < expected[i])
			row[c++] = dupf("%llu of %llu", (unsigned long long)mf_group_cpus(g),
					(unsigned long long)expected[i]);
		else
			row[c++] = dupf("%llu", (unsigned long long)mf_group_cpus(g));
		for (k = 0; k < nkeys; k++, c++) {
			int idx = mf_report_column_index(rep, g->family, keys[k]);
			if (idx == MF_REPORT_LSPR) {
				const char *l = mf_lspr_name(r->lspr);
				row[c] = strdup(l ? l : "n/a");
			} else if (idx >= 0) {
				double v = r->value[idx];
				char b[64];
				mf_fmt_metric(b, sizeof(b), mf_shown(v, g->family->metrics[idx].digits),
					      g->family->metrics[idx].digits, false);
				row[c] = strdup(isnan(v) ? "n/a" : b);
			} else {
				row[c] = strdup("");
			}
		}
	}
	free(own);
	for (i = 0; i < t->ncols * t->nrows; i++)
		if (!t->cell[i] && i >= t->ncols * 2)
			return -1;
	return 0;
}

/* With --by lpar: every LPAR of the machines in the SMF type 70 records, from RMF's PR/SM view. */
static int lpar_table(FILE *fp, const struct mf_report *rep)
{
	struct table t;
	size_t i, c;
	static const char *const head[] = {"machine", "lpar", "number", "system", "weight", "logical processors",
					   "RMF busy"};
	memset(&t, 0, sizeof(t));
	t.ncols = 7;
	t.nrows = rep->nlpars + 2;
	t.cell = calloc(t.ncols * t.nrows, sizeof(*t.cell));
	t.right = calloc(t.ncols, sizeof(*t.right));
	if (!t.cell || !t.right) {
		free_table(&t);
		return -1;
	}
	for (c = 0; c < t.ncols; c++)
		t.cell[c] = strdup(head[c]);
	t.right[2] = t.right[6] = true;
	t.cell[t.ncols + 6] = strdup("% engine");
	for (i = 0; i < rep->nlpars; i++) {
		const struct mf_lpar_row *row = &rep->lpars[i];
		char **cell = &t.cell[(i + 2) * t.ncols], buf[512];
		const char *sys = row->system ? mf_strtab_get(rep->tab, row->system) : NULL;
		double busy = mf_lpar_rmf_busy(row);
		cell[0] = row->machine_type ? dupf("%s (%u)", row->serial[0] ? row->serial : "-", row->machine_type)
					    : text_dup(row->serial[0] ? row->serial : "-");
		cell[1] = text_dup(row->name);
		cell[2] = dupf("%u", row->number);
		cell[3] = text_dup(sys ? sys : "-");
		mf_lpar_pools_text(row, true, " ", buf, sizeof(buf));
		cell[4] = strdup(buf);
		mf_lpar_pools_text(row, false, " ", buf, sizeof(buf));
		cell[5] = strdup(buf);
		cell[6] = isnan(busy) ? strdup("n/a") : dupf("%.1f", mf_shown(busy, 1));
	}
	fputs("LPARs of the machines (SMF type 70, RMF's PR/SM view over the intervals read):\n", fp);
	print_table(fp, &t);
	fputc('\n', fp);
	free_table(&t);
	return 0;
}

int mf_out_text(FILE *fp, const struct mf_report *rep)
{
	size_t nkeys, k, n1 = 0, n2 = 0, i;
	const char **keys = mf_report_keys(rep, &nkeys);
	const char **k1 = NULL, **k2 = NULL;
	int rc = 0;

	if (!keys)
		return MF_ENOMEM;
	k1 = malloc((nkeys + 1) * sizeof(*k1));
	k2 = malloc((nkeys + 1) * sizeof(*k2));
	if (!k1 || !k2) {
		rc = MF_ENOMEM;
		goto out;
	}
	for (k = 0; k < nkeys; k++) {
		if (is_headline(keys[k]) || rep->columns) /* --metrics: one table, as asked */
			k1[n1++] = keys[k];
		else
			k2[n2++] = keys[k];
	}
	if (n1 <= 1) {
		/* A family without IBM's workload metrics (a bus or memory set), or with only one of
		 * them (Linux's generic events: CPI): one table, not a table of one column. */
		memcpy(k1 + n1, k2, n2 * sizeof(*k1));
		n1 += n2;
		n2 = 0;
	}
	{
		char line[256];
		mf_report_period_line(rep, line, sizeof(line));
		if (line[0])
			fprintf(fp, "%s\n\n", line);
	}
	if (rep->ngroups) {
		struct table t;
		memset(&t, 0, sizeof(t));
		if (build(rep, k1, n1, &t) == 0)
			print_table(fp, &t);
		else
			rc = MF_ENOMEM;
		free_table(&t);
		if (n2 && !rc) {
			memset(&t, 0, sizeof(t));
			fputc('\n', fp);
			if (build(rep, k2, n2, &t) == 0)
				print_table(fp, &t);
			else
				rc = MF_ENOMEM;
			free_table(&t);
		}
		fputc('\n', fp);
	}
	if (rep->nlpars && (rep->by & MF_BY_LPAR) && !rc && lpar_table(fp, rep))
		rc = MF_ENOMEM;
	if (rep->nfiles == 0) /* counted live (mfstat stat), not read */
		fprintf(fp, "%llu sample%s counted, %zu group%s\n", (unsigned long long)rep->rows_read,
			rep->rows_read == 1 ? "" : "s", rep->ngroups, rep->ngroups == 1 ? "" : "s");
	else
		fprintf(fp, "%llu row%s read from %zu file%s, %zu group%s, %llu row%s skipped\n",
			(unsigned long long)rep->rows_read, rep->rows_read == 1 ? "" : "s", rep->nfiles,
			rep->nfiles == 1 ? "" : "s", rep->ngroups, rep->ngroups == 1 ? "" : "s",
			(unsigned long long)rep->rows_skipped, rep->rows_skipped == 1 ? "" : "s");
	for (i = 0; i < rep->nreasons; i++)
		put_text(fp, "  skipped ", rep->reason_count[i], rep->reason[i], 0);
	if (rep->groups_cut)
		fprintf(fp, "%llu group%s below the top of %s series not shown (--top)\n",
			(unsigned long long)rep->groups_cut, rep->groups_cut == 1 ? "" : "s",
			rep->groups_cut == 1 ? "its" : "their");
	{
		char line[1024];
		mf_report_left_out_text(rep, line, sizeof(line));
		if (line[0])
			fprintf(fp, "%s\n", line);
	}
	if (rep->input_summary && rep->input_summary[0])
		put_text(fp, "", 0, rep->input_summary, MF_ESCAPE_TEXT_KEEP_NL);
	for (i = 0; i < rep->nwarnings; i++)
		put_text(fp, "warning: ", 0, rep->warnings[i], 0);
out:
	free(k1);
	free(k2);
	free(keys);
	return rc ? rc : (ferror(fp) ? MF_EIO : 0);
}
