-- SPDX-License-Identifier: MIT
-- The mfstat performance database, schema 1 (PRAGMA user_version = 1).
-- docs/db.md is the contract: what each table and column holds, the identity of a sample,
-- and how the raw counters are kept decodable.  mfstat creates the tables below when it
-- creates a database; the counters_<family> tables are created when the first sample of
-- that family is imported (docs/db.md, "Counters").

-- Facts about the database itself: schema (the version, as text), created (ISO 8601 UTC),
-- created_by (mfstat version), kb (the knowledge base the last import used: embedded or a
-- --tables directory), kb_revision (its formulas' revision; absent when an older mfstat
-- made the last import).
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;

-- Every input file imported, once: a file whose bytes hash to a sha256 already here is
-- not read again.
CREATE TABLE file (
	id            INTEGER PRIMARY KEY,
	name          TEXT NOT NULL,        -- the path as given to mfstat db import
	size          INTEGER NOT NULL,     -- bytes of the file as stored (compressed when it is)
	sha256        TEXT NOT NULL UNIQUE, -- lowercase hex SHA-256 of those bytes
	format        TEXT NOT NULL,        -- smf, csv, perf, lshwc
	imported_unix INTEGER NOT NULL,     -- when the import committed, Unix seconds
	imported      TEXT NOT NULL,        -- the same, ISO 8601 UTC (2026-11-26T18:00:00Z)
	samples_new   INTEGER NOT NULL,     -- samples this file added
	samples_known INTEGER NOT NULL,     -- samples already held (same identity, same counters)
	skipped       INTEGER NOT NULL      -- bad rows or records skipped (--skip-bad-*)
);

-- What the reader saw in each file: records by kind ('records': "type 113 subtype 1",
-- "type 30", ...) and records read but not turned into samples ('dropped', by reason).
CREATE TABLE file_count (
	file INTEGER NOT NULL REFERENCES file (id),
	kind TEXT NOT NULL CHECK (kind IN ('records', 'dropped')),
	what TEXT NOT NULL,
	n    INTEGER NOT NULL,
	PRIMARY KEY (file, kind, what)
) WITHOUT ROWID;

-- The label of every column of every counters_<family> table.
CREATE TABLE counter (
	family      TEXT NOT NULL,  -- knowledge-base family key: z16, zec12, generic, itanium2, ...
	name        TEXT NOT NULL,  -- the column: B0, P33, C64, E143, M448, or a named counter
	number      INTEGER,        -- CPU-MF counter number (0 for B0, 143 for E143); NULL: named family
	set_name    TEXT,           -- basic, problem, crypto, extended, mtdiag; NULL: named family
	linux_name  TEXT,           -- CPU_CYCLES, ...; NULL when the family has none
	description TEXT NOT NULL,
	PRIMARY KEY (family, name)
) WITHOUT ROWID;

-- One row per distinct sample: one CPU (or one total) over one interval.
CREATE TABLE sample (
	id           INTEGER PRIMARY KEY,
	system       TEXT NOT NULL,    -- system (SMF SID) or '' when the input names none
	lpar         TEXT NOT NULL,    -- LPAR name or ''
	pool         TEXT NOT NULL,    -- GCP, ZIIP, ZAAP, ZCBP, IFL, ICF, or ''
	cpu          INTEGER NOT NULL, -- CPU number, -1 none
	start_us     INTEGER,          -- interval start, microseconds since 1970-01-01 UTC; NULL none
	seconds      REAL,             -- interval length in seconds; NULL unknown
	key_start_s  INTEGER NOT NULL, -- identity: start_us rounded to the second (half away from 0); 0 without start
	key_len_s    INTEGER NOT NULL, -- identity: seconds rounded to the second; -1 unknown
	key_lpar     TEXT NOT NULL,    -- identity: lpar, or '' when lpar_joined (the LPAR view's, not the input's own)
	anon         INTEGER NOT NULL, -- 0 for a sample with a system and a start; else file id * 4294967296 + its ordinal in the file
	family       TEXT NOT NULL,    -- knowledge-base family key; its counters are in counters_<family>
	machine      INTEGER,          -- machine type (3931), NULL when only the family is known
	cpsp_mhz     REAL,             -- CPU speed, MHz; NULL unknown
	cpsp_nominal INTEGER NOT NULL, -- 1: cpsp_mhz is the machine's nominal speed, not data
	user_only    INTEGER NOT NULL, -- counters counted in problem state only (perf :u), 0 or 1
	utc_offset_s INTEGER,          -- local time minus UTC in seconds, NULL when the input gives none
	lpar_joined  INTEGER NOT NULL, -- 1: lpar, polarity and weight came from SMF type 70/99.14
	polarity     TEXT,             -- VH, VM, VL, HZ; NULL unknown
	lpar_weight  INTEGER,          -- the LPAR's weight for the pool; NULL unknown
	drawer       INTEGER,          -- drawer of the core; NULL unknown
	chip         INTEGER,          -- chip within the drawer; NULL unknown
	rmf_busy_s   REAL,             -- RMF dispatch time over the interval, s; NULL none
	file         INTEGER NOT NULL REFERENCES file (id), -- the file that brought it first
	line         INTEGER,          -- its first line in a text input; NULL none
	offset       INTEGER           -- the byte offset of its record in a binary input; NULL none
);
CREATE UNIQUE INDEX sample_identity ON sample (system, key_lpar, pool, cpu, key_start_s, key_len_s, anon);
CREATE INDEX sample_start ON sample (start_us);

-- SMF type 70 subtype 1 and type 99 subtype 14 records as they were read (the LPAR view),
-- each once: rebuilt into the LPAR view by the same decoder that reads a dump.
CREATE TABLE smf_record (
	id       INTEGER PRIMARY KEY,
	type     INTEGER NOT NULL,     -- 70 or 99
	subtype  INTEGER NOT NULL,     -- 1 or 14
	system   TEXT NOT NULL,        -- SMF system id
	time_us  INTEGER NOT NULL,     -- 70.1: interval start; 99.14: topology time (Unix us UTC)
	sha256   TEXT NOT NULL UNIQUE, -- of record: a record imported twice is kept once
	file     INTEGER NOT NULL REFERENCES file (id),
	offset   INTEGER NOT NULL,     -- byte offset of the record in that file (decompressed)
	record   BLOB NOT NULL         -- the logical record, RDW included, as in the dump
);
CREATE INDEX smf_record_time ON smf_record (system, time_us);

-- Roll-ups (docs/db.md, "Levels"): sums per system, LPAR, pool and family over an hour, a day
-- or a month of the local clock the data was written in; their counter sums are in
-- rollup_<family> (created with the first roll-up of that family), by the same columns as
-- counters_<family>.
CREATE TABLE rollup (
	id           INTEGER PRIMARY KEY,
	level        TEXT NOT NULL CHECK (level IN ('hour', 'day', 'month')),
	system       TEXT NOT NULL,
	lpar         TEXT NOT NULL,
	pool         TEXT NOT NULL,
	family       TEXT NOT NULL,
	machine      INTEGER,          -- the machine type when every sample agrees, else NULL
	bucket_us    INTEGER NOT NULL, -- the bucket's local start as an instant, Unix microseconds UTC
	utc_offset_s INTEGER NOT NULL, -- the offset of the local clock it is cut in (0 when not known: UTC)
	offset_known INTEGER NOT NULL, -- 1: the samples gave their offset (SMF), 0: cut in UTC
	bucket       TEXT NOT NULL,    -- the local label: 2025-03-04T08:00+01:00, 2025-03-04, 2025-03
	samples      INTEGER NOT NULL, -- samples summed
	cpus         INTEGER NOT NULL, -- distinct CPUs among them (as report's cpus column)
	seconds      REAL,             -- wall-clock seconds their intervals cover (report's INTERVAL)
	cpu_seconds  REAL,             -- the samples' interval lengths summed
	first_us     INTEGER NOT NULL, -- the first sample's start
	last_us      INTEGER NOT NULL, -- the last sample's start
	cpsp_min     REAL,
	cpsp_max     REAL,
	rmf_busy_s   REAL,             -- RMF dispatch seconds summed over the samples that carry it
	rmf_samples  INTEGER NOT NULL, -- the samples that carry it
	partial      TEXT NOT NULL     -- counters some samples had and others not, space-separated ('' none)
);
CREATE UNIQUE INDEX rollup_key ON rollup (level, family, system, lpar, pool, bucket_us, utc_offset_s, offset_known);
CREATE INDEX rollup_time ON rollup (level, bucket_us);

-- What mfstat db prune deleted: one row per level and run.
CREATE TABLE prune_log (
	id        INTEGER PRIMARY KEY,
	level     TEXT NOT NULL,    -- sample, hour, day, month
	keep      TEXT NOT NULL,    -- the span kept, as given (35d, 400d, 5y)
	before_us INTEGER NOT NULL, -- rows starting before this instant were deleted (Unix us UTC)
	rows      INTEGER NOT NULL, -- rows deleted
	pruned_unix INTEGER NOT NULL, -- when, Unix seconds
	pruned    TEXT NOT NULL     -- the same, ISO 8601 UTC
);
