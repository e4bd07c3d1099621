/**
 * What changed between a subscription's two latest runs: findings that are new (on a resource and
 * code the previous run did not flag) and findings that were resolved (flagged before, not now).
 */
import type { PrismaClient } from '../../db/generated/client.js';
import { flagKey } from '../engine/flag-age.js';
import { type RunRef, runItems, type WasteItem } from './items.js';

export async function latestRuns(prisma: PrismaClient, subscriptionId: string, n: number): Promise<RunRef[]> {
  return prisma.analysisRun.findMany({
    where: { subscriptionId },
    orderBy: [{ runDate: 'desc' }, { id: 'desc' }],
    take: n,
    select: { id: true, subscriptionId: true, runDate: true, currency: true },
  });
}

export async function changesSincePreviousRun(prisma: PrismaClient, subscriptionId: string, now: Date) {
  const [latest, previous] = await latestRuns(prisma, subscriptionId, 2);
  if (!latest) return null;
  const current = await runItems(prisma, latest, now);
  const before = previous ? await runItems(prisma, previous, now) : [];
  const keys = (items: WasteItem[]) => new Set(items.map((i) => flagKey(i.resourceId, i.code)));
  const nowKeys = keys(current);
  const beforeKeys = keys(before);
  return {
    subscriptionId,
    analysisRunId: latest.id,
    runDate: latest.runDate.toISOString(),
    previousAnalysisRunId: previous?.id ?? null,
    previousRunDate: previous?.runDate.toISOString() ?? null,
    // Without a previous run every finding is new.
    new: current.filter((i) => !beforeKeys.has(flagKey(i.resourceId, i.code))),
    resolved: before.filter((i) => !nowKeys.has(flagKey(i.resourceId, i.code))),
  };
}

/** The run's reference for its findings, or null when there is no such run. */
export const runRef = (prisma: PrismaClient, id: number): Promise<RunRef | null> =>
  prisma.analysisRun.findUnique({
    where: { id },
    select: { id: true, subscriptionId: true, runDate: true, currency: true },
  });
