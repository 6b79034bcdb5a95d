/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "mfstat/base/timefmt.h"

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
int64_t mf_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;
	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

void mf_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era;
	unsigned doe, yoe, doy, mp;
	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static int digits(const char *s, size_t len, size_t *i, size_t n, long *v)
{
	size_t k;
	*v = 0;
	if (*i + n > len)
		return -1;
	for (k = 0; k < n; k++) {
		char c = s[*i + k];
		if (c < '0' || c > '9')
			return -1;
		*v = *v * 10 + (c - '0');
	}
	*i += n;
	return 0;
}

int mf_time_parse(const char *s, size_t len, int64_t *us)
{
	static const unsigned mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	size_t i = 0;
	long y, mo, d, h, mi, sec = 0, frac = 0, tzh = 0, tzm = 0;
	int tzsign = 0;

	if (digits(s, len, &i, 4, &y) || i >= len || s[i++] != '-' || digits(s, len, &i, 2, &mo) || i >= len ||
	    s[i++] != '-' || digits(s, len, &i, 2, &d))
		return -1;
	if (i >= len || (s[i] != 'T' && s[i] != ' '))
		return -1;
	i++;
	if (digits(s, len, &i, 2, &h) || i >= len || s[i++] != ':' || digits(s, len, &i, 2, &mi))
		return -1;
	if (i < len && s[i] == ':') {
		i++;
		if (digits(s, len, &i, 2, &sec))
			return -1;
		if (i < len && (s[i] == '.' || s[i] == ',')) {
			long scale = 100000;
			i++;
			if (i >= len || s[i] < '0' || s[i] > '9')
				return -1;
			while (i < len && s[i] >= '0' && s[i] <= '9') {
				frac += (s[i] - '0') * scale; /* digits past microseconds are dropped */
				scale /= 10;
				i++;
			}
		}
	}
	if (i < len && s[i] == 'Z') {
		i++;
	} else if (i < len && (s[i] == '+' || s[i] == '-')) {
		tzsign = s[i] == '-' ? -1 : 1;
		i++;
		if (digits(s, len, &i, 2, &tzh))
			return -1;
		if (i < len && s[i] == ':')
			i++;
		if (digits(s, len, &i, 2, &tzm))
			return -1;
	}
	if (i != len)
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || (unsigned long)d > mdays[mo - 1] ||
	    (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) || h > 23 || mi > 59 || sec > 60 ||
	    tzh > 23 || tzm > 59)
		return -1;
	*us = ((mf_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + sec) -
	       tzsign * (tzh * 3600 + tzm * 60)) *
		      1000000 +
	      frac;
	return 0;
}

void mf_time_format(int64_t us, char *buf, size_t n)
{
	/* Floor division and its remainder for every int64_t, INT64_MIN included (no negation,
	 * no product that could overflow). */
	int64_t secs = us / 1000000 - (us % 1000000 < 0);
	int64_t frac = us % 1000000 + (us % 1000000 < 0 ? 1000000 : 0);
	int64_t days = secs / 86400 - (secs % 86400 < 0);
	int64_t rem = secs % 86400 + (secs % 86400 < 0 ? 86400 : 0);
	int64_t y64;
	int y;
	unsigned m, d;

	mf_civil_from_days(days, &y64, &m, &d);
	y = (int)y64;
	if (frac)
		snprintf(buf, n, "%04d-%02u-%02uT%02d:%02d:%02d.%06dZ", y, m, d, (int)(rem / 3600),
			 (int)(rem / 60 % 60), (int)(rem % 60), (int)frac);
	else
		snprintf(buf, n, "%04d-%02u-%02uT%02d:%02d:%02dZ", y, m, d, (int)(rem / 3600), (int)(rem / 60 % 60),
			 (int)(rem % 60));
}
