import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawEpochMs } from '../../shared/metrics/store/postgres/tables.js';
import { startChildHost } from '../finops-engine/support.js';
import { TEST_PG_URL } from '../support/databases.js';
import { startTestHost, type TestHost, testSettings } from '../support/host.js';

// A real crash during batched ingest: the host process is SIGKILLed while batches are being
// posted to it, its PostgreSQL sessions die with it, and a host started again on the same
// database must hold every acknowledged batch whole, no batch in part, and store a retried
// unacknowledged batch once.
const CONTAINERS = 300;
// A whole second: the raw table keeps whole seconds, and each batch is known by its time.
const t0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
/** Batch n's samples all carry its own collection time, so rows can be counted per batch. */
const collectedAt = (n: number) => new Date(t0 + n * 1000).toISOString();

function batchBody(n: number, batchId: string): Buffer {
  const records = Array.from({ length: CONTAINERS }, (_, c) => ({
    kind: 'pod',
    collectedAt: collectedAt(n),
    data: {
      namespace: `ns-${c % 7}`,
      pod: `app-${c}`,
      container: 'app',
      cpuUsageCores: 0.25,
      memoryUsageBytes: 1_000_000 + c,
      podState: 'Running',
      restartCount: 0,
    },
  }));
  return gzipSync(JSON.stringify({ batchId, clusterName: 'crash', records }));
}

describe.runIf(TEST_PG_URL)('a host killed with SIGKILL during batched ingest (PostgreSQL)', () => {
  let host: TestHost;
  let key: string;

  beforeAll(async () => {
    host = await startTestHost({ database: 'postgres' });
    key = (
      await host.services.metrics.keys.create(
        'crash',
        { userId: 'test', email: 'test@example.test' },
        { headers: new Headers() },
      )
    ).key;
  });
  afterAll(async () => {
    await host?.close();
  });

  const post = (url: string, n: number, batchId: string) =>
    fetch(`${url}/metrics/api/ingest/batch`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body: batchBody(n, batchId),
    });

  it('keeps every acknowledged batch whole, none in part, and stores a retried one once', {
    timeout: 120_000,
  }, async () => {
    const settings = testSettings({
      ConnectionStrings__SqlConnectionString: host.settings.ConnectionStrings__SqlConnectionString!,
    }) as Record<string, string>;
    let child: ChildProcess | undefined;
    const acknowledged = new Map<number, string>();
    const sent = new Map<number, string>();
    try {
      const started = await startChildHost(settings);
      child = started.child;
      const url = started.url;
      // Four agents posting continuously, each the next batch as soon as the last is answered.
      let next = 0;
      let killed = false;
      const exited = new Promise((r) => child!.once('exit', r));
      const agent = async () => {
        while (!killed) {
          const n = next++;
          const batchId = randomUUID();
          sent.set(n, batchId);
          try {
            const res = await post(url, n, batchId);
            if (res.status === 200) acknowledged.set(n, batchId);
            else await res.text();
          } catch {
            return; // the connection died with the host
          }
          // Killed once a few batches are stored, with the next ones in flight.
          if (acknowledged.size >= 6 && !killed) {
            killed = true;
            child!.kill('SIGKILL');
          }
        }
      };
      await Promise.all([agent(), agent(), agent(), agent()]);
      await exited;
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    expect(acknowledged.size).toBeGreaterThanOrEqual(6);
    const unacknowledged = [...sent].filter(([n]) => !acknowledged.has(n));
    expect(unacknowledged.length).toBeGreaterThan(0);

    // A host started again on the same database.
    const again = await startChildHost(settings);
    try {
      const prisma = host.services.prisma;
      const rowsPerBatch = async () => {
        const rows = await prisma.$queryRawUnsafe<Array<{ t: number; n: number }>>(
          `SELECT ${rawEpochMs('ts')} AS t, count(*)::int AS n FROM metrics.pod_raw GROUP BY ts`,
        );
        return new Map(rows.map((r) => [new Date(Number(r.t)).toISOString(), r.n]));
      };
      const storedIds = async () =>
        new Set(
          (
            await prisma.metricsIngestBatch.findMany({
              where: { clusterName: 'crash' },
              select: { batchId: true },
            })
          ).map((b) => b.batchId),
        );
      const before = await rowsPerBatch();
      const ids = await storedIds();
      for (const [n, batchId] of acknowledged) {
        expect(before.get(collectedAt(n)), `acknowledged batch ${n}`).toBe(CONTAINERS);
        expect(ids.has(batchId)).toBe(true);
      }
      // An unacknowledged batch is there whole with its id, or not at all.
      for (const [n, batchId] of unacknowledged) {
        const count = before.get(collectedAt(n)) ?? 0;
        expect([0, CONTAINERS], `unacknowledged batch ${n}`).toContain(count);
        expect(ids.has(batchId), `batch id of ${n}`).toBe(count === CONTAINERS);
      }
      expect([...before.values()].every((count) => count === CONTAINERS)).toBe(true);

      // The agent retries what it was not answered: each is then stored exactly once.
      for (const [n, batchId] of unacknowledged) {
        const res = await post(again.url, n, batchId);
        expect(res.status).toBe(200);
        expect(((await res.json()) as { duplicate: boolean }).duplicate).toBe(before.has(collectedAt(n)));
      }
      const after = await rowsPerBatch();
      for (const [n] of sent) expect(after.get(collectedAt(n)), `batch ${n}`).toBe(CONTAINERS);
      // The rollups hold each stored sample once.
      const [rollup] = await prisma.$queryRawUnsafe<Array<{ raw: number; m5: number; h1: number }>>(
        `SELECT (SELECT count(*) FROM metrics.pod_raw)::int AS raw,
                (SELECT sum(n) FROM metrics.pod_5m)::int AS m5,
                (SELECT sum(n) FROM metrics.pod_1h)::int AS h1`,
      );
      expect(rollup).toEqual({
        raw: sent.size * CONTAINERS,
        m5: sent.size * CONTAINERS,
        h1: sent.size * CONTAINERS,
      });
    } finally {
      again.child.kill('SIGKILL');
    }
  });
});
