/** Subscription lookup (display name) through @azure/arm-subscriptions. */

import { SubscriptionClient } from '@azure/arm-subscriptions';
import type { TokenCredential } from '@azure/core-auth';
import { coreClientOptions, installThrottlePolicy } from './pipeline.js';
import type { ThrottleConfig } from './throttle-policy.js';

export function createSubscriptionClient(
  credential: TokenCredential,
  armEndpoint: string,
  ca: string | undefined,
  throttle: ThrottleConfig,
): SubscriptionClient {
  const client = new SubscriptionClient(credential, coreClientOptions(armEndpoint, ca));
  installThrottlePolicy(client.pipeline, throttle);
  return client;
}

/** The subscription's display name (falls back to the id when the service has none). */
export async function getSubscriptionName(
  client: SubscriptionClient,
  subscriptionId: string,
): Promise<string> {
  const sub = await client.subscriptions.get(subscriptionId);
  return sub.displayName ?? subscriptionId;
}
