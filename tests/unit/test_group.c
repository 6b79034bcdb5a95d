/* SPDX-License-Identifier: MIT */
/* Grouping: keys, sum then divide, interval length, distinct CPUs, data doubts. */
#include "pipeline.h"

MF_TEST_KB_FIXTURE()

static void by_parse(void **state)
{
	unsigned by;
	size_t bad;
	(void)state;
	assert_int_equal(mf_by_parse("system,lpar,pool,interval", &by, &bad), 0);
	assert_int_equal(by, MF_BY_DEFAULT);
	assert_int_equal(mf_by_parse("CPU", &by, &bad), 0);
	assert_int_equal(by, MF_BY_CPU);
	assert_int_equal(mf_by_parse("", &by, &bad), 0);
	assert_int_equal(by, 0);
	assert_int_equal(mf_by_parse("system,bogus", &by, &bad), -1);
	assert_int_equal(bad, 7);
	assert_int_equal(mf_by_parse("system,", &by, &bad), -1);
	assert_int_equal(bad, 7);
}

/* CPI of a group is total cycles over total instructions, not the mean of CPIs. */
static void sum_then_divide(void **state)
{
	struct pipe p;
	(void)state;
	pipe_run(&p, kb,
		 "system,cpu,pool,machine,cpsp,interval_start,interval_seconds,B0,B1,B2,B4,P33\n"
		 "S,0,GCP,z16,5000,2025-01-01T00:00:00Z,60,1000,1000,10,10,500\n"
		 "S,1,GCP,z16,5000,2025-01-01T00:00:00Z,60,9000,1000,30,50,100\n",
		 MF_BY_DEFAULT);
	assert_int_equal(p.n, 1);
	/* (1000 + 9000) / (1000 + 1000) = 5; the mean of 1 and 9 would also be 5, so check L1MP too. */
	assert_true(metric(&p, 0, "CPI") == 5.0);
	/* (10+10+30+50) / 2000 * 100 = 5 */
	assert_true(metric(&p, 0, "L1MP") == 5.0);
	/* (500 + 100) / 2000 * 100 = 30, not (50 + 10) / 2 = 30... use LPARCPU: */
	assert_true(metric(&p, 0, "PRBSTATE") == 30.0);
	/* 10000 cycles / (5000e6) / 60 s * 100: both engines summed, INTERVAL not summed. */
	assert_true(fabs(metric(&p, 0, "LPARCPU") - 10000.0 / 5e9 / 60 * 100) < 1e-18);
	assert_int_equal(mf_group_cpus(p.groups[0]), 2);
	pipe_free(&p);

	/* A case where averaging ratios would differ: 1/1 and 9/3 average 2, the sum gives 2.5. */
	pipe_run(&p, kb, "machine,B0,B1\nz16,1,1\nz16,9,3\n", 0);
	assert_true(metric(&p, 0, "CPI") == 2.5);
	pipe_free(&p);
}

/* INTERVAL: the mean length within one interval, the sum over distinct intervals. */
static void interval_length(void **state)
{
	struct pipe p;
	(void)state;
	pipe_run(&p, kb,
		 "system,cpu,machine,cpsp,interval_start,interval_seconds,B0,B1\n"
		 "S,0,z16,1000,2025-01-01T00:00:00Z,900,900000000000,1\n"
		 "S,1,z16,1000,2025-01-01T00:00:00Z,900.2,900000000000,1\n"
		 "S,0,z16,1000,2025-01-01T00:15:00Z,899.8,0,1\n"
		 "S,1,z16,1000,2025-01-01T00:15:00Z,900,0,1\n",
		 MF_BY_SYSTEM);
	assert_int_equal(p.n, 1);
	assert_true(fabs(p.res[0].interval - (900.1 + 899.9)) < 1e-9);
	/* 1.8e12 cycles at 1000 MHz = 1800 engine-seconds over 1800 s: 100 % of one engine. */
	assert_true(fabs(metric(&p, 0, "LPARCPU") - 100.0) < 1e-9);
	assert_int_equal(mf_group_cpus(p.groups[0]), 2);
	pipe_free(&p);

	pipe_run(&p, kb,
		 "system,cpu,machine,cpsp,interval_start,interval_seconds,B0,B1\n"
		 "S,0,z16,1000,2025-01-01T00:00:00Z,900,900000000000,1\n"
		 "S,0,z16,1000,2025-01-01T00:15:00Z,900,0,1\n",
		 MF_BY_DEFAULT);
	assert_int_equal(p.n, 2);
	assert_true(p.res[0].interval == 900 && p.res[1].interval == 900);
	assert_true(metric(&p, 0, "LPARCPU") == 100.0);
	assert_true(metric(&p, 1, "LPARCPU") == 0.0);
	pipe_free(&p);

	/* No interval length: LPARCPU not available, never 0. */
	pipe_run(&p, kb, "machine,cpsp,B0,B1\nz16,5000,1,1\n", 0);
	assert_true(isnan(metric(&p, 0, "LPARCPU")));
	assert_true(isnan(metric(&p, 0, "TLB_MISS_RATE")));
	pipe_free(&p);
}

/* A day of 15-minute intervals of one system starting at first_min past midnight, 50 % busy. */
static void day_rows(char *buf, size_t n, const char *sys, int first_min, int minutes, int count)
{
	size_t used = strlen(buf);
	int i;
	for (i = 0; i < count; i++) {
		int m = first_min + i * minutes;
		/* 1000 MHz: busy cycles = 0.5 * seconds * 1e9. */
		used += (size_t)snprintf(buf + used, n - used, "%s,0,z16,1000,2025-01-01T%02d:%02d:00Z,%d,%lld,1\n",
					 sys, m / 60, m % 60, minutes * 60, (long long)minutes * 60 * 500000000LL);
	}
}

/*
 * Groups spanning systems: INTERVAL is the wall-clock time covered (the union
 * of the systems' spans), so LPARCPU of a pool is the sum of its systems'.
 */
static void interval_spans_systems(void **state)
{
	static const char head[] = "system,cpu,machine,cpsp,interval_start,interval_seconds,B0,B1\n";
	char *csv = calloc(1, 1 << 16);
	struct pipe p;
	(void)state;

	/* Two systems, 15-minute intervals starting five minutes apart, 4 hours each. */
	strcpy(csv, head);
	day_rows(csv, 1 << 16, "SYSA", 0, 15, 16);
	day_rows(csv, 1 << 16, "SYSB", 5, 15, 16);
	pipe_run(&p, kb, csv, 0);
	assert_int_equal(p.n, 1);
	/* 4 h plus the 5 minutes SYSB runs on: not 8 hours. */
	assert_true(fabs(p.res[0].interval - (4 * 3600 + 300)) < 1e-6);
	assert_true(fabs(metric(&p, 0, "LPARCPU") - 100.0 * 4 * 3600 / (4 * 3600 + 300)) < 1e-6);
	pipe_free(&p);

	/* Each system alone: exactly the sum of its lengths, 50 % busy. */
	pipe_run(&p, kb, csv, MF_BY_SYSTEM);
	assert_int_equal(p.n, 2);
	assert_true(p.res[0].interval == 4 * 3600 && p.res[1].interval == 4 * 3600);
	assert_true(fabs(metric(&p, 0, "LPARCPU") - 50.0) < 1e-9);
	pipe_free(&p);

	/* 15- and 30-minute intervals over the same two hours: 2 hours, 50 + 50 %. */
	strcpy(csv, head);
	day_rows(csv, 1 << 16, "SYSA", 0, 15, 8);
	day_rows(csv, 1 << 16, "SYSB", 0, 30, 4);
	pipe_run(&p, kb, csv, MF_BY_POOL);
	assert_int_equal(p.n, 1);
	assert_true(fabs(p.res[0].interval - 7200) < 1e-9);
	assert_true(fabs(metric(&p, 0, "LPARCPU") - 100.0) < 1e-9);
	pipe_free(&p);

	/* One system measured after the other: not concurrent, the time adds up (50 %). */
	strcpy(csv, head);
	day_rows(csv, 1 << 16, "SYSA", 0, 15, 4);
	day_rows(csv, 1 << 16, "SYSB", 60, 15, 4);
	pipe_run(&p, kb, csv, 0);
	assert_true(fabs(p.res[0].interval - 7200) < 1e-9);
	assert_true(fabs(metric(&p, 0, "LPARCPU") - 50.0) < 1e-9);
	pipe_free(&p);

	/* --by interval: the 00:00 group has SYSA's 15 and SYSB's 30 minutes: 30 minutes of wall clock. */
	strcpy(csv, head);
	day_rows(csv, 1 << 16, "SYSA", 0, 15, 2);
	day_rows(csv, 1 << 16, "SYSB", 0, 30, 1);
	pipe_run(&p, kb, csv, MF_BY_INTERVAL);
	assert_int_equal(p.n, 2);
	assert_true(p.res[0].interval == 1800);
	assert_true(p.res[1].interval == 900);
	pipe_free(&p);

	/* Lengths rounded apart (900.4 s labelled at whole seconds) overlap by < 1 s: still adjacent. */
	pipe_run(&p, kb,
		 "system,cpu,machine,cpsp,interval_start,interval_seconds,B0,B1\n"
		 "S,0,z16,1000,2025-01-01T00:00:00Z,900.4,1,1\n"
		 "S,0,z16,1000,2025-01-01T00:15:00Z,900.4,1,1\n"
		 "S,0,z16,1000,2025-01-01T00:30:00Z,900.4,1,1\n"
		 "T,0,z16,1000,2025-01-01T00:00:00Z,900,1,1\n",
		 0);
	assert_true(fabs(p.res[0].interval - 3 * 900.4) < 1e-9);
	pipe_free(&p);

	/* Intervals without a start (two perf stat totals of two systems) begin together. */
	pipe_run(&p, kb,
		 "system,machine,cpsp,interval_seconds,B0,B1\n"
		 "S,z16,1000,10,1,1\n"
		 "T,z16,1000,12,1,1\n",
		 0);
	assert_true(p.res[0].interval == 12);
	assert_int_equal(mf_group_cpus(p.groups[0]), 2);
	pipe_free(&p);
	free(csv);
}

/* Duplicates (dedup.h): an SMF dump read twice; a changed copy names both byte offsets. */
static void dedup_smf(void **state)
{
	char path[512];
	struct mf_reader_opts ro = {0};
	struct mf_strtab *tab = mf_strtab_new();
	struct mf_dedup *d = mf_dedup_new();
	struct mf_sample *s = malloc(sizeof(*s));
	struct mf_error e;
	uint64_t n = 0;
	int pass, rc;
	(void)state;
	snprintf(path, sizeof(path), "%s/tests/data/small-s1.smf", MFSTAT_SOURCE_DIR);
	ro.kb = kb;
	ro.strtab = tab;
	for (pass = 0; pass < 2; pass++) {
		struct mf_reader *r = NULL;
		mf_error_clear(&e);
		assert_int_equal(mf_reader_open(&r, path, &ro, &e), 0);
		while ((rc = mf_reader_next(r, s, &e)) == 1) {
			assert_true(s->offset >= 0 && s->line == 0);
			if (pass == 0) {
				n++;
				assert_int_equal(mf_dedup_check(d, path, s, &e), MF_DEDUP_KEEP);
			} else {
				assert_int_equal(mf_dedup_check(d, "copy.smf", s, &e), MF_DEDUP_DUPLICATE);
			}
		}
		assert_int_equal(rc, 0);
		mf_reader_close(r);
	}
	assert_true(n > 0);
	assert_int_equal(mf_dedup_duplicates(d), n);
	/* The last sample again with one counter changed: a conflict at its offset, naming the first. */
	s->value[0]++;
	mf_error_clear(&e);
	assert_int_equal(mf_dedup_check(d, "copy.smf", s, &e), MF_EFORMAT);
	assert_int_equal(e.offset, s->offset);
	assert_string_equal(e.file, "copy.smf");
	{
		char want[128];
		snprintf(want, sizeof(want), "small-s1.smf offset 0x%llx", (unsigned long long)s->offset);
		assert_non_null(strstr(e.msg, want));
	}
	assert_int_equal(mf_dedup_conflicts(d), 1);
	/* The order of the counters does not matter; the interval's length to the second does. */
	s->value[0]--;
	{
		uint16_t ts = s->slot[0];
		uint64_t tv = s->value[0];
		s->slot[0] = s->slot[1], s->value[0] = s->value[1];
		s->slot[1] = ts, s->value[1] = tv;
	}
	assert_int_equal(mf_dedup_check(d, "copy.smf", s, &e), MF_DEDUP_DUPLICATE);
	s->seconds += 5;
	assert_int_equal(mf_dedup_check(d, "copy.smf", s, &e), MF_DEDUP_KEEP);
	/* Without a system or a start: never checked. */
	s->system = 0;
	assert_int_equal(mf_dedup_check(d, "copy.smf", s, &e), MF_DEDUP_KEEP);
	assert_int_equal(mf_dedup_check(d, "copy.smf", s, &e), MF_DEDUP_KEEP);
	mf_dedup_free(d);
	mf_strtab_free(tab);
	free(s);
}

/* Keys, their sort order, and that families never share a group. */
static void keys_and_order(void **state)
{
	struct pipe p;
	(void)state;
	pipe_run(&p, kb,
		 "system,lpar,pool,cpu,machine,B0,B1\n"
		 "SYSB,L1,GCP,0,z16,1,1\n"
		 "SYSA,L2,ZIIP,0,z16,1,1\n"
		 "SYSA,L2,GCP,1,z16,1,1\n"
		 "SYSA,L1,GCP,0,z15,1,1\n"
		 "SYSA,L1,GCP,0,z16,1,1\n",
		 MF_BY_DEFAULT);
	assert_int_equal(p.n, 5);
	assert_string_equal(p.groups[0]->family->key, "z15");
	assert_string_equal(mf_strtab_get(p.tab, p.groups[1]->lpar), "L1");
	assert_string_equal(mf_strtab_get(p.tab, p.groups[2]->lpar), "L2");
	assert_int_equal(p.groups[2]->pool, MF_POOL_GCP);
	assert_int_equal(p.groups[3]->pool, MF_POOL_ZIIP);
	assert_string_equal(mf_strtab_get(p.tab, p.groups[4]->system), "SYSB");
	assert_int_equal(p.groups[0]->cpu, -1); /* not grouped on */
	pipe_free(&p);

	pipe_run(&p, kb, "system,cpu,machine,B0,B1\nS,1,z16,1,1\nS,0,z16,1,1\nT,0,z16,1,1\n", MF_BY_CPU);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.groups[0]->cpu, 0);
	assert_int_equal(p.groups[0]->rows, 2);
	assert_int_equal(mf_group_cpus(p.groups[0]), 2); /* S/0 and T/0 */
	pipe_free(&p);
}

static void doubts(void **state)
{
	struct pipe p;
	(void)state;
	/* E145 present in one row only: not available, with a warning. */
	pipe_run(&p, kb, "machine,B0,B1,B2,B4,E145\nz16,1,1,1,1,5\nz16,1,1,1,1,\n", 0);
	assert_true(p.res[0].doubts & MF_DOUBT_PARTIAL);
	assert_string_equal(p.groups[0]->family->counters[p.res[0].partial_slot].short_name, "E145");
	assert_true(isnan(metric(&p, 0, "L2P")));
	pipe_free(&p);
	/* Different CPU speeds in one group: CPSP-based metrics not available. */
	pipe_run(&p, kb, "machine,cpsp,interval_seconds,B0,B1\nz16,5000,60,1,1\nz16,5200,60,1,1\n", 0);
	assert_true(p.res[0].doubts & MF_DOUBT_MIXED_CPSP);
	assert_true(isnan(metric(&p, 0, "LPARCPU")));
	assert_true(isnan(metric(&p, 0, "EFF_GHZ")));
	pipe_free(&p);
	/* A sum beyond 64 bits. */
	pipe_run(&p, kb, "machine,B0,B1\nz16,18446744073709551615,1\nz16,1,1\n", 0);
	assert_true(p.res[0].doubts & MF_DOUBT_OVERFLOW);
	assert_true(isnan(metric(&p, 0, "CPI")));
	pipe_free(&p);
	/* The machine's nominal speed stands in for a missing cpsp. */
	pipe_run(&p, kb, "machine,interval_seconds,B0,B1\n3931,1,5200000000,1\n", 0);
	assert_true(p.res[0].doubts & MF_DOUBT_NOMINAL_CPSP);
	assert_true(metric(&p, 0, "LPARCPU") == 100.0);
	pipe_free(&p);
}

/* --max-groups: a sample that needs a group beyond the cap is refused with MF_ELIMIT, not
 * taken for lack of memory, and the grouper is left as it was; existing groups still grow. */
static void max_groups(void **state)
{
	struct mf_grouper *g = mf_grouper_new(MF_BY_CPU);
	struct mf_sample *s = calloc(1, sizeof(*s));
	size_t n;
	(void)state;
	assert_non_null(g);
	assert_non_null(s);
	mf_grouper_set_max_groups(g, 2);
	mf_sample_reset(s);
	s->family = mf_kb_generic(kb);
	s->seconds = 60;
	s->cpu = 0;
	assert_int_equal(mf_grouper_add(g, s), 0);
	s->cpu = 1;
	assert_int_equal(mf_grouper_add(g, s), 0);
	s->cpu = 2;
	assert_int_equal(mf_grouper_add(g, s), MF_ELIMIT);
	s->cpu = 0;
	assert_int_equal(mf_grouper_add(g, s), 0);
	mf_grouper_groups(g, NULL, &n);
	assert_int_equal(n, 2);
	mf_grouper_set_max_groups(g, 0);
	s->cpu = 2;
	assert_int_equal(mf_grouper_add(g, s), 0);
	mf_grouper_groups(g, NULL, &n);
	assert_int_equal(n, 3);
	mf_grouper_free(g);
	free(s);
}

/* Merging per-interval groups into per-system ones gives exactly what grouping by system does. */
static void merge(void **state)
{
	char path[512], *text;
	FILE *fp;
	size_t n, i, k, j, b;
	struct pipe fine, coarse;
	struct mf_grouper *g;
	struct mf_group *const *mg;
	struct mf_result *mr;
	(void)state;
	snprintf(path, sizeof(path), "%s/examples/z16-demo.csv", MFSTAT_SOURCE_DIR);
	fp = fopen(path, "r");
	assert_non_null(fp);
	text = calloc(1, 1 << 20);
	n = fread(text, 1, (1 << 20) - 1, fp);
	fclose(fp);
	text[n] = '\0';
	pipe_run(&fine, kb, text, MF_BY_DEFAULT);
	/* By system, and across systems (where INTERVAL is the union of their spans). */
	for (b = 0; b < 3; b++) {
		unsigned by = b == 0 ? MF_BY_SYSTEM : b == 1 ? MF_BY_POOL : 0;
		pipe_run(&coarse, kb, text, by);
		g = mf_grouper_new(by);
		for (i = 0; i < fine.n; i++)
			assert_int_equal(mf_grouper_merge(g, fine.groups[i]), 0);
		mg = mf_grouper_groups(g, fine.tab, &n);
		assert_int_equal(n, coarse.n);
		mr = mf_results_new(mg, n);
		for (i = 0; i < n; i++) {
			const struct mf_family *fam = mg[i]->family;
			mf_metrics_compute(kb, mg[i], NULL, &mr[i]);
			assert_int_equal(mg[i]->rows, coarse.groups[i]->rows);
			assert_int_equal(mf_group_cpus(mg[i]), mf_group_cpus(coarse.groups[i]));
			assert_int_equal(mr[i].lspr, coarse.res[i].lspr);
			assert_true(mr[i].interval == coarse.res[i].interval);
			for (k = 0; k < fam->ncounters; k++)
				assert_true(mg[i]->sum[k] == coarse.groups[i]->sum[k]);
			for (j = 0; j < fam->nmetrics; j++) {
				double a = mr[i].value[j], c = coarse.res[i].value[j];
				if (!((isnan(a) && isnan(c)) || a == c))
					fail_msg("%s: merged %.17g, direct %.17g", fam->metrics[j].name, a, c);
			}
		}
		mf_results_free(mr, n);
		mf_grouper_free(g);
		pipe_free(&coarse);
	}
	pipe_free(&fine);
	free(text);
}

/*
 * Taking the groups of two parts, each read with its own string table, gives what adding every
 * sample to one grouper gives: the groups only one part has are moved (renamed into the whole's
 * names, CPUs re-sorted), the one both have is added up and stays with the later part.
 */
static void take_ids(void **state)
{
	/* system, lpar, cpu, start minute, part */
	static const struct {
		const char *sys, *lpar;
		int cpu, minute, part;
	} rows[] = {
		{"SYSB", "L2", 3, 0, 0},  {"SYSA", "L1", 1, 0, 0},  {"SYSA", "L1", 0, 0, 0},  {"SYSB", "L2", 1, 15, 0},
		{"SYSA", "L1", 2, 15, 1}, {"SYSB", "L2", 0, 15, 1}, {"SYSC", "L3", 7, 30, 1}, {"SYSA", "L1", 1, 30, 1},
	};
	const size_t nrows = sizeof(rows) / sizeof(rows[0]);
	unsigned bys[] = {MF_BY_DEFAULT, MF_BY_SYSTEM, MF_BY_SYSTEM | MF_BY_LPAR | MF_BY_CPU};
	size_t b, i, k, n, nw;
	(void)state;
	for (b = 0; b < sizeof(bys) / sizeof(bys[0]); b++) {
		struct mf_strtab *wt = mf_strtab_new(), *pt[2] = {mf_strtab_new(), mf_strtab_new()};
		struct mf_grouper *whole = mf_grouper_new(bys[b]), *g = mf_grouper_new(bys[b]);
		struct mf_grouper *part[2] = {mf_grouper_new(bys[b]), mf_grouper_new(bys[b])};
		struct mf_sample *s = calloc(1, sizeof(*s));
		struct mf_group *const *gw, *const *gg;
		uint32_t map[2][8];
		assert_non_null(s);
		/* The parts' tables name in another order than the whole's: part 1 sees SYSC first. */
		mf_strtab_intern(pt[1], "SYSC", 4);
		for (i = 0; i < nrows; i++) {
			struct mf_strtab *tabs[2] = {wt, pt[rows[i].part]};
			struct mf_grouper *into[2] = {whole, part[rows[i].part]};
			for (k = 0; k < 2; k++) {
				mf_sample_reset(s);
				s->family = mf_kb_family(kb, "z16");
				s->system = mf_strtab_intern(tabs[k], rows[i].sys, strlen(rows[i].sys));
				s->lpar = mf_strtab_intern(tabs[k], rows[i].lpar, strlen(rows[i].lpar));
				s->cpu = rows[i].cpu;
				s->has_start = true;
				s->start_us = (int64_t)rows[i].minute * 60000000;
				s->seconds = 900;
				s->n = 1;
				s->slot[0] = 0;
				s->value[0] = 1000 + i;
				assert_int_equal(mf_grouper_add(into[k], s), 0);
			}
		}
		for (k = 0; k < 2; k++) {
			const char *name;
			memset(map[k], 0, sizeof(map[k]));
			for (i = 1; (name = mf_strtab_get(pt[k], (uint32_t)i)) != NULL; i++)
				map[k][i] = mf_strtab_intern(wt, name, strlen(name));
			assert_int_equal(mf_grouper_take_ids(g, part[k], map[k], i), 0);
		}
		/* Part 0 gave everything away; part 1 kept only what it shared with part 0. */
		mf_grouper_list(part[0], &n);
		assert_int_equal(n, 0);
		mf_grouper_list(part[1], &n);
		assert_int_equal(n, b == 1 ? 2 : 1);
		assert_groupers_alike(g, whole, wt, 1);
		/* Adding to a taken group after the take still finds it under the whole's names. */
		mf_sample_reset(s);
		s->family = mf_kb_family(kb, "z16");
		s->system = mf_strtab_intern(wt, "SYSC", 4);
		s->lpar = mf_strtab_intern(wt, "L3", 2);
		s->cpu = 7;
		s->has_start = true;
		s->start_us = (int64_t)30 * 60000000;
		s->seconds = 900;
		assert_int_equal(mf_grouper_add(g, s), 0);
		assert_int_equal(mf_grouper_add(whole, s), 0);
		gg = mf_grouper_groups(g, wt, &n);
		gw = mf_grouper_groups(whole, wt, &nw);
		assert_int_equal(n, nw);
		for (i = 0; i < n; i++) {
			assert_int_equal(gg[i]->rows, gw[i]->rows);
			assert_int_equal(mf_group_cpus(gg[i]), mf_group_cpus(gw[i]));
		}
		free(s);
		mf_grouper_free(whole);
		mf_grouper_free(g);
		mf_grouper_free(part[0]);
		mf_grouper_free(part[1]);
		mf_strtab_free(wt);
		mf_strtab_free(pt[0]);
		mf_strtab_free(pt[1]);
	}
}

/* Sorting with threads (runs sorted apart, then merged) gives the order of one sort: 3 runs (one
 * left over in the first round of merging) and 4, over groups made in a scrambled order. */
static void sort_threads(void **state)
{
	struct mf_strtab *tab = mf_strtab_new();
	struct mf_sample *s = calloc(1, sizeof(*s));
	size_t jobs[] = {2, 3, 4}, j, i, n1, n2;
	(void)state;
	assert_non_null(s);
	for (j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		struct mf_grouper *g1 = mf_grouper_new(MF_BY_SYSTEM | MF_BY_CPU | MF_BY_INTERVAL);
		struct mf_grouper *g2 = mf_grouper_new(MF_BY_SYSTEM | MF_BY_CPU | MF_BY_INTERVAL);
		struct mf_group *const *a, *const *b;
		for (i = 0; i < 20011; i++) {
			size_t x = (i * 7919) % 20011; /* a permutation */
			char name[8];
			snprintf(name, sizeof(name), "S%zu", x % 5);
			mf_sample_reset(s);
			s->family = mf_kb_generic(kb);
			s->system = mf_strtab_intern(tab, name, strlen(name));
			s->cpu = (int64_t)(x % 13);
			s->has_start = true;
			s->start_us = (int64_t)(x / 65) * 900000000;
			s->seconds = 900;
			assert_int_equal(mf_grouper_add(g1, s), 0);
			assert_int_equal(mf_grouper_add(g2, s), 0);
		}
		a = mf_grouper_groups(g1, tab, &n1);
		b = mf_grouper_sort(g2, tab, jobs[j], &n2);
		assert_int_equal(n1, n2);
		assert_true(n1 > 8192);
		for (i = 0; i < n1; i++) {
			assert_int_equal(a[i]->system, b[i]->system);
			assert_int_equal(a[i]->cpu, b[i]->cpu);
			assert_int_equal(a[i]->start_us, b[i]->start_us);
		}
		for (i = 1; i < n1; i++)
			assert_true(strcmp(mf_strtab_get(tab, a[i - 1]->system), mf_strtab_get(tab, a[i]->system)) <=
				    0);
		mf_grouper_free(g1);
		mf_grouper_free(g2);
	}
	free(s);
	mf_strtab_free(tab);
}

/* One sample of the wide cases below, identity i of n; line or offset as given. */
static void wide_sample(struct mf_sample *s, int i, long line, long long offset)
{
	mf_sample_reset(s);
	s->family = mf_kb_generic(kb);
	s->system = 3;
	s->lpar = 4;
	s->cpu = 2;
	s->pool = MF_POOL_GCP;
	s->has_start = true;
	s->start_us = INT64_C(1735689600) * 1000000; /* 2025-01-01 */
	s->seconds = 900;
	switch (i) {
	case 0: s->cpu = 70000; break;                             /* beyond 16 bits */
	case 1: s->start_us = INT64_C(-86400) * 1000000; break;    /* before 1970 */
	case 2: s->system = (1u << 24) + 5; break;                 /* an id beyond 24 bits */
	case 3: s->lpar = (1u << 24) + 7; break;                   /* the same for the LPAR */
	case 4: s->seconds = 20000000; break;                      /* a length beyond 24 bits */
	case 5: s->start_us = (INT64_C(1) << 35) * 1000000; break; /* a start beyond 34 bits */
	default: break;                                            /* 6: fits */
	}
	s->n = 1;
	s->slot[0] = 0;
	s->value[0] = 100 + (uint64_t)i;
	s->line = line;
	s->offset = offset;
}

/*
 * Identities and places that do not fit the table's packed slots are kept whole: each case is
 * found again as a duplicate, a changed copy names the first place exactly (a line beyond 2^46,
 * an offset), and a packed identity whose first place did not fit is found from a place that does.
 */
static void dedup_wide(void **state)
{
	struct mf_dedup *d = mf_dedup_new();
	struct mf_sample *s = calloc(1, sizeof(*s));
	struct mf_error e;
	const long big = (long)(INT64_C(1) << 47);
	int i;
	(void)state;
	assert_non_null(s);
	for (i = 0; i <= 6; i++) {
		wide_sample(s, i, i == 6 ? big : 10 + i, 0);
		assert_int_equal(mf_dedup_check(d, "a.csv", s, &e), MF_DEDUP_KEEP);
	}
	for (i = 0; i <= 6; i++) {
		wide_sample(s, i, 100 + i, 0);
		assert_int_equal(mf_dedup_check(d, "b.csv", s, &e), MF_DEDUP_DUPLICATE);
	}
	for (i = 0; i <= 6; i++) {
		char want[64];
		wide_sample(s, i, 200 + i, 0);
		s->value[0]++;
		mf_error_clear(&e);
		assert_int_equal(mf_dedup_check(d, "c.csv", s, &e), MF_EFORMAT);
		snprintf(want, sizeof(want), "a.csv line %ld", i == 6 ? big : 10L + i);
		if (!strstr(e.msg, want))
			fail_msg("case %d: \"%s\" does not name %s", i, e.msg, want);
	}
	/* A byte offset of an SMF record as the first place. */
	wide_sample(s, 6, 0, 0x123456);
	s->cpu = 9;
	assert_int_equal(mf_dedup_check(d, "x.smf", s, &e), MF_DEDUP_KEEP);
	s->value[0]++;
	s->line = 5;
	assert_int_equal(mf_dedup_check(d, "y.csv", s, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "x.smf offset 0x123456"));
	assert_int_equal(mf_dedup_duplicates(d), 7);
	assert_int_equal(mf_dedup_conflicts(d), 8);
	mf_dedup_free(d);
	free(s);
}

/* Parts with wide identities: the disjoint check sees one part's wide sample in another, and the
 * tables added to the whole, renamed, find both packed and wide ones. */
static void dedup_parts_wide(void **state)
{
	struct mf_dedup *into = mf_dedup_new(), *pt[2] = {mf_dedup_new(), mf_dedup_new()};
	struct mf_sample *s = calloc(1, sizeof(*s));
	struct mf_dedup_part dp[2];
	struct mf_error e;
	/* Part names: 1..5 in each; the whole's names: part 0's k is k + 10, part 1's k is k + 20. */
	uint32_t map0[8], map1[8], rev0[40] = {0}, rev1[40] = {0};
	int i;
	(void)state;
	for (i = 0; i < 8; i++) {
		map0[i] = i ? (uint32_t)i + 10 : 0;
		map1[i] = i ? (uint32_t)i + 20 : 0;
		if (i) {
			rev0[i + 10] = (uint32_t)i;
			rev1[i + 20] = (uint32_t)i;
		}
	}
	memset(dp, 0, sizeof(dp));
	dp[0] = (struct mf_dedup_part){pt[0], map0, rev0, 8, 40, 0};
	dp[1] = (struct mf_dedup_part){pt[1], map1, rev1, 8, 40, 1000};
	wide_sample(s, 0, 5, 0); /* cpu 70000, system 3, LPAR 4 */
	assert_int_equal(mf_dedup_check(pt[0], "f.csv", s, &e), MF_DEDUP_KEEP);
	wide_sample(s, 6, 6, 0);
	assert_int_equal(mf_dedup_check(pt[1], "f.csv", s, &e), MF_DEDUP_KEEP);
	assert_int_equal(mf_dedup_parts_disjoint(into, dp, 2), 1);
	/* Part 1's own names 3 and 4 are the whole's 23 and 24, part 0's 13 and 14: apart. */
	wide_sample(s, 0, 7, 0);
	assert_int_equal(mf_dedup_check(pt[1], "f.csv", s, &e), MF_DEDUP_KEEP);
	assert_int_equal(mf_dedup_parts_disjoint(into, dp, 2), 1);
	assert_int_equal(mf_dedup_add_parts(into, dp, 2), 0);
	/* In the whole's names: part 0's wide one, and part 1's at its line plus the offset. */
	wide_sample(s, 0, 9, 0);
	s->system = 13;
	s->lpar = 14;
	assert_int_equal(mf_dedup_check(into, "g.csv", s, &e), MF_DEDUP_DUPLICATE);
	wide_sample(s, 6, 9, 0);
	s->system = 23;
	s->lpar = 24;
	s->value[0]++;
	assert_int_equal(mf_dedup_check(into, "g.csv", s, &e), MF_EFORMAT);
	assert_non_null(strstr(e.msg, "f.csv line 1006"));
	/* The same wide sample in both parts, under the same whole names: not disjoint. */
	mf_dedup_free(pt[1]);
	pt[1] = mf_dedup_new();
	dp[1].d = pt[1];
	map1[3] = 13;
	map1[4] = 14;
	rev1[23] = rev1[24] = 0;
	rev1[13] = 3;
	rev1[14] = 4;
	wide_sample(s, 0, 3, 0);
	assert_int_equal(mf_dedup_check(pt[1], "f.csv", s, &e), MF_DEDUP_KEEP);
	{
		struct mf_dedup *empty = mf_dedup_new();
		assert_int_equal(mf_dedup_parts_disjoint(empty, dp, 2), 0);
		mf_dedup_free(empty);
	}
	mf_dedup_free(into);
	mf_dedup_free(pt[0]);
	mf_dedup_free(pt[1]);
	free(s);
}

/* True when some warning of the report holds all of the texts (NULL-terminated). */
static bool warned(const struct pipe *p, const char *const *texts)
{
	size_t i, k;
	for (i = 0; i < p->rep.nwarnings; i++) {
		for (k = 0; texts[k] && strstr(p->rep.warnings[i], texts[k]); k++)
			;
		if (!texts[k])
			return true;
	}
	return false;
}

/*
 * Impossible busy (issue 24, item 7): the same system in two inputs whose intervals are shifted
 * by 30 s.  Grouped by system, its two CPUs count 4 x 54 s of busy cycles in the 90 s the
 * intervals cover: LPARCPU 240 with 2 CPUs, beyond the 202 they can be (101 each).  The group
 * is flagged with two of its overlapping intervals, and the duplicate check's tables name the
 * CPUs whose intervals overlap whatever the grouping.
 */
static void busy_beyond_cpus(void **state)
{
	/* 0.9 x 5200e6 x 60 = 280800000000 cycles: 90 % of a 60 s interval at 5200 MHz. */
	static const char head[] = "system,cpu,pool,machine,cpsp,interval_start,interval_seconds,B0,B1\n";
	static const char one[] =
		"S,0,GCP,z16,5200,2025-01-01T00:00:00Z,60,280800000000,100000000000\n"
		"S,1,GCP,z16,5200,2025-01-01T00:00:00Z,60,280800000000,100000000000\n";
	static const char next[] =
		"S,0,GCP,z16,5200,2025-01-01T00:01:00Z,60,280800000000,100000000000\n"
		"S,1,GCP,z16,5200,2025-01-01T00:01:00Z,60,280800000000,100000000000\n";
	static const char shifted[] =
		"S,0,GCP,z16,5200,2025-01-01T00:00:30Z,60,280800000000,100000000000\n"
		"S,1,GCP,z16,5200,2025-01-01T00:00:30Z,60,280800000000,100000000000\n";
	static const char *const busy[] = {"impossible busy: LPARCPU 240.0 with 2 CPUs (at most 200)",
					   "system S: 2025-01-01T00:00:00Z (60 s) and 2025-01-01T00:00:30Z (60 s)",
					   NULL};
	static const char *const overlap[] = {"intervals overlap within one CPU on 2 CPUs of 1 system",
					      "first system S cpu 0: 2025-01-01T00:00:00Z (60 s) and "
					      "2025-01-01T00:00:30Z (60 s)",
					      NULL};
	char csv[1024];
	struct mf_group_overlap ov;
	struct pipe p;
	struct mf_error e;
	(void)state;

	/* Two intervals that follow each other: 90 % of each CPU, nothing to say. */
	snprintf(csv, sizeof(csv), "%s%s%s", head, one, next);
	pipe_run(&p, kb, csv, MF_BY_SYSTEM);
	assert_true(fabs(metric(&p, 0, "LPARCPU") - 180.0) < 1e-9);
	assert_false(p.res[0].doubts & MF_DOUBT_BUSY);
	assert_false(mf_group_find_overlap(p.groups[0], &ov));
	assert_int_equal(p.rep.overlap.cpus, 0);
	assert_false(warned(&p, busy) || warned(&p, overlap));
	pipe_free(&p);

	/* The shifted copy as a second input. */
	snprintf(csv, sizeof(csv), "%s%s", head, one);
	pipe_begin(&p, kb, MF_BY_SYSTEM, NULL, NULL);
	assert_int_equal(mf_pipeline_add_mem(p.pl, "a.csv", csv, strlen(csv), &e), 0);
	snprintf(csv, sizeof(csv), "%s%s", head, shifted);
	assert_int_equal(mf_pipeline_add_mem(p.pl, "b.csv", csv, strlen(csv), &e), 0);
	pipe_end(&p);
	assert_int_equal(p.n, 1);
	assert_true(fabs(metric(&p, 0, "LPARCPU") - 240.0) < 1e-9); /* 4 x 54 s / 90 s */
	assert_int_equal(p.res[0].cpus, 2);
	assert_true(p.res[0].doubts & MF_DOUBT_BUSY);
	assert_true(mf_group_find_overlap(p.groups[0], &ov));
	assert_string_equal(mf_strtab_get(p.tab, ov.system), "S");
	assert_true(ov.a_start_us == INT64_C(1735689600) * 1000000 && ov.a_seconds == 60);
	assert_true(ov.b_start_us == INT64_C(1735689630) * 1000000 && ov.b_seconds == 60);
	assert_true(warned(&p, busy));
	assert_int_equal(p.rep.overlap.cpus, 2);
	assert_int_equal(p.rep.overlap.systems, 1);
	assert_int_equal(p.rep.overlap.cpu, 0);
	assert_true(p.rep.overlap.pair);
	assert_true(p.rep.overlap.a_start_s == 1735689600 && p.rep.overlap.a_len_s == 60);
	assert_true(p.rep.overlap.b_start_s == 1735689630 && p.rep.overlap.b_len_s == 60);
	assert_true(warned(&p, overlap));
	pipe_free(&p);

	/* By interval every group is possible: the overlap alone says it, naming the same two. */
	snprintf(csv, sizeof(csv), "%s%s%s", head, one, shifted);
	pipe_run(&p, kb, csv, MF_BY_DEFAULT);
	assert_int_equal(p.n, 2);
	assert_false((p.res[0].doubts | p.res[1].doubts) & MF_DOUBT_BUSY);
	assert_false(warned(&p, busy));
	assert_true(warned(&p, overlap));
	pipe_free(&p);

	/* Rows without a CPU number (totals of a system) are not counted as CPUs: no bound. */
	pipe_run(&p, kb,
		 "system,machine,cpsp,interval_start,interval_seconds,B0,B1\n"
		 "S,z16,5200,2025-01-01T00:00:00Z,60,1092000000000,1\n",
		 MF_BY_SYSTEM);
	assert_true(fabs(metric(&p, 0, "LPARCPU") - 350.0) < 1e-9);
	assert_false(p.res[0].doubts & MF_DOUBT_BUSY);
	assert_int_equal(p.rep.overlap.cpus, 0);
	pipe_free(&p);

	/* 101 % of one CPU is within rounding; 102 % is not. */
	pipe_run(&p, kb,
		 "system,cpu,machine,cpsp,interval_start,interval_seconds,B0,B1\n"
		 "S,0,z16,5200,2025-01-01T00:00:00Z,60,315120000000,1\n"
		 "T,0,z16,5200,2025-01-01T00:00:00Z,60,318240000000,1\n",
		 MF_BY_SYSTEM);
	assert_true(fabs(metric(&p, 0, "LPARCPU") - 101.0) < 1e-9);
	assert_false(p.res[0].doubts & MF_DOUBT_BUSY);
	assert_true(fabs(metric(&p, 1, "LPARCPU") - 102.0) < 1e-9);
	assert_true(p.res[1].doubts & MF_DOUBT_BUSY);
	{
		static const char *const alone[] =
			{"impossible busy: LPARCPU 102.0 with 1 CPU (at most 100) in 1 "
			 "group, first z16 system T; a wrong CPU speed",
			 NULL};
		assert_true(warned(&p, alone));
	}
	pipe_free(&p);
}

/* A sample of one CPU of system 1 (LPAR 2) for the overlap check: start and length in seconds. */
static void cpu_sample(struct mf_sample *s, int64_t cpu, int64_t start, double seconds)
{
	mf_sample_reset(s);
	s->family = mf_kb_generic(kb);
	s->system = 1;
	s->lpar = 2;
	s->cpu = cpu;
	s->pool = MF_POOL_GCP;
	s->has_start = true;
	s->start_us = (INT64_C(1735689600) + start) * 1000000;
	s->seconds = seconds;
	s->n = 1;
	s->slot[0] = 0;
	s->value[0] = (uint64_t)(start + 7 * cpu);
}

/*
 * The table of identities costs 48 to 64 bytes an identity (issue 26): 8-byte hash slots at most
 * half full and 32-byte entries, made at once by a reserve or grown by doubling.  The 32-byte
 * slots before held 64 to 128 (84 here).  Copies and conflicts are found as before, in any order.
 */
static void dedup_table_memory(void **state)
{
	enum { N = 100000 };
	struct mf_sample *s = calloc(1, sizeof(*s));
	struct mf_error e;
	int pass, i;
	(void)state;
	assert_non_null(s);
	for (pass = 0; pass < 2; pass++) {
		struct mf_dedup *d = mf_dedup_new();
		assert_non_null(d);
		if (pass)
			assert_int_equal(mf_dedup_reserve(d, N), 0);
		for (i = 0; i < N; i++) {
			/* 1,000 CPUs, 100 intervals each, in a scrambled order. */
			int k = (int)(((uint64_t)i * 7919) % N);
			cpu_sample(s, k % 1000, 900 * (int64_t)(k / 1000), 900);
			assert_int_equal(mf_dedup_check(d, "a.csv", s, &e), MF_DEDUP_KEEP);
		}
		if (mf_dedup_table_bytes(d) > (size_t)64 * N)
			fail_msg("%zu bytes for %d identities", mf_dedup_table_bytes(d), N);
		for (i = 0; i < N; i += 97) {
			cpu_sample(s, i % 1000, 900 * (int64_t)(i / 1000), 900);
			assert_int_equal(mf_dedup_check(d, "b.csv", s, &e), MF_DEDUP_DUPLICATE);
			s->value[0]++;
			assert_int_equal(mf_dedup_check(d, "b.csv", s, &e), MF_EFORMAT);
		}
		assert_int_equal(mf_dedup_duplicates(d), (N + 96) / 97);
		assert_int_equal(mf_dedup_conflicts(d), (N + 96) / 97);
		mf_dedup_free(d);
	}
	free(s);
}

/*
 * The overlap check's work is counted, not timed: N intervals of a CPU in time order cost one
 * step each, in reverse order (dumps given newest first) a few; intervals that only seem to meet
 * because their starts and lengths are rounded to the second are not overlaps.
 */
static void overlap_work(void **state)
{
	enum { N = 4000 };
	struct mf_strtab *tab = mf_strtab_new();
	struct mf_sample *s = calloc(1, sizeof(*s));
	struct mf_dedup_overlap o;
	struct mf_error e;
	int i, pass;
	(void)state;
	assert_non_null(s);
	assert_int_equal(mf_strtab_intern(tab, "SYSA", 4), 1);
	assert_int_equal(mf_strtab_intern(tab, "LP1", 3), 2);
	for (pass = 0; pass < 2; pass++) {
		struct mf_dedup *d = mf_dedup_new();
		for (i = 0; i < N; i++) {
			int k = pass ? N - 1 - i : i;
			/* 900 s intervals whose boundaries wander by up to 0.4 s (SMF jitter). */
			double jitter = (k % 3 - 1) * 0.4, next = ((k + 1) % 3 - 1) * 0.4;
			cpu_sample(s, 0, 0, 900 + next - jitter);
			s->start_us = (INT64_C(1735689600) + 900 * (int64_t)k) * 1000000 + llround(jitter * 1e6);
			assert_int_equal(mf_dedup_check(d, "a.csv", s, &e), MF_DEDUP_KEEP);
		}
		assert_true(mf_dedup_overlap_steps(d) >= N - 1);
		if (pass == 0)
			assert_true(mf_dedup_overlap_steps(d) <= N);
		else
			assert_true(mf_dedup_overlap_steps(d) <= 3 * N);
		assert_int_equal(mf_dedup_overlaps(d, NULL, 0, tab, &o), 0);
		assert_int_equal(o.cpus, 0);
		assert_int_equal(o.cpu, -1);
		mf_dedup_free(d);
	}
	mf_strtab_free(tab);
	free(s);
}

/*
 * Many intervals of one CPU out of time order (issue 26): an insert into the sorted runs moved
 * the runs after it, quadratic in random order (20,000 intervals with gaps: about 1e8 steps).
 * Past 64 runs they wait and are merged in one pass: O(N log N) steps, here at most 40 N.
 * Overlaps are still found, in any order, and contiguous intervals are not taken for any.
 */
static void overlap_random_order(void **state)
{
	enum { N = 20000 };
	struct mf_strtab *tab = mf_strtab_new();
	struct mf_sample *s = calloc(1, sizeof(*s));
	struct mf_dedup_overlap o;
	struct mf_error e;
	int i, gap;
	(void)state;
	assert_non_null(s);
	assert_int_equal(mf_strtab_intern(tab, "SYSA", 4), 1);
	assert_int_equal(mf_strtab_intern(tab, "LP1", 3), 2);
	for (gap = 0; gap <= 100; gap += 100) {
		int extra;
		for (extra = 0; extra < 2; extra++) {
			struct mf_dedup *d = mf_dedup_new();
			for (i = 0; i < N; i++) {
				int k = (int)(((uint64_t)i * 7919) % N);
				cpu_sample(s, 0, (900 + gap) * (int64_t)k, 900);
				assert_int_equal(mf_dedup_check(d, "a.csv", s, &e), MF_DEDUP_KEEP);
				if (extra && i == N / 2) {
					/* An interval 30 s after another: the same time counted twice. */
					cpu_sample(s, 0, (900 + gap) * (int64_t)(N / 3) + 30, 900);
					assert_int_equal(mf_dedup_check(d, "b.csv", s, &e), MF_DEDUP_KEEP);
				}
			}
			assert_int_equal(mf_dedup_overlaps(d, NULL, 0, tab, &o), 0);
			if (mf_dedup_overlap_steps(d) > (uint64_t)40 * N)
				fail_msg("gap %d: %llu steps for %d intervals", gap,
					 (unsigned long long)mf_dedup_overlap_steps(d), N);
			assert_int_equal(o.cpus, extra);
			if (extra) {
				assert_true(o.pair);
				assert_int_equal(o.a_start_s, 1735689600 + (900 + gap) * (int64_t)(N / 3));
				assert_int_equal(o.b_start_s, o.a_start_s + 30);
			}
			mf_dedup_free(d);
		}
	}
	mf_strtab_free(tab);
	free(s);
}

/*
 * Overlaps within one CPU found in every way the samples come: in one table, from parts read at
 * once (their runs merged at the end or when the next file comes), in any order; two CPUs with
 * the same number in two LPARs, or a CPU without a number, are never taken for one.
 */
static void overlap_tables(void **state)
{
	struct mf_strtab *tab = mf_strtab_new();
	struct mf_sample *s = calloc(1, sizeof(*s));
	struct mf_dedup *d = mf_dedup_new(), *part = mf_dedup_new();
	struct mf_dedup_part dp;
	struct mf_dedup_overlap o;
	struct mf_error e;
	/* The part's names: 1 is the whole's 2 (LP1), 2 the whole's 1 (SYSA). */
	uint32_t map[3] = {0, 2, 1}, rev[3] = {0, 2, 1};
	int i;
	(void)state;
	assert_non_null(s);
	assert_int_equal(mf_strtab_intern(tab, "SYSA", 4), 1);
	assert_int_equal(mf_strtab_intern(tab, "LP1", 3), 2);
	/* Four 900 s intervals of CPUs 0 and 1 in the whole's table; CPU 1 also in another LPAR. */
	for (i = 0; i < 4; i++) {
		cpu_sample(s, 0, 900 * i, 900);
		assert_int_equal(mf_dedup_check(d, "a.smf", s, &e), MF_DEDUP_KEEP);
		cpu_sample(s, 1, 900 * i, 900);
		assert_int_equal(mf_dedup_check(d, "a.smf", s, &e), MF_DEDUP_KEEP);
	}
	cpu_sample(s, 1, 300, 900);
	s->lpar = 3;
	assert_int_equal(mf_dedup_check(d, "a.smf", s, &e), MF_DEDUP_KEEP);
	/* No number: not checked. */
	cpu_sample(s, -1, 300, 900);
	assert_int_equal(mf_dedup_check(d, "a.smf", s, &e), MF_DEDUP_KEEP);
	/* The same system 300 s later, in a part with its own names: CPU 1 only. */
	for (i = 0; i < 4; i++) {
		cpu_sample(s, 1, 300 + 900 * i, 900);
		s->system = 2;
		s->lpar = 1;
		assert_int_equal(mf_dedup_check(part, "b.smf", s, &e), MF_DEDUP_KEEP);
	}
	memset(&dp, 0, sizeof(dp));
	dp = (struct mf_dedup_part){part, map, rev, 3, 3, 0};
	assert_int_equal(mf_dedup_overlaps(d, &dp, 1, tab, &o), 0);
	assert_int_equal(o.cpus, 1);
	assert_int_equal(o.systems, 1);
	assert_int_equal(o.system, 1);
	assert_int_equal(o.lpar, 2);
	assert_int_equal(o.cpu, 1);
	assert_true(o.pair);
	assert_true(o.a_start_s == 1735689600 && o.a_len_s == 900);
	assert_true(o.b_start_s == 1735689900 && o.b_len_s == 900);
	mf_dedup_free(d);
	mf_dedup_free(part);

	/* The part added when the next file comes (mf_dedup_add_parts), its overlap found in it alone. */
	d = mf_dedup_new();
	part = mf_dedup_new();
	dp.d = part;
	for (i = 3; i >= 0; i--) { /* in reverse order */
		cpu_sample(s, 0, 900 * i, 900);
		s->system = 2;
		s->lpar = 1;
		assert_int_equal(mf_dedup_check(part, "b.smf", s, &e), MF_DEDUP_KEEP);
	}
	cpu_sample(s, 0, 1000, 60); /* within the second interval */
	s->system = 2;
	s->lpar = 1;
	assert_int_equal(mf_dedup_check(part, "b.smf", s, &e), MF_DEDUP_KEEP);
	assert_int_equal(mf_dedup_add_parts(d, &dp, 1), 0);
	assert_int_equal(mf_dedup_overlaps(d, NULL, 0, tab, &o), 0);
	assert_int_equal(o.cpus, 1);
	assert_int_equal(o.cpu, 0);
	assert_true(o.pair);
	assert_true(o.a_start_s == 1735690500 && o.a_len_s == 900);
	assert_true(o.b_start_s == 1735690600 && o.b_len_s == 60);
	mf_dedup_free(d);
	mf_dedup_free(part);
	mf_strtab_free(tab);
	free(s);
}

/* Distinct CPUs: numbers of one system and LPAR kept short, then whole once another LPAR, a
 * number beyond 32 bits or another system comes; the count is the same either way, and merging
 * groups of both kinds counts each CPU once. */
static void cpus_kinds(void **state)
{
	struct mf_grouper *g = mf_grouper_new(MF_BY_SYSTEM), *all = mf_grouper_new(0);
	struct mf_sample *s = calloc(1, sizeof(*s));
	static const struct {
		uint32_t sys, lpar;
		int64_t cpu;
		uint64_t want; /* CPUs of system 1 after the row */
	} rows[] = {
		{1, 1, 3, 1}, {1, 1, 1, 2}, {1, 1, 3, 2}, {1, 1, 2, 3},
		{1, 2, 1, 4}, {1, 1, 1, 4}, {1, 2, 1, 4}, {1, 1, 5000000000LL, 5},
		{2, 1, 1, 5}, {1, 1, 0, 6},
	};
	struct mf_group *const *gs;
	size_t i, n;
	(void)state;
	assert_non_null(s);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		mf_sample_reset(s);
		s->family = mf_kb_generic(kb);
		s->system = rows[i].sys;
		s->lpar = rows[i].lpar;
		s->cpu = rows[i].cpu;
		assert_int_equal(mf_grouper_add(g, s), 0);
		gs = mf_grouper_list(g, &n);
		assert_int_equal(mf_group_cpus(gs[0]), rows[i].want);
	}
	gs = mf_grouper_list(g, &n);
	assert_int_equal(n, 2);
	assert_int_equal(mf_group_cpus(gs[1]), 1);
	/* Merged into one group: system 1's six and system 2's one. */
	for (i = 0; i < n; i++)
		assert_int_equal(mf_grouper_merge(all, gs[i]), 0);
	gs = mf_grouper_list(all, &n);
	assert_int_equal(n, 1);
	assert_int_equal(mf_group_cpus(gs[0]), 7);
	mf_grouper_free(g);
	mf_grouper_free(all);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(by_parse),
		cmocka_unit_test(sum_then_divide),
		cmocka_unit_test(interval_length),
		cmocka_unit_test(keys_and_order),
		cmocka_unit_test(doubts),
		cmocka_unit_test(merge),
		cmocka_unit_test(take_ids),
		cmocka_unit_test(sort_threads),
		cmocka_unit_test(cpus_kinds),
		cmocka_unit_test(interval_spans_systems),
		cmocka_unit_test(dedup_smf),
		cmocka_unit_test(dedup_wide),
		cmocka_unit_test(dedup_parts_wide),
		cmocka_unit_test(max_groups),
		cmocka_unit_test(busy_beyond_cpus),
		cmocka_unit_test(overlap_work),
		cmocka_unit_test(overlap_tables),
		cmocka_unit_test(dedup_table_memory),
		cmocka_unit_test(overlap_random_order),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
