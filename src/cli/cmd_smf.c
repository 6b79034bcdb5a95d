/* SPDX-License-Identifier: MIT */
/* mfstat smf list: what is in an SMF dump, one line per type 113 record. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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
	"  --counters          also print every counter value of each record\n"
	"  --skip-bad-records  skip bad records, counting them, instead of stopping\n"
	"  --tables DIR        knowledge-base files that replace the built-in ones\n"
	"  -h, --help          this help\n";

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

int cmd_smf(int argc, char **argv)
{
	static const struct option opts[] = {{"counters", no_argument, NULL, 'c'},
					     {"skip-bad-records", no_argument, NULL, 's'},
					     {"tables", required_argument, NULL, 'T'},
					     {"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {NULL, 0, NULL, 0}};
	const char *tables = NULL;
	bool counters = false, skip = false;
	struct mf_kb *kb;
	struct mf_smf_record *rec;
	uint64_t bad = 0;
	int c, i, rc = EXIT_OK;

	if (argc < 2 || strcmp(argv[1], "list") != 0) {
		if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
			fputs(smf_help, stdout);
			return EXIT_OK;
		}
		return cli_usage("smf list", "smf: expected 'mfstat smf list FILE...'");
	}
	argc--;
	argv++;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': counters = true; break;
		case 's': skip = true; break;
		case 'T': tables = optarg; break;
		case 'h': fputs(smf_help, stdout); return EXIT_OK;
		case 'V': return cli_version();
		default: return cli_bad_option("smf list", c, argv, opts);
		}
	}
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
	printf("%-10s  %-5s  %-8s  %4s  %-4s  %4s  %-8s  %-27s  %11s  %-5s  %s\n", "offset", "sub", "system", "cpu",
	       "pool", "type", "family", "interval start", "seconds", "sets", "counters");
	for (i = optind; i < argc && rc == EXIT_OK; i++) {
		struct mf_smf *h = NULL;
		struct mf_error e;
		const struct mf_smf_stats *st;
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
		printf("%s: %s framing, compression %s, %" PRIu64 " records, %" PRIu64 " bytes; type 113: %" PRIu64
		       " subtype 1, %" PRIu64 " subtype 2",
		       argv[i], st->framing, st->compression ? st->compression : "none", st->records, st->bytes,
		       st->t113[1], st->t113[2]);
		for (t = 0, n = 0; t < 256; t++)
			if (t != 113 && st->by_type[t])
				printf("%s type %zu: %" PRIu64, n++ ? "," : "; others:", t, st->by_type[t]);
		putchar('\n');
		mf_smf_close(h);
	}
	if (bad)
		cli_warn("%" PRIu64 " bad record%s skipped", bad, bad == 1 ? "" : "s");
	free(rec);
	mf_kb_free(kb);
	return rc;
}
