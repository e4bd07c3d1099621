/**
 * Daily cost series of a subscription, of each resource group and of each service, built from a
 * run's HistoricalCosts rows. Days missing inside the range count as no cost.
 */

/** namespace: a Kubernetes namespace's allocated cost (docs/kubernetes-cost.md), named cluster/namespace. */
export type ScopeKind = 'subscription' | 'resourceGroup' | 'service' | 'namespace';

export interface HistoryRow {
  costDate: Date;
  costType: string;
  resourceGroup: string | null;
  name: string | null;
  cost: number;
}

export interface ScopeSeries {
  scope: { kind: ScopeKind; name: string };
  /** Cost per day from `firstDay`, one entry per consecutive day. */
  values: number[];
}

export interface SubscriptionSeries {
  /** UTC midnight of index 0. */
  firstDay: Date;
  days: number;
  series: ScopeSeries[];
}

const DAY_MS = 86_400_000;

export const addDays = (d: Date, n: number) => new Date(d.getTime() + n * DAY_MS);
export const ymd = (d: Date) => d.toISOString().slice(0, 10);

/**
 * @param rows iterated once; what is kept of them is their day, scope and cost (no row object), so a
 *   source that makes rows as it is iterated (runHistory) is never held whole.
 * @param before days on or after this one (UTC) are left out: the analysis day's cost is still
 *   growing in Cost Management, and judging a partial day would report a drop every run.
 */
export function buildSeries(
  subscriptionId: string,
  rows: Iterable<HistoryRow>,
  before?: Date,
): SubscriptionSeries | undefined {
  const limit = before
    ? Date.UTC(before.getUTCFullYear(), before.getUTCMonth(), before.getUTCDate())
    : Infinity;
  // Parallel arrays of numbers and shared strings: a row object costs several times more.
  const times: number[] = [];
  const costs: number[] = [];
  /** null: a row of another type, which widens the range only (as it always has). */
  const kinds: Array<ScopeKind | null> = [];
  const names: string[] = [];
  let min = Infinity;
  let max = -Infinity;
  for (const r of rows) {
    const t = Date.UTC(r.costDate.getUTCFullYear(), r.costDate.getUTCMonth(), r.costDate.getUTCDate());
    if (t >= limit) continue;
    if (r.costType === 'Total') {
      kinds.push('subscription');
      names.push(subscriptionId);
    } else if (r.costType === 'ResourceGroup' && r.resourceGroup) {
      kinds.push('resourceGroup');
      names.push(r.resourceGroup.toUpperCase());
    } else if (r.costType === 'Service' && r.name) {
      kinds.push('service');
      names.push(r.name);
    } else {
      kinds.push(null);
      names.push('');
    }
    times.push(t);
    costs.push(r.cost);
    if (t < min) min = t;
    if (t > max) max = t;
  }
  if (!times.length) return undefined;
  const days = Math.round((max - min) / DAY_MS) + 1;
  const byKey = new Map<string, ScopeSeries>();
  const get = (kind: ScopeKind, name: string) => {
    const key = `${kind}\u0000${name}`;
    let s = byKey.get(key);
    if (!s) {
      s = { scope: { kind, name }, values: new Array<number>(days).fill(0) };
      byKey.set(key, s);
    }
    return s;
  };
  get('subscription', subscriptionId);
  for (let i = 0; i < times.length; i++) {
    const kind = kinds[i];
    if (kind) get(kind, names[i]!).values[Math.round((times[i]! - min) / DAY_MS)]! += costs[i]!;
  }
  return { firstDay: new Date(min), days, series: [...byKey.values()] };
}
