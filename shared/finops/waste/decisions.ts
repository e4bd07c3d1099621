/**
 * People's decisions about flags: dismissals and snoozes of one flag on one resource (any user with
 * access to the subscription), exclusions by tag or resource group (administrators). They apply
 * when flags are read, not when they are computed, so a decision takes effect at once and a snooze
 * ends by itself when it expires, without waiting for the next analysis.
 */
import type { PrismaClient, WasteExclusion, WasteSuppression } from '../../db/generated/client.js';

export interface Decisions {
  suppressions: WasteSuppression[];
  exclusions: WasteExclusion[];
}

export interface Suppression {
  kind: 'dismissed' | 'snoozed' | 'excluded';
  id: number;
  by: string;
  reason: string;
  at: string;
  until: string | null;
}

/** The decisions in force at `now` (not revoked, not expired) for one subscription. */
export async function loadDecisions(
  prisma: PrismaClient,
  subscriptionId: string,
  now: Date,
): Promise<Decisions> {
  const [suppressions, exclusions] = await Promise.all([
    prisma.wasteSuppression.findMany({
      where: { subscriptionId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
      orderBy: { id: 'asc' },
    }),
    prisma.wasteExclusion.findMany({
      where: { subscriptionId, revokedAt: null },
      orderBy: { id: 'asc' },
    }),
  ]);
  return { suppressions, exclusions };
}

export interface FlaggedResourceRef {
  resourceId: string;
  resourceGroup: string;
  tags: Record<string, string>;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The decision that silences this flag, if any: an exclusion first, then the newest suppression. */
export function decisionFor(ref: FlaggedResourceRef, code: string, d: Decisions): Suppression | undefined {
  const group = ref.resourceGroup.toLowerCase();
  const tags = Object.entries(ref.tags).map(([k, v]) => [k.toLowerCase(), v.toLowerCase()] as const);
  for (const e of d.exclusions) {
    const hit =
      e.kind === 'resourceGroup'
        ? (e.resourceGroup ?? '').toLowerCase() === group
        : tags.some(
            ([k, v]) =>
              k === (e.tagName ?? '').toLowerCase() &&
              (e.tagValue === null || v === e.tagValue.toLowerCase()),
          );
    if (hit)
      return {
        kind: 'excluded',
        id: e.id,
        by: e.createdBy,
        reason: e.reason,
        at: e.createdAt.toISOString(),
        until: null,
      };
  }
  const id = ref.resourceId.toLowerCase();
  let found: WasteSuppression | undefined;
  for (const s of d.suppressions) if (s.resourceId === id && s.code === code) found = s;
  if (!found) return undefined;
  return {
    kind: found.kind === 'snoozed' ? 'snoozed' : 'dismissed',
    id: found.id,
    by: found.createdBy,
    reason: found.reason,
    at: found.createdAt.toISOString(),
    until: iso(found.expiresAt),
  };
}
