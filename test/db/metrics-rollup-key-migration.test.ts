import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../shared/db/client.js';
import { migratedPgliteTemplate } from '../support/pglite-template.js';

const MIGRATION = '20261128014800_metrics_pod_rollups_covering_key';

/**
 * The pod rollups' key carries the columns a read returns, so a namespace's buckets are read from
 * the key alone. A database written before it keeps every stored bucket, and the writers' upsert on
 * (series_id, bucket) still merges into them.
 */
describe('the migration that makes the pod rollups key carry the read columns', () => {
  it('keeps the stored buckets, and a later sample still merges into its bucket', async () => {
    const db = await openDatabase({ dataDir: 'memory://', initialDataDir: await migratedPgliteTemplate() });
    try {
      const p = db.prisma;
      const rows = async (table: string) =>
        p.$queryRawUnsafe<Array<Record<string, unknown>>>(
          `SELECT series_id, bucket, n, mem_sum, mem_n, cpu_sum, cpu_n, restarts, pod_age, state
             FROM metrics.${table} ORDER BY series_id, bucket`,
        );
      // The tables as they were before: the key on (series_id, bucket) alone, buckets stored.
      await p.$executeRawUnsafe(`DELETE FROM "_prisma_migrations" WHERE migration_name = '${MIGRATION}'`);
      for (const [table, from, to] of [
        ['pod_5m', '2026-11-01', '2026-11-02'],
        ['pod_1h', '2026-11-01', '2026-12-01'],
      ] as const) {
        await p.$executeRawUnsafe(`ALTER TABLE metrics.${table} DROP CONSTRAINT ${table}_pkey`);
        await p.$executeRawUnsafe(`ALTER TABLE metrics.${table} ADD PRIMARY KEY (series_id, bucket)`);
        await p.$executeRawUnsafe(
          `CREATE TABLE metrics.${table}_p_test PARTITION OF metrics.${table} FOR VALUES FROM ('${from}') TO ('${to}')`,
        );
        await p.$executeRawUnsafe(
          `INSERT INTO metrics.${table} (bucket, series_id, n, last_ts, mem_sum, mem_n, cpu_sum, cpu_n, restarts, pod_age, state)
           SELECT timestamptz '2026-11-01' + b * interval '5 minutes', s, 2, timestamptz '2026-11-01' + b * interval '5 minutes',
                  s * 1e6 + b, 2, 0.25 * b, 2, b, 60 * b, 1
             FROM generate_series(1, 3) s, generate_series(0, 11) b`,
        );
      }
      const before = { pod_5m: await rows('pod_5m'), pod_1h: await rows('pod_1h') };
      expect(before.pod_5m).toHaveLength(36);

      expect((await db.migrate()).applied).toEqual([MIGRATION]);

      expect(await rows('pod_5m')).toEqual(before.pod_5m);
      expect(await rows('pod_1h')).toEqual(before.pod_1h);
      for (const table of ['pod_5m', 'pod_1h']) {
        const [key] = await p.$queryRawUnsafe<Array<{ def: string }>>(
          `SELECT pg_get_indexdef(i.indexrelid) AS def FROM pg_index i
             JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = '${table}_p_test_pkey'`,
        );
        expect(key?.def).toMatch(/\(series_id, bucket\) INCLUDE \(last_ts, mem_sum, mem_n, cpu_sum, cpu_n/);
      }
      // A writer's upsert finds the stored bucket by the same key and merges into it.
      await p.$executeRawUnsafe(
        `INSERT INTO metrics.pod_5m (bucket, series_id, n, last_ts, mem_sum, mem_n, cpu_sum, cpu_n, restarts, pod_age, state)
         VALUES (timestamptz '2026-11-01', 1, 1, timestamptz '2026-11-01 00:01', 5, 1, 1, 1, 7, 0, 2)
         ON CONFLICT (series_id, bucket) DO UPDATE SET n = pod_5m.n + excluded.n, mem_sum = pod_5m.mem_sum + excluded.mem_sum,
           mem_n = pod_5m.mem_n + excluded.mem_n, restarts = greatest(pod_5m.restarts, excluded.restarts)`,
      );
      const [merged] = await p.$queryRawUnsafe<Array<{ n: number; mem_sum: number; restarts: number }>>(
        `SELECT n, mem_sum, restarts FROM metrics.pod_5m WHERE series_id = 1 AND bucket = '2026-11-01'`,
      );
      expect(merged).toEqual({ n: 3, mem_sum: 1_000_005, restarts: 7 });
      expect(await rows('pod_5m')).toHaveLength(36);
    } finally {
      await db.close();
    }
  }, 60_000);
});
