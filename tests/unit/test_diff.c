/* SPDX-License-Identifier: MIT */
/*
 * mfstat diff: the numbers of a diff against two reports made separately
 * (one pipeline per side, as `mfstat report` makes them), and the matching
 * rules: a family change (z15 before, z16 after), groups of one side only,
 * the same family first when a side has several for one key, the percent
 * change with zero before, --metrics, --before/--after ranges and the JSON
 * shape.
 */
#include <jansson.h>

#include "pipeline.h"

#include "mfstat/report/diff.h"
#include "mfstat/report/select.h"

MF_TEST_KB_FIXTURE()

#define Z15_DAY MFSTAT_SOURCE_DIR "/tests/data/day-3sys-z15.csv.gz"
#define Z16_WEEK MFSTAT_SOURCE_DIR "/tests/data/week-2sys.csv.gz"

/* A report of files (NULL-terminated) through the library pipeline; sel may be NULL. */
static void run_files(struct pipe *p, const char *const *files, unsigned by, const struct mf_select *sel)
{
	struct mf_error e;
	pipe_begin(p, kb, by, NULL, sel);
	for (; *files; files++)
		assert_int_equal(mf_pipeline_add_file(p->pl, *files, &e), 0);
	pipe_end(p);
}

/* The result of rep whose system and pool are named so, or fail. */
static const struct mf_result *find(const struct mf_report *rep, const char *system, int pool)
{
	size_t i;
	for (i = 0; i < rep->ngroups; i++) {
		const struct mf_group *g = rep->results[i].group;
		if (strcmp(mf_strtab_get(rep->tab, g->system), system) == 0 && g->pool == pool)
			return &rep->results[i];
	}
	fail_msg("no group %s pool %d", system, pool);
	return NULL;
}

static void same_number(double a, double b)
{
	if (isnan(a) || isnan(b))
		assert_true(isnan(a) && isnan(b));
	else
		assert_true(a == b); /* exactly: the same sums, divided the same way */
}

/* v as the writers write it: %.15g. */
static double written(double v)
{
	char b[64];
	snprintf(b, sizeof(b), "%.15g", v);
	return strtod(b, NULL);
}

/*
 * The change and percent of diff.h: after - before of the values as written, to the 15th
 * significant digit of the larger (so within a step of that digit of the plain difference, and
 * 0 when both are written alike); no percent when before is within rounding of zero at the
 * metric's decimals.
 */
static void check_change(const struct mf_diff_value *v, double b, double a, int digits)
{
	double big = fmax(fabs(written(a)), fabs(written(b))), step;
	if (isnan(a) || isnan(b)) {
		assert_true(isnan(v->delta) && isnan(v->percent));
		return;
	}
	step = big > 0 ? pow(10, floor(log10(big)) - 14) : 0;
	if (written(a) == written(b))
		assert_true(v->delta == 0);
	assert_true(fabs(v->delta - (a - b)) <= 1.5 * step);
	if (fabs(b) < 0.5 * pow(10, -digits))
		assert_true(isnan(v->percent));
	else
		same_number(v->percent, v->delta / fabs(written(b)) * 100);
}

/* Every matched value equals that of a report of its side made on its own. */
static void check_against(const struct mf_diff *d, const struct mf_report *sep_b, const struct mf_report *sep_a)
{
	size_t i, k;
	for (i = 0; i < d->ngroups; i++) {
		const struct mf_diff_group *g = &d->groups[i];
		const char *sys = mf_strtab_get(d->before->tab, g->before->group->system);
		const struct mf_result *rb = find(sep_b, sys, g->before->group->pool);
		const struct mf_result *ra = find(sep_a, sys, g->before->group->pool);
		assert_string_equal(sys, mf_strtab_get(d->after->tab, g->after->group->system));
		assert_int_equal(g->before->group->pool, g->after->group->pool);
		assert_int_equal(g->lspr_before, rb->lspr);
		assert_int_equal(g->lspr_after, ra->lspr);
		assert_int_equal(g->lspr_moved,
				 rb->lspr != MF_LSPR_NONE && ra->lspr != MF_LSPR_NONE && rb->lspr != ra->lspr);
		for (k = 0; k < d->nmetrics; k++) {
			const struct mf_diff_value *v = &g->values[k];
			int mb = mf_family_metric(rb->group->family, d->metrics[k]);
			int ma = mf_family_metric(ra->group->family, d->metrics[k]);
			double b = mb >= 0 ? rb->value[mb] : NAN, a = ma >= 0 ? ra->value[ma] : NAN;
			assert_int_equal(v->in_before, mb >= 0);
			assert_int_equal(v->in_after, ma >= 0);
			same_number(v->before, b);
			same_number(v->after, a);
			int dg = mb >= 0   ? rb->group->family->metrics[mb].digits
				 : ma >= 0 ? ra->group->family->metrics[ma].digits
					   : 3;
			check_change(v, b, a, dg);
		}
	}
}

static int metric_at(const struct mf_diff *d, const char *name)
{
	size_t k;
	for (k = 0; k < d->nmetrics; k++)
		if (strcmp(d->metrics[k], name) == 0)
			return (int)k;
	return -1;
}

/* A z15 day before, a z16 week after: the migration case. */
static void migration_against_reports(void **state)
{
	const char *const fb[] = {Z15_DAY, NULL}, *const fa[] = {Z16_WEEK, NULL};
	unsigned by = MF_BY_SYSTEM | MF_BY_POOL;
	struct pipe b, a, sb, sa;
	struct mf_diff *d;
	struct mf_error e;
	int aiu;
	(void)state;
	run_files(&b, fb, by, NULL);
	run_files(&a, fa, by, NULL);
	run_files(&sb, fb, by, NULL);
	run_files(&sa, fa, by, NULL);
	assert_int_equal(mf_diff_new(&b.rep, &a.rep, NULL, &d, &e), 0);
	assert_int_equal(d->ngroups, 4); /* SYSA and SYSB, GCP and ZIIP */
	assert_int_equal(d->nonly_before, 2);
	assert_int_equal(d->nonly_after, 0);
	assert_string_equal(mf_strtab_get(b.rep.tab, d->only_before[0].before->group->system), "SYSC");
	assert_int_equal(d->only_before[0].before->group->pool, MF_POOL_GCP);
	assert_int_equal(d->only_before[1].before->group->pool, MF_POOL_ZIIP);
	assert_null(d->only_before[0].values);
	assert_string_equal(d->groups[0].before->group->family->key, "z15");
	assert_string_equal(d->groups[0].after->group->family->key, "z16");
	/* A metric of z16 alone is compared, defined on the after side only. */
	aiu = metric_at(d, "AIU_CPU");
	assert_true(aiu >= 0);
	assert_false(d->groups[0].values[aiu].in_before);
	assert_true(d->groups[0].values[aiu].in_after);
	assert_true(isnan(d->groups[0].values[aiu].delta));
	assert_true(metric_at(d, "CPI") >= 0 && metric_at(d, "RNI") >= 0 && metric_at(d, "LSPR") < 0);
	check_against(d, &sb.rep, &sa.rep);
	mf_diff_free(d);
	pipe_free(&b);
	pipe_free(&a);
	pipe_free(&sb);
	pipe_free(&sa);
}

/* One input, two ranges (--before/--after), against reports of each range alone. */
static void ranges_against_reports(void **state)
{
	const char *const f[] = {Z16_WEEK, NULL};
	unsigned by = MF_BY_SYSTEM | MF_BY_POOL;
	struct mf_select s1 = {0}, s2 = {0};
	struct pipe b, a, sb, sa;
	struct mf_diff *d;
	struct mf_error e;
	(void)state;
	assert_int_equal(mf_diff_parse_range("2025-04-07/2025-04-10", NULL, &s1.from_us, &s1.to_us), 0);
	assert_int_equal(mf_diff_parse_range("2025-04-10T00:00:00Z/2025-04-14", NULL, &s2.from_us, &s2.to_us), 0);
	s1.has_from = s1.has_to = s2.has_from = s2.has_to = true;
	run_files(&b, f, by, &s1);
	run_files(&a, f, by, &s2);
	run_files(&sb, f, by, &s1);
	run_files(&sa, f, by, &s2);
	assert_int_equal(b.rep.left_out[MF_SELECT_AFTER] + a.rep.left_out[MF_SELECT_BEFORE], b.rep.rows_read);
	assert_int_equal(mf_diff_new(&b.rep, &a.rep, "CPI,LSPR,rni,MEMP", &d, &e), 0);
	assert_int_equal(d->nmetrics, 3);
	assert_string_equal(d->metrics[1], "RNI"); /* the knowledge base's spelling, LSPR left to the class */
	assert_int_equal(d->ngroups, 4);
	assert_int_equal(d->nonly_before + d->nonly_after, 0);
	check_against(d, &sb.rep, &sa.rep);
	mf_diff_free(d);
	pipe_free(&b);
	pipe_free(&a);
	pipe_free(&sb);
	pipe_free(&sa);
}

/* Rows of generic counters: CPI = B0 / B1. */
static const char before_csv[] =
	"system,interval_start,interval_seconds,B0,B1\n"
	"A,2025-04-07T00:00:00Z,900,0,100\n" /* CPI 0 */
	"B,2025-04-07T00:00:00Z,900,300,100\n"
	"D,2025-04-07T00:00:00Z,900,400,100\n";
static const char after_csv[] =
	"system,interval_start,interval_seconds,B0,B1\n"
	"A,2025-04-14T00:00:00Z,900,200,100\n"
	"B,2025-04-14T00:00:00Z,900,150,100\n"
	"C,2025-04-14T00:00:00Z,900,100,100\n"
	"D,2025-04-14T00:00:00Z,900,100,0\n"; /* CPI n/a */

static void one_sided_and_percent(void **state)
{
	struct pipe b, a;
	struct mf_diff *d;
	struct mf_error e;
	int cpi;
	(void)state;
	pipe_run(&b, kb, before_csv, MF_BY_SYSTEM);
	pipe_run(&a, kb, after_csv, MF_BY_SYSTEM);
	assert_int_equal(mf_diff_new(&b.rep, &a.rep, "CPI", &d, &e), 0);
	cpi = metric_at(d, "CPI");
	assert_int_equal(d->ngroups, 3); /* A, B, D */
	assert_int_equal(d->nonly_before, 0);
	assert_int_equal(d->nonly_after, 1);
	assert_string_equal(mf_strtab_get(a.rep.tab, d->only_after[0].after->group->system), "C");
	assert_null(d->only_after[0].before);
	/* A: 0 -> 2, the change without a percent. */
	same_number(d->groups[0].values[cpi].before, 0);
	same_number(d->groups[0].values[cpi].delta, 2);
	assert_true(isnan(d->groups[0].values[cpi].percent));
	/* B: 3 -> 1.5, -50%. */
	same_number(d->groups[1].values[cpi].delta, -1.5);
	same_number(d->groups[1].values[cpi].percent, -50);
	/* D: 4 -> n/a, neither change nor percent. */
	assert_true(isnan(d->groups[2].values[cpi].after));
	assert_true(isnan(d->groups[2].values[cpi].delta));
	assert_true(isnan(d->groups[2].values[cpi].percent));
	assert_false(d->groups[0].lspr_moved);
	mf_diff_free(d);
	pipe_free(&b);
	pipe_free(&a);
}

/* A side with two families for one key: the same family is matched first, the other left one-sided. */
static void same_family_first(void **state)
{
	static const char two[] =
		"system,cpu,machine,interval_start,interval_seconds,B0,B1\n"
		"A,0,8561,2025-04-07T00:00:00Z,900,300,100\n"
		"A,1,3931,2025-04-07T00:00:00Z,900,200,100\n";
	static const char one[] =
		"system,cpu,machine,interval_start,interval_seconds,B0,B1\n"
		"A,0,3931,2025-04-14T00:00:00Z,900,250,100\n";
	struct pipe b, a;
	struct mf_diff *d;
	struct mf_error e;
	(void)state;
	pipe_run(&b, kb, two, MF_BY_SYSTEM);
	pipe_run(&a, kb, one, MF_BY_SYSTEM);
	assert_int_equal(b.rep.ngroups, 2);
	assert_int_equal(mf_diff_new(&b.rep, &a.rep, "CPI", &d, &e), 0);
	assert_int_equal(d->ngroups, 1);
	assert_string_equal(d->groups[0].before->group->family->key, "z16");
	same_number(d->groups[0].values[0].delta, 0.5);
	assert_int_equal(d->nonly_before, 1);
	assert_string_equal(d->only_before[0].before->group->family->key, "z15");
	mf_diff_free(d);
	pipe_free(&b);
	pipe_free(&a);
}

static void metrics_and_ranges_rejected(void **state)
{
	struct pipe b;
	struct mf_diff *d = (struct mf_diff *)&d;
	struct mf_error e;
	int64_t f, t;
	(void)state;
	pipe_run(&b, kb, before_csv, MF_BY_SYSTEM);
	assert_int_equal(mf_diff_new(&b.rep, &b.rep, "CPI,NOPE", &d, &e), MF_EUSAGE);
	assert_null(d);
	assert_non_null(strstr(e.msg, "'NOPE'"));
	assert_int_equal(mf_diff_new(&b.rep, &b.rep, "CPI,,RNI", &d, &e), MF_EUSAGE);
	assert_int_equal(mf_diff_new(&b.rep, &b.rep, "", &d, &e), MF_EUSAGE);
	assert_int_equal(mf_diff_parse_range("2025-04-10/2025-04-07", NULL, &f, &t), -1); /* TO before FROM */
	assert_int_equal(mf_diff_parse_range("2025-04-07", NULL, &f, &t), -1);
	assert_int_equal(mf_diff_parse_range("/2025-04-07", NULL, &f, &t), -1);
	assert_int_equal(mf_diff_parse_range("2025-04-07/2025-04-08/2025-04-09", NULL, &f, &t), -1);
	assert_int_equal(mf_diff_parse_range("2025-04-07/soon", NULL, &f, &t), -1);
	assert_int_equal(mf_diff_parse_range("2025-04-07/2025-04-08", NULL, &f, &t), 0);
	assert_true(t - f == INT64_C(86400000000));
	pipe_free(&b);
}

/*
 * Issue 24, item 9: one z16 CPU, one minute before and three after with three times the
 * counters.  Every metric is the same on both sides, but LPARCPU's two divisions round apart
 * (1.4e-14): its change is 0, as the two values are written alike.  W_AIU_CPU is 0.004 before,
 * shown as 0.00: no percent from it (it was +12400%), though the change stays.
 */
static void change_precision(void **state)
{
	static const char head[] = "system,cpu,pool,machine,cpsp,interval_start,interval_seconds,B0,B1,E269,E270\n";
	static const char one[] =
		"SYSA,0,GCP,3931,5200,2025-04-07T10:00:00Z,60,242913549927,100000000000,12480000,"
		"1560000000\n";
	char before[512], after[1024];
	struct pipe b, a;
	struct mf_diff *d;
	struct mf_error e;
	const struct mf_diff_value *v;
	int i;
	(void)state;
	snprintf(before, sizeof(before), "%s%s", head, one);
	snprintf(after, sizeof(after), "%s", head);
	for (i = 0; i < 3; i++)
		snprintf(after + strlen(after), sizeof(after) - strlen(after),
			 "SYSA,0,GCP,3931,5200,2025-04-07T10:0%d:00Z,60,242913549927,100000000000,1560000000,"
			 "1560000000\n",
			 i);
	pipe_run(&b, kb, before, MF_BY_SYSTEM | MF_BY_POOL);
	pipe_run(&a, kb, after, MF_BY_SYSTEM | MF_BY_POOL);
	assert_int_equal(mf_diff_new(&b.rep, &a.rep, "CPI,LPARCPU,W_AIU_CPU,C_AIU_CPU", &d, &e), 0);
	assert_int_equal(d->ngroups, 1);
	v = &d->groups[0].values[metric_at(d, "LPARCPU")];
	assert_true(v->before != v->after);                   /* the doubles differ... */
	assert_true(written(v->before) == written(v->after)); /* ...but are written alike */
	assert_true(v->delta == 0 && v->percent == 0);
	v = &d->groups[0].values[metric_at(d, "CPI")];
	assert_true(v->delta == 0 && v->percent == 0);
	v = &d->groups[0].values[metric_at(d, "W_AIU_CPU")];
	assert_true(fabs(v->before - 0.004) < 1e-12 && fabs(v->after - 0.5) < 1e-12);
	same_number(v->delta, 0.496);
	assert_true(isnan(v->percent));
	mf_diff_free(d);
	pipe_free(&b);
	pipe_free(&a);
}

struct texts {
	char t[16][1024];
	size_t n;
};

static void keep_text(void *ctx, const char *text)
{
	struct texts *x = ctx;
	if (x->n < 16)
		snprintf(x->t[x->n++], sizeof(x->t[0]), "%s", text);
}

/* The finding of a group and metric ("SYSA / ZIIP: RNI "), or fail. */
static const char *finding_of(const struct texts *x, const char *start)
{
	size_t i;
	for (i = 0; i < x->n; i++)
		if (strncmp(x->t[i], start, strlen(start)) == 0)
			return x->t[i];
	fail_msg("no finding starting \"%s\"", start);
	return NULL;
}

/*
 * Issue 24, item 9: an RNI move explained by the sourcing levels that moved it most, and in a
 * migration by the formula's part and the sourcing's.  SYSA's zIIPs, z15 before and z16 after:
 * RNI rose 0.031 while L3P, L4LP and MEMP each fell about a quarter ("no more sourcing beyond
 * L2" before).  By hand from cpumf-formulas.md: z16's formula on the z15 sourcing, 4.1 * (0.45
 * L3P + 1.3 L4LP + 5.0 L4RP + 6.1 MEMP) / 100, less z15's RNI is the formula's part; the rest
 * is the sourcing's.
 */
static void rni_explained(void **state)
{
	const char *const fb[] = {Z15_DAY, NULL}, *const fa[] = {Z16_WEEK, NULL};
	struct pipe b, a;
	struct mf_diff *d;
	struct mf_error e;
	struct texts x = {0};
	const struct mf_diff_group *g = NULL;
	const char *text;
	double l3, l4l, l4r, mem, rni_b, rni_a, formula, sourcing;
	char want[128];
	size_t i;
	(void)state;
	run_files(&b, fb, MF_BY_SYSTEM | MF_BY_POOL, NULL);
	run_files(&a, fa, MF_BY_SYSTEM | MF_BY_POOL, NULL);
	assert_int_equal(mf_diff_new(&b.rep, &a.rep, NULL, &d, &e), 0);
	for (i = 0; i < d->ngroups; i++)
		if (strcmp(mf_strtab_get(b.rep.tab, d->groups[i].before->group->system), "SYSA") == 0 &&
		    d->groups[i].before->group->pool == MF_POOL_ZIIP)
			g = &d->groups[i];
	assert_non_null(g);
	l3 = g->values[metric_at(d, "L3P")].before;
	l4l = g->values[metric_at(d, "L4LP")].before;
	l4r = g->values[metric_at(d, "L4RP")].before;
	mem = g->values[metric_at(d, "MEMP")].before;
	rni_b = g->values[metric_at(d, "RNI")].before;
	rni_a = g->values[metric_at(d, "RNI")].after;
	formula = 4.1 * (0.45 * l3 + 1.3 * l4l + 5.0 * l4r + 6.1 * mem) / 100 - rni_b;
	sourcing = rni_a - rni_b - formula;
	assert_true(formula > 0.3 && sourcing < -0.25); /* the formula lifts it, the sourcing pulls it down */
	mf_diff_findings(d, 16, keep_text, &x);
	text = finding_of(&x, "SYSA / ZIIP: RNI up 0.031");
	snprintf(want, sizeof(want), ": %+.3f from the RNI formula of z16 instead of z15's, %+.3f from fewer L1 misses",
		 formula, sourcing);
	if (!strstr(text, want))
		fail_msg("\"%s\" lacks \"%s\"", text, want);
	/* The three levels that moved RNI most, memory first (6.1 a point), L4RP (0.1 points) left out. */
	snprintf(want, sizeof(want), "memory (MEMP %.2f%% -> %.2f%%), an L3 on the same chip (L3P %.2f%%", mem,
		 g->values[metric_at(d, "MEMP")].after, l3);
	if (!strstr(text, want))
		fail_msg("\"%s\" lacks \"%s\"", text, want);
	assert_non_null(strstr(text, " and caches elsewhere on the same drawer (L4LP "));
	assert_null(strstr(text, "L4RP"));
	assert_null(strstr(text, "no more sourcing"));
	mf_diff_free(d);
	pipe_free(&b);
	pipe_free(&a);
}

/* The JSON of a diff: schema 1, both periods, matched groups with their changes, one-sided lists. */
static void json_shape(void **state)
{
	struct pipe b, a;
	struct mf_diff *d;
	struct mf_error e;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	json_error_t je;
	json_t *root, *g;
	(void)state;
	pipe_run(&b, kb, before_csv, MF_BY_SYSTEM);
	pipe_run(&a, kb, after_csv, MF_BY_SYSTEM);
	assert_int_equal(mf_diff_new(&b.rep, &a.rep, NULL, &d, &e), 0);
	assert_int_equal(mf_diff_out_json(fp, d), 0);
	fclose(fp);
	root = json_loads(buf, 0, &je);
	assert_non_null(root);
	assert_int_equal(json_integer_value(json_object_get(root, "schema")), 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(root, "before"), "start")),
			    "2025-04-07T00:00:00Z");
	assert_int_equal(json_array_size(json_object_get(root, "groups")), 3);
	g = json_array_get(json_object_get(root, "groups"), 1);
	assert_string_equal(json_string_value(json_object_get(g, "system")), "B");
	assert_null(json_object_get(g, "pool")); /* only the keys of --by */
	assert_true(json_number_value(
			    json_object_get(json_object_get(json_object_get(g, "change"), "CPI"), "percent")) == -50);
	assert_true(json_is_null(
		json_object_get(json_object_get(json_object_get(json_array_get(json_object_get(root, "groups"), 0),
								"change"),
						"CPI"),
				"percent")));
	assert_true(json_is_false(json_object_get(json_object_get(g, "lspr"), "moved")));
	assert_int_equal(json_array_size(json_object_get(root, "only_before")), 0);
	assert_int_equal(json_array_size(json_object_get(root, "only_after")), 1);
	json_decref(root);
	free(buf);
	mf_diff_free(d);
	pipe_free(&b);
	pipe_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(migration_against_reports),
		cmocka_unit_test(ranges_against_reports),
		cmocka_unit_test(one_sided_and_percent),
		cmocka_unit_test(same_family_first),
		cmocka_unit_test(metrics_and_ranges_rejected),
		cmocka_unit_test(json_shape),
		cmocka_unit_test(change_precision),
		cmocka_unit_test(rni_explained),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
