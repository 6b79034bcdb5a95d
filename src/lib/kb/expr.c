/* SPDX-License-Identifier: MIT */
/* Formula lexer, recursive-descent parser, binder and stack evaluator. */
#include "mfstat/kb/expr.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op { OP_CONST, OP_COUNTER, OP_VAR, OP_METRIC, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_NEG };

struct insn {
	int op;
	int index;
	double value;
};

struct mf_expr {
	struct insn *code;
	size_t n;
	size_t max_depth;
	size_t *refs; /* positions in code of the references, in order */
	size_t nrefs;
};

#define MAX_DEPTH 64

enum tok { T_END, T_NUM, T_NAME, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_LPAREN, T_RPAREN, T_BAD };

struct parser {
	const char *src;
	size_t pos; /* start of the current token */
	size_t end; /* end of the current token */
	int tok;
	double num;
	int range; /* for a T_BAD number: 1 too large, -1 too small (underflow) */
	mf_expr_binder bind;
	void *ctx;
	struct insn *code;
	size_t n, cap;
	size_t depth, max_depth;
	int nest;
	struct mf_error *err;
	int rc;
};

static void next(struct parser *p)
{
	const char *s = p->src;
	size_t i = p->end;

	while (s[i] == ' ' || s[i] == '\t')
		i++;
	p->pos = i;
	if (s[i] == '\0') {
		p->tok = T_END;
		p->end = i;
		return;
	}
	if (isdigit((unsigned char)s[i]) || (s[i] == '.' && isdigit((unsigned char)s[i + 1]))) {
		size_t j = i;
		char *stop;
		while (isdigit((unsigned char)s[j]))
			j++;
		if (s[j] == '.') {
			j++;
			while (isdigit((unsigned char)s[j]))
				j++;
		}
		if ((s[j] == 'e' || s[j] == 'E') &&
		    (isdigit((unsigned char)s[j + 1]) ||
		     ((s[j + 1] == '+' || s[j + 1] == '-') && isdigit((unsigned char)s[j + 2])))) {
			j += 2;
			while (isdigit((unsigned char)s[j]))
				j++;
		}
		/* strtod is locale-dependent only for the radix character, and the
		 * library never calls setlocale, so "C" applies. */
		errno = 0;
		p->num = strtod(s + i, &stop);
		p->end = j;
		p->range = 0;
		p->tok = (size_t)(stop - s) == j ? T_NUM : T_BAD;
		/*
		 * Out of the range of a double either way is refused: 1e309 would be
		 * infinite, 1e-400 zero (or a subnormal that has lost its digits).
		 */
		if (p->tok == T_NUM && !isfinite(p->num))
			p->range = 1;
		else if (p->tok == T_NUM && (p->num != 0 || errno == ERANGE) && fabs(p->num) < DBL_MIN)
			p->range = -1;
		if (p->range)
			p->tok = T_BAD;
		if (isalpha((unsigned char)s[j]) || s[j] == '_') {
			p->tok = T_BAD;
			p->range = 0;
		}
		return;
	}
	if (isalpha((unsigned char)s[i]) || s[i] == '_') {
		size_t j = i;
		while (isalnum((unsigned char)s[j]) || s[j] == '_')
			j++;
		p->end = j;
		p->tok = T_NAME;
		return;
	}
	p->end = i + 1;
	switch (s[i]) {
	case '+': p->tok = T_PLUS; break;
	case '-': p->tok = T_MINUS; break;
	case '*': p->tok = T_STAR; break;
	case '/': p->tok = T_SLASH; break;
	case '(': p->tok = T_LPAREN; break;
	case ')': p->tok = T_RPAREN; break;
	default: p->tok = T_BAD; break;
	}
}

static int fail(struct parser *p, size_t col0, const char *what)
{
	if (p->rc == 0) {
		p->rc = mf_error_set(p->err, MF_EFORMAT, NULL, 0, (long)col0 + 1, "%s", what);
	}
	return p->rc;
}

static int emit(struct parser *p, int op, int index, double value)
{
	if (p->rc)
		return p->rc;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct insn *c = realloc(p->code, cap * sizeof(*c));
		if (!c) {
			p->rc = mf_error_nomem(p->err, NULL, 0, "compiling the formula");
			return p->rc;
		}
		p->code = c;
		p->cap = cap;
	}
	p->code[p->n].op = op;
	p->code[p->n].index = index;
	p->code[p->n].value = value;
	p->n++;
	/* Track the evaluation stack depth the program needs. */
	if (op <= OP_METRIC) {
		if (++p->depth > p->max_depth)
			p->max_depth = p->depth;
	} else if (op != OP_NEG) {
		p->depth--;
	}
	if (p->max_depth > MAX_DEPTH)
		return fail(p, p->pos, "formula too complex (evaluation stack deeper than 64)");
	return 0;
}

static int parse_sum(struct parser *p);

static int parse_primary(struct parser *p)
{
	if (p->rc)
		return p->rc;
	switch (p->tok) {
	case T_NUM:
		emit(p, OP_CONST, 0, p->num);
		next(p);
		return p->rc;
	case T_NAME: {
		int kind = 0, index = 0;
		size_t len = p->end - p->pos;
		if (p->bind(p->ctx, p->src + p->pos, len, &kind, &index) != 0) {
			char msg[200];
			snprintf(msg, sizeof(msg), "unknown name '%.*s'", (int)(len > 100 ? 100 : len),
				 p->src + p->pos);
			return fail(p, p->pos, msg);
		}
		emit(p, kind == MF_REF_COUNTER ? OP_COUNTER : kind == MF_REF_VAR ? OP_VAR : OP_METRIC, index, 0);
		next(p);
		return p->rc;
	}
	case T_LPAREN: {
		size_t open = p->pos;
		if (++p->nest > 32)
			return fail(p, p->pos, "parentheses nested too deeply");
		next(p);
		if (parse_sum(p))
			return p->rc;
		if (p->tok != T_RPAREN) {
			(void)open;
			return fail(p, p->pos, p->tok == T_END ? "missing ')' at end of formula" : "expected ')'");
		}
		p->nest--;
		next(p);
		return p->rc;
	}
	case T_MINUS:
		if (++p->nest > 32)
			return fail(p, p->pos, "formula nested too deeply");
		next(p);
		if (parse_primary(p))
			return p->rc;
		p->nest--;
		return emit(p, OP_NEG, 0, 0);
	case T_END: return fail(p, p->pos, "formula ends where a number, name or '(' was expected");
	case T_BAD:
		if (p->range) {
			char msg[200];
			size_t len = p->end - p->pos;
			snprintf(msg, sizeof(msg),
				 p->range > 0 ? "number '%.*s' is too large (a double holds at most 1.8e308)"
					      : "number '%.*s' is too small (underflow: a nonzero number must be at "
						"least 2.2e-308)",
				 (int)(len > 100 ? 100 : len), p->src + p->pos);
			return fail(p, p->pos, msg);
		}
		return fail(p, p->pos, "invalid character or malformed number");
	default: return fail(p, p->pos, "expected a number, name or '('");
	}
}

static int parse_product(struct parser *p)
{
	if (parse_primary(p))
		return p->rc;
	while (p->tok == T_STAR || p->tok == T_SLASH) {
		int op = p->tok == T_STAR ? OP_MUL : OP_DIV;
		next(p);
		if (parse_primary(p))
			return p->rc;
		emit(p, op, 0, 0);
	}
	return p->rc;
}

static int parse_sum(struct parser *p)
{
	if (parse_product(p))
		return p->rc;
	while (p->tok == T_PLUS || p->tok == T_MINUS) {
		int op = p->tok == T_PLUS ? OP_ADD : OP_SUB;
		next(p);
		if (parse_product(p))
			return p->rc;
		emit(p, op, 0, 0);
	}
	return p->rc;
}

int mf_expr_compile(const char *src, mf_expr_binder bind, void *ctx, struct mf_expr **out, struct mf_error *err)
{
	struct parser p;
	struct mf_expr *e = NULL;
	size_t i;

	*out = NULL;
	memset(&p, 0, sizeof(p));
	p.src = src;
	p.bind = bind;
	p.ctx = ctx;
	p.err = err;
	next(&p);
	if (p.tok == T_END)
		fail(&p, p.pos, "empty formula");
	else if (parse_sum(&p) == 0 && p.tok != T_END)
		fail(&p, p.pos, p.tok == T_RPAREN ? "unbalanced ')'" : "expected an operator");
	if (p.rc)
		goto out;
	e = malloc(sizeof(*e));
	if (!e) {
		p.rc = mf_error_nomem(err, NULL, 0, "compiling the formula");
		goto out;
	}
	e->code = p.code;
	e->n = p.n;
	e->max_depth = p.max_depth;
	e->nrefs = 0;
	for (i = 0; i < p.n; i++)
		if (p.code[i].op >= OP_COUNTER && p.code[i].op <= OP_METRIC)
			e->nrefs++;
	e->refs = malloc((e->nrefs ? e->nrefs : 1) * sizeof(*e->refs));
	if (!e->refs) {
		free(e);
		p.rc = mf_error_nomem(err, NULL, 0, "compiling the formula");
		goto out;
	}
	e->nrefs = 0;
	for (i = 0; i < p.n; i++)
		if (p.code[i].op >= OP_COUNTER && p.code[i].op <= OP_METRIC)
			e->refs[e->nrefs++] = i;
	p.code = NULL;
	*out = e;
out:
	free(p.code);
	return p.rc;
}

void mf_expr_free(struct mf_expr *e)
{
	if (!e)
		return;
	free(e->code);
	free(e->refs);
	free(e);
}

static void set_na(struct mf_na *na, int why, int kind, int index)
{
	if (na && na->why == MF_NA_NONE) {
		na->why = (signed char)why;
		na->kind = (signed char)kind;
		na->index = (short)index;
	}
}

double mf_expr_eval(const struct mf_expr *e, const struct mf_eval_env *env, struct mf_na *na)
{
	double st[MAX_DEPTH + 1];
	size_t sp = 0, i;

	if (na)
		na->why = MF_NA_NONE;
	for (i = 0; i < e->n; i++) {
		const struct insn *in = &e->code[i];
		double a, b;
		switch (in->op) {
		case OP_CONST: st[sp++] = in->value; break;
		case OP_COUNTER:
			if (env->present[in->index >> 6] & (UINT64_C(1) << (in->index & 63))) {
				st[sp++] = (double)env->counters[in->index];
			} else {
				set_na(na, MF_NA_ABSENT, MF_REF_COUNTER, in->index);
				st[sp++] = NAN;
			}
			break;
		case OP_VAR:
			a = env->vars[in->index];
			if (isnan(a))
				set_na(na, MF_NA_ABSENT, MF_REF_VAR, in->index);
			st[sp++] = a;
			break;
		case OP_METRIC:
			a = env->metrics[in->index];
			if (isnan(a) && na && na->why == MF_NA_NONE) {
				if (env->metric_na && env->metric_na[in->index].why != MF_NA_NONE)
					*na = env->metric_na[in->index];
				else
					set_na(na, MF_NA_ABSENT, MF_REF_METRIC, in->index);
			}
			st[sp++] = a;
			break;
		case OP_NEG: st[sp - 1] = -st[sp - 1]; break;
		default:
			b = st[--sp];
			a = st[sp - 1];
			switch (in->op) {
			case OP_ADD: a = a + b; break;
			case OP_SUB: a = a - b; break;
			case OP_MUL: a = a * b; break;
			default:
				if (b == 0) {
					set_na(na, MF_NA_DIVZERO, 0, 0);
					a = NAN;
				} else {
					a = a / b;
				}
				break;
			}
			/* Finite inputs, infinite result: the value overflowed a double. */
			if (isinf(a)) {
				set_na(na, MF_NA_OVERFLOW, 0, 0);
				a = NAN;
			}
			st[sp - 1] = a;
			break;
		}
	}
	return st[0];
}

size_t mf_expr_nrefs(const struct mf_expr *e)
{
	return e->nrefs;
}

void mf_expr_ref(const struct mf_expr *e, size_t k, int *kind, int *index)
{
	const struct insn *in;

	if (k >= e->nrefs) {
		*kind = 0;
		*index = -1;
		return;
	}
	in = &e->code[e->refs[k]];
	*kind = in->op == OP_COUNTER ? MF_REF_COUNTER : in->op == OP_VAR ? MF_REF_VAR : MF_REF_METRIC;
	*index = in->index;
}

size_t mf_expr_len(const struct mf_expr *e)
{
	return e->n;
}

void mf_expr_step(const struct mf_expr *e, size_t i, int *op, int *index, double *value)
{
	static const int map[] = {MF_OP_CONST, MF_OP_COUNTER, MF_OP_VAR, MF_OP_METRIC, MF_OP_ADD,
				  MF_OP_SUB,   MF_OP_MUL,     MF_OP_DIV, MF_OP_NEG};
	const struct insn *in = &e->code[i];
	*op = map[in->op];
	*index = in->index;
	*value = in->value;
}

bool mf_expr_subtracts(const struct mf_expr *e)
{
	size_t i;
	for (i = 0; i < e->n; i++)
		if (e->code[i].op == OP_SUB || e->code[i].op == OP_NEG ||
		    (e->code[i].op == OP_CONST && !(e->code[i].value >= 0)))
			return true;
	return false;
}

void mf_expr_rewrite(const char *src, const char *(*map)(void *ctx, const char *name, size_t len), void *ctx,
		     struct mf_strbuf *out)
{
	struct parser p;
	int prev = T_END;

	memset(&p, 0, sizeof(p));
	p.src = src;
	for (next(&p); p.tok != T_END; next(&p)) {
		const char *t = src + p.pos;
		size_t len = p.end - p.pos;
		int binary = (p.tok == T_PLUS || p.tok == T_MINUS || p.tok == T_STAR || p.tok == T_SLASH) &&
			     (prev == T_NUM || prev == T_NAME || prev == T_RPAREN);
		if (binary)
			mf_strbuf_putc(out, ' ');
		if (p.tok == T_NAME && map) {
			const char *r = map(ctx, t, len);
			if (r)
				mf_strbuf_puts(out, r);
			else
				mf_strbuf_add(out, t, len);
		} else {
			mf_strbuf_add(out, t, len);
		}
		if (binary)
			mf_strbuf_putc(out, ' ');
		prev = p.tok;
		if (p.tok == T_BAD)
			break;
	}
}
