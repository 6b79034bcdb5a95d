/* SPDX-License-Identifier: MIT */
/* The library pipeline: a library caller gets the report `mfstat report` writes. */
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

MF_TEST_KB_FIXTURE()

struct seen {
	char kinds[16];
	size_t n;
	char last[600];
};

static void record(void *ctx, enum mf_pipeline_diag kind, const struct mf_error *e)
{
	struct seen *s = ctx;
	if (s->n + 1 < sizeof(s->kinds))
		s->kinds[s->n++] = "SEFH"[kind];
	snprintf(s->last, sizeof(s->last), "%s", e->msg);
}

static struct mf_pipeline_opts opts_for(struct seen *s, unsigned by)
{
	struct mf_pipeline_opts o = {0};
	o.kb = kb;
	o.by = by;
	o.metrics.mem_peak_gbs = NAN;
	o.diag = record;
	o.ctx = s;
	return o;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long n;
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	rewind(fp);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	*len = (size_t)n;
	return buf;
}

/* The JSON of the pipeline equals the CLI golden of `mfstat report -f json` (report_json). */
static void json_equals_cli(void **state)
{
	struct seen s = {0};
	struct mf_pipeline_opts o = opts_for(&s, MF_BY_DEFAULT);
	struct mf_pipeline *p = mf_pipeline_new(&o);
	struct mf_report rep;
	struct mf_error e;
	char *got = NULL, *want;
	size_t gotlen = 0, wantlen;
	char cwd[4096];
	FILE *fp;
	(void)state;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	/* The golden names the input as the CLI test gives it, relative to tests/cli. */
	assert_int_equal(chdir(MFSTAT_SOURCE_DIR "/tests/cli"), 0);
	assert_non_null(p);
	assert_int_equal(mf_pipeline_add_file(p, "../data/z16-two-pools.csv", &e), 0);
	assert_int_equal(mf_pipeline_finish(p, &rep), 0);
	fp = open_memstream(&got, &gotlen);
	assert_non_null(fp);
	assert_int_equal(mf_out_json(fp, &rep), 0);
	fclose(fp);
	want = slurp("report/report_json.stdout.exact", &wantlen);
	assert_int_equal(chdir(cwd), 0);
	assert_string_equal(got, want);
	assert_int_equal(s.n, 0);
	free(got);
	free(want);
	mf_pipeline_free(p);
}

#define HEAD "system,cpu,machine,cpsp,interval_start,interval_seconds,B0,B1\n"
#define ROW(t, b0) "S,0,z16,1000,2025-01-01T00:" t ":00Z,900," b0 ",1\n"

/* A copy with other counters: an error and its hint, or with skip_bad one counted skip. */
static void duplicates_and_skips(void **state)
{
	static const char day1[] = HEAD ROW("00", "450000000000") ROW("15", "450000000000");
	static const char same[] = HEAD ROW("15", "450000000000") ROW("30", "450000000000");
	static const char other[] = HEAD ROW("15", "450000000001");
	struct seen s = {0};
	struct mf_pipeline_opts o = opts_for(&s, MF_BY_SYSTEM);
	struct mf_pipeline *p = mf_pipeline_new(&o);
	struct mf_report rep;
	struct mf_error e;
	(void)state;

	assert_int_equal(mf_pipeline_add_mem(p, "day1.csv", day1, strlen(day1), &e), 0);
	assert_int_equal(mf_pipeline_add_mem(p, "other.csv", other, strlen(other), &e), MF_EFORMAT);
	assert_string_equal(s.kinds, "EH");
	assert_string_equal(s.last, "(use --skip-bad-rows to keep the first copy and count the others)");
	mf_pipeline_free(p);

	memset(&s, 0, sizeof(s));
	o.skip_bad = true;
	p = mf_pipeline_new(&o);
	assert_int_equal(mf_pipeline_add_mem(p, "day1.csv", day1, strlen(day1), &e), 0);
	assert_int_equal(mf_pipeline_add_mem(p, "same.csv", same, strlen(same), &e), 0);
	assert_int_equal(mf_pipeline_add_mem(p, "other.csv", other, strlen(other), &e), 0);
	assert_string_equal(s.kinds, "S");
	assert_int_equal(mf_pipeline_finish(p, &rep), 0);
	assert_int_equal(rep.nfiles, 3);
	assert_int_equal(rep.ninputs, 3);
	assert_int_equal(rep.rows_read, 4); /* the conflicting copy is skipped, not read */
	assert_int_equal(rep.rows_skipped, 1);
	assert_int_equal(rep.duplicates, 1);
	assert_int_equal(rep.inputs[1].duplicates, 1);
	assert_int_equal(rep.inputs[2].skipped, 1);
	assert_int_equal(rep.ngroups, 1);
	assert_true(rep.nwarnings >= 2); /* the skipped row and the duplicate */
	/* The duplicate tables are gone with the report: a second report keeps the count, and a
	 * file after it is refused, not read without them. */
	assert_int_equal(mf_pipeline_finish(p, &rep), 0);
	assert_int_equal(rep.duplicates, 1);
	memset(&s, 0, sizeof(s));
	assert_int_equal(mf_pipeline_add_mem(p, "same.csv", same, strlen(same), &e), MF_EUSAGE);
	assert_non_null(strstr(e.msg, "after the report was made"));
	mf_pipeline_free(p);
}

/* Beyond max_groups: MF_ELIMIT with a message naming the row and the keys. */
static void max_groups(void **state)
{
	static const char two[] = HEAD ROW("00", "450000000000") ROW("15", "450000000000");
	struct seen s = {0};
	struct mf_pipeline_opts o = opts_for(&s, MF_BY_DEFAULT);
	struct mf_pipeline *p;
	struct mf_error e;
	(void)state;

	o.max_groups = 1;
	p = mf_pipeline_new(&o);
	assert_int_equal(mf_pipeline_add_mem(p, "two.csv", two, strlen(two), &e), MF_ELIMIT);
	assert_string_equal(s.kinds, "F");
	assert_non_null(strstr(e.msg,
			       "two.csv:3: more than 1 groups (--max-groups): every distinct system, "
			       "LPAR, pool and interval makes a group"));
	mf_pipeline_free(p);
}

/* A new temporary CSV file from the template path (mkstemp's XXXXXX), its header written. */
static FILE *csv_tmp(char *path)
{
	int fd = mkstemp(path);
	FILE *fp;
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	assert_non_null(fp);
	fputs(HEAD, fp);
	return fp;
}

/*
 * -j 2 on a file read in parts, each row a group of its own: every part stops within a row or
 * two of passing max_groups (not after reading its whole part, holding a group a row), and the
 * error is the one reading the file whole gives, row number included.
 */
static void max_groups_parts(void **state)
{
	char path[] = MFSTAT_BINARY_DIR "/pipeline-parts-XXXXXX";
	struct seen s = {0};
	struct mf_pipeline_opts o = opts_for(&s, MF_BY_DEFAULT);
	struct mf_pipeline *p;
	struct mf_error e1, e2;
	unsigned jobs;
	int day, h, m;
	FILE *fp;
	(void)state;

	/* 12 MiB (at least two parts of 4 MiB): 200,000 rows of distinct intervals. */
	fp = csv_tmp(path);
	for (day = 1; day <= 139; day++)
		for (h = 0; h < 24; h++)
			for (m = 0; m < 60; m++)
				fprintf(fp, "S,0,z16,1000,2025-%02d-%02dT%02d:%02d:00Z,60,450000000000,1\n",
					1 + (day - 1) / 28, 1 + (day - 1) % 28, h, m);
	assert_int_equal(fclose(fp), 0);
	o.max_groups = 1;
	for (jobs = 1; jobs <= 2; jobs++) {
		struct mf_error *e = jobs == 1 ? &e1 : &e2;
		o.jobs = jobs;
		memset(&s, 0, sizeof(s));
		p = mf_pipeline_new(&o);
		assert_non_null(p);
		assert_int_equal(mf_pipeline_add_file(p, path, e), MF_ELIMIT);
		assert_string_equal(s.kinds, "F");
		/* Each part stops at its second group, or at the row after another part said stop. */
		print_message("jobs %u: %llu rows read by the parts\n", jobs, mf_pipeline_part_rows(p));
		assert_true(mf_pipeline_part_rows(p) <= 2 * jobs);
		mf_pipeline_free(p);
	}
	assert_string_equal(e1.msg, e2.msg);
	assert_non_null(strstr(e2.msg, ":3: more than 1 groups (--max-groups)"));
	unlink(path);
}

/* The report of path read with jobs threads, by by: the pipeline (to free), its report in *rep. */
static struct mf_pipeline *report_of(const char *path, unsigned by, unsigned jobs, struct seen *s,
				     struct mf_report *rep)
{
	struct mf_pipeline_opts o = opts_for(s, by);
	struct mf_pipeline *p;
	struct mf_error e;
	o.jobs = jobs;
	p = mf_pipeline_new(&o);
	assert_non_null(p);
	assert_int_equal(mf_pipeline_add_file(p, path, &e), 0);
	assert_int_equal(mf_pipeline_finish(p, rep), 0);
	return p;
}

/*
 * -j 2 on a file read in parts, rows not in time order and names interned in another order by
 * each part: every group of the report was sorted by a part's thread and merged in order
 * (mf_pipeline_part_sorted), none sorted after, and the report is the one of -j 1, groups, order,
 * sums and metrics, with 2 and 3 parts; by system, and by interval (two rows each, mostly of two
 * parts: the merge cut into slices), groups of several parts are added up.
 */
static void parts_sorted(void **state)
{
	char path[] = MFSTAT_BINARY_DIR "/pipeline-sorted-XXXXXX";
	const unsigned bys[] = {MF_BY_DEFAULT, MF_BY_SYSTEM, MF_BY_INTERVAL};
	const size_t rows = 200000, nsys = 97;
	size_t i, b, k, jobs;
	FILE *fp;
	(void)state;

	/* 12 MiB (three parts of 4 MiB at most), each row its own sample, in an order not of time. */
	fp = csv_tmp(path);
	for (i = 0; i < rows; i++) {
		size_t r = i * 7919 % rows;                           /* a permutation: 7919 is prime to 200,000 */
		time_t t = (time_t)1735689600 + (time_t)(r / 2) * 60; /* rows r and r + 1 of two systems */
		struct tm tm;
		gmtime_r(&t, &tm);
		fprintf(fp, "SYS%02zu,0,z16,1000,%04d-%02d-%02dT%02d:%02d:00Z,60,%zu,1\n", (r * 31 + i % 3) % nsys,
			tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, 1000 + r);
	}
	assert_int_equal(fclose(fp), 0);
	for (b = 0; b < sizeof(bys) / sizeof(bys[0]); b++) {
		struct seen s1 = {0};
		struct mf_report r1;
		struct mf_pipeline *p1 = report_of(path, bys[b], 1, &s1, &r1);
		assert_int_equal(mf_pipeline_part_sorted(p1), 0);
		assert_int_equal(r1.ngroups, bys[b] == MF_BY_SYSTEM     ? nsys
					     : bys[b] == MF_BY_INTERVAL ? rows / 2
									: rows);
		for (jobs = 2; jobs <= 3; jobs++) {
			struct seen s2 = {0};
			struct mf_report r2;
			struct mf_pipeline *p2 = report_of(path, bys[b], (unsigned)jobs, &s2, &r2);
			print_message("by %u, -j %zu: %zu groups, %llu taken sorted from the parts\n", bys[b], jobs,
				      r2.ngroups, mf_pipeline_part_sorted(p2));
			assert_int_equal(mf_pipeline_part_rows(p2), rows);
			assert_int_equal(mf_pipeline_part_sorted(p2), r2.ngroups);
			assert_int_equal(r2.ngroups, r1.ngroups);
			for (k = 0; k < r1.ngroups; k++) {
				const struct mf_group *g1 = r1.results[k].group, *g2 = r2.results[k].group;
				assert_int_equal(g1->system == 0, g2->system == 0); /* 0: not grouped by system */
				if (g1->system)
					assert_string_equal(mf_strtab_get(r1.tab, g1->system),
							    mf_strtab_get(r2.tab, g2->system));
				assert_int_equal(g1->start_us, g2->start_us);
				assert_int_equal(g1->rows, g2->rows);
				assert_int_equal(mf_group_sum(g1, 0), mf_group_sum(g2, 0));
				assert_memory_equal(r1.results[k].value, r2.results[k].value,
						    g1->family->nmetrics * sizeof(double));
			}
			mf_pipeline_free(p2);
		}
		mf_pipeline_free(p1);
	}
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_equals_cli), cmocka_unit_test(duplicates_and_skips),
		cmocka_unit_test(max_groups),      cmocka_unit_test(max_groups_parts),
		cmocka_unit_test(parts_sorted),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
