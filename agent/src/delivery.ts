import { BatchBuilder, type SealedBatch, unpackBatch, withoutBatchFields } from './batch.js';
import type { AgentConfig, IngestMode } from './config.js';
import { type Counts, IngestClient, type Payload, type PayloadKind, type PayloadSink } from './ingest.js';
import type { Logger } from './logger.js';
import { Outbox, type OutboxOptions, type OutboxStatus } from './outbox.js';

/** In auto mode, how long the agent posts one object at a time before it tries the batch route again. */
export const REPROBE_AFTER_MS = 3_600_000;
/** A batch of 4 MiB takes longer to store than one row: its own timeout, at least this. */
const BATCH_TIMEOUT_MS = 30_000;

export type CycleMode = 'batch' | 'single';

/** The delivery part of a cycle summary. */
export interface DeliveryReport {
  mode: CycleMode;
  posted: Counts;
  failed: Counts;
  /** One-object posts could not connect: the loop probes again one interval later. */
  down: boolean;
  /** The ingest API answered 401/403 to one-object posts. */
  refused: boolean;
  batches?: {
    /** Batches the API took this cycle. */
    sent: number;
    /** Batches dropped this cycle, and their records. */
    dropped: number;
    droppedRecords: number;
    /** Unsent batches held now (an outage), and everything dropped since the agent started. */
    buffered: OutboxStatus['buffered'];
    droppedSinceStart: OutboxStatus['dropped'];
    outage: boolean;
  };
}

const ZERO: Counts = { pod: 0, log: 0, node: 0, pvc: 0, event: 0 };
const add = (a: Counts, b: Counts): Counts => ({
  pod: a.pod + b.pod,
  log: a.log + b.log,
  node: a.node + b.node,
  pvc: a.pvc + b.pvc,
  event: a.event + b.event,
});

/** A cycle's payloads packed into batches; after a 404/405 from the batch route, one-object posts instead. */
class BatchSink implements PayloadSink {
  private fellBack = false;

  constructor(
    readonly builder: BatchBuilder,
    private readonly single: IngestClient,
    private readonly outbox: Outbox,
  ) {}

  send(kind: PayloadKind, body: Payload, onDelivered?: () => void, onLost?: () => void): Promise<void> {
    if (this.fellBack) return this.single.send(kind, withoutBatchFields(kind, body), onDelivered);
    // Queued in a batch is as good as delivered: the outbox keeps it across an outage, and `onLost` undoes
    // this if the batch is dropped after all.
    onDelivered?.();
    return this.builder.add(kind, body, onLost);
  }

  /** Batches flow on across steps; only one-object posts after a fallback are waited for. */
  flush(): Promise<void> {
    return this.fellBack ? this.single.flush() : Promise.resolve();
  }

  get down(): boolean {
    return this.fellBack && this.single.down;
  }

  get unreachable(): boolean {
    return this.fellBack ? this.single.unreachable : this.outbox.unreachable;
  }

  fallBack(): void {
    this.fellBack = true;
  }
}

/**
 * How payloads reach the ingest API, across cycles: INGEST_MODE, the outbox of batches and the one-object
 * client. In auto mode a 404/405 from the batch route (the original AlertHawk.Metrics API has none) switches
 * to one-object posts, and the batch route is tried again an hour later.
 */
export class Delivery {
  readonly ingest: IngestClient;
  readonly outbox: Outbox;
  private mode: CycleMode;
  private fellBackAt: number | undefined;
  private probing = false;
  private active: BatchSink | undefined;
  private readonly replays = new Set<Promise<void>>();
  private carried: { posted: Counts; failed: Counts } = { posted: ZERO, failed: ZERO };

  constructor(
    private readonly config: AgentConfig,
    private readonly log: Logger,
    outboxOptions: Partial<OutboxOptions> = {},
    private readonly now: () => number = () => Date.now(),
  ) {
    this.ingest = new IngestClient(
      config.metricsApiUrl,
      {
        concurrency: config.postConcurrency,
        timeoutMs: config.postTimeoutSeconds * 1000,
        key: config.ingestKey,
      },
      log,
    );
    this.outbox = new Outbox(
      (body, timeoutMs) => this.ingest.postBatch(body, timeoutMs),
      {
        maxBytes: config.ingestBufferBytes,
        timeoutMs: Math.max(BATCH_TIMEOUT_MS, config.postTimeoutSeconds * 1000),
        keySet: config.ingestKey !== undefined,
        ...outboxOptions,
      },
      log,
      config.ingestMode === 'auto' ? (batches) => this.routeMissing(batches) : undefined,
    );
    this.mode = config.ingestMode === 'single' ? 'single' : 'batch';
  }

  get setting(): IngestMode {
    return this.config.ingestMode;
  }

  /** Logged once at startup: which mode the setting gives. */
  describe(): { setting: IngestMode; mode: CycleMode; batchUrl?: string } {
    return {
      setting: this.config.ingestMode,
      mode: this.mode,
      ...(this.mode === 'batch' ? { batchUrl: `${this.config.metricsApiUrl}/api/ingest/batch` } : {}),
    };
  }

  /** The mode of the cycle about to start; in auto mode, an hour after a fallback, batches are tried again. */
  cycleMode(): CycleMode {
    if (
      this.mode === 'single' &&
      this.fellBackAt !== undefined &&
      this.now() - this.fellBackAt >= REPROBE_AFTER_MS
    ) {
      this.mode = 'batch';
      this.fellBackAt = undefined;
      this.probing = true;
      this.log.info({ mode: 'batch' }, 'ingest mode: trying the batch route again');
    }
    return this.mode;
  }

  /**
   * A sink for one cycle; the one-object counters start again. Batches delivered between cycles (a backlog
   * leaving after an outage) count in the next summary.
   */
  begin(mode: CycleMode): PayloadSink {
    // One-object posts made between cycles (records of batches replayed after a fallback) count in this one.
    const between = this.ingest.takeStats();
    this.carried = {
      posted: add(this.carried.posted, between.posted),
      failed: add(this.carried.failed, between.failed),
    };
    if (mode === 'single') return this.ingest;
    // A backlog waiting out an outage is tried now, while this cycle collects, not only at its end.
    void this.outbox.settle();
    this.active = new BatchSink(
      new BatchBuilder(this.config.clusterName, (batch) => this.outbox.push(batch)),
      this.ingest,
      this.outbox,
    );
    return this.active;
  }

  /**
   * Seals the cycle's last batch and waits until the outbox is empty or waiting out an outage, and until
   * every one-object post (including a fallback's) has ended. Then reports.
   */
  async end(sink: PayloadSink, mode: CycleMode): Promise<DeliveryReport> {
    if (sink instanceof BatchSink) {
      await sink.builder.flush();
      await this.outbox.settle();
    }
    while (this.replays.size > 0) await Promise.allSettled([...this.replays]);
    await this.ingest.flush();
    if (this.active === sink) this.active = undefined;
    const single = this.ingest.takeStats();
    const batched = this.outbox.takeStats();
    if (this.probing && batched.batchesSent > 0) {
      this.probing = false;
      this.log.info({ mode: 'batch' }, 'ingest mode: batch route available, posting batches');
    }
    const carried = this.carried;
    this.carried = { posted: ZERO, failed: ZERO };
    const failed = add(add(single.failed, batched.dropped), carried.failed);
    const outbox = this.outbox.status();
    return {
      mode,
      posted: add(add(single.posted, batched.delivered), carried.posted),
      failed,
      down: single.down,
      refused: single.refused,
      ...(this.config.ingestMode !== 'single'
        ? {
            batches: {
              sent: batched.batchesSent,
              dropped: batched.batchesDropped,
              droppedRecords: Object.values(batched.dropped).reduce((n, c) => n + c, 0),
              buffered: outbox.buffered,
              droppedSinceStart: outbox.dropped,
              outage: outbox.outage,
            },
          }
        : {}),
    };
  }

  status(): { setting: IngestMode; mode: CycleMode; nextBatchProbeAt?: string } & OutboxStatus {
    return {
      setting: this.config.ingestMode,
      mode: this.mode,
      ...(this.fellBackAt !== undefined
        ? { nextBatchProbeAt: new Date(this.fellBackAt + REPROBE_AFTER_MS).toISOString() }
        : {}),
      ...this.outbox.status(),
    };
  }

  /** Auto mode, batch route missing: one-object posts from now on, the queued batches sent that way too. */
  private routeMissing(batches: SealedBatch[]): boolean {
    if (this.mode === 'batch') {
      this.log.warn(
        { mode: 'single', retryBatchesInMinutes: REPROBE_AFTER_MS / 60_000 },
        'ingest mode: the batch route answered 404/405 (the original ingest API), posting one object per request',
      );
    }
    this.mode = 'single';
    this.probing = false;
    this.fellBackAt = this.now();
    this.active?.fallBack();
    const replay = this.replay(batches).finally(() => this.replays.delete(replay));
    this.replays.add(replay);
    return true;
  }

  private async replay(batches: SealedBatch[]): Promise<void> {
    for (const batch of batches) {
      // Events in it are forgotten, so a one-object post failing now sends them again next cycle.
      for (const lost of batch.lost) lost();
      for (const { kind, body } of await unpackBatch(batch)) await this.ingest.send(kind, body);
    }
  }

  /** SIGTERM: posts and the batch in flight finish, nothing new starts (buffered batches are lost, logged). */
  stopAccepting(): void {
    this.ingest.stopAccepting();
    this.outbox.stopAccepting();
  }

  async close(): Promise<void> {
    await this.outbox.stop();
    await Promise.allSettled([...this.replays]);
    await this.ingest.close();
  }
}
