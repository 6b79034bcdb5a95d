/* SPDX-License-Identifier: MIT */
/* The formula translator: one walk of the stack program, a table of tokens per language. */
#include "mfstat/kb/expr_sql.h"

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
	.ref_close = " AS REAL)",
	/* The largest double: an infinity (overflow) is above it, a NaN compares false, NULL stays NULL. */
	.finite_a = "CASE WHEN abs(",
	.finite_b = ") <= 1.7976931348623157e308 THEN ",
	.finite_c = " END",
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
	mf_strbuf_puts(out, x);
	mf_strbuf_puts(out, lang->finite_c);
}

int mf_expr_translate(const struct mf_expr *e, const struct mf_expr_lang *lang, mf_expr_namer name, void *ctx,
		      struct mf_strbuf *out, struct mf_error *err)
{
	size_t n = mf_expr_len(e), sp = 0, i;
	struct mf_strbuf *st = calloc(n ? n : 1, sizeof(*st));
	int rc = 0;

	if (!st)
		return mf_error_nomem(err, NULL, 0, "translating a formula");
	for (i = 0; i < n && rc == 0; i++) {
		int op, index;
		double value;
		struct mf_strbuf t;
		mf_expr_step(e, i, &op, &index, &value);
		switch (op) {
		case MF_OP_CONST:
			mf_strbuf_init(&st[sp]);
			mf_expr_lang_number(value, &st[sp++]);
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
			if (op != MF_OP_METRIC)
				mf_strbuf_puts(&st[sp], lang->ref_close);
			sp++;
			break;
		case MF_OP_NEG:
			mf_strbuf_init(&t);
			mf_strbuf_puts(&t, lang->open);
			mf_strbuf_puts(&t, lang->neg);
			mf_strbuf_puts(&t, mf_strbuf_str(&st[sp - 1]));
			mf_strbuf_puts(&t, lang->close);
			mf_strbuf_free(&st[sp - 1]);
			st[sp - 1] = t;
			break;
		default:
			mf_strbuf_init(&t);
			mf_strbuf_puts(&t, lang->open);
			mf_strbuf_puts(&t, mf_strbuf_str(&st[sp - 2]));
			mf_strbuf_puts(&t, op == MF_OP_ADD   ? lang->add
					   : op == MF_OP_SUB ? lang->sub
					   : op == MF_OP_MUL ? lang->mul
							     : lang->div);
			mf_strbuf_puts(&t, mf_strbuf_str(&st[sp - 1]));
			if (op == MF_OP_DIV)
				mf_strbuf_puts(&t, lang->div_close);
			mf_strbuf_puts(&t, lang->close);
			mf_strbuf_free(&st[sp - 2]);
			mf_strbuf_free(&st[sp - 1]);
			st[sp - 2] = t;
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
	return rc;
}
