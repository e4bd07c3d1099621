/**
 * Namespace cost as a scope of the month-end forecast: the cluster is allocated per namespace over
 * its closed (billed) days of the last eight weeks and of this month, and each namespace's daily
 * series goes through the forecast the subscriptions' costs use (forecastMonth: the month's known
 * days summed, the rest from the seasonal baseline, a run rate when fewer than 14 days are known).
 */
import type { PrismaClient } from '../../db/client.js';
import { forecastMonth, type MonthForecast } from '../intel/forecast.js';
import { allocateCluster, BILL_CLOSE_HOURS, type CostType, type KnownCluster } from './service.js';
import type { KubernetesUsageSource } from './usage-source.js';

const DAY_MS = 86_400_000;
/** The days of history the baseline fits on (eight weeks), before this month's. */
const HISTORY_DAYS = 56;
const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);

export interface NamespaceForecast extends MonthForecast {
  namespace: string;
}

export interface NamespaceForecastAnswer {
  /** yyyy-MM */
  month: string;
  currency: string | null;
  costType: CostType;
  /** The last closed day the forecast knows (null: no closed day yet). */
  lastKnownDay: string | null;
  namespaces: NamespaceForecast[];
}

export async function forecastNamespaces(
  prisma: PrismaClient,
  usage: KubernetesUsageSource,
  req: {
    cluster: KnownCluster;
    costType: CostType;
    sharedNamespaces: string[];
    shareMode: 'weighted' | 'even';
    now: Date;
  },
): Promise<NamespaceForecastAnswer> {
  const now = req.now;
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const monthDays = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
  const empty: NamespaceForecastAnswer = {
    month: ymd(monthStart).slice(0, 7),
    currency: null,
    costType: req.costType,
    lastKnownDay: null,
    namespaces: [],
  };
  const m = req.cluster.managed;
  if (!m?.lastBilledDay) return empty;
  // The last closed day: a day still open would be judged at retail price, not what the bill says.
  const lastClosed = Math.min(
    Math.floor((m.collectedAt.getTime() - BILL_CLOSE_HOURS * 3_600_000) / DAY_MS) * DAY_MS - DAY_MS,
    Date.parse(`${m.lastBilledDay}T00:00:00Z`),
    monthStart + (monthDays - 1) * DAY_MS,
  );
  // From the first billed day at the earliest: days before the bill are unknown, not free.
  const first = Math.max(
    Date.parse(`${m.firstBilledDay ?? m.lastBilledDay}T00:00:00Z`),
    Math.min(monthStart, lastClosed - (HISTORY_DAYS - 1) * DAY_MS),
  );
  if (lastClosed < first) return empty;
  const answer = await allocateCluster(prisma, usage, {
    cluster: req.cluster,
    from: ymd(first),
    to: ymd(lastClosed),
    aggregate: { kind: 'namespace' },
    costType: req.costType,
    sharedNamespaces: req.sharedNamespaces,
    shareMode: req.shareMode,
    now,
    keepDayRows: true,
  });
  const days: string[] = [];
  for (let t = first; t <= lastClosed; t += DAY_MS) days.push(ymd(t));
  const names = new Set<string>();
  for (const rows of answer.dayRows?.values() ?? []) for (const k of rows.keys()) names.add(k);
  const monthIndex = (monthStart - first) / DAY_MS;
  const namespaces = [...names].map((namespace) => ({
    namespace,
    ...forecastMonth(
      days.map((d) => (answer.dayRows?.get(d)?.get(namespace) ?? 0) / 100),
      monthIndex,
      monthDays,
      days.length - 1,
    ),
  }));
  namespaces.sort((a, b) => b.forecast - a.forecast || a.namespace.localeCompare(b.namespace));
  return { ...empty, currency: answer.currency, lastKnownDay: ymd(lastClosed), namespaces };
}
