/** Wiring of our throttle policy into the SDK clients' pipelines, replacing the SDK's own retry. */
import type { Pipeline } from '@azure/core-rest-pipeline';
import { type ThrottleConfig, throttlePolicy } from './throttle-policy.js';

/** core-rest-pipeline's retry policy, added by createPipelineFromOptions in the Retry phase. */
const SDK_RETRY_POLICY = 'defaultRetryPolicy';

/**
 * Removes the SDK's retry policy and puts ours in its place (phase Retry: after serialization,
 * before the bearer-token policy, so every attempt is signed afresh). The clients are also built with
 * `retryOptions.maxRetries = 0`, so even if the policy name changes the SDK never retries on its own:
 * a 429 is retried exactly by one policy, ours.
 */
export function installThrottlePolicy(pipeline: Pipeline, cfg: ThrottleConfig): void {
  pipeline.removePolicy({ name: SDK_RETRY_POLICY });
  pipeline.addPolicy(throttlePolicy(cfg), { phase: 'Retry' });
}

/** Client options shared by the core-client based SDK clients. */
export function coreClientOptions(armEndpoint: string, ca: string | undefined) {
  return {
    endpoint: armEndpoint,
    // These generated clients build request URLs from `$host`, not from `endpoint`.
    $host: armEndpoint,
    retryOptions: { maxRetries: 0 },
    ...(ca ? { tlsOptions: { ca } } : {}),
  };
}
