/* SPDX-License-Identifier: MIT */
/*
 * Reports of mfstat measure (caliper-measure.md §6): Caliper's text layout,
 * CSV tables and JSON, all from the run model and the aggregate tables
 * (aggregate.c).  Output is deterministic: dates come from the run, numbers
 * are formatted without the locale (integer arithmetic or mf_fmt_g15), and
 * everything is built in memory before one write.
 */
#include "mfstat/escape.h"
#include "mfstat/maggregate.h"
#include "mfstat/mreport.h"
#include "mfstat/mrun.h"
#include "mfstat/timefmt.h"
#include "mfstat/strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>


/* ---- numbers without the locale ---------------------------------------- */

/* v with dec decimals (round half away from zero on the scaled value), "n/a" for NAN. */
static void fmt_fixed(char *buf, size_t n, double v, int dec)
{
	static const uint64_t p10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
	double scaled;
	uint64_t q;
	bool neg;

	if (isnan(v)) {
		snprintf(buf, n, "n/a");
		return;
	}
	if (dec < 0)
		dec = 0;
	if (dec > 6)
		dec = 6;
	neg = v < 0;
	scaled = fabs(v) * (double)p10[dec];
	if (!(scaled < 9.0e18)) {
		/* Beyond 64-bit integers: exponent form is honest enough and locale-free. */
		char g[40];
		mf_fmt_g15(v, g);
		snprintf(buf, n, "%s", g);
		return;
	}
	q = (uint64_t)llround(scaled);
	if (q == 0)
		neg = false; /* no "-0.00" */
	if (dec == 0)
		snprintf(buf, n, "%s%" PRIu64, neg ? "-" : "", q);
	else
		snprintf(buf, n, "%s%" PRIu64 ".%0*" PRIu64, neg ? "-" : "", q / p10[dec], dec, q % p10[dec]);
}

static const char *base_name(const char *path)
{
	const char *s;
	if (!path)
		return NULL;
	s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}

/* ---- source text --------------------------------------------------------- */

struct srcfile {
	char *path;
	char *data; /* NULL: unreadable */
	size_t nlines;
	size_t *start; /* nlines + 1 offsets */
	size_t len;
};

struct srccache {
	struct srcfile *f;
	size_t n, cap;
};

#define SRC_MAX_BYTES (64u << 20)

static void src_read(struct srcfile *f)
{
	FILE *fp = fopen(f->path, "rb");
	size_t cap = 0, i, k;
	char *d = NULL;

	if (!fp)
		return;
	for (;;) {
		size_t got;
		if (f->len == cap) {
			char *nd;
			if (cap >= SRC_MAX_BYTES)
				goto fail;
			cap = cap ? cap * 2 : 65536;
			if (!(nd = realloc(d, cap)))
				goto fail;
			d = nd;
		}
		got = fread(d + f->len, 1, cap - f->len, fp);
		f->len += got;
		if (got == 0)
			break;
	}
	if (ferror(fp))
		goto fail;
	fclose(fp);
	for (i = 0, f->nlines = 1; i < f->len; i++)
		if (d[i] == '\n')
			f->nlines++;
	if (!(f->start = malloc((f->nlines + 1) * sizeof(*f->start)))) {
		free(d);
		f->len = f->nlines = 0;
		return;
	}
	f->start[0] = 0;
	for (i = 0, k = 1; i < f->len; i++)
		if (d[i] == '\n')
			f->start[k++] = i + 1;
	f->start[k] = f->len + 1;
	f->data = d;
	return;
fail:
	fclose(fp);
	free(d);
	f->len = 0;
}

/* The file's entry, read on first use (NULL only on ENOMEM). */
static struct srcfile *src_get(struct srccache *c, const char *path)
{
	size_t i;
	struct srcfile *f;
	for (i = 0; i < c->n; i++)
		if (strcmp(c->f[i].path, path) == 0)
			return &c->f[i];
	if (c->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 8;
		struct srcfile *nf = realloc(c->f, nc * sizeof(*nf));
		if (!nf)
			return NULL;
		c->f = nf;
		c->cap = nc;
	}
	f = &c->f[c->n];
	memset(f, 0, sizeof(*f));
	if (!(f->path = strdup(path)))
		return NULL;
	c->n++;
	src_read(f);
	return f;
}

/*
 * The statement text of path:line, stripped of indentation, trailing blanks
 * and control characters, at most ~160 bytes; false when unknown.
 */
static bool src_text(struct srccache *c, const char *path, uint32_t line, char *out, size_t n)
{
	struct srcfile *f;
	const char *p, *e;
	size_t k = 0;

	out[0] = '\0';
	if (!path || !line || !(f = src_get(c, path)) || !f->data || line > f->nlines)
		return false;
	p = f->data + f->start[line - 1];
	e = f->data + f->start[line] - 1; /* the newline (or the end) */
	if (e > f->data + f->len)
		e = f->data + f->len;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	for (; p < e && k + 1 < n && k < 160; p++)
		out[k++] = (unsigned char)*p < 0x20 || *p == 0x7f ? ' ' : *p;
	/* Do not end inside a UTF-8 sequence when cut short. */
	if (p < e)
		while (k > 0 && ((unsigned char)out[k - 1] & 0xc0) == 0x80)
			k--;
	if (p < e && k > 0 && ((unsigned char)out[k - 1] & 0xc0) == 0xc0)
		k--;
	while (k > 0 && out[k - 1] == ' ')
		k--;
	out[k] = '\0';
	return true;
}

static void src_free(struct srccache *c)
{
	size_t i;
	for (i = 0; i < c->n; i++) {
		free(c->f[i].path);
		free(c->f[i].data);
		free(c->f[i].start);
	}
	free(c->f);
	memset(c, 0, sizeof(*c));
}

/* ---- the report context -------------------------------------------------- */

struct ctx {
	const struct mf_mrun *run;
	struct mf_mreport_opts o;
	struct mf_agg a;
	struct srccache src;
	uint32_t line_size;
	bool nomem;
};

static const struct mf_mreport_opts default_opts = {
        .format = MF_MFMT_TEXT,
        .summary = {1.0, 100.0, 5},
        .detail = {5.0, 90.0, 1},
};

/* ---- text tables ----------------------------------------------------------- */

#define TT_MAXC 16

enum { TT_CELLS, TT_RAW, TT_DASH, TT_TILDE, TT_PCT };

/*
 * A text table: right-aligned number columns and left-aligned label columns,
 * stacked headings (up to three lines, top-aligned), widths from the content.
 * Besides rows of cells it holds verbatim rows, Caliper's "- - -" and "~ ~ ~"
 * rows, and detail headlines (a percentage in the first column, then text).
 */
struct ttab {
	size_t nc;
	const char *head[TT_MAXC][3];
	bool left[TT_MAXC];
	unsigned gap[TT_MAXC];
	size_t nr, cap;
	int *kind;
	char **cell; /* nr * nc, owned */
	bool nomem;
};

static void tt_col(struct ttab *t, bool left, unsigned gap, const char *h0, const char *h1, const char *h2)
{
	if (t->nc >= TT_MAXC)
		return;
	t->head[t->nc][0] = h0;
	t->head[t->nc][1] = h1;
	t->head[t->nc][2] = h2;
	t->left[t->nc] = left;
	t->gap[t->nc] = gap;
	t->nc++;
}

static void tt_row(struct ttab *t, int kind)
{
	if (t->nomem)
		return;
	if (t->nr == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 32;
		int *nk = realloc(t->kind, nc * sizeof(*nk));
		char **ncell;
		if (!nk) {
			t->nomem = true;
			return;
		}
		t->kind = nk;
		ncell = realloc(t->cell, nc * TT_MAXC * sizeof(*ncell));
		if (!ncell) {
			t->nomem = true;
			return;
		}
		t->cell = ncell;
		t->cap = nc;
	}
	t->kind[t->nr] = kind;
	memset(&t->cell[t->nr * TT_MAXC], 0, TT_MAXC * sizeof(*t->cell));
	t->nr++;
}

/* Sets cell c of the last row (printf style). */
__attribute__((format(printf, 3, 4))) static void tt_set(struct ttab *t, size_t c, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *s;
	if (t->nomem || !t->nr || c >= TT_MAXC)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(s = malloc((size_t)n + 1))) {
		t->nomem = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	free(t->cell[(t->nr - 1) * TT_MAXC + c]);
	t->cell[(t->nr - 1) * TT_MAXC + c] = s;
}

static void tt_free(struct ttab *t)
{
	size_t i;
	for (i = 0; i < t->nr * TT_MAXC; i++)
		free(t->cell[i]);
	free(t->cell);
	free(t->kind);
}

/* One line of cells into ln, without trailing blanks. */
static void sb_reset(struct mf_strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

static void tt_line(struct mf_strbuf *ln, const struct ttab *t, const size_t *w, const char *const *cells)
{
	size_t c;
	sb_reset(ln);
	for (c = 0; c < t->nc; c++) {
		const char *s = cells[c] ? cells[c] : "";
		size_t l = strlen(s);
		mf_strbuf_pad(ln, ' ', t->gap[c]);
		if (t->left[c]) {
			mf_strbuf_puts(ln, s);
			if (c + 1 < t->nc)
				mf_strbuf_pad(ln, ' ', w[c] - l);
		} else {
			mf_strbuf_pad(ln, ' ', w[c] - l);
			mf_strbuf_puts(ln, s);
		}
	}
	while (ln->len > 0 && ln->buf[ln->len - 1] == ' ')
		ln->buf[--ln->len] = '\0';
}

static void put_pattern(struct mf_strbuf *sb, char ch, size_t width)
{
	size_t i;
	for (i = 0; i + 2 <= width; i += 2) {
		mf_strbuf_putc(sb, ' ');
		mf_strbuf_putc(sb, ch);
	}
	mf_strbuf_putc(sb, '\n');
}

/* Rule, headings, rule, rows, rule (§6).  Returns false on ENOMEM. */
static bool tt_render(struct mf_strbuf *sb, const struct ttab *t)
{
	size_t w[TT_MAXC] = {0}, c, r, h, width = 0;
	const char *cells[TT_MAXC];
	struct mf_strbuf ln;
	int pass;
	bool ok;

	for (c = 0; c < t->nc; c++)
		for (h = 0; h < 3; h++)
			if (t->head[c][h] && strlen(t->head[c][h]) > w[c])
				w[c] = strlen(t->head[c][h]);
	for (r = 0; r < t->nr; r++)
		for (c = 0; c < t->nc; c++)
			if (t->kind[r] == TT_CELLS && t->cell[r * TT_MAXC + c] &&
			    strlen(t->cell[r * TT_MAXC + c]) > w[c])
				w[c] = strlen(t->cell[r * TT_MAXC + c]);
	mf_strbuf_init(&ln);
	/* Pass 0 measures the widest line (the rules' length), pass 1 writes. */
	for (pass = 0; pass < 2; pass++) {
		if (pass)
			mf_strbuf_pad(sb, '-', width), mf_strbuf_putc(sb, '\n');
		for (h = 0; h < 3; h++) {
			bool any = false;
			for (c = 0; c < t->nc; c++) {
				cells[c] = t->head[c][h];
				any |= cells[c] != NULL;
			}
			if (!any)
				continue;
			tt_line(&ln, t, w, cells);
			if (ln.len > width)
				width = ln.len;
			if (pass)
				mf_strbuf_add(sb, mf_strbuf_str(&ln), ln.len), mf_strbuf_putc(sb, '\n');
		}
		if (pass)
			mf_strbuf_pad(sb, '-', width), mf_strbuf_putc(sb, '\n');
		for (r = 0; r < t->nr; r++) {
			char *const *rc = &t->cell[r * TT_MAXC];
			switch (t->kind[r]) {
			case TT_CELLS: tt_line(&ln, t, w, (const char *const *)rc); break;
			case TT_RAW:
				sb_reset(&ln);
				mf_strbuf_puts(&ln, rc[0] ? rc[0] : "");
				break;
			case TT_PCT:
				sb_reset(&ln);
				mf_strbuf_pad(&ln, ' ', t->gap[0] + w[0] - strlen(rc[0] ? rc[0] : ""));
				mf_strbuf_puts(&ln, rc[0] ? rc[0] : "");
				mf_strbuf_putc(&ln, ' ');
				mf_strbuf_puts(&ln, rc[1] ? rc[1] : "");
				break;
			default:
				if (pass)
					put_pattern(sb, t->kind[r] == TT_DASH ? '-' : '~', width);
				continue;
			}
			if (t->kind[r] == TT_CELLS && ln.len > width)
				width = ln.len;
			if (pass)
				mf_strbuf_add(sb, mf_strbuf_str(&ln), ln.len), mf_strbuf_putc(sb, '\n');
		}
		if (pass)
			mf_strbuf_pad(sb, '-', width), mf_strbuf_putc(sb, '\n');
	}
	ok = !ln.failed && !t->nomem;
	mf_strbuf_free(&ln);
	return ok;
}

/* ---- cell values ------------------------------------------------------------- */

static void set_u64(struct ttab *t, size_t c, bool ok, uint64_t v)
{
	if (ok)
		tt_set(t, c, "%" PRIu64, v);
	else
		tt_set(t, c, "n/a");
}

static void set_fixed(struct ttab *t, size_t c, double v, int dec)
{
	char b[48];
	fmt_fixed(b, sizeof(b), v, dec);
	tt_set(t, c, "%s", b);
}

/* Estimated events of the CPU role: milliseconds for clock streams (§6), else events. */
static void set_est(const struct ctx *x, struct ttab *t, size_t c, const struct mf_agg_row *r)
{
	if (x->a.clock)
		set_fixed(t, c, (double)r->events[MF_ROLE_CPU] / 1e6, 3);
	else
		tt_set(t, c, "%" PRIu64, r->events[MF_ROLE_CPU]);
}

/* The class columns of a row from column c on; with pcts also the three % fill columns. */
static size_t set_classes(const struct ctx *x, struct ttab *t, size_t c, const struct mf_agg_row *r, bool pcts)
{
	const struct mf_agg *a = &x->a;
	if (!a->itlb) {
		tt_set(t, c++, "%" PRIu64, r->cpu);
		set_est(x, t, c++, r);
		return c;
	}
	set_u64(t, c++, a->av_misses, r->misses);
	if (a->av_l2hpw && r->l2_clamped)
		tt_set(t, c++, "~%" PRIu64, r->l2);
	else
		set_u64(t, c++, a->av_l2hpw, r->l2);
	set_u64(t, c++, a->av_l2hpw, r->hpw);
	set_u64(t, c++, a->av_soft, r->soft);
	if (pcts) {
		set_fixed(t, c++, r->pct_l2, 2);
		set_fixed(t, c++, r->pct_hpw, 2);
		set_fixed(t, c++, r->pct_soft, 2);
	}
	set_u64(t, c++, a->av_cpu, r->cpu);
	return c;
}

static void class_cols(const struct ctx *x, struct ttab *t, bool pcts)
{
	if (!x->a.itlb) {
		tt_col(t, false, 1, "Samples", NULL, NULL);
		tt_col(t, false, 1, "Est.", "Events", x->a.clock ? "(ms)" : NULL);
		return;
	}
	tt_col(t, false, 1, "Sampled", "ITLB", "Misses");
	tt_col(t, false, 1, "ITLB", "L2", "Fills");
	tt_col(t, false, 1, "ITLB", "HPW", "Fills");
	tt_col(t, false, 1, "ITLB", "Soft", "Fills");
	if (pcts) {
		tt_col(t, false, 1, "% ITLB", "L2", "Fill");
		tt_col(t, false, 1, "% ITLB", "HPW", "Fill");
		tt_col(t, false, 1, "% ITLB", "Soft", "Fill");
	}
	tt_col(t, false, 1, "CPU", "Samples", NULL);
}

/* A function as the text shows it: module::function, or module+0xOFF without a symbol. */
static void func_label(struct mf_strbuf *sb, const struct mf_agg_row *f, bool with_mod)
{
	if (f->func && with_mod)
		mf_strbuf_printf(sb, "%s::%s", f->modname ? f->modname : "", f->func);
	else if (f->func)
		mf_strbuf_puts(sb, f->func);
	else
		mf_strbuf_printf(sb, "%s+0x%" PRIx64, f->modname ? f->modname : "", f->start);
}

/* ---- text: header ------------------------------------------------------------- */

static void hline(struct mf_strbuf *sb, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void hline(struct mf_strbuf *sb, const char *label, const char *fmt, ...)
{
	va_list ap;
	char buf[4600];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	mf_strbuf_puts(sb, label);
	if (buf[0])
		mf_strbuf_pad(sb, ' ', strlen(label) < 18 ? 18 - strlen(label) : 1);
	mf_strbuf_puts(sb, buf);
	mf_strbuf_putc(sb, '\n');
}

static const struct {
	int sig;
	const char *name;
} signames[] = {
        {SIGHUP, "SIGHUP"},       {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
        {SIGTRAP, "SIGTRAP"},     {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
        {SIGKILL, "SIGKILL"},     {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
        {SIGPIPE, "SIGPIPE"},     {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"}, {SIGCHLD, "SIGCHLD"},
        {SIGCONT, "SIGCONT"},     {SIGSTOP, "SIGSTOP"}, {SIGTSTP, "SIGTSTP"}, {SIGTTIN, "SIGTTIN"},
        {SIGTTOU, "SIGTTOU"},     {SIGURG, "SIGURG"},   {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
        {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGSYS, "SIGSYS"},
};

static const char *sig_name(int sig)
{
	size_t i;
	for (i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
		if (signames[i].sig == sig)
			return signames[i].name;
	return "unknown signal";
}

/* "exit 0", "killed by signal 9 (SIGKILL)" from a wait4 status. */
static void exit_text(char *buf, size_t n, int st)
{
	if (WIFEXITED(st))
		snprintf(buf, n, "exit %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, n, "killed by signal %d (%s)%s", WTERMSIG(st), sig_name(WTERMSIG(st)),
		         WCOREDUMP(st) ? ", core dumped" : "");
	else
		snprintf(buf, n, "wait status 0x%x", (unsigned)st);
}

/* argv joined by spaces; arguments that need it in single quotes, as a shell would take them. */
static void put_command(struct mf_strbuf *sb, const struct mf_mrun *run)
{
	int i;
	for (i = 0; i < run->argc; i++) {
		const char *s = run->argv[i] ? run->argv[i] : "";
		if (i)
			mf_strbuf_putc(sb, ' ');
		if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-") ==
		                  strlen(s)) {
			mf_strbuf_puts(sb, s);
			continue;
		}
		mf_strbuf_putc(sb, '\'');
		for (; *s; s++)
			if (*s == '\'')
				mf_strbuf_puts(sb, "'\\''");
			else
				mf_strbuf_putc(sb, *s);
		mf_strbuf_putc(sb, '\'');
	}
}

static void iso_date(char *buf, size_t n, int64_t us)
{
	/* Whole seconds: the header is for people; run.csv keeps start_us exact. */
	int64_t s = us >= 0 ? us / 1000000 : -((-us + 999999) / 1000000);
	mf_time_format(s * 1000000, buf, n);
}

static const char *mode_text(const struct mf_mrun *run)
{
	return run->mode[0] ? run->mode : "precise";
}

/* §4: the itlb software rung samples page faults, which are not steady-state TLB misses. */
static bool software_itlb(const struct ctx *x)
{
	return x->a.itlb &&
	       (x->run->rung == MF_RUNG_SOFTWARE || (!x->a.has_role[MF_ROLE_ITLB] && x->a.has_role[MF_ROLE_FAULT]));
}

static const char *status_word(int st)
{
	switch (st) {
	case MF_CNT_OK: return "ok";
	case MF_CNT_SCALED: return "scaled";
	case MF_CNT_NOT_COUNTED: return "not_counted";
	case MF_CNT_NOT_SUPPORTED: return "not_supported";
	default: return "";
	}
}

static double share(const struct mf_mcount *c)
{
	return c->enabled ? (double)c->running / (double)c->enabled * 100.0 : NAN;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static void text_header(struct ctx *x, struct mf_strbuf *sb)
{
	const struct mf_mrun *run = x->run;
	struct mf_strbuf t;
	char b1[64], b2[64], b3[64], b4[64];
	size_t i;

	mf_strbuf_init(&t);
	put_command(&t, run);
	exit_text(b1, sizeof(b1), run->wait_status);
	if (run->pid > 0)
		hline(sb, "Target:", "%s (pid %d, %s)", run->argc ? mf_strbuf_str(&t) : "(unknown)", run->pid, b1);
	else
		hline(sb, "Target:", "%s (not started)", run->argc ? mf_strbuf_str(&t) : "(unknown)");
	sb_reset(&t);
	if (run->host[0])
		mf_strbuf_printf(&t, "%s, ", run->host);
	if (run->arch[0])
		mf_strbuf_printf(&t, "%s, ", run->arch);
	if (run->cpu_model[0])
		mf_strbuf_printf(&t, "%s, ", run->cpu_model);
	if (run->ncpus > 0)
		mf_strbuf_printf(&t, "%d CPU%s, ", run->ncpus, run->ncpus == 1 ? "" : "s");
	if (run->kernel[0])
		mf_strbuf_printf(&t, "kernel %s, ", run->kernel);
	if (t.len >= 2)
		t.buf[t.len -= 2] = '\0';
	hline(sb, "Host:", "%s", t.len ? mf_strbuf_str(&t) : "unknown");
	mf_strbuf_free(&t);
	hline(sb, "Virtual machine:", "%s", run->vm > 0 ? "yes" : run->vm == 0 ? "no" : "unknown");
	iso_date(b1, sizeof(b1), run->start_us);
	fmt_fixed(b2, sizeof(b2), run->wall_s, 3);
	fmt_fixed(b3, sizeof(b3), run->user_s, 3);
	fmt_fixed(b4, sizeof(b4), run->sys_s, 3);
	hline(sb, "Run:", "%s, wall %s s, user %s s, system %s s", b1, b2, b3, b4);
	hline(sb, "Database:", "%s", run->database[0] ? run->database : "not saved");
	hline(sb, "Mode:", "%s", mode_text(run));
	hline(sb, "Attribution:", "%s",
	      !x->o.attribute_line ? "ip (each sample goes to the function of its own address)"
	                        : "line (a cache line and its samples go to the function owning its first byte)");
	if (x->a.itlb && x->a.by_cpu)
		hline(sb, "Sorted by:", "CPU samples (the run has no sampled ITLB misses)");
	if (x->a.itlb && x->a.has_role[MF_ROLE_FAULT])
		hline(sb, "Page faults:",
		      "on instruction fetch: %" PRIu64 " (soft fills), page faults on data: %" PRIu64
		      " (not misses, left out)",
		      x->a.total.ifetch_samples, x->a.data_faults);

	if (run->incomplete)
		hline(sb, "Warning:", "INCOMPLETE: the run file has no END section; this is what was complete");
	if (software_itlb(x))
		hline(sb, "Warning:",
		      "without hardware counters these are page faults, mostly start-up demand "
		      "paging, not steady-state TLB behaviour");
	if (run->lost)
		hline(sb, "Warning:", "%" PRIu64 " record%s lost (the ring buffer was full): samples are missing",
		      run->lost, plural(run->lost));
	if (run->lost_samples)
		hline(sb, "Warning:", "%" PRIu64 " sample%s lost by the kernel", run->lost_samples,
		      plural(run->lost_samples));
	if (run->throttles)
		hline(sb, "Warning:",
		      "sampling throttled %" PRIu64 " time%s (kernel.perf_event_max_sample_rate): "
		      "samples are missing",
		      run->throttles, plural(run->throttles));
	if (run->unmapped)
		hline(sb, "Warning:", "%" PRIu64 " sample%s outside any known mapping (load module [unknown])",
		      run->unmapped, plural(run->unmapped));
	if (run->unknown_records)
		hline(sb, "Warning:", "%" PRIu64 " record%s of unknown or unused types skipped", run->unknown_records,
		      plural(run->unknown_records));
	if (x->a.skipped)
		hline(sb, "Warning:", "%" PRIu64 " sample%s of streams this measurement does not use left out",
		      x->a.skipped, plural(x->a.skipped));
	for (i = 0; i < run->ncounts; i++)
		if (run->counts[i].status == MF_CNT_SCALED) {
			fmt_fixed(b1, sizeof(b1), share(&run->counts[i]), 2);
			hline(sb, "Warning:", "%s multiplexed: counted %s%% of the time, value scaled",
			      run->counts[i].name, b1);
		}
	for (i = 0; i < run->nwarnings; i++)
		hline(sb, "Warning:", "%s", run->warnings[i]);
}

static const char *role_text(int role)
{
	switch (role) {
	case MF_ROLE_CPU: return "CPU samples";
	case MF_ROLE_ITLB: return "ITLB misses";
	case MF_ROLE_STLB: return "STLB misses: page walks";
	case MF_ROLE_FAULT: return "page faults";
	default: return "unused";
	}
}

static const char *role_key(int role)
{
	switch (role) {
	case MF_ROLE_CPU: return "cpu";
	case MF_ROLE_ITLB: return "itlb";
	case MF_ROLE_STLB: return "stlb";
	case MF_ROLE_FAULT: return "fault";
	default: return "";
	}
}

static const char *line_size_source(const struct ctx *x)
{
	if (x->o.line_size)
		return "--line-size";
	return x->run->line_size_source[0] ? x->run->line_size_source : "default";
}

static void text_sampling(struct ctx *x, struct mf_strbuf *sb)
{
	const struct mf_mrun *run = x->run;
	char b1[48];
	size_t i;

	mf_strbuf_puts(sb, "\nSampling Specification\n");
	hline(sb, "Requested:", "%s", run->spec_requested[0] ? run->spec_requested : "(default)");
	hline(sb, "Used:", "%s", run->spec_used[0] ? run->spec_used : "(as requested)");
	if (!run->nstreams)
		hline(sb, "Event:", "none sampled");
	for (i = 0; i < run->nstreams; i++) {
		const struct mf_mstream *s = &run->streams[i];
		if (s->clock) {
			fmt_fixed(b1, sizeof(b1), (double)s->period / 1e6, 3);
			hline(sb, "Event:", "%s (%s), period %" PRIu64 " ns (%s ms)%s", s->name, role_text(s->role),
			      s->period, b1, s->precise > 0 ? ", precise" : "");
		} else {
			hline(sb, "Event:", "%s (%s), period %" PRIu64 " event%s%s", s->name, role_text(s->role),
			      s->period, s->period == 1 ? "" : "s", s->precise > 0 ? ", precise" : "");
		}
	}
	if (run->variation)
		hline(sb, "Variation:", "%" PRIu64 ", applied per wakeup (seed %" PRIu64 ")", run->variation,
		      run->seed);
	else
		hline(sb, "Variation:", "none");
	hline(sb, "Privilege:", "%s", run->privilege[0] ? run->privilege : "user");
	hline(sb, "Granularity:", "%u-byte cache lines (%s)", x->line_size, line_size_source(x));
	hline(sb, "Lost:", "%" PRIu64 " records, %" PRIu64 " samples", run->lost, run->lost_samples);
	hline(sb, "Throttled:", "%" PRIu64 " times, unthrottled %" PRIu64 " times", run->throttles, run->unthrottles);
}

/* ---- exact counts and derived ratios ------------------------------------------- */

struct derived {
	const char *name;  /* CSV/JSON name */
	const char *label; /* text */
	const char *unit;
	char formula[200];
	double v;
	int status;
};

static const struct mf_mcount *counted(const struct mf_mrun *run, const char *name)
{
	size_t i;
	for (i = 0; i < run->ncounts; i++)
		if (strcmp(run->counts[i].name, name) == 0)
			return run->counts[i].status == MF_CNT_OK || run->counts[i].status == MF_CNT_SCALED
			               ? &run->counts[i]
			               : NULL;
	return NULL;
}

static bool has_ci(const char *s, const char *needle)
{
	size_t n = strlen(needle), i, k;
	for (i = 0; s[i]; i++) {
		for (k = 0; k < n && s[i + k]; k++) {
			char c = s[i + k];
			if (c >= 'A' && c <= 'Z')
				c = (char)(c - 'A' + 'a');
			if (c != needle[k])
				break;
		}
		if (k == n)
			return true;
	}
	return false;
}

/* The exact count of ITLB misses: the ITLB stream's event counted, else a count named like one. */
static const struct mf_mcount *itlb_count(const struct mf_mrun *run)
{
	const struct mf_mcount *c;
	size_t i;
	for (i = 0; i < run->nstreams; i++)
		if (run->streams[i].role == MF_ROLE_ITLB && (c = counted(run, run->streams[i].name)))
			return c;
	for (i = 0; i < run->ncounts; i++)
		if (has_ci(run->counts[i].name, "itlb") && has_ci(run->counts[i].name, "miss") &&
		    (run->counts[i].status == MF_CNT_OK || run->counts[i].status == MF_CNT_SCALED))
			return &run->counts[i];
	return NULL;
}

static int worst(const struct mf_mcount *a, const struct mf_mcount *b)
{
	return a->status == MF_CNT_SCALED || (b && b->status == MF_CNT_SCALED) ? MF_CNT_SCALED : MF_CNT_OK;
}

/* §6: the ratios whose inputs were counted. */
static size_t derive_metrics(const struct ctx *x, struct derived *d)
{
	const struct mf_mrun *run = x->run;
	const struct mf_mcount *m, *ins, *tc, *pf;
	size_t n = 0;

	if (x->a.itlb && (m = itlb_count(run)) && (ins = counted(run, "instructions")) && ins->value > 0) {
		d[n].name = "itlb_misses_per_kilo_instruction";
		d[n].label = "ITLB misses per 1000 instructions";
		d[n].unit = "";
		snprintf(d[n].formula, sizeof(d[n].formula), "1000 * %s / instructions", m->name);
		d[n].v = 1000.0 * (double)m->value / (double)ins->value;
		d[n++].status = worst(m, ins);
	}
	if ((tc = counted(run, "task-clock")) && run->wall_s > 0) {
		d[n].name = "cpu_utilisation";
		d[n].label = "CPU utilisation";
		d[n].unit = "CPUs";
		snprintf(d[n].formula, sizeof(d[n].formula), "task-clock / wall time");
		d[n].v = (double)tc->value / (run->wall_s * 1e9);
		d[n++].status = worst(tc, NULL);
	}
	if ((pf = counted(run, "page-faults")) && run->wall_s > 0) {
		d[n].name = "page_faults_per_second";
		d[n].label = "Page faults per second";
		d[n].unit = "per s";
		snprintf(d[n].formula, sizeof(d[n].formula), "page-faults / wall time");
		d[n].v = (double)pf->value / run->wall_s;
		d[n++].status = worst(pf, NULL);
	}
	return n;
}

static void text_metrics(struct ctx *x, struct mf_strbuf *sb)
{
	const struct mf_mrun *run = x->run;
	struct derived d[4];
	struct ttab t = {0};
	size_t i, nd = derive_metrics(x, d);
	char b[48];

	mf_strbuf_puts(sb, "\nMetrics Summed for Entire Run\n");
	tt_col(&t, true, 1, "Name", NULL, NULL);
	tt_col(&t, false, 1, "Value", NULL, NULL);
	tt_col(&t, true, 1, "Unit", NULL, NULL);
	tt_col(&t, true, 1, "Status", NULL, NULL);
	for (i = 0; i < run->ncounts; i++) {
		const struct mf_mcount *c = &run->counts[i];
		tt_row(&t, TT_CELLS);
		tt_set(&t, 0, "%s", c->name);
		tt_set(&t, 2, "%s", c->unit);
		switch (c->status) {
		case MF_CNT_OK:
			tt_set(&t, 1, "%" PRIu64, c->value);
			tt_set(&t, 3, "ok");
			break;
		case MF_CNT_SCALED:
			fmt_fixed(b, sizeof(b), share(c), 2);
			tt_set(&t, 1, "%" PRIu64, c->value);
			tt_set(&t, 3, "scaled (counted %s%% of the time)", b);
			break;
		default:
			tt_set(&t, 1, "n/a");
			tt_set(&t, 3, "%s%s%s%s", c->status == MF_CNT_NOT_COUNTED ? "not counted" : "not supported",
			       c->why[0] ? " (" : "", c->why, c->why[0] ? ")" : "");
			break;
		}
	}
	for (i = 0; i < nd; i++) {
		tt_row(&t, TT_CELLS);
		tt_set(&t, 0, "%s", d[i].label);
		set_fixed(&t, 1, d[i].v, 3);
		tt_set(&t, 2, "%s", d[i].unit);
		tt_set(&t, 3, "derived: %s%s", d[i].formula, d[i].status == MF_CNT_SCALED ? " (scaled inputs)" : "");
	}
	if (!run->ncounts) {
		tt_row(&t, TT_RAW);
		tt_set(&t, 0, " (no exact counts)");
	}
	x->nomem |= !tt_render(sb, &t);
	tt_free(&t);
}

/* ---- text: summaries and details -------------------------------------------------- */

/* Rows printed under a cutoff: while % >= pct and the cumulative % before the row <= cum, at least min. */
static size_t cut_rows(const struct mf_agg_table *t, const struct mf_cutoff *c)
{
	size_t i;
	double before = 0;
	for (i = 0; i < t->n; i++) {
		const struct mf_agg_row *r = &t->rows[i];
		double p = isnan(r->pct) ? 0 : r->pct;
		/* A hair of slack: a cumulative sum of 100 may come out as 100.00000000000001. */
		if (i >= c->min && !(p >= c->pct && before <= c->cum + 1e-9))
			break;
		before = isnan(r->cum) ? 0 : r->cum;
	}
	return i;
}

static void footer(struct mf_strbuf *sb, const char *what, const struct mf_cutoff *c)
{
	char p[48], q[48];
	fmt_fixed(p, sizeof(p), c->pct, 2);
	fmt_fixed(q, sizeof(q), c->cum, 2);
	mf_strbuf_printf(sb, "[Minimum %s entries: %u, percent cutoff: %s, cumulative percent cutoff: %s]\n", what,
	                 c->min, p, q);
}

enum { SUM_THREAD, SUM_MOD, SUM_FUNC };

static void text_summary(struct ctx *x, struct mf_strbuf *sb, int which)
{
	static const char *const titles[] = {"Thread Summary", "Load Module Summary", "Function Summary"};
	static const char *const what[] = {"thread", "load module", "function"};
	const struct mf_agg *a = &x->a;
	const struct mf_agg_table *tab = which == SUM_THREAD ? &a->threads : which == SUM_MOD ? &a->mods : &a->funcs;
	struct ttab t = {0};
	size_t i, c, n = cut_rows(tab, &x->o.summary);
	struct mf_strbuf lab;

	mf_strbuf_printf(sb, "\n%s\n", titles[which]);
	if (!a->itlb)
		tt_col(&t, false, 1, "% Total", "Samples", NULL);
	else if (a->by_cpu)
		tt_col(&t, false, 1, "% Total", "CPU", "Samples");
	else
		tt_col(&t, false, 1, "% Total", "ITLB", "Misses");
	tt_col(&t, false, 1, "Cumulat", "% of", "Total");
	class_cols(x, &t, true);
	if (which == SUM_THREAD) {
		tt_col(&t, true, 1, "Thread", NULL, NULL);
	} else if (which == SUM_MOD) {
		tt_col(&t, true, 1, "Load Module", NULL, NULL);
	} else {
		tt_col(&t, true, 1, "Function", NULL, NULL);
		tt_col(&t, true, 2, "File", NULL, NULL);
	}
	mf_strbuf_init(&lab);
	for (i = 0; i < n; i++) {
		const struct mf_agg_row *r = &tab->rows[i];
		tt_row(&t, TT_CELLS);
		set_fixed(&t, 0, r->pct, 2);
		set_fixed(&t, 1, r->cum, 2);
		c = set_classes(x, &t, 2, r, true);
		if (which == SUM_THREAD) {
			tt_set(&t, c, "%" PRIu32 " %s", r->tid, r->comm ? r->comm : "");
		} else if (which == SUM_MOD) {
			tt_set(&t, c, "%s", r->modpath ? r->modpath : "");
		} else {
			sb_reset(&lab);
			func_label(&lab, r, true);
			tt_set(&t, c, "%s", mf_strbuf_str(&lab));
			tt_set(&t, c + 1, "%s", r->file ? base_name(r->file) : "");
		}
	}
	x->nomem |= lab.failed != 0;
	mf_strbuf_free(&lab);
	x->nomem |= !tt_render(sb, &t);
	tt_free(&t);
	footer(sb, what[which], &x->o.summary);
}

struct stmt {
	const char *file;
	uint32_t line;
	bool inl;
};

static bool same_file(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static size_t add_stmt(struct stmt *st, size_t n, size_t max, const char *file, uint32_t line, bool inl)
{
	size_t i;
	if (!line || n >= max)
		return n;
	for (i = 0; i < n; i++)
		if (st[i].line == line && same_file(st[i].file, file))
			return n;
	st[n].file = file;
	st[n].line = line;
	st[n].inl = inl;
	return n + 1;
}

/*
 * The statements of a cache line in address order, each source line once:
 * the one of its first byte, then the DWARF rows inside it (§6 Function
 * Details).  With --attribute ip, only the part inside the function.
 */
static size_t cl_statements(const struct ctx *x, const struct mf_agg_row *f, const struct mf_agg_row *cl,
                            struct stmt *st, size_t max)
{
	const struct mf_mrun *run = x->run;
	uint64_t lo = cl->start, hi = cl->start + x->line_size;
	size_t n = 0, first, cnt, i;
	const struct mf_msym *s;

	if (!x->o.attribute_line && f->func) {
		if (f->start > lo)
			lo = f->start;
		if (f->size && f->start + f->size < hi && f->start + f->size > lo)
			hi = f->start + f->size;
	}
	if (f->mod < run->nmods) {
		if ((s = mf_mrun_sym(run, f->mod, lo)))
			n = add_stmt(st, n, max, s->file, s->line, (s->flags & MF_SYM_INLINE) != 0);
		first = mf_mrun_src_range(run, f->mod, lo, hi, &cnt);
		for (i = 0; i < cnt; i++) {
			const struct mf_msrc *r = &run->src[first + i];
			n = add_stmt(st, n, max, r->file, r->line, (r->flags & MF_SYM_INLINE) != 0);
		}
	}
	if (!n)
		n = add_stmt(st, n, max, cl->file, cl->line, false);
	return n;
}

static int cmp_cl_addr(const void *pa, const void *pb)
{
	const struct mf_agg_row *a = *(const struct mf_agg_row *const *)pa, *b = *(const struct mf_agg_row *const *)pb;
	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return 0;
}

static void stmt_cells(struct ctx *x, struct ttab *t, size_t c, const struct stmt *s, bool approx)
{
	char text[200];
	if (!s) {
		tt_set(t, c, "?");
		tt_set(t, c + 1, ">");
		return;
	}
	tt_set(t, c, "%s%" PRIu32, approx || s->inl ? "~" : "", s->line);
	if (src_text(&x->src, s->file, s->line, text, sizeof(text)) && text[0])
		tt_set(t, c + 1, "> %s", text);
	else
		tt_set(t, c + 1, ">");
}

static void text_details(struct ctx *x, struct mf_strbuf *sb)
{
	const struct mf_agg *a = &x->a;
	struct ttab t = {0};
	size_t nf = cut_rows(&a->funcs, &x->o.detail), i, j = 0, c, ncl = a->cls.n;
	const struct mf_agg_row **cls = NULL;
	struct mf_strbuf lab;
	struct stmt st[128];
	char pct[48];

	mf_strbuf_puts(sb, "\nFunction Details\n");
	if (ncl && !(cls = malloc(ncl * sizeof(*cls)))) {
		x->nomem = true;
		return;
	}
	for (i = 0; i < ncl; i++)
		cls[i] = &a->cls.rows[i];
	if (ncl)
		qsort(cls, ncl, sizeof(*cls), cmp_cl_addr);
	class_cols(x, &t, false);
	tt_col(&t, false, 1, "+Offset", NULL, NULL);
	tt_col(&t, false, 1, "Line", NULL, NULL);
	tt_col(&t, true, 2, ">Statement", NULL, NULL);
	mf_strbuf_init(&lab);
	for (i = 0; i < nf; i++) {
		const struct mf_agg_row *f = &a->funcs.rows[i], *prev = NULL;
		sb_reset(&lab);
		mf_strbuf_putc(&lab, '[');
		func_label(&lab, f, true);
		mf_strbuf_printf(&lab, ", 0x%" PRIx64, f->start);
		if (f->file)
			mf_strbuf_printf(&lab, ", %s", base_name(f->file));
		mf_strbuf_putc(&lab, ']');
		tt_row(&t, TT_PCT);
		fmt_fixed(pct, sizeof(pct), f->pct, 2);
		tt_set(&t, 0, "%s", pct);
		tt_set(&t, 1, "%s", mf_strbuf_str(&lab));
		tt_row(&t, TT_CELLS);
		c = set_classes(x, &t, 0, f, false);
		tt_set(&t, c + 2, "Function Totals");
		tt_row(&t, TT_RAW);
		tt_set(&t, 0, " [%s]", f->file ? f->file : "source file unknown");
		/* The function's cache lines are consecutive in cls (sorted by function, then address). */
		for (; j < ncl && cls[j]->fn < i; j++)
			;
		for (; j < ncl && cls[j]->fn == i; j++) {
			const struct mf_agg_row *cl = cls[j];
			size_t ns = cl_statements(x, f, cl, st, sizeof(st) / sizeof(st[0])), k;
			uint64_t off = cl->start >= f->start ? cl->start - f->start : f->start - cl->start;
			/* §6: dashes around each cache line, shared by adjacent ones; tildes across gaps. */
			if (prev && prev->start + x->line_size != cl->start) {
				tt_row(&t, TT_TILDE);
				tt_row(&t, TT_DASH);
			} else if (!prev) {
				tt_row(&t, TT_DASH);
			}
			tt_row(&t, TT_CELLS);
			c = set_classes(x, &t, 0, cl, false);
			tt_set(&t, c, "%s0x%" PRIx64, cl->start >= f->start ? "+" : "-", off);
			stmt_cells(x, &t, c + 1, ns ? &st[0] : NULL, cl->approx);
			for (k = 1; k < ns; k++) {
				tt_row(&t, TT_CELLS);
				stmt_cells(x, &t, c + 1, &st[k], false);
			}
			tt_row(&t, TT_DASH);
			prev = cl;
		}
	}
	x->nomem |= lab.failed != 0;
	mf_strbuf_free(&lab);
	free(cls);
	x->nomem |= !tt_render(sb, &t);
	tt_free(&t);
	footer(sb, "function", &x->o.detail);
}

static void write_text(struct ctx *x, struct mf_strbuf *sb)
{
	text_header(x, sb);
	text_sampling(x, sb);
	text_metrics(x, sb);
	/* §3: the Thread Summary only when there are several threads. */
	if (x->a.threads.n > 1)
		text_summary(x, sb, SUM_THREAD);
	text_summary(x, sb, SUM_MOD);
	text_summary(x, sb, SUM_FUNC);
	text_details(x, sb);
}

/* ---- CSV and JSON ------------------------------------------------------------------- */

/*
 * One emitter writes both: a CSV table row, a CSV header (keys instead of
 * values), run.csv's key,value lines, or JSON object members.  The table
 * writers call it field by field with the column's key, so CSV headers and
 * JSON keys cannot disagree.
 */
struct em {
	struct mf_strbuf *sb;
	bool json, kv, header;
	size_t nf;          /* fields of the current row or object */
	const char *prefix; /* run.csv: prefix of the keys */
};

enum { F_NA, F_STR, F_U64, F_I64, F_NUM, F_BOOL };

/* A text cell: RFC 4180 with the formula guard; numbers do not come here (include/mfstat/escape.h). */
static void csv_field(struct mf_strbuf *sb, const char *s)
{
	mf_escape_csv(sb, s, MF_ESCAPE_CSV_TEXT);
}

/* A JSON string, or null for NULL (include/mfstat/escape.h). */
static void json_str(struct mf_strbuf *sb, const char *s)
{
	mf_escape_json(sb, s);
}

static void em_field(struct em *e, const char *key, int type, const char *s, uint64_t u, int64_t i, double d)
{
	struct mf_strbuf *sb = e->sb;
	char b[48];

	if (type == F_NUM && (isnan(d) || isinf(d)))
		type = F_NA;
	if (type == F_STR && !s)
		type = F_NA;
	if (e->header) {
		if (e->nf++)
			mf_strbuf_putc(sb, ',');
		csv_field(sb, key);
		return;
	}
	if (e->json) {
		if (e->nf++)
			mf_strbuf_putc(sb, ',');
		json_str(sb, key);
		mf_strbuf_putc(sb, ':');
	} else if (e->kv) {
		if (e->prefix)
			mf_strbuf_puts(sb, e->prefix);
		csv_field(sb, key);
		mf_strbuf_putc(sb, ',');
	} else if (e->nf++) {
		mf_strbuf_putc(sb, ',');
	}
	switch (type) {
	case F_NA:
		if (e->json)
			mf_strbuf_puts(sb, "null");
		break;
	case F_STR:
		if (e->json)
			json_str(sb, s);
		else
			csv_field(sb, s);
		break;
	case F_U64: mf_strbuf_printf(sb, "%" PRIu64, u); break;
	case F_I64: mf_strbuf_printf(sb, "%" PRId64, i); break;
	case F_NUM: mf_strbuf_add(sb, b, (size_t)mf_fmt_g15(d == 0 ? 0.0 : d, b)); break;
	case F_BOOL: mf_strbuf_puts(sb, e->json ? (u ? "true" : "false") : (u ? "1" : "0")); break;
	}
	if (e->kv && !e->json)
		mf_strbuf_putc(sb, '\n');
}

static void em_str(struct em *e, const char *key, const char *s)
{
	em_field(e, key, F_STR, s, 0, 0, 0);
}

static void em_u64(struct em *e, const char *key, bool ok, uint64_t v)
{
	em_field(e, key, ok ? F_U64 : F_NA, NULL, v, 0, 0);
}

static void em_i64(struct em *e, const char *key, int64_t v)
{
	em_field(e, key, F_I64, NULL, 0, v, 0);
}

static void em_num(struct em *e, const char *key, double v)
{
	em_field(e, key, F_NUM, NULL, 0, 0, v);
}

static void em_bool(struct em *e, const char *key, bool v)
{
	em_field(e, key, F_BOOL, NULL, v, 0, 0);
}

static void em_addr(struct em *e, const char *key, uint64_t v)
{
	char b[24];
	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	em_str(e, key, b);
}

/* JSON: "key": followed by what the caller writes (an object or array). */
static void em_open(struct em *e, const char *key, char bracket)
{
	if (e->nf++)
		mf_strbuf_puts(e->sb, ",\n");
	json_str(e->sb, key);
	mf_strbuf_putc(e->sb, ':');
	mf_strbuf_putc(e->sb, bracket);
}

/* The numbers of a row after its identifying columns (§6 CSV). */
static void em_classes(const struct ctx *x, struct em *e, const struct mf_agg_row *r)
{
	const struct mf_agg *a = &x->a;
	em_num(e, "percent", r->pct);
	em_num(e, "cumulative_percent", r->cum);
	if (a->itlb) {
		em_u64(e, "sampled_misses", a->av_misses, r->misses);
		em_u64(e, "l2_fills", a->av_l2hpw, r->l2);
		em_u64(e, "hpw_fills", a->av_l2hpw, r->hpw);
		em_u64(e, "soft_fills", a->av_soft, r->soft);
		em_num(e, "pct_l2_fill", r->pct_l2);
		em_num(e, "pct_hpw_fill", r->pct_hpw);
		em_num(e, "pct_soft_fill", r->pct_soft);
		em_u64(e, "cpu_samples", a->av_cpu, r->cpu);
	} else {
		em_u64(e, "samples", true, r->cpu);
		em_u64(e, "estimated_events", true, r->events[MF_ROLE_CPU]);
	}
	em_bool(e, "approximate", r->approx);
}

static const struct mf_agg_row *fn_of(const struct ctx *x, const struct mf_agg_row *r)
{
	return r->fn < x->a.funcs.n ? &x->a.funcs.rows[r->fn] : NULL;
}

static void em_funcname(struct em *e, const char *key, const struct mf_agg_row *f)
{
	struct mf_strbuf b;
	if (!f) {
		em_str(e, key, NULL);
		return;
	}
	if (f->func) {
		em_str(e, key, f->func);
		return;
	}
	mf_strbuf_init(&b);
	func_label(&b, f, false);
	em_str(e, key, mf_strbuf_str(&b));
	mf_strbuf_free(&b);
}

enum { T_METRICS, T_THREADS, T_MODULES, T_FUNCTIONS, T_LINES, T_CACHE_LINES, T_N };

static const char *const table_names[T_N] = {"metrics", "threads", "modules", "functions", "lines", "cache_lines"};

static void metric_row(struct em *e, const struct mf_mcount *c, const struct derived *d)
{
	if (d) {
		em_str(e, "name", d->name);
		em_num(e, "value", d->v);
		em_str(e, "unit", d->unit);
		em_str(e, "status", status_word(d->status));
		em_str(e, "event", d->formula);
		em_u64(e, "enabled", false, 0);
		em_u64(e, "running", false, 0);
		em_str(e, "note", NULL);
		return;
	}
	em_str(e, "name", c ? c->name : NULL);
	em_u64(e, "value", c && (c->status == MF_CNT_OK || c->status == MF_CNT_SCALED), c ? c->value : 0);
	em_str(e, "unit", c ? c->unit : NULL);
	em_str(e, "status", c ? status_word(c->status) : NULL);
	em_str(e, "event", c ? c->name : NULL);
	em_u64(e, "enabled", c != NULL, c ? c->enabled : 0);
	em_u64(e, "running", c != NULL, c ? c->running : 0);
	em_str(e, "note", c && c->why[0] ? c->why : NULL);
}

static void table_row(const struct ctx *x, struct em *e, int which, const struct mf_agg_row *r)
{
	const struct mf_agg_row *f;
	switch (which) {
	case T_THREADS:
		em_u64(e, "tid", true, r->tid);
		em_u64(e, "pid", true, r->pid);
		em_str(e, "comm", r->comm);
		break;
	case T_MODULES:
		em_str(e, "module", r->modname);
		em_str(e, "path", r->modpath);
		break;
	case T_FUNCTIONS:
		em_funcname(e, "function", r);
		em_str(e, "module", r->modname);
		em_str(e, "file", r->file);
		em_addr(e, "start_address", r->start);
		break;
	case T_LINES:
		f = fn_of(x, r);
		em_funcname(e, "function", f);
		em_str(e, "module", r->modname);
		em_str(e, "file", r->file);
		em_u64(e, "line", r->line != 0, r->line);
		em_addr(e, "address", r->addr);
		break;
	case T_CACHE_LINES:
		f = fn_of(x, r);
		em_funcname(e, "function", f);
		em_str(e, "module", r->modname);
		em_str(e, "file", r->file);
		em_u64(e, "line", r->line != 0, r->line);
		em_addr(e, "start_address", r->start);
		em_i64(e, "offset", f ? (int64_t)(r->start - f->start) : 0);
		break;
	}
	em_classes(x, e, r);
}

static const struct mf_agg_table *table_of(const struct ctx *x, int which)
{
	switch (which) {
	case T_THREADS: return &x->a.threads;
	case T_MODULES: return &x->a.mods;
	case T_FUNCTIONS: return &x->a.funcs;
	case T_LINES: return &x->a.lines;
	default: return &x->a.cls;
	}
}

/* Every row of one table: CSV with its header line, or JSON objects (the caller opened the array). */
static void emit_table(const struct ctx *x, struct mf_strbuf *sb, bool json, int which)
{
	struct em e = {.sb = sb, .json = json};
	static const struct mf_agg_row zero;
	size_t i, n;

	if (!json) {
		e.header = true;
		if (which == T_METRICS)
			metric_row(&e, NULL, NULL);
		else
			table_row(x, &e, which, &zero);
		mf_strbuf_putc(sb, '\n');
		e.header = false;
	}
	if (which == T_METRICS) {
		struct derived d[4];
		size_t nd = derive_metrics(x, d);
		n = x->run->ncounts + nd;
		for (i = 0; i < n; i++) {
			e.nf = 0;
			if (json)
				mf_strbuf_puts(sb, i ? ",\n{" : "\n{");
			if (i < x->run->ncounts)
				metric_row(&e, &x->run->counts[i], NULL);
			else
				metric_row(&e, NULL, &d[i - x->run->ncounts]);
			mf_strbuf_puts(sb, json ? "}" : "\n");
		}
		return;
	}
	n = table_of(x, which)->n;
	for (i = 0; i < n; i++) {
		e.nf = 0;
		if (json)
			mf_strbuf_puts(sb, i ? ",\n{" : "\n{");
		table_row(x, &e, which, &table_of(x, which)->rows[i]);
		mf_strbuf_puts(sb, json ? "}" : "\n");
	}
}

static const char *vm_text(int vm)
{
	return vm > 0 ? "yes" : vm == 0 ? "no" : NULL;
}

static const char *fallback_reason(const struct mf_mrun *run)
{
	return run->rung == MF_RUNG_PRECISE && !run->user_only_forced ? NULL : mode_text(run);
}

/* The run's settings and outcome (run.csv; JSON "run"). */
static void emit_run(const struct ctx *x, struct em *e)
{
	const struct mf_mrun *run = x->run;
	struct mf_strbuf cmd;
	char b[64];
	size_t i;

	mf_strbuf_init(&cmd);
	put_command(&cmd, run);
	em_str(e, "measurement", run->measurement);
	em_str(e, "command", mf_strbuf_str(&cmd));
	mf_strbuf_free(&cmd);
	em_i64(e, "pid", run->pid);
	exit_text(b, sizeof(b), run->wait_status);
	em_str(e, "exit_status", run->pid > 0 ? b : NULL);
	em_i64(e, "wait_status", run->wait_status);
	iso_date(b, sizeof(b), run->start_us);
	em_str(e, "start", b);
	em_i64(e, "start_us", run->start_us);
	em_num(e, "wall_s", run->wall_s);
	em_num(e, "user_s", run->user_s);
	em_num(e, "sys_s", run->sys_s);
	em_str(e, "host", run->host);
	em_str(e, "arch", run->arch);
	em_str(e, "cpu_model", run->cpu_model);
	em_str(e, "kernel", run->kernel);
	em_i64(e, "ncpus", run->ncpus);
	em_str(e, "virtual_machine", vm_text(run->vm));
	em_str(e, "database", run->database);
	em_str(e, "mode", mode_text(run));
	em_str(e, "attribution", x->o.attribute_line ? "line" : "ip");
	em_str(e, "sort_metric", !x->a.itlb ? "samples" : x->a.by_cpu ? "cpu_samples" : "sampled_misses");
	em_str(e, "estimated_events_unit", x->a.clock ? "ns" : "events");
	em_u64(e, "data_faults", true, x->a.data_faults);
	em_u64(e, "skipped_samples", true, x->a.skipped);
	em_u64(e, "samples", true, run->nsamples);
	em_u64(e, "lost", true, run->lost);
	em_u64(e, "lost_samples", true, run->lost_samples);
	em_u64(e, "throttles", true, run->throttles);
	em_u64(e, "unthrottles", true, run->unthrottles);
	em_u64(e, "unknown_records", true, run->unknown_records);
	em_u64(e, "unmapped", true, run->unmapped);
	em_bool(e, "incomplete", run->incomplete);
	if (e->json) {
		em_open(e, "warnings", '[');
		for (i = 0; i < run->nwarnings; i++) {
			if (i)
				mf_strbuf_putc(e->sb, ',');
			json_str(e->sb, run->warnings[i]);
		}
		mf_strbuf_putc(e->sb, ']');
	} else {
		for (i = 0; i < run->nwarnings; i++)
			em_str(e, "warning", run->warnings[i]);
	}
}

static void emit_stream(struct em *e, const struct mf_mstream *s)
{
	em_str(e, "name", s->name);
	em_str(e, "role", role_key(s->role));
	em_u64(e, "period", true, s->period);
	em_bool(e, "clock", s->clock);
	em_i64(e, "precise", s->precise);
}

static void emit_sampling(const struct ctx *x, struct em *e)
{
	const struct mf_mrun *run = x->run;
	size_t i;
	em_str(e, "spec_requested", run->spec_requested);
	em_str(e, "spec_used", run->spec_used);
	em_u64(e, "variation", true, run->variation);
	em_str(e, "variation_applied", run->variation ? "per wakeup" : NULL);
	em_u64(e, "seed", true, run->seed);
	em_str(e, "privilege", run->privilege);
	em_u64(e, "line_size", true, x->line_size);
	em_str(e, "line_size_source", line_size_source(x));
	if (e->json) {
		em_open(e, "streams", '[');
		for (i = 0; i < run->nstreams; i++) {
			struct em s = {.sb = e->sb, .json = true};
			mf_strbuf_puts(e->sb, i ? ",{" : "{");
			emit_stream(&s, &run->streams[i]);
			mf_strbuf_putc(e->sb, '}');
		}
		mf_strbuf_putc(e->sb, ']');
		return;
	}
	for (i = 0; i < run->nstreams; i++) {
		char p[32];
		snprintf(p, sizeof(p), "stream_%zu_", i);
		e->prefix = p;
		emit_stream(e, &run->streams[i]);
		e->prefix = NULL;
	}
}

static void emit_fallback(const struct ctx *x, struct em *e, const char *prefix)
{
	e->prefix = prefix;
	em_i64(e, "rung", x->run->rung);
	em_str(e, "reason", fallback_reason(x->run));
	em_bool(e, "user_only_forced", x->run->user_only_forced);
	e->prefix = NULL;
}

static void write_run_csv(const struct ctx *x, struct mf_strbuf *sb)
{
	struct em e = {.sb = sb, .kv = true};
	mf_strbuf_puts(sb, "key,value\n");
	emit_run(x, &e);
	emit_sampling(x, &e);
	emit_fallback(x, &e, "fallback_");
}

static void write_json(const struct ctx *x, struct mf_strbuf *sb)
{
	struct em top = {.sb = sb, .json = true}, sub;
	int t;

	mf_strbuf_puts(sb, "{\"schema\":1,\n\"measurement\":");
	json_str(sb, x->run->measurement);
	top.nf = 2;
	sub = (struct em){.sb = sb, .json = true};
	em_open(&top, "run", '{');
	emit_run(x, &sub);
	mf_strbuf_putc(sb, '}');
	sub = (struct em){.sb = sb, .json = true};
	em_open(&top, "sampling", '{');
	emit_sampling(x, &sub);
	mf_strbuf_putc(sb, '}');
	sub = (struct em){.sb = sb, .json = true};
	em_open(&top, "fallback", '{');
	emit_fallback(x, &sub, NULL);
	mf_strbuf_putc(sb, '}');
	for (t = 0; t < T_N; t++) {
		em_open(&top, table_names[t], '[');
		emit_table(x, sb, true, t);
		mf_strbuf_puts(sb, "\n]");
	}
	mf_strbuf_puts(sb, "}\n");
}

/* ---- entry points -------------------------------------------------------------------- */

static int setup(struct ctx *x, const struct mf_mrun *run, const struct mf_mreport_opts *o, struct mf_error *err)
{
	memset(x, 0, sizeof(*x));
	x->run = run;
	x->o = o ? *o : default_opts;
	x->line_size = x->o.line_size ? x->o.line_size : run->line_size ? run->line_size : 64;
	if (x->o.format < MF_MFMT_TEXT || x->o.format > MF_MFMT_JSON)
		return mf_error_set(err, MF_EINVAL, "", 0, 0, "unknown report format %d", x->o.format);
	return mf_agg_build(&x->a, run, x->line_size, !x->o.attribute_line, err);
}

static void teardown(struct ctx *x)
{
	mf_agg_free(&x->a);
	src_free(&x->src);
}

static int finish_buf(struct ctx *x, struct mf_strbuf *sb, struct mf_error *err)
{
	if (x->nomem || sb->failed)
		return mf_error_set(err, MF_ENOMEM, "", 0, 0, "out of memory writing the report");
	return 0;
}

int mf_mreport_write(FILE *fp, const struct mf_mrun *run, const struct mf_mreport_opts *o, struct mf_error *err)
{
	struct ctx x;
	struct mf_strbuf sb;
	int rc;

	mf_strbuf_init(&sb);
	if ((rc = setup(&x, run, o, err)) != 0) {
		teardown(&x);
		return rc;
	}
	switch (x.o.format) {
	case MF_MFMT_CSV: emit_table(&x, &sb, false, T_FUNCTIONS); break;
	case MF_MFMT_JSON: write_json(&x, &sb); break;
	default: {
		/* Names in it (command, thread, functions, files, source lines) come from the
		 * program: no control character of theirs reaches a terminal (mf_escape_text). */
		struct mf_strbuf raw;
		mf_strbuf_init(&raw);
		write_text(&x, &raw);
		mf_escape_text(&sb, mf_strbuf_str(&raw), MF_ESCAPE_TEXT_KEEP_NL | MF_ESCAPE_TEXT_KEEP_TAB);
		if (raw.failed)
			sb.failed = 1;
		mf_strbuf_free(&raw);
		break;
	}
	}
	rc = finish_buf(&x, &sb, err);
	if (!rc && (fwrite(mf_strbuf_str(&sb), 1, sb.len, fp) != sb.len || fflush(fp) != 0 || ferror(fp)))
		rc = mf_error_set(err, MF_EIO, "", 0, 0, "cannot write the report: %s", strerror(errno));
	mf_strbuf_free(&sb);
	teardown(&x);
	return rc;
}

/* mkdir -p: creates dir and its missing parents. */
static int make_dir(const char *dir, struct mf_error *err)
{
	char *p = strdup(dir), *s;
	struct stat st;
	if (!p)
		return mf_error_set(err, MF_ENOMEM, dir, 0, 0, "out of memory");
	for (s = p + 1;; s++) {
		char c = *s;
		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			int e = errno;
			free(p);
			return mf_error_set(err, MF_EIO, dir, 0, 0, "cannot create directory: %s", strerror(e));
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return mf_error_set(err, MF_EIO, dir, 0, 0, "not a directory");
	return 0;
}

/*
 * dir/name, written under a new temporary name (mkstemp: O_EXCL, mode 0600,
 * as run.csv holds the command line) and renamed over name: a symbolic link
 * planted at dir/name is replaced, never followed, and a reader never sees a
 * half-written table.
 */
static int write_file(const char *dir, const char *name, const struct mf_strbuf *sb, struct mf_error *err)
{
	char path[4200], tmp[4300];
	FILE *fp;
	int fd, bad, e;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, name);
	if ((fd = mkstemp(tmp)) < 0)
		return mf_error_set(err, MF_EIO, path, 0, 0, "cannot create: %s", strerror(errno));
	if (!(fp = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		unlink(tmp);
		return mf_error_set(err, MF_EIO, path, 0, 0, "cannot create: %s", strerror(e));
	}
	errno = 0;
	bad = fwrite(mf_strbuf_str(sb), 1, sb->len, fp) != sb->len;
	bad |= fflush(fp) != 0;
	e = errno;
	bad |= fclose(fp) != 0;
	if (!e)
		e = errno;
	if (!bad && rename(tmp, path) != 0) {
		bad = 1;
		e = errno;
	}
	if (bad) {
		unlink(tmp);
		return mf_error_set(err, MF_EIO, path, 0, 0, "cannot write: %s", strerror(e ? e : EIO));
	}
	return 0;
}

int mf_mreport_csv_dir(const char *dir, const struct mf_mrun *run, const struct mf_mreport_opts *o,
                       struct mf_error *err)
{
	struct ctx x;
	struct mf_strbuf sb;
	int rc, t;
	char name[32];

	if (!dir || !*dir)
		return mf_error_set(err, MF_EINVAL, "", 0, 0, "no directory for the CSV tables");
	if ((rc = setup(&x, run, o, err)) != 0 || (rc = make_dir(dir, err)) != 0) {
		teardown(&x);
		return rc;
	}
	mf_strbuf_init(&sb);
	write_run_csv(&x, &sb);
	if (!(rc = finish_buf(&x, &sb, err)))
		rc = write_file(dir, "run.csv", &sb, err);
	for (t = 0; !rc && t < T_N; t++) {
		mf_strbuf_free(&sb);
		emit_table(&x, &sb, false, t);
		snprintf(name, sizeof(name), "%s.csv", table_names[t]);
		if (!(rc = finish_buf(&x, &sb, err)))
			rc = write_file(dir, name, &sb, err);
	}
	mf_strbuf_free(&sb);
	teardown(&x);
	return rc;
}
