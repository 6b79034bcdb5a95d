/* SPDX-License-Identifier: MIT */
/* Fuzz target: the formula parser and evaluator. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/mfstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int bind(void *ctx, const char *name, size_t len, int *kind, int *index)
{
	(void)ctx;
	if (len == 1 && name[0] >= 'A' && name[0] <= 'H') {
		*kind = MF_REF_COUNTER;
		*index = name[0] - 'A';
		return 0;
	}
	if (len == 4 && memcmp(name, "CPSP", 4) == 0) {
		*kind = MF_REF_VAR;
		*index = MF_VAR_CPSP;
		return 0;
	}
	if (len == 2 && name[0] == 'M' && name[1] >= '0' && name[1] <= '3') {
		*kind = MF_REF_METRIC;
		*index = name[1] - '0';
		return 0;
	}
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *src = malloc(size + 1);
	struct mf_expr *e = NULL;
	struct mf_error err;
	static const uint64_t ctr[8] = {0, 1, 2, 3, 1000000, UINT64_MAX, 7, 0};
	static const uint64_t present[MF_MAX_COUNTER / 64] = {0x7f};
	static const double vars[MF_NVARS] = {5200, NAN};
	static const double metrics[4] = {1.5, NAN, 0, -2};
	struct mf_eval_env env = {ctr, present, vars, metrics, NULL};
	struct mf_strbuf sb;

	if (!src)
		abort();
	memcpy(src, data, size);
	src[size] = '\0';
	mf_error_clear(&err);
	if (mf_expr_compile(src, bind, NULL, &e, &err) == 0) {
		struct mf_na na;
		double v = mf_expr_eval(e, &env, &na);
		if (isinf(v) && na.why != MF_NA_NONE)
			abort();
		mf_expr_free(e);
	} else if (err.col < 1 || (size_t)err.col > size + 1) {
		abort(); /* an error must point into the formula */
	}
	mf_strbuf_init(&sb);
	mf_expr_rewrite(src, NULL, NULL, &sb);
	mf_strbuf_free(&sb);
	free(src);
	return 0;
}
