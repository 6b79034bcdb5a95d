/* SPDX-License-Identifier: MIT */
/* mfstat db import and mfstat db info (docs/db.md): the verbs that write and describe the database. */
#include <getopt.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "mfstat/db/db.h"
#include "mfstat/db/import.h"

static const char import_help[] =
	"Usage: mfstat db import [OPTIONS] FILE.db INPUT...\n"
	"\n"
	"Reads each INPUT (SMF dumps joined to their LPAR view, counter CSV and\n"
	"exports, perf stat output, lshwc) as report reads it and keeps each sample\n"
	"once in FILE.db (created when missing): a sample already held with the same\n"
	"counters is counted as known, one with other counters is a data error naming\n"
	"both places.  Each INPUT is one transaction: an input that fails is rolled\n"
	"back, those before it stay.  An input whose bytes were imported before is not\n"
	"read again.  Prints one line per input and a total.\n"
	"\n"
	"Options:\n"
	"  --machine M        machine family or type for rows whose data name none\n"
	"  --skip-bad-rows    skip bad rows (CSV) or records (SMF), counting them,\n"
	"                     instead of stopping; also --skip-bad-records\n"
	"  -j, --jobs N       N-1 threads read the inputs ahead (1-256; default: the\n"
	"                     CPUs online), one writes them in order: the same\n"
	"                     database and output as -j 1\n"
	"  -q, --quiet        no progress line and no skipped rows on standard error\n"
	"  --tables DIR       knowledge-base files that replace the built-in ones\n"
	"  -h, --help         this help\n"
	"  --version          the version and the knowledge base's revision\n"
	"\n"
	"On a terminal, standard error shows a progress line (samples, MB/s, time left).\n"
	"\n"
	"Examples:\n"
	"  mfstat db import perf.db SYS1.SMF113.D1126.bin.gz\n"
	"  mfstat db import perf.db dumps/*.smf export.csv.zst\n";

static const char info_help[] =
	"Usage: mfstat db info [OPTIONS] FILE.db\n"
	"\n"
	"Prints what FILE.db holds: its schema version, when and by what it was\n"
	"created, the knowledge base of the last import; the files imported (name,\n"
	"size, format, when, new and known samples); per system its LPARs, pools,\n"
	"CPUs, samples, first and last interval start (UTC), interval length and\n"
	"gaps (intervals missing between the first and the last); the families; per\n"
	"level (sample, hour, day, month) its rows and the period they cover, and\n"
	"what was pruned.\n"
	"\n"
	"Options:\n"
	"  -h, --help         this help\n"
	"  --version          the version and the knowledge base's revision\n";

/* ---- import ---- */

struct import_ui {
	bool progress;              /* stderr is a terminal and not -q */
	struct timespec start;      /* of the input being read */
	double last;                /* when the progress line was last written */
	bool shown;                 /* a progress line is on the terminal */
	struct cli_diag_state diag; /* skipped rows shown */
};

static double since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

static void clear_progress(struct import_ui *u)
{
	if (u->shown) {
		fputs("\r\033[K", stderr);
		u->shown = false;
	}
}

static void on_progress(void *ctx, const char *name, double fraction, uint64_t size, uint64_t samples)
{
	struct import_ui *u = ctx;
	double t;
	if (!u->progress)
		return;
	t = since(&u->start);
	if (t - u->last < 0.25)
		return;
	u->last = t;
	if (fraction >= 0 && t > 0) {
		double mbs = fraction * (double)size / 1e6 / t;
		double left = fraction > 0 ? t * (1 - fraction) / fraction : 0;
		fprintf(stderr, "\r\033[Kmfstat: %s: %" PRIu64 " samples, %.0f%%, %.1f MB/s, %.0f s left", name,
			samples, 100 * fraction, mbs, left);
	} else {
		fprintf(stderr, "\r\033[Kmfstat: %s: %" PRIu64 " samples, %.0f samples/s", name, samples,
			t > 0 ? (double)samples / t : 0.0);
	}
	u->shown = true;
}

static void on_diag(void *ctx, enum mf_pipeline_diag kind, const struct mf_error *e)
{
	struct import_ui *u = ctx;
	clear_progress(u);
	cli_pipeline_diag(&u->diag, kind, e);
}

static void on_done(void *ctx, const struct mf_db_import_file *f)
{
	struct import_ui *u = ctx;
	clear_progress(u);
	if (f->status == MF_DB_IMPORTED) {
		printf("%s: %" PRIu64 " new samples, %" PRIu64 " already held", f->name, f->samples_new,
		       f->samples_known);
		if (f->skipped)
			printf(", %" PRIu64 " bad %s skipped", f->skipped,
			       f->format && strcmp(f->format, "smf") == 0 ? "records" : "rows");
		if (f->held_back)
			printf(", %" PRIu64 " in buckets older than the pruned samples (not rolled up)", f->held_back);
		putchar('\n');
	} else if (f->status == MF_DB_ALREADY) {
		printf("%s: already imported (as %s on %s)\n", f->name, f->held_name, f->held_when);
	} else {
		printf("%s: not imported (rolled back)\n", f->name);
	}
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &u->start);
	u->last = 0;
}

int cmd_db_import(int argc, char **argv)
{
	static const struct option opts[] = {{"machine", required_argument, NULL, 'm'},
					     {"skip-bad-rows", no_argument, NULL, 's'},
					     {"skip-bad-records", no_argument, NULL, 's'},
					     {"quiet", no_argument, NULL, 'q'},
					     {"jobs", required_argument, NULL, 'j'},
					     {"tables", required_argument, NULL, 'T'},
					     {"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {NULL, 0, NULL, 0}};
	struct cli_inputs in = {0};
	struct mf_pipeline_opts po;
	struct mf_db_import_opts io;
	struct mf_db_import_totals tot;
	struct import_ui ui = {0};
	const char *tables = NULL;
	struct mf_db *db = NULL;
	struct mf_kb *kb;
	struct mf_error err;
	bool skip = false;
	unsigned jobs = cli_jobs_default();
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:j:qh", opts, NULL)) != -1) {
		if (c == 'm' && cli_inputs_option(c, optarg, &in))
			continue;
		switch (c) {
		case 's': skip = true; break;
		case 'q': cli_quiet = true; break;
		case 'T': tables = optarg; break;
		case 'j':
			if (!cli_jobs("db import", optarg, &jobs))
				return EXIT_USAGE;
			break;
		case 'h': fputs(import_help, stdout); return EXIT_OK;
		case 'V': return cli_version();
		default: return cli_bad_option("db import", c, argv, opts);
		}
	}
	if (optind >= argc)
		return cli_usage("db import", "db import: no database file (mfstat db import FILE.db INPUT...)");
	if (optind + 1 >= argc)
		return cli_usage("db import", "db import: no inputs to import into %s", argv[optind]);
	for (c = optind + 1; c < argc; c++)
		if (strcmp(argv[c], "-") == 0)
			return cli_usage("db import",
					 "db import: standard input cannot be imported (its hash is needed before it "
					 "is read): save it to a file");
	kb = cli_load_kb(tables);
	if (!kb)
		return EXIT_DATA;
	memset(&po, 0, sizeof(po));
	if ((rc = cli_inputs_setup("db import", kb, &in, &po)) >= 0) {
		cli_inputs_free(&in);
		mf_kb_free(kb);
		return rc;
	}
	mf_error_clear(&err);
	if ((rc = mf_db_open(&db, argv[optind], MF_DB_WRITE, &err)) != 0) {
		cli_diag(&err, "error");
		cli_inputs_free(&in);
		mf_kb_free(kb);
		return cli_exit_for(rc);
	}
	memset(&io, 0, sizeof(io));
	io.kb = kb;
	io.kb_name = tables ? tables : "embedded";
	io.family = po.family;
	io.machine = po.machine;
	io.perf_tz = po.perf_tz;
	io.perf_tz_from = po.perf_tz_from;
	io.skip_bad = skip;
	io.jobs = jobs;
	io.diag = on_diag;
	io.done = on_done;
	io.progress = on_progress;
	io.ctx = &ui;
	ui.progress = !cli_quiet && isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &ui.start);
	rc = mf_db_import(db, (const char *const *)argv + optind + 1, (size_t)(argc - optind - 1), &io, &tot, &err);
	clear_progress(&ui);
	if (rc && !tot.told)
		cli_diag(&err, "error");
	printf("total: %zu file%s imported, %zu already imported%s, %" PRIu64 " new samples, %" PRIu64
	       " already held\n",
	       tot.files, tot.files == 1 ? "" : "s", tot.already, tot.failed ? ", 1 rolled back" : "", tot.samples_new,
	       tot.samples_known);
	mf_db_close(db);
	cli_inputs_free(&in);
	mf_kb_free(kb);
	return rc ? cli_exit_for(rc) : EXIT_OK;
}

/* ---- info ---- */

static const char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? (const char *)t : "";
}

static void iso(int64_t us, char *buf, size_t n)
{
	mf_time_format(us, buf, n);
}

int cmd_db_info(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {NULL, 0, NULL, 0}};
	struct mf_db *db = NULL;
	struct mf_error err;
	sqlite3 *h;
	sqlite3_stmt *st = NULL, *q = NULL;
	char v[256];
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h': fputs(info_help, stdout); return EXIT_OK;
		case 'V': return cli_version();
		default: return cli_bad_option("db info", c, argv, opts);
		}
	}
	if (optind >= argc)
		return cli_usage("db info", "db info: no database file (mfstat db info FILE.db)");
	if (optind + 1 < argc)
		return cli_usage("db info", "db info: one database file, not %d", argc - optind);
	mf_error_clear(&err);
	if ((rc = mf_db_open(&db, argv[optind], MF_DB_READ, &err)) != 0) {
		cli_diag(&err, "error");
		return cli_exit_for(rc);
	}
	h = mf_db_sqlite(db);
	printf("database: %s\n", argv[optind]);
	printf("schema: %d\n", mf_db_version(db));
	if (mf_db_meta_get(db, "created", v, sizeof(v), &err) == 1)
		printf("created: %s\n", v);
	if (mf_db_meta_get(db, "created_by", v, sizeof(v), &err) == 1)
		printf("created by: %s\n", v);
	if (mf_db_meta_get(db, "kb", v, sizeof(v), &err) != 1) {
		printf("kb: (nothing imported)\n");
	} else {
		printf("kb: %s", v);
		/* Its formula revision as mfstat --version prints it; not kept by an older mfstat's import. */
		printf(", revision %s\n",
		       mf_db_meta_get(db, "kb_revision", v, sizeof(v), &err) == 1 ? v : "not recorded");
	}

	rc = EXIT_OK;
	if (sqlite3_prepare_v2(h,
			       "SELECT name, size, format, imported, samples_new, samples_known, skipped FROM file "
			       "ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK)
		goto fail;
	printf("\nfiles:\n");
	while (sqlite3_step(st) == SQLITE_ROW)
		printf("  %s  %lld bytes  %s  %s  %lld new, %lld known%s\n", col_text(st, 0),
		       (long long)sqlite3_column_int64(st, 1), col_text(st, 2), col_text(st, 3),
		       (long long)sqlite3_column_int64(st, 4), (long long)sqlite3_column_int64(st, 5),
		       sqlite3_column_int64(st, 6) ? ", bad rows skipped" : "");
	sqlite3_finalize(st);
	st = NULL;

	if (sqlite3_prepare_v2(h,
			       "SELECT system, COUNT(DISTINCT NULLIF(lpar, '')), COUNT(DISTINCT NULLIF(pool, '')), "
			       "COUNT(DISTINCT NULLIF(cpu, -1)), "
			       "COUNT(*), "
			       "MIN(start_us), MAX(start_us) FROM sample GROUP BY system ORDER BY system",
			       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(
		    h,
		    "WITH len AS (SELECT key_len_s AS l FROM sample WHERE system = ?1 AND start_us IS NOT NULL "
		    "AND key_len_s > 0 GROUP BY key_len_s ORDER BY COUNT(*) DESC, key_len_s LIMIT 1) "
		    "SELECT l, COUNT(DISTINCT key_start_s), MIN(key_start_s), MAX(key_start_s) FROM sample, len "
		    "WHERE system = ?1 AND start_us IS NOT NULL",
		    -1, &q, NULL) != SQLITE_OK)
		goto fail;
	printf("\nsystems:\n");
	while (sqlite3_step(st) == SQLITE_ROW) {
		char first[48] = "-", last[48] = "-", len[32] = "-";
		long long gaps = -1;
		if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
			iso(sqlite3_column_int64(st, 5), first, sizeof(first));
			iso(sqlite3_column_int64(st, 6), last, sizeof(last));
		}
		sqlite3_reset(q);
		sqlite3_bind_text(q, 1, col_text(st, 0), -1, SQLITE_TRANSIENT);
		if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL) {
			long long l = sqlite3_column_int64(q, 0), n = sqlite3_column_int64(q, 1);
			long long lo = sqlite3_column_int64(q, 2), hi = sqlite3_column_int64(q, 3);
			snprintf(len, sizeof(len), "%lld s", l);
			gaps = (hi - lo) / l + 1 - n;
			if (gaps < 0)
				gaps = 0;
		}
		printf("  %s: %lld LPAR%s, %lld pool%s, %lld CPU%s, %lld samples, %s to %s, interval %s, ",
		       *col_text(st, 0) ? col_text(st, 0) : "(no system)", (long long)sqlite3_column_int64(st, 1),
		       sqlite3_column_int64(st, 1) == 1 ? "" : "s", (long long)sqlite3_column_int64(st, 2),
		       sqlite3_column_int64(st, 2) == 1 ? "" : "s", (long long)sqlite3_column_int64(st, 3),
		       sqlite3_column_int64(st, 3) == 1 ? "" : "s", (long long)sqlite3_column_int64(st, 4), first, last,
		       len);
		if (gaps < 0)
			printf("gaps unknown\n");
		else
			printf("%lld gap%s\n", gaps, gaps == 1 ? "" : "s");
	}
	sqlite3_finalize(st);
	sqlite3_finalize(q);
	st = q = NULL;

	if (sqlite3_prepare_v2(h,
			       "SELECT s.family, COUNT(*), (SELECT COUNT(*) FROM counter c WHERE c.family = s.family) "
			       "FROM sample s GROUP BY s.family ORDER BY s.family",
			       -1, &st, NULL) != SQLITE_OK)
		goto fail;
	printf("\nfamilies:\n");
	while (sqlite3_step(st) == SQLITE_ROW)
		printf("  %s: %lld samples, %lld counters (counters_%s)\n", col_text(st, 0),
		       (long long)sqlite3_column_int64(st, 1), (long long)sqlite3_column_int64(st, 2), col_text(st, 0));
	sqlite3_finalize(st);
	st = NULL;

	/* The levels: what each holds and the period it covers (docs/db.md, "Levels and retention"). */
	if (sqlite3_prepare_v2(
		    h,
		    "SELECT * FROM (SELECT 'sample' AS level, COUNT(*), min(start_us), max(start_us) FROM sample "
		    "UNION ALL SELECT level, COUNT(*), min(bucket_us), max(bucket_us) FROM rollup GROUP BY level) "
		    "ORDER BY CASE level WHEN 'sample' THEN 0 WHEN 'hour' THEN 1 WHEN 'day' THEN 2 ELSE 3 END",
		    -1, &st, NULL) != SQLITE_OK)
		goto fail;
	printf("\nlevels:\n");
	while (sqlite3_step(st) == SQLITE_ROW) {
		char lo[48] = "-", hi[48] = "-";
		if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
			mf_time_format(sqlite3_column_int64(st, 2), lo, sizeof(lo));
			mf_time_format(sqlite3_column_int64(st, 3), hi, sizeof(hi));
		}
		printf("  %-6s  %lld rows, from %s to %s\n", col_text(st, 0), (long long)sqlite3_column_int64(st, 1),
		       lo, hi);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(h, "SELECT level, keep, before_us, rows, pruned FROM prune_log ORDER BY id", -1, &st,
			       NULL) != SQLITE_OK)
		goto fail;
	while (sqlite3_step(st) == SQLITE_ROW) {
		char b[48];
		mf_time_format(sqlite3_column_int64(st, 2), b, sizeof(b));
		printf("  pruned %s: %lld rows before %s (kept %s), on %s\n", col_text(st, 0),
		       (long long)sqlite3_column_int64(st, 3), b, col_text(st, 1), col_text(st, 4));
	}
	sqlite3_finalize(st);
	mf_db_close(db);
	return EXIT_OK;
fail:
	cli_err("%s: reading the database: %s", argv[optind], sqlite3_errmsg(h));
	sqlite3_finalize(st);
	sqlite3_finalize(q);
	mf_db_close(db);
	return EXIT_DATA;
}
