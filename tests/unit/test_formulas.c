/* SPDX-License-Identifier: MIT */
/*
 * Every metric of every family against the hand-computed vectors in
 * tests/formulas/<family>.txt (arithmetic written beside each value).  Each
 * case is fed through the real sample -> group -> metrics path.
 */
#include <ctype.h>
#include <math.h>

#include "testutil.h"

static const char *const all_names[] = {"CPI",
					"PRBSTATE",
					"L1MP",
					"L15P",
					"L2LP",
					"L2RP",
					"L2P",
					"L3P",
					"L4LP",
					"L4RP",
					"MEMP",
					"LPARCPU",
					"EST_INSTR_CMPLX_CPI",
					"FINITE_CPI",
					"SCPL1M",
					"RNI",
					"EFF_GHZ",
					"TLB1_CPU_MISS_PCT",
					"TLB1_CYCLES_PER_MISS",
					"PTE_PCT",
					"TLB_MISS_RATE",
					"W_AIU_CPU",
					"C_AIU_CPU",
					"AIU_CPU",
					"LOCAL_AIU_PCT",
					"REMOTE_AIU_PCT",
					"C_AIU_TIME",
					"W_AIU_TIME",
					"LSPR",
					NULL};

struct expect {
	char name[40];
	int absent; /* the family must not define it */
	int na;     /* defined, not available */
	double value;
	char cls[16];
	int line;
};

struct vcase {
	char name[64];
	int line;
	double cpsp, interval;
	struct mf_sample s;
	struct expect ex[64];
	size_t nex;
	int seen[32];
};

static void run_case(const struct mf_kb *kb, const char *file, struct vcase *vc)
{
	struct mf_grouper *g = mf_grouper_new(0);
	struct mf_group *const *groups;
	struct mf_result *res;
	const struct mf_family *fam = vc->s.family;
	size_t n, i, k;

	vc->s.cpsp = vc->cpsp;
	vc->s.seconds = vc->interval;
	vc->s.pool = MF_POOL_GCP;
	assert_int_equal(mf_grouper_add(g, &vc->s), 0);
	groups = mf_grouper_groups(g, NULL, &n);
	assert_int_equal(n, 1);
	res = mf_results_new(groups, n);
	mf_metrics_compute(kb, groups[0], NULL, &res[0]);
	for (k = 0; all_names[k]; k++) {
		if (!vc->seen[k])
			fail_msg("%s case %s: metric %s not listed (expect or absent)", file, vc->name, all_names[k]);
	}
	for (i = 0; i < vc->nex; i++) {
		const struct expect *e = &vc->ex[i];
		int idx = mf_report_key_index(fam, e->name);
		if (e->absent) {
			if (idx != -1)
				fail_msg("%s:%d (%s): %s should not be defined on %s", file, e->line, vc->name, e->name,
					 fam->display);
			continue;
		}
		if (idx == -1)
			fail_msg("%s:%d (%s): %s is not reported for %s", file, e->line, vc->name, e->name,
				 fam->display);
		if (idx == MF_REPORT_LSPR) {
			const char *got = mf_lspr_name(res[0].lspr);
			if (strcmp(got ? got : "n/a", e->cls) != 0)
				fail_msg("%s:%d (%s): LSPR is %s, expected %s (L1MP %.17g, RNI %.17g)", file, e->line,
					 vc->name, got ? got : "n/a", e->cls, res[0].lspr_l1mp, res[0].lspr_rni);
			continue;
		}
		{
			double v = res[0].value[idx];
			if (e->na) {
				if (!isnan(v))
					fail_msg("%s:%d (%s): %s = %.17g, expected n/a", file, e->line, vc->name,
						 e->name, v);
			} else if (isnan(v) || fabs(v - e->value) > 1e-9 * fabs(e->value) + 1e-12) {
				fail_msg("%s:%d (%s): %s = %.17g, expected %.17g", file, e->line, vc->name, e->name, v,
					 e->value);
			}
		}
	}
	mf_results_free(res, n);
	mf_grouper_free(g);
}

static void check_file(void **state)
{
	const char *family = *state;
	char path[512], line[512];
	struct mf_kb *kb = test_kb();
	const struct mf_family *fam = mf_kb_family(kb, family);
	struct vcase *vc = calloc(1, sizeof(*vc));
	FILE *fp;
	int ln = 0, ncases = 0, in_case = 0;

	assert_non_null(fam);
	snprintf(path, sizeof(path), "%s/tests/formulas/%s.txt", MFSTAT_SOURCE_DIR, family);
	fp = fopen(path, "r");
	assert_non_null(fp);
	for (;;) {
		char *p, *tok[4];
		int nt = 0;
		char *got = fgets(line, sizeof(line), fp);
		ln++;
		if (got) {
			if ((p = strchr(line, '#')))
				*p = '\0';
			for (p = strtok(line, " \t\r\n"); p && nt < 4; p = strtok(NULL, " \t\r\n"))
				tok[nt++] = p;
		}
		if (!got || (nt >= 1 && strcmp(tok[0], "case") == 0)) {
			if (in_case) {
				run_case(kb, path, vc);
				ncases++;
			}
			if (!got)
				break;
			memset(vc, 0, sizeof(*vc));
			mf_sample_reset(&vc->s);
			vc->s.family = fam;
			vc->cpsp = vc->interval = NAN;
			snprintf(vc->name, sizeof(vc->name), "%s", nt > 1 ? tok[1] : "?");
			vc->line = ln;
			in_case = 1;
			continue;
		}
		if (nt == 0)
			continue;
		if (strcmp(tok[0], "family") == 0) {
			assert_true(nt == 2 && mf_kb_family(kb, tok[1]) == fam);
		} else if (strcmp(tok[0], "var") == 0 && nt == 3) {
			double v = strtod(tok[2], NULL);
			if (strcmp(tok[1], "CPSP") == 0)
				vc->cpsp = v;
			else if (strcmp(tok[1], "INTERVAL") == 0)
				vc->interval = v;
			else
				fail_msg("%s:%d: unknown var %s", path, ln, tok[1]);
		} else if (strcmp(tok[0], "counter") == 0 && nt == 3) {
			const struct mf_counter *c = mf_family_counter(fam, tok[1], strlen(tok[1]));
			if (!c)
				fail_msg("%s:%d: counter %s not defined on %s", path, ln, tok[1], fam->display);
			vc->s.slot[vc->s.n] = (uint16_t)fam->dense[c->number];
			vc->s.value[vc->s.n++] = strtoull(tok[2], NULL, 10);
		} else if ((strcmp(tok[0], "expect") == 0 && nt == 3) || (strcmp(tok[0], "absent") == 0 && nt == 2)) {
			struct expect *e = &vc->ex[vc->nex++];
			size_t k;
			assert_true(vc->nex < 64);
			snprintf(e->name, sizeof(e->name), "%s", tok[1]);
			e->line = ln;
			for (k = 0; all_names[k] && strcmp(all_names[k], tok[1]); k++)
				;
			if (!all_names[k])
				fail_msg("%s:%d: unknown metric %s", path, ln, tok[1]);
			vc->seen[k] = 1;
			if (tok[0][0] == 'a')
				e->absent = 1;
			else if (strcmp(tok[2], "n/a") == 0) {
				e->na = 1;
				snprintf(e->cls, sizeof(e->cls), "n/a");
			} else if (isalpha((unsigned char)tok[2][0]))
				snprintf(e->cls, sizeof(e->cls), "%s", tok[2]);
			else
				e->value = strtod(tok[2], NULL);
		} else {
			fail_msg("%s:%d: cannot read this line", path, ln);
		}
	}
	fclose(fp);
	assert_true(ncases >= 3);
	free(vc);
	mf_kb_free(kb);
}

int main(void)
{
	static const char *fams[] = {"z10", "z196", "zec12", "z13", "z14", "z15", "z16", "z17"};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_prestate(check_file, (void *)fams[0]),
		cmocka_unit_test_prestate(check_file, (void *)fams[1]),
		cmocka_unit_test_prestate(check_file, (void *)fams[2]),
		cmocka_unit_test_prestate(check_file, (void *)fams[3]),
		cmocka_unit_test_prestate(check_file, (void *)fams[4]),
		cmocka_unit_test_prestate(check_file, (void *)fams[5]),
		cmocka_unit_test_prestate(check_file, (void *)fams[6]),
		cmocka_unit_test_prestate(check_file, (void *)fams[7]),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
