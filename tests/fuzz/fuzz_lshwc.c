/* SPDX-License-Identifier: MIT */
/* Fuzz target: the lshwc reader (CSV and JSON), through grouping, metrics and every writer. */
#include "fuzz_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_reader(data, size, "lshwc");
}
