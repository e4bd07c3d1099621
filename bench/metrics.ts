// npm run bench -- metrics [-- --containers 6000 --nodes 200 --day-containers 1000 --seconds 10]
//
// The metrics service against its aims:
//  1. one-object posts (the original agent's mode) through the local host, 16 connections:
//     >= 2,000 posts/s, p99 < 100 ms, 0 errors, host RSS < 400 MB (the load generator runs in a
//     child process of its own, so this process's RSS is the host's);
//  2. batched pod samples per second end to end: gzip batches posted to POST ingest/batch
//     (>= 100,000/s into PostgreSQL);
//  3. bytes on disk per pod sample after a simulated day of --day-containers containers (<= 100);
//  4. reads at 10 clients over 7 simulated days of a --containers / --nodes fleet: the web
//     client's namespace and node lists at 1 h, 24 h and 7 d (p99 < 100 / 250 / 500 ms).
// Parts 2-4 need a PostgreSQL server: FINWATCH_BENCH_PG_URL (or FINWATCH_TEST_PG_URL), e.g.
// postgresql://postgres@127.0.0.1:5432/postgres; a fresh database is made and dropped. Without
// one they run on in-memory PGlite and say so. The fleet size is a parameter: a quick run is
// `--containers 600 --nodes 20 --day-containers 200`.
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import { startAzurite } from '../dev/azurite.js';
import { type LocalHost, startLocalHost } from '../dev/host.js';
import { loadConfig } from '../shared/config/index.js';
import { type MetricRecord, podRecordSchema } from '../shared/metrics/records.js';
import { samplesSql, seriesSql } from '../shared/metrics/store/postgres/reads.js';
import { PostgresMetricsStore } from '../shared/metrics/store/postgres/store.js';
import { NODE, POD, RAW_EPOCH_S } from '../shared/metrics/store/postgres/tables.js';
import { planRead } from '../shared/metrics/store/read-plan.js';
import { createLogger } from '../shared/observability/logger.js';
import { createPostgresDatabase } from '../test/support/databases.js';
import { startLoadGenerator } from './load-generator.js';
import { podSample } from './metrics-fleet.js';
import { rerunBundled } from './worker-flags.js';

// The host runs in this process, bundled and with the V8 flags the deployed Functions worker has,
// so its RSS and CPU figures are the deployment's (without the flags the host peaked ~25 MB higher
// under posts; under tsx ~75 MB).
await rerunBundled(
  'metrics',
  process.env.FINWATCH_BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url)),
);

const { values: opts } = parseArgs({
  options: {
    containers: { type: 'string', default: '6000' },
    nodes: { type: 'string', default: '200' },
    'day-containers': { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '10' },
    skip: { type: 'string', default: '' },
    // Keep the reads' database at the end (its URL is printed), for EXPLAIN by hand.
    'keep-db': { type: 'boolean', default: false },
    // Metrics__ReadCacheSeconds of the host (0: every read is built, as a poll that misses is).
    'read-cache-seconds': { type: 'string', default: '15' },
  },
});
const CONTAINERS = Number(opts.containers);
const NODES = Number(opts.nodes);
const DAY_CONTAINERS = Number(opts['day-containers']);
const SECONDS = Number(opts.seconds);
const SKIP = new Set(opts.skip.split(',').filter(Boolean));
const NAMESPACES = Math.max(1, Math.round(CONTAINERS / 120));
const KEY = `bench-key-${randomBytes(16).toString('hex')}`;
const PG_URL = process.env.FINWATCH_BENCH_PG_URL ?? process.env.FINWATCH_TEST_PG_URL;
const H = 3_600_000;

const ratio = (value: number, aim: number, lowerIsBetter: boolean) =>
  `${(lowerIsBetter ? aim / value : value / aim).toFixed(2)}x of aim ${lowerIsBetter ? '<' : '>='} ${aim}`;
const mb = () => Math.round(process.memoryUsage().rss / 1048576);

async function freshDatabase(): Promise<{ url: string | undefined; drop(): Promise<void> }> {
  if (!PG_URL) return { url: undefined, drop: async () => {} };
  return createPostgresDatabase(PG_URL, 'finwatch_bench_metrics');
}

async function startHost(url: string | undefined, skipMigrations = false) {
  const azurite = await startAzurite();
  const config = loadConfig({
    WEBAPP_ENVIRONMENT: 'Development',
    DATA_DIR: 'memory://',
    AzureWebJobsStorage: azurite.connectionString,
    WeeklyAnalysis__Enabled: 'false',
    Jwt__Key: KEY,
    Jwt__Issuers: 'finwatch-bench',
    Jwt__Audiences: 'finwatch-bench',
    Metrics__ReadCacheSeconds: opts['read-cache-seconds'],
    ...(url ? { ConnectionStrings__SqlConnectionString: url } : {}),
  });
  const host: LocalHost = await startLocalHost({
    config,
    queueWorker: false,
    notifier: false,
    metricsTimer: false,
    servicesOptions: { log: createLogger('None'), skipMigrations },
  });
  return {
    host,
    async close() {
      await host.close();
      await azurite.stop();
    },
  };
}

/** Container i's sample as the finwatch agent sends it (camelCase, the fields it fills). */
const podData = (i: number, cluster: string) =>
  podSample(i, cluster, { namespaces: NAMESPACES, nodes: NODES });

function podRecord(i: number, at: Date, cluster: string): MetricRecord {
  return { kind: 'pod', collectedAt: at, data: podRecordSchema.parse(podData(i, cluster)) };
}

// ------------------------------------------------------------------ 1. one-object posts
/** The load generator runs in a child process, so this process's RSS is the host's alone. */
async function onePosts(): Promise<void> {
  const db = await freshDatabase();
  const { host, close } = await startHost(db.url);
  const load = startLoadGenerator();
  try {
    const made = await host.services.metrics.keys.create(
      'bench',
      { userId: 'bench', email: 'bench@example.test' },
      { headers: new Headers() },
    );
    // The original agent's body (PascalCase), one per container of the fleet.
    const bodies = Array.from({ length: CONTAINERS }, (_, n) =>
      JSON.stringify({
        ClusterName: 'bench',
        Namespace: `ns-${n % 50}`,
        Pod: `app-${n}`,
        Container: 'app',
        CpuUsageCores: 0.1,
        CpuLimitCores: 0.5,
        MemoryUsageBytes: 1e8,
        MemoryLimitBytes: 5e8,
        NodeName: `node-${n % NODES}`,
        PodState: 'Running',
        RestartCount: 0,
        PodAge: 100,
      }),
    );
    const request = {
      url: `${host.url}/metrics/api/metrics/pod`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${made.key}` },
      connections: 16,
      timeoutSeconds: 30,
      bodies,
    };
    await load.measure({ ...request, seconds: 2 });
    const settled = process.memoryUsage();
    let peak = mb();
    let atPeak = settled;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      if (m.rss / 1048576 > peak) [peak, atPeak] = [Math.round(m.rss / 1048576), m];
    }, 200);
    const cpu = process.cpuUsage();
    const r = await load.measure({ ...request, seconds: SECONDS });
    const used = process.cpuUsage(cpu);
    clearInterval(sampler);
    const perSecond = r.requests / (r.elapsedMs / 1000);
    const errors = r.failures + r.timeouts + r.refused;
    console.log(
      `one-object posts (${PG_URL ? 'PostgreSQL' : 'PGlite'}, 16 connections, ${SECONDS} s): ${Math.round(perSecond)} posts/s (${ratio(perSecond, 2000, false)}), ` +
        `p99 ${r.p99} ms (${ratio(r.p99, 100, true)}), errors ${errors}, host RSS peak ${peak} MB (${ratio(peak, 400, true)}), ` +
        `host CPU ${((used.user + used.system) / r.requests / 1000).toFixed(3)} ms per post`,
    );
    // Where the RSS is: V8's heap (live objects and what it reserved), buffers outside it, and the
    // rest (code, the runtime's own, freed memory not yet handed back).
    const parts = (m: NodeJS.MemoryUsage) =>
      `RSS ${Math.round(m.rss / 1048576)} MB = heap ${Math.round(m.heapTotal / 1048576)} MB (${Math.round(m.heapUsed / 1048576)} live) + external ${Math.round(m.external / 1048576)} MB (buffers ${Math.round(m.arrayBuffers / 1048576)}) + other ${Math.round((m.rss - m.heapTotal - m.external) / 1048576)} MB`;
    console.log(`  host memory after warm-up: ${parts(settled)}; at the peak: ${parts(atPeak)}`);
  } finally {
    load.stop();
    await close();
    await db.drop();
  }
}

// ---------------------------------------------- 2 + 3. batched samples/s and bytes per sample
/**
 * A simulated day: DAY_CONTAINERS containers sampled every minute, posted as the finwatch agent
 * posts them (gzip JSON batches of 5,000 records, the agent's largest) to POST ingest/batch, 4 in
 * flight, oldest first, from the load generator's process.
 */
async function batchedAndBytes(): Promise<void> {
  const db = await freshDatabase();
  const { host, close } = await startHost(db.url);
  const load = startLoadGenerator();
  try {
    const made = await host.services.metrics.keys.create(
      'day',
      { userId: 'bench', email: 'bench@example.test' },
      { headers: new Headers() },
    );
    const day0 = Date.now() - 24 * H;
    const bodies: Buffer[] = [];
    let written = 0;
    let pending: string[] = [];
    const flush = () => {
      if (!pending.length) return;
      const json = `{"batchId":"${randomUUID()}","clusterName":"day","records":[${pending.join(',')}]}`;
      bodies.push(gzipSync(json));
      written += pending.length;
      pending = [];
    };
    for (let m = 0; m < 1440; m++) {
      const at = new Date(day0 + m * 60_000).toISOString();
      for (let c = 0; c < DAY_CONTAINERS; c++) {
        pending.push(JSON.stringify({ kind: 'pod', collectedAt: at, data: podData(c, 'day') }));
        if (pending.length === 5000) flush();
      }
    }
    flush();
    const request = {
      url: `${host.url}/metrics/api/ingest/batch`,
      headers: {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        authorization: `Bearer ${made.key}`,
      },
      connections: 4,
      seconds: 0,
      timeoutSeconds: 300,
      once: true,
    };
    const cpu = process.cpuUsage();
    const r = await load.measure({ ...request, bodies });
    const used = process.cpuUsage(cpu);
    if (r.failures || r.timeouts || r.requests !== bodies.length) {
      throw new Error(`batched ingest: ${r.failures} failures, ${r.timeouts} timeouts of ${bodies.length}`);
    }
    const perSecond = written / (r.elapsedMs / 1000);
    console.log(
      `batched pod samples end to end (${db.url ? 'PostgreSQL' : 'PGlite'}, gzip POST ingest/batch of 5,000, 4 in flight, both rollups): ` +
        `${Math.round(perSecond)} samples/s over ${written} samples (${ratio(perSecond, 100_000, false)}), p99 ${r.p99} ms per batch, ` +
        `host CPU ${(((used.user + used.system) / written) * 1).toFixed(2)} µs per sample`,
    );
    const prisma = host.services.prisma;
    const measure = async (what: string) => {
      await prisma.$executeRawUnsafe('VACUUM ANALYZE').catch(() => undefined);
      const [size] = await prisma.$queryRawUnsafe<Array<{ heap: number; raw: number; all: number }>>(
        `SELECT
         (SELECT coalesce(sum(pg_table_size(i.inhrelid)), 0) FROM pg_inherits i
           WHERE i.inhparent = 'metrics.pod_raw'::regclass)::float8 AS heap,
         (SELECT coalesce(sum(pg_total_relation_size(i.inhrelid)), 0) FROM pg_inherits i
           WHERE i.inhparent = 'metrics.pod_raw'::regclass)::float8 AS raw,
         (SELECT coalesce(sum(pg_total_relation_size(i.inhrelid)), 0) FROM pg_inherits i
           WHERE i.inhparent IN ('metrics.pod_raw'::regclass, 'metrics.pod_5m'::regclass, 'metrics.pod_1h'::regclass))::float8
           + pg_total_relation_size('"MetricsPodSeries"')::float8 AS all`,
      );
      const heap = Number(size!.heap) / written;
      const raw = Number(size!.raw) / written;
      const all = Number(size!.all) / written;
      console.log(
        `bytes on disk per pod sample ${what} (${DAY_CONTAINERS} containers, 1 sample/min): raw table and its index ${raw.toFixed(1)} ` +
          `(table ${heap.toFixed(1)}, index ${(raw - heap).toFixed(1)}; ${ratio(raw, 100, true)}); with both rollups and the label sets ${all.toFixed(1)}`,
      );
    };
    await measure('after a simulated day');
    // Housekeeping rebuilds a day partition's indexes once the day has closed (an hour after it
    // ends): run as of 02:00 tomorrow, when both days the samples span have closed.
    const store = new PostgresMetricsStore(
      prisma,
      loadConfig({ WEBAPP_ENVIRONMENT: 'Development', DATA_DIR: 'memory://' }).metrics,
    );
    const packed = await store.housekeeping(new Date(Math.ceil(Date.now() / (24 * H)) * 24 * H + 2 * H));
    await measure(`once housekeeping packed the closed days (${packed.packed?.length ?? 0} partitions)`);
  } finally {
    load.stop();
    await close();
    await db.drop();
  }
}

// ------------------------------------------------------------------------------- 4. reads
/**
 * A 7-day fleet written straight into the tables with generate_series (writing 60 million samples
 * through the ingest path would take longer than the bench should): raw samples for the last 6
 * hours, 5-minute rollups for 2 days and hourly ones for 7 days, which is all a read uses.
 */
async function seedFleet(url: string | undefined, prisma: import('../shared/db/client.js').PrismaClient) {
  const store = new PostgresMetricsStore(
    prisma,
    loadConfig({ WEBAPP_ENVIRONMENT: 'Development', DATA_DIR: 'memory://' }).metrics,
  );
  const now = Date.now();
  // One real write creates the label sets, pod states and today's partitions.
  const first: MetricRecord[] = [];
  for (let c = 0; c < CONTAINERS; c++) first.push(podRecord(c, new Date(now - 1000), 'fleet'));
  for (let n = 0; n < NODES; n++) {
    first.push({
      kind: 'node',
      collectedAt: new Date(now - 1000),
      data: {
        clusterName: 'fleet',
        nodeName: `node-${n}`,
        clusterEnvironment: 'PROD',
        cpuUsageCores: 1,
        cpuCapacityCores: 8,
        memoryUsageBytes: 8e9,
        memoryCapacityBytes: 32e9,
        kubernetesVersion: 'v1.30.5',
        cloudProvider: 'AKS',
        isReady: true,
        hasMemoryPressure: false,
        hasDiskPressure: false,
        hasPidPressure: false,
        architecture: 'amd64',
        operatingSystem: 'linux',
        region: 'eastus',
        instanceType: 'Standard_D8s_v5',
        providerId: null,
        nodePool: 'np1',
        cpuAllocatableCores: 7.8,
        memoryAllocatableBytes: 30e9,
      },
    });
  }
  for (let i = 0; i < first.length; i += 5000)
    await store.write({ clusterName: 'fleet', records: first.slice(i, i + 5000) });
  // Partitions for the whole week, then the rows.
  const days = Array.from({ length: 8 }, (_, d) => new Date(now - d * 24 * H));
  await store.housekeeping(new Date(now));
  for (const d of days) {
    const nodeAt = { ...first[CONTAINERS]!, collectedAt: d } as MetricRecord;
    await store.write({ clusterName: 'fleet', records: [podRecord(0, d, 'fleet'), nodeAt] });
  }
  // The fleet's rows go in through a client of its own: at 6,000 containers one statement writes
  // millions of rows, longer than the app's statement timeout allows.
  const seeder = url ? new pg.Client({ connectionString: url }) : undefined;
  await seeder?.connect();
  const exec = async (sql: string) =>
    seeder ? (await seeder.query(sql)).rowCount : prisma.$executeRawUnsafe(sql);
  const t = performance.now();
  for (const [kind, series] of [
    ['pod', 'MetricsPodSeries'],
    ['node', 'MetricsNodeSeries'],
  ] as const) {
    const podCols =
      kind === 'pod'
        ? {
            raw: 'mem, cpu, restarts, pod_age, state',
            vals: '1e8 + random() * 5e7, random() * 0.3, 0, 86400, 1',
          }
        : {
            raw: 'mem, mem_capacity, cpu, cpu_capacity, ready, memory_pressure, disk_pressure, pid_pressure',
            vals: '8e9 + random() * 1e9, 32e9, random() * 4, 8, true, false, false, false',
          };
    const rollCols =
      kind === 'pod'
        ? {
            cols: 'mem_sum, mem_n, cpu_sum, cpu_n, restarts, pod_age, state',
            vals: '5 * (1e8 + random() * 5e7), 5, random() * 1.5, 5, 0, 86400, 1',
          }
        : {
            cols: 'mem_sum, mem_n, mem_capacity_sum, mem_capacity_n, cpu_sum, cpu_n, cpu_capacity_sum, cpu_capacity_n, ready, memory_pressure, disk_pressure, pid_pressure',
            vals: '5 * 8e9::float8, 5, 5 * 32e9::float8, 5, random() * 20, 5, 40, 5, true, false, false, false',
          };
    await exec(
      `INSERT INTO metrics.${kind}_raw (ts, series_id, ${podCols.raw})
       SELECT floor(extract(epoch FROM t))::integer - ${RAW_EPOCH_S}, s.id, ${podCols.vals} FROM "${series}" s,
              generate_series(now() - interval '6 hours', now() - interval '2 minutes', interval '1 minute') t
        WHERE s."clusterName" = 'fleet'`,
    );
    await exec(
      `INSERT INTO metrics.${kind}_5m (bucket, series_id, n, last_ts, ${rollCols.cols})
       SELECT t, s.id, 5, t + interval '4 minutes', ${rollCols.vals} FROM "${series}" s,
              generate_series(date_bin('5 minutes', now() - interval '2 days', timestamptz '2000-01-01'), now() - interval '10 minutes', interval '5 minutes') t
        WHERE s."clusterName" = 'fleet' ON CONFLICT DO NOTHING`,
    );
    await exec(
      `INSERT INTO metrics.${kind}_1h (bucket, series_id, n, last_ts, ${rollCols.cols})
       SELECT t, s.id, 5, t + interval '59 minutes', ${rollCols.vals} FROM "${series}" s,
              generate_series(date_bin('1 hour', now() - interval '7 days', timestamptz '2000-01-01'), now() - interval '2 hours', interval '1 hour') t
        WHERE s."clusterName" = 'fleet' ON CONFLICT DO NOTHING`,
    );
  }
  // What autovacuum does to these insert-only partitions soon after (PostgreSQL 13 and later vacuum
  // a table after inserts alone): marks their pages all-visible, so the pod rollups' reads answer
  // from the key's columns without visiting the rows.
  await exec(url ? 'VACUUM ANALYZE' : 'ANALYZE');
  await seeder?.end();
  console.log(
    `seeded a 7-day fleet of ${CONTAINERS} containers / ${NODES} nodes (${NAMESPACES} namespaces) on ${url ? 'PostgreSQL' : 'PGlite'} in ${Math.round((performance.now() - t) / 1000)} s`,
  );
}

async function reads(): Promise<void> {
  const db = await freshDatabase();
  const { host, close } = await startHost(db.url);
  try {
    await seedFleet(db.url, host.services.prisma);
    const admin = await host.services.prisma.user.create({
      data: { username: 'bench', email: 'bench@example.test', isAdmin: true },
    });
    const token = jwt.sign({ id: admin.id, email: admin.email, isAdmin: 'True' }, KEY, {
      algorithm: 'HS256',
      issuer: 'finwatch-bench',
      audience: 'finwatch-bench',
      subject: admin.id,
      expiresIn: '2h',
    });
    for (const [label, minutes, aim] of [
      ['1 h', 60, 100],
      ['24 h', 1440, 250],
      ['7 d', 10080, 500],
    ] as const) {
      let i = 0;
      // The application page's list (one namespace's containers) and the cluster page's node list.
      const paths = () => {
        const k = i++;
        return k % 2
          ? `/metrics/api/metrics/namespace?minutes=${minutes}&clusterName=fleet&namespace=ns-${k % NAMESPACES}`
          : `/metrics/api/metrics/node?minutes=${minutes}&clusterName=fleet`;
      };
      const base = {
        url: host.url,
        connections: 10,
        headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' },
        requests: [
          {
            method: 'GET',
            setupRequest: (req: Record<string, unknown>) => ({ ...req, path: paths() }),
          } as unknown as autocannon.Request,
        ],
      };
      await autocannon({ ...base, amount: 20 });
      const r = await autocannon({ ...base, duration: SECONDS });
      console.log(
        `reads ${label} (10 clients, namespace pods and cluster nodes alternating): ${Math.round(r.requests.average)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms (${ratio(r.latency.p99, aim, true)}), non-2xx ${r.non2xx}, errors and timeouts ${r.errors}`,
      );
      for (const path of [
        `/metrics/api/metrics/namespace?minutes=${minutes}&clusterName=fleet&namespace=ns-1`,
        `/metrics/api/metrics/node?minutes=${minutes}&clusterName=fleet`,
      ]) {
        console.log(
          `  ${path.includes('node?') ? 'nodes' : 'pods '} ${label}: ${await workOf(host, token, path)}`,
        );
      }
    }
  } finally {
    await close();
    if (opts['keep-db']) console.log(`kept the reads' database: ${db.url}`);
    else await db.drop();
  }
}

/**
 * The work one read costs, counted rather than timed under load: rows and bytes answered, the
 * host's CPU per request (5 requests one after another, gzip included: it runs in the process's
 * thread pool) and, on a PostgreSQL server, the statements' execution time and buffers from
 * EXPLAIN ANALYZE of the store's own SQL.
 */
async function workOf(host: LocalHost, token: string, path: string): Promise<string> {
  const get = () =>
    new Promise<{ status: number; gzip: Buffer; resolution: string }>((resolve, reject) => {
      http
        .get(
          `${host.url}${path}`,
          { headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' } },
          (res) => {
            const parts: Buffer[] = [];
            res.on('data', (c: Buffer) => parts.push(c));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                gzip: Buffer.concat(parts),
                resolution: String(res.headers['x-resolution']),
              }),
            );
          },
        )
        .on('error', reject);
    });
  await get();
  const before = process.cpuUsage();
  const answers = [];
  for (let i = 0; i < 5; i++) answers.push(await get());
  const used = process.cpuUsage(before);
  const cpuMs = (used.user + used.system) / 1000 / answers.length;
  const last = answers.at(-1)!;
  const json = gunzipSync(last.gzip).toString();
  const rows = json.split('{"timestamp"').length - 1;
  let db = 'on PGlite: no EXPLAIN';
  if (host.services.db.kind === 'postgres') db = await explainRead(host, path);
  return `${last.status}, X-Resolution ${last.resolution}, ${rows} rows, ${(json.length / 1024).toFixed(0)} KiB JSON (${(last.gzip.length / 1024).toFixed(0)} KiB gzip), host CPU ${cpuMs.toFixed(1)} ms/request; ${db}`;
}

/** EXPLAIN ANALYZE of the two statements a sample read runs (reads.ts), as the store builds them. */
async function explainRead(host: LocalHost, path: string): Promise<string> {
  const url = new URL(path, 'http://x');
  const minutes = Number(url.searchParams.get('minutes'));
  const to = new Date();
  const from = new Date(to.getTime() - minutes * 60_000);
  const pods = path.includes('/namespace');
  const kind = pods ? POD : NODE;
  const namespace = url.searchParams.get('namespace') ?? undefined;
  const series = seriesSql(kind, ['clusterName'], {
    clusterName: 'fleet',
    equal: pods ? [['namespace', namespace]] : [],
    seenSince: new Date(from.getTime() - H),
  });
  const client = new pg.Client({
    connectionString: host.services.config.platform.ConnectionStrings__SqlConnectionString,
  });
  await client.connect();
  try {
    const explain = async (text: string, params: unknown[]) => {
      const r = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, params);
      type Node = Record<string, number> & { Plans?: Node[]; 'Parent Relationship'?: string };
      const plan = (r.rows[0] as { 'QUERY PLAN': Array<{ 'Execution Time': number; Plan: Node }> })[
        'QUERY PLAN'
      ][0]!;
      // The samples statement answers one row (its rows as JSON): the rows are its input's (not
      // the latest-sample probe's, an InitPlan beside it).
      const input = plan.Plan.Plans?.find((p) => p['Parent Relationship'] !== 'InitPlan');
      const rowsNode = text.includes('json_agg(') ? (input ?? plan.Plan) : plan.Plan;
      return {
        ms: plan['Execution Time'],
        rows: rowsNode['Actual Rows'] ?? 0,
        hit: plan.Plan['Shared Hit Blocks'] ?? 0,
        read: plan.Plan['Shared Read Blocks'] ?? 0,
      };
    };
    const ids = (await client.query(series.text, series.params)).rows.map((r: { id: number }) => r.id);
    const s = await explain(series.text, series.params);
    const plan = planRead(from, to, {
      series: ids.length,
      maxRows: host.services.config.metrics.Metrics__MaxRows,
      maxPoints: host.services.config.metrics.Metrics__MaxPointsPerSeries,
    });
    const columns = pods
      ? ['cpu', 'mem', 'restarts', 'pod_age', 'state']
      : ['cpu', 'cpu_capacity', 'mem', 'mem_capacity', 'ready'];
    const read = samplesSql(
      kind,
      plan,
      columns,
      { from, to, limit: host.services.config.metrics.Metrics__MaxRows + 1 },
      ids,
    );
    const x = await explain(read.text, read.params);
    return `PostgreSQL ${(s.ms + x.ms).toFixed(1)} ms (series ${s.ms.toFixed(1)} ms, ${s.rows} rows; samples ${x.ms.toFixed(1)} ms, ${x.rows} rows, ${x.hit + x.read} buffers)`;
  } finally {
    await client.end();
  }
}

console.log(
  `metrics bench: fleet ${CONTAINERS} containers / ${NODES} nodes, simulated day of ${DAY_CONTAINERS} containers, ${PG_URL ? 'PostgreSQL server' : 'no PostgreSQL server set: PGlite'}, reads kept ${opts['read-cache-seconds']} s`,
);
if (!SKIP.has('posts')) await onePosts();
if (!SKIP.has('batch')) await batchedAndBytes();
if (!SKIP.has('reads')) await reads();
