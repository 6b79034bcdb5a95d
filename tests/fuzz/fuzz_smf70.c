/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the SMF type 70 subtype 1 and type 99 subtype 14 decoders
 * (mf_smf70_decode, mf_smf99_14_decode) on the input as one record (RDW
 * included), then on a copy whose RDW length is patched to the input size
 * (so the length check passes and the sections are reached), with the arrays
 * of the first decode reused.  What decodes is checked for consistency and
 * fed to an LPAR map with a sample joined per CPU.  The corpus
 * (tests/fuzz/corpus/smf70) holds records cut out of a gensmf dump.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/input/lpar.h"
#include "mfstat/mfstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct mf_sample sample;

/* The promises of smf.h about a decoded type 70 record; abort() if one is broken. */
static void check70(const struct mf_smf70 *r)
{
	size_t i;
	if (r->own >= (long)r->nlpars || r->own < -1 || r->end_us < r->start_us)
		abort();
	for (i = 0; i < r->nlpars; i++)
		if (r->lpars[i].first > r->nlcpus || r->lpars[i].n > r->nlcpus - r->lpars[i].first ||
		    memchr(r->lpars[i].name, 0, sizeof(r->lpars[i].name)) == NULL)
			abort();
	for (i = 0; i < r->nlcpus; i++)
		if (r->lcpus[i].polarity < 0 || r->lcpus[i].polarity >= MF_POL_COUNT || r->lcpus[i].pool < 0 ||
		    r->lcpus[i].pool >= MF_NPOOLS)
			abort();
	for (i = 0; i < r->ncpus; i++)
		if (r->cpus[i].lcpu < -1 || r->cpus[i].lcpu >= (long)r->nlcpus || r->cpus[i].pool < 0 ||
		    r->cpus[i].pool >= MF_NPOOLS)
			abort();
	if (!memchr(r->system, 0, sizeof(r->system)) || !memchr(r->serial, 0, sizeof(r->serial)) ||
	    !memchr(r->model, 0, sizeof(r->model)))
		abort();
}

static void check99(const struct mf_smf99t *t)
{
	size_t i;
	if (!memchr(t->system, 0, sizeof(t->system)))
		abort();
	for (i = 0; i < t->ncpus; i++)
		if (t->cpus[i].polarity < 0 || t->cpus[i].polarity >= MF_POL_COUNT || t->cpus[i].levels > 5)
			abort();
}

static void ignore(void *ctx, const char *msg)
{
	(void)ctx;
	if (!msg || !*msg)
		abort();
}

/* The decoded records into a map, one sample per CPU over the RMF interval joined, the warnings made. */
static void lpar_view(const struct mf_smf70 *r, const struct mf_smf99t *t)
{
	struct mf_lparmap *m = mf_lparmap_new();
	struct mf_strtab *tab = mf_strtab_new();
	struct mf_lpar_row *rows = NULL;
	size_t i, n;
	if (!m || !tab)
		abort();
	if ((r && mf_lparmap_add_rmf(m, tab, r)) || (t && mf_lparmap_add_topo(m, tab, t)))
		abort();
	for (i = 0; r && i < r->ncpus; i++) {
		mf_sample_reset(&sample);
		sample.system = mf_strtab_intern(tab, r->system, strlen(r->system));
		sample.has_start = true;
		sample.start_us = r->start_us;
		sample.seconds = (double)(r->end_us - r->start_us) / 1e6;
		sample.cpu = r->cpus[i].id;
		mf_lparmap_join(m, &sample);
		if (!isnan(sample.rmf_busy_s) && sample.rmf_busy_s < 0)
			abort();
	}
	for (i = 0; t && i < t->ncpus; i++) {
		mf_sample_reset(&sample);
		sample.system = mf_strtab_intern(tab, t->system, strlen(t->system));
		sample.cpu = t->cpus[i].cpu;
		mf_lparmap_join(m, &sample);
	}
	mf_lparmap_warnings(m, tab, ignore, NULL);
	if (mf_lparmap_table(m, tab, &rows, &n))
		abort();
	free(rows);
	mf_lparmap_free(m);
	mf_strtab_free(tab);
}

static void decode(const uint8_t *rec, size_t size, struct mf_smf70 *r, struct mf_smf99t *t)
{
	char why[300];
	int a = mf_smf70_decode(rec, size, r, why, sizeof(why));
	int b = mf_smf99_14_decode(rec, size, t, why, sizeof(why));
	if (a == 0)
		check70(r);
	if (b == 0)
		check99(t);
	if (a == 0 || b == 0)
		lpar_view(a == 0 ? r : NULL, b == 0 ? t : NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mf_smf70 r;
	struct mf_smf99t t;
	uint8_t *copy;
	memset(&r, 0, sizeof(r));
	memset(&t, 0, sizeof(t));
	decode(data, size, &r, &t);
	/* The RDW length made to agree with the input (the arrays of the first decode reused). */
	copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	if (size >= 4) {
		size_t len = size > 0xFFFF ? 0xFFFF : size;
		copy[0] = (uint8_t)(len >> 8);
		copy[1] = (uint8_t)len;
		copy[2] = copy[3] = 0;
		decode(copy, len, &r, &t);
	}
	free(copy);
	mf_smf70_free(&r);
	mf_smf99t_free(&t);
	return 0;
}
