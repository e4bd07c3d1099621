import type { PrismaClient } from '../../shared/db/client.js';

/** The audit records of one action on one target, oldest first, as an admin would list them. */
export async function auditRecordsOf(prisma: PrismaClient, action: string, targetId: string | number) {
  return prisma.auditRecord.findMany({
    where: { action, targetId: String(targetId) },
    orderBy: { id: 'asc' },
  });
}
