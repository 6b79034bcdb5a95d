/* SPDX-License-Identifier: MIT */
/* Fuzz target: the SMF deblocker and type 113 decoder, through the reader, grouping and writers. */
#include "fuzz_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_reader(data, size, "smf");
}
