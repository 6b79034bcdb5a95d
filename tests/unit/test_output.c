/* SPDX-License-Identifier: MIT */
/* Writers: JSON reloaded with jansson (schema, key order, nulls), CSV and text shapes. */
#include <jansson.h>

#include "pipeline.h"

MF_TEST_KB_FIXTURE()

static const char csv[] =
	"system,lpar,pool,cpu,machine,cpsp,interval_start,interval_seconds,B0,B1,B2,B4,P33\n"
	"\"S<1>\"\"\",LP,GCP,0,z16,5200,2025-03-04T10:00:00Z,60,312000000000,100000000000,1000,3000,5\n"
	"\"S<1>\"\"\",LP,ZIIP,1,z16,5200,2025-03-04T10:00:00Z,60,10,0,0,0,0\n";

static char *render_columns(int (*writer)(FILE *, const struct mf_report *), struct pipe *p, const char *const *columns,
			    size_t ncolumns)
{
	struct mf_report rep = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	rep.kb = kb;
	rep.tab = p->tab;
	rep.by = p->by;
	rep.ngroups = p->n;
	rep.results = p->res;
	rep.rows_read = p->rows;
	rep.nfiles = 1;
	rep.columns = columns;
	rep.ncolumns = ncolumns;
	assert_int_equal(writer(fp, &rep), 0);
	fclose(fp);
	return buf;
}

static char *render(int (*writer)(FILE *, const struct mf_report *), struct pipe *p)
{
	return render_columns(writer, p, NULL, 0);
}

static void json_reload(void **state)
{
	struct pipe p;
	json_error_t jerr;
	json_t *root, *groups, *g, *m, *v;
	const char *key;
	char *out;
	size_t k = 0;
	static const char *const order[] = {"CPI",
					    "PRBSTATE",
					    "L1MP",
					    "L2P",
					    "L3P",
					    "L4LP",
					    "L4RP",
					    "MEMP",
					    "LPARCPU",
					    "EST_INSTR_CMPLX_CPI",
					    "FINITE_CPI",
					    "SCPL1M",
					    "RNI",
					    "EFF_GHZ",
					    "TLB1_CPU_MISS_PCT",
					    "TLB1_CYCLES_PER_MISS",
					    "TLB_MISS_RATE",
					    "W_AIU_CPU",
					    "C_AIU_CPU",
					    "AIU_CPU",
					    "LSPR"};
	(void)state;
	pipe_run(&p, kb, csv, MF_BY_DEFAULT);
	out = render(mf_out_json, &p);
	root = json_loads(out, JSON_PRESERVE_ORDER, &jerr);
	if (!root)
		fail_msg("JSON does not parse: %s at %d: %s", jerr.text, jerr.position, out);
	assert_int_equal(json_integer_value(json_object_get(root, "schema")), 1);
	assert_int_equal(json_integer_value(json_object_get(root, "skipped_rows")), 0);
	groups = json_object_get(root, "groups");
	assert_int_equal(json_array_size(groups), 2);
	g = json_array_get(groups, 0);
	assert_string_equal(json_string_value(json_object_get(g, "system")), "S<1>\"");
	assert_string_equal(json_string_value(json_object_get(g, "lpar")), "LP");
	assert_string_equal(json_string_value(json_object_get(g, "pool")), "GCP");
	assert_true(json_is_null(json_object_get(g, "cpu")));
	assert_string_equal(json_string_value(json_object_get(g, "interval_start")), "2025-03-04T10:00:00Z");
	assert_true(json_number_value(json_object_get(g, "interval_seconds")) == 60);
	assert_string_equal(json_string_value(json_object_get(g, "machine")), "z16");
	assert_int_equal(json_integer_value(json_object_get(g, "cpus")), 1);
	m = json_object_get(g, "metrics");
	/* Exactly the z16 keys, in the documented order; absent ones (L15P, PTE_PCT, ...) not there. */
	json_object_foreach(m, key, v)
	{
		assert_true(k < sizeof(order) / sizeof(order[0]));
		assert_string_equal(key, order[k]);
		k++;
	}
	assert_int_equal(k, sizeof(order) / sizeof(order[0]));
	assert_true(json_number_value(json_object_get(m, "CPI")) == 3.12);
	assert_true(json_number_value(json_object_get(m, "L1MP")) == 4e-6);
	assert_true(json_number_value(json_object_get(m, "LPARCPU")) == 100);
	assert_true(json_is_null(json_object_get(m, "RNI")));
	assert_true(json_is_null(json_object_get(m, "LSPR")));
	/* The zIIP group: CPI not available (no instructions), LSPR null. */
	m = json_object_get(json_array_get(groups, 1), "metrics");
	assert_true(json_is_null(json_object_get(m, "CPI")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(groups, 1), "pool")), "ZIIP");
	/* units: each metric key once, in the same order, with its unit (LSPR has none). */
	m = json_object_get(root, "units");
	assert_true(json_is_object(m));
	k = 0;
	json_object_foreach(m, key, v)
	{
		assert_true(k < sizeof(order) / sizeof(order[0]));
		assert_string_equal(key, order[k]);
		assert_true(!strcmp(key, "LSPR") ? json_is_null(v) : json_is_string(v));
		k++;
	}
	assert_int_equal(k, sizeof(order) / sizeof(order[0]));
	assert_string_equal(json_string_value(json_object_get(m, "CPI")), "cycles/instr");
	assert_string_equal(json_string_value(json_object_get(m, "RNI")), "ratio");
	assert_null(strstr(out, "\"unit\":"));
	json_decref(root);
	free(out);
	pipe_free(&p);
}

static void csv_shape(void **state)
{
	struct pipe p;
	char *out, *nl;
	(void)state;
	pipe_run(&p, kb, csv, MF_BY_DEFAULT);
	out = render(mf_out_csv, &p);
	nl = strchr(out, '\n');
	assert_non_null(nl);
	*nl = '\0';
	assert_string_equal(out,
			    "system,lpar,pool,cpu,interval_start,period_start,period_end,interval_seconds,machine,cpus,"
			    "cpus_expected,CPI,PRBSTATE,"
			    "L1MP,L2P,L3P,L4LP,L4RP,MEMP,LPARCPU,EST_INSTR_CMPLX_CPI,FINITE_CPI,SCPL1M,RNI,"
			    "EFF_GHZ,TLB1_CPU_MISS_PCT,TLB1_CYCLES_PER_MISS,TLB_MISS_RATE,W_AIU_CPU,C_AIU_CPU,"
			    "AIU_CPU,LSPR");
	/* A name with a quote is quoted; n/a is an empty field. */
	assert_non_null(strstr(nl + 1,
			       "\"S<1>\"\"\",LP,GCP,,2025-03-04T10:00:00Z,2025-03-04T10:00:00Z,2025-03-04T10:01:00Z,60,"
			       "z16,1,1,3.12,5e-09,4e-06,,,,,,100,"));
	assert_non_null(
		strstr(nl + 1, ",ZIIP,,2025-03-04T10:00:00Z,2025-03-04T10:00:00Z,2025-03-04T10:01:00Z,60,z16,1,1,,,,"));
	free(out);
	pipe_free(&p);
}

static void text_shape(void **state)
{
	struct pipe p;
	char *out;
	(void)state;
	pipe_run(&p, kb, csv, MF_BY_POOL);
	out = render(mf_out_text, &p);
	assert_non_null(strstr(out, "pool  machine  cpus           CPI"));
	assert_non_null(strstr(out, "GCP   z16         1         3.120"));
	assert_non_null(strstr(out, "n/a"));
	assert_non_null(strstr(out, "2 rows read from 1 file, 2 groups, 0 rows skipped\n"));
	free(out);
	pipe_free(&p);
}

/* An interval with fewer CPUs than its system's others (lost data): marked in every writer. */
static const char lost_csv[] =
	"system,cpu,machine,cpsp,interval_start,interval_seconds,B0,B1\n"
	"S,0,z16,1000,2025-01-01T00:00:00Z,900,450000000000,1\n"
	"S,1,z16,1000,2025-01-01T00:00:00Z,900,450000000000,1\n"
	"S,0,z16,1000,2025-01-01T00:15:00Z,900,450000000000,1\n"
	"S,0,z16,1000,2025-01-01T00:30:00Z,900,450000000000,1\n"
	"S,1,z16,1000,2025-01-01T00:30:00Z,900,450000000000,1\n";

static void lost_cpus_marked(void **state)
{
	struct pipe p;
	struct mf_report rep = {0};
	struct mf_notes notes;
	uint64_t exp[3];
	char *out;
	json_t *root;
	json_error_t jerr;
	(void)state;
	pipe_run(&p, kb, lost_csv, MF_BY_DEFAULT);
	assert_int_equal(p.n, 3);
	rep.kb = kb;
	rep.tab = p.tab;
	rep.by = p.by;
	rep.ngroups = p.n;
	rep.results = p.res;
	rep.rows_read = p.rows;
	mf_report_cpus_expected(&rep, exp);
	assert_true(exp[0] == 2 && exp[1] == 2 && exp[2] == 2);
	/* The library composes the warning, naming the interval. */
	mf_notes_init(&notes);
	mf_notes_report(&notes, &rep);
	assert_int_equal(notes.nwarnings, 1);
	assert_non_null(strstr(notes.warnings[0], "1 interval with fewer CPUs"));
	assert_non_null(strstr(notes.warnings[0], "interval 2025-01-01T00:15:00Z: 1 of 2 CPUs"));
	mf_notes_free(&notes);

	out = render(mf_out_csv, &p);
	assert_non_null(strstr(out, ",2025-01-01T00:15:00Z,2025-01-01T00:15:00Z,2025-01-01T00:30:00Z,900,z16,1,2,"));
	assert_non_null(strstr(out, ",2025-01-01T00:30:00Z,2025-01-01T00:30:00Z,2025-01-01T00:45:00Z,900,z16,2,2,"));
	free(out);
	out = render(mf_out_text, &p);
	assert_non_null(strstr(out, "2025-01-01T00:15:00Z  z16      1 of 2"));
	free(out);
	out = render(mf_out_html, &p);
	assert_non_null(
		strstr(out,
		       "<tr class=\"short\"><td class=\"id\">2025-01-01T00:15:00Z <span class=\"warn\">(1 of 2 CPUs"));
	assert_non_null(strstr(out, "left out of the LPARCPU chart"));
	free(out);
	out = render(mf_out_json, &p);
	root = json_loads(out, 0, &jerr);
	assert_non_null(root);
	assert_int_equal(json_integer_value(
				 json_object_get(json_array_get(json_object_get(root, "groups"), 1), "cpus_expected")),
			 2);
	assert_int_equal(json_integer_value(
				 json_object_get(json_array_get(json_object_get(root, "groups"), 1), "cpus")),
			 1);
	json_decref(root);
	free(out);
	pipe_free(&p);

	/* Without interval grouping, nothing to compare: expected is the group's own count. */
	pipe_run(&p, kb, lost_csv, MF_BY_SYSTEM);
	rep.by = p.by;
	rep.ngroups = p.n;
	rep.results = p.res;
	mf_report_cpus_expected(&rep, exp);
	assert_int_equal(exp[0], 2);
	pipe_free(&p);
}

/* JSON inputs: what each file gave, dropped by reason; every drop reason is a warning too. */
static void json_inputs(void **state)
{
	struct pipe p;
	struct mf_report rep = {0};
	struct mf_input in[1];
	struct mf_input_count drop = {"intervals with lost counter data (hardware flag)", 3};
	struct mf_input_count recs = {"type 113 subtype 1", 40};
	const char *reason[] = {"B0: not a number '.'"};
	uint64_t rcount[] = {2};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	json_t *root, *i0, *w;
	json_error_t jerr;
	(void)state;
	pipe_run(&p, kb, csv, MF_BY_DEFAULT);
	memset(in, 0, sizeof(in));
	in[0].file = "week.smf";
	in[0].format = "smf";
	in[0].samples = 40;
	in[0].skipped = 2;
	in[0].duplicates = 5;
	in[0].nrecords = 1;
	in[0].records = &recs;
	in[0].ndropped = 1;
	in[0].dropped = &drop;
	rep.kb = kb;
	rep.tab = p.tab;
	rep.by = p.by;
	rep.ngroups = p.n;
	rep.results = p.res;
	rep.rows_read = 40;
	rep.rows_skipped = 2;
	rep.nreasons = 1;
	rep.reason = reason;
	rep.reason_count = rcount;
	rep.ninputs = 1;
	rep.inputs = in;
	rep.duplicates = 5;
	fp = open_memstream(&buf, &len);
	assert_int_equal(mf_out_json(fp, &rep), 0);
	fclose(fp);
	root = json_loads(buf, JSON_PRESERVE_ORDER, &jerr);
	if (!root)
		fail_msg("JSON does not parse: %s: %s", jerr.text, buf);
	assert_int_equal(json_integer_value(json_object_get(root, "duplicates")), 5);
	i0 = json_array_get(json_object_get(root, "inputs"), 0);
	assert_string_equal(json_string_value(json_object_get(i0, "file")), "week.smf");
	assert_string_equal(json_string_value(json_object_get(i0, "format")), "smf");
	assert_int_equal(json_integer_value(json_object_get(i0, "samples")), 40);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(i0, "records"), "type 113 subtype 1")), 40);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(i0, "dropped"), "bad records skipped")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(i0, "dropped"), "duplicate samples")), 5);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(i0, "dropped"), drop.what)), 3);
	w = json_object_get(root, "warnings");
	assert_int_equal(json_array_size(w), 2);
	assert_string_equal(json_string_value(json_array_get(w, 0)), "skipped 2: B0: not a number '.'");
	assert_string_equal(json_string_value(json_array_get(w, 1)),
			    "week.smf: dropped 3: intervals with lost counter data (hardware flag)");
	json_decref(root);
	free(buf);
	pipe_free(&p);
}

/*
 * --metrics columns given in any case: named as the knowledge base spells them and filled in
 * every writer (they were named as typed and left empty); a helper (L1M) asked for is a
 * column; LSPR is a column like the others.
 */
static void columns_any_case(void **state)
{
	static const char *const cols[] = {"cpi", "Lparcpu", "l1m", "lspr"};
	struct pipe p;
	json_error_t jerr;
	json_t *root, *m;
	const char *key;
	json_t *v;
	char *out, *nl;
	size_t k = 0;
	(void)state;
	pipe_run(&p, kb, csv, MF_BY_POOL);

	out = render_columns(mf_out_csv, &p, cols, 4);
	nl = strchr(out, '\n');
	assert_non_null(nl);
	*nl = '\0';
	assert_string_equal(out,
			    "system,lpar,pool,cpu,interval_start,period_start,period_end,interval_seconds,machine,cpus,"
			    "cpus_expected,CPI,LPARCPU,L1M,LSPR");
	assert_non_null(strstr(nl + 1, ",GCP,,,2025-03-04T10:00:00Z,2025-03-04T10:01:00Z,60,z16,1,1,3.12,100,4000,\n"));
	free(out);

	out = render_columns(mf_out_text, &p, cols, 4);
	assert_non_null(strstr(out, "  CPI  "));
	assert_non_null(strstr(out, "LPARCPU  "));
	assert_non_null(strstr(out, "L1M  LSPR"));
	assert_null(strstr(out, "cpi"));
	assert_non_null(strstr(out, "3.120"));
	assert_non_null(strstr(out, "4000"));
	free(out);

	out = render_columns(mf_out_json, &p, cols, 4);
	root = json_loads(out, JSON_PRESERVE_ORDER, &jerr);
	if (!root)
		fail_msg("JSON does not parse: %s at %d: %s", jerr.text, jerr.position, out);
	m = json_object_get(json_array_get(json_object_get(root, "groups"), 0), "metrics");
	json_object_foreach(m, key, v)
	{
		static const char *const want[] = {"CPI", "LPARCPU", "L1M", "LSPR"};
		assert_true(k < 4);
		assert_string_equal(key, want[k]);
		k++;
	}
	assert_int_equal(k, 4);
	assert_true(json_number_value(json_object_get(m, "CPI")) == 3.12);
	assert_true(json_number_value(json_object_get(m, "LPARCPU")) == 100);
	assert_true(json_number_value(json_object_get(m, "L1M")) == 4000);
	assert_true(json_is_null(json_object_get(m, "LSPR"))); /* RNI not available here */
	json_decref(root);
	free(out);

	out = render_columns(mf_out_html, &p, cols, 4);
	assert_non_null(strstr(out, "<th>CPI</th><th>LPARCPU</th><th>L1M</th><th>LSPR</th></tr>"));
	assert_non_null(strstr(out, "<dt>L1M (misses)</dt>"));
	free(out);
	pipe_free(&p);
}

/* The glossary entries of an HTML page, one "<dt>...</dt><dd>...</dd>" a line. */
static char *glossary_of(const char *page)
{
	const char *a = strstr(page, "<dl class=\"glossary\">"), *b = a ? strstr(a, "</dl>") : NULL;
	char *g;
	assert_non_null(a);
	assert_non_null(b);
	g = strndup(a, (size_t)(b - a));
	assert_non_null(g);
	return g;
}

/*
 * The HTML glossary describes the families of the page's groups: a z16 page has z16's words, not
 * z10's ("factor 0.84", "same book", "beyond L1.5": the first family of the knowledge base that
 * defines a name); with z10 and z16 on one page, one entry per family where they differ.
 */
/* The HTML title and heading name the systems (escaped) and the period in UTC. */
static void html_title(void **state)
{
	static const char six[] =
		"system,cpu,machine,cpsp,interval_start,interval_seconds,B0,B1\n"
		"SYSF,0,z16,5200,2025-03-04T23:00:00Z,3600,312000000000,100000000000\n"
		"SYSE,0,z16,5200,2025-03-04T23:00:00Z,3600,312000000000,100000000000\n"
		"SYSD,0,z16,5200,2025-03-04T23:00:00Z,3600,312000000000,100000000000\n"
		"SYSC,0,z16,5200,2025-03-04T23:00:00Z,3600,312000000000,100000000000\n"
		"SYSB,0,z16,5200,2025-03-04T23:00:00Z,3600,312000000000,100000000000\n"
		"SYSA,0,z16,5200,2025-03-04T23:00:00Z,3600,312000000000,100000000000\n";
	struct pipe p;
	char *out;
	(void)state;
	pipe_run(&p, kb, csv, MF_BY_DEFAULT);
	out = render(mf_out_html, &p);
	assert_non_null(strstr(out, "<title>mfstat report: S&lt;1&gt;&quot;, 2025-03-04 10:00 to 10:01 UTC</title>"));
	assert_non_null(strstr(out, "<h1>mfstat report: S&lt;1&gt;&quot;, 2025-03-04 10:00 to 10:01 UTC</h1>"));
	free(out);
	pipe_free(&p);
	/* Six systems: three by name, the rest counted; the end's date when it is another day. */
	pipe_run(&p, kb, six, MF_BY_SYSTEM);
	out = render(mf_out_html, &p);
	assert_non_null(
		strstr(out,
		       "<title>mfstat report: SYSA, SYSB, SYSC and 3 more, 2025-03-04 23:00 to 2025-03-05 00:00 UTC"));
	free(out);
	pipe_free(&p);
}

static void html_glossary_families(void **state)
{
	static const char z16[] =
		"system,cpu,machine,cpsp,interval_start,interval_seconds,B0,B1,B2,B3,B4,B5\n"
		"S16,0,z16,5200,2025-03-04T10:00:00Z,60,312000000000,100000000000,1000,50,3000,70\n";
	static const char both[] =
		"system,cpu,machine,cpsp,interval_start,interval_seconds,B0,B1,B2,B3,B4,B5\n"
		"S10,0,z10,4400,2025-03-04T10:00:00Z,60,264000000000,100000000000,1000,50,3000,70\n"
		"S16,0,z16,5200,2025-03-04T10:00:00Z,60,312000000000,100000000000,1000,50,3000,70\n";
	struct pipe p;
	char *out, *g;
	(void)state;
	pipe_run(&p, kb, z16, MF_BY_SYSTEM);
	out = render(mf_out_html, &p);
	g = glossary_of(out);
	assert_null(strstr(g, "0.84"));
	assert_null(strstr(g, "book"));
	assert_null(strstr(g, "L1.5"));
	assert_null(strstr(g, ", on ")); /* one family: no entry names it */
	assert_non_null(strstr(g,
			       "<dt>FINITE_CPI (cycles/instr)</dt><dd>Estimated CPI added by level-1 misses (cycles "
			       "spent sourcing lines from beyond L1, per instruction)</dd>"));
	assert_non_null(strstr(g,
			       "<dt>RNI (ratio)</dt><dd>Relative nest intensity: how hard the workload drives the "
			       "caches and memory beyond L2, weighted by their distance</dd>"));
	assert_non_null(strstr(g,
			       "<dt>L4LP (%)</dt><dd>Share of level-1 misses sourced from an L3 or L4 cache "
			       "elsewhere on the same drawer</dd>"));
	assert_non_null(strstr(g, "<dt>MEMP (%)</dt><dd>Share of level-1 misses sourced from memory</dd>"));
	assert_non_null(
		strstr(g,
		       "<dt>LSPR</dt><dd>The LSPR workload class (LOW, AVERAGE or HIGH relative nest "
		       "intensity), matched from L1MP and RNI; zIIP, zAAP and zCBP engines are left out.</dd>"));
	free(g);
	free(out);
	pipe_free(&p);

	pipe_run(&p, kb, both, MF_BY_SYSTEM);
	out = render(mf_out_html, &p);
	g = glossary_of(out);
	/* Where the two differ, an entry each, in the knowledge base's family order. */
	assert_non_null(strstr(g,
			       "<dt>FINITE_CPI (cycles/instr), on z10</dt><dd>Estimated CPI added by level-1 "
			       "misses, from the L1 penalty cycles times IBM&#39;s factor 0.84</dd>\n"
			       "<dt>FINITE_CPI (cycles/instr), on z16</dt><dd>Estimated CPI added by level-1 misses "
			       "(cycles spent sourcing lines from beyond L1, per instruction)</dd>"));
	assert_non_null(strstr(g, "<dt>RNI (ratio), on z10</dt>"));
	assert_non_null(strstr(g, "<dt>RNI (ratio), on z16</dt>"));
	assert_non_null(strstr(g, "<dt>MEMP (%), on z10</dt>"));
	assert_non_null(strstr(g, "<dt>MEMP (%), on z16</dt>"));
	/* Where they agree, one entry; a name only one of them has says which. */
	assert_non_null(strstr(g, "<dt>CPI (cycles/instr)</dt>"));
	assert_non_null(strstr(g, "<dt>SCPL1M (cycles/miss)</dt>"));
	assert_non_null(strstr(g, "<dt>L15P (%), on z10</dt>"));
	assert_non_null(strstr(g, "<dt>L4LP (%), on z16</dt>"));
	assert_non_null(strstr(g, "<dt>W_AIU_CPU (% engine), on z16</dt>"));
	assert_non_null(strstr(g, "<dt>LSPR</dt>"));
	free(g);
	free(out);
	pipe_free(&p);
}

/* The writer table: every format once, found by name, nothing else found. */
static void writer_table(void **state)
{
	size_t n, i;
	const struct mf_writer *w = mf_writers(&n);
	(void)state;
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++) {
		assert_ptr_equal(mf_writer_find(w[i].name), &w[i]);
		assert_non_null(w[i].write);
		assert_int_equal(w[i].extension[0], '.');
	}
	assert_ptr_equal(mf_writer_find("text")->write, mf_out_text);
	assert_ptr_equal(mf_writer_find("csv")->write, mf_out_csv);
	assert_ptr_equal(mf_writer_find("json")->write, mf_out_json);
	assert_ptr_equal(mf_writer_find("html")->write, mf_out_html);
	assert_null(mf_writer_find("xml"));
	assert_null(mf_writer_find("HTML"));
	assert_null(mf_writer_find(""));
	assert_null(mf_writer_find(NULL));
}

/* The HTML page's interval tables keep the peak intervals: the k highest, NaN lowest, ties to the earlier, in time order. */
static void html_peaks(void **state)
{
	const double v[] = {5, NAN, 9, 1, 9, 7, NAN, 3};
	size_t idx[8], n;
	(void)state;
	n = mf_html_peaks(v, 8, 3, idx);
	assert_int_equal(n, 3);
	assert_int_equal(idx[0], 2); /* 9 */
	assert_int_equal(idx[1], 4); /* 9, after the first 9 */
	assert_int_equal(idx[2], 5); /* 7 */
	n = mf_html_peaks(v, 8, 7, idx);
	assert_int_equal(n, 7); /* every number, then the first NaN */
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 1);
	assert_int_equal(idx[6], 7);
	assert_int_equal(mf_html_peaks(v, 8, 20, idx), 8);
	assert_int_equal(idx[7], 7);
	assert_int_equal(mf_html_peaks(v, 8, 0, idx), 0);
	assert_int_equal(mf_html_peaks(v, 0, 3, idx), 0);
}

/*
 * A report over many metrics looks each column up by name once, in a hash: the name lookups and
 * comparisons of every writer grow linearly with the metrics, not with their square (a search of
 * the family's report per column: 100,000 metrics took 208 s).  20,000 metrics, all reported
 * (generic's report "-"), through --tables.
 */
static void many_metrics_linear(void **state)
{
	enum { N = 20000 };
	const char *dir = MFSTAT_BINARY_DIR "/many-metrics";
	char path[512], line[4096];
	struct mf_kb *big = NULL;
	struct mf_error e;
	struct mf_pipeline_opts o = {0};
	struct mf_pipeline *pl;
	struct mf_report rep;
	const struct mf_writer *w;
	unsigned long long c0, l0, compares, lookups;
	size_t nw, i;
	FILE *in, *out;
	(void)state;

	snprintf(path, sizeof(path), "mkdir -p '%s/metrics'", dir);
	assert_int_equal(system(path), 0);
	/* families.tsv as built in, generic reporting every metric ("-" in its 10th column). */
	in = fopen(MFSTAT_SOURCE_DIR "/data/families.tsv", "r");
	snprintf(path, sizeof(path), "%s/families.tsv", dir);
	out = fopen(path, "w");
	assert_non_null(in);
	assert_non_null(out);
	while (fgets(line, sizeof(line), in)) {
		if (strncmp(line, "generic\t", 8) == 0) {
			char *f = line;
			for (i = 0; i < 9; i++)
				f = strchr(f, '\t') + 1;
			assert_memory_equal(f, "ibmz\t", 5);
			fprintf(out, "%.*s-%s", (int)(f - line), line, f + 4);
		} else {
			fputs(line, out);
		}
	}
	fclose(in);
	assert_int_equal(fclose(out), 0);
	snprintf(path, sizeof(path), "%s/metrics/generic.tsv", dir);
	out = fopen(path, "w");
	assert_non_null(out);
	fprintf(out, "name\tunit\tdigits\tflags\trevision\tformula\tdescription\n");
	fprintf(out, "CPI\tc\t3\t-\t2025-01\tX%d / B1 - %d\tcpi\n", N - 1, N - 1);
	for (i = 0; i < N; i++) {
		if (i)
			fprintf(out, "X%zu\tx\t0\t-\t2025-01\tX%zu + B1\tm\n", i, i - 1);
		else
			fprintf(out, "X0\tx\t0\t-\t2025-01\tB0\tm\n");
	}
	assert_int_equal(fclose(out), 0);
	assert_int_equal(mf_kb_load(dir, &big, &e), 0);

	c0 = mf_kb_name_compares();
	l0 = mf_kb_name_lookups();
	o.kb = big;
	o.by = MF_BY_SYSTEM;
	o.metrics.mem_peak_gbs = NAN;
	pl = mf_pipeline_new(&o);
	assert_non_null(pl);
	assert_int_equal(mf_pipeline_add_file(pl, MFSTAT_SOURCE_DIR "/tests/data/generic.csv", &e), 0);
	assert_int_equal(mf_pipeline_finish(pl, &rep), 0);
	assert_int_equal(rep.ngroups, 1);
	out = fopen("/dev/null", "w");
	assert_non_null(out);
	w = mf_writers(&nw);
	for (i = 0; i < nw; i++)
		assert_int_equal(w[i].write(out, &rep), 0);
	fclose(out);
	compares = mf_kb_name_compares() - c0;
	lookups = mf_kb_name_lookups() - l0;
	print_message("%d metrics, %zu writers: %llu name lookups, %llu name comparisons\n", N + 1, nw, lookups,
		      compares);
	/* Each writer looks each column up in each family of the knowledge base, a few times. */
	assert_true(compares <= 200ull * N);
	mf_pipeline_free(pl);
	mf_kb_free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_reload),
		cmocka_unit_test(csv_shape),
		cmocka_unit_test(text_shape),
		cmocka_unit_test(lost_cpus_marked),
		cmocka_unit_test(json_inputs),
		cmocka_unit_test(writer_table),
		cmocka_unit_test(html_peaks),
		cmocka_unit_test(columns_any_case),
		cmocka_unit_test(html_glossary_families),
		cmocka_unit_test(html_title),
		cmocka_unit_test(many_metrics_linear),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
