/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the knowledge-base loader.  The first byte picks which table
 * the rest of the input replaces in an overlay directory; the load must either
 * succeed or fail with a positioned message, never crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mfstat/mfstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const files[] = {"families.tsv",     "machines.tsv",    "lspr.tsv",
					    "counters/z16.tsv", "metrics/z16.tsv", "metrics/common.tsv",
					    "topology.tsv",     "reports/ibmz.txt"};
	char path[256];
	struct mf_kb *kb = NULL;
	struct mf_error e;
	FILE *fp;
	size_t which;

	if (size == 0)
		return 0;
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/mfstat-fuzz-tables-XXXXXX");
		if (!mkdtemp(dir))
			abort();
		snprintf(path, sizeof(path), "%s/counters", dir);
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/metrics", dir);
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/reports", dir);
		mkdir(path, 0700);
	}
	which = data[0] % (sizeof(files) / sizeof(files[0]));
	snprintf(path, sizeof(path), "%s/%s", dir, files[which]);
	fp = fopen(path, "wb");
	if (!fp)
		abort();
	fwrite(data + 1, 1, size - 1, fp);
	fclose(fp);
	mf_error_clear(&e);
	if (mf_kb_load(dir, &kb, &e) == 0)
		mf_kb_free(kb);
	else if (!e.msg[0])
		abort(); /* every failure says what is wrong */
	unlink(path);
	return 0;
}
