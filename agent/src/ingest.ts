import { Pool } from 'undici';
import type { Encodable } from './collectors/log-body.js';
import { Limiter, sleep } from './limiter.js';
import type { Logger } from './logger.js';

export type PayloadKind = 'pod' | 'log' | 'node' | 'pvc' | 'event';
export const PAYLOAD_KINDS: readonly PayloadKind[] = ['pod', 'log', 'node', 'pvc', 'event'];

export const INGEST_PATHS: Record<PayloadKind, string> = {
  pod: '/api/metrics/pod',
  log: '/api/metrics/pod/log',
  node: '/api/metrics/node',
  pvc: '/api/metrics/pvc',
  event: '/api/events',
};

/** Errors raised before a single byte reached the server: the only ones where a POST may be repeated. */
const NOT_DELIVERED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Consecutive undelivered posts after which the rest of the cycle's posts are skipped (ingest is down). */
const DOWN_AFTER = 3;

/**
 * A payload's body as it is posted. A collector may encode a page's payloads at once: the listed objects
 * they come from then die young, and the bodies wait for their post slots as bytes outside the JS heap.
 */
export function encodeBody(body: object): Buffer {
  return Buffer.from(JSON.stringify(body));
}

/** A payload as collectors hand it over: an object, its encoded bytes, or a body that writes itself. */
export type Payload = object | Buffer | Encodable;

export const isEncodable = (body: Payload): body is Encodable =>
  !Buffer.isBuffer(body) && typeof (body as Partial<Encodable>).writeTo === 'function';

/** The payload's bytes: written now if it writes itself, else as `encodeBody` gives them. */
export function payloadBytes(body: Payload): Buffer {
  if (Buffer.isBuffer(body)) return body;
  if (!isEncodable(body)) return encodeBody(body);
  const out = Buffer.allocUnsafe(body.byteLength);
  body.writeTo(out, 0);
  return out;
}

export type Counts = Record<PayloadKind, number>;
const zero = (): Counts => ({ pod: 0, log: 0, node: 0, pvc: 0, event: 0 });

export interface IngestStats {
  posted: Counts;
  failed: Counts;
  /** True once the ingest API refused connections this cycle; the loop backs off. */
  down: boolean;
  /** True once the ingest API answered 401/403 this cycle: the key is missing, wrong or revoked. */
  refused: boolean;
}

export interface IngestOptions {
  concurrency: number;
  timeoutMs: number;
  retryDelaysMs?: number[];
  /** INGEST_KEY: sent as a bearer token on every request when set. */
  key?: string | undefined;
}

/** What a batch post came back with: an HTTP answer, or an error before any answer (code). */
export type PostOutcome = { status: number; body: string } | { error: string; code: string };

/** Where the agent's payloads go: one-object posts (`IngestClient`) or batches (`BatchSink`). */
export interface PayloadSink {
  /**
   * Hands one payload over. `onDelivered` runs once the payload is accepted (a one-object post) or safely
   * queued (a batch); `onLost` runs if a queued batch holding it is later dropped.
   */
  send(kind: PayloadKind, body: Payload, onDelivered?: () => void, onLost?: () => void): Promise<void>;
  /** Waits for the posts of a step (one-object mode); batches flow on across steps. */
  flush(): Promise<void>;
  /** The rest of the cycle is pointless: nothing more can be delivered this cycle. */
  readonly down: boolean;
  /** Costly reads (container logs) should pause: what they produce cannot be delivered now. */
  readonly unreachable: boolean;
}

/** What 401/403 from the ingest API means to an operator. */
export function refusalMessage(status: number, keySet: boolean): string {
  if (status === 401) {
    return keySet
      ? 'ingest API refused the key (401): INGEST_KEY is wrong or revoked'
      : 'ingest API requires a key (401): set INGEST_KEY';
  }
  return 'ingest API refused the key for this cluster (403): INGEST_KEY belongs to another cluster than CLUSTER_NAME';
}

export class IngestClient implements PayloadSink {
  private readonly pool: Pool;
  private readonly headers: Record<string, string>;
  private readonly keySet: boolean;
  private readonly basePath: string;
  private readonly limiter: Limiter;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly retryDelaysMs: number[];
  private stats: IngestStats = { posted: zero(), failed: zero(), down: false, refused: false };
  private undeliveredInARow = 0;
  private connectFailures = 0;
  private loggedFailures = 0;
  private stopped = false;

  constructor(
    baseUrl: string,
    options: IngestOptions,
    private readonly log: Logger,
  ) {
    const url = new URL(baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.limiter = new Limiter(options.concurrency);
    this.retryDelaysMs = options.retryDelaysMs ?? [250, 1_000];
    this.keySet = options.key !== undefined;
    this.headers = {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'finwatch-agent/1.0',
      ...(options.key !== undefined ? { authorization: `Bearer ${options.key}` } : {}),
    };
    this.pool = new Pool(url.origin, {
      connections: options.concurrency,
      keepAliveTimeout: 30_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: { timeout: 5_000 },
    });
  }

  /** Starts a new cycle's counters; the down flag is cleared so each cycle tries the API again. */
  takeStats(): IngestStats {
    const stats = this.stats;
    this.stats = { posted: zero(), failed: zero(), down: false, refused: false };
    this.undeliveredInARow = 0;
    this.connectFailures = 0;
    this.loggedFailures = 0;
    return stats;
  }

  /**
   * Queues one payload: an object to serialise, or a body already encoded by `encodeBody`. Resolves once a
   * concurrency slot is taken, not when the post ends, so a collector is paced by the ingest API and holds
   * at most one page of encoded bodies besides the `concurrency` posts in flight.
   */
  async send(kind: PayloadKind, payload: Payload, onDelivered?: () => void): Promise<void> {
    if (this.stopped) return;
    // Written before waiting for a slot, so what waits is bytes outside the JS heap.
    const body = isEncodable(payload) ? payloadBytes(payload) : payload;
    await this.limiter.acquire();
    // A sender may have queued for a slot before shutdown began; it must not start a post after it.
    if (this.stopped) {
      this.limiter.release();
      return;
    }
    const task = this.post(kind, body)
      .then((ok) => {
        if (ok) onDelivered?.();
      })
      .finally(() => {
        this.limiter.release();
        this.inFlight.delete(task);
      });
    this.inFlight.add(task);
  }

  /** Shutdown: posts already in flight finish, nothing new starts. */
  stopAccepting(): void {
    this.stopped = true;
  }

  /** Waits for every queued post; used between steps and on SIGTERM. */
  async flush(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private fail(kind: PayloadKind, detail: Record<string, unknown>, message: string): false {
    this.stats.failed[kind]++;
    // Every failure is counted in the cycle summary; only the first few per cycle get their own line.
    if (this.loggedFailures < 5) this.log.warn({ kind, ...detail }, message);
    else if (this.loggedFailures === 5) this.log.warn('further post failures this cycle are only counted');
    this.loggedFailures++;
    return false;
  }

  private async post(kind: PayloadKind, body: object | Buffer): Promise<boolean> {
    const path = `${this.basePath}${INGEST_PATHS[kind]}`;
    // Encoded once, as undici would for a string: only these bytes are held across the request and its
    // retries, outside the JS heap, and the string dies young instead of being copied by each scavenge.
    const json = Buffer.isBuffer(body) ? body : encodeBody(body);
    for (let attempt = 0; ; attempt++) {
      if (this.stats.down) return this.fail(kind, { path }, 'ingest API down; post skipped');
      if (this.stats.refused) return this.fail(kind, { path }, 'ingest API refused the key; post skipped');
      try {
        const res = await this.pool.request({ method: 'POST', path, headers: this.headers, body: json });
        this.undeliveredInARow = 0;
        this.connectFailures = 0;
        if (res.statusCode >= 200 && res.statusCode < 300) {
          await res.body.dump();
          this.stats.posted[kind]++;
          return true;
        }
        const text = (await res.body.text()).slice(0, 300);
        if (res.statusCode === 401 || res.statusCode === 403) {
          // Every other post of the cycle would be refused too: the rest are skipped, and the next cycle,
          // one interval later, tries again (a key re-enabled on the API side then works without a restart).
          if (!this.stats.refused) {
            this.stats.refused = true;
            this.log.error({ path, status: res.statusCode }, refusalMessage(res.statusCode, this.keySet));
          }
          this.stats.failed[kind]++;
          return false;
        }
        // A 4xx will fail again and a 5xx may already have stored the row: neither is retried.
        return this.fail(
          kind,
          { path, status: res.statusCode, response: text },
          'ingest API rejected a post',
        );
      } catch (error) {
        const code = (error as { code?: string }).code ?? 'ERROR';
        if (!NOT_DELIVERED.has(code)) {
          // Timeouts and resets happen after the body may have been stored; repeating would duplicate rows.
          return this.fail(kind, { path, code, err: (error as Error).message }, 'post failed; not retried');
        }
        this.connectFailures++;
        const delay = this.retryDelaysMs[attempt];
        if (delay === undefined) {
          if (++this.undeliveredInARow >= DOWN_AFTER && !this.stats.down) {
            this.stats.down = true;
            this.log.error({ code, path }, 'ingest API unreachable; skipping the rest of this cycle');
          }
          return this.fail(kind, { path, code }, 'post not delivered after retries');
        }
        await sleep(delay);
      }
    }
  }

  /** True once the ingest API was declared down or refused the key this cycle: the rest is skipped. */
  get down(): boolean {
    return this.stats.down || this.stats.refused;
  }

  /**
   * True from the first post that could not connect until a post gets through: readers of costly input
   * (container logs) pause at once rather than after the retries that declare the API down.
   */
  get unreachable(): boolean {
    return this.stats.down || this.connectFailures > 0;
  }

  /**
   * The cheap check before each cycle: any HTTP answer to GET {base}/api/Version means the API can be
   * reached (a 404 still means a wrong URL, which the posts then report). Marks the cycle down otherwise.
   */
  async reachable(): Promise<boolean> {
    const result = await this.probeVersion();
    if ('error' in result) this.stats.down = true;
    return !('error' in result);
  }

  /** GET {base}/api/Version: tells an operator at startup whether METRICS_API_URL is right. */
  async probeVersion(): Promise<{ status: number; body: string } | { error: string }> {
    try {
      const res = await this.pool.request({
        method: 'GET',
        path: `${this.basePath}/api/Version`,
        headers: { 'user-agent': this.headers['user-agent'] as string, ...this.authorization() },
      });
      return { status: res.statusCode, body: (await res.body.text()).slice(0, 200) };
    } catch (error) {
      return { error: `${(error as { code?: string }).code ?? ''} ${(error as Error).message}`.trim() };
    }
  }

  private authorization(): Record<string, string> {
    const value = this.headers['authorization'];
    return value === undefined ? {} : { authorization: value };
  }

  /**
   * One gzip-compressed batch to POST {base}/api/ingest/batch. Not retried here: the outbox decides, and may,
   * since the batch id makes a repeat harmless. Runs outside the one-object concurrency slots.
   */
  async postBatch(body: Buffer, timeoutMs: number): Promise<PostOutcome> {
    try {
      const res = await this.pool.request({
        method: 'POST',
        path: `${this.basePath}/api/ingest/batch`,
        headers: { ...this.headers, 'content-encoding': 'gzip' },
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      return { status: res.statusCode, body: (await res.body.text()).slice(0, 500) };
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'ERROR';
      return { error: (error as Error).message, code };
    }
  }

  async close(): Promise<void> {
    await this.flush();
    await this.pool.close();
  }
}
