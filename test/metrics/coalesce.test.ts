import { describe, expect, it } from 'vitest';
import { coalescingWriter } from '../../shared/metrics/coalesce.js';
import type { MetricRecord } from '../../shared/metrics/records.js';
import type { WriteBatch, WriteResult } from '../../shared/metrics/store/contract.js';

const post = (cluster: string, kind: 'pod' | 'node', name: string): WriteBatch => ({
  clusterName: cluster,
  records: [{ kind, collectedAt: new Date(0), data: { name } } as unknown as MetricRecord],
});
const names = (b: WriteBatch) => b.records.map((r) => (r.data as unknown as { name: string }).name);

/** A store whose writes finish when the test says so. */
function heldStore(fails?: (b: WriteBatch) => boolean) {
  const calls: Array<{ batch: WriteBatch; finish(): void }> = [];
  const write = (batch: WriteBatch) =>
    new Promise<WriteResult>((resolve, reject) => {
      calls.push({
        batch,
        finish: () =>
          fails?.(batch)
            ? reject(new Error('refused'))
            : resolve({ duplicate: false, records: batch.records.length }),
      });
    });
  return { calls, write };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('one-object posts written together', () => {
  it('writes lone posts at once and combines the posts that arrive while two writes run', async () => {
    const store = heldStore();
    const write = coalescingWriter(store.write);
    const first = write(post('a', 'pod', 'p1'));
    const second = write(post('a', 'pod', 'p2'));
    await tick();
    expect(store.calls.map((c) => names(c.batch))).toEqual([['p1'], ['p2']]);
    const waiting = [
      write(post('a', 'pod', 'p3')),
      write(post('a', 'pod', 'p4')),
      write(post('a', 'node', 'n1')),
      write(post('b', 'pod', 'p5')),
    ];
    await tick();
    expect(store.calls).toHaveLength(2);
    store.calls[0]!.finish();
    await expect(first).resolves.toEqual({ duplicate: false, records: 1 });
    await tick();
    // One write per cluster and kind, each a single statement's worth.
    expect(store.calls.slice(2).map((c) => [c.batch.clusterName, names(c.batch)])).toEqual([
      ['a', ['p3', 'p4']],
      ['a', ['n1']],
      ['b', ['p5']],
    ]);
    for (const c of store.calls) c.finish();
    await expect(second).resolves.toEqual({ duplicate: false, records: 1 });
    await expect(Promise.all(waiting)).resolves.toEqual(Array(4).fill({ duplicate: false, records: 1 }));
  });

  it('writes each post of a failed combined write again on its own: only the bad one fails', async () => {
    const store = heldStore((b) => names(b).includes('bad'));
    const write = coalescingWriter(store.write);
    const running = [write(post('a', 'pod', 'x')), write(post('a', 'pod', 'y'))];
    const combined = [
      write(post('a', 'pod', 'ok1')),
      write(post('a', 'pod', 'bad')),
      write(post('a', 'pod', 'ok2')),
    ];
    const outcomes = Promise.allSettled(combined);
    await tick();
    store.calls[0]!.finish();
    await tick();
    expect(names(store.calls[2]!.batch)).toEqual(['ok1', 'bad', 'ok2']);
    // Each write finishes as soon as it is asked for.
    for (let i = 0; i < 10; i++) {
      for (const c of store.calls) c.finish();
      await tick();
    }
    await expect(Promise.all(running)).resolves.toHaveLength(2);
    expect((await outcomes).map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(store.calls.slice(3).map((c) => names(c.batch))).toEqual([['ok1'], ['bad'], ['ok2']]);
  });
});
