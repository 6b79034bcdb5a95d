/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_INBYTES_H
#define MFSTAT_INBYTES_H

/*
 * The bytes every input source of the process has read so far (files, standard input and
 * memory; compressed bytes as read, not the decompressed ones): what the tests count to see
 * that each input byte is read once.
 */
unsigned long long mf_input_bytes_read(void);

#endif
