import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchBuilder, type SealedBatch } from '../src/batch.js';
import { REPROBE_AFTER_MS } from '../src/delivery.js';
import { BATCH_PATH, type IngestOptions, startFakeIngest } from './fakes/ingest-server.js';
import { sampleCluster } from './fixtures.js';
import { type Harness, harness } from './helpers.js';
import { freePort } from './ports.js';

let h: Harness | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await h?.close();
  h = undefined;
});

/** What one cycle of sampleCluster delivers: 6 containers, 3 nodes, 3 events of watched namespaces. */
const ONE_CYCLE = { pod: 6, log: 0, node: 3, pvc: 0, event: 3 };
const FAST = { backoffMs: [20, 40], refusedBackoffMs: 60_000 };

const batchAttempts = (x: Harness): Array<{ batchId?: string; authorization?: string }> =>
  x.ingest.attempts.filter((a) => a.path === BATCH_PATH);
/** Lets the outbox try again (cutting its waits short) until it holds nothing, at most `tries` times. */
async function drained(x: Harness, tries = 5): Promise<void> {
  for (let i = 0; i < tries && x.agent.delivery.outbox.status().buffered.batches > 0; i++) {
    await x.agent.delivery.outbox.settle();
  }
}
const onePosts = (x: Harness): number => x.ingest.attempts.filter((a) => a.path !== BATCH_PATH).length;

describe('batched posting', () => {
  it('posts a cycle as one gzip batch in the agreed envelope, each record stamped with its collection time', async () => {
    h = await harness(sampleCluster(), { INGEST_MODE: 'auto' }, { batch: true }, undefined, FAST);
    const before = Date.now();
    const summary = await h.agent.runOnce();
    const after = Date.now();
    expect(h.ingest.violations).toEqual([]);
    expect(summary.posted).toEqual(ONE_CYCLE);
    expect(summary.ingest).toMatchObject({ mode: 'batch', batches: { sent: 1, dropped: 0 } });
    expect(h.ingest.batches).toHaveLength(1);
    expect(h.ingest.batches[0]).toMatchObject({ records: 12, gzip: true, duplicate: false });
    expect(onePosts(h)).toBe(0);
    for (const record of h.ingest.accepted) {
      const at = Date.parse(record.collectedAt ?? '');
      expect(at).toBeGreaterThanOrEqual(before);
      expect(at).toBeLessThanOrEqual(after);
    }
    expect(h.logs.some((l) => l.msg === 'ingest mode: batch' && l['setting'] === 'auto')).toBe(true);
  });

  it('splits a cycle into batches of at most 4 MiB of JSON', async () => {
    const cluster = sampleCluster();
    // 1.5 MB per running container: 4 logs in watched namespaces, 6 MB in all.
    const big = `${'x'.repeat(149)}\n`.repeat(10_000);
    cluster.logs = () => big;
    h = await harness(
      cluster,
      { INGEST_MODE: 'batch', COLLECT_LOGS: 'true', LOG_MAX_BYTES: '2097152', LOG_TAIL_LINES: '20000' },
      { batch: true },
      undefined,
      FAST,
    );
    const summary = await h.agent.runOnce();
    expect(h.ingest.violations).toEqual([]);
    expect(summary.posted.log).toBe(4);
    expect(h.ingest.batches.length).toBeGreaterThanOrEqual(2);
    for (const batch of h.ingest.batches) expect(batch.jsonBytes).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(h.ingest.batches.reduce((n, b) => n + b.records, 0)).toBe(12 + 4);
  });

  it('reuses the batch id when it retries, so a batch whose answer was lost is stored once', async () => {
    const options: IngestOptions = {
      batch: true,
      batchStatus: (n) => (n === 1 ? 503 : undefined),
      dropAnswer: (n) => n === 2,
    };
    h = await harness(sampleCluster(), { INGEST_MODE: 'batch' }, options, undefined, FAST);
    await h.agent.runOnce();
    await drained(h);
    const ids = batchAttempts(h).map((a) => a.batchId);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(1);
    // The second attempt was stored but its answer lost; the third is the same batch id, so not stored again.
    expect(h.ingest.batches.map((b) => b.duplicate)).toEqual([false, true]);
    expect(h.ingest.accepted).toHaveLength(12);
  });

  it.each([408, 429, 500, 503])('keeps and retries a batch answered %i', async (status) => {
    h = await harness(
      sampleCluster(),
      { INGEST_MODE: 'batch' },
      { batch: true, batchStatus: (n) => (n === 1 ? status : undefined) },
      undefined,
      FAST,
    );
    await h.agent.runOnce();
    await drained(h);
    expect(batchAttempts(h)).toHaveLength(2);
    expect(h.ingest.accepted).toHaveLength(12);
  });

  it('drops and counts a batch refused with 422, without retrying it', async () => {
    h = await harness(
      sampleCluster(),
      { INGEST_MODE: 'batch' },
      { batch: true, batchStatus: (n) => (n === 1 ? 422 : undefined) },
      undefined,
      FAST,
    );
    const summary = await h.agent.runOnce();
    expect(summary.failed).toEqual(ONE_CYCLE);
    expect(summary.ingest.batches).toMatchObject({ dropped: 1, droppedRecords: 12 });
    expect(batchAttempts(h)).toHaveLength(1);
    expect(h.logs.some((l) => l.level === 'error' && l.msg === 'ingest API refused a batch; dropped')).toBe(
      true,
    );
    // Its events are sent again by the next cycle, since they never arrived.
    const next = await h.agent.runOnce();
    expect(next.posted).toEqual(ONE_CYCLE);
  });
});

describe('batch builder', () => {
  const sealedBy = async (
    limits: { records: number; bytes: number },
    bodies: Array<Record<string, unknown>>,
  ): Promise<SealedBatch[]> => {
    const sealed: SealedBatch[] = [];
    const builder = new BatchBuilder('c1', (b) => sealed.push(b), limits);
    for (const body of bodies) await builder.add('pod', body);
    await builder.flush();
    return sealed;
  };
  const json = (b: SealedBatch): { batchId: string; records: Array<{ data: { n: number } }> } =>
    JSON.parse(gunzipSync(b.body).toString('utf8'));

  it('starts a new batch at the record limit, and every batch gets its own id', async () => {
    const sealed = await sealedBy(
      { records: 3, bytes: 1 << 20 },
      Array.from({ length: 7 }, (_, n) => ({ clusterName: 'c1', n })),
    );
    expect(sealed.map((b) => b.records)).toEqual([3, 3, 1]);
    expect(sealed.map((b) => json(b).records.map((r) => r.data.n))).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    expect(new Set(sealed.map((b) => json(b).batchId)).size).toBe(3);
  });

  it('keeps each batch within the byte limit, and puts a record larger than a batch alone', async () => {
    const text = (size: number): string => 'é'.repeat(size / 2);
    const bodies = [300, 300, 300, 5_000, 300].map((size, n) => ({ clusterName: 'c1', n, text: text(size) }));
    const sealed = await sealedBy({ records: 100, bytes: 1_000 }, bodies);
    expect(sealed.map((b) => json(b).records.map((r) => r.data.n))).toEqual([[0, 1], [2], [3], [4]]);
    for (const b of sealed) expect(b.rawBytes).toBe(gunzipSync(b.body).length);
    expect(sealed.filter((b) => b.rawBytes > 1_000).map((b) => b.records)).toEqual([1]);
  });
});

describe('batch builder, concurrent writers', () => {
  it('keeps records whole when many collectors add at once, large ones included', async () => {
    const sealed: SealedBatch[] = [];
    const builder = new BatchBuilder('c1', (b) => sealed.push(b));
    const bodies = Array.from({ length: 60 }, (_, n) => ({
      clusterName: 'c1',
      n,
      text: 'x'.repeat(n % 7 === 0 ? 400_000 : 50),
    }));
    await Promise.all(bodies.map((body) => builder.add('pod', body)));
    await builder.flush();
    const got = sealed.flatMap((b) =>
      (
        JSON.parse(gunzipSync(b.body).toString('utf8')) as { records: Array<{ data: { n: number } }> }
      ).records.map((r) => r.data.n),
    );
    expect(got.sort((a, b) => a - b)).toEqual(bodies.map((b) => b.n));
    for (const b of sealed) expect(b.rawBytes).toBeLessThanOrEqual(4 * 1024 * 1024);
  });
});

describe('ingest modes', () => {
  it('falls back to one-object posts on a 404 from the batch route, byte for byte what single mode posts', async () => {
    const single = await harness(sampleCluster(), { INGEST_MODE: 'single' });
    await single.agent.runOnce();
    const expected = single.ingest.accepted.map((r) => `${r.path} ${r.raw}`);
    await single.close();

    h = await harness(sampleCluster(), { INGEST_MODE: 'auto' }, {}, undefined, FAST);
    const summary = await h.agent.runOnce();
    expect(batchAttempts(h)).toHaveLength(1);
    expect(summary.posted).toEqual(ONE_CYCLE);
    expect(summary.ingest.mode).toBe('batch');
    const got = h.ingest.accepted.map((r) => `${r.path} ${r.raw}`);
    // podAge is whole seconds since creation: the two runs may straddle a second.
    const age = (rows: string[]): string[] => rows.map((r) => r.replace(/"podAge":\d+/, '"podAge":0')).sort();
    expect(age(got)).toEqual(age(expected));
    expect(h.ingest.violations).toEqual([]);
    expect(
      h.logs.some((l) => l.level === 'warn' && l.msg.startsWith('ingest mode: the batch route answered 404')),
    ).toBe(true);

    // The next cycles post one object at a time without asking the batch route again...
    const second = await h.agent.runOnce();
    expect(second.ingest.mode).toBe('single');
    expect(batchAttempts(h)).toHaveLength(1);
  });

  it('falls back on a 405 from the batch route too', async () => {
    h = await harness(
      sampleCluster(),
      { INGEST_MODE: 'auto' },
      { batch: true, batchStatus: () => 405 },
      undefined,
      FAST,
    );
    const summary = await h.agent.runOnce();
    expect(summary.posted).toEqual(ONE_CYCLE);
    expect(batchAttempts(h)).toHaveLength(1);
    expect(onePosts(h)).toBe(12);
    expect(h.agent.delivery.status().mode).toBe('single');
  });

  it('probes the batch route again an hour after falling back', async () => {
    const options: IngestOptions = {};
    h = await harness(sampleCluster(), { INGEST_MODE: 'auto' }, options, undefined, FAST);
    vi.useFakeTimers({ toFake: ['Date'] });
    await h.agent.runOnce();
    vi.setSystemTime(Date.now() + REPROBE_AFTER_MS - 60_000);
    expect((await h.agent.runOnce()).ingest.mode).toBe('single');
    expect(batchAttempts(h)).toHaveLength(1);
    // An hour later the metrics service is there: batches again.
    options.batch = true;
    vi.setSystemTime(Date.now() + 60_000);
    const probe = await h.agent.runOnce();
    expect(probe.ingest.mode).toBe('batch');
    expect(batchAttempts(h)).toHaveLength(2);
    expect(h.ingest.batches).toHaveLength(1);
    expect(h.logs.some((l) => l.msg === 'ingest mode: trying the batch route again')).toBe(true);
    expect(h.logs.some((l) => l.msg === 'ingest mode: batch route available, posting batches')).toBe(true);
  });

  it('INGEST_MODE=single never asks the batch route and sends no batch-only field', async () => {
    h = await harness(sampleCluster(), { INGEST_MODE: 'single' }, { batch: true });
    const summary = await h.agent.runOnce();
    expect(summary.posted).toEqual(ONE_CYCLE);
    expect(summary.ingest).toEqual({ mode: 'single', refused: false });
    expect(batchAttempts(h)).toHaveLength(0);
    const pod = h.ingest.accepted.find((r) => r.path === '/api/metrics/pod');
    expect(Object.keys(pod?.body ?? {})).not.toContain('ownerKind');
    const node = h.ingest.accepted.find((r) => r.path === '/api/metrics/node');
    expect(Object.keys(node?.body ?? {})).not.toContain('providerId');
    // Nothing listed for the batch-only fields either.
    expect(h.kube.requests.some((r) => /replicasets|jobs|persistentvolumes/.test(r.path))).toBe(false);
  });

  it('INGEST_MODE=batch does not fall back: a 404 drops the batch and says why', async () => {
    h = await harness(sampleCluster(), { INGEST_MODE: 'batch' }, {}, undefined, FAST);
    const summary = await h.agent.runOnce();
    expect(summary.failed).toEqual(ONE_CYCLE);
    expect(onePosts(h)).toBe(0);
    expect(h.logs.some((l) => l.level === 'error' && /no batch route \(404\)/.test(l.msg))).toBe(true);
  });
});

describe('INGEST_KEY', () => {
  it('sends the key as a bearer token on every batch and one-object post', async () => {
    h = await harness(
      sampleCluster(),
      { INGEST_MODE: 'batch', INGEST_KEY: 'k-123' },
      { batch: true, key: 'k-123' },
    );
    await h.agent.runOnce();
    expect(batchAttempts(h).map((a) => a.authorization)).toEqual(['Bearer k-123']);
    expect(h.ingest.accepted).toHaveLength(12);
    await h.close();

    h = await harness(sampleCluster(), { INGEST_MODE: 'single', INGEST_KEY: 'k-123' }, { key: 'k-123' });
    const summary = await h.agent.runOnce();
    expect(summary.posted).toEqual(ONE_CYCLE);
    expect(new Set(h.ingest.attempts.map((a) => a.authorization))).toEqual(new Set(['Bearer k-123']));
  });

  it('logs a refused key clearly, keeps the batch and waits minutes before the next attempt', async () => {
    h = await harness(
      sampleCluster(),
      { INGEST_MODE: 'batch', INGEST_KEY: 'revoked' },
      { batch: true, key: 'current' },
      undefined,
      FAST,
    );
    const first = await h.agent.runOnce();
    const second = await h.agent.runOnce();
    // One attempt: the next waits out the refusal backoff (a minute here, five by default), whatever the cycles.
    expect(batchAttempts(h)).toHaveLength(1);
    expect(first.failed).toEqual({ pod: 0, log: 0, node: 0, pvc: 0, event: 0 });
    expect(second.ingest.batches?.buffered.batches).toBe(2);
    expect(
      h.logs.filter(
        (l) =>
          l.level === 'error' && l.msg === 'ingest API refused the key (401): INGEST_KEY is wrong or revoked',
      ),
    ).toHaveLength(1);
  });

  it('in one-object mode, stops the cycle’s posts at the first 401', async () => {
    h = await harness(sampleCluster(), { INGEST_MODE: 'single', POST_CONCURRENCY: '1' }, { key: 'needed' });
    const summary = await h.agent.runOnce();
    expect(h.ingest.attempts).toHaveLength(1);
    expect(summary.ingest).toMatchObject({ refused: true });
    expect(h.logs.filter((l) => l.msg === 'ingest API requires a key (401): set INGEST_KEY')).toHaveLength(1);
  });
});

describe('outage buffer', () => {
  it('keeps the batches of an outage and sends them oldest first once the API is back, each record once', async () => {
    const port = await freePort();
    h = await harness(
      sampleCluster(),
      { INGEST_MODE: 'batch' },
      { batch: true },
      (config) => {
        config.metricsApiUrl = `http://127.0.0.1:${port}/metrics`;
      },
      FAST,
    );
    for (let i = 0; i < 3; i++) {
      const summary = await h.agent.runOnce();
      expect(summary.ingest.batches).toMatchObject({ sent: 0, buffered: { batches: i + 1 }, outage: true });
    }
    const ingest = await startFakeIngest({ port, batch: true });
    try {
      const back = await h.agent.runOnce();
      expect(ingest.violations).toEqual([]);
      expect(ingest.batches.map((b) => b.duplicate)).toEqual([false, false, false, false]);
      // Pods and nodes every cycle; events only once, since they were handed over in the first cycle.
      expect(back.posted).toEqual({ pod: 24, log: 0, node: 12, pvc: 0, event: 3 });
      expect(back.ingest.batches).toMatchObject({ sent: 4, buffered: { batches: 0 }, outage: false });
      const stamps = ingest.accepted.map((r) => Date.parse(r.collectedAt ?? ''));
      expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
      const keys = ingest.accepted.map((r) => `${r.batchId}:${JSON.stringify(r.body)}`);
      expect(new Set(keys).size).toBe(keys.length);
    } finally {
      await ingest.close();
    }
  });

  it('on shutdown starts no new batch and says how much it leaves unsent', async () => {
    const port = await freePort();
    const x = await harness(
      sampleCluster(),
      { INGEST_MODE: 'batch' },
      { batch: true },
      (config) => {
        config.metricsApiUrl = `http://127.0.0.1:${port}/metrics`;
      },
      FAST,
    );
    await x.agent.runOnce();
    await x.agent.runOnce();
    const ingest = await startFakeIngest({ port, batch: true });
    try {
      // What SIGTERM does (Agent.run's abort listener), then the close that main() runs.
      x.agent.delivery.stopAccepting();
      await x.agent.close();
      expect(ingest.attempts).toEqual([]);
      expect(x.logs.find((l) => l.msg === 'unsent batches discarded at shutdown')).toMatchObject({
        batches: 2,
        records: 12 + 9,
      });
    } finally {
      await Promise.all([ingest.close(), x.kube.close(), x.ingest.close()]);
    }
  });

  it('past the bound drops the oldest batches and reports how many', async () => {
    const port = await freePort();
    const cluster = sampleCluster();
    // Without events every cycle's batch is the same size (9 records): the bound counts in batches.
    cluster.events = [];
    h = await harness(
      cluster,
      { INGEST_MODE: 'batch' },
      { batch: true },
      (config) => {
        config.metricsApiUrl = `http://127.0.0.1:${port}/metrics`;
      },
      FAST,
    );
    await h.agent.runOnce();
    const one = h.agent.delivery.outbox.status().buffered.bytes;
    // Room for two and a half batches.
    (h.agent.delivery.outbox as unknown as { options: { maxBytes: number } }).options.maxBytes = Math.floor(
      one * 2.5,
    );
    const cycleStarts: number[] = [];
    let dropped = 0;
    for (let i = 0; i < 4; i++) {
      cycleStarts.push(Date.now());
      dropped += (await h.agent.runOnce()).ingest.batches?.dropped ?? 0;
    }
    expect(dropped).toBe(3);
    const status = h.agent.delivery.status();
    expect(status.buffered.batches).toBe(2);
    expect(status.dropped).toMatchObject({ batches: 3, records: 27, overBound: 3 });
    expect(h.logs.filter((l) => l.msg === 'ingest buffer full: oldest unsent batches dropped')).toHaveLength(
      3,
    );
    const ingest = await startFakeIngest({ port, batch: true });
    try {
      await drained(h);
      const back = await h.agent.runOnce();
      // The two newest kept batches (cycles 4 and 5), sent before it started, and this cycle's.
      expect(back.posted).toEqual({ pod: 18, log: 0, node: 9, pvc: 0, event: 0 });
      const oldestKept = cycleStarts[2] ?? 0;
      expect(ingest.accepted.every((r) => Date.parse(r.collectedAt ?? '') >= oldestKept)).toBe(true);
    } finally {
      await ingest.close();
    }
  });
});
