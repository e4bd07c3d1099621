import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/index.js';
import { type MetricRecord, RECORD_SCHEMAS } from '../../shared/metrics/records.js';
import { PostgresMetricsStore } from '../../shared/metrics/store/postgres/store.js';
import { openMigratedDatabase, TEST_DATABASES } from '../support/databases.js';
import { storeContractSuite } from './store-suite.js';

const settings = loadConfig({ WEBAPP_ENVIRONMENT: 'Development', DATA_DIR: 'memory://' }).metrics;

for (const [label, kind] of TEST_DATABASES) {
  storeContractSuite(`PostgreSQL store on ${label}`, async () => {
    const db = await openMigratedDatabase(kind);
    // On a PostgreSQL server the store uses the database's pg pool, as the app does.
    const store = new PostgresMetricsStore(db.prisma, settings, { pool: db.pool });
    return {
      store,
      async close() {
        await store.close();
        await db.close();
      },
    };
  });

  // A container's node and limits are kept with its label set, not in each sample: every sample
  // reads the latest, and the store's cache of label sets must notice each change.
  describe(`PostgreSQL store on ${label}: a container's attributes`, () => {
    let db: Awaited<ReturnType<typeof openMigratedDatabase>>;
    let store: PostgresMetricsStore;
    beforeAll(async () => {
      db = await openMigratedDatabase(kind);
      store = new PostgresMetricsStore(db.prisma, settings, { pool: db.pool });
    });
    afterAll(async () => {
      await store?.close();
      await db?.close();
    });

    const now = Date.now();
    const pod = (minutesAgo: number, over: Record<string, unknown> = {}): MetricRecord => ({
      kind: 'pod',
      collectedAt: new Date(now - minutesAgo * 60_000),
      data: RECORD_SCHEMAS.pod.parse({
        clusterName: 'c1',
        namespace: 'web',
        pod: 'api-0',
        container: 'api',
        nodeName: 'node-a',
        cpuLimitCores: 0.5,
        ...over,
      }),
    });
    // A 20-minute window is read from the raw samples (one row per sample), whatever the rollups.
    const read = async () =>
      (
        await store.pods({
          from: new Date(now - 1_200_000),
          to: new Date(now + 1000),
          limit: 1000,
          clusterName: 'c1',
        })
      ).rows.map((r) => [r.nodeName, r.cpuLimitCores]);

    it('keeps a sample to its whole second, read alike from the raw samples and the rollups', async () => {
      // A 20-minute window reads raw samples, a 2-day one the newest row's latest sample time.
      const at = Math.floor(now / 1000) * 1000 - 30_000;
      const ms = { ...pod(0, { clusterName: 'ms' }), collectedAt: new Date(at + 750) } as MetricRecord;
      await store.write({ clusterName: 'ms', records: [ms] });
      for (const minutes of [20, 2880]) {
        const rows = await store.pods({
          from: new Date(now - minutes * 60_000),
          to: new Date(now + 1000),
          limit: 1000,
          clusterName: 'ms',
        });
        expect(rows.resolution === 'raw').toBe(minutes === 20);
        expect(rows.rows.map((r) => r.timestamp.getTime())).toEqual([at]);
      }
    });

    it('reads the latest node and limit after they changed, and the first again once changed back', async () => {
      await store.write({ clusterName: 'c1', records: [pod(3)] });
      await store.write({ clusterName: 'c1', records: [pod(2, { nodeName: 'node-b', cpuLimitCores: 1 })] });
      expect(await read()).toEqual([
        ['node-b', 1],
        ['node-b', 1],
      ]);
      await store.write({ clusterName: 'c1', records: [pod(1)] });
      expect(await read()).toEqual([
        ['node-a', 0.5],
        ['node-a', 0.5],
        ['node-a', 0.5],
      ]);
    });

    it('stores changed labels at once, and takes reordered labels for the same set', async () => {
      // The label set's row: a write the cache answers leaves it (lastSeenAt included) as it was.
      const stored = async () => {
        const rows = await db.prisma.$queryRawUnsafe<Array<{ labels: unknown; lastSeenAt: Date }>>(
          `SELECT labels, "lastSeenAt" FROM "MetricsPodSeries" WHERE pod = 'labelled-0'`,
        );
        return rows.map((r) => [r.labels, r.lastSeenAt.getTime()]);
      };
      const at = (minutesAgo: number) => now - minutesAgo * 60_000;
      const write = (minutesAgo: number, labels: Record<string, string> | null) =>
        store.write({ clusterName: 'c1', records: [pod(minutesAgo, { pod: 'labelled-0', labels })] });

      await write(10, { app: 'api', team: 'a' });
      expect(await stored()).toEqual([[{ app: 'api', team: 'a' }, at(10)]]);
      // jsonb keeps no key order: the same pairs reordered are the same stored value, no update.
      await write(9, { team: 'a', app: 'api' });
      expect(await stored()).toEqual([[{ app: 'api', team: 'a' }, at(10)]]);
      const changes: Array<Record<string, string> | null> = [
        { app: 'api', team: 'b' }, // a value changed
        { app: 'api', team: 'b', tier: 'web' }, // a key added
        { app: 'api', team: 'b' }, // a key removed
        { app: 'api', tier: 'b' }, // as many keys, one of them another
        {},
        null,
        { app: 'api' },
      ];
      for (const [n, labels] of changes.entries()) {
        await write(8 - n, labels);
        expect(await stored()).toEqual([[labels, at(8 - n)]]);
      }
    });

    it("keeps a new container's newest attributes when one batch carries several of its samples", async () => {
      const other = (minutesAgo: number, nodeName: string) =>
        pod(minutesAgo, { pod: 'worker-0', nodeName, cpuLimitCores: minutesAgo });
      await store.write({
        clusterName: 'c1',
        batchId: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
        records: [other(4, 'node-a'), other(1, 'node-c'), other(2, 'node-b')],
      });
      const rows = (
        await store.pods({
          from: new Date(now - 1_200_000),
          to: new Date(now + 1000),
          limit: 1000,
          clusterName: 'c1',
        })
      ).rows.filter((r) => r.pod === 'worker-0');
      expect(rows.map((r) => [r.nodeName, r.cpuLimitCores])).toEqual([
        ['node-c', 1],
        ['node-c', 1],
        ['node-c', 1],
      ]);
    });
  });
}
