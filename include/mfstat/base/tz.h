/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_TZ_H
#define MFSTAT_TZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"

/*
 * Time zones for reports (--tz) and the calendar (hour, day, ISO week, month,
 * hour of the day, weekday) in them.  Base layer: no global state, no TZ
 * environment variable, no locale; an IANA zone is read from the system time
 * zone database (TZif files, RFC 8536) by this module itself.
 */

struct mf_tz;

/*
 * Opens the zone spec names:
 *   "UTC" (also "Z", "GMT"), a fixed offset "+hh:mm", "-hh:mm", "+hhmm" or "+hh"
 *   (at most 14 hours), "smf" (the offset each SMF record carries: mf_tz_offset
 *   then returns 0 and readers give each sample its own), or an IANA name such
 *   as "Europe/Berlin" read from dir (NULL: $TZDIR, else /usr/share/zoneinfo).
 * Returns 0, MF_EUSAGE for a spec that is none of these (err says why), or
 * MF_EFORMAT for a zone file that is not valid TZif (err names it and the byte
 * offset), or MF_ENOMEM.  The zone is the caller's: free with mf_tz_free.
 */
int mf_tz_open(struct mf_tz **out, const char *spec, const char *dir, struct mf_error *err);

/*
 * Like mf_tz_open for a zone in which wall-clock times were written (not
 * "smf", which is refused), with messages naming option ("--perf-tz").
 */
int mf_tz_open_wall(struct mf_tz **out, const char *spec, const char *dir, const char *option, struct mf_error *err);

/*
 * The zone of this machine, as the C library takes it: from tz_env, the value
 * of the TZ environment variable (NULL when it is not set: the caller reads
 * the environment, this module does not), else from the TZif file localtime
 * (NULL: "/etc/localtime").  TZ may be ":NAME" or NAME (a zone of dir, as for
 * mf_tz_open), an absolute path of a TZif file, a POSIX TZ string such as
 * "CET-1CEST,M3.5.0,M10.5.0/3" or "JST-9", or empty (UTC); no TZ and no
 * localtime file is UTC too.  The zone's name is the zone's ("Europe/Berlin",
 * also for a path or a link into the zone database), else the path or the TZ
 * string.  from (n bytes) receives where the zone came from: "$TZ", the
 * localtime path, or "no $TZ and no /etc/localtime".  Returns 0, MF_EUSAGE for
 * a TZ that is none of these or a TZ path that cannot be opened (err says
 * why; the C library would take UTC without a word), MF_EFORMAT for a file
 * that is not TZif (err names it), MF_EIO or MF_ENOMEM.  The zone is the
 * caller's (mf_tz_free).
 */
int mf_tz_open_local(struct mf_tz **out, const char *tz_env, const char *localtime, const char *dir, char *from,
		     size_t n, struct mf_error *err);
void mf_tz_free(struct mf_tz *tz);

/*
 * A zone named name from the TZif data[0..len) (what mf_tz_open reads from
 * the zone database; also for tests and fuzzing).  Returns 0, MF_EFORMAT
 * (err names name and the byte offset) or MF_ENOMEM.
 */
int mf_tz_from_tzif(struct mf_tz **out, const char *name, const void *data, size_t len, struct mf_error *err);

/* The zone's name as the report shows it: "UTC", "+02:00", "Europe/Berlin" or "smf". */
const char *mf_tz_name(const struct mf_tz *tz);

/* True for "smf": the offset comes with each record, not from the zone. */
bool mf_tz_per_record(const struct mf_tz *tz);

/* True for UTC (times are written with "Z"). */
bool mf_tz_is_utc(const struct mf_tz *tz);

/* The offset from UTC in seconds (east positive) at the instant utc_us (Unix microseconds). */
int32_t mf_tz_offset(const struct mf_tz *tz, int64_t utc_us);

/*
 * The instant of a local wall-clock time (Unix microseconds as if the zone were
 * UTC).  A time skipped by a change to summer time is taken with the offset
 * before the change; a repeated hour gives its first instant.
 */
int64_t mf_tz_utc_of_local(const struct mf_tz *tz, int64_t local_us);

/*
 * An offset from UTC (seconds, east positive) as ISO 8601 writes it: "+02:00", "-05:00",
 * "+05:45", "+00:00", with seconds when it has them ("-00:44:30", a local mean time).
 */
void mf_tz_offset_text(int32_t off_s, char *buf, size_t n);

/*
 * Formats utc_us at offset off_s as ISO 8601: "2025-04-10T10:15:00+02:00", or
 * with utc set "2025-04-10T08:15:00Z" (fractions of a second as .ffffff).
 */
void mf_time_format_at(int64_t utc_us, int32_t off_s, bool utc, char *buf, size_t n);

/* Calendar buckets of local time (--by hour, day, week, month, hour-of-day, weekday). */
enum mf_cal {
	MF_CAL_HOUR,        /* each hour: "2025-04-10T08" */
	MF_CAL_DAY,         /* each day: "2025-04-10" */
	MF_CAL_WEEK,        /* each ISO week, Monday first: "2025-W15" */
	MF_CAL_MONTH,       /* each month: "2025-04" */
	MF_CAL_HOUR_OF_DAY, /* the hour of the day across days: "08" */
	MF_CAL_WEEKDAY      /* the day of the week across weeks: "Mon" */
};

/*
 * The bucket of a local time (Unix microseconds as if the zone were UTC) as a
 * number that sorts in calendar order: hours or days since 1970-01-01 (a week
 * by its Monday), months since year 0, 0-23, or 0 (Monday) to 6 (Sunday).
 */
int64_t mf_cal_key(enum mf_cal c, int64_t local_us);

/*
 * The bucket of --by hour: the local hour and the offset it was read at, so
 * that the hour a clock repeats when summer time ends (02:00+02:00 and
 * 02:00+01:00 in Europe/Berlin) is two buckets, as it is two hours.  Keys sort
 * by local hour, then the larger offset first: in time order across a change.
 */
int64_t mf_cal_hour_key(int64_t local_us, int32_t off_s);

/*
 * Writes an hour key: "2025-10-26T02:00+02:00", or with utc "2025-10-26T02"
 * (the offset is always 0 there).
 */
void mf_cal_hour_format(int64_t key, bool utc, char *buf, size_t n);

/* Writes the bucket key as the names above show. */
void mf_cal_format(enum mf_cal c, int64_t key, char *buf, size_t n);

/* The weekday (0 Monday .. 6 Sunday) and hour (0-23) of a local time. */
int mf_cal_weekday(int64_t local_us);
int mf_cal_hour(int64_t local_us);

#endif
