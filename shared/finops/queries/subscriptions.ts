import type { PrismaClient } from '../../db/client.js';
import { Prisma, type Subscription } from '../../db/generated/client.js';
import { DEFAULT_INFRA_SUPPORT_COST } from './mappers.js';
import { rawPage } from './raw-page.js';

/**
 * Subscriptions metadata (description, budget, infra support cost) keyed by the cloud
 * subscription id. Ids are GUIDs, stored lower-case and trimmed (W11) so one subscription never
 * gets two rows through casing or stray spaces; joins with AnalysisRuns compare lower-case too.
 */
/** The client, or the transaction that also writes the change's audit record. */
type Writer = Pick<Prisma.TransactionClient, 'subscription'>;

export function listSubscriptions(prisma: PrismaClient, skip: number, take: number) {
  return rawPage<Subscription>(
    prisma,
    Prisma.sql`"Subscriptions"`,
    Prisma.sql`ORDER BY "subscriptionId", id`,
    skip,
    take,
  );
}

export const subscriptionById = (prisma: PrismaClient, id: number) =>
  prisma.subscription.findUnique({ where: { id } });

export const subscriptionByCloudId = (prisma: PrismaClient, subscriptionId: string) =>
  prisma.subscription.findUnique({ where: { subscriptionId } });

export interface SubscriptionUpsert {
  subscriptionId: string;
  description?: string | null | undefined;
  budget?: number | null | undefined;
  infraSupportCost?: number | null | undefined;
}

/**
 * POST semantics: upsert by subscriptionId in one statement (INSERT ... ON CONFLICT),
 * so concurrent posts of the same id do not race into a 409. `description` null/omitted → "";
 * `budget` omitted or null clears it; `infraSupportCost` defaults to 400 on create and changes on
 * update only when sent.
 */
export async function upsertSubscription(prisma: Writer, input: SubscriptionUpsert) {
  const { subscriptionId } = input;
  // Whether the row is new, for the audit record written in the same transaction.
  const existed = await prisma.subscription.findUnique({ where: { subscriptionId }, select: { id: true } });
  const description = input.description ?? '';
  const budget =
    input.budget === undefined || input.budget === null ? null : new Prisma.Decimal(input.budget);
  const infra =
    input.infraSupportCost === undefined || input.infraSupportCost === null
      ? undefined
      : new Prisma.Decimal(input.infraSupportCost);
  const row = await prisma.subscription.upsert({
    where: { subscriptionId },
    create: {
      subscriptionId,
      description,
      budget,
      infraSupportCost: infra ?? new Prisma.Decimal(DEFAULT_INFRA_SUPPORT_COST),
    },
    update: {
      description,
      budget,
      ...(infra ? { infraSupportCost: infra } : {}),
      updatedAt: new Date(),
    },
  });
  return { row, created: !existed };
}

export interface SubscriptionPatch {
  description?: string | null | undefined;
  budget?: number | null | undefined;
  infraSupportCost?: number | null | undefined;
}

/** PUT semantics: only the fields present change (W10); budget null clears it. null when unknown. */
export async function updateSubscription(prisma: Writer, id: number, patch: SubscriptionPatch) {
  const data: Prisma.SubscriptionUpdateInput = { updatedAt: new Date() };
  if (patch.description !== undefined) data.description = patch.description ?? '';
  if (patch.budget !== undefined)
    data.budget = patch.budget === null ? null : new Prisma.Decimal(patch.budget);
  if (patch.infraSupportCost !== undefined && patch.infraSupportCost !== null) {
    data.infraSupportCost = new Prisma.Decimal(patch.infraSupportCost);
  }
  const r = await prisma.subscription.updateMany({ where: { id }, data });
  if (r.count === 0) return null;
  return prisma.subscription.findUnique({ where: { id } });
}

/** Deletes a row; the cloud id it held (for the audit record), or null when there was none. */
export async function deleteSubscription(prisma: Writer, id: number): Promise<string | null> {
  const row = await prisma.subscription.findUnique({ where: { id }, select: { subscriptionId: true } });
  if (!row) return null;
  const r = await prisma.subscription.deleteMany({ where: { id } });
  return r.count > 0 ? row.subscriptionId : null;
}
