/* SPDX-License-Identifier: MIT */
/* The formula translator: one walk of the stack program, a table of tokens per language. */
#include "mfstat/kb/expr_sql.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct mf_expr_lang mf_expr_lang_sql = {
	.name = "sql",
	.open = "(",
	.close = ")",
	.add = " + ",
	.sub = " - ",
	.mul = " * ",
	.div = " / NULLIF(",
	.div_close = ", 0)",
	.neg = "- ",
	.ref_open = "CAST(",
	.ref_close = " AS DOUBLE)",
	/* The largest double: an infinity (overflow) is above it, a NaN compares false, NULL stays NULL. */
	.finite_a = "CASE WHEN abs(",
	.finite_b = ") <= 1.7976931348623157e308 THEN ",
	.finite_c = " END",
};

/*
 * The largest double as PromQL reads it: an infinity is above it, a NaN fails every comparison.
 * A comparison between vector and scalar keeps the samples for which it holds.
 */
const struct mf_expr_lang mf_expr_lang_promql = {
	.name = "promql",
	.open = "(",
	.close = ")",
	.add = " + ",
	.sub = " - ",
	.mul = " * ",
	.div = " / (",
	.div_close = " != 0)",
	.cdiv = " / ",
	.cdiv_close = "",
	.neg = "-",
	.ref_open = "",
	.ref_close = "",
	.finite_a = "((",
	.finite_b = ") <= 1.7976931348623157e+308 >= -1.7976931348623157e+308)",
	.finite_c = NULL,
};

void mf_expr_lang_number(double v, struct mf_strbuf *out)
{
	char buf[40];
	snprintf(buf, sizeof(buf), "%.17g", v);
	/* The shortest of %.15g..%.17g that reads back exactly, for SQL that people read. */
	for (int prec = 15; prec < 17; prec++) {
		char t[40];
		snprintf(t, sizeof(t), "%.*g", prec, v);
		if (strtod(t, NULL) == v) {
			memcpy(buf, t, sizeof(t));
			break;
		}
	}
	mf_strbuf_puts(out, buf);
	if (!strpbrk(buf, ".eEni"))
		mf_strbuf_puts(out, ".0");
}

void mf_expr_lang_finite(const struct mf_expr_lang *lang, const char *x, struct mf_strbuf *out)
{
	mf_strbuf_puts(out, lang->finite_a);
	mf_strbuf_puts(out, x);
	mf_strbuf_puts(out, lang->finite_b);
	if (!lang->finite_c)
		return;
	mf_strbuf_puts(out, x);
	mf_strbuf_puts(out, lang->finite_c);
}

/* Precedence of a translated term: an atom, a product or quotient, a sum or difference. */
enum { PREC_SUM = 1, PREC_PRODUCT = 2, PREC_ATOM = 3 };

/* Appends term t to out, in the language's parentheses when its precedence is below min. */
static void operand(struct mf_strbuf *out, const struct mf_expr_lang *lang, const struct mf_strbuf *t, int prec,
		    int min)
{
	if (prec < min)
		mf_strbuf_puts(out, lang->open);
	mf_strbuf_puts(out, mf_strbuf_str(t));
	if (prec < min)
		mf_strbuf_puts(out, lang->close);
}

int mf_expr_translate(const struct mf_expr *e, const struct mf_expr_lang *lang, mf_expr_namer name, void *ctx,
		      struct mf_strbuf *out, struct mf_error *err)
{
	size_t n = mf_expr_len(e), sp = 0, i;
	struct mf_strbuf *st = calloc(n ? n : 1, sizeof(*st));
	int *prec = calloc(n ? n : 1, sizeof(*prec));
	bool *konst = calloc(n ? n : 1, sizeof(*konst)); /* made of constants only */
	int rc = 0;

	if (!st || !prec || !konst) {
		free(st);
		free(prec);
		free(konst);
		return mf_error_nomem(err, NULL, 0, "translating a formula");
	}
	/*
	 * Parentheses only where the language's precedence needs them: a left operand of lower
	 * precedence, a right one of lower or equal (a - (b - c)), so a long sum stays flat
	 * (a + b + c is (a + b) + c in every language this serves: the same order of rounding).
	 */
	for (i = 0; i < n && rc == 0; i++) {
		int op, index, p;
		bool cdiv;
		double value;
		struct mf_strbuf t;
		mf_expr_step(e, i, &op, &index, &value);
		switch (op) {
		case MF_OP_CONST:
			mf_strbuf_init(&st[sp]);
			mf_expr_lang_number(value, &st[sp]);
			konst[sp] = true;
			prec[sp++] = PREC_ATOM;
			break;
		case MF_OP_COUNTER:
		case MF_OP_VAR:
		case MF_OP_METRIC:
			mf_strbuf_init(&st[sp]);
			if (op != MF_OP_METRIC)
				mf_strbuf_puts(&st[sp], lang->ref_open);
			rc = name(ctx,
				  op == MF_OP_COUNTER ? MF_REF_COUNTER
				  : op == MF_OP_VAR   ? MF_REF_VAR
						      : MF_REF_METRIC,
				  index, &st[sp], err);
			konst[sp] = rc == MF_EXPR_NAMED_CONST;
			if (rc == MF_EXPR_NAMED_CONST)
				rc = 0;
			if (op != MF_OP_METRIC)
				mf_strbuf_puts(&st[sp], lang->ref_close);
			prec[sp++] = PREC_ATOM;
			break;
		case MF_OP_NEG:
			mf_strbuf_init(&t);
			mf_strbuf_puts(&t, lang->open);
			mf_strbuf_puts(&t, lang->neg);
			operand(&t, lang, &st[sp - 1], prec[sp - 1], PREC_ATOM);
			mf_strbuf_puts(&t, lang->close);
			mf_strbuf_free(&st[sp - 1]);
			st[sp - 1] = t;
			prec[sp - 1] = PREC_ATOM;
			break;
		default:
			p = op == MF_OP_ADD || op == MF_OP_SUB ? PREC_SUM : PREC_PRODUCT;
			cdiv = op == MF_OP_DIV && konst[sp - 1] && lang->cdiv;
			mf_strbuf_init(&t);
			operand(&t, lang, &st[sp - 2], prec[sp - 2], p);
			mf_strbuf_puts(&t, op == MF_OP_ADD   ? lang->add
					   : op == MF_OP_SUB ? lang->sub
					   : op == MF_OP_MUL ? lang->mul
					   : cdiv            ? lang->cdiv
							     : lang->div);
			/* The divisor sits in the language's own brackets (NULLIF(b, 0)), unless constant. */
			if (op == MF_OP_DIV && !cdiv)
				mf_strbuf_puts(&t, mf_strbuf_str(&st[sp - 1]));
			else
				operand(&t, lang, &st[sp - 1], prec[sp - 1], p + 1);
			if (op == MF_OP_DIV)
				mf_strbuf_puts(&t, cdiv ? lang->cdiv_close : lang->div_close);
			konst[sp - 2] = konst[sp - 2] && konst[sp - 1];
			mf_strbuf_free(&st[sp - 2]);
			mf_strbuf_free(&st[sp - 1]);
			st[sp - 2] = t;
			prec[sp - 2] = p;
			sp--;
			break;
		}
	}
	for (i = 0; i < sp; i++)
		if (st[i].failed && rc == 0)
			rc = mf_error_nomem(err, NULL, 0, "translating a formula");
	if (rc == 0 && sp == 1)
		mf_strbuf_puts(out, mf_strbuf_str(&st[0]));
	if (rc == 0 && out->failed)
		rc = mf_error_nomem(err, NULL, 0, "translating a formula");
	for (i = 0; i < sp; i++)
		mf_strbuf_free(&st[i]);
	free(st);
	free(prec);
	free(konst);
	return rc;
}
