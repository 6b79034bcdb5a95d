/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_TIMEFMT_H
#define MFSTAT_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

/* Base layer (mfstat/input/sample.h includes it too). */

/*
 * Parses an ISO 8601 date-time "YYYY-MM-DD[T ]hh:mm[:ss[.frac]][Z|+hh:mm|-hh:mm]"
 * (no zone means UTC) into microseconds since the epoch.  Returns 0 or -1.
 */
int mf_time_parse(const char *s, size_t len, int64_t *us);

/* The day number (days since 1970-01-01) of a proleptic Gregorian date. */
int64_t mf_days_from_civil(int64_t y, unsigned m, unsigned d);

/* The proleptic Gregorian date of a day number (days since 1970-01-01). */
void mf_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);

/* Formats us as "YYYY-MM-DDThh:mm:ssZ" (with .ffffff when not whole seconds). */
void mf_time_format(int64_t us, char *buf, size_t n);

#endif
