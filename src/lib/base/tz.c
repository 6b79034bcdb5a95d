/* SPDX-License-Identifier: MIT */
/*
 * Time zones: UTC, fixed offsets, "smf" and IANA zones read from TZif files
 * (RFC 8536: version 1 32-bit data, then for version 2 and later the 64-bit
 * data and a POSIX TZ string for instants after the last transition).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mfstat/base/timefmt.h"
#include "mfstat/base/tz.h"

#define US_PER_S INT64_C(1000000)
#define MAX_OFFSET (14 * 3600)  /* fixed offsets: the widest in use is +14:00 */
#define MAX_ZONE_FILE (1 << 20) /* real TZif files are a few KiB */

enum kind { TZ_UTC, TZ_FIXED, TZ_SMF, TZ_ZONE };

/* A POSIX TZ rule date: Jn (1-365, no Feb 29), n (0-365) or Mm.w.d. */
struct rule_date {
	char form; /* 'J', 'n', 'M' */
	int m, w, d, n;
	int32_t time; /* seconds after local midnight (may be negative or past 24 h) */
};

/* The POSIX TZ string of a TZif footer: standard offset, and summer time when dst is set. */
struct posix_rule {
	bool valid, dst;
	int32_t std_off, dst_off; /* seconds east of UTC */
	struct rule_date start, end;
};

struct mf_tz {
	enum kind kind;
	int32_t fixed; /* TZ_FIXED */
	char name[128];
	size_t ntrans;
	int64_t *trans; /* transition instants (Unix seconds), ascending */
	uint8_t *idx;   /* their local time types */
	size_t ntypes;
	int32_t *utoff; /* per type: seconds east of UTC */
	struct posix_rule rule;
};

/* What a spec is, and what to give: option names the option ("--tz"); smf_ok, "smf" is one of them. */
struct spec_ctx {
	const char *option;
	bool smf_ok;
};

static int bad_spec(const struct spec_ctx *c, struct mf_error *err, const char *spec, const char *why)
{
	return mf_error_set(err, MF_EUSAGE, NULL, 0, 0,
			    "%s: '%s' %s (give UTC, +hh:mm, -hh:mm%s or a time zone name such as Europe/Berlin)",
			    c->option, spec, why, c->smf_ok ? ", smf" : "");
}

/* "+hh:mm", "-hh:mm", "+hhmm", "+hh": 0 with *off, else -1. */
static int parse_fixed(const char *s, int32_t *off)
{
	size_t n = strlen(s), i;
	int h, m = 0;
	if (n < 3 || (s[0] != '+' && s[0] != '-'))
		return -1;
	for (i = 1; i < n; i++)
		if ((s[i] < '0' || s[i] > '9') && !(i == 3 && s[i] == ':'))
			return -1;
	h = (s[1] - '0') * 10 + (s[2] - '0');
	if (n == 6 && s[3] == ':')
		m = (s[4] - '0') * 10 + (s[5] - '0');
	else if (n == 5 && s[3] != ':')
		m = (s[3] - '0') * 10 + (s[4] - '0');
	else if (n != 3)
		return -1;
	if (m > 59 || h * 3600 + m * 60 > MAX_OFFSET)
		return -1;
	*off = (h * 3600 + m * 60) * (s[0] == '-' ? -1 : 1);
	return 0;
}

/* Zone names: letters, digits, '_', '-', '+', '/' between parts; no "..", no leading '/'. */
static bool zone_name_ok(const char *s)
{
	size_t i, n = strlen(s);
	if (n == 0 || n >= 100 || s[0] == '/' || s[n - 1] == '/' || strstr(s, "..") || strstr(s, "//"))
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
		      c == '-' || c == '+' || c == '/' || c == '.'))
			return false;
	}
	return true;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const unsigned char *p)
{
	return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

/* ---- POSIX TZ strings (the TZif footer) ---- */

/* A zone abbreviation: three or more letters, or <...> of letters, digits, '+' and '-'. */
static const char *posix_name(const char *s)
{
	const char *p = s;
	if (*p == '<') {
		for (p++; *p && *p != '>'; p++)
			if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
			      *p == '+' || *p == '-'))
				return NULL;
		return *p == '>' && p - s >= 4 ? p + 1 : NULL;
	}
	while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z'))
		p++;
	return p - s >= 3 ? p : NULL;
}

/* [+-]hh[:mm[:ss]] with hours up to max: seconds into *v. */
static const char *posix_hms(const char *s, int max_h, int32_t *v)
{
	int sign = 1, part[3] = {0, 0, 0}, k;
	if (*s == '+' || *s == '-')
		sign = *s++ == '-' ? -1 : 1;
	for (k = 0; k < 3; k++) {
		int digits = 0;
		if (k > 0) {
			if (*s != ':')
				break;
			s++;
		}
		while (*s >= '0' && *s <= '9' && digits < 3) {
			part[k] = part[k] * 10 + (*s++ - '0');
			digits++;
		}
		if (!digits)
			return NULL;
	}
	if (part[0] > max_h || part[1] > 59 || part[2] > 59)
		return NULL;
	*v = sign * (part[0] * 3600 + part[1] * 60 + part[2]);
	return s;
}

static const char *posix_date(const char *s, struct rule_date *r)
{
	char *end;
	long a, b, c;
	r->time = 2 * 3600;
	if (*s == 'M') {
		a = strtol(s + 1, &end, 10);
		if (*end != '.' || a < 1 || a > 12)
			return NULL;
		b = strtol(end + 1, &end, 10);
		if (*end != '.' || b < 1 || b > 5)
			return NULL;
		c = strtol(end + 1, &end, 10);
		if (c < 0 || c > 6)
			return NULL;
		r->form = 'M';
		r->m = (int)a, r->w = (int)b, r->d = (int)c;
	} else {
		r->form = *s == 'J' ? 'J' : 'n';
		a = strtol(s + (r->form == 'J'), &end, 10);
		if (end == s + (r->form == 'J') || a < (r->form == 'J') || a > 365)
			return NULL;
		r->n = (int)a;
	}
	s = end;
	if (*s == '/') /* RFC 8536 allows -167 to 167 hours here */
		s = posix_hms(s + 1, 167, &r->time);
	return s;
}

/* Parses "STDoff[DST[off][,start[/time],end[/time]]]"; POSIX offsets are west positive. */
static bool posix_parse(const char *s, struct posix_rule *r)
{
	int32_t v;
	memset(r, 0, sizeof(*r));
	if (!(s = posix_name(s)) || !(s = posix_hms(s, 24, &v)))
		return false;
	r->std_off = -v;
	if (*s == '\0') {
		r->valid = true;
		return true;
	}
	if (!(s = posix_name(s)))
		return false;
	r->dst = true;
	r->dst_off = r->std_off + 3600;
	if (*s != ',' && *s != '\0') {
		if (!(s = posix_hms(s, 24, &v)))
			return false;
		r->dst_off = -v;
	}
	if (*s == '\0') { /* no rule: the US rule POSIX implementations assume */
		r->start = (struct rule_date){'M', 3, 2, 0, 0, 7200};
		r->end = (struct rule_date){'M', 11, 1, 0, 0, 7200};
		r->valid = true;
		return true;
	}
	if (*s++ != ',' || !(s = posix_date(s, &r->start)) || *s++ != ',' || !(s = posix_date(s, &r->end)) || *s)
		return false;
	r->valid = true;
	return true;
}

static bool leap_year(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* The local seconds since 1970 (of the zone's clock) at which a rule date of year y happens. */
static int64_t rule_local(const struct rule_date *r, int64_t y)
{
	int64_t day;
	if (r->form == 'J') {
		day = mf_days_from_civil(y, 1, 1) + r->n - 1;
		if (leap_year(y) && r->n >= 60)
			day++;
	} else if (r->form == 'n') {
		day = mf_days_from_civil(y, 1, 1) + r->n;
	} else {
		static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
		int64_t first = mf_days_from_civil(y, (unsigned)r->m, 1);
		int wd = (int)(((first % 7) + 11) % 7); /* 1970-01-01 was a Thursday: 0 Sunday .. 6 Saturday */
		int len = mdays[r->m - 1] + (r->m == 2 && leap_year(y));
		int d = 1 + (r->d - wd + 7) % 7 + (r->w - 1) * 7;
		while (d > len)
			d -= 7;
		day = first + d - 1;
	}
	return day * 86400 + r->time;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int32_t posix_offset(const struct posix_rule *r, int64_t t)
{
	int64_t y, start, end;
	unsigned m, d;
	if (!r->dst)
		return r->std_off;
	mf_civil_from_days(floor_div(t + r->std_off, 86400), &y, &m, &d);
	start = rule_local(&r->start, y) - r->std_off; /* the start is given in standard time */
	end = rule_local(&r->end, y) - r->dst_off;     /* the end in summer time */
	if (start < end)
		return t >= start && t < end ? r->dst_off : r->std_off;
	return t >= end && t < start ? r->std_off : r->dst_off; /* southern hemisphere: summer spans the new year */
}

/* ---- TZif ---- */

static int tzif_bad(struct mf_error *err, const char *path, size_t off, const char *what)
{
	int rc = mf_error_set(err, MF_EFORMAT, path, 0, 0, "not a valid TZif time zone file: %s", what);
	if (err)
		err->offset = (long long)off;
	return rc;
}

/* Parses the TZif data of buf[0..n) into tz. */
static int tzif_parse(struct mf_tz *tz, const unsigned char *buf, size_t n, const char *path, struct mf_error *err)
{
	uint32_t cnt[6];
	size_t pos = 0, i, tsize = 4, need;
	int version;

	for (;;) {
		if (n - pos < 44 || memcmp(buf + pos, "TZif", 4) != 0)
			return tzif_bad(err, path, pos, "no TZif header");
		version = buf[pos + 4] ? buf[pos + 4] - '0' : 1;
		for (i = 0; i < 6; i++)
			cnt[i] = be32(buf + pos + 20 + 4 * i);
		/* isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt */
		if (cnt[4] == 0 || cnt[4] > 256 || cnt[3] > 100000 || cnt[2] > 10000 || cnt[5] > 100000 ||
		    (cnt[0] && cnt[0] != cnt[4]) || (cnt[1] && cnt[1] != cnt[4]))
			return tzif_bad(err, path, pos + 20, "counts out of range");
		need = cnt[3] * tsize + cnt[3] + cnt[4] * 6 + cnt[5] + cnt[2] * (tsize + 4) + cnt[1] + cnt[0];
		pos += 44;
		if (n - pos < need)
			return tzif_bad(err, path, pos, "data shorter than its header says");
		if (tsize == 4 && version >= 2) { /* skip the 32-bit block: the 64-bit one follows */
			pos += need;
			tsize = 8;
			continue;
		}
		break;
	}
	tz->ntrans = cnt[3];
	tz->ntypes = cnt[4];
	tz->trans = malloc((tz->ntrans + 1) * sizeof(*tz->trans));
	tz->idx = malloc(tz->ntrans + 1);
	tz->utoff = malloc(tz->ntypes * sizeof(*tz->utoff));
	if (!tz->trans || !tz->idx || !tz->utoff)
		return mf_error_nomem(err, path, 0, "reading the zone's %zu transitions", (size_t)tz->ntrans);
	for (i = 0; i < tz->ntrans; i++) {
		tz->trans[i] = tsize == 8 ? be64(buf + pos + i * 8) : (int32_t)be32(buf + pos + i * 4);
		if (i && tz->trans[i] <= tz->trans[i - 1])
			return tzif_bad(err, path, pos + i * tsize, "transition times not ascending");
	}
	pos += tz->ntrans * tsize;
	for (i = 0; i < tz->ntrans; i++) {
		tz->idx[i] = buf[pos + i];
		if (tz->idx[i] >= tz->ntypes)
			return tzif_bad(err, path, pos + i, "a transition names a local time type that does not exist");
	}
	pos += tz->ntrans;
	for (i = 0; i < tz->ntypes; i++) {
		int32_t off = (int32_t)be32(buf + pos + i * 6);
		if (off <= -25 * 3600 || off >= 26 * 3600)
			return tzif_bad(err, path, pos + i * 6, "a UTC offset beyond 25 hours");
		tz->utoff[i] = off;
	}
	pos += need - tz->ntrans * tsize - tz->ntrans;
	/* Version 2+: "\n<POSIX TZ string>\n" for instants after the last transition. */
	if (tsize == 8 && pos < n && buf[pos] == '\n') {
		const unsigned char *end = memchr(buf + pos + 1, '\n', n - pos - 1);
		char footer[128];
		size_t len = end ? (size_t)(end - (buf + pos + 1)) : 0;
		if (!end || len >= sizeof(footer))
			return tzif_bad(err, path, pos, "footer without its closing newline");
		memcpy(footer, buf + pos + 1, len);
		footer[len] = '\0';
		if (len && !posix_parse(footer, &tz->rule))
			return tzif_bad(err, path, pos + 1, "footer is not a POSIX TZ string");
	}
	return 0;
}

/* Reads and parses the TZif file open as fp (named path), and closes it. */
static int file_read(struct mf_tz *tz, FILE *fp, const char *path, struct mf_error *err)
{
	unsigned char *buf;
	size_t n = 0;
	int rc;

	buf = malloc(MAX_ZONE_FILE);
	if (!buf) {
		fclose(fp);
		return mf_error_nomem(err, path, 0, "reading the zone file");
	}
	n = fread(buf, 1, MAX_ZONE_FILE, fp);
	if (ferror(fp))
		rc = mf_error_set(err, MF_EIO, path, 0, 0, "cannot read: %s", strerror(errno));
	else if (n == MAX_ZONE_FILE)
		rc = tzif_bad(err, path, MAX_ZONE_FILE, "larger than 1 MiB");
	else
		rc = tzif_parse(tz, buf, n, path, err);
	fclose(fp);
	free(buf);
	return rc;
}

/* The zone database's directory: dir, else $TZDIR, else /usr/share/zoneinfo. */
static const char *zone_dir(const char *dir)
{
	if (!dir)
		dir = getenv("TZDIR");
	return dir && *dir ? dir : "/usr/share/zoneinfo";
}

static int zone_load(const struct spec_ctx *c, struct mf_tz *tz, const char *spec, const char *dir,
		     struct mf_error *err)
{
	char path[512];
	FILE *fp;

	dir = zone_dir(dir);
	if (!zone_name_ok(spec))
		return bad_spec(c, err, spec, "is not a time zone name");
	snprintf(path, sizeof(path), "%s/%s", dir, spec);
	fp = fopen(path, "rb");
	if (!fp) {
		char why[600];
		snprintf(why, sizeof(why), "is not a time zone of %s (%s)", dir, strerror(errno));
		return bad_spec(c, err, spec, why);
	}
	return file_read(tz, fp, path, err);
}

int mf_tz_from_tzif(struct mf_tz **out, const char *name, const void *data, size_t len, struct mf_error *err)
{
	struct mf_tz *tz = calloc(1, sizeof(*tz));
	int rc;
	*out = NULL;
	if (!tz)
		return mf_error_nomem(err, name, 0, "opening the time zone");
	tz->kind = TZ_ZONE;
	snprintf(tz->name, sizeof(tz->name), "%s", name);
	rc = tzif_parse(tz, data, len, name, err);
	if (rc) {
		mf_tz_free(tz);
		return rc;
	}
	*out = tz;
	return 0;
}

static int tz_open(const struct spec_ctx *c, struct mf_tz **out, const char *spec, const char *dir,
		   struct mf_error *err)
{
	struct mf_tz *tz = calloc(1, sizeof(*tz));
	int rc = 0;

	*out = NULL;
	if (!tz)
		return mf_error_nomem(err, NULL, 0, "opening the time zone");
	if (!spec || !*spec) {
		rc = bad_spec(c, err, spec ? spec : "", "is empty");
	} else if (!strcmp(spec, "UTC") || !strcmp(spec, "utc") || !strcmp(spec, "Z") || !strcmp(spec, "GMT")) {
		tz->kind = TZ_UTC;
		snprintf(tz->name, sizeof(tz->name), "UTC");
	} else if (!strcmp(spec, "smf") || !strcmp(spec, "SMF")) {
		tz->kind = TZ_SMF;
		snprintf(tz->name, sizeof(tz->name), "smf");
		if (!c->smf_ok)
			rc = bad_spec(c, err, spec,
				      "is the offset each SMF record carries, not a zone of wall-clock times");
	} else if (spec[0] == '+' || spec[0] == '-') {
		if (parse_fixed(spec, &tz->fixed)) {
			rc = bad_spec(c, err, spec, "is not an offset +hh:mm or -hh:mm of at most 14 hours");
		} else {
			tz->kind = TZ_FIXED;
			mf_tz_offset_text(tz->fixed, tz->name, sizeof(tz->name));
		}
	} else {
		tz->kind = TZ_ZONE;
		snprintf(tz->name, sizeof(tz->name), "%s", spec);
		rc = zone_load(c, tz, spec, dir, err);
	}
	if (rc) {
		mf_tz_free(tz);
		return rc;
	}
	*out = tz;
	return 0;
}

int mf_tz_open(struct mf_tz **out, const char *spec, const char *dir, struct mf_error *err)
{
	const struct spec_ctx c = {"--tz", true};
	return tz_open(&c, out, spec, dir, err);
}

int mf_tz_open_wall(struct mf_tz **out, const char *spec, const char *dir, const char *option, struct mf_error *err)
{
	const struct spec_ctx c = {option, false};
	return tz_open(&c, out, spec, dir, err);
}

/* A zone named name (a TZ string, a path) from the TZif file path: 0, or the error (MF_EUSAGE when it cannot be opened: what names it). */
static int local_file(struct mf_tz *tz, const char *path, const char *what, struct mf_error *err)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return mf_error_set(err, MF_EUSAGE, NULL, 0, 0, "%s: cannot open %s: %s", what, path, strerror(errno));
	return file_read(tz, fp, path, err);
}

/* The zone name of a path into the zone database (".../zoneinfo/Europe/Berlin"), else the path. */
static void name_of_path(struct mf_tz *tz, const char *path)
{
	const char *z = strstr(path, "zoneinfo/"), *next;
	while (z && (next = strstr(z + 9, "zoneinfo/")) != NULL)
		z = next;
	const char *name = z && z[9] ? z + 9 : path;
	size_t len = strnlen(name, sizeof(tz->name) - 1); /* a longer path is cut: the name is for messages */
	memcpy(tz->name, name, len);
	tz->name[len] = '\0';
}

int mf_tz_open_local(struct mf_tz **out, const char *tz_env, const char *localtime, const char *dir, char *from,
		     size_t n, struct mf_error *err)
{
	struct mf_tz *tz = calloc(1, sizeof(*tz));
	int rc = 0;

	*out = NULL;
	if (!tz)
		return mf_error_nomem(err, NULL, 0, "opening the time zone");
	if (!localtime)
		localtime = "/etc/localtime";
	tz->kind = TZ_ZONE;
	if (tz_env) {
		const char *spec = tz_env[0] == ':' ? tz_env + 1 : tz_env;
		snprintf(from, n, "$TZ");
		if (!*spec || !strcmp(spec, "UTC") || !strcmp(spec, "GMT")) {
			/* The C library's UTC for an empty TZ, as for the names. */
			tz->kind = TZ_UTC;
			snprintf(tz->name, sizeof(tz->name), "UTC");
		} else if (spec[0] == '/') {
			rc = local_file(tz, spec, "$TZ", err);
			name_of_path(tz, spec);
		} else {
			char path[512];
			FILE *fp = NULL;
			dir = zone_dir(dir);
			if (zone_name_ok(spec)) {
				snprintf(path, sizeof(path), "%s/%s", dir, spec);
				fp = fopen(path, "rb");
			}
			snprintf(tz->name, sizeof(tz->name), "%s", spec);
			if (fp) {
				rc = file_read(tz, fp, path, err);
			} else if (!posix_parse(spec, &tz->rule)) {
				/* The C library would take UTC without a word: mfstat says so and stops. */
				rc = mf_error_set(err, MF_EUSAGE, NULL, 0, 0,
						  "$TZ '%s' is neither a time zone of %s nor a POSIX TZ string such as "
						  "CET-1CEST,M3.5.0,M10.5.0/3",
						  spec, dir);
			}
		}
	} else {
		char link[512];
		ssize_t k;
		FILE *fp = fopen(localtime, "rb");
		if (!fp && errno == ENOENT) {
			/* Neither: the C library's UTC. */
			tz->kind = TZ_UTC;
			snprintf(tz->name, sizeof(tz->name), "UTC");
			snprintf(from, n, "no $TZ and no %s", localtime);
		} else if (!fp) {
			rc = mf_error_set(err, MF_EIO, localtime, 0, 0, "cannot open: %s", strerror(errno));
		} else {
			snprintf(from, n, "%s", localtime);
			/* Its name: where it links into the zone database ("Europe/Berlin"), else its path. */
			k = readlink(localtime, link, sizeof(link) - 1);
			if (k > 0)
				link[k] = '\0';
			name_of_path(tz, k > 0 ? link : localtime);
			rc = file_read(tz, fp, localtime, err);
		}
	}
	if (rc) {
		mf_tz_free(tz);
		return rc;
	}
	*out = tz;
	return 0;
}

void mf_tz_free(struct mf_tz *tz)
{
	if (!tz)
		return;
	free(tz->trans);
	free(tz->idx);
	free(tz->utoff);
	free(tz);
}

const char *mf_tz_name(const struct mf_tz *tz)
{
	return tz->name;
}

bool mf_tz_per_record(const struct mf_tz *tz)
{
	return tz->kind == TZ_SMF;
}

bool mf_tz_is_utc(const struct mf_tz *tz)
{
	return tz->kind == TZ_UTC;
}

int32_t mf_tz_offset(const struct mf_tz *tz, int64_t utc_us)
{
	int64_t t = floor_div(utc_us, US_PER_S);
	size_t lo = 0, hi;

	switch (tz->kind) {
	case TZ_FIXED: return tz->fixed;
	case TZ_ZONE: break;
	default: return 0;
	}
	if (tz->ntrans == 0 || t < tz->trans[0]) {
		/* Before the first transition: type 0 (RFC 8536), or the rule when there is no table. */
		if (tz->ntrans == 0 && tz->rule.valid)
			return posix_offset(&tz->rule, t);
		return tz->utoff[0];
	}
	if (t >= tz->trans[tz->ntrans - 1] && tz->rule.valid)
		return posix_offset(&tz->rule, t);
	hi = tz->ntrans;
	while (hi - lo > 1) { /* the last transition at or before t */
		size_t mid = (lo + hi) / 2;
		if (tz->trans[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return tz->utoff[tz->idx[lo]];
}

void mf_tz_offset_text(int32_t off_s, char *buf, size_t n)
{
	int32_t a = off_s < 0 ? -off_s : off_s;
	if (a % 60)
		snprintf(buf, n, "%c%02d:%02d:%02d", off_s < 0 ? '-' : '+', (int)(a / 3600), (int)(a / 60 % 60),
			 (int)(a % 60));
	else
		snprintf(buf, n, "%c%02d:%02d", off_s < 0 ? '-' : '+', (int)(a / 3600), (int)(a / 60 % 60));
}

int64_t mf_tz_utc_of_local(const struct mf_tz *tz, int64_t local_us)
{
	/* The offset before a change applies up to it: try the offset of a day earlier first. */
	int32_t before = mf_tz_offset(tz, local_us - 86400 * US_PER_S);
	int64_t utc = local_us - (int64_t)before * US_PER_S;
	int32_t at = mf_tz_offset(tz, utc);
	if (at != before) {
		int64_t utc2 = local_us - (int64_t)at * US_PER_S;
		/* A wall time that exists with the new offset (after the change) takes it. */
		if (mf_tz_offset(tz, utc2) == at)
			utc = utc2;
	}
	return utc;
}

/* d as exactly w digits at p (d >= 0, less than 10^w). */
static char *digits(char *p, long long d, int w)
{
	int i;
	for (i = w - 1; i >= 0; i--) {
		p[i] = (char)('0' + d % 10);
		d /= 10;
	}
	return p + w;
}

void mf_time_format_at(int64_t utc_us, int32_t off_s, bool utc, char *buf, size_t n)
{
	int64_t local = utc_us + (utc ? 0 : (int64_t)off_s * US_PER_S), days, rem, y, us;
	unsigned m, d;
	int32_t a = off_s < 0 ? -off_s : off_s;
	char out[48], *p = out;

	days = floor_div(local, 86400 * US_PER_S);
	rem = local - days * 86400 * US_PER_S;
	mf_civil_from_days(days, &y, &m, &d);
	us = rem % US_PER_S;
	if (y < 0 || y > 9999) { /* beyond four digits: printf's way */
		char frac[16] = "", zone[16];
		if (us)
			snprintf(frac, sizeof(frac), ".%06lld", (long long)us);
		if (utc)
			snprintf(zone, sizeof(zone), "Z");
		else if (a % 60)
			snprintf(zone, sizeof(zone), "%c%02d:%02d:%02d", off_s < 0 ? '-' : '+', (int)(a / 3600 % 100),
				 (int)(a / 60 % 60), (int)(a % 60));
		else
			snprintf(zone, sizeof(zone), "%c%02d:%02d", off_s < 0 ? '-' : '+', (int)(a / 3600 % 100),
				 (int)(a / 60 % 60));
		snprintf(buf, n, "%04lld-%02u-%02uT%02lld:%02lld:%02lld%s%s", (long long)y, m, d,
			 (long long)(rem / (3600 * US_PER_S)), (long long)(rem / (60 * US_PER_S) % 60),
			 (long long)(rem / US_PER_S % 60), frac, zone);
		return;
	}
	/*
	 * YYYY-MM-DDTHH:MM:SS[.ffffff](Z|+HH:MM[:SS]), written digit by digit (a CSV report writes three
	 * a row).
	 */
	p = digits(p, y, 4);
	*p++ = '-';
	p = digits(p, m, 2);
	*p++ = '-';
	p = digits(p, d, 2);
	*p++ = 'T';
	p = digits(p, rem / (3600 * US_PER_S), 2);
	*p++ = ':';
	p = digits(p, rem / (60 * US_PER_S) % 60, 2);
	*p++ = ':';
	p = digits(p, rem / US_PER_S % 60, 2);
	if (us) {
		*p++ = '.';
		p = digits(p, us, 6);
	}
	if (utc) {
		*p++ = 'Z';
	} else {
		*p++ = off_s < 0 ? '-' : '+';
		p = digits(p, a / 3600 % 100, 2);
		*p++ = ':';
		p = digits(p, a / 60 % 60, 2);
		if (a % 60) { /* local mean time (LMT) had seconds: Africa/Monrovia was -00:44:30 until 1972 */
			*p++ = ':';
			p = digits(p, a % 60, 2);
		}
	}
	*p = '\0';
	if (n) {
		size_t len = (size_t)(p - out) < n - 1 ? (size_t)(p - out) : n - 1;
		memcpy(buf, out, len);
		buf[len] = '\0';
	}
}

/* ---- calendar ---- */

int mf_cal_weekday(int64_t local_us)
{
	int64_t days = floor_div(local_us, 86400 * US_PER_S);
	return (int)(((days % 7) + 10) % 7); /* 1970-01-01 was a Thursday (3 with Monday 0) */
}

int mf_cal_hour(int64_t local_us)
{
	return (int)(floor_div(local_us, 3600 * US_PER_S) % 24 + 24) % 24;
}

int64_t mf_cal_key(enum mf_cal c, int64_t local_us)
{
	int64_t days = floor_div(local_us, 86400 * US_PER_S), y;
	unsigned m, d;
	switch (c) {
	case MF_CAL_HOUR: return floor_div(local_us, 3600 * US_PER_S);
	case MF_CAL_DAY: return days;
	case MF_CAL_WEEK: return days - mf_cal_weekday(local_us);
	case MF_CAL_MONTH: mf_civil_from_days(days, &y, &m, &d); return y * 12 + (m - 1);
	case MF_CAL_HOUR_OF_DAY: return mf_cal_hour(local_us);
	case MF_CAL_WEEKDAY: return mf_cal_weekday(local_us);
	}
	return 0;
}

/* Offsets are kept in seconds, each hour a range of 2^18 of them (over +-36 h, no zone's). */
#define HOUR_OFF_SPAN (INT64_C(1) << 18)
#define HOUR_OFF_MAX (HOUR_OFF_SPAN / 2 - 1)

int64_t mf_cal_hour_key(int64_t local_us, int32_t off_s)
{
	int64_t off = off_s > HOUR_OFF_MAX ? HOUR_OFF_MAX : off_s < -HOUR_OFF_MAX ? -HOUR_OFF_MAX : off_s;
	return mf_cal_key(MF_CAL_HOUR, local_us) * HOUR_OFF_SPAN + (HOUR_OFF_MAX - off);
}

void mf_cal_hour_format(int64_t key, bool utc, char *buf, size_t n)
{
	int64_t hour = floor_div(key, HOUR_OFF_SPAN);
	int64_t off = HOUR_OFF_MAX - (key - hour * HOUR_OFF_SPAN);
	char day[32];
	size_t used;
	mf_cal_format(MF_CAL_HOUR, hour, day, sizeof(day));
	if (utc || !n) {
		snprintf(buf, n, "%s", day);
		return;
	}
	used = (size_t)snprintf(buf, n, "%s:00%c%02lld:%02lld", day, off < 0 ? '-' : '+',
				(long long)(llabs(off) / 3600), (long long)(llabs(off) / 60 % 60));
	if (used < n && llabs(off) % 60)
		snprintf(buf + used, n - used, ":%02lld", (long long)(llabs(off) % 60));
}

void mf_cal_format(enum mf_cal c, int64_t key, char *buf, size_t n)
{
	static const char *const wd[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
	int64_t y;
	unsigned m, d;
	switch (c) {
	case MF_CAL_HOUR:
		mf_civil_from_days(floor_div(key, 24), &y, &m, &d);
		snprintf(buf, n, "%04lld-%02u-%02uT%02d", (long long)y, m, d, (int)(key - floor_div(key, 24) * 24));
		return;
	case MF_CAL_DAY:
		mf_civil_from_days(key, &y, &m, &d);
		snprintf(buf, n, "%04lld-%02u-%02u", (long long)y, m, d);
		return;
	case MF_CAL_WEEK: {
		/* ISO 8601: the week belongs to the year of its Thursday. */
		int64_t thu = key + 3;
		mf_civil_from_days(thu, &y, &m, &d);
		snprintf(buf, n, "%04lld-W%02lld", (long long)y,
			 (long long)((thu - mf_days_from_civil(y, 1, 1)) / 7 + 1));
		return;
	}
	case MF_CAL_MONTH:
		snprintf(buf, n, "%04lld-%02lld", (long long)floor_div(key, 12),
			 (long long)(key - floor_div(key, 12) * 12 + 1));
		return;
	case MF_CAL_HOUR_OF_DAY: snprintf(buf, n, "%02lld", (long long)key); return;
	case MF_CAL_WEEKDAY: snprintf(buf, n, "%s", key >= 0 && key < 7 ? wd[key] : "?"); return;
	}
	if (n)
		buf[0] = '\0';
}
