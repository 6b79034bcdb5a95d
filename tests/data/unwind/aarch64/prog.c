/* SPDX-License-Identifier: MIT */
/*
 * The aarch64 fixture of unit_unwind (../README.md says how it was built and
 * run): no C library, so that the recorded chains need no other aarch64 file.
 * _start -> main -> caller_a / caller_b -> work -> spin, with an ITIMER_PROF
 * handler that writes what a PERF_SAMPLE_REGS_USER|STACK_USER sample holds:
 * x0..x30, sp and pc (perf's register order) and the stack from sp up to
 * _start's stack pointer.
 */
#include <asm/unistd.h>
#include <stdint.h>
#include <sys/ucontext.h>

#define MAX_SNAP 12

static volatile unsigned long sink;
static volatile int phase; /* 1 in caller_a, 2 in caller_b */
static uint64_t stack_end; /* _start's stack pointer: the top of the frames */
static int out_fd, nsnap, nsig, per_phase[3];
static unsigned char rec[8 * 40 + 4096];

static long sys4(long nr, long a, long b, long c, long d)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory", "cc");
	return x0;
}

/* the kernel's struct sigaction of aarch64 (not the C library's) */
struct ksigaction {
	void (*handler)(int, void *, void *);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

static void on_prof(int sig, void *info, void *ucv)
{
	ucontext_t *uc = ucv;
	uint64_t *q = (uint64_t *)rec, sp = uc->uc_mcontext.sp, n;
	(void)sig;
	(void)info;
	/* every 5th tick, at most MAX_SNAP / 2 in each caller: places spread over both chains */
	if (++nsig % 5 || phase < 1 || phase > 2 || per_phase[phase] >= MAX_SNAP / 2 || sp >= stack_end)
		return;
	per_phase[phase]++;
	n = stack_end - sp;
	if (n > sizeof(rec) - 8 * 40)
		n = sizeof(rec) - 8 * 40;
	q[0] = (uint64_t)phase;
	for (int i = 0; i < 31; i++)
		q[1 + i] = uc->uc_mcontext.regs[i];
	q[32] = sp;
	q[33] = uc->uc_mcontext.pc;
	q[34] = n;
	for (uint64_t i = 0; i < n; i++)
		rec[8 * 35 + i] = ((const volatile unsigned char *)sp)[i];
	sys4(__NR_write, out_fd, (long)rec, (long)(8 * 35 + n), 0);
	nsnap++;
}

__attribute__((noinline)) unsigned long spin(unsigned long n)
{
	unsigned long x = 0;
	for (unsigned long i = 0; i < n * 30000000; i++)
		x += i ^ (x >> 3);
	return x;
}

__attribute__((noinline)) void work(unsigned long n)
{
	sink += spin(n);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void caller_a(void)
{
	phase = 1;
	work(3);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void caller_b(void)
{
	phase = 2;
	work(2);
	__asm__ volatile("" ::: "memory");
}

static void copy_maps(void)
{
	static char buf[8192];
	long in = sys4(__NR_openat, -100, (long)"/proc/self/maps", 0, 0), out, r;
	out = sys4(__NR_openat, -100, (long)"maps.txt", 01 | 0100 | 01000, 0644);
	while (in >= 0 && out >= 0 && (r = sys4(__NR_read, in, (long)buf, sizeof(buf), 0)) > 0)
		sys4(__NR_write, out, (long)buf, r, 0);
}

int main(uint64_t sp0)
{
	struct ksigaction sa = {.handler = on_prof, .flags = 4 /* SA_SIGINFO */};
	long timer[4] = {0, 1000, 0, 1000}; /* 1 ms of CPU time, again and again */
	long off[4] = {0, 0, 0, 0};
	stack_end = sp0;
	out_fd = (int)sys4(__NR_openat, -100, (long)"snapshots.bin", 01 | 0100 | 01000, 0644);
	sys4(__NR_rt_sigaction, 27 /* SIGPROF */, (long)&sa, 0, 8);
	sys4(__NR_setitimer, 2 /* ITIMER_PROF */, (long)timer, 0, 0);
	caller_a();
	caller_b();
	sys4(__NR_setitimer, 2, (long)off, 0, 0);
	copy_maps();
	return nsnap;
}

/* The outermost frame: its return address column is undefined, so libdw ends the walk there. */
__asm__(".text\n"
	".globl _start\n"
	".type _start, @function\n"
	"_start:\n"
	"	.cfi_startproc\n"
	"	.cfi_undefined x30\n"
	"	mov x29, #0\n"
	"	mov x30, #0\n"
	"	mov x0, sp\n"
	"	bl main\n"
	"	mov x8, #93\n"
	"	svc #0\n"
	"	.cfi_endproc\n"
	".size _start, .-_start\n");
