/* SPDX-License-Identifier: MIT */
/* mfstat counters | metrics | machines: explain the knowledge base. */
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "cli_term.h"
#include "mfstat/report/prom_rules.h"

static const char counters_help[] =
	"Usage: mfstat counters [--machine F] [NAME|NUMBER]\n"
	"\n"
	"Lists the counters of a machine family, or explains one counter given by\n"
	"short name (B0, E143), Linux name (L1D_DIR_WRITES) or number.  Without\n"
	"--machine, lists the basic and problem-state counters and explains a\n"
	"counter on every family that defines it.\n"
	"\n"
	"Options:\n"
	"  --machine F   family (z10 ... z17) or machine type (e.g. 3931)\n"
	"  --tables DIR  knowledge-base files that replace the built-in ones\n"
	"  --no-pager    a list to a terminal longer than the screen is not paged\n"
	"                through $PAGER (default less -FRX)\n"
	"  -h, --help    this help\n"
	"  --version     the version and the knowledge base's revision\n"
	"\n"
	"Examples:\n"
	"  mfstat counters --machine z16          # every counter of a z16\n"
	"  mfstat counters L1D_DIR_WRITES         # one counter on every family\n"
	"  mfstat counters --machine 3931 E143    # by short name on a machine type\n";

static const char metrics_help[] =
	"Usage: mfstat metrics [--machine F] [NAME]\n"
	"       mfstat metrics --events LIST --machine F\n"
	"       mfstat metrics --prometheus-rules [--machine F] [--window DURATION]\n"
	"\n"
	"Lists the metrics of a machine family, or shows one metric with its unit,\n"
	"description, formula (short and Linux counter names) and the date of the\n"
	"IBM formula revision it follows.  Without --machine, lists every metric\n"
	"with the families that define it, and shows a metric on each of them.\n"
	"\n"
	"Options:\n"
	"  --machine F   family (z10 ... z17) or machine type (e.g. 3931)\n"
	"  --events LIST with --machine: the counters these metrics need (LSPR: L1MP\n"
	"                and RNI), with the perf stat -e and lshwc command lines that\n"
	"                collect exactly them on Linux on Z\n"
	"  --prometheus-rules  a Prometheus recording rules file (YAML) computing every\n"
	"                metric and the LSPR class from the counters mfstat serve and\n"
	"                stat -f prom export, per CPU and per instance; with --machine\n"
	"                one family, else every IBM Z family (by mfstat_machine_info)\n"
	"  --window DURATION  with --prometheus-rules: the range of rate() (default 5m)\n"
	"  --tables DIR  knowledge-base files that replace the built-in ones\n"
	"  --no-pager    a list to a terminal longer than the screen is not paged\n"
	"                through $PAGER (default less -FRX)\n"
	"  -h, --help    this help\n"
	"  --version     the version and the knowledge base's revision\n"
	"\n"
	"Examples:\n"
	"  mfstat metrics --machine z16           # the metrics of a z16, with units\n"
	"  mfstat metrics RNI                     # RNI's formula on every family\n"
	"  mfstat metrics --events RNI,L1MP --machine z16   # what to collect on Linux\n"
	"  mfstat metrics --prometheus-rules --machine z16 > mfstat-rules.yml\n";

static const char machines_help[] =
	"Usage: mfstat machines [FAMILY|TYPE]\n"
	"\n"
	"Lists the machine families with their type numbers, counter version\n"
	"numbers and nominal speed, or shows one family with its counter set sizes\n"
	"and, where IBM's formula deck gives it, its cache topology.\n"
	"\n"
	"Options:\n"
	"  --tables DIR  knowledge-base files that replace the built-in ones\n"
	"  --no-pager    a list to a terminal longer than the screen is not paged\n"
	"                through $PAGER (default less -FRX)\n"
	"  -h, --help    this help\n"
	"  --version     the version and the knowledge base's revision\n"
	"\n"
	"Examples:\n"
	"  mfstat machines                        # every family and machine type\n"
	"  mfstat machines z16                    # one family: set sizes, caches\n"
	"  mfstat machines 3931                   # by machine type\n";

/* --no-pager (every command here), and the page of the text written (cli_term.h). */
static bool no_pager;
static struct cli_page page;

/* Common option parsing: --machine, --tables, --no-pager, -h.  Returns -1 to continue, else an exit status. */
static int parse(int argc, char **argv, const char *help, bool machine_ok, const char **machine, const char **tables,
		 const char **arg, const char **events, bool *rules, const char **window)
{
	static const struct option opts[] = {{"machine", required_argument, NULL, 'm'},
					     {"events", required_argument, NULL, 'E'},
					     {"prometheus-rules", no_argument, NULL, 'P'},
					     {"window", required_argument, NULL, 'W'},
					     {"tables", required_argument, NULL, 'T'},
					     {"no-pager", no_argument, NULL, 'N'},
					     {"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {NULL, 0, NULL, 0}};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (!machine_ok) {
				return cli_usage(argv[0], "%s: option --machine does not apply here", argv[0]);
			}
			*machine = optarg;
			break;
		case 'T': *tables = optarg; break;
		case 'N': no_pager = true; break;
		case 'E':
			if (!events)
				return cli_usage(argv[0],
						 "%s: option --events does not apply here (it is mfstat metrics')",
						 argv[0]);
			*events = optarg;
			break;
		case 'P':
		case 'W':
			if (!rules)
				return cli_usage(argv[0], "%s: option --%s does not apply here (it is mfstat metrics')",
						 argv[0], c == 'P' ? "prometheus-rules" : "window");
			if (c == 'P')
				*rules = true;
			else
				*window = optarg;
			break;
		case 'h': fputs(help, stdout); return EXIT_OK;
		case 'V': return cli_version();
		default: return cli_bad_option(argv[0], c, argv, opts);
		}
	}
	if (argc - optind > 1) {
		return cli_usage(argv[0], "%s: at most one name expected", argv[0]);
	}
	*arg = optind < argc ? argv[optind] : NULL;
	return -1;
}

static int resolve(const char *cmd, const struct mf_kb *kb, const char *machine, const struct mf_family **fam)
{
	const struct mf_machine *m;
	*fam = NULL;
	if (!machine)
		return 0;
	if (mf_kb_resolve(kb, machine, strlen(machine), fam, &m) != 0) {
		return cli_usage(cmd, "%s: unknown machine '%s' (see mfstat machines)", cmd, machine);
	}
	return 0;
}

static const struct mf_counter *find_counter(const struct mf_family *fam, const char *name)
{
	char *end;
	long n = strtol(name, &end, 10);
	if (*name && isdigit((unsigned char)*name) && !*end)
		return n >= 0 && n < MF_MAX_COUNTER ? mf_family_counter_num(fam, (unsigned)n) : NULL;
	return mf_family_counter(fam, name, strlen(name));
}

static void list_counters(const struct mf_family *fam)
{
	size_t i, wl = 5, ws = 5; /* columns as wide as their longest name (linux_perf: page_faults) */
	for (i = 0; i < fam->ncounters; i++) {
		if (strlen(fam->counters[i].linux_name) > wl)
			wl = strlen(fam->counters[i].linux_name);
		if (strlen(fam->counters[i].short_name) > ws)
			ws = strlen(fam->counters[i].short_name);
	}
	printf("%s: %zu counters\n\n", fam->display, fam->ncounters);
	printf("%6s  %-*s  %-*s  %-8s  %s\n", "number", (int)ws, "short", (int)wl, "linux", "set", "description");
	for (i = 0; i < fam->ncounters; i++) {
		const struct mf_counter *c = &fam->counters[i];
		printf("%6u  %-*s  %-*s  %-8s  %s\n", c->number, (int)ws, c->short_name, (int)wl, c->linux_name,
		       mf_set_name(c->set), c->desc);
	}
}

/* The metrics of fam whose formula names counter c directly. */
static void print_users(const struct mf_family *fam, const struct mf_counter *c)
{
	size_t i, k, n = 0;
	int slot = fam->dense[c->number];
	for (i = 0; i < fam->nmetrics; i++) {
		size_t nr = mf_expr_nrefs(fam->metrics[i].expr);
		for (k = 0; k < nr; k++) {
			int kind, index;
			mf_expr_ref(fam->metrics[i].expr, k, &kind, &index);
			if (kind == MF_REF_COUNTER && index == slot) {
				printf("%s%s", n++ ? ", " : "    used by: ", fam->metrics[i].name);
				break;
			}
		}
	}
	if (n)
		putchar('\n');
}

static void show_counter(const struct mf_family *fam, const struct mf_counter *c)
{
	printf("%s  %s  (%s, %s set, counter %u)\n    %s\n", c->short_name, c->linux_name, fam->display,
	       mf_set_name(c->set), c->number, c->desc);
	print_users(fam, c);
}

int cmd_counters(int argc, char **argv)
{
	const char *machine = NULL, *tables = NULL, *arg = NULL;
	const struct mf_family *fam;
	struct mf_kb *kb;
	int rc = parse(argc, argv, counters_help, true, &machine, &tables, &arg, NULL, NULL, NULL);
	if (rc >= 0)
		return rc;
	kb = cli_load_kb(tables);
	if (!kb)
		return EXIT_DATA;
	cli_page_begin(&page, no_pager); /* to a terminal: paged when longer than the screen */
	rc = resolve(argv[0], kb, machine, &fam);
	if (rc)
		goto out;
	if (!arg) {
		if (!fam) {
			list_counters(mf_kb_generic(kb));
			printf("\nThese mean the same on every family; give --machine F for a family's full list.\n");
		} else {
			list_counters(fam);
		}
	} else if (fam) {
		const struct mf_counter *c = find_counter(fam, arg);
		if (!c) {
			cli_err("counter '%s' is not defined on %s", arg, fam->display);
			rc = EXIT_DATA;
			goto out;
		}
		show_counter(fam, c);
	} else {
		size_t i, n = 0;
		for (i = 0; i < kb->nfamilies; i++) {
			const struct mf_counter *c;
			if (&kb->families[i] == mf_kb_generic(kb))
				continue;
			c = find_counter(&kb->families[i], arg);
			if (c) {
				if (n++)
					putchar('\n');
				show_counter(&kb->families[i], c);
			}
		}
		if (!n) {
			cli_err("counter '%s' is not defined on any family", arg);
			rc = EXIT_DATA;
		}
	}
out:
	cli_page_end_to(&page, argv[0], NULL, "> FILE");
	mf_kb_free(kb);
	return rc;
}

static const char *linux_name_of(void *ctx, const char *name, size_t len)
{
	const struct mf_family *fam = ctx;
	const struct mf_counter *c = mf_family_counter(fam, name, len);
	return c ? c->linux_name : NULL;
}

static const char *short_name_of(void *ctx, const char *name, size_t len)
{
	const struct mf_family *fam = ctx;
	const struct mf_counter *c = mf_family_counter(fam, name, len);
	return c ? c->short_name : NULL;
}

static void show_metric(const struct mf_family *fam, const struct mf_metric *m)
{
	struct mf_strbuf a, b;
	mf_strbuf_init(&a);
	mf_strbuf_init(&b);
	mf_expr_rewrite(m->formula, short_name_of, (void *)fam, &a);
	mf_expr_rewrite(m->formula, linux_name_of, (void *)fam, &b);
	printf("%s  (%s)\n", m->name, fam->display);
	printf("    %s\n", m->desc);
	printf("    unit:      %s\n", m->unit);
	printf("    formula:   %s\n", mf_strbuf_str(&a));
	printf("    linux:     %s\n", mf_strbuf_str(&b));
	printf("    revision:  %s%s\n", m->revision, fam->named ? "" : " (IBM CPU MF formulas)");
	if (m->flags & MF_METRIC_AUX)
		printf("    note:      a helper used by other metrics; a report column only when --metrics names it\n");
	if (m->flags & MF_METRIC_NONNEG)
		printf("    note:      a negative value means inconsistent data and is reported as a warning\n");
	mf_strbuf_free(&a);
	mf_strbuf_free(&b);
}

static void show_lspr(const struct mf_kb *kb)
{
	size_t i;
	printf("LSPR  workload class from L1MP and RNI (IBM CPU MF formulas, 2024-12)\n");
	printf("    computed from the engines that are not zIIP, zAAP or zCBP; n/a when a group has none\n");
	printf("    %-12s  %-12s  %s\n", "L1MP", "RNI", "class");
	for (i = 0; i < kb->nlspr; i++) {
		const struct mf_lspr_rule *r = &kb->lspr[i];
		char b[2][64];
		int k;
		for (k = 0; k < 2; k++) {
			char lo[24], hi[24];
			if (r->lo[k] == -INFINITY)
				snprintf(lo, sizeof(lo), "-inf");
			else
				snprintf(lo, sizeof(lo), "%g", r->lo[k]);
			if (r->hi[k] == INFINITY)
				snprintf(hi, sizeof(hi), "inf");
			else
				snprintf(hi, sizeof(hi), "%g", r->hi[k]);
			snprintf(b[k], sizeof(b[k]), "%c%s,%s%c", r->lo_incl[k] ? '[' : '(', lo, hi,
				 r->hi_incl[k] ? ']' : ')');
		}
		printf("    %-12s  %-12s  %s\n", b[0], b[1], mf_lspr_name(r->cls));
	}
}

static void list_metrics(const struct mf_family *fam)
{
	size_t i, wn = 4, wu = 4;
	for (i = 0; i < fam->nmetrics; i++) {
		if (strlen(fam->metrics[i].name) > wn)
			wn = strlen(fam->metrics[i].name);
		if (strlen(fam->metrics[i].unit) > wu)
			wu = strlen(fam->metrics[i].unit);
	}
	printf("%s: %zu metrics%s\n\n", fam->display, fam->nmetrics, fam->lspr ? " and the LSPR class" : "");
	printf("%-*s  %-*s  %-10s  %s\n", (int)wn, "name", (int)wu, "unit", "revision", "description");
	for (i = 0; i < fam->nmetrics; i++) {
		const struct mf_metric *m = &fam->metrics[i];
		printf("%-*s  %-*s  %-10s  %s%s\n", (int)wn, m->name, (int)wu, m->unit, m->revision, m->desc,
		       (m->flags & MF_METRIC_AUX) ? " (helper)" : "");
	}
	if (fam->lspr)
		printf("%-*s  %-*s  %-10s  %s\n", (int)wn, "LSPR", (int)wu, "class", "2024-12",
		       "LSPR workload class (LOW, AVERAGE, HIGH) from L1MP and RNI");
}

/* Marks the counters and variables metric m of fam needs, through the metrics it names. */
static void needs(const struct mf_family *fam, size_t m, bool *ctr, bool *var, bool *seen)
{
	size_t k, nr;
	if (seen[m])
		return;
	seen[m] = true;
	nr = mf_expr_nrefs(fam->metrics[m].expr);
	for (k = 0; k < nr; k++) {
		int kind, index;
		mf_expr_ref(fam->metrics[m].expr, k, &kind, &index);
		if (kind == MF_REF_COUNTER && index >= 0 && (size_t)index < fam->ncounters)
			ctr[index] = true;
		else if (kind == MF_REF_VAR && index >= 0 && index < MF_NVARS)
			var[index] = true;
		else if (kind == MF_REF_METRIC && index >= 0 && (size_t)index < fam->nmetrics)
			needs(fam, (size_t)index, ctr, var, seen);
	}
}

static void machine_types(const struct mf_kb *kb, const struct mf_family *fam, char *buf, size_t n)
{
	size_t i, used = 0;
	buf[0] = '\0';
	for (i = 0; i < kb->nmachines; i++) {
		if (kb->machines[i].family != fam)
			continue;
		int k = snprintf(buf + used, n - used, "%s%u", used ? "," : "", kb->machines[i].type);
		if (k > 0 && (size_t)k < n - used)
			used += (size_t)k;
	}
}

/*
 * metrics --events LIST --machine F: the counters the metrics need, and the perf stat and lshwc
 * command lines that collect exactly them.
 */
static int show_events(const struct mf_kb *kb, const struct mf_family *fam, const char *list)
{
	bool ctr[MF_MAX_COUNTER] = {false}, var[MF_NVARS] = {false}, seen[MF_MAX_METRICS] = {false};
	char names[512] = "", *tok, *save = NULL, *copy = strdup(list);
	unsigned sets = 0;
	size_t i, n = 0, used = 0, ws = 5, wl = 28; /* "linux (cpum_cf)" over names up to 28 */
	static const char *const set_letter[MF_NSETS] = {"b", "p", "c", "e", "m"};
	if (!copy) {
		cli_nomem("reading the event list");
		return EXIT_DATA;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int m = mf_family_metric(fam, tok);
		if (strcasecmp(tok, "LSPR") == 0) {
			/* The class is read off L1MP and RNI. */
			int a = mf_family_metric(fam, "L1MP"), b = mf_family_metric(fam, "RNI");
			if (a >= 0)
				needs(fam, (size_t)a, ctr, var, seen);
			if (b >= 0)
				needs(fam, (size_t)b, ctr, var, seen);
			if (a >= 0 || b >= 0) {
				used += (size_t)snprintf(names + used, used < sizeof(names) ? sizeof(names) - used : 0,
							 "%sLSPR", used ? ", " : "");
				continue;
			}
		}
		if (m < 0) {
			char near[300];
			int rc;
			cli_metric_hint(kb, fam, tok, true, near, sizeof(near));
			rc = cli_usage("metrics",
				       "metrics: --events: '%s' is not defined on %s%s (see mfstat metrics --machine "
				       "%s)",
				       tok, fam->display, near, fam->key);
			free(copy);
			return rc;
		}
		needs(fam, (size_t)m, ctr, var, seen);
		used += (size_t)snprintf(names + used, used < sizeof(names) ? sizeof(names) - used : 0, "%s%s",
					 used ? ", " : "", fam->metrics[m].name);
	}
	free(copy);
	for (i = 0; i < fam->ncounters; i++)
		if (ctr[i]) {
			n++;
			if (fam->counters[i].set >= 0 && fam->counters[i].set < MF_NSETS)
				sets |= 1u << fam->counters[i].set;
		}
	printf("%s on %s: %zu counter%s\n\n", names, fam->display, n, n == 1 ? "" : "s");
	for (i = 0; i < fam->ncounters; i++)
		if (ctr[i]) {
			if (strlen(fam->counters[i].short_name) > ws)
				ws = strlen(fam->counters[i].short_name);
			if (strlen(fam->counters[i].linux_name) > wl)
				wl = strlen(fam->counters[i].linux_name);
		}
	printf("%6s  %-*s  %-*s  %s\n", "number", (int)ws, "short", (int)wl, fam->named ? "linux" : "linux (cpum_cf)",
	       "set");
	for (i = 0; i < fam->ncounters; i++)
		if (ctr[i])
			printf("%6u  %-*s  %-*s  %s\n", fam->counters[i].number, (int)ws, fam->counters[i].short_name,
			       (int)wl, fam->counters[i].linux_name, mf_set_name(fam->counters[i].set));
	if (var[MF_VAR_CPSP]) {
		/* Neither perf stat nor lshwc writes it: say how report gets it. */
		char types[64];
		machine_types(kb, fam, types, sizeof(types));
		printf("\nalso the CPU speed (CPSP), which neither perf stat nor lshwc writes: give mfstat report "
		       "--cpu-mhz N (cpu_speed= in /proc/service_levels), or --machine TYPE for the type's nominal "
		       "speed (%s types %s: Type: in /proc/sysinfo)\n",
		       fam->display, types);
	}
	if (var[MF_VAR_RMF_BUSY])
		printf("\nalso RMF's dispatch time (SMF type 70 records): z/OS only\n");
	if (!n) {
		printf("\nno counters to collect on Linux for these metrics\n");
		return EXIT_OK;
	}
	if (fam->named) {
		/* Not CPU-MF counters: no cpum_cf event or lshwc counter has these names. */
		printf("\n%s's counters are not CPU-MF counters: perf's cpum_cf and lshwc do not count them; mfstat "
		       "report reads them as columns of the counter CSV, named as above%s\n",
		       fam->display,
		       strcmp(fam->key, "linux_perf") == 0 ? ", and mfstat stat --fallback counts them" : "");
		return EXIT_OK;
	}
	printf("\nperf stat -a -I 60000 -x, -o perf.txt -e ");
	for (i = 0, used = 0; i < fam->ncounters; i++)
		if (ctr[i])
			printf("%scpum_cf/%s/", used++ ? "," : "", fam->counters[i].linux_name);
	printf(" -- sleep 900\nlshwc -d -i 60 --counters ");
	for (i = 0, used = 0; i < fam->ncounters; i++)
		if (ctr[i])
			printf("%s%s", used++ ? "," : "", fam->counters[i].linux_name);
	printf("\nlshwc -d -i 60 :");
	for (i = 0; i < MF_NSETS; i++)
		if (sets & (1u << i))
			fputs(set_letter[i], stdout);
	printf("   (whole counter sets)\n");
	/* -o: only in a file does perf write the '# started on' line that dates the run. */
	printf("\nperf stat -o writes the '# started on' line that dates the intervals, in the local time of the "
	       "machine that ran perf: mfstat report --perf-tz ZONE reads it on a machine in another zone\n");
	return EXIT_OK;
}

/* metrics --prometheus-rules [--machine F] [--window W]: the recording rules on stdout. */
static int prometheus_rules(const struct mf_kb *kb, const struct mf_family *fam, const char *window)
{
	struct mf_strbuf out, cmdline;
	struct mf_error err = {0};
	int rc;
	if (fam && (fam->csvn == 0 || fam->named))
		return cli_usage("metrics",
				 "metrics: --prometheus-rules: %s is not an IBM Z family (the rules read CPU-MF "
				 "counters; see mfstat machines)",
				 fam->display);
	mf_strbuf_init(&out);
	mf_strbuf_init(&cmdline);
	mf_strbuf_puts(&cmdline, "mfstat metrics --prometheus-rules");
	if (fam)
		mf_strbuf_printf(&cmdline, " --machine %s", fam->key);
	mf_strbuf_printf(&cmdline, " --window %s", window);
	rc = mf_prom_rules(kb, fam, window, mf_strbuf_str(&cmdline), &out, &err);
	if (rc == MF_ENOMEM) {
		cli_nomem("writing the rules");
		rc = EXIT_DATA;
	} else if (rc) {
		rc = cli_usage("metrics", "metrics: --prometheus-rules: %s", err.msg);
	} else {
		fputs(mf_strbuf_str(&out), stdout);
		rc = fflush(stdout) == 0 && !ferror(stdout) ? EXIT_OK : EXIT_DATA;
		if (rc)
			cli_err("metrics: writing the rules to standard output failed");
	}
	mf_strbuf_free(&out);
	mf_strbuf_free(&cmdline);
	return rc;
}

int cmd_metrics(int argc, char **argv)
{
	const char *machine = NULL, *tables = NULL, *arg = NULL, *events = NULL, *window = NULL;
	const struct mf_family *fam;
	struct mf_kb *kb;
	size_t i, k;
	bool rules = false;
	int rc = parse(argc, argv, metrics_help, true, &machine, &tables, &arg, &events, &rules, &window);
	if (rc >= 0)
		return rc;
	if (window && !rules)
		return cli_usage("metrics", "metrics: --window goes with --prometheus-rules");
	if (rules && (events || arg))
		return cli_usage("metrics", "metrics: --prometheus-rules takes no %s (it writes every metric)",
				 events ? "--events" : "NAME");
	if (rules && window && !mf_prom_duration_ok(window))
		return cli_usage("metrics",
				 "metrics: --window: '%s' is not a Prometheus duration greater than 0 (such as 5m, "
				 "90s or 1h30m)",
				 window);
	kb = cli_load_kb(tables);
	if (!kb)
		return EXIT_DATA;
	cli_page_begin(&page, no_pager); /* to a terminal: paged when longer than the screen */
	rc = resolve(argv[0], kb, machine, &fam);
	if (rc)
		goto out;
	if (rules) {
		rc = prometheus_rules(kb, fam, window ? window : "5m");
	} else if (events) {
		if (!fam)
			rc = cli_usage("metrics",
				       "metrics: --events needs --machine F (the counters differ per family)");
		else if (arg)
			rc = cli_usage("metrics", "metrics: --events takes the metrics itself, not a NAME too");
		else
			rc = show_events(kb, fam, events);
	} else if (!arg && fam) {
		list_metrics(fam);
	} else if (!arg) {
		printf("%-22s  %s\n", "metric", "families");
		for (k = 0; k < kb->nkeys; k++) {
			size_t n = 0;
			printf("%-22s  ", kb->keys[k]);
			for (i = 0; i < kb->nfamilies; i++)
				if (mf_report_key_index(&kb->families[i], kb->keys[k]) != -1)
					printf("%s%s", n++ ? " " : "", kb->families[i].display);
			putchar('\n');
		}
		printf("\nGive --machine F for a family's metrics with units, or a NAME for its formula.\n");
	} else if (strcasecmp(arg, "LSPR") == 0) {
		show_lspr(kb);
	} else {
		size_t n = 0;
		for (i = 0; i < kb->nfamilies; i++) {
			int idx;
			if (fam ? &kb->families[i] != fam : &kb->families[i] == mf_kb_generic(kb))
				continue;
			idx = mf_family_metric(&kb->families[i], arg);
			if (idx >= 0) {
				if (n++)
					putchar('\n');
				show_metric(&kb->families[i], &kb->families[i].metrics[idx]);
			}
		}
		if (!n) {
			char near[300];
			cli_metric_hint(kb, fam, arg, true, near, sizeof(near));
			if (fam)
				cli_err("metric '%s' is not defined on %s%s (see mfstat metrics --machine %s)", arg,
					fam->display, near, fam->key);
			else
				cli_err("unknown metric '%s'%s (see mfstat metrics)", arg, near);
			rc = EXIT_DATA;
		}
	}
out:
	cli_page_end_to(&page, argv[0], NULL, "> FILE");
	mf_kb_free(kb);
	return rc;
}

int cmd_machines(int argc, char **argv)
{
	const char *machine = NULL, *tables = NULL, *arg = NULL;
	struct mf_kb *kb;
	size_t i;
	int rc = parse(argc, argv, machines_help, false, &machine, &tables, &arg, NULL, NULL, NULL);
	if (rc >= 0)
		return rc;
	rc = EXIT_OK;
	kb = cli_load_kb(tables);
	if (!kb)
		return EXIT_DATA;
	cli_page_begin(&page, no_pager); /* to a terminal: paged when longer than the screen */
	if (!arg) {
		printf("%-8s  %-10s  %-4s  %-4s  %s\n", "family", "types", "csvn", "cfvn", "models (nominal MHz)");
		for (i = 0; i < kb->nfamilies; i++) {
			const struct mf_family *fam = &kb->families[i];
			char types[64], models[160], cfvn[16] = "-";
			size_t k, used = 0, cu = 0;
			if (fam == mf_kb_generic(kb))
				continue;
			machine_types(kb, fam, types, sizeof(types));
			models[0] = '\0';
			for (k = 0; k < kb->nmachines; k++) {
				if (kb->machines[k].family != fam)
					continue;
				int n = snprintf(models + used, sizeof(models) - used, "%s%s %g", used ? ", " : "",
						 kb->machines[k].model, kb->machines[k].nominal_mhz);
				if (n > 0 && (size_t)n < sizeof(models) - used)
					used += (size_t)n;
			}
			for (k = 0; k < 32; k++)
				if (fam->cfvn_mask & (1u << k)) {
					int n = snprintf(cfvn + cu, sizeof(cfvn) - cu, "%s%zu", cu ? "," : "", k);
					if (n > 0 && (size_t)n < sizeof(cfvn) - cu)
						cu += (size_t)n;
				}
			if (fam->csvn)
				printf("%-8s  %-10s  %-4d  %-4s  %s\n", fam->display, types, fam->csvn, cfvn, models);
			else /* a family of named counters: no IBM machine types or versions */
				printf("%-8s  %-10s  %-4s  %-4s  %s\n", fam->display, "-", "-", "-", fam->description);
		}
	} else {
		const struct mf_family *fam;
		const struct mf_machine *m;
		char types[64];
		size_t k;
		if (mf_kb_resolve(kb, arg, strlen(arg), &fam, &m) != 0) {
			/* A name the user typed: a usage error, as --machine is everywhere. */
			rc = cli_usage("machines", "machines: unknown machine '%s' (see mfstat machines)", arg);
			goto out;
		}
		machine_types(kb, fam, types, sizeof(types));
		printf("%s: %s\n", fam->display, fam->description);
		if (fam == mf_kb_generic(kb)) {
			printf("    (used for data that names no machine; not a --machine value)\n");
		}
		for (k = 0; k < kb->nmachines; k++)
			if (kb->machines[k].family == fam)
				printf("    type %u  %s, nominal %g MHz\n", kb->machines[k].type, kb->machines[k].model,
				       kb->machines[k].nominal_mhz);
		if (fam->csvn)
			printf("    counter versions: CSVN (CTRVN2) %d, CFVN (CTRVN1) %s\n", fam->csvn,
			       fam->cfvn_mask == 2   ? "1"
			       : fam->cfvn_mask == 8 ? "3"
						     : "1 or 3");
		printf("    counter set sizes: basic %d, problem-state %s, crypto %d, extended %d, MT-diagnostic %d\n",
		       fam->set_size[MF_SET_BASIC],
		       fam->cfvn_mask == 8   ? "2"
		       : fam->cfvn_mask == 2 ? "6"
					     : "6 (CFVN 1) or 2 (CFVN 3)",
		       fam->set_size[MF_SET_CRYPTO], fam->set_size[MF_SET_EXTENDED], fam->set_size[MF_SET_MTDIAG]);
		printf("    %zu counters defined, %zu metrics%s\n", fam->ncounters, fam->nmetrics,
		       fam->lspr ? ", LSPR class (zIIP and zAAP engines left out)" : "");
		if (fam->ntopology) {
			printf("    cache and topology (IBM CPU MF formula deck):\n");
			for (k = 0; k < fam->ntopology; k++)
				printf("      %-9s %s\n", fam->topology[k].item, fam->topology[k].value);
		}
	}
out:
	cli_page_end_to(&page, argv[0], NULL, "> FILE");
	mf_kb_free(kb);
	return rc;
}
