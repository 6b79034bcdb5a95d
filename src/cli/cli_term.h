/* SPDX-License-Identifier: MIT */
/* Manners at a terminal: a long text through a pager, the progress of a long read. */
#ifndef MFSTAT_CLI_TERM_H
#define MFSTAT_CLI_TERM_H

#include <pthread.h>
#include <stdbool.h>

#include "mfstat/input/reader.h"
#include "mfstat/report/pipeline.h"

/*
 * A text to standard output that may be longer than the screen.  cli_page_begin: when
 * standard output is a terminal, what is written to it from now on is held (fd 1 goes to a
 * temporary file); otherwise nothing changes.  cli_page_end puts it out: as it is when it fits
 * the screen (TIOCGWINSZ, else $LINES, else 24 rows), else through $PAGER (default "less -FRX";
 * an empty PAGER or "cat" means none), waiting for the pager, whose exit status and a closed
 * pipe (SIGPIPE) are not errors.  Without a pager (no_pager, --no-pager; none set; the one set
 * not found) the text is written whole and a line on standard error says how many rows it has
 * and how to see them all (hint: the command's own ways, e.g. "--top N with --sort").
 */
struct cli_page {
	int saved; /* the terminal's fd 1 while the text is held, else -1 */
	int held;  /* the temporary file holding it, else -1 */
	bool no_pager;
};
void cli_page_begin(struct cli_page *pg, bool no_pager);
void cli_page_end(struct cli_page *pg, const char *cmd, const char *hint);
/* The same for a command whose way to a file is not -o FILE (to_file: "> FILE"). */
void cli_page_end_to(struct cli_page *pg, const char *cmd, const char *hint, const char *to_file);

/*
 * The progress of a read on standard error, when it is a terminal and not -q: after
 * MFSTAT_PROGRESS_AFTER seconds (default 2; 0 in tests), at most four times a second, one line
 * rewritten in place (bytes read of the total when known, samples so far, the rate), cleared by
 * cli_progress_end or before a diagnostic of the pipeline (which then starts a line of its
 * own).  cli_progress_begin points po->progress at cp and wraps po->diag (or leaves po alone).
 */
struct cli_progress {
	struct mf_progress p;
	pthread_mutex_t lock;
	double start, last, after; /* seconds of the clock */
	int width;                 /* of the line shown, 0 when none is */
	bool on;
	/* The pipeline's diagnostics, told after the line is cleared (po->diag, po->ctx before). */
	void (*diag)(void *ctx, enum mf_pipeline_diag kind, const struct mf_error *e);
	void *diag_ctx;
};
void cli_progress_begin(struct cli_progress *cp, struct mf_pipeline_opts *po);
void cli_progress_end(struct cli_progress *cp);
/* The clock of the progress (seconds, CLOCK_MONOTONIC unless a test sets another). */
extern double (*cli_progress_clock)(void);

#endif
