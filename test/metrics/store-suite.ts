/**
 * The store contract's behaviour, as a suite any engine runs: call `storeContractSuite` with a
 * factory that opens an empty store (the PostgreSQL store in postgres-store.test.ts; another engine
 * passes its own). Records go in through `write` exactly as the ingest routes hand them over.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MetricRecord, RECORD_SCHEMAS, type RecordKind } from '../../shared/metrics/records.js';
import type { MetricsStore } from '../../shared/metrics/store/contract.js';

export interface OpenedStore {
  store: MetricsStore;
  close(): Promise<void>;
}

const H = 3_600_000;
const DAY = 24 * H;

// Each kind's sample as the tests write it (the cluster and any field can be changed per call); a
// sample read back holds the same values.
const POD = {
  namespace: 'web',
  pod: 'api-0',
  container: 'api',
  cpuUsageCores: 0.25,
  cpuLimitCores: 0.5,
  memoryUsageBytes: 100,
  memoryLimitBytes: null,
  nodeName: 'node-a',
  podState: 'Running',
  restartCount: 2,
  podAge: 3600,
};
const NODE = {
  nodeName: 'node-a',
  cpuUsageCores: 1,
  cpuCapacityCores: 4,
  memoryUsageBytes: 1000,
  memoryCapacityBytes: 8000,
  isReady: true,
  hasMemoryPressure: false,
  hasDiskPressure: false,
  hasPidPressure: false,
  cloudProvider: 'AKS',
  region: 'eastus',
};
const PVC = {
  namespace: 'web',
  pod: 'db-0',
  pvcNamespace: 'web',
  pvcName: 'data',
  volumeName: null,
  usedBytes: 5_000_000_000,
  availableBytes: 1000,
  capacityBytes: 5_000_001_000,
};
const EVENT = {
  namespace: 'web',
  eventName: 'e1',
  eventUid: 'u1',
  involvedObjectKind: 'Pod',
  involvedObjectName: 'api-0',
  eventType: 'Warning',
  reason: 'BackOff',
  message: 'first',
  count: 1,
};

/** A builder of one kind's records from its base values, validated as the ingest routes do. */
const builder =
  (kind: RecordKind, base: Record<string, unknown>) =>
  (cluster: string, at: Date, over: Record<string, unknown> = {}): MetricRecord =>
    ({
      kind,
      collectedAt: at,
      data: RECORD_SCHEMAS[kind].parse({ clusterName: cluster, ...base, ...over }),
    }) as MetricRecord;

const pod = builder('pod', POD);
const node = builder('node', NODE);
const pvc = builder('pvc', PVC);
const event = builder('event', EVENT);
const log = (cluster: string, at: Date, text: string, pod = 'api-0'): MetricRecord =>
  builder('podLog', { namespace: 'web', container: 'api' })(cluster, at, { pod, logContent: text });

export function storeContractSuite(engine: string, open: () => Promise<OpenedStore>): void {
  describe(`metrics store contract (${engine})`, () => {
    let opened: OpenedStore;
    let store: MetricsStore;
    // Whole seconds: an engine may keep a sample's time to the second (PostgreSQL does).
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const ago = (ms: number) => new Date(now.getTime() - ms);
    const window = (ms: number) => ({ from: ago(ms), to: new Date(now.getTime() + 1000), limit: 1000 });

    beforeAll(async () => {
      opened = await open();
      store = opened.store;
    });
    afterAll(async () => {
      await opened?.close();
    });

    it('writes a batch and reads each kind back in the original shapes', async () => {
      const at = ago(60_000);
      const result = await store.write({
        clusterName: 'c1',
        records: [pod('c1', at), node('c1', at), pvc('c1', at), log('c1', at, 'hello'), event('c1', at)],
      });
      expect(result).toEqual({ duplicate: false, records: 5 });
      const pods = await store.pods({ ...window(30 * 60_000), clusterName: 'c1' });
      expect(pods.resolution).toBe('raw');
      expect(pods.truncated).toBe(false);
      expect(pods.rows).toEqual([{ timestamp: at, clusterName: 'c1', ...POD }]);
      const nodes = await store.nodes({ ...window(30 * 60_000), clusterName: 'c1' });
      // A node without an environment is production; fields it did not send read as null.
      expect(nodes.rows).toEqual([
        {
          timestamp: at,
          clusterName: 'c1',
          clusterEnvironment: 'PROD',
          kubernetesVersion: null,
          architecture: null,
          operatingSystem: null,
          instanceType: null,
          ...NODE,
        },
      ]);
      const pvcs = await store.pvcs({ ...window(30 * 60_000), clusterName: 'c1' });
      expect(pvcs.rows).toEqual([{ timestamp: at, clusterName: 'c1', ...PVC }]);
      const logs = await store.logs({ from: ago(H), clusterName: 'c1', limit: 10 });
      expect(logs.rows).toEqual([
        {
          timestamp: at,
          clusterName: 'c1',
          namespace: 'web',
          pod: 'api-0',
          container: 'api',
          logContent: 'hello',
        },
      ]);
      const events = await store.events({ from: ago(H), clusterName: 'c1', limit: 10 });
      expect(events.rows).toHaveLength(1);
      expect(events.rows[0]).toMatchObject({ eventUid: 'u1', message: 'first', count: 1, timestamp: at });
    });

    it('stores a batch id once per cluster: the retry writes nothing', async () => {
      const batchId = randomUUID();
      const records = [pod('c2', ago(30_000))];
      expect(await store.write({ clusterName: 'c2', batchId, records })).toEqual({
        duplicate: false,
        records: 1,
      });
      expect(await store.write({ clusterName: 'c2', batchId, records })).toEqual({
        duplicate: true,
        records: 0,
      });
      // The same id from another cluster is another batch.
      const other = [pod('c3', ago(30_000))];
      expect(await store.write({ clusterName: 'c3', batchId, records: other })).toEqual({
        duplicate: false,
        records: 1,
      });
      expect((await store.pods({ ...window(H), clusterName: 'c2' })).rows).toHaveLength(1);
    });

    it('keeps the latest log per container and one row per event, updated', async () => {
      const older = ago(120_000);
      const newer = ago(10_000);
      await store.write({ clusterName: 'c4', records: [log('c4', newer, 'new'), event('c4', older)] });
      // A late post of an older snapshot does not replace the newer one.
      await store.write({ clusterName: 'c4', records: [log('c4', older, 'old')] });
      await store.write({ clusterName: 'c4', records: [event('c4', newer, { count: 5, message: 'again' })] });
      // Same uid-less object, two event names: two events (the original collapsed them).
      await store.write({
        clusterName: 'c4',
        records: [
          event('c4', newer, { eventUid: '', eventName: 'a' }),
          event('c4', newer, { eventUid: '', eventName: 'b' }),
        ],
      });
      const logs = await store.logs({ from: ago(H), clusterName: 'c4', limit: 10 });
      expect(logs.rows.map((l) => l.logContent)).toEqual(['new']);
      const events = await store.events({ from: ago(H), clusterName: 'c4', limit: 10 });
      expect(events.rows).toHaveLength(3);
      expect(events.rows.find((e) => e.eventUid === 'u1')).toMatchObject({ count: 5, message: 'again' });
      const capped = await store.events({ from: ago(H), clusterName: 'c4', limit: 2 });
      expect(capped.rows).toHaveLength(2);
      expect(capped.truncated).toBe(true);
    });

    it('answers long windows from rollups: 5-minute averages for hours, hourly for days', async () => {
      // Two samples in one 5-minute bucket and one hour, three hours ago.
      const hour = Math.floor((now.getTime() - 3 * H) / H) * H;
      const a = new Date(hour + 60_000);
      const b = new Date(hour + 120_000);
      await store.write({
        clusterName: 'roll',
        records: [
          pod('roll', a, { cpuUsageCores: 0.2, memoryUsageBytes: 100, restartCount: 1, podState: 'Pending' }),
          pod('roll', b, { cpuUsageCores: 0.4, memoryUsageBytes: 300, restartCount: 3, podState: 'Running' }),
          node('roll', a, { isReady: true, hasDiskPressure: false }),
          node('roll', b, { isReady: false, hasDiskPressure: true }),
        ],
      });
      // Four hours over 100 points is a step of 147 seconds, rounded up to 5 minutes: 5-minute
      // averages, unless raw is asked for (then the latest sample of the 5-minute step).
      expect((await store.pods({ ...window(4 * H), clusterName: 'roll' })).resolution).toBe('5m');
      const raw = await store.pods({ ...window(4 * H), clusterName: 'roll', resolution: 'raw' });
      expect(raw.resolution).toBe('raw');
      expect(raw.rows.map((r) => r.cpuUsageCores)).toEqual([0.4]);
      // Twelve hours over 100 points: 10-minute steps of the 5-minute averages; three days: hourly
      // ones. A series' newest row is at its latest sample rather than its step's start.
      const fiveMin = await store.pods({ ...window(12 * H), clusterName: 'roll' });
      expect(fiveMin.resolution).toBe('10m');
      expect(fiveMin.rows).toHaveLength(1);
      expect(fiveMin.rows[0]).toMatchObject({
        timestamp: b,
        cpuUsageCores: 0.3,
        memoryUsageBytes: 200,
        restartCount: 3,
        podState: 'Running',
      });
      const hourly = await store.pods({ ...window(3 * DAY), clusterName: 'roll' });
      expect(hourly.resolution).toBe('1h');
      expect(hourly.rows).toHaveLength(1);
      expect(hourly.rows[0]).toMatchObject({
        timestamp: b,
        cpuUsageCores: 0.3,
        memoryUsageBytes: 200,
      });
      // A bucket is ready only if every sample was, under pressure if any was.
      const nodes = await store.nodes({ ...window(12 * H), clusterName: 'roll' });
      expect(nodes.rows[0]).toMatchObject({
        timestamp: b,
        isReady: false,
        hasDiskPressure: true,
        cpuUsageCores: 1,
      });
      // A later batch into the same bucket merges into it.
      await store.write({
        clusterName: 'roll',
        records: [pod('roll', new Date(hour + 180_000), { cpuUsageCores: 0.9 })],
      });
      const merged = await store.pods({ ...window(12 * H), clusterName: 'roll' });
      expect(merged.rows[0]!.cpuUsageCores).toBe(0.5);
    });

    it('gives a series at most maxPoints points: wider steps average whole buckets, raw keeps the latest sample of a step, many series get fewer', async () => {
      const minute = 60_000;
      const end = Math.floor(now.getTime() / minute) * minute;
      // One container sampled every minute for two hours, its CPU the minute's number / 1000.
      const samples = Array.from({ length: 120 }, (_, i) => ({
        at: new Date(end - (119 - i) * minute),
        cpu: i / 1000,
      }));
      await store.write({
        clusterName: 'cap',
        records: samples.map((x) => pod('cap', x.at, { cpuUsageCores: x.cpu })),
      });
      // Two hours over 12 points: a step of at least 12 minutes, rounded up to 15, from 5-minute buckets.
      const step = 15 * minute;
      const wide = await store.pods({
        from: new Date(end - 2 * H),
        to: new Date(end + 1000),
        clusterName: 'cap',
        limit: 1000,
        maxPoints: 12,
      });
      expect(wide.resolution).toBe('15m');
      const steps = new Set(samples.map((x) => Math.floor(x.at.getTime() / step) * step));
      // Each row at its step's start, but the newest, at the latest sample.
      const starts = [...steps].sort((a, b) => b - a);
      expect(wide.rows.map((r) => r.timestamp.getTime())).toEqual([end, ...starts.slice(1)]);
      for (const row of wide.rows) {
        const t = Math.floor(row.timestamp.getTime() / step) * step;
        const inStep = samples.filter((x) => x.at.getTime() >= t && x.at.getTime() < t + step);
        expect(row.cpuUsageCores).toBeCloseTo(inStep.reduce((sum, x) => sum + x.cpu, 0) / inStep.length, 6);
      }

      // A container sampled every 10 seconds: two minutes over 6 points is a 30-second step of raw
      // samples, in which it keeps its latest sample (its own time and value).
      const fast = Array.from({ length: 12 }, (_, i) => ({
        at: new Date(end - 115_000 + i * 10_000),
        cpu: i / 100,
      }));
      await store.write({
        clusterName: 'fast',
        records: fast.map((x) => pod('fast', x.at, { cpuUsageCores: x.cpu })),
      });
      const thin = await store.pods({
        from: new Date(end - 2 * minute),
        to: new Date(end),
        clusterName: 'fast',
        limit: 1000,
        maxPoints: 6,
      });
      expect(thin.resolution).toBe('raw');
      // Samples at -115 s … -5 s fall in the 30-second steps ending -90, -60, -30 and 0 s: the
      // latest of each is the one at -95, -65, -35 and -5 s.
      expect(thin.rows.map((r) => [end - r.timestamp.getTime(), r.cpuUsageCores])).toEqual([
        [5_000, 0.11],
        [35_000, 0.08],
        [65_000, 0.05],
        [95_000, 0.02],
      ]);

      // Ten containers and a limit of 20 rows: each gets the fewest points (3), so an hour is one
      // hourly step and every container is answered, instead of the newest 20 rows of a few.
      await store.write({
        clusterName: 'many-series',
        records: Array.from({ length: 10 }, (_, i) =>
          pod('many-series', new Date(end - 10 * minute), { pod: `p${i}` }),
        ),
      });
      const many = await store.pods({
        from: new Date(end - H),
        to: new Date(end),
        clusterName: 'many-series',
        limit: 20,
      });
      expect(many.resolution).toBe('1h');
      expect(many.truncated).toBe(false);
      expect(many.rows.map((r) => r.pod).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `p${i}`));
    });

    it('scopes reads to the visible clusters and filters by namespace', async () => {
      const at = ago(20_000);
      await store.write({
        clusterName: 'seen',
        records: [pod('seen', at, { namespace: 'a' }), pod('seen', at, { namespace: 'b' })],
      });
      await store.write({ clusterName: 'hidden', records: [pod('hidden', at, { namespace: 'z' })] });
      const scoped = await store.pods({ ...window(H), clusters: ['seen'] });
      expect(new Set(scoped.rows.map((r) => r.clusterName))).toEqual(new Set(['seen']));
      expect((await store.pods({ ...window(H), clusters: [] })).rows).toEqual([]);
      expect(
        (await store.pods({ ...window(H), clusterName: 'seen', namespace: 'b' })).rows.map(
          (r) => r.namespace,
        ),
      ).toEqual(['b']);
      expect(await store.clusters(ago(DAY), ['seen', 'nothing'])).toEqual(['seen']);
      const all = await store.clusters(ago(DAY));
      expect(all).toEqual(expect.arrayContaining(['seen', 'hidden', 'c1']));
      expect(all).toEqual([...all].sort());
      expect(await store.namespaces(ago(DAY), ['seen'])).toEqual(['a', 'b']);
      expect(await store.namespaces(ago(DAY), undefined, 'hidden')).toEqual(['z']);
      expect(await store.namespaces(ago(DAY), [])).toEqual([]);
    });

    it('cuts a long answer at its limit, newest first, and says so', async () => {
      const records = Array.from({ length: 5 }, (_, i) => pod('many', ago((i + 1) * 1000), { pod: `p${i}` }));
      await store.write({ clusterName: 'many', records });
      const cut = await store.pods({ ...window(H), clusterName: 'many', limit: 3 });
      expect(cut.truncated).toBe(true);
      expect(cut.rows.map((r) => r.pod)).toEqual(['p0', 'p1', 'p2']);
      const whole = await store.pods({ ...window(H), clusterName: 'many', limit: 5 });
      expect(whole.truncated).toBe(false);
    });

    it('drops partitions past each retention and makes them ahead, never losing newer data', async () => {
      const old = new Date(now.getTime() - 20 * DAY);
      await store.write({ clusterName: 'ret', records: [pod('ret', old), pod('ret', ago(60_000))] });
      const result = await store.housekeeping(now);
      // 20 days is past the 14 days of raw samples but within the 5-minute and hourly retention.
      expect(result.dropped.some((p) => p.startsWith('pod_raw'))).toBe(true);
      expect(result.dropped.some((p) => p.startsWith('pod_5m'))).toBe(false);
      const tomorrow = new Date(now.getTime() + DAY);
      const stamp = `${tomorrow.getUTCFullYear()}${String(tomorrow.getUTCMonth() + 1).padStart(2, '0')}${String(tomorrow.getUTCDate()).padStart(2, '0')}`;
      // PostgreSQL makes tomorrow's partitions ahead; ClickHouse makes a partition when its first row arrives.
      if (store.engine === 'postgres') expect(result.created).toContain(`pod_raw_p${stamp}`);
      else expect(result.created).toEqual([]);
      const raw = await store.pods({
        from: new Date(old.getTime() - H),
        to: new Date(old.getTime() + H),
        clusterName: 'ret',
        limit: 10,
        resolution: 'raw',
      });
      expect(raw.rows).toEqual([]);
      const averaged = await store.pods({
        from: new Date(old.getTime() - H),
        to: new Date(old.getTime() + H),
        clusterName: 'ret',
        limit: 10,
        resolution: '5m',
      });
      expect(averaged.rows).toHaveLength(1);
      expect((await store.pods({ ...window(H), clusterName: 'ret' })).rows).toHaveLength(1);
      // A second run has nothing left to do.
      expect(await store.housekeeping(now)).toEqual({ created: [], dropped: [] });
    });

    it('cleans up data older than n days, or everything with 0, and reports table sizes', async () => {
      const sizes = await store.tableSizes();
      expect(sizes.length).toBeGreaterThan(0);
      for (const s of sizes) expect(s.totalSize).toMatch(/^\d+\.\d{2} (B|KiB|MiB|GiB|TiB)$/);
      await store.write({
        clusterName: 'cl',
        records: [pod('cl', ago(3 * DAY), { pod: 'old' }), pod('cl', ago(60_000), { pod: 'new' })],
      });
      await store.cleanup(2, now);
      const left = await store.pods({ ...window(4 * H * 24), clusterName: 'cl', resolution: 'raw' });
      expect(left.rows.map((r) => r.pod)).toEqual(['new']);
      await store.cleanup(0, now);
      expect((await store.pods({ ...window(H) })).rows).toEqual([]);
      expect((await store.events({ from: ago(DAY), limit: 10 })).rows).toEqual([]);
      // Writing after a cleanup works as before.
      await store.write({ clusterName: 'cl', records: [pod('cl', ago(1000))] });
      expect((await store.pods({ ...window(H), clusterName: 'cl' })).rows).toHaveLength(1);
    });
  });
}
