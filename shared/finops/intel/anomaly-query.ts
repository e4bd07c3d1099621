/** Reading and acknowledging stored anomalies. */

import type { z } from 'zod';
import type { PrismaClient } from '../../db/client.js';
import type { CostAnomaly, Prisma } from '../../db/generated/client.js';
import { countedPage } from '../../http/paging.js';
import type { Anomaly } from './contract.js';

export interface AnomalyFilter {
  subscriptionId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  status?: 'open' | 'acknowledged' | undefined;
}

export function anomalyOut(a: CostAnomaly): z.infer<typeof Anomaly> {
  return {
    id: a.id,
    subscriptionId: a.subscriptionId,
    scope: { kind: a.scopeKind as 'subscription', name: a.scopeName },
    kind: a.kind as 'spike',
    date: a.date.toISOString().slice(0, 10),
    expectedCost: Number(a.expectedCost),
    actualCost: Number(a.actualCost),
    impact: Number(a.impact),
    currency: a.currency,
    severity: a.severity as 'low',
    firstDetectedAt: a.firstDetectedAt.toISOString(),
    status: a.status as 'open',
    acknowledgedAt: a.acknowledgedAt?.toISOString() ?? null,
    acknowledgedBy: a.acknowledgedBy,
    note: a.note,
    analysisRunId: a.analysisRunId,
  };
}

export async function listAnomalies(prisma: PrismaClient, f: AnomalyFilter, skip: number, take: number) {
  const where: Prisma.CostAnomalyWhereInput = {
    ...(f.subscriptionId ? { subscriptionId: f.subscriptionId } : {}),
    ...(f.from || f.to
      ? { date: { ...(f.from ? { gte: f.from } : {}), ...(f.to ? { lte: f.to } : {}) } }
      : {}),
    ...(f.status ? { status: f.status } : {}),
  };
  const { rows, total } = await countedPage(
    () => prisma.costAnomaly.findMany({ where, orderBy: [{ date: 'desc' }, { id: 'desc' }], skip, take }),
    { skip, take },
    () => prisma.costAnomaly.count({ where }),
  );
  return { rows: rows.map(anomalyOut), total };
}

/** Marks an anomaly acknowledged (again: keeps the first acknowledgement, replaces the note if one is given). */
export async function acknowledgeAnomaly(
  prisma: Pick<PrismaClient, 'costAnomaly'> | Prisma.TransactionClient,
  id: number,
  by: string,
  note: string | undefined,
) {
  const row = await prisma.costAnomaly.findUnique({ where: { id } });
  if (!row) return undefined;
  const updated = await prisma.costAnomaly.update({
    where: { id },
    data: {
      status: 'acknowledged',
      acknowledgedAt: row.acknowledgedAt ?? new Date(),
      acknowledgedBy: row.acknowledgedBy ?? by,
      ...(note !== undefined ? { note } : {}),
    },
  });
  return anomalyOut(updated);
}

/** The subscription an anomaly is about, or undefined when there is no such anomaly. */
export async function anomalySubscription(prisma: PrismaClient, id: number): Promise<string | undefined> {
  const row = await prisma.costAnomaly.findUnique({ where: { id }, select: { subscriptionId: true } });
  return row?.subscriptionId;
}
