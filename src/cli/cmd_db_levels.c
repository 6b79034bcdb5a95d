/* SPDX-License-Identifier: MIT */
/*
 * mfstat db rollup and mfstat db prune: the levels of a performance database (docs/db.md, "Levels
 * and retention"): summed into hours, days and months, and each aged out on its own schedule.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mfstat/db/prune.h"
#include "mfstat/db/rollup.h"

static const char prune_help[] =
	"Usage: mfstat db prune [OPTIONS] FILE.db\n"
	"\n"
	"Deletes from each level of the performance database what is older than the\n"
	"span kept for it, counted back from the newest interval start the database\n"
	"holds (not from today: a database of last year's dumps is not emptied).\n"
	"Samples go with their counters and SMF records; roll-ups with their sums.\n"
	"Each level pruned is recorded in the table prune_log.  Samples without an\n"
	"interval start are never pruned, and the files imported stay listed, so\n"
	"importing a pruned file again adds nothing.\n"
	"\n"
	"Options:\n"
	"  --keep LEVEL=SPAN[,...]  how long each level is kept: LEVEL is sample,\n"
	"                      hour, day or month; SPAN a number and d (days), w\n"
	"                      (weeks), m (calendar months) or y (calendar years), or\n"
	"                      forever.  Levels not named keep the default:\n"
	"                      sample=35d,hour=400d,day=5y,month=forever\n"
	"  -n, --dry-run       say what would be deleted, delete nothing\n"
	"  --vacuum            afterwards give the freed pages back to the file system\n"
	"                      (VACUUM: rewrites the file; needs its size again free)\n"
	"  -q, --quiet         print nothing but errors\n"
	"  -h, --help          this help\n"
	"\n"
	"Examples:\n"
	"  mfstat db prune perf.db                          # the default spans\n"
	"  mfstat db prune --keep sample=10d,hour=13w -n perf.db\n";

static const char rollup_help[] =
	"Usage: mfstat db rollup [OPTIONS] FILE.db\n"
	"\n"
	"Recomputes the roll-ups of the performance database from its samples: per\n"
	"system, LPAR, pool and family, the sums of each hour, day and month of the\n"
	"local clock the samples were written in (SMF records carry it; UTC for\n"
	"inputs without one).  mfstat db import runs it for what it imported; run it\n"
	"by hand after changing the database with other tools.  Buckets that begin\n"
	"before the samples' prune horizon are left as they are.\n"
	"\n"
	"Options:\n"
	"  --from TIME         only the buckets of samples starting at or after TIME\n"
	"  --to TIME           only the buckets of samples starting before TIME\n"
	"                      (ISO 8601; without either: every bucket)\n"
	"  -q, --quiet         print nothing but errors\n"
	"  -h, --help          this help\n"
	"\n"
	"Examples:\n"
	"  mfstat db rollup perf.db\n"
	"  mfstat db rollup --from 2025-03-01T00:00:00Z --to 2025-04-01T00:00:00Z perf.db\n";

int cmd_db_rollup(int argc, char **argv)
{
	enum { OPT_FROM = 400, OPT_TO };
	static const struct option opts[] = {{"from", required_argument, NULL, OPT_FROM},
					     {"to", required_argument, NULL, OPT_TO},
					     {"quiet", no_argument, NULL, 'q'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	struct mf_db *db = NULL;
	struct mf_db_rolled r;
	struct mf_error e;
	int64_t lo = INT64_MIN, hi = INT64_MAX;
	bool all = true;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_FROM:
		case OPT_TO:
			if (mf_time_parse(optarg, strlen(optarg), c == OPT_FROM ? &lo : &hi) != 0)
				return cli_usage("db rollup",
						 "db rollup: --%s '%s' is not an ISO 8601 time (2025-03-01T00:00:00Z)",
						 c == OPT_FROM ? "from" : "to", optarg);
			all = false;
			break;
		case 'q': cli_quiet = true; break;
		case 'h': fputs(rollup_help, stdout); return EXIT_OK;
		default: return cli_bad_option("db rollup", c, argv, opts);
		}
	}
	if (optind >= argc)
		return cli_usage("db rollup", "db rollup: no database given (mfstat db rollup FILE.db)");
	if (optind + 1 < argc)
		return cli_usage("db rollup", "db rollup: one database at a time ('%s' is a second)", argv[optind + 1]);
	if (lo >= hi)
		return cli_usage("db rollup", "db rollup: --from must be before --to");
	if (mf_db_open(&db, argv[optind], MF_DB_UPDATE, &e) != 0 || mf_db_rollup(db, all, lo, hi, &r, &e) != 0) {
		cli_diag(&e, "error");
		mf_db_close(db);
		return EXIT_DATA;
	}
	if (!cli_quiet) {
		printf("%s: %" PRIu64 " samples rolled up into %" PRIu64 " hours, %" PRIu64 " days and %" PRIu64
		       " months (rows per system, LPAR, pool and family)\n",
		       argv[optind], r.samples, r.rows[MF_DB_HOUR], r.rows[MF_DB_DAY], r.rows[MF_DB_MONTH]);
		if (r.held_back)
			printf("%s: %" PRIu64
			       " samples are in buckets that begin before the prune horizon: their "
			       "roll-ups were left as they were\n",
			       argv[optind], r.held_back);
	}
	mf_db_close(db);
	return EXIT_OK;
}

int cmd_db_prune(int argc, char **argv)
{
	enum { OPT_KEEP = 400, OPT_VACUUM };
	static const struct option opts[] = {{"keep", required_argument, NULL, OPT_KEEP},
					     {"dry-run", no_argument, NULL, 'n'},
					     {"vacuum", no_argument, NULL, OPT_VACUUM},
					     {"quiet", no_argument, NULL, 'q'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	struct mf_db_keep keep;
	struct mf_db_pruned pr;
	struct mf_db *db = NULL;
	struct mf_error e;
	bool dry = false, vacuum = false;
	char why[256];
	int c, level;

	mf_db_keep_default(&keep);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":nqh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_KEEP:
			if (mf_db_keep_parse(optarg, &keep, why, sizeof(why)) != 0)
				return cli_usage("db prune", "db prune: --keep %s", why);
			break;
		case 'n': dry = true; break;
		case OPT_VACUUM: vacuum = true; break;
		case 'q': cli_quiet = true; break;
		case 'h': fputs(prune_help, stdout); return EXIT_OK;
		default: return cli_bad_option("db prune", c, argv, opts);
		}
	}
	if (optind >= argc)
		return cli_usage("db prune", "db prune: no database given (mfstat db prune FILE.db)");
	if (optind + 1 < argc)
		return cli_usage("db prune", "db prune: one database at a time ('%s' is a second)", argv[optind + 1]);
	if (dry && vacuum)
		return cli_usage("db prune", "db prune: --vacuum with --dry-run would rewrite the file for nothing");
	if (mf_db_open(&db, argv[optind], dry ? MF_DB_READ : MF_DB_UPDATE, &e) != 0 ||
	    mf_db_prune(db, &keep, dry, &pr, &e) != 0 ||
	    (vacuum && mf_db_exec(db, "VACUUM", "giving the freed pages back (VACUUM)", &e) != 0)) {
		cli_diag(&e, "error");
		mf_db_close(db);
		return EXIT_DATA;
	}
	if (!cli_quiet) {
		char when[40];
		if (!pr.has_ref) {
			printf("%s: no dated samples or roll-ups: nothing to prune\n", argv[optind]);
		} else {
			mf_time_format(pr.ref_us, when, sizeof(when));
			printf("%s: the newest interval starts %s; each level kept back from it:\n", argv[optind],
			       when);
			for (level = 0; level < MF_DB_NLEVELS; level++) {
				if (pr.before_us[level] == INT64_MIN) {
					printf("  %-6s  %-8s  all kept\n", mf_db_level_name(level), keep.text[level]);
					continue;
				}
				mf_time_format(pr.before_us[level], when, sizeof(when));
				printf("  %-6s  %-8s  before %s: %" PRIu64 " %s %s", mf_db_level_name(level),
				       keep.text[level], when, pr.rows[level],
				       level == MF_DB_SAMPLE ? "samples" : "roll-ups",
				       dry ? "would be deleted" : "deleted");
				if (level == MF_DB_SAMPLE && pr.smf_records)
					printf(" (and %" PRIu64 " SMF records)", pr.smf_records);
				putchar('\n');
			}
		}
	}
	mf_db_close(db);
	return EXIT_OK;
}
