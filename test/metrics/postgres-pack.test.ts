import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/index.js';
import { type MetricRecord, podRecordSchema } from '../../shared/metrics/records.js';
import { PostgresMetricsStore } from '../../shared/metrics/store/postgres/store.js';
import { openMigratedDatabase, TEST_DATABASES } from '../support/databases.js';

const settings = loadConfig({ WEBAPP_ENVIRONMENT: 'Development', DATA_DIR: 'memory://' }).metrics;
const H = 3_600_000;
const DAY = 24 * H;
const SERIES = 300;
const MINUTES = 30;

/** A day of the past, and the housekeeping run two hours after it closed. */
const day = Date.UTC(2026, 10, 20);
const afterClose = new Date(day + DAY + 2 * H);
const stamp = '20261120';

function sample(c: number, at: number): MetricRecord {
  return {
    kind: 'pod',
    collectedAt: new Date(at),
    data: podRecordSchema.parse({
      clusterName: 'pack',
      namespace: `ns-${c % 5}`,
      pod: `app-${c}`,
      container: 'app',
      cpuUsageCores: 0.1 + (c % 7) / 100,
      memoryUsageBytes: 1e8 + c,
      podState: 'Running',
      restartCount: c % 3,
      podAge: 3600,
    }),
  };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe.each(TEST_DATABASES)('metrics housekeeping on %s', (_label, kind) => {
  it("rebuilds a closed day's indexes once, smaller, keeping every row; the open day and month are left", async () => {
    const db = await openMigratedDatabase(kind);
    const store = new PostgresMetricsStore(db.prisma, settings, { pool: db.pool });
    close = async () => {
      await store.close();
      await db.close();
    };
    // Cycles in time order across every container, as agents send them: the index of
    // (series_id, ts) takes each cycle's rows all over and splits its pages half-full.
    for (let m = 0; m < MINUTES; m += 10) {
      const records: MetricRecord[] = [];
      for (let k = m; k < m + 10; k++)
        for (let c = 0; c < SERIES; c++) records.push(sample(c, day + 8 * H + k * 60_000));
      await store.write({ clusterName: 'pack', records });
    }
    // And one sample in the next day, still open at the housekeeping run.
    await store.write({ clusterName: 'pack', records: [sample(0, day + DAY + H)] });
    const indexBytes = async (partition: string) => {
      const [row] = await db.prisma.$queryRawUnsafe<Array<{ bytes: number }>>(
        `SELECT sum(pg_relation_size(i.indexrelid))::float8 AS bytes FROM pg_index i
          WHERE i.indrelid = 'metrics.${partition}'::regclass`,
      );
      return Number(row!.bytes);
    };
    const stored = async () => {
      const [row] = await db.prisma.$queryRawUnsafe<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM metrics.pod_raw_p${stamp}`,
      );
      return row!.n;
    };
    const read = () =>
      store.pods({
        from: new Date(day),
        to: new Date(day + DAY),
        clusterName: 'pack',
        resolution: 'raw',
        limit: 100_000,
      });
    const before = { raw: await indexBytes(`pod_raw_p${stamp}`), rows: await read() };
    expect(await stored()).toBe(SERIES * MINUTES);

    const first = await store.housekeeping(afterClose);
    expect(first.packed).toEqual(expect.arrayContaining([`pod_raw_p${stamp}`, `pod_5m_p${stamp}`]));
    // The next day is open, and so is the month of the hourly rollups.
    expect(first.packed).not.toContain('pod_raw_p20261121');
    expect(first.packed?.some((p) => p.startsWith('pod_1h'))).toBe(false);
    const after = await indexBytes(`pod_raw_p${stamp}`);
    expect(after).toBeLessThan(before.raw);
    expect(await stored()).toBe(SERIES * MINUTES);
    expect(await read()).toEqual(before.rows);

    // Done once: a later run (an hour on) has nothing to rebuild.
    expect((await store.housekeeping(new Date(afterClose.getTime() + H))).packed).toBeUndefined();
  });
});
