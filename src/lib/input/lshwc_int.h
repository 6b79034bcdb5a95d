/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_LSHWC_INT_H
#define MFSTAT_LSHWC_INT_H

/*
 * The lshwc reader (see lshwc.c): its differencing core in lshwc.c, the CSV
 * form in in_lshwc_csv.c and the JSON form in in_lshwc_json.c.  Each form
 * reads its header or document into the counter columns (then calls
 * mf_lshwc_choose_family) and turns each row into a struct lrow; the core
 * holds the rows of a read, differences them and makes the samples.  Internal.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/text.h"
#include "reader_int.h"

#define MAX_LINE ((size_t)1 << 24)       /* 16 MiB: far beyond any lshwc row */
#define MAX_JSON ((size_t)1 << 28)       /* 256 MiB: the document's bytes are held while it is read */
#define MAX_JSON_PIECE ((size_t)1 << 20) /* 1 MiB: one measurement, "meta" or "cpumcf info" parsed at once */
#define MAX_CPU 16383                    /* CPU numbers; Linux on Z has far fewer */
#define MAX_VALUE 40                     /* characters of one counter value: 20 digits, or 0x and 16 */
#define MAX_FIELDS (3 + MF_MAX_COUNTER)

enum rowkind { ROW_CPU, ROW_TOTAL, ROW_DELTA };

/* A counter column of the CSV header, or a counter id seen in the JSON document. */
struct lcol {
	unsigned number;
	char *label;    /* CSV: the header field (CPU_CYCLES(0), B0, U300); JSON: the name or "id N" */
	char *name;     /* NAME of NAME(n), the short name of -s, the JSON name; NULL when unnamed */
	bool shortname; /* named by a -s short name (which is its number, not a Linux name) */
	long off;       /* CSV: offset of the header field in the header line */
	int slot;       /* dense slot on the family, or -1: ignored */
};

/* One row of the input (CSV line or JSON measurement), parsed. */
struct lrow {
	int kind;
	int64_t cpu;
	bool has_time;
	int64_t t_us;
	long line;   /* CSV line number; 0 for JSON */
	size_t meas; /* JSON: index in measurements */
	char *text;  /* CSV: a copy of the line, for messages about it later */
	size_t textlen, textcap;
	uint64_t *val; /* per column */
	unsigned char *has;
	uint32_t *foff; /* CSV: offset of each counter field in text */
};

/* The previous read of one CPU (index cpu + 1) or of the total (index 0). */
struct base {
	bool has, has_t;
	int64_t t_us;
	uint64_t *val;
	unsigned char *has_val;
};

struct json_top;
struct json_fast;

struct lshwc {
	bool json;
	size_t ncols;
	struct lcol *cols;
	int16_t idx_of[MF_MAX_COUNTER]; /* counter number -> column, or -1 */
	const struct mf_family *fam;
	char fam_from[96];
	uint32_t host;
	size_t ignored;

	/* CSV */
	char *hdr;
	size_t hdrlen;
	long hdr_line;
	struct mf_linerd lines; /* lines.line: the number of the line last read */
	struct mf_csvsplit sp;  /* the split of the row being read: */
	const char **fp;        /* its fields, */
	size_t *fl;
	const char **fat; /* and where each starts in the row */
	char last_dt[24]; /* date and time of the last row, and their value */
	size_t last_dt_len;
	int64_t last_t;

	/* JSON: the document's bytes are held; measurements are parsed one at a time. */
	size_t meas_start; /* offset of the first byte after the '[' of "measurements" */
	size_t meas_pos;   /* offset of the next measurement (or of the ']') */
	size_t next_meas;  /* index of the next measurement */
	size_t meas_off;   /* offset of the measurement last read */
	size_t meas_end;   /* offset past it */
	bool meas_done;
	struct json_top *top;   /* while open_json walks the document */
	struct json_fast *fast; /* the measurement last read without jansson (in_lshwc_json.c) */

	/* Reads: the per-CPU rows of the current read, then its summary row. */
	struct lrow *rows;
	size_t caprows, npend;
	size_t emit_pos, emit_end;
	bool emit_delta;
	bool reset_after;
	long carry; /* a row that starts the next read, or -1 */
	bool last_delta;
	bool eof;
	uint32_t *seen; /* seen[cpu] == gen: the CPU has a row in the current read */
	size_t nseen;
	uint32_t gen;
	struct base *bases;
	size_t nbases;

	unsigned long n_total, n_delta, n_cpu, orphans, nominal_rows;
	/* Rows of a first cumulative read, the base of the next (no sample): summary rows, per-CPU rows. */
	unsigned long first_total, first_cpu;
	bool warned_totals, warned_name;
};

/* An error at byte at of the line [ls, le) (line number line), the message from fmt and ap. */
int mf_lshwc_verror(struct mf_reader *r, struct mf_error *err, int code, long line, const char *ls, const char *le,
		    const char *at, const char *fmt, va_list ap);
int mf_lshwc_oom(struct mf_reader *r, struct mf_error *err, const char *what);

/*
 * Parses a counter value: decimal, or 0x hexadecimal (lshwc -X).  Returns 0,
 * or -1 not a number, -2 too large, -3 negative, -4 hexadecimal without 0x.
 */
int mf_lshwc_parse_value(const char *f, size_t fl, uint64_t *out);
/* What a code of mf_lshwc_parse_value (or -5, too long) means. */
const char *mf_lshwc_value_problem(int rc);
/* Grows array p of *cap elements to hold need (new elements zeroed); the array (maybe moved), or NULL. */
void *mf_lshwc_grow(void *p, size_t *cap, size_t need, size_t size);
bool mf_lshwc_all_digits(const char *s, size_t n);

/*
 * Picks the family (--machine, else csvn when > 0, else the counters) and
 * binds every column to its slot; cfvn is -1 when unknown.
 */
int mf_lshwc_choose_family(struct mf_reader *r, struct lshwc *L, int csvn, int cfvn, struct mf_error *err);

/* The forms: open reads the header or document; row reads the next row into w (1, 0 at the end, or an error). */
int mf_lshwc_open_csv(struct mf_reader *r, struct lshwc *L, struct mf_error *err);
int mf_lshwc_csv_row(struct mf_reader *r, struct lshwc *L, struct lrow *w, struct mf_error *err);
int mf_lshwc_open_json(struct mf_reader *r, struct lshwc *L, struct mf_error *err);
int mf_lshwc_json_row(struct mf_reader *r, struct lshwc *L, struct lrow *w, struct mf_error *err);
/* Frees what the JSON form holds beyond the columns and rows. */
void mf_lshwc_json_free(struct lshwc *L);

#endif
