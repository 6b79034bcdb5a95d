/* SPDX-License-Identifier: MIT */
/* Selection of intervals before grouping: time range, systems, pools, hours of the day, weekdays. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mfstat/report/select.h"
#include "mfstat/base/timefmt.h"

#define US_PER_S INT64_C(1000000)

bool mf_select_active(const struct mf_select *sel)
{
	return sel->has_from || sel->has_to || sel->hours || sel->weekdays || sel->pools || sel->nsystems;
}

int mf_select_parse_time(const char *s, const struct mf_tz *tz, int64_t *us)
{
	size_t n = strlen(s);
	if (n == 10) {
		/* A date alone: midnight in the report's zone. */
		char buf[32];
		int64_t local;
		snprintf(buf, sizeof(buf), "%sT00:00:00Z", s);
		if (mf_time_parse(buf, strlen(buf), &local))
			return -1;
		*us = tz && !mf_tz_per_record(tz) ? mf_tz_utc_of_local(tz, local) : local;
		return 0;
	}
	return mf_time_parse(s, n, us) ? -1 : 0;
}

bool mf_select_time_local(const char *s, const struct mf_tz *tz)
{
	return tz && mf_tz_per_record(tz) && strlen(s) == 10;
}

/* A number 0..max at *p (one or two digits): 0 with *v, else -1. */
static int small_number(const char **p, int max, int *v)
{
	const char *s = *p;
	int n = 0, digits = 0;
	while (*s >= '0' && *s <= '9' && digits < 2) {
		n = n * 10 + (*s++ - '0');
		digits++;
	}
	if (!digits || n > max || (*s >= '0' && *s <= '9'))
		return -1;
	if (s[0] == ':' && s[1] == '0' && s[2] == '0' && !(s[3] >= '0' && s[3] <= '9'))
		s += 3; /* "8:00-17:00": whole hours as a clock shows them */
	*v = n;
	*p = s;
	return 0;
}

int mf_select_parse_hours(const char *s, uint32_t *mask)
{
	const char *p = s;
	*mask = 0;
	if (!*p)
		return -1;
	for (;;) {
		int a, b, h;
		if (small_number(&p, 23, &a))
			return -1;
		if (*p == '-') {
			p++;
			if (small_number(&p, 24, &b) || a == b)
				return -1;
			h = a;
			do { /* "22-6" wraps past midnight; "0-24" is every hour */
				*mask |= UINT32_C(1) << h;
				h = (h + 1) % 24;
			} while (h != b % 24);
		} else {
			*mask |= UINT32_C(1) << a;
		}
		if (*p == '\0')
			return 0;
		if (*p++ != ',')
			return -1;
	}
}

/* A weekday name or its first three letters: 0 (Monday) .. 6, or -1. */
static int weekday(const char *s, size_t len)
{
	static const char *const names[] = {"monday", "tuesday",  "wednesday", "thursday",
					    "friday", "saturday", "sunday"};
	int d;
	for (d = 0; d < 7; d++)
		if ((len == 3 || len == strlen(names[d])) && strncasecmp(names[d], s, len) == 0)
			return d;
	return -1;
}

int mf_select_parse_weekdays(const char *s, unsigned *mask)
{
	const char *p = s;
	*mask = 0;
	if (!*p)
		return -1;
	for (;;) {
		size_t len = strcspn(p, ",-");
		int a = weekday(p, len), b, d;
		if (a < 0)
			return -1;
		p += len;
		b = a;
		if (*p == '-') {
			p++;
			len = strcspn(p, ",-");
			b = weekday(p, len);
			if (b < 0)
				return -1;
			p += len;
		}
		for (d = a;; d = (d + 1) % 7) { /* "Sat-Mon" wraps past Sunday */
			*mask |= 1u << d;
			if (d == b)
				break;
		}
		if (*p == '\0')
			return 0;
		if (*p++ != ',')
			return -1;
	}
}

int mf_select_parse_pools(const char *s, unsigned *mask)
{
	const char *p = s;
	*mask = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		int pool = mf_pool_parse(p, len);
		if (pool < 0)
			return -1;
		*mask |= 1u << pool;
		if (p[len] == '\0')
			return 0;
		p += len + 1;
	}
}

int mf_select_parse_systems(const char *s, struct mf_select *sel)
{
	const char *p = s;
	sel->nsystems = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		if (len == 0 || len >= sizeof(sel->systems[0]) || sel->nsystems == MF_SELECT_MAX_SYSTEMS)
			return -1;
		memcpy(sel->systems[sel->nsystems], p, len);
		sel->systems[sel->nsystems++][len] = '\0';
		if (p[len] == '\0')
			return 0;
		p += len + 1;
	}
}

enum mf_select_why mf_select_check(const struct mf_select *sel, const struct mf_sample *s, const struct mf_strtab *tab)
{
	if (sel->nsystems) {
		const char *name = s->system ? mf_strtab_get(tab, s->system) : NULL;
		size_t i;
		for (i = 0; name && i < sel->nsystems; i++)
			if (strcasecmp(sel->systems[i], name) == 0)
				break;
		if (!name || i == sel->nsystems)
			return MF_SELECT_SYSTEM;
	}
	if (sel->pools && !(s->pool >= 0 && s->pool < 32 && (sel->pools & (1u << s->pool))))
		return MF_SELECT_POOL;
	if (!(sel->has_from || sel->has_to || sel->hours || sel->weekdays))
		return MF_SELECT_KEEP;
	if (!s->has_start)
		return MF_SELECT_NO_START;
	if (sel->has_from || sel->has_to || sel->hours || sel->weekdays) {
		int32_t off = 0;
		int64_t local;
		if (sel->tz && mf_tz_per_record(sel->tz))
			off = s->has_offset ? s->utc_offset_s : 0;
		else if (sel->tz)
			off = mf_tz_offset(sel->tz, s->start_us);
		local = s->start_us + (int64_t)off * US_PER_S;
		if (sel->has_from && (sel->from_local ? local : s->start_us) < sel->from_us)
			return MF_SELECT_BEFORE;
		if (sel->has_to && (sel->to_local ? local : s->start_us) >= sel->to_us)
			return MF_SELECT_AFTER;
		if (sel->hours && !(sel->hours & (UINT32_C(1) << mf_cal_hour(local))))
			return MF_SELECT_HOURS;
		if (sel->weekdays && !(sel->weekdays & (1u << mf_cal_weekday(local))))
			return MF_SELECT_WEEKDAYS;
	}
	return MF_SELECT_KEEP;
}

const char *mf_select_reason(enum mf_select_why why)
{
	switch (why) {
	case MF_SELECT_KEEP: return "kept";
	case MF_SELECT_BEFORE: return "before --from";
	case MF_SELECT_AFTER: return "at or after --to";
	case MF_SELECT_SYSTEM: return "other systems (--system)";
	case MF_SELECT_POOL: return "other pools (--pool)";
	case MF_SELECT_HOURS: return "outside --hours";
	case MF_SELECT_WEEKDAYS: return "outside --weekdays";
	case MF_SELECT_NO_START: return "no interval start (a time selection needs one)";
	case MF_SELECT_NREASONS: break;
	}
	return "?";
}

const char *mf_select_key(enum mf_select_why why)
{
	static const char *const keys[] = {"kept", "before_from", "after_to", "system",
					   "pool", "hours",       "weekdays", "no_start"};
	return (unsigned)why < sizeof(keys) / sizeof(keys[0]) ? keys[why] : "?";
}
