/* SPDX-License-Identifier: MIT */
#include "mfstat/base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *mf_strerror(int code)
{
	switch (code) {
	case MF_OK: return "success";
	case MF_EINVAL: return "invalid argument";
	case MF_ENOMEM: return "out of memory";
	case MF_EFORMAT: return "malformed input";
	case MF_ENOCOUNTER: return "counter not defined for this machine";
	case MF_EIO: return "input/output error";
	case MF_ENOMACHINE: return "unknown machine";
	case MF_ETABLE: return "broken knowledge-base table";
	case MF_EUSAGE: return "cannot do what was asked";
	case MF_EOF: return "end of input";
	case MF_ENODATA: return "no data of the kind asked for";
	case MF_ELIMIT: return "a limit was reached";
	case MF_ENOEXEC: return "the program cannot be run";
	case MF_ENOTCOUNTED: return "nothing could be counted";
	default: return "unknown error";
	}
}

void mf_error_clear(struct mf_error *e)
{
	if (!e)
		return;
	memset(e, 0, sizeof(*e));
	e->offset = -1;
	e->record = -1;
}

int mf_error_set(struct mf_error *e, int code, const char *file, long line, long col, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return code;
	mf_error_clear(e);
	e->code = code;
	snprintf(e->file, sizeof(e->file), "%s", file ? file : "");
	e->line = line;
	e->col = col;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

int mf_error_nomem(struct mf_error *e, const char *file, long line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!e)
		return MF_ENOMEM;
	mf_error_set(e, MF_ENOMEM, file, line, 0, "out of memory while ");
	n = (int)strlen(e->msg);
	va_start(ap, fmt);
	vsnprintf(e->msg + n, sizeof(e->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	return MF_ENOMEM;
}

void mf_error_set_text(struct mf_error *e, const char *line, size_t len)
{
	size_t i, n = 0;

	if (!e || !line)
		return;
	for (i = 0; i < len && n + 1 < sizeof(e->text); i++) {
		unsigned char c = (unsigned char)line[i];
		if (c == '\n' || (c == '\r' && (i + 1 == len || line[i + 1] == '\n')))
			break;
		/* Keep the caret aligned: show control and non-ASCII bytes as '?'. */
		e->text[n++] = (c < 0x20 && c != '\t') || c >= 0x7f ? '?' : (char)c;
	}
	e->text[n] = '\0';
}

void mf_error_set_text_at(struct mf_error *e, const char *ls, const char *le, const char *at)
{
	if (!e)
		return;
	if (at - ls + 1 > 120 && le - ls > 200) {
		/* Long rows: show 100 bytes either side of the fault. */
		const char *ws = at - 100;
		const char *we = at + 100 < le ? at + 100 : le;
		char tmp[240];
		int n = snprintf(tmp, sizeof(tmp), "...%.*s%s", (int)(we - ws), ws, we < le ? "..." : "");
		mf_error_set_text(e, tmp, (size_t)(n > 0 ? n : 0));
		e->caret = 104;
	} else {
		mf_error_set_text(e, ls, (size_t)(le - ls));
	}
}

int mf_error_format(const struct mf_error *e, char *buf, size_t n)
{
	char pos[320];
	int len;

	if (e->line > 0 && e->col > 0)
		snprintf(pos, sizeof(pos), "%s:%ld:%ld", e->file, e->line, e->col);
	else if (e->line > 0)
		snprintf(pos, sizeof(pos), "%s:%ld", e->file, e->line);
	else if (e->offset >= 0 && e->record >= 0)
		snprintf(pos, sizeof(pos), "%s: offset 0x%llx (record %ld)", e->file, (unsigned long long)e->offset,
			 e->record);
	else if (e->offset >= 0)
		snprintf(pos, sizeof(pos), "%s: offset 0x%llx", e->file, (unsigned long long)e->offset);
	else
		snprintf(pos, sizeof(pos), "%s", e->file);
	len = snprintf(buf, n, "%s%serror: %s", pos, pos[0] ? ": " : "", e->msg);
	if (e->text[0] && e->col > 0 && len >= 0 && (size_t)len < n) {
		size_t used = (size_t)len, i;
		int k = snprintf(buf + used, n - used, "\n    %s\n    ", e->text);
		if (k < 0 || (size_t)k >= n - used)
			return (int)strlen(buf);
		used += (size_t)k;
		size_t caret = (size_t)(e->caret > 0 ? e->caret : e->col);
		for (i = 1; i < caret && used + 2 < n; i++) {
			/* Tabs in the source line keep their width in the caret line. */
			buf[used++] = (i - 1 < sizeof(e->text) && e->text[i - 1] == '\t') ? '\t' : ' ';
		}
		if (used + 1 < n)
			buf[used++] = '^';
		buf[used] = '\0';
		len = (int)used;
	}
	return len;
}

int mf_error_vset_at(struct mf_error *e, int code, const char *file, long line, const char *ls, const char *le,
		     const char *at, const char *fmt, va_list ap)
{
	mf_error_set(e, code, file, line, (long)(at - ls) + 1, "%s", "");
	if (!e)
		return code;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	mf_error_set_text_at(e, ls, le, at);
	return code;
}
