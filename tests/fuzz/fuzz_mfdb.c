/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the run-file loader (mfdb.c) on arbitrary bytes, through the
 * record decoder (decode.c) it calls, then freeing the run.  Seeds in
 * tests/fuzz/corpus/mfdb/ are written by tests/unit/test_mfdb.c
 * (MFDB_CORPUS_DIR=dir).
 */
#include <stdint.h>
#include <stddef.h>

#include "mfstat/measure/mfdb.h"
#include "mfstat/measure/run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mf_mrun run;
	struct mf_error err;
	mf_mrun_init(&run);
	mf_error_clear(&err);
	mf_mfdb_load_mem(data, size, "fuzz.mfdb", &run, &err);
	mf_mrun_free(&run);
	return 0;
}
