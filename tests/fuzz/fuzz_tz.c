/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the planner's parsers.  The first byte picks one: a TZif zone
 * file (then offsets and local-to-UTC at instants across its range), a --tz
 * spec that is not a zone name, the --hours, --weekdays, --pool, --system and
 * --from parsers, or diff's --before/--after range.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mfstat/base/tz.h"
#include "mfstat/report/diff.h"
#include "mfstat/report/select.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void zone(const uint8_t *data, size_t size)
{
	struct mf_tz *tz;
	struct mf_error e;
	int64_t t;
	if (mf_tz_from_tzif(&tz, "fuzz", data, size, &e))
		return;
	/* Every few weeks from 1900 to 2100, and the extremes. */
	for (t = INT64_C(-2208988800); t < INT64_C(4102444800); t += 86400 * 23 + 3607) {
		int32_t off = mf_tz_offset(tz, t * 1000000);
		(void)mf_tz_utc_of_local(tz, t * 1000000 + (int64_t)off * 1000000);
	}
	(void)mf_tz_offset(tz, INT64_MIN / 2);
	(void)mf_tz_offset(tz, INT64_MAX / 2);
	mf_tz_free(tz);
}

static void strings(uint8_t mode, const char *s)
{
	struct mf_select sel;
	struct mf_tz *tz = NULL;
	struct mf_error e;
	uint32_t h;
	unsigned m;
	int64_t a, b;
	memset(&sel, 0, sizeof(sel));
	switch (mode % 6) {
	case 0:
		/* Specs that do not name a file of the zone database (that would read the disk). */
		if (s[0] == '+' || s[0] == '-' || !strcmp(s, "UTC") || !strcmp(s, "smf")) {
			if (mf_tz_open(&tz, s, "/nonexistent", &e) == 0)
				mf_tz_free(tz);
		}
		break;
	case 1: (void)mf_select_parse_hours(s, &h); break;
	case 2: (void)mf_select_parse_weekdays(s, &m); break;
	case 3:
		(void)mf_select_parse_pools(s, &m);
		(void)mf_select_parse_systems(s, &sel);
		break;
	case 4: (void)mf_select_parse_time(s, NULL, &a); break;
	default: (void)mf_diff_parse_range(s, NULL, &a, &b); break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	if (size < 1)
		return 0;
	if (data[0] == 'T') { /* "TZif..." files start with their magic */
		zone(data, size);
		return 0;
	}
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	strings(data[0], s);
	free(s);
	return 0;
}
