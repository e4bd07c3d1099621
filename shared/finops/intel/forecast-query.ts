/**
 * The month-end forecast of a subscription from its newest run's daily history. The month is the one
 * in progress after the last complete stored day (today's cost is never complete), so an import of
 * an old export forecasts the month it ends in rather than an empty current month.
 */
import type { PrismaClient } from '../../db/client.js';
import { runHistory } from './anomaly-store.js';
import { forecastBudgetStatus } from './budget-status.js';
import type { ForecastDto } from './contract.js';
import { forecastMonth } from './forecast.js';
import { addDays, buildSeries, ymd } from './series.js';

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
  const all = buildSeries(subscriptionId, await runHistory(prisma, run.id), before);
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
