/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer (symbolize.c, caliper-measure.md §3 "Symbolizer", §8): runs
 * built by hand over the programs of tests/progs/ (-O0 and -O2, PIE and not,
 * a shared library with aliases and inlined code, a stripped copy, copies
 * without .debug_aranges, clang builds in DWARF 4 and 5, a library of gcc and
 * clang objects), a missing file, this process's vDSO, cache lines straddling
 * two functions; every resolved address is checked against nm (function,
 * start, size) and addr2line (file, line, inlining).  Skips (77) without nm,
 * addr2line or readelf.
 */
#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <sys/auxv.h>
#include <time.h>

#include "testutil.h"

#include "mfstat/measure/symbolize.h"
#include "mfstat/measure/run.h"

/* ---- nm ------------------------------------------------------------------- */

struct nmsym {
	uint64_t addr, size;
	char type;
	bool ver; /* the name had a version */
	char name[128];
};

struct nmtab {
	struct nmsym *s;
	size_t n;
};

/* The defined symbols of path as nm -S prints them. */
static void nm_load(const char *path, struct nmtab *t)
{
	char cmd[1200], line[512];
	FILE *p;
	size_t cap = 0;
	memset(t, 0, sizeof(*t));
	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *tok[5], *save = NULL, *w;
		int n = 0;
		struct nmsym *e;
		for (w = strtok_r(line, " \t\n", &save); w && n < 5; w = strtok_r(NULL, " \t\n", &save))
			tok[n++] = w;
		if (n != 3 && n != 4)
			continue;
		if (t->n == cap) {
			cap = cap ? cap * 2 : 64;
			t->s = realloc(t->s, cap * sizeof(*t->s));
			assert_non_null(t->s);
		}
		e = &t->s[t->n++];
		memset(e, 0, sizeof(*e));
		e->addr = strtoull(tok[0], NULL, 16);
		e->size = n == 4 ? strtoull(tok[1], NULL, 16) : 0;
		e->type = tok[n - 2][0];
		/* The symbolizer reports names without their version (name@VER, name@@VER). */
		snprintf(e->name, sizeof(e->name), "%.*s", (int)strcspn(tok[n - 1], "@"), tok[n - 1]);
		e->ver = strchr(tok[n - 1], '@') != NULL;
	}
	pclose(p);
	assert_true(t->n > 0);
}

static const struct nmsym *nm_find(const struct nmtab *t, const char *name)
{
	size_t i;
	for (i = 0; i < t->n; i++)
		if (strcmp(t->s[i].name, name) == 0)
			return &t->s[i];
	fail_msg("nm has no symbol %s", name);
	return NULL;
}

/* Binding rank from nm's letter: global 0, weak 1, local 2. */
static int nm_rank(char type)
{
	if (type == 'W' || type == 'w' || type == 'V' || type == 'v')
		return 1;
	return isupper((unsigned char)type) || type == 'u' ? 0 : 2;
}

/* Name order of the alias rule, on the names as stored ("lib_old@MPROG_0" before "lib_old_impl"). */
static bool name_before(const struct nmsym *a, const struct nmsym *b)
{
	char x[160], y[160];
	snprintf(x, sizeof(x), "%s%s", a->name, a->ver ? "@" : "");
	snprintf(y, sizeof(y), "%s%s", b->name, b->ver ? "@" : "");
	return strcmp(x, y) < 0;
}

/*
 * The function §3 says contains addr: of the sized code symbols covering it
 * the closest, then global before weak before local, then the smallest name.
 */
static const struct nmsym *nm_expect(const struct nmtab *t, uint64_t addr)
{
	const struct nmsym *best = NULL;
	size_t i;
	for (i = 0; i < t->n; i++) {
		const struct nmsym *e = &t->s[i];
		if (!strchr("TtWwi", e->type) || e->size == 0 || addr < e->addr || addr - e->addr >= e->size)
			continue;
		if (!best || e->addr > best->addr ||
		    (e->addr == best->addr && (nm_rank(e->type) < nm_rank(best->type) ||
					       (nm_rank(e->type) == nm_rank(best->type) && name_before(e, best)))))
			best = e;
	}
	return best;
}

/* ---- addr2line -------------------------------------------------------------- */

static bool have_tool(const char *name)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", name);
	return system(cmd) == 0;
}

struct a2l {
	char file[512]; /* innermost location; "" when addr2line does not know */
	unsigned line;  /* 0: the file is known, the line not (line 0 of the line table) */
	int frames;     /* 1 + the inlined calls around the address; -1 when no tool can tell */
};

/*
 * Whether path has DW_AT_ranges in the DWARF 5 rnglistx form (clang's
 * inlined calls), which readelf shows as "(index: N)".  binutils 2.40
 * addr2line -i does not see inlined calls with such ranges: their frames are
 * then taken from llvm-addr2line, or not checked without it.
 */
static bool has_rnglistx(const char *path)
{
	char cmd[1200];
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=info '%s' 2>/dev/null | grep -q 'DW_AT_ranges *: (index'",
		 path);
	return system(cmd) == 0;
}

static void a2l_loc(struct a2l *o, char *s)
{
	char *p = strstr(s, " (discriminator");
	char *colon;
	if (p)
		*p = '\0';
	s[strcspn(s, "\n")] = '\0';
	colon = strrchr(s, ':');
	if (!colon || s[0] == '?')
		return;
	*colon = '\0';
	snprintf(o->file, sizeof(o->file), "%.*s", (int)sizeof(o->file) - 1, s);
	o->line = (unsigned)strtoul(colon + 1, NULL, 10);
}

/* addr2line -a -i for n addresses of path, in chunks. */
static void a2l_run(const char *path, const uint64_t *addrs, size_t n, struct a2l *out)
{
	size_t done = 0;
	bool rnglistx = has_rnglistx(path), llvm = rnglistx && have_tool("llvm-addr2line");
	memset(out, 0, n * sizeof(*out));
	while (done < n) {
		size_t chunk = n - done < 200 ? n - done : 200, i, len, cur = SIZE_MAX;
		char *cmd = malloc(1200 + chunk * 24), line[1024];
		FILE *p;
		assert_non_null(cmd);
		len = (size_t)snprintf(cmd, 1200, "%s -a -i -e '%s'", llvm ? "llvm-addr2line" : "addr2line", path);
		for (i = 0; i < chunk; i++)
			len += (size_t)sprintf(cmd + len, " 0x%" PRIx64, addrs[done + i]);
		p = popen(cmd, "r");
		assert_non_null(p);
		while (fgets(line, sizeof(line), p)) {
			if (line[0] == '0' && line[1] == 'x') {
				cur = cur == SIZE_MAX ? 0 : cur + 1;
				assert_true(cur < chunk);
				assert_int_equal(strtoull(line, NULL, 16), addrs[done + cur]);
				continue;
			}
			assert_true(cur != SIZE_MAX);
			if (out[done + cur].frames++ == 0)
				a2l_loc(&out[done + cur], line);
		}
		assert_int_equal(pclose(p), 0);
		assert_int_equal(cur + 1, chunk);
		free(cmd);
		done += chunk;
	}
	if (rnglistx && !llvm)
		for (done = 0; done < n; done++)
			out[done].frames = -1;
}

/* ---- ELF facts read independently of the symbolizer ----------------------- */

/* The file offset of vaddr in path (through its PT_LOAD headers); *nloads gets their count. */
static uint64_t file_off(const char *path, uint64_t vaddr, size_t *nloads)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	size_t phnum, i, nl = 0;
	uint64_t off = UINT64_MAX;
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_getphdrnum(e, &phnum), 0);
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		assert_non_null(gelf_getphdr(e, (int)i, &ph));
		if (ph.p_type != PT_LOAD)
			continue;
		nl++;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz)
			off = vaddr - ph.p_vaddr + ph.p_offset;
	}
	elf_end(e);
	close(fd);
	if (nloads)
		*nloads = nl;
	assert_true(off != UINT64_MAX);
	return off;
}

/* The build id readelf -n prints for path, as bytes; returns its length. */
static size_t readelf_build_id(const char *path, uint8_t *out, size_t max)
{
	char cmd[1200], line[512];
	size_t n = 0;
	FILE *p;
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *b = strstr(line, "Build ID: ");
		if (!b)
			continue;
		for (b += 10; isxdigit((unsigned char)b[0]) && isxdigit((unsigned char)b[1]) && n < max; b += 2) {
			char hex[3] = {b[0], b[1], 0};
			out[n++] = (uint8_t)strtoul(hex, NULL, 16);
		}
	}
	pclose(p);
	return n;
}

/* The line number of the source line holding marker in path. */
static uint32_t mark_line(const char *path, const char *marker)
{
	char line[512];
	uint32_t n = 0;
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("%s has no %s", path, marker);
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);
	return s && a >= b && strcmp(s + a - b, suffix) == 0;
}

/* ---- building runs ------------------------------------------------------------ */

static uint32_t add_mod(struct mf_mrun *run, const char *path)
{
	uint32_t m = mf_mrun_module(run, path);
	assert_true(m != MF_MOD_NONE);
	return m;
}

static void add_sample(struct mf_mrun *run, uint32_t mod, uint64_t off)
{
	struct mf_msample *s = mf_mrun_add_sample(run);
	assert_non_null(s);
	s->pid = s->tid = 4242;
	s->ip = 0x7f0000000000ULL + off;
	s->period = 1000;
	s->mod = mod;
	s->off = off;
}

/* A sample at module-relative vaddr of the file at path. */
static void add_vaddr(struct mf_mrun *run, uint32_t mod, const char *path, uint64_t vaddr)
{
	add_sample(run, mod, file_off(path, vaddr, NULL));
}

static void symbolize_ok(struct mf_mrun *run)
{
	struct mf_error e;
	mf_error_clear(&e);
	assert_int_equal(mf_symbolize(run, &e), 0);
}

static const struct mf_msym *sym_at(const struct mf_mrun *run, uint32_t mod, uint64_t addr)
{
	const struct mf_msym *s = mf_mrun_sym(run, mod, addr);
	if (!s)
		fail_msg("no symbol resolved at module %u address 0x%" PRIx64, mod, addr);
	return s;
}

/* ---- checks shared by the tests --------------------------------------------- */

/* Every resolved address of module mod against nm and addr2line; returns how many addr2line knew. */
static size_t check_tools(const struct mf_mrun *run, uint32_t mod, const char *path)
{
	struct nmtab nm;
	uint64_t *addrs = calloc(run->nsyms + 1, sizeof(*addrs));
	const struct mf_msym **syms = calloc(run->nsyms + 1, sizeof(*syms));
	struct a2l *a2l;
	size_t i, n = 0, known = 0;
	assert_non_null(addrs);
	assert_non_null(syms);
	nm_load(path, &nm);
	for (i = 0; i < run->nsyms; i++)
		if (run->syms[i].mod == mod) {
			syms[n] = &run->syms[i];
			addrs[n++] = run->syms[i].addr;
		}
	assert_true(n > 0);
	a2l = calloc(n, sizeof(*a2l));
	assert_non_null(a2l);
	a2l_run(path, addrs, n, a2l);
	for (i = 0; i < n; i++) {
		const struct mf_msym *s = syms[i];
		const struct nmsym *x = nm_expect(&nm, s->addr);
		if (x) {
			if (!s->func || strcmp(s->func, x->name) != 0)
				fail_msg("%s 0x%" PRIx64 ": function %s, nm says %s", path, s->addr,
					 s->func ? s->func : "(none)", x->name);
			assert_int_equal(s->func_start, x->addr);
			assert_int_equal(s->func_size, x->size);
		} else {
			/* Nothing sized covers it: at most a sizeless label. */
			assert_true(!s->func || s->func_size == 0);
		}
		/* Line 0 (?): binutils may name a file from .symtab (crtstuff.c) where DWARF names none. */
		if (a2l[i].file[0] && (a2l[i].line || s->file)) {
			known += a2l[i].line != 0;
			if (!s->file || strcmp(s->file, a2l[i].file) != 0 || s->line != a2l[i].line)
				fail_msg("%s 0x%" PRIx64 ": %s:%u, addr2line says %s:%u", path, s->addr,
					 s->file ? s->file : "??", s->line, a2l[i].file, a2l[i].line);
			if (a2l[i].frames >= 0 && (s->flags & MF_SYM_INLINE ? 1 : 0) != (a2l[i].frames > 1))
				fail_msg("%s 0x%" PRIx64 ": inline flag %d, addr2line shows %d frames", path, s->addr,
					 (s->flags & MF_SYM_INLINE) != 0, a2l[i].frames);
		}
	}
	free(a2l);
	free(addrs);
	free(syms);
	free(nm.s);
	return known;
}

/* Each sample has its address and its cache lines' first bytes resolved. */
static void check_lines_resolved(const struct mf_mrun *run)
{
	static const uint64_t sizes[] = {32, 64, 128, 256};
	size_t i, k;
	for (i = 0; i < run->nsamples; i++) {
		const struct mf_msample *s = &run->samples[i];
		if (s->mod == MF_MOD_NONE || !(run->mods[s->mod].flags & MF_MOD_ELF))
			continue;
		sym_at(run, s->mod, s->vaddr);
		for (k = 0; k < 4; k++)
			sym_at(run, s->mod, s->vaddr & ~(sizes[k] - 1));
		sym_at(run, s->mod, s->vaddr - s->vaddr % run->line_size);
	}
}

/*
 * Source rows: sorted, each with a file and a line, each inside a sampled
 * function or the 256-byte block of a sampled address.
 */
static void check_src_rows(const struct mf_mrun *run)
{
	size_t i, k;
	assert_true(run->nsrc > 0);
	for (i = 0; i < run->nsrc; i++) {
		const struct mf_msrc *r = &run->src[i];
		bool inside = false;
		assert_non_null(r->file);
		assert_true(r->line > 0);
		if (i > 0)
			assert_true(run->src[i - 1].mod < r->mod ||
				    (run->src[i - 1].mod == r->mod && run->src[i - 1].addr <= r->addr));
		for (k = 0; k < run->nsamples && !inside; k++) {
			const struct mf_msample *s = &run->samples[k];
			const struct mf_msym *y;
			if (s->mod != r->mod)
				continue;
			if (r->addr >= (s->vaddr & ~255ULL) && r->addr < (s->vaddr & ~255ULL) + 256)
				inside = true;
			y = mf_mrun_sym(run, s->mod, s->vaddr);
			if (y && y->func && r->addr >= y->func_start && r->addr < y->func_start + y->func_size)
				inside = true;
		}
		if (!inside)
			fail_msg("source row 0x%" PRIx64 " %s:%u is near no sample", r->addr, r->file, r->line);
	}
}

struct lrow {
	uint64_t addr;
	uint32_t line;
};

static int cmp_lrow(const void *a, const void *b)
{
	const struct lrow *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Sorts rows and drops duplicates; returns the new count. */
static size_t uniq_rows(struct lrow *r, size_t n)
{
	size_t i, k = 0;
	if (n == 0)
		return 0;
	qsort(r, n, sizeof(*r), cmp_lrow);
	for (i = 1; i < n; i++)
		if (cmp_lrow(&r[k], &r[i]) != 0)
			r[++k] = r[i];
	return k + 1;
}

/*
 * The source rows of module mod are exactly the statement rows (readelf's
 * decoded line table: flag x, end of sequence shown as line "-") inside the
 * functions nm gives for the samples and the 256-byte blocks around them.
 */
static void check_src_exact(const struct mf_mrun *run, uint32_t mod, const char *path)
{
	struct nmtab nm;
	struct span {
		uint64_t lo, hi;
	} *rg = calloc(run->nsamples * 2 + 1, sizeof(*rg));
	struct lrow *want = NULL, *got = calloc(run->nsrc + 1, sizeof(*got));
	size_t nrg = 0, nwant = 0, capwant = 0, ngot = 0, i, k;
	char cmd[1200], line[1024];
	FILE *p;

	assert_non_null(rg);
	assert_non_null(got);
	nm_load(path, &nm);
	for (i = 0; i < run->nsamples; i++) {
		const struct mf_msample *sm = &run->samples[i];
		const struct nmsym *f;
		if (sm->mod != mod)
			continue;
		rg[nrg].lo = sm->vaddr & ~255ULL;
		rg[nrg].hi = rg[nrg].lo + 256;
		nrg++;
		if ((f = nm_expect(&nm, sm->vaddr)) != NULL) {
			rg[nrg].lo = f->addr;
			rg[nrg].hi = f->addr + f->size;
			nrg++;
		}
	}
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=decodedline '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *tok[8], *save = NULL, *w;
		int n = 0;
		uint64_t addr;
		for (w = strtok_r(line, " \t\n", &save); w && n < 8; w = strtok_r(NULL, " \t\n", &save))
			tok[n++] = w;
		if (n < 4 || strncmp(tok[2], "0x", 2) != 0 || strcmp(tok[n - 1], "x") != 0 ||
		    !isdigit((unsigned char)tok[1][0]) || strtoul(tok[1], NULL, 10) == 0)
			continue;
		addr = strtoull(tok[2], NULL, 16);
		for (k = 0; k < nrg; k++)
			if (addr >= rg[k].lo && addr < rg[k].hi)
				break;
		if (k == nrg)
			continue;
		if (nwant == capwant) {
			capwant = capwant ? capwant * 2 : 256;
			want = realloc(want, capwant * sizeof(*want));
			assert_non_null(want);
		}
		want[nwant].addr = addr;
		want[nwant].line = (uint32_t)strtoul(tok[1], NULL, 10);
		nwant++;
	}
	pclose(p);
	for (i = 0; i < run->nsrc; i++)
		if (run->src[i].mod == mod) {
			got[ngot].addr = run->src[i].addr;
			got[ngot].line = run->src[i].line;
			ngot++;
		}
	nwant = uniq_rows(want, nwant);
	ngot = uniq_rows(got, ngot);
	assert_true(nwant > 0);
	for (i = 0; i < nwant && i < ngot; i++)
		if (cmp_lrow(&want[i], &got[i]) != 0)
			break;
	if (i < nwant || i < ngot)
		fail_msg("%s: source rows differ from readelf at #%zu: want 0x%" PRIx64 ":%u, got 0x%" PRIx64
			 ":%u (%zu wanted, %zu got)",
			 path, i, i < nwant ? want[i].addr : 0, i < nwant ? want[i].line : 0,
			 i < ngot ? got[i].addr : 0, i < ngot ? got[i].line : 0, nwant, ngot);
	/* A row at a resolved address is inlined exactly when the address is. */
	for (i = 0; i < run->nsrc; i++) {
		const struct mf_msym *y = run->src[i].mod == mod ? mf_mrun_sym(run, mod, run->src[i].addr) : NULL;
		if (y)
			assert_int_equal(run->src[i].flags & MF_SYM_INLINE, y->flags & MF_SYM_INLINE);
	}
	free(want);
	free(got);
	free(rg);
	free(nm.s);
}

/* Whether a source row of mod in [lo, hi) has this line of a file ending in suffix (and the flags in mask). */
static bool has_row(const struct mf_mrun *run, uint32_t mod, uint64_t lo, uint64_t hi, const char *suffix,
		    uint32_t line, uint32_t flags)
{
	size_t n, i = mf_mrun_src_range(run, mod, lo, hi, &n), end = i + n;
	for (; i < end; i++)
		if (run->src[i].line == line && ends_with(run->src[i].file, suffix) &&
		    (run->src[i].flags & flags) == flags)
			return true;
	return false;
}

/* ---- the programs ------------------------------------------------------------- */

/*
 * mprog_hot as built by one of the targets: samples at the start, middle and
 * last byte of hot_loop, cold_loop and main.
 */
static void check_hot(const char *path, bool pie)
{
	static const char *const funcs[] = {"hot_loop", "cold_loop", "main"};
	struct mf_mrun run;
	struct nmtab nm;
	uint8_t bid[20];
	size_t nbid, nloads, i, k, known;
	uint32_t mod;
	const struct mf_mmod *m;
	const struct nmsym *hot, *cold;
	uint64_t want[9];

	mf_mrun_init(&run);
	nm_load(path, &nm);
	mod = add_mod(&run, path);
	for (i = 0; i < 3; i++) {
		const struct nmsym *f = nm_find(&nm, funcs[i]);
		assert_true(f->size > 2);
		want[i * 3] = f->addr;
		want[i * 3 + 1] = f->addr + f->size / 2;
		want[i * 3 + 2] = f->addr + f->size - 1;
		for (k = 0; k < 3; k++)
			add_vaddr(&run, mod, path, want[i * 3 + k]);
	}
	symbolize_ok(&run);

	m = &run.mods[mod];
	assert_true(m->flags & MF_MOD_ELF);
	assert_false(m->flags & (MF_MOD_MISSING | MF_MOD_CHANGED));
	assert_null(m->note);
	file_off(path, want[0], &nloads);
	assert_int_equal(m->nloads, nloads);
	nbid = readelf_build_id(path, bid, sizeof(bid));
	assert_int_equal(nbid, 20);
	assert_int_equal(m->build_id_len, nbid);
	assert_memory_equal(m->build_id, bid, nbid);
	/* Non-PIE code sits at its link address (0x400000 and up), PIE near 0. */
	assert_true(pie ? want[0] < 0x100000 : want[0] >= 0x400000);

	for (i = 0; i < 9; i++) {
		const struct mf_msym *s;
		assert_int_equal(run.samples[i].vaddr, want[i]);
		s = sym_at(&run, mod, want[i]);
		assert_non_null(s->func);
		assert_string_equal(s->func, funcs[i / 3]);
		assert_int_equal(s->func_start, nm_find(&nm, funcs[i / 3])->addr);
		assert_true(ends_with(s->file, "tests/progs/mprog_hot.c"));
		assert_false(s->flags & MF_SYM_INLINE);
	}
	check_lines_resolved(&run);
	known = check_tools(&run, mod, path);
	assert_true(known >= 9);
	check_src_rows(&run);
	check_src_exact(&run, mod, path);

	/* The loop bodies' statements are among the rows of their functions. */
	hot = nm_find(&nm, "hot_loop");
	cold = nm_find(&nm, "cold_loop");
	assert_true(has_row(&run, mod, hot->addr, hot->addr + hot->size, "tests/progs/mprog_hot.c",
			    mark_line(MPROG_HOT_SRC, "MARK:hot_body"), 0));
	assert_true(has_row(&run, mod, hot->addr, hot->addr + hot->size, "tests/progs/mprog_hot.c",
			    mark_line(MPROG_HOT_SRC, "MARK:hot_for"), 0));
	assert_true(has_row(&run, mod, cold->addr, cold->addr + cold->size, "tests/progs/mprog_hot.c",
			    mark_line(MPROG_HOT_SRC, "MARK:cold_body"), 0));
	assert_false(has_row(&run, mod, hot->addr, hot->addr + hot->size, "tests/progs/mprog_hot.c",
			     mark_line(MPROG_HOT_SRC, "MARK:cold_body"), 0));
	free(nm.s);
	mf_mrun_free(&run);
}

static void test_hot_O0(void **state)
{
	(void)state;
	check_hot(MPROG_HOT_O0, true);
}

static void test_hot_O2(void **state)
{
	(void)state;
	check_hot(MPROG_HOT_O2, true);
}

static void test_hot_nopie(void **state)
{
	(void)state;
	check_hot(MPROG_HOT_NOPIE, false);
}

/*
 * A build of libmprog.c (beside the program using it, when exepath): every
 * byte of lib_spin and of lib_other sampled.  lib_spin wins over its aliases
 * (global before weak and local, then name); the addresses in the
 * always-inlined helper are flagged MF_SYM_INLINE exactly where addr2line -i
 * shows an inlined frame (some are, whatever the tool), and keep lib_spin as
 * their function.
 */
static void check_library(const char *libpath, const char *exepath)
{
	struct mf_mrun run;
	struct nmtab nm;
	const struct nmsym *spin, *other, *outer, *inner;
	uint32_t lib, exe = MF_MOD_NONE;
	uint64_t *addrs, a;
	struct a2l *loc;
	size_t i, n, ninl = 0, nflagged = 0;
	uint32_t xor_line = mark_line(MPROG_LIB_SRC, "MARK:inline_xor");
	uint32_t mul_line = mark_line(MPROG_LIB_SRC, "MARK:inline_mul");

	mf_mrun_init(&run);
	nm_load(libpath, &nm);
	spin = nm_find(&nm, "lib_spin");
	other = nm_find(&nm, "lib_other");
	if (exepath)
		exe = add_mod(&run, exepath);
	lib = add_mod(&run, libpath);
	assert_int_not_equal(lib, exe);
	n = spin->size;
	addrs = calloc(n, sizeof(*addrs));
	loc = calloc(n, sizeof(*loc));
	assert_non_null(addrs);
	assert_non_null(loc);
	for (i = 0; i < n; i++) {
		addrs[i] = spin->addr + i;
		add_vaddr(&run, lib, libpath, addrs[i]);
	}
	for (a = other->addr; a < other->addr + other->size; a += 3)
		add_vaddr(&run, lib, libpath, a);
	outer = nm_find(&nm, "asm_outer");
	inner = nm_find(&nm, "asm_inner");
	assert_true(inner->addr > outer->addr && inner->addr + inner->size == outer->addr + outer->size);
	for (a = outer->addr; a < outer->addr + outer->size; a++)
		add_vaddr(&run, lib, libpath, a);
	add_vaddr(&run, lib, libpath, nm_find(&nm, "lib_old")->addr + 1);
	if (exepath) {
		struct nmtab xnm;
		nm_load(exepath, &xnm);
		/* The executable's source lines are read only with 1 % of the samples there
		 * (MF_SYM_LINES_MIN_PERMILLE): one sample at main, repeated enough. */
		size_t lib_samples = run.nsamples, k;
		for (k = 0; k * 1000 < (lib_samples + k + 1) * MF_SYM_LINES_MIN_PERMILLE; k++)
			add_vaddr(&run, exe, exepath, nm_find(&xnm, "main")->addr + 4);
		free(xnm.s);
	}
	symbolize_ok(&run);

	assert_true(run.mods[lib].flags & MF_MOD_ELF);
	assert_true(!exepath || (run.mods[exe].flags & MF_MOD_ELF));
	a2l_run(libpath, addrs, n, loc);
	for (i = 0; i < n; i++) {
		const struct mf_msym *s = sym_at(&run, lib, addrs[i]);
		assert_non_null(s->func);
		assert_string_equal(s->func, "lib_spin");
		assert_int_equal(s->func_start, spin->addr);
		assert_int_equal(s->func_size, spin->size);
		nflagged += (s->flags & MF_SYM_INLINE) != 0;
		if (loc[i].frames < 0)
			continue; /* no tool here tells (has_rnglistx) */
		if (loc[i].frames > 1) {
			ninl++;
			assert_true(s->flags & MF_SYM_INLINE);
		} else {
			assert_false(s->flags & MF_SYM_INLINE);
		}
	}
	assert_true(nflagged > 0);
	assert_true(ninl > 0 || loc[0].frames < 0);
	if (exepath)
		assert_string_equal(sym_at(&run, exe, run.samples[run.nsamples - 1].vaddr)->func, "main");
	/* A versioned name is reported without its version. */
	{
		const struct nmsym *old = nm_find(&nm, "lib_old");
		const struct mf_msym *y;
		assert_true(old->ver);
		y = sym_at(&run, lib, old->addr + 1);
		assert_non_null(y->func);
		assert_string_equal(y->func, "lib_old");
		assert_int_equal(y->func_start, old->addr);
	}
	/* A symbol nested in another owns its addresses (the closest start wins). */
	for (a = outer->addr; a < outer->addr + outer->size; a++) {
		const struct mf_msym *y = sym_at(&run, lib, a);
		assert_non_null(y->func);
		assert_string_equal(y->func, a < inner->addr ? "asm_outer" : "asm_inner");
		assert_int_equal(y->func_start, a < inner->addr ? outer->addr : inner->addr);
	}
	check_lines_resolved(&run);
	check_tools(&run, lib, libpath);
	check_src_rows(&run);
	check_src_exact(&run, lib, libpath);
	if (exepath) {
		check_tools(&run, exe, exepath);
		check_src_exact(&run, exe, exepath);
	}
	/* The helper's statements are rows of lib_spin, flagged inlined. */
	assert_true(has_row(&run, lib, spin->addr, spin->addr + spin->size, "tests/progs/libmprog.c", xor_line,
			    MF_SYM_INLINE) ||
		    has_row(&run, lib, spin->addr, spin->addr + spin->size, "tests/progs/libmprog.c", mul_line,
			    MF_SYM_INLINE));
	assert_true(has_row(&run, lib, spin->addr, spin->addr + spin->size, "tests/progs/libmprog.c",
			    mark_line(MPROG_LIB_SRC, "MARK:lib_for"), 0));
	free(addrs);
	free(loc);
	free(nm.s);
	mf_mrun_free(&run);
}

/*
 * A module with under 1 % of the samples gets its functions named but no
 * source lines (its DWARF is not opened); one with 1 % gets both.
 */
static void test_lines_threshold(void **state)
{
	struct mf_mrun run;
	struct nmtab nm, xnm;
	uint32_t lib, exe;
	uint64_t main_at;
	const struct mf_msym *y;
	size_t i;
	(void)state;
	nm_load(MPROG_LIB, &nm);
	nm_load(MPROG_LIB_EXE, &xnm);
	main_at = nm_find(&xnm, "main")->addr + 4;
	for (int round = 0; round < 2; round++) {
		mf_mrun_init(&run);
		exe = add_mod(&run, MPROG_LIB_EXE);
		lib = add_mod(&run, MPROG_LIB);
		for (i = 0; i < 199; i++)
			add_vaddr(&run, lib, MPROG_LIB, nm_find(&nm, "lib_spin")->addr);
		/* 1 of 200 samples (0.5 %), then 3 of 202 (1.5 %) */
		for (i = 0; i < 1 + 2 * (size_t)round; i++)
			add_vaddr(&run, exe, MPROG_LIB_EXE, main_at);
		symbolize_ok(&run);
		y = sym_at(&run, exe, main_at);
		assert_string_equal(y->func, "main");
		if (round == 0) {
			assert_null(y->file);
			assert_int_equal(y->line, 0);
		} else {
			assert_non_null(y->file);
			assert_true(y->line > 0);
		}
		assert_non_null(sym_at(&run, lib, nm_find(&nm, "lib_spin")->addr)->file);
		mf_mrun_free(&run);
	}
	free(nm.s);
	free(xnm.s);
}

static void test_shared_library(void **state)
{
	(void)state;
	check_library(MPROG_LIB, MPROG_LIB_EXE);
}

/*
 * One sample at the last byte of a function that starts in an earlier
 * 256-byte block: the rows of the whole function are kept, not only the
 * block's (step 4), down to the statement at its first byte.
 */
static void test_src_function_range(void **state)
{
	static const char *const progs[] = {
		MPROG_HOT_O2,     MPROG_HOT_O0,     MPROG_LIB,        MPROG_HOT_NOARANGES, MPROG_LIB_NOARANGES,
#ifdef MPROG_CLANG
		MPROG_HOT_CLANG4, MPROG_HOT_CLANG5, MPROG_LIB_CLANG4, MPROG_LIB_CLANG5,    MPROG_LIB_MIXED,
#endif
	};
	size_t i, j, tested = 0;
	(void)state;
	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct nmtab nm;
		nm_load(progs[i], &nm);
		for (j = 0; j < nm.n; j++) {
			const struct nmsym *f = &nm.s[j];
			struct mf_mrun run;
			uint32_t mod;
			size_t n;
			uint64_t last = f->addr + f->size - 1;
			if (f->type != 'T' || f->size == 0 || (f->addr & ~255ULL) == (last & ~255ULL) ||
			    strncmp(f->name, "asm_", 4) == 0)
				continue;
			mf_mrun_init(&run);
			mod = add_mod(&run, progs[i]);
			add_vaddr(&run, mod, progs[i], last);
			symbolize_ok(&run);
			/* f's name, or that of the alias the §3 rule prefers. */
			assert_string_equal(sym_at(&run, mod, last)->func, nm_expect(&nm, last)->name);
			mf_mrun_src_range(&run, mod, f->addr, f->addr + 1, &n);
			assert_true(n >= 1);
			check_src_exact(&run, mod, progs[i]);
			mf_mrun_free(&run);
			tested++;
		}
		free(nm.s);
	}
	assert_true(tested > 0);
}

/*
 * Copies of mprog_hot_O2 and libmprog.so without .debug_aranges, the
 * section libdwfl finds a CU by (and clang does not emit by default): the
 * CUs are found by their own ranges, with the files, lines, inlining and
 * source rows of the originals.
 */
static void test_no_aranges(void **state)
{
	(void)state;
	check_hot(MPROG_HOT_NOARANGES, true);
	check_library(MPROG_LIB_NOARANGES, NULL);
}

/* The bytes of path's .text section (malloc'd), their count in *n. */
static unsigned char *text_bytes(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstr;
	unsigned char *out = NULL;
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_getshdrstrndx(e, &shstr), 0);
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;
		assert_non_null(gelf_getshdr(scn, &sh));
		name = elf_strptr(e, shstr, sh.sh_name);
		if (!name || strcmp(name, ".text") != 0)
			continue;
		d = elf_getdata(scn, NULL);
		assert_non_null(d);
		out = malloc(d->d_size ? d->d_size : 1);
		assert_non_null(out);
		memcpy(out, d->d_buf, d->d_size);
		*n = d->d_size;
	}
	elf_end(e);
	close(fd);
	assert_non_null(out);
	return out;
}

/*
 * p4 and p5: one source built by one compiler in DWARF 4 and in DWARF 5, so
 * the same code (the same .text bytes).  Every byte of the functions named
 * resolves alike in both: function, file, line, inlining, and the source rows
 * are the same (some inlined when inl).  DWARF 4 is checked against addr2line by the other tests;
 * this carries those checks over to DWARF 5, whose inlined ranges
 * (rnglistx) binutils cannot read.
 */
static void check_same_code(const char *p4, const char *p5, const char *const *funcs, size_t nfuncs, bool inl)
{
	struct mf_mrun r4, r5;
	struct nmtab nm4, nm5;
	unsigned char *t4, *t5;
	size_t n4 = 0, n5 = 0, i, nflagged = 0, known = 0;
	uint32_t m4, m5;

	t4 = text_bytes(p4, &n4);
	t5 = text_bytes(p5, &n5);
	assert_int_equal(n4, n5);
	assert_memory_equal(t4, t5, n4);
	free(t4);
	free(t5);
	nm_load(p4, &nm4);
	nm_load(p5, &nm5);
	mf_mrun_init(&r4);
	mf_mrun_init(&r5);
	m4 = add_mod(&r4, p4);
	m5 = add_mod(&r5, p5);
	for (i = 0; i < nfuncs; i++) {
		const struct nmsym *f4 = nm_find(&nm4, funcs[i]), *f5 = nm_find(&nm5, funcs[i]);
		uint64_t a;
		assert_int_equal(f4->addr, f5->addr);
		assert_int_equal(f4->size, f5->size);
		for (a = f4->addr; a < f4->addr + f4->size; a++) {
			add_vaddr(&r4, m4, p4, a);
			add_vaddr(&r5, m5, p5, a);
		}
	}
	symbolize_ok(&r4);
	symbolize_ok(&r5);
	assert_int_equal(r4.nsyms, r5.nsyms);
	for (i = 0; i < r4.nsyms; i++) {
		const struct mf_msym *x = &r4.syms[i], *y = &r5.syms[i];
		assert_int_equal(x->addr, y->addr);
		assert_true((x->func == NULL) == (y->func == NULL));
		if (x->func)
			assert_string_equal(x->func, y->func);
		known += x->file != NULL;
		if ((x->file == NULL) != (y->file == NULL) || (x->file && strcmp(x->file, y->file) != 0) ||
		    x->line != y->line || x->flags != y->flags)
			fail_msg("0x%" PRIx64 ": DWARF 4 %s:%u flags %u, DWARF 5 %s:%u flags %u", x->addr,
				 x->file ? x->file : "??", x->line, x->flags, y->file ? y->file : "??", y->line,
				 y->flags);
		nflagged += (x->flags & MF_SYM_INLINE) != 0;
	}
	assert_true(known > 0);
	assert_true(!inl || nflagged > 0);
	assert_true(r4.nsrc > 0);
	assert_int_equal(r4.nsrc, r5.nsrc);
	for (i = 0; i < r4.nsrc; i++) {
		assert_int_equal(r4.src[i].addr, r5.src[i].addr);
		assert_int_equal(r4.src[i].line, r5.src[i].line);
		assert_int_equal(r4.src[i].flags, r5.src[i].flags);
		assert_string_equal(r4.src[i].file, r5.src[i].file);
	}
	print_message("%s: %zu addresses alike in DWARF 4 and 5, %zu with a file, %zu inlined\n", p5, r4.nsyms, known,
		      nflagged);
	free(nm4.s);
	free(nm5.s);
	mf_mrun_free(&r4);
	mf_mrun_free(&r5);
}

/*
 * mprog_hot and libmprog.so built by clang whatever compiler built mfstat:
 * DWARF 4 and 5 (strx, addrx, rnglistx forms, .debug_line_str), neither
 * with .debug_aranges.  Skipped when CMake found no clang.
 */
static void test_clang(void **state)
{
	(void)state;
#ifdef MPROG_CLANG
	{
		static const char *const hot[] = {"hot_loop", "cold_loop", "main"};
		static const char *const lib[] = {"lib_spin", "lib_other", "lib_old_impl"};
		check_hot(MPROG_HOT_CLANG4, true);
		check_hot(MPROG_HOT_CLANG5, true);
		check_library(MPROG_LIB_CLANG4, NULL);
		check_library(MPROG_LIB_CLANG5, NULL);
		check_same_code(MPROG_HOT_CLANG4, MPROG_HOT_CLANG5, hot, 3, false);
		check_same_code(MPROG_LIB_CLANG4, MPROG_LIB_CLANG5, lib, 3, true);
	}
#else
	print_message("SKIP: no clang found when configuring (clang-built programs are not checked)\n");
	skip();
#endif
}

/*
 * libmprog_mixed.so: mprog_hot.c built by gcc, with .debug_aranges, whose
 * main (in .text.startup) and loops (in .text) lie on both sides of
 * libmprog.c built by clang, without.  libdwfl gives clang's addresses to
 * gcc's CU (the one before the gap in its aranges); they must get clang's CU,
 * and gcc's functions keep theirs.
 */
static void test_mixed_aranges(void **state)
{
	(void)state;
#ifdef MPROG_CLANG
	check_hot(MPROG_LIB_MIXED, true);
	check_library(MPROG_LIB_MIXED, NULL);
#else
	print_message("SKIP: no clang found when configuring (no gcc and clang mixed library)\n");
	skip();
#endif
}

/* The stripped copy: segments and build id read, addresses resolved without function or line. */
static void test_stripped(void **state)
{
	struct mf_mrun run;
	struct nmtab nm;
	const struct nmsym *hot;
	uint8_t bid[20];
	uint32_t mod;
	const struct mf_msym *s;
	(void)state;

	mf_mrun_init(&run);
	nm_load(MPROG_HOT_O2, &nm); /* objcopy keeps the layout: the unstripped file's addresses hold */
	hot = nm_find(&nm, "hot_loop");
	mod = add_mod(&run, MPROG_HOT_STRIPPED);
	add_vaddr(&run, mod, MPROG_HOT_STRIPPED, hot->addr + 8);
	symbolize_ok(&run);
	assert_true(run.mods[mod].flags & MF_MOD_ELF);
	assert_true(run.mods[mod].nloads > 0);
	assert_int_equal(readelf_build_id(MPROG_HOT_O2, bid, sizeof(bid)), 20);
	assert_memory_equal(run.mods[mod].build_id, bid, 20);
	assert_int_equal(run.samples[0].vaddr, hot->addr + 8);
	s = sym_at(&run, mod, hot->addr + 8);
	assert_null(s->func);
	assert_null(s->file);
	assert_int_equal(s->line, 0);
	check_lines_resolved(&run);
	free(nm.s);
	mf_mrun_free(&run);
}

/*
 * Debug information in a separate file named by .gnu_debuglink: found beside
 * the program and used for lines (the functions come from the .symtab the
 * program kept); a link whose file has another CRC is refused.
 */
static void test_debuglink(void **state)
{
	struct mf_mrun run;
	struct nmtab nm;
	const struct nmsym *hot;
	uint32_t split, bad;
	const struct mf_msym *s;
	struct a2l loc;
	uint64_t a;
	(void)state;

	mf_mrun_init(&run);
	nm_load(MPROG_HOT_O2, &nm);
	hot = nm_find(&nm, "hot_loop");
	a = hot->addr + hot->size / 2;
	split = add_mod(&run, MPROG_HOT_SPLIT);
	bad = add_mod(&run, MPROG_HOT_BADLINK);
	add_vaddr(&run, split, MPROG_HOT_SPLIT, a);
	add_vaddr(&run, bad, MPROG_HOT_BADLINK, a);
	symbolize_ok(&run);

	a2l_run(MPROG_HOT_O2, &a, 1, &loc);
	assert_true(loc.line > 0);
	s = sym_at(&run, split, a);
	assert_string_equal(s->func, "hot_loop");
	assert_non_null(s->file);
	assert_string_equal(s->file, loc.file);
	assert_int_equal(s->line, loc.line);
	check_tools(&run, split, MPROG_HOT_SPLIT);
	check_src_exact(&run, split, MPROG_HOT_O2);

	s = sym_at(&run, bad, a);
	assert_string_equal(s->func, "hot_loop");
	assert_null(s->file);
	assert_int_equal(s->line, 0);
	free(nm.s);
	mf_mrun_free(&run);
}

/*
 * Modules that cannot be read: a missing file, a file that is not ELF, a
 * directory (MF_MOD_MISSING with a note), special maps (left alone), a sample
 * in no module; none of them fails the run, and a good module beside them is
 * still resolved.
 */
static void test_unreadable_modules(void **state)
{
	struct mf_mrun run;
	struct nmtab nm;
	uint32_t gone, text, dir, heap, anon, good;
	struct mf_msample *none;
	size_t i;
	(void)state;

	mf_mrun_init(&run);
	gone = add_mod(&run, "/nonexistent/mfstat-test/libgone.so");
	text = add_mod(&run, MFSTAT_SOURCE_DIR "/CMakeLists.txt");
	dir = add_mod(&run, MFSTAT_SOURCE_DIR);
	heap = add_mod(&run, "[heap]");
	anon = add_mod(&run, "//anon");
	good = add_mod(&run, MPROG_HOT_O2);
	add_sample(&run, gone, 0x1234);
	add_sample(&run, text, 0x40);
	add_sample(&run, dir, 0x40);
	add_sample(&run, heap, 0x5000);
	add_sample(&run, anon, 0x77);
	nm_load(MPROG_HOT_O2, &nm);
	add_vaddr(&run, good, MPROG_HOT_O2, nm_find(&nm, "cold_loop")->addr + 5);
	none = mf_mrun_add_sample(&run);
	assert_non_null(none);
	none->mod = MF_MOD_NONE;
	none->ip = 0xdeadbeef;
	symbolize_ok(&run);

	assert_true(run.mods[gone].flags & MF_MOD_MISSING);
	assert_non_null(run.mods[gone].note);
	assert_non_null(strstr(run.mods[gone].note, "cannot open"));
	assert_true(run.mods[text].flags & MF_MOD_MISSING);
	assert_non_null(strstr(run.mods[text].note, "not an ELF file"));
	assert_true(run.mods[dir].flags & MF_MOD_MISSING);
	assert_non_null(run.mods[dir].note);
	for (i = 0; i < 3; i++) {
		uint32_t m = i == 0 ? gone : i == 1 ? text : dir;
		assert_false(run.mods[m].flags & MF_MOD_ELF);
		assert_int_equal(run.mods[m].nloads, 0);
	}
	assert_int_equal(run.mods[heap].flags, MF_MOD_SPECIAL);
	assert_int_equal(run.mods[anon].flags, MF_MOD_SPECIAL);
	assert_null(run.mods[heap].note);
	for (i = 0; i < run.nsyms; i++)
		assert_int_equal(run.syms[i].mod, good);
	assert_string_equal(sym_at(&run, good, run.samples[5].vaddr)->func, "cold_loop");
	/* Without loads an offset stays as it is; without a module the address is the ip. */
	assert_int_equal(run.samples[0].vaddr, 0x1234);
	assert_int_equal(none->vaddr, 0xdeadbeef);
	assert_int_equal(run.nwarnings, 0);
	free(nm.s);
	mf_mrun_free(&run);
}

/*
 * A build id recorded for the run that the file no longer has: MF_MOD_CHANGED
 * and a warning; one that matches: neither.
 */
static void test_build_id_changed(void **state)
{
	struct mf_mrun run;
	uint8_t bid[20];
	uint32_t same, changed;
	(void)state;

	assert_int_equal(readelf_build_id(MPROG_HOT_O0, bid, sizeof(bid)), 20);
	mf_mrun_init(&run);
	same = add_mod(&run, MPROG_HOT_O0);
	memcpy(run.mods[same].build_id, bid, 20);
	run.mods[same].build_id_len = 20;
	changed = add_mod(&run, MPROG_HOT_O2);
	memset(run.mods[changed].build_id, 0xab, 20);
	run.mods[changed].build_id_len = 20;
	symbolize_ok(&run);
	assert_false(run.mods[same].flags & MF_MOD_CHANGED);
	assert_true(run.mods[changed].flags & MF_MOD_CHANGED);
	assert_true(run.mods[changed].flags & MF_MOD_ELF);
	/* The recorded id stays: it names what ran. */
	assert_int_equal(run.mods[changed].build_id[0], 0xab);
	assert_int_equal(run.nwarnings, 1);
	assert_non_null(strstr(run.warnings[0], MPROG_HOT_O2));
	assert_non_null(strstr(run.warnings[0], "changed"));
	mf_mrun_free(&run);
}

/*
 * An address in this process's vDSO, found through the image's own dynamic
 * symbol table: resolved to a clock_gettime function of the vDSO.
 */
static void test_vdso(void **state)
{
	const unsigned char *img = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Ehdr) * eh;
	const ElfW(Shdr) * sh;
	const ElfW(Phdr) * ph;
	const ElfW(Sym) *sym = NULL, *best = NULL;
	const char *str = NULL;
	size_t i, nsym = 0;
	uint64_t off = UINT64_MAX, vaddr;
	struct mf_mrun run;
	uint32_t mod;
	const struct mf_msym *s;
	(void)state;

	if (!img)
		skip();
	eh = (const void *)img;
	sh = (const void *)(img + eh->e_shoff);
	ph = (const void *)(img + eh->e_phoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_DYNSYM) {
			sym = (const void *)(img + sh[i].sh_offset);
			nsym = sh[i].sh_size / sizeof(*sym);
			str = (const char *)(img + sh[sh[i].sh_link].sh_offset);
		}
	assert_non_null(sym);
	for (i = 0; i < nsym; i++)
		if (ELF64_ST_TYPE(sym[i].st_info) == STT_FUNC && sym[i].st_size > 8 &&
		    strstr(str + sym[i].st_name, "clock_gettime"))
			best = &sym[i];
	assert_non_null(best);
	vaddr = best->st_value + best->st_size / 2;
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr && vaddr < ph[i].p_vaddr + ph[i].p_filesz)
			off = vaddr - ph[i].p_vaddr + ph[i].p_offset;
	assert_true(off != UINT64_MAX);

	mf_mrun_init(&run);
	mod = add_mod(&run, "[vdso]");
	assert_true(run.mods[mod].flags & MF_MOD_SPECIAL);
	add_sample(&run, mod, off);
	symbolize_ok(&run);
	assert_true(run.mods[mod].flags & MF_MOD_ELF);
	assert_false(run.mods[mod].flags & MF_MOD_MISSING);
	assert_true(run.mods[mod].nloads > 0);
	assert_int_equal(run.samples[0].vaddr, vaddr);
	s = sym_at(&run, mod, vaddr);
	assert_non_null(s->func);
	assert_non_null(strstr(s->func, "clock_gettime"));
	assert_int_equal(s->func_start, best->st_value);
	check_lines_resolved(&run);
	mf_mrun_free(&run);
}

/*
 * Cache lines straddling two functions: a sample at the start of a function B
 * whose line begins inside the function A before it.  The line's first byte
 * resolves to A, the sample to B (the aggregator gives the line to A, §3).
 */
static size_t check_straddle(const char *path, uint32_t line_size)
{
	struct mf_mrun run;
	struct nmtab nm;
	uint32_t mod;
	size_t i, j, found = 0;
	const struct nmsym *a[64], *b[64];

	mf_mrun_init(&run);
	run.line_size = line_size;
	nm_load(path, &nm);
	mod = add_mod(&run, path);
	for (i = 0; i < nm.n && found < 64; i++) {
		const struct nmsym *fb = &nm.s[i];
		uint64_t l = fb->addr & ~(uint64_t)(line_size - 1);
		if (!strchr("Tt", fb->type) || fb->size == 0 || l == fb->addr)
			continue;
		for (j = 0; j < nm.n; j++) {
			const struct nmsym *fa = &nm.s[j];
			if (strchr("Tt", fa->type) && fa->size && l >= fa->addr && l < fa->addr + fa->size &&
			    fa->addr + fa->size <= fb->addr) {
				a[found] = fa;
				b[found] = fb;
				found++;
				add_vaddr(&run, mod, path, fb->addr);
				break;
			}
		}
	}
	if (found) {
		symbolize_ok(&run);
		for (i = 0; i < found; i++) {
			const struct mf_msym *sa = sym_at(&run, mod, b[i]->addr & ~(uint64_t)(line_size - 1));
			const struct mf_msym *sb = sym_at(&run, mod, b[i]->addr);
			assert_non_null(sa->func);
			assert_non_null(sb->func);
			assert_int_equal(sa->func_start, a[i]->addr);
			assert_int_equal(sb->func_start, b[i]->addr);
			assert_string_not_equal(sa->func, sb->func);
		}
		check_lines_resolved(&run);
		check_tools(&run, mod, path);
	}
	free(nm.s);
	mf_mrun_free(&run);
	return found;
}

static void test_straddling_line(void **state)
{
	size_t n;
	(void)state;
	/* mprog_hot_O2: cold_loop starts in the middle of a 64-byte line that hot_loop begins. */
	n = check_straddle(MPROG_HOT_O2, 64);
	assert_true(n > 0);
	n += check_straddle(MPROG_HOT_O0, 64);
	n += check_straddle(MPROG_LIB, 64);
	n += check_straddle(MPROG_HOT_NOPIE, 128);
#ifdef MPROG_CLANG
	n += check_straddle(MPROG_HOT_CLANG5, 64);
	n += check_straddle(MPROG_LIB_CLANG5, 64);
#endif
	assert_true(n >= 3);
}

/* A line size outside 32..256 (run->line_size) has its first bytes resolved too. */
static void test_run_line_size(void **state)
{
	struct mf_mrun run;
	struct nmtab nm;
	uint32_t mod;
	uint64_t v;
	(void)state;
	mf_mrun_init(&run);
	run.line_size = 4096;
	nm_load(MPROG_HOT_O0, &nm);
	mod = add_mod(&run, MPROG_HOT_O0);
	v = nm_find(&nm, "cold_loop")->addr + 3;
	add_vaddr(&run, mod, MPROG_HOT_O0, v);
	symbolize_ok(&run);
	assert_int_equal(sym_at(&run, mod, v & ~4095ULL)->addr, v & ~4095ULL);
	/* Exactly the sample and its lines' first bytes, each once. */
	{
		uint64_t want[6] = {v, v & ~31ULL, v & ~63ULL, v & ~127ULL, v & ~255ULL, v & ~4095ULL};
		size_t i, j, distinct = 0;
		for (i = 0; i < 6; i++) {
			for (j = 0; j < i && want[j] != want[i]; j++)
				;
			distinct += j == i;
		}
		assert_int_equal(run.nsyms, distinct);
	}
	check_lines_resolved(&run);
	free(nm.s);
	mf_mrun_free(&run);
}

/* No samples, no modules: nothing to do, no failure. */
static void test_empty_run(void **state)
{
	struct mf_mrun run;
	(void)state;
	mf_mrun_init(&run);
	symbolize_ok(&run);
	assert_int_equal(run.nsyms, 0);
	assert_int_equal(run.nsrc, 0);
	mf_mrun_free(&run);
}

/*
 * The symbol table is searched, not scanned: each lookup looks at no more
 * entries than binary searches of the sorted symbols and of their segments
 * take (two over the symbols, one over at most twice as many segments), plus
 * a few symbols sharing one start.  A pass over the table per address would
 * look at thousands.
 */
static void check_logarithmic(const struct mf_mrun *run)
{
	uint64_t steps = 1, per;
	while ((UINT64_C(1) << steps) < 2 * run->sym_table_entries + 2)
		steps++;
	per = 3 * steps + 16;
	print_message("%" PRIu64 " lookups in %" PRIu64 " symbols: %" PRIu64 " entries looked at (bound %" PRIu64
		      " a lookup)\n",
		      run->sym_lookups, run->sym_table_entries, run->sym_probes, per);
	assert_true(run->sym_lookups > 0);
	assert_true(run->sym_probes <= run->sym_lookups * per);
}

/*
 * 100 000 samples over a few hundred addresses of two modules: each distinct
 * address resolved once, each a few binary-search steps (work counted, not timed:
 * times belong in bench/).
 */
static void test_many_samples(void **state)
{
	struct mf_mrun run;
	struct nmtab nm, lnm;
	uint32_t exe, lib;
	const struct nmsym *f[4];
	uint64_t addrs[400];
	uint32_t mods[400];
	uint64_t offs[400];
	size_t i, n = 0;
	(void)state;

	mf_mrun_init(&run);
	nm_load(MPROG_HOT_O2, &nm);
	nm_load(MPROG_LIB, &lnm);
	exe = add_mod(&run, MPROG_HOT_O2);
	lib = add_mod(&run, MPROG_LIB);
	f[0] = nm_find(&nm, "hot_loop");
	f[1] = nm_find(&nm, "main");
	f[2] = nm_find(&lnm, "lib_spin");
	f[3] = nm_find(&lnm, "lib_other");
	for (i = 0; i < 4; i++) {
		uint64_t a;
		for (a = f[i]->addr; a < f[i]->addr + f[i]->size && n < 400; a++) {
			addrs[n] = a;
			mods[n] = i < 2 ? exe : lib;
			offs[n] = file_off(i < 2 ? MPROG_HOT_O2 : MPROG_LIB, a, NULL);
			n++;
		}
	}
	assert_true(n >= 200);
	for (i = 0; i < 100000; i++)
		add_sample(&run, mods[(i * 7919) % n], offs[(i * 7919) % n]);
	symbolize_ok(&run);
	print_message("mf_symbolize: 100000 samples, %zu addresses, %zu syms, %zu source rows\n", n, run.nsyms,
		      run.nsrc);
	check_logarithmic(&run);
	/* Each distinct address looked up once, not each sample. */
	assert_true(run.sym_lookups <= run.nsyms);
	/* Distinct addresses plus their line starts, each once. */
	assert_true(run.nsyms >= n);
	assert_true(run.nsyms <= n * 6);
	for (i = 1; i < run.nsyms; i++)
		assert_true(run.syms[i - 1].mod < run.syms[i].mod ||
			    (run.syms[i - 1].mod == run.syms[i].mod && run.syms[i - 1].addr < run.syms[i].addr));
	for (i = 0; i < n; i++)
		assert_non_null(sym_at(&run, mods[i], addrs[i])->func);
	check_lines_resolved(&run);
	check_src_exact(&run, exe, MPROG_HOT_O2);
	check_src_exact(&run, lib, MPROG_LIB);
	free(nm.s);
	free(lnm.s);
	mf_mrun_free(&run);
}

/*
 * Call chains: every frame is named by its lookup address (a return address
 * by the byte before it, its call site), so a run file reports callers
 * without the binaries; 20 000 samples over 40 distinct chains of a few
 * hundred frames: each distinct (module, address) looked up once.
 */
static void test_chain_frames(void **state)
{
	struct mf_mrun run;
	struct nmtab nm;
	uint32_t exe;
	const struct nmsym *hot, *mainf;
	size_t i, k;
	(void)state;
	mf_mrun_init(&run);
	nm_load(MPROG_HOT_O2, &nm);
	exe = add_mod(&run, MPROG_HOT_O2);
	hot = nm_find(&nm, "hot_loop");
	mainf = nm_find(&nm, "main");
	for (i = 0; i < 20000; i++) {
		struct mf_mframe f[8] = {{0}};
		uint64_t leaf = hot->addr + (i % 40) % hot->size;
		add_sample(&run, exe, file_off(MPROG_HOT_O2, leaf, NULL));
		f[0].mod = exe;
		f[0].off = run.samples[i].off;
		/* a return address at the first byte after a call in main: named by main, not what follows */
		for (k = 1; k < 8; k++) {
			f[k].mod = exe;
			f[k].flags = MF_FR_RETURN;
			f[k].off = file_off(MPROG_HOT_O2, mainf->addr + 1 + k * 3, NULL);
		}
		run.samples[i].stack = mf_mrun_add_stack(&run, f, 8);
		assert_true(run.samples[i].stack != MF_STACK_NONE);
	}
	assert_int_equal(run.nstacks, 40);
	symbolize_ok(&run);
	for (i = 0; i < run.nframes; i++) {
		const struct mf_mframe *fr = &run.frames[i];
		const struct mf_msym *y = sym_at(&run, fr->mod, mf_mframe_lookup(fr));
		assert_non_null(y->func);
		assert_string_equal(y->func, fr->flags & MF_FR_RETURN ? "main" : "hot_loop");
	}
	print_message("mf_symbolize: 20000 samples in 40 chains of 8 frames: %zu syms, %" PRIu64 " lookups\n",
		      run.nsyms, run.sym_lookups);
	/* Distinct addresses only: the 40 leaves (and their line starts) and 7 call sites, each once. */
	assert_true(run.sym_lookups <= run.nsyms);
	assert_true(run.nsyms <= 40 * 6 + 7);
	free(nm.s);
	mf_mrun_free(&run);
}

/* Adds a sample at every step-th byte of the executable segments of path; returns how many. */
static size_t add_code_bytes(struct mf_mrun *run, uint32_t mod, const char *path, uint64_t step)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	size_t phnum, i, n = 0;
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_getphdrnum(e, &phnum), 0);
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		uint64_t o;
		assert_non_null(gelf_getphdr(e, (int)i, &ph));
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		for (o = ph.p_offset; o < ph.p_offset + ph.p_filesz; o += step, n++)
			add_sample(run, mod, o);
	}
	elf_end(e);
	close(fd);
	return n;
}

/*
 * Every byte of the code of a program and of a library with aliases: the
 * functions between, before and after the sized symbols too (padding, .init,
 * .plt), where only a sizeless label or nothing may name an address, and a
 * sizeless label only one nm lists at that start.
 */
static void test_every_code_byte(void **state)
{
	static const char *const paths[] = {MPROG_HOT_O2, MPROG_LIB};
	size_t p;
	(void)state;
	for (p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
		struct mf_mrun run;
		struct nmtab nm;
		uint32_t mod;
		size_t i, n, sizeless = 0;
		mf_mrun_init(&run);
		nm_load(paths[p], &nm);
		mod = add_mod(&run, paths[p]);
		n = add_code_bytes(&run, mod, paths[p], 1);
		assert_true(n > 100);
		symbolize_ok(&run);
		check_tools(&run, mod, paths[p]);
		for (i = 0; i < run.nsyms; i++) {
			const struct mf_msym *s = &run.syms[i];
			size_t k;
			bool listed = false;
			if (!s->func || s->func_size)
				continue;
			sizeless++;
			assert_true(s->func_start <= s->addr);
			for (k = 0; k < nm.n && !listed; k++)
				listed = nm.s[k].addr == s->func_start && nm.s[k].size == 0 &&
					 strcmp(nm.s[k].name, s->func) == 0;
			if (!listed)
				fail_msg("%s 0x%" PRIx64 ": sizeless %s at 0x%" PRIx64 " is not in nm", paths[p],
					 s->addr, s->func, s->func_start);
		}
		print_message("%s: %zu code bytes, %zu named by a sizeless label\n", paths[p], n, sizeless);
		free(nm.s);
		mf_mrun_free(&run);
	}
}

static int find_libc(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *slash = strrchr(info->dlpi_name, '/');
	(void)size;
	if (slash && strncmp(slash + 1, "libc.so", 7) == 0) {
		snprintf(data, 4096, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

/*
 * A large symbol table (§3, issue 18: each address a binary search, not a
 * pass over the table): every 16th byte of this process's C library, tens of
 * thousands of distinct addresses, each a logarithmic number of entries
 * looked at (counted, not timed: bench/ times it); each named address lies
 * in its function.
 */
static void test_large_table(void **state)
{
	char path[4096] = "";
	struct mf_mrun run;
	uint32_t mod;
	size_t i, n, named = 0;
	(void)state;
	dl_iterate_phdr(find_libc, path);
	if (!path[0] || path[0] != '/') {
		print_message("skipped: the C library's path is not known\n");
		return;
	}
	mf_mrun_init(&run);
	mod = add_mod(&run, path);
	n = add_code_bytes(&run, mod, path, 16);
	symbolize_ok(&run);
	for (i = 0; i < run.nsyms; i++) {
		const struct mf_msym *s = &run.syms[i];
		if (!s->func)
			continue;
		named++;
		assert_true(s->func_start <= s->addr);
		assert_true(s->func_size == 0 || s->addr - s->func_start < s->func_size);
	}
	print_message("%s: %zu samples, %zu addresses, %zu named\n", path, n, run.nsyms, named);
	assert_true(n > 10000);
	assert_true(named > run.nsyms / 2);
	assert_true(run.sym_table_entries > 1000);
	check_logarithmic(&run);
	mf_mrun_free(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hot_O0),           cmocka_unit_test(test_hot_O2),
		cmocka_unit_test(test_hot_nopie),        cmocka_unit_test(test_shared_library),
		cmocka_unit_test(test_lines_threshold),  cmocka_unit_test(test_src_function_range),
		cmocka_unit_test(test_no_aranges),       cmocka_unit_test(test_clang),
		cmocka_unit_test(test_mixed_aranges),    cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_debuglink),        cmocka_unit_test(test_unreadable_modules),
		cmocka_unit_test(test_build_id_changed), cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_straddling_line),  cmocka_unit_test(test_run_line_size),
		cmocka_unit_test(test_empty_run),        cmocka_unit_test(test_many_samples),
		cmocka_unit_test(test_every_code_byte),  cmocka_unit_test(test_large_table),
		cmocka_unit_test(test_chain_frames),
	};
	const char *tools[] = {"nm", "addr2line", "readelf"};
	size_t i;
	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (!have_tool(tools[i])) {
			printf("SKIP: %s not found (the symbolizer is checked against binutils)\n", tools[i]);
			return 77;
		}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
