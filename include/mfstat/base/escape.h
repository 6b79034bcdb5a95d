/* SPDX-License-Identifier: MIT */
/*
 * UTF-8 validation and the escapers every writer uses: JSON strings, CSV
 * cells and XML/HTML text.  Whatever bytes the input held, what these write
 * is valid UTF-8 and valid for its format (README "Output", "Text from the
 * input").
 *
 * One rule for bytes that are not UTF-8, in every format: each byte that does
 * not start a valid, shortest-form sequence of a Unicode scalar value (an
 * overlong form, a surrogate U+D800..U+DFFF, a value above U+10FFFF, a stray
 * continuation byte, a sequence cut short, or a byte F5..FF) is replaced by
 * one U+FFFD, and decoding goes on at the next byte.
 */
#ifndef MFSTAT_ESCAPE_H
#define MFSTAT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mfstat/base/strbuf.h"

/*
 * Decodes the UTF-8 sequence at the start of s[0..n).  Returns its length
 * (1..4) and stores the code point in *cp (when cp is not NULL), or returns 0
 * when s does not start with a valid sequence (see above) or n is 0.  Never
 * reads past s[n - 1], nor past the first byte that does not fit, so a NUL
 * ends any sequence.
 */
size_t mf_utf8_decode(const char *s, size_t n, uint32_t *cp);

/* True when s[0..n) is entirely valid UTF-8 (no overlongs, surrogates or values above U+10FFFF). */
bool mf_utf8_valid(const char *s, size_t n);

/*
 * Appends s as a JSON string with its quotes (RFC 8259), or the word null when
 * s is NULL.  " and \ are escaped; LF, CR and tab become \n \r \t, the other
 * control characters U+0000..U+001F and DEL become \u00XX; each byte that is
 * not valid UTF-8 becomes \ufffd.  Everything else is copied as it is, so the
 * result is ASCII apart from the valid UTF-8 of s.
 */
void mf_escape_json(struct mf_strbuf *sb, const char *s);
/* The same, written to fp (errors show in ferror(fp)). */
void mf_escape_json_file(FILE *fp, const char *s);

/* mf_escape_csv flags. */
enum {
	/*
	 * The cell is text (not a number we formatted): when it starts with = + - @,
	 * a tab or a CR, a ' is put before it so that a spreadsheet opening the file
	 * shows the text instead of running it as a formula.
	 */
	MF_ESCAPE_CSV_TEXT = 1,
	/*
	 * The stream is a terminal: control characters (U+0000..U+001F, tab, CR
	 * and LF included, and DEL) are written \xNN, the C1 controls \u00NN and
	 * each byte that is not valid UTF-8 \xNN, as mf_escape_text does, so that
	 * nothing in a cell can retitle, recolour or move the cursor.
	 */
	MF_ESCAPE_CSV_TERMINAL = 2,
	/*
	 * The cell is data that mfstat reads back (a system or LPAR name of an
	 * export), written so that mf_csv_data_decode gives the same bytes: a
	 * text that starts with ', = + - @, a tab or a CR, or that holds bytes
	 * that are not valid UTF-8, is written as ' followed by the text with each
	 * \ doubled and each byte that is not UTF-8 as \xNN (80..ff); a text that
	 * starts or ends with a space or a tab is quoted.  Every other text is
	 * written as with 0.  Replaces MF_ESCAPE_CSV_TEXT.
	 */
	MF_ESCAPE_CSV_DATA = 4,
};

/*
 * Appends s as one CSV cell (RFC 4180): in double quotes, with each " doubled,
 * when it holds a comma, a double quote, a CR or a LF; as it is otherwise.
 * Bytes that are not valid UTF-8 become U+FFFD (EF BF BD), \xNN with
 * MF_ESCAPE_CSV_TERMINAL or MF_ESCAPE_CSV_DATA; other bytes, control
 * characters included, are kept unless MF_ESCAPE_CSV_TERMINAL.  flags:
 * MF_ESCAPE_CSV_TEXT or MF_ESCAPE_CSV_DATA, and MF_ESCAPE_CSV_TERMINAL, or 0.
 * s NULL or "" appends nothing (an empty cell).
 */
void mf_escape_csv(struct mf_strbuf *sb, const char *s, unsigned flags);
/* The same, written to fp (errors show in ferror(fp)). */
void mf_escape_csv_file(FILE *fp, const char *s, unsigned flags);

/*
 * The bytes of a cell written with MF_ESCAPE_CSV_DATA (after its quotes are
 * removed): a cell f[0..n) that starts with ' is read without it, with \\ as
 * \ and \xNN (NN from 80 to ff, either case) as that byte; any other cell is
 * copied as it is.  out has room for n bytes (it may be f); returns the
 * length written.  For every s, decoding what MF_ESCAPE_CSV_DATA wrote gives s.
 */
size_t mf_csv_data_decode(const char *f, size_t n, char *out);

/*
 * Appends s escaped for XML and HTML, safe both in element text and in quoted
 * attribute values: & < > " ' become &amp; &lt; &gt; &quot; &#39;.  Besides
 * bytes that are not valid UTF-8, each character XML 1.0 does not allow is
 * replaced by U+FFFD: the control characters below U+0020 other than tab, LF
 * and CR, and U+FFFE and U+FFFF; so are DEL and the C1 controls U+0080..U+009F,
 * which XML 1.0 discourages and HTML reports as parse errors.  s NULL appends
 * nothing.
 */
void mf_escape_xml(struct mf_strbuf *sb, const char *s);
/* The same for the n bytes s[0..n) (a sequence cut at s[n] counts as invalid). */
void mf_escape_xml_n(struct mf_strbuf *sb, const char *s, size_t n);

/* mf_escape_text flags. */
enum {
	MF_ESCAPE_TEXT_KEEP_NL = 1,  /* keep LF (a message of several lines) */
	MF_ESCAPE_TEXT_KEEP_TAB = 2, /* keep tab (a source line shown above a caret) */
};

/*
 * Appends s for a terminal or a text report: nothing in it can move the
 * cursor, change colours or retitle a window.  Control characters (U+0000..
 * U+001F, tab included, and DEL) become \xNN, the C1 controls U+0080..U+009F
 * become \uNNNN, and each byte that is not valid UTF-8 becomes \xNN with its
 * value; everything else is copied.  s NULL appends nothing.
 */
void mf_escape_text(struct mf_strbuf *sb, const char *s, unsigned flags);

#endif
