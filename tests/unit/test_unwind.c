/* SPDX-License-Identifier: MIT */
/*
 * The DWARF unwinder (unwind.c, unwind_arch.c): the architecture table; live
 * x86-64 chains captured by this process from a signal handler (its own
 * registers and a copy of its stack, as PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER would hold them) through a known chain built with
 * and without frame pointers (unwind_chain.c), named with libdwfl's symbol
 * look-up; samples in the vDSO; recorded s390x (big-endian) and aarch64
 * samples (tests/data/unwind/) unwound here with libdw's s390 and aarch64
 * backends; chains cut short, hostile samples, and the work bound (sessions
 * reused per process and maps generation).
 */
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>

#include "testutil.h"

#include "mfstat/measure/unwind.h"
#include "measure/unwind_arch.h"

void uw_fp_top(uint64_t spins, void (*hook)(void));
void uw_nofp_top(uint64_t spins, void (*hook)(void));

#define X86_NREGS 20 /* popcount of the x86-64 mask */
#define MAXF 256

/* ---- maps ----------------------------------------------------------------- */

struct maps {
	struct mf_unwind_map *m;
	size_t n;
	uint64_t stack_top; /* end of [stack] */
};

/* Reads a /proc/PID/maps text; a path whose basename is rename_base becomes rename_to. */
static void maps_load(struct maps *mp, const char *file, const char *rename_base, const char *rename_to)
{
	FILE *f = fopen(file, "r");
	char line[4400];
	size_t cap = 0;
	memset(mp, 0, sizeof(*mp));
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perm[8];
		int pos = 0;
		char *path;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &s, &e, perm, &off, &pos) < 4 || pos == 0)
			continue;
		path = line + pos;
		path += strspn(path, " ");
		path[strcspn(path, "\n")] = 0;
		if (strcmp(path, "[stack]") == 0)
			mp->stack_top = e;
		if (mp->n == cap) {
			cap = cap ? 2 * cap : 64;
			mp->m = realloc(mp->m, cap * sizeof(*mp->m));
			assert_non_null(mp->m);
		}
		if (rename_base && strrchr(path, '/') && strcmp(strrchr(path, '/') + 1, rename_base) == 0)
			path = (char *)rename_to;
		mp->m[mp->n++] = (struct mf_unwind_map){.start = s,
							.len = e - s,
							.pgoff = off,
							.path = *path ? strdup(path) : NULL,
							.exec = perm[2] == 'x'};
	}
	fclose(f);
}

static void maps_free(struct maps *mp)
{
	for (size_t i = 0; i < mp->n; i++)
		free((char *)mp->m[i].path);
	free(mp->m);
}

/* ---- names ---------------------------------------------------------------- */

/* The function of each frame (frame 0 exact, the others return addresses: named by the byte before). */
static void names_of(Dwfl *dwfl, const uint64_t *ips, size_t n, const char **names)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t a = i ? ips[i] - 1 : ips[i];
		Dwfl_Module *m = dwfl_addrmodule(dwfl, a);
		const char *s = m ? dwfl_module_addrname(m, a) : NULL;
		names[i] = s ? s : "?";
	}
}

static void print_chain(const char *what, const char **names, size_t n)
{
	fprintf(stderr, "%s:", what);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " %s", names[i]);
	fprintf(stderr, "\n");
}

static char *debuginfo_path;
static const Dwfl_Callbacks self_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_build_id_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_build_id_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static Dwfl *self_dwfl(void)
{
	Dwfl *d = dwfl_begin(&self_callbacks);
	assert_non_null(d);
	assert_int_equal(dwfl_linux_proc_report(d, getpid()), 0);
	assert_int_equal(dwfl_report_end(d, NULL, NULL), 0);
	return d;
}

/* ---- the table ------------------------------------------------------------ */

static void test_table(void **state)
{
	const struct mf_unwind_arch *x = mf_unwind_arch_by_name("x86_64"), *z = mf_unwind_arch_by_name("s390x");
	const struct mf_unwind_arch *a = mf_unwind_arch_by_name("aarch64");
	const struct mf_unwind_arch_desc *d;
	uint64_t regs[3] = {10, 20, 30}, v = 0;
	(void)state;
	assert_non_null(x);
	assert_non_null(z);
	assert_non_null(a);
	assert_null(mf_unwind_arch_by_name("i686"));
	assert_null(mf_unwind_arch_by_name(NULL));
	assert_ptr_equal(mf_unwind_arch_by_elf(EM_X86_64), x);
	assert_ptr_equal(mf_unwind_arch_by_elf(EM_S390), z);
	assert_ptr_equal(mf_unwind_arch_by_elf(EM_AARCH64), a);
	assert_null(mf_unwind_arch_by_elf(EM_386));

	/* x86-64: AX..SS and R8..R15, never DS/ES/FS/GS (the kernel refuses them: EINVAL) */
	assert_int_equal(x->regs_mask, 0xff0fffULL);
	assert_int_equal(x->regs_mask & 0xf000ULL, 0);
	assert_int_equal(__builtin_popcountll(x->regs_mask), X86_NREGS);
	assert_int_equal(x->sp_reg, 7);
	assert_int_equal(x->pc_reg, 8);
	d = mf_unwind_arch_desc(x);
	assert_int_equal(d->ndwarf, 17);
	assert_int_equal(d->dwarf_sp, 7);
	assert_false(d->pc_separate);
	{ /* DWARF rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
		static const int want[17] = {0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8};
		for (int i = 0; i < 17; i++)
			assert_int_equal(d->perf_of_dwarf[i], want[i]);
	}

	/* s390x: r0..r15, the FPRs in ELF-ABI order, the pc (PSW address) apart */
	assert_int_equal(z->regs_mask, (1ULL << 34) - 1);
	assert_int_equal(z->sp_reg, 15);
	assert_int_equal(z->pc_reg, 33);
	d = mf_unwind_arch_desc(z);
	assert_int_equal(d->ndwarf, 32);
	assert_int_equal(d->dwarf_sp, 15);
	assert_true(d->pc_separate);
	{
		static const int fpr[16] = {0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15};
		for (int i = 0; i < 16; i++) {
			assert_int_equal(d->perf_of_dwarf[i], i);
			assert_int_equal(d->perf_of_dwarf[16 + i], 16 + fpr[i]);
		}
	}

	/* aarch64: x0..x30 and sp in perf's order, the pc (32) apart */
	assert_int_equal(a->regs_mask, (1ULL << 33) - 1);
	assert_int_equal(a->sp_reg, 31);
	assert_int_equal(a->pc_reg, 32);
	d = mf_unwind_arch_desc(a);
	assert_int_equal(d->ndwarf, 32);
	assert_int_equal(d->dwarf_sp, 31);
	assert_true(d->pc_separate);
	for (int i = 0; i < 32; i++)
		assert_int_equal(d->perf_of_dwarf[i], i);

	/* a register's value from the compact array of a mask */
	assert_true(mf_unwind_perf_reg(regs, 0x15, 0, &v));
	assert_int_equal(v, 10);
	assert_true(mf_unwind_perf_reg(regs, 0x15, 2, &v));
	assert_int_equal(v, 20);
	assert_true(mf_unwind_perf_reg(regs, 0x15, 4, &v));
	assert_int_equal(v, 30);
	assert_false(mf_unwind_perf_reg(regs, 0x15, 1, &v));
	assert_false(mf_unwind_perf_reg(regs, 0x15, 64, &v));
	assert_false(mf_unwind_perf_reg(regs, 0x15, -1, &v));
	assert_false(mf_unwind_perf_reg(NULL, 0x15, 0, &v));

	struct mf_unwind *u = NULL;
	struct mf_error err;
	assert_int_equal(mf_unwind_new(&u, NULL, &err), MF_EINVAL);
	assert_null(u);
}

/* ---- live x86-64 snapshots -------------------------------------------------- */

#if defined(__x86_64__)

#define NTIMER 40
#define TIMER_STACK 16384
#define FULL_STACK (256 * 1024)

struct snap {
	uint64_t regs[X86_NREGS];
	uint64_t size;
	unsigned char *stack;
	size_t cap;
};

static struct snap timer_snaps[NTIMER];
static struct snap full_snap;
static struct snap *volatile target; /* where the next signal writes, or NULL */
static volatile int ntaken;
static volatile int timer_on;
static uint64_t stack_top;

__attribute__((no_sanitize_address)) static void copy_stack(struct snap *s, uint64_t sp)
{
	uint64_t n = stack_top > sp ? stack_top - sp : 0, i;
	if (n > s->cap)
		n = s->cap;
	for (i = 0; i + 8 <= n; i += 8) /* word loads the sanitizers leave alone: the stack has redzones */
		*(uint64_t *)(s->stack + i) = *(const volatile uint64_t *)(sp + i);
	s->size = i;
}

static void on_signal(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	const greg_t *g = uc->uc_mcontext.gregs;
	struct snap *s;
	(void)si;
	if (sig == SIGPROF) {
		if (!timer_on || ntaken >= NTIMER)
			return;
		s = &timer_snaps[ntaken];
	} else {
		s = target;
		if (!s)
			return;
	}
	/* perf's order for mask 0xff0fff: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8..R15 */
	const int from[X86_NREGS] = {REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI, REG_RBP,
				     REG_RSP, REG_RIP, REG_EFL, -1,      -1,      REG_R8,  REG_R9,
				     REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
	for (int i = 0; i < X86_NREGS; i++)
		s->regs[i] = from[i] >= 0 ? (uint64_t)g[from[i]] : 0;
	copy_stack(s, (uint64_t)g[REG_RSP]);
	if (sig == SIGPROF)
		ntaken++;
	else
		target = NULL;
}

static void hook_raise(void)
{
	raise(SIGUSR1);
	__asm__ volatile("" ::: "memory");
}

/*
 * The callers of the chains: their names end the expected chains.  GCC's
 * interprocedural passes must leave them alone: at -O2 a Release build made
 * drive_fp.constprop.0 of the vDSO case's call (noipa; clang clones no
 * static function under another name).
 */
#if defined(__clang__)
#define DRIVER __attribute__((noinline))
#else
#define DRIVER __attribute__((noinline, noipa))
#endif
DRIVER static void drive_fp(uint64_t spins, void (*hook)(void))
{
	uw_fp_top(spins, hook);
	__asm__ volatile("" ::: "memory");
}

DRIVER static void drive_nofp(uint64_t spins, void (*hook)(void))
{
	uw_nofp_top(spins, hook);
	__asm__ volatile("" ::: "memory");
}

static struct maps self_maps;

static int live_setup(void **state)
{
	struct sigaction sa;
	(void)state;
	maps_load(&self_maps, "/proc/self/maps", NULL, NULL);
	stack_top = self_maps.stack_top;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < NTIMER; i++) {
		timer_snaps[i].cap = TIMER_STACK;
		timer_snaps[i].stack = malloc(TIMER_STACK);
	}
	full_snap.cap = FULL_STACK;
	full_snap.stack = malloc(FULL_STACK);
	return stack_top ? 0 : -1;
}

static int live_teardown(void **state)
{
	(void)state;
	for (int i = 0; i < NTIMER; i++)
		free(timer_snaps[i].stack);
	free(full_snap.stack);
	maps_free(&self_maps);
	return 0;
}

static struct mf_unwind_sample live_sample(const struct snap *s, uint64_t gen)
{
	return (struct mf_unwind_sample){.pid = (uint32_t)getpid(),
					 .tid = (uint32_t)getpid(),
					 .abi = 2,
					 .regs = s->regs,
					 .regs_mask = 0xff0fffULL,
					 .stack = s->stack,
					 .stack_size = s->size,
					 .maps = self_maps.m,
					 .nmaps = self_maps.n,
					 .maps_gen = gen};
}

static struct mf_unwind *x86_unwinder(void)
{
	struct mf_unwind *u = NULL;
	struct mf_error err;
	assert_int_equal(mf_unwind_new(&u, mf_unwind_arch_by_name("x86_64"), &err), 0);
	assert_non_null(u);
	return u;
}

/* Index of the run want[0..nwant) in names, or -1. */
static long find_run(const char **names, size_t n, const char *const *want, size_t nwant)
{
	for (size_t i = 0; i + nwant <= n; i++) {
		size_t k = 0;
		while (k < nwant && strcmp(names[i + k], want[k]) == 0)
			k++;
		if (k == nwant)
			return (long)i;
	}
	return -1;
}

/* A snapshot at a known depth (raise in the leaf's hook), unwound through libc's CFI to _start. */
static void raise_case(const char *variant, void (*drive)(uint64_t, void (*)(void)))
{
	char leaf[32], mid[32], top[32], drv[32];
	snprintf(leaf, sizeof(leaf), "uw_%s_leaf", variant);
	snprintf(mid, sizeof(mid), "uw_%s_mid", variant);
	snprintf(top, sizeof(top), "uw_%s_top", variant);
	snprintf(drv, sizeof(drv), "drive_%s", variant);
	const char *want[] = {"hook_raise", leaf, mid, top, drv};
	uint64_t ips[MAXF], sessions, frames;
	const char *names[MAXF];
	size_t n = 0;
	struct mf_unwind *u = x86_unwinder();
	Dwfl *d = self_dwfl();

	target = &full_snap;
	drive(1000, hook_raise);
	assert_null(target);
	struct mf_unwind_sample s = live_sample(&full_snap, 1);
	int rc = mf_unwind_sample(u, &s, ips, MAXF, &n);
	names_of(d, ips, n, names);
	print_chain(variant, names, n);
	assert_int_equal(ips[0], full_snap.regs[8]);
	assert_true(find_run(names, n, want, 5) >= 0);
	/* the whole stack was copied: the walk ends at _start, the outermost frame */
	assert_int_equal(rc, 0);
	assert_string_equal(names[n - 1], "_start");
	mf_unwind_counts(u, &sessions, &frames);
	assert_int_equal(sessions, 1);
	assert_int_equal(frames, n);

	/* the same stack cut short inside the chain: stops early (1), the frames found a prefix */
	size_t full = n;
	const char *full_names[MAXF];
	memcpy(full_names, names, sizeof(names[0]) * n);
	s.stack_size = 64;
	rc = mf_unwind_sample(u, &s, ips, MAXF, &n);
	names_of(d, ips, n, names);
	print_chain("cut", names, n);
	assert_int_equal(rc, 1);
	assert_true(n >= 1 && n < full);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(names[i], full_names[i]);
	/* no stack at all: the first frame, maybe its caller from a register, then stop */
	s.stack = NULL;
	s.stack_size = 1 << 20; /* ignored without a buffer */
	rc = mf_unwind_sample(u, &s, ips, MAXF, &n);
	assert_int_equal(rc, 1);
	assert_true(n >= 1 && n < full);
	/* at most max frames: a complete walk as far as asked */
	s = live_sample(&full_snap, 1);
	rc = mf_unwind_sample(u, &s, ips, 3, &n);
	assert_int_equal(rc, 0);
	assert_int_equal(n, 3);
	rc = mf_unwind_sample(u, &s, ips, 0, &n);
	assert_int_equal(rc, 0);
	assert_int_equal(n, 0);
	mf_unwind_counts(u, &sessions, NULL);
	assert_int_equal(sessions, 1);
	dwfl_end(d);
	mf_unwind_free(u);
}

static void test_live_raise_fp(void **state)
{
	(void)state;
	raise_case("fp", drive_fp);
}

static void test_live_raise_nofp(void **state)
{
	(void)state;
	raise_case("nofp", drive_nofp);
}

/* Snapshots at whatever instruction the profiling timer hit (prologues and epilogues too). */
static void timer_case(const char *variant, void (*drive)(uint64_t, void (*)(void)))
{
	char leaf[32], mid[32], top[32], drv[32];
	snprintf(leaf, sizeof(leaf), "uw_%s_leaf", variant);
	snprintf(mid, sizeof(mid), "uw_%s_mid", variant);
	snprintf(top, sizeof(top), "uw_%s_top", variant);
	snprintf(drv, sizeof(drv), "drive_%s", variant);
	const char *chain[] = {leaf, mid, top, drv};
	struct itimerval on = {{0, 1000}, {0, 1000}}, off = {{0, 0}, {0, 0}};
	uint64_t ips[MAXF], sessions, frames, total = 0;
	const char *names[MAXF];
	struct mf_unwind *u = x86_unwinder();
	Dwfl *d = self_dwfl();
	long rounds;
	int in_chain = 0;

	ntaken = 0;
	timer_on = 1;
	setitimer(ITIMER_PROF, &on, NULL);
	/* bounded by work, not time: 20000 rounds of 20000 spins is tens of seconds of CPU at most */
	for (rounds = 0; ntaken < NTIMER && rounds < 20000; rounds++)
		drive(20000, NULL);
	setitimer(ITIMER_PROF, &off, NULL);
	timer_on = 0;
	assert_int_equal(ntaken, NTIMER);
	for (int k = 0; k < NTIMER; k++) {
		struct mf_unwind_sample s = live_sample(&timer_snaps[k], 7);
		size_t n = 0, at;
		int rc = mf_unwind_sample(u, &s, ips, MAXF, &n);
		assert_true(rc == 0 || rc == 1);
		assert_true(n >= 1);
		total += n;
		names_of(d, ips, n, names);
		/* a sample in one of the chain's functions: exactly its callers up to the driver follow */
		for (at = 0; at < 4 && strcmp(names[0], chain[at]) != 0; at++)
			;
		if (at == 4)
			continue; /* the timer hit this loop (or the signal return) between two calls */
		in_chain++;
		if (n < 4 - at || find_run(names, 4 - at, chain + at, 4 - at) != 0)
			print_chain("timer sample", names, n);
		assert_true(n >= 4 - at);
		assert_int_equal(find_run(names, 4 - at, chain + at, 4 - at), 0);
	}
	/* the chain takes nearly all the CPU time: most samples are in it */
	assert_true(in_chain >= NTIMER / 2);
	/* one process, one generation of its maps: one session for all the samples */
	mf_unwind_counts(u, &sessions, &frames);
	assert_int_equal(sessions, 1);
	assert_int_equal(frames, total);
	dwfl_end(d);
	mf_unwind_free(u);
}

static void test_live_timer_fp(void **state)
{
	(void)state;
	timer_case("fp", drive_fp);
}

static void test_live_timer_nofp(void **state)
{
	(void)state;
	timer_case("nofp", drive_nofp);
}

static void hook_vdso(void)
{
	struct timespec ts;
	for (int i = 0; i < 20000; i++)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	__asm__ volatile("" ::: "memory");
}

/* Samples in the vDSO (clock_gettime): unwound with this process's copy of it, into their callers. */
static void test_live_vdso(void **state)
{
	const char *want[] = {"hook_vdso", "uw_fp_leaf", "uw_fp_mid", "uw_fp_top", "drive_fp"};
	struct itimerval on = {{0, 1000}, {0, 1000}}, off = {{0, 0}, {0, 0}};
	uint64_t ips[MAXF], vlo = 0, vhi = 0;
	const char *names[MAXF];
	struct mf_unwind *u = x86_unwinder();
	Dwfl *d = self_dwfl();
	int in_vdso = 0;
	long rounds;
	(void)state;
	for (size_t i = 0; i < self_maps.n; i++)
		if (self_maps.m[i].path && strcmp(self_maps.m[i].path, "[vdso]") == 0) {
			vlo = self_maps.m[i].start;
			vhi = vlo + self_maps.m[i].len;
		}
	if (!vlo)
		skip();
	ntaken = 0;
	timer_on = 1;
	setitimer(ITIMER_PROF, &on, NULL);
	for (rounds = 0; ntaken < NTIMER && rounds < 100000; rounds++)
		drive_fp(0, hook_vdso);
	setitimer(ITIMER_PROF, &off, NULL);
	timer_on = 0;
	assert_int_equal(ntaken, NTIMER);
	for (int k = 0; k < NTIMER; k++) {
		struct mf_unwind_sample s = live_sample(&timer_snaps[k], 1);
		size_t n = 0;
		int rc = mf_unwind_sample(u, &s, ips, MAXF, &n);
		if (ips[0] < vlo || ips[0] >= vhi)
			continue;
		in_vdso++;
		names_of(d, ips, n, names);
		if (find_run(names, n, want, 5) < 0)
			print_chain("vdso sample", names, n);
		assert_true(rc == 0 || rc == 1);
		assert_true(find_run(names, n, want, 5) > 0);
	}
	fprintf(stderr, "%d of %d samples in the vDSO\n", in_vdso, NTIMER);
	assert_true(in_vdso > 0);
	dwfl_end(d);
	mf_unwind_free(u);
}

/* Sessions: reused per (pid, maps_gen), rebuilt when the generation changes, one per process. */
static void test_sessions(void **state)
{
	struct mf_unwind *u = x86_unwinder();
	uint64_t ips[MAXF], sessions, frames;
	size_t n;
	(void)state;
	target = &full_snap;
	drive_nofp(10, hook_raise);
	struct mf_unwind_sample s = live_sample(&full_snap, 1);
	for (int i = 0; i < 100; i++)
		assert_int_equal(mf_unwind_sample(u, &s, ips, MAXF, &n), 0);
	mf_unwind_counts(u, &sessions, &frames);
	assert_int_equal(sessions, 1);
	assert_int_equal(frames, 100 * n);
	s.maps_gen = 2;
	assert_int_equal(mf_unwind_sample(u, &s, ips, MAXF, &n), 0);
	s.maps_gen = 2;
	assert_int_equal(mf_unwind_sample(u, &s, ips, MAXF, &n), 0);
	mf_unwind_counts(u, &sessions, NULL);
	assert_int_equal(sessions, 2);
	/* 20 processes (pids) taking turns: more than the cache holds, each rebuilt when it comes back */
	for (int round = 0; round < 2; round++)
		for (uint32_t p = 0; p < 20; p++) {
			s.pid = 100000 + p;
			assert_int_equal(mf_unwind_sample(u, &s, ips, MAXF, &n), 0);
		}
	mf_unwind_counts(u, &sessions, NULL);
	assert_int_equal(sessions, 2 + 40);
	mf_unwind_free(u);
}

/* Samples the unwinder cannot follow: it says so (1) and never reads past what it was given. */
static void test_hostile(void **state)
{
	struct mf_unwind *u = x86_unwinder();
	uint64_t ips[MAXF], sessions;
	size_t n = 99;
	(void)state;
	target = &full_snap;
	drive_fp(10, hook_raise);
	struct mf_unwind_sample s = live_sample(&full_snap, 1);
	const uint64_t pc = full_snap.regs[8];

	/* abi NONE (a kernel thread): no registers, nothing */
	s.abi = 0;
	assert_int_equal(mf_unwind_sample(u, &s, ips, MAXF, &n), 1);
	assert_int_equal(n, 0);
	/* a 32-bit (compat) task: the pc only, unsupported rather than guessed */
	s.abi = 1;
	assert_int_equal(mf_unwind_sample(u, &s, ips, MAXF, &n), 1);
	assert_int_equal(n, 1);
	assert_int_equal(ips[0], pc);
	s.abi = 7;
	assert_int_equal(mf_unwind_sample(u, &s, ips, MAXF, &n), 1);
	assert_int_equal(n, 1);
	s.abi = 2;
	/* no registers array */
	s.regs = NULL;
	assert_int_equal(mf_unwind_sample(u, &s, ips, MAXF, &n), 1);
	assert_int_equal(n, 0);
	s.regs = full_snap.regs;
	/* no maps: the pc only */
	s.nmaps = 0;
	assert_int_equal(mf_unwind_sample(u, &s, ips, MAXF, &n), 1);
	assert_int_equal(n, 1);
	s.maps = NULL;
	s.nmaps = 5;
	assert_int_equal(mf_unwind_sample(u, &s, ips, MAXF, &n), 1);
	assert_int_equal(n, 1);
	s = live_sample(&full_snap, 1);
	/* a mask without the pc (the values of the others only): nothing to start from */
	s.regs_mask = 0xff0fffULL & ~(1ULL << 8);
	assert_int_equal(mf_unwind_sample(u, &s, ips, MAXF, &n), 1);
	assert_int_equal(n, 0);
	/* a mask without the stack pointer: the pc only */
	uint64_t nosp[X86_NREGS];
	memcpy(nosp, full_snap.regs, 7 * sizeof(uint64_t));
	memcpy(nosp + 7, full_snap.regs + 8, (X86_NREGS - 8) * sizeof(uint64_t));
	s.regs = nosp;
	s.regs_mask = 0xff0fffULL & ~(1ULL << 7);
	assert_int_equal(mf_unwind_sample(u, &s, ips, MAXF, &n), 1);
	assert_int_equal(n, 1);
	assert_int_equal(ips[0], pc);
	/* fewer registers than the arch asks for (AX..IP, 9 values): what they allow, no more */
	s.regs = full_snap.regs;
	s.regs_mask = 0x1ffULL;
	int rc = mf_unwind_sample(u, &s, ips, MAXF, &n);
	assert_true(rc == 0 || rc == 1);
	assert_true(n >= 1);
	assert_int_equal(ips[0], pc);
	mf_unwind_counts(u, &sessions, NULL);
	assert_int_equal(sessions, 1);

	/* maps of nonsense: empty, wrapping, no path, not ELF, ELF of another machine, missing */
	char s390prog[4200];
	snprintf(s390prog, sizeof(s390prog), "%s/tests/data/unwind/s390x/prog", MFSTAT_SOURCE_DIR);
	struct mf_unwind_map bad[] = {
		{.start = 0x1000, .len = 0, .path = "/etc/passwd", .exec = true},
		{.start = UINT64_MAX - 10, .len = 100, .path = "/etc/passwd", .exec = true},
		{.start = 0x10000, .len = 0x1000, .path = NULL, .exec = true},
		{.start = 0x20000, .len = 0x1000, .path = "/etc/passwd", .exec = true},
		{.start = 0x30000, .len = 0x1000, .path = s390prog, .exec = true},
		{.start = 0x40000, .len = 0x1000, .path = "/nonexistent/mfstat/lib.so", .exec = true},
		{.start = 0x50000, .len = 0x1000, .path = "[heap]", .exec = true},
		{.start = 0x60000, .len = 0x1000, .path = "[vdso]", .exec = true},
	};
	s = live_sample(&full_snap, 1);
	s.pid = 4242;
	s.maps = bad;
	s.nmaps = sizeof(bad) / sizeof(bad[0]) - 1;
	/* no module to unwind with: the pc only */
	assert_int_equal(mf_unwind_sample(u, &s, ips, MAXF, &n), 1);
	assert_int_equal(n, 1);
	assert_int_equal(ips[0], pc);
	/* with the vDSO (not where the pc is): libdw's frame-pointer fallback at most, then stopped early */
	s.nmaps++;
	s.maps_gen++;
	assert_int_equal(mf_unwind_sample(u, &s, ips, MAXF, &n), 1);
	assert_true(n >= 1);
	assert_int_equal(ips[0], pc);
	mf_unwind_free(u);
}

#else /* the live cases capture x86-64 registers: skipped elsewhere */
static int live_setup(void **state)
{
	(void)state;
	return 0;
}
static int live_teardown(void **state)
{
	(void)state;
	return 0;
}
#define SKIP_ON_OTHER_HOSTS(name)                                                                                      \
	static void name(void **state)                                                                                 \
	{                                                                                                              \
		(void)state;                                                                                           \
		skip();                                                                                                \
	}
SKIP_ON_OTHER_HOSTS(test_live_raise_fp)
SKIP_ON_OTHER_HOSTS(test_live_raise_nofp)
SKIP_ON_OTHER_HOSTS(test_live_timer_fp)
SKIP_ON_OTHER_HOSTS(test_live_timer_nofp)
SKIP_ON_OTHER_HOSTS(test_live_vdso)
SKIP_ON_OTHER_HOSTS(test_sessions)
SKIP_ON_OTHER_HOSTS(test_hostile)
static struct mf_unwind *x86_unwinder(void)
{
	struct mf_unwind *u = NULL;
	struct mf_error err;
	assert_int_equal(mf_unwind_new(&u, mf_unwind_arch_by_name("x86_64"), &err), 0);
	return u;
}
#endif

/* ---- recorded s390x and aarch64 samples ------------------------------------- */

/*
 * A fixture of tests/data/unwind/ARCH: snapshots.bin holds records of u64
 * numbers in the recording machine's byte order (the caller, nvals register
 * values, n) and n bytes of stack; maps.txt the guest's maps; expected.txt
 * the chain of each.
 */
struct fixture {
	const char *arch;
	bool big_endian;
	unsigned nvals; /* register values in a record */
	uint64_t mask;  /* their perf registers, once in perf order */
	bool pc_first;  /* s390x's records hold the pc first, perf order puts it last (33) */
	unsigned nsnap; /* snapshots in the file */
};

struct rsnap {
	uint64_t caller, regs[40];
	const unsigned char *stack;
	uint64_t size;
};

static uint64_t u64_of(const unsigned char *p, bool big)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = big ? v << 8 | p[i] : v | (uint64_t)p[i] << (8 * i);
	return v;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	buf[n] = 0;
	*len = (size_t)n;
	return buf;
}

static void recorded_case(const struct fixture *fx)
{
	char dir[4200], path[4400], prog[4400];
	size_t len, at = 0, nsnap = 0, elen, rec = 8 * (2 + (size_t)fx->nvals);
	struct rsnap snaps[32];
	struct maps mp;
	struct mf_unwind *u = NULL;
	struct mf_error err;
	uint64_t ips[MAXF], sessions, frames, total = 0, pc;
	const char *names[MAXF];
	const struct mf_unwind_arch *arch = mf_unwind_arch_by_name(fx->arch);
	bool host_big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

	assert_non_null(arch);
	assert_int_equal(__builtin_popcountll(fx->mask), fx->nvals);
	snprintf(dir, sizeof(dir), "%s/tests/data/unwind/%s", MFSTAT_SOURCE_DIR, fx->arch);
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	snprintf(path, sizeof(path), "%s/snapshots.bin", dir);
	unsigned char *data = slurp(path, &len);
	while (at + rec <= len && nsnap < 32) {
		struct rsnap *z = &snaps[nsnap++];
		z->caller = u64_of(data + at, fx->big_endian);
		for (unsigned i = 0; i < fx->nvals; i++) {
			unsigned to = fx->pc_first ? (i == 0 ? fx->nvals - 1 : i - 1) : i;
			z->regs[to] = u64_of(data + at + 8 + 8 * i, fx->big_endian);
		}
		z->size = u64_of(data + at + rec - 8, fx->big_endian);
		z->stack = data + at + rec;
		assert_true(z->size <= len - at - rec);
		at += rec + z->size;
	}
	assert_int_equal(at, len);
	assert_int_equal(nsnap, fx->nsnap);
	snprintf(path, sizeof(path), "%s/maps.txt", dir);
	maps_load(&mp, path, "prog", prog);
	snprintf(path, sizeof(path), "%s/expected.txt", dir);
	char *expected = (char *)slurp(path, &elen), *line, *save = NULL;

	Dwfl *d = dwfl_begin(&offline_callbacks);
	assert_non_null(d);
	assert_non_null(dwfl_report_offline(d, "prog", prog, -1));
	assert_int_equal(dwfl_report_end(d, NULL, NULL), 0);

	assert_int_equal(mf_unwind_new(&u, arch, &err), 0);
	line = strtok_r(expected, "\n", &save);
	for (size_t k = 0; k < nsnap; k++, line = strtok_r(NULL, "\n", &save)) {
		struct mf_unwind_sample s = {.pid = 1,
					     .tid = 1,
					     .abi = 2,
					     .regs = snaps[k].regs,
					     .regs_mask = fx->mask,
					     .stack = snaps[k].stack,
					     .stack_size = snaps[k].size,
					     .other_endian = fx->big_endian != host_big,
					     .maps = mp.m,
					     .nmaps = mp.n,
					     .maps_gen = 1};
		size_t n = 0;
		char got[1024] = "";
		assert_non_null(line);
		int rc = mf_unwind_sample(u, &s, ips, MAXF, &n);
		names_of(d, ips, n, names);
		for (size_t i = 0; i < n; i++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? " " : "", names[i]);
		assert_string_equal(got, line);
		assert_int_equal(rc, 0);
		assert_true(mf_unwind_perf_reg(snaps[k].regs, fx->mask, arch->pc_reg, &pc));
		assert_int_equal(ips[0], pc);
		total += n;

		/* cut inside the chain: the frames found, then "stopped early" */
		if (k == 0) {
			s.stack_size = 16;
			rc = mf_unwind_sample(u, &s, ips, MAXF, &n);
			names_of(d, ips, n, names);
			print_chain("cut", names, n);
			assert_int_equal(rc, 1);
			assert_true(n >= 1 && n < 5);
			assert_string_equal(names[0], "spin");
			total += n;
		}
	}
	mf_unwind_counts(u, &sessions, &frames);
	assert_int_equal(sessions, 1);
	assert_int_equal(frames, total);
	/* the same samples with the x86-64 unwinder: the file is not of its machine, nothing reported */
	mf_unwind_free(u);
	u = x86_unwinder();
	{
		uint64_t regs20[X86_NREGS] = {0}, sp;
		assert_true(mf_unwind_perf_reg(snaps[0].regs, fx->mask, arch->sp_reg, &sp));
		assert_true(mf_unwind_perf_reg(snaps[0].regs, fx->mask, arch->pc_reg, &pc));
		regs20[7] = sp;
		regs20[8] = pc;
		struct mf_unwind_sample s = {.pid = 1,
					     .abi = 2,
					     .regs = regs20,
					     .regs_mask = 0xff0fffULL,
					     .stack = snaps[0].stack,
					     .stack_size = snaps[0].size,
					     .maps = mp.m,
					     .nmaps = mp.n,
					     .maps_gen = 1};
		size_t n = 0;
		assert_int_equal(mf_unwind_sample(u, &s, ips, MAXF, &n), 1);
		assert_int_equal(n, 1);
	}
	mf_unwind_free(u);
	dwfl_end(d);
	free(expected);
	free(data);
	maps_free(&mp);
}

/* s390x, big-endian, recorded under qemu-s390x: r0..r15 and the PSW address (perf registers 0..15, 33) */
static void test_s390x_recorded(void **state)
{
	const struct fixture fx = {.arch = "s390x",
				   .big_endian = true,
				   .nvals = 17,
				   .mask = 0xffffULL | 1ULL << 33,
				   .pc_first = true,
				   .nsnap = 10};
	(void)state;
	recorded_case(&fx);
}

/* aarch64, little-endian, recorded under qemu-aarch64: x0..x30, sp, pc (perf registers 0..32); spin keeps
 * its return address in x30, so the first step reads the link register, not the stack */
static void test_aarch64_recorded(void **state)
{
	const struct fixture fx = {.arch = "aarch64",
				   .big_endian = false,
				   .nvals = 33,
				   .mask = (1ULL << 33) - 1,
				   .nsnap = 11};
	(void)state;
	recorded_case(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),           cmocka_unit_test(test_live_raise_fp),
		cmocka_unit_test(test_live_raise_nofp), cmocka_unit_test(test_live_timer_fp),
		cmocka_unit_test(test_live_timer_nofp), cmocka_unit_test(test_live_vdso),
		cmocka_unit_test(test_sessions),        cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_s390x_recorded),  cmocka_unit_test(test_aarch64_recorded),
	};
	return cmocka_run_group_tests(tests, live_setup, live_teardown);
}
