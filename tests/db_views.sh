#!/bin/sh
# SPDX-License-Identifier: MIT
# The views of `mfstat db sql` (docs/db.md, "Views") run in the sqlite3 shell over a database of
# schema 1 (data/db/schema-1.sql) holding a few samples inserted by hand-written SQL, as docs/db.md
# describes the tables (no mfstat writer): the metrics per sample and per UTC hour of the samples
# (metrics_z16_utc_hour; the views over the roll-ups are tests/db_views_levels.sh's) equal the values
# worked out by hand below to a relative 1e-12, NULL where report says n/a (a divisor of 0, a
# counter or the CPU speed missing, a counter missing in one sample of the hour), and the LSPR
# class is NULL for a zIIP.  A family's views are created whether or not its counters table
# exists; reading one without it is SQLite's error naming the table.  Then the same views in
# DuckDB when node and its @duckdb/node-api package ($MFSTAT_BENCH_CACHE, as bench/csv.sh installs
# it) are there, and through DuckDB's sqlite extension when that is installed; else that part
# says why it is skipped.
# Usage: db_views.sh MFSTAT SOURCE_DIR
set -u
MFSTAT=$1
SRC=$2
command -v sqlite3 >/dev/null 2>&1 || { echo "SKIP: no sqlite3 shell"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mfstat-db-views.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
db=$tmp/perf.db
fail=0
. "$(dirname "$0")/lib/duckdb.sh"

sqlite3 -bail "$db" <"$SRC/data/db/schema-1.sql" || exit 1
# counters_z16: id, then one INTEGER column per counter of the family in ascending number, named
# by its short name (docs/db.md, "Counters").
cols=$(awk -F'\t' '!/^#/ && $1 ~ /^[0-9]+$/ { printf ", \"%s\" INTEGER", $2 }' "$SRC/data/counters/z16.tsv")
[ -n "$cols" ] || { echo "FAIL: no counters read from data/counters/z16.tsv"; exit 1; }
zero="UPDATE counters_z16 SET $(awk -F'\t' '!/^#/ && $1 ~ /^[0-9]+$/ { printf "%s\"%s\" = coalesce(\"%s\", 0)", n++ ? ", " : "", $2, $2 }' "$SRC/data/counters/z16.tsv");"
T0=1767607200000000 # 2026-01-05T10:00:00Z in microseconds
cat >"$tmp/rows.sql" <<SQL
INSERT INTO meta VALUES ('schema', '1');
CREATE TABLE counters_z16 (id INTEGER PRIMARY KEY$cols);
INSERT INTO file (id, name, size, sha256, format, imported_unix, imported, samples_new, samples_known, skipped)
  VALUES (1, 'hand.csv', 0, 'none', 'csv', 0, '1970-01-01T00:00:00Z', 5, 0, 0);
-- id, system, lpar, pool, cpu, start_us, seconds, cpsp_mhz, rmf_busy_s
INSERT INTO sample (id, system, lpar, key_lpar, pool, cpu, start_us, seconds, key_start_s, key_len_s, anon, family,
                    cpsp_mhz, cpsp_nominal, user_only, lpar_joined, rmf_busy_s, file) VALUES
  (1, 'SYS1', 'LP1', 'LP1', 'GCP',  0, $T0,              900, $T0 / 1000000,        900, 0, 'z16', 5200, 0, 0, 0, 450, 1),
  (2, 'SYS1', 'LP1', 'LP1', 'GCP',  1, $T0,              900, $T0 / 1000000,        900, 0, 'z16', 5200, 0, 0, 0, 225, 1),
  (3, 'SYS1', 'LP1', 'LP1', 'GCP',  0, $T0 + 900000000,  900, $T0 / 1000000 + 900,  900, 0, 'z16', 5200, 0, 0, 0, 225, 1),
  (4, 'SYS1', 'LP1', 'LP1', 'ZIIP', 2, $T0,              900, $T0 / 1000000,        900, 0, 'z16', 5200, 0, 0, 0, 450, 1),
  (5, 'SYS1', 'LP1', 'LP1', 'GCP',  0, $T0 + 3600000000, 900, $T0 / 1000000 + 3600, 900, 0, 'z16', NULL, 0, 0, 0, NULL, 1);
-- Sample 1: CPI 2.34e12 / 1.2e12 = 1.95; L1M 24e9, L1MP 2; sourcing 12, 6, 3.6, 2.4 (e9) of L1M.
INSERT INTO counters_z16 (id, B0, B1, B2, B4, P33, E143, E147, E148, E155, E156)
  VALUES (1, 2340000000000, 1200000000000, 20000000000, 4000000000, 600000000000, 48000000000,
          12000000000, 6000000000, 3600000000, 2400000000);
-- Samples 2 and 3 (the next interval of CPU 0): L1M 6e9, all from L3.
INSERT INTO counters_z16 (id, B0, B1, B2, B4, P33, E143, E147, E148, E155, E156)
  VALUES (2, 1170000000000, 600000000000, 3000000000, 3000000000, 0, 0, 6000000000, 0, 0, 0),
         (3, 1170000000000, 600000000000, 3000000000, 3000000000, 0, 0, 6000000000, 0, 0, 0);
-- Sample 4, a zIIP: the counters of sample 1.
INSERT INTO counters_z16 (id, B0, B1, B2, B4, P33, E143, E147, E148, E155, E156)
  VALUES (4, 2340000000000, 1200000000000, 20000000000, 4000000000, 600000000000, 48000000000,
          12000000000, 6000000000, 3600000000, 2400000000);
-- Every other counter of these samples: 0 (NULL would be a counter the sample does not have).
$zero
-- Sample 5, the next hour: no instructions (B1 0), no E147, no CPU speed, no RMF.
INSERT INTO counters_z16 (id, B0, B1, B2, B4, P33, E143, E147, E148, E155, E156)
  VALUES (5, 1000000000, 0, 0, 0, 0, 0, NULL, 0, 0, 0);
SQL
sqlite3 -bail "$db" "PRAGMA user_version = 1" ".read $tmp/rows.sql" || exit 1
"$MFSTAT" db sql >"$tmp/views.sql" || { echo "FAIL: mfstat db sql exit $?"; exit 1; }
sqlite3 -bail "$db" <"$tmp/views.sql" || { echo "FAIL: the views are not created"; exit 1; }
# Twice: the statements replace the views (DROP VIEW IF EXISTS, CREATE VIEW).
sqlite3 -bail "$db" <"$tmp/views.sql" || { echo "FAIL: the views are not created again"; exit 1; }

# compare NAME QUERY EXPECTED: rows of values separated by '|'; numbers within a relative 1e-12,
# NULL as the empty field, text exactly.
# With a 4th argument FILE, the rows are FILE's (DuckDB's) instead of sqlite3's.
compare() {
  if [ $# -ge 4 ]; then
    cp "$4" "$tmp/got"
  else
    sqlite3 -bail "$db" "$2" >"$tmp/got" 2>"$tmp/err" || { echo "FAIL: $1: $(cat "$tmp/err")"; fail=1; return; }
  fi
  printf '%s\n' "$3" >"$tmp/want"
  if ! awk -F'|' -v name="$1" '
    NR == FNR { want[FNR] = $0; n = FNR; next }
    { got[FNR] = $0; m = FNR }
    END {
      if (m != n) { printf "FAIL: %s: %d rows, want %d\n", name, m, n; exit 1 }
      bad = 0
      for (i = 1; i <= n; i++) {
        a = split(got[i], g, "|"); b = split(want[i], w, "|")
        if (a != b) { printf "FAIL: %s row %d: %s, want %s\n", name, i, got[i], want[i]; bad = 1; continue }
        for (k = 1; k <= a; k++) {
          if (w[k] ~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/ && g[k] ~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) {
            d = g[k] - w[k]; if (d < 0) d = -d
            s = w[k] < 0 ? -w[k] : w[k]
            if (d > 1e-12 * s) { printf "FAIL: %s row %d field %d: %s, want %s\n", name, i, k, g[k], w[k]; bad = 1 }
          } else if (g[k] != w[k]) { printf "FAIL: %s row %d field %d: \"%s\", want \"%s\"\n", name, i, k, g[k], w[k]; bad = 1 }
        }
      }
      exit bad
    }' "$tmp/want" "$tmp/got"; then
    fail=1
  fi
}

# Per sample.  LPARCPU = B0 / (CPSP * 1e6) / INTERVAL * 100, RMF_LPARCPU = RMF_BUSY / INTERVAL * 100,
# RNI = 4.1 * (0.45 L3P + 1.3 L4LP + 5 L4RP + 6.1 MEMP) / 100; sample 1: L3P 50, L4LP 25, L4RP 15,
# MEMP 10, RNI 4.1 * 191 / 100 = 7.831; samples 2, 3: L3P 100, RNI 4.1 * 45 / 100 = 1.845.
q_sample="SELECT id, start_unix, start_iso, CPI, PRBSTATE, L1MP, LPARCPU, RMF_LPARCPU, L3P, L4LP, L4RP, MEMP,
  RNI, LSPR, EFF_GHZ FROM metrics_z16_sample ORDER BY id"
w_sample="1|1767607200|2026-01-05T10:00:00Z|1.95|50|2|50|50|50|25|15|10|7.831|AVERAGE|5.2
2|1767607200|2026-01-05T10:00:00Z|1.95|0|1|25|25|100|0|0|0|1.845|AVERAGE|5.2
3|1767608100|2026-01-05T10:15:00Z|1.95|0|1|25|25|100|0|0|0|1.845|AVERAGE|5.2
4|1767607200|2026-01-05T10:00:00Z|1.95|50|2|50|50|50|25|15|10|7.831||5.2
5|1767610800|2026-01-05T11:00:00Z||||||||||||"
compare sample "$q_sample" "$w_sample"

# Per UTC hour: 10:00 GCP sums samples 1, 2, 3 (two interval starts: INTERVAL 1800 s): B0 4.68e12,
# B1 2.4e12, L1M 36e9 (L1MP 1.5), E147 24e9 (L3P 66.67), E148 6e9, E155 3.6e9, E156 2.4e9;
# RNI = 4.1 * (0.45 * 200/3 + 1.3 * 50/3 + 5 * 10 + 6.1 * 20/3) / 100 = 4.1 * 427/3 / 100;
# LPARCPU 4.68e12 / 5.2e9 / 1800 * 100 = 50; RMF busy 900 s, RMF_LPARCPU 50.  11:00: n/a but
# B0, and LPARCPU n/a (no CPU speed).  The zIIP: sample 4's values, no LSPR class.
q_hour="SELECT system, lpar, pool, start_unix, start_iso, samples, CPI, PRBSTATE, L1MP, LPARCPU, RMF_LPARCPU,
  L3P, L4LP, L4RP, MEMP, RNI, LSPR FROM metrics_z16_utc_hour ORDER BY start_unix, pool"
w_hour="SYS1|LP1|GCP|1767607200|2026-01-05T10:00:00Z|3|1.95|25|1.5|50|50|66.666666666666667|16.666666666666667|10|6.6666666666666667|5.8356666666666667|AVERAGE
SYS1|LP1|ZIIP|1767607200|2026-01-05T10:00:00Z|1|1.95|50|2|50|50|50|25|15|10|7.831|
SYS1|LP1|GCP|1767610800|2026-01-05T11:00:00Z|1|||||||||||"
compare hour "$q_hour" "$w_hour"

# And against report itself: examples/z16-demo.csv loaded by hand-written SQL (sqlite3's .import,
# then INSERT ... SELECT), its views beside `mfstat report --by system,lpar,pool,cpu,interval` and
# `--by system,lpar,pool,hour` over the same file: every metric report shows agrees to a relative
# 1e-12 (report's CSV has 15 digits), n/a where NULL, and the LSPR class.
demo=$SRC/examples/z16-demo.csv
db2=$tmp/demo.db
sqlite3 -bail "$db2" <"$SRC/data/db/schema-1.sql" || exit 1
ccols=$(head -1 "$demo" | tr -d '\r' | cut -d, -f9- | sed 's/,/", "/g; s/^/"/; s/$/"/')
casts=$(head -1 "$demo" | tr -d '\r' | cut -d, -f9- | sed 's/\([A-Za-z0-9_]*\)/CAST("\1" AS INTEGER)/g')
sqlite3 -bail "$db2" <<SQL || { echo "FAIL: loading $demo"; exit 1; }
CREATE TABLE counters_z16 (id INTEGER PRIMARY KEY$cols);
INSERT INTO file (id, name, size, sha256, format, imported_unix, imported, samples_new, samples_known, skipped)
  VALUES (1, 'z16-demo.csv', 0, 'none', 'csv', 0, '1970-01-01T00:00:00Z', 0, 0, 0);
.import --csv $demo raw
INSERT INTO sample (id, system, lpar, key_lpar, pool, cpu, start_us, seconds, key_start_s, key_len_s, anon, family,
                    cpsp_mhz, cpsp_nominal, user_only, lpar_joined, file)
  SELECT rowid, system, lpar, lpar, pool, CAST(cpu AS INTEGER), CAST(strftime('%s', interval_start) AS INTEGER) * 1000000,
         CAST(interval_seconds AS REAL), CAST(strftime('%s', interval_start) AS INTEGER),
         CAST(interval_seconds AS INTEGER), 0, 'z16', CAST(cpsp AS REAL), 0, 0, 0, 1 FROM raw;
INSERT INTO counters_z16 (id, $ccols) SELECT rowid, $casts FROM raw;
SQL
sqlite3 -bail "$db2" <"$tmp/views.sql" || { echo "FAIL: the views are not created in the demo database"; exit 1; }
# against VIEW KEYS JOIN BY...: report's CSV into table rep, then the count of disagreements.
against() {
  "$MFSTAT" report -f csv -q --by "$3" "$demo" >"$tmp/rep.csv" 2>/dev/null || { echo "FAIL: report --by $3"; fail=1; return; }
  metrics=$(head -1 "$tmp/rep.csv" | sed 's/.*,cpus_expected,//; s/,LSPR$//' | tr ',' ' ')
  conds=""
  for m in $metrics; do
    conds="$conds + (CASE WHEN r.\"$m\" = '' THEN v.\"$m\" IS NOT NULL
      ELSE v.\"$m\" IS NULL OR abs(v.\"$m\" - CAST(r.\"$m\" AS REAL)) > 1e-12 * abs(v.\"$m\") + 1e-300 END)"
  done
  res=$(sqlite3 -bail "$db2" ".import --csv $tmp/rep.csv rep_$1" \
    "SELECT count(*), sum(0 $conds + (coalesce(v.LSPR, '') != r.LSPR)) FROM rep_$1 AS r JOIN $1 AS v ON $2" 2>&1)
  rows=$(($(wc -l <"$tmp/rep.csv") - 1))
  [ "$res" = "$rows|0" ] || { echo "FAIL: $1 against report --by $3: $res (rows|disagreements), want $rows|0"; fail=1; }
}
against metrics_z16_sample "v.system = r.system AND v.lpar = r.lpar AND v.pool = r.pool AND v.cpu = CAST(r.cpu AS INTEGER)
  AND v.start_iso = r.interval_start" system,lpar,pool,cpu,interval
against metrics_z16_utc_hour "v.system = r.system AND v.lpar = r.lpar AND v.pool = r.pool AND v.start_iso = r.period_start" \
  system,lpar,pool,hour

# Created without their table, a family's views are there (sample, utc_hour, hour, day, month);
# reading one names the table.
n=$(sqlite3 "$db" "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name LIKE 'metrics_z13_%'")
[ "$n" = 5 ] || { echo "FAIL: $n views of z13, want 5"; fail=1; }
for v in utc_hour:counters_z13 hour:rollup_z13; do
  if sqlite3 "$db" "SELECT * FROM metrics_z13_${v%%:*}" >/dev/null 2>"$tmp/err"; then
    echo "FAIL: metrics_z13_${v%%:*} read without ${v#*:}"; fail=1
  elif ! grep -q "no such table: main.${v#*:}" "$tmp/err"; then
    echo "FAIL: metrics_z13_${v%%:*} without its table: $(cat "$tmp/err")"; fail=1
  fi
done

# DuckDB (tests/lib/duckdb.sh: its npm package, as bench/csv.sh installs it in
# $MFSTAT_BENCH_CACHE): schema 1 in DuckDB itself, the same rows, the same views, the same values.
# Then, where DuckDB's sqlite extension is installed, the views read from the SQLite file (DuckDB
# parses a view of an attached SQLite file itself).
if duckdb_ready; then
  duckdb_schema "$SRC" >"$tmp/duck.sql"
  sed 's/INTEGER/BIGINT/g' "$tmp/rows.sql" >>"$tmp/duck.sql"
  # The views over the roll-ups read rollup_z16 (empty here: tests/db_views_levels.sh fills it).
  echo "CREATE TABLE rollup_z16 (id BIGINT PRIMARY KEY$(echo "$cols" | sed 's/INTEGER/BIGINT/g'));" >>"$tmp/duck.sql"
  # DuckDB checks a view's tables when it is created: z16's only.
  "$MFSTAT" db sql --machine z16 >>"$tmp/duck.sql" || { echo "FAIL: mfstat db sql --machine z16"; exit 1; }
  {
    duckdb_js_head
    cat <<'JS'
const [setup, sqlite, ...queries] = args;
await con.run(readFileSync(setup, 'utf8'));
let n = 0;
for (const [out, q] of queries.map((q, i) => [`${setup}.${i}`, q])) {
  const r = await con.runAndReadAll(q);
  writeFileSync(out, r.getRows().map((row) => row.map(text).join('|')).join('\n') + '\n');
  n++;
}
try {
  await con.run('LOAD sqlite');
} catch (e) {
  console.log('no sqlite extension: ' + e.message.split('\n')[0]);
  process.exit(0);
}
// With the extension, a view that DuckDB cannot read from the file is a failure (exit 1).
await con.run(`ATTACH '${sqlite}' AS f (TYPE sqlite, READ_ONLY)`);
for (const [i, q] of queries.entries()) {
  const r = await con.runAndReadAll(q.replace(/FROM (metrics_\w+)/, 'FROM f.$1'));
  writeFileSync(`${setup}.f${i}`, r.getRows().map((row) => row.map(text).join('|')).join('\n') + '\n');
}
JS
  } >"$tmp/duck.mjs"
  if out=$(cd "$tmp" && node duck.mjs "$duckdb_cache" "$tmp/duck.sql" "$db" "$q_sample" "$q_hour" 2>&1); then
    compare "DuckDB sample" "" "$w_sample" "$tmp/duck.sql.0"
    compare "DuckDB hour" "" "$w_hour" "$tmp/duck.sql.1"
    if [ -f "$tmp/duck.sql.f1" ]; then
      compare "DuckDB reading the SQLite file, sample" "" "$w_sample" "$tmp/duck.sql.f0"
      compare "DuckDB reading the SQLite file, hour" "" "$w_hour" "$tmp/duck.sql.f1"
    else
      echo "DuckDB reading the SQLite file: skipped: ${out:-no result} (the extension is downloaded on first use)"
    fi
  else
    echo "FAIL: DuckDB: $out"; fail=1
  fi
fi
[ $fail = 0 ] && echo "the views give the values worked out by hand"
exit $fail
