/**
 * The stored decisions about waste findings: dismissals and snoozes of one finding, exclusions by
 * tag or resource group. Rows are never deleted: revoking sets who and when, so the history stays.
 * Each write is made with its audit record, in one transaction.
 */

import { type AuditEntry, withAudit } from '../../audit/record.js';
import type { PrismaClient, WasteExclusion, WasteSuppression } from '../../db/generated/client.js';
import { countedPage } from '../../http/paging.js';

/** Every dismissal and snooze of a subscription, revoked and expired ones included, oldest first. */
export const listSuppressions = (prisma: PrismaClient, subscriptionId: string, skip: number, take: number) =>
  countedPage(
    () => prisma.wasteSuppression.findMany({ where: { subscriptionId }, orderBy: { id: 'asc' }, skip, take }),
    { skip, take },
    () => prisma.wasteSuppression.count({ where: { subscriptionId } }),
  );

/** Every exclusion of a subscription, revoked ones included, oldest first. */
export const listExclusions = (prisma: PrismaClient, subscriptionId: string, skip: number, take: number) =>
  countedPage(
    () => prisma.wasteExclusion.findMany({ where: { subscriptionId }, orderBy: { id: 'asc' }, skip, take }),
    { skip, take },
    () => prisma.wasteExclusion.count({ where: { subscriptionId } }),
  );

/** The dismissal or snooze of one finding in force at `now`, if any. */
export const suppressionInForce = (
  prisma: PrismaClient,
  f: { subscriptionId: string; resourceId: string; code: string },
  now: Date,
) =>
  prisma.wasteSuppression.findFirst({
    where: { ...f, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
  });

export type NewSuppression = Pick<
  WasteSuppression,
  'subscriptionId' | 'resourceId' | 'code' | 'kind' | 'reason' | 'expiresAt' | 'createdBy' | 'createdAt'
>;

export const createSuppression = (
  prisma: PrismaClient,
  data: NewSuppression,
  audit: (row: WasteSuppression) => AuditEntry,
) => withAudit(prisma, (tx) => tx.wasteSuppression.create({ data }), audit);

export type NewExclusion = Pick<
  WasteExclusion,
  'subscriptionId' | 'kind' | 'tagName' | 'tagValue' | 'resourceGroup' | 'reason' | 'createdBy'
>;

export const createExclusion = (
  prisma: PrismaClient,
  data: NewExclusion,
  audit: (row: WasteExclusion) => AuditEntry,
) => withAudit(prisma, (tx) => tx.wasteExclusion.create({ data }), audit);

/**
 * Revokes a dismissal or snooze of the subscription: the row as it is now (unchanged when it was
 * revoked already, with no audit record then), or null when the subscription has no such row.
 */
export async function revokeSuppression(
  prisma: PrismaClient,
  ref: { id: number; subscriptionId: string },
  by: string,
  audit: (row: WasteSuppression) => AuditEntry,
): Promise<WasteSuppression | null> {
  const row = await prisma.wasteSuppression.findFirst({ where: ref });
  if (!row || row.revokedAt) return row;
  return withAudit(
    prisma,
    (tx) =>
      tx.wasteSuppression.update({ where: { id: ref.id }, data: { revokedAt: new Date(), revokedBy: by } }),
    audit,
  );
}

/** Revokes an exclusion of the subscription; as revokeSuppression. */
export async function revokeExclusion(
  prisma: PrismaClient,
  ref: { id: number; subscriptionId: string },
  by: string,
  audit: (row: WasteExclusion) => AuditEntry,
): Promise<WasteExclusion | null> {
  const row = await prisma.wasteExclusion.findFirst({ where: ref });
  if (!row || row.revokedAt) return row;
  return withAudit(
    prisma,
    (tx) =>
      tx.wasteExclusion.update({ where: { id: ref.id }, data: { revokedAt: new Date(), revokedBy: by } }),
    audit,
  );
}
