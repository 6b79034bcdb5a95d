/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_OUTPUT_H
#define MFSTAT_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mfstat/input/lpar.h"
#include "mfstat/report/dedup.h"
#include "mfstat/report/group.h"
#include "mfstat/kb/kb.h"
#include "mfstat/report/metrics.h"
#include "mfstat/report/prom.h"
#include "mfstat/report/select.h"
#include "mfstat/base/tz.h"

/* One count of an input: what it counts and how many. */
struct mf_input_count {
	char *what;
	uint64_t n;
};

/* What was read from one input file (JSON "inputs"). */
struct mf_input {
	char *file;
	const char *format;  /* "csv", "smf", "perf", "lshwc" */
	uint64_t samples;    /* samples read, duplicates included */
	uint64_t skipped;    /* bad rows or records skipped (--skip-bad-rows) */
	uint64_t duplicates; /* samples dropped as copies of samples read before */
	size_t nrecords, ndropped;
	struct mf_input_count *records; /* records by kind (SMF: by type and subtype) */
	struct mf_input_count *dropped; /* records not turned into samples, by reason (the reader's) */
	const char *rollup; /* a database's roll-up level read ("hour", "day", "month", static): its rows are
			       buckets, not intervals; NULL for samples */
};

/* Fills in (zeroed by the caller) with the file name, format and the reader's counts; 0 or MF_ENOMEM. */
struct mf_reader;
int mf_input_collect(struct mf_input *in, const char *file, struct mf_reader *r);
void mf_input_free(struct mf_input *in);

/* The interval tables of the HTML page (--html-intervals). */
enum mf_html_rows {
	MF_HTML_ROWS_PEAKS = 0, /* the peak intervals of each series (by LPARCPU), in time order */
	MF_HTML_ROWS_NONE,      /* no interval tables */
	MF_HTML_ROWS_ALL        /* every interval, up to a cap that keeps the peaks */
};

/*
 * The k highest of v[0..n) (NaN lowest; ties: the earlier), their indices in
 * ascending order into idx (room for k); returns how many (at most k and n).
 */
size_t mf_html_peaks(const double *v, size_t n, size_t k, size_t *idx);

struct mf_stream;

/* Everything a report writer needs; all borrowed. */
/* LPARCPU from the counters and from RMF further apart than this (points) is a finding. */
#define MF_BUSY_FINDING 5

struct mf_report {
	unsigned jobs; /* threads a writer may use for many groups (-j); the output is the same */
	const struct mf_kb *kb;
	const struct mf_strtab *tab;
	unsigned by; /* MF_BY_* bits */
	size_t ngroups;
	const struct mf_result *results;
	uint64_t rows_read;
	uint64_t rows_skipped;
	size_t nreasons; /* skipped rows by reason */
	const char *const *reason;
	const uint64_t *reason_count;
	size_t nwarnings;
	const char *const *warnings;
	size_t nfiles;
	const char *input_summary;      /* what the readers saw (SMF record counts), text and HTML output */
	struct mf_metrics_opts metrics; /* the metrics' options (HTML recomputes period totals) */
	size_t ninputs;                 /* what was read from each file (JSON "inputs"); 0 = not told */
	const struct mf_input *inputs;
	uint64_t duplicates;             /* samples dropped as copies (mf_dedup) */
	struct mf_dedup_overlap overlap; /* intervals that overlap within one CPU (mf_dedup_overlaps); cpus 0: none */
	const struct mf_tz *tz;          /* times are written in it; NULL: UTC */
	bool tz_default;                 /* tz is the default rule (the records' own offsets, else UTC), not --tz */
	const char *const *columns; /* the metric columns asked for (--metrics), in order; NULL: every reported one */
	size_t ncolumns;
	uint64_t groups_cut; /* groups left out by --top */
	/* Text and HTML labels of times are rounded to this many microseconds (mf_report_label):
	 * a second, or finer when the shortest interval is under a second; 0: not rounded. */
	int64_t label_unit_us;
	bool has_period; /* the period of all groups, --top's cut ones too (mf_report_fix_period) */
	int64_t period_start_us, period_end_us;
	const struct mf_group *period_first, *period_last; /* the groups it starts and ends in */
	size_t nsystems;                                   /* distinct systems among the samples kept */
	bool selected;                                     /* a selection (--from, --to, ...) was given */
	uint64_t left_out[MF_SELECT_NREASONS];
	/* The LPAR view (SMF type 70): every LPAR of the machines read, NULL when none. */
	const struct mf_lpar_row *lpars;
	size_t nlpars;
	/* With keep_intervals: the counters' metrics per system and LPAR (samples joined to an LPAR). */
	const struct mf_result *lpar_results;
	size_t nlpar_results; /* samples it left out, by enum mf_select_why */
	/* Per series (--by without its time key) and interval, in key order: mf_pipeline_opts.keep_intervals;
	 * NULL when not kept.  Not cut by --top. */
	const struct mf_result *interval_results;
	size_t ninterval_results;
	unsigned interval_by;        /* their MF_BY_* bits */
	enum mf_html_rows html_rows; /* the interval rows of the HTML page (--html-intervals) */
	/* Each group's expected CPUs (mf_report_cpus_expected), computed once with the notes and kept
	 * for the writers; NULL: a writer computes them.  Valid for results and ngroups as they are. */
	const uint64_t *cpus_expected;
	/*
	 * Streamed (mf_pipeline_opts.stream_csv, where it applies): results is NULL and the rows,
	 * ngroups of them, come from the stream, which only the CSV writer reads; the functions
	 * below that read the groups (families, period, interval range, notes) ask it instead.
	 */
	const struct mf_stream *stream;
};

/* The offset from UTC (seconds east) of the report's zone at utc_us: a group's own with "smf", 0 for UTC. */
int32_t mf_report_offset(const struct mf_report *rep, const struct mf_group *g, int64_t utc_us);

/* Writes an instant in the report's zone (a group's own offset with "smf"): ISO 8601 with Z or +hh:mm. */
void mf_report_time(const struct mf_report *rep, const struct mf_group *g, int64_t utc_us, char *buf, size_t n);

/* Fixes the report's period to that of its current groups (before a cut such as --top). */
void mf_report_fix_period(struct mf_report *rep);

/*
 * The period of the whole report, the earliest interval start and the latest
 * end over its groups, written as mf_report_time does into start and end (n
 * bytes each); false when no interval has a start.
 */
bool mf_report_period(const struct mf_report *rep, char *start, char *end, size_t n);

/*
 * The shortest and longest interval length (seconds) over the groups of the
 * report; false when no length is known.
 */
bool mf_report_interval_range(const struct mf_report *rep, double *lo, double *hi);

/*
 * The value of a non-metric key of a group as text: the polarity, LPAR
 * weight, drawer or chip (MF_BY_PLACE), the input file (MF_BY_FILE) or the
 * calendar bucket (a MF_BY_CALENDAR bit) of rep->by; NULL when the group has
 * none.
 */
const char *mf_report_key_text(const struct mf_report *rep, const struct mf_group *g, unsigned bit, char *buf,
			       size_t n);

/* "96 samples left out by the selection: 48 before --from, 48 outside --hours"; empty when none. */
void mf_report_left_out_text(const struct mf_report *rep, char *buf, size_t n);

/*
 * The keys of rep->by that have a column only when grouped by: where the
 * engines ran (polarity, LPAR weight, drawer, chip), the input file
 * (MF_BY_FILE), then the calendar bucket; their MF_BY_* bits into bits (room
 * for MF_EXTRA_KEYS_MAX), the count returned.  Their column names are
 * mf_by_name's.
 */
#define MF_EXTRA_KEYS_MAX 6
size_t mf_report_extra_keys(const struct mf_report *rep, unsigned *bits);

/*
 * True for a metric flagged sparse (the RMF view of SMF type 70) that no group
 * of rep has a value of: the writers leave its column out.
 */
bool mf_report_key_sparse_empty(const struct mf_report *rep, const char *key);

/*
 * An LPAR row's pools with logical processors as text: "GCP 300, ZIIP 100" (weights, dedicated
 * named) or "GCP 2 VH 1 VM; ZIIP 1 VL" (by polarity, space between count and polarity).
 */
void mf_lpar_pools_text(const struct mf_lpar_row *row, bool weights, const char *space, char *buf, size_t n);
/* RMF busy of an LPAR row: its dispatch time over its intervals' length, in % of one engine; NaN without. */
double mf_lpar_rmf_busy(const struct mf_lpar_row *row);

/* v as printed with digits decimals: a value that rounds to zero is 0 (never "-0.0"). */
double mf_shown(double v, int digits);
/* Values from this magnitude on are written in exponent form by mf_fmt_metric. */
#define MF_FMT_EXP_FROM 1e15
/*
 * A metric value as the text and HTML reports write it: with digits decimals
 * (the caller rounds tiny values to 0 with mf_shown where it wants), or, from
 * MF_FMT_EXP_FROM on (more integer digits than a double's 15 significant
 * ones), with 15 significant digits in exponent form as CSV and JSON write it:
 * 5.0256551059774e+25, not 50256551059773998942388224.00, nor 300 digits for
 * 1e300.  sign: a + before positive values (diff's changes).  Returns the
 * length, as snprintf.
 */
int mf_fmt_metric(char *buf, size_t n, double v, int digits, bool sign);

/* One line: "period FROM to TO (ZONE), N systems, 900 s intervals"; empty when no interval has a start. */
void mf_report_period_line(const struct mf_report *rep, char *buf, size_t n);

/*
 * The period's start and end as labels (mf_report_label, n bytes each) and their offsets from
 * UTC (seconds east); false when no interval has a start.
 */
bool mf_report_period_labels(const struct mf_report *rep, char *start, char *end, size_t n, int32_t *off_start,
			     int32_t *off_end);

/*
 * The zone rule of the report in words, for the period line: "UTC", "+02:00",
 * "Europe/Berlin", "smf: local time, each record's own offset", or "UTC: the
 * input gives no local offset" (the default rule on data without offsets).
 */
const char *mf_report_zone_rule(const struct mf_report *rep);

/*
 * A time as text and HTML show it (mf_report_time's ISO 8601 in the report's
 * zone), rounded to rep->label_unit_us: "2025-03-05T00:00:00Z" for an end at
 * 00:00:00.207810 of 15-minute intervals, "10:01:00.1Z" for intervals of 0.1 s.
 * CSV and JSON keep every digit (mf_report_time).
 */
void mf_report_label(const struct mf_report *rep, const struct mf_group *g, int64_t utc_us, char *buf, size_t n);

/* The unit labels are rounded to for the report's intervals: the largest power of ten of
 * microseconds, at most a second, not longer than the shortest interval (1 s when none). */
int64_t mf_report_label_unit(const struct mf_report *rep);

/*
 * Skipped rows by reason and warnings, composed the same way for every
 * program using the library.  Rows count together when their messages differ
 * only in quoted values and numbers (the key: those blanked); each reason is
 * shown as the first such row's own message with its values and where it is:
 * "B0: not a number '12x45' (first at f.csv:3:24)".
 */
#define MF_NOTES_MAX_REASONS 32
struct mf_notes {
	uint64_t skipped;
	size_t nreasons;
	char *reason[MF_NOTES_MAX_REASONS]; /* as shown: the first row's message and place */
	uint64_t reason_count[MF_NOTES_MAX_REASONS];
	char *key[MF_NOTES_MAX_REASONS];   /* what rows of one reason share */
	char *first[MF_NOTES_MAX_REASONS]; /* the first row's message, without its place */
	char *where[MF_NOTES_MAX_REASONS]; /* the first row's place, or NULL */
	bool reasons_full;                 /* rows of more reasons than MF_NOTES_MAX_REASONS: counted with the last */
	size_t nwarnings, capwarnings;
	char **warnings;
};

void mf_notes_init(struct mf_notes *n);
void mf_notes_free(struct mf_notes *n);
/*
 * Counts one skipped row or record under reason (what it counts under); at,
 * when not NULL, is the row's error: its message (shown after reason when the
 * two differ) and its file, line and column or record and offset.
 */
void mf_notes_skip(struct mf_notes *n, const char *reason, const struct mf_error *at);
/* Adds a warning (dropped silently only when out of memory). */
void mf_notes_warn(struct mf_notes *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Adds the warnings that follow from a report: rows skipped (n->skipped),
 * duplicate samples (rep->duplicates), the data doubts of the groups (one
 * warning per kind, naming the first group and the count), intervals with
 * fewer CPUs than the other intervals of their system, and no data at all.
 * rep->inputs says whether rows are SMF records.
 */
void mf_notes_report(struct mf_notes *n, const struct mf_report *rep);

/*
 * Two overlapping intervals in words, into buf: "system SYSA lpar PROD1 cpu 0:
 * 2025-03-04T10:00:00Z (60 s) and 2025-03-04T10:00:30Z (60 s)" (no lpar when
 * 0, no cpu when negative; times in UTC).
 */
void mf_overlap_text(const struct mf_strtab *tab, uint32_t system, uint32_t lpar, int64_t cpu, int64_t a_start_us,
		     double a_seconds, int64_t b_start_us, double b_seconds, char *buf, size_t n);

/*
 * Groups busier than their CPUs can be (MF_DOUBT_BUSY among res[0..n)) in
 * words, into buf: the count, the first group with its LPARCPU and CPUs, and
 * two of its intervals that overlap when it has them.  Returns the count (0:
 * none, buf empty).
 */
size_t mf_busy_describe(const struct mf_result *res, size_t n, const struct mf_strtab *tab, char *buf, size_t len);

/* The report's overlapping intervals (rep->overlap, cpus > 0) in words, for its warning and finding; into buf. */
void mf_overlap_describe(const struct mf_report *rep, char *buf, size_t n);

/* A group's identity in words ("z16 system SYSA pool GCP interval ..."), into buf. */
void mf_group_describe(const struct mf_group *g, const struct mf_strtab *tab, char *buf, size_t n);

/*
 * The CPUs each group is expected to have: for a group of one interval, the
 * most CPUs of any interval of the same system, LPAR, pool and CPU key (its
 * series); else its own.  A group with fewer lost data: writers mark it
 * instead of showing a dip in load.  out has rep->ngroups entries.
 */
void mf_report_cpus_expected(const struct mf_report *rep, uint64_t *out);
/*
 * The same, computed once: rep->cpus_expected when the report keeps them, else computed into
 * a new array stored in *own (the caller frees it; NULL when the report kept them).  NULL when
 * out of memory.
 */
const uint64_t *mf_report_expected(const struct mf_report *rep, uint64_t **own);

/*
 * Writers, one per format.  Each writes the whole report to fp and returns 0,
 * or MF_EIO when writing failed.  Output is deterministic: no timestamps, no
 * locale, numbers as the README documents.
 */
int mf_out_text(FILE *fp, const struct mf_report *rep);
int mf_out_csv(FILE *fp, const struct mf_report *rep);
int mf_out_json(FILE *fp, const struct mf_report *rep);
int mf_out_html(FILE *fp, const struct mf_report *rep);

/*
 * The Prometheus exposition of a report (stat -f prom, report -f prom): what to write beside
 * the groups' counters.  Not in the writers' table: it takes these options.
 */
struct mf_prom_opts {
	enum mf_prom_fmt fmt;
	bool derived;                          /* the metrics as gauges, the LSPR class as mfstat_lspr_info */
	bool family_label;                     /* a family label on every series (report: groups of several families) */
	const struct mf_prom_machine *machine; /* mfstat_machine_info, or NULL */
	const struct mf_prom_up *up;           /* mfstat_up per counter set, nup of them */
	size_t nup;
};

/*
 * Appends the exposition of rep to out: machine and up when given, then for every counter
 * counted in some group a counter family (mfstat_cpumf_<name>_total; labels: the group's --by
 * keys and set), its sum in each group that counted it (absent where not, never 0); with
 * derived every reported metric with a value as a gauge (percent as a ratio 0-1) and
 * mfstat_lspr_info{class} 1.  Calendar keys of rep->by give no label (the caller refuses
 * them).  Returns 0, MF_ENOMEM, or MF_EUSAGE for a streamed report.
 */
int mf_prom_report(struct mf_strbuf *out, const struct mf_report *rep, const struct mf_prom_opts *o);
/* The same, written to fp: 0, MF_EIO when writing failed, or mf_prom_report's error. */
int mf_out_prom(FILE *fp, const struct mf_report *rep, const struct mf_prom_opts *o);

/* The writers behind one table: a format's name, its usual file extension and its writer. */
struct mf_writer {
	const char *name;      /* "text", "csv", "json", "html" */
	const char *extension; /* ".txt", ".csv", ".json", ".html" */
	int (*write)(FILE *fp, const struct mf_report *rep);
};

/* Every writer, in the order of their names above; *n receives the count. */
const struct mf_writer *mf_writers(size_t *n);

/* The writer of format name, or NULL when there is none. */
const struct mf_writer *mf_writer_find(const char *name);

/*
 * The metric names (and LSPR) reported for the families present in rep, in
 * report order, or with --metrics (rep->columns) the columns asked for in
 * their order, named as the knowledge base spells them; *n receives the
 * count.  The array is the caller's (free).
 */
const char **mf_report_keys(const struct mf_report *rep, size_t *n);

/*
 * For every family of the knowledge base and every key: the result of
 * mf_report_key_index, as an array indexed [family * nkeys + key]; the
 * caller's (free).  Writers use it to avoid name lookups per group.
 */
int *mf_report_key_map(const struct mf_report *rep, const char *const *keys, size_t nkeys);

/* Index of key k in family fam: a metric index, MF_REPORT_LSPR, or -1 when undefined. */
int mf_report_key_index(const struct mf_family *fam, const char *key);

/*
 * Index of column key of rep in family fam, as the writers look it up: with
 * --metrics (rep->columns) any metric of fam by name in any case, a helper
 * (aux) too since it was asked for, and LSPR where fam reports the class;
 * else mf_report_key_index.  A metric index, MF_REPORT_LSPR, or -1.
 */
int mf_report_column_index(const struct mf_report *rep, const struct mf_family *fam, const char *key);

/*
 * The families of rep's groups, in the knowledge base's order: writes up to
 * max to out and returns how many there are (which may exceed max).
 */
size_t mf_report_families(const struct mf_report *rep, const struct mf_family **out, size_t max);

#endif
