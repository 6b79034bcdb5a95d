/* SPDX-License-Identifier: MIT */
/* Within the db layer: the counter columns of a counters_<family> or rollup_<family> table. */
#ifndef MFSTAT_DB_READ_INT_H
#define MFSTAT_DB_READ_INT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "mfstat/base/error.h"
#include "mfstat/base/strbuf.h"
#include "mfstat/db/db.h"
#include "mfstat/input/sample.h"
#include "mfstat/kb/kb.h"

/* A column of the table and the dense slot of its counter. */
struct mf_db_col {
	int column; /* in the family's statement */
	uint16_t slot;
};

struct mf_db_fam {
	char *key;                      /* the table's family key */
	const struct mf_family *family; /* of the knowledge base */
	sqlite3_stmt *st;               /* its counters of one row (WHERE id = ?) */
	struct mf_db_col *cols;         /* in ascending slot */
	size_t ncols;
	struct mf_strbuf joined; /* ", cA.id, cA.col..." with A the alias number, to join it to another statement */
	int base;                /* joined: the column of its row id there (its columns follow); -1 not */
};

/*
 * Loads table (its name: prefix bytes, then the family key) into f: its family in kb (an unknown
 * family or column is MF_EFORMAT naming it), the slot of each column, the statement that reads
 * one row, and the columns as alias cALIAS selects them.  f is set (and to be freed) whatever it
 * returns: 0, MF_EFORMAT, MF_EIO or MF_ENOMEM.
 */
int mf_db_fam_load(struct mf_db *db, const struct mf_kb *kb, const char *table, size_t prefix, size_t alias,
		   struct mf_db_fam *f, struct mf_error *err);
void mf_db_fam_free(struct mf_db_fam *f);

/*
 * Every table whose name is prefix and a family key ("counters_", "rollup_"), in name order,
 * each loaded with mf_db_fam_load (alias: its index) and appended to *fams (*n of them; freed by
 * the caller whatever it returns).  what names the listing in an error ("listing the counters
 * tables").  0, MF_EFORMAT, MF_EIO or MF_ENOMEM.
 */
int mf_db_fams_load_all(struct mf_db *db, const struct mf_kb *kb, const char *prefix, const char *what,
			struct mf_db_fam **fams, size_t *n, struct mf_error *err);

/*
 * f's counter columns of st's current row (each at base + its column) into s, in the family's
 * slot order: a NULL is a counter the row has not; a counter named in skip (space-separated
 * short names, or NULL) is left out.  Returns 0, or 1 + the index in f->cols of the first
 * negative value (*neg: that value) for the caller to report.
 */
size_t mf_db_fam_row(const struct mf_db_fam *f, sqlite3_stmt *st, int base, const char *skip, struct mf_sample *s,
		     int64_t *neg);

#endif
