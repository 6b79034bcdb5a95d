/* SPDX-License-Identifier: MIT */
/*
 * A hand-made profile run with call chains, shared by the tests of the
 * measure reports (test_mreport.c) and of measure diff (test_mdiff.c).
 *
 * Module app (/opt/app/app): main 0x1000, caller_a 0x1100, caller_b 0x1200,
 * cmp 0x1300, rec 0x1400; module libc (/lib/libc.so.6): qsort 0x5000.  Each
 * function is 0x100 bytes.  The chains, leaf first (return addresses named
 * by the byte before them):
 *   A: cmp <- qsort <- caller_a <- main           (a callback from the library)
 *   B: cmp <- qsort <- caller_b <- main
 *   R: rec <- rec <- rec <- main                  (recursion: rec counted once per sample)
 *   U: qsort <- [unknown]                         (a chain that could not be followed)
 *   F: caller_a alone (no chain: a flat sample)
 * Included once per program; everything is static.
 */
#ifndef MFSTAT_TEST_MCHAIN_H
#define MFSTAT_TEST_MCHAIN_H

#include <string.h>

#include "mfstat/measure/run.h"

struct mchain {
	uint32_t app, libc, st;
};

static const struct {
	const char *name;
	uint64_t start;
	int lib;
} mchain_funcs[] = {{"main", 0x1000, 0}, {"caller_a", 0x1100, 0}, {"caller_b", 0x1200, 0},
		    {"cmp", 0x1300, 0},  {"rec", 0x1400, 0},      {"qsort", 0x5000, 1}};

/* The symbol of (mod, addr), as the symbolizer would give it. */
static void mchain_sym(struct mf_mrun *run, const struct mchain *c, uint32_t mod, uint64_t addr)
{
	size_t i;
	for (i = 0; i < sizeof(mchain_funcs) / sizeof(mchain_funcs[0]); i++) {
		struct mf_msym *y;
		if ((mchain_funcs[i].lib ? c->libc : c->app) != mod || addr < mchain_funcs[i].start ||
		    addr >= mchain_funcs[i].start + 0x100)
			continue;
		y = mf_mrun_add_sym(run);
		if (!y)
			abort();
		y->mod = mod;
		y->addr = addr;
		y->func = mf_mrun_str(run, mchain_funcs[i].name);
		y->func_start = mchain_funcs[i].start;
		y->func_size = 0x100;
	}
}

#define MC_FR(m, a, fl) ((struct mf_mframe){.mod = (m), .off = (a), .flags = (fl)})

/* n samples with this chain (leaf first); nfr 1 and no flag: no chain. */
static void mchain_samples(struct mf_mrun *run, const struct mchain *c, const struct mf_mframe *fr, size_t nfr, int n)
{
	int i;
	size_t j;
	for (i = 0; i < n; i++) {
		struct mf_msample *s = mf_mrun_add_sample(run);
		if (!s)
			abort();
		s->pid = s->tid = 77;
		s->time = run->nsamples * 1000;
		s->stream = c->st;
		s->period = 1000000;
		s->mod = fr[0].mod;
		s->off = s->vaddr = fr[0].off;
		s->ip = 0x555555554000 + fr[0].off;
		s->stack = nfr > 1 ? mf_mrun_add_stack(run, fr, nfr) : MF_STACK_NONE;
	}
	for (j = 0; j < nfr; j++)
		if (!(fr[j].flags & MF_FR_UNKNOWN))
			mchain_sym(run, c, fr[j].mod, (fr[j].flags & MF_FR_RETURN) ? fr[j].off - 1 : fr[j].off);
}

/* The run: na chains A, nb B, nr R, nu U, nf flat samples; finished and its symbols sorted. */
static void mchain_run(struct mf_mrun *run, int na, int nb, int nr, int nu, int nf)
{
	struct mchain c;
	struct mf_mstream *s;
	char *argv[] = {"./app"};
	mf_mrun_init(run);
	strcpy(run->measurement, "profile");
	mf_mrun_set_argv(run, 1, argv);
	run->pid = 77;
	run->line_size = 64;
	strcpy(run->call_graph, "fp");
	c.app = mf_mrun_module(run, "/opt/app/app");
	c.libc = mf_mrun_module(run, "/lib/libc.so.6");
	s = mf_mrun_add_stream(run);
	strcpy(s->name, "task-clock");
	s->role = MF_ROLE_CPU;
	s->period = 1000000;
	s->clock = true;
	c.st = 0;
	mf_mrun_thread(run, 77, 77, "app");
	mchain_samples(run, &c,
		       (struct mf_mframe[]){MC_FR(c.app, 0x1310, 0), MC_FR(c.libc, 0x5021, MF_FR_RETURN),
					    MC_FR(c.app, 0x1121, MF_FR_RETURN), MC_FR(c.app, 0x1011, MF_FR_RETURN)},
		       4, na);
	mchain_samples(run, &c,
		       (struct mf_mframe[]){MC_FR(c.app, 0x1310, 0), MC_FR(c.libc, 0x5021, MF_FR_RETURN),
					    MC_FR(c.app, 0x1221, MF_FR_RETURN), MC_FR(c.app, 0x1011, MF_FR_RETURN)},
		       4, nb);
	mchain_samples(run, &c,
		       (struct mf_mframe[]){MC_FR(c.app, 0x1410, 0), MC_FR(c.app, 0x1431, MF_FR_RETURN),
					    MC_FR(c.app, 0x1431, MF_FR_RETURN), MC_FR(c.app, 0x1031, MF_FR_RETURN)},
		       4, nr);
	mchain_samples(run, &c, (struct mf_mframe[]){MC_FR(c.libc, 0x5010, 0), MC_FR(MF_MOD_NONE, 0, MF_FR_UNKNOWN)}, 2,
		       nu);
	mchain_samples(run, &c, (struct mf_mframe[]){MC_FR(c.app, 0x1180, 0)}, 1, nf);
	mf_mrun_finish(run);
	mf_mrun_sort_syms(run);
}

#endif
