/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_DISTANCE_H
#define MFSTAT_DISTANCE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The optimal string alignment distance of a[0..n) and b[0..m) (insertions,
 * deletions, substitutions and swaps of two neighbours, each 1), for "did you
 * mean" suggestions of options and metric names; with nocase, letters compare
 * ignoring case.  Capped: names over 32 bytes, or a distance over 8, give 9.
 */
size_t mf_name_distance(const char *a, size_t n, const char *b, size_t m, bool nocase);

#endif
