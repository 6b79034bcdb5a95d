/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_EXPR_SQL_H
#define MFSTAT_EXPR_SQL_H

#include "mfstat/base/error.h"
#include "mfstat/base/strbuf.h"
#include "mfstat/kb/expr.h"

/*
 * Translates a compiled formula (mf_expr) into the expression language of another engine: SQL
 * for the performance database's views (mfstat db sql), and PromQL for Prometheus's recording
 * rules (mfstat metrics --prometheus-rules).  One
 * walk of the stack program; what differs between languages is a table of tokens (struct
 * mf_expr_lang).  The result means what mf_expr_eval computes:
 *
 * - every reference (counter, variable) is read as a double (lang->ref_open/ref_close: CAST(... AS
 *   DOUBLE) in SQL, REAL in SQLite, not DuckDB's single-precision REAL), and every number is
 *   written as a floating literal, so a quotient of integer sums is never an integer division,
 *   and each step rounds as the C evaluator's does;
 * - what is not available is the language's null (SQL NULL; in PromQL no sample): a NULL input
 *   makes the result NULL, as a NaN does in mf_expr_eval, and a division by zero gives NULL
 *   (NULLIF(b, 0); in PromQL a / (b != 0), a filter that drops the zeros);
 * - a divisor made of constants only (numbers, and references the namer says are constants) may
 *   have tokens of its own (lang->cdiv): PromQL refuses a comparison between two scalars, so
 *   there it is a plain division;
 * - a result beyond the range of a double (an overflow, NaN in mf_expr_eval) is made null by
 *   mf_expr_lang_finite, which the caller applies to each metric's value (SQLite turns a NaN,
 *   as from an infinity minus another, into NULL by itself).
 *
 * Parentheses are written where the language's precedence needs them (a long sum stays flat: SQLite
 * parses with a bounded stack), and the steps keep mf_expr_eval's order.
 */
struct mf_expr_lang {
	const char *name;                           /* "sql" */
	const char *open, *close;                   /* around every binary step and negation */
	const char *add, *sub, *mul;                /* between the operands */
	const char *div, *div_close;                /* a / b: open a div b div_close close */
	const char *cdiv, *cdiv_close;              /* a / b for a constant b (NULL: as div) */
	const char *neg;                            /* before the operand of a negation */
	const char *ref_open, *ref_close;           /* around a counter or variable as named by the caller */
	const char *finite_a, *finite_b, *finite_c; /* finite(x) = finite_a x finite_b x finite_c,
						       or finite_a x finite_b when finite_c is NULL */
};

/* SQL, as SQLite and DuckDB both read it alike. */
extern const struct mf_expr_lang mf_expr_lang_sql;

/*
 * PromQL: references are series names (vectors), numbers scalars; a / (b != 0) drops the
 * samples whose divisor is zero, and finite(x) is ((x) <= DBL_MAX >= -DBL_MAX), filters that drop
 * infinities and NaN.
 */
extern const struct mf_expr_lang mf_expr_lang_promql;

/*
 * Writes to out the language's term for a reference of kind (enum mf_ref_kind) and index (a
 * counter slot, MF_VAR_*, a metric index): a column name, or a metric's own translation in
 * parentheses.  Returns 0, MF_EXPR_NAMED_CONST when what it wrote is a number (a constant, as
 * PromQL's INTERVAL of 1 second), or an error code (with err set) that stops the translation.
 */
#define MF_EXPR_NAMED_CONST 1
typedef int (*mf_expr_namer)(void *ctx, int kind, int index, struct mf_strbuf *out, struct mf_error *err);

/*
 * Appends the translation of e in lang to out.  Returns 0, MF_ENOMEM, or what name returned.
 */
int mf_expr_translate(const struct mf_expr *e, const struct mf_expr_lang *lang, mf_expr_namer name, void *ctx,
		      struct mf_strbuf *out, struct mf_error *err);

/* Appends x made null where it is not a finite number (an overflow) to out. */
void mf_expr_lang_finite(const struct mf_expr_lang *lang, const char *x, struct mf_strbuf *out);

/* Appends v as a floating literal that reads back as v exactly (100 as 100.0, 1e+20). */
void mf_expr_lang_number(double v, struct mf_strbuf *out);

#endif
