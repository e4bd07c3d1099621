import type { WriteBatch, WriteResult } from './store/contract.js';

/** Writes at most this many combined writes at once; posts arriving meanwhile wait for the next. */
const MAX_IN_FLIGHT = 2;
/** Records of one combined write at most. */
const MAX_RECORDS = 1000;

interface Waiting {
  batch: WriteBatch;
  resolve(result: WriteResult): void;
  reject(err: unknown): void;
}

/**
 * One-object posts (one record, no batch id) written together: while MAX_IN_FLIGHT writes are
 * running, the posts that arrive wait, and the next write carries all of them, one statement per
 * table and one commit instead of one per post. A post is answered only once its write has
 * committed, as before. A lone post is written at once.
 *
 * Posts are combined per cluster and kind, so a combined write is of one kind and fails or
 * succeeds whole; when it fails, each of its posts is written again on its own, so a post that
 * cannot be stored fails alone and the others are stored (each exactly once: the failed combined
 * write stored nothing).
 */
export function coalescingWriter(
  write: (batch: WriteBatch) => Promise<WriteResult>,
): (batch: WriteBatch) => Promise<WriteResult> {
  let waiting: Waiting[] = [];
  let inFlight = 0;

  const settle = async (group: Waiting[]): Promise<void> => {
    const first = group[0]!;
    if (group.length === 1) {
      await write(first.batch).then(first.resolve, first.reject);
      return;
    }
    try {
      await write({ clusterName: first.batch.clusterName, records: group.map((w) => w.batch.records[0]!) });
      for (const w of group) w.resolve({ duplicate: false, records: 1 });
    } catch {
      for (const w of group) await write(w.batch).then(w.resolve, w.reject);
    }
  };

  const pump = (): void => {
    while (inFlight < MAX_IN_FLIGHT && waiting.length) {
      const taken = waiting.slice(0, MAX_RECORDS);
      waiting = waiting.slice(taken.length);
      const groups = new Map<string, Waiting[]>();
      for (const w of taken) {
        const key = `${w.batch.clusterName}\u0000${w.batch.records[0]!.kind}`;
        const group = groups.get(key);
        if (group) group.push(w);
        else groups.set(key, [w]);
      }
      inFlight++;
      void Promise.all([...groups.values()].map(settle)).finally(() => {
        inFlight--;
        pump();
      });
    }
  };

  return (batch) =>
    new Promise<WriteResult>((resolve, reject) => {
      waiting.push({ batch, resolve, reject });
      pump();
    });
}
