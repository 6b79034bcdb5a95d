/* SPDX-License-Identifier: MIT */
/*
 * DWARF unwinding of sampled user stacks with elfutils libdwfl
 * (mfstat/measure/unwind.h), as perf does for --call-graph dwarf, but with
 * one libdwfl session per process instead of one per sample:
 *
 * - a session reports the process's mapped ELF files as modules (each file
 *   once, at base = start - pgoff of its first mapping, perf's rule), attaches
 *   once, and serves every sample of that process until its maps_gen changes;
 *   at most MAX_SESSIONS are cached (least recently used one dropped);
 * - the sample being unwound hangs off the session (the callbacks' arg):
 *   set_initial_registers maps its perf registers to DWARF numbering through
 *   the architecture table (unwind_arch.c), memory_read serves the copied
 *   stack and otherwise words of the mapped files (one descriptor per file,
 *   opened on first use), byte-swapped when the recording was of the other
 *   byte order; the [vdso] mapping is read from this process's own vDSO (a
 *   memfd copy), the same image the kernel maps into every process of its
 *   architecture, so a sample in clock_gettime unwinds into its caller;
 * - the walk ends normally when libdw finds the outermost frame (its return
 *   address undefined, or zero), or when it fails in the function holding an
 *   executable's entry point (_start); it stopped early (return 1) when it
 *   needed memory outside the copied stack and the files, when a frame had
 *   no call frame information, or when it looped.
 */
#include "mfstat/measure/unwind.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "unwind_arch.h"

#define MAX_SESSIONS 8
#define NULL_PAGE 4096 /* reads below: a zero frame pointer, the end of a chain, not memory missed */

struct uw_file {
	char *path;
	int fd;     /* for memory_read: -1 not opened yet, -2 could not be opened */
	bool exec;  /* mapped executable somewhere: reported to libdwfl */
	size_t map; /* its first (lowest) mapping */
};

struct uw_map {
	uint64_t start, end, pgoff;
	size_t file; /* index in files, or SIZE_MAX (no file to read) */
};

struct uw_session {
	struct mf_unwind *u;
	uint32_t pid;
	uint64_t maps_gen;
	uint64_t used; /* the unwinder's clock at the last sample (least recently used is dropped) */
	Dwfl *dwfl;
	bool attached; /* a module of the arch's machine was reported and libdwfl attached */
	struct uw_map *maps;
	size_t nmaps; /* sorted by start */
	struct uw_file *files;
	size_t nfiles;

	/* the walk in progress */
	const struct mf_unwind_sample *cur;
	uint64_t sp;
	uint64_t *ips;
	size_t max, n;
	bool read_failed; /* a read outside the copied stack and the files since the last frame */
	bool hit_max, looped;
	uint64_t last_sp;
	bool last_sp_known;
};

struct mf_unwind {
	const struct mf_unwind_arch_desc *arch;
	int vdso_fd; /* a memfd of this process's vDSO: -1 not made yet, -2 none (or of another machine) */
	struct uw_session *sess[MAX_SESSIONS];
	size_t nsess;
	uint64_t clock;
	uint64_t sessions, frames;
};

static uint64_t word_of(const unsigned char *p, bool swap)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap64(v) : v;
}

/* ---- sessions ------------------------------------------------------------- */

static void session_free(struct uw_session *s)
{
	size_t i;
	if (!s)
		return;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	for (i = 0; i < s->nfiles; i++) {
		if (s->files[i].fd >= 0)
			close(s->files[i].fd);
		free(s->files[i].path);
	}
	free(s->files);
	free(s->maps);
	free(s);
}

static int cmp_map_start(const void *a, const void *b)
{
	const struct uw_map *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_idx_path(const void *a, const void *b, void *arg)
{
	const struct mf_unwind_map *maps = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(maps[x].path, maps[y].path);
	return c ? c : (maps[x].start < maps[y].start ? -1 : maps[x].start > maps[y].start);
}

/* The maps of s, sorted by start, each with the index of its file; files deduplicated by path. */
static int session_maps(struct uw_session *ss, const struct mf_unwind_sample *s)
{
	size_t i, nidx = 0, *idx = calloc(s->nmaps ? s->nmaps : 1, sizeof(*idx));
	size_t *file_of = calloc(s->nmaps ? s->nmaps : 1, sizeof(*file_of));
	ss->maps = calloc(s->nmaps ? s->nmaps : 1, sizeof(*ss->maps));
	ss->files = calloc(s->nmaps ? s->nmaps : 1, sizeof(*ss->files));
	if (!idx || !file_of || !ss->maps || !ss->files)
		goto nomem;
	for (i = 0; i < s->nmaps; i++) {
		file_of[i] = SIZE_MAX;
		if (s->maps[i].path && (s->maps[i].path[0] == '/' || strcmp(s->maps[i].path, "[vdso]") == 0) &&
		    s->maps[i].len)
			idx[nidx++] = i;
	}
	/* the distinct paths */
	qsort_r(idx, nidx, sizeof(*idx), cmp_idx_path, (void *)s->maps);
	for (i = 0; i < nidx; i++) {
		const struct mf_unwind_map *m = &s->maps[idx[i]];
		if (i == 0 || strcmp(m->path, s->maps[idx[i - 1]].path) != 0) {
			struct uw_file *f = &ss->files[ss->nfiles++];
			f->path = strdup(m->path);
			if (!f->path)
				goto nomem;
			f->fd = -1;
		}
		file_of[idx[i]] = ss->nfiles - 1;
		if (m->exec)
			ss->files[ss->nfiles - 1].exec = true;
	}
	for (i = 0; i < s->nmaps; i++) {
		const struct mf_unwind_map *m = &s->maps[i];
		if (!m->len || m->start + m->len < m->start)
			continue;
		ss->maps[ss->nmaps] = (struct uw_map){m->start, m->start + m->len, m->pgoff, file_of[i]};
		ss->nmaps++;
	}
	qsort(ss->maps, ss->nmaps, sizeof(*ss->maps), cmp_map_start);
	for (i = 0; i < ss->nfiles; i++)
		ss->files[i].map = SIZE_MAX;
	for (i = ss->nmaps; i-- > 0;)
		if (ss->maps[i].file != SIZE_MAX)
			ss->files[ss->maps[i].file].map = i;
	free(idx);
	free(file_of);
	return 0;
nomem:
	free(idx);
	free(file_of);
	return MF_ENOMEM;
}

/* The map holding [addr, addr + 8), or NULL. */
static const struct uw_map *map_of(const struct uw_session *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nmaps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct uw_map *m = &s->maps[lo - 1];
	return addr < m->end && m->end - addr >= 8 ? m : NULL;
}

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	if (*thread_arg)
		return 0;
	*thread_arg = arg;
	return dwfl_pid(dwfl);
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl;
	(void)tid;
	*thread_arg = arg;
	return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct uw_session *s = arg;
	const struct mf_unwind_sample *cur = s->cur;
	uint64_t size = cur->stack ? cur->stack_size : 0;
	unsigned char b[8];
	(void)dwfl;
	if (addr >= s->sp && addr - s->sp < size && size - (addr - s->sp) >= 8) {
		*result = word_of(cur->stack + (addr - s->sp), cur->other_endian);
		return true;
	}
	const struct uw_map *m = map_of(s, addr);
	if (m && m->file != SIZE_MAX) {
		struct uw_file *f = &s->files[m->file];
		if (f->fd == -1 && f->path[0] != '/')
			f->fd = -2; /* the vDSO's copy is opened with the session, or there is none */
		if (f->fd == -1) {
			f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
			if (f->fd < 0)
				f->fd = -2;
		}
		if (f->fd >= 0 &&
		    pread(f->fd, b, sizeof(b), (off_t)(addr - m->start + m->pgoff)) == (ssize_t)sizeof(b)) {
			*result = word_of(b, cur->other_endian);
			return true;
		}
	}
	if (addr >= NULL_PAGE)
		s->read_failed = true;
	return false;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct uw_session *s = arg;
	const struct mf_unwind_arch_desc *a = s->u->arch;
	const struct mf_unwind_sample *cur = s->cur;
	Dwarf_Word w[MF_UNWIND_MAX_DWARF];
	bool have[MF_UNWIND_MAX_DWARF];
	unsigned i, first;
	uint64_t pc;

	for (i = 0; i < a->ndwarf; i++)
		have[i] = a->perf_of_dwarf[i] >= 0 &&
			  mf_unwind_perf_reg(cur->regs, cur->regs_mask, a->perf_of_dwarf[i], &w[i]);
	/* each run of known registers; the others stay undefined for libdw */
	for (i = 0; i < a->ndwarf;) {
		if (!have[i]) {
			i++;
			continue;
		}
		for (first = i; i < a->ndwarf && have[i]; i++)
			;
		if (!dwfl_thread_state_registers(thread, (int)first, i - first, w + first))
			return false;
	}
	if (a->pc_separate && mf_unwind_perf_reg(cur->regs, cur->regs_mask, a->pub.pc_reg, &pc))
		dwfl_thread_state_register_pc(thread, pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

/* Separate debug files from the local build-id directories only (no debuginfod): .eh_frame is in the file. */
static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_build_id_find_debuginfo,
};

/* Whether fd holds a 64-bit ELF file for machine. */
static bool elf_for(int fd, uint16_t machine)
{
	unsigned char h[EI_NIDENT + 4];
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG) != 0 ||
	    h[EI_CLASS] != ELFCLASS64 || (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB))
		return false;
	/* e_machine follows e_type (2 bytes) after e_ident, in the file's byte order */
	return machine == (h[EI_DATA] == ELFDATA2LSB ? (uint16_t)(h[EI_NIDENT + 2] | h[EI_NIDENT + 3] << 8)
						     : (uint16_t)(h[EI_NIDENT + 2] << 8 | h[EI_NIDENT + 3]));
}

/*
 * A memfd holding this process's vDSO image, or -1.  Its extent is the
 * furthest byte its headers, segments and section headers name.
 */
static int vdso_memfd(void)
{
	const unsigned char *img = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	ElfW(Ehdr) eh;
	size_t size, i, done = 0;
	int fd;
	if (!img)
		return -1;
	memcpy(&eh, img, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_phentsize != sizeof(ElfW(Phdr)))
		return -1;
	size = eh.e_phoff + (size_t)eh.e_phnum * sizeof(ElfW(Phdr));
	if (eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize > size)
		size = eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
	for (i = 0; i < eh.e_phnum; i++) {
		ElfW(Phdr) ph;
		memcpy(&ph, img + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_offset + ph.p_filesz > size)
			size = ph.p_offset + ph.p_filesz;
	}
	if (size > (16u << 20))
		return -1;
	fd = memfd_create("mfstat-unwind-vdso", MFD_CLOEXEC);
	while (fd >= 0 && done < size) {
		ssize_t w = write(fd, img + done, size - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	return fd;
}

/* An fd of file f when it is an ELF file of the unwinder's machine, else -1. */
static int open_elf_for(struct mf_unwind *u, const struct uw_file *f)
{
	uint16_t machine = u->arch->pub.e_machine;
	int fd;
	if (f->path[0] == '[') {
		if (u->vdso_fd == -1) {
			u->vdso_fd = vdso_memfd();
			if (u->vdso_fd < 0 || !elf_for(u->vdso_fd, machine)) {
				if (u->vdso_fd >= 0)
					close(u->vdso_fd);
				u->vdso_fd = -2;
			}
		}
		return u->vdso_fd >= 0 ? fcntl(u->vdso_fd, F_DUPFD_CLOEXEC, 0) : -1;
	}
	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !elf_for(fd, machine)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int session_build(struct mf_unwind *u, const struct mf_unwind_sample *s, struct uw_session **out)
{
	struct uw_session *ss = calloc(1, sizeof(*ss));
	size_t i;
	bool any = false;
	*out = NULL;
	if (!ss)
		return MF_ENOMEM;
	ss->u = u;
	ss->pid = s->pid;
	ss->maps_gen = s->maps_gen;
	if (session_maps(ss, s) != 0)
		goto nomem;
	ss->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!ss->dwfl)
		goto nomem;
	dwfl_report_begin(ss->dwfl);
	for (i = 0; i < ss->nfiles; i++) {
		const struct uw_file *f = &ss->files[i];
		const struct uw_map *m;
		int fd;
		if (!f->exec || f->map == SIZE_MAX)
			continue;
		m = &ss->maps[f->map];
		fd = open_elf_for(u, f);
		if (fd < 0)
			continue;
		/* the vDSO is no file to open by its name: memory_read reads the copy */
		if (f->path[0] == '[') {
			int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
			ss->files[i].fd = copy >= 0 ? copy : -2;
		}
		/* ET_DYN: the load bias; libdwfl ignores it for ET_EXEC.  The fd is libdwfl's on success. */
		if (dwfl_report_elf(ss->dwfl, f->path, f->path, fd, m->start - m->pgoff, false))
			any = true;
		else
			close(fd);
	}
	dwfl_report_end(ss->dwfl, NULL, NULL);
	/* elf NULL: the machine (libdw's backend) is that of a reported module, all of arch's machine */
	ss->attached = any && dwfl_attach_state(ss->dwfl, NULL, (pid_t)s->pid, &thread_callbacks, ss);
	u->sessions++;
	*out = ss;
	return 0;
nomem:
	session_free(ss);
	return MF_ENOMEM;
}

/* The cached session of s's process and maps, built if needed. */
static int session_get(struct mf_unwind *u, const struct mf_unwind_sample *s, struct uw_session **out)
{
	size_t i, slot = u->nsess;
	int rc;
	for (i = 0; i < u->nsess; i++)
		if (u->sess[i]->pid == s->pid) {
			if (u->sess[i]->maps_gen == s->maps_gen) {
				*out = u->sess[i];
				return 0;
			}
			slot = i;
			break;
		}
	if (slot == u->nsess && u->nsess == MAX_SESSIONS) {
		slot = 0;
		for (i = 1; i < u->nsess; i++)
			if (u->sess[i]->used < u->sess[slot]->used)
				slot = i;
	}
	if (slot < u->nsess) {
		session_free(u->sess[slot]);
		u->sess[slot] = u->sess[--u->nsess];
	}
	rc = session_build(u, s, out);
	if (rc == 0)
		u->sess[u->nsess++] = *out;
	return rc;
}

/* ---- walking --------------------------------------------------------------- */

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct uw_session *s = arg;
	Dwarf_Addr pc;
	Dwarf_Word sp = 0;
	bool sp_known;
	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	sp_known = dwfl_frame_reg(state, s->u->arch->dwarf_sp, &sp) == 0;
	/* the same frame again: a loop in the CFI (or a corrupt stack) would never end */
	if (s->n && sp_known && s->last_sp_known && sp == s->last_sp && pc == s->ips[s->n - 1]) {
		s->looped = true;
		return DWARF_CB_ABORT;
	}
	s->ips[s->n++] = pc;
	s->u->frames++;
	s->read_failed = false;
	s->last_sp = sp;
	s->last_sp_known = sp_known;
	if (s->n >= s->max) {
		s->hit_max = true;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

/* The walk failed in the function that holds its module's entry point (_start): the outermost frame. */
static bool at_entry(Dwfl *dwfl, uint64_t pc, bool retaddr)
{
	Dwarf_Addr look = retaddr && pc ? pc - 1 : pc, bias, entry;
	GElf_Off off, eoff;
	GElf_Sym sym, esym;
	GElf_Ehdr eh;
	Dwfl_Module *m = dwfl_addrmodule(dwfl, look);
	Elf *elf = m ? dwfl_module_getelf(m, &bias) : NULL;
	const char *name, *ename;
	if (!elf || !gelf_getehdr(elf, &eh) || !eh.e_entry)
		return false;
	entry = eh.e_entry + bias;
	name = dwfl_module_addrinfo(m, look, &off, &sym, NULL, NULL, NULL);
	ename = dwfl_module_addrinfo(m, entry, &eoff, &esym, NULL, NULL, NULL);
	return name && ename && look - off == entry - eoff;
}

int mf_unwind_sample(struct mf_unwind *u, const struct mf_unwind_sample *s, uint64_t *ips, size_t max, size_t *n)
{
	const struct mf_unwind_arch_desc *a = u->arch;
	struct uw_session *ss;
	uint64_t pc, sp;
	int rc;

	*n = 0;
	if (max == 0)
		return 0;
	if (s->abi == 0 || !s->regs || !mf_unwind_perf_reg(s->regs, s->regs_mask, a->pub.pc_reg, &pc))
		return 1; /* no user registers: nothing to unwind from */
	ips[(*n)++] = pc;
	/* 2 is PERF_SAMPLE_REGS_ABI_64: a 32-bit (compat) task's registers are another set, not unwound */
	if (s->abi != 2 || !mf_unwind_perf_reg(s->regs, s->regs_mask, a->pub.sp_reg, &sp) || !s->maps || !s->nmaps)
		return 1;
	rc = session_get(u, s, &ss);
	if (rc != 0)
		return rc;
	ss->used = ++u->clock;
	if (!ss->attached)
		return 1;
	*n = 0;
	ss->cur = s;
	ss->sp = sp;
	ss->ips = ips;
	ss->max = max;
	ss->n = 0;
	ss->read_failed = ss->hit_max = ss->looped = ss->last_sp_known = false;
	rc = dwfl_getthread_frames(ss->dwfl, (pid_t)s->pid, frame_cb, ss);
	*n = ss->n;
	ss->cur = NULL;
	ss->ips = NULL;
	if (ss->n == 0) {
		ips[0] = pc;
		*n = 1;
		return 1;
	}
	if (ss->hit_max)
		return 0;
	if (ss->looped || ss->read_failed)
		return 1;
	if (rc == 0)
		return 0;
	return at_entry(ss->dwfl, ips[ss->n - 1], ss->n > 1) ? 0 : 1;
}

int mf_unwind_new(struct mf_unwind **out, const struct mf_unwind_arch *arch, struct mf_error *err)
{
	struct mf_unwind *u;
	const struct mf_unwind_arch_desc *a = arch ? mf_unwind_arch_desc(arch) : NULL;
	*out = NULL;
	if (!a)
		return mf_error_set(err, MF_EINVAL, NULL, 0, 0, "unwinding: not an architecture of the table");
	u = calloc(1, sizeof(*u));
	if (!u)
		return mf_error_nomem(err, NULL, 0, "creating the unwinder");
	u->arch = a;
	u->vdso_fd = -1;
	*out = u;
	return 0;
}

void mf_unwind_counts(const struct mf_unwind *u, uint64_t *sessions, uint64_t *frames)
{
	if (sessions)
		*sessions = u ? u->sessions : 0;
	if (frames)
		*frames = u ? u->frames : 0;
}

void mf_unwind_free(struct mf_unwind *u)
{
	size_t i;
	if (!u)
		return;
	for (i = 0; i < u->nsess; i++)
		session_free(u->sess[i]);
	if (u->vdso_fd >= 0)
		close(u->vdso_fd);
	free(u);
}
