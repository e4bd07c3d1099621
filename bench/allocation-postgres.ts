// npm run bench -- allocation (second part): the allocation of 30 days of a 6,000-container,
// 200-node cluster read from the metrics store on PostgreSQL (its hourly rollups and series tables)
// and the stored bill, as GET KubernetesCost/allocation does it. Needs a PostgreSQL server:
// FINWATCH_BENCH_PG_URL (or FINWATCH_TEST_PG_URL); a fresh database is made and dropped.
// The rollups are filled by SQL (two samples an hour per node and container), not through ingest:
// what is measured is the read and the allocation.
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { openDatabase } from '../shared/db/client.js';
import { MetricsStoreUsageSource } from '../shared/finops/kubernetes/metrics-usage.js';
import { createPartitionSql, partitionsBetween } from '../shared/metrics/store/postgres/partitions.js';
import { NODE, POD } from '../shared/metrics/store/postgres/tables.js';
import { BENCH_VMSS, storeBenchBill, timeAllocation } from './allocation-bill.js';

const PG_URL = process.env.FINWATCH_BENCH_PG_URL ?? process.env.FINWATCH_TEST_PG_URL;
const DAYS = Number(process.env.BENCH_DAYS ?? 30);
const NODES = Number(process.env.BENCH_NODES ?? 200);
const CONTAINERS = Number(process.env.BENCH_CONTAINERS ?? 6000);
const RUNS = Number(process.env.BENCH_RUNS ?? 2);
const DAY = 86_400_000;
const VMSS = BENCH_VMSS;

if (!PG_URL) {
  console.log('allocation on PostgreSQL: skipped (set FINWATCH_BENCH_PG_URL or FINWATCH_TEST_PG_URL)');
  process.exit(0);
}
const name = `finwatch_bench_alloc_${randomBytes(5).toString('hex')}`;
const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
await admin.end();
const url = new URL(PG_URL);
url.pathname = `/${name}`;
const db = await openDatabase({ connectionString: url.toString(), dataDir: 'memory://' });
try {
  await db.migrate();
  const prisma = db.prisma;
  const today = Math.floor(Date.now() / DAY) * DAY;
  const first = today - DAYS * DAY;
  const from = new Date(first);
  const to = new Date(today);
  const t0 = performance.now();
  for (const kind of [POD, NODE]) {
    for (const p of partitionsBetween(kind, '1h', from, to))
      await prisma.$executeRawUnsafe(createPartitionSql(kind, '1h', p));
  }
  const now = new Date();
  // Series: nodes of one pool; containers spread over them, 60 namespaces, 600 workloads.
  await prisma.$executeRawUnsafe(
    `INSERT INTO "MetricsNodeSeries" ("seriesKey", "clusterName", "nodeName", "providerId", "nodePool", "instanceType",
       "cpuAllocatableCores", "memoryAllocatableBytes", "firstSeenAt", "lastSeenAt")
     SELECT 'n' || i, 'bench', 'node-' || i, 'azure://${VMSS}/virtualMachines/' || i, 'np1', 'Standard_D16s_v5',
            15.8, 62::float8 * 1073741824, $1::timestamptz, $2::timestamptz
     FROM generate_series(0, ${NODES - 1}) i`,
    from.toISOString(),
    now.toISOString(),
  );
  await prisma.$executeRawUnsafe(
    `INSERT INTO "MetricsPodSeries" ("seriesKey", "clusterName", namespace, pod, container, "nodeName", "ownerKind", "ownerName",
       labels, "cpuRequestCores", "memoryRequestBytes", "firstSeenAt", "lastSeenAt")
     SELECT 'p' || i, 'bench', CASE WHEN i % 10 = 0 THEN 'kube-system' ELSE 'team-' || (i % 60) END, 'pod-' || i, 'app',
            'node-' || (i % ${NODES}), 'Deployment', 'w' || (i % 600), jsonb_build_object('team', 't' || (i % 12)),
            0.05 + (i % 7) * 0.03, (128 + (i % 5) * 64)::float8 * 1048576, $1::timestamptz, $2::timestamptz
     FROM generate_series(0, ${CONTAINERS - 1}) i`,
    from.toISOString(),
    now.toISOString(),
  );
  // Hourly rollups: sums of two samples an hour, each the ClickHouse bench's sample of the same
  // container or node, so both engines allocate the same cluster (the same total to the cent).
  await prisma.$executeRawUnsafe(
    `INSERT INTO metrics.node_1h (bucket, series_id, n, last_ts, mem_sum, mem_n, mem_capacity_sum, mem_capacity_n,
       cpu_sum, cpu_n, cpu_capacity_sum, cpu_capacity_n, ready, memory_pressure, disk_pressure, pid_pressure)
     SELECT b, s.id, 2, b + interval '40 minutes', 2 * 3e10, 2, 2 * 64::float8 * 1073741824, 2, 2 * 8, 2, 2 * 32, 2, true, false, false, false
     FROM "MetricsNodeSeries" s, generate_series($1::timestamptz, $2::timestamptz - interval '1 hour', interval '1 hour') b`,
    from.toISOString(),
    to.toISOString(),
  );
  await prisma.$executeRawUnsafe(
    `INSERT INTO metrics.pod_1h (bucket, series_id, n, last_ts, mem_sum, mem_n, cpu_sum, cpu_n, restarts, pod_age, state)
     SELECT b, s.id, 2, b + interval '40 minutes', 2 * (100 + (s.i % 9) * 40)::float8 * 1048576, 2,
            2 * (0.02 + (s.i % 11) * 0.02), 2, 0, 3600, NULL
     FROM (SELECT id, substr("seriesKey", 2)::int AS i FROM "MetricsPodSeries") s, generate_series($1::timestamptz, $2::timestamptz - interval '1 hour', interval '1 hour') b`,
    from.toISOString(),
    to.toISOString(),
  );
  await prisma.$executeRawUnsafe('ANALYZE metrics.pod_1h');
  await prisma.$executeRawUnsafe('ANALYZE metrics.node_1h');
  await storeBenchBill(prisma, NODES, first, today);
  console.log(
    `machine: ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}, node ${process.version}; ` +
      `filled ${(DAYS * 24 * CONTAINERS).toLocaleString('en')} container-hours and ${(DAYS * 24 * NODES).toLocaleString('en')} node-hours in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  const size = `${DAYS} days, ${NODES} nodes, ${CONTAINERS} containers`;
  // A clock at the period's start: every day is read from the hourly rollup, as before the per-day sums.
  await timeAllocation(
    prisma,
    new MetricsStoreUsageSource(prisma, { now: () => from }),
    first,
    today,
    1,
    `allocation on PostgreSQL from the hourly rollup (load ${loadavg()[0]!.toFixed(1)}): ${size}`,
    '< 10 s',
  );
  // The first read of the closed days sums and stores them, then reads the sums.
  const usage = new MetricsStoreUsageSource(prisma);
  await timeAllocation(
    prisma,
    usage,
    first,
    today,
    1,
    `allocation on PostgreSQL, first read, summing the days (load ${loadavg()[0]!.toFixed(1)}): ${size}`,
    '',
  );
  await timeAllocation(
    prisma,
    usage,
    first,
    today,
    RUNS,
    `allocation on PostgreSQL from the per-day sums (load ${loadavg()[0]!.toFixed(1)}): ${size}`,
    '< 10 s',
  );
} finally {
  await db.close();
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await c.end();
}
