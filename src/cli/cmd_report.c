/* SPDX-License-Identifier: MIT */
/* mfstat report: read counter files, group, compute, write. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_SHOWN_SKIPS 10
/* A bound on memory (1-2 KiB a group) that no real study reaches: a year of 15-minute
 * intervals of 50 CPUs is 1.75 million groups with --by interval,cpu. */
#define MAX_GROUPS_DEFAULT 2000000ULL

/* "system, LPAR, pool, interval and CPU": the keys of a --by, for messages. */
static const char *by_keys_text(unsigned by)
{
	static char buf[96];
	static const struct { unsigned bit; const char *name; } keys[] = {
		{MF_BY_SYSTEM, "system"}, {MF_BY_LPAR, "LPAR"}, {MF_BY_POOL, "pool"},
		{MF_BY_INTERVAL, "interval"}, {MF_BY_CPU, "CPU"}};
	size_t k, n = 0, used = 0;
	buf[0] = '\0';
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		n += (by & keys[k].bit) != 0;
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		if (!(by & keys[k].bit))
			continue;
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s", used ? (--n == 1 ? " and " : ", ") : "",
					 keys[k].name);
		if (!used || used >= sizeof(buf))
			break;
	}
	return buf[0] ? buf : "machine family";
}

static const char report_help[] =
	"Usage: mfstat report [OPTIONS] FILE...\n"
	"\n"
	"Computes the CPU-MF metrics (CPI, L1MP, sourcing, RNI, LPARCPU, TLB, AIU)\n"
	"and the LSPR workload class from counter deltas.  FILE - is standard input.\n"
	"\n"
	"Options:\n"
	"  --input FORMAT     input format: csv, smf, perf (perf stat output) or\n"
	"                     lshwc (CSV or JSON); default: detected from the\n"
	"                     content; gzip and zstd files are read as well\n"
	"  -f, --format FMT   output format: text (default), csv, json or html (one\n"
	"                     self-contained page with charts and findings)\n"
	"  -o, --output FILE  write the report to FILE instead of standard output\n"
	"                     (never to one of the inputs; FILE is replaced only\n"
	"                     when the report is complete)\n"
	"  --machine F        family (z10 z196 zEC12 z13 z14 z15 z16 z17) or machine\n"
	"                     type (e.g. 3931) for rows whose data names none\n"
	"  --by LIST          group by any of system,lpar,pool,interval,cpu\n"
	"                     (default system,lpar,pool,interval; \"\" = one group\n"
	"                     per machine family)\n"
	"  --skip-bad-rows    skip rows (CSV) or records (SMF) with bad data,\n"
	"                     counting them by reason; also --skip-bad-records\n"
	"  --tables DIR       knowledge-base files that replace or add to the built-in\n"
	"                     ones (a new family: see README)\n"
	"  --mem-peak GB/s    peak memory bandwidth, for DRAM_UTIL (intel_uncore)\n"
	"  --max-groups N     stop with an error beyond N groups (default 2000000,\n"
	"                     about 1-2 KiB of memory each; 0: no limit)\n"
	"  -q, --quiet        no warnings on standard error\n"
	"  -v, --verbose      say why metrics are not available\n"
	"  -h, --help         this help\n";

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{"input", required_argument, NULL, 'I'}, {"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'}, {"machine", required_argument, NULL, 'm'},
		{"by", required_argument, NULL, 'b'},     {"skip-bad-rows", no_argument, NULL, 's'},
		{"skip-bad-records", no_argument, NULL, 's'},
		{"tables", required_argument, NULL, 'T'}, {"quiet", no_argument, NULL, 'q'},
		{"verbose", no_argument, NULL, 'v'},      {"help", no_argument, NULL, 'h'},
		{"mem-peak", required_argument, NULL, 'M'},
		{"max-groups", required_argument, NULL, 'G'},
		{NULL, 0, NULL, 0}};
	const char *input = NULL, *format = "text", *out = NULL, *machine = NULL, *by_s = NULL, *tables = NULL;
	bool skip = false, verbose = false;
	double mem_peak = NAN;
	unsigned long long max_groups = MAX_GROUPS_DEFAULT;
	struct mf_kb *kb = NULL;
	struct mf_strtab *tab = NULL;
	struct mf_grouper *grp = NULL;
	struct mf_sample *s = NULL;
	struct mf_result *res = NULL;
	struct mf_dedup *dd = NULL;
	struct mf_notes notes;
	struct mf_input *inputs = NULL;
	size_t ninputs = 0;
	struct mf_reader_opts ro;
	struct mf_report rep;
	struct mf_strbuf summary;
	size_t ngroups = 0, i, shown = 0;
	uint64_t rows = 0;
	unsigned by = MF_BY_DEFAULT;
	int c, rc = EXIT_OK;

	mf_notes_init(&notes);
	mf_strbuf_init(&summary);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'I': input = optarg; break;
		case 'f': format = optarg; break;
		case 'o': out = optarg; break;
		case 'm': machine = optarg; break;
		case 'b': by_s = optarg; break;
		case 's': skip = true; break;
		case 'T': tables = optarg; break;
		case 'q': cli_quiet = true; break;
		case 'v': verbose = true; break;
		case 'G': {
			char *end;
			errno = 0;
			max_groups = strtoull(optarg, &end, 10);
			if (end == optarg || *end || errno || optarg[0] == '-') {
				cli_err("report: --max-groups takes a number of groups (0: no limit), not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'M': {
			char *end;
			mem_peak = strtod(optarg, &end);
			if (end == optarg || *end || !(mem_peak > 0)) {
				cli_err("report: --mem-peak takes the peak memory bandwidth in GB/s, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'h': fputs(report_help, stdout); return EXIT_OK;
		case ':':
			cli_err("report: option %s needs a value", argv[optind - 1]);
			fputs("Try 'mfstat report --help'.\n", stderr);
			return EXIT_USAGE;
		default:
			cli_err("report: option %s is not known", argv[optind - 1]);
			fputs("Try 'mfstat report --help'.\n", stderr);
			return EXIT_USAGE;
		}
	}
	if (strcmp(format, "text") && strcmp(format, "csv") && strcmp(format, "json") && strcmp(format, "html")) {
		cli_err("report: -f must be text, csv, json or html, not '%s'", format);
		return EXIT_USAGE;
	}
	if (input) {
		const char *const *f = mf_reader_formats();
		while (*f && strcmp(*f, input))
			f++;
		if (!*f) {
			cli_err("report: --input must be csv, smf, perf or lshwc (not '%s')", input);
			return EXIT_USAGE;
		}
	}
	if (by_s) {
		size_t bad;
		if (mf_by_parse(by_s, &by, &bad)) {
			cli_err("report: --by: '%s' is not one of system,lpar,pool,interval,cpu", by_s + bad);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		cli_err("report: no input files (give - to read standard input)");
		return EXIT_USAGE;
	}
	for (i = (size_t)optind; out && i < (size_t)argc; i++) {
		if (cli_same_file(out, argv[i])) {
			cli_err("report: -o %s names the input %s: refusing to overwrite an input", out, argv[i]);
			return EXIT_USAGE;
		}
	}
	kb = cli_load_kb(tables);
	if (!kb)
		return EXIT_DATA;
	memset(&ro, 0, sizeof(ro));
	ro.kb = kb;
	ro.format = input;
	ro.per_cpu = (by & MF_BY_CPU) != 0; /* lshwc: per-CPU rows instead of Total rows */
	if (machine) {
		if (mf_kb_resolve(kb, machine, strlen(machine), &ro.family, &ro.machine) != 0 ||
		    ro.family == mf_kb_generic(kb)) {
			cli_err("report: unknown machine '%s' (see mfstat machines)", machine);
			rc = EXIT_USAGE;
			goto out;
		}
	}
	tab = mf_strtab_new();
	grp = mf_grouper_new(by);
	if (grp)
		mf_grouper_set_max_groups(grp, (size_t)max_groups);
	s = malloc(sizeof(*s));
	dd = mf_dedup_new();
	inputs = calloc((size_t)(argc - optind), sizeof(*inputs));
	if (!tab || !grp || !s || !dd || !inputs) {
		cli_err("out of memory");
		rc = EXIT_DATA;
		goto out;
	}
	ro.strtab = tab;
	for (i = (size_t)optind; i < (size_t)argc; i++) {
		struct mf_reader *r = NULL;
		struct mf_input *in = &inputs[ninputs];
		struct mf_error e;
		size_t k;
		int got;
		mf_error_clear(&e);
		got = mf_reader_open(&r, argv[i], &ro, &e);
		if (got) {
			cli_diag(&e, "error");
			/* A family that the data cannot name (several fit) is for the user to say: usage. */
			rc = cli_exit_for(got);
			goto out;
		}
		for (;;) {
			/* Readers fill e completely when they fail: no clearing per row. */
			got = mf_reader_next(r, s, &e);
			if (got == 0)
				break;
			if (got == 1) {
				got = mf_dedup_check(dd, argv[i], s, &e);
				if (got >= 0) {
					rows++;
					in->samples++;
				}
				if (got == MF_DEDUP_DUPLICATE) {
					in->duplicates++;
					continue;
				}
				if (got == MF_EFORMAT && skip) {
					mf_notes_skip(&notes, e.msg);
					in->skipped++;
					if (shown++ < MAX_SHOWN_SKIPS && !cli_quiet)
						cli_diag(&e, "skipped");
					continue;
				}
				if (got == MF_EFORMAT) {
					cli_diag(&e, "error");
					fprintf(stderr, "mfstat: (use --skip-bad-%s to keep the first copy and count the others)\n",
						strcmp(mf_reader_format(r), "smf") == 0 ? "records" : "rows");
				}
				if (got == MF_EFORMAT || got == MF_ENOMEM) {
					if (got == MF_ENOMEM)
						cli_err("out of memory");
					rc = EXIT_DATA;
					mf_reader_close(r);
					goto out;
				}
				if ((got = mf_grouper_add(grp, s)) == MF_ELIMIT) {
					char at[64] = "";
					if (s->line > 0)
						snprintf(at, sizeof(at), ":%ld", s->line);
					else if (s->offset >= 0)
						snprintf(at, sizeof(at), ": offset 0x%llx", (unsigned long long)s->offset);
					cli_err("%s%s: more than %llu groups (--max-groups): every distinct %s makes a group; "
						"group by fewer keys (for example --by system,pool) or raise --max-groups",
						argv[i], at, max_groups, by_keys_text(by));
					rc = EXIT_DATA;
					mf_reader_close(r);
					goto out;
				}
				if (got) {
					cli_err("out of memory");
					rc = EXIT_DATA;
					mf_reader_close(r);
					goto out;
				}
				continue;
			}
			/* A file with no data at all is not a bad record: --skip-bad-records does not hide it. */
			if (!skip || got == MF_ENOMEM || got == MF_ENODATA) {
				cli_diag(&e, "error");
				if (!skip && got != MF_EIO && got != MF_ENOMEM && got != MF_ENODATA)
					fprintf(stderr, "mfstat: (use --skip-bad-%s to skip bad %s and count them)\n",
						strcmp(mf_reader_format(r), "smf") == 0 ? "records" : "rows",
						strcmp(mf_reader_format(r), "smf") == 0 ? "records" : "rows");
				rc = EXIT_DATA;
				mf_reader_close(r);
				goto out;
			}
			/* With skipping on, even an unreadable rest of a file is counted, not fatal. */
			mf_notes_skip(&notes, got == MF_EIO ? "the rest of the file cannot be read" : e.msg);
			in->skipped++;
			if (shown++ < MAX_SHOWN_SKIPS && !cli_quiet)
				cli_diag(&e, "skipped");
			if (got == MF_EIO)
				break;
		}
		for (k = 0; k < mf_reader_nwarnings(r); k++)
			mf_notes_warn(&notes, "%s", mf_reader_warning(r, k));
		mf_reader_summary(r, &summary);
		got = mf_input_collect(in, argv[i], r);
		ninputs++;
		mf_reader_close(r);
		if (got) {
			cli_err("out of memory");
			rc = EXIT_DATA;
			goto out;
		}
	}
	{
		struct mf_group *const *groups = mf_grouper_groups(grp, tab, &ngroups);
		res = mf_results_new(groups, ngroups);
		if (!res) {
			cli_err("out of memory");
			rc = EXIT_DATA;
			goto out;
		}
		for (i = 0; i < ngroups; i++)
			mf_metrics_compute_opts(kb, groups[i], mem_peak, &res[i]);
	}
	if (notes.skipped > MAX_SHOWN_SKIPS && !cli_quiet)
		cli_warn("%llu more rows skipped (not shown)", (unsigned long long)(notes.skipped - MAX_SHOWN_SKIPS));
	memset(&rep, 0, sizeof(rep));
	rep.kb = kb;
	rep.tab = tab;
	rep.by = by;
	rep.ngroups = ngroups;
	rep.results = res;
	rep.rows_read = rows;
	rep.ninputs = ninputs;
	rep.inputs = inputs;
	rep.duplicates = mf_dedup_duplicates(dd);
	mf_notes_report(&notes, &rep);
	if (verbose) {
		for (i = 0; i < ngroups; i++) {
			const struct mf_family *fam = res[i].group->family;
			size_t j;
			char where[300];
			mf_group_describe(res[i].group, tab, where, sizeof(where));
			for (j = 0; j < fam->nreport; j++) {
				int m = fam->report[j];
				char why[200];
				if (m == MF_REPORT_LSPR) {
					if (res[i].lspr == MF_LSPR_NONE)
						fprintf(stderr, "mfstat: %s: LSPR n/a: %s\n", where,
							res[i].lspr_why == MF_LSPR_ONLY_EXCLUDED
								? "only zIIP, zAAP or zCBP engines, which the LSPR match leaves out"
								: "L1MP or RNI not available");
					continue;
				}
				if (!isnan(res[i].value[m]))
					continue;
				mf_na_explain(fam, &res[i].na[m], why, sizeof(why));
				fprintf(stderr, "mfstat: %s: %s n/a: %s\n", where, fam->metrics[m].name, why);
			}
		}
	}
	for (i = 0; i < notes.nwarnings; i++)
		cli_warn("%s", notes.warnings[i]);
	rep.rows_skipped = notes.skipped;
	rep.nreasons = notes.nreasons;
	rep.reason = (const char *const *)notes.reason;
	rep.reason_count = notes.reason_count;
	rep.nwarnings = notes.nwarnings;
	rep.warnings = (const char *const *)notes.warnings;
	rep.nfiles = (size_t)(argc - optind);
	rep.input_summary = mf_strbuf_str(&summary);
	rep.mem_peak_gbs = mem_peak;
	rc = cli_write_report(out, format, &rep);
out:
	mf_results_free(res, ngroups);
	mf_grouper_free(grp);
	mf_dedup_free(dd);
	mf_strtab_free(tab);
	mf_kb_free(kb);
	free(s);
	for (i = 0; i < ninputs; i++)
		mf_input_free(&inputs[i]);
	free(inputs);
	mf_notes_free(&notes);
	mf_strbuf_free(&summary);
	return rc;
}
