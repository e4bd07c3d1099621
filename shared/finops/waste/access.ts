/**
 * Who may decide about a subscription's flags: administrators, and users the subscription is
 * assigned to (UserSubscriptions, managed through the auth service).
 */
import type { Caller } from '../../auth/caller.js';
import { GUID } from '../../config/fields.js';
import type { PrismaClient } from '../../db/generated/client.js';
import { forbidden } from '../../http/problem.js';

export async function assertSubscriptionAccess(
  prisma: PrismaClient,
  caller: Caller,
  subscriptionId: string,
): Promise<void> {
  if (caller.isAdmin) return;
  // Directory callers without a local user row have no assignments (UserSubscriptions is keyed by uuid).
  if (GUID.test(caller.userId)) {
    const row = await prisma.userSubscription.findFirst({
      where: { userId: caller.userId, subscriptionId },
      select: { userId: true },
    });
    if (row) return;
  }
  throw forbidden('You have no access to this subscription.');
}
