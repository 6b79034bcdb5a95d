/* SPDX-License-Identifier: MIT */
/* Prometheus recording rules from the knowledge base: the formulas translated to PromQL. */
#include "mfstat/report/prom_rules.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/kb/expr_sql.h"
#include "mfstat/report/prom.h"

#define SPEED_GAUGE "mfstat_cpumf_cpu_speed_hertz"
#define MACHINE_INFO "mfstat_machine_info"
#define CPSP_NAME "mfstat_cpsp_mhz"
#define LSPR_NAME "mfstat_lspr_info"

static const char *const level_name[2] = {"instance_cpu", "instance"};

bool mf_prom_duration_ok(const char *s)
{
	static const char *const units[] = {"y", "w", "d", "h", "m", "s", "ms"};
	size_t next = 0, n = strlen(s);
	bool positive = false;
	if (n == 0 || n > 32)
		return false;
	while (*s) {
		size_t u, digits = 0;
		bool nonzero = false;
		while (isdigit((unsigned char)s[digits])) {
			nonzero |= s[digits] != '0';
			digits++;
		}
		if (!digits)
			return false;
		s += digits;
		/* The longest unit that matches: "ms" before "m". */
		for (u = next; u < sizeof(units) / sizeof(units[0]); u++) {
			size_t ul = strlen(units[u]);
			if (strncmp(s, units[u], ul) == 0 && !(u == 4 && s[1] == 's'))
				break;
		}
		if (u == sizeof(units) / sizeof(units[0]))
			return false;
		s += strlen(units[u]);
		next = u + 1;
		positive |= nonzero;
	}
	return positive;
}

/*
 * Whether metric m's series is scaled from the knowledge base's unit (mf_prom_metric_scale: a
 * percent as its ratio, milliseconds as seconds), and then the factor that undoes it, written to
 * out when out is not NULL ("100" for a percent).
 */
static bool scaled(const struct mf_family *fam, int m, struct mf_strbuf *out)
{
	double s = mf_prom_metric_scale(&fam->metrics[m]);
	if (s == 1)
		return false;
	if (out && mf_prom_metric_is_percent(&fam->metrics[m]))
		mf_strbuf_puts(out, "100");
	else if (out)
		mf_expr_lang_number(1 / s, out);
	return true;
}

struct mf_prom_leftout *mf_prom_rules_leftout(const struct mf_family *fam)
{
	struct mf_prom_leftout *lo = calloc(fam->nmetrics ? fam->nmetrics : 1, sizeof(*lo));
	size_t i, k;
	if (!lo)
		return NULL;
	/* Dependencies first: a metric's references are decided before it. */
	for (i = 0; i < fam->nmetrics; i++) {
		size_t m = fam->order[i];
		const struct mf_expr *e = fam->metrics[m].expr;
		bool series = false;
		lo[m].var = MF_PROM_KEPT;
		lo[m].via = -1;
		for (k = 0; k < mf_expr_nrefs(e) && lo[m].var == MF_PROM_KEPT; k++) {
			int kind, index;
			mf_expr_ref(e, k, &kind, &index);
			if (kind == MF_REF_VAR && (index == MF_VAR_MEM_PEAK_GBS || index == MF_VAR_RMF_BUSY)) {
				lo[m].var = index;
			} else if (kind == MF_REF_METRIC && lo[index].var != MF_PROM_KEPT) {
				lo[m].var = lo[index].var == MF_PROM_CONSTANT ? MF_PROM_CONSTANT : lo[index].var;
				lo[m].via = index;
			}
			series |= kind == MF_REF_COUNTER || kind == MF_REF_METRIC ||
				  (kind == MF_REF_VAR && index == MF_VAR_CPSP);
		}
		if (lo[m].var == MF_PROM_KEPT && !series)
			lo[m].var = MF_PROM_CONSTANT;
	}
	return lo;
}

/* What the namer needs: the family, the level and the window of the series it names. */
struct namer {
	const struct mf_family *fam;
	enum mf_prom_level level;
	const char *window;
	const char *guard; /* the family key every series read must carry, or NULL */
};

/* A recorded series' name, with the selector {family="guard"} when guard is not NULL. */
static void series(struct mf_strbuf *out, enum mf_prom_level level, const char *name, const char *window,
		   const char *guard)
{
	mf_strbuf_printf(out, "%s:%s:rate%s", level_name[level], name, window);
	if (guard) {
		mf_strbuf_puts(out, "{family=\"");
		mf_prom_escape_label(out, guard);
		mf_strbuf_puts(out, "\"}");
	}
}

/* A metric's recorded series as its formulas read it: a percent multiplied back by 100 (scaled). */
static void metric_ref(struct mf_strbuf *out, const struct namer *nm, int m)
{
	char name[256];
	mf_prom_metric_name(&nm->fam->metrics[m], name, sizeof(name));
	if (scaled(nm->fam, m, NULL))
		mf_strbuf_puts(out, "(");
	series(out, nm->level, name, nm->window, nm->guard);
	if (scaled(nm->fam, m, NULL)) {
		mf_strbuf_puts(out, " * ");
		scaled(nm->fam, m, out);
		mf_strbuf_puts(out, ")");
	}
}

static int name_ref(void *ctx, int kind, int index, struct mf_strbuf *out, struct mf_error *err)
{
	const struct namer *nm = ctx;
	char name[256];
	if (kind == MF_REF_COUNTER) {
		mf_prom_counter_name(nm->fam, &nm->fam->counters[index], name, sizeof(name));
		series(out, nm->level, name, nm->window, nm->guard);
	} else if (kind == MF_REF_METRIC) {
		metric_ref(out, nm, index);
	} else if (index == MF_VAR_CPSP) {
		series(out, nm->level, CPSP_NAME, nm->window, nm->guard);
	} else if (index == MF_VAR_INTERVAL) {
		mf_expr_lang_number(1, out); /* rates are per second */
		return MF_EXPR_NAMED_CONST;
	} else {
		return mf_error_set(err, MF_EINVAL, NULL, 0, 0, "%s: a variable Prometheus does not have",
				    nm->fam->key);
	}
	return 0;
}

static void guard_to(struct mf_strbuf *out, const char *guard)
{
	if (guard) {
		mf_strbuf_puts(out, " and on (instance, job) " MACHINE_INFO "{family=");
		mf_strbuf_putc(out, '"');
		mf_prom_escape_label(out, guard);
		mf_strbuf_putc(out, '"');
		mf_strbuf_putc(out, '}');
	}
}

/* mf_prom_rules_expr with what the rules keep (lo) given: computed once per family. */
static int metric_expr(const struct mf_family *fam, const struct mf_prom_leftout *lo, size_t m,
		       enum mf_prom_level level, const char *window, const char *guard, struct mf_strbuf *out,
		       struct mf_error *err)
{
	struct namer nm = {fam, level, window, guard};
	struct mf_strbuf t;
	int rc;
	if (m >= fam->nmetrics || lo[m].var != MF_PROM_KEPT)
		return mf_error_set(err, MF_EINVAL, NULL, 0, 0, "%s: metric %s is left out of the rules", fam->key,
				    m < fam->nmetrics ? fam->metrics[m].name : "?");
	mf_strbuf_init(&t);
	rc = mf_expr_translate(fam->metrics[m].expr, &mf_expr_lang_promql, name_ref, &nm, &t, err);
	if (rc == 0) {
		mf_expr_lang_finite(&mf_expr_lang_promql, mf_strbuf_str(&t), out);
		if (scaled(fam, (int)m, NULL)) {
			mf_strbuf_puts(out, " / ");
			scaled(fam, (int)m, out);
		}
	}
	if (rc == 0 && (t.failed || out->failed))
		rc = mf_error_nomem(err, NULL, 0, "translating the metrics of %s", fam->key);
	mf_strbuf_free(&t);
	return rc;
}

int mf_prom_rules_expr(const struct mf_family *fam, size_t m, enum mf_prom_level level, const char *window,
		       const char *guard, struct mf_strbuf *out, struct mf_error *err)
{
	struct mf_prom_leftout *lo = mf_prom_rules_leftout(fam);
	int rc;
	if (!lo)
		return mf_error_nomem(err, NULL, 0, "translating the metrics of %s", fam->key);
	rc = metric_expr(fam, lo, m, level, window, guard, out, err);
	free(lo);
	return rc;
}

/* One rule: record and expr (in YAML single quotes), and the labels family and class where not NULL. */
static void rule(struct mf_strbuf *out, const char *record, const char *expr, const char *family, const char *cls)
{
	const char *p;
	mf_strbuf_printf(out, "      - record: %s\n        expr: '", record);
	for (p = expr; *p; p++) {
		if (*p == '\'')
			mf_strbuf_putc(out, '\'');
		mf_strbuf_putc(out, *p);
	}
	mf_strbuf_puts(out, "'\n");
	if (family || cls)
		mf_strbuf_puts(out, "        labels:\n");
	if (family)
		mf_strbuf_printf(out, "          family: '%s'\n", family);
	if (cls)
		mf_strbuf_printf(out, "          class: %s\n", cls);
}

static const char *var_name(int var)
{
	return var == MF_VAR_MEM_PEAK_GBS ? "MEM_PEAK_GBS (the peak memory bandwidth given with --mem-peak)"
					  : "RMF_BUSY (RMF's dispatch time, from z/OS SMF type 70 records)";
}

/* "x >= lo < hi" for one input of an LSPR rule (x alone when both bounds are infinite). */
static void lspr_term(struct mf_strbuf *out, const char *x, const struct mf_lspr_rule *r, int k)
{
	mf_strbuf_puts(out, x);
	if (!isinf(r->lo[k])) {
		mf_strbuf_puts(out, r->lo_incl[k] ? " >= " : " > ");
		mf_expr_lang_number(r->lo[k], out);
	}
	if (!isinf(r->hi[k])) {
		mf_strbuf_puts(out, r->hi_incl[k] ? " <= " : " < ");
		mf_expr_lang_number(r->hi[k], out);
	}
}

/* Rule i of the LSPR table holds: (L1MP in its interval) and (RNI in its interval). */
static void lspr_holds(struct mf_strbuf *out, const struct mf_kb *kb, size_t i, const char *l1mp, const char *rni)
{
	mf_strbuf_puts(out, "(");
	lspr_term(out, l1mp, &kb->lspr[i], 0);
	mf_strbuf_puts(out, " and ");
	lspr_term(out, rni, &kb->lspr[i], 1);
	mf_strbuf_puts(out, ")");
}

/* The LSPR class rules of fam at level: one per class, each 1 where the first rule that holds has it. */
static void lspr_rules(struct mf_strbuf *out, const struct mf_kb *kb, const struct mf_family *fam,
		       enum mf_prom_level level, const char *window, const char *guard)
{
	struct namer nm = {fam, level, window, guard};
	struct mf_strbuf l1mp, rni, e, rec;
	int cls;
	mf_strbuf_init(&l1mp);
	mf_strbuf_init(&rni);
	mf_strbuf_init(&rec);
	metric_ref(&l1mp, &nm, fam->idx_l1mp);
	metric_ref(&rni, &nm, fam->idx_rni);
	series(&rec, level, LSPR_NAME, window, NULL);
	for (cls = MF_LSPR_LOW; cls <= MF_LSPR_HIGH; cls++) {
		size_t i, j, n = 0;
		mf_strbuf_init(&e);
		mf_strbuf_puts(&e, "(");
		for (i = 0; i < kb->nlspr; i++) {
			if (kb->lspr[i].cls != cls)
				continue;
			/* Rule i where it holds and no earlier rule does: the first rule wins. */
			mf_strbuf_puts(&e, n++ ? " or (" : "(");
			lspr_holds(&e, kb, i, mf_strbuf_str(&l1mp), mf_strbuf_str(&rni));
			for (j = 0; j < i; j++) {
				mf_strbuf_puts(&e, " unless ");
				lspr_holds(&e, kb, j, mf_strbuf_str(&l1mp), mf_strbuf_str(&rni));
			}
			mf_strbuf_puts(&e, ")");
		}
		mf_strbuf_puts(&e, ") * 0 + 1");
		if (n)
			rule(out, mf_strbuf_str(&rec), mf_strbuf_str(&e), guard, mf_lspr_name(cls));
		mf_strbuf_free(&e);
	}
	mf_strbuf_free(&l1mp);
	mf_strbuf_free(&rni);
	mf_strbuf_free(&rec);
}

static bool ibm_z(const struct mf_family *fam)
{
	return fam->csvn != 0 && !fam->named;
}

/* Adds name to the list of counter series (each once). */
static int add_name(char ***names, size_t *n, const char *name)
{
	size_t i;
	char **grown;
	for (i = 0; i < *n; i++)
		if (strcmp((*names)[i], name) == 0)
			return 0;
	grown = realloc(*names, (*n + 1) * sizeof(**names));
	if (!grown)
		return -1;
	*names = grown;
	grown[*n] = strdup(name);
	if (!grown[*n])
		return -1;
	(*n)++;
	return 0;
}

/* The counters the kept metrics of fam read (and B0, CPU_CYCLES, when they read CPSP: the join). */
static int family_counters(const struct mf_family *fam, const struct mf_prom_leftout *lo, char ***names, size_t *n,
			   bool *cpsp)
{
	size_t m, k;
	char name[256];
	for (m = 0; m < fam->nmetrics; m++) {
		const struct mf_expr *e = fam->metrics[m].expr;
		if (lo[m].var != MF_PROM_KEPT)
			continue;
		for (k = 0; k < mf_expr_nrefs(e); k++) {
			int kind, index;
			mf_expr_ref(e, k, &kind, &index);
			if (kind == MF_REF_COUNTER) {
				mf_prom_counter_name(fam, &fam->counters[index], name, sizeof(name));
				if (add_name(names, n, name))
					return -1;
			}
			*cpsp |= kind == MF_REF_VAR && index == MF_VAR_CPSP;
		}
	}
	return 0;
}

static void header(struct mf_strbuf *out, const struct mf_kb *kb, const struct mf_family *fam, const char *window,
		   const char *cmdline)
{
	mf_strbuf_printf(out,
			 "# Prometheus recording rules for mfstat's CPU-MF series (mfstat stat -f prom, mfstat "
			 "serve),\n"
			 "# generated from mfstat's knowledge base (IBM CPU MF formula deck, revision %s) by\n"
			 "#   %s\n"
			 "# Load it with rule_files: in prometheus.yml; promtool check rules accepts it.\n"
			 "#\n"
			 "# Every series recorded here ends in :rate%s (the window of rate()), so files of other\n"
			 "# windows load beside it.  One group: its rules run in order, dependencies first.\n",
			 mf_kb_revision(kb), cmdline, window);
	mf_strbuf_printf(out,
			 "# - instance_cpu:mfstat_cpumf_<counter>:rate%s: a counter's per-second rate on one CPU\n"
			 "#   (sum without (set)), instance:...: summed over the instance's CPUs (sum without (cpu)).\n"
			 "#   Only the counters the metrics read.\n"
			 "# - instance:" CPSP_NAME ":rate%s: the CPU speed CPSP in MHz (" SPEED_GAUGE
			 " / 1e6),\n"
			 "#   instance_cpu:...: the same on every CPU of the instance.\n"
			 "# - instance_cpu:mfstat_<metric>:rate%s and instance:...: each metric of the knowledge base "
			 "over\n"
			 "#   the rates, so INTERVAL is 1 (second); a metric in percent as its ratio 0-1,\n"
			 "#   mfstat_<metric>_ratio.  A metric that is a count (L1M) is per second, as the counters.\n"
			 "#   Where mfstat report leaves a metric empty (a division by zero, a counter not read, a\n"
			 "#   value that is not finite), the rule records no sample.\n",
			 window, window, window);
	mf_strbuf_printf(out,
			 "# - instance_cpu:" LSPR_NAME
			 ":rate%s{class=\"LOW|AVERAGE|HIGH\"} 1 and instance:...: the LSPR\n"
			 "#   workload class from L1MP and RNI (the first rule of the table that holds both); Linux\n"
			 "#   has no engine pools, so none is left out of it.\n",
			 window);
	if (fam)
		mf_strbuf_printf(out,
				 "# For %s only (--machine %s): every instance that exports these counters is taken\n"
				 "# for a %s.  (Without --machine: the rules of every IBM Z family, each for the\n"
				 "# instances whose " MACHINE_INFO " says that family.)\n",
				 fam->display, fam->key, fam->display);
	else
		mf_strbuf_puts(out,
			       "# Every IBM Z family: each family's rules compute the counter rates only for "
			       "instances\n"
			       "# whose " MACHINE_INFO
			       " has that family's key as its family label (and on (instance,\n"
			       "# job)), and every series they record carries that label (family=\"z16\"), so each\n"
			       "# instance gets the formulas of its own machine and no two rules record one series.\n"
			       "# An instance without " MACHINE_INFO
			       "{family} gets none.  With --machine F: one\n"
			       "# family, no family label, fewer rules.\n");
}

/* The rules of fam's metrics and LSPR class at level, in evaluation order, left-out ones as comments. */
static int family_rules(struct mf_strbuf *out, const struct mf_kb *kb, const struct mf_family *fam,
			const struct mf_prom_leftout *lo, enum mf_prom_level level, const char *window,
			const char *guard, struct mf_error *err)
{
	struct mf_strbuf e, rec;
	size_t i;
	int rc = 0;
	char name[256];
	mf_strbuf_init(&e);
	mf_strbuf_init(&rec);
	for (i = 0; i < fam->nmetrics && rc == 0; i++) {
		size_t m = fam->order[i];
		const struct mf_metric *mt = &fam->metrics[m];
		if (lo[m].var == MF_PROM_CONSTANT) {
			if (level == MF_PROM_CPU)
				mf_strbuf_printf(out, "      # %s left out: a formula of numbers only\n", mt->name);
			continue;
		}
		if (lo[m].var != MF_PROM_KEPT) {
			if (level == MF_PROM_CPU && lo[m].via < 0)
				mf_strbuf_printf(out,
						 "      # %s left out: it reads %s, which Prometheus does not have\n",
						 mt->name, var_name(lo[m].var));
			else if (level == MF_PROM_CPU)
				mf_strbuf_printf(out, "      # %s left out: it uses %s, left out\n", mt->name,
						 fam->metrics[lo[m].via].name);
			continue;
		}
		mf_strbuf_free(&e);
		mf_strbuf_free(&rec);
		mf_strbuf_init(&e);
		mf_strbuf_init(&rec);
		rc = metric_expr(fam, lo, m, level, window, guard, &e, err);
		mf_prom_metric_name(mt, name, sizeof(name));
		series(&rec, level, name, window, NULL);
		if (rc == 0)
			rule(out, mf_strbuf_str(&rec), mf_strbuf_str(&e), guard, NULL);
	}
	if (rc == 0 && fam->lspr && fam->idx_l1mp >= 0 && fam->idx_rni >= 0 && lo[fam->idx_l1mp].var == MF_PROM_KEPT &&
	    lo[fam->idx_rni].var == MF_PROM_KEPT)
		lspr_rules(out, kb, fam, level, window, guard);
	mf_strbuf_free(&e);
	mf_strbuf_free(&rec);
	return rc;
}

/* The counters and CPSP of one family: rates per CPU and per instance, the speed on each CPU. */
static int base_rules(struct mf_strbuf *out, const struct mf_family *fam, const struct mf_prom_leftout *lo,
		      const char *window, const char *guard, struct mf_error *err)
{
	char **names = NULL, cycles[256] = "";
	size_t nnames = 0, i;
	bool cpsp = false;
	int rc = 0;
	enum mf_prom_level level;
	struct mf_strbuf rec, e, g;

	mf_strbuf_init(&g);
	guard_to(&g, guard);
	if (family_counters(fam, lo, &names, &nnames, &cpsp))
		rc = mf_error_nomem(err, NULL, 0, "writing the rules of %s", fam->key);
	/* CPSP on each CPU: joined to the CPUs of the cycle counter, which must be recorded then. */
	if (rc == 0 && cpsp && mf_family_counter(fam, "B0", 2)) {
		mf_prom_counter_name(fam, mf_family_counter(fam, "B0", 2), cycles, sizeof(cycles));
		if (add_name(&names, &nnames, cycles))
			rc = mf_error_nomem(err, NULL, 0, "writing the rules of %s", fam->key);
	}
	for (level = MF_PROM_CPU; level <= MF_PROM_INSTANCE && rc == 0; level++)
		for (i = 0; i < nnames; i++) {
			mf_strbuf_init(&rec);
			mf_strbuf_init(&e);
			series(&rec, level, names[i], window, NULL);
			if (level == MF_PROM_CPU) {
				mf_strbuf_printf(&e, "sum without (set) (rate(%s_total[%s]))%s", names[i], window,
						 mf_strbuf_str(&g));
			} else {
				mf_strbuf_puts(&e, "sum without (cpu) (");
				series(&e, MF_PROM_CPU, names[i], window, guard);
				mf_strbuf_puts(&e, ")");
			}
			rule(out, mf_strbuf_str(&rec), mf_strbuf_str(&e), guard, NULL);
			mf_strbuf_free(&rec);
			mf_strbuf_free(&e);
		}
	if (rc == 0 && cpsp) {
		mf_strbuf_init(&rec);
		mf_strbuf_init(&e);
		series(&rec, MF_PROM_INSTANCE, CPSP_NAME, window, NULL);
		mf_strbuf_printf(&e, SPEED_GAUGE " / 1e6%s", mf_strbuf_str(&g));
		rule(out, mf_strbuf_str(&rec), mf_strbuf_str(&e), guard, NULL);
		mf_strbuf_free(&rec);
		mf_strbuf_free(&e);
	}
	if (rc == 0 && cpsp && cycles[0]) {
		/* 0 * cycles + speed: the instance's speed on each of its CPUs (labels of the CPU). */
		mf_strbuf_init(&rec);
		mf_strbuf_init(&e);
		series(&rec, MF_PROM_CPU, CPSP_NAME, window, NULL);
		mf_strbuf_puts(&e, "0 * ");
		series(&e, MF_PROM_CPU, cycles, window, guard);
		mf_strbuf_puts(&e, " + ignoring (cpu) group_left ");
		series(&e, MF_PROM_INSTANCE, CPSP_NAME, window, guard);
		rule(out, mf_strbuf_str(&rec), mf_strbuf_str(&e), guard, NULL);
		mf_strbuf_free(&rec);
		mf_strbuf_free(&e);
	}
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	mf_strbuf_free(&g);
	return rc;
}

int mf_prom_rules(const struct mf_kb *kb, const struct mf_family *fam, const char *window, const char *cmdline,
		  struct mf_strbuf *out, struct mf_error *err)
{
	const struct mf_family *fams[64];
	size_t nf = 0, f;
	int rc = 0;
	enum mf_prom_level level;

	if (!mf_prom_duration_ok(window))
		return mf_error_set(err, MF_EINVAL, NULL, 0, 0,
				    "'%s' is not a Prometheus duration (such as 5m, 90s or 1h30m)", window);
	if (fam)
		fams[nf++] = fam;
	else
		for (f = 0; f < kb->nfamilies && nf < 64; f++)
			if (ibm_z(&kb->families[f]))
				fams[nf++] = &kb->families[f];
	header(out, kb, fam, window, cmdline);
	mf_strbuf_printf(out, "groups:\n  - name: mfstat_rate%s\n    rules:\n", window);
	for (f = 0; f < nf && rc == 0; f++) {
		const char *guard = fam ? NULL : fams[f]->key;
		struct mf_prom_leftout *lo = mf_prom_rules_leftout(fams[f]);
		if (!lo)
			return mf_error_nomem(err, NULL, 0, "writing the rules of %s", fams[f]->key);
		mf_strbuf_printf(out, "      # %s: counter rates and CPU speed\n", fams[f]->display);
		rc = base_rules(out, fams[f], lo, window, guard, err);
		for (level = MF_PROM_CPU; level <= MF_PROM_INSTANCE && rc == 0; level++) {
			mf_strbuf_printf(out, "      # %s: metrics %s\n", fams[f]->display,
					 level == MF_PROM_CPU ? "per CPU" : "per instance");
			rc = family_rules(out, kb, fams[f], lo, level, window, guard, err);
		}
		free(lo);
	}
	if (rc == 0 && out->failed)
		rc = mf_error_nomem(err, NULL, 0, "writing the rules");
	return rc;
}
