# SPDX-License-Identifier: MIT
# Sourced by tests/db_views.sh and tests/db_views_levels.sh: DuckDB run by node through its npm
# package @duckdb/node-api, as bench/csv.sh installs it in $MFSTAT_BENCH_CACHE.

# duckdb_ready: sets duckdb_cache; true when node and the package are there, else says why the
# DuckDB part is skipped and is false.
duckdb_ready() {
  duckdb_cache=${MFSTAT_BENCH_CACHE:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/mfstat-bench}
  if ! command -v node >/dev/null 2>&1; then
    echo "DuckDB: skipped: no node"
    return 1
  fi
  if [ ! -f "$duckdb_cache/node_modules/@duckdb/node-api/package.json" ]; then
    echo "DuckDB: skipped: no @duckdb/node-api in $duckdb_cache (bench/csv.sh installs it)"
    return 1
  fi
}

# duckdb_schema SOURCE_DIR: schema 1 and its migrations (data/db/) as DuckDB takes them: INTEGER
# and REAL are 32 bits there (BIGINT, DOUBLE, as SQLite's are); WITHOUT ROWID and the column name
# offset are SQLite's.
duckdb_schema() {
  sed -e 's/) WITHOUT ROWID;/);/' -e 's/^\toffset /\t"offset" /' -e 's/INTEGER/BIGINT/g' -e 's/ REAL/ DOUBLE/g' \
    "$1/data/db/schema-1.sql" "$1"/data/db/migrate-*.sql
}

# duckdb_js_head: the start of a node module run as `node FILE "$duckdb_cache" ARG...`: con, a
# connection to an in-memory DuckDB; args, the ARGs; text(v), a value as text ('' for NULL).
duckdb_js_head() {
  cat <<'JS'
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const [cache, ...args] = process.argv.slice(2);
const req = createRequire(join(cache, 'package.json'));
const duckdb = await import(pathToFileURL(req.resolve('@duckdb/node-api')).href);
const con = await (await duckdb.DuckDBInstance.create(':memory:')).connect();
const text = (v) => (v === null ? '' : String(v));
JS
}
