/* SPDX-License-Identifier: MIT */
#include "datafile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"

int mf_datafile_read_path(const char *path, char **text, size_t *len, struct mf_error *err)
{
	FILE *fp;
	char *buf = NULL;
	size_t n = 0, cap = 0, got;
	int e;

	*text = NULL;
	*len = 0;
	fp = fopen(path, "rb");
	if (!fp) {
		if (errno == ENOENT)
			return 1;
		return mf_error_set(err, MF_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
	}
	do {
		if (cap - n < 4096) {
			char *nb = realloc(buf, cap + 65536 + 1);
			if (!nb) {
				free(buf);
				fclose(fp);
				return mf_error_nomem(err, path, 0, "reading the file (%zu bytes so far)", n);
			}
			buf = nb;
			cap += 65536;
		}
		got = fread(buf + n, 1, cap - n, fp);
		n += got;
	} while (got > 0);
	if (ferror(fp)) {
		e = errno;
		free(buf);
		fclose(fp);
		return mf_error_set(err, MF_EIO, path, 0, 0, "cannot read: %s", strerror(e ? e : EIO));
	}
	fclose(fp);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

const char *mf_datafile_embedded(const char *rel, size_t *len)
{
	const struct mf_embedded_file *f;

	for (f = mf_embedded_files; f->path; f++)
		if (strcmp(f->path, rel) == 0) {
			*len = f->len;
			return f->data;
		}
	*len = 0;
	return NULL;
}
