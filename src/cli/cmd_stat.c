/* SPDX-License-Identifier: MIT */
/* mfstat stat: count CPU-MF events while a command runs (or system-wide) and report the metrics. */
#include <getopt.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"

static const char stat_help[] =
	"Usage: mfstat stat [OPTIONS] -- COMMAND [ARGS]\n"
	"       mfstat stat -a --duration SECONDS [OPTIONS]\n"
	"\n"
	"On Linux on IBM Z, counts every authorized CPU-MF counter (cpum_cf PMU)\n"
	"while COMMAND runs, following its threads and children, or system-wide\n"
	"for SECONDS, and reports every metric of the machine family.  Without\n"
	"CPU-MF counters it says why and exits 3 without running COMMAND.\n"
	"\n"
	"Options:\n"
	"  -a, --all-cpus     count system-wide (needs --duration)\n"
	"  -C, --cpu LIST     count system-wide on these CPUs only (e.g. 0-3,8)\n"
	"  -I, --interval MS  report every MS milliseconds, one group per interval\n"
	"  --duration S       seconds to count system-wide\n"
	"  --machine F        family or machine type, when /proc/sysinfo does not say\n"
	"  --fallback         without CPU-MF counters, run COMMAND anyway and report\n"
	"                     what this machine can count (hardware or software events;\n"
	"                     with -a on Intel also DRAM traffic from the memory\n"
	"                     controllers, the intel_uncore metrics)\n"
	"  --mem-peak GB/s    peak memory bandwidth, for DRAM_UTIL\n"
	"  -f, --format FMT   text (default), csv or json\n"
	"  -o, --output FILE  write the report to FILE; with -f csv, FILE gets the raw\n"
	"                     counters in the canonical counter CSV, which\n"
	"                     'mfstat report FILE' turns into the same metrics\n"
	"  --tables DIR       knowledge-base files that replace the built-in ones\n"
	"  -q, --quiet        no warnings on standard error\n"
	"  -h, --help         this help\n"
	"\n"
	"Environment: MFSTAT_SYSROOT=DIR reads sysfs/procfs below DIR and replays the\n"
	"counts in DIR/counts.tsv instead of counting (for tests and recorded systems).\n";

/* The canonical counter CSV of one sample: identity, then counters by short name. */
static int write_counters_csv(FILE *fp, const struct mf_sample *s)
{
	size_t i;
	fprintf(fp, "machine,cpsp,interval_seconds");
	for (i = 0; i < s->n; i++)
		fprintf(fp, ",%s", s->family->counters[s->slot[i]].short_name);
	fputc('\n', fp);
	if (s->machine)
		fprintf(fp, "%u", s->machine->type);
	else
		fputs(s->family->key, fp);
	fputc(',', fp);
	if (!isnan(s->cpsp))
		fprintf(fp, "%.15g", s->cpsp);
	fprintf(fp, ",%.9f", s->seconds);
	for (i = 0; i < s->n; i++)
		fprintf(fp, ",%" PRIu64, s->value[i]);
	fputc('\n', fp);
	return ferror(fp) ? -1 : 0;
}

static void report_status(int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status))
		cli_warn("the command exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		cli_warn("the command was killed by signal %d", WTERMSIG(status));
}

static void json_metric(const char *name, double v, bool comma)
{
	printf("%s\"%s\":", comma ? "," : "", name);
	if (isnan(v))
		fputs("null", stdout);
	else
		printf("%.15g", v);
}

/* Without CPU-MF: the generic events this machine may have, and the metrics they allow. */
/* System-wide fallback on Intel: DRAM traffic from the memory controllers' CAS counts (intel_uncore). */
static void uncore_report(const struct mf_kb *kb, size_t nimc, const struct mf_count *c, double wall,
			  double mem_peak, bool json)
{
	const struct mf_family *fam = mf_kb_family(kb, "intel_uncore");
	struct mf_sample *s = malloc(sizeof(*s));
	struct mf_grouper *g = mf_grouper_new(0);
	struct mf_group *const *groups;
	struct mf_result *res;
	uint64_t rd = 0, wr = 0;
	size_t i, ng;
	bool ok = true;
	static const char *const show[] = {"DRAM_GBS", "DRAM_UTIL", "DRAM_READ_PCT"};

	if (!fam || !s || !g) {
		free(s);
		mf_grouper_free(g);
		return;
	}
	for (i = 0; i < nimc; i++) {
		ok = ok && c[2 * i].ok && c[2 * i + 1].ok;
		rd += c[2 * i].value;
		wr += c[2 * i + 1].value;
	}
	mf_sample_reset(s);
	s->family = fam;
	s->seconds = wall;
	if (ok) {
		s->slot[0] = (uint16_t)fam->dense[mf_family_counter(fam, "cas_count_read", 14)->number];
		s->value[0] = rd;
		s->slot[1] = (uint16_t)fam->dense[mf_family_counter(fam, "cas_count_write", 15)->number];
		s->value[1] = wr;
		s->n = 2;
	}
	mf_grouper_add(g, s);
	groups = mf_grouper_groups(g, NULL, &ng);
	res = mf_results_new(groups, ng);
	if (res && ng == 1) {
		mf_metrics_compute_opts(kb, groups[0], mem_peak, &res[0]);
		if (json) {
			printf(",\"intel_uncore\":{\"imcs\":%zu", nimc);
			for (i = 0; i < 3; i++)
				json_metric(show[i], res[0].value[mf_family_metric(fam, show[i])], true);
			printf("}");
		} else {
			printf("\nmemory (intel_uncore, %zu memory controllers, system-wide)\n", nimc);
			for (i = 0; i < 3; i++) {
				double v = res[0].value[mf_family_metric(fam, show[i])];
				if (isnan(v))
					printf("%-28s  %12s  %s\n", show[i], "n/a",
					       !ok ? "CAS counts not countable" : i == 1 ? "give --mem-peak GB/s" : "");
				else
					printf("%-28s  %12.3f\n", show[i], v);
			}
		}
	}
	mf_results_free(res, ng);
	mf_grouper_free(g);
	free(s);
}

static int fallback(struct mf_sysif *sys, const struct mf_kb *kb, char *const argv[], double duration, const int *cpus,
		    size_t ncpus, double mem_peak, const char *format, const char *why)
{
	static const struct mf_perf_req req[] = {
		{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles", false, 0},
		{PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions", false, 0},
		{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "cache-references", false, 0},
		{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache-misses", false, 0},
		{PERF_TYPE_HW_CACHE,
		 PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16),
		 "dTLB-load-misses", false, 0},
		{PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock", false, 0},
		{PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches", false, 0},
		{PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations", false, 0},
		{PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults", false, 0},
	};
	enum { N = sizeof(req) / sizeof(req[0]), MAXIMC = 16 };
	struct mf_perf_req all[N + 2 * MAXIMC];
	struct mf_count c[N + 2 * MAXIMC];
	struct mf_uncore_imc imc[MAXIMC];
	size_t nimc = 0, ntot = N;
	struct mf_error e;
	int status = 0;
	double wall;
	size_t i;
	double cpi = NAN, l1 = NAN, util = NAN;
	const char *cpi_why = "cycles and instructions not countable here";
	const char *miss_why = "cache-misses and instructions not countable here";

	memset(c, 0, sizeof(c));
	memcpy(all, req, sizeof(req));
	/* System-wide on Intel: the memory controllers too (uncore PMUs count only system-wide). */
	if (!argv) {
		nimc = mf_uncore_probe(sys, imc, MAXIMC);
		if (nimc > MAXIMC)
			nimc = MAXIMC;
		for (i = 0; i < nimc; i++) {
			struct mf_perf_req r2 = {imc[i].type, imc[i].cas_read, "cas_count_read", true, imc[i].cpu};
			struct mf_perf_req w2 = {imc[i].type, imc[i].cas_write, "cas_count_write", true, imc[i].cpu};
			all[ntot++] = r2;
			all[ntot++] = w2;
		}
	}
	mf_error_clear(&e);
	if (mf_perf_run(sys, all, ntot, argv, duration, cpus, ncpus, NULL, c, &status, &wall, &e)) {
		cli_diag(&e, "error");
		return e.code == MF_EUSAGE ? EXIT_MEASURE : EXIT_USAGE;
	}
	if (c[0].ok && c[1].ok && c[1].value) {
		cpi = (double)c[0].value / (double)c[1].value;
		cpi_why = NULL;
	}
	if (c[3].ok && c[1].ok && c[1].value) {
		l1 = (double)c[3].value / (double)c[1].value * 100;
		miss_why = NULL;
	}
	if (c[5].ok && wall > 0)
		util = (double)c[5].value / 1e9 / wall;
	if (strcmp(format, "json") == 0) {
		printf("{\"schema\":1,\"fallback\":true,\"reason\":\"%s\",\"seconds\":%.9f,\"events\":{", why, wall);
		for (i = 0; i < N; i++) {
			printf("%s\"%s\":", i ? "," : "", c[i].name);
			if (c[i].ok)
				printf("%" PRIu64, c[i].value);
			else
				fputs("null", stdout);
		}
		printf("},\"metrics\":{");
		json_metric("CPI", cpi, false);
		json_metric("CACHE_MISSES_PER_100_INSTR", l1, true);
		json_metric("CPUS_UTILIZED", util, true);
		printf("}");
		if (nimc)
			uncore_report(kb, nimc, c + N, wall, mem_peak, true);
		printf("}\n");
	} else {
		printf("fallback: no CPU-MF counters (%s)\n\n", why);
		printf("%-18s  %20s  %s\n", "event", "count", "note");
		for (i = 0; i < N; i++) {
			if (c[i].ok)
				printf("%-18s  %20" PRIu64 "  %s\n", c[i].name, c[i].value,
				       c[i].running < c[i].enabled ? "scaled (multiplexed)" : "");
			else
				printf("%-18s  %20s  %s\n", c[i].name, "n/a", c[i].why);
		}
		printf("\n%-28s  %12s  %s\n", "metric", "value", "note");
		if (isnan(cpi))
			printf("%-28s  %12s  %s\n", "CPI", "n/a", cpi_why);
		else
			printf("%-28s  %12.3f\n", "CPI", cpi);
		if (isnan(l1))
			printf("%-28s  %12s  %s\n", "cache misses per 100 instr", "n/a", miss_why);
		else
			printf("%-28s  %12.3f\n", "cache misses per 100 instr", l1);
		if (isnan(util))
			printf("%-28s  %12s  %s\n", "CPUs utilized", "n/a", "task-clock not countable");
		else
			printf("%-28s  %12.3f\n", "CPUs utilized", util);
		printf("%-28s  %12.3f\n", "seconds elapsed", wall);
		if (nimc)
			uncore_report(kb, nimc, c + N, wall, mem_peak, false);
	}
	report_status(status);
	return EXIT_OK;
}

/* -I: each interval's counts become one sample (deltas of the cumulative reads). */
struct tick_ctx {
	const struct mf_cpumf_info *info;
	struct mf_grouper *g;
	struct mf_sample *s;
	uint64_t *prev;
	double cpsp;
	int64_t start_us;
	const struct mf_perf_tick *tick;
	int failed;
};

static void on_tick(void *vctx, const struct mf_count *counts, size_t n, double from, double to)
{
	struct tick_ctx *t = vctx;
	size_t i;
	mf_sample_reset(t->s);
	t->s->family = t->info->family;
	t->s->machine = t->info->machine;
	t->s->cpsp = t->cpsp;
	t->s->has_start = true;
	t->s->start_us = t->tick->start_us + (int64_t)llround(from * 1e6);
	t->s->seconds = to - from;
	for (i = 0; i < n; i++) {
		if (!counts[i].ok)
			continue;
		t->s->slot[t->s->n] = (uint16_t)t->info->events[i].slot;
		t->s->value[t->s->n++] = counts[i].value >= t->prev[i] ? counts[i].value - t->prev[i] : 0;
		t->prev[i] = counts[i].value;
	}
	if (to > from && mf_grouper_add(t->g, t->s))
		t->failed = 1;
}

int cmd_stat(int argc, char **argv)
{
	static const struct option opts[] = {
		{"all-cpus", no_argument, NULL, 'a'},        {"duration", required_argument, NULL, 'd'},
		{"cpu", required_argument, NULL, 'C'},       {"interval", required_argument, NULL, 'I'},
		{"mem-peak", required_argument, NULL, 'M'},
		{"machine", required_argument, NULL, 'm'},   {"fallback", no_argument, NULL, 'F'},
		{"format", required_argument, NULL, 'f'},    {"output", required_argument, NULL, 'o'},
		{"tables", required_argument, NULL, 'T'},    {"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0}};
	const char *machine = NULL, *format = "text", *out = NULL, *tables = NULL, *root = getenv("MFSTAT_SYSROOT");
	bool all = false, want_fallback = false;
	double interval_ms = 0, mem_peak = NAN;
	int cpus[1024];
	size_t ncpus = 0;
	double duration = NAN;
	struct mf_kb *kb = NULL;
	struct mf_sysif *sys = NULL;
	struct mf_cpumf_info *info = NULL;
	const struct mf_family *fam = NULL;
	const struct mf_machine *m = NULL;
	char **cmd = NULL;
	int c, rc = EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:aC:I:d:f:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'a': all = true; break;
		case 'C': {
			int k = mf_cpu_list(optarg, cpus, sizeof(cpus) / sizeof(cpus[0]));
			if (k <= 0) {
				cli_err("stat: -C: '%s' is not a CPU list such as 0-3,8", optarg);
				return EXIT_USAGE;
			}
			ncpus = (size_t)k;
			all = true;
			break;
		}
		case 'd': {
			char *end;
			duration = strtod(optarg, &end);
			if (end == optarg || *end || !(duration > 0)) {
				cli_err("stat: --duration takes seconds, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'I':
			interval_ms = strtod(optarg, NULL);
			if (!(interval_ms >= 10)) {
				cli_err("stat: -I takes milliseconds, at least 10 (not '%s')", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'm': machine = optarg; break;
		case 'F': want_fallback = true; break;
		case 'M': {
			char *end;
			mem_peak = strtod(optarg, &end);
			if (end == optarg || *end || !(mem_peak > 0)) {
				cli_err("stat: --mem-peak takes the peak memory bandwidth in GB/s, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'f': format = optarg; break;
		case 'o': out = optarg; break;
		case 'T': tables = optarg; break;
		case 'q': cli_quiet = true; break;
		case 'h': fputs(stat_help, stdout); return EXIT_OK;
		case ':': cli_err("stat: option %s needs a value", argv[optind - 1]); return EXIT_USAGE;
		default: cli_err("stat: option %s is not known", argv[optind - 1]); return EXIT_USAGE;
		}
	}
	if (strcmp(format, "text") && strcmp(format, "csv") && strcmp(format, "json")) {
		cli_err("stat: -f must be text, csv or json, not '%s'", format);
		return EXIT_USAGE;
	}
	if (optind < argc)
		cmd = argv + optind;
	if (all && !cmd && !(duration > 0)) {
		cli_err("stat: -a needs --duration SECONDS (or a command to count while it runs)");
		return EXIT_USAGE;
	}
	if (!all && !cmd) {
		cli_err("stat: no command to run (mfstat stat -- COMMAND, or -a --duration SECONDS)");
		return EXIT_USAGE;
	}
	kb = cli_load_kb(tables);
	if (!kb)
		return EXIT_DATA;
	if (machine && (mf_kb_resolve(kb, machine, strlen(machine), &fam, &m) || fam == mf_kb_generic(kb))) {
		cli_err("stat: unknown machine '%s' (see mfstat machines)", machine);
		rc = EXIT_USAGE;
		goto out;
	}
	if (root) {
		struct mf_error e;
		if (mf_sysif_recorded(&sys, root, &e)) {
			cli_diag(&e, "error");
			rc = EXIT_DATA;
			goto out;
		}
	} else {
		sys = mf_sysif_real();
	}
	info = malloc(sizeof(*info));
	if (!info) {
		rc = EXIT_DATA;
		goto out;
	}
	if (mf_cpumf_probe(sys, kb, fam, all && !cmd, info)) {
		if (!want_fallback) {
			cli_err("stat: CPU-MF counters cannot be counted here: %s; the command was not run "
				"(--fallback runs it with the events this machine has)",
				info->why);
			rc = EXIT_MEASURE;
			goto out;
		}
		rc = fallback(sys, kb, all && !cmd ? NULL : cmd, duration, ncpus ? cpus : NULL, ncpus, mem_peak, format,
			      info->why);
		goto out;
	}
	if (info->missing[0])
		cli_warn("%s", info->missing);
	{
		struct mf_perf_req *req = calloc(info->nevents, sizeof(*req));
		struct mf_count *cnt = calloc(info->nevents, sizeof(*cnt));
		struct mf_sample *s = malloc(sizeof(*s));
		struct mf_error e;
		struct mf_perf_tick tick;
		struct tick_ctx tctx;
		int status = 0;
		double wall;
		size_t i, notcounted = 0;
		if (!req || !cnt || !s) {
			free(req), free(cnt), free(s);
			rc = EXIT_DATA;
			goto out;
		}
		for (i = 0; i < info->nevents; i++) {
			req[i].type = (uint32_t)info->pmu_type;
			req[i].config = info->events[i].number;
			req[i].name = info->events[i].name;
			req[i].one_cpu = false;
		}
		mf_error_clear(&e);
		tick.interval = interval_ms / 1000;
		tick.fn = on_tick;
		tick.ctx = &tctx;
		memset(&tctx, 0, sizeof(tctx));
		tctx.info = info;
		tctx.g = mf_grouper_new(MF_BY_INTERVAL);
		tctx.s = malloc(sizeof(*tctx.s));
		tctx.prev = calloc(info->nevents, sizeof(*tctx.prev));
		tctx.tick = &tick;
		tctx.cpsp = info->cpu_speed;
		if (isnan(tctx.cpsp) && info->machine)
			tctx.cpsp = info->machine->nominal_mhz;
		if (!tctx.g || !tctx.s || !tctx.prev) {
			rc = EXIT_DATA;
			goto stat_done;
		}
		if (mf_perf_run(sys, req, info->nevents, all && !cmd ? NULL : cmd, duration, ncpus ? cpus : NULL, ncpus,
				interval_ms > 0 ? &tick : NULL, cnt, &status, &wall, &e)) {
			cli_diag(&e, "error");
			rc = e.code == MF_EUSAGE ? EXIT_MEASURE : EXIT_USAGE;
			goto stat_done;
		}
		mf_sample_reset(s);
		s->family = info->family;
		s->machine = info->machine;
		s->cpsp = info->cpu_speed;
		if (isnan(s->cpsp) && info->machine) {
			s->cpsp = info->machine->nominal_mhz;
			cli_warn("CPU speed unknown: used the nominal speed of machine type %u (%g MHz)", info->machine->type,
				 s->cpsp);
		}
		s->seconds = wall;
		for (i = 0; i < info->nevents; i++) {
			if (!cnt[i].ok) {
				notcounted++;
				continue;
			}
			s->slot[s->n] = (uint16_t)info->events[i].slot;
			s->value[s->n++] = cnt[i].value;
		}
		if (notcounted)
			cli_warn("%zu counters could not be opened (first: %s: %s)", notcounted,
				 cnt[0].ok ? "see -v" : cnt[0].name, cnt[0].ok ? "" : cnt[0].why);
		if (out && strcmp(format, "csv") == 0) {
			FILE *fp = cli_open_out(out);
			if (!fp || write_counters_csv(fp, s)) {
				rc = EXIT_DATA;
			} else {
				rc = cli_close_out(fp, out);
			}
			out = NULL;
			format = "text";
		}
		if (rc == EXIT_OK) {
			struct mf_grouper *g = interval_ms > 0 ? tctx.g : mf_grouper_new(0);
			struct mf_strtab *tab = mf_strtab_new();
			struct mf_group *const *groups;
			struct mf_result *res;
			struct mf_report rep;
			size_t ng;
			FILE *fp;
			if (interval_ms <= 0)
				mf_grouper_add(g, s);
			else
				tctx.g = NULL; /* owned by g now */
			groups = mf_grouper_groups(g, tab, &ng);
			res = mf_results_new(groups, ng);
			for (i = 0; i < ng; i++)
				mf_metrics_compute(kb, groups[i], &res[i]);
			memset(&rep, 0, sizeof(rep));
			rep.kb = kb;
			rep.tab = tab;
			rep.ngroups = ng;
			rep.results = res;
			rep.rows_read = interval_ms > 0 ? ng : 1;
			rep.by = interval_ms > 0 ? MF_BY_INTERVAL : 0;
			fp = cli_open_out(out);
			if (fp) {
				if (strcmp(format, "json") == 0)
					mf_out_json(fp, &rep);
				else if (strcmp(format, "csv") == 0)
					mf_out_csv(fp, &rep);
				else
					mf_out_text(fp, &rep);
				rc = cli_close_out(fp, out);
			} else {
				rc = EXIT_DATA;
			}
			mf_results_free(res, ng);
			mf_grouper_free(g);
			mf_strtab_free(tab);
		}
		report_status(status);
stat_done:
		mf_grouper_free(tctx.g);
		free(tctx.s);
		free(tctx.prev);
		free(req), free(cnt), free(s);
	}
out:
	free(info);
	if (sys && root)
		mf_sysif_free(sys);
	mf_kb_free(kb);
	return rc;
}
