/* SPDX-License-Identifier: MIT */
/* mfstat smf list: what is in an SMF dump: one line per record, a CSV row per record, or a summary. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_term.h"
#include "mfstat/base/escape.h"
#include "mfstat/base/tz.h"

static const char smf_help[] =
	"Usage: mfstat smf list [OPTIONS] FILE...\n"
	"\n"
	"Lists the type 113 records of SMF dumps (RDW stream or VBS blocks, plain,\n"
	"gzip or zstd): byte offset, subtype, system, CPU, pool, machine type,\n"
	"interval start, seconds, counter sets present and number of counters; the\n"
	"type 70 subtype 1 (RMF CPU activity: the LPAR, the machine serial, CPUs,\n"
	"LPARs) and type 99 subtype 14 (topology) records with their key fields;\n"
	"then the records of other types, counted by type.  FILE - is standard input.\n"
	"\n"
	"Options:\n"
	"  --summary           per file a few lines: records by type and subtype, then\n"
	"                      per system its CPUs by pool, first and last interval,\n"
	"                      interval length and records, and where it ran: machine\n"
	"                      type, family, LPAR names (type 70) and UTC offset\n"
	"  -f, --format FMT    text (default) or csv: one row per record (file,\n"
	"                      offset, type, subtype, system, cpu, pool, ...)\n"
	"  --counters          also print every counter value of each record\n"
	"  --skip-bad-records  skip bad records, counting them, instead of stopping\n"
	"  --tables DIR        knowledge-base files that replace the built-in ones\n"
	"  --no-pager          a text list to a terminal longer than the screen is not\n"
	"                      paged through $PAGER (default less -FRX)\n"
	"  -h, --help          this help\n"
	"  --version           the version and the knowledge base's revision\n"
	"\n"
	"Examples:\n"
	"  mfstat smf list --summary SYS1.SMFDUMP.bin  # what a dump holds, in a few lines\n"
	"  mfstat smf list -f csv dump.smf.gz > records.csv\n"
	"  mfstat smf list --counters dump.smf | less  # every counter of every record\n";

static void sets_text(unsigned sets, char *buf, size_t n)
{
	static const char letter[] = "?bpcezm"; /* CSType 1..6: basic problem crypto extended z/OS MT-diag */
	size_t k = 0;
	unsigned t;
	for (t = 1; t <= 6 && k + 1 < n; t++)
		if (sets & (1u << t))
			buf[k++] = letter[t];
	buf[k] = '\0';
}

/* A type 70 subtype 1 or type 99 subtype 14 record: its key fields on one line. */
static void list_context(const struct mf_smf_record *rec)
{
	char start[48] = "-", secs[32] = "-";
	printf("0x%08llx  %-5s  %-8s  %4s  %-4s  ", (unsigned long long)rec->offset, rec->type == 70 ? "70.1" : "99.14",
	       rec->system, "-", "-");
	if (rec->bad) {
		printf("%4s  %-8s  %-27s  %11s  not readable: %s\n", "-", "-", "-", "-", rec->bad);
		return;
	}
	if (rec->rmf) {
		const struct mf_smf70 *r = rec->rmf;
		mf_time_format(r->start_us, start, sizeof(start));
		snprintf(secs, sizeof(secs), "%.6f", (double)(r->end_us - r->start_us) / 1e6);
		printf("%4u  %-8s  %-27s  %11s  RMF: LPAR %s (%u), serial %s, %zu cpus, %zu LPARs, %zu logical "
		       "processors%s\n",
		       r->machine_type, "-", start, secs, r->own >= 0 ? r->lpars[r->own].name : "?", r->own_number,
		       r->serial[0] ? r->serial : "-", r->ncpus, r->nlpars, r->nlcpus, r->broken ? ", broken" : "");
		return;
	}
	mf_time_format(rec->topo->time_us, start, sizeof(start));
	printf("%4s  %-8s  %-27s  %11s  topology: %zu cpus\n", "-", "-", start, "-", rec->topo->ncpus);
}

/* --summary: what one system of a file holds. */
struct sysum {
	char system[9];
	struct cpu_pool {
		unsigned cpu;
		int pool;
	} cpus[512];
	size_t ncpus;
	bool more_cpus;
	int64_t first_us, last_us; /* first interval start, last interval end (type 113) */
	double lo_s, hi_s;         /* shortest and longest interval */
	uint64_t records, rmf;
	bool any;
	int64_t ctm_first, ctm_last; /* subtype 2: the first and last record time (no interval in the record) */
	bool any_ctm;
	unsigned mtype;     /* machine type of the type 113 records (the first; mixed: more than one) */
	const char *family; /* its family, from the knowledge base's machine map; NULL unknown */
	bool mtype_mixed;
	char lpars[8][9]; /* the own LPAR of its type 70 subtype 1 records, by first seen */
	size_t nlpars;
	bool more_lpars;
	bool any_off, off_mixed; /* the UTC offsets of its type 113 records (mf_smf_record_offset) */
	int32_t off_lo, off_hi;
	uint64_t no_off; /* records without one */
};

struct summary {
	struct sysum *sys;
	size_t n, cap;
};

static struct sysum *sum_sys(struct summary *sm, const char *system)
{
	size_t i;
	for (i = 0; i < sm->n; i++)
		if (strcmp(sm->sys[i].system, system) == 0)
			return &sm->sys[i];
	if (sm->n == sm->cap) {
		size_t cap = sm->cap ? sm->cap * 2 : 8;
		struct sysum *ns = realloc(sm->sys, cap * sizeof(*ns));
		if (!ns)
			return NULL;
		sm->sys = ns;
		sm->cap = cap;
	}
	memset(&sm->sys[sm->n], 0, sizeof(sm->sys[0]));
	snprintf(sm->sys[sm->n].system, sizeof(sm->sys[0].system), "%s", system);
	return &sm->sys[sm->n++];
}

static void sum_record(struct summary *sm, const struct mf_smf_record *rec)
{
	struct sysum *y = sum_sys(sm, rec->system);
	size_t k;
	if (!y)
		return;
	int32_t off;
	if (rec->type == 70) {
		y->rmf += rec->rmf != NULL;
		if (rec->rmf && rec->rmf->own >= 0) {
			const char *name = rec->rmf->lpars[rec->rmf->own].name;
			for (k = 0; k < y->nlpars && strcmp(y->lpars[k], name) != 0; k++)
				;
			if (k == y->nlpars && k < sizeof(y->lpars) / sizeof(y->lpars[0]))
				snprintf(y->lpars[y->nlpars++], sizeof(y->lpars[0]), "%s", name);
			else if (k == y->nlpars)
				y->more_lpars = true;
		}
		return;
	}
	if (rec->type != 113)
		return;
	y->records++;
	if (rec->machine_type && !y->mtype) {
		y->mtype = rec->machine_type;
		y->family = rec->family ? rec->family->display : NULL;
	} else if (rec->machine_type && rec->machine_type != y->mtype) {
		y->mtype_mixed = true;
	}
	if (mf_smf_record_offset(rec, &off)) {
		if (!y->any_off || off < y->off_lo)
			y->off_lo = off;
		if (!y->any_off || off > y->off_hi)
			y->off_hi = off;
		y->any_off = true;
	} else {
		y->no_off++;
	}
	for (k = 0; k < y->ncpus; k++)
		if (y->cpus[k].cpu == rec->cpu)
			break;
	if (k == y->ncpus) {
		if (y->ncpus < sizeof(y->cpus) / sizeof(y->cpus[0])) {
			y->cpus[y->ncpus].cpu = rec->cpu;
			y->cpus[y->ncpus++].pool = rec->pool;
		} else {
			y->more_cpus = true;
		}
	}
	if (rec->has_interval) {
		double secs = (double)(rec->end_us - rec->start_us) / 1e6;
		if (!y->any || rec->start_us < y->first_us)
			y->first_us = rec->start_us;
		if (!y->any || rec->end_us > y->last_us)
			y->last_us = rec->end_us;
		if (!y->any || secs < y->lo_s)
			y->lo_s = secs;
		if (!y->any || secs > y->hi_s)
			y->hi_s = secs;
		y->any = true;
	} else if (rec->subtype == 2) {
		if (!y->any_ctm || rec->ctm_us < y->ctm_first)
			y->ctm_first = rec->ctm_us;
		if (!y->any_ctm || rec->ctm_us > y->ctm_last)
			y->ctm_last = rec->ctm_us;
		y->any_ctm = true;
	}
}

/* The few lines of --summary for one file. */
static void print_summary(const char *file, const struct mf_smf_stats *st, const struct summary *sm)
{
	size_t i, t, p;
	printf("%s: %s framing, compression %s, %" PRIu64 " records, %" PRIu64 " bytes\n", file, st->framing,
	       st->compression ? st->compression : "none", st->records, st->bytes);
	printf("  records: type 113 subtype 1: %" PRIu64 ", subtype 2: %" PRIu64, st->t113[1], st->t113[2]);
	if (st->t113[0])
		printf(", other subtypes: %" PRIu64, st->t113[0]);
	for (t = 0; t < 256; t++) {
		if (t == 113 || !st->by_type[t])
			continue;
		printf("; type %zu: %" PRIu64, t, st->by_type[t]);
		if (t == 70 && st->t70_1)
			printf(" (subtype 1: %" PRIu64 ")", st->t70_1);
		if (t == 99 && st->t99_14)
			printf(" (subtype 14: %" PRIu64 ")", st->t99_14);
	}
	putchar('\n');
	for (i = 0; i < sm->n; i++) {
		const struct sysum *y = &sm->sys[i];
		char a[48], b[48];
		bool first = true;
		if (!y->records && !y->rmf)
			continue;
		printf("  %s: %zu%s cpu%s", y->system[0] ? y->system : "(no name)", y->ncpus, y->more_cpus ? "+" : "",
		       y->ncpus == 1 ? "" : "s");
		for (p = 1; p < MF_NPOOLS; p++) {
			size_t k, n = 0;
			for (k = 0; k < y->ncpus; k++)
				n += y->cpus[k].pool == (int)p;
			if (n) {
				printf("%s%s %zu", first ? " (" : ", ", mf_pool_name((int)p), n);
				first = false;
			}
		}
		printf("%s", first ? "" : ")");
		if (y->any) {
			mf_time_format(y->first_us, a, sizeof(a));
			mf_time_format(y->last_us, b, sizeof(b));
			if (y->hi_s - y->lo_s < 1)
				printf(", %s to %s, intervals of %.0f s", a, b, (y->lo_s + y->hi_s) / 2);
			else
				printf(", %s to %s, intervals of %.0f to %.0f s", a, b, y->lo_s, y->hi_s);
		}
		if (y->any_ctm) {
			mf_time_format(y->ctm_first, a, sizeof(a));
			mf_time_format(y->ctm_last, b, sizeof(b));
			printf(", subtype 2 records written %s to %s", a, b);
		}
		printf(", %" PRIu64 " type 113 record%s", y->records, y->records == 1 ? "" : "s");
		if (y->rmf)
			printf(", %" PRIu64 " RMF interval%s", y->rmf, y->rmf == 1 ? "" : "s");
		putchar('\n');
		/* Where it ran: the machine, its family, the LPARs (type 70) and the local time's offset. */
		printf("    ");
		if (y->mtype)
			printf("machine %u%s (%s)", y->mtype, y->mtype_mixed ? " and others" : "",
			       y->family ? y->family : "a type the knowledge base does not map");
		else
			printf("machine unknown (no type 113 record)");
		if (y->nlpars) {
			printf(", LPAR%s ", y->nlpars > 1 || y->more_lpars ? "s" : "");
			for (p = 0; p < y->nlpars; p++)
				printf("%s%s", p ? ", " : "", y->lpars[p]);
			if (y->more_lpars)
				printf(" and more");
		} else {
			printf(", LPAR unknown (%s)",
			       y->rmf ? "its type 70 records do not name it" : "no type 70 subtype 1 records");
		}
		if (y->any_off) {
			mf_tz_offset_text(y->off_lo, a, sizeof(a));
			mf_tz_offset_text(y->off_hi, b, sizeof(b));
			if (y->off_lo == y->off_hi)
				printf(", UTC offset %s", a);
			else
				printf(", UTC offsets %s to %s", a, b);
			if (y->no_off)
				printf(" (%" PRIu64 " record%s without a local time)", y->no_off,
				       y->no_off == 1 ? "" : "s");
		} else if (y->records) {
			printf(", UTC offset unknown (no local time in the records)");
		}
		putchar('\n');
	}
}

/* MF_ESCAPE_CSV_TERMINAL when standard output is a terminal (set once by cmd_smf). */
static unsigned csv_flags;

/* A text cell (a file or system name, a detail): the formula guard; on a terminal no control character. */
static void csv_field(const char *s)
{
	mf_escape_csv_file(stdout, s, MF_ESCAPE_CSV_TEXT | csv_flags);
}

/* -f csv: one row per record. */
static void csv_record(const char *file, const struct mf_smf_record *rec)
{
	char start[48] = "", secs[32] = "", sets[8] = "", detail[160] = "";
	const char *pool = "", *family = "";
	unsigned mtype = 0;
	char sub[8], cpu[16] = "";
	snprintf(sub, sizeof(sub), "%d", rec->subtype);
	if (rec->type == 113) {
		snprintf(cpu, sizeof(cpu), "%u", rec->cpu);
		pool = mf_pool_name(rec->pool) ? mf_pool_name(rec->pool) : "";
		mtype = rec->machine_type;
		family = rec->family ? rec->family->display : "";
		sets_text(rec->sets, sets, sizeof(sets));
		if (rec->has_interval) {
			mf_time_format(rec->start_us, start, sizeof(start));
			snprintf(secs, sizeof(secs), "%.6f", (double)(rec->end_us - rec->start_us) / 1e6);
		} else if (rec->subtype == 2) {
			mf_time_format(rec->ctm_us, start, sizeof(start));
			snprintf(detail, sizeof(detail), "%s", rec->first ? "first" : rec->final ? "final" : "cumul");
		}
		if (rec->lost || rec->mt_lost)
			snprintf(detail, sizeof(detail), "%s%s%s", rec->lost ? "lost-data" : "",
				 rec->lost && rec->mt_lost ? " " : "", rec->mt_lost ? "mt-diag-lost" : "");
	} else if (rec->bad) {
		snprintf(detail, sizeof(detail), "not readable");
	} else if (rec->rmf) {
		const struct mf_smf70 *r = rec->rmf;
		mtype = r->machine_type;
		mf_time_format(r->start_us, start, sizeof(start));
		snprintf(secs, sizeof(secs), "%.6f", (double)(r->end_us - r->start_us) / 1e6);
		snprintf(detail, sizeof(detail), "lpar %s, serial %s, %zu cpus, %zu lpars",
			 r->own >= 0 ? r->lpars[r->own].name : "?", r->serial, r->ncpus, r->nlpars);
	} else if (rec->topo) {
		mf_time_format(rec->topo->time_us, start, sizeof(start));
		snprintf(detail, sizeof(detail), "topology of %zu cpus", rec->topo->ncpus);
	}
	csv_field(file);
	printf(",%lld,%d,%s,", rec->offset, rec->type, sub);
	csv_field(rec->system);
	printf(",%s,%s,", cpu, pool);
	if (mtype)
		printf("%u", mtype);
	printf(",%s,%s,%s,%s,", family, start, secs, sets);
	if (rec->type == 113)
		printf("%zu", rec->n);
	putchar(',');
	csv_field(detail);
	putchar('\n');
}

int cmd_smf(int argc, char **argv)
{
	static const struct option opts[] = {{"counters", no_argument, NULL, 'c'},
					     {"skip-bad-records", no_argument, NULL, 's'},
					     {"tables", required_argument, NULL, 'T'},
					     {"summary", no_argument, NULL, 'S'},
					     {"format", required_argument, NULL, 'f'},
					     {"no-pager", no_argument, NULL, 'P'},
					     {"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {NULL, 0, NULL, 0}};
	const char *tables = NULL, *format = "text";
	bool counters = false, skip = false, summary = false, no_pager = false, csv;
	struct cli_page page;
	struct mf_kb *kb;
	struct mf_smf_record *rec;
	uint64_t bad = 0;
	int c, i, rc = EXIT_OK;

	if (argc < 2 || strcmp(argv[1], "list") != 0) {
		if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
			fputs(smf_help, stdout);
			return EXIT_OK;
		}
		if (argc >= 2 && strcmp(argv[1], "--version") == 0)
			return cli_version();
		if (argc >= 2 && argv[1][0] != '-') {
			static const char *const subs[] = {"list"};
			if (cli_nearest(argv[1], strlen(argv[1]), subs, 1))
				return cli_usage("smf list", "smf: unknown subcommand '%s' (did you mean list?)",
						 argv[1]);
			return cli_usage("smf list", "smf: unknown subcommand '%s' (list is the one there is)",
					 argv[1]);
		}
		return cli_usage("smf list", "smf: expected 'mfstat smf list FILE...'");
	}
	argc--;
	argv++;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': counters = true; break;
		case 's': skip = true; break;
		case 'T': tables = optarg; break;
		case 'S': summary = true; break;
		case 'f': format = optarg; break;
		case 'P': no_pager = true; break;
		case 'h': fputs(smf_help, stdout); return EXIT_OK;
		case 'V': return cli_version();
		default: return cli_bad_option("smf list", c, argv, opts);
		}
	}
	if (strcmp(format, "text") != 0 && strcmp(format, "csv") != 0)
		return cli_usage("smf list", "smf list: -f must be text or csv, not '%s'", format);
	csv = strcmp(format, "csv") == 0;
	csv_flags = csv && isatty(STDOUT_FILENO) ? MF_ESCAPE_CSV_TERMINAL : 0;
	if (summary && (csv || counters))
		return cli_usage("smf list", "smf list: --summary is text only, without --counters");
	if (counters && csv)
		return cli_usage("smf list", "smf list: --counters is text only");
	if (optind >= argc) {
		return cli_usage("smf list", "smf list: no input files (give - to read standard input)");
	}
	kb = cli_load_kb(tables);
	if (!kb)
		return EXIT_DATA;
	rec = malloc(sizeof(*rec));
	if (!rec) {
		mf_kb_free(kb);
		return EXIT_DATA;
	}
	/* Text to a terminal: paged when longer than the screen (CSV never is, as report's). */
	page.saved = page.held = -1;
	if (!csv)
		cli_page_begin(&page, no_pager);
	if (csv)
		puts("file,offset,type,subtype,system,cpu,pool,machine_type,family,interval_start,seconds,sets,"
		     "counters,"
		     "detail");
	else if (!summary)
		printf("%-10s  %-5s  %-8s  %4s  %-4s  %4s  %-8s  %-27s  %11s  %-5s  %s\n", "offset", "sub", "system",
		       "cpu", "pool", "type", "family", "interval start", "seconds", "sets", "counters");
	for (i = optind; i < argc && rc == EXIT_OK; i++) {
		struct mf_smf *h = NULL;
		struct mf_error e;
		const struct mf_smf_stats *st;
		struct summary sm = {0};
		size_t t, n;
		mf_error_clear(&e);
		if (mf_smf_open(&h, argv[i], kb, &e)) {
			cli_diag(&e, "error");
			rc = EXIT_DATA;
			break;
		}
		for (;;) {
			char start[48] = "-", secs[32] = "-", sets[8];
			int got = mf_smf_next(h, rec, &e);
			size_t k;
			if (got == 0)
				break;
			if (got < 0) {
				if (!skip) {
					cli_diag(&e, "error");
					rc = EXIT_DATA;
					break;
				}
				cli_diag(&e, "skipped");
				bad++;
				if (got == MF_EIO)
					break;
				continue;
			}
			if (summary) {
				sum_record(&sm, rec);
				continue;
			}
			if (csv) {
				csv_record(argv[i], rec);
				continue;
			}
			if (rec->type == 70 || rec->type == 99) {
				list_context(rec);
				continue;
			}
			if (rec->has_interval) {
				mf_time_format(rec->start_us, start, sizeof(start));
				snprintf(secs, sizeof(secs), "%.6f", (double)(rec->end_us - rec->start_us) / 1e6);
			} else if (rec->subtype == 2) {
				mf_time_format(rec->ctm_us, start, sizeof(start));
				snprintf(secs, sizeof(secs), "%s",
					 rec->first   ? "first"
					 : rec->final ? "final"
						      : "cumul");
			}
			sets_text(rec->sets, sets, sizeof(sets));
			printf("0x%08llx  %-5d  %-8s  %4u  %-4s  %4u  %-8s  %-27s  %11s  %-5s  %zu%s%s\n",
			       (unsigned long long)rec->offset, rec->subtype, rec->system, rec->cpu,
			       mf_pool_name(rec->pool) ? mf_pool_name(rec->pool) : "-", rec->machine_type,
			       rec->family ? rec->family->display : "-", start, secs, sets, rec->n,
			       rec->lost ? "  lost-data" : "", rec->mt_lost ? "  mt-diag-lost" : "");
			if (counters) {
				for (k = 0; k < rec->n; k++) {
					const struct mf_counter *ctr = mf_family_counter_num(rec->family, rec->num[k]);
					printf("    %-5s %-34s %" PRIu64 "\n", ctr->short_name, ctr->linux_name,
					       rec->val[k]);
				}
			}
		}
		st = mf_smf_stats(h);
		if (summary) {
			if (rc == EXIT_OK)
				print_summary(argv[i], st, &sm);
		} else if (!csv) {
			printf("%s: %s framing, compression %s, %" PRIu64 " records, %" PRIu64
			       " bytes; type 113: %" PRIu64 " subtype 1, %" PRIu64 " subtype 2",
			       argv[i], st->framing, st->compression ? st->compression : "none", st->records, st->bytes,
			       st->t113[1], st->t113[2]);
			for (t = 0, n = 0; t < 256; t++)
				if (t != 113 && st->by_type[t])
					printf("%s type %zu: %" PRIu64, n++ ? "," : "; others:", t, st->by_type[t]);
			putchar('\n');
		}
		free(sm.sys);
		mf_smf_close(h);
	}
	cli_page_end_to(&page, "smf list", summary ? NULL : "--summary", "> FILE");
	if (bad)
		cli_warn("%" PRIu64 " bad record%s skipped", bad, bad == 1 ? "" : "s");
	free(rec);
	mf_kb_free(kb);
	return rc;
}
