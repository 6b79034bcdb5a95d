/* SPDX-License-Identifier: MIT */
/*
 * Replays a fuzz corpus without libFuzzer: every file of the directories
 * given is passed once to LLVMFuzzerTestOneInput.  Built with the normal
 * compiler (and under ASan/UBSan in the sanitizer build), it turns each
 * corpus into an ordinary test.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	if (!fp) {
		perror(path);
		return 1;
	}
	for (;;) {
		size_t got;
		if (cap - n < 65536) {
			uint8_t *nb = realloc(buf, cap + 65536);
			if (!nb) {
				fclose(fp);
				free(buf);
				return 1;
			}
			buf = nb;
			cap += 65536;
		}
		got = fread(buf + n, 1, cap - n, fp);
		if (got == 0)
			break;
		n += got;
	}
	fclose(fp);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int i, files = 0, bad = 0;
	for (i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *de;
		if (!d) {
			bad |= run_file(argv[i]);
			files++;
			continue;
		}
		while ((de = readdir(d))) {
			char path[4096];
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
			bad |= run_file(path);
			files++;
		}
		closedir(d);
	}
	printf("replayed %d inputs\n", files);
	return bad || files == 0;
}
