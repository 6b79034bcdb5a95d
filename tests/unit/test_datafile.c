/* SPDX-License-Identifier: MIT */
/*
 * The data-file module: a file of the overlay directory read whole (absent,
 * large, unreadable), and the embedded copies of data/.
 */
#include <sys/stat.h>

#include "testutil.h"

#include "base/datafile.h"

static void tmp_dir(char *dir, size_t n)
{
	snprintf(dir, n, "/tmp/mfstat_datafile_XXXXXX");
	assert_non_null(mkdtemp(dir));
}

static void test_absent(void **state)
{
	char dir[64], path[128], *text = (char *)1;
	size_t len = 7;
	struct mf_error e;
	(void)state;
	tmp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/none.tsv", dir);
	mf_error_clear(&e);
	assert_int_equal(mf_datafile_read_path(path, &text, &len, &e), 1);
	assert_null(text);
	assert_int_equal(len, 0);
	assert_int_equal(e.code, 0);
	rmdir(dir);
}

/* More than one growth step, with a NUL inside: every byte comes back, NUL-terminated. */
static void test_large(void **state)
{
	char dir[64], path[128], *text = NULL, *want;
	size_t len = 0, n = 200000, i;
	struct mf_error e;
	FILE *fp;
	(void)state;
	tmp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/big.tsv", dir);
	want = malloc(n);
	assert_non_null(want);
	for (i = 0; i < n; i++)
		want[i] = (char)(i * 7 % 251);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(want, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
	mf_error_clear(&e);
	assert_int_equal(mf_datafile_read_path(path, &text, &len, &e), 0);
	assert_int_equal(len, n);
	assert_memory_equal(text, want, n);
	assert_int_equal(text[n], '\0');
	free(text);
	free(want);
	unlink(path);
	rmdir(dir);
}

/* A directory opens but cannot be read: the read error is reported, not an empty table. */
static void test_unreadable(void **state)
{
	char dir[64], *text = NULL;
	size_t len = 0;
	struct mf_error e;
	(void)state;
	tmp_dir(dir, sizeof(dir));
	mf_error_clear(&e);
	assert_int_equal(mf_datafile_read_path(dir, &text, &len, &e), MF_EIO);
	assert_null(text);
	assert_int_equal(e.code, MF_EIO);
	assert_string_equal(e.file, dir);
	rmdir(dir);
}

/* measure/events.tsv that cannot be read (here a directory) is an error, not an empty event table. */
static void test_events_unreadable(void **state)
{
	char dir[64], sub[128], name[256], *text = NULL;
	size_t len = 0;
	struct mf_error e;
	(void)state;
	tmp_dir(dir, sizeof(dir));
	snprintf(sub, sizeof(sub), "%s/measure", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/measure/events.tsv", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	mf_error_clear(&e);
	assert_int_equal(mf_measure_events_text(dir, &text, &len, name, sizeof(name), &e), MF_EIO);
	assert_null(text);
	assert_string_equal(e.file, sub);
	rmdir(sub);
	snprintf(sub, sizeof(sub), "%s/measure", dir);
	rmdir(sub);
	rmdir(dir);
}

static void test_embedded(void **state)
{
	size_t len = 1;
	const char *t;
	(void)state;
	t = mf_datafile_embedded("measure/events.tsv", &len);
	assert_non_null(t);
	assert_true(len > 0);
	assert_int_equal(strlen(t), len);
	assert_null(mf_datafile_embedded("measure/no-such.tsv", &len));
	assert_int_equal(len, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_absent),     cmocka_unit_test(test_large),
		cmocka_unit_test(test_unreadable), cmocka_unit_test(test_events_unreadable),
		cmocka_unit_test(test_embedded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
