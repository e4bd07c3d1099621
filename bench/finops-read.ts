// FinOps read API benchmark: 50 runs of one 10,000-resource subscription stored in PostgreSQL
// (rows generated in SQL for speed, not by the analysis engine, stored run by run as the engine
// writes them), then p50/p99 latency and
// requests/s of every read route through the local host at 10 concurrent clients (autocannon).
// Aim: p99 < 50 ms. Standalone: `node --import tsx bench/finops-read.ts`.
// PostgreSQL: FINWATCH_TEST_PG_URL or postgresql://postgres@127.0.0.1:5432/test; the bench creates
// and drops its own database, or keeps it with BENCH_DATABASE=<name> and reuses it when already
// seeded (seeding takes minutes; migrations still run on it). BENCH_SECONDS (default 3) per route;
// BENCH_ROUTES=substring filter (the streamed section runs only without it, or with 'streamed').
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import { startAzurite } from '../dev/azurite.js';
import { startLocalHost } from '../dev/host.js';
import { loadConfig } from '../shared/config/index.js';
import { writeRunTotals } from '../shared/finops/engine/run-totals.js';
import { compressBytes } from '../shared/http/compression.js';
import { createLogger } from '../shared/observability/logger.js';
import { startLoadGenerator } from './load-generator.js';
import { streamedLoad } from './streamed-load.js';
import { rerunWithWorkerFlags, workerNodeArguments } from './worker-flags.js';

// The host runs in this process: with the V8 flags the deployed Functions worker has, so its memory
// and CPU figures are the deployment's (a bench of the worker's heap without them measured another heap).
rerunWithWorkerFlags(import.meta.url);

const PG_URL = process.env.FINWATCH_TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const DURATION = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = 10;
const RUNS = 50;
const RESOURCES = 10_000;
const GROUPS = 40;
const SERVICES = 6;
const HISTORY_DAYS = 183;
const SUBSCRIPTION = '5e1f0000-0000-4000-8000-0000000be0c4';
const KEY = `bench-key-${randomBytes(16).toString('hex')}`;

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function ids(c: pg.Client) {
  const latest = await c.query(`SELECT id FROM "AnalysisRuns" ORDER BY "runDate" DESC, id DESC LIMIT 1`);
  const rec = await c.query(`SELECT id FROM "AiRecommendations" WHERE "analysisRunId" = $1 LIMIT 1`, [
    latest.rows[0].id,
  ]);
  const user = await c.query(`SELECT id FROM "Users" WHERE username = 'bench'`);
  return {
    runId: latest.rows[0].id as number,
    recId: rec.rows[0].id as number,
    userId: user.rows[0].id as string,
  };
}

/** Generated rows, all in SQL: runs, resources, cost lines, six months of history, recommendations. */
async function seed(url: string, reuse: boolean) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const t0 = performance.now();
    if (reuse && (await c.query('SELECT 1 FROM "AnalysisRuns" LIMIT 1')).rowCount) return await ids(c);
    await c.query(
      `INSERT INTO "AnalysisRuns" ("subscriptionId","subscriptionName","runDate","totalMonthlyCost","totalResourcesAnalyzed",
         "aiModel","conversationId","reportFilePath","createdAt","periodFrom","periodTo")
       SELECT $1, 'Bench subscription', now()::timestamp - make_interval(days => ${RUNS} - g), 12345.6789, ${RESOURCES},
              'gpt-bench', 'conv', '', now()::timestamp - make_interval(days => ${RUNS} - g), date_trunc('month', now())::date, now()::date
       FROM generate_series(1, ${RUNS}) g`,
      [SUBSCRIPTION],
    );
    await c.query(
      `INSERT INTO "ResourceAnalyses" ("analysisRunId","resourceId","resourceType","resourceName","resourceGroup","location",
         "propertiesJson","tagsJson","metricsJson","flags","recordedAt")
       SELECT r.id, '/subscriptions/' || r."subscriptionId" || '/resourceGroups/rg-' || (g % ${GROUPS}) || '/res-' || g,
              'microsoft.type' || (g % 20) || '/kind', 'res-' || lpad(g::text, 5, '0'), 'RG-' || (g % ${GROUPS}), 'westeurope',
              '{"sku":{"name":"Standard_D2s_v3","tier":"Standard"},"provisioningState":"Succeeded","zones":["1"]}',
              '{"GAR_ID":"GAR-' || (g % ${GROUPS}) || '","env":"' || (CASE WHEN g % 2 = 0 THEN 'prod' ELSE 'dev' END) || '","owner":"team-' || (g % 7) || '"}',
              NULL, CASE WHEN g % 7 = 0 THEN 'Unattached disk; Old snapshot' WHEN g % 11 = 0 THEN 'VM stopped, not deallocated' ELSE '' END,
              r."runDate"
       FROM "AnalysisRuns" r, generate_series(1, ${RESOURCES}) g ORDER BY r.id, g`,
    );
    await c.query(
      `INSERT INTO "CostDetails" ("analysisRunId","costType","name","resourceGroup","cost","recordedAt")
       SELECT r.id, 'Service', 'Service ' || s, 'RG-' || gr, round((random() * 500)::numeric, 4), r."runDate"
       FROM "AnalysisRuns" r, generate_series(0, ${GROUPS - 1}) gr, generate_series(1, ${SERVICES}) s ORDER BY r.id`,
    );
    await c.query(
      `INSERT INTO "CostDetails" ("analysisRunId","costType","name","resourceGroup","cost","recordedAt")
       SELECT "analysisRunId", 'ResourceGroup', "resourceGroup", "resourceGroup", sum(cost), min("recordedAt")
       FROM "CostDetails" GROUP BY "analysisRunId", "resourceGroup" ORDER BY 1`,
    );
    await c.query(
      `INSERT INTO "HistoricalCosts" ("analysisRunId","subscriptionId","costDate","costType","resourceGroup","name","cost","recordedAt")
       SELECT r.id, r."subscriptionId", date_trunc('day', r."runDate") - make_interval(days => d), 'Service',
              'rg-' || gr, 'Service ' || s, round((random() * 20)::numeric, 4), r."runDate"
       FROM "AnalysisRuns" r, generate_series(1, ${HISTORY_DAYS}) d, generate_series(0, ${GROUPS - 1}) gr,
            generate_series(1, ${SERVICES}) s ORDER BY r.id, d`,
    );
    await c.query(
      `INSERT INTO "HistoricalCosts" ("analysisRunId","subscriptionId","costDate","costType","resourceGroup","name","cost","recordedAt")
       SELECT "analysisRunId", "subscriptionId", "costDate", 'ResourceGroup', "resourceGroup", NULL, sum(cost), min("recordedAt")
       FROM "HistoricalCosts" WHERE "costType" = 'Service' GROUP BY 1, 2, 3, 5 ORDER BY 1, 3`,
    );
    await c.query(
      `INSERT INTO "HistoricalCosts" ("analysisRunId","subscriptionId","costDate","costType","resourceGroup","name","cost","recordedAt")
       SELECT "analysisRunId", "subscriptionId", "costDate", 'Total', NULL, NULL, sum(cost), min("recordedAt")
       FROM "HistoricalCosts" WHERE "costType" = 'ResourceGroup' GROUP BY 1, 2, 3 ORDER BY 1, 3`,
    );
    // The totals the engine writes with each run (persistRun), here after the bulk inserts.
    for (const r of (await c.query(`SELECT id, "subscriptionId" FROM "AnalysisRuns"`)).rows) {
      await writeRunTotals(
        async (sql, params) => (await c.query(sql, params)).rowCount ?? 0,
        r.id,
        r.subscriptionId,
      );
    }
    await c.query(
      `INSERT INTO "AiRecommendations" ("analysisRunId","recommendationText","summary","model","timestamp","recordedAt")
       SELECT r.id, '# Findings\\n- ' || repeat('resize VMs and delete unattached disks. ', 40), NULL, 'gpt-bench',
              extract(epoch from r."runDate"), r."runDate" + make_interval(secs => k)
       FROM "AnalysisRuns" r, generate_series(1, 2) k`,
    );
    await c.query(
      `INSERT INTO "Subscriptions" ("subscriptionId","description","budget") VALUES ($1, 'bench', 20000)`,
      [SUBSCRIPTION],
    );
    await c.query('VACUUM ANALYZE'); // as autovacuum would have done on a live database
    const counts = await c.query(
      `SELECT (SELECT count(*) FROM "ResourceAnalyses") AS resources, (SELECT count(*) FROM "CostDetails") AS costs,
              (SELECT count(*) FROM "HistoricalCosts") AS history`,
    );
    const latest = await c.query(`SELECT id FROM "AnalysisRuns" ORDER BY "runDate" DESC, id DESC LIMIT 1`);
    const rec = await c.query(`SELECT id FROM "AiRecommendations" WHERE "analysisRunId" = $1 LIMIT 1`, [
      latest.rows[0].id,
    ]);
    const user = await c.query(
      `INSERT INTO "Users" (id, username, email, "isAdmin", "updatedAt") VALUES (gen_random_uuid(), 'bench', 'bench@example.test', false, now()) RETURNING id`,
    );
    console.log(
      `seeded ${RUNS} runs: ${counts.rows[0].resources} resources, ${counts.rows[0].costs} cost lines, ` +
        `${counts.rows[0].history} historical rows in ${Math.round((performance.now() - t0) / 1000)} s`,
    );
    return {
      runId: latest.rows[0].id as number,
      recId: rec.rows[0].id as number,
      userId: user.rows[0].id as string,
    };
  } finally {
    await c.end();
  }
}

/**
 * The unpaged history the web client fetches (51k rows of one run; 100k of the subscription's 2.57M
 * rows), streamed, at 10 concurrent clients of 5 users (the per-user limit admits 2 each), as is
 * and compressed: p99, bytes on the wire, peak RSS and CPU per answer. Aims: gzip p99 < 1 s and
 * >= 5x fewer bytes; RSS flat.
 */
async function streamedSection(runId: number, userId: string) {
  const tokens = [sign(userId)];
  const c = new pg.Client({ connectionString: dbUrl.toString() });
  await c.connect();
  try {
    for (let i = 1; i < 5; i++) {
      const r = await c.query(
        `INSERT INTO "Users" (id, username, email, "isAdmin", "updatedAt")
         VALUES (gen_random_uuid(), $1, $2, false, now())
         ON CONFLICT (username) DO UPDATE SET email = EXCLUDED.email RETURNING id`,
        [`bench-${i}`, `bench-${i}@example.test`],
      );
      tokens.push(sign(r.rows[0].id));
    }
  } finally {
    await c.end();
  }
  const seconds = Math.max(DURATION, 5);
  const runUrl = `${host.url}/finops/api/HistoricalCosts/analysis/${runId}`;
  const subUrl = `${host.url}/finops/api/HistoricalCosts/subscription/${SUBSCRIPTION}`;
  const cases: Array<[string, string, Record<string, string>]> = [
    ['run history, identity', runUrl, {}],
    ['run history, gzip', runUrl, { 'accept-encoding': 'gzip' }],
    ['run history, br', runUrl, { 'accept-encoding': 'br' }],
    ['subscription history (100k rows), gzip', subUrl, { 'accept-encoding': 'gzip' }],
  ];
  const table: Array<Record<string, string | number>> = [];
  let identityBytes = 0;
  for (const [label, url, extra] of cases) {
    // One answer first, as a viewer opening the subscription would: compressed run histories are
    // then served from the run-history cache (a first, cold wave costs what 'identity' shows).
    load ??= startLoadGenerator();
    await streamedLoad(load, url, tokens, 1, 0, extra);
    const r = await streamedLoad(load, url, tokens, CONNECTIONS, seconds, extra);
    if (label.endsWith('identity')) identityBytes = r.wireBytes;
    table.push({
      answer: label,
      answers: r.answers,
      '429': r.refused,
      errors: r.failed,
      'MiB/answer': Number((r.wireBytes / 1048576).toFixed(2)),
      'x fewer bytes':
        identityBytes && url === runUrl ? Number((identityBytes / r.wireBytes).toFixed(1)) : '',
      'p50 ms': r.p50,
      'p99 ms': r.p99,
      'CPU ms/answer': r.cpuMsPerAnswer,
      'RSS MiB before/peak': `${r.baselineRssMiB}/${r.peakRssMiB}`,
      'at peak: heap/buffers MiB': `${r.atPeak.heapUsedMiB}/${r.atPeak.arrayBuffersMiB}`,
    });
  }
  console.log(
    `\nstreamed unpaged answers: ${CONNECTIONS} clients (5 users), ${seconds}s each after one warm-up answer; load ${os.loadavg()[0]!.toFixed(1)}`,
  );
  console.table(table);
  const gz = table[1]!;
  console.log(
    `run history with gzip: p99 ${gz['p99 ms']} ms (aim < 1000) ${Number(gz['p99 ms']) < 1000 ? 'yes' : 'NO'}, ` +
      `${gz['x fewer bytes']}x fewer bytes (aim >= 5) ${Number(gz['x fewer bytes']) >= 5 ? 'yes' : 'NO'}`,
  );
  // The compression's own cost, on one whole answer in hand (zlib's thread pool, one thread).
  const body = Buffer.from(
    await (await fetch(runUrl, { headers: { authorization: `Bearer ${tokens[0]}` } })).arrayBuffer(),
  );
  for (const coding of ['gzip', 'br'] as const) {
    const t0 = performance.now();
    const out = await compressBytes(body, coding);
    const ms = performance.now() - t0;
    console.log(
      `compression cost, ${coding}: ${(body.length / 1048576).toFixed(1)} MiB -> ${(out.length / 1048576).toFixed(2)} MiB ` +
        `(${(body.length / out.length).toFixed(1)}x) in ${Math.round(ms)} ms = ${Math.round(body.length / 1048576 / (ms / 1000))} MiB/s of CPU`,
    );
  }
}

/** What browsers send (Chrome, Firefox and Safari all name gzip and br): the web client's requests. */
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

/** Started with the first measurement, stopped with the host. */
let load: ReturnType<typeof startLoadGenerator> | undefined;

/** One route under CONNECTIONS clients for DURATION seconds, after a probe and a one-second warm-up. */
async function measure(url: string, headers: Record<string, string>) {
  const probe = await fetch(url, { headers });
  if (probe.status !== 200) throw new Error(`${url}: ${probe.status}`);
  await probe.arrayBuffer();
  load ??= startLoadGenerator();
  const request = { url, headers, connections: CONNECTIONS, timeoutSeconds: 30 };
  await load.measure({ ...request, seconds: 1 }); // warm-up
  // CPU of this process (the host alone: the load generator has its own) per request: unlike
  // latency, it does not grow with other processes' load, so runs on a busy machine compare.
  const cpu0 = process.cpuUsage();
  const r = await load.measure({ ...request, seconds: DURATION });
  const cpu = process.cpuUsage(cpu0);
  const n = r.requests;
  return {
    total: probe.headers.get('x-total-count') ?? '',
    // Bytes on the wire (autocannon does not decode): the compressed size when compressed.
    kib: n > 0 ? Math.round(r.bytes / n / 1024) : 0,
    p99: r.p99,
    meets: n > 0 && r.timeouts === 0 && r.failures === 0 && r.p99 < 50,
    cpuMs: n > 0 ? Number(((cpu.user + cpu.system) / 1000 / n).toFixed(2)) : '',
    errors: r.failures,
  };
}

function sign(userId: string) {
  return jwt.sign({ id: userId, email: `${userId}@example.test`, isAdmin: 'False' }, KEY, {
    algorithm: 'HS256',
    issuer: 'finwatch-bench',
    audience: 'finwatch-bench',
    subject: userId,
    expiresIn: '2h',
  });
}

// BENCH_DATABASE=<name> keeps (and reuses, when already seeded) a database between runs.
const keep = process.env.BENCH_DATABASE;
const name = keep ?? `finwatch_bench_read_${randomBytes(5).toString('hex')}`;
const exists = await admin(
  async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount,
);
if (!exists) await admin((c) => c.query(`CREATE DATABASE ${name}`));
const dbUrl = new URL(PG_URL);
dbUrl.pathname = `/${name}`;
const azurite = await startAzurite();
const config = loadConfig({
  WEBAPP_ENVIRONMENT: 'Development',
  DATA_DIR: 'memory://',
  ConnectionStrings__SqlConnectionString: dbUrl.toString(),
  AzureWebJobsStorage: azurite.connectionString,
  WeeklyAnalysis__Enabled: 'false',
  Jwt__Key: KEY,
  Jwt__Issuers: 'finwatch-bench',
  Jwt__Audiences: 'finwatch-bench',
});
const host = await startLocalHost({
  config,
  queueWorker: false,
  servicesOptions: { log: createLogger('None') },
});
try {
  const { runId, recId, userId } = await seed(dbUrl.toString(), !!exists);
  const token = jwt.sign({ id: userId, email: 'bench@example.test', isAdmin: 'False' }, KEY, {
    algorithm: 'HS256',
    issuer: 'finwatch-bench',
    audience: 'finwatch-bench',
    subject: userId,
    expiresIn: '2h',
  });
  const a = `analysis/${runId}`;
  const paths = [
    'Subscriptions',
    `Subscriptions/by-subscription-id/${SUBSCRIPTION}`,
    'Subscription',
    'AnalysisRuns',
    'AnalysisRuns/latest-per-subscription',
    `AnalysisRuns/subscription/${SUBSCRIPTION}`,
    `AnalysisRuns/${runId}`,
    'AnalysisRuns/latest',
    `Resources/${a}`,
    `Resources/${a}/type/microsoft.type3%2Fkind`,
    `Resources/${a}/resourcegroup/rg-7`,
    `Resources/${a}/flags`,
    `Resources/${a}/flags?pageSize=100`,
    `Resources/${a}/flags?flagContains=stopped`,
    `Resources/${a}/summary/types`,
    `Resources/${a}/summary/resourcegroups`,
    `Resources/${a}/search?searchTerm=res-0012`,
    `CostDetails/${a}`,
    `CostDetails/${a}/type/Service`,
    `CostDetails/${a}/top/10`,
    `CostDetails/${a}/summary/resourcegroups`,
    `CostDetails/${a}/summary/services`,
    `HistoricalCosts/${a}?pageSize=200`,
    `HistoricalCosts/subscription/${SUBSCRIPTION}?pageSize=200`,
    `HistoricalCosts/${a}/daily-totals`,
    `HistoricalCosts/${a}/by-resourcegroup?resourceGroup=rg-3`,
    `HistoricalCosts/${a}/by-service?serviceName=Service%202&pageSize=500`,
    `HistoricalCosts/${a}/trend`,
    'Recommendations',
    `Recommendations/${a}`,
    `Recommendations/${a}/latest`,
    `Recommendations/${recId}/formatted`,
    'Dashboard/summary',
    'Dashboard/cost-trends?months=6',
    'Dashboard/resource-distribution',
    'Dashboard/optimization-opportunities',
  ].filter((p) => !process.env.BENCH_ROUTES || p.includes(process.env.BENCH_ROUTES));
  const headers = { authorization: `Bearer ${token}` };
  // As the web client and the mobile app ask (browsers always send Accept-Encoding), beside the
  // identity answers earlier figures were taken with. BENCH_ENCODING=identity|browser: one only.
  const encodings = (
    [
      ['identity', {}],
      ['browser', { 'accept-encoding': BROWSER_ACCEPT_ENCODING }],
    ] as const
  ).filter(([name]) => !process.env.BENCH_ENCODING || process.env.BENCH_ENCODING === name);
  const rows: Array<Record<string, string | number>> = [];
  const met = new Map<string, number>();
  for (const p of paths) {
    const url = `${host.url}/finops/api/${p}`;
    const row: Record<string, string | number> = {
      route: `GET ${p.replace(String(runId), '{run}').replace(SUBSCRIPTION, '{sub}').replace(`${recId}/`, '{id}/')}`,
    };
    for (const [name, extra] of encodings) {
      const m = await measure(url, { ...headers, ...extra });
      const tag = encodings.length > 1 ? ` ${name === 'identity' ? 'id' : 'br'}` : '';
      if (name === 'identity') row.rows = m.total;
      row[`KiB${tag}`] = m.kib;
      row[`p99${tag}`] = m.p99;
      row[`CPU ms${tag}`] = m.cpuMs;
      row[`ok${tag}`] = m.meets ? 'yes' : m.errors ? 'ERR' : 'NO';
      if (m.meets) met.set(name, (met.get(name) ?? 0) + 1);
    }
    rows.push(row);
  }
  console.log(
    `\nfinops read bench: ${RUNS} runs × ${RESOURCES} resources, PostgreSQL, ${CONNECTIONS} connections, ` +
      `${DURATION}s per route, node ${process.version} with the worker's flags (${workerNodeArguments().join(' ')}), load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; KiB per answer on the wire, p99 ms, CPU ms per request (the host process ` +
      `alone; the load generator runs in a process of its own), ok = p99 < 50 ms without errors; id: no Accept-Encoding, br: '${BROWSER_ACCEPT_ENCODING}'`,
  );
  console.table(rows);
  for (const [name] of encodings) {
    console.log(
      `${name}: ${met.get(name) ?? 0} of ${rows.length} bounded read routes meet the aim (p99 < 50 ms, no errors); load ${os.loadavg()[0]!.toFixed(1)}`,
    );
  }
  if (!process.env.BENCH_ROUTES || process.env.BENCH_ROUTES === 'streamed') {
    await streamedSection(runId, userId);
  }
} finally {
  load?.stop();
  await host.close();
  await azurite.stop();
  if (!keep) await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}
