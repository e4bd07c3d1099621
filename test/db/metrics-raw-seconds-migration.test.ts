import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/index.js';
import { openDatabase } from '../../shared/db/client.js';
import { MIGRATION_SOURCES } from '../../shared/db/paths.js';
import { type MetricRecord, RECORD_SCHEMAS, type RecordKind } from '../../shared/metrics/records.js';
import { listPartitionsSql, partitionsIn } from '../../shared/metrics/store/postgres/partitions.js';
import { PostgresMetricsStore } from '../../shared/metrics/store/postgres/store.js';
import { RAW_EPOCH_S, SAMPLE_KINDS, tableName } from '../../shared/metrics/store/postgres/tables.js';
import { createPostgresDatabase, TEST_DATABASES } from '../support/databases.js';
import { migratedPgliteTemplate } from '../support/pglite-template.js';

const MIGRATION = '20261128100000_metrics_raw_seconds';
const FIRST = '20261127192109_metrics_store';
const settings = loadConfig({ WEBAPP_ENVIRONMENT: 'Development', DATA_DIR: 'memory://' }).metrics;
const H = 3_600_000;
const M = 60_000;
/** Midday of a day; its day before is closed (and packed) by then. */
const today = Date.UTC(2026, 10, 20);
const now = new Date(today + 12 * H);

const record = (kind: RecordKind, cluster: string, at: number, data: Record<string, unknown>) =>
  ({
    kind,
    collectedAt: new Date(at),
    data: RECORD_SCHEMAS[kind].parse({ clusterName: cluster, ...data }),
  }) as MetricRecord;

/** Samples of every kind over yesterday and this morning, every 10 minutes, values varying. */
function samples(): MetricRecord[] {
  const out: MetricRecord[] = [];
  for (let t = today - 14 * H; t < now.getTime(); t += 10 * M) {
    const k = (t - today) / M;
    for (let c = 0; c < 3; c++) {
      out.push(
        record('pod', 'conv', t, {
          namespace: 'web',
          pod: `api-${c}`,
          container: 'api',
          nodeName: `node-${c % 2}`,
          cpuUsageCores: 0.125 * (c + 1),
          memoryUsageBytes: 1e8 + k,
          podState: c === 2 ? 'Pending' : 'Running',
          restartCount: c,
          podAge: c === 1 ? null : 3600 + k,
        }),
      );
    }
    for (let n = 0; n < 2; n++) {
      out.push(
        record('node', 'conv', t, {
          nodeName: `node-${n}`,
          cpuUsageCores: 1.5,
          cpuCapacityCores: 4,
          memoryUsageBytes: 2e9 + k,
          memoryCapacityBytes: 8e9,
          isReady: n === 0,
          hasMemoryPressure: n === 1 ? null : false,
          hasDiskPressure: false,
          hasPidPressure: false,
        }),
      );
    }
    out.push(
      record('pvc', 'conv', t, {
        namespace: 'web',
        pod: 'db-0',
        pvcNamespace: 'web',
        pvcName: 'data',
        usedBytes: 5_000_000_000 + k,
        availableBytes: 1000,
        capacityBytes: 5_000_001_000 + k,
      }),
    );
  }
  return out;
}

/**
 * The raw tables as the store wrote them before the migration: the first metrics migration's DDL
 * (a timestamptz `ts`), the same partitions by name and day, the same rows. Made from a store
 * written by today's code, with the rows' times turned back into timestamptz.
 */
async function backToTimestamps(
  exec: (sql: string) => Promise<unknown>,
  query: <T>(sql: string) => Promise<T[]>,
) {
  const first = await readFile(`${MIGRATION_SOURCES.migrationsDir}/${FIRST}/migration.sql`, 'utf8');
  const listed = await query<{ parent: string; name: string }>(listPartitionsSql());
  for (const kind of SAMPLE_KINDS) {
    const raw = tableName(kind, 'raw');
    const ddl = [
      new RegExp(`CREATE TABLE metrics\\.${raw} \\([^;]*\\) PARTITION BY RANGE \\(ts\\);`).exec(first)?.[0],
      new RegExp(`CREATE INDEX ${raw}_series_ts ON [^;]*;`).exec(first)?.[0],
    ];
    expect(ddl[0]).toContain('ts timestamptz NOT NULL');
    const partitions = partitionsIn(listed, kind, 'raw');
    expect(partitions.length).toBeGreaterThan(0);
    await exec(`ALTER TABLE metrics.${raw} RENAME TO ${raw}_new`);
    await exec(`ALTER INDEX metrics.${raw}_series_ts RENAME TO ${raw}_new_series_ts`);
    for (const p of partitions) await exec(`ALTER TABLE metrics.${p.name} RENAME TO ${p.name}_new`);
    for (const statement of ddl) await exec(statement!);
    for (const p of partitions) {
      await exec(
        `CREATE TABLE metrics.${p.name} PARTITION OF metrics.${raw} FOR VALUES FROM ('${p.from.toISOString()}') TO ('${p.to.toISOString()}')`,
      );
    }
    const columns = kind.columns.map((c) => c.name).join(', ');
    await exec(
      `INSERT INTO metrics.${raw} (ts, series_id, ${columns})
       SELECT to_timestamp(ts + ${RAW_EPOCH_S}), series_id, ${columns} FROM metrics.${raw}_new`,
    );
    await exec(`DROP TABLE metrics.${raw}_new`);
  }
}

/**
 * The raw tables' time became integer seconds since 2000. A database whose raw tables still hold
 * timestamptz rows (written before) is converted when the app starts: every row kept, the same
 * partitions, and every read answers as it did.
 */
describe.each(TEST_DATABASES)('the migration of the raw samples to seconds on %s', (_label, kind) => {
  it('keeps every sample of an older store: the reads answer the same, and writing goes on', async () => {
    const server = kind === 'postgres' ? await createPostgresDatabase() : undefined;
    const db = await openDatabase({
      connectionString: server?.url,
      dataDir: 'memory://',
      initialDataDir: kind === 'pglite' ? await migratedPgliteTemplate() : undefined,
    });
    const open = () => new PostgresMetricsStore(db.prisma, settings, { pool: db.pool, now: () => now });
    const p = db.prisma;
    try {
      await db.migrate();
      let store = open();
      const written = samples();
      for (let i = 0; i < written.length; i += 500)
        await store.write({ clusterName: 'conv', records: written.slice(i, i + 500) });
      // One more series whose older sample below has a time with milliseconds.
      const atMs = today + 11 * H + 30_750;
      const pod = { namespace: 'ms', pod: 'p', container: 'c', cpuUsageCores: 0.5, memoryUsageBytes: 7 };
      await store.write({ clusterName: 'ms', records: [record('pod', 'ms', today + 11 * H, pod)] });
      // Yesterday's partitions close and are packed.
      expect((await store.housekeeping(now)).packed).toContain('pod_raw_p20261119');
      const window = {
        from: new Date(today - 14 * H),
        to: now,
        clusterName: 'conv',
        resolution: 'raw' as const,
        maxPoints: 10_000,
        limit: 100_000,
      };
      const reads = async () => ({
        pods: await store.pods(window),
        nodes: await store.nodes(window),
        pvcs: await store.pvcs(window),
        hourly: await store.pods({ ...window, resolution: '1h' }),
      });
      const before = await reads();
      expect(before.pods.rows).toHaveLength((written.length / 6) * 3);
      expect(before.nodes.rows).toHaveLength((written.length / 6) * 2);
      expect(before.pvcs.rows).toHaveLength(written.length / 6);
      await store.close();

      await p.$executeRawUnsafe(`DELETE FROM "_prisma_migrations" WHERE migration_name = '${MIGRATION}'`);
      await backToTimestamps(
        (sql) => p.$executeRawUnsafe(sql),
        (sql) => p.$queryRawUnsafe(sql),
      );
      await p.$executeRawUnsafe(
        `INSERT INTO metrics.pod_raw (ts, series_id, mem, cpu, restarts)
         SELECT $1::timestamptz, r.series_id, r.mem, r.cpu, r.restarts
           FROM metrics.pod_raw r JOIN "MetricsPodSeries" s ON s.id = r.series_id AND s."clusterName" = 'ms'`,
        new Date(atMs).toISOString(),
      );
      const [stored] = await p.$queryRawUnsafe<Array<{ type: string }>>(
        `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
          WHERE attrelid = 'metrics.pod_raw_p20261120'::regclass AND attname = 'ts'`,
      );
      expect(stored?.type).toBe('timestamp with time zone');

      // The app starts again.
      expect((await db.migrate()).applied).toEqual([MIGRATION]);
      const [converted] = await p.$queryRawUnsafe<Array<{ type: string }>>(
        `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
          WHERE attrelid = 'metrics.pod_raw_p20261120'::regclass AND attname = 'ts'`,
      );
      expect(converted?.type).toBe('integer');
      store = open();
      expect(await reads()).toEqual(before);
      // The sample with milliseconds is kept at its whole second.
      const ms = await store.pods({ ...window, clusterName: 'ms' });
      expect(ms.rows.map((r) => r.timestamp.getTime())).toEqual([today + 11 * H + 30_000, today + 11 * H]);
      // The same partitions, now of seconds; housekeeping makes none of them again, packs
      // yesterday's raw ones anew (the migration built their indexes) and nothing else.
      const house = await store.housekeeping(now);
      expect(house.created).toEqual([]);
      expect(house.packed?.sort()).toEqual(['node_raw_p20261119', 'pod_raw_p20261119', 'pvc_raw_p20261119']);
      // A new sample lands in today's converted partition and is read with the others.
      const next = now.getTime() - 2 * M;
      await store.write({
        clusterName: 'ms',
        records: [record('pod', 'ms', next, { ...pod, cpuUsageCores: 0.75 })],
      });
      const after = await store.pods({ ...window, clusterName: 'ms' });
      expect(after.rows.map((r) => [r.timestamp.getTime(), r.cpuUsageCores])).toEqual([
        [next, 0.75],
        [today + 11 * H + 30_000, 0.5],
        [today + 11 * H, 0.5],
      ]);
      await store.close();
    } finally {
      await db.close();
      await server?.drop();
    }
  }, 120_000);
});
