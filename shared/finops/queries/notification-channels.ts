/**
 * Notification channels: where cost intelligence events go. A change is written with its audit
 * record, in one transaction.
 */
import { type AuditEntry, withAudit } from '../../audit/record.js';
import type { PrismaClient } from '../../db/client.js';
import { type NotificationChannel, Prisma } from '../../db/generated/client.js';

export const listChannels = (prisma: PrismaClient) =>
  prisma.notificationChannel.findMany({ orderBy: { id: 'asc' } });

export const channelById = (prisma: PrismaClient, id: number) =>
  prisma.notificationChannel.findUnique({ where: { id } });

export interface NewChannel {
  name: string;
  kind: string;
  target: string;
  secret: string | null;
  minImpact: number;
  subscriptionId: string | null;
  createdBy: string;
}

export const createChannel = (
  prisma: PrismaClient,
  c: NewChannel,
  audit: (row: NotificationChannel) => AuditEntry,
) =>
  withAudit(
    prisma,
    (tx) => tx.notificationChannel.create({ data: { ...c, minImpact: new Prisma.Decimal(c.minImpact) } }),
    audit,
  );

/** Deletes a channel and its pending deliveries (cascade); whether there was one. */
export async function deleteChannel(
  prisma: PrismaClient,
  id: number,
  audit: () => AuditEntry,
): Promise<boolean> {
  const r = await withAudit(
    prisma,
    (tx) => tx.notificationChannel.deleteMany({ where: { id } }),
    (deleted) => (deleted.count ? audit() : undefined),
  );
  return r.count > 0;
}
