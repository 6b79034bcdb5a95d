/* SPDX-License-Identifier: MIT */
/*
 * Folded stacks (fold.c) on hand-made runs: chains named root first below the
 * program's name, return addresses named by their call site, chains that
 * differ only inside functions merged, unnamed code as [MODULE], kernel and
 * [unknown] frames, names with ';' and control characters, samples of other
 * roles left out, and a run without chains folded one function per sample.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "mfstat/measure/fold.h"

struct fx {
	struct mf_mrun run;
	uint32_t prog, libc;
};

static void sym(struct mf_mrun *run, uint32_t mod, uint64_t addr, const char *func, uint64_t start)
{
	struct mf_msym *y = mf_mrun_add_sym(run);
	assert_non_null(y);
	y->mod = mod;
	y->addr = addr;
	y->func = mf_mrun_str(run, func);
	y->func_start = start;
	y->func_size = 0x100;
}

static void setup(struct fx *x, const char *measurement)
{
	struct mf_mstream *s;
	mf_mrun_init(&x->run);
	strcpy(x->run.measurement, measurement);
	x->prog = mf_mrun_module(&x->run, "/usr/bin/prog");
	x->libc = mf_mrun_module(&x->run, "/lib/libc.so.6");
	s = mf_mrun_add_stream(&x->run);
	strcpy(s->name, "task-clock");
	s->role = MF_ROLE_CPU;
	s = mf_mrun_add_stream(&x->run);
	strcpy(s->name, "page-faults");
	s->role = MF_ROLE_FAULT;
	mf_mrun_thread(&x->run, 10, 10, "prog");
	mf_mrun_thread(&x->run, 10, 11, "wor;ker\n");
}

/* A sample of stream st in thread tid with the chain of n frames (mod, vaddr, flags), leaf first. */
static void sample(struct fx *x, uint32_t st, uint32_t tid, const struct mf_mframe *fr, size_t n)
{
	struct mf_msample *s = mf_mrun_add_sample(&x->run);
	assert_non_null(s);
	s->pid = 10;
	s->tid = tid;
	s->stream = st;
	s->period = 1000;
	s->mod = fr[0].mod;
	s->off = s->vaddr = fr[0].off;
	if (n > 1 || (fr[0].flags & MF_FR_UNKNOWN))
		s->stack = mf_mrun_add_stack(&x->run, fr, n);
}

static char *folded(struct fx *x)
{
	struct mf_fold f;
	struct mf_error e;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	mf_error_clear(&e);
	mf_mrun_finish(&x->run);
	mf_mrun_sort_syms(&x->run);
	assert_int_equal(mf_fold_build(&f, &x->run, &e), 0);
	assert_int_equal(mf_fold_write(fp, &f), 0);
	fclose(fp);
	mf_fold_free(&f);
	return buf;
}

#define FR(m, a, fl) ((struct mf_mframe){.mod = (m), .off = (a), .flags = (fl)})

static void chains(void **state)
{
	struct fx x;
	char *out;
	(void)state;
	setup(&x, "profile");
	/* prog: main 0x1000, caller_a 0x1100, caller_b 0x1200; libc: qsort 0x5000, cmp in prog 0x1300. */
	sym(&x.run, x.prog, 0x1010, "main", 0x1000);
	sym(&x.run, x.prog, 0x1020, "main", 0x1000);
	sym(&x.run, x.prog, 0x1110, "caller_a", 0x1100);
	sym(&x.run, x.prog, 0x1210, "caller_b", 0x1200);
	sym(&x.run, x.prog, 0x1300, "cmp", 0x1300);
	sym(&x.run, x.prog, 0x1304, "cmp", 0x1300);
	sym(&x.run, x.libc, 0x5010, "qsort", 0x5000);
	/* A return address is named by the byte before it: 0x1100 is caller_a's last byte... of main. */
	sym(&x.run, x.prog, 0x10ff, "main", 0x1000);
	for (int i = 0; i < 3; i++)
		sample(&x, 0, 10,
		       (struct mf_mframe[]){FR(x.prog, 0x1300, 0), FR(x.libc, 0x5011, MF_FR_RETURN),
					    FR(x.prog, 0x1111, MF_FR_RETURN), FR(x.prog, 0x1011, MF_FR_RETURN)},
		       4);
	/* Same functions at other addresses: merged with the three above. */
	sample(&x, 0, 10,
	       (struct mf_mframe[]){FR(x.prog, 0x1304, 0), FR(x.libc, 0x5011, MF_FR_RETURN),
				    FR(x.prog, 0x1111, MF_FR_RETURN), FR(x.prog, 0x1021, MF_FR_RETURN)},
	       4);
	sample(&x, 0, 10,
	       (struct mf_mframe[]){FR(x.prog, 0x1300, 0), FR(x.libc, 0x5011, MF_FR_RETURN),
				    FR(x.prog, 0x1211, MF_FR_RETURN), FR(x.prog, 0x1100, MF_FR_RETURN)},
	       4);
	/* A chain that stopped: [unknown] at the root end; a kernel leaf; code without a symbol. */
	sample(&x, 0, 10, (struct mf_mframe[]){FR(x.libc, 0x5010, 0), FR(MF_MOD_NONE, 0, MF_FR_UNKNOWN)}, 2);
	sample(&x, 0, 10,
	       (struct mf_mframe[]){FR(MF_MOD_NONE, 0xffffffff81000000ull, MF_FR_KERNEL),
				    FR(x.prog, 0x1111, MF_FR_RETURN), FR(x.prog, 0x1011, MF_FR_RETURN)},
	       3);
	sample(&x, 0, 11, (struct mf_mframe[]){FR(x.libc, 0x9000, 0), FR(x.prog, 0x1211, MF_FR_RETURN)}, 2);
	/* Not counted by a profile: a page fault. */
	sample(&x, 1, 10, (struct mf_mframe[]){FR(x.prog, 0x1300, 0), FR(x.prog, 0x1011, MF_FR_RETURN)}, 2);
	out = folded(&x);
	assert_string_equal(out,
			    "prog;[unknown];qsort 1\n"
			    "prog;main;caller_a;[kernel.kallsyms] 1\n"
			    "prog;main;caller_a;qsort;cmp 4\n"
			    "prog;main;caller_b;qsort;cmp 1\n"
			    "wor:ker?;caller_b;[libc.so.6] 1\n");
	free(out);
	mf_mrun_free(&x.run);
}

static void flat(void **state)
{
	struct fx x;
	struct mf_fold f;
	struct mf_error e;
	char *out;
	(void)state;
	setup(&x, "profile");
	sym(&x.run, x.prog, 0x1010, "main", 0x1000);
	sym(&x.run, x.prog, 0x1110, "caller_a", 0x1100);
	sample(&x, 0, 10, (struct mf_mframe[]){FR(x.prog, 0x1010, 0)}, 1);
	sample(&x, 0, 10, (struct mf_mframe[]){FR(x.prog, 0x1110, 0)}, 1);
	sample(&x, 0, 10, (struct mf_mframe[]){FR(x.prog, 0x1110, 0)}, 1);
	sample(&x, 0, 10, (struct mf_mframe[]){FR(MF_MOD_NONE, 0x42, 0)}, 1);
	out = folded(&x);
	assert_string_equal(out, "prog;[unknown] 1\nprog;caller_a 2\nprog;main 1\n");
	free(out);
	mf_error_clear(&e);
	assert_int_equal(mf_fold_build(&f, &x.run, &e), 0);
	assert_false(f.chains);
	assert_int_equal(f.samples, 4);
	assert_int_equal(f.events, 4000);
	assert_int_equal(f.n, 3);
	assert_string_equal(f.frames[f.stacks[1].first + 1].modname, "prog");
	assert_string_equal(f.frames[f.stacks[0].first].modname, "");
	mf_fold_free(&f);
	mf_mrun_free(&x.run);
}

/* itlb folds the sampled misses and instruction-fetch faults, not data faults or CPU samples. */
static void itlb_roles(void **state)
{
	struct fx x;
	char *out;
	struct mf_msample *s;
	(void)state;
	setup(&x, "itlb");
	sym(&x.run, x.prog, 0x1010, "main", 0x1000);
	sym(&x.run, x.prog, 0x1110, "caller_a", 0x1100);
	sample(&x, 0, 10, (struct mf_mframe[]){FR(x.prog, 0x1010, 0)}, 1);
	sample(&x, 1, 10, (struct mf_mframe[]){FR(x.prog, 0x1110, 0)}, 1);
	sample(&x, 1, 10, (struct mf_mframe[]){FR(x.prog, 0x1110, 0)}, 1);
	s = &x.run.samples[x.run.nsamples - 1];
	s->flags |= MF_MS_IFETCH;
	out = folded(&x);
	assert_string_equal(out, "prog;caller_a 1\n");
	free(out);
	mf_mrun_free(&x.run);
}

static void empty_run(void **state)
{
	struct fx x;
	char *out;
	(void)state;
	setup(&x, "profile");
	out = folded(&x);
	assert_string_equal(out, "");
	free(out);
	mf_mrun_free(&x.run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(chains),
		cmocka_unit_test(flat),
		cmocka_unit_test(itlb_roles),
		cmocka_unit_test(empty_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
