/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_PROM_RULES_H
#define MFSTAT_PROM_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "mfstat/base/error.h"
#include "mfstat/base/strbuf.h"
#include "mfstat/kb/kb.h"

/*
 * Prometheus recording rules from the knowledge base (mfstat metrics --prometheus-rules): each
 * metric's formula translated to PromQL by the translator the SQL views use (mf_expr_translate
 * with mf_expr_lang_promql), over the per-second rates of the counters the exporter writes
 * (mfstat/report/prom.h names them).  Every series recorded ends in :rate<window>:
 *
 * - instance_cpu:<counter>:rate5m = sum without (set) (rate(<counter>_total[5m])), and
 *   instance:<counter>:rate5m = sum without (cpu) of that;
 * - instance:mfstat_cpsp_mhz:rate5m (the variable CPSP, from mfstat_cpumf_cpu_speed_hertz) and
 *   instance_cpu:mfstat_cpsp_mhz:rate5m (the same on each CPU of the instance);
 * - <level>:<metric's gauge name>:rate5m for each metric (a percent metric as its ratio 0-1);
 *   INTERVAL is 1 (rates are per second); a metric that reads MEM_PEAK_GBS or RMF_BUSY, which
 *   Prometheus does not have, directly or through another metric, is left out;
 * - <level>:mfstat_lspr_info:rate5m{class="LOW|AVERAGE|HIGH"} 1 from L1MP and RNI (the first
 *   rule of kb->lspr that holds both, as mf_kb_lspr_class).
 *
 * Over rates a metric that is a count (L1M) is per second; ratios are what mfstat report gives
 * (tests/prom_rules.sh checks every one with promtool against report).
 */

/*
 * Whether s is a Prometheus duration longer than 0: numbers each with a unit of y, w, d, h, m, s,
 * ms, units at most once and in that order ("5m", "1h30m").  At most 32 characters.
 */
bool mf_prom_duration_ok(const char *s);

/* Why the rules leave metric m of fam out (MF_PROM_KEPT: they do not). */
struct mf_prom_leftout {
	int var; /* MF_VAR_* Prometheus lacks that m reads, MF_PROM_KEPT, or MF_PROM_CONSTANT */
	int via; /* the metric through which it reads it, or -1 when its own formula does */
};
#define MF_PROM_KEPT (-1)
#define MF_PROM_CONSTANT (-2) /* a formula of numbers only: no series to compute it over */

/*
 * What the rules keep of fam's metrics: an array of fam->nmetrics (the caller frees it), or NULL
 * when out of memory.
 */
struct mf_prom_leftout *mf_prom_rules_leftout(const struct mf_family *fam);

/* The level of a recorded series: one CPU, or an instance (its CPUs summed). */
enum mf_prom_level { MF_PROM_CPU = 0, MF_PROM_INSTANCE = 1 };

/*
 * Appends the PromQL expression of metric m of fam at level over window (a duration, "5m") to
 * out: its formula over the recorded rates, non-finite values dropped, a percent divided by 100.
 * When guard is not NULL, every series it reads is selected with {family="<guard>"}: in the rules
 * of every family, the series the rules of family guard record.  Returns 0, MF_EINVAL (m is left
 * out), MF_ENOMEM.
 */
int mf_prom_rules_expr(const struct mf_family *fam, size_t m, enum mf_prom_level level, const char *window,
		       const char *guard, struct mf_strbuf *out, struct mf_error *err);

/*
 * Appends the rules file (YAML) to out, one group: of fam, or of every IBM Z family when fam is
 * NULL, each family's counter rates then only for the instances whose mfstat_machine_info has
 * family="<key>" (and on (instance, job)) and every series its rules record labelled
 * family="<key>" (the rules' labels), so no two rules record one series.  cmdline is quoted in
 * the header comment.  Returns 0, MF_EINVAL (a window that is no duration), MF_ENOMEM.
 */
int mf_prom_rules(const struct mf_kb *kb, const struct mf_family *fam, const char *window, const char *cmdline,
		  struct mf_strbuf *out, struct mf_error *err);

#endif
