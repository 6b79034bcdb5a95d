/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer of mfstat measure (caliper-measure.md §3 "Symbolizer"):
 * load segments and build ids from the modules' ELF files, then for the
 * sampled addresses their function, source line and inlining through libdwfl,
 * and the DWARF line rows around them (the statements of a cache line).
 *
 * Addresses.  Samples carry file offsets; once the load segments are known,
 * mf_mrun_finish turns them into module-relative ELF virtual addresses
 * ("vaddr", what nm and addr2line print), and everything stored in the run is
 * in those.  libdwfl works in an address space of its own: each module is
 * reported alone in a session of its own, an ET_EXEC file at its link
 * addresses, an ET_DYN file at DWFL_BASE (dwfl_report_elf with add_p_vaddr:
 * the base is added to p_vaddr), and a dwfl address is vaddr + the bias
 * libdwfl reports for the module (dwfl_module_getelf).
 *
 * Compilation units.  libdwfl finds the CU of an address through
 * .debug_aranges alone, which clang does not emit by default: the CU is
 * checked against its own ranges and else looked up among every CU's ranges
 * (cu_at), and lines are looked up in that CU (line_at), so clang-built code,
 * DWARF 4 or 5, gets its files and lines like gcc-built code.
 *
 * Speed (§3: a one-second program must stay within 5 % extra; issue 18: a
 * compiler run of thousands of sampled addresses in a 29,000-symbol cc1 too):
 * each distinct (module, address) is resolved once; a module's symbol table is
 * read once into an array sorted by address and cut into segments, each named
 * by one symbol (load_syms), so a function is a binary search, not
 * dwfl_module_addrinfo's pass over the whole table per address, with the same
 * answers (sizeless labels included); CUs are found by a hash of their DIEs,
 * and inlined ranges and line tables are read once per compilation unit.
 */
#include "mfstat/measure/symbolize.h"
#include "mfstat/measure/run.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* Where ET_DYN modules sit in libdwfl's address space (any aligned nonzero base would do). */
#define DWFL_BASE 0x100000000000ULL
/* The cache-line sizes whose first bytes are resolved besides run->line_size (mfstat/measure/symbolize.h). */
static const uint32_t line_sizes[] = {32, 64, 128, 256};
/* Source rows are kept for this block around every sampled address (brief H2, step 4). */
#define SRC_BLOCK 256u

/* ---- small helpers ------------------------------------------------------ */

/* Makes room for need elements in an array of capacity *cap; the (possibly moved) array, or NULL on ENOMEM. */
static void *grow(void *arr, size_t *cap, size_t need, size_t size)
{
	size_t nc;
	void *na;
	if (need <= *cap)
		return arr;
	nc = *cap ? *cap : 16;
	while (nc < need)
		nc *= 2;
	na = realloc(arr, nc * size);
	if (!na)
		return NULL;
	*cap = nc;
	return na;
}

/* An address range [lo, hi). */
struct span {
	uint64_t lo, hi;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* Sorts spans and merges those that overlap or touch; returns the new count. */
static size_t merge_spans(struct span *s, size_t n)
{
	size_t i, k = 0;
	if (n == 0)
		return 0;
	qsort(s, n, sizeof(*s), cmp_span);
	for (i = 1; i < n; i++) {
		if (s[i].lo <= s[k].hi) {
			if (s[i].hi > s[k].hi)
				s[k].hi = s[i].hi;
		} else {
			s[++k] = s[i];
		}
	}
	return k + 1;
}

/* Whether a lies in one of n sorted, disjoint spans. */
static bool in_spans(const struct span *s, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid].hi <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && s[lo].lo <= a;
}

/* ---- the addresses to resolve -------------------------------------------- */

/* A distinct (module, module-relative address) to resolve. */
struct want {
	uint64_t addr;
	uint32_t mod;     /* MF_MOD_NONE: an empty slot of the set */
	uint32_t sampled; /* a sample's own address, not only a cache line's first byte */
};

/* Open addressing over (mod, addr): 100 000 samples hit a few hundred slots. */
struct wantset {
	struct want *slot;
	size_t nslot, n;
};

static uint64_t want_hash(uint32_t mod, uint64_t addr)
{
	uint64_t h = (addr ^ ((uint64_t)mod << 47)) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

static int wantset_resize(struct wantset *ws, size_t nslot)
{
	struct want *ns = malloc(nslot * sizeof(*ns));
	size_t i;
	if (!ns)
		return -1;
	for (i = 0; i < nslot; i++)
		ns[i].mod = MF_MOD_NONE;
	for (i = 0; i < ws->nslot; i++) {
		const struct want *w = &ws->slot[i];
		size_t j;
		if (w->mod == MF_MOD_NONE)
			continue;
		j = want_hash(w->mod, w->addr) & (nslot - 1);
		while (ns[j].mod != MF_MOD_NONE)
			j = (j + 1) & (nslot - 1);
		ns[j] = *w;
	}
	free(ws->slot);
	ws->slot = ns;
	ws->nslot = nslot;
	return 0;
}

static int wantset_add(struct wantset *ws, uint32_t mod, uint64_t addr, uint32_t sampled)
{
	size_t j;
	if ((ws->n + 1) * 2 > ws->nslot && wantset_resize(ws, ws->nslot ? ws->nslot * 2 : 256))
		return -1;
	j = want_hash(mod, addr) & (ws->nslot - 1);
	while (ws->slot[j].mod != MF_MOD_NONE) {
		if (ws->slot[j].mod == mod && ws->slot[j].addr == addr) {
			ws->slot[j].sampled |= sampled;
			return 0;
		}
		j = (j + 1) & (ws->nslot - 1);
	}
	ws->slot[j].mod = mod;
	ws->slot[j].addr = addr;
	ws->slot[j].sampled = sampled;
	ws->n++;
	return 0;
}

static int cmp_want(const void *a, const void *b)
{
	const struct want *x = a, *y = b;
	if (x->mod != y->mod)
		return x->mod < y->mod ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* ---- ELF files: load segments and build id (brief H2 step 1) -------------- */

/* Marks m unreadable with the reason (MF_MOD_MISSING); -1 on ENOMEM. */
static int mod_missing(struct mf_mrun *run, struct mf_mmod *m, const char *why)
{
	m->flags |= MF_MOD_MISSING;
	m->flags &= ~(uint32_t)MF_MOD_ELF;
	m->nloads = 0;
	m->note = mf_mrun_str(run, why);
	return m->note ? 0 : -1;
}

/*
 * Reads m's load segments and build id from the ELF file open on fd.  NULL
 * when done, else why the file is unusable (in why[n]).  A build id differing
 * from the one the kernel recorded for the run marks the module changed; the
 * recorded one is kept, as it names what actually ran.
 */
static const char *read_elf(struct mf_mrun *run, struct mf_mmod *m, int fd, char *why, size_t n)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t phnum = 0, i, nl = 0, total = 0;
	const void *bid = NULL;
	ssize_t blen;
	int pass;

	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		snprintf(why, n, "not an ELF file");
		goto fail;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		snprintf(why, n, "not an executable or shared object (ELF type %u)", (unsigned)eh.e_type);
		goto fail;
	}
	if (elf_getphdrnum(e, &phnum) != 0) {
		snprintf(why, n, "unreadable program headers (%s)", elf_errmsg(-1));
		goto fail;
	}
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
			total++;
	}
	/* More PT_LOADs than fit is rare; then the executable ones go first, as samples land there. */
	for (pass = total > MF_MOD_MAX_LOADS ? 0 : 1; pass < 2; pass++) {
		for (i = 0; i < phnum && nl < MF_MOD_MAX_LOADS; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (total > MF_MOD_MAX_LOADS && (pass == 0) != ((ph.p_flags & PF_X) != 0))
				continue;
			m->loads[nl].offset = ph.p_offset;
			m->loads[nl].vaddr = ph.p_vaddr;
			m->loads[nl].filesz = ph.p_filesz;
			nl++;
		}
	}
	if (nl == 0) {
		snprintf(why, n, "no loadable segment");
		goto fail;
	}
	m->nloads = (uint32_t)nl;

	blen = dwelf_elf_gnu_build_id(e, &bid);
	if (blen > 0 && bid) {
		size_t k = (size_t)blen < sizeof(m->build_id) ? (size_t)blen : sizeof(m->build_id);
		if (m->build_id_len == 0) {
			memcpy(m->build_id, bid, k);
			m->build_id_len = (uint8_t)k;
		} else if (m->build_id_len != k || memcmp(m->build_id, bid, k) != 0) {
			m->flags |= MF_MOD_CHANGED;
			mf_mrun_warn(run, "%s: the file changed since the run (build id differs); symbols may be wrong",
				     m->path);
		}
	}
	m->flags |= MF_MOD_ELF;
	elf_end(e);
	return NULL;
fail:
	if (e)
		elf_end(e);
	return why;
}

/*
 * A memfd holding this process's vDSO image (the kernel maps the same one into
 * every process of an architecture), or -1 with why filled.  The image's
 * extent is the furthest byte its headers, segments and sections name.
 */
static int vdso_memfd(char *why, size_t n)
{
	const unsigned char *img = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	ElfW(Ehdr) eh;
	size_t size, i, done = 0;
	int fd;

	if (!img) {
		snprintf(why, n, "no vDSO in this process");
		return -1;
	}
	memcpy(&eh, img, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_phentsize != sizeof(ElfW(Phdr)) ||
	    (eh.e_shnum && eh.e_shentsize != sizeof(ElfW(Shdr)))) {
		snprintf(why, n, "unexpected vDSO image");
		return -1;
	}
	size = sizeof(eh);
	if (eh.e_phoff + (size_t)eh.e_phnum * sizeof(ElfW(Phdr)) > size)
		size = eh.e_phoff + (size_t)eh.e_phnum * sizeof(ElfW(Phdr));
	if (eh.e_shoff + (size_t)eh.e_shnum * sizeof(ElfW(Shdr)) > size)
		size = eh.e_shoff + (size_t)eh.e_shnum * sizeof(ElfW(Shdr));
	for (i = 0; i < eh.e_phnum; i++) {
		ElfW(Phdr) ph;
		memcpy(&ph, img + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_offset + ph.p_filesz > size)
			size = ph.p_offset + ph.p_filesz;
	}
	for (i = 0; i < eh.e_shnum; i++) {
		ElfW(Shdr) sh;
		memcpy(&sh, img + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > size)
			size = sh.sh_offset + sh.sh_size;
	}
	if (size > (64u << 20)) {
		snprintf(why, n, "implausible vDSO size %zu", size);
		return -1;
	}
	fd = memfd_create("mfstat-vdso", MFD_CLOEXEC);
	if (fd < 0) {
		snprintf(why, n, "cannot copy the vDSO (memfd_create: %s)", strerror(errno));
		return -1;
	}
	while (done < size) {
		ssize_t w = write(fd, img + done, size - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			snprintf(why, n, "cannot copy the vDSO (write: %s)", w < 0 ? strerror(errno) : "short write");
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	return fd;
}

/* The ELF file of module m open for reading, or -1 with why filled (the vDSO: a dup of vdso_fd). */
static int open_module(const struct mf_mmod *m, int vdso_fd, char *why, size_t n)
{
	struct stat st;
	int fd;
	if (strcmp(m->path, "[vdso]") == 0) {
		if (vdso_fd < 0) {
			snprintf(why, n, "no vDSO image");
			return -1;
		}
		fd = fcntl(vdso_fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			snprintf(why, n, "cannot copy the vDSO (%s)", strerror(errno));
		return fd;
	}
	/* O_NONBLOCK: a FIFO in the maps must not hang us; it is refused below. */
	fd = open(m->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, n, "cannot open (%s)", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, n, "not a regular file");
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Whether module m is read here: a file (not special, an absolute path), or
 * the vDSO.  Other special modules ([heap], //anon, ...) stay unresolved.
 */
static bool has_image(const struct mf_mmod *m)
{
	if (!m->path)
		return false;
	if (m->flags & MF_MOD_SPECIAL)
		return strcmp(m->path, "[vdso]") == 0;
	return m->path[0] == '/';
}

/* ---- libdwfl sessions ------------------------------------------------------ */

/*
 * find_debuginfo: the build-id directories, then .gnu_debuglink beside the
 * file, in its .debug/ and under /usr/lib/debug/ (§3 "debug files via build-id
 * and .gnu_debuglink").  Not dwfl_standard_find_debuginfo: that one asks
 * debuginfod servers whenever DEBUGINFOD_URLS is set (Debian sets it for login
 * shells), and §3 wants no network lookups unless asked.
 */
static int crc_matches(int fd, uint32_t want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0L, Z_NULL, 0);
	ssize_t r;
	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return 0;
		}
		crc = crc32(crc, buf, (uInt)r);
	}
	lseek(fd, 0, SEEK_SET);
	return (uint32_t)crc == want;
}

static int find_debuginfo(Dwfl_Module *dm, void **userdata, const char *modname, Dwarf_Addr base, const char *file_name,
			  const char *debuglink, GElf_Word crc, char **debugname)
{
	static const char *const fmts[] = {"%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s"};
	struct stat main_st, st;
	const char *slash;
	size_t i;
	int fd = dwfl_build_id_find_debuginfo(dm, userdata, modname, base, file_name, debuglink, crc, debugname);

	if (fd >= 0 || !debuglink || !*debuglink || !file_name || file_name[0] != '/' || strchr(debuglink, '/'))
		return fd;
	if (stat(file_name, &main_st) != 0)
		return -1;
	slash = strrchr(file_name, '/');
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		char path[4096];
		int len = snprintf(path, sizeof(path), fmts[i], (int)(slash - file_name), file_name, debuglink);
		if (len < 0 || (size_t)len >= sizeof(path))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* Not the main file under another name, and the CRC the link names. */
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    !(st.st_dev == main_st.st_dev && st.st_ino == main_st.st_ino) && crc_matches(fd, crc)) {
			*debugname = strdup(path);
			if (*debugname)
				return fd;
		}
		close(fd);
	}
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = NULL,
	.debuginfo_path = NULL,
};

/*
 * A symbol of the module's table (dwfl addresses).  A sizeless symbol (a
 * hand-written assembly label) names only addresses that libdwfl places in
 * the same section as the symbol (scn, looked up when first needed), an
 * absolute one only its own address.
 */
struct fsym {
	uint64_t start, size;
	uint64_t reach;    /* the furthest end of this symbol and of those sorted before it */
	const char *name;  /* libdwfl's, valid until dwfl_end */
	const char *iname; /* the name as reported (func_name), interned when first needed */
	Elf_Scn *scn;      /* libdwfl's section of start, when scn_known */
	bool scn_known, abs;
	int rank; /* 0 global, 1 weak, 2 local, 3 other */
};

static int cmp_fsym(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(x->name, y->name);
}

/* Where the function of an address changes: from lo up to the next segment's lo, symbol sym (NOSYM: none sized). */
struct fseg {
	uint64_t lo;
	uint32_t sym;
};
#define NOSYM UINT32_MAX

/* A compilation unit met, with its own and its inlined code ranges (dwfl addresses, merged). */
struct cuinfo {
	/* libdwfl's own DIE (dwfl_module_addrdie, dwfl_module_nextcu): dwfl_getsrclines needs this very pointer */
	Dwarf_Die *cu;
	struct span *own, *inl;
	size_t nown, ninl, capinl;
	size_t stamp; /* 1 + the range whose rows were last taken from it */
};

/* A code range of a CU (dwfl addresses), for the CUs .debug_aranges leaves out. */
struct curange {
	uint64_t lo, hi;
	uint64_t reach; /* the highest hi of this range and of those sorted before it */
	Dwarf_Die *cu;  /* libdwfl's own, as above */
	Dwarf_Addr dwbias;
};

/* One module's session. */
struct sess {
	struct mf_mrun *run;
	uint32_t mod;
	Dwfl *dwfl;
	Dwfl_Module *dm;
	uint64_t bias;     /* dwfl address = vaddr + bias */
	bool lines;        /* read the DWARF: source lines and inlining */
	struct fsym *syms; /* sorted by start, rank, name (cmp_fsym) */
	size_t nsyms;
	struct fseg *segs; /* sorted by lo, disjoint: the sized symbol of each address */
	size_t nsegs, capsegs;
	struct cuinfo *cus;
	size_t ncus, capcus;
	uint32_t *cuslot; /* s->cus by DIE pointer, open addressing: 1 + index, 0 empty */
	size_t ncuslot;
	struct curange *cur; /* every CU's ranges (sorted by start), read once when first needed */
	size_t ncur, capcur;
	bool cur_read;
	struct span *ranges; /* for source rows: module-relative */
	size_t nranges, capranges;
	uint64_t *probes; /* addresses whose CU gives source rows: module-relative */
	size_t nprobes, capprobes;
	bool oom;
};

static int binding_rank(unsigned char info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE: return 0;
	case STB_WEAK: return 1;
	case STB_LOCAL: return 2;
	default: return 3;
	}
}

/* The end of f's code (saturated). */
static uint64_t fsym_end(const struct fsym *f)
{
	return f->start + f->size < f->start ? UINT64_MAX : f->start + f->size;
}

/*
 * The section holding dwfl address a as libdwfl sees it (NULL: none), which
 * dwfl_module_addrinfo compares between an address and a sizeless symbol.
 */
static Elf_Scn *section_of(const struct sess *s, uint64_t a)
{
	Dwarf_Addr v = a, sbias = 0;
	return dwfl_module_address_section(s->dm, &v, &sbias);
}

/* Sets the function of the addresses from lo on to symbol k (NOSYM: none); false on ENOMEM. */
static bool seg_set(struct sess *s, uint64_t lo, uint32_t k)
{
	struct fseg *ns;
	if (s->nsegs && s->segs[s->nsegs - 1].lo == lo)
		s->nsegs--;
	if (s->nsegs ? s->segs[s->nsegs - 1].sym == k : k == NOSYM)
		return true;
	ns = grow(s->segs, &s->capsegs, s->nsegs + 1, sizeof(*s->segs));
	if (!ns)
		return false;
	s->segs = ns;
	s->segs[s->nsegs].lo = lo;
	s->segs[s->nsegs].sym = k;
	s->nsegs++;
	return true;
}

/*
 * Pops the sized symbols of the stack that end at or below x, recording at
 * each end the symbol then innermost (the one below on the stack that still
 * runs).  Popping lazily is enough: a symbol on the stack started no earlier
 * than those under it, so while it runs it is the closest.
 */
static bool seg_close(struct sess *s, uint32_t *stack, size_t *sp, uint64_t x)
{
	while (*sp && fsym_end(&s->syms[stack[*sp - 1]]) <= x) {
		uint64_t e = fsym_end(&s->syms[stack[*sp - 1]]);
		for ((*sp)--; *sp && fsym_end(&s->syms[stack[*sp - 1]]) <= e; (*sp)--)
			;
		if (!seg_set(s, e, *sp ? stack[*sp - 1] : NOSYM))
			return false;
	}
	return true;
}

/*
 * Cuts the address space into segments each named by one sized symbol (or
 * none): of the sized symbols containing an address the one starting
 * closest below it, then by the alias order of cmp_fsym (global, weak, local,
 * then the name), so that nested and overlapping symbols and aliases of
 * different sizes resolve the same way at every address.
 */
static void build_segs(struct sess *s)
{
	uint32_t *stack = malloc((s->nsyms ? s->nsyms : 1) * sizeof(*stack));
	size_t sp = 0, i, g, j;
	if (!stack) {
		s->oom = true;
		return;
	}
	for (i = 0; i < s->nsyms && !s->oom; i = g) {
		uint64_t start = s->syms[i].start;
		size_t before;
		for (g = i; g < s->nsyms && s->syms[g].start == start; g++)
			;
		if (!seg_close(s, stack, &sp, start)) {
			s->oom = true;
			break;
		}
		/* The aliases pushed in reverse order: the first by cmp_fsym on top, the next once it ends. */
		before = sp;
		for (j = g; j-- > i;)
			if (s->syms[j].size)
				stack[sp++] = (uint32_t)j;
		if (sp > before && !seg_set(s, start, stack[sp - 1]))
			s->oom = true;
	}
	if (!s->oom && !seg_close(s, stack, &sp, UINT64_MAX))
		s->oom = true;
	free(stack);
}

/*
 * Reads the module's symbol table once (libdwfl's choice, as
 * dwfl_module_addrinfo would search it: .symtab of the file or of its debug
 * file, else .dynsym), sorted by address, rank, name, and cut into segments
 * (build_segs), so that each address is then a binary search.
 */
static void load_syms(struct sess *s)
{
	int n = dwfl_module_getsymtab(s->dm), i;
	size_t k = 0;
	uint64_t reach = 0;
	if (n <= 1)
		return;
	if ((size_t)n >= NOSYM) /* segments index symbols with 32 bits */
		n = (int)(NOSYM - 1);
	s->syms = malloc((size_t)n * sizeof(*s->syms));
	if (!s->syms) {
		s->oom = true;
		return;
	}
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx = SHN_UNDEF;
		const char *name = dwfl_module_getsym_info(s->dm, i, &sym, &addr, &shndx, NULL, NULL);
		struct fsym *f = &s->syms[k];
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || sym.st_shndx == SHN_UNDEF || type == STT_SECTION || type == STT_FILE ||
		    type == STT_TLS)
			continue;
		memset(f, 0, sizeof(*f));
		f->start = addr;
		f->size = sym.st_size;
		f->name = name;
		f->rank = binding_rank(sym.st_info);
		f->abs = shndx >= SHN_LORESERVE;
		k++;
	}
	s->nsyms = k;
	s->run->sym_table_entries += k;
	qsort(s->syms, k, sizeof(*s->syms), cmp_fsym);
	for (k = 0; k < s->nsyms; k++) {
		if (fsym_end(&s->syms[k]) > reach)
			reach = fsym_end(&s->syms[k]);
		s->syms[k].reach = reach;
	}
	build_segs(s);
}

/* Index of the first symbol starting at or after a (n when none). */
static size_t sym_lower(const struct sess *s, uint64_t a)
{
	size_t lo = 0, hi = s->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		s->run->sym_probes++;
		if (s->syms[mid].start < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The symbol naming dwfl address a (§3): of the sized symbols containing a,
 * the one starting closest below it, then global, weak, local, then the name
 * as stored (the segments of build_segs).  Else, as dwfl_module_addrinfo
 * has it, a sizeless symbol (an assembly label) in a's section that no
 * symbol at or below a runs past: one starting at the furthest end of those
 * symbols, the first there by the same order.  NULL when none.
 */
static struct fsym *func_at(struct sess *s, uint64_t a)
{
	size_t lo = 0, hi = s->nsegs, i;
	uint64_t m;
	Elf_Scn *scn = NULL;
	bool have_scn = false;
	s->run->sym_lookups++;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		s->run->sym_probes++;
		if (s->segs[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && s->segs[lo - 1].sym != NOSYM)
		return &s->syms[s->segs[lo - 1].sym];
	i = a == UINT64_MAX ? s->nsyms : sym_lower(s, a + 1); /* the symbols at or below a: [0, i) */
	if (i == 0)
		return NULL;
	m = s->syms[i - 1].reach;
	for (i = sym_lower(s, m); i < s->nsyms && s->syms[i].start == m; i++) {
		struct fsym *f = &s->syms[i];
		s->run->sym_probes++;
		if (f->size != 0)
			continue;
		if (f->abs) {
			if (f->start == a)
				return f;
			continue;
		}
		if (!have_scn) {
			scn = section_of(s, a);
			have_scn = true;
		}
		if (!f->scn_known) {
			f->scn = section_of(s, f->start);
			f->scn_known = true;
		}
		if (f->scn == scn)
			return f;
	}
	return NULL;
}

/* Appends the code ranges of die, in dwfl addresses, to the n spans of *arr; false on ENOMEM. */
static bool append_ranges(Dwarf_Die *die, Dwarf_Addr dwbias, struct span **arr, size_t *n, size_t *cap)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	/* libdw reads DW_AT_low_pc/high_pc and DW_AT_ranges in their DWARF 4 and 5 forms (addrx, rnglistx). */
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		struct span *ns;
		if (hi <= lo)
			continue;
		ns = grow(*arr, cap, *n + 1, sizeof(**arr));
		if (!ns)
			return false;
		*arr = ns;
		(*arr)[*n].lo = lo + dwbias;
		(*arr)[*n].hi = hi + dwbias;
		(*n)++;
	}
	return true;
}

static void add_inlined(struct sess *s, struct cuinfo *c, Dwarf_Die *die, Dwarf_Addr dwbias, int depth);

/* The CU of DIE cu, met once: its own and its inlined ranges read on the first meeting. */
static size_t cu_hash(const Dwarf_Die *cu)
{
	uint64_t h = (uint64_t)(uintptr_t)cu * 0x9e3779b97f4a7c15ULL;
	return (size_t)(h ^ (h >> 29));
}

/* Makes the CU index hold one more CU; false on ENOMEM. */
static bool cuslot_room(struct sess *s)
{
	size_t n, i;
	uint32_t *ns;
	if ((s->ncus + 1) * 2 <= s->ncuslot)
		return true;
	n = s->ncuslot ? s->ncuslot * 2 : 64;
	ns = calloc(n, sizeof(*ns));
	if (!ns)
		return false;
	for (i = 0; i < s->ncus; i++) {
		size_t j = cu_hash(s->cus[i].cu) & (n - 1);
		while (ns[j])
			j = (j + 1) & (n - 1);
		ns[j] = (uint32_t)(i + 1);
	}
	free(s->cuslot);
	s->cuslot = ns;
	s->ncuslot = n;
	return true;
}

static struct cuinfo *cu_info(struct sess *s, Dwarf_Die *cu, Dwarf_Addr dwbias)
{
	struct cuinfo *c, *nc;
	size_t j, capown = 0;
	if (s->ncuslot)
		for (j = cu_hash(cu) & (s->ncuslot - 1); s->cuslot[j]; j = (j + 1) & (s->ncuslot - 1))
			if (s->cus[s->cuslot[j] - 1].cu == cu)
				return &s->cus[s->cuslot[j] - 1];
	nc = s->ncus < UINT32_MAX - 1 && cuslot_room(s) ? grow(s->cus, &s->capcus, s->ncus + 1, sizeof(*s->cus)) : NULL;
	if (!nc) {
		s->oom = true;
		return NULL;
	}
	s->cus = nc;
	for (j = cu_hash(cu) & (s->ncuslot - 1); s->cuslot[j]; j = (j + 1) & (s->ncuslot - 1))
		;
	s->cuslot[j] = (uint32_t)(s->ncus + 1);
	c = &s->cus[s->ncus++];
	memset(c, 0, sizeof(*c));
	c->cu = cu;
	if (!append_ranges(cu, dwbias, &c->own, &c->nown, &capown)) {
		s->oom = true;
		return NULL;
	}
	c->nown = merge_spans(c->own, c->nown);
	add_inlined(s, c, cu, dwbias, 0);
	c->ninl = merge_spans(c->inl, c->ninl);
	return s->oom ? NULL : c;
}

static int cmp_curange(const void *a, const void *b)
{
	const struct curange *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* Reads the code ranges of every CU of the module into s->cur, sorted by start. */
static void read_curanges(struct sess *s)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr dwbias = 0;
	uint64_t reach = 0;
	size_t i;
	s->cur_read = true;
	while ((cu = dwfl_module_nextcu(s->dm, cu, &dwbias)) != NULL) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0) {
			struct curange *nr;
			if (hi <= lo)
				continue;
			nr = grow(s->cur, &s->capcur, s->ncur + 1, sizeof(*s->cur));
			if (!nr) {
				s->oom = true;
				return;
			}
			s->cur = nr;
			s->cur[s->ncur].lo = lo + dwbias;
			s->cur[s->ncur].hi = hi + dwbias;
			s->cur[s->ncur].cu = cu;
			s->cur[s->ncur].dwbias = dwbias;
			s->ncur++;
		}
	}
	if (s->ncur)
		qsort(s->cur, s->ncur, sizeof(*s->cur), cmp_curange);
	for (i = 0; i < s->ncur; i++) {
		if (s->cur[i].hi > reach)
			reach = s->cur[i].hi;
		s->cur[i].reach = reach;
	}
}

/* The CU range holding dwfl address a, the one starting nearest below a (NULL: none). */
static const struct curange *curange_at(struct sess *s, uint64_t a)
{
	size_t lo = 0, hi;
	if (!s->cur_read)
		read_curanges(s);
	hi = s->ncur;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->cur[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The ranges starting at or below a are [0, lo); back while one of them may still reach a. */
	while (lo > 0 && s->cur[lo - 1].reach > a) {
		lo--;
		if (a < s->cur[lo].hi)
			return &s->cur[lo];
	}
	return NULL;
}

/*
 * The CU holding dwfl address a, with its ranges read (NULL: no DWARF
 * there).  libdwfl (dwfl_module_addrdie, elfutils 0.188) finds CUs through
 * .debug_aranges alone, and gives an address in a gap between its entries to
 * the CU before the gap.  clang emits no .debug_aranges unless asked
 * (-gdwarf-aranges), and a program linking gcc- and clang-built objects has
 * entries for some of its CUs only.  So libdwfl's CU is taken when its own
 * ranges hold a (or libdw cannot read them), and otherwise the CU whose own
 * ranges hold a.
 */
static struct cuinfo *cu_at(struct sess *s, uint64_t a)
{
	Dwarf_Addr dwbias = 0;
	Dwarf_Die *die = dwfl_module_addrdie(s->dm, a, &dwbias);
	const struct curange *r;
	if (die) {
		struct cuinfo *c = cu_info(s, die, dwbias);
		if (!c || c->nown == 0 || in_spans(c->own, c->nown, a))
			return c;
	}
	r = curange_at(s, a);
	return r && !s->oom ? cu_info(s, r->cu, r->dwbias) : NULL;
}

/*
 * Collects the code ranges of the DW_TAG_inlined_subroutine DIEs under die.
 * Only DIEs that can hold concrete code are descended into: functions and
 * blocks with addresses, namespaces.  Types, variables and abstract instances
 * have no code and are skipped, which keeps the walk short.
 */
static void add_inlined(struct sess *s, struct cuinfo *c, Dwarf_Die *die, Dwarf_Addr dwbias, int depth)
{
	Dwarf_Die child;
	if (depth > 256 || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		bool has_pc = dwarf_hasattr(&child, DW_AT_low_pc) || dwarf_hasattr(&child, DW_AT_ranges);
		if (tag == DW_TAG_inlined_subroutine) {
			/* Inlined code nested in it lies within its ranges: no need to descend. */
			if (!append_ranges(&child, dwbias, &c->inl, &c->ninl, &c->capinl)) {
				s->oom = true;
				return;
			}
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_module ||
			   ((tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
			     tag == DW_TAG_catch_block || tag == DW_TAG_entry_point) &&
			    has_pc)) {
			add_inlined(s, c, &child, dwbias, depth + 1);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static void add_range(struct sess *s, uint64_t lo, uint64_t hi)
{
	struct span *ns = grow(s->ranges, &s->capranges, s->nranges + 1, sizeof(*s->ranges));
	if (!ns) {
		s->oom = true;
		return;
	}
	s->ranges = ns;
	s->ranges[s->nranges].lo = lo;
	s->ranges[s->nranges].hi = hi;
	s->nranges++;
}

static void add_probe(struct sess *s, uint64_t a)
{
	uint64_t *np = grow(s->probes, &s->capprobes, s->nprobes + 1, sizeof(*s->probes));
	if (!np) {
		s->oom = true;
		return;
	}
	s->probes = np;
	s->probes[s->nprobes++] = a;
}

/*
 * The function name as reported: without a symbol version.  A debug file's
 * .symtab names versioned definitions "fopencookie@@GLIBC_2.2.5" while .dynsym
 * says "fopencookie"; dropping the version keeps a function's name the same
 * whether or not debug files are installed.
 */
static const char *func_name(struct mf_mrun *run, const char *name)
{
	const char *at = strchr(name, '@');
	char buf[1024];
	size_t n = at ? (size_t)(at - name) : 0;
	if (!at || n == 0 || n >= sizeof(buf))
		return mf_mrun_str(run, name);
	memcpy(buf, name, n);
	buf[n] = '\0';
	return mf_mrun_str(run, buf);
}

/* Index of the first line row of CU c at or after dwfl address a. */
static size_t first_row(Dwarf_Die *cu, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		Dwarf_Addr ra = 0;
		Dwfl_Line *l = dwfl_onesrcline(cu, mid);
		if (l && dwfl_lineinfo(l, &ra, NULL, NULL, NULL, NULL) && ra < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The line row of CU c for dwfl address a, by dwfl_module_getsrc's rule:
 * the last row at or below a, none when that row ends a sequence (a lies
 * past the code the sequence describes).  Not dwfl_module_getsrc itself: it
 * finds the CU through .debug_aranges alone (cu_at).
 */
static Dwfl_Line *line_at(const struct cuinfo *c, uint64_t a)
{
	size_t n = 0, i;
	Dwfl_Line *l;
	Dwarf_Line *dl;
	Dwarf_Addr lbias;
	bool end = true;
	if (a == UINT64_MAX || dwfl_getsrclines(c->cu, &n) != 0 || n == 0)
		return NULL;
	i = first_row(c->cu, n, a + 1); /* the rows at or below a: [0, i) */
	if (i == 0 || !(l = dwfl_onesrcline(c->cu, i - 1)))
		return NULL;
	dl = dwfl_dwarf_line(l, &lbias);
	if (!dl || dwarf_lineendsequence(dl, &end) != 0 || end)
		return NULL;
	return l;
}

/* Resolves module-relative address w->addr into a new mf_msym. */
static void resolve(struct sess *s, const struct want *w)
{
	uint64_t a = w->addr + s->bias;
	struct fsym *f = func_at(s, a);
	struct mf_msym *sym;
	struct cuinfo *c;
	Dwfl_Line *line;
	const char *fname = NULL;

	if (f && !f->iname && !(f->iname = func_name(s->run, f->name))) {
		s->oom = true;
		return;
	}
	sym = mf_mrun_add_sym(s->run);
	if (!sym) {
		s->oom = true;
		return;
	}
	sym->mod = s->mod;
	sym->addr = w->addr;
	if (f) {
		sym->func = f->iname;
		sym->func_start = f->start - s->bias;
		sym->func_size = f->size;
	}
	c = s->lines ? cu_at(s, a) : NULL;
	if (s->oom)
		return;
	line = c ? line_at(c, a) : NULL;
	if (line) {
		int lno = 0;
		fname = dwfl_lineinfo(line, NULL, &lno, NULL, NULL, NULL);
		/* Line 0 (clang emits it for code of no one line): the file is known, the line not. */
		if (fname) {
			sym->file = mf_mrun_str(s->run, fname);
			sym->line = lno > 0 ? (uint32_t)lno : 0;
			if (!sym->file)
				s->oom = true;
		}
	}
	if (c && in_spans(c->inl, c->ninl, a))
		sym->flags |= MF_SYM_INLINE;

	/* Source rows: the 256-byte block around a sampled address and its whole function (step 4). */
	if (w->sampled) {
		uint64_t lo = w->addr - w->addr % SRC_BLOCK;
		add_range(s, lo, lo + SRC_BLOCK);
		add_probe(s, lo);
		add_probe(s, w->addr);
		add_probe(s, lo + SRC_BLOCK - 1);
		if (sym->func && sym->func_size) {
			add_range(s, sym->func_start, sym->func_start + sym->func_size);
			add_probe(s, sym->func_start);
		}
	}
}

/* Adds the statement rows of CU c in [lo, hi) (dwfl addresses). */
static void rows_in(struct sess *s, const struct cuinfo *c, uint64_t lo, uint64_t hi)
{
	size_t n = 0, i;
	if (dwfl_getsrclines(c->cu, &n) != 0 || n == 0)
		return;
	for (i = first_row(c->cu, n, lo); i < n; i++) {
		Dwfl_Line *l = dwfl_onesrcline(c->cu, i);
		Dwarf_Addr ra = 0, lbias;
		Dwarf_Line *dl;
		int lno = 0;
		bool stmt = false, end = true;
		const char *file;
		struct mf_msrc *src;
		if (!l)
			continue;
		file = dwfl_lineinfo(l, &ra, &lno, NULL, NULL, NULL);
		if (ra >= hi)
			break;
		dl = dwfl_dwarf_line(l, &lbias);
		if (!dl || dwarf_linebeginstatement(dl, &stmt) != 0 || dwarf_lineendsequence(dl, &end) != 0)
			continue;
		/* Statements only; an end_sequence row marks the address after the code (step 4). */
		if (!stmt || end || !file || lno <= 0 || ra < lo)
			continue;
		src = mf_mrun_add_src(s->run);
		if (!src || !(src->file = mf_mrun_str(s->run, file))) {
			s->oom = true;
			return;
		}
		src->mod = s->mod;
		src->addr = ra - s->bias;
		src->line = (uint32_t)lno;
		if (in_spans(c->inl, c->ninl, ra))
			src->flags |= MF_SYM_INLINE;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Adds the rows of CU c in range r (the r-th merged range) once per range. */
static void rows_once(struct sess *s, struct cuinfo *c, size_t r)
{
	const struct span *rg = &s->ranges[r];
	if (!c || c->stamp == r + 1)
		return;
	c->stamp = r + 1;
	rows_in(s, c, rg->lo + s->bias, rg->hi + s->bias);
}

/*
 * The source rows of the merged ranges: from every CU whose own ranges meet
 * a range (a 256-byte block can hold the ends of several small CUs), and from
 * the CUs libdwfl gives for the probes inside it (sampled addresses, block
 * edges, function starts), which covers a CU whose ranges libdw cannot read.
 */
static void add_rows(struct sess *s)
{
	size_t r, p = 0, i;
	s->nranges = merge_spans(s->ranges, s->nranges);
	if (s->nprobes)
		qsort(s->probes, s->nprobes, sizeof(*s->probes), cmp_u64);
	if (s->nranges && !s->cur_read)
		read_curanges(s);
	for (r = 0; r < s->nranges && !s->oom; r++) {
		uint64_t lo = s->ranges[r].lo + s->bias, hi = s->ranges[r].hi + s->bias;
		size_t lo_i = 0, hi_i = s->ncur;
		/* The CU ranges starting below hi are [0, hi_i); back while one of them may reach lo. */
		while (lo_i < hi_i) {
			size_t mid = lo_i + (hi_i - lo_i) / 2;
			if (s->cur[mid].lo < hi)
				lo_i = mid + 1;
			else
				hi_i = mid;
		}
		for (i = lo_i; i > 0 && s->cur[i - 1].reach > lo && !s->oom; i--)
			if (s->cur[i - 1].hi > lo)
				rows_once(s, cu_info(s, s->cur[i - 1].cu, s->cur[i - 1].dwbias), r);
		while (p < s->nprobes && s->probes[p] < s->ranges[r].lo)
			p++;
		for (; p < s->nprobes && s->probes[p] < s->ranges[r].hi && !s->oom; p++)
			if (p == 0 || s->probes[p] != s->probes[p - 1])
				rows_once(s, cu_at(s, s->probes[p] + s->bias), r);
	}
	for (i = 0; i < s->ncus; i++)
		s->cus[i].stamp = 0;
}

static void sess_free(struct sess *s)
{
	size_t i;
	for (i = 0; i < s->ncus; i++) {
		free(s->cus[i].own);
		free(s->cus[i].inl);
	}
	free(s->cus);
	free(s->cuslot);
	free(s->cur);
	free(s->syms);
	free(s->segs);
	free(s->ranges);
	free(s->probes);
	if (s->dwfl)
		dwfl_end(s->dwfl);
}

/*
 * Resolves the n wants of module mod (sorted by address) in a libdwfl session
 * of their own.  A module libdwfl cannot take gets a note and stays
 * unresolved.  Returns -1 on ENOMEM.
 */
static int resolve_module(struct mf_mrun *run, uint32_t mod, const struct want *w, size_t n, int vdso_fd, bool lines)
{
	struct mf_mmod *m = &run->mods[mod];
	struct sess s;
	char why[512];
	GElf_Addr bias = 0;
	size_t i;
	int fd, rc = 0;

	memset(&s, 0, sizeof(s));
	s.run = run;
	s.mod = mod;
	fd = open_module(m, vdso_fd, why, sizeof(why));
	if (fd < 0)
		return mod_missing(run, m, why);
	s.dwfl = dwfl_begin(&dwfl_callbacks);
	if (!s.dwfl) {
		close(fd);
		return -1;
	}
	dwfl_report_begin(s.dwfl);
	/* On success libdwfl owns fd (closed by dwfl_end); on failure it is still ours. */
	s.dm = dwfl_report_elf(s.dwfl, m->name, m->path, fd, DWFL_BASE, true);
	if (!s.dm)
		close(fd);
	if (dwfl_report_end(s.dwfl, NULL, NULL) != 0 || !s.dm || !dwfl_module_getelf(s.dm, &bias)) {
		snprintf(why, sizeof(why), "libdwfl cannot read it (%s)", dwfl_errmsg(-1));
		m->note = mf_mrun_str(run, why);
		rc = m->note ? 0 : -1;
		goto out;
	}
	s.bias = bias;
	s.lines = lines;
	load_syms(&s);
	for (i = 0; i < n && !s.oom; i++)
		resolve(&s, &w[i]);

	if (!s.oom && lines)
		add_rows(&s);
	rc = s.oom ? -1 : 0;
out:
	sess_free(&s);
	return rc;
}

/* ---- the entry point ------------------------------------------------------- */
/* Step 3 also names every frame of the call chains (mf_mframe_lookup), once per distinct (module, address). */

int mf_symbolize(struct mf_mrun *run, struct mf_error *err)
{
	struct wantset ws = {0};
	struct want *wants = NULL, *samp = NULL;
	size_t *per_mod = NULL;
	char why[512];
	int vdso_fd = -1;
	size_t i, k, nw = 0, ns = 0;
	int rc = 0;

	elf_version(EV_CURRENT);

	/* 1. Load segments and build ids; unreadable modules get a note and stay unresolved. */
	for (i = 0; i < run->nmods; i++) {
		struct mf_mmod *m = &run->mods[i];
		const char *bad;
		int fd;
		if (!has_image(m)) {
			if (!(m->flags & MF_MOD_SPECIAL) && mod_missing(run, m, "no file to read"))
				goto oom;
			continue;
		}
		m->flags &= ~(uint32_t)(MF_MOD_ELF | MF_MOD_MISSING);
		m->nloads = 0;
		m->note = NULL;
		if (m->path[0] == '[' && vdso_fd < 0) {
			vdso_fd = vdso_memfd(why, sizeof(why));
			if (vdso_fd < 0) {
				if (mod_missing(run, m, why))
					goto oom;
				continue;
			}
		}
		fd = open_module(m, vdso_fd, why, sizeof(why));
		if (fd < 0) {
			if (mod_missing(run, m, why))
				goto oom;
			continue;
		}
		bad = read_elf(run, m, fd, why, sizeof(why));
		close(fd);
		if (bad && mod_missing(run, m, bad))
			goto oom;
	}

	/* 2. Every sample's module-relative address. */
	mf_mrun_finish(run);

	/* 3. The distinct addresses: samples', and their cache lines' first bytes. */
	if (!(per_mod = calloc(run->nmods + 1, sizeof(*per_mod))))
		goto oom;
	for (i = 0; i < run->nsamples; i++) {
		const struct mf_msample *sm = &run->samples[i];
		if (sm->mod >= run->nmods || !(run->mods[sm->mod].flags & MF_MOD_ELF))
			continue;
		per_mod[sm->mod]++;
		if (wantset_add(&ws, sm->mod, sm->vaddr, 1))
			goto oom;
	}
	samp = malloc((ws.n ? ws.n : 1) * sizeof(*samp));
	if (!samp)
		goto oom;
	for (i = 0, ns = 0; i < ws.nslot; i++)
		if (ws.slot[i].mod != MF_MOD_NONE)
			samp[ns++] = ws.slot[i];
	for (i = 0; i < ns; i++) {
		for (k = 0; k < sizeof(line_sizes) / sizeof(line_sizes[0]); k++)
			if (wantset_add(&ws, samp[i].mod, samp[i].addr - samp[i].addr % line_sizes[k], 0))
				goto oom;
		if (run->line_size && wantset_add(&ws, samp[i].mod, samp[i].addr - samp[i].addr % run->line_size, 0))
			goto oom;
	}
	/* The call chains' frames, by the address they are named by (a return address's call site): once each. */
	for (i = 0; i < run->nframes; i++) {
		const struct mf_mframe *f = &run->frames[i];
		if (f->mod >= run->nmods || !(run->mods[f->mod].flags & MF_MOD_ELF) ||
		    (f->flags & (MF_FR_KERNEL | MF_FR_UNKNOWN)))
			continue;
		if (wantset_add(&ws, f->mod, mf_mframe_lookup(f), 0))
			goto oom;
	}
	wants = malloc((ws.n ? ws.n : 1) * sizeof(*wants));
	if (!wants)
		goto oom;
	for (i = 0, nw = 0; i < ws.nslot; i++)
		if (ws.slot[i].mod != MF_MOD_NONE)
			wants[nw++] = ws.slot[i];
	free(ws.slot);
	ws.slot = NULL;
	qsort(wants, nw, sizeof(*wants), cmp_want);

	/* 3-4. Per module: functions, lines, inlining, then the source rows. */
	for (i = 0; i < nw; i = k) {
		for (k = i; k < nw && wants[k].mod == wants[i].mod; k++)
			;
		/* Source lines where they can matter: a module with 1 % of the samples or more
		 * (MF_SYM_LINES_MIN_PERMILLE).  Below it functions are named but the DWARF is not
		 * read: for a few start-up samples in ld.so or libc, opening the separate debug
		 * file that libc6-dbg installs (inflating 6 MB of .debug_info, walking ~1,500
		 * CUs) took 0.05 to 0.12 s, most of the fixed cost of measuring a short program. */
		if (resolve_module(run, wants[i].mod, &wants[i], k - i, vdso_fd,
				   per_mod[wants[i].mod] * 1000 >= (uint64_t)run->nsamples * MF_SYM_LINES_MIN_PERMILLE))
			goto oom;
	}

	/* 5. Sorted for mf_mrun_sym and mf_mrun_src_range (duplicate rows dropped). */
	mf_mrun_sort_syms(run);
	goto out;
oom:
	rc = mf_error_set(err, MF_ENOMEM, NULL, 0, 0, "out of memory while resolving symbols");
out:
	free(ws.slot);
	free(samp);
	free(wants);
	free(per_mod);
	if (vdso_fd >= 0)
		close(vdso_fd);
	return rc;
}
