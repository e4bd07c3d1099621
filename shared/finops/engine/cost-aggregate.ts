/**
 * Cost lines and daily history as a run stores them, from the cost rows of Cost Management or of an
 * imported export: shared by the analysis and the imports, so neither depends on the other.
 */
import type { DailyCost } from '../azure/index.js';

const SEP = '\u0000';
export const upper = (s: string) => s.toUpperCase();
export const round4 = (n: number) => Math.round(n * 10000) / 10000;

export function add<K>(map: Map<K, number>, key: K, value: number) {
  map.set(key, (map.get(key) ?? 0) + value);
}

/** Month-to-date (or previous month) cost lines: one per resource group, one per service and group. */
export function costDetailLines(rows: Array<{ resourceGroup: string; serviceName: string; cost: number }>) {
  const byGroup = new Map<string, number>();
  const byService = new Map<string, number>();
  for (const r of rows) {
    const g = upper(r.resourceGroup);
    add(byGroup, g, r.cost);
    add(byService, `${r.serviceName}${SEP}${g}`, r.cost);
  }
  return { byGroup, byService };
}

/** The CostDetails rows of those lines, as a run stores them (groups first, then services). */
export function* costDetailRows(
  lines: ReturnType<typeof costDetailLines>,
  currency: string,
  recordedAt: Date,
) {
  for (const [g, cost] of lines.byGroup) {
    yield { costType: 'ResourceGroup', name: g, resourceGroup: g, cost: round4(cost), currency, recordedAt };
  }
  for (const [key, cost] of lines.byService) {
    const [service, g] = key.split(SEP) as [string, string];
    yield { costType: 'Service', name: service, resourceGroup: g, cost: round4(cost), currency, recordedAt };
  }
}

/**
 * Daily history aggregated per day (Total), per day and group, per day, group and service. Compact on
 * purpose (a 10,000-resource subscription has ~600,000 day × group × service cells): groups and
 * services are interned to small integers and each day holds a Map keyed by one small integer, so
 * no per-cell string is kept.
 */
export class HistoryAggregate {
  private readonly groups: string[] = [];
  private readonly services: string[] = [];
  private readonly groupIds = new Map<string, number>();
  private readonly serviceIds = new Map<string, number>();
  /** yyyy-MM-dd → (group id × SERVICE_SPAN + service id) → cost. */
  private readonly days = new Map<string, Map<number, number>>();
  private static readonly SERVICE_SPAN = 1 << 13;
  rows = 0;

  private intern(list: string[], ids: Map<string, number>, name: string): number {
    let id = ids.get(name);
    if (id === undefined) {
      id = list.length;
      list.push(name);
      ids.set(name, id);
    }
    return id;
  }

  add(rows: readonly DailyCost[]) {
    for (const r of rows) {
      if (!r.date) continue;
      const g = this.intern(this.groups, this.groupIds, upper(r.resourceGroup));
      const sv = this.intern(this.services, this.serviceIds, r.serviceName);
      if (sv >= HistoryAggregate.SERVICE_SPAN)
        throw new Error('too many distinct services in the cost history');
      let day = this.days.get(r.date);
      if (!day) {
        day = new Map();
        this.days.set(r.date, day);
      }
      add(day, g * HistoryAggregate.SERVICE_SPAN + sv, r.cost);
      this.rows++;
    }
  }

  /** HistoricalCost rows (without analysisRunId), generated lazily. costDate has no offset (UTC midnight). */
  *historicalRows(subscriptionId: string, currency: string, recordedAt: Date) {
    const dates = [...this.days.keys()].sort();
    const span = HistoryAggregate.SERVICE_SPAN;
    const row = (
      costDate: Date,
      costType: string,
      resourceGroup: string | null,
      name: string | null,
      cost: number,
    ) => ({
      subscriptionId,
      costDate,
      costType,
      resourceGroup,
      name,
      cost: round4(cost),
      currency,
      recordedAt,
    });
    for (const date of dates) {
      let total = 0;
      for (const cost of this.days.get(date)!.values()) total += cost;
      yield row(new Date(`${date}T00:00:00.000Z`), 'Total', null, null, total);
    }
    for (const date of dates) {
      const byGroup = new Map<number, number>();
      for (const [key, cost] of this.days.get(date)!) add(byGroup, Math.floor(key / span), cost);
      const costDate = new Date(`${date}T00:00:00.000Z`);
      for (const [g, cost] of byGroup) yield row(costDate, 'ResourceGroup', this.groups[g]!, null, cost);
    }
    for (const date of dates) {
      const costDate = new Date(`${date}T00:00:00.000Z`);
      for (const [key, cost] of this.days.get(date)!) {
        yield row(
          costDate,
          'Service',
          this.groups[Math.floor(key / span)]!,
          this.services[key % span]!,
          cost,
        );
      }
    }
  }
}
