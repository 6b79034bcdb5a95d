/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_EXPR_H
#define MFSTAT_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"
#include "mfstat/base/strbuf.h"

/*
 * The formula language: numbers (123, 0.45, 1e6), names ([A-Za-z_][A-Za-z0-9_]*),
 * + - * /, unary minus and parentheses.  A formula is parsed once and compiled
 * into a small stack program whose names are bound to slots, so evaluating it
 * per group is array reads and arithmetic.  Limits, each refused with an error
 * at its column: parentheses and unary minus nested more than 32 deep, an
 * evaluation stack deeper than 64, and a number out of the range of a double
 * (above 1.8e308, or nonzero below 2.2e-308).
 */

/* What a name refers to. */
enum mf_ref_kind {
	MF_REF_COUNTER = 1, /* a counter slot (dense index within a family) */
	MF_REF_VAR = 2,     /* a variable: MF_VAR_CPSP or MF_VAR_INTERVAL */
	MF_REF_METRIC = 3   /* another metric, by index */
};

enum {
	MF_VAR_CPSP = 0,         /* CPU speed, MHz */
	MF_VAR_INTERVAL = 1,     /* interval length, seconds */
	MF_VAR_MEM_PEAK_GBS = 2, /* peak memory bandwidth the user gives (--mem-peak), GB/s */
	MF_VAR_RMF_BUSY = 3,     /* RMF dispatch time of the group's engines (SMF type 70), seconds */
	MF_NVARS = 4
};

/*
 * Resolves name[0..len) to a slot: returns 0 and sets *kind and *index, or
 * returns -1 when the name is unknown (the compiler then reports it).
 */
typedef int (*mf_expr_binder)(void *ctx, const char *name, size_t len, int *kind, int *index);

struct mf_expr;

/*
 * Compiles src.  On success returns 0 and *out (the caller's; free with
 * mf_expr_free).  On failure returns MF_EFORMAT (syntax, unknown name) or
 * MF_ENOMEM and fills err with a message and the 1-based column in src; line
 * and file are left for the caller to set.
 */
int mf_expr_compile(const char *src, mf_expr_binder bind, void *ctx, struct mf_expr **out, struct mf_error *err);

void mf_expr_free(struct mf_expr *e);

/* Why a value is not available. */
enum mf_na_why {
	MF_NA_NONE = 0,
	MF_NA_ABSENT = 1,  /* a counter or variable the data does not hold */
	MF_NA_DIVZERO = 2, /* a divisor was zero */
	MF_NA_OVERFLOW = 3 /* a result beyond the range of a double (about 1.8e308) */
};

struct mf_na {
	signed char why;  /* enum mf_na_why */
	signed char kind; /* enum mf_ref_kind of the absent name, for MF_NA_ABSENT */
	int index;        /* its slot (a metric index can exceed 32767) */
};

/* Where evaluation reads its inputs.  All arrays are borrowed. */
struct mf_eval_env {
	const uint64_t *counters;      /* counter sums by dense slot */
	const uint64_t *present;       /* bitmap: bit i set when slot i holds data */
	const double *vars;            /* MF_NVARS values; NaN = not available */
	const double *metrics;         /* metric values by index; NaN = not available */
	const struct mf_na *metric_na; /* optional: why each metric is not available */
};

/*
 * Evaluates e.  Returns the value, or NaN when it is not available, with the
 * first cause in *na (which may be NULL).  Never divides by zero and never
 * returns an infinity: a step whose result overflows makes the value NaN with
 * MF_NA_OVERFLOW.
 */
double mf_expr_eval(const struct mf_expr *e, const struct mf_eval_env *env, struct mf_na *na);

/* The references of e, in order of appearance (duplicates included); both take constant time. */
size_t mf_expr_nrefs(const struct mf_expr *e);
void mf_expr_ref(const struct mf_expr *e, size_t i, int *kind, int *index);

/* The steps of e's stack program, for translators (mfstat/kb/expr_sql.h). */
enum mf_expr_op {
	MF_OP_CONST,   /* push value */
	MF_OP_COUNTER, /* push counter slot index */
	MF_OP_VAR,     /* push variable index */
	MF_OP_METRIC,  /* push metric index */
	MF_OP_ADD,     /* pop b, pop a, push a + b (and so on) */
	MF_OP_SUB,
	MF_OP_MUL,
	MF_OP_DIV,
	MF_OP_NEG /* negate the top */
};

/* The number of steps of e, and step i (op an enum mf_expr_op; index and value as it says). */
size_t mf_expr_len(const struct mf_expr *e);
void mf_expr_step(const struct mf_expr *e, size_t i, int *op, int *index, double *value);

/*
 * Whether e subtracts, negates or holds a negative number: the only ways its
 * value can fall below zero when every input it reads is zero or more (sums,
 * products and quotients of such values never do).
 */
bool mf_expr_subtracts(const struct mf_expr *e);

/*
 * Rewrites src with every name passed through map (which returns the
 * replacement, or NULL to keep the name), normalising spacing around binary
 * operators.  Used to show a formula with Linux counter names.
 */
void mf_expr_rewrite(const char *src, const char *(*map)(void *ctx, const char *name, size_t len), void *ctx,
		     struct mf_strbuf *out);

#endif
