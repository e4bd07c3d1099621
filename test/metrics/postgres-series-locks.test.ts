import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/index.js';
import { type MetricRecord, RECORD_SCHEMAS } from '../../shared/metrics/records.js';
import { PostgresMetricsStore } from '../../shared/metrics/store/postgres/store.js';
import { openMigratedDatabase, TEST_PG_URL } from '../support/databases.js';

const settings = loadConfig({ WEBAPP_ENVIRONMENT: 'Development', DATA_DIR: 'memory://' }).metrics;
const H = 3_600_000;
const today = Date.UTC(2026, 10, 20);
const now = new Date(today + 12 * H);

const pod = (at: number, container: string): MetricRecord => ({
  kind: 'pod',
  collectedAt: new Date(at),
  data: RECORD_SCHEMAS.pod.parse({
    clusterName: 'locks',
    namespace: 'web',
    pod: 'api-0',
    container,
    cpuUsageCores: 0.25,
    memoryUsageBytes: 1e8,
  }),
});

/** Resolves once a session of this database waits on a lock, fails after 20 s. */
async function waitForLockWait(client: pg.Client): Promise<void> {
  for (const start = Date.now(); Date.now() - start < 20_000; ) {
    const { rows } = await client.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (rows[0].n > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no session of the test database waited on a lock');
}

/**
 * Batches in flight (the agent sends 4 at once, each host writes its own) upsert the same label
 * sets. A batch whose samples wait (here on an hourly rollup row another session holds) must not
 * hold up the other batches: their label sets are written, and they commit, meanwhile.
 */
describe.runIf(TEST_PG_URL)('batches in flight on a PostgreSQL server', () => {
  it('write their label sets without waiting for each other to commit', async () => {
    const db = await openMigratedDatabase('postgres');
    const open = () => new PostgresMetricsStore(db.prisma, settings, { pool: db.pool, now: () => now });
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      const at = today + 8 * H;
      await open().write({ clusterName: 'locks', records: [pod(at, 'app'), pod(at, 'sidecar')] });
      // Another session holds the 08:00 hourly rows: a batch into that hour waits in its samples.
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM metrics.pod_1h WHERE bucket = $1 FOR UPDATE`, [new Date(at)]);
      const first = open().write({
        clusterName: 'locks',
        batchId: '00000000-0000-4000-8000-000000000001',
        records: [pod(at + 60_000, 'app'), pod(at + 60_000, 'sidecar')],
      });
      // Until it waits on that row's lock (holding whatever its transaction took before it).
      await waitForLockWait(holder);
      const second = open().write({
        clusterName: 'locks',
        batchId: '00000000-0000-4000-8000-000000000002',
        records: [pod(at + 2 * H, 'app'), pod(at + 2 * H, 'sidecar')],
      });
      const settled = await Promise.race([
        second.then(() => 'written'),
        new Promise((r) => setTimeout(() => r('waiting'), 5000)),
      ]);
      expect(settled).toBe('written');
      await holder.query('ROLLBACK');
      await expect(first).resolves.toEqual({ duplicate: false, records: 2 });
      // Every sample stored, each under the one label set its container has.
      const { rows } = await holder.query(
        `SELECT s.container, count(*)::int AS n, count(DISTINCT s.id)::int AS ids
           FROM metrics.pod_raw r JOIN "MetricsPodSeries" s ON s.id = r.series_id GROUP BY 1 ORDER BY 1`,
      );
      expect(rows).toEqual([
        { container: 'app', n: 3, ids: 1 },
        { container: 'sidecar', n: 3, ids: 1 },
      ]);
    } finally {
      await holder.end();
      await db.close();
    }
  }, 60_000);
});
