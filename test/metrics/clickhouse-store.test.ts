import { randomUUID } from 'node:crypto';
import { createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseUsageSource } from '../../shared/finops/kubernetes/clickhouse-usage.js';
import {
  type EventRecord,
  eventRecordSchema,
  type MetricRecord,
  nodeRecordSchema,
  podLogRecordSchema,
  podRecordSchema,
  pvcRecordSchema,
} from '../../shared/metrics/records.js';
import { chTime } from '../../shared/metrics/store/clickhouse/rows.js';
import { ClickHouseMetricsStore } from '../../shared/metrics/store/clickhouse/store.js';
import { CHDB_AVAILABLE, type ChdbHttpBridge, startChdbHttpBridge } from '../support/chdb-http-bridge.js';

// What only the ClickHouse engine has to show (its schema, deduplication, rollups by materialized
// view, replacing tables, partitions), through the real client and chDB.
const retention = { rawDays: 14, fiveMinuteDays: 90, hourlyDays: 400, logsDays: 14 };
// Times are recent (a few days back): the tables' TTL drops rows older than the retention as they
// are inserted.
const DAY_MS = 86_400_000;
const DAY0 = new Date(Math.floor((Date.now() - 4 * DAY_MS) / DAY_MS) * DAY_MS);
const day = (days: number, hours = 0, minutes = 0, seconds = 0) =>
  new Date(DAY0.getTime() + days * DAY_MS + ((hours * 60 + minutes) * 60 + seconds) * 1000);
const T0 = day(3, 10);
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const partition = (days: number) => day(days).toISOString().slice(0, 10).replaceAll('-', '');

const pod = (minutes: number, data: Record<string, unknown>): MetricRecord => ({
  kind: 'pod',
  collectedAt: at(minutes),
  data: podRecordSchema.parse({
    clusterName: 'prod',
    namespace: 'web',
    pod: 'api-1',
    container: 'api',
    ...data,
  }),
});
const node = (minutes: number, data: Record<string, unknown>): MetricRecord => ({
  kind: 'node',
  collectedAt: at(minutes),
  data: nodeRecordSchema.parse({ clusterName: 'prod', nodeName: 'aks-np1-0', ...data }),
});
const event = (minutes: number, data: Partial<EventRecord>): MetricRecord => ({
  kind: 'event',
  collectedAt: at(minutes),
  data: eventRecordSchema.parse({
    clusterName: 'prod',
    namespace: 'web',
    eventUid: 'u-1',
    involvedObjectKind: 'Pod',
    involvedObjectName: 'api-1',
    eventType: 'Warning',
    reason: 'BackOff',
    ...data,
  }),
});

describe.skipIf(!CHDB_AVAILABLE)('ClickHouse metrics store (chDB through the HTTP bridge)', () => {
  let bridge: ChdbHttpBridge;
  let store: ClickHouseMetricsStore;
  const newDatabase = () => `metrics_${randomUUID().replaceAll('-', '').slice(0, 8)}`;
  const database = newDatabase();
  /** The store on one database of the bridge, as the app opens it. */
  const openStore = (name: string, days = retention) =>
    ClickHouseMetricsStore.open({
      url: bridge.url,
      username: 'finwatch',
      password: 'pw',
      database: name,
      retention: days,
    });

  beforeAll(async () => {
    bridge = await startChdbHttpBridge({ user: 'finwatch', password: 'pw' });
    store = await openStore(database);
  });
  afterAll(async () => {
    await store?.close();
    await bridge?.close();
  });

  it('creates its schema idempotently: opening again changes nothing and fails nothing', async () => {
    const again = await openStore(database);
    await again.close();
    const tables = bridge.session
      .query(`SELECT name FROM system.tables WHERE database = '${database}' ORDER BY name`, 'TabSeparated')
      .trim()
      .split('\n');
    expect(tables).toEqual(expect.arrayContaining([...ClickHouseMetricsStore.tables]));
    const pods = bridge.session.query(
      `SELECT engine_full FROM system.tables WHERE database = '${database}' AND name = 'pod_raw'`,
      'TabSeparated',
    );
    expect(pods).toContain('PARTITION BY toDate(ts)');
    expect(pods).toContain('TTL toDateTime(ts) + toIntervalDay(14)');
  });

  it('writes a batch with one INSERT per table and reads the raw samples back, newest first', async () => {
    const before = bridge.statements.length;
    const result = await store.write({
      clusterName: 'prod',
      batchId: randomUUID(),
      records: [
        pod(0, {
          cpuUsageCores: 0.25,
          memoryUsageBytes: 1000,
          cpuLimitCores: 1,
          podState: 'Running',
          restartCount: 1,
        }),
        pod(1, {
          cpuUsageCores: 0.5,
          memoryUsageBytes: 2000,
          cpuLimitCores: 1,
          podState: 'Running',
          restartCount: 2,
        }),
        pod(1, { pod: 'api-2', cpuUsageCores: 2, memoryUsageBytes: 4000, labels: { app: 'api' } }),
        node(0, { cpuUsageCores: 1, cpuCapacityCores: 4, isReady: true, region: 'eastus' }),
        node(1, { cpuUsageCores: 3, cpuCapacityCores: 4, isReady: false, region: 'eastus' }),
      ],
    });
    expect(result).toEqual({ duplicate: false, records: 5 });
    const inserts = bridge.statements.slice(before).filter((s) => s.startsWith('INSERT'));
    // The samples are of a closed day: the batch marks it for the cost read's per-day sums.
    expect(inserts.map((s) => s.split(' ')[2])).toEqual(
      expect.arrayContaining([
        `${database}.pod_raw`,
        `${database}.node_raw`,
        `${database}.cost_day_late`,
        `${database}.ingest_batches`,
      ]),
    );
    expect(inserts).toHaveLength(4);

    // 10 minutes over 150 points: a 5-second step, the raw samples.
    const pods = await store.pods({ from: at(-5), to: at(5), limit: 1000, clusterName: 'prod' });
    expect(pods.resolution).toBe('raw');
    expect(pods.truncated).toBe(false);
    expect(pods.rows.map((r) => [r.timestamp.toISOString(), r.pod, r.cpuUsageCores])).toEqual([
      [at(1).toISOString(), 'api-1', 0.5],
      [at(1).toISOString(), 'api-2', 2],
      [at(0).toISOString(), 'api-1', 0.25],
    ]);
    expect(pods.rows[0]).toEqual({
      timestamp: at(1),
      clusterName: 'prod',
      namespace: 'web',
      pod: 'api-1',
      container: 'api',
      cpuUsageCores: 0.5,
      cpuLimitCores: 1,
      memoryUsageBytes: 2000,
      memoryLimitBytes: null,
      nodeName: null,
      podState: 'Running',
      restartCount: 2,
      podAge: null,
    });

    // One row for two containers: even their fewest points (3 each) pass it, so the answer is cut.
    const cut = await store.pods({ from: at(-5), to: at(5), limit: 1 });
    expect(cut.rows).toHaveLength(1);
    expect(cut.truncated).toBe(true);

    expect((await store.pods({ from: at(-5), to: at(5), limit: 10, clusters: [] })).rows).toEqual([]);
    expect((await store.pods({ from: at(-5), to: at(5), limit: 10, clusters: ['other'] })).rows).toEqual([]);
  });

  it('stores a batch once: the same id again answers duplicate, a retry after a partial failure adds nothing twice', async () => {
    const batchId = randomUUID();
    const records = [
      pod(30, { pod: 'dedup', cpuUsageCores: 1 }),
      pod(31, { pod: 'dedup', cpuUsageCores: 2 }),
    ];
    expect(await store.write({ clusterName: 'prod', batchId, records })).toEqual({
      duplicate: false,
      records: 2,
    });
    expect(await store.write({ clusterName: 'prod', batchId, records })).toEqual({
      duplicate: true,
      records: 0,
    });

    // The data reached the tables but the batch id was lost (the process died in between): the
    // agent's retry passes the id check, and the deduplication token keeps the rows single.
    bridge.session.query(`TRUNCATE TABLE ${database}.ingest_batches`);
    expect(await store.write({ clusterName: 'prod', batchId, records })).toEqual({
      duplicate: false,
      records: 2,
    });
    const count = bridge.session.query(
      `SELECT count() FROM ${database}.pod_raw WHERE pod = 'dedup'`,
      'TabSeparated',
    );
    expect(count.trim()).toBe('2');
    const rolled = bridge.session.query(
      `SELECT sum(samples) FROM ${database}.pod_5m WHERE pod = 'dedup'`,
      'TabSeparated',
    );
    expect(rolled.trim()).toBe('2');

    // One-object posts (no batch id) of the same container with the same values a moment apart are two samples.
    await store.write({
      clusterName: 'prod',
      records: [{ ...pod(32, { pod: 'single' }), collectedAt: new Date(at(32).getTime()) }],
    });
    await store.write({
      clusterName: 'prod',
      records: [{ ...pod(32, { pod: 'single' }), collectedAt: new Date(at(32).getTime() + 1) }],
    });
    expect(
      bridge.session
        .query(`SELECT count() FROM ${database}.pod_raw WHERE pod = 'single'`, 'TabSeparated')
        .trim(),
    ).toBe('2');
  });

  it('stores a batch whose text holds a lone UTF-16 surrogate instead of refusing all of it', async () => {
    const odd = 'bad-\ud800-name';
    const result = await store.write({
      clusterName: 'prod',
      batchId: randomUUID(),
      records: [
        pod(40, { pod: 'surrogate', podState: odd, labels: { [odd]: odd } }),
        pod(40, { pod: 'plain' }),
      ],
    });
    expect(result).toEqual({ duplicate: false, records: 2 });
    const rows = await store.pods({ from: at(39), to: at(41), limit: 10, clusterName: 'prod' });
    expect(rows.rows.map((r) => r.pod).sort()).toEqual(['plain', 'surrogate']);
  });

  it('answers long windows from the 5-minute and hourly rollups the materialized views keep', async () => {
    const records: MetricRecord[] = [];
    // Two hours of 30-second samples for one container: cpu 0.1 in the first hour, 0.3 in the second.
    for (let s = 0; s < 240; s++) {
      records.push({
        kind: 'pod',
        collectedAt: day(0, 0, 0, s * 30),
        data: podRecordSchema.parse({
          clusterName: 'roll',
          namespace: 'batch',
          pod: 'job-1',
          container: 'main',
          cpuUsageCores: s < 120 ? 0.1 : 0.3,
          memoryUsageBytes: 1000 + s,
          restartCount: s < 200 ? 0 : 3,
          podState: s < 230 ? 'Running' : 'Failed',
          nodeName: 'n1',
        }),
      });
    }
    await store.write({ clusterName: 'roll', batchId: randomUUID(), records });

    // At 300 points a series, a day is 5-minute steps and a week hourly ones: the rollups' own buckets.
    const fiveMinutes = await store.pods({
      from: day(-1, 12),
      to: day(0, 12),
      limit: 1000,
      clusterName: 'roll',
      maxPoints: 300,
    });
    expect(fiveMinutes.resolution).toBe('5m');
    expect(fiveMinutes.rows).toHaveLength(24);
    // The newest row is at its latest sample (01:59:30), the others at their buckets' starts.
    expect(fiveMinutes.rows[0]!.timestamp).toEqual(day(0, 1, 59, 30));
    expect(fiveMinutes.rows[1]!.timestamp).toEqual(day(0, 1, 50));
    expect(fiveMinutes.rows[0]!.cpuUsageCores).toBeCloseTo(0.3, 10);
    expect(fiveMinutes.rows[0]!.restartCount).toBe(3);
    expect(fiveMinutes.rows[0]!.podState).toBe('Failed');
    expect(fiveMinutes.rows[23]!.timestamp).toEqual(day(0));
    // Samples 0..9 of the first bucket: memory 1000..1009, average 1004.5.
    expect(fiveMinutes.rows[23]!.memoryUsageBytes).toBe(1004.5);

    const hourly = await store.pods({
      from: day(-5),
      to: day(2),
      limit: 1000,
      clusterName: 'roll',
      maxPoints: 300,
    });
    expect(hourly.resolution).toBe('1h');
    expect(
      hourly.rows.map((r) => [r.timestamp.toISOString(), Math.round(r.cpuUsageCores * 10) / 10]),
    ).toEqual([
      [day(0, 1, 59, 30).toISOString(), 0.3],
      [day(0).toISOString(), 0.1],
    ]);
    expect(hourly.rows[0]!.nodeName).toBe('n1');
  });

  it('reads node rollups with the bucket’s latest state and PVC rollups as whole bytes', async () => {
    await store.write({
      clusterName: 'nodes',
      batchId: randomUUID(),
      records: [
        { ...node(0, { clusterName: 'nodes', cpuUsageCores: 1, isReady: true }), collectedAt: day(1) },
        { ...node(0, { clusterName: 'nodes', cpuUsageCores: 2, isReady: false }), collectedAt: day(1, 0, 4) },
        {
          kind: 'pvc',
          collectedAt: day(1),
          data: pvcRecordSchema.parse({
            clusterName: 'nodes',
            pvcName: 'data',
            usedBytes: 1,
            capacityBytes: 10,
          }),
        },
        {
          kind: 'pvc',
          collectedAt: day(1, 0, 1),
          data: pvcRecordSchema.parse({
            clusterName: 'nodes',
            pvcName: 'data',
            usedBytes: 2,
            capacityBytes: 10,
          }),
        },
      ],
    });
    const window = { from: day(0, 12), to: day(1, 12), limit: 1000, maxPoints: 300 };
    const nodes = await store.nodes({ ...window, clusterName: 'nodes' });
    expect(nodes.resolution).toBe('5m');
    expect(nodes.rows).toHaveLength(1);
    expect(nodes.rows[0]).toMatchObject({
      cpuUsageCores: 1.5,
      isReady: false,
      nodeName: 'aks-np1-0',
      region: null,
    });
    const pvcs = await store.pvcs({ ...window, clusterName: 'nodes' });
    expect(pvcs.rows).toHaveLength(1);
    expect(pvcs.rows[0]).toMatchObject({ usedBytes: 2, capacityBytes: 10, pvcName: 'data' });
  });

  it('keeps the latest log per container and one row per event, as last posted', async () => {
    const log = (minutes: number, logContent: string): MetricRecord => ({
      kind: 'podLog',
      collectedAt: at(minutes),
      data: podLogRecordSchema.parse({
        clusterName: 'prod',
        namespace: 'web',
        pod: 'api-1',
        container: 'api',
        logContent,
      }),
    });
    await store.write({
      clusterName: 'prod',
      batchId: randomUUID(),
      records: [log(0, 'first'), event(0, { count: 1 })],
    });
    await store.write({
      clusterName: 'prod',
      batchId: randomUUID(),
      records: [
        log(2, 'second\nline'),
        event(2, { count: 5, message: 'again' }),
        event(2, { eventUid: 'u-2', eventType: 'Normal' }),
      ],
    });
    const logs = await store.logs({ from: at(-10), limit: 10, clusterName: 'prod' });
    expect(logs.rows).toEqual([
      {
        timestamp: at(2),
        clusterName: 'prod',
        namespace: 'web',
        pod: 'api-1',
        container: 'api',
        logContent: 'second\nline',
      },
    ]);
    const events = await store.events({
      from: at(-10),
      limit: 10,
      clusterName: 'prod',
      eventType: 'Warning',
    });
    expect(events.rows.map((e) => [e.eventUid, e.count, e.message, e.timestamp])).toEqual([
      ['u-1', 5, 'again', at(2)],
    ]);
    const all = await store.events({ from: at(-10), limit: 1, clusterName: 'prod' });
    expect(all.rows).toHaveLength(1);
    expect(all.truncated).toBe(true);
  });

  it('lists clusters and namespaces from the hourly rollups, within the visible set', async () => {
    expect(await store.clusters(day(-1))).toEqual(['nodes', 'prod', 'roll']);
    expect(await store.clusters(day(-1), ['prod', 'other'])).toEqual(['prod']);
    expect(await store.clusters(at(-1), undefined)).toEqual(['prod']);
    expect(await store.namespaces(day(-1), undefined)).toEqual(['batch', 'web']);
    expect(await store.namespaces(day(-1), ['roll'])).toEqual(['batch']);
    expect(await store.namespaces(day(-1), undefined, 'prod')).toEqual(['web']);
  });

  it('reports its own tables’ sizes from system.parts', async () => {
    const sizes = await store.tableSizes();
    expect(new Set(sizes.map((s) => s.database))).toEqual(new Set([database]));
    const pods = sizes.find((s) => s.table === 'pod_raw')!;
    expect(pods.totalSizeBytes).toBeGreaterThan(0);
    expect(pods.totalSize).toMatch(/^\d+(\.\d+)? (B|KiB|MiB)$/);
  });

  it('drops whole day partitions past retention in housekeeping and in cleanup', async () => {
    // 14 days of raw retention before day 16 12:00 reach back to day 2 12:00: days 0 and 1 go, day 3 stays.
    const housekept = await store.housekeeping(day(16, 12));
    expect(housekept.dropped).toEqual([
      `pod_raw_p${partition(0)}`,
      `node_raw_p${partition(1)}`,
      `pvc_raw_p${partition(1)}`,
    ]);
    expect(housekept.dropped.filter((d) => d.includes('_5m') || d.includes('_1h'))).toEqual([]);
    expect((await store.pods({ from: day(0), to: day(0, 5), limit: 10, resolution: 'raw' })).rows).toEqual(
      [],
    );
    expect((await store.pods({ from: at(-60), to: at(60), limit: 10 })).rows.length).toBeGreaterThan(0);
    // The rollups outlive the raw rows.
    const hourly = await store.pods({ from: day(-5), to: day(2), limit: 1000, maxPoints: 300 });
    expect(hourly.rows.length).toBe(2);

    expect(await store.cleanup(0)).toEqual({ scope: 'all metrics' });
    expect((await store.pods({ from: at(-5), to: at(60), limit: 10 })).rows).toEqual([]);
    expect(await store.clusters(new Date(0))).toEqual([]);
  });

  it('applies a changed retention setting at the next start', async () => {
    const shorter = await openStore(database, { ...retention, rawDays: 7, hourlyDays: 30 });
    await shorter.close();
    const ttl = (table: string) =>
      bridge.session.query(
        `SELECT engine_full FROM system.tables WHERE database = '${database}' AND name = '${table}'`,
        'TabSeparated',
      );
    expect(ttl('pod_raw')).toContain('toIntervalDay(7)');
    expect(ttl('pod_1h')).toContain('toIntervalDay(30)');
    expect(ttl('pod_5m')).toContain('toIntervalDay(90)');
  });

  /** A closed store of its own database holding one node and one container sampled at 0 and 30 minutes. */
  async function storeWithTwoSamples(laterCpuCores: number) {
    const older = newDatabase();
    const open = () => openStore(older);
    const first = await open();
    await first.write({
      clusterName: 'prod',
      records: [
        node(0, onNode),
        node(30, onNode),
        pod(0, { cpuUsageCores: 0.2, memoryUsageBytes: 2e8, nodeName: 'aks-np1-0', ...spec }),
        pod(30, { cpuUsageCores: laterCpuCores, memoryUsageBytes: 4e8, nodeName: 'aks-np1-0', ...spec }),
      ],
    });
    await first.close();
    return { older, open };
  }

  it('fills the node cost rollup from the samples already stored when it is added to an existing store', async () => {
    // A store made before the node cost rollup existed: samples, but no k8s_node_1h table or view.
    const { older, open } = await storeWithTwoSamples(0.4);
    bridge.session.query(`DROP VIEW ${older}.k8s_node_1h_mv`);
    bridge.session.query(`DROP TABLE ${older}.k8s_node_1h`);
    const reopened = await open();
    // A sample written after the reopening is counted once, by the view.
    await reopened.write({
      clusterName: 'prod',
      records: [
        node(45, onNode),
        pod(45, { cpuUsageCores: 0.6, memoryUsageBytes: 6e8, nodeName: 'aks-np1-0', ...spec }),
      ],
    });
    const hour = T0.toISOString().slice(0, 10);
    const usage = await new ClickHouseUsageSource(reopened).day('prod', hour);
    expect(usage.nodeHours).toEqual([
      expect.objectContaining({ node: 'aks-np1-0', pool: 'np1', cpuCapacityCores: 4, seen: 1 }),
    ]);
    expect(usage.containerHours).toEqual([
      expect.objectContaining({ node: 'aks-np1-0', cpuUsageCores: expect.closeTo(0.4, 9), seen: 1 }),
    ]);
    // Opening again does not fill it a second time.
    await (await open()).close();
    const again = await new ClickHouseUsageSource(reopened).day('prod', hour);
    expect(again.nodeHours).toEqual([expect.objectContaining({ seen: 1 })]);
    await reopened.close();
  }, 180_000);

  it('adds the cost read’s per-day sums to a store made before them, summing its closed days from the hours stored', async () => {
    // A store made before the per-day sums: samples of a closed day, but no cost_day tables.
    const { older, open } = await storeWithTwoSamples(0.8);
    for (const t of ['cost_day', 'cost_class_hour', 'cost_day_summed', 'cost_day_late']) {
      bridge.session.query(`DROP TABLE ${older}.${t}`);
    }
    const reopened = await open();
    const ymd = T0.toISOString().slice(0, 10);
    // Clocks: the next day at 02:00 (T0's day closed) and T0's day start (every hour open).
    const stored = new ClickHouseUsageSource(reopened, { now: () => day(4, 2) });
    const hourly = new ClickHouseUsageSource(reopened, { now: () => day(3) });
    const got = await stored.summedDays('prod', ymd, ymd, { kind: 'workload' });
    expect(got).toEqual(await hourly.summedDays('prod', ymd, ymd, { kind: 'workload' }));
    // The hour's 0.5 core requested, against the 0.5 used on average.
    expect(got.get(ymd)?.charges).toEqual([
      expect.objectContaining({ row: 'web/Deployment/api', cpuCoreHours: expect.closeTo(0.5, 9) }),
    ]);
    const [summed] = await reopened.read<{ n: number }>(
      `SELECT count() AS n FROM {db}.cost_day WHERE cluster = 'prod' AND day = {day:Date}`,
      { day: ymd },
    );
    expect(summed?.n).toBe(1);
    // Opening again changes nothing; the day is not summed again.
    await (await open()).close();
    expect(await stored.sumClosedDays('prod', day(3), day(4))).toEqual([]);
    await reopened.close();
  }, 180_000);

  /**
   * Turns the pod samples of a store made now (no samples yet) into the layout before their labels
   * were JSON text: labels a Map, the five names LowCardinality(Nullable(String)), pod_1h's view
   * turning the Map into JSON.
   */
  function toMapLabelsLayout(db: string) {
    const q = (sql: string) => bridge.session.query(sql);
    q(`DROP VIEW ${db}.pod_1h_mv`);
    q(`ALTER TABLE ${db}.pod_raw DROP COLUMN labels`);
    q(
      `ALTER TABLE ${db}.pod_raw ADD COLUMN labels Map(LowCardinality(String), LowCardinality(String)) AFTER owner_name`,
    );
    q(
      `ALTER TABLE ${db}.pod_raw ${[
        'node_name',
        'pod_state',
        'owner_kind',
        'owner_name',
        'last_termination_reason',
      ]
        .map((c) => `MODIFY COLUMN ${c} LowCardinality(Nullable(String))`)
        .join(', ')}`,
    );
    const last = (type: string) => `argMaxState(${type}, ts)`;
    q(`CREATE MATERIALIZED VIEW ${db}.pod_1h_mv TO ${db}.pod_1h AS
       SELECT cluster, namespace, pod, container, toStartOfHour(ts) AS bucket, count() AS samples,
         avgState(cpu_usage_cores) AS cpu_usage_cores, avgState(cpu_limit_cores) AS cpu_limit_cores,
         avgState(memory_usage_bytes) AS memory_usage_bytes, avgState(memory_limit_bytes) AS memory_limit_bytes,
         ${last("CAST(node_name, 'Nullable(String)')")} AS node_name, ${last("CAST(pod_state, 'Nullable(String)')")} AS pod_state,
         max(restart_count) AS restart_count, max(pod_age) AS pod_age,
         ${last("CAST(cpu_request_cores, 'Nullable(Float64)')")} AS cpu_request_cores,
         ${last("CAST(memory_request_bytes, 'Nullable(Float64)')")} AS memory_request_bytes,
         ${last("assumeNotNull(ifNull(toString(owner_kind), ''))")} AS owner_kind,
         ${last("assumeNotNull(ifNull(toString(owner_name), ''))")} AS owner_name,
         ${last("toJSONString(CAST(labels, 'Map(String, String)'))")} AS labels, max(ts) AS last_seen
       FROM ${db}.pod_raw GROUP BY cluster, namespace, pod, container, bucket`);
  }

  /**
   * Turns a store made now into the previous layout: pod_1h, node_1h and pvc_1h without last_seen
   * (pod_1h without the cost attributes either) and their views without them, a pod cost rollup
   * of its own (`k8s_pod_1h`, of the given layout) and a `seen` table fed by views.
   */
  function toPreviousLayout(db: string, costLayout: 1 | 2) {
    const q = (sql: string) => bridge.session.query(sql);
    toMapLabelsLayout(db);
    for (const kind of ['pod', 'node', 'pvc']) {
      q(`DROP VIEW ${db}.${kind}_1h_mv`);
      q(`ALTER TABLE ${db}.${kind}_1h DROP PROJECTION seen`);
      // The 5-minute rollups had no last_seen either (the start makes their views again).
      q(`DROP VIEW ${db}.${kind}_5m_mv`);
      q(`ALTER TABLE ${db}.${kind}_5m DROP COLUMN last_seen`);
    }
    q(
      `ALTER TABLE ${db}.pod_1h DROP COLUMN cpu_request_cores, DROP COLUMN memory_request_bytes, DROP COLUMN owner_kind,
         DROP COLUMN owner_name, DROP COLUMN labels, DROP COLUMN last_seen`,
    );
    q(`ALTER TABLE ${db}.node_1h DROP COLUMN last_seen`);
    q(`ALTER TABLE ${db}.pvc_1h DROP COLUMN last_seen`);
    q(`CREATE MATERIALIZED VIEW ${db}.pod_1h_mv TO ${db}.pod_1h AS
       SELECT cluster, namespace, pod, container, toStartOfHour(ts) AS bucket, count() AS samples,
         avgState(cpu_usage_cores) AS cpu_usage_cores, avgState(cpu_limit_cores) AS cpu_limit_cores,
         avgState(memory_usage_bytes) AS memory_usage_bytes, avgState(memory_limit_bytes) AS memory_limit_bytes,
         argMaxState(CAST(node_name, 'Nullable(String)'), ts) AS node_name,
         argMaxState(CAST(pod_state, 'Nullable(String)'), ts) AS pod_state,
         max(restart_count) AS restart_count, max(pod_age) AS pod_age
       FROM ${db}.pod_raw GROUP BY cluster, namespace, pod, container, bucket`);
    // node_1h and pvc_1h are left without a view: the start makes the current one.
    const last = (type: string) => `AggregateFunction(argMax, ${type}, DateTime64(3, 'UTC'))`;
    if (costLayout === 2) {
      q(`CREATE TABLE ${db}.k8s_pod_1h (cluster LowCardinality(String), namespace LowCardinality(String),
           pod LowCardinality(String), container LowCardinality(String), bucket DateTime('UTC'),
           samples SimpleAggregateFunction(sum, UInt64), cpu_usage_cores AggregateFunction(avg, Float64),
           memory_usage_bytes AggregateFunction(avg, Float64), node_name ${last('String')},
           cpu_request_cores ${last('Nullable(Float64)')}, memory_request_bytes ${last('Nullable(Float64)')},
           owner_kind ${last('String')}, owner_name ${last('String')}, labels ${last('String')})
         ENGINE = AggregatingMergeTree PARTITION BY toYYYYMM(bucket) ORDER BY (cluster, namespace, pod, container, bucket)`);
      q(`CREATE MATERIALIZED VIEW ${db}.k8s_pod_1h_mv TO ${db}.k8s_pod_1h AS
         SELECT cluster, namespace, pod, container, toStartOfHour(ts) AS bucket, count() AS samples,
           avgState(toFloat64(cpu_usage_cores)) AS cpu_usage_cores, avgState(toFloat64(memory_usage_bytes)) AS memory_usage_bytes,
           argMaxState(assumeNotNull(ifNull(toString(node_name), '')), ts) AS node_name,
           argMaxState(CAST(cpu_request_cores, 'Nullable(Float64)'), ts) AS cpu_request_cores,
           argMaxState(CAST(memory_request_bytes, 'Nullable(Float64)'), ts) AS memory_request_bytes,
           argMaxState(assumeNotNull(ifNull(toString(owner_kind), '')), ts) AS owner_kind,
           argMaxState(assumeNotNull(ifNull(toString(owner_name), '')), ts) AS owner_name,
           argMaxState(toJSONString(CAST(labels, 'Map(String, String)')), ts) AS labels
         FROM ${db}.pod_raw GROUP BY cluster, namespace, pod, container, bucket`);
    } else {
      // The first layout: one argMax state over a tuple of every attribute, no view any more.
      q(`CREATE TABLE ${db}.k8s_pod_1h (cluster String, bucket DateTime('UTC'),
           spec AggregateFunction(argMax, Tuple(Nullable(String), Map(String, String)), DateTime64(3, 'UTC')))
         ENGINE = AggregatingMergeTree ORDER BY (cluster, bucket)`);
      q(`INSERT INTO ${db}.k8s_pod_1h (cluster, bucket) VALUES ('prod', now())`);
    }
    q(`CREATE TABLE ${db}.seen (kind LowCardinality(String), cluster LowCardinality(String),
         namespace LowCardinality(String), last_seen SimpleAggregateFunction(max, DateTime64(3, 'UTC')))
       ENGINE = AggregatingMergeTree ORDER BY (kind, cluster, namespace)`);
    for (const kind of ['pod', 'node', 'pvc']) {
      q(`CREATE MATERIALIZED VIEW ${db}.seen_${kind}_mv TO ${db}.seen AS
         SELECT '${kind}' AS kind, cluster, ${kind === 'node' ? "''" : 'namespace'} AS namespace, max(ts) AS last_seen
         FROM ${db}.${kind}_raw GROUP BY cluster, namespace`);
    }
  }

  const spec = { cpuRequestCores: 0.5, memoryRequestBytes: 1e9, ownerKind: 'Deployment', ownerName: 'api' };
  const onNode = {
    cpuCapacityCores: 4,
    memoryCapacityBytes: 16e9,
    providerId: 'azure:///vm/0',
    nodePool: 'np1',
  };

  /** Samples of `prod`'s one container and node stored by SQL, through the previous layout's views. */
  function storePrevious(db: string, samples: Array<[minutes: number, cpu: number, team: string]>) {
    const ts = (minutes: number) => `toDateTime64('${chTime(at(minutes))}', 3, 'UTC')`;
    bridge.session.query(
      `INSERT INTO ${db}.pod_raw (cluster, namespace, pod, container, ts, cpu_usage_cores, memory_usage_bytes,
         cpu_request_cores, memory_request_bytes, node_name, pod_state, restart_count, owner_kind, owner_name, labels)
       VALUES ${samples
         .map(
           ([m, cpu, team]) =>
             `('prod', 'web', 'api-1', 'api', ${ts(m)}, ${cpu}, ${cpu * 1e9}, 0.5, 1e9, 'aks-np1-0', 'Running', 0, 'Deployment', 'api', map('team', '${team}'))`,
         )
         .join(', ')}`,
    );
    bridge.session.query(
      `INSERT INTO ${db}.node_raw (cluster, node_name, ts, cpu_usage_cores, cpu_capacity_cores, memory_usage_bytes,
         memory_capacity_bytes, provider_id, node_pool)
       VALUES ${samples.map(([m]) => `('prod', 'aks-np1-0', ${ts(m)}, 1, 4, 1e9, 16e9, 'azure:///vm/0', 'np1')`).join(', ')}`,
    );
  }

  it('brings a store of the previous layout to one hourly pod rollup in place, its hours and lists unchanged', async () => {
    const older = newDatabase();
    const open = () => openStore(older);
    const made = await open();
    await made.close();
    toPreviousLayout(older, 2);
    storePrevious(older, [
      [0, 0.2, 'a'],
      [30, 0.4, 'b'],
    ]);
    const reopened = await open();
    const tables = bridge.session
      .query(`SELECT name FROM system.tables WHERE database = '${older}' ORDER BY name`, 'TabSeparated')
      .trim()
      .split('\n');
    expect(tables).not.toContain('k8s_pod_1h');
    expect(tables.filter((t) => t.startsWith('seen'))).toEqual(['seen']);
    // Times recorded before: the previous layout's seen table knows the sample at 30 minutes.
    expect(await reopened.clusters(at(20))).toEqual(['prod']);
    expect(await reopened.namespaces(at(20), undefined)).toEqual(['web']);
    expect(await reopened.clusters(at(31))).toEqual([]);

    await reopened.write({
      clusterName: 'prod',
      records: [
        node(45, onNode),
        pod(45, {
          cpuUsageCores: 0.6,
          memoryUsageBytes: 6e8,
          nodeName: 'aks-np1-0',
          labels: { team: 'c' },
          ...spec,
        }),
      ],
    });
    expect(await reopened.clusters(at(40))).toEqual(['prod']);
    expect(await reopened.namespaces(at(44), undefined)).toEqual(['web']);
    expect(await reopened.clusters(at(46))).toEqual([]);
    const check = async (s: ClickHouseMetricsStore) => {
      const hourly = await s.pods({
        from: day(-3),
        to: day(4),
        limit: 100,
        clusterName: 'prod',
        resolution: '1h',
      });
      // The hour's newest sample (minute 45) was written after the migration gave the rollup last_seen.
      expect(hourly.rows).toEqual([
        expect.objectContaining({
          timestamp: at(45),
          cpuUsageCores: expect.closeTo(0.4, 9),
          nodeName: 'aks-np1-0',
        }),
      ]);
      const usage = await new ClickHouseUsageSource(s).day('prod', T0.toISOString().slice(0, 10));
      expect(usage.nodeHours).toEqual([expect.objectContaining({ node: 'aks-np1-0', seen: 1 })]);
      expect(usage.containerHours).toEqual([
        expect.objectContaining({
          node: 'aks-np1-0',
          workload: 'Deployment/api',
          labels: { team: 'c' },
          cpuUsageCores: expect.closeTo(0.4, 9),
          memoryUsageBytes: 4e8,
          cpuRequestCores: 0.5,
          seen: 1,
        }),
      ]);
    };
    await check(reopened);
    // Opening again changes nothing.
    await (await open()).close();
    await check(reopened);
    await reopened.close();
  }, 180_000);

  it('sets a pod cost rollup of the first layout aside and fills pod_1h from the samples', async () => {
    const older = newDatabase();
    const open = () => openStore(older);
    await (await open()).close();
    toPreviousLayout(older, 1);
    storePrevious(older, [[0, 0.2, 'a']]);
    const reopened = await open();
    const usage = await new ClickHouseUsageSource(reopened).day('prod', T0.toISOString().slice(0, 10));
    expect(usage.containerHours).toEqual([
      expect.objectContaining({
        node: 'aks-np1-0',
        labels: { team: 'a' },
        cpuUsageCores: expect.closeTo(0.2, 9),
        cpuRequestCores: 0.5,
      }),
    ]);
    expect(bridge.session.query(`SELECT count() FROM ${older}.k8s_pod_1h_v1`, 'TabSeparated').trim()).toBe(
      '1',
    );
    await reopened.close();
  }, 180_000);

  it('turns pod samples with Map labels into plain names and JSON labels in place', async () => {
    const older = newDatabase();
    const open = () => openStore(older);
    await (await open()).close();
    toMapLabelsLayout(older);
    const ts = (minutes: number) => `toDateTime64('${chTime(at(minutes))}', 3, 'UTC')`;
    bridge.session.query(
      `INSERT INTO ${older}.pod_raw (cluster, namespace, pod, container, ts, cpu_usage_cores, memory_usage_bytes,
         cpu_request_cores, memory_request_bytes, node_name, pod_state, restart_count, owner_kind, owner_name, labels)
       VALUES ('prod', 'web', 'api-1', 'api', ${ts(0)}, 0.2, 2e8, 0.5, 1e9, 'aks-np1-0', 'Running', 0, 'Deployment',
         'api', map('team', 'a'))`,
    );
    const reopened = await open();
    const types = bridge.session
      .query(
        `SELECT name, type FROM system.columns WHERE database = '${older}' AND table = 'pod_raw'
           AND name IN ('labels', 'node_name', 'owner_kind') ORDER BY name`,
        'TabSeparated',
      )
      .trim();
    expect(types).toBe('labels\tString\nnode_name\tNullable(String)\nowner_kind\tNullable(String)');
    // A sample of the new layout, its pod state missing, its labels with a key ClickHouse's JSON
    // output would escape ('/'), in the same hour.
    await reopened.write({
      clusterName: 'prod',
      records: [
        node(0, onNode),
        node(30, onNode),
        pod(30, {
          cpuUsageCores: 0.4,
          memoryUsageBytes: 4e8,
          nodeName: 'aks-np1-0',
          podState: null,
          labels: { team: 'b', 'app.kubernetes.io/name': 'api "v2"' },
          ...spec,
        }),
      ],
    });
    const raw = await reopened.pods({ from: at(-5), to: at(35), limit: 10, resolution: 'raw' });
    expect(raw.rows.map((r) => [r.timestamp, r.nodeName, r.podState])).toEqual([
      [at(30), 'aks-np1-0', null],
      [at(0), 'aks-np1-0', 'Running'],
    ]);
    const check = async (s: ClickHouseMetricsStore) => {
      const usage = await new ClickHouseUsageSource(s).day('prod', T0.toISOString().slice(0, 10));
      // The hour's last sample gives the owner and labels: the one written after the change.
      expect(usage.containerHours).toEqual([
        expect.objectContaining({
          node: 'aks-np1-0',
          workload: 'Deployment/api',
          labels: { team: 'b', 'app.kubernetes.io/name': 'api "v2"' },
          cpuUsageCores: expect.closeTo(0.3, 9),
          seen: 1,
        }),
      ]);
    };
    await check(reopened);
    // Opening again changes nothing.
    await (await open()).close();
    await check(reopened);
    await reopened.close();
  }, 180_000);

  it('refuses wrong credentials at open with the server’s error', async () => {
    await expect(
      ClickHouseMetricsStore.open({
        url: bridge.url,
        username: 'finwatch',
        password: 'nope',
        database,
        retention,
      }),
    ).rejects.toThrow(/Authentication failed/);
    // a client is not left open behind the failure
    const probe = createClient({ url: bridge.url, username: 'finwatch', password: 'pw' });
    expect(await probe.ping()).toEqual({ success: true });
    await probe.close();
  });
});
