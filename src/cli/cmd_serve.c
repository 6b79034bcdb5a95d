/* SPDX-License-Identifier: MIT */
/* mfstat serve: the always-on exporter of every CPU's counters for Prometheus. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mfstat/serve/serve.h"

static const char serve_help1[] =
	"Usage: mfstat serve [--listen ADDR:PORT] [--cpus LIST] [OPTIONS]\n"
	"\n"
	"An exporter for Prometheus: opens every authorized CPU-MF counter (cpum_cf\n"
	"PMU) on each CPU and serves them over HTTP at /metrics, read at every scrape\n"
	"and cumulative since serve started: mfstat_cpumf_<counter>_total{cpu,set},\n"
	"mfstat_machine_info, mfstat_cpumf_cpu_speed_hertz, mfstat_up{set,reason}\n"
	"(0 with the reason for a set that cannot be read; its counters are absent)\n"
	"and mfstat_scrape_duration_seconds.  A scraper whose Accept header names\n"
	"application/openmetrics-text gets OpenMetrics (ending in # EOF), others the\n"
	"Prometheus text format 0.0.4.  / is a page linking /metrics; other paths\n"
	"are 404, methods other than GET and HEAD 405.\n"
	"\n"
	"Without CPU-MF counters (not IBM Z) it says so once on standard error and\n"
	"serves perf's generic hardware events (mfstat_perf_cycles_total, ...) on\n"
	"the CPUs where they open; where none does, only mfstat_up{set=\"perf\"} 0\n"
	"with the reason.  Never made-up numbers.\n"
	"\n"
	"Counting every CPU needs root, CAP_PERFMON, or kernel.perf_event_paranoid\n"
	"at 0 or less (see the unit file dist/mfstat.service).\n"
	"\n";
static const char serve_help2[] =
	"Exit status: 0 after SIGTERM or SIGINT (it serves until then), 1 the address\n"
	"cannot be listened on (port in use) or a data error, 2 usage error, 3 CPU-MF\n"
	"counters exist but cannot be counted (not authorized, perf_event_paranoid).\n"
	"\n"
	"Options:\n"
	"  --listen ADDR:PORT  where to serve: 127.0.0.1:10113 by default (loopback\n"
	"                      only); :PORT or 0.0.0.0:PORT every IPv4 interface,\n"
	"                      [::1]:PORT or [::]:PORT IPv6; port 0 takes a free one.\n"
	"                      The address is numeric.  It says where it listens on\n"
	"                      standard error (\"serve: listening on ADDR:PORT\")\n"
	"  --cpus LIST         count these CPUs only (e.g. 0-3,8), as node_exporter\n"
	"                      takes them; every online CPU by default\n"
	"  --timeout SECONDS   a connection idle or unfinished this long is closed\n"
	"                      (default 10)\n"
	"  --machine F         family or machine type, when /proc/sysinfo does not say\n"
	"  --tables DIR        knowledge-base files that replace the built-in ones\n"
	"  -q, --quiet         no notes on standard error but where it listens\n"
	"  -h, --help          this help\n"
	"  --version           the version and the knowledge base's revision\n"
	"\n"
	"Port 10113 is mfstat's own choice: Prometheus's default port allocation list\n"
	"(its wiki) has its 9100-9999 range taken, and new exporters pick numbers\n"
	"above 10000.  --listen changes it.\n"
	"\n"
	"Environment: MFSTAT_SYSROOT=DIR reads sysfs/procfs below DIR and replays the\n"
	"counts in DIR/counts.tsv instead of counting (for tests and recorded systems).\n"
	"\n"
	"Examples:\n"
	"  mfstat serve                         # http://127.0.0.1:10113/metrics\n"
	"  mfstat serve --listen :10113 --cpus 0-7\n"
	"  curl -s -H 'Accept: application/openmetrics-text' 127.0.0.1:10113/metrics\n";

struct serve_opts {
	const char *listen, *machine, *tables;
	const char *cpus_arg;
	unsigned timeout;
};

static int parse_opts(int argc, char **argv, struct serve_opts *o)
{
	static const struct option opts[] = {{"listen", required_argument, NULL, 'l'},
					     {"cpus", required_argument, NULL, 'C'},
					     {"timeout", required_argument, NULL, 't'},
					     {"machine", required_argument, NULL, 'm'},
					     {"tables", required_argument, NULL, 'T'},
					     {"quiet", no_argument, NULL, 'q'},
					     {"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {NULL, 0, NULL, 0}};
	int c;
	memset(o, 0, sizeof(*o));
	o->timeout = 10;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
		switch (c) {
		case 'l': o->listen = optarg; break;
		case 'C': o->cpus_arg = optarg; break;
		case 't': {
			char *end;
			unsigned long t = strtoul(optarg, &end, 10);
			if (end == optarg || *end || t < 1 || t > 3600 || optarg[0] == '-')
				return cli_usage("serve", "serve: --timeout takes whole seconds, 1 to 3600, not '%s'",
						 optarg);
			o->timeout = (unsigned)t;
			break;
		}
		case 'm': o->machine = optarg; break;
		case 'T': o->tables = optarg; break;
		case 'q': cli_quiet = true; break;
		case 'h':
			fputs(serve_help1, stdout);
			fputs(serve_help2, stdout);
			return EXIT_OK;
		case 'V': return cli_version();
		default: return cli_bad_option("serve", c, argv, opts);
		}
	}
	if (optind < argc)
		return cli_usage("serve", "serve: unexpected argument '%s'", argv[optind]);
	return -1;
}

/* The CPUs to count: --cpus, else every online CPU (of the recorded tree, under MFSTAT_SYSROOT). */
static int cpu_list(const struct mf_perf_sys *sys, const char *arg, int *cpus, size_t max)
{
	char buf[4096];
	int n;
	if (arg) {
		n = mf_cpu_list(arg, cpus, max);
		if (n <= 0) {
			cli_usage("serve", "serve: --cpus: '%s' is not a CPU list such as 0-3,8", arg);
			return -1;
		}
		return n;
	}
	if (mf_perf_read_file(sys, "/sys/devices/system/cpu/online", buf, sizeof(buf)) <= 0 ||
	    (n = mf_cpu_list(buf, cpus, max)) <= 0) {
		cli_err("serve: /sys/devices/system/cpu/online does not list the online CPUs: give --cpus");
		return -2;
	}
	return n;
}

int cmd_serve(int argc, char **argv)
{
	enum { MAXCPU = 4096 };
	const char *root = getenv("MFSTAT_SYSROOT");
	struct serve_opts o;
	struct mf_kb *kb = NULL;
	struct mf_perf_sys *sys = NULL;
	struct mf_cpumf_info *info = NULL;
	struct mf_exporter *x = NULL;
	struct mf_server *srv = NULL;
	struct mf_server_opts so;
	const struct mf_family *fam = NULL;
	const struct mf_machine *m = NULL;
	struct mf_error e;
	int *cpus = NULL, ncpu, rc, got, sig;
	char bound[80];
	sigset_t set, old;

	rc = parse_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;
	mf_error_clear(&e);
	if (mf_server_parse_listen(o.listen, bound, sizeof(bound), &e))
		return cli_usage("serve", "serve: %s", e.msg);
	kb = cli_load_kb(o.tables);
	if (!kb)
		return EXIT_DATA;
	if (o.machine &&
	    (mf_kb_resolve(kb, o.machine, strlen(o.machine), &fam, &m) || fam == mf_kb_generic(kb) || fam->named)) {
		rc = cli_usage("serve", "serve: '%s' is not an IBM Z family or machine type (see mfstat machines)",
			       o.machine);
		goto out;
	}
	if (root) {
		if (mf_perf_sys_recorded(&sys, root, &e)) {
			cli_diag(&e, "error");
			rc = EXIT_DATA;
			goto out;
		}
	} else {
		sys = mf_perf_sys_real();
	}
	cpus = malloc(MAXCPU * sizeof(*cpus));
	info = malloc(sizeof(*info));
	if (!cpus || !info) {
		cli_nomem("starting serve");
		rc = EXIT_DATA;
		goto out;
	}
	ncpu = cpu_list(sys, o.cpus_arg, cpus, MAXCPU);
	if (ncpu < 0) {
		rc = ncpu == -1 ? EXIT_USAGE : EXIT_DATA;
		goto out;
	}
	got = mf_cpumf_probe(sys, kb, fam, true, info);
	if (got && info->has_pmu) {
		cli_err("serve: CPU-MF counters cannot be counted here: %s", info->why);
		rc = cli_exit_for(got);
		goto out;
	}
	if (got)
		cli_warn("serve: no CPU-MF counters (%s): serving perf's generic hardware events where they open",
			 info->why);
	rc = mf_exporter_new(&x, kb, sys, got ? NULL : info, cpus, (size_t)ncpu, &e);
	if (rc) {
		cli_diag(&e, "error");
		rc = cli_exit_for(rc);
		goto out;
	}
	if (mf_exporter_open_count(x) == 0) {
		if (!got) {
			cli_err("serve: no CPU-MF counter could be opened on any CPU: %s", mf_exporter_why(x));
			rc = EXIT_MEASURE;
			goto out;
		}
		cli_warn(
			"serve: none of perf's generic hardware events opens here (%s): serving only "
			"mfstat_up{set=\"perf\"} 0 with that reason",
			mf_exporter_why(x));
	}
	/* SIGTERM and SIGINT are waited for here; the server's thread inherits them blocked. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, &old);
	signal(SIGPIPE, SIG_IGN);
	memset(&so, 0, sizeof(so));
	so.listen = o.listen;
	so.timeout = o.timeout;
	so.max_conn = 32;
	so.conn_mem = 16384;
	if (mf_server_start(&srv, x, &so, bound, sizeof(bound), &e)) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		cli_err("serve: %s", e.msg);
		rc = EXIT_DATA;
		goto out;
	}
	fprintf(stderr, "serve: listening on %s (%d CPUs)\n", bound, ncpu);
	fflush(stderr);
	do
		sig = 0;
	while (sigwait(&set, &sig) != 0);
	mf_server_stop(srv);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (!cli_quiet)
		fprintf(stderr, "serve: stopped by %s\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
	rc = EXIT_OK;
out:
	mf_exporter_free(x);
	free(info);
	free(cpus);
	if (sys && root)
		mf_perf_sys_free(sys);
	mf_kb_free(kb);
	return rc;
}
