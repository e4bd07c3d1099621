/**
 * Cost Management's query quota as Microsoft documents it for a tenant: query processing units
 * (QPU) in sliding windows of 10 seconds (12), 1 minute (60) and 1 hour (600). A query costs one QPU
 * per calendar month of data it spans (a six-month history spans seven). Requests are counted per
 * `ClientType` request header: callers that send none share one bucket (with the portal and every
 * other tool of the tenant, which the simulator does not model beyond the shared key).
 * `scale` shrinks the windows (0.01: 10 s → 100 ms) so benches run in seconds; the headers still
 * speak unscaled seconds, as clients multiply every wait by their own pace scale.
 * Source: https://learn.microsoft.com/azure/cost-management-billing/costs/manage-automation
 * (section on API throttling: QPU quotas per tenant and the x-ms-ratelimit-microsoft.costmanagement-qpu-* headers).
 */

export const QPU_WINDOWS = [
  { name: 'QueriesPer10Sec', seconds: 10, limit: 12 },
  { name: 'QueriesPerMin', seconds: 60, limit: 60 },
  { name: 'QueriesPerHour', seconds: 3600, limit: 600 },
] as const;

export interface CostQuotaOptions {
  /** Real time = documented time × scale (default 1). */
  scale?: number;
}

export type QuotaDecision =
  | { ok: true; headers: Record<string, string> }
  | { ok: false; retryAfterSeconds: number; headers: Record<string, string> };

export class CostQuota {
  private readonly scale: number;
  /** ClientType (or '') → spent QPU: [real time ms, qpu]. */
  private readonly logs = new Map<string, Array<[number, number]>>();

  constructor(opts: CostQuotaOptions = {}) {
    this.scale = opts.scale ?? 1;
  }

  private windowMs(seconds: number) {
    return seconds * 1000 * this.scale;
  }

  private used(log: Array<[number, number]>, seconds: number, now: number): number {
    const from = now - this.windowMs(seconds);
    let sum = 0;
    for (const [t, q] of log) if (t > from) sum += q;
    return sum;
  }

  private remainingHeader(log: Array<[number, number]>, now: number): string {
    return [...QPU_WINDOWS]
      .reverse()
      .map((w) => `${w.name}:${Math.max(0, w.limit - this.used(log, w.seconds, now))}`)
      .join(',');
  }

  /** Charges `qpu` to the caller's bucket, or answers how long (unscaled seconds) until it fits. */
  charge(clientType: string, qpu: number, now: number = Date.now()): QuotaDecision {
    const key = clientType.trim().toLowerCase();
    const log = this.logs.get(key) ?? [];
    this.logs.set(key, log);
    // Drop what left the largest window.
    const horizon = now - this.windowMs(3600);
    while (log.length && log[0]![0] <= horizon) log.shift();
    let waitMs = 0;
    for (const w of QPU_WINDOWS) {
      const over = this.used(log, w.seconds, now) + qpu - w.limit;
      if (over <= 0) continue;
      // The earliest time enough of this window's QPU expire.
      let freed = 0;
      const from = now - this.windowMs(w.seconds);
      for (const [t, q] of log) {
        if (t <= from) continue;
        freed += q;
        if (freed >= over) {
          waitMs = Math.max(waitMs, t + this.windowMs(w.seconds) - now);
          break;
        }
      }
    }
    if (waitMs > 0) {
      return {
        ok: false,
        retryAfterSeconds: Math.max(1, Math.ceil(waitMs / (1000 * this.scale))),
        headers: { 'x-ms-ratelimit-microsoft.costmanagement-qpu-remaining': this.remainingHeader(log, now) },
      };
    }
    log.push([now, qpu]);
    return {
      ok: true,
      headers: {
        'x-ms-ratelimit-microsoft.costmanagement-qpu-consumed': String(qpu),
        'x-ms-ratelimit-microsoft.costmanagement-qpu-remaining': this.remainingHeader(log, now),
      },
    };
  }
}

/** Calendar months a query period spans (yyyy-MM-dd or ISO dates, inclusive): its QPU cost. */
export function monthsSpanned(fromDay: number, toDay: number): number {
  const a = new Date(fromDay * 86_400_000);
  const b = new Date(toDay * 86_400_000);
  return Math.max(1, (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth() + 1);
}
