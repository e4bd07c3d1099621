// npm run bench -- metrics-pg-cost [-- --explain] [-- --setup "SQL; SQL"]
//
// What PostgreSQL itself spends per batched pod sample, by statement: the metrics bench's simulated
// day (200 containers, one sample a minute, batches of 5,000) written through the store one batch at
// a time (or --in-flight at once), each statement's backend CPU read from /proc/<backend pid>/schedstat around it (the server
// must run on this machine), so neither the host nor other databases' work is counted.
// --explain runs the sample statements as EXPLAIN (ANALYZE, BUFFERS, WAL): the WAL bytes, records
// and full-page images of each table written, and the time of each plan node (wall time, which
// includes the instrumentation's own cost: read its shares, not its sums). --setup runs SQL after
// the migrations (e.g. a different rollup key, to see what it would cost the writes).
// Needs FINWATCH_BENCH_PG_URL (or FINWATCH_TEST_PG_URL); a fresh database is made and dropped.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../shared/config/index.js';
import { openDatabase } from '../shared/db/client.js';
import { type MetricRecord, podRecordSchema } from '../shared/metrics/records.js';
import { PostgresMetricsStore } from '../shared/metrics/store/postgres/store.js';
import { createPostgresDatabase } from '../test/support/databases.js';
import { podSample } from './metrics-fleet.js';

const { values: opts } = parseArgs({
  options: {
    explain: { type: 'boolean', default: false },
    setup: { type: 'string', default: '' },
    // Batches written at once, as the agent's 4 in flight (1: each statement alone).
    'in-flight': { type: 'string', default: '1' },
  },
});
const PG_URL = process.env.FINWATCH_BENCH_PG_URL ?? process.env.FINWATCH_TEST_PG_URL;
const CONTAINERS = 200;
const H = 3_600_000;

/** The simulated day's fleet as bench/metrics.ts posts it by default (600 containers: 5 namespaces, 20 nodes). */
const DAY_FLEET = { namespaces: 5, nodes: 20 };

/** A statement's name in the report, by its text. */
function label(text: string): string {
  if (text.startsWith('WITH raw AS (INSERT INTO metrics.pod_raw')) return 'samples (raw + both rollups)';
  if (text.startsWith('INSERT INTO "MetricsIngestBatches"')) return 'batch id';
  if (text.includes('metrics.cost_day_late')) return 'late days';
  if (text.startsWith('INSERT INTO "MetricsPodSeries"')) return 'series upsert';
  return text.split(/\s/)[0] ?? text;
}

interface Node {
  ms: number;
  walBytes: number;
  walRecords: number;
  fpi: number;
}
interface Stat {
  n: number;
  cpuNs: number;
  /** Wall time the statement took (waits for another batch's row locks included). */
  wallNs: number;
  nodes: Map<string, Node>;
}
const stats = new Map<string, Stat>();
const statOf = (name: string): Stat => {
  let s = stats.get(name);
  if (!s) {
    s = { n: 0, cpuNs: 0, wallNs: 0, nodes: new Map() };
    stats.set(name, s);
  }
  return s;
};
const nodeOf = (s: Stat, key: string): Node => {
  let e = s.nodes.get(key);
  if (!e) {
    e = { ms: 0, walBytes: 0, walRecords: 0, fpi: 0 };
    s.nodes.set(key, e);
  }
  return e;
};
const cpuNs = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };
/** Adds a plan's nodes' own time and WAL (a node's counters include its inputs', not its CTEs'). */
function addPlan(s: Stat, p: PlanNode, path: string): void {
  const key = `${path}${p['Node Type']}${p['Relation Name'] ? ` ${p['Relation Name']}` : ''}${p['Subplan Name'] ? ` (${p['Subplan Name']})` : ''}`;
  const kids = p.Plans ?? [];
  const inputs = kids.filter((k) => k['Parent Relationship'] !== 'InitPlan');
  const own = (field: string, perLoop = false) =>
    (p[field] as number) * (perLoop ? (p['Actual Loops'] as number) : 1) -
    inputs.reduce((a, k) => a + (k[field] as number) * (perLoop ? (k['Actual Loops'] as number) : 1), 0);
  const e = nodeOf(s, key);
  e.ms += own('Actual Total Time', true);
  e.walBytes += own('WAL Bytes');
  e.walRecords += own('WAL Records');
  e.fpi += own('WAL FPI');
  for (const k of kids) addPlan(s, k, `${key} > `);
}

// Every statement of a measured batch goes through pg's Client.query: timed there.
let measuring = false;
const query = pg.Client.prototype.query as (...args: unknown[]) => Promise<pg.QueryResult>;
(pg.Client.prototype as unknown as { query: unknown }).query = function (
  this: pg.Client & { processID: number },
  ...args: unknown[]
) {
  const config = args[0] as string | pg.QueryConfig;
  if (!measuring) return query.apply(this, args);
  const text = typeof config === 'string' ? config : config.text;
  const name = label(text);
  const done = args[args.length - 1];
  if (typeof done === 'function') {
    // pg.Pool's own query (a statement outside a transaction) passes a callback.
    const before = cpuNs(this.processID);
    const start = process.hrtime.bigint();
    args[args.length - 1] = (err: unknown, result: unknown) => {
      const s = statOf(name);
      s.n++;
      s.wallNs += Number(process.hrtime.bigint() - start);
      s.cpuNs += cpuNs(this.processID) - before;
      done(err, result);
    };
    return query.apply(this, args);
  }
  // EXPLAIN for the statements whose row count the store does not read.
  const explain =
    opts.explain && typeof config !== 'string' && (name.startsWith('samples') || name === 'late days');
  const run = explain
    ? [
        {
          ...config,
          name: `x${config.name ?? ''}`,
          text: `EXPLAIN (ANALYZE, BUFFERS, WAL, FORMAT JSON) ${text}`,
        },
      ]
    : args;
  return (async () => {
    const before = cpuNs(this.processID);
    const start = process.hrtime.bigint();
    const result = await query.apply(this, run);
    const s = statOf(name);
    s.n++;
    s.wallNs += Number(process.hrtime.bigint() - start);
    s.cpuNs += cpuNs(this.processID) - before;
    if (!explain) return result;
    const [plan] = (result.rows[0] as Record<string, unknown>)['QUERY PLAN'] as Array<{
      Plan: PlanNode;
      'Planning Time': number;
    }>;
    addPlan(s, plan!.Plan, '');
    nodeOf(s, '(planning)').ms += plan!['Planning Time'];
    return { ...result, rowCount: 1 };
  })();
};

if (!PG_URL) {
  console.log('metrics-pg-cost: skipped (no FINWATCH_BENCH_PG_URL)');
  process.exit(0);
}
const scratch = await createPostgresDatabase(PG_URL, 'finwatch_bench_pgcost');
const db = await openDatabase({ connectionString: scratch.url, dataDir: 'memory://' });
try {
  await db.migrate();
  for (const statement of opts.setup.split(';').map((s) => s.trim())) {
    if (statement) await db.pool!.query(statement);
  }
  const settings = loadConfig({ WEBAPP_ENVIRONMENT: 'Development', DATA_DIR: 'memory://' }).metrics;
  const store = new PostgresMetricsStore(db.prisma, settings, { pool: db.pool });
  const day0 = Date.now() - 24 * H;
  const batches: MetricRecord[][] = [[]];
  for (let m = 0; m < 1440; m++) {
    const at = new Date(day0 + m * 60_000);
    for (let c = 0; c < CONTAINERS; c++) {
      if (batches.at(-1)!.length === 5000) batches.push([]);
      batches
        .at(-1)!
        .push({ kind: 'pod', collectedAt: at, data: podRecordSchema.parse(podSample(c, 'day', DAY_FLEET)) });
    }
  }
  // The first batch learns the label sets and makes the partitions: not counted.
  await store.write({ clusterName: 'day', batchId: randomUUID(), records: batches[0]! });
  measuring = true;
  let samples = 0;
  const queue = batches.slice(1);
  const started = Date.now();
  await Promise.all(
    Array.from({ length: Number(opts['in-flight']) }, async () => {
      for (let records = queue.shift(); records; records = queue.shift()) {
        await store.write({ clusterName: 'day', batchId: randomUUID(), records });
        samples += records.length;
      }
    }),
  );
  const elapsed = Date.now() - started;
  measuring = false;
  const us = (ns: number) => (ns / samples / 1000).toFixed(3);
  console.log(
    `PostgreSQL backend CPU per batched pod sample, ${opts['in-flight']} batch(es) at a time (${samples} samples, ${batches.length - 1} batches, ${Math.round((samples / elapsed) * 1000)} samples/s)${opts.explain ? ', sample statements under EXPLAIN ANALYZE' : ''}${opts.setup ? `; setup: ${opts.setup}` : ''}`,
  );
  let total = 0;
  for (const [name, s] of stats) {
    total += s.cpuNs;
    console.log(
      `  ${name.padEnd(30)} ${us(s.cpuNs)} µs a sample (${s.n} statements, ${(s.wallNs / s.n / 1e6).toFixed(1)} ms wall each)`,
    );
    for (const [key, e] of s.nodes) {
      console.log(
        `      ${key.padEnd(70)} ${((e.ms * 1000) / samples).toFixed(3)} µs, WAL ${(e.walBytes / samples).toFixed(1)} B in ${(e.walRecords / samples).toFixed(3)} records (${(e.fpi / samples).toFixed(4)} full pages) a sample`,
      );
    }
  }
  console.log(`  ${'total'.padEnd(30)} ${us(total)} µs a sample`);
  const { rows } = await db.pool!.query(
    `SELECT c.relname AS name, pg_relation_size(c.oid)::float8 AS bytes, s.n_tup_ins AS ins, s.n_tup_upd AS upd, s.n_tup_hot_upd AS hot
       FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
      WHERE c.relnamespace = 'metrics'::regnamespace AND c.relname LIKE 'pod%' AND c.relkind IN ('r', 'i') ORDER BY 1`,
  );
  for (const r of rows) {
    console.log(
      `  ${r.name.padEnd(40)} ${(r.bytes / 1048576).toFixed(2)} MB${r.ins === null ? '' : `, rows inserted ${r.ins}, updated ${r.upd} (HOT ${r.hot})`}`,
    );
  }
  await store.close();
} finally {
  await db.close();
  await scratch.drop();
}
