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

const DAY_MS = 86_400_000;

/**
 * The history of a run as the series builder reads it: one cost per day and scope, summed in the
 * database and read as doubles (float8), never as Decimal objects, and sent as one row per scope
 * (its days and costs as two arrays). A large subscription stores a Service row per day, group and
 * service and a ResourceGroup row per day and group: hundreds of thousands of rows, of which only
 * the daily sums of a few hundred scopes cross into the process. A sum is the exact numeric sum
 * converted once, which is what the stored row itself reads as when it is the only one of its day
 * and scope (an analysis stores one Total per day and one row per day and group). Ordered, so the
 * series (and the anomalies found) come in the same order on every read. The rows are made one at
 * a time as they are iterated.
 */
export async function runHistory(prisma: PrismaClient, analysisRunId: number): Promise<Iterable<HistoryRow>> {
  const scopes = await prisma.$queryRawUnsafe<
    Array<{ costType: string; scope: string | null; days: number[]; costs: number[] }>
  >(
    `SELECT "costType", scope, array_agg(day ORDER BY day) AS days, array_agg(cost ORDER BY day) AS costs
     FROM (SELECT "costType",
                  CASE "costType" WHEN 'ResourceGroup' THEN "resourceGroup" WHEN 'Service' THEN "name" END AS scope,
                  ("costDate"::date - DATE '1970-01-01') AS day,
                  sum("cost")::float8 AS cost
           FROM "HistoricalCosts"
           WHERE "analysisRunId" = $1::integer
             AND ("costType" = 'Total'
                  OR ("costType" = 'ResourceGroup' AND "resourceGroup" IS NOT NULL)
                  OR ("costType" = 'Service' AND "name" IS NOT NULL))
           GROUP BY 1, 2, 3) daily
     GROUP BY 1, 2
     ORDER BY CASE "costType" WHEN 'Total' THEN 0 WHEN 'ResourceGroup' THEN 1 ELSE 2 END, 2`,
    analysisRunId,
  );
  return {
    *[Symbol.iterator]() {
      for (const { costType, scope, days, costs } of scopes) {
        const resourceGroup = costType === 'ResourceGroup' ? scope : null;
        const name = costType === 'Service' ? scope : null;
        for (let i = 0; i < days.length; i++) {
          yield { costDate: new Date(days[i]! * DAY_MS), costType, resourceGroup, name, cost: costs[i]! };
        }
      }
    },
  };
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
  const subscriptionId = run.subscriptionId;
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
