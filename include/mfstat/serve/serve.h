/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_SERVE_H
#define MFSTAT_SERVE_H

#include <stdbool.h>
#include <stddef.h>

#include "mfstat/base/error.h"
#include "mfstat/base/strbuf.h"
#include "mfstat/kb/kb.h"
#include "mfstat/live/stat.h"
#include "mfstat/perf/perf.h"
#include "mfstat/report/prom.h"

/*
 * mfstat serve: the exporter.  The counters of every CPU of a list stay open (live/percpu.h);
 * each scrape reads them all and writes the exposition (report/prom.h's names and format):
 * mfstat_machine_info, mfstat_up per counter set, the counters
 * mfstat_cpumf_<name>_total{cpu,set} (cumulative since the exporter started), and the gauge
 * mfstat_scrape_duration_seconds.  Without CPU-MF it serves perf's generic hardware events of
 * the linux_perf family (mfstat_perf_<name>_total{cpu,set="perf"}) where they open, and when
 * none does only mfstat_up{set="perf",reason} 0: never made-up numbers.
 */

struct mf_exporter;

/*
 * What a probe (mf_cpumf_probe) knows of the machine, as the exposition's machine info: the
 * family's key, type, model, counter versions and authorization (-1 when not known), CPU speed.
 * One mapping for serve and stat -f prom.
 */
void mf_exporter_machine(const struct mf_cpumf_info *info, struct mf_prom_machine *m);

/*
 * An exporter counting on sys (borrowed, as kb: both outlive it) on cpus[0..ncpu).  With info
 * (a successful mf_cpumf_probe) it counts the probed CPU-MF events; with info NULL the generic
 * hardware events of kb's linux_perf family.  Returns 0; MF_ENOMEM; MF_ETABLE when kb lacks
 * linux_perf's counters.  Events that open nowhere are not an error (they are absent, and
 * mfstat_up says why).
 */
int mf_exporter_new(struct mf_exporter **out, const struct mf_kb *kb, const struct mf_perf_sys *sys,
		    const struct mf_cpumf_info *info, const int *cpus, size_t ncpu, struct mf_error *err);

/* How many event/CPU pairs are open (0: only mfstat_up 0 is served) and, when 0, why not. */
size_t mf_exporter_open_count(const struct mf_exporter *x);
const char *mf_exporter_why(const struct mf_exporter *x);

/* One scrape: reads every counter and replaces out's contents with the exposition in fmt. */
void mf_exporter_scrape(struct mf_exporter *x, enum mf_prom_fmt fmt, struct mf_strbuf *out);

void mf_exporter_free(struct mf_exporter *x);

/* ---- the HTTP server (libmicrohttpd) --------------------------------------------------- */

struct mf_server_opts {
	const char *listen; /* "ADDR:PORT", ":PORT" (every interface), "[V6ADDR]:PORT"; NULL: 127.0.0.1:10113 */
	unsigned timeout;   /* seconds a connection may stay idle or unfinished */
	unsigned max_conn;  /* connections at once */
	size_t conn_mem;    /* bytes of a connection's request (headers) */
};

#define MF_SERVE_DEFAULT_PORT 10113

struct mf_server;

/*
 * Parses o->listen; usage errors (MF_EUSAGE) name what is wrong.  On success fills addr with the
 * numeric address and port (brackets for IPv6), for messages.
 */
int mf_server_parse_listen(const char *listen, char *addr, size_t n, struct mf_error *err);

/*
 * Binds, listens and starts serving x in one thread of its own (scrapes are served one at a
 * time): GET or HEAD of /metrics (the format the Accept header asks for), / (a small page
 * linking /metrics), 404 for other paths, 405 for other methods.  bound gets "ADDR:PORT" as
 * bound (the real port when 0 was asked).  Returns 0; MF_EUSAGE (bad address); MF_EIO (bind,
 * listen, or the server could not start: err says why).
 */
int mf_server_start(struct mf_server **out, struct mf_exporter *x, const struct mf_server_opts *o, char *bound,
		    size_t n, struct mf_error *err);

/* How many requests were answered (for tests and the log). */
unsigned long mf_server_requests(const struct mf_server *s);

/* Stops serving (open connections are closed) and frees s. */
void mf_server_stop(struct mf_server *s);

#endif
