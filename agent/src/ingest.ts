import { Pool } from 'undici';
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

export type Counts = Record<PayloadKind, number>;
const zero = (): Counts => ({ pod: 0, log: 0, node: 0, pvc: 0, event: 0 });

export interface IngestStats {
  posted: Counts;
  failed: Counts;
  /** True once the ingest API refused connections this cycle; the loop backs off. */
  down: boolean;
}

export interface IngestOptions {
  concurrency: number;
  timeoutMs: number;
  retryDelaysMs?: number[];
}

export class IngestClient {
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly limiter: Limiter;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly retryDelaysMs: number[];
  private stats: IngestStats = { posted: zero(), failed: zero(), down: false };
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
    this.stats = { posted: zero(), failed: zero(), down: false };
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
  async send(kind: PayloadKind, body: object | Buffer, onDelivered?: () => void): Promise<void> {
    if (this.stopped) return;
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
      try {
        const res = await this.pool.request({
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'finwatch-agent/1.0' },
          body: json,
        });
        this.undeliveredInARow = 0;
        this.connectFailures = 0;
        if (res.statusCode >= 200 && res.statusCode < 300) {
          await res.body.dump();
          this.stats.posted[kind]++;
          return true;
        }
        const text = (await res.body.text()).slice(0, 300);
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

  /** True once the ingest API was declared down this cycle: the rest of the cycle is skipped. */
  get down(): boolean {
    return this.stats.down;
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
      const res = await this.pool.request({ method: 'GET', path: `${this.basePath}/api/Version` });
      return { status: res.statusCode, body: (await res.body.text()).slice(0, 200) };
    } catch (error) {
      return { error: `${(error as { code?: string }).code ?? ''} ${(error as Error).message}`.trim() };
    }
  }

  async close(): Promise<void> {
    await this.flush();
    await this.pool.close();
  }
}
