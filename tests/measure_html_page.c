/* SPDX-License-Identifier: MIT */
/*
 * Test-only: writes the HTML pages of mfstat measure for tests/measure_html_browser.sh.
 *
 *   measure_html_page profile OUT.html        a hand-made profile with call chains (flame graph)
 *   measure_html_page diff OUT.html [--absolute] [--negate] [BEFORE.mfdb AFTER.mfdb]
 *       the differential page of two run files, or of two hand-made runs
 *       (caller_a:caller_b 3:1 before, 1:1 after, and a stack only before)
 *
 * The hand-made runs have a name with markup in it (escaped on the page).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/measure/flame.h"
#include "mfstat/measure/mfdb.h"
#include "mfstat/measure/report.h"
#include "mfstat/measure/run.h"

static void sym(struct mf_mrun *run, uint32_t mod, uint64_t addr, const char *func, uint64_t start)
{
	struct mf_msym *y = mf_mrun_add_sym(run);
	if (!y)
		exit(2);
	y->mod = mod;
	y->addr = addr;
	y->func = mf_mrun_str(run, func);
	y->func_start = start;
	y->func_size = 0x100;
}

static void chain(struct mf_mrun *run, uint32_t tid, const struct mf_mframe *fr, size_t n)
{
	struct mf_msample *m = mf_mrun_add_sample(run);
	if (!m)
		exit(2);
	m->pid = 10;
	m->tid = tid;
	m->period = 1000000;
	m->mod = fr[0].mod;
	m->off = m->vaddr = fr[0].off;
	m->stack = mf_mrun_add_stack(run, fr, n);
}

#define FR(m, a, fl) ((struct mf_mframe){.mod = (m), .off = (a), .flags = (fl)})

/* prog: main calls caller_a (na) and caller_b (nb), each qsort calling cmp; gone (ngone) below main. */
static void mkrun(struct mf_mrun *run, int na, int nb, int ngone)
{
	struct mf_mstream *s;
	uint32_t prog, libc;
	int i;
	mf_mrun_init(run);
	strcpy(run->measurement, "profile");
	strcpy(run->call_graph, "fp");
	strcpy(run->spec_used, "1ms, 5%, task_clock:user");
	strcpy(run->database, "not saved (hand-made for the test)");
	run->argc = 1;
	run->argv = calloc(2, sizeof(char *));
	if (!run->argv || !(run->argv[0] = strdup("/usr/bin/prog")))
		exit(2);
	prog = mf_mrun_module(run, "/usr/bin/prog");
	libc = mf_mrun_module(run, "/lib/libc.so.6");
	s = mf_mrun_add_stream(run);
	strcpy(s->name, "task-clock");
	s->role = MF_ROLE_CPU;
	mf_mrun_thread(run, 10, 10, "prog");
	mf_mrun_thread(run, 10, 11, "worker");
	sym(run, prog, 0x1010, "main", 0x1000);
	sym(run, prog, 0x1110, "caller_a", 0x1100);
	sym(run, prog, 0x1210, "caller_b", 0x1200);
	sym(run, prog, 0x1300, "cmp<script>alert(1)</script>&\"", 0x1300);
	sym(run, prog, 0x1400, "gone", 0x1400);
	sym(run, prog, 0x1500, "thread_main", 0x1500);
	sym(run, libc, 0x5010, "qsort", 0x5000);
	sym(run, libc, 0x6010, "__vfprintf_internal_with_a_long_name_that_is_clipped", 0x6000);
	for (i = 0; i < na + nb; i++)
		chain(run, 10,
		      (struct mf_mframe[]){FR(prog, 0x1300, 0), FR(libc, 0x5011, MF_FR_RETURN),
					   FR(prog, i < na ? 0x1111 : 0x1211, MF_FR_RETURN),
					   FR(prog, 0x1011, MF_FR_RETURN)},
		      4);
	for (i = 0; i < na / 2; i++)
		chain(run, 10,
		      (struct mf_mframe[]){FR(libc, 0x6010, 0), FR(prog, 0x1111, MF_FR_RETURN),
					   FR(prog, 0x1011, MF_FR_RETURN)},
		      3);
	for (i = 0; i < ngone; i++)
		chain(run, 10, (struct mf_mframe[]){FR(prog, 0x1400, 0), FR(prog, 0x1011, MF_FR_RETURN)}, 2);
	for (i = 0; i < 7; i++)
		chain(run, 11,
		      (struct mf_mframe[]){FR(MF_MOD_NONE, 0xffffffff81000000ull, MF_FR_KERNEL),
					   FR(prog, 0x1501, MF_FR_RETURN)},
		      2);
	mf_mrun_finish(run);
	mf_mrun_sort_syms(run);
}

static int load(const char *path, struct mf_mrun *run)
{
	struct mf_error e;
	mf_error_clear(&e);
	mf_mrun_init(run);
	if (mf_mfdb_load(path, run, &e) != 0) {
		fprintf(stderr, "measure_html_page: %s: %s\n", path, e.msg);
		return -1;
	}
	mf_mrun_sort_syms(run);
	return 0;
}

int main(int argc, char **argv)
{
	struct mf_mrun a, b;
	struct mf_error e;
	const char *files[2] = {NULL, NULL};
	bool absolute = false, negate = false;
	int i, nf = 0, rc;
	FILE *fp;

	if (argc < 3 || (strcmp(argv[1], "profile") && strcmp(argv[1], "diff"))) {
		fprintf(stderr, "usage: measure_html_page profile|diff OUT.html [--absolute] [--negate] [A B]\n");
		return 2;
	}
	for (i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--absolute") == 0)
			absolute = true;
		else if (strcmp(argv[i], "--negate") == 0)
			negate = true;
		else if (nf < 2)
			files[nf++] = argv[i];
		else
			return 2;
	}
	mf_error_clear(&e);
	if (!(fp = fopen(argv[2], "w"))) {
		perror(argv[2]);
		return 1;
	}
	if (strcmp(argv[1], "profile") == 0) {
		struct mf_mreport_opts o;
		memset(&o, 0, sizeof(o));
		o.format = MF_MFMT_HTML;
		o.summary = (struct mf_cutoff){1, 100, 5};
		o.detail = (struct mf_cutoff){5, 90, 1};
		mkrun(&a, 300, 100, 0);
		rc = mf_mreport_write(fp, &a, &o, &e);
		mf_mrun_free(&a);
	} else {
		if (nf == 2) {
			if (load(files[0], &a) || load(files[1], &b))
				return 1;
		} else {
			mkrun(&a, 300, 100, 20);
			mkrun(&b, 200, 200, 0);
		}
		rc = mf_mdiff_html(fp, &a, &b, absolute, negate, &e);
		mf_mrun_free(&a);
		mf_mrun_free(&b);
	}
	if (fclose(fp) != 0 || rc) {
		fprintf(stderr, "measure_html_page: %s\n", rc ? e.msg : "cannot write");
		return 1;
	}
	return 0;
}
