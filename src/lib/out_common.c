/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "mfstat/output.h"

int mf_report_key_index(const struct mf_family *fam, const char *key)
{
	size_t j;
	for (j = 0; j < fam->nreport; j++) {
		int idx = fam->report[j];
		if (idx == MF_REPORT_LSPR) {
			if (strcmp(key, "LSPR") == 0)
				return MF_REPORT_LSPR;
		} else if (strcmp(fam->metrics[idx].name, key) == 0) {
			return idx;
		}
	}
	return -1;
}

const char **mf_report_keys(const struct mf_report *rep, size_t *n)
{
	const struct mf_kb *kb = rep->kb;
	const char **keys = malloc((kb->nkeys + 1) * sizeof(*keys));
	bool *seen = calloc(kb->nfamilies + 1, sizeof(*seen));
	size_t i, k;

	*n = 0;
	if (!keys || !seen) {
		free(keys);
		free(seen);
		return NULL;
	}
	for (i = 0; i < rep->ngroups; i++)
		seen[rep->results[i].group->family - kb->families] = true;
	for (k = 0; k < kb->nkeys; k++) {
		for (i = 0; i < kb->nfamilies; i++) {
			if (seen[i] && mf_report_key_index(&kb->families[i], kb->keys[k]) != -1) {
				keys[(*n)++] = kb->keys[k];
				break;
			}
		}
	}
	free(seen);
	return keys;
}

int *mf_report_key_map(const struct mf_report *rep, const char *const *keys, size_t nkeys)
{
	const struct mf_kb *kb = rep->kb;
	int *map = malloc((kb->nfamilies * nkeys + 1) * sizeof(*map));
	size_t f, k;
	if (!map)
		return NULL;
	for (f = 0; f < kb->nfamilies; f++)
		for (k = 0; k < nkeys; k++)
			map[f * nkeys + k] = mf_report_key_index(&kb->families[f], keys[k]);
	return map;
}
