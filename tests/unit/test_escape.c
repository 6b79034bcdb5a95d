/* SPDX-License-Identifier: MIT */
/*
 * The UTF-8 validator and the JSON, CSV and XML/HTML escapers, fed hostile
 * bytes: overlongs, surrogates, values above U+10FFFF, cut sequences, control
 * characters, quotes, markup and spreadsheet formulas.  JSON output is also
 * reloaded with jansson, which rejects invalid UTF-8 on its own.
 */
#include <sys/stat.h>

#include <jansson.h>

#include "testutil.h"

#include "mfstat/base/escape.h"

#define FFFD "\xEF\xBF\xBD"

/* ---- the validator -------------------------------------------------------------------- */

/* A second decoder written the other way round: take the bits, then check the value. */
static size_t ref_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t v;

	if (n == 0)
		return 0;
	if (s[0] < 0x80)
		len = 1, v = s[0];
	else if ((s[0] & 0xE0) == 0xC0)
		len = 2, v = s[0] & 0x1F;
	else if ((s[0] & 0xF0) == 0xE0)
		len = 3, v = s[0] & 0x0F;
	else if ((s[0] & 0xF8) == 0xF0)
		len = 4, v = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3F);
	}
	if ((len == 2 && v < 0x80) || (len == 3 && v < 0x800) || (len == 4 && v < 0x10000))
		return 0; /* overlong */
	if ((v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF)
		return 0;
	*cp = v;
	return len;
}

static void expect_decode(const char *s, size_t n, size_t want_len, uint32_t want_cp)
{
	uint32_t cp = 0xDEADBEEF;
	size_t len = mf_utf8_decode(s, n, &cp);
	if (len != want_len)
		fail_msg("decode of %zu bytes %02x..: length %zu, want %zu", n, (unsigned char)s[0], len, want_len);
	if (len && cp != want_cp)
		fail_msg("decode of %02x..: U+%04X, want U+%04X", (unsigned char)s[0], (unsigned)cp, (unsigned)want_cp);
	assert_int_equal(mf_utf8_valid(s, n), want_len == n);
}

static void decode_edges(void **state)
{
	(void)state;
	/* The first and last code point of each length, and around the surrogates. */
	expect_decode("\x00", 1, 1, 0);
	expect_decode("\x7F", 1, 1, 0x7F);
	expect_decode("\xC2\x80", 2, 2, 0x80);
	expect_decode("\xDF\xBF", 2, 2, 0x7FF);
	expect_decode("\xE0\xA0\x80", 3, 3, 0x800);
	expect_decode("\xED\x9F\xBF", 3, 3, 0xD7FF);
	expect_decode("\xEE\x80\x80", 3, 3, 0xE000);
	expect_decode("\xEF\xBF\xBF", 3, 3, 0xFFFF);
	expect_decode("\xF0\x90\x80\x80", 4, 4, 0x10000);
	expect_decode("\xF4\x8F\xBF\xBF", 4, 4, 0x10FFFF);
	/* Overlong forms. */
	expect_decode("\xC0\x80", 2, 0, 0);
	expect_decode("\xC1\xBF", 2, 0, 0);
	expect_decode("\xE0\x80\x80", 3, 0, 0);
	expect_decode("\xE0\x9F\xBF", 3, 0, 0);
	expect_decode("\xF0\x80\x80\x80", 4, 0, 0);
	expect_decode("\xF0\x8F\xBF\xBF", 4, 0, 0);
	/* Surrogates, encoded on their own (CESU-8 style). */
	expect_decode("\xED\xA0\x80", 3, 0, 0);
	expect_decode("\xED\xBF\xBF", 3, 0, 0);
	/* Above U+10FFFF, and bytes that never start a sequence. */
	expect_decode("\xF4\x90\x80\x80", 4, 0, 0);
	expect_decode("\xF5\x80\x80\x80", 4, 0, 0);
	expect_decode("\xF8\x88\x80\x80\x80", 5, 0, 0);
	expect_decode("\xFF", 1, 0, 0);
	expect_decode("\x80", 1, 0, 0);
	expect_decode("\xBF", 1, 0, 0);
	/* Cut short by n, by a NUL, by an ASCII byte. */
	expect_decode("\xC3\xA9", 1, 0, 0);
	expect_decode("\xE2\x82\xAC", 2, 0, 0);
	expect_decode("\xF0\x9F\x98\x80", 3, 0, 0);
	expect_decode("\xE2\x82\x00", 3, 0, 0);
	expect_decode("\xE2\x61\xAC", 3, 0, 0); /* E2 a AC */
	assert_int_equal(mf_utf8_decode("a", 0, NULL), 0);
	/* Longer text: valid as a whole, or not because of one sequence inside. */
	assert_true(mf_utf8_valid("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", 14));
	assert_false(mf_utf8_valid("caf\xC3\xA9 \xED\xA0\x80 ok", 12));
	assert_false(mf_utf8_valid("ok \xE0\x80\x80", 6));
	assert_true(mf_utf8_valid("", 0));
}

/* Every sequence of up to three bytes, and four-byte ones over all lead and second bytes. */
static void decode_matches_reference(void **state)
{
	unsigned char b[4];
	uint32_t a, c, cp, rcp;
	size_t n, len, rlen;
	(void)state;

	for (n = 1; n <= 3; n++) {
		uint32_t total = 1u << (8 * n);
		for (a = 0; a < total; a++) {
			for (c = 0; c < n; c++)
				b[c] = (unsigned char)(a >> (8 * c));
			len = mf_utf8_decode((const char *)b, n, &cp);
			rlen = ref_decode(b, n, &rcp);
			if (len != rlen || (len && cp != rcp))
				fail_msg("%zu bytes %02x %02x %02x: %zu, reference %zu", n, b[0], b[1], b[2], len,
					 rlen);
		}
	}
	for (a = 0xF0; a <= 0xFF; a++)
		for (c = 0; c < 256; c++) {
			static const unsigned char tails[] = {0x00, 0x41, 0x80, 0x9F, 0xBF, 0xC0};
			size_t i, j;
			for (i = 0; i < sizeof(tails); i++)
				for (j = 0; j < sizeof(tails); j++) {
					b[0] = (unsigned char)a, b[1] = (unsigned char)c, b[2] = tails[i],
					b[3] = tails[j];
					len = mf_utf8_decode((const char *)b, 4, &cp);
					rlen = ref_decode(b, 4, &rcp);
					if (len != rlen || (len && cp != rcp))
						fail_msg("%02x %02x %02x %02x: %zu, reference %zu", b[0], b[1], b[2],
							 b[3], len, rlen);
				}
		}
}

/* ---- JSON ------------------------------------------------------------------------------ */

static void expect_text(const char *in, unsigned flags, const char *want)
{
	struct mf_strbuf sb;
	mf_strbuf_init(&sb);
	mf_escape_text(&sb, in, flags);
	assert_string_equal(mf_strbuf_str(&sb), want);
	mf_strbuf_free(&sb);
}

/* Text for a terminal: no byte that a terminal acts on gets through. */
static void text_cases(void **state)
{
	(void)state;
	expect_text("plain \xc3\xa9 text", 0, "plain \xc3\xa9 text");
	expect_text("\x1b[31mred\x1b]0;title\x07", 0, "\\x1b[31mred\\x1b]0;title\\x07");
	expect_text("a\tb\nc\rd\x7f", 0, "a\\x09b\\x0ac\\x0dd\\x7f");
	expect_text("a\tb\nc", MF_ESCAPE_TEXT_KEEP_NL | MF_ESCAPE_TEXT_KEEP_TAB, "a\tb\nc");
	expect_text(
		"c1 \xc2\x9b"
		"31m",
		0, "c1 \\u009b31m");                             /* CSI as a C1 control */
	expect_text("sur\xed\xa0\x80", 0, "sur\\xed\\xa0\\x80"); /* not UTF-8: each byte */
	expect_text("cut\xe2\x82", 0, "cut\\xe2\\x82");
	expect_text("", 0, "");
}

static void expect_json(const char *in, const char *want)
{
	struct mf_strbuf sb;
	char *mem = NULL;
	size_t memlen = 0;
	FILE *fp = open_memstream(&mem, &memlen);

	mf_strbuf_init(&sb);
	mf_escape_json(&sb, in);
	assert_string_equal(mf_strbuf_str(&sb), want);
	/* The stream variant writes the same bytes. */
	assert_non_null(fp);
	mf_escape_json_file(fp, in);
	assert_int_equal(fclose(fp), 0);
	assert_string_equal(mem, want);
	free(mem);
	mf_strbuf_free(&sb);
}

static void json_cases(void **state)
{
	(void)state;
	expect_json(NULL, "null");
	expect_json("", "\"\"");
	expect_json("SYSA", "\"SYSA\"");
	expect_json("a\"b\\c/d", "\"a\\\"b\\\\c/d\"");
	expect_json("l1\nl2\r\tx", "\"l1\\nl2\\r\\tx\"");
	expect_json("\x01\x08\x0C\x1B[31m\x1F\x7F", "\"\\u0001\\u0008\\u000c\\u001b[31m\\u001f\\u007f\"");
	/* Valid UTF-8 is kept as it is, U+FFFD and the C1 controls too. */
	expect_json("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 " FFFD " \xC2\x85",
		    "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 " FFFD " \xC2\x85\"");
	/* One \ufffd per byte that is not valid UTF-8. */
	expect_json("SYS\xED\xA0\x80", "\"SYS\\ufffd\\ufffd\\ufffd\"");
	expect_json("SYS\xE0\x80\x80", "\"SYS\\ufffd\\ufffd\\ufffd\"");
	expect_json("\xC0\xAF", "\"\\ufffd\\ufffd\"");
	expect_json("\xF4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	expect_json("end\xC3", "\"end\\ufffd\"");
	expect_json("x\xE2\x82\"", "\"x\\ufffd\\ufffd\\\"\"");
	expect_json("\xFF\xFE", "\"\\ufffd\\ufffd\"");
}

/* Deterministic pseudo-random bytes (xorshift32). */
static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/*
 * Fills in[0..cap) with a NUL-terminated string of up to cap - 1 bytes: half of them
 * any byte, half picked among those that start, continue or break sequences.
 */
static void random_text(char *in, size_t cap, uint32_t *seed)
{
	static const unsigned char pick[] = {0x01, 0x0A, 0x1F, '"',  '\\', '<',  '&',  '\'', 0x7F,
					     0x80, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xA0, 0x9F,
					     0xEF, 0xF0, 0xF4, 0x90, 0x8F, 0xF5, 0xFF};
	size_t n = rnd(seed) % cap, i;

	for (i = 0; i < n; i++) {
		uint32_t r = rnd(seed);
		in[i] = (char)(r & 1 ? pick[(r >> 1) % sizeof(pick)] : (unsigned char)(r >> 8));
	}
	in[n] = '\0';
}

/* Whatever the bytes, the output parses as JSON, and valid UTF-8 comes back unchanged. */
static void json_reloads(void **state)
{
	uint32_t seed = 12345;
	int iter;
	(void)state;

	for (iter = 0; iter < 20000; iter++) {
		char in[24];
		struct mf_strbuf sb;
		json_t *j;
		json_error_t err;

		random_text(in, sizeof(in), &seed);
		mf_strbuf_init(&sb);
		mf_escape_json(&sb, in);
		assert_true(mf_utf8_valid(sb.buf, sb.len));
		j = json_loads(mf_strbuf_str(&sb), JSON_DECODE_ANY, &err);
		if (!j || !json_is_string(j))
			fail_msg("not a JSON string: %s (%s)", mf_strbuf_str(&sb), err.text);
		if (mf_utf8_valid(in, strlen(in)))
			assert_string_equal(json_string_value(j), in);
		json_decref(j);
		mf_strbuf_free(&sb);
	}
}

/* ---- CSV ------------------------------------------------------------------------------- */

static void expect_csv(const char *in, unsigned flags, const char *want)
{
	struct mf_strbuf sb;
	char *mem = NULL;
	size_t memlen = 0;
	FILE *fp = open_memstream(&mem, &memlen);

	mf_strbuf_init(&sb);
	mf_escape_csv(&sb, in, flags);
	assert_string_equal(mf_strbuf_str(&sb), want);
	assert_non_null(fp);
	mf_escape_csv_file(fp, in, flags);
	assert_int_equal(fclose(fp), 0);
	assert_string_equal(mem, want);
	free(mem);
	mf_strbuf_free(&sb);
}

static void csv_cases(void **state)
{
	const unsigned T = MF_ESCAPE_CSV_TEXT;
	(void)state;
	expect_csv(NULL, T, "");
	expect_csv("", T, "");
	expect_csv("SYSA", T, "SYSA");
	/* RFC 4180: quotes only where needed, with quotes doubled. */
	expect_csv("a,b", 0, "\"a,b\"");
	expect_csv("LP \"one\"", 0, "\"LP \"\"one\"\"\"");
	expect_csv("two\nlines", 0, "\"two\nlines\"");
	expect_csv("cr\r", 0, "\"cr\r\"");
	expect_csv("tab\there", 0, "tab\there");
	expect_csv("<script>", T, "<script>");
	/* The formula guard, for text only. */
	expect_csv("=cmd|' /C calc'!A0", T, "'=cmd|' /C calc'!A0");
	expect_csv("=cmd|' /C calc'!A0", 0, "=cmd|' /C calc'!A0");
	expect_csv("+1", T, "'+1");
	expect_csv("-5", T, "'-5");
	expect_csv("-5", 0, "-5");
	expect_csv("@SUM(A1:A2)", T, "'@SUM(A1:A2)");
	expect_csv("\t=1", T, "'\t=1");
	expect_csv("\r=1", T, "\"'\r=1\"");
	expect_csv("=HYPERLINK(\"http://x\",\"y\")", T, "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
	expect_csv("a=b", T, "a=b");
	expect_csv("'quoted", T, "'quoted");
	/* Invalid UTF-8 becomes U+FFFD, inside quotes too; control characters stay. */
	expect_csv("SYS\xED\xA0\x80", T, "SYS" FFFD FFFD FFFD);
	expect_csv("\xE0\x80\x80,x", T, "\"" FFFD FFFD FFFD ",x\"");
	expect_csv("-\xFF", T, "'-" FFFD);
	expect_csv("ctl\x01\x1B", T, "ctl\x01\x1B");
	expect_csv("caf\xC3\xA9", T, "caf\xC3\xA9");
}

/* On a terminal: control characters, C1 controls and bad bytes escaped as the text report does. */
static void csv_terminal_cases(void **state)
{
	const unsigned T = MF_ESCAPE_CSV_TEXT | MF_ESCAPE_CSV_TERMINAL;
	(void)state;
	expect_csv("SYSA", T, "SYSA");
	expect_csv("\x1B]0;pwned\x07", T, "\\x1b]0;pwned\\x07");
	expect_csv("ctl\x01\x7F", T, "ctl\\x01\\x7f");
	expect_csv("c1\xC2\x9B", T, "c1\\u009b");
	expect_csv(
		"A\xFF"
		"B",
		T, "A\\xffB");
	/* CR and LF are escaped, so they need no quotes; a comma or a quote still does. */
	expect_csv("two\nlines", T, "two\\x0alines");
	expect_csv("a,\x1B", T, "\"a,\\x1b\"");
	expect_csv("q\"\x07", T, "\"q\"\"\\x07\"");
	/* The formula guard as in a file, before what the terminal is shown. */
	expect_csv("=1+\x1B", T, "'=1+\\x1b");
	expect_csv("\t=1", T, "'\\x09=1");
	expect_csv("caf\xC3\xA9", T, "caf\xC3\xA9");
}

/* MF_ESCAPE_CSV_DATA: a ' and escapes only where needed, and mf_csv_data_decode undoes them. */
static void csv_data_cases(void **state)
{
	const unsigned D = MF_ESCAPE_CSV_DATA;
	(void)state;
	expect_csv("SYSA", D, "SYSA");
	expect_csv("a\\b", D, "a\\b");
	expect_csv("=cmd|' /C calc'!A0", D, "'=cmd|' /C calc'!A0");
	expect_csv("-LP3", D, "'-LP3");
	expect_csv("'quoted", D, "''quoted");
	expect_csv(
		"A\xFF"
		"B\\",
		D, "'A\\xffB\\\\");
	expect_csv("SYS\xED\xA0\x80", D, "'SYS\\xed\\xa0\\x80");
	expect_csv("\x1B]0;pwned\x07", D, "\x1B]0;pwned\x07"); /* a file keeps control characters */
	expect_csv("\x1B]0;pwned\x07", D | MF_ESCAPE_CSV_TERMINAL, "\\x1b]0;pwned\\x07");
	expect_csv(" lead", D, "\" lead\"");
	expect_csv("=a,b", D, "\"'=a,b\"");
}

static size_t data_decoded(const char *cell, char *out)
{
	size_t n = strlen(cell), i, o = 0;
	char *un = malloc(n + 1);
	assert_non_null(un);
	if (n && cell[0] == '"') { /* RFC 4180 quotes off, as the reader takes them */
		for (i = 1; i + 1 < n; i++) {
			un[o++] = cell[i];
			if (cell[i] == '"')
				i++;
		}
	} else {
		memcpy(un, cell, n);
		o = n;
	}
	o = mf_csv_data_decode(un, o, out);
	free(un);
	return o;
}

/* Whatever the bytes: valid UTF-8, no formula start, and decoding gives the bytes back. */
static void csv_data_roundtrip(void **state)
{
	uint32_t seed = 4242;
	int iter;
	(void)state;
	for (iter = 0; iter < 20000; iter++) {
		char in[24], out[128];
		struct mf_strbuf sb;
		size_t n;
		random_text(in, sizeof(in), &seed);
		if (iter % 3 == 0 && strlen(in) + 1 < sizeof(in)) { /* often at the start: ' = + - @ tab CR */
			memmove(in + 1, in, strlen(in) + 1);
			in[0] = "'=+-@\t\r"[rnd(&seed) % 7];
		}
		mf_strbuf_init(&sb);
		mf_escape_csv(&sb, in, MF_ESCAPE_CSV_DATA);
		assert_true(mf_utf8_valid(sb.buf, sb.len));
		if (sb.len) {
			const char *c = sb.buf[0] == '"' ? sb.buf + 1 : sb.buf;
			if (strchr("=+-@\t\r", *c))
				fail_msg("cell starts a formula: %s", sb.buf);
		}
		n = data_decoded(mf_strbuf_str(&sb), out);
		if (n != strlen(in) || memcmp(out, in, n) != 0)
			fail_msg("not the same bytes back: cell %s", sb.buf);
		mf_strbuf_free(&sb);
	}
}

/* ---- XML and HTML ---------------------------------------------------------------------- */

static void expect_xml(const char *in, const char *want)
{
	struct mf_strbuf sb;
	mf_strbuf_init(&sb);
	mf_escape_xml(&sb, in);
	assert_string_equal(mf_strbuf_str(&sb), want);
	mf_strbuf_free(&sb);
}

static void xml_cases(void **state)
{
	struct mf_strbuf sb;
	(void)state;
	expect_xml("<script>alert(\"x\")</script>", "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
	expect_xml("a & b's", "a &amp; b&#39;s");
	expect_xml("plain", "plain");
	expect_xml("", "");
	expect_xml(NULL, "");
	/* Valid UTF-8 stays as it is: é, €, U+1F600, U+FFFD itself. */
	expect_xml("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 " FFFD,
		   "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 " FFFD);
	/* Every byte that is not valid UTF-8 becomes one U+FFFD. */
	expect_xml("\xFF", FFFD);
	expect_xml("a\x80z", "a" FFFD "z");
	expect_xml("end\xC3", "end" FFFD);                   /* truncated */
	expect_xml("\xC3<", FFFD "&lt;");                    /* continuation missing */
	expect_xml("\xC0\xAF", FFFD FFFD);                   /* overlong '/' */
	expect_xml("\xE0\x80\x80", FFFD FFFD FFFD);          /* overlong NUL */
	expect_xml("\xED\xA0\x80", FFFD FFFD FFFD);          /* surrogate */
	expect_xml("\xF4\x90\x80\x80", FFFD FFFD FFFD FFFD); /* above U+10FFFF */
	expect_xml("\xF5\x80", FFFD FFFD);
	expect_xml("x\xE2\x82", "x" FFFD FFFD);
	/* Characters XML 1.0 does not allow, DEL and the C1 controls; tab, LF and CR stay. */
	expect_xml(
		"a\x01"
		"b\x1F\tc\nd\re",
		"a" FFFD "b" FFFD "\tc\nd\re");
	expect_xml("\x1B[31m", FFFD "[31m");
	expect_xml("\x7F|\xC2\x80|\xC2\x9F|\xC2\xA0", FFFD "|" FFFD "|" FFFD "|\xC2\xA0");
	expect_xml("\xEF\xBF\xBE\xEF\xBF\xBF", FFFD FFFD);
	/* A byte count: a sequence cut by it is invalid, what follows is not read. */
	mf_strbuf_init(&sb);
	mf_escape_xml_n(&sb, "a<\xC3\xA9z", 3);
	assert_string_equal(mf_strbuf_str(&sb), "a&lt;" FFFD);
	mf_strbuf_free(&sb);
	mf_strbuf_init(&sb);
	mf_escape_xml_n(&sb, "a<\xC3\xA9z", 4);
	assert_string_equal(mf_strbuf_str(&sb), "a&lt;\xC3\xA9");
	mf_escape_xml_n(&sb, NULL, 4);
	assert_string_equal(mf_strbuf_str(&sb), "a&lt;\xC3\xA9");
	mf_strbuf_free(&sb);
}

/* Whatever the bytes, the XML output is valid UTF-8 with no markup character left bare. */
static void xml_random(void **state)
{
	uint32_t seed = 777;
	int iter;
	(void)state;

	for (iter = 0; iter < 20000; iter++) {
		char in[24];
		struct mf_strbuf sb;
		size_t i;

		random_text(in, sizeof(in), &seed);
		mf_strbuf_init(&sb);
		mf_escape_xml(&sb, in);
		assert_true(mf_utf8_valid(sb.buf ? sb.buf : "", sb.len));
		for (i = 0; i < sb.len; i++) {
			unsigned char c = (unsigned char)sb.buf[i];
			assert_true(c != '<' && c != '>' && c != '"' && c != '\'');
			assert_true(c >= 0x20 || c == '\t' || c == '\n' || c == '\r');
			assert_true(c != 0x7F);
		}
		mf_strbuf_free(&sb);
	}
}

/* ---- the measure reports ---------------------------------------------------------------- */

/* A profile run whose names (command, thread, module, function, file) are hostile. */
static void hostile_run(struct mf_mrun *run)
{
	char *argv[] = {"+x", "=cmd|' /C calc'!A0", "\xED\xA0\x80"};
	struct mf_mstream *st;
	struct mf_msym *sym;
	uint32_t mod;
	int i;

	mf_mrun_init(run);
	snprintf(run->measurement, sizeof(run->measurement), "profile");
	assert_int_equal(mf_mrun_set_argv(run, 3, argv), 0);
	run->pid = 4242;
	run->start_us = INT64_C(1741046400000000);
	run->wall_s = 1.0;
	run->line_size = 64;
	snprintf(run->host, sizeof(run->host), "@host\x1B[31m");
	st = mf_mrun_add_stream(run);
	assert_non_null(st);
	snprintf(st->name, sizeof(st->name), "task-clock");
	st->role = MF_ROLE_CPU;
	st->period = 1000000;
	st->clock = true;
	st->id = 101;
	mod = mf_mrun_module(run, "/opt/x/-mod\xE0\x80\x80");
	assert_non_null(mf_mrun_thread(run, 4242, 4242, "@comm"));
	for (i = 0; i < 10; i++) {
		struct mf_msample *s = mf_mrun_add_sample(run);
		assert_non_null(s);
		s->pid = s->tid = 4242;
		s->time = (uint64_t)i * 1000;
		s->ip = 0x555555554000 + 0x1010;
		s->vaddr = s->off = 0x1010;
		s->mod = mod;
		s->stream = 0;
		s->period = 1000000;
	}
	sym = mf_mrun_add_sym(run);
	assert_non_null(sym);
	sym->mod = mod;
	sym->addr = 0x1010;
	sym->func = mf_mrun_str(run, "=SUM(A1:A9)");
	sym->func_start = 0x1000;
	sym->func_size = 0x100;
	sym->file = mf_mrun_str(run, "+src\"q\".c");
	sym->line = 7;
	mf_mrun_sort_syms(run);
}

static char *slurp_file(const char *path)
{
	char *buf = NULL;
	size_t len = 0, n;
	char chunk[4096];
	FILE *in = fopen(path, "rb"), *out = open_memstream(&buf, &len);
	assert_non_null(in);
	assert_non_null(out);
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		fwrite(chunk, 1, n, out);
	fclose(in);
	fclose(out);
	return buf;
}

static void expect_in(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("no \"%s\" in:\n%s", want, text);
}

/* CSV tables of a measure report: names guarded and valid UTF-8; numbers as they were. */
static void mreport_csv(void **state)
{
	struct mf_mrun run;
	struct mf_mreport_opts o = {.format = MF_MFMT_CSV};
	struct mf_error e;
	char dir[] = "/tmp/mfstat-escape-XXXXXX", path[256];
	static const char *const files[] = {"run.csv", "threads.csv", "modules.csv", "functions.csv"};
	char *t[4];
	size_t i;
	(void)state;

	hostile_run(&run);
	o.summary = (struct mf_cutoff){1, 100, 5};
	o.detail = (struct mf_cutoff){5, 90, 1};
	assert_non_null(mkdtemp(dir));
	mf_error_clear(&e);
	if (mf_mreport_csv_dir(dir, &run, &o, &e) != 0)
		fail_msg("mf_mreport_csv_dir: %s", e.msg);
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		t[i] = slurp_file(path);
		assert_true(mf_utf8_valid(t[i], strlen(t[i])));
	}
	/* the command as a shell would take it, then guarded */
	expect_in(t[0], "\ncommand,'+x '=cmd|'\\'' /C calc'\\''!A0' '" FFFD FFFD FFFD "'\n");
	expect_in(t[0], "\nhost,'@host\x1B[31m\n");
	expect_in(t[1], "\n4242,4242,'@comm,100,");
	expect_in(t[2], "\n'-mod" FFFD FFFD FFFD ",/opt/x/-mod" FFFD FFFD FFFD ",100,");
	expect_in(t[3], "\n'=SUM(A1:A9),'-mod" FFFD FFFD FFFD ",\"'+src\"\"q\"\".c\",0x1000,100,");
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
		free(t[i]);
	}
	/* the other tables */
	{
		static const char *const rest[] = {"metrics.csv", "lines.csv", "cache_lines.csv"};
		for (i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, rest[i]);
			unlink(path);
		}
	}
	rmdir(dir);
	mf_mrun_free(&run);
}

/* The JSON of a measure report reloads, with the names as given where they were valid UTF-8. */
static void mreport_json(void **state)
{
	struct mf_mrun run;
	struct mf_mreport_opts o = {.format = MF_MFMT_JSON};
	struct mf_error e;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	json_t *j, *fn;
	json_error_t jerr;
	(void)state;

	hostile_run(&run);
	o.summary = (struct mf_cutoff){1, 100, 5};
	o.detail = (struct mf_cutoff){5, 90, 1};
	assert_non_null(fp);
	mf_error_clear(&e);
	if (mf_mreport_write(fp, &run, &o, &e) != 0)
		fail_msg("mf_mreport_write: %s", e.msg);
	fclose(fp);
	assert_true(mf_utf8_valid(buf, len));
	j = json_loads(buf, 0, &jerr);
	if (!j)
		fail_msg("not JSON: %s at %d:%d", jerr.text, jerr.line, jerr.column);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "run"), "host")), "@host\x1B[31m");
	fn = json_array_get(json_object_get(j, "functions"), 0);
	assert_string_equal(json_string_value(json_object_get(fn, "function")), "=SUM(A1:A9)");
	assert_string_equal(json_string_value(json_object_get(fn, "module")), "-mod" FFFD FFFD FFFD);
	assert_string_equal(json_string_value(json_object_get(fn, "file")), "+src\"q\".c");
	json_decref(j);
	free(buf);
	mf_mrun_free(&run);
}

/* The measure text report: the host's ESC [31m is shown as \x1b[31m, no control byte but LF and tab. */
static void mreport_text(void **state)
{
	struct mf_mrun run;
	struct mf_mreport_opts o = {.format = MF_MFMT_TEXT};
	struct mf_error e;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp = open_memstream(&buf, &len);
	(void)state;

	hostile_run(&run);
	o.summary = (struct mf_cutoff){1, 100, 5};
	o.detail = (struct mf_cutoff){5, 90, 1};
	assert_non_null(fp);
	mf_error_clear(&e);
	if (mf_mreport_write(fp, &run, &o, &e) != 0)
		fail_msg("mf_mreport_write: %s", e.msg);
	fclose(fp);
	for (i = 0; i < len; i++)
		if (((unsigned char)buf[i] < 0x20 && buf[i] != '\n' && buf[i] != '\t') || buf[i] == 0x7f)
			fail_msg("control byte 0x%02x at %zu", (unsigned char)buf[i], i);
	assert_non_null(strstr(buf, "@host\\x1b[31m"));
	free(buf);
	mf_mrun_free(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decode_edges),   cmocka_unit_test(decode_matches_reference),
		cmocka_unit_test(json_cases),     cmocka_unit_test(json_reloads),
		cmocka_unit_test(csv_cases),      cmocka_unit_test(xml_cases),
		cmocka_unit_test(xml_random),     cmocka_unit_test(mreport_csv),
		cmocka_unit_test(mreport_json),   cmocka_unit_test(text_cases),
		cmocka_unit_test(mreport_text),   cmocka_unit_test(csv_terminal_cases),
		cmocka_unit_test(csv_data_cases), cmocka_unit_test(csv_data_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
