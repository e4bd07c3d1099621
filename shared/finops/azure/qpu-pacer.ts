/**
 * Paces Cost Management queries on the quota the service reports, so a query waits for room
 * instead of drawing a 429. Every answer carries
 * `x-ms-ratelimit-microsoft.costmanagement-qpu-remaining: QueriesPerHour:597,QueriesPerMin:57,QueriesPer10Sec:9`
 * (query processing units left in each sliding window) and `…-qpu-consumed`. Before a query we know
 * what it will cost (one QPU per calendar month it spans) and the QPU our own earlier queries free as
 * they leave each window; we wait for the earliest moment every window has room, or for a whole
 * window when other callers spent it. Also sends the `ClientType` header: without it a caller
 * shares the tenant-wide bucket with the portal and every other tool.
 */
import type { PipelinePolicy, PipelineRequest } from '@azure/core-rest-pipeline';

export const QPU_REMAINING = 'x-ms-ratelimit-microsoft.costmanagement-qpu-remaining';
export const QPU_CONSUMED = 'x-ms-ratelimit-microsoft.costmanagement-qpu-consumed';
export const CLIENT_TYPE_HEADER = 'ClientType';
export const CLIENT_TYPE = 'finwatch';
export const QPU_PACER_POLICY = 'finwatchQpuPacer';

/** Window name → length in seconds, as the header names them. */
const WINDOWS: Record<string, number> = { QueriesPer10Sec: 10, QueriesPerMin: 60, QueriesPerHour: 3600 };

/** `QueriesPerHour:597,QueriesPerMin:57,QueriesPer10Sec:9` → window seconds → remaining QPU. */
export function parseQpuRemaining(value: string | undefined): Map<number, number> {
  const out = new Map<number, number>();
  for (const part of (value ?? '').split(',')) {
    const [name, n] = part.split(':').map((s) => s.trim());
    const seconds = name ? WINDOWS[name] : undefined;
    const remaining = Number(n);
    if (seconds !== undefined && n !== undefined && Number.isFinite(remaining)) out.set(seconds, remaining);
  }
  return out;
}

const DAY_MS = 86_400_000;

/** The QPU a query body costs: one per calendar month its period spans. */
export function queryQpu(body: unknown, now: Date = new Date()): number {
  let b: Record<string, unknown> = {};
  try {
    b = (typeof body === 'string' ? JSON.parse(body) : body) as Record<string, unknown>;
  } catch {
    return 1;
  }
  const tp = b?.['timePeriod'] as { from?: string; to?: string } | undefined;
  if (b?.['timeframe'] !== 'Custom' || !tp?.from || !tp.to) return 1;
  const a = new Date(tp.from);
  const z = new Date(Math.min(Date.parse(tp.to), now.getTime() + DAY_MS));
  if (Number.isNaN(a.getTime()) || Number.isNaN(z.getTime())) return 1;
  return Math.max(1, (z.getUTCFullYear() - a.getUTCFullYear()) * 12 + z.getUTCMonth() - a.getUTCMonth() + 1);
}

export interface QpuPacerOptions {
  paceScale: number;
  sleep: (ms: number) => Promise<void>;
  now?: () => number;
}

export class QpuPacer {
  /** Our own charged queries: [real time of the answer, qpu]. */
  private readonly sent: Array<[number, number]> = [];
  /** The service's last word: window seconds → remaining, and when it said so. */
  private reported = new Map<number, number>();
  private reportedAt = 0;
  private readonly now: () => number;

  constructor(private readonly opts: QpuPacerOptions) {
    this.now = opts.now ?? Date.now;
  }

  private windowMs(seconds: number) {
    return seconds * 1000 * this.opts.paceScale;
  }

  /** The real time from which a query of `qpu` fits every window (≤ now: at once). */
  readyAt(qpu: number): number {
    let ready = 0;
    for (const [seconds, remaining] of this.reported) {
      if (remaining >= qpu) continue;
      const w = this.windowMs(seconds);
      // QPU we spent in the window before the report free up as they age out of it.
      let freed = 0;
      let at = this.reportedAt + w; // nothing of ours frees enough: the window turns over
      for (const [t, q] of this.sent) {
        if (t <= this.reportedAt - w) continue;
        freed += q;
        if (remaining + freed >= qpu) {
          at = t + w;
          break;
        }
      }
      ready = Math.max(ready, at);
    }
    return ready;
  }

  async beforeQuery(qpu: number): Promise<void> {
    if (this.opts.paceScale <= 0) return;
    const wait = this.readyAt(qpu) - this.now();
    if (wait > 0) await this.opts.sleep(wait);
  }

  /** Records an answer's quota headers (received now). */
  afterAnswer(status: number, headers: { get(name: string): string | undefined }): void {
    const at = this.now();
    const remaining = parseQpuRemaining(headers.get(QPU_REMAINING));
    if (status < 400) {
      const consumed = Number(headers.get(QPU_CONSUMED) ?? 0);
      if (consumed > 0) this.sent.push([at, consumed]);
    }
    if (remaining.size) {
      this.reported = remaining;
      this.reportedAt = at;
    }
    const horizon = at - this.windowMs(3600);
    while (this.sent.length && this.sent[0]![0] <= horizon) this.sent.shift();
  }
}

function bodyText(request: PipelineRequest): unknown {
  return typeof request.body === 'string' ? request.body : undefined;
}

/** The policy: ClientType on every cost request, and each attempt waits for quota room. */
export function qpuPacerPolicy(pacer: QpuPacer): PipelinePolicy {
  return {
    name: QPU_PACER_POLICY,
    async sendRequest(request, next) {
      request.headers.set(CLIENT_TYPE_HEADER, CLIENT_TYPE);
      await pacer.beforeQuery(queryQpu(bodyText(request)));
      const response = await next(request);
      pacer.afterAnswer(response.status, response.headers);
      return response;
    },
  };
}
