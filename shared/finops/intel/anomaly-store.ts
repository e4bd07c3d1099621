/**
 * Runs anomaly detection on the history a run stored and keeps what it finds: one CostAnomalies row
 * per (subscription, scope, kind, date), so a later run that finds the same anomaly keeps the row
 * (its status and note too) instead of adding a duplicate.
 */
import type { PrismaClient } from '../../db/client.js';
import { Prisma } from '../../db/generated/client.js';
import { anomalyEvent, enqueueEvents } from '../../notify/events.js';
import { type DetectSettings, detectAnomalies } from './detect.js';
import { addDays, buildSeries, type HistoryRow, type ScopeKind } from './series.js';

export interface NewAnomaly {
  id: number;
  subscriptionId: string;
  scopeKind: ScopeKind;
  scopeName: string;
  kind: string;
  date: Date;
  impact: number;
  currency: string;
}

/**
 * The history of a run as the series builder reads it: Total and ResourceGroup rows as stored, and
 * Service rows summed per day and service in the database (a large subscription stores one per
 * day, group and service: hundreds of thousands, which need not cross into the process).
 */
export async function runHistory(prisma: PrismaClient, analysisRunId: number): Promise<HistoryRow[]> {
  const rows = await prisma.historicalCost.findMany({
    where: { analysisRunId, costType: { in: ['Total', 'ResourceGroup'] } },
    select: { costDate: true, costType: true, resourceGroup: true, name: true, cost: true },
  });
  const services = await prisma.historicalCost.groupBy({
    by: ['costDate', 'name'],
    where: { analysisRunId, costType: 'Service' },
    _sum: { cost: true },
  });
  return [
    ...rows.map((r) => ({ ...r, cost: Number(r.cost) })),
    ...services.map((r) => ({
      costDate: r.costDate,
      costType: 'Service',
      resourceGroup: null,
      name: r.name,
      cost: Number(r._sum.cost ?? 0),
    })),
  ];
}

/**
 * Detects anomalies on the run's history (subscription, each resource group, each service) and
 * stores the new ones. Returns only those this call inserted.
 */
export async function detectForRun(
  prisma: PrismaClient,
  analysisRunId: number,
  settings: DetectSettings,
): Promise<NewAnomaly[]> {
  const run = await prisma.analysisRun.findUnique({
    where: { id: analysisRunId },
    select: { subscriptionId: true, currency: true, runDate: true },
  });
  if (!run) return [];
  const subscriptionId = run.subscriptionId.toLowerCase();
  const all = buildSeries(subscriptionId, await runHistory(prisma, analysisRunId), run.runDate);
  if (!all) return [];
  const data: Prisma.CostAnomalyCreateManyInput[] = [];
  for (const s of all.series) {
    for (const a of detectAnomalies(s.values, settings)) {
      data.push({
        subscriptionId,
        scopeKind: s.scope.kind,
        scopeName: s.scope.name,
        kind: a.kind,
        date: addDays(all.firstDay, a.index),
        expectedCost: new Prisma.Decimal(a.expected),
        actualCost: new Prisma.Decimal(a.actual),
        impact: new Prisma.Decimal(a.impact),
        currency: run.currency,
        severity: a.severity,
        analysisRunId,
      });
    }
  }
  if (!data.length) return [];
  // Anomalies and their notifications in one transaction: a crash between detecting and sending
  // cannot lose an event (a later run would find the anomaly already stored, hence not new).
  const created = await prisma.$transaction(async (tx) => {
    const rows = await tx.costAnomaly.createManyAndReturn({ data, skipDuplicates: true });
    await enqueueEvents(
      tx,
      rows.map((c) => anomalyEvent({ ...c, impact: Number(c.impact) })),
    );
    return rows;
  });
  return created.map((c) => ({
    id: c.id,
    subscriptionId: c.subscriptionId,
    scopeKind: c.scopeKind as ScopeKind,
    scopeName: c.scopeName,
    kind: c.kind,
    date: c.date,
    impact: Number(c.impact),
    currency: c.currency,
  }));
}
