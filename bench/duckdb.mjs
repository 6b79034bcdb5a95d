// SPDX-License-Identifier: MIT
//
// The DuckDB side of bench/csv.sh (not a test): does the work of `mfstat report -f csv FILE` with
// DuckDB: read_csv of the file, GROUP BY system, lpar, pool, interval_start with SUM of every
// counter column, then the metrics of mfstat's default z16 report, computed from the same formulas
// (data/metrics/common.tsv and z16.tsv, translated to SQL here, a family row replacing a common
// one) and the LSPR class of data/lspr.tsv, ordered like mfstat's output and written as CSV.
//
// Usage: node bench/duckdb.mjs FILE THREADS RUNS [auto|typed [OUT [METRICS]]]
//   Prints one line "best SECONDS" (the best of RUNS runs of the COPY statement, each in a fresh
//   connection after SET threads=THREADS); OUT (default /dev/null) receives the CSV.  auto (the
//   default) lets read_csv detect the dialect and the column types; typed gives them.  METRICS,
//   a comma-separated list such as CPI,PRBSTATE,L1MP,L2P, computes only those metrics (the work of
//   `mfstat report --metrics LIST`; the sums are still of every counter, and there is no LSPR
//   column unless L1MP and RNI are both in it).
// MFSTAT_BENCH_GROUP=system,month groups by system and calendar month (UTC) instead, as
// `mfstat report --by system,month` does (bench/db.sh), INTERVAL then the wall-clock seconds of
// the month's distinct interval starts.
// The package @duckdb/node-api is looked up in $MFSTAT_BENCH_CACHE (where bench/csv.sh installed
// it with npm), else next to this script.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const [file, threadsArg, runsArg, mode = 'auto', out = '/dev/null', only = ''] = process.argv.slice(2);
if (!file || !threadsArg) {
	console.error('usage: node bench/duckdb.mjs FILE THREADS RUNS [auto|typed [OUT]]');
	process.exit(2);
}
const threads = Number(threadsArg), runs = Number(runsArg || 3);

const cache = process.env.MFSTAT_BENCH_CACHE || here;
const req = createRequire(join(cache, 'package.json'));
const duckdb = await import(pathToFileURL(req.resolve('@duckdb/node-api')).href);

// ------------------------------------------------------------ the query
// The header: of a compressed CSV (.zst, .gz, which read_csv reads as they are) through zstd -dc,
// of the first file when FILE is a pattern (read_csv reads every file it matches).
let headText;
if (/\.(zst|gz)$/.test(file)) {
	const first = 'for f in $1; do zstd -dc -- "$f" | head -n 1; break; done';
	headText = execFileSync('sh', ['-c', first, 'sh', file], {maxBuffer: 1 << 20}).toString('latin1');
} else {
	const head = Buffer.alloc(65536), fd = openSync(file, 'r');
	headText = head.toString('latin1', 0, readSync(fd, head, 0, head.length, 0));
	closeSync(fd);
}
const header = headText.split('\n')[0].split(',');
const ident = ['system', 'lpar', 'cpu', 'pool', 'machine', 'cpsp', 'interval_start', 'interval_seconds'];
const counters = header.filter((c) => !ident.includes(c));
const q = (s) => '"' + s.replace(/"/g, '""') + '"';

function readMetrics(name) {
	const rows = readFileSync(join(root, 'data/metrics', name), 'utf8').split('\n')
		.filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t'));
	const cols = rows.shift();
	return rows.map((r) => Object.fromEntries(cols.map((c, i) => [c, r[i]])));
}
const defs = new Map();
for (const m of [...readMetrics('common.tsv'), ...readMetrics('z16.tsv')]) defs.set(m.name, m);

// A formula is names, numbers, + - * / and parentheses: a metric name becomes its own formula in
// parentheses, a counter the group's sum as DOUBLE, CPSP and INTERVAL the group's values.  A metric
// that needs a name the CSV does not have (RMF_BUSY) is left out, as mfstat leaves it out.
function sql(name, seen = new Set()) {
	if (seen.has(name)) throw new Error('cycle at ' + name);
	seen.add(name);
	return defs.get(name).formula.replace(/[0-9.]+(?:e[+-]?[0-9]+)?|[A-Za-z_][A-Za-z0-9_]*/g, (id) => {
		if (/^[0-9.]/.test(id)) return id; /* a number such as 1e6 */
		if (id === 'CPSP') return 'g.cpsp';
		if (id === 'INTERVAL') return 'g.interval';
		if (counters.includes(id)) return `CAST(g.${q(id)} AS DOUBLE)`;
		if (defs.has(id)) return '(' + sql(id, new Set(seen)) + ')';
		throw new Error('unknown name ' + id);
	});
}
const metrics = [];
const wanted = only ? new Set(only.split(',')) : null;
for (const [name, m] of defs) {
	if (wanted ? !wanted.has(name) : m.flags.split(',').includes('aux')) continue;
	try {
		metrics.push(`${sql(name)} AS ${q(name)}`);
	} catch {
		/* not computable from a counter CSV */
	}
}
const lspr = `CASE WHEN "L1MP" < 3 THEN (CASE WHEN "RNI" >= 0.75 THEN 'AVERAGE' ELSE 'LOW' END)
	WHEN "L1MP" <= 6 THEN (CASE WHEN "RNI" > 1.0 THEN 'HIGH' WHEN "RNI" >= 0.6 THEN 'AVERAGE' ELSE 'LOW' END)
	ELSE (CASE WHEN "RNI" >= 0.75 THEN 'HIGH' ELSE 'AVERAGE' END) END`;
// auto: DuckDB's sniffer finds the dialect and the types (what `read_csv('FILE')` does);
// typed: the columns given, no sniffing (interval_start TIMESTAMP, counters UBIGINT).
const types = { system: 'VARCHAR', lpar: 'VARCHAR', cpu: 'INTEGER', pool: 'VARCHAR', machine: 'VARCHAR',
	cpsp: 'INTEGER', interval_start: 'TIMESTAMP', interval_seconds: 'INTEGER' };
const readOpts = mode === 'typed'
	? `, auto_detect = false, delim = ',', quote = '"', columns = {${header.map((c) => `'${c}': '${types[c] || 'UBIGINT'}'`).join(', ')}}`
	: '';
const monthly = process.env.MFSTAT_BENCH_GROUP === 'system,month';
const keys = monthly ? ['system', 'month'] : ['system', 'lpar', 'pool', 'interval_start'];
const keySel = monthly ? "system, strftime(interval_start, '%Y-%m') AS month" : 'system, lpar, pool, interval_start';
const interval = monthly ? 'max(interval_seconds) * count(DISTINCT interval_start)' : 'max(interval_seconds)';
const query = `COPY (
WITH g AS (
	SELECT ${keySel},
		${interval} AS interval, any_value(cpsp) AS cpsp, any_value(machine) AS machine,
		count(DISTINCT cpu) AS cpus,
		${counters.map((c) => `sum(${q(c)}) AS ${q(c)}`).join(',\n\t\t')}
	FROM read_csv(${"'" + file.replace(/'/g, "''") + "'"}, header = true${readOpts})
	GROUP BY ${keys.join(', ')}
), m AS (
	SELECT ${keys.map((k) => 'g.' + k).join(', ')}, g.interval, g.machine, g.cpus,
		${metrics.join(',\n\t\t')}
	FROM g
)
SELECT *${!wanted || (wanted.has('L1MP') && wanted.has('RNI')) ? `, ${lspr} AS LSPR` : ''} FROM m
ORDER BY ${keys.join(', ')}
) TO '${out.replace(/'/g, "''")}' (FORMAT csv, HEADER true)`;
if (process.env.MFSTAT_BENCH_SQL) console.error(query);

// ------------------------------------------------------------ runs
const instance = await duckdb.DuckDBInstance.create(':memory:');
let best = Infinity;
for (let i = 0; i < runs; i++) {
	const con = await instance.connect();
	await con.run(`SET threads = ${threads}`);
	const t0 = process.hrtime.bigint();
	await con.run(query);
	const t = Number(process.hrtime.bigint() - t0) / 1e9;
	best = Math.min(best, t);
	con.closeSync?.();
}
console.log(`best ${best.toFixed(6)}`);
