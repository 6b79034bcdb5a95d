#!/bin/sh
# SPDX-License-Identifier: MIT
# The views over the roll-up levels (docs/db.md, "Views"): a generated SMF dump (two systems,
# a zIIP, local time UTC+1, RMF busy, some records without their MT-diagnostic counters: partial
# sums) imported with `mfstat db import`; metrics_z16_hour, _day and _month, run in the sqlite3
# shell, give every metric of every row of `mfstat report --by system,lpar,pool,hour` (day,
# month) `-f csv` over the same dump (tz smf) to a relative 1e-12, n/a where NULL, and the LSPR
# class, rows matched by system, LPAR, pool and the local bucket label.  After `mfstat db prune
# --keep sample=1d` (the samples are gone) they give the same.  Then once in DuckDB (its npm
# package, as bench/csv.sh installs it in $MFSTAT_BENCH_CACHE), the tables copied into it;
# skipped, saying why, without node or the package.
# Usage: db_views_levels.sh MFSTAT GENSMF SOURCE_DIR
set -u
MFSTAT=$1
GENSMF=$2
SRC=$3
command -v sqlite3 >/dev/null 2>&1 || { echo "SKIP: no sqlite3 shell"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mfstat-db-levels.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
db=$tmp/perf.db
fail=0
. "$(dirname "$0")/lib/duckdb.sh"

# 42 days of hourly intervals from 2025-02-25, over a month boundary (two months, six weeks).
"$GENSMF" -q --systems 2 --cpus 3 --ziip 1 --intervals 1000 --interval-seconds 3600 \
  --start 2025-02-25T00:00:00Z --utc-offset 60 --rmf --mt-lost 7 -o "$tmp/d.smf" || { echo "FAIL: gensmf"; exit 1; }
"$MFSTAT" db import -q "$db" "$tmp/d.smf" >/dev/null || { echo "FAIL: db import exit $?"; exit 1; }
for level in hour day month; do
  "$MFSTAT" report -q -f csv --by "system,lpar,pool,$level" "$tmp/d.smf" >"$tmp/rep_$level.csv" ||
    { echo "FAIL: report --by system,lpar,pool,$level"; exit 1; }
  sqlite3 -bail "$db" ".import --csv $tmp/rep_$level.csv rep_$level" || { echo "FAIL: loading report's $level"; exit 1; }
done
n=$(sqlite3 "$db" "SELECT count(*) FROM rollup WHERE partial <> ''")
[ "$n" -gt 0 ] || { echo "FAIL: no roll-up with partial sums: the test would not check them"; fail=1; }

# The local label of report's bucket from the stored one (2025-03-04T08:00:00+01:00).
label() {
  case $1 in
  hour) echo "substr(v.bucket, 1, 16) || substr(v.bucket, 20)" ;;
  day) echo "substr(v.bucket, 1, 10)" ;;
  month) echo "substr(v.bucket, 1, 7)" ;;
  esac
}

# against WHAT LEVEL SOURCE: the rows of SOURCE (the view, or the table of DuckDB's rows, text)
# against report's, in $db: "rows|rows matched|disagreements", want "n|n|0".
against() {
  metrics=$(head -1 "$tmp/rep_$2.csv" | sed 's/.*,cpus_expected,//; s/,LSPR$//' | tr ',' ' ')
  conds=""
  for m in $metrics; do
    # Every metric to 1e-12 of itself: LPARCPU_DIFF too (LPARCPU - RMF_LPARCPU, some 1e-9), as
    # the roll-ups sum RMF busy time in integer nanoseconds as report does (rmf_busy_ns).
    scale="v.\"$m\""
    conds="$conds + (CASE WHEN r.\"$m\" = '' THEN nullif(v.\"$m\", '') IS NOT NULL
      ELSE nullif(v.\"$m\", '') IS NULL OR abs(CAST(v.\"$m\" AS REAL) - CAST(r.\"$m\" AS REAL))
        > 1e-12 * abs(CAST($scale AS REAL)) + 1e-300 END)"
  done
  rows=$(($(wc -l <"$tmp/rep_$2.csv") - 1))
  # The view's rows in a table first: joined on an expression, a view would be run per row.
  res=$(sqlite3 -bail "$db" "CREATE TEMP TABLE got AS SELECT * FROM $3;
    SELECT (SELECT count(*) FROM got), count(*),
    sum(0 $conds + (coalesce(nullif(v.LSPR, ''), '') != r.LSPR))
    FROM rep_$2 AS r JOIN got AS v ON v.system = r.system AND v.lpar = r.lpar AND v.pool = r.pool
      AND $(label "$2") = r.\"$2\"" 2>&1)
  [ "$res" = "$rows|$rows|0" ] || { echo "FAIL: $1: $res (rows|matched|disagreements), want $rows|$rows|0"; fail=1; }
}

for level in hour day month; do
  against "metrics_z16_$level in sqlite3" $level "metrics_z16_$level"
done
# The time columns: bucket_unix is the bucket's start instant, start_iso the same in UTC.
res=$(sqlite3 "$db" "SELECT bucket_unix, start_iso, bucket FROM metrics_z16_day WHERE system = 'SYSA' AND pool = 'GCP'
  ORDER BY bucket_unix LIMIT 1 OFFSET 1")
[ "$res" = "1740524400|2025-02-25T23:00:00Z|2025-02-26T00:00:00+01:00" ] || { echo "FAIL: day time columns: $res"; fail=1; }

# The samples aged out: the views over the roll-ups give the same.
"$MFSTAT" db prune -q --keep sample=1d "$db" >/dev/null || { echo "FAIL: db prune exit $?"; fail=1; }
left=$(sqlite3 "$db" "SELECT count(*) FROM sample")
[ "$left" -lt 500 ] || { echo "FAIL: $left samples left after prune --keep sample=1d"; fail=1; }
for level in hour day month; do
  against "metrics_z16_$level after prune --keep sample=1d" $level "metrics_z16_$level"
done
# And after db rollup of the whole database (the buckets still held are summed again).
"$MFSTAT" db rollup -q "$db" >/dev/null || { echo "FAIL: db rollup exit $?"; fail=1; }
for level in hour day month; do
  against "metrics_z16_$level after prune and db rollup" $level "metrics_z16_$level"
done

# DuckDB (tests/lib/duckdb.sh): schema 1 made in DuckDB, the roll-up tables copied in (sqlite3's
# INSERT statements: doubles to 17 digits), the views of `mfstat db sql --machine z16`,
# their rows back in $db as text, against report's.
if duckdb_ready; then
  duckdb_schema "$SRC" >"$tmp/duck.sql"
  for t in counters_z16 rollup_z16; do
    sqlite3 "$db" "SELECT 'CREATE TABLE $t (' || group_concat('\"' || name || '\" BIGINT', ', ') || ');'
      FROM pragma_table_info('$t')" >>"$tmp/duck.sql"
  done
  sqlite3 "$db" ".mode insert rollup" "SELECT * FROM rollup" >>"$tmp/duck.sql"
  sqlite3 "$db" ".mode insert rollup_z16" "SELECT * FROM rollup_z16" >>"$tmp/duck.sql"
  "$MFSTAT" db sql --machine z16 >>"$tmp/duck.sql" || { echo "FAIL: mfstat db sql --machine z16"; exit 1; }
  {
    duckdb_js_head
    cat <<'JS'
const [setup, outdir] = args;
await con.run(readFileSync(setup, 'utf8'));
for (const level of ['hour', 'day', 'month']) {
  const r = await con.runAndReadAll(`SELECT * FROM metrics_z16_${level}`);
  const lines = [r.columnNames().join(',')];
  for (const row of r.getRows()) lines.push(row.map(text).join(','));
  writeFileSync(join(outdir, `duck_${level}.csv`), lines.join('\n') + '\n');
}
JS
  } >"$tmp/duck.mjs"
  if out=$(cd "$tmp" && node duck.mjs "$duckdb_cache" "$tmp/duck.sql" "$tmp" 2>&1); then
    for level in hour day month; do
      sqlite3 -bail "$db" ".import --csv $tmp/duck_$level.csv duck_$level" || { echo "FAIL: DuckDB's $level rows"; fail=1; continue; }
      against "metrics_z16_$level in DuckDB" $level "duck_$level"
    done
  else
    echo "FAIL: DuckDB: $out"; fail=1
  fi
fi
[ $fail = 0 ] && echo "the views over the hour, day and month roll-ups give report's values"
exit $fail
