/** Which subscriptions the weekly timer analyses. */
import { GUID } from '../../config/fields.js';
import type { PrismaClient } from '../../db/generated/client.js';

/** The configured ids and the onboarded ones, each once, in that order. */
export async function weeklySubscriptionIds(
  configured: readonly string[],
  prisma: PrismaClient,
): Promise<string[]> {
  const onboarded = await prisma.subscription.findMany({ select: { subscriptionId: true } });
  const seen = new Set<string>();
  const ids: string[] = [];
  // Configured ids are lower-cased by the configuration schema; a Subscriptions row is written in
  // lower case by the API, and a row put there by hand is lowered here, so no job is doubled.
  for (const id of [...configured, ...onboarded.map((s) => s.subscriptionId.trim().toLowerCase())]) {
    if (!GUID.test(id) || seen.has(id)) continue;
    seen.add(id);
    ids.push(id);
  }
  return ids;
}
