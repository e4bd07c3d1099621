/** Fault switches: 429 storms, 5xx, slow answers, Resource Graph quota exhaustion, column order. */

export type SimEndpoint =
  | 'token'
  | 'metadata'
  | 'subscription'
  | 'graph'
  | 'cost'
  | 'prices'
  | 'admin'
  | 'other';
export type EndpointMatch = SimEndpoint | 'any';

/** Which throttling header a 429 carries; `user-quota` is Resource Graph's pair of headers. */
export type ThrottleHeaderKind =
  | 'retry-after'
  | 'qpu'
  | 'entity'
  | 'tenant'
  | 'client'
  | 'clienttype'
  | 'user-quota';

export const THROTTLE_HEADER_NAMES: Record<Exclude<ThrottleHeaderKind, 'user-quota'>, string> = {
  'retry-after': 'retry-after',
  qpu: 'x-ms-ratelimit-microsoft.costmanagement-qpu-retry-after',
  entity: 'x-ms-ratelimit-microsoft.costmanagement-entity-retry-after',
  tenant: 'x-ms-ratelimit-microsoft.costmanagement-tenant-retry-after',
  client: 'x-ms-ratelimit-microsoft.costmanagement-client-retry-after',
  clienttype: 'x-ms-ratelimit-microsoft.costmanagement-clienttype-retry-after',
};

export interface ThrottleOptions {
  /** How many responses to throttle (default 1). */
  count?: number;
  /** Which endpoint (default 'cost'). */
  endpoint?: EndpointMatch;
  /** Headers to send, in seconds. None → a bare 429 (the client must back off exponentially). */
  headers?: Partial<Record<ThrottleHeaderKind, number>>;
  /** Send Retry-After as an HTTP date instead of seconds. */
  retryAfterAsDate?: boolean;
}

export interface FailOptions {
  count?: number;
  /** 500, 502, 503, 504 (any status ≥ 400 is accepted, e.g. 404 or 401); 0 drops the connection. */
  status: number;
  endpoint?: EndpointMatch;
}

export interface SlowOptions {
  ms: number;
  endpoint?: EndpointMatch;
}

export interface GraphQuotaOptions {
  /** How many successful Resource Graph answers report `x-ms-user-quota-remaining: 0`. */
  count?: number;
  resetsAfterSeconds: number;
}

export type ColumnOrder = 'real' | 'reversed' | 'rotated';

export interface FaultSwitches {
  throttle(opts?: ThrottleOptions): void;
  fail(opts: FailOptions): void;
  /** Delay every answer of the endpoint (default: cost) by `ms`; `slow(0)` turns it off. */
  slow(ms: number, endpoint?: EndpointMatch): void;
  graphQuotaExhausted(opts: GraphQuotaOptions): void;
  /** Reorder the cost API's columns (and rows) to test that clients read columns by name. */
  costColumnOrder(order: ColumnOrder): void;
  reset(): void;
}

interface Armed<T> {
  remaining: number;
  endpoint: EndpointMatch;
  opts: T;
}

export type FaultDecision =
  | { kind: 'throttle'; opts: ThrottleOptions }
  | { kind: 'fail'; status: number }
  | { kind: 'none' };

export class FaultState implements FaultSwitches {
  private throttles: Array<Armed<ThrottleOptions>> = [];
  private failures: Array<Armed<FailOptions>> = [];
  private delays = new Map<EndpointMatch, number>();
  private quota: Armed<GraphQuotaOptions> | undefined;
  columnOrder: ColumnOrder = 'real';

  throttle(opts: ThrottleOptions = {}): void {
    this.throttles.push({ remaining: opts.count ?? 1, endpoint: opts.endpoint ?? 'cost', opts });
  }

  fail(opts: FailOptions): void {
    this.failures.push({ remaining: opts.count ?? 1, endpoint: opts.endpoint ?? 'cost', opts });
  }

  slow(ms: number, endpoint: EndpointMatch = 'cost'): void {
    if (ms > 0) this.delays.set(endpoint, ms);
    else this.delays.delete(endpoint);
  }

  graphQuotaExhausted(opts: GraphQuotaOptions): void {
    this.quota = { remaining: opts.count ?? 1, endpoint: 'graph', opts };
  }

  costColumnOrder(order: ColumnOrder): void {
    this.columnOrder = order;
  }

  reset(): void {
    this.throttles = [];
    this.failures = [];
    this.delays.clear();
    this.quota = undefined;
    this.columnOrder = 'real';
  }

  delayFor(endpoint: SimEndpoint): number {
    return this.delays.get(endpoint) ?? this.delays.get('any') ?? 0;
  }

  /** Consumes one armed fault matching the endpoint, throttles first. */
  decide(endpoint: SimEndpoint): FaultDecision {
    const matches = (a: Armed<unknown>) =>
      a.remaining > 0 && (a.endpoint === endpoint || (a.endpoint === 'any' && endpoint !== 'admin'));
    const t = this.throttles.find(matches);
    if (t) {
      t.remaining--;
      return { kind: 'throttle', opts: t.opts };
    }
    const f = this.failures.find(matches);
    if (f) {
      f.remaining--;
      return { kind: 'fail', status: f.opts.status };
    }
    return { kind: 'none' };
  }

  /** Resource Graph quota headers for a successful answer. */
  graphQuotaHeaders(): Record<string, string> {
    if (this.quota && this.quota.remaining > 0) {
      this.quota.remaining--;
      return {
        'x-ms-user-quota-remaining': '0',
        'x-ms-user-quota-resets-after': hms(this.quota.opts.resetsAfterSeconds),
      };
    }
    return { 'x-ms-user-quota-remaining': '14', 'x-ms-user-quota-resets-after': '00:00:05' };
  }
}

/** Seconds → hh:mm:ss, the format of x-ms-user-quota-resets-after. */
export function hms(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

/** The headers of a 429 built from the switch. */
export function throttleHeaders(opts: ThrottleOptions, now: Date): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [kind, seconds] of Object.entries(opts.headers ?? {}) as Array<[ThrottleHeaderKind, number]>) {
    if (kind === 'user-quota') {
      out['x-ms-user-quota-remaining'] = '0';
      out['x-ms-user-quota-resets-after'] = hms(seconds);
    } else if (kind === 'retry-after' && opts.retryAfterAsDate) {
      out['retry-after'] = new Date(now.getTime() + seconds * 1000).toUTCString();
    } else {
      out[THROTTLE_HEADER_NAMES[kind]] = String(seconds);
    }
  }
  return out;
}
