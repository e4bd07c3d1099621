import type { PrismaClient } from '../db/client.js';
import type { Prisma } from '../db/generated/client.js';
import { countedPage } from '../http/paging.js';

export interface AuditFilter {
  /** Records where this user acted or was acted upon. */
  userId?: string;
  actions?: string[];
  from?: Date;
  to?: Date;
}

export interface AuditRecordDto {
  id: number;
  at: string;
  actorId: string | null;
  actorEmail: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: unknown;
  clientAddress: string | null;
  userAgent: string | null;
}

function where(f: AuditFilter): Prisma.AuditRecordWhereInput {
  const and: Prisma.AuditRecordWhereInput[] = [];
  if (f.userId) and.push({ OR: [{ actorId: f.userId }, { targetType: 'user', targetId: f.userId }] });
  if (f.actions?.length) and.push({ action: { in: f.actions } });
  if (f.from || f.to) and.push({ at: { ...(f.from ? { gte: f.from } : {}), ...(f.to ? { lt: f.to } : {}) } });
  return and.length ? { AND: and } : {};
}

/** One page of records, newest first, and how many match. */
export async function listAudit(
  prisma: PrismaClient,
  filter: AuditFilter,
  skip: number,
  take: number,
): Promise<{ rows: AuditRecordDto[]; total: number }> {
  const w = where(filter);
  const { rows, total } = await countedPage(
    () => prisma.auditRecord.findMany({ where: w, orderBy: [{ at: 'desc' }, { id: 'desc' }], skip, take }),
    { skip, take },
    () => prisma.auditRecord.count({ where: w }),
  );
  return {
    rows: rows.map((r) => ({
      id: Number(r.id),
      at: r.at.toISOString(),
      actorId: r.actorId,
      actorEmail: r.actorEmail,
      action: r.action,
      targetType: r.targetType,
      targetId: r.targetId,
      details: r.details ?? null,
      clientAddress: r.clientAddress,
      userAgent: r.userAgent,
    })),
    total,
  };
}

/** Rows removed per statement: small enough to stay far inside the statement timeout on a large trail. */
export const PRUNE_BATCH = 5_000;

/**
 * Deletes records older than the retention, a batch per statement (oldest first, by the `at`
 * index), so a trail that grew for years never needs one long DELETE that would hit
 * Database__StatementTimeoutSeconds and roll back everything; answers how many went.
 */
export async function pruneAudit(
  prisma: PrismaClient,
  retentionDays: number,
  now = Date.now(),
  batch = PRUNE_BATCH,
): Promise<number> {
  const cutoff = new Date(now - retentionDays * 86_400_000);
  let removed = 0;
  for (;;) {
    const n = await prisma.$executeRaw`
      DELETE FROM "AuditRecords" WHERE id IN (
        SELECT id FROM "AuditRecords" WHERE at < ${cutoff} ORDER BY at LIMIT ${batch})`;
    removed += n;
    if (n < batch) return removed;
  }
}

const PRUNE_EVERY_MS = 60 * 60_000;
const lastPrune = new WeakMap<PrismaClient, number>();

/**
 * Whether this process should prune now: at most once an hour per database client, so the
 * trail is kept to its retention without a timer of its own (the weekly timer can be off).
 */
export function pruneDue(prisma: PrismaClient, now = Date.now()): boolean {
  const last = lastPrune.get(prisma);
  if (last !== undefined && now - last < PRUNE_EVERY_MS) return false;
  lastPrune.set(prisma, now);
  return true;
}
