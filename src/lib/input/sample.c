/* SPDX-License-Identifier: MIT */
#include "mfstat/input/sample.h"

#include <math.h>
#include <string.h>
#include <strings.h>

void mf_sample_reset(struct mf_sample *s)
{
	s->family = NULL;
	s->machine = NULL;
	s->system = 0;
	s->lpar = 0;
	s->cpu = -1;
	s->pool = MF_POOL_NONE;
	s->has_start = false;
	s->start_us = 0;
	s->seconds = NAN;
	s->cpsp = NAN;
	s->cpsp_nominal = false;
	s->user_only = 0;
	s->has_offset = false;
	s->utc_offset_s = 0;
	s->input = 0;
	s->line = 0;
	s->offset = -1;
	s->lpar_joined = false;
	s->polarity = MF_POL_NONE;
	s->lpar_weight = -1;
	s->drawer = -1;
	s->chip = -1;
	s->rmf_busy_s = NAN;
	s->rollup_rows = 0;
	s->rollup_cpus = 0;
	s->rollup_busy_ns = 0;
	s->present_bits = NULL;
	s->n = 0;
}

int mf_pool_parse(const char *s, size_t len)
{
	static const struct {
		const char *name;
		int pool;
	} names[] = {{"GCP", MF_POOL_GCP},
		     {"CP", MF_POOL_GCP},
		     {"ZIIP", MF_POOL_ZIIP},
		     {"ZAAP", MF_POOL_ZAAP},
		     {"IFL", MF_POOL_IFL},
		     {"ICF", MF_POOL_ICF},
		     {"ZCBP", MF_POOL_ZCBP},
		     /* RMF pool numbers (cpumf-formulas.md, rule 3). */
		     {"1", MF_POOL_GCP},
		     {"3", MF_POOL_ZAAP},
		     {"6", MF_POOL_ZIIP}};
	size_t i;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = 0;
		while (names[i].name[n])
			n++;
		if (n == len && strncasecmp(names[i].name, s, len) == 0)
			return names[i].pool;
	}
	return -1;
}

const char *mf_polarity_name(int polarity)
{
	static const char *const names[MF_POL_COUNT] = {NULL, "VH", "VM", "VL", "HZ"};
	return polarity > MF_POL_NONE && polarity < MF_POL_COUNT ? names[polarity] : NULL;
}

int mf_polarity_parse(const char *s, size_t len)
{
	static const struct {
		const char *name;
		int pol;
	} names[] = {{"VH", MF_POL_VH},   {"VM", MF_POL_VM},     {"VL", MF_POL_VL},  {"HZ", MF_POL_HZ},
		     {"high", MF_POL_VH}, {"medium", MF_POL_VM}, {"low", MF_POL_VL}, {"horizontal", MF_POL_HZ}};
	size_t i;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == len && strncasecmp(names[i].name, s, len) == 0)
			return names[i].pol;
	return -1;
}
