/**
 * The analysis's flag step: every resource's flags (and those of empty resource groups, which then
 * become rows), Advisor's cost recommendations merged in, each flag aged by when it was first seen.
 */
import type { PrismaClient } from '../../db/generated/client.js';
import type { Logger } from '../../observability/logger.js';
import type { AzureAccess, AzureResource } from '../azure/index.js';
import { type MergedFlag, mergeAdvisor } from './advisor-merge.js';
import { round4, upper } from './cost-aggregate.js';
import { type AgeThresholds, applyAge, DEFAULT_AGE_THRESHOLDS, loadFirstSeen } from './flag-age.js';
import { computeFlags } from './flags.js';
import { buildInventory, RESOURCE_GROUP_TYPE } from './inventory.js';
import type { AnalysisPeriod } from './period.js';
import type { FlaggedResource } from './recommendations.js';

/** Period cost × this = monthly run-rate: the month's days over the days covered (1 for a full month). */
export function runRateFactor(from: string, to: string): number {
  const start = Date.parse(`${from}T00:00:00Z`);
  const covered = (Date.parse(`${to}T00:00:00Z`) - start) / 86_400_000 + 1;
  const d = new Date(start);
  const monthDays = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  return covered > 0 ? monthDays / covered : 1;
}

export interface FlagInput {
  subscriptionId: string;
  now: Date;
  period: AnalysisPeriod;
  /** The resources; flagged resource groups are appended to it. */
  resources: AzureResource[];
  groups: AzureResource[];
  advisor: Awaited<ReturnType<NonNullable<AzureAccess['listAdvisorCostRecommendations']>>>;
  byResourceId: Map<string, number>;
  currency: string;
}

export interface Flagged {
  /** Flags by index into the resources. */
  flagsByIndex: Map<number, MergedFlag[]>;
  /** Flagged resources, costliest first. */
  flagged: FlaggedResource[];
  /** Resources per type (resource groups left out). */
  typeCounts: Map<string, number>;
}

export async function flagResources(
  deps: { prisma: PrismaClient; log: Logger; ageThresholds?: AgeThresholds | undefined },
  f: FlagInput,
): Promise<Flagged> {
  const { resources, byResourceId } = f;
  const flagsByIndex = new Map<number, MergedFlag[]>();
  const flagged: FlaggedResource[] = [];
  const typeCounts = new Map<string, number>();
  const flagContext = {
    now: f.now,
    inventory: buildInventory(resources),
    runRateFactor: runRateFactor(f.period.from, f.period.to),
    costOf: (id: string) => byResourceId.get(id),
  };
  const firstSeen = await loadFirstSeen(deps.prisma, f.subscriptionId);
  const thresholds = deps.ageThresholds ?? DEFAULT_AGE_THRESHOLDS;
  // Resource groups are rows only when flagged (an empty group): they are containers, not resources.
  for (const g of f.groups) if (computeFlags(g, undefined, flagContext).length) resources.push(g);
  const snapshotSize = resources.length;
  resources.forEach((r, i) => {
    const flags = computeFlags(r, byResourceId.get(r.id.toLowerCase()), flagContext);
    if (flags.length) flagsByIndex.set(i, flags);
  });
  const advisorMerge = mergeAdvisor(resources, flagsByIndex, f.advisor, f.currency, flagContext.costOf);
  deps.log.debug(
    { subscriptionId: f.subscriptionId, ...advisorMerge },
    'Advisor cost recommendations merged',
  );
  resources.forEach((r, i) => {
    if (i < snapshotSize && r.type !== RESOURCE_GROUP_TYPE)
      typeCounts.set(r.type, (typeCounts.get(r.type) ?? 0) + 1);
    const cost = byResourceId.get(r.id.toLowerCase());
    const flags = flagsByIndex.get(i) ?? [];
    applyAge(r, flags, firstSeen, f.now, thresholds);
    if (flags.length) {
      flagged.push({
        name: r.name,
        type: r.type,
        resourceGroup: upper(r.resourceGroup),
        flags,
        monthToDateCost: cost !== undefined && cost > 0 ? round4(cost) : null,
      });
    }
  });
  flagged.sort((a, b) => (b.monthToDateCost ?? 0) - (a.monthToDateCost ?? 0));
  return { flagsByIndex, flagged, typeCounts };
}
