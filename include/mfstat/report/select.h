/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_SELECT_H
#define MFSTAT_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/input/sample.h"
#include "mfstat/base/strtab.h"
#include "mfstat/base/tz.h"

/*
 * Selection of intervals before grouping (--from, --to, --system, --pool,
 * --hours, --weekdays).  A sample is kept when its interval start is at or
 * after from and before to, its system and pool are among those named, and
 * its start falls in the hours and weekdays given, all in the report's time
 * zone.  What is left out is counted by reason.
 */

/* Why a sample was left out; MF_SELECT_KEEP when it was not. */
enum mf_select_why {
	MF_SELECT_KEEP = 0,
	MF_SELECT_BEFORE,   /* starts before --from */
	MF_SELECT_AFTER,    /* starts at or after --to */
	MF_SELECT_SYSTEM,   /* a system --system does not name */
	MF_SELECT_POOL,     /* a pool --pool does not name */
	MF_SELECT_HOURS,    /* starts outside --hours */
	MF_SELECT_WEEKDAYS, /* starts on a day --weekdays does not name */
	MF_SELECT_NO_START, /* no interval start, and a time selection needs one */
	MF_SELECT_NREASONS
};

#define MF_SELECT_MAX_SYSTEMS 64

struct mf_select {
	bool has_from, has_to;
	int64_t from_us, to_us; /* UTC instants */
	uint32_t hours;         /* bit h: intervals starting in local hour h; 0: every hour */
	unsigned weekdays;      /* bit d (0 Monday .. 6 Sunday); 0: every day */
	unsigned pools;         /* bit (1 << enum mf_pool); 0: every pool */
	size_t nsystems;        /* 0: every system */
	char systems[MF_SELECT_MAX_SYSTEMS][16];
	const struct mf_tz *tz; /* hours and weekdays are local to it (borrowed); NULL: UTC */
	/* With a per-record zone: from_us, to_us are local times (a date alone), compared
	 * with each sample's start in its own local time. */
	bool from_local, to_local;
};

/* True when sel selects anything at all (some option given). */
bool mf_select_active(const struct mf_select *sel);

/*
 * Parses a --from or --to time: the CSV time syntax (ISO 8601, UTC unless it
 * gives an offset), or a date alone "YYYY-MM-DD" meaning midnight in tz.
 * Returns 0, or -1 when s is neither.
 */
int mf_select_parse_time(const char *s, const struct mf_tz *tz, int64_t *us);

/* True when mf_select_parse_time gives s in each record's local time (a date alone, tz per record). */
bool mf_select_time_local(const char *s, const struct mf_tz *tz);

/*
 * Parses --hours "H1-H2" (intervals starting at or after H1:00 and before
 * H2:00; "22-6" wraps past midnight; "8:00-17:00" is taken too) or a comma
 * list of such ranges and single hours ("8-12,14").  Returns 0 or -1.
 */
int mf_select_parse_hours(const char *s, uint32_t *mask);

/* Parses --weekdays: names (Mon, Tuesday, ...; any case) and ranges ("Mon-Fri", "Sat-Sun"), comma-separated. */
int mf_select_parse_weekdays(const char *s, unsigned *mask);

/* Parses --pool: pool names as mf_pool_parse takes them, comma-separated. */
int mf_select_parse_pools(const char *s, unsigned *mask);

/* Parses --system: system names (at most MF_SELECT_MAX_SYSTEMS of 1 to 15 characters), comma-separated. */
int mf_select_parse_systems(const char *s, struct mf_select *sel);

/* Why s is left out (names through tab), or MF_SELECT_KEEP. */
enum mf_select_why mf_select_check(const struct mf_select *sel, const struct mf_sample *s, const struct mf_strtab *tab);

/* A short description of a reason, for counts: "before --from", "outside --hours", ... */
const char *mf_select_reason(enum mf_select_why why);

/* The reason as a JSON key: "before_from", "after_to", "system", "pool", "hours", "weekdays", "no_start". */
const char *mf_select_key(enum mf_select_why why);

#endif
