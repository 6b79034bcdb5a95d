/* SPDX-License-Identifier: MIT */
/* Metric names given on the command line (--metrics, --sort): checked against the knowledge base, then the data read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

#define NEAREST_MAX 4

/* "z16, z17": the display names of the families that define name as a column (a metric, or LSPR). */
static void defining_families(const struct mf_kb *kb, const char *name, char *buf, size_t n)
{
	size_t f, used = 0;
	buf[0] = '\0';
	for (f = 0; f < kb->nfamilies && used < n; f++) {
		const struct mf_family *fam = &kb->families[f];
		bool has = strcasecmp(name, "LSPR") == 0 ? mf_family_has_lspr(fam) : mf_family_metric(fam, name) >= 0;
		if (has)
			used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "", fam->display);
	}
}

void cli_metric_hint(const struct mf_kb *kb, const struct mf_family *fam, const char *name, bool lspr, char *buf,
		     size_t n)
{
	const char *near[NEAREST_MAX];
	size_t k, used = 0, got;
	buf[0] = '\0';
	if (fam && mf_kb_metric_name(kb, name)) { /* a metric of other families: say which */
		char where[300];
		defining_families(kb, name, where, sizeof(where));
		snprintf(buf, n, ", only on %s", where);
		return;
	}
	got = mf_kb_metric_nearest(kb, fam, name, lspr, near, NEAREST_MAX);
	if (!got)
		return;
	used += (size_t)snprintf(buf, n, got == 1 ? ": did you mean %s" : ": did you mean one of %s", near[0]);
	for (k = 1; k < got && used < n; k++)
		used += (size_t)snprintf(buf + used, n - used, ", %s", near[k]);
	if (used < n)
		snprintf(buf + used, n - used, "?");
}

int cli_metric_names(const char *cmd, const char *opt, const struct mf_kb *kb, const char *list, bool lspr,
		     const char ***names, size_t *n)
{
	const char **out;
	const char *p = list;
	*names = NULL;
	*n = 0;
	if (!list[0] || list[0] == ',' || strstr(list, ",,") || list[strlen(list) - 1] == ',')
		return cli_usage(cmd, "%s: %s: '%s' has an empty name (give names such as CPI,RNI%s)", cmd, opt, list,
				 lspr ? ",LSPR" : "");
	out = calloc(strlen(list) / 2 + 2, sizeof(*out));
	if (!out) {
		cli_nomem("reading the metric names of %s", opt);
		return EXIT_DATA;
	}
	for (;;) {
		size_t len = strcspn(p, ","), k;
		char name[128], near[300];
		const char *known = NULL;
		snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) - 1 ? len : sizeof(name) - 1), p);
		if (len < sizeof(name))
			known = mf_kb_metric_name(kb, name);
		if (known && strcmp(known, "LSPR") == 0 && !lspr) {
			free(out);
			return cli_usage(cmd,
					 "%s: %s: LSPR is a class, not a number to rank by (rank by RNI or L1MP, the "
					 "class's inputs)",
					 cmd, opt);
		}
		if (!known) {
			cli_metric_hint(kb, NULL, name, lspr, near, sizeof(near));
			free(out);
			return cli_usage(cmd, "%s: %s: '%s' is not a metric of any family%s (see mfstat metrics)", cmd,
					 opt, name, near);
		}
		for (k = 0; k < *n; k++)
			if (out[k] == known) {
				free(out);
				return cli_usage(cmd, "%s: %s: %s is named twice", cmd, opt, known);
			}
		out[(*n)++] = known;
		if (!p[len])
			break;
		p += len + 1;
	}
	*names = out;
	return -1;
}

int cli_metrics_read(const char *cmd, const char *opt, const struct mf_kb *kb, const char *const *names, size_t n,
		     const struct mf_report *const *reps, size_t nreps)
{
	const struct mf_family *fams[64];
	size_t nfam = 0, r, k, f;

	/* The families read, each once. */
	for (r = 0; r < nreps; r++) {
		const struct mf_family *got[64];
		size_t ng = mf_report_families(reps[r], got, 64);
		for (k = 0; k < ng && k < 64; k++) {
			for (f = 0; f < nfam && fams[f] != got[k]; f++)
				;
			if (f == nfam && nfam < 64)
				fams[nfam++] = got[k];
		}
	}
	for (k = 0; k < n; k++) {
		bool lspr = strcmp(names[k], "LSPR") == 0;
		const struct mf_family *lack[64];
		char lacking[300] = "", where[300];
		size_t used = 0, nlack = 0, i;
		bool generic = false;
		for (f = 0; f < nfam; f++) {
			if (lspr ? mf_family_has_lspr(fams[f]) : mf_family_metric(fams[f], names[k]) >= 0)
				continue;
			lack[nlack++] = fams[f];
			generic |= fams[f] == mf_kb_generic(kb);
		}
		if (!nlack)
			continue;
		for (i = 0; i < nlack && used < sizeof(lacking); i++) /* "z14, z15 or z16" */
			used += (size_t)snprintf(lacking + used, sizeof(lacking) - used, "%s%s",
						 !i              ? ""
						 : i + 1 < nlack ? ", "
								 : " or ",
						 lack[i]->display);
		if (nlack < nfam) {
			/* Some families read have it: their groups get values, the others' cells stay empty. */
			cli_warn("%s: %s: %s is not defined on %s: the groups of %s have no value of it", cmd, opt,
				 names[k], lacking, nlack == 1 ? "that family" : "those families");
			continue;
		}
		defining_families(kb, names[k], where, sizeof(where));
		cli_err("%s: %s: %s is not defined on %s, the famil%s of the data read (only on %s)%s", cmd, opt,
			names[k], lacking, nfam == 1 ? "y" : "ies", where,
			generic ? "; data that names no machine is read as generic: say which with --machine F" : "");
		return EXIT_DATA;
	}
	return -1;
}
