/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

bool cli_quiet;

void cli_err(const char *fmt, ...)
{
	va_list ap;
	fputs("mfstat: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;
	if (cli_quiet)
		return;
	fputs("mfstat: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_diag(const struct mf_error *e, const char *severity)
{
	char buf[2048];
	mf_error_format(e, buf, sizeof(buf));
	if (strcmp(severity, "error") != 0) {
		/* mf_error_format says "error:"; re-label for skipped rows. */
		char *p = strstr(buf, "error: ");
		if (p) {
			fprintf(stderr, "mfstat: %.*s%s: %s\n", (int)(p - buf), buf, severity, p + 7);
			return;
		}
	}
	fprintf(stderr, "mfstat: %s\n", buf);
}

struct mf_kb *cli_load_kb(const char *dir)
{
	struct mf_kb *kb = NULL;
	struct mf_error e;
	mf_error_clear(&e);
	if (mf_kb_load(dir, &kb, &e) != 0) {
		cli_diag(&e, "error");
		return NULL;
	}
	return kb;
}

FILE *cli_open_out(const char *path)
{
	FILE *fp;
	if (!path || strcmp(path, "-") == 0)
		return stdout;
	fp = fopen(path, "w");
	if (!fp)
		cli_err("%s: cannot create: %s", path, strerror(errno));
	return fp;
}

int cli_close_out(FILE *fp, const char *path)
{
	int bad = ferror(fp);
	if (fp == stdout) {
		if (fflush(stdout) != 0)
			bad = 1;
	} else if (fclose(fp) != 0) {
		bad = 1;
	}
	if (bad) {
		cli_err("%s: write error: %s", path && strcmp(path, "-") ? path : "<stdout>", strerror(errno));
		return EXIT_DATA;
	}
	return EXIT_OK;
}
