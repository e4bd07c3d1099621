/**
 * How long each flag has been true. finwatch remembers when it first saw a flag on a resource by
 * carrying `firstSeenAt` from the subscription's previous run (same resource id, same code) into the
 * new one; a flag absent from a run starts again when it returns. Age-gated rules (unattached disks,
 * deallocated VMs) count as waste only from a minimum age; younger flags have status "watch".
 */
import type { PrismaClient } from '../../db/generated/client.js';
import type { AzureResource } from '../azure/index.js';
import type { ResourceFlag } from './flags.js';
import { daysSince, get } from './resource-fields.js';
import { RULES, type Rule } from './waste-rules.js';

export interface AgeThresholds {
  unattachedDiskMinAgeDays: number;
  deallocatedVmMinAgeDays: number;
}

export const DEFAULT_AGE_THRESHOLDS: AgeThresholds = {
  unattachedDiskMinAgeDays: 30,
  deallocatedVmMinAgeDays: 30,
};

/** `${lower-case resource id}\0${code}` → first seen (ISO 8601). */
export type FirstSeen = Map<string, string>;

export const flagKey = (resourceId: string, code: string) => `${resourceId.toLowerCase()}\u0000${code}`;

const RULE_BY_CODE = new Map<string, Rule>(RULES.map((r) => [r.code, r]));
const DAY_MS = 86_400_000;

/** The subscription's latest run, before this one, and the first-seen times of its flags. */
export async function loadFirstSeen(prisma: PrismaClient, subscriptionId: string): Promise<FirstSeen> {
  const out: FirstSeen = new Map();
  const run = await prisma.analysisRun.findFirst({
    where: { subscriptionId },
    orderBy: [{ runDate: 'desc' }, { id: 'desc' }],
    select: { id: true, runDate: true },
  });
  if (!run) return out;
  const rows = await prisma.resourceAnalysis.findMany({
    where: { analysisRunId: run.id, NOT: { flags: '' } },
    select: { resourceId: true, flagDetails: true },
  });
  for (const row of rows) {
    if (!Array.isArray(row.flagDetails)) continue;
    for (const f of row.flagDetails as Array<Partial<ResourceFlag>>) {
      if (typeof f.code !== 'string') continue;
      // Runs from before first-seen tracking: the flag was there at that run at the latest.
      out.set(flagKey(row.resourceId, f.code), f.firstSeenAt ?? run.runDate.toISOString());
    }
  }
  return out;
}

/**
 * When the condition of an age-gated flag began, according to the resource itself: a disk's
 * LastOwnershipUpdateTime is when it was last detached, so a disk detached long before finwatch's
 * first run is not "new".
 */
function evidenceSince(resource: AzureResource, rule: Rule): string | undefined {
  if (rule.ageGated !== 'unattachedDisk') return undefined;
  const t = get(resource.properties, 'LastOwnershipUpdateTime');
  return typeof t === 'string' && !Number.isNaN(Date.parse(t)) ? new Date(t).toISOString() : undefined;
}

/** Sets firstSeenAt, ageDays and status (active or watch) on the flags of one resource. */
export function applyAge(
  resource: AzureResource,
  flags: ResourceFlag[],
  firstSeen: FirstSeen,
  now: Date,
  thresholds: AgeThresholds,
): void {
  for (const flag of flags) {
    const rule = RULE_BY_CODE.get(flag.code);
    const candidates = [firstSeen.get(flagKey(resource.id, flag.code)), now.toISOString()];
    if (rule) candidates.push(evidenceSince(resource, rule));
    const earliest = candidates
      .filter((c): c is string => c !== undefined)
      .reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b));
    flag.firstSeenAt = earliest;
    flag.ageDays = Math.max(0, Math.floor(daysSince(earliest, now) ?? 0));
    const min =
      rule?.ageGated === 'unattachedDisk'
        ? thresholds.unattachedDiskMinAgeDays
        : rule?.ageGated === 'deallocatedVm'
          ? thresholds.deallocatedVmMinAgeDays
          : 0;
    const exactAge = (now.getTime() - Date.parse(earliest)) / DAY_MS;
    flag.status = exactAge >= min ? 'active' : 'watch';
  }
}
