/* SPDX-License-Identifier: MIT */
/*
 * UTF-8 validation and the JSON, CSV and XML/HTML escapers (include/mfstat/base/escape.h).
 * Each escaper walks the text one code point at a time and copies runs of bytes
 * that need no change in one piece, so plain text costs a scan and a copy.
 */
#include "mfstat/base/escape.h"

#include <string.h>

/*
 * What the walk passes for a byte that does not start a valid sequence: above any code point,
 * BAD_BYTE plus the byte's value (0x80..0xFF: every byte below 0x80 is a valid sequence).
 */
#define BAD_BYTE 0x110000u

size_t mf_utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned b, lo = 0x80, hi = 0xBF;
	size_t len, i;
	uint32_t v;

	if (n == 0)
		return 0;
	b = p[0];
	if (b < 0x80) {
		len = 1;
		v = b;
		goto done;
	}
	/*
	 * The second byte's range rules out, with no arithmetic afterwards, what a
	 * lead byte alone cannot: E0 80..9F and F0 80..8F are overlong, ED A0..BF
	 * are surrogates, F4 90..BF are above U+10FFFF.  C0, C1 and F5..FF never
	 * start a sequence.
	 */
	if (b >= 0xC2 && b <= 0xDF) {
		len = 2;
		v = b & 0x1F;
	} else if (b >= 0xE0 && b <= 0xEF) {
		len = 3;
		v = b & 0x0F;
		if (b == 0xE0)
			lo = 0xA0;
		else if (b == 0xED)
			hi = 0x9F;
	} else if (b >= 0xF0 && b <= 0xF4) {
		len = 4;
		v = b & 0x07;
		if (b == 0xF0)
			lo = 0x90;
		else if (b == 0xF4)
			hi = 0x8F;
	} else {
		return 0;
	}
	for (i = 1; i < len; i++) {
		unsigned c;
		if (i >= n)
			return 0; /* cut short */
		c = p[i];
		if (c < lo || c > hi) /* also stops at a NUL */
			return 0;
		lo = 0x80, hi = 0xBF;
		v = (v << 6) | (c & 0x3F);
	}
done:
	if (cp)
		*cp = v;
	return len;
}

bool mf_utf8_valid(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t len;
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		len = mf_utf8_decode(s + i, n - i, NULL);
		if (!len)
			return false;
		i += len;
	}
	return true;
}

/* ---- where the text goes: a buffer or a stream ------------------------------------------ */

struct sink {
	struct mf_strbuf *sb;
	FILE *fp;
};

static void put(const struct sink *k, const char *p, size_t n)
{
	if (!n)
		return;
	if (k->sb)
		mf_strbuf_add(k->sb, p, n);
	else
		fwrite(p, 1, n, k->fp);
}

/*
 * The replacement for one code point (or BAD_BYTE + the byte), or NULL to keep
 * its bytes.  tmp has room for 8 bytes for replacements made on the fly; mode
 * is the walk's, for maps that have several.
 */
typedef const char *(*map_fn)(uint32_t cp, char *tmp, unsigned mode);

static const char hexdig[] = "0123456789abcdef";

/* "\xNN" (when u is 0) or "\u00NN" for the byte or code point b (below 0x100) in tmp. */
static const char *hex_escape(char *tmp, unsigned b, bool u)
{
	size_t i = 0;
	tmp[i++] = '\\';
	if (u) {
		memcpy(tmp + i, "u00", 3);
		i += 3;
	} else {
		tmp[i++] = 'x';
	}
	tmp[i++] = hexdig[(b >> 4) & 15];
	tmp[i++] = hexdig[b & 15];
	tmp[i] = '\0';
	return tmp;
}

/* Writes s[0..n) through map. */
static void walk(const struct sink *k, const char *s, size_t n, map_fn map, unsigned mode)
{
	size_t i = 0, run = 0;

	while (i < n) {
		uint32_t cp;
		size_t len = mf_utf8_decode(s + i, n - i, &cp);
		const char *rep;
		char tmp[8];

		if (!len) {
			len = 1;
			cp = BAD_BYTE + (unsigned char)s[i];
		}
		rep = map(cp, tmp, mode);
		if (rep) {
			put(k, s + run, i - run);
			put(k, rep, strlen(rep));
			run = i + len;
		}
		i += len;
	}
	put(k, s + run, i - run);
}

#define FFFD "\xEF\xBF\xBD"

/* ---- JSON --------------------------------------------------------------------------------- */

static const char *json_map(uint32_t cp, char *tmp, unsigned mode)
{
	(void)mode;
	if (cp >= BAD_BYTE)
		return "\\ufffd";
	switch (cp) {
	case '"': return "\\\"";
	case '\\': return "\\\\";
	case '\n': return "\\n";
	case '\r': return "\\r";
	case '\t': return "\\t";
	default: break;
	}
	if (cp >= 0x20 && cp != 0x7F)
		return NULL;
	return hex_escape(tmp, cp, true);
}

static void json(const struct sink *k, const char *s)
{
	if (!s) {
		put(k, "null", 4);
		return;
	}
	put(k, "\"", 1);
	walk(k, s, strlen(s), json_map, 0);
	put(k, "\"", 1);
}

void mf_escape_json(struct mf_strbuf *sb, const char *s)
{
	struct sink k = {.sb = sb};
	json(&k, s);
}

void mf_escape_json_file(FILE *fp, const char *s)
{
	struct sink k = {.fp = fp};
	json(&k, s);
}

/* ---- CSV ---------------------------------------------------------------------------------- */

/* The walk's modes for a CSV cell. */
enum {
	CSV_QUOTED = 1,   /* in double quotes: " doubled */
	CSV_TERMINAL = 2, /* control characters as \xNN, C1 controls as \u00NN, bad bytes as \xNN */
	CSV_ENCODED = 4,  /* a data cell after its ': \ doubled, bad bytes as \xNN */
};

static const char *csv_map(uint32_t cp, char *tmp, unsigned mode)
{
	if (cp >= BAD_BYTE)
		return mode & (CSV_TERMINAL | CSV_ENCODED) ? hex_escape(tmp, cp - BAD_BYTE, false) : FFFD;
	if (cp == '"' && (mode & CSV_QUOTED))
		return "\"\"";
	if (cp == '\\' && (mode & CSV_ENCODED))
		return "\\\\";
	if ((mode & CSV_TERMINAL) && (cp < 0x20 || cp == 0x7F))
		return hex_escape(tmp, cp, false);
	if ((mode & CSV_TERMINAL) && cp >= 0x80 && cp <= 0x9F)
		return hex_escape(tmp, cp, true);
	return NULL;
}

/* What a spreadsheet takes for the start of a formula (OWASP "CSV injection"). */
static bool formula_start(char c)
{
	return c && strchr("=+-@\t\r", c) != NULL;
}

static void csv(const struct sink *k, const char *s, unsigned flags)
{
	size_t n;
	unsigned mode = 0;
	bool guard = false;

	if (!s || !*s)
		return;
	n = strlen(s);
	if (flags & MF_ESCAPE_CSV_TERMINAL)
		mode |= CSV_TERMINAL;
	if (flags & MF_ESCAPE_CSV_DATA) {
		/* Written so that mf_csv_data_decode gives s back (escape.h). */
		if (s[0] == '\'' || formula_start(s[0]) || !mf_utf8_valid(s, n)) {
			guard = true;
			mode |= CSV_ENCODED;
		}
		if (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t')
			mode |= CSV_QUOTED;
	} else if (flags & MF_ESCAPE_CSV_TEXT) {
		guard = formula_start(s[0]);
	}
	/* On a terminal CR and LF are written \x0d and \x0a: only a comma or a quote needs quotes. */
	if (strpbrk(s, mode & CSV_TERMINAL ? ",\"" : ",\"\r\n"))
		mode |= CSV_QUOTED;
	if (mode & CSV_QUOTED)
		put(k, "\"", 1);
	if (guard)
		put(k, "'", 1);
	walk(k, s, n, csv_map, mode);
	if (mode & CSV_QUOTED)
		put(k, "\"", 1);
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t mf_csv_data_decode(const char *f, size_t n, char *out)
{
	size_t i = 1, o = 0;
	if (!n || f[0] != '\'') {
		memmove(out, f, n);
		return n;
	}
	while (i < n) {
		if (f[i] == '\\' && i + 1 < n && f[i + 1] == '\\') {
			out[o++] = '\\';
			i += 2;
		} else if (f[i] == '\\' && i + 3 < n && f[i + 1] == 'x' && hex_value(f[i + 2]) >= 8 &&
			   hex_value(f[i + 3]) >= 0) {
			out[o++] = (char)(hex_value(f[i + 2]) << 4 | hex_value(f[i + 3]));
			i += 4;
		} else {
			out[o++] = f[i++];
		}
	}
	return o;
}

void mf_escape_csv(struct mf_strbuf *sb, const char *s, unsigned flags)
{
	struct sink k = {.sb = sb};
	csv(&k, s, flags);
}

void mf_escape_csv_file(FILE *fp, const char *s, unsigned flags)
{
	struct sink k = {.fp = fp};
	csv(&k, s, flags);
}

/* ---- XML and HTML ------------------------------------------------------------------------- */

static const char *xml_map(uint32_t cp, char *tmp, unsigned mode)
{
	(void)tmp;
	(void)mode;
	switch (cp) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&#39;";
	case '\t':
	case '\n':
	case '\r': return NULL;
	default: break;
	}
	/* XML 1.0 §2.2 Char, and the controls it discourages (DEL, C1). */
	if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0xFFFE || cp == 0xFFFF || cp >= BAD_BYTE)
		return FFFD;
	return NULL;
}

void mf_escape_xml_n(struct mf_strbuf *sb, const char *s, size_t n)
{
	struct sink k = {.sb = sb};
	if (s)
		walk(&k, s, n, xml_map, 0);
}

/* ---- text for a terminal ------------------------------------------------------------------ */

void mf_escape_text(struct mf_strbuf *sb, const char *s, unsigned flags)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, run = 0, n = s ? strlen(s) : 0;

	while (i < n) {
		uint32_t cp;
		size_t len = mf_utf8_decode(s + i, n - i, &cp);
		char tmp[8];
		if (len && cp >= 0x20 && cp != 0x7F && (cp < 0x80 || cp > 0x9F)) {
			i += len;
			continue;
		}
		if (len && ((cp == '\n' && (flags & MF_ESCAPE_TEXT_KEEP_NL)) ||
			    (cp == '\t' && (flags & MF_ESCAPE_TEXT_KEEP_TAB)))) {
			i++;
			continue;
		}
		mf_strbuf_add(sb, s + run, i - run);
		if (len && cp >= 0x80) { /* a C1 control */
			memcpy(tmp, "\\u00", 4);
			tmp[4] = hex[cp >> 4];
			tmp[5] = hex[cp & 15];
			mf_strbuf_add(sb, tmp, 6);
		} else {
			unsigned char b = (unsigned char)s[i];
			len = 1; /* a control character, or one byte that is not UTF-8 */
			tmp[0] = '\\';
			tmp[1] = 'x';
			tmp[2] = hex[b >> 4];
			tmp[3] = hex[b & 15];
			mf_strbuf_add(sb, tmp, 4);
		}
		i += len;
		run = i;
	}
	mf_strbuf_add(sb, s + run, n - run);
}

void mf_escape_xml(struct mf_strbuf *sb, const char *s)
{
	if (s)
		mf_escape_xml_n(sb, s, strlen(s));
}
