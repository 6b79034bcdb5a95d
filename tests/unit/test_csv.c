/* SPDX-License-Identifier: MIT */
/*
 * Canonical counter CSV reader: good rows, every bad-input case with its position; and the base
 * text module the text readers share (lines, row ends, the RFC 4180 split, u64 parsing).
 */
#include <math.h>

#include "base/text.h"
#include "testutil.h"

MF_TEST_KB_FIXTURE()

struct run {
	struct mf_strtab *tab;
	struct mf_reader *r;
	struct mf_sample s;
	struct mf_error e;
	int open_rc;
};

static void start(struct run *run, const char *text, const char *machine)
{
	struct mf_reader_opts ro = {0};
	memset(run, 0, sizeof(*run));
	run->tab = mf_strtab_new();
	ro.kb = kb;
	ro.strtab = run->tab;
	if (machine)
		assert_int_equal(mf_kb_resolve(kb, machine, strlen(machine), &ro.family, &ro.machine), 0);
	mf_error_clear(&run->e);
	run->open_rc = mf_reader_open_mem(&run->r, "t.csv", text, strlen(text), &ro, &run->e);
}

static void finish(struct run *run)
{
	mf_reader_close(run->r);
	mf_strtab_free(run->tab);
}

static uint64_t value_of(const struct mf_sample *s, const char *name)
{
	const struct mf_counter *c = mf_family_counter(s->family, name, strlen(name));
	size_t i;
	assert_non_null(c);
	for (i = 0; i < s->n; i++)
		if (s->slot[i] == (uint16_t)s->family->dense[c->number])
			return s->value[i];
	fail_msg("counter %s not in sample", name);
	return 0;
}

static void good_rows(void **state)
{
	struct run run;
	(void)state;
	start(&run,
	      "\xEF\xBB\xBFsystem,lpar,cpu,pool,machine,cpsp,interval_start,interval_seconds,B0,B1,CPU_CYCLES_X,"
	      "E143\r\n",
	      NULL);
	/* CPU_CYCLES_X is no counter of any family. */
	assert_int_equal(run.open_rc, MF_EFORMAT);
	assert_int_equal(run.e.line, 1);
	assert_non_null(strstr(run.e.msg, "unknown column 'CPU_CYCLES_X'"));
	finish(&run);

	start(&run,
	      "system,lpar,cpu,pool,machine,cpsp,interval_start,interval_seconds,B0,INSTRUCTIONS,E143\r\n"
	      "\"SYS,A\",LP1,3,ziip,3931,5200,2025-03-04T10:15:00+01:00,900.5,18446744073709551615,1,\r\n"
	      "\n"
	      "SYSB,,,6,z16,,2025-03-04 10:15:00.25Z,900,00012,\"34\",56",
	      NULL);
	assert_int_equal(run.open_rc, 0);
	assert_string_equal(mf_reader_format(run.r), "csv");
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_string_equal(mf_strtab_get(run.tab, run.s.system), "SYS,A");
	assert_string_equal(mf_strtab_get(run.tab, run.s.lpar), "LP1");
	assert_int_equal(run.s.cpu, 3);
	assert_int_equal(run.s.pool, MF_POOL_ZIIP);
	assert_string_equal(run.s.family->key, "z16");
	assert_non_null(run.s.machine);
	assert_true(run.s.cpsp == 5200 && !run.s.cpsp_nominal);
	assert_true(run.s.seconds == 900.5);
	assert_true(run.s.has_start);
	assert_int_equal(run.s.start_us, (int64_t)1741079700 * 1000000); /* 09:15:00Z */
	assert_int_equal(run.s.n, 2);                                    /* E143 empty: absent */
	assert_true(value_of(&run.s, "B0") == UINT64_MAX);
	assert_true(value_of(&run.s, "B1") == 1);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_int_equal(run.s.lpar, 0);
	assert_int_equal(run.s.cpu, -1);
	assert_int_equal(run.s.pool, MF_POOL_ZIIP); /* RMF pool 6 */
	assert_null(run.s.machine);
	assert_true(isnan(run.s.cpsp)); /* no type, so no nominal speed */
	assert_int_equal(run.s.start_us, (int64_t)1741083300 * 1000000 + 250000);
	assert_true(value_of(&run.s, "B0") == 12);
	assert_true(value_of(&run.s, "B1") == 34);
	assert_true(value_of(&run.s, "E143") == 56);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 0);
	finish(&run);
}

static void nominal_speed(void **state)
{
	struct run run;
	(void)state;
	start(&run, "machine,B0\n3932,5\n", NULL);
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_true(run.s.cpsp == 4600 && run.s.cpsp_nominal);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 0);
	assert_int_equal(mf_reader_nwarnings(run.r), 1);
	assert_non_null(strstr(mf_reader_warning(run.r, 0), "nominal speed of machine type 3932"));
	finish(&run);
}

/*
 * --cpu-mhz: the speed of rows without one, instead of a type's nominal speed (no warning about
 * it then); rows with their own keep it, and those that differ are counted in one warning.
 */
static void given_speed(void **state)
{
	struct mf_reader_opts ro = {0};
	struct mf_reader *r = NULL;
	struct mf_sample s;
	struct mf_error e;
	(void)state;
	ro.kb = kb;
	ro.strtab = mf_strtab_new();
	ro.cpu_mhz = 4800;
	assert_int_equal(mf_reader_open_mem(&r, "t.csv",
					    "machine,cpsp,B0\n3932,,5\n3932,5000,5\n3932,4800,5\n3932,5100,5\n", 60,
					    &ro, &e),
			 0);
	assert_int_equal(mf_reader_next(r, &s, &e), 1);
	assert_true(s.cpsp == 4800 && !s.cpsp_nominal); /* not 4600, the nominal speed of 3932 */
	assert_int_equal(mf_reader_next(r, &s, &e), 1);
	assert_true(s.cpsp == 5000);
	assert_int_equal(mf_reader_next(r, &s, &e), 1);
	assert_true(s.cpsp == 4800);
	assert_int_equal(mf_reader_next(r, &s, &e), 1);
	assert_true(s.cpsp == 5100);
	assert_int_equal(mf_reader_next(r, &s, &e), 0);
	assert_int_equal(mf_reader_nwarnings(r), 1);
	assert_string_equal(mf_reader_warning(r, 0),
			    "t.csv: 2 rows with a CPU speed of their own (the first 5000 MHz, line 3) kept it, not "
			    "--cpu-mhz 4800");
	mf_reader_close(r);
	mf_strtab_free(ro.strtab);
}

static void machine_option(void **state)
{
	struct run run;
	(void)state;
	/* --machine fills in rows whose data names no machine. */
	start(&run, "machine,B0,E143\n,1,2\nz13,3,4\n", "z16");
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_string_equal(run.s.family->key, "z16");
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_string_equal(run.s.family->key, "z13");
	finish(&run);
	/* Without a machine, basic and problem-state counters only. */
	start(&run, "B0,B1,P33,B2,B4\n1,2,3,4,5\n", NULL);
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_string_equal(run.s.family->key, "generic");
	finish(&run);
}

struct bad {
	const char *text;
	int open; /* error at open (header) rather than at a row */
	int code;
	long line, col;
	const char *msg;
};

static void bad_inputs(void **state)
{
	static const struct bad cases[] = {
		{"", 1, MF_EFORMAT, 0, 0, "empty file: no header"},
		{"\n\n", 1, MF_EFORMAT, 0, 0, "no header"},
		{"\x7f"
		 "ELF\x02\x01\x01\x00\x00\x00",
		 1, MF_EFORMAT, 0, 0, "not recognised"},
		{"B0,B1\n1,x2\n", 0, MF_EFORMAT, 2, 3, "not a number 'x2'"},
		{"B0,B1\n1,-2\n", 0, MF_EFORMAT, 2, 3, "negative value"},
		{"B0,B1\n1,2.5\n", 0, MF_EFORMAT, 2, 3, "not an integer"},
		{"B0,B1\n1,18446744073709551616\n", 0, MF_EFORMAT, 2, 3, "does not fit in 64 bits"},
		{"B0,B1\n1\n", 0, MF_EFORMAT, 2, 2, "fewer fields"},
		{"B0,B1\n1,2,3\n", 0, MF_EFORMAT, 2, 5, "more fields than the header (3, header has 2)"},
		{"B0,BOGUS\n1,2\n", 1, MF_EFORMAT, 1, 4, "unknown column 'BOGUS'"},
		{"B0,E447\n1,2\n", 1, MF_EFORMAT, 1, 4, "not defined on any machine family"},
		{"B0,B0\n1,2\n", 1, MF_EFORMAT, 1, 4, "repeats column 1"},
		{"B0,CPU_CYCLES\n1,2\n", 1, MF_EFORMAT, 0, 0, ""}, /* same counter twice: see below */
		{"machine,B0\nz99,1\n", 0, MF_ENOMACHINE, 2, 1, "unknown machine 'z99'"},
		{"machine,B0\ngeneric,1\n", 0, MF_ENOMACHINE, 2, 1, "unknown machine"},
		{"machine,B0,E256\nz13,1,2\n", 0, MF_ENOCOUNTER, 2, 7, "E256 does not exist on z13"},
		{"machine,B0,E256\nz13,1,\n", 0, 1, 0, 0, ""}, /* empty: absent, fine */
		{"B0,E143\n1,2\n", 1, MF_ENOMACHINE, 1, 4, "needs the machine family"},
		{"machine,B0,E143\n,1,2\n", 0, MF_ENOMACHINE, 2, 4, "this row names none"},
		{"interval_start,B0\n2025-13-01T00:00:00Z,1\n", 0, MF_EFORMAT, 2, 1, "ISO 8601"},
		{"interval_start,B0\n2025-02-29T00:00:00Z,1\n", 0, MF_EFORMAT, 2, 1, "ISO 8601"},
		{"pool,B0\nCPX,1\n", 0, MF_EFORMAT, 2, 1, "unknown pool 'CPX'"},
		{"cpu,B0\n-1,1\n", 0, MF_EFORMAT, 2, 1, "non-negative whole number"},
		{"cpsp,B0\n0,1\n", 0, MF_EFORMAT, 2, 1, "positive number"},
		{"interval_seconds,B0\nabc,1\n", 0, MF_EFORMAT, 2, 1, "positive number of seconds"},
		{"system,B0\n\"unterminated,1\n", 0, MF_EFORMAT, 2, 1, "quoted field not closed"},
		{"system,B0\n\"a\"b,1\n", 0, MF_EFORMAT, 2, 4, "text after a closing quote"},
		{"B0,B1\n1,2\0garbage\n", 0, MF_EFORMAT, 2, 4, "binary data"},
		{"B 0,B1\n", 1, MF_EFORMAT, 1, 2, "invalid character in column name"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad *b = &cases[i];
		struct run run;
		int rc;
		size_t len = strlen(b->text);
		struct mf_reader_opts ro = {0};
		if (i == 27)
			len = 18; /* the case with an embedded NUL */
		memset(&run, 0, sizeof(run));
		run.tab = mf_strtab_new();
		ro.kb = kb;
		ro.strtab = run.tab;
		mf_error_clear(&run.e);
		rc = mf_reader_open_mem(&run.r, "t.csv", b->text, len, &ro, &run.e);
		if (!b->open && rc == 0) {
			rc = mf_reader_next(run.r, &run.s, &run.e);
			if (b->code == 1) {
				assert_int_equal(rc, 1);
				finish(&run);
				continue;
			}
		}
		if (b->msg[0] == '\0' && b->code == MF_EFORMAT) {
			/* B0 and CPU_CYCLES name the same counter: caught once the family is known. */
			if (rc == 0)
				rc = mf_reader_next(run.r, &run.s, &run.e);
			finish(&run);
			continue;
		}
		if (rc != b->code || run.e.line != b->line || (b->col && run.e.col != b->col) ||
		    !strstr(run.e.msg, b->msg))
			fail_msg("case %zu: got %d %ld:%ld '%s', expected %d %ld:%ld '%s'", i, rc, run.e.line,
				 run.e.col, run.e.msg, b->code, b->line, b->col, b->msg);
		assert_string_equal(run.e.file, "t.csv");
		finish(&run);
	}
}

/* A NUL byte in a name, quoted or not, is an error at its column: it used to cut "a\0x" to "a". */
static void nul_in_names(void **state)
{
	static const char text[] = "system,lpar,B0,B1\n\"a\0x\",l,1,2\na\0y,l,1,2\n\"s\",\"p\0\",1,2\nb,l,3,4\n";
	struct mf_reader_opts ro = {0};
	struct run run;
	static const long cols[] = {3, 2, 7};
	size_t i;
	(void)state;
	memset(&run, 0, sizeof(run));
	run.tab = mf_strtab_new();
	ro.kb = kb;
	ro.strtab = run.tab;
	mf_error_clear(&run.e);
	assert_int_equal(mf_reader_open_mem(&run.r, "t.csv", text, sizeof(text) - 1, &ro, &run.e), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), MF_EFORMAT);
		assert_int_equal(run.e.line, (long)i + 2);
		assert_int_equal(run.e.col, cols[i]);
		assert_non_null(strstr(run.e.msg, "binary data (a NUL byte)"));
	}
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_string_equal(mf_strtab_get(run.tab, run.s.system), "b");
	assert_int_equal(run.s.value[0], 3);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 0);
	finish(&run);
}

static void skip_and_continue(void **state)
{
	struct run run;
	(void)state;
	start(&run, "B0,B1\n1,2\nx,2\n3,4\n5,-6\n7,8\n", NULL);
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), MF_EFORMAT);
	assert_int_equal(run.e.line, 3);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_true(value_of(&run.s, "B0") == 3);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), MF_EFORMAT);
	assert_int_equal(run.e.line, 5);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 1);
	assert_true(value_of(&run.s, "B0") == 7);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), 0);
	finish(&run);
}

/* The caret display shows the faulty field even in a long row. */
static void caret_window(void **state)
{
	char text[4096], buf[2048];
	struct run run;
	size_t i, n;
	(void)state;
	n = (size_t)snprintf(text, sizeof(text), "machine");
	for (i = 145; i < 184; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, ",E%zu", i);
	n += (size_t)snprintf(text + n, sizeof(text) - n, "\nz16");
	for (i = 145; i < 184; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, ",%s", i == 175 ? "12x" : "123456");
	start(&run, text, NULL);
	assert_int_equal(run.open_rc, 0);
	assert_int_equal(mf_reader_next(run.r, &run.s, &run.e), MF_EFORMAT);
	assert_int_equal(run.e.col, 4 + 30 * 7 + 1);
	mf_error_format(&run.e, buf, sizeof(buf));
	assert_non_null(strstr(buf, "t.csv:2:215: error: E175: not a number '12x'"));
	/* A window of the row with the caret under the field. */
	assert_non_null(strstr(buf, "123456,123456,12x,123456"));
	{
		/* The caret sits under the first byte of "12x". */
		const char *l2 = strchr(buf, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
		assert_int_equal(strcspn(l3, "^"), (size_t)(strstr(l2, "12x") - l2));
	}
	finish(&run);
}

/* The line cursor: line ends, CR LF, a last line without a newline, line numbers. */
static void text_lines(void **state)
{
	static const char text[] = "a\r\n\n# c\nlast";
	struct mf_lines c;
	const char *ls, *le;
	long lines;
	(void)state;
	mf_lines_init(&c, text, sizeof(text) - 1);
	assert_int_equal(mf_lines_next(&c, &ls, &le), 1);
	assert_int_equal(le - ls, 1);
	assert_ptr_equal(c.nl, text + 2);
	assert_int_equal(mf_lines_next(&c, &ls, &le), 1);
	assert_ptr_equal(ls, le);
	assert_int_equal(mf_lines_next(&c, &ls, &le), 1);
	assert_int_equal(mf_lines_next(&c, &ls, &le), 1);
	assert_int_equal(c.line, 4);
	assert_int_equal(le - ls, 4);
	assert_ptr_equal(c.nl, text + sizeof(text) - 1);
	assert_int_equal(mf_lines_next(&c, &ls, &le), 0);
	/* A quoted newline does not end a CSV row; an unclosed quote leaves the row open. */
	{
		static const char q[] = "a,\"x\ny\",b\nc\n", open[] = "a,\"x\ny\n";
		assert_ptr_equal(mf_text_line_end(q, q + sizeof(q) - 1, true, &lines), q + 9);
		assert_int_equal(lines, 2);
		assert_ptr_equal(mf_text_line_end(q, q + sizeof(q) - 1, false, &lines), q + 4);
		assert_null(mf_text_line_end(open, open + sizeof(open) - 1, true, &lines));
	}
}

static void text_u64(void **state)
{
	uint64_t v = 7;
	size_t bad;
	(void)state;
	assert_int_equal(mf_u64_parse("18446744073709551615", 20, &v, NULL), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(mf_u64_parse("18446744073709551616", 20, &v, NULL), -2);
	assert_int_equal(mf_u64_parse("000000000000000000000000042", 27, &v, NULL), 0);
	assert_int_equal(v, 42);
	assert_int_equal(mf_u64_parse("12x4", 4, &v, &bad), -1);
	assert_int_equal(bad, 2);
	assert_int_equal(mf_u64_parse("", 0, &v, NULL), -1);
	assert_int_equal(mf_u64_parse("-1", 2, &v, &bad), -1);
	assert_int_equal(bad, 0);
	/* Overflow is found before a later non-digit. */
	assert_int_equal(mf_u64_parse("99999999999999999999x", 21, &v, NULL), -2);
}

static void text_split(void **state)
{
	const char *f[4], *at[4];
	size_t fl[4];
	struct mf_csvsplit sp = {f, fl, at, 4, NULL, 0, NULL, NULL};
	static const char plain[] = "a,,bc", quoted[] = "\"a,b\",\"say \"\"hi\"\"\",c", many[] = "1,2,3,4,5";
	(void)state;
	assert_int_equal(mf_csvsplit(&sp, plain, plain + 5), 3);
	assert_ptr_equal(f[2], plain + 3);
	assert_int_equal(fl[1], 0);
	assert_ptr_equal(at[2], plain + 3);
	assert_int_equal(mf_csvsplit(&sp, quoted, quoted + sizeof(quoted) - 1), 3);
	assert_int_equal(fl[0], 3);
	assert_memory_equal(f[0], "a,b", 3);
	assert_int_equal(fl[1], 8);
	assert_memory_equal(f[1], "say \"hi\"", 8);
	assert_ptr_equal(at[1], quoted + 7);
	assert_ptr_equal(at[2], quoted + sizeof(quoted) - 2);
	assert_int_equal(mf_csvsplit(&sp, many, many + 9), 5);
	{
		static const char unclosed[] = "a,\"bc", after[] = "\"a\"b", inside[] = "a\"b";
		assert_int_equal(mf_csvsplit(&sp, unclosed, unclosed + 5), -1);
		assert_ptr_equal(sp.bad, unclosed + 2);
		assert_int_equal(mf_csvsplit(&sp, after, after + 4), -1);
		assert_ptr_equal(sp.bad, after + 3);
		assert_int_equal(mf_csvsplit(&sp, inside, inside + 3), -1);
		assert_ptr_equal(sp.bad, inside + 1);
		assert_non_null(strstr(sp.why, "unquoted"));
	}
	mf_csvsplit_free(&sp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good_rows),      cmocka_unit_test(nominal_speed), cmocka_unit_test(given_speed),
		cmocka_unit_test(machine_option), cmocka_unit_test(bad_inputs),    cmocka_unit_test(skip_and_continue),
		cmocka_unit_test(nul_in_names),   cmocka_unit_test(caret_window),  cmocka_unit_test(text_lines),
		cmocka_unit_test(text_u64),       cmocka_unit_test(text_split),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
