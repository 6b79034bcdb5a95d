/* SPDX-License-Identifier: MIT */
/*
 * mfdb_chains RUNFILE: the run file's call chains as folded stacks, one line
 * per distinct chain of function names, root first, and its samples
 * ("main;caller_a;mcall_apply;step 123"); samples without a chain are counted
 * on a line "- N".  A test helper for tests/measure_callgraph.sh that reads
 * only the run file (symbols included), not the binaries.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/measure/measure.h"

static void name(const struct mf_mrun *run, const struct mf_mframe *f, char *buf, size_t n)
{
	const struct mf_msym *s;
	if (f->flags & MF_FR_UNKNOWN) {
		snprintf(buf, n, "[unknown]");
		return;
	}
	if (f->flags & MF_FR_KERNEL) {
		snprintf(buf, n, "[kernel]");
		return;
	}
	s = f->mod < run->nmods ? mf_mrun_sym(run, f->mod, mf_mframe_lookup(f)) : NULL;
	if (s && s->func)
		snprintf(buf, n, "%s", s->func);
	else if (f->mod < run->nmods)
		snprintf(buf, n, "%s+0x%" PRIx64, run->mods[f->mod].name, mf_mframe_lookup(f));
	else
		snprintf(buf, n, "0x%" PRIx64, f->off);
}

int main(int argc, char **argv)
{
	struct mf_mrun run;
	struct mf_error e;
	uint64_t *count, none = 0;
	size_t i;
	mf_mrun_init(&run);
	mf_error_clear(&e);
	if (argc != 2) {
		fprintf(stderr, "usage: mfdb_chains RUNFILE\n");
		return 2;
	}
	if (mf_mfdb_load(argv[1], &run, &e) != 0) {
		fprintf(stderr, "mfdb_chains: %s: %s\n", argv[1], e.msg);
		return 1;
	}
	count = calloc(run.nstacks + 1, sizeof(*count));
	if (!count)
		return 1;
	for (i = 0; i < run.nsamples; i++) {
		if (run.samples[i].stack < run.nstacks)
			count[run.samples[i].stack]++;
		else
			none++;
	}
	for (i = 0; i < run.nstacks; i++) {
		const struct mf_mstack *st = &run.stacks[i];
		uint32_t k;
		char buf[512];
		if (!count[i])
			continue;
		for (k = st->n; k-- > 0;) {
			name(&run, &run.frames[st->first + k], buf, sizeof(buf));
			printf("%s%s", buf, k ? ";" : "");
		}
		printf(" %" PRIu64 "\n", count[i]);
	}
	if (none)
		printf("- %" PRIu64 "\n", none);
	free(count);
	mf_mrun_free(&run);
	return 0;
}
