/**
 * What cost intelligence does once a run (an analysis or an import) is stored: detect anomalies on
 * its history and queue the notifications of new anomalies and budget crossings. A failure here never fails the run: the run is stored and stays valid; the next run
 * finds the same anomalies again.
 */
import type { PrismaClient } from '../../db/client.js';
import { budgetEvent, enqueueEvents, forecastEvent, type NotifyEvent } from '../../notify/events.js';
import type { Logger } from '../../observability/logger.js';
import { detectForRun, type NewAnomaly } from './anomaly-store.js';
import { DEFAULT_DETECT, type DetectSettings } from './detect.js';
import { subscriptionForecast } from './forecast-query.js';

export interface IntelDeps {
  prisma: PrismaClient;
  log: Logger;
  intel?: DetectSettings | undefined;
}

/**
 * Forecast crossing into atRisk/overBudget and actual crossing 80 %/100 % of the budget, keyed by
 * month and level: recomputed after every run, sent once per channel (the outbox keys dedupe).
 */
async function enqueueBudgetEvents(prisma: PrismaClient, analysisRunId: number) {
  const run = await prisma.analysisRun.findUnique({
    where: { id: analysisRunId },
    select: { subscriptionId: true },
  });
  if (!run) return;
  const f = await subscriptionForecast(prisma, run.subscriptionId);
  if (!f || f.budget === null || !(f.budget > 0)) return;
  const events: NotifyEvent[] = [];
  if (f.budgetStatus === 'atRisk' || f.budgetStatus === 'overBudget') events.push(forecastEvent(f));
  for (const threshold of [80, 100] as const) {
    if (f.actualToDate >= (f.budget * threshold) / 100) {
      events.push(
        budgetEvent({
          subscriptionId: f.subscriptionId,
          monthStart: f.monthStart,
          threshold,
          actualToDate: f.actualToDate,
          budget: f.budget,
          currency: f.currency,
        }),
      );
    }
  }
  await enqueueEvents(prisma, events);
}

export async function afterRunStored(deps: IntelDeps, analysisRunId: number): Promise<NewAnomaly[]> {
  try {
    const found = await detectForRun(deps.prisma, analysisRunId, deps.intel ?? DEFAULT_DETECT);
    if (found.length) deps.log.info({ analysisRunId, newAnomalies: found.length }, 'cost anomalies found');
    await enqueueBudgetEvents(deps.prisma, analysisRunId);
    return found;
  } catch (err) {
    deps.log.warn({ analysisRunId, err }, 'anomaly detection failed; the run is stored');
    return [];
  }
}
