/**
 * Daily cost series of a subscription, of each resource group and of each service, built from a
 * run's HistoricalCosts rows. Days missing inside the range count as no cost.
 */

export type ScopeKind = 'subscription' | 'resourceGroup' | 'service';

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
const dayIndex = (d: Date, first: number) =>
  Math.round((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - first) / DAY_MS);

export const addDays = (d: Date, n: number) => new Date(d.getTime() + n * DAY_MS);
export const ymd = (d: Date) => d.toISOString().slice(0, 10);

/**
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
  const kept: HistoryRow[] = [];
  let min = Infinity;
  let max = -Infinity;
  for (const r of rows) {
    const t = Date.UTC(r.costDate.getUTCFullYear(), r.costDate.getUTCMonth(), r.costDate.getUTCDate());
    if (t >= limit) continue;
    kept.push(r);
    if (t < min) min = t;
    if (t > max) max = t;
  }
  if (!kept.length) return undefined;
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
  const total = get('subscription', subscriptionId);
  for (const r of kept) {
    const i = dayIndex(r.costDate, min);
    if (r.costType === 'Total') total.values[i]! += r.cost;
    else if (r.costType === 'ResourceGroup' && r.resourceGroup)
      get('resourceGroup', r.resourceGroup.toUpperCase()).values[i]! += r.cost;
    else if (r.costType === 'Service' && r.name) get('service', r.name).values[i]! += r.cost;
  }
  return { firstDay: new Date(min), days, series: [...byKey.values()] };
}
