import type { SealedBatch } from './batch.js';
import { type Counts, type PostOutcome, refusalMessage } from './ingest.js';
import { sleep } from './limiter.js';
import type { Logger } from './logger.js';

const zero = (): Counts => ({ pod: 0, log: 0, node: 0, pvc: 0, event: 0 });
const addTo = (total: Counts, more: Counts): void => {
  for (const kind of Object.keys(total) as Array<keyof Counts>) total[kind] += more[kind];
};

/** What the outbox reports: since the last `takeStats` (one cycle), and since the agent started. */
export interface OutboxStats {
  /** Records the API accepted, by kind. */
  delivered: Counts;
  /** Records dropped undelivered, by kind: refused by the API (4xx) or pushed out by the buffer bound. */
  dropped: Counts;
  batchesSent: number;
  batchesDropped: number;
}

export interface OutboxStatus {
  buffered: { batches: number; records: number; bytes: number };
  /** Since the agent started. */
  dropped: { batches: number; records: number; overBound: number; refused: number };
  /** True from a failed attempt (no answer, 5xx, 408, 429) until a batch gets through. */
  outage: boolean;
}

export interface OutboxOptions {
  /** INGEST_BUFFER_BYTES: most compressed bytes held, the batch being posted included. */
  maxBytes: number;
  timeoutMs: number;
  /** Waits between attempts at the oldest batch while the API does not take it. */
  backoffMs?: number[];
  /** After 401/403: the key is wrong or revoked, so the next attempt waits long. */
  refusedBackoffMs?: number;
  keySet: boolean;
}

export type Post = (body: Buffer, timeoutMs: number) => Promise<PostOutcome>;

/**
 * Sealed batches on their way to the batch route, posted one at a time, oldest first. Across an ingest
 * outage they wait here, bounded by compressed bytes; past the bound the oldest are dropped and counted.
 * A batch keeps its id through every retry, so the API stores it once however often it is posted.
 */
export class Outbox {
  private readonly queue: SealedBatch[] = [];
  private bytes = 0;
  private sending: Promise<void> | undefined;
  /** A request for the head batch is under way (not a wait between attempts). */
  private posting = false;
  private wake: (() => void) | undefined;
  private stopWait: (() => void) | undefined;
  /** Between attempts: `settle` callers need not wait for the next one. */
  private pausing = false;
  private idle: Array<() => void> = [];
  private stopped = false;
  private failures = 0;
  private outage = false;
  private cycle: OutboxStats = { delivered: zero(), dropped: zero(), batchesSent: 0, batchesDropped: 0 };
  private readonly total = { batches: 0, records: 0, overBound: 0, refused: 0 };
  private readonly backoffMs: number[];

  constructor(
    private readonly post: Post,
    private readonly options: OutboxOptions,
    private readonly log: Logger,
    /** The batch route answered 404/405: these batches (the whole queue) go another way. */
    private readonly onRouteMissing: ((batches: SealedBatch[]) => boolean) | undefined,
  ) {
    this.backoffMs = options.backoffMs ?? [1_000, 2_000, 5_000, 10_000, 30_000, 60_000];
  }

  push(batch: SealedBatch): void {
    this.queue.push(batch);
    this.bytes += batch.body.length;
    // The oldest batch not being posted goes first; the one in flight (at the head) stays.
    const first = this.posting ? 1 : 0;
    let over = 0;
    let records = 0;
    while (this.bytes > this.options.maxBytes && this.queue.length > first + 1) {
      const [oldest] = this.queue.splice(first, 1) as [SealedBatch];
      this.drop(oldest, 'overBound');
      over++;
      records += oldest.records;
    }
    if (over > 0) {
      this.log.warn(
        {
          droppedBatches: over,
          droppedRecords: records,
          bufferBytes: this.bytes,
          maxBytes: this.options.maxBytes,
        },
        'ingest buffer full: oldest unsent batches dropped',
      );
    }
    this.pump();
  }

  /**
   * Resolves once nothing is left to post or the outbox waits out an outage. Cuts short a backoff wait first,
   * so every cycle tries the API at least once and a backlog leaves as soon as the API is back.
   */
  settle(): Promise<void> {
    if (this.wake) {
      this.wake();
      this.wake = undefined;
      this.pausing = false;
    }
    if (!this.sending) this.pump();
    if (!this.sending || this.pausing) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  takeStats(): OutboxStats {
    const stats = this.cycle;
    this.cycle = { delivered: zero(), dropped: zero(), batchesSent: 0, batchesDropped: 0 };
    return stats;
  }

  status(): OutboxStatus {
    return {
      buffered: {
        batches: this.queue.length,
        records: this.queue.reduce((n, b) => n + b.records, 0),
        bytes: this.bytes,
      },
      dropped: { ...this.total },
      outage: this.outage,
    };
  }

  /** True while the API does not take batches: costly reads (logs) pause, their output could not leave. */
  get unreachable(): boolean {
    return this.outage;
  }

  /** Shutdown begins: the batch in flight finishes, no other starts. */
  stopAccepting(): void {
    this.stopped = true;
    this.stopWait?.();
  }

  /** Shutdown: the batch in flight finishes; what is still queued is lost with the process, and logged. */
  async stop(): Promise<void> {
    this.stopAccepting();
    await this.sending;
    if (this.queue.length > 0) {
      const records = this.queue.reduce((n, b) => n + b.records, 0);
      this.log.warn({ batches: this.queue.length, records }, 'unsent batches discarded at shutdown');
    }
  }

  private pump(): void {
    if (this.sending || this.stopped || this.queue.length === 0) return;
    this.sending = this.run().finally(() => {
      this.sending = undefined;
      this.settled();
      // A batch pushed while the last attempt ended starts a new run.
      if (!this.stopped && this.queue.length > 0) this.pump();
    });
  }

  private settled(): void {
    const waiters = this.idle;
    this.idle = [];
    for (const resolve of waiters) resolve();
  }

  private drop(batch: SealedBatch, why: 'overBound' | 'refused'): void {
    this.bytes -= batch.body.length;
    addTo(this.cycle.dropped, batch.counts);
    this.cycle.batchesDropped++;
    this.total.batches++;
    this.total.records += batch.records;
    this.total[why]++;
    for (const lost of batch.lost) lost();
  }

  private delivered(batch: SealedBatch): void {
    this.queue.shift();
    this.bytes -= batch.body.length;
    addTo(this.cycle.delivered, batch.counts);
    this.cycle.batchesSent++;
    if (this.outage)
      this.log.info({ batchId: batch.id }, 'ingest API takes batches again; sending the backlog');
    this.outage = false;
    this.failures = 0;
  }

  /**
   * Waits `ms`; `settle` callers are released meanwhile. `stop` cuts the wait short, and so does `settle`
   * unless the key was refused (a new cycle does not make a refused key good).
   */
  private async pause(ms: number, refused = false): Promise<void> {
    this.pausing = true;
    this.settled();
    const controller = new AbortController();
    const wake = () => controller.abort();
    this.stopWait = wake;
    if (!refused) this.wake = wake;
    await sleep(ms, controller.signal);
    this.wake = undefined;
    this.stopWait = undefined;
    this.pausing = false;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const batch = this.queue[0];
      if (!batch) return;
      this.posting = true;
      const outcome = await this.post(batch.body, this.options.timeoutMs).finally(() => {
        this.posting = false;
      });
      if ('status' in outcome && outcome.status >= 200 && outcome.status < 300) {
        this.delivered(batch);
        continue;
      }
      const detail = {
        batchId: batch.id,
        records: batch.records,
        ...('status' in outcome
          ? { status: outcome.status, response: outcome.body.slice(0, 300) }
          : { code: outcome.code, err: outcome.error }),
      };
      const status = 'status' in outcome ? outcome.status : 0;
      if ((status === 404 || status === 405) && this.onRouteMissing) {
        const batches = this.queue.splice(0);
        this.bytes = 0;
        if (this.onRouteMissing(batches)) return;
        this.queue.push(...batches);
        for (const b of batches) this.bytes += b.body.length;
      }
      if (status === 401 || status === 403) {
        // Every batch would be refused the same way; the batch waits (a key re-enabled on the API side
        // then works without a restart) and the next attempt is minutes away, not a tight loop.
        this.log.error(detail, refusalMessage(status, this.options.keySet));
        this.outage = true;
        await this.pause(this.options.refusedBackoffMs ?? 300_000, true);
        continue;
      }
      if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
        // The API will refuse this batch every time (invalid record, too large): dropped and counted.
        this.queue.shift();
        this.drop(batch, 'refused');
        this.log.error(
          detail,
          status === 404 || status === 405
            ? `ingest API has no batch route (${status}): INGEST_MODE=batch needs finwatch's metrics service; batch dropped`
            : 'ingest API refused a batch; dropped',
        );
        continue;
      }
      // No answer, 5xx, 408 or 429: the batch is kept and tried again, with growing waits between attempts.
      const wait = this.backoffMs[Math.min(this.failures, this.backoffMs.length - 1)] ?? 60_000;
      this.failures++;
      if (!this.outage) this.log.warn({ ...detail, retryInMs: wait }, 'batch not delivered; kept for retry');
      this.outage = true;
      await this.pause(wait);
    }
  }
}
