/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_PROM_H
#define MFSTAT_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/strbuf.h"
#include "mfstat/kb/kb.h"

/*
 * Prometheus's text exposition format (version 0.0.4) and OpenMetrics 1.0.0: the names mfstat's
 * series carry, and a writer of metric families and samples into a string buffer.  One set of
 * names serves the exposition (stat -f prom, report -f prom, serve) and the recording rules
 * (metrics --prometheus-rules), so a rule always reads the series the exporter writes:
 *
 * - a counter of an IBM Z family: mfstat_cpumf_<linux name in lower case>, its samples with
 *   _total (mfstat_cpumf_cpu_cycles_total{cpu="0",set="basic"}); of another family:
 *   mfstat_<prefix>_<name> where the prefix is "perf" for linux_perf and the family's key
 *   otherwise (mfstat_perf_instructions_total);
 * - a metric as a gauge: mfstat_<name in lower case>, and for a metric in percent (its unit
 *   begins with '%') the ratio 0-1 as mfstat_<name>_ratio (mfstat_l3p_ratio): Prometheus's
 *   base units;
 * - the machine: mfstat_machine_info{type,family,model,cfvn,csvn,auth} 1, its speed
 *   mfstat_cpumf_cpu_speed_hertz, and mfstat_up{set,reason} 1 or 0 for each counter set.
 *
 * Every name is [a-z0-9_], starting with a letter.
 */

/* The two formats a scraper may ask for. */
enum mf_prom_fmt {
	MF_PROM_TEXT = 0,    /* text/plain; version=0.0.4: counters' TYPE names end in _total */
	MF_PROM_OPENMETRICS, /* application/openmetrics-text; version=1.0.0: ends in "# EOF" */
};

/* The format a -f NAME names: "prom" the text format, "openmetrics"; false for another name (fmt may be NULL). */
bool mf_prom_format_name(const char *name, enum mf_prom_fmt *fmt);

/* Whether path names an exposition file (ends in .prom, as node_exporter's textfile collector reads). */
bool mf_prom_file_name(const char *path);

/* The Content-Type of each format. */
const char *mf_prom_content_type(enum mf_prom_fmt fmt);

/*
 * The series name of counter c of fam, without _total, into buf (n bytes, NUL-ended; a name
 * that does not fit is cut).  Returns the full name's length.
 */
size_t mf_prom_counter_name(const struct mf_family *fam, const struct mf_counter *c, char *buf, size_t n);

/* The gauge name of metric m (with _ratio for a percent metric), as mf_prom_counter_name. */
size_t mf_prom_metric_name(const struct mf_metric *m, char *buf, size_t n);

/* Whether m is in percent (its unit begins with '%'): its series is the ratio, value / 100. */
bool mf_prom_metric_is_percent(const struct mf_metric *m);

/*
 * What m's value is multiplied by in its series: 0.01 for percent, 1e-3 for a metric in ms (its
 * name's _ms becomes _seconds: Prometheus's base unit; also us, ns), else 1.  A name ending in
 * _per_s ends in _per_second (value unchanged).
 */
double mf_prom_metric_scale(const struct mf_metric *m);

/* Appends s as a label value (backslash, double quote and newline escaped) to out. */
void mf_prom_escape_label(struct mf_strbuf *out, const char *s);

/* Appends v as the formats write numbers: integers exactly, others the shortest that reads back,
 * NaN, +Inf, -Inf. */
void mf_prom_number(struct mf_strbuf *out, double v);

/*
 * A writer.  Families are written one after another: mf_prom_family, then its samples.  A
 * label list is pairs of name and value, ended by a NULL name; values are escaped here.
 */
struct mf_prom {
	struct mf_strbuf *out;
	enum mf_prom_fmt fmt;
	const char *family; /* the current family's name and type, as given to mf_prom_family */
	const char *type;
};

void mf_prom_init(struct mf_prom *p, struct mf_strbuf *out, enum mf_prom_fmt fmt);

/*
 * Starts a family: name (a counter's without _total), type "counter", "gauge" or "info" (the
 * text format writes an info family as a gauge named name_info), help in one line.
 */
void mf_prom_family(struct mf_prom *p, const char *name, const char *type, const char *help);

/* A sample of the current family: counters get _total, info families _info. */
void mf_prom_sample(struct mf_prom *p, const char *const *labels, double v);
void mf_prom_sample_u64(struct mf_prom *p, const char *const *labels, uint64_t v);

/* What is known of the machine: mfstat_machine_info and mfstat_cpumf_cpu_speed_hertz. */
struct mf_prom_machine {
	const char *family;   /* the family's key (z16, zec12: what --machine takes), or NULL */
	unsigned type;        /* machine type (3931), 0 unknown */
	const char *model;    /* the machine's model name, or NULL */
	int cfvn, csvn;       /* counter facility and counter set versions, -1 unknown */
	int auth;             /* the counter sets' authorization bits, -1 unknown */
	double cpu_speed_mhz; /* CPU speed, NaN unknown */
};

/*
 * Writes the family mfstat_machine (info: one sample, value 1, a label for each fact known;
 * auth in hex as 0x2f) and, when the speed is known, the gauge mfstat_cpumf_cpu_speed_hertz.
 */
void mf_prom_machine(struct mf_prom *p, const struct mf_prom_machine *m);

/* One counter set (or source) and whether it could be read: reason says why not. */
struct mf_prom_up {
	const char *set; /* "basic", "extended", ... ("perf" for generic events) */
	bool up;
	const char *reason; /* when not up: why, in a few words ("not authorized"); NULL when up */
};

/* Writes the gauge mfstat_up: one sample per set, labels set and (when down) reason. */
void mf_prom_up(struct mf_prom *p, const struct mf_prom_up *u, size_t n);

/* Ends the exposition ("# EOF" in OpenMetrics, nothing in the text format). */
void mf_prom_end(struct mf_prom *p);

#endif
