/* SPDX-License-Identifier: MIT */
/*
 * The work of the report's helpers, counted (never timed): mf_report_cpus_expected sizes its
 * table by the series, not the groups, and is computed once per report (the writers take the
 * report's); mf_report_families is one pass over the groups, not one per family of the
 * knowledge base; export looks each counter up among its columns once; the notes look a metric
 * up by name once per family, not per group.  malloc, calloc and
 * strcasecmp are wrapped (-Wl,--wrap) to see the library's requests and name compares.
 */
#include <signal.h>
#include <unistd.h>

#include "testutil.h"
#include "pipeline.h"

void *__real_malloc(size_t n);
int __real_strcasecmp(const char *a, const char *b);
int __wrap_strcasecmp(const char *a, const char *b);
void *__real_calloc(size_t nmemb, size_t size);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t nmemb, size_t size);

static size_t largest;          /* the largest request since reset */
static size_t watch_n;          /* a report's groups: count requests sized for them */
static unsigned long per_group; /* requests of (watch_n + 1) * 8 bytes, or calloc(>= 2 watch_n, 16) */

static unsigned long compares; /* strcasecmp calls */

int __wrap_strcasecmp(const char *a, const char *b)
{
	compares++;
	return __real_strcasecmp(a, b);
}

void *__wrap_malloc(size_t n)
{
	if (n > largest)
		largest = n;
	if (watch_n && n == (watch_n + 1) * sizeof(uint64_t))
		per_group++;
	return __real_malloc(n);
}

void *__wrap_calloc(size_t nmemb, size_t size)
{
	if (nmemb * size > largest)
		largest = nmemb * size;
	if (watch_n && size == 16 && nmemb >= 2 * watch_n)
		per_group++;
	return __real_calloc(nmemb, size);
}

static struct mf_kb *kb;

static int setup(void **state)
{
	(void)state;
	kb = test_kb();
	return kb ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	mf_kb_free(kb);
	return 0;
}

/* 200,000 groups of 8 series: the table holds the 8 series, not 400,000 slots. */
static void expected_sized_by_series(void **state)
{
	enum { N = 200000, S = 8 };
	struct mf_group g[S];
	struct mf_result *res = calloc(N, sizeof(*res));
	uint64_t *out = malloc(N * sizeof(*out)), most[S] = {0};
	struct mf_report rep = {0};
	size_t i;
	(void)state;
	assert_non_null(res);
	assert_non_null(out);
	memset(g, 0, sizeof(g));
	for (i = 0; i < S; i++) {
		g[i].family = &kb->families[0];
		g[i].system = 1;
		g[i].cpu = (int64_t)i;
		g[i].has_start = true;
		g[i].polarity = MF_POL_NONE;
		g[i].lpar_weight = g[i].drawer = g[i].chip = -1;
	}
	for (i = 0; i < N; i++) {
		res[i].group = &g[i % S];
		res[i].cpus = (i * 7919) % 13 + 1;
		if (res[i].cpus > most[i % S])
			most[i % S] = res[i].cpus;
	}
	rep.kb = kb;
	rep.by = MF_BY_SYSTEM | MF_BY_CPU | MF_BY_INTERVAL;
	rep.ngroups = N;
	rep.results = res;
	largest = 0;
	mf_report_cpus_expected(&rep, out);
	for (i = 0; i < N; i++)
		assert_int_equal(out[i], most[i % S]);
	/* a table of 64 slots of 16 bytes, and the series' most; before: 2^19 slots (8 MiB) */
	if (largest > 4096)
		fail_msg("mf_report_cpus_expected asked for %zu bytes at once for %d series", largest, S);
	free(res);
	free(out);
}

/* 100,000 groups of 50,000 series: the table grows, and every group gets its series' most. */
static void expected_grows(void **state)
{
	enum { N = 100000 };
	struct mf_group *g = calloc(N / 2, sizeof(*g));
	struct mf_result *res = calloc(N, sizeof(*res));
	uint64_t *out = malloc(N * sizeof(*out));
	struct mf_report rep = {0};
	size_t i;
	(void)state;
	assert_non_null(g);
	assert_non_null(res);
	assert_non_null(out);
	for (i = 0; i < N / 2; i++) {
		g[i].family = &kb->families[0];
		g[i].system = (uint32_t)(i % 20);
		g[i].cpu = (int64_t)(i / 20);
		g[i].has_start = i % 10 != 0; /* some untimed: they keep their own count */
		g[i].polarity = MF_POL_NONE;
		g[i].lpar_weight = g[i].drawer = g[i].chip = -1;
	}
	for (i = 0; i < N; i++) {
		res[i].group = &g[(i * 7) % (N / 2)]; /* each series twice, far apart */
		res[i].cpus = i % 3 + 1;
	}
	rep.kb = kb;
	rep.by = MF_BY_SYSTEM | MF_BY_CPU | MF_BY_INTERVAL;
	rep.ngroups = N;
	rep.results = res;
	mf_report_cpus_expected(&rep, out);
	for (i = 0; i < N; i++) {
		/* the other group of the series: i +- N/2 (7 is prime to N/2) */
		size_t j = i < N / 2 ? i + N / 2 : i - N / 2;
		uint64_t want =
			res[i].group->has_start ? (res[i].cpus > res[j].cpus ? res[i].cpus : res[j].cpus) : res[i].cpus;
		assert_ptr_equal(res[j].group, res[i].group);
		assert_int_equal(out[i], want);
	}
	free(g);
	free(res);
	free(out);
}

/* The pipeline computes the expected CPUs once, with the notes; the writers take them. */
static void expected_once_per_report(void **state)
{
	struct mf_strbuf csv;
	struct pipe p;
	static int (*const writers[])(FILE *, const struct mf_report *) = {mf_out_csv, mf_out_text, mf_out_json};
	uint64_t *exp;
	size_t i, k;
	(void)state;
	mf_strbuf_init(&csv);
	mf_strbuf_puts(&csv, "system,cpu,machine,cpsp,interval_start,interval_seconds,B0,B1\n");
	for (i = 0; i < 600; i++)
		for (k = 0; k < 3; k++)
			if (i != 17 || k != 2) /* one interval lost a CPU */
				mf_strbuf_printf(&csv,
						 "S,%zu,z16,1000,2025-01-%02zuT%02zu:%02zu:00Z,900,450000000000,1\n", k,
						 1 + i / 96, i % 96 / 4, i % 4 * 15);
	pipe_run(&p, kb, mf_strbuf_str(&csv), MF_BY_DEFAULT);
	mf_strbuf_free(&csv);
	assert_int_equal(p.n, 600);
	assert_non_null(p.rep.cpus_expected);
	exp = malloc(p.n * sizeof(*exp));
	assert_non_null(exp);
	{
		struct mf_report r = p.rep;
		r.cpus_expected = NULL;
		mf_report_cpus_expected(&r, exp);
	}
	for (i = 0; i < p.n; i++)
		assert_int_equal(exp[i], 3);
	assert_memory_equal(exp, p.rep.cpus_expected, p.n * sizeof(*exp));
	free(exp);
	for (k = 0; k < sizeof(writers) / sizeof(writers[0]); k++) {
		FILE *fp = fopen("/dev/null", "w");
		assert_non_null(fp);
		watch_n = p.n;
		per_group = 0;
		assert_int_equal(writers[k](fp, &p.rep), 0);
		watch_n = 0;
		fclose(fp);
		if (per_group)
			fail_msg("writer %zu computed the expected CPUs again (%lu arrays or tables for the groups)", k,
				 per_group);
	}
	pipe_free(&p);
}

static int discard(void *ctx, const char *s, size_t len)
{
	(void)ctx;
	(void)s;
	(void)len;
	return 0;
}

/* 3,000 groups of one family: one system, 3 CPUs by CPU, 1,000 intervals of 15 minutes. */
static void run_3000_groups(struct pipe *p)
{
	struct mf_strbuf csv;
	size_t i, k;
	mf_strbuf_init(&csv);
	mf_strbuf_puts(&csv, "system,cpu,machine,cpsp,interval_start,interval_seconds,B0,B1\n");
	for (i = 0; i < 1000; i++)
		for (k = 0; k < 3; k++)
			mf_strbuf_printf(&csv, "S,%zu,z16,1000,2025-01-%02zuT%02zu:%02zu:00Z,900,450000000000,1\n", k,
					 1 + i / 96, i % 96 / 4, i % 4 * 15);
	pipe_run(p, kb, mf_strbuf_str(&csv), MF_BY_DEFAULT | MF_BY_CPU);
	mf_strbuf_free(&csv);
	assert_int_equal(p->n, 3000);
}

/*
 * export's columns: each counter of a family is looked up among the columns once, not once per
 * group (which made the column pass groups x counters x columns name compares).
 */
static void export_columns_once(void **state)
{
	struct pipe p;
	struct mf_group *const *groups;
	(void)state;
	run_3000_groups(&p);
	groups = pipe_groups(&p.rep);
	compares = 0;
	assert_int_equal(mf_export_csv(groups, p.n, p.tab, false, discard, NULL, NULL), 0);
	/* the two columns, then each column's slot on the family (a scan of its counters): a few
	 * hundred compares; one lookup per group and counter was 3000 x 2 x 1.5 */
	if (compares > 1000)
		fail_msg("export compared %lu counter names for %zu groups of 2 counters", compares, p.n);
	free((void *)groups);
	pipe_free(&p);
}

/*
 * 1,000,000 groups of the last of 100,000 families: one pass is 1.1 million steps, one scan of
 * the groups per family 10^11.  The alarm is a hang guard (the pass takes milliseconds).
 */
static void families_one_pass(void **state)
{
	enum { NF = 100000, N = 1000000 };
	struct mf_kb big = {0};
	struct mf_family outside;
	struct mf_group g[4];
	struct mf_result *res = calloc(N, sizeof(*res));
	struct mf_report rep = {0};
	const struct mf_family *out[4];
	size_t i;
	(void)state;
	big.nfamilies = NF;
	big.families = calloc(NF, sizeof(*big.families)); /* never touched: address space only */
	assert_non_null(big.families);
	assert_non_null(res);
	memset(g, 0, sizeof(g));
	g[0].family = &big.families[NF - 1];
	g[1].family = &outside; /* not of the knowledge base: not listed */
	g[2].family = &big.families[7];
	g[3].family = &big.families[2];
	rep.kb = &big;
	rep.results = res;
	rep.ngroups = N;
	for (i = 0; i < N; i++)
		res[i].group = &g[i == 0 ? 1 : 0];
	alarm(60);
	assert_int_equal(mf_report_families(&rep, out, 4), 1);
	alarm(0);
	assert_ptr_equal(out[0], &big.families[NF - 1]);
	/* the knowledge base's order, each once, at most max written, all counted */
	res[5].group = &g[2];
	res[9].group = &g[3];
	res[10].group = &g[2];
	alarm(60);
	assert_int_equal(mf_report_families(&rep, out, 4), 3);
	alarm(0);
	assert_ptr_equal(out[0], &big.families[2]);
	assert_ptr_equal(out[1], &big.families[7]);
	assert_ptr_equal(out[2], &big.families[NF - 1]);
	out[1] = NULL;
	assert_int_equal(mf_report_families(&rep, out, 1), 3);
	assert_ptr_equal(out[0], &big.families[2]);
	assert_null(out[1]);
	rep.ngroups = 0;
	assert_int_equal(mf_report_families(&rep, out, 4), 0);
	free(big.families);
	free(res);
}

/*
 * The notes' pass over the groups (mf_notes_report): the busy finding's metric (LPARCPU_DIFF)
 * is looked up by name once per run of groups of a family, not once per group.
 */
static void notes_lookups_per_family(void **state)
{
	struct mf_notes notes;
	struct pipe p;
	unsigned long long before, lookups;
	(void)state;
	run_3000_groups(&p);
	mf_notes_init(&notes);
	before = mf_kb_name_lookups();
	mf_notes_report(&notes, &p.rep);
	lookups = mf_kb_name_lookups() - before;
	/* one family: a lookup for its run of groups; before, one per group (3000) */
	if (lookups > 10)
		fail_msg("the notes looked %llu names up for %zu groups of one family", lookups, p.n);
	assert_int_equal(notes.nwarnings, 0);
	mf_notes_free(&notes);
	pipe_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(expected_sized_by_series), cmocka_unit_test(expected_grows),
		cmocka_unit_test(expected_once_per_report), cmocka_unit_test(export_columns_once),
		cmocka_unit_test(families_one_pass),        cmocka_unit_test(notes_lookups_per_family),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
