/* SPDX-License-Identifier: MIT */
/*
 * The unwinder's architecture table: perf register numbering (the kernel's
 * arch/<arch>/include/uapi/asm/perf_regs.h) to DWARF numbering (the psABI of
 * each machine, as elfutils' backends use it), and the sample_regs_user mask
 * to ask for.
 */
#include "unwind_arch.h"

#include <elf.h>
#include <string.h>

/*
 * x86-64.  perf: AX 0, BX 1, CX 2, DX 3, SI 4, DI 5, BP 6, SP 7, IP 8, FLAGS 9,
 * CS 10, SS 11, DS..GS 12..15 (refused in sample_regs_user: EINVAL), R8..R15
 * 16..23.  DWARF: rax rdx rcx rbx rsi rdi rbp rsp r8..r15, then the return
 * address column 16 (rip), which libdw reads the first frame's pc from.
 */
#define X86_MASK 0xff0fffULL /* AX..SS and R8..R15: 20 registers */

/*
 * s390x.  perf: R0..R15 0..15, FP0..FP15 16..31, MASK 32, PC 33 (the PSW
 * address).  DWARF: r0..r15 0..15, then the FPRs in ELF-ABI order f0 f2 f4 f6
 * f1 f3 f5 f7 f8 f10 f12 f14 f9 f11 f13 f15 (16..31).  libdw's s390 backend
 * unwinds 32 registers: the PSW address is not one of them, so the pc is
 * passed apart.  The CFI's return address column is r14, the stack pointer r15.
 */
#define S390_MASK ((1ULL << 34) - 1) /* every register, as perf asks */

/*
 * aarch64.  perf: X0..X28 0..28, X29 (fp) 29, LR 30, SP 31, PC 32.  DWARF:
 * x0..x30 0..30, sp 31: the same order.  The pc is passed apart (libdw would
 * take the first frame's pc from the return address column x30).
 */
#define ARM64_MASK ((1ULL << 33) - 1)

static const struct mf_unwind_arch_desc table[] = {
	{
		.pub = {.name = "x86_64", .e_machine = EM_X86_64, .regs_mask = X86_MASK, .sp_reg = 7, .pc_reg = 8},
		.ndwarf = 17,
		.dwarf_sp = 7,
		.perf_of_dwarf = {0, 3,  2,  1,  4,  5,  6,  7,  16, 17, 18, 19, 20, 21, 22, 23,
				  8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
		.pc_separate = false,
	},
	{
		.pub = {.name = "s390x", .e_machine = EM_S390, .regs_mask = S390_MASK, .sp_reg = 15, .pc_reg = 33},
		.ndwarf = 32,
		.dwarf_sp = 15,
		.perf_of_dwarf = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
				  16, 18, 20, 22, 17, 19, 21, 23, 24, 26, 28, 30, 25, 27, 29, 31},
		.pc_separate = true,
	},
	{
		.pub = {.name = "aarch64", .e_machine = EM_AARCH64, .regs_mask = ARM64_MASK, .sp_reg = 31, .pc_reg = 32},
		.ndwarf = 32,
		.dwarf_sp = 31,
		.perf_of_dwarf = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
				  16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31},
		.pc_separate = true,
	},
};

#define NARCH (sizeof(table) / sizeof(table[0]))

const struct mf_unwind_arch *mf_unwind_arch_by_name(const char *machine)
{
	size_t i;
	if (!machine)
		return NULL;
	for (i = 0; i < NARCH; i++)
		if (strcmp(machine, table[i].pub.name) == 0)
			return &table[i].pub;
	return NULL;
}

const struct mf_unwind_arch *mf_unwind_arch_by_elf(uint16_t e_machine)
{
	size_t i;
	for (i = 0; i < NARCH; i++)
		if (table[i].pub.e_machine == e_machine)
			return &table[i].pub;
	return NULL;
}

const struct mf_unwind_arch_desc *mf_unwind_arch_desc(const struct mf_unwind_arch *a)
{
	size_t i;
	for (i = 0; i < NARCH; i++)
		if (a == &table[i].pub)
			return &table[i];
	return NULL;
}

bool mf_unwind_perf_reg(const uint64_t *regs, uint64_t mask, int r, uint64_t *val)
{
	if (!regs || r < 0 || r > 63 || !(mask & (1ULL << r)))
		return false;
	*val = regs[__builtin_popcountll(mask & ((1ULL << r) - 1))];
	return true;
}
