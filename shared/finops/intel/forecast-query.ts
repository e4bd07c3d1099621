/**
 * The month-end forecast of a subscription from its newest run's daily history. The month is the one
 * in progress after the last complete stored day (today's cost is never complete), so an import of
 * an old export forecasts the month it ends in rather than an empty current month.
 */
import type { PrismaClient } from '../../db/client.js';
import { forecastBudgetStatus } from './budget-status.js';
import type { ForecastDto } from './contract.js';
import { forecastMonth } from './forecast.js';
import { addDays, buildSeries, type HistoryRow, ymd } from './series.js';

const DAY_MS = 86_400_000;

/**
 * The subscription's daily total before `before` (UTC day), one row per day that has any cost row
 * the anomaly history reads (total, resource group or service): those days span the series, as in
 * runHistory, but only the total is summed and sent. The forecast needs nothing else, and the
 * resource group and service series cost the Overview most of its wait.
 */
async function dailyTotals(prisma: PrismaClient, analysisRunId: number, before: Date): Promise<HistoryRow[]> {
  const rows = await prisma.$queryRawUnsafe<Array<{ day: number; cost: number }>>(
    `SELECT ("costDate"::date - DATE '1970-01-01') AS day,
            coalesce(sum("cost") FILTER (WHERE "costType" = 'Total'), 0)::float8 AS cost
     FROM "HistoricalCosts"
     WHERE "analysisRunId" = $1::integer
       AND "costDate"::date < $2::date
       AND ("costType" = 'Total'
            OR ("costType" = 'ResourceGroup' AND "resourceGroup" IS NOT NULL)
            OR ("costType" = 'Service' AND "name" IS NOT NULL))
     GROUP BY 1
     ORDER BY 1`,
    analysisRunId,
    ymd(before),
  );
  return rows.map((r) => ({
    costDate: new Date(Number(r.day) * DAY_MS),
    costType: 'Total',
    resourceGroup: null,
    name: null,
    cost: r.cost,
  }));
}

export async function subscriptionForecast(
  prisma: PrismaClient,
  subscriptionId: string,
  now: Date = new Date(),
): Promise<ForecastDto | undefined> {
  const run = await prisma.analysisRun.findFirst({
    where: { subscriptionId },
    orderBy: [{ runDate: 'desc' }, { id: 'desc' }],
    select: { id: true, subscriptionId: true, currency: true, runDate: true },
  });
  if (!run) return undefined;
  const before = run.runDate < now ? run.runDate : now;
  const all = buildSeries(subscriptionId, await dailyTotals(prisma, run.id, before), before);
  const sub = await prisma.subscription.findFirst({
    where: { subscriptionId },
    select: { budget: true },
  });
  const budget = sub?.budget === null || sub?.budget === undefined ? null : Number(sub.budget);
  const total = all?.series.find((s) => s.scope.kind === 'subscription');
  const lastDay = all ? addDays(all.firstDay, all.days - 1) : addDays(before, -1);
  const next = addDays(lastDay, 1);
  const monthStart = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth(), 1));
  const monthDays = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  const values = total?.values ?? [];
  const first = all?.firstDay ?? monthStart;
  const startIndex = Math.round((monthStart.getTime() - first.getTime()) / 86_400_000);
  const f = forecastMonth(values, startIndex, monthDays, values.length - 1);
  return {
    subscriptionId: run.subscriptionId,
    currency: run.currency,
    monthStart: ymd(monthStart),
    monthEnd: ymd(addDays(monthStart, monthDays - 1)),
    actualToDate: f.actualToDate,
    forecastMonthEnd: f.forecast,
    low: f.low,
    high: f.high,
    budget,
    budgetStatus: forecastBudgetStatus(f.actualToDate, f.forecast, budget),
    method: f.method,
    asOf: ymd(lastDay),
    analysisRunId: run.id,
  };
}
