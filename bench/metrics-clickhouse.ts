// npm run bench -- metrics-clickhouse: the ClickHouse metrics store on chDB (ClickHouse in-process)
// behind the test HTTP bridge, through the official client, as the app writes in production.
//  1. Batched pod samples per second: batches of 5,000 pod records (the agent's batch size), a few
//     in flight as from concurrent requests: end to end through POST /metrics/api/ingest/batch of a
//     local host whose store is ClickHouse (gzip JSON in, validation, one INSERT per table), and
//     through the store alone (records already validated). Aim: >= 500,000 samples/s.
//     Then the engine alone on the same rows, to split store.write's CPU into the engine's part
//     and ours, at several rows an insert.
//  2. Bytes on disk per pod sample after a simulated day: a fleet of containers sampled every 30 s
//     for 24 hours, merged as the server merges over a day, then sum(bytes_on_disk) of the active
//     parts of pod_raw (system.parts) divided by the samples stored.
//  3. The cluster and namespace lists over a long history: --list-containers containers (default
//     6,000 in 50 namespaces) sampled once an hour for --list-days days (default 30), written as
//     SQL into pod_raw (the views fill the rollups), then each list read 7 times: the median time
//     and the process's CPU per read (chDB runs in this process).
// Options: --containers N (day simulation, default 600), --batches N (throughput, default 60),
// --engine-rows N,N,... (rows an insert for the engine alone, default 5000,20000,100000),
// --skip rate,engine,day,lists.
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { startAzurite } from '../dev/azurite.js';
import { startLocalHost } from '../dev/host.js';
import { loadConfig } from '../shared/config/index.js';
import { type MetricRecord, podRecordSchema } from '../shared/metrics/records.js';
import { rowsByTable } from '../shared/metrics/store/clickhouse/rows.js';
import { ClickHouseMetricsStore } from '../shared/metrics/store/clickhouse/store.js';
import { createLogger } from '../shared/observability/logger.js';
import { startChdbHttpBridge } from '../test/support/chdb-http-bridge.js';

const { values } = parseArgs({
  options: {
    containers: { type: 'string', default: '600' },
    batches: { type: 'string', default: '60' },
    'list-containers': { type: 'string', default: '6000' },
    'list-days': { type: 'string', default: '30' },
    'engine-rows': { type: 'string', default: '5000,20000,100000' },
    skip: { type: 'string', default: '' },
  },
});
const SKIP = new Set(values.skip.split(',').filter(Boolean));
const CONTAINERS = Number(values.containers);
const BATCHES = Number(values.batches);
const BATCH = 5000;
const ENGINE_ROWS = values['engine-rows'].split(',').map(Number);
const retention = { rawDays: 14, fiveMinuteDays: 90, hourlyDays: 400, logsDays: 14 };

/** A deterministic fleet: namespaces, deployments, replicas, containers, nodes. */
function fleet(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    namespace: `team-${i % 12}`,
    pod: `svc-${Math.floor(i / 6) % 97}-7d9f8b-${(i * 7919).toString(36).slice(-5)}`,
    container: ['app', 'sidecar', 'istio-proxy'][i % 3]!,
    nodeName: `aks-np${i % 3}-12345678-vmss0000${(i % 40).toString(36)}`,
    cpuLimit: [0.5, 1, 2][i % 3]!,
    memLimit: [536870912, 1073741824, 2147483648][i % 3]!,
    cpu: 0.05 + (i % 10) * 0.02,
    mem: 100_000_000 + (i % 50) * 5_000_000,
    age: 3600 + i * 17,
  }));
}

let seed = 42;
const rand = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};

type Container = ReturnType<typeof fleet>[number];

function sample(c: Container, at: Date): MetricRecord {
  // Usage drifts like a real container's: small steps around a level, memory in whole bytes.
  c.cpu = Math.max(0.001, c.cpu + (rand() - 0.5) * 0.01);
  c.mem = Math.max(10_000_000, Math.round(c.mem + (rand() - 0.5) * 2_000_000));
  c.age += 30;
  return {
    kind: 'pod',
    collectedAt: at,
    data: podRecordSchema.parse({
      clusterName: 'bench',
      namespace: c.namespace,
      pod: c.pod,
      container: c.container,
      cpuUsageCores: Math.round(c.cpu * 1e6) / 1e6,
      cpuLimitCores: c.cpuLimit,
      memoryUsageBytes: c.mem,
      memoryLimitBytes: c.memLimit,
      nodeName: c.nodeName,
      podState: 'Running',
      restartCount: 0,
      podAge: c.age,
      cpuRequestCores: c.cpuLimit / 4,
      memoryRequestBytes: c.memLimit / 2,
      ownerKind: 'Deployment',
      ownerName: c.pod.split('-').slice(0, 2).join('-'),
      labels: { app: c.pod.split('-').slice(0, 2).join('-') },
    }),
  };
}

const bridge = await startChdbHttpBridge();
const dayStart =
  Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) - 86_400_000;

/** Runs `work` from `inFlight` loops over `items`; returns the seconds it took. */
async function timed<T>(items: T[], inFlight: number, work: (item: T) => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

const rate = (samples: number, seconds: number) =>
  `${samples.toLocaleString('en')} pod samples in ${seconds.toFixed(2)} s = ${Math.round(samples / seconds).toLocaleString('en')} samples/s (${((samples / seconds / 500_000) * 100).toFixed(1)}% of the 500,000/s aim)`;

// 1a. Throughput through the route.
if (!SKIP.has('rate')) {
  const azurite = await startAzurite();
  const config = loadConfig({
    WEBAPP_ENVIRONMENT: 'Development',
    DATA_DIR: 'memory://',
    AzureWebJobsStorage: azurite.connectionString,
    WeeklyAnalysis__Enabled: 'false',
    Metrics__AllowAnonymousIngest: 'true',
    Metrics__ClickHouseUrl: bridge.url,
    Metrics__ClickHouseDatabase: 'bench_route',
  });
  const host = await startLocalHost({
    config,
    queueWorker: false,
    notifier: false,
    metricsTimer: false,
    servicesOptions: { log: createLogger('None') },
  });
  const containers = fleet(BATCH);
  // The agent's bodies: gzip JSON, each record's data as the original one-object post carries it.
  const bodies = Array.from({ length: BATCHES }, (_, b) =>
    gzipSync(
      JSON.stringify({
        batchId: randomUUID(),
        clusterName: 'bench',
        records: containers.map((c) => {
          const r = sample(c, new Date(dayStart + b * 30_000));
          return { kind: 'pod', collectedAt: r.collectedAt.toISOString(), data: r.data };
        }),
      }),
    ),
  );
  const post = async (body: Buffer) => {
    const res = await fetch(`${host.url}/metrics/api/ingest/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${text.slice(0, 300)}`);
  };
  await post(bodies[0]!); // warm-up
  // The host runs in this process too: the CPU per sample is the route's (gunzip, JSON, validation)
  // with the store's, the requests' own sending included.
  const cpu = process.cpuUsage();
  const seconds = await timed(bodies.slice(1), 4, post);
  const used = process.cpuUsage(cpu);
  console.log(
    `POST ingest/batch (ClickHouse store, 4 requests in flight): ${rate((BATCHES - 1) * BATCH, seconds)}`,
  );
  console.log(
    `  CPU (sender, route, client, bridge and engine): ${((used.user + used.system) / ((BATCHES - 1) * BATCH)).toFixed(1)} µs per sample (load ${loadavg()[0]!.toFixed(2)})`,
  );
  await host.close();
  await azurite.stop();
}

// 1b. Throughput through the store alone.
if (!SKIP.has('rate')) {
  const store = await ClickHouseMetricsStore.open({ url: bridge.url, database: 'bench_rate', retention });
  const containers = fleet(BATCH);
  const batches = Array.from({ length: BATCHES }, (_, b) =>
    containers.map((c) => sample(c, new Date(dayStart + b * 30_000))),
  );
  await store.write({ clusterName: 'bench', batchId: randomUUID(), records: batches[0]! }); // warm-up
  // chDB runs in this process: its CPU time is the process's, a figure the machine's load barely moves.
  const cpu = process.cpuUsage();
  const seconds = await timed(batches.slice(1), 4, async (records) => {
    await store.write({ clusterName: 'bench', batchId: randomUUID(), records });
  });
  const used = process.cpuUsage(cpu);
  console.log(`store.write (4 batches in flight): ${rate((BATCHES - 1) * BATCH, seconds)}`);
  console.log(
    `  CPU (client, bridge and engine): ${((used.user + used.system) / ((BATCHES - 1) * BATCH)).toFixed(1)} µs per sample (load ${loadavg()[0]!.toFixed(2)})`,
  );
  await store.close();
}

// 1c. Where the store's CPU goes: the same batches' rows, as the store makes them (rowsByTable) and
// as the client sends them (one JSON array a line), inserted by the engine alone (chDB's
// Session.insert: no HTTP, no client, no bridge) into a Null table (parsing only), into pod_raw
// with no views, and into pod_raw with its rollup views, at --engine-rows rows an insert. What is
// left of store.write's figure above is ours: building the rows and their text, HTTP, the bridge,
// the batch-id check and record. A real server would show the engine's part, on its own cores.
if (!SKIP.has('engine')) {
  const store = await ClickHouseMetricsStore.open({ url: bridge.url, database: 'bench_engine', retention });
  await store.close();
  const db = 'bench_engine';
  bridge.session.query(`CREATE TABLE ${db}.pod_null AS ${db}.pod_raw ENGINE = Null`);
  bridge.session.query(`CREATE TABLE ${db}.pod_plain AS ${db}.pod_raw`);
  const containers = fleet(BATCH);
  const cpuNow = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  let at = 0;
  for (const size of ENGINE_ROWS) {
    const reps = Math.max(3, Math.round(100_000 / size));
    const text: number[] = [];
    const byTarget = new Map<string, number[]>([
      ['pod_null', []],
      ['pod_plain', []],
      ['pod_raw', []],
    ]);
    for (let r = 0; r < reps; r++) {
      // The targets in turn on fresh rows, so drift in the machine's load touches each alike.
      for (const target of byTarget.keys()) {
        const records: MetricRecord[] = [];
        for (let i = 0; i < size; i += BATCH) {
          const when = new Date(dayStart + 86_400_000 + at++ * 30_000);
          for (const c of containers.slice(0, Math.min(BATCH, size - i))) records.push(sample(c, when));
        }
        const t0 = cpuNow();
        const rows = rowsByTable('bench', records)[0]!;
        const body = Buffer.from(rows.rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
        const t1 = cpuNow();
        await bridge.session.insert({
          table: `${db}.${target}`,
          values: body,
          format: 'JSONCompactEachRow',
          columns: rows.columns,
          settings: {
            async_insert: 0,
            optimize_on_insert: 0,
            input_format_json_read_objects_as_strings: 1,
            insert_deduplication_token: randomUUID(),
          },
        });
        byTarget.get(target)!.push((cpuNow() - t1) / size);
        if (target === 'pod_raw') text.push((t1 - t0) / size);
      }
    }
    const [parse, plain, views] = [...byTarget.values()].map(median) as [number, number, number];
    console.log(
      `engine alone, ${size.toLocaleString('en')} rows an insert (median of ${reps}), µs of CPU a sample: rows and text ${median(text).toFixed(1)}; parse ${parse.toFixed(1)}; parse + pod_raw part ${plain.toFixed(1)}; + the views ${views.toFixed(1)} (load ${loadavg()[0]!.toFixed(2)})`,
    );
  }
}

// 2. Bytes per sample after a simulated day.
if (!SKIP.has('day')) {
  const store = await ClickHouseMetricsStore.open({ url: bridge.url, database: 'bench_day', retention });
  const containers = fleet(CONTAINERS);
  const cycles = 2880; // every 30 s for 24 h
  let pending: MetricRecord[] = [];
  let samples = 0;
  for (let cycle = 0; cycle < cycles; cycle++) {
    const at = new Date(dayStart + cycle * 30_000);
    for (const c of containers) pending.push(sample(c, at));
    if (pending.length >= BATCH || cycle === cycles - 1) {
      await store.write({ clusterName: 'bench', batchId: randomUUID(), records: pending });
      samples += pending.length;
      pending = [];
    }
  }
  // A server merges the day's small parts into a few large ones in the background; do it now.
  bridge.session.query('OPTIMIZE TABLE bench_day.pod_raw FINAL');
  const rows = bridge.session
    .query(
      `SELECT table, sum(rows), sum(bytes_on_disk), sum(data_uncompressed_bytes), count()
       FROM system.parts WHERE database = 'bench_day' AND active GROUP BY table ORDER BY table`,
      'TabSeparated',
    )
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  const pods = rows.find((r) => r[0] === 'pod_raw')!;
  const bytes = Number(pods[2]);
  console.log(
    `pod_raw after a day of ${CONTAINERS} containers every 30 s: ${samples.toLocaleString('en')} samples, ${(bytes / 1024 / 1024).toFixed(2)} MiB on disk (${(Number(pods[3]) / 1024 / 1024).toFixed(1)} MiB uncompressed) = ${(bytes / samples).toFixed(2)} bytes per sample`,
  );
  for (const r of rows.filter((x) => x[0] !== 'pod_raw' && Number(x[2]) > 0)) {
    console.log(
      `  ${r[0]}: ${Number(r[1]).toLocaleString('en')} rows, ${(Number(r[2]) / 1024).toFixed(0)} KiB`,
    );
  }
  const perColumn = bridge.session
    .query(
      `SELECT column, sum(column_data_compressed_bytes) AS b FROM system.parts_columns
       WHERE database = 'bench_day' AND table = 'pod_raw' AND active GROUP BY column ORDER BY b DESC`,
      'TabSeparated',
    )
    .trim()
    .split('\n')
    .map((l) => l.split('\t'))
    .map(([c, b]) => `${c} ${(Number(b) / samples).toFixed(2)}`);
  // Compact parts (a small table) do not report per-column sizes.
  if (!perColumn.every((c) => c.endsWith(' 0.00')))
    console.log(`  bytes per sample by column: ${perColumn.join(', ')}`);
  await store.close();
}

// 3. The cluster and namespace lists over a long history.
if (!SKIP.has('lists')) {
  const containers = Number(values['list-containers']);
  const days = Number(values['list-days']);
  const store = await ClickHouseMetricsStore.open({ url: bridge.url, database: 'bench_lists', retention });
  const hours = days * 24;
  const start = Math.floor(Date.now() / 3_600_000) * 3_600_000 - hours * 3_600_000;
  const t = performance.now();
  // One INSERT per day: a sample per container and hour.
  for (let d = 0; d < days; d++) {
    bridge.session.query(
      `INSERT INTO bench_lists.pod_raw (cluster, namespace, pod, container, ts, cpu_usage_cores,
         memory_usage_bytes, node_name, pod_state, restart_count)
       SELECT 'bench', concat('ns-', toString(c % 50)), concat('app-', toString(intDiv(c, 2))),
              if(c % 2 = 1, 'sidecar', 'app'),
              toDateTime64(${start / 1000} + ${d * 86_400} + h * 3600 + 30, 3, 'UTC'), 0.1, 100000000,
              concat('node-', toString(c % 200)), 'Running', 0
         FROM (SELECT number % ${containers} AS c, intDiv(number, ${containers}) AS h
                 FROM numbers(${containers * 24}))`,
    );
  }
  bridge.session.query('OPTIMIZE TABLE bench_lists.pod_1h FINAL');
  const rows = bridge.session.query(`SELECT count() FROM bench_lists.pod_1h`, 'TabSeparated').trim();
  console.log(
    `lists: ${containers.toLocaleString('en')} containers, an hour's sample each for ${days} days (pod_1h ${Number(rows).toLocaleString('en')} rows) written in ${Math.round((performance.now() - t) / 1000)} s`,
  );
  const since = new Date(Date.now() - retention.hourlyDays * 86_400_000);
  for (const [name, read] of [
    ['clusters', () => store.clusters(since)],
    ['namespaces of a cluster', () => store.namespaces(since, undefined, 'bench')],
  ] as const) {
    await read();
    const ms: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < 7; i++) {
      const c = process.cpuUsage();
      const t0 = performance.now();
      await read();
      ms.push(performance.now() - t0);
      const u = process.cpuUsage(c);
      cpu.push((u.user + u.system) / 1000);
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[3]!.toFixed(1);
    console.log(
      `  ${name} (since ${retention.hourlyDays} days): median ${median(ms)} ms, CPU ${median(cpu)} ms per read (load ${loadavg()[0]!.toFixed(2)})`,
    );
  }
  await store.close();
}

await bridge.close();
