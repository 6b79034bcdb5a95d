/* SPDX-License-Identifier: MIT */
/*
 * SVG charts: nice ticks and golden charts in tests/svg/NAME.svg.exact
 * (MFSTAT_UPDATE=1 rewrites them).  Every chart is also checked for balanced tags,
 * no scripts and no links.
 */
#include <math.h>

#include "testutil.h"

#include "mfstat/report/svg.h"

/* ---- ticks -------------------------------------------------------------- */

static void expect_ticks(double lo, double hi, size_t max, const double *want, size_t nwant)
{
	double got[32];
	size_t n = mf_svg_ticks(lo, hi, max, got), i;

	if (n != nwant)
		fail_msg("ticks %.17g..%.17g max %zu: %zu ticks, want %zu", lo, hi, max, n, nwant);
	for (i = 0; i < n; i++)
		if (got[i] != want[i] || signbit(got[i]) != signbit(want[i]))
			fail_msg("ticks %.17g..%.17g: tick %zu is %.17g, want %.17g", lo, hi, i, got[i], want[i]);
}

static void ticks(void **state)
{
	static const double t01[] = {0, 0.2, 0.4, 0.6, 0.8, 1};
	static const double t073[] = {0, 2, 4, 6, 8};
	static const double t33[] = {0, 1, 2, 3, 4, 5, 6};
	static const double tm2[] = {-2, -1, 0, 1, 2, 3, 4, 5};
	static const double t1e9[] = {0, 2e8, 4e8, 6e8, 8e8, 1e9};
	static const double t1e9h[] = {1e9, 1e9 + 1000, 1e9 + 2000, 1e9 + 3000, 1e9 + 4000};
	static const double t25[] = {0, 2.5, 5, 7.5, 10};
	static const double tneg[] = {-6, -5, -4, -3, -2, -1, 0};
	static const double tzero[] = {0, 0.2, 0.4, 0.6, 0.8, 1};
	static const double tsmall[] = {0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7};
	static const double t3[] = {0, 50, 100};
	static const double tsym[] = {-0.6, -0.4, -0.2, 0, 0.2, 0.4, 0.6};
	double buf[8];
	(void)state;

	expect_ticks(0, 1, 8, t01, 6);
	expect_ticks(0, 7.3, 8, t073, 5);
	expect_ticks(3, 3, 8, t33, 7);
	expect_ticks(-2, 5, 8, tm2, 8);
	expect_ticks(5, -2, 8, tm2, 8); /* swapped */
	expect_ticks(0, 1e9, 8, t1e9, 6);
	expect_ticks(1e9, 1e9 + 3600, 8, t1e9h, 5);
	expect_ticks(0, 10, 5, t25, 5);
	expect_ticks(-3, -3, 8, tneg, 7); /* 2 * -3 .. 0 */
	expect_ticks(0, 0, 8, tzero, 6);
	expect_ticks(0.3, 0.7, 9, tsmall, 9);
	expect_ticks(0, 100, 3, t3, 3);
	expect_ticks(-0.5, 0.5, 8, tsym, 7); /* 0 is +0 */

	assert_int_equal(mf_svg_ticks(0, 1, 0, buf), 0);
	assert_int_equal(mf_svg_ticks(NAN, 1, 8, buf), 0);
	assert_int_equal(mf_svg_ticks(0, INFINITY, 8, buf), 0);
	assert_int_equal(mf_svg_ticks(-1e308, 1e308, 8, buf), 0);
	assert_int_equal(mf_svg_ticks(4, 9, 1, buf), 1);
	assert_true(buf[0] == 4);
	/* Ranges too narrow for doubles count as a point. */
	assert_int_equal(mf_svg_ticks(1e9, 1e9 + 1e-6, 8, buf), 5);
	assert_true(buf[0] == 0 && buf[4] == 2e9);
	/* Always covering, never more than max, for many ranges. */
	for (int i = 1; i < 2000; i++) {
		double lo = (i % 7 - 3) * 1.37 * i, hi = lo + i * 0.731 + (i % 3) * 100;
		for (size_t max = 2; max <= 8; max++) {
			size_t n = mf_svg_ticks(lo, hi, max, buf), k;
			double step;
			assert_true(n >= 2 && n <= max);
			step = buf[1] - buf[0];
			assert_true(buf[0] <= lo + step * 1e-6);
			assert_true(buf[n - 1] >= hi - step * 1e-6);
			for (k = 2; k < n; k++)
				assert_true(fabs(buf[k] - buf[k - 1] - step) <= step * 1e-6);
		}
	}
}

/* ---- checks on whole charts --------------------------------------------- */

/* Balanced tags, quoted attributes, entities only from the escaper, no scripts, no links. */
static void well_formed(const char *svg)
{
	const char *stack[32], *p = svg, *h;
	size_t depth = 0, nsvg = 0, nend = 0, len = strlen(svg);

	assert_true(len > 20);
	assert_memory_equal(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" ", 40);
	assert_string_equal(svg + len - 7, "</svg>\n");
	assert_null(strstr(svg, "<script"));
	assert_null(strstr(svg, "<SCRIPT"));
	assert_null(strstr(svg, "href"));
	assert_null(strstr(svg, "url("));
	assert_null(strstr(svg, " id="));
	for (h = strstr(svg, "http"); h; h = strstr(h + 1, "http"))
		assert_memory_equal(h, "http://www.w3.org/2000/svg\"", 27);
	for (h = strstr(svg, "<svg"); h; h = strstr(h + 1, "<svg"))
		nsvg++;
	for (h = strstr(svg, "</svg>"); h; h = strstr(h + 1, "</svg>"))
		nend++;
	assert_int_equal(nsvg, nend);

	while (*p) {
		if (*p == '&') {
			static const char *const ent[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
			size_t k;
			for (k = 0; k < 5; k++)
				if (strncmp(p, ent[k], strlen(ent[k])) == 0)
					break;
			if (k == 5)
				fail_msg("bad entity at: %.40s", p);
			p++;
			continue;
		}
		if (*p == '>')
			fail_msg("stray '>' at: %.40s", p);
		if (*p != '<') {
			p++;
			continue;
		}
		if (p[1] == '/') {
			size_t n = strcspn(p + 2, ">");
			assert_true(depth > 0);
			depth--;
			if (strncmp(stack[depth], p + 2, n) != 0 || (stack[depth][n] != ' ' && stack[depth][n] != '>'))
				fail_msg("</%.*s> closes <%.20s", (int)n, p + 2, stack[depth]);
			p += 2 + n + 1;
			continue;
		}
		{
			const char *name = p + 1, *q = name;
			int inq = 0;
			while (*q >= 'a' && *q <= 'z')
				q++;
			assert_true(q > name);
			for (; *q && (inq || *q != '>'); q++) {
				if (*q == '"')
					inq = !inq;
				else if (inq && (*q == '<' || *q == '>'))
					fail_msg("unescaped %c in an attribute at: %.40s", *q, q);
			}
			assert_true(*q == '>');
			if (q[-1] != '/') {
				assert_true(depth < 32);
				stack[depth++] = name;
			}
			/* One element per line: every start tag starts a line. */
			if (p != svg && p[-1] != '\n')
				fail_msg("start tag inside a line at: %.40s", p);
			p = q + 1;
		}
	}
	assert_int_equal(depth, 0);
}

static char *read_all(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long n;
	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	*len = fread(buf, 1, (size_t)n, fp);
	buf[*len] = '\0';
	fclose(fp);
	return buf;
}

static void golden(const char *name, const char *svg)
{
	const char *upd = getenv("MFSTAT_UPDATE");
	char path[1024];
	size_t len = 0, i, line = 1;
	char *want;

	well_formed(svg);
	snprintf(path, sizeof(path), "%s/tests/svg/%s.svg.exact", MFSTAT_SOURCE_DIR, name);
	if (upd && strcmp(upd, "1") == 0) {
		FILE *fp = fopen(path, "wb");
		assert_non_null(fp);
		assert_int_equal(fwrite(svg, 1, strlen(svg), fp), strlen(svg));
		assert_int_equal(fclose(fp), 0);
		return;
	}
	want = read_all(path, &len);
	if (!want)
		fail_msg("%s is missing (MFSTAT_UPDATE=1 writes it)", path);
	for (i = 0; i < len && svg[i] && svg[i] == want[i]; i++)
		if (svg[i] == '\n')
			line++;
	if (i != len || svg[i] != '\0') {
		size_t s = i;
		while (s > 0 && want[s - 1] != '\n')
			s--;
		fail_msg("%s differs at line %zu:\n  want: %.120s\n  got:  %.120s\n(MFSTAT_UPDATE=1 rewrites it)", path,
			 line, want + s, svg + s);
	}
	free(want);
}

/* Renders c twice (the output must not change) and compares it with the golden file. */
static void check_chart(const char *name, const struct mf_svg_chart *c, int want_rc)
{
	struct mf_strbuf a, b;
	mf_strbuf_init(&a);
	mf_strbuf_init(&b);
	assert_int_equal(mf_svg_chart(&a, c), want_rc);
	assert_int_equal(mf_svg_chart(&b, c), want_rc);
	assert_false(a.failed);
	assert_string_equal(mf_strbuf_str(&a), mf_strbuf_str(&b));
	golden(name, mf_strbuf_str(&a));
	mf_strbuf_free(&a);
	mf_strbuf_free(&b);
}

static struct mf_svg_chart chart_init(void)
{
	struct mf_svg_chart c;
	memset(&c, 0, sizeof(c));
	c.width = 760;
	c.height = 260;
	c.y_min = NAN;
	c.y_max = NAN;
	return c;
}

static const char *const band_names[] = {"LSPR LOW", "LSPR HIGH", "idle <5%"};
static const char *const band_colors[] = {"#2ca02c", "#d62728", "#7f7f7f"};

/* ---- golden charts ------------------------------------------------------ */

/* Two lines over 24 points: a gap of two in the first, a lone point in the second, two bands. */
static void line_basic(void **state)
{
	double x[24], y1[24], y2[24];
	int band[24];
	struct mf_svg_series s[2] = {{"CPI", "#1f77b4", y1}, {"RNI <avg> & \"more\"", "#ff7f0e", y2}};
	struct mf_svg_chart c = chart_init();
	size_t i;
	(void)state;

	for (i = 0; i < 24; i++) {
		x[i] = (double)i;
		y1[i] = 2.0 + (double)(i % 5) * 0.1;
		y2[i] = 0.8 + (double)i * 0.02;
		band[i] = i < 6 ? 0 : i < 12 ? -1 : i < 18 ? 1 : 0;
	}
	y1[9] = y1[10] = NAN;
	y2[13] = y2[15] = NAN;
	c.title = "CPI & RNI of 'SYSA' <GCP>";
	c.y_label = "cycles/instr";
	c.n = 24;
	c.x = x;
	c.nseries = 2;
	c.series = s;
	c.band = band;
	c.nbands = 2;
	c.band_names = band_names;
	c.band_colors = band_colors;
	check_chart("line_basic", &c, 0);
}

/* Three days of 15-minute intervals on a UTC time axis, y from 0. */
static void time_3days(void **state)
{
	enum { N = 3 * 96 };
	double x[N], y[N];
	struct mf_svg_series s = {"SYSA GCP", "#1f77b4", y};
	struct mf_svg_chart c = chart_init();
	size_t i;
	(void)state;

	for (i = 0; i < N; i++) {
		x[i] = 1741046400.0 + 900.0 * (double)i; /* 2025-03-04T00:00:00Z */
		y[i] = 100 + (double)(i * 37 % 50) + (double)(i / 12);
	}
	c.title = "LPARCPU, 3 days";
	c.y_label = "% engine";
	c.n = N;
	c.x = x;
	c.x_is_time = true;
	c.nseries = 1;
	c.series = &s;
	c.y_min = 0;
	check_chart("time_3days", &c, 0);
}

/* The same days in a zone two hours east: ticks on local midnights and noons, day labels with the
 * year, a caption with the year and zone, and a dashed line at 4 engines (400 %) above the data. */
static void time_zone_ref(void **state)
{
	enum { N = 3 * 96 };
	double x[N], y[N];
	struct mf_svg_series s = {"SYSA GCP", "#1f77b4", y};
	struct mf_svg_chart c = chart_init();
	size_t i;
	(void)state;

	for (i = 0; i < N; i++) {
		x[i] = 1741046400.0 + 900.0 * (double)i; /* 2025-03-04T00:00:00Z */
		y[i] = 100 + (double)(i * 37 % 50) + (double)(i / 12);
	}
	c.title = "LPARCPU, 3 days, +02:00";
	c.y_label = "%";
	c.n = N;
	c.x = x;
	c.x_is_time = true;
	c.x_offset = 7200;
	c.x_zone = "+02:00";
	c.nseries = 1;
	c.series = &s;
	c.y_min = 0;
	c.ref_label = "4 engines";
	c.ref_y = 400;
	c.max_points = 168;
	check_chart("time_zone_ref", &c, 0);
}

/* Five stacked series over 12 hours, one value missing. */
static void stacked_bars(void **state)
{
	enum { N = 12 };
	double x[N], y[5][N];
	static const char *const names[] = {"L2P", "L3P", "L4LP", "L4RP", "MEMP"};
	static const char *const colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"};
	struct mf_svg_series s[5];
	struct mf_svg_chart c = chart_init();
	size_t i, k;
	(void)state;

	for (i = 0; i < N; i++) {
		x[i] = 1741068000.0 + 3600.0 * (double)i; /* 2025-03-04T06:00:00Z */
		y[0][i] = 80 + (double)(i % 4);
		y[1][i] = 10 - (double)(i % 3) * 0.5;
		y[2][i] = 3 + (double)(i % 2) * 0.25;
		y[3][i] = 0.5;
		y[4][i] = 1.5 + (double)(i % 5) * 0.1;
	}
	y[2][5] = NAN;
	for (k = 0; k < 5; k++) {
		s[k].name = names[k];
		s[k].color = colors[k];
		s[k].y = y[k];
	}
	c.title = "Where L1 misses were sourced";
	c.y_label = "% of L1 misses";
	c.n = N;
	c.x = x;
	c.x_is_time = true;
	c.nseries = 5;
	c.series = s;
	c.stacked = true;
	check_chart("stacked_bars", &c, 0);
}

/* 5000 points averaged into 600 buckets; three band classes by majority. */
static void downsampled(void **state)
{
	enum { N = 5000 };
	double *x = malloc(N * sizeof(double)), *y = malloc(N * sizeof(double));
	int *band = malloc(N * sizeof(int));
	struct mf_svg_series s = {"noisy", NULL, y};
	struct mf_svg_chart c = chart_init();
	struct mf_strbuf sb;
	size_t i, npts = 0;
	const char *p;
	(void)state;

	assert_true(x && y && band);
	for (i = 0; i < N; i++) {
		x[i] = (double)i;
		y[i] = (double)(i * 7919 % 1000) / 100.0 + (double)i / 500.0;
		band[i] = (int)(i / 700 % 4) - 1; /* -1, 0, 1, 2 */
		if (i % 1000 == 999)
			band[i] = 7; /* out of range: none */
	}
	for (i = 2000; i < 2100; i++)
		y[i] = NAN; /* a gap of whole buckets */
	c.title = "5000 points";
	c.n = N;
	c.x = x;
	c.nseries = 1;
	c.series = &s;
	c.band = band;
	c.nbands = 3;
	c.band_names = band_names;
	c.band_colors = band_colors;
	check_chart("downsampled", &c, 0);

	/* 600 points are drawn: count the coordinate pairs of the polylines. */
	mf_strbuf_init(&sb);
	assert_int_equal(mf_svg_chart(&sb, &c), 0);
	for (p = strstr(mf_strbuf_str(&sb), "<polyline points=\""); p; p = strstr(p, "<polyline points=\"")) {
		p += 18;
		for (; *p != '"'; p++)
			npts += *p == ',';
	}
	/* Buckets of 8 or 9 points: 2000..2099 empties the buckets wholly inside it. */
	assert_true(npts > 585 && npts < 600);
	mf_strbuf_free(&sb);

	/* max_points above n: nothing is averaged. */
	c.n = 50;
	c.max_points = 100;
	mf_strbuf_init(&sb);
	assert_int_equal(mf_svg_chart(&sb, &c), 0);
	npts = 0;
	for (p = strstr(mf_strbuf_str(&sb), "<polyline points=\""); p; p = strstr(p, "<polyline points=\"")) {
		p += 18;
		for (; *p != '"'; p++)
			npts += *p == ',';
	}
	assert_int_equal(npts, 50);
	mf_strbuf_free(&sb);
	free(x);
	free(y);
	free(band);
}

/* A given range clips the lines (nested <svg>), ticks inside it. */
static void line_clipped(void **state)
{
	double x[10], y[10];
	struct mf_svg_series s = {"MEMP", "#9467bd", y};
	struct mf_svg_chart c = chart_init();
	size_t i;
	(void)state;

	for (i = 0; i < 10; i++) {
		x[i] = 10 * (double)i;
		y[i] = (double)(i % 4) * 0.9 - 0.5;
	}
	c.width = 400;
	c.height = 180;
	c.n = 10;
	c.x = x;
	c.nseries = 1;
	c.series = &s;
	c.y_min = 0;
	c.y_max = 2;
	check_chart("line_clipped", &c, 0);
}

static void no_data(void **state)
{
	double x[1] = {0}, y[1] = {NAN};
	struct mf_svg_series s = {"a", "#000", y};
	struct mf_svg_chart c = chart_init();
	struct mf_strbuf sb;
	(void)state;

	c.title = "Nothing <here>";
	c.nseries = 1;
	c.series = &s;
	c.x = x;
	check_chart("no_data", &c, -1); /* n == 0 */

	/* Other unusable charts. */
	mf_strbuf_init(&sb);
	assert_int_equal(mf_svg_chart(&sb, NULL), -1);
	c.n = 1;
	c.x = NULL;
	assert_int_equal(mf_svg_chart(&sb, &c), -1);
	c.x = x;
	s.y = NULL;
	assert_int_equal(mf_svg_chart(&sb, &c), -1);
	s.y = y;
	c.nseries = 0;
	assert_int_equal(mf_svg_chart(&sb, &c), -1);
	c.nseries = 1;
	c.width = NAN;
	assert_int_equal(mf_svg_chart(&sb, &c), -1);
	assert_non_null(strstr(mf_strbuf_str(&sb), ">no data</text>"));
	mf_strbuf_free(&sb);

	/* Usable, but every value NaN: axes around an empty plot. */
	c.width = 300;
	c.height = 120;
	mf_strbuf_init(&sb);
	assert_int_equal(mf_svg_chart(&sb, &c), 0);
	well_formed(mf_strbuf_str(&sb));
	assert_non_null(strstr(mf_strbuf_str(&sb), ">no data</text>"));
	assert_null(strstr(mf_strbuf_str(&sb), "<polyline"));
	mf_strbuf_free(&sb);
}

/* Hostile text everywhere is escaped; long names are shortened; odd inputs still draw. */
static void hostile(void **state)
{
	double x[3] = {1, 2, 3}, y[3] = {1, INFINITY, -1};
	const char *const bn[] = {"</svg><script>x</script>"};
	const char *const bc[] = {"red\"/><script>"};
	int band[3] = {0, 0, -1};
	char longname[400];
	struct mf_svg_series s[2] = {{"<script>alert(\"x\")</script>", "#123\"", y}, {longname, NULL, y}};
	struct mf_svg_chart c = chart_init();
	struct mf_strbuf sb;
	(void)state;

	memset(longname, 'W', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	c.title = "\xFF<t>";
	c.y_label = "&";
	c.n = 3;
	c.x = x;
	c.nseries = 2;
	c.series = s;
	c.band = band;
	c.nbands = 1;
	c.band_names = bn;
	c.band_colors = bc;
	mf_strbuf_init(&sb);
	assert_int_equal(mf_svg_chart(&sb, &c), 0);
	well_formed(mf_strbuf_str(&sb));
	assert_non_null(strstr(mf_strbuf_str(&sb), "\xE2\x80\xA6</text>")); /* the long name, shortened */
	mf_strbuf_free(&sb);

	/* Stacked, negative values, one point, a time axis, a tiny picture. */
	c.stacked = true;
	c.x_is_time = true;
	c.n = 1;
	c.width = 120;
	c.height = 80;
	mf_strbuf_init(&sb);
	assert_int_equal(mf_svg_chart(&sb, &c), 0);
	well_formed(mf_strbuf_str(&sb));
	mf_strbuf_free(&sb);

	/* An x in the middle that is not finite, huge times. */
	x[1] = NAN;
	c.n = 3;
	c.stacked = false;
	mf_strbuf_init(&sb);
	assert_int_equal(mf_svg_chart(&sb, &c), 0);
	well_formed(mf_strbuf_str(&sb));
	mf_strbuf_free(&sb);
	x[0] = -1e300;
	x[1] = 0;
	x[2] = 1e300;
	mf_strbuf_init(&sb);
	assert_int_equal(mf_svg_chart(&sb, &c), 0);
	well_formed(mf_strbuf_str(&sb));
	mf_strbuf_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ticks),         cmocka_unit_test(line_basic),   cmocka_unit_test(time_3days),
		cmocka_unit_test(time_zone_ref), cmocka_unit_test(stacked_bars), cmocka_unit_test(downsampled),
		cmocka_unit_test(line_clipped),  cmocka_unit_test(no_data),      cmocka_unit_test(hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
