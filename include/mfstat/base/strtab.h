/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_STRTAB_H
#define MFSTAT_STRTAB_H

#include <stddef.h>
#include <stdint.h>

/* Base layer (mfstat/input/sample.h includes it too). */

/* Interned strings (system and LPAR names): id 0 is "none". */
struct mf_strtab;

struct mf_strtab *mf_strtab_new(void);
void mf_strtab_free(struct mf_strtab *t);
/* Returns the id of s[0..len), adding it if new; 0 on ENOMEM (len 0 is also 0). */
uint32_t mf_strtab_intern(struct mf_strtab *t, const char *s, size_t len);
/* The string of an id (borrowed, valid until the table is freed); NULL for 0. */
const char *mf_strtab_get(const struct mf_strtab *t, uint32_t id);
/* Names in the order reports give them: no name (NULL) first, then by strcmp. */
int mf_strtab_cmp_names(const char *a, const char *b);

#endif
