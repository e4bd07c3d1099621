import type { HttpRequest } from '@azure/functions';
import type { Caller } from '../auth/caller.js';
import type { Prisma, PrismaClient } from '../db/generated/client.js';
import { clientOf } from '../http/client.js';

/** Every action the audit trail knows; a name says what happened, dotted by subject. */
export const AUDIT_ACTIONS = [
  'signIn.succeeded',
  'signIn.failed',
  'password.changed',
  'password.changeFailed',
  'password.reset',
  'password.resetRequested',
  'user.created',
  'user.updated',
  'user.deleted',
  'user.sessionsRevoked',
  'admin.granted',
  'admin.revoked',
  'userClusters.changed',
  'userSubscriptions.changed',
  'monitorGroups.changed',
  'deviceToken.added',
  'subscription.created',
  'subscription.updated',
  'subscription.deleted',
  'analysis.started',
  'analysis.cleanup',
  'anomaly.acknowledged',
  'notificationChannel.created',
  'notificationChannel.deleted',
  'waste.suppressed',
  'waste.suppressionRevoked',
  'waste.excluded',
  'waste.exclusionRevoked',
  'metricsIngestKey.created',
  'metricsIngestKey.revoked',
  'metrics.cleanup',
] as const;

/** Known actions, or another's (`anomaly.acknowledged`): the trail does not gate what it records. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number] | (string & {});

/** Who did it: the caller of a route, a user known by id/email, or nobody (anonymous, the system). */
export type AuditActor =
  | Pick<Caller, 'userId' | 'email'>
  | { userId?: string | null; email?: string | null }
  | null;

export interface AuditEntry {
  actor: AuditActor;
  action: AuditAction;
  /** What it was done to: `{ type: 'user', id }`, `{ type: 'subscription', id }`. */
  target?: { type: string; id: string | number };
  /** Small facts worth keeping (changed fields, a reason); never secrets. */
  details?: Record<string, unknown>;
  /** The request it came with: client address and user agent are taken from it. */
  request?: Pick<HttpRequest, 'headers'>;
}

const MAX_TEXT = 320;

/** PostgreSQL text cannot hold NUL; typed names are bounded. */
function text(value: string | null | undefined): string | null {
  return value ? value.replaceAll('\u0000', '').slice(0, MAX_TEXT) : null;
}

/** A Prisma client or the transaction of the action being audited. */
export type AuditWriter = Pick<Prisma.TransactionClient, 'auditRecord'>;

/**
 * Writes one record. Pass the transaction of the action it describes, so the action and its record
 * commit together or neither does: `await prisma.$transaction(async (tx) => { …; await
 * recordAudit(tx, { actor: caller, action: 'user.updated', target: { type: 'user', id }, request }) })`.
 */
export async function recordAudit(db: AuditWriter, entry: AuditEntry): Promise<void> {
  const client = entry.request ? clientOf(entry.request) : undefined;
  const actor = entry.actor;
  await db.auditRecord.create({
    data: {
      actorId: text(actor?.userId),
      // What a refused sign-in typed is kept, but never as a reason for the record to fail.
      actorEmail: text(actor?.email),
      action: entry.action,
      targetType: entry.target?.type ?? null,
      targetId: text(entry.target ? String(entry.target.id) : null),
      details: (entry.details ?? undefined) as Prisma.InputJsonValue | undefined,
      clientAddress: client?.address ?? null,
      userAgent: client?.userAgent ?? null,
    },
  });
}

/**
 * Runs a write and writes its audit records in the same transaction; `entry` describes the write
 * from its result (undefined: nothing happened, nothing to record; a list: one record for each
 * thing it changed).
 */
export async function withAudit<T>(
  prisma: PrismaClient,
  write: (tx: Prisma.TransactionClient) => Promise<T>,
  entry: (result: T) => AuditEntry | AuditEntry[] | undefined,
): Promise<T> {
  return prisma.$transaction(async (tx) => {
    const result = await write(tx);
    const e = entry(result);
    for (const one of e === undefined ? [] : Array.isArray(e) ? e : [e]) await recordAudit(tx, one);
    return result;
  });
}

/** Who made a change and the request it came with: the part of its audit record a route knows. */
export type ChangeBy = Pick<AuditEntry, 'actor' | 'request'>;
