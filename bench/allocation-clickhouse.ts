// npm run bench -- allocation (third part): the allocation of 30 days of a 6,000-container,
// 200-node cluster read from the metrics store on ClickHouse (chDB, in-process, behind the test
// HTTP bridge, through the official client as in production), with the bill in PGlite, as
// GET KubernetesCost/allocation does it. Aim: < 2 s. Three figures: every day from the hourly rollup,
// the housekeeping timer summing the closed days, and the read from those per-day sums.
// The samples are made by INSERT ... SELECT in the engine (two an hour per node and container):
// the store's views fill the rollups as they would from the agent's batches.
import { cpus, loadavg } from 'node:os';
import { openDatabase } from '../shared/db/client.js';
import { ClickHouseUsageSource } from '../shared/finops/kubernetes/clickhouse-usage.js';
import { ClickHouseMetricsStore } from '../shared/metrics/store/clickhouse/store.js';
import { CHDB_AVAILABLE, startChdbHttpBridge } from '../test/support/chdb-http-bridge.js';
import { BENCH_VMSS, storeBenchBill, timeAllocation } from './allocation-bill.js';

const DAYS = Number(process.env.BENCH_DAYS ?? 30);
const NODES = Number(process.env.BENCH_NODES ?? 200);
const CONTAINERS = Number(process.env.BENCH_CONTAINERS ?? 6000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const DAY = 86_400_000;

if (!CHDB_AVAILABLE) {
  console.log('allocation on ClickHouse: skipped (chDB does not load on this platform)');
  process.exit(0);
}
const bridge = await startChdbHttpBridge();
const database = 'bench_alloc';
const store = await ClickHouseMetricsStore.open({
  url: bridge.url,
  database,
  retention: { rawDays: DAYS + 5, fiveMinuteDays: DAYS + 5, hourlyDays: 400, logsDays: 14 },
});
const db = await openDatabase({ dataDir: 'memory://' });
try {
  await db.migrate();
  const today = Math.floor(Date.now() / DAY) * DAY;
  const first = today - DAYS * DAY;
  const t0 = performance.now();
  const ts = `toDateTime64(${first / 1000} + intDiv(number, N) * 1800 + 600, 3, 'UTC')`;
  bridge.session.query(
    `INSERT INTO ${database}.node_raw (cluster, node_name, ts, cpu_usage_cores, cpu_capacity_cores, memory_usage_bytes,
       memory_capacity_bytes, instance_type, provider_id, node_pool, cpu_allocatable_cores, memory_allocatable_bytes)
     SELECT 'bench', concat('node-', toString(number % N)), ${ts.replace(/N/g, String(NODES))}, 8, 32, 3e10, 64 * 1073741824,
            'Standard_D16s_v5', concat('azure://${BENCH_VMSS}/virtualMachines/', toString(number % N)), 'np1', 15.8, 62 * 1073741824
     FROM numbers(${DAYS * 48 * NODES})`.replace(/\bN\b/g, String(NODES)),
    'TabSeparated',
  );
  bridge.session.query(
    `INSERT INTO ${database}.pod_raw (cluster, namespace, pod, container, ts, cpu_usage_cores, memory_usage_bytes,
       cpu_request_cores, memory_request_bytes, node_name, pod_state, restart_count, owner_kind, owner_name, labels)
     SELECT 'bench', if(i % 10 = 0, 'kube-system', concat('team-', toString(i % 60))), concat('pod-', toString(i)), 'app',
            ${ts.replace(/N/g, String(CONTAINERS))}, 0.02 + (i % 11) * 0.02, (100 + (i % 9) * 40) * 1048576,
            0.05 + (i % 7) * 0.03, (128 + (i % 5) * 64) * 1048576, concat('node-', toString(i % ${NODES})), 'Running', 0,
            'Deployment', concat('w', toString(i % 600)), map('team', concat('t', toString(i % 12)))
     FROM (SELECT number, number % ${CONTAINERS} AS i FROM numbers(${DAYS * 48 * CONTAINERS}))`,
    'TabSeparated',
  );
  bridge.session.query(`OPTIMIZE TABLE ${database}.pod_1h FINAL`, 'TabSeparated');
  await storeBenchBill(db.prisma, NODES, first, today);
  console.log(
    `machine: ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}, node ${process.version}; ` +
      `filled ${(DAYS * 48 * CONTAINERS).toLocaleString('en')} pod samples (${(DAYS * 24 * CONTAINERS).toLocaleString('en')} container-hours) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  if (process.env.BENCH_TRACE) {
    const read = store.read.bind(store);
    store.read = async <T>(q: string, p: Record<string, unknown>) => {
      const t = performance.now();
      const r = await read<T>(q, p);
      console.log(
        `${(performance.now() - t).toFixed(0)} ms ${r.length} rows: ${q.replace(/\s+/g, ' ').slice(0, 50)}…`,
      );
      return r;
    };
  }
  const size = `${DAYS} days, ${NODES} nodes, ${CONTAINERS} containers`;
  // chDB runs in this process: its CPU time is the process's, steadier than wall time on a loaded machine.
  const withCpu = async (runs: number, what: () => Promise<unknown>) => {
    const cpu = process.cpuUsage();
    await what();
    const used = process.cpuUsage(cpu);
    const perRun = (used.user + used.system) / 1e6 / runs;
    console.log(
      `  CPU (client, bridge and engine): ${perRun.toFixed(2)} s per run, ${(perRun / DAYS).toFixed(3)} s per day (load ${loadavg()[0]!.toFixed(2)})`,
    );
  };
  // A clock at the period's start: every day is read from the hourly rollup, as before the per-day sums.
  await withCpu(1, () =>
    timeAllocation(
      db.prisma,
      new ClickHouseUsageSource(store, { now: () => new Date(first) }),
      first,
      today,
      1,
      `allocation on ClickHouse (chDB) from the hourly rollup (load ${loadavg()[0]!.toFixed(1)}): ${size}`,
      '< 2 s',
    ),
  );
  // What the hourly housekeeping timer does once after an upgrade (later runs find at most yesterday).
  const usage = new ClickHouseUsageSource(store);
  await withCpu(1, async () => {
    const t = performance.now();
    const prepared = await usage.prepareClosedDays();
    console.log(
      `housekeeping's prepareClosedDays on ClickHouse (chDB) (load ${loadavg()[0]!.toFixed(1)}): ` +
        `${prepared.map((p) => p.days.length).join(', ')} days summed in ${((performance.now() - t) / 1000).toFixed(2)} s`,
    );
  });
  await withCpu(RUNS, () =>
    timeAllocation(
      db.prisma,
      usage,
      first,
      today,
      RUNS,
      `allocation on ClickHouse (chDB) from the per-day sums (load ${loadavg()[0]!.toFixed(1)}): ${size}`,
      '< 2 s',
    ),
  );
} finally {
  await store.close();
  await db.close();
  await bridge.close();
}
